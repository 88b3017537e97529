/* The server's metrics in the Prometheus text exposition format (metrics.c), which GET /metrics
 * answers with: the counters (counters.h) and what the server and the world are now. */
#ifndef MINK_NET_METRICS_H
#define MINK_NET_METRICS_H

#include "mink_proto.h"

typedef struct net_server net_server;

/* Appends every metric in the Prometheus text format 0.0.4 to `out`. */
void net_metrics_write(net_server *srv, proto_buf *out);

#endif
