/* A small blocking WebSocket client for the tests of the HTTP port's `/ws`. */
#define _GNU_SOURCE /* memmem, strcasestr */
#include "ws_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

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

/* Reads more bytes into c->buf; false on close or timeout. */
static bool fill(ws_conn *c, int timeout_ms)
{
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    if (poll(&p, 1, timeout_ms) <= 0)
        return false;
    if (c->cap - c->len < 4096) {
        size_t cap = c->cap ? c->cap * 2 : 65536;
        unsigned char *b = realloc(c->buf, cap);
        if (!b)
            return false;
        c->buf = b;
        c->cap = cap;
    }
    ssize_t n = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
    if (n <= 0)
        return false;
    c->len += (size_t)n;
    return true;
}

bool ws_handshake(ws_conn *c, int port, const char *request)
{
    memset(c, 0, sizeof *c);
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (c->fd < 0)
        return false;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0)
        return false;
    size_t len = strlen(request);
    if (send(c->fd, request, len, MSG_NOSIGNAL) != (ssize_t)len)
        return false;
    long long end = h_now_ms() + 3000;
    char *head_end = NULL;
    while (!head_end) {
        int left = (int)(end - h_now_ms());
        if (left <= 0 || !fill(c, left))
            return false;
        head_end = memmem(c->buf, c->len, "\r\n\r\n", 4);
    }
    size_t head_len = (size_t)(head_end - (char *)c->buf) + 4;
    char *head = strndup((char *)c->buf, head_len);
    if (!head)
        return false;
    sscanf(head, "HTTP/1.%*d %d", &c->status);
    bool accepted = strcasestr(head, "sec-websocket-accept: " WS_ACCEPT) != NULL;
    free(head);
    memmove(c->buf, c->buf + head_len, c->len - head_len);
    c->len -= head_len;
    return c->status == 101 && accepted;
}

bool ws_connect(ws_conn *c, int port, const char *path)
{
    return ws_handshake(c, port, ws_request(path));
}

void ws_close_conn(ws_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->buf);
    c->buf = NULL;
    c->len = c->cap = 0;
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
    bool ok = send(c->fd, f, n, MSG_NOSIGNAL) == (ssize_t)n;
    free(f);
    return ok;
}

bool ws_send_text(ws_conn *c, const char *text)
{
    return ws_send_frame(c, WS_TEXT, true, true, text, strlen(text));
}

int ws_recv_frame(ws_conn *c, int *opcode, char **data, size_t *len, int timeout_ms)
{
    long long end = h_now_ms() + timeout_ms;
    for (;;) {
        if (c->len >= 2) {
            size_t hl = 2, n = c->buf[1] & 0x7f;
            if (n == 126)
                hl = 4;
            else if (n == 127)
                hl = 10;
            if (c->len >= hl) {
                if (n == 126)
                    n = ((size_t)c->buf[2] << 8) | c->buf[3];
                else if (n == 127)
                    for (int i = 0; i < 8; i++)
                        n = (n << 8) | c->buf[2 + i];
                if (c->len >= hl + n) {
                    *opcode = c->buf[0] & 0x0f;
                    *len = n;
                    *data = malloc(n + 1);
                    memcpy(*data, c->buf + hl, n);
                    (*data)[n] = '\0';
                    memmove(c->buf, c->buf + hl + n, c->len - hl - n);
                    c->len -= hl + n;
                    return 1;
                }
            }
        }
        int left = (int)(end - h_now_ms());
        if (left <= 0)
            return 0;
        if (!fill(c, left))
            return h_now_ms() >= end ? 0 : -1;
    }
}

cJSON *ws_recv_json(ws_conn *c, int timeout_ms)
{
    long long end = h_now_ms() + timeout_ms;
    for (;;) {
        int op;
        char *data;
        size_t len;
        int left = (int)(end - h_now_ms());
        if (left <= 0 || ws_recv_frame(c, &op, &data, &len, left) != 1)
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

cJSON *ws_recv_type(ws_conn *c, const char *type, int timeout_ms)
{
    long long end = h_now_ms() + timeout_ms;
    for (;;) {
        int left = (int)(end - h_now_ms());
        cJSON *j = left > 0 ? ws_recv_json(c, left) : NULL;
        if (!j)
            return NULL;
        const char *t = h_str(j, "type");
        if (t && strcmp(t, type) == 0)
            return j;
        cJSON_Delete(j);
    }
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
        int left = (int)(end - h_now_ms());
        if (left <= 0 || ws_recv_frame(c, &op, &data, &len, left) != 1)
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
