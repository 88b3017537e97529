/* The client side of a WebSocket (ws.h): the opening handshake, every message sent as one masked
 * text frame (a client must mask, RFC 6455 section 5.3), and the server's frames read back into
 * messages. The connection (conn.c) carries the bytes over its libuv TCP handle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "ws.h"

#define WS_MAX_MESSAGE (64u << 20) /* the longest message taken from the server, as lines */

/* A fixed key: the answer's Sec-WebSocket-Accept for it is RFC 6455's own example. */
static const char KEY[] = "dGhlIHNhbXBsZSBub25jZQ==";
static const char ACCEPT[] = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

int cli_ws_start(cli_ws *ws, const char *host, cli_ws_write write, cli_ws_opened on_open,
                 cli_ws_message on_message, void *ud)
{
    ws->ready = false;
    ws->in.v.item = ws->msg.v.item = sizeof(char);
    ws->in.v.len = ws->msg.v.len = 0;
    ws->write = write;
    ws->on_open = on_open;
    ws->on_message = on_message;
    ws->ud = ud;
    ws->rng = 0x9e3779b9u ^ (uint32_t)(uintptr_t)ud;
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET /ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n",
                     host, KEY);
    return write(ud, req, (size_t)n);
}

static bool append(mk_vec *buf, const char *data, size_t n)
{
    size_t len = buf->len;
    if (n == 0)
        return true;
    if (!mk_vec_resize(buf, len + n))
        return false;
    memcpy((char *)buf->data + len, data, n);
    return true;
}

/* Drops the first n bytes read. */
static void take(cli_ws *ws, size_t n)
{
    memmove(ws->in.at, ws->in.at + n, ws->in.v.len - n);
    ws->in.v.len -= n;
}

static uint32_t next_key(cli_ws *ws)
{
    /* xorshift32: masking keys need not be secret from the server, only vary. */
    uint32_t x = ws->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return ws->rng = x;
}

static int send_frame(cli_ws *ws, int opcode, const char *data, size_t len)
{
    char small[512];
    size_t total = len + 14;
    char *f = total <= sizeof small ? small : malloc(total);
    if (!f)
        return UV_ENOMEM;
    size_t h = 0;
    f[h++] = (char)(0x80 | opcode);
    if (len < 126) {
        f[h++] = (char)(0x80 | len);
    } else if (len < 65536) {
        f[h++] = (char)(0x80 | 126);
        f[h++] = (char)(len >> 8);
        f[h++] = (char)len;
    } else {
        f[h++] = (char)(0x80 | 127);
        for (int i = 7; i >= 0; i--)
            f[h++] = (char)((uint64_t)len >> (8 * i));
    }
    uint32_t k = next_key(ws);
    unsigned char key[4] = {(unsigned char)(k >> 24), (unsigned char)(k >> 16),
                            (unsigned char)(k >> 8), (unsigned char)k};
    memcpy(f + h, key, 4);
    h += 4;
    for (size_t i = 0; i < len; i++)
        f[h + i] = (char)(data[i] ^ key[i % 4]);
    int rc = ws->write(ws->ud, f, h + len);
    if (f != small)
        free(f);
    return rc;
}

int cli_ws_send(cli_ws *ws, const char *data, size_t len)
{
    while (len > 0) {
        const char *nl = memchr(data, '\n', len);
        size_t n = nl ? (size_t)(nl - data) : len;
        if (n > 0) {
            int rc = send_frame(ws, 1, data, n);
            if (rc != 0)
                return rc;
        }
        if (!nl)
            break;
        len -= n + 1;
        data = nl + 1;
    }
    return 0;
}

/* The answer's head: 101 with the accept value for our key. 1 when read (2 when on_open asked
 * to stop), 0 when more bytes are needed, -1 when it is no upgrade. */
static int read_head(cli_ws *ws, const char **why)
{
    const char *in = ws->in.at;
    size_t len = ws->in.v.len;
    const char *end = NULL;
    for (size_t i = 0; i + 3 < len; i++)
        if (memcmp(in + i, "\r\n\r\n", 4) == 0) {
            end = in + i + 4;
            break;
        }
    if (!end) {
        if (len > 8192) {
            *why = "the WebSocket handshake's answer is too long";
            return -1;
        }
        return 0;
    }
    size_t head = (size_t)(end - in);
    int status = 0;
    sscanf(in, "HTTP/1.%*d %d", &status);
    bool ok = status == 101;
    if (ok) {
        ok = false;
        for (size_t i = 0; i + sizeof ACCEPT - 1 <= head; i++)
            if (memcmp(in + i, ACCEPT, sizeof ACCEPT - 1) == 0)
                ok = true;
    }
    if (!ok) {
        *why = "the server did not upgrade to WebSocket";
        return -1;
    }
    take(ws, head);
    ws->ready = true;
    return ws->on_open(ws->ud) ? 2 : 1;
}

/* One frame from the front of `in`: 1 when taken (2 when on_message asked to stop), 0 when
 * more bytes are needed, -1 when the connection must end. */
static int read_frame(cli_ws *ws, const char **why)
{
    const unsigned char *b = (const unsigned char *)ws->in.at;
    size_t len = ws->in.v.len;
    if (len < 2)
        return 0;
    size_t h = 2;
    uint64_t n = b[1] & 0x7f;
    if (n == 126)
        h = 4;
    else if (n == 127)
        h = 10;
    if (b[1] & 0x80) {
        *why = "a masked frame from the server";
        return -1;
    }
    if (len < h)
        return 0;
    if (h == 4)
        n = ((uint64_t)b[2] << 8) | b[3];
    else if (h == 10)
        for (int i = 0; i < 8; i++)
            n = (n << 8) | b[2 + i];
    if (n > WS_MAX_MESSAGE) {
        *why = "a frame from the server is too long";
        return -1;
    }
    if (len < h + n)
        return 0;
    int op = b[0] & 0x0f;
    bool fin = b[0] & 0x80;
    const char *payload = ws->in.at + h;
    int rc = 1;
    if (op == 1 || op == 0) {
        if (fin && op == 1 && ws->msg.v.len == 0) {
            if (ws->on_message(ws->ud, payload, (size_t)n))
                rc = 2;
        } else if (!append(&ws->msg.v, payload, (size_t)n) || ws->msg.v.len > WS_MAX_MESSAGE) {
            *why = "out of memory";
            rc = -1;
        } else if (fin) {
            if (ws->on_message(ws->ud, ws->msg.at, ws->msg.v.len))
                rc = 2;
            ws->msg.v.len = 0;
        }
    } else if (op == 8) {
        static char msg[64];
        int code = n >= 2 ? ((unsigned char)payload[0] << 8) | (unsigned char)payload[1] : 0;
        snprintf(msg, sizeof msg, "the server closed the WebSocket (%d)", code);
        *why = msg;
        rc = -1;
    } else if (op == 9) {
        send_frame(ws, 10, payload, (size_t)n);
    } else if (op != 10) {
        *why = "a binary frame from the server";
        rc = -1;
    }
    take(ws, h + (size_t)n);
    return rc;
}

int cli_ws_feed(cli_ws *ws, const char *data, size_t len, const char **why)
{
    if (!append(&ws->in.v, data, len)) {
        *why = "out of memory";
        return -1;
    }
    int rc = 1;
    if (!ws->ready) {
        rc = read_head(ws, why);
        if (rc <= 0)
            return rc;
    }
    while (rc == 1)
        rc = read_frame(ws, why);
    return rc < 0 ? -1 : 0;
}

void cli_ws_free(cli_ws *ws)
{
    mk_vec_free(&ws->in.v);
    mk_vec_free(&ws->msg.v);
}
