/* A small blocking HTTP/1.1 client for the integration tests of the HTTP port: raw bytes out,
 * the answer's status, headers and body back, as curl or a Prometheus scraper would see them. */
#ifndef MINK_TESTS_HTTP_CLIENT_H
#define MINK_TESTS_HTTP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct http_resp {
    int status;      /* 0: the server closed without an answer */
    char head[4096]; /* status line and headers */
    char *body;      /* NUL-terminated (the caller frees with http_resp_free) */
    size_t body_len;
} http_resp;

/* Sends `len` raw bytes to 127.0.0.1:port and reads the answer until its Content-Length or the
 * close; false when no connection could be made or nothing came within timeout_ms. */
bool http_raw(int port, const char *raw, size_t len, http_resp *r, int timeout_ms);
/* GET `path` (Connection: close). */
bool http_get(int port, const char *path, http_resp *r);
void http_resp_free(http_resp *r);
/* The value of the header `name` (lower case, without ':') in r->head, copied to out. */
bool http_header(const http_resp *r, const char *name, char *out, size_t cap);
/* The value of the sample whose name and labels are exactly `series` (e.g.
 * `mink_bodies{state="awake"}`) in a Prometheus text body; NaN when it is not there. */
double http_metric(const char *body, const char *series);
/* A loopback TCP port that was free a moment ago. */
int http_free_port(void);

#endif
