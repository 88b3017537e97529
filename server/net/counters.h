/* What the server counts for its metrics (counters.c), on the tick and in the sessions: the
 * figures GET /metrics shows (metrics.c). */
#ifndef MINK_NET_COUNTERS_H
#define MINK_NET_COUNTERS_H

#include <stdint.h>

#include "mink_proto.h"

/* Upper bounds of the tick duration histogram, in ns: 0.5 ms to 128 ms, doubling, then +Inf. A
 * 60 Hz tick has 16.7 ms; the buckets around it tell a tick that fits from one that is late. */
#define NET_TICK_BUCKETS 9

/* Why a client left, as a bounded set of label values (a reason's free text stays in the log). */
typedef enum net_disconnect_reason {
    NET_DISC_CLOSED,        /* the client closed or said bye */
    NET_DISC_NO_HELLO,      /* no hello within --hello-timeout */
    NET_DISC_SLOW_READER,   /* over an output limit */
    NET_DISC_UNAUTHORIZED,  /* no valid token (--token-key), or signed in again elsewhere */
    NET_DISC_LINE_TOO_LONG,
    NET_DISC_SERVER_FULL,
    NET_DISC_SHUTDOWN,      /* the server stopped */
    NET_DISC_OUT_OF_MEMORY,
    NET_DISC_IO_ERROR,      /* a socket error */
    NET_DISCONNECT_REASONS
} net_disconnect_reason;

/* Counters that only grow (Prometheus counters), kept beside the --stats figures. */
typedef struct net_counters {
    uint64_t tick_buckets[NET_TICK_BUCKETS + 1]; /* per bucket, not cumulative; last: +Inf */
    uint64_t tick_ns, ticks_timed;
    uint64_t bytes_in, bytes_out, msgs_in, msgs_out;
    uint64_t accepted;
    uint64_t inputs_stamped, inputs_late; /* `input.tick`: given, and already past on arrival */
    uint64_t errors[PROTO_ERR_LAST + 1];
    uint64_t disconnects[NET_DISCONNECT_REASONS];
} net_counters;

/* A tick's work (its steps and states), in ns. */
void net_metrics_observe_tick(net_counters *c, uint64_t ns);
/* The label of a net_session_close reason. */
net_disconnect_reason net_metrics_reason(const char *reason);
void net_metrics_count_disconnect(net_counters *c, const char *reason);

#endif
