/* The server: a TCP listener, the fixed-step clock and the clean stop on SIGINT/SIGTERM.
 *
 * The clock is an accumulator ("Fix Your Timestep!", Glenn Fiedler): real time is added up and
 * spent in fixed steps of 1/tick_hz, so the world advances the same way however the timer
 * fires. After a stall at most max_catchup steps run at once and the rest of the debt is
 * dropped (and logged), so a slow step cannot make the next one slower in a spiral. */
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "durable.h"
#include "events.h"
#include "health.h"
#include "net_server.h"
#include "ops.h"
#include "players.h"
#include "session.h"
#include "snapshot.h"
#include "snapshot_write.h"
#include "tcp.h"

#define STOP_GRACE_MS 500 /* after this, clients that have not drained are closed hard */

net_config net_config_default(void)
{
    /* Grouped by concern: where, how often, what a client may ask and leave unread, and the
     * HTTP port with its health and stop times. */
    return (net_config){
        .host = "0.0.0.0", .port = 7777,
        .tick_hz = 60.0, .snapshot_hz = 20.0, .max_catchup = 5,
        .max_clients = 256, .bodies_per_client = 64,
        .out_soft_limit = 1u << 20, .out_soft_seconds = 10.0, .out_hard_limit = 4u << 20,
        .max_line = PROTO_MAX_LINE, .hello_timeout = 10.0,
        .msg_rate = 200.0, .spawn_rate = 20.0,
        .http_port = 7778, .http_max_connections = 64, .http_max_header = 4096,
        .http_timeout = 5, .stall_seconds = 5.0, .drain_seconds = 10.0,
        .save_every = 60.0, .fsync_ms = 1000, .keep_bodies = 60.0, .events_per_state = 1024,
    };
}

/* After a step: each session's acknowledgement and the inputs waiting for the next step
 * (inputs.c), then the limits on the sessions (session.c). */
static void after_step(net_server *srv, uint64_t now)
{
    for (net_session *s = srv->sessions; s; s = s->next)
        net_inputs_apply(&s->inputs, srv->world, s->owner);
    net_sessions_police(srv, now);
}

void net_log_world_hash(const sim_world *w, uint64_t every)
{
    uint64_t tick = sim_world_tick(w);
    if (every > 0 && tick % every == 0)
        LOG_INFO("tick %llu hash %016llx", (unsigned long long)tick,
                 (unsigned long long)sim_world_hash(w));
}

static void on_tick(uv_timer_t *t)
{
    net_server *srv = t->data;
    uint64_t now = uv_hrtime();
    srv->acc_ns += now - srv->last_ns;
    srv->last_ns = now;
    int steps = 0;
    net_stats *st = &srv->stats;
    uint64_t since = sim_world_tick(srv->world);
    while (srv->acc_ns >= srv->dt_ns && steps < srv->cfg.max_catchup) {
        uint64_t t0 = uv_hrtime();
        sim_world_step(srv->world);
        /* The step's events to the sessions that asked, and the world's cleared, before
         * anything else reads the world (a flush point's hash, a snapshot). */
        net_events_take(srv);
        uint64_t t1 = uv_hrtime();
        st->steps++;
        st->late += steps > 0;
        st->step_ns += t1 - t0;
        st->step_max_ns = t1 - t0 > st->step_max_ns ? t1 - t0 : st->step_max_ns;
        net_log_world_hash(srv->world, srv->cfg.hash_every);
        /* A flush point or a snapshot after each step, before anything else changes the
         * world (durable.c). */
        net_durable_tick(srv, t1);
        srv->acc_ns -= srv->dt_ns;
        steps++;
        after_step(srv, now);
    }
    /* After catching up, the states show the newest step: a client due in any of the steps
     * run gets one state, of the last. The views hear first what left the world. */
    uint64_t t1 = uv_hrtime();
    if (steps > 0 && net_snapshot_due(srv, since)) {
        net_sessions_take_removed(srv);
        net_snapshot_send(srv, since);
        uint64_t t2 = uv_hrtime();
        st->snapshots++;
        st->snap_ns += t2 - t1;
        st->snap_max_ns = t2 - t1 > st->snap_max_ns ? t2 - t1 : st->snap_max_ns;
    }
    if (steps > 0) {
        net_metrics_observe_tick(&st->c, uv_hrtime() - now);
        net_health_stepped(srv, now);
    }
    if (srv->acc_ns >= srv->dt_ns) {
        uint64_t dropped = srv->acc_ns / srv->dt_ns;
        srv->ticks_dropped += dropped;
        st->dropped += dropped;
        srv->acc_ns %= srv->dt_ns;
        LOG_WARN("fell behind: dropped %llu ticks (%llu in all)", (unsigned long long)dropped,
                 (unsigned long long)srv->ticks_dropped);
    }
    /* Wake up when the next step is due (libuv timers have millisecond resolution; the
     * accumulator absorbs the rounding). */
    uint64_t wait_ns = srv->dt_ns - srv->acc_ns;
    uv_timer_start(&srv->tick_timer, on_tick, (wait_ns + 999999) / 1000000, 0);
}

/* The counters only grow (they are also the metrics): a line shows what changed since the
 * last one, and the maxima start again. */
static void on_stats(uv_timer_t *t)
{
    net_server *srv = t->data;
    net_stats *all = &srv->stats, *last = &srv->stats_line, line = *all;
    net_stats *st = &line;
    st->steps -= last->steps;
    st->late -= last->late;
    st->dropped -= last->dropped;
    st->step_ns -= last->step_ns;
    st->snapshots -= last->snapshots;
    st->snap_ns -= last->snap_ns;
    st->states -= last->states;
    st->states_dropped -= last->states_dropped;
    LOG_INFO("stats: %u clients, %llu steps (%llu late, %llu dropped; %llu dropped in all), "
             "step %.3f ms mean %.3f max, %llu snapshots %.3f ms mean %.3f max, %llu states "
             "sent, %llu not sent to slow readers",
             srv->session_count, (unsigned long long)st->steps, (unsigned long long)st->late,
             (unsigned long long)st->dropped, (unsigned long long)srv->ticks_dropped,
             st->steps ? (double)st->step_ns / (double)st->steps / 1e6 : 0.0,
             (double)st->step_max_ns / 1e6, (unsigned long long)st->snapshots,
             st->snapshots ? (double)st->snap_ns / (double)st->snapshots / 1e6 : 0.0,
             (double)st->snap_max_ns / 1e6, (unsigned long long)st->states,
             (unsigned long long)st->states_dropped);
    all->step_max_ns = all->snap_max_ns = 0;
    *last = *all;
}

static void close_handle(uv_handle_t *h, void *arg)
{
    net_server *srv = arg;
    if (uv_is_closing(h))
        return;
    if (h->type == UV_TCP && h != (uv_handle_t *)&srv->listener)
        net_session_close(h->data, "server stopped"); /* a session's connection (tcp.c) */
    else
        uv_close(h, NULL);
}

static void on_stop_grace(uv_timer_t *t)
{
    net_server *srv = t->data;
    /* The HTTP port and the Agones SDK client close their own handles first (health.c): until
     * they have, the loop holds handles that are not ours to close. */
    if (!net_ops_closed(srv)) {
        uv_timer_start(&srv->stop_timer, on_stop_grace, 10, 0);
        return;
    }
    /* Whatever has not drained by now is closed: the stop must not wait on a slow reader. */
    uv_walk(srv->loop, close_handle, srv);
}

/* Saves the world to --save now, with every client's bodies still in it (their owners are not
 * kept: a restarted server gives them to nobody). */
static void save_world(net_server *srv, const char *why)
{
    if (!net_durable_save(srv, why) && strcmp(why, "SIGHUP") == 0)
        LOG_WARN("SIGHUP: no --save file was given; nothing written");
}

static void stop(net_server *srv, const char *why)
{
    if (srv->stopping)
        return;
    srv->stopping = true;
    LOG_INFO("stopping (%s): %u clients", why, srv->session_count);
    /* A drain: no new players (the listener closes, /readyz says 503), every client is told,
     * the world is saved with their bodies still in it, then they are let go. */
    uv_close((uv_handle_t *)&srv->listener, NULL);
    net_ops_stopping(srv);
    net_walk_begin(srv); /* a failed write closes its session when the pass ends */
    for (net_session *s = srv->sessions; s; s = s->next)
        net_session_error(s, PROTO_ERR_SHUTDOWN, "the server is stopping", NULL);
    net_walk_end(srv);
    save_world(srv, why);
    uv_timer_stop(&srv->tick_timer);
    uv_close((uv_handle_t *)&srv->tick_timer, NULL);
    uv_close((uv_handle_t *)&srv->stats_timer, NULL);
    uv_close((uv_handle_t *)&srv->sig_int, NULL);
    uv_close((uv_handle_t *)&srv->sig_term, NULL);
    uv_close((uv_handle_t *)&srv->sig_hup, NULL);
    while (srv->sessions)
        net_session_close_after_flush(srv->sessions, "server stopping");
    double grace_ms = srv->cfg.drain_seconds * 1000.0;
    uv_timer_start(&srv->stop_timer, on_stop_grace,
                   grace_ms < STOP_GRACE_MS ? (uint64_t)grace_ms : STOP_GRACE_MS, 0);
    uv_unref((uv_handle_t *)&srv->stop_timer);
}

static void on_signal(uv_signal_t *h, int signum)
{
    if (signum == SIGHUP)
        save_world(h->data, "SIGHUP");
    else
        stop(h->data, signum == SIGINT ? "SIGINT" : "SIGTERM");
}

static int start_listening(net_server *srv)
{
    struct sockaddr_storage addr;
    int rc = uv_ip4_addr(srv->cfg.host, srv->cfg.port, (struct sockaddr_in *)&addr);
    if (rc != 0)
        rc = uv_ip6_addr(srv->cfg.host, srv->cfg.port, (struct sockaddr_in6 *)&addr);
    if (rc != 0) {
        LOG_ERROR("--host %s: not an IPv4 or IPv6 address", srv->cfg.host);
        return rc;
    }
    uv_tcp_init(srv->loop, &srv->listener);
    srv->listener.data = srv;
    rc = uv_tcp_bind(&srv->listener, (struct sockaddr *)&addr, 0);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&srv->listener, 128, net_on_connection);
    if (rc != 0) {
        LOG_ERROR("cannot listen on %s:%d: %s", srv->cfg.host, srv->cfg.port, uv_strerror(rc));
        return rc;
    }
    int len = sizeof addr;
    uv_tcp_getsockname(&srv->listener, (struct sockaddr *)&addr, &len);
    int port = ntohs(addr.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&addr)->sin6_port
                                                : ((struct sockaddr_in *)&addr)->sin_port);
    LOG_INFO("listening on %s:%d (%.0f Hz ticks, %.0f Hz states, %zu bodies)", srv->cfg.host,
             port, srv->cfg.tick_hz, srv->cfg.snapshot_hz, sim_world_body_count(srv->world));
    return 0;
}

int net_serve(const net_config *cfg, sim_world *world)
{
    net_server *srv = calloc(1, sizeof *srv);
    uv_loop_t *loop = malloc(sizeof *loop);
    proto_msg *msg = malloc(sizeof *msg);
    net_snapshot *snap = net_snapshot_new();
    net_events *events = net_events_new(cfg->events_per_state);
    if (!srv || !loop || !msg || !snap || !events) {
        free(srv);
        free(loop);
        free(msg);
        net_snapshot_free(snap);
        net_events_free(events);
        LOG_ERROR("out of memory");
        return UV_ENOMEM;
    }
    uv_loop_init(loop);
    srv->loop = loop;
    srv->cfg = *cfg;
    srv->world = world;
    srv->msg = msg;
    srv->snap = snap;
    srv->events = events;
    srv->dt_ns = (uint64_t)(1e9 / cfg->tick_hz);
    proto_buf_init(&srv->out);

    int rc = net_players_init(srv);
    if (rc == 0)
        rc = net_durable_start(srv);
    if (rc == 0)
        rc = start_listening(srv);
    if (rc == 0)
        rc = net_ops_start(srv);
    if (rc == 0) {
        uv_timer_init(loop, &srv->tick_timer);
        uv_timer_init(loop, &srv->stop_timer);
        uv_timer_init(loop, &srv->stats_timer);
        /* Only paused sessions need it, and they are closed at a stop without it. */
        uv_timer_init(loop, &srv->read_timer);
        srv->read_timer.data = srv;
        uv_unref((uv_handle_t *)&srv->read_timer);
        srv->stats_timer.data = srv;
        if (cfg->stats_seconds > 0) {
            uint64_t ms = (uint64_t)(cfg->stats_seconds * 1000);
            uv_timer_start(&srv->stats_timer, on_stats, ms, ms);
        }
        uv_signal_init(loop, &srv->sig_int);
        uv_signal_init(loop, &srv->sig_term);
        uv_signal_init(loop, &srv->sig_hup);
        srv->tick_timer.data = srv->stop_timer.data = srv;
        srv->sig_int.data = srv->sig_term.data = srv->sig_hup.data = srv;
        uv_signal_start(&srv->sig_int, on_signal, SIGINT);
        uv_signal_start(&srv->sig_term, on_signal, SIGTERM);
        uv_signal_start(&srv->sig_hup, on_signal, SIGHUP);
        srv->last_ns = uv_hrtime();
        uv_timer_start(&srv->tick_timer, on_tick, srv->dt_ns / 1000000, 0);
        uv_run(loop, UV_RUN_DEFAULT);
        LOG_INFO("stopped at tick %llu (%llu ticks dropped)",
                 (unsigned long long)sim_world_tick(world),
                 (unsigned long long)srv->ticks_dropped);
    }
    /* The HTTP port and the SDK client first (on a failed start they may be open), then what
     * is left (on a failed start: the listener), and let the callbacks run. */
    while (!net_ops_closed(srv))
        uv_run(loop, UV_RUN_ONCE);
    uv_walk(loop, close_handle, srv);
    uv_run(loop, UV_RUN_DEFAULT);
    uv_loop_close(loop);
    free(loop);
    net_durable_free(srv);
    net_snapshot_free(srv->snap);
    net_events_free(srv->events);
    net_players_free(srv);
    proto_buf_free(&srv->out);
    free(srv->msg);
    free(srv);
    return rc;
}
