/* The answers to a client's messages: each message, validated by mink_proto, goes to the
 * handler of its type, which answers it and changes the world only through the world's API.
 * A refused message gets an `error` while the world goes on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "handlers.h"
#include "levels.h"
#include "net_server.h"
#include "players.h"
#include "rules.h"
#include "session.h"

static const char *req_of(const proto_msg *m) { return m->has_req ? m->req : NULL; }

/* Converts a spec and checks its owner's quota (a client's; the world's bodies have none) and
 * the world's room. Returns the new id or
 * 0 after answering with the error. */
static sim_id add_body(net_session *s, const proto_body_spec *spec, uint32_t owner,
                       const char *field, const char *req)
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
    size_t owned = owner ? sim_world_count_owned(srv->world, owner) : 0;
    if (owner && owned >= srv->cfg.bodies_per_client) {
        sim_level_release(def.level);
        snprintf(msg, sizeof msg, "this client has %zu bodies, the limit is %u", owned,
                 srv->cfg.bodies_per_client);
        net_session_error(s, PROTO_ERR_QUOTA, msg, req);
        return 0;
    }
    sim_id id = sim_world_add(srv->world, &def, owner);
    sim_level_release(def.level);
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
    net_session *replaced;
    mk_error why;
    int admitted = net_player_admit(s, m->u.hello.token, &replaced, &why);
    if (replaced) {
        net_session_error(replaced, PROTO_ERR_UNAUTHORIZED,
                          "signed in again on another connection", NULL);
        net_session_close_after_flush(replaced, "signed in again");
    }
    if (admitted != 0) {
        net_session_error(s, PROTO_ERR_UNAUTHORIZED, why.message, req_of(m));
        net_session_close_after_flush(s, "unauthorized");
        return;
    }
    /* A player back in time has the avatar they left (players.c). */
    sim_id avatar = s->avatar;
    if (m->u.hello.has_avatar && avatar == 0) {
        avatar = add_body(s, &m->u.hello.avatar, s->owner, "avatar", req_of(m));
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
    proto_welcome_level *levels = net_levels_welcome(srv, &w.nlevels);
    w.levels = levels;
    proto_buf *b = &srv->out;
    proto_buf_clear(b);
    proto_write_welcome(b, &w);
    free(levels);
    net_session_send_buf(s, b);
    LOG_INFO("client %u (%s) joined as '%s'%s", s->client, s->peer, s->name,
             avatar ? " with an avatar" : "");
    /* Then the game's rules, which may send to the player or refuse it (rules.c): the reason,
     * then the close. */
    if (net_rules_join(s, &why) != 0) {
        net_session_error(s, PROTO_ERR_UNAUTHORIZED, why.message, req_of(m));
        net_session_close_after_flush(s, "refused by the game");
    }
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
    sim_id id = add_body(s, &m->u.spawn.body, net_session_maker(s), "body", req_of(m));
    if (id == 0)
        return;
    proto_buf *b = &s->srv->out;
    proto_buf_clear(b);
    proto_write_spawned(b, req_of(m), id);
    net_session_send_buf(s, b);
}

/* The body `id` if it exists and this client owns it (a `game` connection owns every body);
 * otherwise answers and returns NULL. */
static const sim_body *owned_body(net_session *s, uint64_t id, const char *req)
{
    char msg[PROTO_MAX_MESSAGE];
    const sim_body *body = sim_world_get(s->srv->world, id);
    if (!body) {
        snprintf(msg, sizeof msg, "id: no body %llu", (unsigned long long)id);
        net_session_error(s, PROTO_ERR_NOT_FOUND, msg, req);
        return NULL;
    }
    if (body->owner != s->owner && !net_session_is_game(s)) {
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
    net_session_send_buf(s, b);
}

/* An input for the client's avatar, or for another body of its own (inputs.c). */
static void handle_input(net_session *s, proto_msg *m)
{
    uint64_t id = m->u.input.has_id ? m->u.input.id : s->avatar;
    if (id == 0) {
        net_session_error(s, PROTO_ERR_NOT_FOUND, "id: this client has no avatar", NULL);
        return;
    }
    const sim_body *body = owned_body(s, id, NULL);
    if (!body)
        return;
    net_server *srv = s->srv;
    mk_error why;
    if (net_inputs_add(&s->inputs, srv->world, body, id, m, (uint64_t)srv->cfg.tick_hz,
                       &srv->stats.c, &why) != 0)
        net_session_error(s, PROTO_ERR_BAD_REQUEST, why.message, NULL);
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
    net_session_send_buf(s, b);
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
    net_session_send_buf(s, b);
}

static void handle_ping(net_session *s, proto_msg *m)
{
    proto_buf *b = &s->srv->out;
    proto_buf_clear(b);
    proto_write_pong(b, m->u.ping.t, sim_world_tick(s->srv->world));
    net_session_send_buf(s, b);
}

static void handle_subscribe(net_session *s, proto_msg *m)
{
    net_view *v = &s->view;
    if (m->u.subscribe.has_contacts)
        v->contacts = m->u.subscribe.contacts;
    if (m->u.subscribe.has_radius)
        v->radius = m->u.subscribe.radius;
    if (m->u.subscribe.has_compact)
        v->compact = m->u.subscribe.compact;
    if (m->u.subscribe.has_delta) {
        /* Baselines begin with the next state: it sends every body whole. */
        v->delta_reset = m->u.subscribe.delta && !v->delta;
        v->delta = m->u.subscribe.delta;
    }
    if (m->u.subscribe.has_hash)
        v->hash_every = (uint32_t)m->u.subscribe.hash;
    if (m->u.subscribe.has_events) {
        if (m->u.subscribe.events && !v->events)
            net_events_subscribe(s->srv->events, v);
        v->events = m->u.subscribe.events;
    }
}

static mk_vec3 v3_of(const double *v) { return mk_v3((float)v[0], (float)v[1], (float)v[2]); }

/* Answers a push, a set or an explosion the world carried out (or refuses it, naming the
 * field, when `why` is set). */
static void answer_motion(net_session *s, proto_msg *m, const char *why, uint64_t value)
{
    if (why) {
        net_session_error(s, PROTO_ERR_BAD_REQUEST, why, req_of(m));
        return;
    }
    proto_buf *b = &s->srv->out;
    proto_buf_clear(b);
    if (m->type == PROTO_MSG_PUSH)
        proto_write_pushed(b, req_of(m), value);
    else if (m->type == PROTO_MSG_SET)
        proto_write_updated(b, req_of(m), value);
    else
        proto_write_exploded(b, req_of(m), value);
    net_session_send_buf(s, b);
}

/* An impulse on a body of the client's own. */
static void handle_push(net_session *s, proto_msg *m)
{
    const proto_push *p = &m->u.push;
    const sim_body *b = owned_body(s, p->id, req_of(m));
    if (!b)
        return;
    sim_world *w = s->srv->world;
    mk_vec3 j = v3_of(p->impulse), at = v3_of(p->point);
    bool ok = sim_world_dim(w) == 3
                  ? sim_body_apply_impulse3(w, p->id, j, p->has_point ? &at : NULL)
                  : sim_body_apply_impulse2(w, p->id, mk_v2(j.x, j.y),
                                            p->has_point ? &(mk_vec2){at.x, at.y} : NULL);
    char why[PROTO_MAX_MESSAGE];
    snprintf(why, sizeof why, "id: body %llu is %s: an impulse moves a body with mass",
             (unsigned long long)p->id, proto_kind_name(wio_kind_to_proto(b->kind)));
    answer_motion(s, m, ok ? NULL : why, p->id);
}

/* Whether a body turns (keeps a spin): a dynamic body of a shape that turns. */
static bool body_turns(const sim_world *w, const sim_body *b)
{
    const sim_body3 *b3 = sim_body3_of(w, b);
    return b3 ? b3->inv_inertia.c0.x > 0.0f : b->inv_inertia > 0.0f;
}

/* A new placement, velocity or spin of a body of the client's own: all of it or, when a part
 * cannot be set, none. */
static void handle_set(net_session *s, proto_msg *m)
{
    const proto_set *p = &m->u.set;
    const sim_body *b = owned_body(s, p->id, req_of(m));
    if (!b)
        return;
    sim_world *w = s->srv->world;
    const sim_body3 *b3 = sim_body3_of(w, b);
    char why[PROTO_MAX_MESSAGE];
    if (p->has_vel && b->kind == SIM_STATIC) {
        snprintf(why, sizeof why, "vel: body %llu is static", (unsigned long long)p->id);
        answer_motion(s, m, why, 0);
        return;
    }
    if (p->has_w && !body_turns(w, b)) {
        snprintf(why, sizeof why, "w: body %llu does not turn (a %s body%s)",
                 (unsigned long long)p->id, proto_kind_name(wio_kind_to_proto(b->kind)),
                 b->kind == SIM_DYNAMIC ? " of a shape that keeps its angle" : "");
        answer_motion(s, m, why, 0);
        return;
    }
    if (p->has_pos || p->has_rot) {
        if (b3) {
            mk_quat rot = b3->rot;
            if (p->has_rot)
                mk_quat_normalize_checked((mk_quat){(float)p->rot[0], (float)p->rot[1],
                                                    (float)p->rot[2], (float)p->rot[3]},
                                          &rot);
            sim_body_set_transform3(w, p->id, p->has_pos ? v3_of(p->pos) : b3->pos, rot);
        } else {
            sim_body_set_transform2(w, p->id,
                                    p->has_pos ? mk_v2((float)p->pos[0], (float)p->pos[1])
                                               : b->pos,
                                    p->has_rot ? (float)p->rot[0] : b->angle);
        }
    }
    if (p->has_vel && b3)
        sim_body_set_velocity3(w, p->id, v3_of(p->vel));
    else if (p->has_vel)
        sim_body_set_velocity2(w, p->id, mk_v2((float)p->vel[0], (float)p->vel[1]));
    if (p->has_w && b3)
        sim_body_set_spin3(w, p->id, v3_of(p->w));
    else if (p->has_w)
        sim_body_set_spin2(w, p->id, (float)p->w[2]);
    answer_motion(s, m, NULL, p->id);
}

/* An explosion that pushes the client's own bodies alone (every body: a `game` connection's). */
static void handle_explode(net_session *s, proto_msg *m)
{
    const proto_explode *p = &m->u.explode;
    sim_explosion e = {.pos = v3_of(p->pos), .radius = (float)p->radius,
                       .impulse = (float)p->impulse, .filter = {.mask = p->mask},
                       .owned = !net_session_is_game(s),
                       .owner = s->owner};
    answer_motion(s, m, NULL, sim_world_explode(s->srv->world, &e, NULL));
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
    [PROTO_MSG_OVERLAP] = handle_world_query, [PROTO_MSG_PUSH] = handle_push,
    [PROTO_MSG_SET] = handle_set,             [PROTO_MSG_EXPLODE] = handle_explode,
    [PROTO_MSG_ACTION] = net_rules_action,    [PROTO_MSG_EMIT] = net_rules_emit,
    [PROTO_MSG_JOINT] = net_handle_joint,     [PROTO_MSG_UNJOINT] = net_handle_unjoint,
};
_Static_assert(sizeof handlers / sizeof handlers[0] == PROTO_MSG_COUNT,
               "a handler for every message type");

void net_handle_message(net_session *s, const char *msg, size_t len)
{
    net_server *srv = s->srv;
    proto_msg *m = srv->msg;
    proto_error err;
    /* Vectors and shape types are checked against the world's dim: a 2D shape in a 3D world
     * is a bad_request that says so. */
    proto_error_code rc = proto_parse(msg, len, sim_world_dim(srv->world), m, &err);
    if (rc != PROTO_OK) {
        net_session_error(s, rc, err.message, req_of(m));
        return;
    }
    if (!s->joined && m->type != PROTO_MSG_HELLO && m->type != PROTO_MSG_PING) {
        net_session_error(s, PROTO_ERR_NOT_JOINED, "say hello first", req_of(m));
        proto_msg_free(m);
        return;
    }
    handlers[m->type](s, m);
    proto_msg_free(m);
}

