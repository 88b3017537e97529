/* The server's state, one per net_serve: the loop and its handles, the configuration, the
 * world, the sessions, the clock and its figures. Every part of mink_net that works on the
 * server reads it; each part with state of its own keeps it in a struct of its own (the
 * players, the snapshot, the HTTP port, the Agones client, the durable save), pointed at from
 * here. server.c makes it and runs the loop. */
#ifndef MINK_NET_SERVER_H
#define MINK_NET_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "counters.h"
#include "mink_net.h"

typedef struct net_session net_session;

/* Figures for the --stats line: how the clock kept up and what the steps and snapshots cost. */
typedef struct net_stats {
    uint64_t steps, late, dropped; /* late: steps run to catch up after a stalled callback */
    uint64_t step_ns, step_max_ns; /* time in sim_world_step */
    uint64_t snapshots, snap_ns, snap_max_ns; /* time building and writing the states */
    uint64_t states, states_dropped; /* sent, and not sent to a client still writing one */
    net_counters c; /* the rest of the metrics (counters.h) */
} net_stats;

/* The clock as the probes see it (health.c), in ns of uv_hrtime. */
typedef struct net_health {
    uint64_t last_step_ns; /* when the world last stepped (0: not yet watched) */
    uint64_t stall_ns;     /* the longest gap between steps that ended at stall_end_ns */
    uint64_t stall_end_ns;
} net_health;

typedef struct net_server {
    uv_loop_t *loop;
    net_config cfg;
    sim_world *world;
    uv_tcp_t listener;
    uv_timer_t tick_timer;
    uv_timer_t stop_timer;
    uv_timer_t read_timer; /* reads paused sessions again when their buckets have refilled */
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

    proto_msg *msg;   /* scratch for parsing: a message can hold two 256-point shapes */
    proto_buf out;    /* scratch for building one message */

    struct net_players *players;  /* invited players (players.c) */
    struct net_snapshot *snap;    /* the snapshots' arrays and tick buffers (snapshot.c) */
    struct net_events *events;    /* the world's events for the clients (events.c) */
    struct net_durable *durable;  /* --save: snapshots and the journal (durable.c) */
    /* Operations (ops.c): the HTTP port, the Agones SDK, the clock's health, the drain. */
    struct net_http *http;
    struct net_agones *agones;
    net_health health;
    uint64_t stop_ns; /* when the stop began */
} net_server;

#endif
