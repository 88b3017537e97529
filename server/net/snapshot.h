/* Building the `state`s of a snapshot (snapshot.c): the bodies encoded once into a tick buffer
 * shared by every client, and each due client's state laid out as ranges of it. Writing them
 * is snapshot_write.c's. */
#ifndef MINK_NET_SNAPSHOT_H
#define MINK_NET_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mink_proto.h"
#include "mk_vec.h"
#include "snapshot_delta.h"
#include "tick_buf.h"
#include "view.h"

typedef struct net_server net_server;

/* Bytes [off, end) of the tick buffer; off == SIZE_MAX: not encoded yet this snapshot. */
typedef struct net_piece {
    size_t off, end;
} net_piece;

/* The snapshot's own state, kept from one snapshot to the next so that nothing on its path
 * allocates once the arrays have the world's size. The per-slot arrays have a slot more than
 * the world (the end of the last piece). */
typedef struct net_snapshot {
    net_tick_buf *tick;  /* the snapshot being built, NULL between snapshots */
    net_tick_pool pool;  /* tick buffers whose writes have all completed */
    /* Per slot: the slot's state piece in the tick buffer is [body_off[i], body_off[i + 1]),
     * empty when it is not sent; compact_off the same for the compact pieces. */
    MK_VEC(size_t) body_off, compact_off;
    MK_VEC(bool) sent;          /* per slot: its body's state is sent this snapshot */
    MK_VEC(net_piece) full;     /* per slot: its first-sighting piece, encoded on demand */
    MK_VEC(uint32_t) near_mark; /* per slot: near_round when the client at hand has it near */
    uint32_t near_round;
    net_piece contacts;         /* `,"contacts":[...]`, encoded on demand */
    net_delta delta;            /* delta clients' part (snapshot_delta.c) */
    bool hash_valid;            /* this snapshot's world hash is computed */
    uint64_t hash;
    MK_VEC(net_range) ranges;   /* every session's pieces of this snapshot */
    proto_buf own;              /* every session's own bytes of this snapshot */
} net_snapshot;

/* The server's snapshot state (srv->snap), or NULL when memory ran out. */
net_snapshot *net_snapshot_new(void);
/* Once no write points into its tick buffers any more (the loop has ended). */
void net_snapshot_free(net_snapshot *sn);

/* After the steps since tick `since`: encodes the bodies once and lays out the state of every
 * joined session due one (net_view_due) that is not still writing the previous one, marking
 * its view ready (or failed, when memory ran out: the session is to be closed). Returns how
 * many are ready; -1 when memory ran out for the snapshot itself. Closes nothing. */
int net_snapshot_build(net_server *srv, uint64_t since);
/* Drops the built states, written or not, and the snapshot's hold on its tick buffer. */
void net_snapshot_discard(net_server *srv);
/* A view's built state as its bytes. */
net_state net_snapshot_state(const net_snapshot *sn, const net_view *v);
/* A view's built state copied into `out` (mink-bench checks it reads back). */
void net_snapshot_copy(const net_snapshot *sn, const net_view *v, proto_buf *out);

#endif
