/* proto_buf: a growable byte buffer and the number formatting of the server's writers.
 *
 * Numbers are written as fixed point from integers (no printf): a state line holds hundreds of
 * numbers per body and is written on every snapshot tick. */
#include "mink_proto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void proto_buf_init(proto_buf *b)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = false;
}

void proto_buf_free(proto_buf *b)
{
    free(b->data);
    proto_buf_init(b);
}

void proto_buf_clear(proto_buf *b)
{
    b->len = 0;
    b->failed = false;
}

bool proto_buf_reserve(proto_buf *b, size_t extra)
{
    if (b->failed)
        return false;
    if (extra <= b->cap - b->len)
        return true;
    if (extra > SIZE_MAX / 2 - b->len) {
        b->failed = true;
        return false;
    }
    size_t need = b->len + extra;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->failed = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void proto_buf_append(proto_buf *b, const void *data, size_t n)
{
    if (n == 0 || !proto_buf_reserve(b, n))
        return;
    memcpy(b->data + b->len, data, n);
    b->len += n;
}

void proto_buf_append_str(proto_buf *b, const char *s)
{
    proto_buf_append(b, s, strlen(s));
}

void proto_buf_append_char(proto_buf *b, char c)
{
    if (!proto_buf_reserve(b, 1))
        return;
    b->data[b->len++] = c;
}

/* Writes the decimal digits of v (at least min_digits, zero-padded) into the end of tmp and
 * returns where they start. tmp holds 24 bytes. */
static char *u64_digits(char tmp[24], uint64_t v, int min_digits)
{
    char *p = tmp + 24;
    int n = 0;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
        n++;
    } while (v != 0);
    while (n < min_digits) {
        *--p = '0';
        n++;
    }
    return p;
}

void proto_buf_append_u64(proto_buf *b, uint64_t v)
{
    char tmp[24];
    char *p = u64_digits(tmp, v, 1);
    proto_buf_append(b, p, (size_t)(tmp + 24 - p));
}

void proto_buf_append_i64(proto_buf *b, int64_t v)
{
    if (v < 0) {
        proto_buf_append_char(b, '-');
        /* Negate in unsigned arithmetic so that INT64_MIN is written correctly. */
        proto_buf_append_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        proto_buf_append_u64(b, (uint64_t)v);
    }
}

static const double pow10_table[10] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
static const uint64_t pow10_int[10] = {1u,      10u,      100u,      1000u,      10000u,
                                       100000u, 1000000u, 10000000u, 100000000u, 1000000000u};

void proto_buf_append_fixed(proto_buf *b, double v, int decimals)
{
    if (decimals < 0)
        decimals = 0;
    if (decimals > 9)
        decimals = 9;
    if (!isfinite(v)) {
        proto_buf_append_char(b, '0');
        return;
    }
    double scaled = fabs(v) * pow10_table[decimals];
    if (scaled >= 9e15) {
        /* Past 2^53 the fixed-point integer is no longer exact: full precision instead. */
        char tmp[32];
        int n = snprintf(tmp, sizeof tmp, "%.17g", v);
        proto_buf_append(b, tmp, (size_t)n);
        return;
    }
    /* Round half up. scaled - m is exact below 2^52, where adding 0.5 first would not be
     * (0.49999999999999994 + 0.5 rounds to 1). */
    uint64_t m = (uint64_t)scaled;
    if (scaled - (double)m >= 0.5)
        m++;
    if (m == 0) {
        proto_buf_append_char(b, '0'); /* never "-0" */
        return;
    }
    if (!proto_buf_reserve(b, 24))
        return;
    if (v < 0)
        b->data[b->len++] = '-';
    uint64_t unit = pow10_int[decimals];
    uint64_t whole = m / unit, frac = m % unit;
    char tmp[24];
    char *p = u64_digits(tmp, whole, 1);
    size_t n = (size_t)(tmp + 24 - p);
    memcpy(b->data + b->len, p, n);
    b->len += n;
    if (frac == 0)
        return;
    int digits = decimals;
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    p = u64_digits(tmp, frac, digits);
    n = (size_t)(tmp + 24 - p);
    b->data[b->len++] = '.';
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void proto_buf_append_json_string(proto_buf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    proto_buf_append_char(b, '"');
    const char *run = s;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        proto_buf_append(b, run, (size_t)(p - run));
        run = p + 1;
        char esc[7] = {'\\', 0};
        size_t n = 2;
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            n = 6;
            break;
        }
        proto_buf_append(b, esc, n);
    }
    proto_buf_append_str(b, run);
    proto_buf_append_char(b, '"');
}
