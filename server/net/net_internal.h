/* The server's private state, shared by the files of mink_net. */
#ifndef MINK_NET_INTERNAL_H
#define MINK_NET_INTERNAL_H

#include <stdbool.h>
#include <uv.h>

#include "health.h"
#include "metrics.h"
#include "mink_token.h"
#include "mink_net.h"

typedef struct net_server net_server;
typedef struct net_delta_memo net_delta_memo;
typedef struct net_player net_player; /* players.c */
typedef struct net_session net_session;
struct net_tick_buf;
struct lws;

/* Figures for the --stats line: how the clock kept up and what the steps and snapshots cost. */
typedef struct net_stats {
    uint64_t steps, late, dropped; /* late: steps run to catch up after a stalled callback */
    uint64_t step_ns, step_max_ns; /* time in sim_world_step */
    uint64_t snapshots, snap_ns, snap_max_ns; /* time building and writing the states */
    uint64_t states, states_dropped; /* sent, and not sent to a client still writing one */
    net_counters c; /* the rest of the metrics (metrics.h) */
} net_stats;

/* One snapshot's encoded bodies, shared by every client's `state` of that tick: the writes
 * point into it (no copy per client), and it goes back to the pool when the last of them has
 * completed. */
typedef struct net_tick_buf {
    unsigned refs; /* writes in flight, plus one while the snapshot is being built */
    uint64_t tick;
    struct net_tick_buf *next; /* in the pool */
    proto_buf data;
} net_tick_buf;

/* Bytes [off, end) of the tick buffer; off == SIZE_MAX: not encoded yet this snapshot. */
typedef struct net_piece {
    size_t off, end;
} net_piece;

typedef struct net_range {
    size_t off, len;
    bool own;
} net_range;

struct net_server {
    uv_loop_t *loop;
    net_config cfg;
    sim_world *world;
    uv_tcp_t listener;
    uv_timer_t tick_timer;
    uv_timer_t stop_timer;
    uv_timer_t read_timer; /* reads paused sessions again when their buckets have refilled */
    struct net_players *players; /* invited players (players.c) */
    uv_signal_t sig_int, sig_term, sig_hup;

    net_session *sessions; /* doubly linked */
    uint32_t session_count;
    /* Closing a session takes its bodies out of the world and unlinks it: never while a pass
     * walks the sessions or the world's lists. Inside a pass (walking > 0) a close is only
     * noted in to_close and made when the pass ends (Redis's freeClientAsync). */
    unsigned walking;
    net_session *to_close;
    uint32_t next_client;
    bool stopping;

    uint64_t dt_ns;
    uint64_t last_ns, acc_ns;
    uint64_t ticks_dropped;
    uv_timer_t stats_timer;
    net_stats stats; /* since the start: --stats logs the change since stats_line */
    net_stats stats_line;

    /* Operations (http.c, health.c, agones.c): the HTTP port, the clock's health, the Agones
     * SDK. */
    struct net_http *http;
    struct net_agones *agones;
    net_health health;
    uint64_t stop_ns;       /* when the stop began */

    proto_msg *msg;   /* scratch for parsing: a message can hold two 256-point shapes */
    proto_buf out;    /* scratch for building one message */

    /* Snapshots (snapshot.c). */
    net_tick_buf *tick;      /* the snapshot being built, NULL between snapshots */
    net_tick_buf *tick_pool; /* buffers whose writes have all completed, kept for reuse */
    unsigned tick_pool_len;
    size_t slot_cap;         /* slots the per-slot arrays below hold */
    size_t *body_off;        /* per slot, plus one: the slot's state piece in the tick buffer
                                is [body_off[i], body_off[i + 1]), empty when it is not sent */
    size_t *compact_off;     /* the same for the compact pieces, when a client wants them */
    bool *sent;              /* per slot: its body's state is sent this snapshot */
    net_piece *full;         /* per slot: its first-sighting piece, encoded on demand */
    uint32_t *near_mark;     /* per slot: near_round when the client at hand has it near */
    uint32_t near_round;
    net_piece contacts;      /* `,"contacts":[...]`, encoded on demand */
    int64_t *q;              /* with a delta client: per slot, the sent body's quantised state */
    size_t q_cap;
    net_delta_memo *memo;    /* per slot: its delta entry's tail this snapshot, by baseline */
    size_t memo_cap;
    uint64_t delta_round;    /* counts the snapshots with a delta client: a memo's stamp */
    uint32_t world_tick_hz;  /* the ticks a delta entry's prediction counts in */
    int delta_dim;           /* the world's dimension, for the delta entries of a snapshot */
    bool hash_valid;         /* this snapshot's world hash is computed */
    uint64_t hash;
    net_range *ranges;       /* every session's pieces of this snapshot */
    size_t ranges_len, ranges_cap;
    proto_buf own;           /* every session's own bytes of this snapshot */

    struct net_durable *durable; /* --save: snapshots and the journal (durable.c) */
};

/* durable.c: --save. Writes the first snapshot and opens the journal (0, or a libuv error
 * after logging); after each step, flushes the journal and takes snapshots when due; saves
 * now (SIGHUP, stop: the journal flushed and fsync()ed, a snapshot begun); frees it all once
 * the loop has ended. All do nothing without --save. */
int net_durable_start(net_server *srv);
void net_durable_tick(net_server *srv, uint64_t now);
bool net_durable_save(net_server *srv, const char *why);
void net_durable_free(net_server *srv);

/* snapshot_delta.c: `subscribe {delta}` */
/* A body's delta entry for the clients whose baseline of it is from base_tick: every such
 * client gets the same bytes after the id, encoded once a snapshot into the tick buffer as
 * `,[d,...]` ([off, off + len), the part after the id from off + tail; len 0: not sent). A
 * client whose entry before it is that of prev_id (0: none) gets the whole entry, shared. */
struct net_delta_memo {
    uint64_t round, base_tick, prev_id;
    size_t off, len, tail;
};
/* What net_delta_body made of a body for a client. */
typedef enum net_delta_out {
    NET_DELTA_NONE,   /* not sent: at rest where the client has it, or out of memory */
    NET_DELTA_SHARED, /* the memo's whole entry in the tick buffer: [*off, *off + *len) */
    NET_DELTA_OWN     /* the entry written to srv->own */
} net_delta_out;
bool net_delta_reserve_server(net_server *srv, size_t slots);
bool net_delta_reserve(net_server *srv, net_session *s, size_t slots);
/* Quantises every body sent this snapshot, once (after the pieces are encoded). */
void net_delta_encode(net_server *srv, const sim_body *bodies, size_t slots);
/* A first sighting sent to a delta client: its state is the client's baseline. */
void net_delta_first(net_server *srv, net_session *s, const sim_body *body, uint32_t slot);
/* The body's entry for the client: shared (off and len set, with its leading comma), its own
 * bytes, or none. */
net_delta_out net_delta_body(net_server *srv, net_session *s, const sim_body *body,
                             uint32_t slot, size_t *off, size_t *len);

/* server.c */
/* Whether a session is due a state after the steps from tick `since` to `tick` (its phase
 * spreads the clients over the ticks). */
bool net_state_due(const net_server *srv, const net_session *s, uint64_t since, uint64_t tick);
uint32_t net_state_phases(const net_config *cfg);

/* snapshot.c (write, discard and copy are in snapshot_write.c) */
/* Hands the bodies removed from the world to the sessions that had seen them. */
void net_snapshot_collect_removed(net_server *srv);
/* After the steps since tick `since`: sends a `state` to every joined session due one
 * (net_state_due) that is not still writing the previous one. False when none was due. */
bool net_snapshot_send(net_server *srv, uint64_t since);
/* The two halves of net_snapshot_send, apart for mink-bench: build encodes the bodies once and
 * lays out every due session's state as pieces (returns how many sessions have one; -1 when
 * memory ran out); write hands them to libuv, discard drops them unsent. */
int net_snapshot_build(net_server *srv, uint64_t since);
void net_snapshot_write(net_server *srv);
void net_snapshot_discard(net_server *srv);
/* A session's state as built, copied into `out` (mink-bench checks it reads back). */
void net_snapshot_copy(const net_server *srv, const net_session *s, proto_buf *out);
/* A built state's buffers (s->range_end - s->range_begin of them): the body bytes in the
 * snapshot's tick buffer, the session's own bytes in `own` (a copy of its own_end - own_begin
 * bytes of srv->own, or srv->own itself while the snapshot is being written). */
void net_state_bufs(const net_server *srv, const net_session *s, const char *own,
                    uv_buf_t *bufs);
void net_snapshot_free(net_server *srv);
/* snapshot_write.c: the tick buffers (a pool, reference counted by the writes that point into
 * them) and the writes of the states built by snapshot.c. */
net_tick_buf *net_tick_get(net_server *srv);
void net_tick_release(net_server *srv, net_tick_buf *t);
void net_tick_pool_free(net_server *srv);

#endif
