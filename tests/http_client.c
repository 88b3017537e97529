/* A small blocking HTTP/1.1 client for the tests of the HTTP port. */
#include "http_client.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"

static int connect_loopback(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Content-Length of a complete head, or -1 when it has none. */
static long content_length(const char *head)
{
    const char *p = head;
    while ((p = strchr(p, '\n')) != NULL) {
        p++;
        if (strncasecmp(p, "content-length:", 15) == 0)
            return strtol(p + 15, NULL, 10);
    }
    return -1;
}

bool http_raw(int port, const char *raw, size_t len, http_resp *r, int timeout_ms)
{
    memset(r, 0, sizeof *r);
    int fd = connect_loopback(port);
    if (fd < 0)
        return false;
    size_t sent = 0;
    while (sent < len) {
        ssize_t n = send(fd, raw + sent, len - sent, MSG_NOSIGNAL);
        if (n <= 0)
            break; /* the server may close early on a bad request: read what it said */
        sent += (size_t)n;
    }
    size_t cap = 1 << 16, got = 0;
    char *buf = malloc(cap + 1);
    long long end = h_now_ms() + timeout_ms;
    bool closed = false;
    while (!closed && h_now_ms() < end) {
        buf[got] = '\0';
        char *body = strstr(buf, "\r\n\r\n");
        if (body) {
            long clen = content_length(buf);
            if (clen >= 0 && got >= (size_t)(body + 4 - buf) + (size_t)clen)
                break;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0)
            continue;
        if (got == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
        ssize_t n = recv(fd, buf + got, cap - got, 0);
        if (n <= 0)
            closed = true;
        else
            got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    char *body = strstr(buf, "\r\n\r\n");
    if (body && strncmp(buf, "HTTP/1.", 7) == 0) {
        r->status = atoi(buf + 9);
        size_t hl = (size_t)(body - buf);
        size_t keep = hl < sizeof r->head ? hl : sizeof r->head - 1;
        snprintf(r->head, sizeof r->head, "%.*s", (int)keep, buf);
        r->body_len = got - hl - 4;
        r->body = malloc(r->body_len + 1);
        memcpy(r->body, body + 4, r->body_len + 1);
    } else {
        r->body = calloc(1, 1);
    }
    free(buf);
    return closed || r->status != 0;
}

bool http_get(int port, const char *path, http_resp *r)
{
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
    return http_raw(port, req, (size_t)n, r, 5000) && r->status != 0;
}

void http_resp_free(http_resp *r)
{
    free(r->body);
    r->body = NULL;
}

bool http_header(const http_resp *r, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name);
    for (const char *p = strchr(r->head, '\n'); p; p = strchr(p, '\n')) {
        p++;
        if (strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
            const char *v = p + nl + 1;
            while (*v == ' ')
                v++;
            size_t n = strcspn(v, "\r\n");
            snprintf(out, cap, "%.*s", (int)n, v);
            return true;
        }
    }
    return false;
}

double http_metric(const char *body, const char *series)
{
    size_t n = strlen(series);
    for (const char *p = body; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, series, n) == 0 && p[n] == ' ')
            return strtod(p + n + 1, NULL);
    }
    return NAN;
}

int http_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}
