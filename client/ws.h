/* The client side of a WebSocket (RFC 6455) as a codec: the opening handshake, each message sent
 * as one masked text frame, the server's frames read back into messages. It does no I/O: the
 * bytes it makes go out through `write`, the messages it reads come back through `on_message`,
 * so that the connection (conn.c) owns the socket and this file only the protocol. */
#ifndef MINK_CLI_WS_H
#define MINK_CLI_WS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mk_vec.h"

/* Bytes to send, as they are (the handshake, frames): 0 or a uv error. */
typedef int (*cli_ws_write)(void *ud, const char *data, size_t len);
/* The handshake was answered, or a message was read: nonzero stops the reading (the
 * connection is closing), what follows is dropped. */
typedef int (*cli_ws_opened)(void *ud);
typedef int (*cli_ws_message)(void *ud, const char *data, size_t len);

typedef struct cli_ws {
    bool ready;        /* the server answered the handshake */
    MK_VEC(char) in;   /* bytes read and not yet taken (the answer's head, then frames) */
    MK_VEC(char) msg;  /* a fragmented message being gathered */
    uint32_t rng;      /* the masking keys' source */
    cli_ws_write write;
    cli_ws_opened on_open;
    cli_ws_message on_message;
    void *ud;
} cli_ws;

/* Starts a WebSocket with its callbacks, and sends the handshake for `host`'s /ws. Returns 0 or
 * the write's error. */
int cli_ws_start(cli_ws *ws, const char *host, cli_ws_write write, cli_ws_opened on_open,
                 cli_ws_message on_message, void *ud);
/* Bytes read: the answer's head, then frames; on_open when the head says 101 with our key's
 * accept value, on_message for each text message. Returns 0, or -1 with *why set when the
 * connection must end. */
int cli_ws_feed(cli_ws *ws, const char *data, size_t len, const char **why);
/* Sends each line of data ('\n'-separated) as one masked text frame. */
int cli_ws_send(cli_ws *ws, const char *data, size_t len);
void cli_ws_free(cli_ws *ws);

#endif
