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
 * left the world or its radius. Static and sleeping bodies it
 * has seen are left out. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net_internal.h"
#include "session.h"

/* Whether a body's state can change from one snapshot to the next; the others are sent once,
 * at their first sighting. A sleeping body joins the static ones (PROTOCOL.md allows leaving
 * out asleep or static bodies) once every client has had a state since it fell asleep: its
 * resting state goes out for `grace` ticks (two snapshot periods and a second) after it. */
static bool body_changes(const sim_body *b, uint64_t tick, uint64_t grace)
{
    return b->kind != SIM_STATIC && (!b->sleeping || tick - b->slept_at <= grace);
}

static bool seen_get(const net_session *s, uint32_t slot)
{
    return slot < s->seen_bits && (s->seen[slot >> 3] >> (slot & 7)) & 1u;
}

static void seen_set(net_session *s, uint32_t slot)
{
    s->seen[slot >> 3] |= (uint8_t)(1u << (slot & 7));
}

static void seen_clear(net_session *s, uint32_t slot)
{
    if (slot < s->seen_bits)
        s->seen[slot >> 3] &= (uint8_t) ~(1u << (slot & 7));
}

/* Grows the bitset to cover `bits` slots; new slots are unseen. */
static bool seen_reserve(net_session *s, size_t bits)
{
    if (bits <= s->seen_bits)
        return true;
    size_t old_bytes = (s->seen_bits + 7) / 8;
    size_t bytes = (bits + 7) / 8;
    bytes = bytes < 64 ? 64 : bytes + bytes / 2;
    uint8_t *p = realloc(s->seen, bytes);
    if (!p)
        return false;
    memset(p + old_bytes, 0, bytes - old_bytes);
    s->seen = p;
    s->seen_bits = bytes * 8;
    return true;
}

/* Makes room for one more item in a growable array of `*cap` items (doubling, from `first`). */
static bool grow_for_one(void **items, size_t len, size_t *cap, size_t item, size_t first)
{
    if (len < *cap)
        return true;
    size_t n = *cap ? *cap * 2 : first;
    void *p = realloc(*items, n * item);
    if (!p)
        return false;
    *items = p;
    *cap = n;
    return true;
}

/* Appends one item of `size` bytes to a growable array of `*len` items. */
static bool push_one(void **items, size_t *len, size_t *cap, const void *item, size_t size,
                     size_t first)
{
    if (!grow_for_one(items, *len, cap, size, first))
        return false;
    memcpy((unsigned char *)*items + *len * size, item, size);
    (*len)++;
    return true;
}

static bool removed_push(net_session *s, sim_id id)
{
    void *items = s->removed;
    bool ok = push_one(&items, &s->removed_len, &s->removed_cap, &id, sizeof id, 16);
    s->removed = items;
    return ok;
}

void net_snapshot_collect_removed(net_server *srv)
{
    size_t n;
    const sim_id *ids = sim_world_removed(srv->world, &n);
    /* A session closed here leaves the world after the removed list is cleared: its bodies
     * are then the next snapshot's removals, told to everyone who saw them. */
    net_walk_begin(srv);
    for (net_session *s = srv->sessions; s; s = s->next) {
        for (size_t i = 0; i < n; i++) {
            uint32_t slot = sim_id_slot(ids[i]);
            if (!seen_get(s, slot))
                continue;
            seen_clear(s, slot);
            if (!removed_push(s, ids[i])) {
                net_session_close(s, "out of memory");
                break;
            }
        }
    }
    /* Every session now knows; the slots may be reused. */
    sim_world_clear_removed(srv->world);
    net_walk_end(srv);
}

/* ---- encoding, once per snapshot ---- */

static bool reserve_slots(net_server *srv, size_t slots)
{
    if (slots + 1 <= srv->slot_cap)
        return true;
    size_t cap = slots + slots / 2 + 64;
    size_t *off = realloc(srv->body_off, cap * sizeof *off);
    if (off)
        srv->body_off = off;
    net_piece *full = realloc(srv->full, cap * sizeof *full);
    if (full)
        srv->full = full;
    size_t *compact_off = realloc(srv->compact_off, cap * sizeof *compact_off);
    if (compact_off)
        srv->compact_off = compact_off;
    bool *sent = realloc(srv->sent, cap * sizeof *sent);
    if (sent)
        srv->sent = sent;
    uint32_t *mark = realloc(srv->near_mark, cap * sizeof *mark);
    if (mark) {
        /* New slots carry no round: they are near for no client yet. */
        for (size_t i = srv->slot_cap; i < cap; i++)
            mark[i] = 0;
        srv->near_mark = mark;
    }
    if (!off || !compact_off || !full || !sent || !mark)
        return false;
    srv->slot_cap = cap;
    return true;
}

/* Each body whose state changes is sent this snapshot (srv->sent). With `objects`, each as
 * `,{...}`: slot i's piece is tick[body_off[i], body_off[i + 1]); the others' pieces are empty.
 * With `compact`, then each again as `,[...]` in compact_off, in a run of its own so that a
 * client's pieces stay next to each other. A form no client reads is not written (delta
 * clients read neither). */
static void encode_bodies(net_server *srv, const sim_body *bodies, size_t slots, bool objects,
                          bool compact)
{
    proto_buf *b = &srv->tick->data;
    proto_body_state st;
    const sim_world *w = srv->world;
    int dim = sim_world_dim(w);
    uint64_t tick = sim_world_tick(w);
    uint64_t grace =
        (uint64_t)ceil(2.0 * srv->cfg.tick_hz / srv->cfg.snapshot_hz + srv->cfg.tick_hz);
    for (size_t i = 0; i < slots; i++) {
        srv->body_off[i] = b->len;
        srv->full[i].off = SIZE_MAX;
        const sim_body *body = &bodies[i];
        srv->sent[i] = body->id != 0 && body_changes(body, tick, grace);
        if (!srv->sent[i] || !objects)
            continue;
        wio_body_state(w, body, &st);
        proto_state_body(b, dim, &st, false);
        proto_state_body_end(b);
    }
    srv->body_off[slots] = b->len;
    for (size_t i = 0; compact && i < slots; i++) {
        srv->compact_off[i] = b->len;
        if (!srv->sent[i])
            continue;
        wio_body_state(w, &bodies[i], &st);
        proto_state_body_compact(b, dim, &st);
    }
    srv->compact_off[slots] = b->len;
}

/* The body with its first-sighting fields, encoded the first time a client needs it. */
static net_piece full_piece(net_server *srv, const sim_body *body, size_t slot)
{
    net_piece *p = &srv->full[slot];
    if (p->off != SIZE_MAX)
        return *p;
    proto_buf *b = &srv->tick->data;
    p->off = b->len;
    int dim = sim_world_dim(srv->world);
    proto_body_state st;
    wio_body_state(srv->world, body, &st);
    proto_state_body(b, dim, &st, false);
    proto_shape shape; /* up to 256 hull points: the first sighting's price, once per tick */
    wio_body_shape_to_proto(srv->world, body, &shape);
    proto_state_body_first(b, dim, &shape, wio_kind_to_proto(body->kind), body->owner,
                           body->tag);
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
static net_piece contacts_piece(net_server *srv)
{
    net_piece *p = &srv->contacts;
    if (p->off != SIZE_MAX)
        return *p;
    proto_buf *b = &srv->tick->data;
    p->off = b->len;
    proto_state_contacts_begin(b);
    int dim = sim_world_dim(srv->world);
    size_t n = 0;
    const sim_contact2 *c2 = dim == 2 ? sim_world_contacts2(srv->world, &n) : NULL;
    const sim_contact3 *c3 = dim == 3 ? sim_world_contacts3(srv->world, &n) : NULL;
    for (size_t i = 0; i < n; i++) {
        proto_contact c = c2 ? contact2(&c2[i]) : contact3(&c3[i]);
        proto_state_contact(b, dim, &c, i == 0);
    }
    proto_state_contacts_end(b);
    p->end = b->len;
    return *p;
}

/* ---- one client's state, as ranges ---- */

/* Appends a range, joined to the previous one when it continues it. */
static bool add_range(net_server *srv, net_session *s, size_t off, size_t len, bool own)
{
    if (len == 0)
        return true;
    if (srv->ranges_len > s->range_begin) {
        net_range *last = &srv->ranges[srv->ranges_len - 1];
        if (last->own == own && last->off + last->len == off) {
            last->len += len;
            return true;
        }
    }
    void *items = srv->ranges;
    bool ok = grow_for_one(&items, srv->ranges_len, &srv->ranges_cap, sizeof *srv->ranges, 256);
    srv->ranges = items;
    if (ok)
        srv->ranges[srv->ranges_len++] = (net_range){.off = off, .len = len, .own = own};
    return ok;
}

/* Adds bytes of the session's own, written to srv->own since `mark`. */
static bool add_own(net_server *srv, net_session *s, size_t mark)
{
    return add_range(srv, s, mark - s->own_begin, srv->own.len - mark, true);
}

/* A body piece `,{...}`; the list's first drops its comma. */
static bool add_piece(net_server *srv, net_session *s, size_t off, size_t end, bool *first)
{
    size_t skip = *first ? 1 : 0;
    *first = false;
    return add_range(srv, s, off + skip, end - off - skip, false);
}

/* The point around which a client's radius counts: its avatar, when it has one in the world. */
static bool interest_centre(net_server *srv, const net_session *s, mk_vec3 *centre)
{
    if (s->radius <= 0 || s->avatar == 0)
        return false;
    const sim_body *a = sim_world_get(srv->world, s->avatar);
    if (!a)
        return false;
    const sim_body3 *a3 = sim_body3_of(srv->world, a);
    *centre = a3 ? a3->pos : mk_v3(a->pos.x, a->pos.y, 0.0f);
    return true;
}

/* A body for the client: its piece when it has seen it (empty when it has not changed), its
 * first sighting otherwise. */
static bool add_body(net_server *srv, net_session *s, const sim_body *body, uint32_t slot,
                     bool *first)
{
    if (!seen_get(s, slot) || s->delta_reset) {
        net_piece p = full_piece(srv, body, slot);
        seen_set(s, slot);
        if (s->delta)
            net_delta_first(srv, s, body, slot);
        return add_piece(srv, s, p.off, p.end, first);
    }
    if (s->delta) { /* relative to the client's baseline */
        if (!srv->sent[slot])
            return true;
        size_t mark = srv->own.len, off, len;
        switch (net_delta_body(srv, s, body, slot, &off, &len)) {
        case NET_DELTA_SHARED:
            return add_piece(srv, s, off, off + len, first);
        case NET_DELTA_OWN:
            *first = false;
            return add_own(srv, s, mark);
        default:
            return true;
        }
    }
    const size_t *off = s->compact ? srv->compact_off : srv->body_off;
    if (off[slot] == off[slot + 1])
        return true;
    return add_piece(srv, s, off[slot], off[slot + 1], first);
}

static bool view_push(net_session *s, uint32_t slot)
{
    void *items = s->view;
    bool ok = push_one(&items, &s->view_len, &s->view_cap, &slot, sizeof slot, 64);
    s->view = items;
    return ok;
}

/* The bodies of a client with an interest radius: those the broadphase finds near its
 * avatar (sim_world_bodies_near, in slot order), and `removed` for those it was last sent
 * that are not near any more. Its cost follows the bodies near it, not the world's size. */
static bool add_near_bodies(net_server *srv, net_session *s, const sim_body *bodies,
                            size_t slots, mk_vec3 centre, bool *first)
{
    const uint32_t *near;
    size_t n;
    if (!sim_world_bodies_near(srv->world, centre, (float)s->radius, &near, &n))
        return false;
    if (++srv->near_round == 0) { /* wrapped: no mark may match a new round by chance */
        memset(srv->near_mark, 0, slots * sizeof *srv->near_mark);
        srv->near_round = 1;
    }
    for (size_t k = 0; k < n; k++)
        srv->near_mark[near[k]] = srv->near_round;
    if (!s->view_valid) { /* the radius is new: what it was sent so far is its view */
        s->view_len = 0;
        for (uint32_t i = 0; i < slots; i++)
            if (seen_get(s, i) && !view_push(s, i))
                return false;
        s->view_valid = true;
    }
    /* What it was sent and that is gone from the radius. A slot whose body left the world
     * has its seen bit cleared already (net_snapshot_collect_removed). */
    for (size_t k = 0; k < s->view_len; k++) {
        uint32_t slot = s->view[k];
        if (srv->near_mark[slot] == srv->near_round || !seen_get(s, slot))
            continue;
        seen_clear(s, slot);
        if (!removed_push(s, bodies[slot].id))
            return false;
    }
    s->view_len = 0;
    for (size_t k = 0; k < n; k++)
        if (!view_push(s, near[k]) || !add_body(srv, s, &bodies[near[k]], near[k], first))
            return false;
    return true;
}

static bool build_state(net_server *srv, net_session *s, const sim_body *bodies, size_t slots)
{
    proto_buf *own = &srv->own;
    const proto_buf *tick = &srv->tick->data;
    s->range_begin = srv->ranges_len;
    s->own_begin = own->len;
    mk_vec3 centre = {0, 0, 0};
    bool near = interest_centre(srv, s, &centre);

    size_t mark = own->len;
    s->delta_prev_id = 0;
    /* The world hash on the first state at or past each multiple of hash_every ticks. */
    uint64_t now = srv->tick->tick;
    bool hash = s->hash_every > 0 &&
                (!s->hash_sent || now / s->hash_every > s->hash_sent_tick / s->hash_every);
    if (hash) {
        if (!srv->hash_valid) {
            srv->hash = sim_world_hash(srv->world);
            srv->hash_valid = true;
        }
        s->hash_sent = true;
        s->hash_sent_tick = now;
    }
    if (hash || s->delta || s->inputs.ack_tick > 0)
        proto_state_begin_ext(own, now, s->inputs.ack, s->inputs.ack_tick, s->delta, hash, srv->hash);
    else
        proto_state_begin(own, now, s->inputs.ack);
    bool ok = add_own(srv, s, mark), first = true;
    if (near) {
        ok = ok && add_near_bodies(srv, s, bodies, slots, centre, &first);
    } else {
        s->view_valid = false;
        for (size_t i = 0; ok && i < slots; i++)
            if (bodies[i].id != 0)
                ok = add_body(srv, s, &bodies[i], (uint32_t)i, &first);
    }
    mark = own->len;
    proto_state_bodies_end(own);
    proto_state_removed(own, s->removed, s->removed_len);
    ok = ok && add_own(srv, s, mark);
    if (ok && s->contacts) {
        net_piece p = contacts_piece(srv);
        ok = add_range(srv, s, p.off, p.end - p.off, false);
    }
    mark = own->len;
    proto_state_end(own);
    ok = ok && add_own(srv, s, mark) && !own->failed && !tick->failed;
    s->own_end = own->len;
    s->range_end = srv->ranges_len;
    s->removed_len = 0;
    s->delta_reset = false;
    return ok;
}

int net_snapshot_build(net_server *srv, uint64_t since)
{
    net_snapshot_collect_removed(srv);
    size_t slots;
    const sim_body *bodies = sim_world_slots(srv->world, &slots);
    srv->tick = net_tick_get(srv);
    if (!srv->tick || !reserve_slots(srv, slots)) {
        LOG_ERROR("snapshot: out of memory for %zu bodies", sim_world_body_count(srv->world));
        net_snapshot_discard(srv);
        return -1;
    }
    srv->tick->tick = sim_world_tick(srv->world);
    bool objects = false, compact = false, delta = false;
    for (const net_session *s = srv->sessions; s; s = s->next) {
        objects = objects || (s->joined && !s->compact && !s->delta);
        compact = compact || (s->joined && s->compact && !s->delta);
        delta = delta || (s->joined && s->delta);
    }
    encode_bodies(srv, bodies, slots, objects, compact);
    srv->hash_valid = false;
    srv->world_tick_hz = (uint32_t)srv->cfg.tick_hz;
    if (delta) {
        if (!net_delta_reserve_server(srv, slots)) {
            LOG_ERROR("snapshot: out of memory for %zu bodies", slots);
            net_snapshot_discard(srv);
            return -1;
        }
        net_delta_encode(srv, bodies, slots);
    }
    srv->contacts.off = SIZE_MAX;
    srv->ranges_len = 0;
    proto_buf_clear(&srv->own);

    int ready = 0;
    net_walk_begin(srv); /* a failure closes s when the pass ends */
    for (net_session *s = srv->sessions; s; s = s->next) {
        s->state_ready = false;
        if (!s->joined || s->close_reason || !net_state_due(srv, s, since, srv->tick->tick))
            continue;
        if (s->state_in_flight) { /* a slow reader: it gets a newer state once this one is
                                     written */
            srv->stats.states_dropped++;
            continue;
        }
        if (!seen_reserve(s, slots) || (s->delta && !net_delta_reserve(srv, s, slots)) ||
            !build_state(srv, s, bodies, slots)) {
            net_session_close(s, "out of memory building a state");
            continue;
        }
        s->state_ready = true;
        ready++;
    }
    net_walk_end(srv);
    return ready;
}

bool net_snapshot_send(net_server *srv, uint64_t since)
{
    uint64_t tick = sim_world_tick(srv->world);
    bool due = false;
    for (const net_session *s = srv->sessions; s && !due; s = s->next)
        due = s->joined && net_state_due(srv, s, since, tick);
    if (!due)
        return false;
    if (net_snapshot_build(srv, since) > 0)
        net_snapshot_write(srv);
    else
        net_snapshot_discard(srv);
    return true;
}

void net_snapshot_free(net_server *srv)
{
    net_snapshot_discard(srv);
    net_tick_pool_free(srv);
    free(srv->body_off);
    free(srv->sent);
    srv->sent = NULL;
    free(srv->full);
    free(srv->near_mark);
    free(srv->compact_off);
    free(srv->ranges);
    free(srv->q);
    srv->q = NULL;
    srv->q_cap = 0;
    free(srv->memo);
    srv->memo = NULL;
    srv->memo_cap = 0;
    proto_buf_free(&srv->own);
    srv->body_off = NULL;
    srv->full = NULL;
    srv->near_mark = NULL;
    srv->compact_off = NULL;
    srv->ranges = NULL;
    srv->slot_cap = srv->ranges_cap = srv->ranges_len = 0;
}
