/* A client's view of the world across its states (view.c), the session's part of the
 * snapshots: what it asked to be sent (`subscribe`), which bodies it has seen and what it is
 * to be told is gone, its baselines for delta states, and the state being built for it. The
 * snapshot (snapshot.c) reads and writes it for every session it builds a state for. */
#ifndef MINK_NET_VIEW_H
#define MINK_NET_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mink_net.h"
#include "mk_vec.h"

typedef struct net_view {
    /* What the client asked for (`subscribe`). */
    bool contacts;       /* contact manifolds */
    double radius;       /* interest radius in m around the avatar; 0: every body */
    bool compact;        /* seen bodies as arrays */
    bool delta;          /* seen bodies relative to their last state sent */
    bool delta_reset;    /* delta was just turned on: the next state sends every body whole */
    uint32_t hash_every; /* ticks between world hashes in `state`, 0 off */
    bool events;         /* what happened since the last state (events.c) */
    uint64_t events_next; /* the sequence number of the first event it has not been sent */
    uint64_t hash_sent_tick; /* the tick of the last state that carried the hash */
    bool hash_sent;
    uint32_t phase; /* which tick of a snapshot period its states go out on */

    /* Which bodies it has seen: one bit per world slot (a slot past the end is unseen), and
     * what it has to be told is gone. */
    MK_VEC(uint8_t) seen;
    MK_VEC(sim_id) removed;
    /* With an interest radius: the slots it was last sent as within it (valid while
     * near_valid), so that those that left are found without looking at every slot. */
    MK_VEC(uint32_t) near;
    bool near_valid;
    /* With delta: per slot, the last state of the body sent to this client (quantised,
     * proto_q_count values) and then its tick, side by side: a snapshot reads both for
     * every body and client, one cache line where it can. Valid while the slot's seen bit
     * is set (snapshot_delta.c). */
    MK_VEC(int64_t) base;
    uint64_t delta_prev_id; /* the id of the entry before, in the state being built */

    /* The state built this snapshot (snapshot.c): its pieces are ranges
     * [range_begin, range_end) of the snapshot's list, its own bytes (header, `removed`, the
     * end) [own_begin, own_end) of the snapshot's `own` buffer. Failed: memory ran out
     * building it, and the session is to be closed. */
    bool ready, failed;
    size_t range_begin, range_end, own_begin, own_end;
} net_view;

/* An empty view (phase 0). */
void net_view_init(net_view *v);
void net_view_free(net_view *v);

static inline bool net_view_seen(const net_view *v, uint32_t slot)
{
    return (slot >> 3) < v->seen.v.len && (v->seen.at[slot >> 3] >> (slot & 7)) & 1u;
}

/* Marks a slot seen; the bitset covers it (net_view_reserve). */
static inline void net_view_see(net_view *v, uint32_t slot)
{
    v->seen.at[slot >> 3] |= (uint8_t)(1u << (slot & 7));
}

static inline void net_view_unsee(net_view *v, uint32_t slot)
{
    if ((slot >> 3) < v->seen.v.len)
        v->seen.at[slot >> 3] &= (uint8_t) ~(1u << (slot & 7));
}

/* Grows the bitset to cover `slots` slots (the new ones unseen); false when memory ran out. */
bool net_view_reserve(net_view *v, size_t slots);
/* The bodies `ids` left the world: those it has seen are unseen, and to be told `removed`.
 * False when memory ran out. */
bool net_view_forget(net_view *v, const sim_id *ids, size_t n);

/* Phases of state writes: one for each tick of a snapshot period. */
uint32_t net_view_phases(const net_config *cfg);
/* Whether a state is due after the steps from tick `since` to `tick` (the view's phase
 * spreads the clients over the ticks). */
bool net_view_due(const net_view *v, const net_config *cfg, uint64_t since, uint64_t tick);

#endif
