/* One snapshot's bytes (tick_buf.c): the tick buffer that every client's `state` of that tick
 * points into, reference counted by the writes in flight and kept in a pool; and a client's
 * built state as the ranges of those bytes and of its own that a transport writes. */
#ifndef MINK_NET_TICK_BUF_H
#define MINK_NET_TICK_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "mink_proto.h"

typedef struct net_tick_buf net_tick_buf;

/* Tick buffers whose writes have all completed, kept for reuse. */
typedef struct net_tick_pool {
    net_tick_buf *free;
    unsigned len;
} net_tick_pool;

/* One snapshot's encoded bodies, shared by every client's `state` of that tick: the writes
 * point into it (no copy per client), and it goes back to its pool when the last of them has
 * completed. */
struct net_tick_buf {
    unsigned refs; /* writes in flight, plus one while the snapshot is being built */
    uint64_t tick;
    net_tick_buf *next; /* in the pool */
    net_tick_pool *pool;
    proto_buf data;
};

/* An empty buffer with one reference (from the pool, or new); NULL when memory ran out. */
net_tick_buf *net_tick_get(net_tick_pool *p);
/* Drops a reference; the last one gives the buffer back to its pool (or frees it when the
 * pool is full). */
void net_tick_release(net_tick_buf *t);
/* Frees the pool's buffers (none may be in use). */
void net_tick_pool_free(net_tick_pool *p);

/* A run of a state's bytes: of the tick buffer, or of the client's own bytes. */
typedef struct net_range {
    size_t off, len;
    bool own;
} net_range;

/* A client's built state as a transport writes it: `n` ranges, those of the tick buffer
 * pointing into `tick` (kept alive by a write that points into it), the others into the
 * client's own `own_len` bytes at `own` (valid until the snapshot is written: a transport
 * that keeps them copies them). */
typedef struct net_state {
    net_tick_buf *tick;
    const net_range *ranges;
    size_t n;
    const char *own;
    size_t own_len;
} net_state;

/* The state's n buffers for a gathered write, its own bytes read from `own` (st->own or a
 * copy of them). */
void net_state_bufs(const net_state *st, const char *own, uv_buf_t *bufs);
/* The state's bytes in all, and a copy of them in one run at `out`. */
size_t net_state_len(const net_state *st);
void net_state_copy(const net_state *st, char *out);

#endif
