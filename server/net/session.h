/* A client's session, whatever its transport (session.c): who it is, its inputs and what it
 * has been sent, its life from the connection to the close, and its output with the limits on
 * it. The transports (transport.h) carry its bytes; the handlers (handlers.c) answer its
 * messages; the snapshots (snapshot.c) build its states. */
#ifndef MINK_NET_SESSION_H
#define MINK_NET_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bucket.h"
#include "inputs.h"
#include "intake.h"
#include "mink_proto.h"
#include "mink_sim.h"
#include "transport.h"
#include "view.h"

typedef struct net_server net_server;
typedef struct net_player net_player;

struct net_session {
    const net_transport *tr;
    void *conn; /* the transport's own connection: tcp.c's, or ws.c's net_ws_conn */
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
     * (net_walk_end), with the queued output flushed first when close_flush. */
    const char *close_reason;
    bool close_flush;
    struct net_session *close_next;
    char name[PROTO_MAX_NAME + 1];
    sim_id avatar;
    uint64_t connected_ns;

    net_inputs inputs;  /* inputs.c */
    net_intake intake;  /* intake.c: the message rate */
    net_bucket spawns;  /* the spawn rate (handlers.c) */
    net_bucket actions; /* the action rate (rules.c) */
    bool in_game;       /* a player of the game's rules: joined, not yet left (rules.c) */
    uint32_t game_id;   /* its id there: the owner it joined as (a session that loses its
                           player to a new connection has its owner cleared before it goes) */

    net_view view;      /* what it asked to see and has seen (snapshot.c) */

    /* Output: whether a `state` is queued in the transport and not yet written (at most one
     * waits: a slow reader gets the newest state when it drains, older ones are never
     * queued). The bytes not yet written are the transport's (net_session_queued). */
    bool state_in_flight;
    uint64_t over_soft_since_ns; /* 0 while under the soft limit */
};

/* A new session on transport `tr` (not yet counted or linked), or NULL when memory ran out.
 * The transport sets s->conn. */
net_session *net_session_new(net_server *srv, const net_transport *tr);
/* Counts and links a new session from `peer`; over max_clients (counted across both
 * transports) or while stopping it is answered and closed after the answer: false then. */
bool net_session_open(net_session *s, const char *peer);
/* Frees a session whose connection is gone (its transport calls this). */
void net_session_free(net_session *s);

/* Closes now: its bodies leave the world; pending writes are dropped. */
void net_session_close(net_session *s, const char *reason);
/* Closes after the queued output has been written (an answer, then the close). */
void net_session_close_after_flush(net_session *s, const char *reason);
/* A pass over the sessions: between begin and end, closes are noted and made at the end
 * (Redis's freeClientAsync): no session leaves the list while a pass walks it. */
void net_walk_begin(net_server *srv);
void net_walk_end(net_server *srv);

/* Queues one message for the client (copied when the socket does not take it at once). */
void net_session_send(net_session *s, const char *data, size_t len);
/* Sends the message built in `b` (logged and dropped when building it ran out of memory). */
void net_session_send_buf(net_session *s, proto_buf *b);
/* Sends an error line. */
void net_session_error(net_session *s, proto_error_code code, const char *message,
                       const char *req);
/* The client sent a message longer than max_line: answered with line_too_long, then closed. */
void net_session_too_long(net_session *s);

/* Stops and restarts reading the client's messages (backpressure), whatever its transport. */
void net_session_read_pause(net_session *s);
void net_session_read_resume(net_session *s);
/* Bytes queued for the client in its transport and not yet taken by the socket. */
size_t net_session_queued(const net_session *s);
/* Cuts off a client whose output is over the hard limit; true when it did. */
bool net_session_check_hard_limit(net_session *s, size_t more);
/* After a step, at `now` (ns): closes the sessions that said no hello within --hello-timeout
 * and those whose output stayed over the soft limit for --out-soft-seconds or is over the
 * hard limit. */
void net_sessions_police(net_server *srv, uint64_t now);
/* The bodies removed from the world since the last call, handed to the views that saw them
 * (their next state says `removed`); then the world may reuse their slots. Before a snapshot
 * is built, when one is due (the slots are given back then, as the journal records). */
void net_sessions_take_removed(net_server *srv);

#endif
