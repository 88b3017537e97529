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

/* "00" .. "99": two digits per division, half the divisions of one at a time. */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930"
                                     "31323334353637383940414243444546474849505152535455565758596061"
                                     "62636465666768697071727374757677787980818283848586878889909192"
                                     "93949596979899";

/* Writes the decimal digits of v into p (up to 20 bytes) and returns the end. */
char *proto_put_u64(char *p, uint64_t v)
{
    char tmp[20];
    char *q = tmp + sizeof tmp;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        memcpy(q, digit_pairs + 2 * r, 2);
    }
    if (v >= 10) {
        q -= 2;
        memcpy(q, digit_pairs + 2 * v, 2);
    } else {
        *--q = (char)('0' + v);
    }
    size_t n = (size_t)(tmp + sizeof tmp - q);
    memcpy(p, q, n);
    return p + n;
}

void proto_buf_append_u64(proto_buf *b, uint64_t v)
{
    if (!proto_buf_reserve(b, 20))
        return;
    b->len = (size_t)(proto_put_u64(b->data + b->len, v) - b->data);
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

char *proto_put_fixed(char *p, double v, int decimals)
{
    if (decimals < 0)
        decimals = 0;
    if (decimals > 9)
        decimals = 9;
    if (!isfinite(v)) {
        *p++ = '0';
        return p;
    }
    double scaled = fabs(v) * pow10_table[decimals];
    if (scaled >= 9e15) {
        /* Past 2^53 the fixed-point integer is no longer exact: full precision instead. */
        char tmp[32];
        int n = snprintf(tmp, sizeof tmp, "%.17g", v);
        n = n < 0 ? 0 : n > 24 ? 24 : n;
        memcpy(p, tmp, (size_t)n);
        return p + n;
    }
    /* Round half up. scaled - m is exact below 2^52, where adding 0.5 first would not be
     * (0.49999999999999994 + 0.5 rounds to 1). */
    uint64_t m = (uint64_t)scaled;
    if (scaled - (double)m >= 0.5)
        m++;
    if (m == 0) {
        *p++ = '0'; /* never "-0" */
        return p;
    }
    if (v < 0)
        *p++ = '-';
    uint64_t unit = pow10_int[decimals];
    uint32_t frac = (uint32_t)(m % unit);
    p = proto_put_u64(p, m / unit);
    if (frac == 0)
        return p;
    /* All the decimals, then the trailing zeros dropped. */
    *p++ = '.';
    char *end = p + decimals;
    for (char *q = end; q > p;) {
        if (frac >= 10 && q - p >= 2) {
            q -= 2;
            memcpy(q, digit_pairs + 2 * (frac % 100), 2);
            frac /= 100;
        } else {
            *--q = (char)('0' + frac % 10);
            frac /= 10;
        }
    }
    while (end[-1] == '0')
        end--;
    return end;
}

void proto_buf_append_fixed(proto_buf *b, double v, int decimals)
{
    if (!proto_buf_reserve(b, 26))
        return;
    b->len = (size_t)(proto_put_fixed(b->data + b->len, v, decimals) - b->data);
}

void proto_buf_append_fixed_array(proto_buf *b, const double *v, int n, int decimals)
{
    proto_buf_append_char(b, '[');
    for (int i = 0; i < n; i++) {
        if (i)
            proto_buf_append_char(b, ',');
        proto_buf_append_fixed(b, v[i], decimals);
    }
    proto_buf_append_char(b, ']');
}

void proto_buf_append_fixed_points(proto_buf *b, const double (*p)[3], int n, int dim,
                                   int decimals)
{
    proto_buf_append_char(b, '[');
    for (int i = 0; i < n; i++) {
        if (i)
            proto_buf_append_char(b, ',');
        proto_buf_append_fixed_array(b, p[i], dim, decimals);
    }
    proto_buf_append_char(b, ']');
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
