/* The world's events for the clients (events.c): after each step the world's events go into
 * one ring that every session reads from by sequence number, with where their bodies were, and
 * the world's are cleared. A session's state carries the events since its last one that are
 * within its interest radius, at most net_config.events_per_state of them, the newest; the
 * ring keeps NET_EVENTS_RING_STATES times that, so that a memory bounded whatever the number
 * of clients holds what a client slow by that many states reads, and the rest is counted as
 * dropped. Each event is encoded once a snapshot, into the tick buffer, for every client that
 * gets it (snapshot.c lays the pieces out). */
#ifndef MINK_NET_EVENTS_H
#define MINK_NET_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "mink_proto.h"
#include "mink_sim.h"
#include "mk_vec.h"
#include "view.h"

typedef struct net_server net_server;

#define NET_EVENTS_RING_STATES 16

/* An event in the ring, with where its bodies were after its step (the interest radius) and
 * its piece of the snapshot being built. */
typedef struct net_event {
    sim_event e;
    mk_vec3 at[3];  /* its bodies' positions and a hit's point: `near` of them */
    uint8_t near;   /* 0: none is known (a joint's, bodies gone): every client gets it */
    uint64_t built; /* the snapshot [off, end) of the tick buffer was encoded in */
    size_t off, end;
} net_event;

typedef struct net_events {
    MK_VEC(net_event) ring; /* sequence number s at s % its length, which never changes */
    uint64_t head;          /* the sequence number of the next event */
    uint64_t builds;        /* snapshots begun (net_events_build) */
    MK_VEC(uint64_t) pick;  /* the sequence numbers of a state's events, newest first */
} net_events;

/* The ring for states of at most `per_state` events; NULL when memory ran out. */
net_events *net_events_new(uint32_t per_state);
void net_events_free(net_events *ev);
/* After each step: the world's events into the ring (when a session subscribed to them), then
 * the world's cleared. */
void net_events_take(net_server *srv);
/* A view subscribes: it gets the events from the next one on. */
void net_events_subscribe(const net_events *ev, net_view *v);
/* A snapshot begins: every event is encoded anew in its tick buffer. */
void net_events_build(net_events *ev);
/* The events of a view's state into ev->pick, newest first: those since its last state (then
 * it has had them all), within `radius` of `centre` when `near`, at most `limit`. Returns how
 * many it did not get (beyond the limit, or gone from the ring before it read them). */
uint64_t net_events_pick(net_events *ev, net_view *v, bool near, mk_vec3 centre, double radius,
                         uint32_t limit);
/* The piece `,{...}` of event `seq` in the tick buffer `b` (encoded the first time a state of
 * this snapshot asks for it); its off is SIZE_MAX when memory ran out. */
void net_events_piece(net_events *ev, uint64_t seq, proto_buf *b, int dim, size_t *off,
                      size_t *end);

#endif
