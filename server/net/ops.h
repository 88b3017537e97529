/* What an operator and a fleet see of the server (health.c, http.c, agones.c): the HTTP port
 * with the metrics and the health endpoints, and the Agones SDK sidecar. All of it runs on the
 * server's libuv loop, so nothing here takes a lock. */
#ifndef MINK_NET_OPS_H
#define MINK_NET_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "net_internal.h"

/* health.c */
/* Starts the HTTP port (unless --http-port 0) and, when AGONES_SDK_HTTP_PORT is set, the Agones
 * SDK client; after the game port listens. Returns 0 or a negative libuv error code. */
int net_ops_start(net_server *srv);
/* The stop began: /readyz turns 503, the SDK hears of the shutdown. */
void net_ops_stopping(net_server *srv);
/* During a stop: closes the HTTP port and the SDK client once the SDK's shutdown call has its
 * answer or --drain-seconds has passed; true when both are gone (their handles are closed or
 * closing, so the rest of the loop may be closed). */
bool net_ops_closed(net_server *srv);
/* A tick ran steps at `now` (ns). */
void net_health_stepped(net_server *srv, uint64_t now);
/* /livez: the world stepped within --stall-seconds, and no gap between steps longer than that
 * ended within the last --stall-seconds (the HTTP port runs on the loop it watches, so it can
 * only answer once a stall is over, and must remember it). `why` gets the reason when false. */
bool net_health_live(const net_server *srv, uint64_t now, char *why, size_t cap);
/* /readyz: not stopping and not full. */
bool net_health_ready(const net_server *srv, char *why, size_t cap);
/* Clients that said hello. */
uint32_t net_health_players(const net_server *srv);

/* http.c */
typedef struct net_http net_http;
/* Serves the HTTP port on srv->loop. Returns 0, or a negative libuv error code after logging
 * why; *out is then NULL or a context to be closed like a running one. */
int net_http_start(net_server *srv, net_http **out);
/* Starts closing (libwebsockets closes its handles on the loop); net_http_done tells when the
 * context is gone, and net_http_free then frees what is left. */
void net_http_close(net_http *h);
bool net_http_done(net_http *h);
void net_http_free(net_http *h);

/* agones.c */
typedef struct net_agones net_agones;
/* The SDK client, talking to 127.0.0.1:`port`; NULL after logging why. */
net_agones *net_agones_start(net_server *srv, int port);
/* Queues POST /shutdown. */
void net_agones_shutdown(net_agones *a);
/* True when no call is waiting or in flight. */
bool net_agones_idle(const net_agones *a);
/* Cancels what is in flight and closes the handles; frees itself once they are closed. */
void net_agones_close(net_agones *a);

#endif
