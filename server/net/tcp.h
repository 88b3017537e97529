/* The game port's transport (tcp.c): TCP connections carrying JSON Lines. */
#ifndef MINK_NET_TCP_H
#define MINK_NET_TCP_H

#include <uv.h>

/* The game port's listener calls this for each connection (its data is the server). */
void net_on_connection(uv_stream_t *listener, int status);

#endif
