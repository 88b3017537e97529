/* The Agones SDK client (agones.c): ready, health, the players' label, the allocation and the
 * shutdown, told to the SDK sidecar from the server's loop. */
#ifndef MINK_NET_AGONES_H
#define MINK_NET_AGONES_H

#include <stdbool.h>

typedef struct net_server net_server;
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
