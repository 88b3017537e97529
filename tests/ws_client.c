/* A small blocking WebSocket client for the tests of the HTTP port's `/ws`. */
#define _GNU_SOURCE /* memmem, strcasestr */
#include "ws_client.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "harness.h"

/* RFC 6455 section 1.3's example: this key's accept value is fixed. */
#define WS_KEY "dGhlIHNhbXBsZSBub25jZQ=="
#define WS_ACCEPT "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

const char *ws_request(const char *path)
{
    static char req[512];
    snprintf(req, sizeof req,
             "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Key: " WS_KEY "\r\nSec-WebSocket-Version: 13\r\n\r\n",
             path);
    return req;
}

bool ws_handshake(ws_conn *c, int port, const char *request)
{
    c->status = 0;
    h_conn *io = &c->io;
    if (!h_connect(io, port) || !h_send_raw(io, request, strlen(request)))
        return false;
    long long end = h_now_ms() + 3000;
    char *head_end = NULL;
    while (!head_end) {
        if (h_fill(io, end) <= 0)
            return false;
        head_end = memmem(io->buf, io->len, "\r\n\r\n", 4);
    }
    size_t head_len = (size_t)(head_end - io->buf) + 4;
    char *head = strndup(io->buf, head_len);
    if (!head)
        return false;
    sscanf(head, "HTTP/1.%*d %d", &c->status);
    bool accepted = strcasestr(head, "sec-websocket-accept: " WS_ACCEPT) != NULL;
    free(head);
    memmove(io->buf, io->buf + head_len, io->len - head_len);
    io->len -= head_len;
    return c->status == 101 && accepted;
}

bool ws_connect(ws_conn *c, int port, const char *path)
{
    return ws_handshake(c, port, ws_request(path));
}

void ws_close_conn(ws_conn *c)
{
    h_close(&c->io);
}

bool ws_send_frame(ws_conn *c, int opcode, bool fin, bool masked, const void *data, size_t len)
{
    unsigned char *f = malloc(len + 14);
    if (!f)
        return false;
    size_t n = 0;
    f[n++] = (unsigned char)((fin ? 0x80 : 0) | (opcode & 0x0f));
    unsigned char m = masked ? 0x80 : 0;
    if (len < 126) {
        f[n++] = m | (unsigned char)len;
    } else if (len < 65536) {
        f[n++] = m | 126;
        f[n++] = (unsigned char)(len >> 8);
        f[n++] = (unsigned char)len;
    } else {
        f[n++] = m | 127;
        for (int i = 7; i >= 0; i--)
            f[n++] = (unsigned char)((uint64_t)len >> (8 * i));
    }
    const unsigned char key[4] = {0x37, 0xfa, 0x21, 0x3d};
    if (masked) {
        memcpy(f + n, key, 4);
        n += 4;
    }
    for (size_t i = 0; i < len; i++)
        f[n + i] = ((const unsigned char *)data)[i] ^ (masked ? key[i % 4] : 0);
    n += len;
    bool ok = h_send_raw(&c->io, f, n);
    free(f);
    return ok;
}

bool ws_send_text(ws_conn *c, const char *text)
{
    return ws_send_frame(c, WS_TEXT, true, true, text, strlen(text));
}

int ws_recv_frame(ws_conn *c, int *opcode, char **data, size_t *len, int timeout_ms)
{
    h_conn *io = &c->io;
    long long end = h_now_ms() + timeout_ms;
    for (;;) {
        const unsigned char *b = (const unsigned char *)io->buf;
        if (io->len >= 2) {
            size_t hl = 2, n = b[1] & 0x7f;
            if (n == 126)
                hl = 4;
            else if (n == 127)
                hl = 10;
            if (io->len >= hl) {
                if (n == 126)
                    n = ((size_t)b[2] << 8) | b[3];
                else if (n == 127)
                    for (int i = 0; i < 8; i++)
                        n = (n << 8) | b[2 + i];
                if (io->len >= hl + n) {
                    *opcode = b[0] & 0x0f;
                    *len = n;
                    *data = malloc(n + 1);
                    memcpy(*data, b + hl, n);
                    (*data)[n] = '\0';
                    memmove(io->buf, io->buf + hl + n, io->len - hl - n);
                    io->len -= hl + n;
                    return 1;
                }
            }
        }
        ssize_t got = h_fill(io, end);
        if (got <= 0)
            return got < 0 ? 0 : -1;
    }
}

/* The next frame before `end` (h_now_ms's clock); false on timeout or close. */
static bool next_frame(ws_conn *c, long long end, int *op, char **data, size_t *len)
{
    int left = (int)(end - h_now_ms());
    return left > 0 && ws_recv_frame(c, op, data, len, left) == 1;
}

cJSON *ws_recv_json(ws_conn *c, int timeout_ms)
{
    long long end = h_now_ms() + timeout_ms;
    for (;;) {
        int op;
        char *data;
        size_t len;
        if (!next_frame(c, end, &op, &data, &len))
            return NULL;
        if (op == WS_CLOSE) {
            free(data);
            return NULL;
        }
        cJSON *j = op == WS_TEXT ? cJSON_Parse(data) : NULL;
        free(data);
        if (j)
            return j;
    }
}

static cJSON *next_json(void *c, int timeout_ms)
{
    return ws_recv_json(c, timeout_ms);
}

cJSON *ws_recv_type(ws_conn *c, const char *type, int timeout_ms)
{
    return h_until_field(next_json, c, "type", type, timeout_ms);
}

int ws_recv_close(ws_conn *c, int timeout_ms, char *error, size_t cap)
{
    long long end = h_now_ms() + timeout_ms;
    if (error && cap)
        error[0] = '\0';
    for (;;) {
        int op;
        char *data;
        size_t len;
        if (!next_frame(c, end, &op, &data, &len))
            return -1;
        if (op == WS_TEXT && error && cap) {
            cJSON *j = cJSON_Parse(data);
            const char *t = j ? h_str(j, "type") : NULL;
            if (t && strcmp(t, "error") == 0 && h_str(j, "code"))
                snprintf(error, cap, "%s", h_str(j, "code"));
            cJSON_Delete(j);
        }
        if (op == WS_CLOSE) {
            int code = len >= 2 ? ((unsigned char)data[0] << 8) | (unsigned char)data[1] : 0;
            free(data);
            return code;
        }
        free(data);
    }
}
