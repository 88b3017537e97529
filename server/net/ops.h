/* What an operator and a fleet see of the server, started and drained (ops.c): the HTTP port
 * (http.h) and the Agones SDK client (agones.h). All of it runs on the server's libuv loop, so
 * nothing here takes a lock. */
#ifndef MINK_NET_OPS_H
#define MINK_NET_OPS_H

#include <stdbool.h>

typedef struct net_server net_server;

/* Starts the HTTP port (unless --http-port 0) and, when AGONES_SDK_HTTP_PORT is set, the Agones
 * SDK client; after the game port listens. Returns 0 or a negative libuv error code. */
int net_ops_start(net_server *srv);
/* The stop began: /readyz turns 503, the SDK hears of the shutdown. */
void net_ops_stopping(net_server *srv);
/* During a stop: closes the HTTP port and the SDK client once the SDK's shutdown call has its
 * answer or --drain-seconds has passed; true when both are gone (their handles are closed or
 * closing, so the rest of the loop may be closed). */
bool net_ops_closed(net_server *srv);

#endif
