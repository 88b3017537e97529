/* The HTTP port (http.c): the web viewer, WebSocket players on /ws, the metrics and the health
 * endpoints, served by libwebsockets on the server's loop. */
#ifndef MINK_NET_HTTP_H
#define MINK_NET_HTTP_H

#include <stdbool.h>

typedef struct net_server net_server;
typedef struct net_http net_http;

/* Serves the HTTP port on srv->loop. Returns 0, or a negative libuv error code after logging
 * why; *out is then NULL or a context to be closed like a running one. */
int net_http_start(net_server *srv, net_http **out);
/* Starts closing (libwebsockets closes its handles on the loop); net_http_done tells when the
 * context is gone, and net_http_free then frees what is left. */
void net_http_close(net_http *h);
bool net_http_done(net_http *h);
void net_http_free(net_http *h);

#endif
