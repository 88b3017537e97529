/* JSON Lines framing over a byte stream.
 *
 * Complete lines inside a read are handed to the callback where they lie; only the unfinished
 * tail of a read is copied, and that copy is capped at max_line bytes (Redis's
 * client-query-buffer rule: a limit on every buffer, and a protocol error rather than growth). */
#include "mink_proto.h"

#include <stdlib.h>
#include <string.h>

void proto_framer_init(proto_framer *f, size_t max_line)
{
    f->buf = NULL;
    f->len = 0;
    f->cap = 0;
    f->max_line = max_line;
}

void proto_framer_free(proto_framer *f)
{
    free(f->buf);
    f->buf = NULL;
    f->len = f->cap = 0;
}

/* Strips a trailing '\r' and skips blank lines; returns the callback's value. */
static int deliver(const char *line, size_t len, proto_line_cb on_line, void *ud)
{
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (len == 0)
        return 0;
    return on_line(ud, line, len);
}

/* Buffers an unfinished line, never more than max_line bytes, plus one when that byte is the
 * '\r' of a CRLF ending (the line itself is measured without it when its '\n' arrives). */
static int keep_tail(proto_framer *f, const char *data, size_t n)
{
    size_t need = f->len + n;
    if (need > f->max_line && !(need == f->max_line + 1 && n > 0 && data[n - 1] == '\r'))
        return PROTO_ERR_LINE_TOO_LONG;
    if (need > f->cap) {
        size_t cap = f->cap ? f->cap : 256;
        while (cap < need)
            cap *= 2;
        if (cap > f->max_line)
            cap = f->max_line;
        if (cap < need)
            cap = need;
        char *p = realloc(f->buf, cap);
        if (!p)
            return -1;
        f->buf = p;
        f->cap = cap;
    }
    memcpy(f->buf + f->len, data, n);
    f->len += n;
    return 0;
}

static size_t line_body(const char *line, size_t len)
{
    return (len > 0 && line[len - 1] == '\r') ? len - 1 : len;
}

int proto_framer_feed(proto_framer *f, const char *data, size_t n, proto_line_cb on_line,
                      void *ud)
{
    size_t used;
    return proto_framer_feed_used(f, data, n, on_line, ud, &used);
}

int proto_framer_feed_used(proto_framer *f, const char *data, size_t n, proto_line_cb on_line,
                           void *ud, size_t *used)
{
    size_t pos = 0;
    *used = 0;

    /* A line started in an earlier read: complete it from this one first. */
    if (f->len > 0 && n > 0) {
        const char *nl = memchr(data, '\n', n);
        if (!nl) {
            *used = n;
            return keep_tail(f, data, n);
        }
        size_t part = (size_t)(nl - data);
        char last = part > 0 ? data[part - 1] : f->buf[f->len - 1];
        if (f->len + part - (last == '\r') > f->max_line)
            return PROTO_ERR_LINE_TOO_LONG;
        int rc = part ? keep_tail(f, data, part) : 0;
        if (rc != 0)
            return rc;
        size_t len = f->len;
        f->len = 0;
        pos = part + 1;
        *used = pos;
        rc = deliver(f->buf, len, on_line, ud);
        if (rc != 0)
            return rc;
    }

    while (pos < n) {
        const char *start = data + pos;
        const char *nl = memchr(start, '\n', n - pos);
        if (!nl) {
            *used = n;
            return keep_tail(f, start, n - pos);
        }
        size_t len = (size_t)(nl - start);
        if (line_body(start, len) > f->max_line)
            return PROTO_ERR_LINE_TOO_LONG;
        pos += len + 1;
        *used = pos;
        int rc = deliver(start, len, on_line, ud);
        if (rc != 0)
            return rc;
    }
    return 0;
}
