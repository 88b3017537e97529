/* `state` snapshots.
 *
 * Once per snapshot tick every body a state will carry is encoded once (the fixed-point writer
 * of mink_proto, no cJSON, no printf) into a tick buffer shared by all clients. Each piece is
 * `,{...}`, one body, in slot order; a body that is not sent has an empty piece, so the pieces
 * of the bodies a client gets lie next to each other and most states are one run of bytes.
 * A client's state is then a list of ranges: its own header (`tick`, `ack`), runs of the tick
 * buffer, first-sighting pieces (the same body with shape, kind, owner and tag: encoded on
 * demand, once per tick, into the same buffer), its `removed`, the contacts (shared too) and
 * the end. They go to libuv as one uv_write with several uv_buf_t pointing into the tick
 * buffer (scatter-gather, no copy of the body bytes per client); the buffer is reference
 * counted and goes back to a pool when the last write that points into it has completed.
 * Clients that subscribed with `compact` get each seen body as an array: when any does, every
 * sent body is encoded a second time that way, in a run of its own, and never more.
 *
 * What a client is sent: bodies whose state changes (not static, not long asleep: see
 * body_changes), bodies it has not seen yet, and with an interest radius only bodies within
 * it, found by the world's broadphase (sim_world_bodies_near); `removed` lists bodies that
 * left the world (handed to the views before the snapshot: net_sessions_take_removed) or its
 * radius. Static and sleeping bodies it has seen are left out.
 *
 * Building touches the world, the sessions' views and the snapshot's own arrays, and nothing
 * else: it closes no session (a view whose state ran out of memory is marked failed, and the
 * writer closes it) and writes nothing (snapshot_write.c). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "mink_log.h"
#include "net_server.h"
#include "rules.h"
#include "session.h"
#include "snapshot.h"

net_snapshot *net_snapshot_new(void)
{
    net_snapshot *sn = calloc(1, sizeof *sn);
    if (!sn)
        return NULL;
    sn->body_off.v = mk_vec_make(sizeof(size_t));
    sn->compact_off.v = mk_vec_make(sizeof(size_t));
    sn->sent.v = mk_vec_make(sizeof(bool));
    sn->full.v = mk_vec_make(sizeof(net_piece));
    sn->near_mark.v = mk_vec_make(sizeof(uint32_t));
    sn->ranges.v = mk_vec_make(sizeof(net_range));
    net_delta_init(&sn->delta);
    proto_buf_init(&sn->own);
    return sn;
}

void net_snapshot_free(net_snapshot *sn)
{
    if (!sn)
        return;
    if (sn->tick)
        net_tick_release(sn->tick);
    net_tick_pool_free(&sn->pool);
    mk_vec_free(&sn->body_off.v);
    mk_vec_free(&sn->compact_off.v);
    mk_vec_free(&sn->sent.v);
    mk_vec_free(&sn->full.v);
    mk_vec_free(&sn->near_mark.v);
    mk_vec_free(&sn->ranges.v);
    net_delta_free(&sn->delta);
    proto_buf_free(&sn->own);
    free(sn);
}

/* Whether a body's state can change from one snapshot to the next; the others are sent once,
 * at their first sighting. A sleeping body joins the static ones (PROTOCOL.md allows leaving
 * out asleep or static bodies) once every client has had a state since it fell asleep: its
 * resting state goes out for `grace` ticks (two snapshot periods and a second) after it. */
static bool body_changes(const sim_body *b, uint64_t tick, uint64_t grace)
{
    return b->kind != SIM_STATIC && (!b->sleeping || tick - b->slept_at <= grace);
}

/* ---- encoding, once per snapshot ---- */

/* The per-slot arrays for `slots` slots (and the end); new slots carry no near round: they
 * are near for no client yet. */
static bool reserve_slots(net_snapshot *sn, size_t slots)
{
    size_t n = slots + 1, marked = sn->near_mark.v.len;
    if (n <= marked)
        return true;
    if (!mk_vec_resize(&sn->body_off.v, n) || !mk_vec_resize(&sn->compact_off.v, n) ||
        !mk_vec_resize(&sn->sent.v, n) || !mk_vec_resize(&sn->full.v, n) ||
        !mk_vec_resize(&sn->near_mark.v, n))
        return false;
    memset(sn->near_mark.at + marked, 0, (n - marked) * sizeof *sn->near_mark.at);
    return true;
}

/* Each body whose state changes is sent this snapshot (sn->sent). With `objects`, each as
 * `,{...}`: slot i's piece is tick[body_off[i], body_off[i + 1]); the others' pieces are empty.
 * With `compact`, then each again as `,[...]` in compact_off, in a run of its own so that a
 * client's pieces stay next to each other. A form no client reads is not written (delta
 * clients read neither). */
static void encode_bodies(net_snapshot *sn, const net_server *srv, const sim_body *bodies,
                          size_t slots, bool objects, bool compact)
{
    proto_buf *b = &sn->tick->data;
    size_t *body_off = sn->body_off.at, *compact_off = sn->compact_off.at;
    bool *sent = sn->sent.at;
    net_piece *full = sn->full.at;
    proto_body_state st;
    sim_world *w = srv->world;
    int dim = sim_world_dim(w);
    uint64_t tick = sim_world_tick(w);
    uint64_t grace =
        (uint64_t)ceil(2.0 * srv->cfg.tick_hz / srv->cfg.snapshot_hz + srv->cfg.tick_hz);
    for (size_t i = 0; i < slots; i++) {
        body_off[i] = b->len;
        full[i].off = SIZE_MAX;
        const sim_body *body = &bodies[i];
        sent[i] = body->id != 0 && body_changes(body, tick, grace);
        if (!sent[i] || !objects)
            continue;
        wio_body_state(w, body, &st);
        proto_state_body(b, dim, &st, false);
        proto_state_body_end(b);
    }
    body_off[slots] = b->len;
    for (size_t i = 0; compact && i < slots; i++) {
        compact_off[i] = b->len;
        if (!sent[i])
            continue;
        wio_body_state(w, &bodies[i], &st);
        proto_state_body_compact(b, dim, &st);
    }
    compact_off[slots] = b->len;
}

/* The body with its first-sighting fields, encoded the first time a client needs it. */
static net_piece full_piece(net_snapshot *sn, sim_world *w, const sim_body *body,
                            size_t slot)
{
    net_piece *p = &sn->full.at[slot];
    if (p->off != SIZE_MAX)
        return *p;
    proto_buf *b = &sn->tick->data;
    p->off = b->len;
    int dim = sim_world_dim(w);
    proto_body_state st;
    wio_body_state(w, body, &st);
    proto_state_body(b, dim, &st, false);
    proto_shape shape; /* up to 256 hull points: the first sighting's price, once per tick */
    wio_body_shape_to_proto(w, body, &shape);
    proto_state_body_first(b, dim, &shape, wio_kind_to_proto(body->kind), body->owner,
                           body->tag);
    proto_filter filter;
    bool sensor;
    wio_body_filter(w, body, &filter, &sensor);
    proto_state_body_filter(b, &filter, sensor);
    proto_shape_free(&shape); /* a level body's geometry or name */
    proto_state_body_end(b);
    p->end = b->len;
    return *p;
}

/* The protocol keeps every vector in three coordinates; a 2D world's z is 0 and
 * proto_state_contact writes only the world's dim of them. */
static void set_xyz(double out[3], double x, double y, double z)
{
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

/* One contact of a 2D world's last step in the protocol's terms, and of a 3D world's. */
static proto_contact contact2(const sim_contact2 *sc)
{
    const col_manifold2 *m = &sc->m;
    proto_contact c = {.a = sc->a, .b = sc->b, .npoints = m->count};
    set_xyz(c.normal, m->normal.x, m->normal.y, 0);
    for (int k = 0; k < m->count; k++) {
        const col_contact_point2 *q = &m->points[k];
        set_xyz(c.points[k], q->point.x, q->point.y, 0);
        c.depths[k] = q->depth;
        c.ids[k] = q->id;
    }
    return c;
}

static proto_contact contact3(const sim_contact3 *sc)
{
    const col_manifold3 *m = &sc->m;
    proto_contact c = {.a = sc->a, .b = sc->b, .npoints = m->count};
    set_xyz(c.normal, m->normal.x, m->normal.y, m->normal.z);
    for (int k = 0; k < m->count; k++) {
        const col_contact_point3 *q = &m->points[k];
        set_xyz(c.points[k], q->point.x, q->point.y, q->point.z);
        c.depths[k] = q->depth;
        c.ids[k] = q->id;
    }
    return c;
}

/* `,"contacts":[...]` of the last step, encoded the first time a subscriber needs it. */
static net_piece contacts_piece(net_snapshot *sn, sim_world *w)
{
    net_piece *p = &sn->contacts;
    if (p->off != SIZE_MAX)
        return *p;
    proto_buf *b = &sn->tick->data;
    p->off = b->len;
    proto_state_contacts_begin(b);
    int dim = sim_world_dim(w);
    size_t n = 0;
    const sim_contact2 *c2 = dim == 2 ? sim_world_contacts2(w, &n) : NULL;
    const sim_contact3 *c3 = dim == 3 ? sim_world_contacts3(w, &n) : NULL;
    for (size_t i = 0; i < n; i++) {
        proto_contact c = c2 ? contact2(&c2[i]) : contact3(&c3[i]);
        proto_state_contact(b, dim, &c, i == 0);
    }
    proto_state_contacts_end(b);
    p->end = b->len;
    return *p;
}

/* ---- one client's state, as ranges ---- */

/* Appends a range to the view's state, joined to the previous one when it continues it. */
static bool add_range(net_snapshot *sn, const net_view *v, size_t off, size_t len, bool own)
{
    if (len == 0)
        return true;
    if (sn->ranges.v.len > v->range_begin) {
        net_range *last = &sn->ranges.at[sn->ranges.v.len - 1];
        if (last->own == own && last->off + last->len == off) {
            last->len += len;
            return true;
        }
    }
    return MK_VEC_PUSH(&sn->ranges, ((net_range){.off = off, .len = len, .own = own}));
}

/* Adds bytes of the view's own, written to sn->own since `mark`. */
static bool add_own(net_snapshot *sn, const net_view *v, size_t mark)
{
    return add_range(sn, v, mark - v->own_begin, sn->own.len - mark, true);
}

/* A body piece `,{...}`; the list's first drops its comma. */
static bool add_piece(net_snapshot *sn, const net_view *v, size_t off, size_t end, bool *first)
{
    size_t skip = *first ? 1 : 0;
    *first = false;
    return add_range(sn, v, off + skip, end - off - skip, false);
}

/* The point around which a client's radius counts: its avatar, when it has one in the world. */
static bool interest_centre(sim_world *w, const net_session *s, mk_vec3 *centre)
{
    if (s->view.radius <= 0 || s->avatar == 0)
        return false;
    const sim_body *a = sim_world_get(w, s->avatar);
    if (!a)
        return false;
    const sim_body3 *a3 = sim_body3_of(w, a);
    *centre = a3 ? a3->pos : mk_v3(a->pos.x, a->pos.y, 0.0f);
    return true;
}

/* A body for the client: its piece when it has seen it (empty when it has not changed), its
 * first sighting otherwise. */
static bool add_body(net_snapshot *sn, sim_world *w, net_view *v, const sim_body *body,
                     uint32_t slot, bool *first)
{
    if (!net_view_seen(v, slot) || v->delta_reset) {
        net_piece p = full_piece(sn, w, body, slot);
        net_view_see(v, slot);
        if (v->delta)
            net_delta_first(&sn->delta, v, w, body, slot);
        return add_piece(sn, v, p.off, p.end, first);
    }
    if (v->delta) { /* relative to the client's baseline */
        if (!sn->sent.at[slot])
            return true;
        size_t mark = sn->own.len, off, len;
        switch (net_delta_body(&sn->delta, v, body, slot, &off, &len)) {
        case NET_DELTA_SHARED:
            return add_piece(sn, v, off, off + len, first);
        case NET_DELTA_OWN:
            *first = false;
            return add_own(sn, v, mark);
        default:
            return true;
        }
    }
    const size_t *off = v->compact ? sn->compact_off.at : sn->body_off.at;
    if (off[slot] == off[slot + 1])
        return true;
    return add_piece(sn, v, off[slot], off[slot + 1], first);
}

/* The bodies of a client with an interest radius: those the broadphase finds near its
 * avatar (sim_world_bodies_near, in slot order), and `removed` for those it was last sent
 * that are not near any more. Its cost follows the bodies near it, not the world's size. */
static bool add_near_bodies(net_snapshot *sn, sim_world *w, net_view *v,
                            const sim_body *bodies, size_t slots, mk_vec3 centre, bool *first)
{
    const uint32_t *near;
    size_t n;
    if (!sim_world_bodies_near(w, centre, (float)v->radius, &near, &n))
        return false;
    uint32_t *mark = sn->near_mark.at;
    if (++sn->near_round == 0) { /* wrapped: no mark may match a new round by chance */
        memset(mark, 0, slots * sizeof *mark);
        sn->near_round = 1;
    }
    for (size_t k = 0; k < n; k++)
        mark[near[k]] = sn->near_round;
    if (!v->near_valid) { /* the radius is new: what it was sent so far is its view */
        v->near.v.len = 0;
        for (uint32_t i = 0; i < slots; i++)
            if (net_view_seen(v, i) && !MK_VEC_PUSH(&v->near, i))
                return false;
        v->near_valid = true;
    }
    /* What it was sent and that is gone from the radius. A slot whose body left the world
     * has its seen bit cleared already (net_view_forget). */
    for (size_t k = 0; k < v->near.v.len; k++) {
        uint32_t slot = v->near.at[k];
        if (mark[slot] == sn->near_round || !net_view_seen(v, slot))
            continue;
        net_view_unsee(v, slot);
        if (!MK_VEC_PUSH(&v->removed, bodies[slot].id))
            return false;
    }
    /* What is near now is its view: room for all of it at once. */
    if (!mk_vec_resize(&v->near.v, n))
        return false;
    for (size_t k = 0; k < n; k++) {
        v->near.at[k] = near[k];
        if (!add_body(sn, w, v, &bodies[near[k]], near[k], first))
            return false;
    }
    return true;
}

/* `,"events":[...]` of the client, pieces of the tick buffer (each event encoded once a
 * snapshot), and `,"dropped":N`. A `game` connection gets every event, near or not. */
static bool add_events(net_snapshot *sn, net_session *s, bool near, mk_vec3 centre)
{
    net_server *srv = s->srv;
    net_view *v = &s->view;
    net_events *ev = srv->events;
    uint64_t dropped = net_events_pick(ev, v, near && !net_session_is_game(s), centre,
                                       v->radius, srv->cfg.events_per_state);
    size_t mark = sn->own.len;
    proto_state_events_begin(&sn->own);
    bool ok = add_own(sn, v, mark), first = true;
    int dim = sim_world_dim(srv->world);
    for (size_t k = ev->pick.v.len; ok && k-- > 0;) {
        size_t off, end;
        net_events_piece(ev, ev->pick.at[k], &sn->tick->data, dim, &off, &end);
        ok = off != SIZE_MAX && add_piece(sn, v, off, end, &first);
    }
    mark = sn->own.len;
    proto_state_events_end(&sn->own);
    proto_state_dropped(&sn->own, dropped);
    return ok && add_own(sn, v, mark);
}

static bool build_state(net_snapshot *sn, sim_world *w, net_session *s,
                        const sim_body *bodies, size_t slots)
{
    net_view *v = &s->view;
    proto_buf *own = &sn->own;
    const proto_buf *tick = &sn->tick->data;
    v->range_begin = sn->ranges.v.len;
    v->own_begin = own->len;
    mk_vec3 centre = {0, 0, 0};
    bool near = interest_centre(w, s, &centre);

    size_t mark = own->len;
    v->delta_prev_id = 0;
    /* The world hash on the first state at or past each multiple of hash_every ticks. */
    uint64_t now = sn->tick->tick;
    bool hash = v->hash_every > 0 &&
                (!v->hash_sent || now / v->hash_every > v->hash_sent_tick / v->hash_every);
    if (hash) {
        if (!sn->hash_valid) {
            sn->hash = sim_world_hash(w);
            sn->hash_valid = true;
        }
        v->hash_sent = true;
        v->hash_sent_tick = now;
    }
    const net_inputs *in = &s->inputs;
    if (hash || v->delta || in->ack_tick > 0)
        proto_state_begin_ext(own, now, in->ack, in->ack_tick, v->delta, hash, sn->hash);
    else
        proto_state_begin(own, now, in->ack);
    bool ok = add_own(sn, v, mark), first = true;
    if (near) {
        ok = ok && add_near_bodies(sn, w, v, bodies, slots, centre, &first);
    } else {
        v->near_valid = false;
        for (size_t i = 0; ok && i < slots; i++)
            if (bodies[i].id != 0)
                ok = add_body(sn, w, v, &bodies[i], (uint32_t)i, &first);
    }
    mark = own->len;
    proto_state_bodies_end(own);
    proto_state_removed(own, v->removed.at, v->removed.v.len);
    ok = ok && net_view_write_joints(v, w, own) && add_own(sn, v, mark);
    if (ok && v->contacts) {
        net_piece p = contacts_piece(sn, w);
        ok = add_range(sn, v, p.off, p.end - p.off, false);
    }
    if (ok && v->events)
        ok = add_events(sn, s, near, centre);
    mark = own->len;
    proto_state_end(own);
    ok = ok && add_own(sn, v, mark) && !own->failed && !tick->failed;
    v->own_end = own->len;
    v->range_end = sn->ranges.v.len;
    v->removed.v.len = 0;
    v->delta_reset = false;
    return ok;
}

int net_snapshot_build(net_server *srv, uint64_t since)
{
    net_snapshot *sn = srv->snap;
    sim_world *w = srv->world;
    size_t slots;
    const sim_body *bodies = sim_world_slots(srv->world, &slots);
    sn->tick = net_tick_get(&sn->pool);
    if (!sn->tick || !reserve_slots(sn, slots)) {
        LOG_ERROR("snapshot: out of memory for %zu bodies", sim_world_body_count(w));
        net_snapshot_discard(srv);
        return -1;
    }
    sn->tick->tick = sim_world_tick(w);
    net_events_build(srv->events);
    bool objects = false, compact = false, delta = false;
    for (const net_session *s = srv->sessions; s; s = s->next) {
        const net_view *v = &s->view;
        objects = objects || (s->joined && !v->compact && !v->delta);
        compact = compact || (s->joined && v->compact && !v->delta);
        delta = delta || (s->joined && v->delta);
    }
    encode_bodies(sn, srv, bodies, slots, objects, compact);
    sn->hash_valid = false;
    int dim = sim_world_dim(w);
    if (delta) {
        if (!net_delta_reserve(&sn->delta, dim, slots)) {
            LOG_ERROR("snapshot: out of memory for %zu bodies", slots);
            net_snapshot_discard(srv);
            return -1;
        }
        net_delta_begin(&sn->delta, w, (uint32_t)srv->cfg.tick_hz, sn->sent.at, bodies, slots,
                        &sn->tick->data, &sn->own, sn->tick->tick);
    }
    sn->contacts.off = SIZE_MAX;
    sn->ranges.v.len = 0;
    proto_buf_clear(&sn->own);

    int ready = 0;
    for (net_session *s = srv->sessions; s; s = s->next) {
        net_view *v = &s->view;
        v->ready = v->failed = false;
        if (!s->joined || s->close_reason || !net_view_due(v, &srv->cfg, since, sn->tick->tick))
            continue;
        if (s->state_in_flight) { /* a slow reader: it gets a newer state once this one is
                                     written */
            srv->stats.states_dropped++;
            continue;
        }
        if (!net_view_reserve(v, slots) || (v->delta && !net_delta_reserve_base(v, dim, slots)) ||
            !build_state(sn, w, s, bodies, slots)) {
            v->failed = true;
            continue;
        }
        v->ready = true;
        ready++;
    }
    return ready;
}

void net_snapshot_discard(net_server *srv)
{
    net_snapshot *sn = srv->snap;
    for (net_session *s = srv->sessions; s; s = s->next)
        s->view.ready = s->view.failed = false;
    if (sn->tick)
        net_tick_release(sn->tick);
    sn->tick = NULL;
}

net_state net_snapshot_state(const net_snapshot *sn, const net_view *v)
{
    return (net_state){
        .tick = sn->tick,
        .ranges = sn->ranges.at + v->range_begin,
        .n = v->range_end - v->range_begin,
        .own = sn->own.data + v->own_begin,
        .own_len = v->own_end - v->own_begin,
    };
}

void net_snapshot_copy(const net_snapshot *sn, const net_view *v, proto_buf *out)
{
    net_state st = net_snapshot_state(sn, v);
    size_t len = net_state_len(&st);
    proto_buf_clear(out);
    if (!proto_buf_reserve(out, len))
        return;
    net_state_copy(&st, out->data);
    out->len = len;
}
