/* The world's events for the clients: one ring shared by every session, read by sequence number
 * (events.h). Taking a step's events costs a copy each and the positions of their bodies;
 * building a state costs a pass over the events since the client's last state (at most the
 * ring), and each event is encoded once a snapshot whatever the number of clients that get it.
 * A slow reader costs nothing but its sequence number: what it falls behind by is counted, not
 * kept. */
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "net_server.h"
#include "session.h"

net_events *net_events_new(uint32_t per_state)
{
    net_events *ev = calloc(1, sizeof *ev);
    if (!ev)
        return NULL;
    ev->ring.v = mk_vec_make(sizeof(net_event));
    ev->pick.v = mk_vec_make(sizeof(uint64_t));
    size_t n = (size_t)per_state * NET_EVENTS_RING_STATES;
    if (!mk_vec_resize(&ev->ring.v, n) || !mk_vec_reserve(&ev->pick.v, per_state)) {
        net_events_free(ev);
        return NULL;
    }
    memset(ev->ring.at, 0, n * sizeof *ev->ring.at);
    return ev;
}

void net_events_free(net_events *ev)
{
    if (!ev)
        return;
    mk_vec_free(&ev->ring.v);
    mk_vec_free(&ev->pick.v);
    free(ev);
}

/* Where body `id` is, into *at: false when it is not in the world. */
static bool position_of(const sim_world *w, sim_id id, mk_vec3 *at)
{
    const sim_body *b = sim_world_get(w, id);
    if (!b)
        return false;
    const sim_body3 *b3 = sim_body3_of(w, b);
    *at = b3 ? b3->pos : mk_v3(b->pos.x, b->pos.y, 0.0f);
    return true;
}

void net_events_take(net_server *srv)
{
    sim_world *w = srv->world;
    net_events *ev = srv->events;
    size_t n;
    const sim_event *events = sim_world_events(w, &n);
    bool wanted = false;
    for (const net_session *s = srv->sessions; s && !wanted; s = s->next)
        wanted = s->view.events;
    for (size_t i = 0; wanted && i < n; i++) {
        net_event *e = &ev->ring.at[ev->head % ev->ring.v.len];
        e->e = events[i];
        e->near = 0;
        e->built = 0;
        if (events[i].type != SIM_EVENT_JOINT_BREAK) {
            e->near += position_of(w, events[i].a, &e->at[e->near]);
            e->near += position_of(w, events[i].b, &e->at[e->near]);
            if (events[i].type == SIM_EVENT_HIT)
                e->at[e->near++] = events[i].point;
        }
        ev->head++;
    }
    sim_world_clear_events(w);
}

void net_events_subscribe(const net_events *ev, net_view *v) { v->events_next = ev->head; }

void net_events_build(net_events *ev) { ev->builds++; }

static bool within(const net_event *e, mk_vec3 centre, double radius)
{
    if (e->near == 0)
        return true;
    for (int i = 0; i < e->near; i++) {
        mk_vec3 d = mk_v3_sub(e->at[i], centre);
        if ((double)mk_v3_dot(d, d) <= radius * radius)
            return true;
    }
    return false;
}

uint64_t net_events_pick(net_events *ev, net_view *v, bool near, mk_vec3 centre, double radius,
                         uint32_t limit)
{
    uint64_t kept = ev->ring.v.len, oldest = ev->head > kept ? ev->head - kept : 0;
    uint64_t from = v->events_next, dropped = 0;
    if (from < oldest) {
        dropped = oldest - from;
        from = oldest;
    }
    ev->pick.v.len = 0;
    for (uint64_t s = ev->head; s-- > from;) {
        if (near && !within(&ev->ring.at[s % kept], centre, radius))
            continue;
        if (ev->pick.v.len < limit)
            ev->pick.at[ev->pick.v.len++] = s; /* room for `limit` reserved */
        else
            dropped++;
    }
    v->events_next = ev->head;
    return dropped;
}

void net_events_piece(net_events *ev, uint64_t seq, proto_buf *b, int dim, size_t *off,
                      size_t *end)
{
    net_event *e = &ev->ring.at[seq % ev->ring.v.len];
    if (e->built != ev->builds) {
        proto_event pe;
        wio_event_to_proto(dim, &e->e, &pe);
        e->off = b->len;
        proto_state_event(b, dim, &pe, false);
        e->end = b->len;
        e->built = b->failed ? 0 : ev->builds;
    }
    *off = b->failed ? SIZE_MAX : e->off;
    *end = e->end;
}
