/* `state` snapshots. Each moving body is encoded once per snapshot into a shared buffer (the
 * fixed-point writer of mink_proto, no cJSON, no printf); each client's state is its own
 * header (`ack`), those pieces, the first-sighting fields of bodies it has not seen yet,
 * `removed` and, when subscribed, the contacts. Static bodies a client has seen are left out:
 * they never change. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net_internal.h"

static bool seen_get(const net_session *s, uint32_t slot)
{
    return slot < s->seen_bits && (s->seen[slot >> 3] >> (slot & 7)) & 1u;
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

static bool removed_push(net_session *s, sim_id id)
{
    if (s->removed_len == s->removed_cap) {
        size_t cap = s->removed_cap ? s->removed_cap * 2 : 16;
        sim_id *p = realloc(s->removed, cap * sizeof *p);
        if (!p)
            return false;
        s->removed = p;
        s->removed_cap = cap;
    }
    s->removed[s->removed_len++] = id;
    return true;
}

void net_snapshot_collect_removed(net_server *srv)
{
    size_t n;
    const sim_id *ids = sim_world_removed(srv->world, &n);
    for (net_session *s = srv->sessions; s; s = s->next) {
        for (size_t i = 0; i < n; i++) {
            uint32_t slot = sim_id_slot(ids[i]);
            if (!seen_get(s, slot))
                continue;
            seen_clear(s, slot);
            if (!removed_push(s, ids[i]))
                net_session_close(s, "out of memory");
        }
    }
    /* Every session now knows; the slots may be reused. */
    sim_world_clear_removed(srv->world);
}

static void body_state(const sim_body *b, proto_body_state *st)
{
    memset(st, 0, sizeof *st);
    st->id = b->id;
    st->pos[0] = b->pos.x;
    st->pos[1] = b->pos.y;
    st->rot[0] = b->angle;
    st->vel[0] = b->vel.x;
    st->vel[1] = b->vel.y;
    st->w[0] = b->w;
}

/* Encodes every body once, without a leading comma. Slot i's piece is
 * bodies[body_off[i], body_off[i + 1]); a free slot's piece is empty. */
static bool encode_bodies(net_server *srv)
{
    size_t slots;
    const sim_body *bodies = sim_world_slots(srv->world, &slots);
    if (slots + 1 > srv->body_off_cap) {
        size_t cap = slots + slots / 2 + 64;
        size_t *p = realloc(srv->body_off, cap * sizeof *p);
        if (!p)
            return false;
        srv->body_off = p;
        srv->body_off_cap = cap;
    }
    proto_buf_clear(&srv->bodies);
    proto_body_state st;
    for (size_t i = 0; i < slots; i++) {
        srv->body_off[i] = srv->bodies.len;
        if (bodies[i].id == 0)
            continue;
        body_state(&bodies[i], &st);
        proto_state_body(&srv->bodies, 2, &st, true);
    }
    srv->body_off[slots] = srv->bodies.len;
    return !srv->bodies.failed;
}

static void build_state(net_server *srv, net_session *s, proto_buf *b)
{
    size_t slots;
    const sim_body *bodies = sim_world_slots(srv->world, &slots);
    proto_state_begin(b, sim_world_tick(srv->world), s->ack);
    bool first = true;
    for (size_t i = 0; i < slots; i++) {
        const sim_body *body = &bodies[i];
        if (body->id == 0)
            continue;
        bool seen = seen_get(s, (uint32_t)i);
        if (seen && body->kind == SIM_STATIC)
            continue;
        size_t off = srv->body_off[i], end = srv->body_off[i + 1];
        if (!first)
            proto_buf_append_char(b, ',');
        first = false;
        proto_buf_append(b, srv->bodies.data + off, end - off);
        if (!seen) {
            proto_shape shape;
            sim_shape_to_proto(&body->shape, &shape);
            proto_state_body_first(b, 2, &shape, sim_kind_to_proto(body->kind), body->owner,
                                   body->tag);
        }
        proto_state_body_end(b);
    }
    proto_state_bodies_end(b);
    proto_state_removed(b, s->removed, s->removed_len);
    if (s->contacts) {
        size_t n;
        const sim_contact *cs = sim_world_contacts(srv->world, &n);
        proto_state_contacts_begin(b);
        for (size_t i = 0; i < n; i++) {
            const col_manifold2 *m = &cs[i].m;
            proto_contact c = {.a = cs[i].a, .b = cs[i].b, .npoints = m->count};
            c.normal[0] = m->normal.x;
            c.normal[1] = m->normal.y;
            for (int k = 0; k < m->count; k++) {
                c.points[k][0] = m->points[k].point.x;
                c.points[k][1] = m->points[k].point.y;
                c.depths[k] = m->points[k].depth;
                c.ids[k] = m->points[k].id;
            }
            proto_state_contact(b, 2, &c, i == 0);
        }
        proto_state_contacts_end(b);
    }
    proto_state_end(b);
}

/* Marks the bodies of a sent state as seen and forgets the removals it carried. */
static void commit_state(net_server *srv, net_session *s)
{
    size_t slots;
    const sim_body *bodies = sim_world_slots(srv->world, &slots);
    for (size_t i = 0; i < slots; i++) {
        if (bodies[i].id != 0)
            s->seen[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
    s->removed_len = 0;
}

void net_snapshot_send(net_server *srv)
{
    net_snapshot_collect_removed(srv);
    if (!encode_bodies(srv)) {
        LOG_ERROR("snapshot: out of memory encoding %zu bodies", sim_world_body_count(srv->world));
        return;
    }
    size_t slots;
    sim_world_slots(srv->world, &slots);
    proto_buf *b = &srv->out;
    net_session *next;
    for (net_session *s = srv->sessions; s; s = next) {
        next = s->next; /* sending can close s */
        if (!s->joined || s->state_in_flight)
            continue;
        if (!seen_reserve(s, slots)) {
            net_session_close(s, "out of memory");
            continue;
        }
        proto_buf_clear(b);
        build_state(srv, s, b);
        if (b->failed) {
            LOG_ERROR("client %u: out of memory building a state", s->client);
            continue;
        }
        commit_state(srv, s);
        net_session_send(s, b->data, b->len, true);
    }
}

void net_snapshot_free(net_server *srv)
{
    proto_buf_free(&srv->bodies);
    free(srv->body_off);
    srv->body_off = NULL;
    srv->body_off_cap = 0;
}
