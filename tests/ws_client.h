/* A small blocking WebSocket client (RFC 6455) for the tests of `GET /ws`: it sends what a
 * browser sends, and also what no browser would (binary, fragmented, unmasked and oversized
 * frames, a close in the middle of a message), and reads the server's frames back. */
#ifndef MINK_TESTS_WS_CLIENT_H
#define MINK_TESTS_WS_CLIENT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "harness.h"

enum { WS_CONT = 0, WS_TEXT = 1, WS_BINARY = 2, WS_CLOSE = 8, WS_PING = 9, WS_PONG = 10 };

typedef struct ws_conn {
    h_conn io;  /* the socket, and the bytes received and not yet returned as frames */
    int status; /* the handshake's HTTP status */
} ws_conn;

/* Connects to 127.0.0.1:port and sends `request` (a whole HTTP request) as the handshake;
 * reads the answer's head into c->status. True when the server switched protocols (101)
 * with the right Sec-WebSocket-Accept for the key "dGhlIHNhbXBsZSBub25jZQ==". */
bool ws_handshake(ws_conn *c, int port, const char *request);
/* The usual handshake on `path`. */
bool ws_connect(ws_conn *c, int port, const char *path);
/* The request ws_connect sends, for `path` (static storage). */
const char *ws_request(const char *path);
void ws_close_conn(ws_conn *c);
/* Sends one frame: its opcode, FIN bit and mask bit as given (a client must mask). */
bool ws_send_frame(ws_conn *c, int opcode, bool fin, bool masked, const void *data, size_t len);
/* One text frame, masked. */
bool ws_send_text(ws_conn *c, const char *text);
/* The next frame from the server: 1 and its opcode and payload (NUL-terminated; the caller
 * frees), 0 on timeout, -1 when the connection closed. */
int ws_recv_frame(ws_conn *c, int *opcode, char **data, size_t *len, int timeout_ms);
/* The next text frame as JSON (caller deletes), skipping other frames; NULL on timeout, close
 * or a close frame. */
cJSON *ws_recv_json(ws_conn *c, int timeout_ms);
/* The next message of `type`, skipping others. */
cJSON *ws_recv_type(ws_conn *c, const char *type, int timeout_ms);
/* Reads up to the server's close frame and returns its status code (0 when it had none); -1
 * when none came within timeout_ms. Text frames before it are skipped; an `error` among them
 * has its code copied to `error` (cap bytes, "" when there was none; may be NULL). */
int ws_recv_close(ws_conn *c, int timeout_ms, char *error, size_t cap);

#endif
