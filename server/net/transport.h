/* How a session's bytes travel: a TCP connection (tcp.c, JSON Lines) or a WebSocket on the HTTP
 * port (ws.c, one message per text frame). The session code calls only these, so it does not
 * know which one it has; libuv's stream operations are the model. Each transport keeps its
 * connection in a struct of its own, which the session holds as s->conn. */
#ifndef MINK_NET_TRANSPORT_H
#define MINK_NET_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct net_session net_session;
typedef struct net_state net_state;

typedef struct net_transport {
    const char *name; /* "tcp", "ws": for logs */
    /* Queues one message (its '\n' included; a transport that frames messages drops it); the
     * bytes are copied unless the socket takes them at once. Calls net_session_check_hard_limit
     * with what it has to keep, and closes the session when the write fails. */
    void (*send)(net_session *s, const char *data, size_t len);
    /* Queues the `state` snapshot.c built for the session (tick_buf.h: net_state_bufs gives
     * its buffers, the body bytes in st->tick, which the transport keeps alive while it points
     * into it, and the session's own bytes, which it copies), and clears s->state_in_flight
     * once it is written. Returns 0, or a negative libuv error code (the caller closes the
     * session). */
    int (*write_state)(net_session *s, const net_state *st);
    /* Bytes accepted and not yet taken by the socket. */
    size_t (*queued)(const net_session *s);
    /* Stops and restarts reading the client's messages (TCP: uv_read_stop/uv_read_start;
     * WebSocket: lws_rx_flow_control). */
    void (*read_pause)(net_session *s);
    void (*read_resume)(net_session *s);
    /* Closes the connection, at once or once the queued output is written (flush); the
     * transport calls net_session_free when its connection is gone. A close at once may
     * follow a close with flush (it then stops waiting), and may come more than once. */
    void (*close)(net_session *s, bool flush);
} net_transport;

#endif
