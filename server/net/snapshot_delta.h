/* `subscribe {delta}` (snapshot_delta.c): each seen body sent relative to the client's
 * baseline of it, the shared part of the work done once a snapshot. */
#ifndef MINK_NET_SNAPSHOT_DELTA_H
#define MINK_NET_SNAPSHOT_DELTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mink_world_io.h"
#include "mk_vec.h"
#include "view.h"

/* A body's delta entry for the clients whose baseline of it is from base_tick: every such
 * client gets the same bytes after the id, encoded once a snapshot into the tick buffer as
 * `,[d,...]` ([off, off + len), the part after the id from off + tail; len 0: not sent). A
 * client whose entry before it is that of prev_id (0: none) gets the whole entry, shared. */
typedef struct net_delta_memo {
    uint64_t round, base_tick, prev_id;
    size_t off, len, tail;
} net_delta_memo;

/* The snapshot's delta part: per slot, the sent body's quantised state and its memo. */
typedef struct net_delta {
    MK_VEC(int64_t) q;
    MK_VEC(net_delta_memo) memo;
    uint64_t round; /* counts the snapshots with a delta client: a memo's stamp */
    int dim;        /* the world's dimension */
    uint32_t tick_hz; /* the ticks a delta entry's prediction counts in */
    /* This snapshot's: its tick, the tick buffer the shared entries go to, and the own bytes
     * of the clients, where the others go (net_delta_begin). */
    uint64_t tick;
    proto_buf *shared, *own;
} net_delta;

/* What net_delta_body made of a body for a client. */
typedef enum net_delta_out {
    NET_DELTA_NONE,   /* not sent: at rest where the client has it, or out of memory */
    NET_DELTA_SHARED, /* the memo's whole entry in the tick buffer: [*off, *off + *len) */
    NET_DELTA_OWN     /* the entry written to the own bytes */
} net_delta_out;

void net_delta_init(net_delta *d);
void net_delta_free(net_delta *d);
/* Room for `slots` slots of a world of `dim` dimensions; false when memory ran out. */
bool net_delta_reserve(net_delta *d, int dim, size_t slots);
/* A client's baselines, room for `slots` slots; false when memory ran out. */
bool net_delta_reserve_base(net_view *v, int dim, size_t slots);
/* A snapshot with delta clients begins: every body sent this snapshot (sent[slot]) is
 * quantised, once; the entries go to `shared` (the tick buffer of tick `tick`) and `own`. */
void net_delta_begin(net_delta *d, const sim_world *w, uint32_t tick_hz, const bool *sent,
                     const sim_body *bodies, size_t slots, proto_buf *shared, proto_buf *own,
                     uint64_t tick);
/* A first sighting sent to a delta client: its state is the client's baseline. */
void net_delta_first(net_delta *d, net_view *v, const sim_world *w, const sim_body *body,
                     uint32_t slot);
/* The body's entry for the client: shared (off and len set, with its leading comma), its own
 * bytes, or none. */
net_delta_out net_delta_body(net_delta *d, net_view *v, const sim_body *body, uint32_t slot,
                             size_t *off, size_t *len);

#endif
