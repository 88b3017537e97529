/* One client connection: read, frame, parse and answer its messages, and queue its output.
 * Every byte from the client is untrusted: a line is validated by mink_proto before anything
 * acts on it, and a refused message gets an `error` while the world goes on. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net_internal.h"

void net_session_free(net_session *s)
{
    proto_framer_free(&s->framer);
    free(s->seen);
    free(s->view);
    free(s->base);
    free(s->removed);
    free(s->held);
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

static void send_buf(net_session *s, proto_buf *b)
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
    send_buf(s, b);
}

static const char *req_of(const proto_msg *m) { return m->has_req ? m->req : NULL; }

/* ---- handlers: the message has been validated by proto_parse ---- */

/* Converts a spec and checks this client's quota and the world's room. Returns the new id or
 * 0 after answering with the error. */
static sim_id add_body(net_session *s, const proto_body_spec *spec, const char *field,
                       const char *req)
{
    net_server *srv = s->srv;
    sim_body_def def;
    char msg[PROTO_MAX_MESSAGE];
    mk_error err;
    if (wio_body_def_from_spec(spec, sim_world_dim(srv->world), &def, &err) != 0) {
        mk_error_prefix(&err, "%s.", field);
        net_session_error(s, PROTO_ERR_BAD_REQUEST, err.message, req);
        return 0;
    }
    size_t owned = sim_world_count_owned(srv->world, s->owner);
    if (owned >= srv->cfg.bodies_per_client) {
        snprintf(msg, sizeof msg, "this client has %zu bodies, the limit is %u", owned,
                 srv->cfg.bodies_per_client);
        net_session_error(s, PROTO_ERR_QUOTA, msg, req);
        return 0;
    }
    sim_id id = sim_world_add(srv->world, &def, s->owner);
    if (id == 0) {
        snprintf(msg, sizeof msg, "the world is full (%zu bodies)",
                 sim_world_body_count(srv->world));
        net_session_error(s, PROTO_ERR_QUOTA, msg, req);
    }
    return id;
}

static void handle_hello(net_session *s, proto_msg *m)
{
    net_server *srv = s->srv;
    if (s->joined) {
        net_session_error(s, PROTO_ERR_BAD_REQUEST, "hello: already joined", req_of(m));
        return;
    }
    memcpy(s->name, m->u.hello.name, sizeof s->name);
    if (!net_player_admit(s, m->u.hello.token, req_of(m)))
        return;
    /* A player back in time has the avatar they left (players.c). */
    sim_id avatar = s->avatar;
    if (m->u.hello.has_avatar && avatar == 0) {
        avatar = add_body(s, &m->u.hello.avatar, "avatar", req_of(m));
        if (avatar == 0)
            return; /* not joined: the client may say hello again */
    }
    s->joined = true;
    bool changed = s->avatar != avatar;
    s->avatar = avatar;
    if (changed && s->player)
        net_players_save(srv); /* the player's new avatar, kept with the save */
    const sim_config *wc = sim_world_config(srv->world);
    proto_welcome w = {
        .client = s->owner,
        .dim = wc->dim,
        .tick = sim_world_tick(srv->world),
        .tick_hz = srv->cfg.tick_hz,
        .snapshot_hz = srv->cfg.snapshot_hz,
        .gravity = {wc->gravity.x, wc->gravity.y, 0.0},
        .has_avatar = avatar != 0,
        .avatar = avatar,
    };
    if (wc->dim == 3) {
        w.gravity[0] = wc->gravity3.x;
        w.gravity[1] = wc->gravity3.y;
        w.gravity[2] = wc->gravity3.z;
    }
    proto_buf *b = &srv->out;
    proto_buf_clear(b);
    proto_write_welcome(b, &w);
    send_buf(s, b);
    LOG_INFO("client %u (%s) joined as '%s'%s", s->client, s->peer, s->name,
             avatar ? " with an avatar" : "");
}

static void handle_spawn(net_session *s, proto_msg *m)
{
    const net_config *cfg = &s->srv->cfg;
    if (!net_bucket_take(&s->spawns, cfg->spawn_rate, 2.0 * cfg->spawn_rate, uv_hrtime())) {
        char msg[64];
        snprintf(msg, sizeof msg, "over %g spawns a second", cfg->spawn_rate);
        net_session_error(s, PROTO_ERR_RATE_LIMITED, msg, req_of(m));
        return;
    }
    sim_id id = add_body(s, &m->u.spawn.body, "body", req_of(m));
    if (id == 0)
        return;
    proto_buf *b = &s->srv->out;
    proto_buf_clear(b);
    proto_write_spawned(b, req_of(m), id);
    send_buf(s, b);
}

/* The body `id` if it exists and this client owns it; otherwise answers and returns NULL. */
static const sim_body *owned_body(net_session *s, uint64_t id, const char *req)
{
    char msg[PROTO_MAX_MESSAGE];
    const sim_body *body = sim_world_get(s->srv->world, id);
    if (!body) {
        snprintf(msg, sizeof msg, "id: no body %llu", (unsigned long long)id);
        net_session_error(s, PROTO_ERR_NOT_FOUND, msg, req);
        return NULL;
    }
    if (body->owner != s->owner) {
        snprintf(msg, sizeof msg, "id: body %llu belongs to %s", (unsigned long long)id,
                 body->owner ? "another client" : "the server");
        net_session_error(s, PROTO_ERR_NOT_OWNER, msg, req);
        return NULL;
    }
    return body;
}

static void handle_despawn(net_session *s, proto_msg *m)
{
    uint64_t id = m->u.despawn.id;
    if (!owned_body(s, id, req_of(m)))
        return;
    sim_world_remove(s->srv->world, id);
    if (s->avatar == id) {
        s->avatar = 0;
        if (s->player)
            net_players_save(s->srv);
    }
    proto_buf *b = &s->srv->out;
    proto_buf_clear(b);
    proto_write_despawned(b, req_of(m), id);
    send_buf(s, b);
}

static void set_input(net_session *s, const sim_body *body, const double move[3], bool jump,
                      uint64_t seq)
{
    if (sim_world_dim(s->srv->world) == 3)
        sim_body_set_input3(s->srv->world, body->id,
                            mk_v3((float)move[0], (float)move[1], (float)move[2]), jump);
    else
        sim_body_set_input2(s->srv->world, body->id, mk_v2((float)move[0], (float)move[1]), jump);
    s->has_set = true;
    s->set_seq = seq;
}

/* The metrics of an accepted input that names its tick: late when that step has begun. */
static void count_stamp(net_session *s, const proto_msg *m, uint64_t next)
{
    if (!m->u.input.has_tick)
        return;
    s->srv->stats.c.inputs_stamped++;
    s->srv->stats.c.inputs_late += m->u.input.tick < next;
}

/* An input is set on its body at once, for the next step, unless it names a later step
 * (`tick`, the Source engine's and Overwatch's stamped commands: a client that runs its
 * prediction ahead of the server by the round trip stamps each input with the step it
 * predicted it for, and the server applies it by that very step, so that the prediction
 * and the server agree however the input travelled). Such an input waits, and so does
 * every input after it: they are applied in the order sent. A tick already past is applied
 * at once; a tick more than a second ahead is refused. */
static void handle_input(net_session *s, proto_msg *m)
{
    char msg[PROTO_MAX_MESSAGE];
    uint64_t id = m->u.input.has_id ? m->u.input.id : s->avatar;
    if (id == 0) {
        net_session_error(s, PROTO_ERR_NOT_FOUND, "id: this client has no avatar", NULL);
        return;
    }
    const sim_body *body = owned_body(s, id, NULL);
    if (!body)
        return;
    if (s->has_seq && m->u.input.seq <= s->last_seq) {
        snprintf(msg, sizeof msg, "seq: %llu is not greater than the last seq %llu",
                 (unsigned long long)m->u.input.seq, (unsigned long long)s->last_seq);
        net_session_error(s, PROTO_ERR_BAD_REQUEST, msg, NULL);
        return;
    }
    if (body->kind == SIM_STATIC) {
        net_session_error(s, PROTO_ERR_BAD_REQUEST, "id: a static body takes no input", NULL);
        return;
    }
    uint64_t next = sim_world_tick(s->srv->world) + 1;
    uint64_t tick = m->u.input.has_tick ? m->u.input.tick : next;
    uint64_t ahead = (uint64_t)s->srv->cfg.tick_hz;
    if (tick > next + ahead) {
        snprintf(msg, sizeof msg, "tick: %llu is more than a second (%llu ticks) past the next "
                 "step, %llu", (unsigned long long)tick, (unsigned long long)ahead,
                 (unsigned long long)next);
        net_session_error(s, PROTO_ERR_BAD_REQUEST, msg, NULL);
        return;
    }
    if (s->waiting_len == 0 && tick <= next) {
        count_stamp(s, m, next);
        s->has_seq = true;
        s->last_seq = m->u.input.seq;
        set_input(s, body, m->u.input.move, m->u.input.jump, m->u.input.seq);
        return;
    }
    if (s->waiting_len == NET_INPUTS_WAITING) {
        snprintf(msg, sizeof msg, "tick: %d inputs wait for their steps already",
                 NET_INPUTS_WAITING);
        net_session_error(s, PROTO_ERR_BAD_REQUEST, msg, NULL);
        return;
    }
    count_stamp(s, m, next);
    s->has_seq = true;
    s->last_seq = m->u.input.seq;
    net_input *in = &s->waiting[(s->waiting_head + s->waiting_len++) % NET_INPUTS_WAITING];
    *in = (net_input){.seq = m->u.input.seq, .id = id, .tick = tick, .jump = m->u.input.jump};
    memcpy(in->move, m->u.input.move, sizeof in->move);
}

void net_session_take_inputs(net_session *s)
{
    uint64_t next = sim_world_tick(s->srv->world) + 1;
    while (s->waiting_len > 0) {
        net_input *in = &s->waiting[s->waiting_head];
        if (in->tick > next)
            break;
        s->waiting_head = (s->waiting_head + 1) % NET_INPUTS_WAITING;
        s->waiting_len--;
        /* The body may have left the world, or this client's hands, since: then the input
         * is acknowledged and goes nowhere. */
        const sim_body *body = sim_world_get(s->srv->world, in->id);
        if (body && body->owner == s->owner && body->kind != SIM_STATIC) {
            set_input(s, body, in->move, in->jump, in->seq);
        } else {
            s->has_set = true;
            s->set_seq = in->seq;
        }
    }
}

static void handle_query(net_session *s, proto_msg *m)
{
    proto_result r;
    mk_error why = {0};
    int dim = sim_world_dim(s->srv->world);
    if (wio_query(dim, &m->u.query.a, &m->u.query.b, &r, &why) != 0) {
        net_session_error(s, PROTO_ERR_BAD_REQUEST, why.message, req_of(m));
        return;
    }
    proto_buf *b = &s->srv->out;
    proto_buf_clear(b);
    proto_write_result(b, req_of(m), dim, &r);
    send_buf(s, b);
}

/* raycast, cast, overlap: the world asked, never changed. */
static void handle_world_query(net_session *s, proto_msg *m)
{
    mk_error why = {0};
    proto_buf *b = &s->srv->out;
    proto_buf_clear(b);
    if (wio_world_query(s->srv->world, m->type, &m->u.wq, req_of(m), b, &why) != 0) {
        net_session_error(s, PROTO_ERR_BAD_REQUEST, why.message, req_of(m));
        return;
    }
    send_buf(s, b);
}

static void handle_ping(net_session *s, proto_msg *m)
{
    proto_buf *b = &s->srv->out;
    proto_buf_clear(b);
    proto_write_pong(b, m->u.ping.t, sim_world_tick(s->srv->world));
    send_buf(s, b);
}

bool net_bucket_take(net_bucket *b, double rate, double burst, uint64_t now_ns)
{
    if (b->last_ns == 0) {
        b->tokens = burst;
    } else {
        b->tokens += rate * (double)(now_ns - b->last_ns) * 1e-9;
        if (b->tokens > burst)
            b->tokens = burst;
    }
    b->last_ns = now_ns;
    if (b->tokens < 1.0)
        return false;
    b->tokens -= 1.0;
    return true;
}

static void handle_subscribe(net_session *s, proto_msg *m)
{
    if (m->u.subscribe.has_contacts)
        s->contacts = m->u.subscribe.contacts;
    if (m->u.subscribe.has_radius)
        s->radius = m->u.subscribe.radius;
    if (m->u.subscribe.has_compact)
        s->compact = m->u.subscribe.compact;
    if (m->u.subscribe.has_delta) {
        /* Baselines begin with the next state: it sends every body whole. */
        s->delta_reset = m->u.subscribe.delta && !s->delta;
        s->delta = m->u.subscribe.delta;
    }
    if (m->u.subscribe.has_hash)
        s->hash_every = (uint32_t)m->u.subscribe.hash;
}

static void handle_bye(net_session *s, proto_msg *m)
{
    (void)m;
    net_session_close_after_flush(s, "said bye");
}

/* One handler for each message type proto_parse gives. */
static void (*const handlers[])(net_session *, proto_msg *) = {
    [PROTO_MSG_HELLO] = handle_hello,         [PROTO_MSG_SPAWN] = handle_spawn,
    [PROTO_MSG_DESPAWN] = handle_despawn,     [PROTO_MSG_INPUT] = handle_input,
    [PROTO_MSG_QUERY] = handle_query,         [PROTO_MSG_SUBSCRIBE] = handle_subscribe,
    [PROTO_MSG_PING] = handle_ping,           [PROTO_MSG_BYE] = handle_bye,
    [PROTO_MSG_RAYCAST] = handle_world_query, [PROTO_MSG_CAST] = handle_world_query,
    [PROTO_MSG_OVERLAP] = handle_world_query,
};
_Static_assert(sizeof handlers / sizeof handlers[0] == PROTO_MSG_COUNT,
               "a handler for every message type");

void net_session_handle_line(net_session *s, const char *line, size_t len)
{
    net_server *srv = s->srv;
    proto_msg *m = srv->msg;
    proto_error err;
    /* Vectors and shape types are checked against the world's dim: a 2D shape in a 3D world
     * is a bad_request that says so. */
    proto_error_code rc = proto_parse(line, len, sim_world_dim(srv->world), m, &err);
    if (rc != PROTO_OK) {
        net_session_error(s, rc, err.message, req_of(m));
        return;
    }
    if (!s->joined && m->type != PROTO_MSG_HELLO && m->type != PROTO_MSG_PING) {
        net_session_error(s, PROTO_ERR_NOT_JOINED, "say hello first", req_of(m));
        return;
    }
    handlers[m->type](s, m);
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
    proto_framer_init(&s->framer, srv->cfg.max_line);
    return s;
}

bool net_session_open(net_session *s, const char *peer)
{
    net_server *srv = s->srv;
    snprintf(s->peer, sizeof s->peer, "%s", peer);
    s->client = ++srv->next_client;
    s->owner = s->client;
    s->phase = s->client % net_state_phases(&srv->cfg);
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
