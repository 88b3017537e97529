/* The WebSocket transport on the HTTP port's /ws (ws.c). */
#ifndef MINK_NET_WS_H
#define MINK_NET_WS_H

#include <stddef.h>

typedef struct net_server net_server;
typedef struct net_session net_session;
struct lws;

/* The WebSocket reasons of the HTTP port's callback (http.c hands them over); `user` is the
 * connection's slot for its session. Returns what the libwebsockets callback returns. */
int net_ws_callback(net_server *srv, struct lws *wsi, int reason, net_session **user,
                    void *in, size_t len);

#endif
