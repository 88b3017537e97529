/* A client's session, whatever its transport: its opening (counted against --max-clients),
 * its close (its bodies out of the world, or kept for its player; never in the middle of a
 * pass over the sessions), its output through its transport, and the limits on that output
 * and on a connection that never says hello. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "net_server.h"
#include "players.h"
#include "rules.h"
#include "session.h"

void net_session_free(net_session *s)
{
    net_view_free(&s->view);
    mk_vec_free(&s->intake.held.v);
    free(s);
}

static void unlink_session(net_session *s)
{
    net_server *srv = s->srv;
    if (s->prev)
        s->prev->next = s->next;
    else
        srv->sessions = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->prev = s->next = NULL;
    srv->session_count--;
}

/* Marks the session closing and takes its bodies out of the world. */
static bool begin_close(net_session *s, const char *reason)
{
    if (s->closing)
        return false;
    s->closing = true;
    net_rules_leave(s); /* before its bodies go: on_leave sees them */
    if (net_player_left(s)) {
        LOG_INFO("client %u (%s) left: %s; its player's bodies are kept %g s", s->client,
                 s->peer, reason, s->srv->cfg.keep_bodies);
    } else if (s->owner != 0) { /* 0: its player signed in again on another connection */
        size_t n = sim_world_remove_owned(s->srv->world, s->owner);
        LOG_INFO("client %u (%s) left: %s; %zu bodies removed", s->client, s->peer, reason, n);
    }
    net_metrics_count_disconnect(&s->srv->stats.c, reason);
    unlink_session(s);
    s->tr->read_pause(s);
    return true;
}

/* Notes a close asked for inside a pass, to be made at its end; a close now wins over a close
 * after a flush. */
static void close_later(net_session *s, const char *reason, bool flush)
{
    if (s->close_reason) {
        s->close_flush = s->close_flush && flush;
        return;
    }
    s->close_reason = reason;
    s->close_flush = flush;
    s->close_next = s->srv->to_close;
    s->srv->to_close = s;
}

void net_session_close(net_session *s, const char *reason)
{
    if (s->srv->walking > 0) {
        close_later(s, reason, false);
        return;
    }
    /* Also after a close after a flush: a close now does not wait for the flush. */
    begin_close(s, reason);
    s->tr->close(s, false);
}

void net_session_close_after_flush(net_session *s, const char *reason)
{
    if (s->srv->walking > 0) {
        close_later(s, reason, true);
        return;
    }
    /* The transport closes once the queued writes are done; a peer that never reads is
     * caught by the output limits, and server stop closes everything after a grace period. */
    if (begin_close(s, reason))
        s->tr->close(s, true);
}

void net_session_read_pause(net_session *s) { s->tr->read_pause(s); }

void net_session_read_resume(net_session *s)
{
    if (!s->closing)
        s->tr->read_resume(s);
}

void net_walk_begin(net_server *srv) { srv->walking++; }

void net_walk_end(net_server *srv)
{
    assert(srv->walking > 0);
    if (--srv->walking > 0)
        return;
    net_session *s;
    while ((s = srv->to_close) != NULL) {
        srv->to_close = s->close_next;
        const char *reason = s->close_reason;
        s->close_reason = NULL;
        if (s->close_flush)
            net_session_close_after_flush(s, reason);
        else
            net_session_close(s, reason);
    }
}

size_t net_session_queued(const net_session *s) { return s->tr->queued(s); }

bool net_session_check_hard_limit(net_session *s, size_t more)
{
    size_t queued = net_session_queued(s) + more;
    if (s->closing || queued <= s->srv->cfg.out_hard_limit)
        return false;
    LOG_WARN("client %u (%s): output over the hard limit (%zu bytes queued, the limit is %zu): "
             "cut off", s->client, s->peer, queued, s->srv->cfg.out_hard_limit);
    net_session_close(s, "output over the hard limit");
    return true;
}

void net_session_send(net_session *s, const char *data, size_t len)
{
    if (s->closing || len == 0)
        return;
    s->srv->stats.c.bytes_out += len;
    s->srv->stats.c.msgs_out++;
    s->tr->send(s, data, len);
}

void net_session_send_buf(net_session *s, proto_buf *b)
{
    if (b->failed) {
        LOG_ERROR("client %u: out of memory building a message", s->client);
        return;
    }
    net_session_send(s, b->data, b->len);
}

void net_session_error(net_session *s, proto_error_code code, const char *message,
                       const char *req)
{
    proto_buf *b = &s->srv->out;
    proto_buf_clear(b);
    proto_write_error(b, code, message, req);
    s->srv->stats.c.errors[code]++;
    LOG_DEBUG("client %u: %s: %s", s->client, proto_error_name(code), message);
    net_session_send_buf(s, b);
}

void net_session_too_long(net_session *s)
{
    char msg[96];
    snprintf(msg, sizeof msg, "a line is longer than %zu bytes", s->srv->cfg.max_line);
    net_session_error(s, PROTO_ERR_LINE_TOO_LONG, msg, NULL);
    net_session_close_after_flush(s, "line too long");
}

net_session *net_session_new(net_server *srv, const net_transport *tr)
{
    net_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->srv = srv;
    s->tr = tr;
    s->intake.held.v = mk_vec_make(sizeof(char));
    net_view_init(&s->view);
    return s;
}

bool net_session_open(net_session *s, const char *peer)
{
    net_server *srv = s->srv;
    snprintf(s->peer, sizeof s->peer, "%s", peer);
    s->client = ++srv->next_client;
    s->owner = s->client;
    s->view.phase = s->client % net_view_phases(&srv->cfg);
    s->connected_ns = uv_hrtime();
    s->next = srv->sessions;
    if (srv->sessions)
        srv->sessions->prev = s;
    srv->sessions = s;
    srv->session_count++;
    srv->stats.c.accepted++;

    /* max_clients counts the sessions of both transports. */
    if (srv->stopping || srv->session_count > srv->cfg.max_clients) {
        char msg[96];
        bool stopping = srv->stopping;
        if (stopping)
            snprintf(msg, sizeof msg, "the server is stopping");
        else
            snprintf(msg, sizeof msg, "the server has %u clients, its limit", srv->cfg.max_clients);
        net_session_error(s, stopping ? PROTO_ERR_SHUTDOWN : PROTO_ERR_SERVER_FULL, msg, NULL);
        net_session_close_after_flush(s, stopping ? "server stopping" : "server full");
        return false;
    }
    LOG_INFO("client %u connected from %s (%s)", s->client, s->peer, s->tr->name);
    return true;
}

void net_sessions_police(net_server *srv, uint64_t now)
{
    net_walk_begin(srv);
    for (net_session *s = srv->sessions; s; s = s->next) {
        if (!s->joined && (double)(now - s->connected_ns) > srv->cfg.hello_timeout * 1e9) {
            net_session_close(s, "no hello in time");
            continue;
        }
        size_t queued = net_session_queued(s);
        if (net_session_check_hard_limit(s, 0))
            continue;
        if (queued <= srv->cfg.out_soft_limit) {
            s->over_soft_since_ns = 0;
        } else if (s->over_soft_since_ns == 0) {
            s->over_soft_since_ns = now;
        } else if ((double)(now - s->over_soft_since_ns) > srv->cfg.out_soft_seconds * 1e9) {
            LOG_WARN("client %u (%s): output over the soft limit (%zu bytes queued, the limit is "
                     "%zu) for %g s: cut off", s->client, s->peer, queued,
                     srv->cfg.out_soft_limit, srv->cfg.out_soft_seconds);
            net_session_close(s, "too slow a reader");
        }
    }
    net_walk_end(srv);
}

void net_sessions_take_removed(net_server *srv)
{
    size_t n;
    const sim_id *ids = sim_world_removed(srv->world, &n);
    /* A session closed here leaves the world after the removed list is cleared: its bodies
     * are then the next snapshot's removals, told to everyone who saw them. */
    net_walk_begin(srv);
    size_t nj;
    const sim_id *joints = sim_world_removed_joints(srv->world, &nj);
    for (net_session *s = srv->sessions; s; s = s->next)
        if (!net_view_forget(&s->view, ids, n) ||
            !net_view_forget_joints(&s->view, joints, nj))
            net_session_close(s, "out of memory");
    /* Every session now knows; the slots may be reused. */
    sim_world_clear_removed(srv->world);
    net_walk_end(srv);
}
