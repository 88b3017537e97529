/* mink-client's connection to a server: one TCP connection carrying JSON Lines, or, with `ws`
 * set, WebSocket text frames to the HTTP port's /ws (ws.h), a message a frame. */
#ifndef MINK_CLI_CONN_H
#define MINK_CLI_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

#include "mink_proto.h"
#include "ws.h"

/* A server's line can be long (the first state of a large world lists every body with its
 * shape), unlike a client's: 64 MiB bounds the memory a broken server can make us hold. */
#define CLI_MAX_LINE ((size_t)64 * 1024 * 1024)
/* ms a graceful close waits for the last bytes (the `bye`) to reach the kernel. */
#define CLI_LINGER_MS 1000

typedef struct cli_conn cli_conn;
typedef void (*cli_conn_cb)(cli_conn *c, int status); /* connected: 0 or a uv error */
typedef void (*cli_line_cb)(cli_conn *c, const char *line, size_t len);
typedef void (*cli_closed_cb)(cli_conn *c, const char *why); /* the server closed or failed */

struct cli_conn {
    uv_loop_t *loop;
    uv_getaddrinfo_t resolve;
    uv_connect_t connect;
    uv_shutdown_t shutdown;
    uv_tcp_t tcp;
    uv_timer_t linger; /* bounds a graceful close */
    bool resolving, tcp_open, linger_open, connected, closing;
    proto_framer framer;
    /* WebSocket: set ws before cli_conn_start to speak to the HTTP port's /ws; on_connect then
     * waits for the handshake's answer. */
    bool ws;
    cli_ws wsock;
    cli_conn_cb on_connect;
    cli_line_cb on_line;
    cli_closed_cb on_closed;
    void *ud;
};

/* Resolves host (a name or an address), connects and reads lines; on_connect tells how it
 * went. Returns 0 or a uv error (then no callback comes). */
int cli_conn_start(cli_conn *c, uv_loop_t *loop, const char *host, int port);
/* Sends bytes (copied when they cannot be written at once). Returns 0 or a uv error. */
int cli_conn_send(cli_conn *c, const char *data, size_t len);
/* Stops reading and closes. Graceful: what was sent is flushed first (for at most
 * CLI_LINGER_MS) and the server sees an orderly end of stream. No callback follows. */
void cli_conn_close(cli_conn *c, bool graceful);
/* True for the handles the connection closes itself (uv_walk on quitting leaves them). */
bool cli_conn_owns(const cli_conn *c, const uv_handle_t *h);
void cli_conn_free(cli_conn *c);

#endif
