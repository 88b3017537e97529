/* The server's private state, shared by the files of mink_net. */
#ifndef MINK_NET_INTERNAL_H
#define MINK_NET_INTERNAL_H

#include <stdbool.h>
#include <uv.h>

#include "mink_net.h"

typedef struct net_server net_server;

/* A token bucket (the leaky-bucket rate limit of traffic shaping): refills at `rate` tokens a
 * second up to `burst`; starts full. */
typedef struct net_bucket {
    double tokens;
    uint64_t last_ns;
} net_bucket;

/* Takes one token when there is one. */
bool net_bucket_take(net_bucket *b, double rate, double burst, uint64_t now_ns);

typedef struct net_session {
    uv_tcp_t tcp; /* first: libuv hands the handle back, and it is the session */
    net_server *srv;
    struct net_session *prev, *next;
    uint32_t client; /* client id, > 0 */
    char peer[64];   /* "address:port", for logs */
    bool joined;
    bool closing;
    char name[PROTO_MAX_NAME + 1];
    sim_id avatar;
    bool contacts; /* subscribed to contact manifolds */
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
    sim_id *removed;
    size_t removed_len, removed_cap;

    /* Output: bytes queued in libuv and not yet written, and whether a `state` is among them
     * (at most one waits: a slow reader gets the newest state when it drains). */
    size_t out_bytes;
    bool state_in_flight;
    uint64_t over_soft_since_ns; /* 0 while under the soft limit */

    /* Rate limits: every line, and spawns. `dropped` counts lines refused in a row. */
    net_bucket lines, spawns;
    uint32_t dropped;
} net_session;

struct net_server {
    uv_loop_t *loop;
    net_config cfg;
    sim_world *world;
    uv_tcp_t listener;
    uv_timer_t tick_timer;
    uv_timer_t stop_timer;
    uv_signal_t sig_int, sig_term, sig_hup;

    net_session *sessions; /* doubly linked */
    uint32_t session_count;
    uint32_t next_client;
    bool stopping;

    uint64_t dt_ns;
    uint64_t last_ns, acc_ns;
    uint64_t ticks_dropped;

    proto_msg *msg;   /* scratch for parsing: a message can hold two 256-point shapes */
    proto_buf out;    /* scratch for building one message */
    proto_buf bodies; /* this snapshot's bodies, each encoded once */
    size_t *body_off; /* per slot, plus one: where each body's piece starts in `bodies` */
    size_t body_off_cap;
};

/* session.c */
void net_on_connection(uv_stream_t *listener, int status);
/* Queues bytes for the client. `is_state` marks a snapshot for backpressure. */
void net_session_send(net_session *s, const char *data, size_t len, bool is_state);
/* Sends an error line. */
void net_session_error(net_session *s, proto_error_code code, const char *message,
                       const char *req);
/* Closes now: its bodies leave the world; pending writes are dropped. */
void net_session_close(net_session *s, const char *reason);
/* Closes after the queued output has been written (an answer, then the close). */
void net_session_close_after_flush(net_session *s, const char *reason);

/* snapshot.c */
/* Hands the bodies removed from the world to the sessions that had seen them. */
void net_snapshot_collect_removed(net_server *srv);
/* Sends a `state` to every joined session that is not still writing the previous one. */
void net_snapshot_send(net_server *srv);
void net_snapshot_free(net_server *srv);

#endif
