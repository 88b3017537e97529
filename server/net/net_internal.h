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

/* How a session's bytes travel: a TCP connection (tcp.c, JSON Lines) or a WebSocket on the HTTP
 * port (ws.c, one message per text frame). The session code (session.c, snapshot*.c) calls only
 * these, so it does not know which one it has; libuv's stream operations are the model. */
typedef struct net_transport {
    const char *name; /* "tcp", "ws": for logs */
    /* Queues one message (its '\n' included; a transport that frames messages drops it); the
     * bytes are copied unless the socket takes them at once. Calls net_session_check_hard_limit
     * with what it has to keep, and closes the session when the write fails. */
    void (*send)(net_session *s, const char *data, size_t len);
    /* Queues the `state` snapshot.c built for the session (net_state_bufs gives its buffers:
     * the body bytes in `tick`, which the transport keeps alive while it points into it, and
     * the session's own bytes, which it copies), and clears s->state_in_flight once it is
     * written. Returns 0, or a negative libuv error code (the caller closes the session). */
    int (*write_state)(net_session *s, struct net_tick_buf *tick);
    /* Bytes accepted and not yet taken by the socket. */
    size_t (*queued)(const net_session *s);
    /* Stops and restarts reading the client's messages (TCP: uv_read_stop/uv_read_start;
     * WebSocket: lws_rx_flow_control). */
    void (*read_pause)(net_session *s);
    void (*read_resume)(net_session *s);
    /* Closes the connection, at once or once the queued output is written (flush); the
     * transport calls net_session_free when its connection is gone. A close at once may
     * follow a close with flush (it then stops waiting), and may come more than once. */
    void (*close)(net_session *s, bool flush);
} net_transport;

extern const net_transport net_tcp_transport; /* tcp.c */
extern const net_transport net_ws_transport;  /* ws.c */

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
/* An input that waits for the step it names (session.c). */
#define NET_INPUTS_WAITING 64
typedef struct net_input {
    uint64_t seq, id, tick;
    double move[3];
    bool jump;
} net_input;

typedef struct net_range {
    size_t off, len;
    bool own;
} net_range;

struct net_session {
    /* A TCP session's handle, first: libuv hands the handle back, and it is the session
     * (tcp.c). A WebSocket session leaves it unused and has its connection in ws. */
    uv_tcp_t tcp;
    struct net_ws_conn *ws;
    const net_transport *tr;
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
     * proto_q_count values) and then its tick, side by side: a snapshot reads both for
     * every body and client, one cache line where it can. Valid while the slot's seen bit
     * is set. */
    int64_t *base;
    size_t base_slots;
    uint64_t delta_prev_id; /* the id of the entry before, in the state being built */
    proto_framer framer;
    uint64_t connected_ns;

    /* Inputs: the newest seq received; the newest set on its body, which the next step
     * applies; the newest a step has applied (`ack`). Inputs that name a later step (`tick`)
     * wait in `waiting`, in the order received. */
    bool has_seq, has_set;
    uint64_t last_seq, set_seq;
    uint64_t ack;
    uint64_t ack_tick; /* the tick whose step first applied the input `ack` names (0: none) */
    net_input waiting[NET_INPUTS_WAITING];
    unsigned waiting_head, waiting_len;

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

    /* Rate limits: every message, and spawns. With the messages' bucket empty the transport
     * reads no more (backpressure: the kernel's buffers, or WebSocket flow control, push back
     * on the sender) until resume_ns; the message that found it empty and the rest of its read
     * wait in `held` (each as its length and bytes: at most a read's worth). */
    net_bucket lines, spawns;
    bool read_paused;
    uint64_t resume_ns;
    char *held;
    size_t held_len, held_cap;
};

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

/* session.c */
/* Sets on their bodies the waiting inputs that the next step is to apply first. */
void net_session_take_inputs(net_session *s);
/* A new session on transport `tr` (not yet counted or linked), or NULL when memory ran out. */
net_session *net_session_new(net_server *srv, const net_transport *tr);
/* Counts and links a new session from `peer`; over max_clients (counted across both
 * transports) or while stopping it is answered and closed after the answer: false then. */
bool net_session_open(net_session *s, const char *peer);
/* Frees a session whose connection is gone (its transport calls this). */
void net_session_free(net_session *s);
/* One message from the client (a line without its '\n', or a WebSocket text message).
 * Returns true when the session is closing and should read no more. */
bool net_session_message(net_session *s, const char *msg, size_t len);
/* The client sent a message longer than max_line: answered with line_too_long, then closed. */
void net_session_too_long(net_session *s);
/* Stops and restarts reading the client's messages (backpressure), whatever its transport. */
void net_session_read_pause(net_session *s);
void net_session_read_resume(net_session *s);
/* Bytes queued for the client in libuv and not yet taken by the socket. */
size_t net_session_queued(const net_session *s);
/* Cuts off a client whose output is over the hard limit; true when it did. */
bool net_session_check_hard_limit(net_session *s, size_t more);
/* Queues one message for the client (copied when the socket does not take it at once). */
void net_session_send(net_session *s, const char *data, size_t len);
/* Sends an error line. */
void net_session_error(net_session *s, proto_error_code code, const char *message,
                       const char *req);
/* Parses and answers one message (session.c). */
void net_session_handle_line(net_session *s, const char *line, size_t len);
/* Closes now: its bodies leave the world; pending writes are dropped. */
void net_session_close(net_session *s, const char *reason);
/* Closes after the queued output has been written (an answer, then the close). */
void net_session_close_after_flush(net_session *s, const char *reason);
/* A pass over the sessions: between begin and end, closes are noted and made at the end. */
void net_walk_begin(net_server *srv);
void net_walk_end(net_server *srv);

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
/* tcp.c: the game port's listener calls this for each connection. */
void net_on_connection(uv_stream_t *listener, int status);

/* ws.c: the WebSocket reasons of the HTTP port's callback (http.c hands them over); `user` is
 * the connection's slot for its session. Returns what the libwebsockets callback returns. */
int net_ws_callback(net_server *srv, struct lws *wsi, int reason, net_session **user,
                    void *in, size_t len);

/* snapshot_write.c: the tick buffers (a pool, reference counted by the writes that point into
 * them) and the writes of the states built by snapshot.c. */
net_tick_buf *net_tick_get(net_server *srv);
void net_tick_release(net_server *srv, net_tick_buf *t);
void net_tick_pool_free(net_server *srv);

#endif
