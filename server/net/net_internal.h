/* The server's private state, shared by the files of mink_net. */
#ifndef MINK_NET_INTERNAL_H
#define MINK_NET_INTERNAL_H

#include <stdbool.h>
#include <uv.h>

#include "metrics.h"
#include "mink_token.h"
#include "mink_net.h"

typedef struct net_server net_server;
typedef struct net_player net_player; /* players.c */

/* Figures for the --stats line: how the clock kept up and what the steps and snapshots cost. */
typedef struct net_stats {
    uint64_t steps, late, dropped; /* late: steps run to catch up after a stalled callback */
    uint64_t step_ns, step_max_ns; /* time in sim_world_step */
    uint64_t snapshots, snap_ns, snap_max_ns; /* time building and writing the states */
    uint64_t states, states_dropped; /* sent, and not sent to a client still writing one */
    net_counters c; /* the rest of the metrics (metrics.h) */
} net_stats;

/* A token bucket (the leaky-bucket rate limit of traffic shaping): refills at `rate` tokens a
 * second up to `burst`; starts full. */
typedef struct net_bucket {
    double tokens;
    uint64_t last_ns;
} net_bucket;

/* Takes one token when there is one. */
bool net_bucket_take(net_bucket *b, double rate, double burst, uint64_t now_ns);

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

/* A piece of one client's state: bytes of the tick buffer, or of the session's own bytes. */
typedef struct net_range {
    size_t off, len;
    bool own;
} net_range;

typedef struct net_session {
    uv_tcp_t tcp; /* first: libuv hands the handle back, and it is the session */
    net_server *srv;
    struct net_session *prev, *next;
    uint32_t client; /* client id, > 0 */
    /* Who owns the bodies this client spawns: its client id, or with --token-key its
     * player's (players.c), the same on every connection of the player. */
    uint32_t owner;
    net_player *player;
    char peer[64];   /* "address:port", for logs */
    bool joined;
    bool closing;
    /* Set while a pass over the sessions runs: the session is closed after the pass
     * (net_close_pending), with the queued output flushed first when close_flush. */
    const char *close_reason;
    bool close_flush;
    struct net_session *close_next;
    char name[PROTO_MAX_NAME + 1];
    sim_id avatar;
    bool contacts; /* subscribed to contact manifolds */
    double radius; /* interest radius in m around the avatar (`subscribe`); 0: every body */
    bool compact;  /* seen bodies as arrays (`subscribe {compact}`) */
    bool delta;    /* seen bodies relative to their last state sent (`subscribe {delta}`) */
    bool delta_reset; /* delta was just turned on: the next state sends every body whole */
    uint32_t hash_every; /* ticks between world hashes in `state` (`subscribe {hash}`), 0 off */
    uint64_t hash_sent_tick; /* the tick of the last state that carried the hash */
    bool hash_sent;
    /* With delta: per slot, the last state of the body sent to this client (quantised,
     * proto_q_count values) and its tick; valid while the slot's seen bit is set. */
    int64_t *base;
    uint64_t *base_tick;
    size_t base_slots;
    uint64_t delta_prev_id; /* the id of the entry before, in the state being built */
    proto_framer framer;
    uint64_t connected_ns;

    /* Inputs: the newest seq received, and the newest one a step has applied (`ack`). */
    bool has_seq;
    uint64_t last_seq;
    uint64_t ack;

    /* Snapshots: which bodies this client has seen (one bit per world slot), and what it has
     * to be told is gone. */
    uint8_t *seen;
    size_t seen_bits;
    /* With an interest radius: the slots it was last sent as within it (valid while
     * view_valid), so that those that left are found without looking at every slot. */
    uint32_t *view;
    size_t view_len, view_cap;
    bool view_valid;
    sim_id *removed;
    size_t removed_len, removed_cap;

    /* Output: whether a `state` is queued in libuv and not yet written (at most one waits: a
     * slow reader gets the newest state when it drains, older ones are never queued). The
     * bytes not yet written are libuv's write queue size (net_session_queued). */
    bool state_in_flight;
    uint64_t over_soft_since_ns; /* 0 while under the soft limit */

    /* The state being built this snapshot (snapshot.c): its pieces are ranges
     * [range_begin, range_end) of the server's list, its own bytes (header, `removed`, the
     * end) [own_begin, own_end) of the server's `own` buffer. */
    bool state_ready;
    size_t range_begin, range_end, own_begin, own_end;
    uint32_t phase; /* which tick of a snapshot period its states go out on */

    /* Rate limits: every line, and spawns. With the lines' bucket empty the socket is not read
     * (backpressure: the kernel's buffers push back on the sender) until resume_ns; the line
     * that found it empty and the rest of its read wait in `held` (at most a line and a read). */
    net_bucket lines, spawns;
    bool read_paused;
    uint64_t resume_ns;
    char *held;
    size_t held_len;
} net_session;

struct net_server {
    uv_loop_t *loop;
    net_config cfg;
    sim_world *world;
    uv_tcp_t listener;
    uv_timer_t tick_timer;
    uv_timer_t stop_timer;
    uv_timer_t read_timer; /* reads paused sessions again when their buckets have refilled */
    uv_timer_t away_timer; /* removes the bodies of players who did not come back in time */
    /* --token-key (players.c): the players by user id, and the tokens already let in. */
    net_player *players;
    size_t players_len, players_cap;
    tok_replay *replay;
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
    uint64_t last_step_ns;  /* when the world last stepped */
    uint64_t stall_ns;      /* the longest gap between steps that ended at stall_end_ns */
    uint64_t stall_end_ns;
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
    net_piece *full;         /* per slot: its first-sighting piece, encoded on demand */
    uint32_t *near_mark;     /* per slot: near_round when the client at hand has it near */
    uint32_t near_round;
    net_piece contacts;      /* `,"contacts":[...]`, encoded on demand */
    int64_t *q;              /* with a delta client: per slot, the sent body's quantised state */
    size_t q_cap;
    uint32_t world_tick_hz;  /* the ticks a delta entry's prediction counts in */
    bool hash_valid;         /* this snapshot's world hash is computed */
    uint64_t hash;
    net_range *ranges;       /* every session's pieces of this snapshot */
    size_t ranges_len, ranges_cap;
    proto_buf own;           /* every session's own bytes of this snapshot */
};

/* snapshot_delta.c: `subscribe {delta}` */
bool net_delta_reserve_server(net_server *srv, size_t slots);
bool net_delta_reserve(net_server *srv, net_session *s, size_t slots);
/* Quantises every body sent this snapshot, once (after the pieces are encoded). */
void net_delta_encode(net_server *srv, const sim_body *bodies, size_t slots);
/* A first sighting sent to a delta client: its state is the client's baseline. */
void net_delta_first(net_server *srv, net_session *s, const sim_body *body, uint32_t slot);
/* Writes the body's entry into srv->own; false when it is not sent (at rest). */
bool net_delta_body(net_server *srv, net_session *s, const sim_body *body, uint32_t slot,
                    bool first_in_list);

/* session.c */
void net_on_connection(uv_stream_t *listener, int status);
/* Bytes queued for the client in libuv and not yet taken by the socket. */
size_t net_session_queued(const net_session *s);
/* Cuts off a client whose output is over the hard limit; true when it did. */
bool net_session_check_hard_limit(net_session *s, size_t more);
/* Queues bytes for the client (copied when the socket does not take them at once). */
void net_session_send(net_session *s, const char *data, size_t len);
/* Sends an error line. */
void net_session_error(net_session *s, proto_error_code code, const char *message,
                       const char *req);
/* Parses and answers one line (session.c). */
void net_session_handle_line(net_session *s, const char *line, size_t len);
/* intake.c: frames and answers a read's bytes within the message rate; past it, keeps what is
 * left and pauses reading until the rate allows more. */
void net_session_feed(net_session *s, const char *data, size_t n);
/* Stop and start reading the client's socket (the rate limit's backpressure); whatever the
 * transport, the session's bytes stop and start arriving. */
void net_session_read_pause(net_session *s);
void net_session_read_resume(net_session *s);
/* Closes now: its bodies leave the world; pending writes are dropped. */
void net_session_close(net_session *s, const char *reason);
/* Closes after the queued output has been written (an answer, then the close). */
void net_session_close_after_flush(net_session *s, const char *reason);
/* A pass over the sessions: between begin and end, closes are noted and made at the end. */
void net_walk_begin(net_server *srv);
void net_walk_end(net_server *srv);

/* players.c */
/* Makes the player table and the replay check (with --token-key), or logs that the server is
 * open; 0, or a libuv error code. */
int net_players_init(net_server *srv);
void net_players_free(net_server *srv);
/* A hello's token: true when the client may join (always without --token-key), with its
 * player found or made and s->owner, s->avatar (the avatar kept while away) and, from the
 * token, s->name set; otherwise false after `unauthorized` and a close. */
bool net_player_admit(net_session *s, const char *token, const char *req);
/* The session is closing: true when it was a player's, whose bodies are then kept
 * (--keep-bodies); false when its bodies are to go now. */
bool net_player_left(net_session *s);

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
void net_snapshot_free(net_server *srv);
/* snapshot_write.c: the tick buffers (a pool, reference counted by the writes that point into
 * them) and the writes of the states built by snapshot.c. */
net_tick_buf *net_tick_get(net_server *srv);
void net_tick_release(net_server *srv, net_tick_buf *t);
void net_tick_pool_free(net_server *srv);

#endif
