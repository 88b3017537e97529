/* The client side of a WebSocket connection to the HTTP port's /ws (RFC 6455): the opening
 * handshake, every message sent as one masked text frame (a client must mask, section 5.3),
 * and the server's frames read back into messages for on_line. The bytes go over the same
 * libuv TCP handle as the game port's lines (conn.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define WS_MAX_MESSAGE (64u << 20) /* the longest message taken from the server, as lines */

/* A fixed key: the answer's Sec-WebSocket-Accept for it is RFC 6455's own example. */
static const char KEY[] = "dGhlIHNhbXBsZSBub25jZQ==";
static const char ACCEPT[] = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

int cli_ws_handshake(cli_conn *c, const char *host)
{
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET /ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n",
                     host, KEY);
    c->ws_rng = 0x9e3779b9u ^ (uint32_t)(uintptr_t)c;
    return cli_conn_write_raw(c, req, (size_t)n);
}

static bool append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
    if (*len + n > *cap) {
        size_t want = *cap ? *cap : 4096;
        while (want < *len + n)
            want *= 2;
        char *p = realloc(*buf, want);
        if (!p)
            return false;
        *buf = p;
        *cap = want;
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    return true;
}

static uint32_t next_key(cli_conn *c)
{
    /* xorshift32: masking keys need not be secret from the server, only vary. */
    uint32_t x = c->ws_rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return c->ws_rng = x;
}

static int send_frame(cli_conn *c, int opcode, const char *data, size_t len)
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
    uint32_t k = next_key(c);
    unsigned char key[4] = {(unsigned char)(k >> 24), (unsigned char)(k >> 16),
                            (unsigned char)(k >> 8), (unsigned char)k};
    memcpy(f + h, key, 4);
    h += 4;
    for (size_t i = 0; i < len; i++)
        f[h + i] = (char)(data[i] ^ key[i % 4]);
    int rc = cli_conn_write_raw(c, f, h + len);
    if (f != small)
        free(f);
    return rc;
}

int cli_ws_send(cli_conn *c, const char *data, size_t len)
{
    while (len > 0) {
        const char *nl = memchr(data, '\n', len);
        size_t n = nl ? (size_t)(nl - data) : len;
        if (n > 0) {
            int rc = send_frame(c, 1, data, n);
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

/* The answer's head: 101 with the accept value for our key. */
static int read_head(cli_conn *c, const char **why)
{
    char *end = NULL;
    for (size_t i = 0; i + 3 < c->ws_in_len; i++)
        if (memcmp(c->ws_in + i, "\r\n\r\n", 4) == 0) {
            end = c->ws_in + i + 4;
            break;
        }
    if (!end) {
        if (c->ws_in_len > 8192) {
            *why = "the WebSocket handshake's answer is too long";
            return -1;
        }
        return 0;
    }
    size_t head = (size_t)(end - c->ws_in);
    int status = 0;
    sscanf(c->ws_in, "HTTP/1.%*d %d", &status);
    bool ok = status == 101;
    if (ok) {
        ok = false;
        for (size_t i = 0; i + sizeof ACCEPT - 1 <= head; i++)
            if (memcmp(c->ws_in + i, ACCEPT, sizeof ACCEPT - 1) == 0)
                ok = true;
    }
    if (!ok) {
        *why = "the server did not upgrade to WebSocket";
        return -1;
    }
    memmove(c->ws_in, end, c->ws_in_len - head);
    c->ws_in_len -= head;
    c->ws_ready = true;
    c->on_connect(c, 0);
    return 1;
}

/* One frame from the front of ws_in: 1 when taken, 0 when more bytes are needed. */
static int read_frame(cli_conn *c, const char **why)
{
    const unsigned char *b = (const unsigned char *)c->ws_in;
    if (c->ws_in_len < 2)
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
    if (c->ws_in_len < h)
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
    if (c->ws_in_len < h + n)
        return 0;
    int op = b[0] & 0x0f;
    bool fin = b[0] & 0x80;
    const char *payload = c->ws_in + h;
    int rc = 1;
    if (op == 1 || op == 0) {
        if (fin && op == 1 && c->ws_msg_len == 0) {
            c->on_line(c, payload, (size_t)n);
        } else if (!append(&c->ws_msg, &c->ws_msg_len, &c->ws_msg_cap, payload, (size_t)n) ||
                   c->ws_msg_len > WS_MAX_MESSAGE) {
            *why = "out of memory";
            rc = -1;
        } else if (fin) {
            c->on_line(c, c->ws_msg, c->ws_msg_len);
            c->ws_msg_len = 0;
        }
    } else if (op == 8) {
        static char msg[64];
        int code = n >= 2 ? ((unsigned char)payload[0] << 8) | (unsigned char)payload[1] : 0;
        snprintf(msg, sizeof msg, "the server closed the WebSocket (%d)", code);
        *why = msg;
        rc = -1;
    } else if (op == 9) {
        send_frame(c, 10, payload, (size_t)n);
    } else if (op != 10) {
        *why = "a binary frame from the server";
        rc = -1;
    }
    memmove(c->ws_in, c->ws_in + h + n, c->ws_in_len - h - (size_t)n);
    c->ws_in_len -= h + (size_t)n;
    return rc;
}

int cli_ws_feed(cli_conn *c, const char *data, size_t len, const char **why)
{
    if (!append(&c->ws_in, &c->ws_in_len, &c->ws_in_cap, data, len)) {
        *why = "out of memory";
        return -1;
    }
    if (!c->ws_ready) {
        int rc = read_head(c, why);
        if (rc <= 0)
            return rc;
    }
    for (;;) {
        if (c->closing)
            return 0;
        int rc = read_frame(c, why);
        if (rc <= 0)
            return rc;
    }
}

void cli_ws_free(cli_conn *c)
{
    free(c->ws_in);
    free(c->ws_msg);
    c->ws_in = c->ws_msg = NULL;
    c->ws_in_len = c->ws_in_cap = c->ws_msg_len = c->ws_msg_cap = 0;
}
