/* mink_proto writers: the fixed-point number writer of `state` (no printf on the hot path),
 * JSON string escapes, and every server message. Each line is read back with cJSON, as a client
 * would, and must carry the fields PROTOCOL.md gives it, with vectors of the world's dim and
 * numbers within the stated precision (0.1 mm for positions, 1e-4 for rotations, 1 mm/s for
 * velocities). */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mink_proto.h"
#include "check_main.h"

/* ---- helpers ---- */

static char text[1 << 16];

/* The buffer's contents as a C string (the buffer itself is not terminated). */
static const char *contents(const proto_buf *b)
{
    ck_assert(!b->failed);
    ck_assert_uint_lt(b->len, sizeof text);
    if (b->len) memcpy(text, b->data, b->len);
    text[b->len] = '\0';
    return text;
}

static const char *fixed(double v, int decimals)
{
    proto_buf b;
    proto_buf_init(&b);
    proto_buf_append_fixed(&b, v, decimals);
    contents(&b);
    proto_buf_free(&b);
    return text;
}

static const char *json_string(const char *s)
{
    proto_buf b;
    proto_buf_init(&b);
    proto_buf_append_json_string(&b, s);
    contents(&b);
    proto_buf_free(&b);
    return text;
}

/* One whole line: exactly one '\n', at the end, no '\r', valid UTF-8, one JSON object. */
static cJSON *parse_line(const proto_buf *b)
{
    ck_assert(!b->failed);
    ck_assert_uint_gt(b->len, 1);
    ck_assert_int_eq(b->data[b->len - 1], '\n');
    ck_assert_msg(memchr(b->data, '\n', b->len) == b->data + b->len - 1,
                  "more than one '\\n' in a line");
    ck_assert_msg(memchr(b->data, '\r', b->len) == NULL, "'\\r' in a line");
    ck_assert(proto_utf8_valid(b->data, b->len));
    char *s = malloc(b->len);
    ck_assert_ptr_nonnull(s);
    memcpy(s, b->data, b->len - 1);
    s[b->len - 1] = '\0';
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithOpts(s, &end, 1);
    ck_assert_msg(j != NULL, "not one JSON value: %s", s);
    free(s);
    ck_assert(cJSON_IsObject(j));
    return j;
}

static const cJSON *field(const cJSON *j, const char *key)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, key);
    ck_assert_msg(f != NULL, "no field \"%s\"", key);
    return f;
}

static bool has(const cJSON *j, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(j, key) != NULL;
}

static double num(const cJSON *j, const char *key)
{
    const cJSON *f = field(j, key);
    ck_assert_msg(cJSON_IsNumber(f), "\"%s\" is not a number", key);
    return f->valuedouble;
}

static const char *str(const cJSON *j, const char *key)
{
    const cJSON *f = field(j, key);
    ck_assert_msg(cJSON_IsString(f), "\"%s\" is not a string", key);
    return f->valuestring;
}

/* An array of n numbers, each within tol of expect. */
static void assert_numbers(const cJSON *a, int n, const double *expect, double tol)
{
    ck_assert(cJSON_IsArray(a));
    ck_assert_int_eq(cJSON_GetArraySize(a), n);
    for (int i = 0; i < n; i++) {
        const cJSON *x = cJSON_GetArrayItem(a, i);
        ck_assert(cJSON_IsNumber(x));
        ck_assert_msg(fabs(x->valuedouble - expect[i]) <= tol, "[%d]: %.17g, expected %.17g",
                      i, x->valuedouble, expect[i]);
    }
}

static void assert_vec(const cJSON *j, const char *key, int n, const double *expect, double tol)
{
    assert_numbers(field(j, key), n, expect, tol);
}

/* xorshift64*: the same numbers on every platform, unlike rand(). */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rng_next() >> 11) / 9007199254740992.0);
}

/* A component for the round trips: usually moderate, sometimes near the limit, sometimes
 * within a rounding step of zero (where "-0" would appear). */
static double component(double limit)
{
    uint64_t k = rng_next() % 10;
    if (k == 0) return uniform(-limit, limit);
    if (k == 1) return uniform(-1e-4, 1e-4);
    return uniform(-100, 100);
}

/* True when `s` contains the number -0 (as "-0" followed by a delimiter or the end). */
static bool has_negative_zero(const char *s)
{
    for (const char *p = strstr(s, "-0"); p; p = strstr(p + 1, "-0")) {
        char c = p[2];
        bool digit_before = p > s && p[-1] >= '0' && p[-1] <= '9';
        if (!digit_before && (c == ',' || c == ']' || c == '}' || c == '\0' || c == '\n'))
            return true;
    }
    return false;
}

/* ---- proto_buf ---- */

START_TEST(buf_basics)
{
    proto_buf b;
    proto_buf_init(&b);
    ck_assert_uint_eq(b.len, 0);
    ck_assert(!b.failed);
    proto_buf_append(&b, "abc", 3);
    proto_buf_append_char(&b, 'd');
    proto_buf_append_str(&b, "ef");
    proto_buf_append(&b, "zzz", 0);
    proto_buf_append_str(&b, "");
    ck_assert_uint_eq(b.len, 6);
    ck_assert_str_eq(contents(&b), "abcdef");

    size_t cap = b.cap;
    char *data = b.data;
    proto_buf_clear(&b);
    ck_assert_uint_eq(b.len, 0);
    ck_assert(!b.failed);
    ck_assert_uint_eq(b.cap, cap); /* the memory is kept */
    ck_assert_ptr_eq(b.data, data);
    proto_buf_append_str(&b, "x");
    ck_assert_str_eq(contents(&b), "x");

    ck_assert(proto_buf_reserve(&b, 100000));
    ck_assert_uint_ge(b.cap - b.len, 100000);
    ck_assert_str_eq(contents(&b), "x");
    proto_buf_free(&b);

    /* A megabyte in small appends: every byte in place, never failed. */
    proto_buf_init(&b);
    for (int i = 0; i < (1 << 20) / 8; i++) proto_buf_append(&b, "01234567", 8);
    ck_assert(!b.failed);
    ck_assert_uint_eq(b.len, 1u << 20);
    for (size_t i = 0; i < b.len; i++)
        if (b.data[i] != (char)('0' + i % 8)) ck_abort_msg("byte %zu is wrong", i);
    proto_buf_free(&b);
}
END_TEST

START_TEST(buf_failure_is_sticky_until_clear)
{
    proto_buf b;
    proto_buf_init(&b);
    proto_buf_append_str(&b, "keep");
    /* No allocator can give SIZE_MAX more bytes. */
    ck_assert(!proto_buf_reserve(&b, SIZE_MAX));
    ck_assert(b.failed);
    ck_assert_uint_eq(b.len, 4);
    ck_assert_int_eq(memcmp(b.data, "keep", 4), 0);
    /* Later appends leave the contents as they were, so a half-written line is never sent. */
    proto_buf_append_str(&b, "more");
    proto_buf_append_u64(&b, 5);
    proto_buf_append_fixed(&b, 1.5, 4);
    ck_assert(b.failed);
    ck_assert_uint_eq(b.len, 4);
    proto_buf_clear(&b);
    ck_assert(!b.failed);
    ck_assert_uint_eq(b.len, 0);
    proto_buf_append_str(&b, "ok");
    ck_assert_str_eq(contents(&b), "ok");
    proto_buf_free(&b);
}
END_TEST

/* ---- numbers ---- */

START_TEST(fixed_exact_strings)
{
    ck_assert_str_eq(fixed(1.5, 4), "1.5");
    ck_assert_str_eq(fixed(-0.25, 4), "-0.25");
    ck_assert_str_eq(fixed(3, 4), "3");
    ck_assert_str_eq(fixed(0, 4), "0");
    ck_assert_str_eq(fixed(100, 4), "100");
    ck_assert_str_eq(fixed(1000000, 3), "1000000");
    ck_assert_str_eq(fixed(-1000000, 4), "-1000000");
    ck_assert_str_eq(fixed(0.5, 1), "0.5");
    ck_assert_str_eq(fixed(-0.5, 3), "-0.5");
    ck_assert_str_eq(fixed(-0.05, 2), "-0.05");
    ck_assert_str_eq(fixed(10.05, 4), "10.05");
    ck_assert_str_eq(fixed(0.1, 9), "0.1");
    ck_assert_str_eq(fixed(0.123456789, 9), "0.123456789");
    ck_assert_str_eq(fixed(1.000000001, 9), "1.000000001");
    ck_assert_str_eq(fixed(1e-9, 9), "0.000000001");
    ck_assert_str_eq(fixed(1e-4, 4), "0.0001");
    ck_assert_str_eq(fixed(-1e-4, 4), "-0.0001");
    ck_assert_str_eq(fixed(999999.9999, 4), "999999.9999");
    /* Rounding, away from ties. */
    ck_assert_str_eq(fixed(2.71828, 4), "2.7183");
    ck_assert_str_eq(fixed(-2.71828, 4), "-2.7183");
    ck_assert_str_eq(fixed(123.456, 2), "123.46");
    ck_assert_str_eq(fixed(0.000051, 4), "0.0001");
    ck_assert_str_eq(fixed(3.00004, 4), "3");
    ck_assert_str_eq(fixed(0.0999999, 4), "0.1");
    /* A carry through every digit. */
    ck_assert_str_eq(fixed(9.99996, 4), "10");
    ck_assert_str_eq(fixed(-1.99996, 4), "-2");
    ck_assert_str_eq(fixed(99.9996, 3), "100");
    /* Zero decimals. */
    ck_assert_str_eq(fixed(42, 0), "42");
    ck_assert_str_eq(fixed(2.6, 0), "3");
    ck_assert_str_eq(fixed(-2.6, 0), "-3");
    ck_assert_str_eq(fixed(-7.2, 0), "-7");
    /* Never "-0". */
    ck_assert_str_eq(fixed(-0.0, 4), "0");
    ck_assert_str_eq(fixed(-0.00001, 4), "0");
    ck_assert_str_eq(fixed(-0.00004, 4), "0");
    ck_assert_str_eq(fixed(-0.4, 0), "0");
    ck_assert_str_eq(fixed(-4e-10, 9), "0");
    ck_assert_str_eq(fixed(-6e-10, 9), "-0.000000001");
    ck_assert_str_eq(fixed(1e-9, 4), "0");
    ck_assert_str_eq(fixed(5e-324, 9), "0");
    /* Large values, exact in binary. */
    ck_assert_str_eq(fixed(1e15, 4), "1000000000000000");
    ck_assert_str_eq(fixed(-1e15, 4), "-1000000000000000");
    ck_assert_str_eq(fixed(1e15 + 0.5, 1), "1000000000000000.5");
    /* Not finite: written as 0. */
    ck_assert_str_eq(fixed(INFINITY, 4), "0");
    ck_assert_str_eq(fixed(-INFINITY, 3), "0");
    ck_assert_str_eq(fixed(NAN, 4), "0");
}
END_TEST

START_TEST(fixed_just_below_a_half_rounds_down)
{
    /* The largest double below 0.5 rounds down; adding 0.5 and truncating would give 1. */
    ck_assert_str_eq(fixed(0.49999999999999994, 0), "0");
    ck_assert_str_eq(fixed(-0.49999999999999994, 0), "0");
    ck_assert_str_eq(fixed(2.4999999999999996, 0), "2");
}
END_TEST

START_TEST(fixed_large_odd_integers_are_exact)
{
    /* 2^52 + 1 is an integer: rounded to 0 places it is itself. Between 2^52 and 2^53 a double
     * has no halves, so adding 0.5 rounds to even instead. */
    ck_assert_str_eq(fixed(4503599627370497.0, 0), "4503599627370497");
    ck_assert_str_eq(fixed(-4503599627370497.0, 0), "-4503599627370497");
    ck_assert_str_eq(fixed(4503599627370499.0, 0), "4503599627370499");
}
END_TEST

START_TEST(fixed_appends_to_what_is_there)
{
    proto_buf b;
    proto_buf_init(&b);
    proto_buf_append_char(&b, '[');
    proto_buf_append_fixed(&b, 1.25, 4);
    proto_buf_append_char(&b, ',');
    proto_buf_append_fixed(&b, -3, 4);
    proto_buf_append_char(&b, ']');
    ck_assert_str_eq(contents(&b), "[1.25,-3]");
    proto_buf_free(&b);
}
END_TEST

START_TEST(fixed_huge_values_round_trip)
{
    /* Too large for fixed point: written so that the same double reads back. */
    static const double huge[] = {1e20, -1e20, 1e300, -1.2345678901234567e200,
                                  1.7976931348623157e308};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        const char *s = fixed(huge[i], 4);
        ck_assert_msg(strstr(s, "inf") == NULL && strstr(s, "nan") == NULL, "%s", s);
        cJSON *j = cJSON_Parse(s);
        ck_assert_msg(j != NULL && cJSON_IsNumber(j), "%s is not a JSON number", s);
        cJSON_Delete(j);
        char *end = NULL;
        double back = strtod(s, &end);
        ck_assert(*end == '\0');
        ck_assert_msg(back == huge[i], "%s reads back as %.17g, expected %.17g", s, back,
                      huge[i]);
    }
}
END_TEST

/* A JSON number by RFC 8259's grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static bool json_number_grammar(const char *s)
{
    if (*s == '-') s++;
    if (*s == '0') {
        s++;
    } else if (*s >= '1' && *s <= '9') {
        while (*s >= '0' && *s <= '9') s++;
    } else {
        return false;
    }
    if (*s == '.') {
        s++;
        if (!(*s >= '0' && *s <= '9')) return false;
        while (*s >= '0' && *s <= '9') s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (!(*s >= '0' && *s <= '9')) return false;
        while (*s >= '0' && *s <= '9') s++;
    }
    return *s == '\0';
}

START_TEST(fixed_random_values)
{
    static const double ten_to[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
    rng_state = 20240601;
    for (int i = 0; i < 10000; i++) {
        int decimals = (int)(rng_next() % 10);
        double scale = pow(10.0, (double)((int)(rng_next() % 13) - 6));
        double v = uniform(-1, 1) * scale;
        const char *s = fixed(v, decimals);
        ck_assert_msg(json_number_grammar(s), "%.17g at %d: \"%s\" is not a JSON number", v,
                      decimals, s);
        ck_assert_msg(strcmp(s, "-0") != 0, "%.17g at %d: \"-0\"", v, decimals);
        /* Plain fixed point with trailing zeros dropped and at most `decimals` places. */
        ck_assert_msg(strpbrk(s, "eE") == NULL, "%.17g at %d: %s", v, decimals, s);
        const char *dot = strchr(s, '.');
        if (dot) {
            size_t places = strlen(dot + 1);
            ck_assert_msg(places >= 1 && places <= (size_t)decimals, "%.17g at %d: %s", v,
                          decimals, s);
            ck_assert_msg(s[strlen(s) - 1] != '0', "%.17g at %d: trailing zero in %s", v,
                          decimals, s);
        }
        double back = strtod(s, NULL);
        double tol = 0.5 / ten_to[decimals] + fabs(v) * 1e-15 + 1e-300;
        ck_assert_msg(fabs(back - v) <= tol, "%.17g at %d decimals written as %s", v, decimals,
                      s);
    }
}
END_TEST

START_TEST(integers)
{
    proto_buf b;
    proto_buf_init(&b);
    proto_buf_append_u64(&b, 0);
    ck_assert_str_eq(contents(&b), "0");
    proto_buf_clear(&b);
    proto_buf_append_u64(&b, 10);
    ck_assert_str_eq(contents(&b), "10");
    proto_buf_clear(&b);
    proto_buf_append_u64(&b, UINT64_C(9007199254740992));
    ck_assert_str_eq(contents(&b), "9007199254740992");
    proto_buf_clear(&b);
    proto_buf_append_u64(&b, UINT64_MAX);
    ck_assert_str_eq(contents(&b), "18446744073709551615");
    proto_buf_clear(&b);
    proto_buf_append_i64(&b, 0);
    ck_assert_str_eq(contents(&b), "0");
    proto_buf_clear(&b);
    proto_buf_append_i64(&b, -1);
    ck_assert_str_eq(contents(&b), "-1");
    proto_buf_clear(&b);
    proto_buf_append_i64(&b, -10);
    ck_assert_str_eq(contents(&b), "-10");
    proto_buf_clear(&b);
    proto_buf_append_i64(&b, 42);
    ck_assert_str_eq(contents(&b), "42");
    proto_buf_clear(&b);
    proto_buf_append_i64(&b, INT64_MAX);
    ck_assert_str_eq(contents(&b), "9223372036854775807");
    proto_buf_clear(&b);
    proto_buf_append_i64(&b, INT64_MIN);
    ck_assert_str_eq(contents(&b), "-9223372036854775808");
    proto_buf_clear(&b);
    /* Appends, one after another. */
    proto_buf_append_u64(&b, 7);
    proto_buf_append_char(&b, ',');
    proto_buf_append_i64(&b, -7);
    ck_assert_str_eq(contents(&b), "7,-7");
    proto_buf_free(&b);
}
END_TEST

START_TEST(json_strings)
{
    ck_assert_str_eq(json_string(""), "\"\"");
    ck_assert_str_eq(json_string("plain text"), "\"plain text\"");
    ck_assert_str_eq(json_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
    ck_assert_str_eq(json_string("line\nnext\ttab"), "\"line\\nnext\\ttab\"");
    ck_assert_str_eq(json_string("\x01"), "\"\\u0001\"");
    const char *s = json_string("\x1f");
    ck_assert_msg(strcmp(s, "\"\\u001f\"") == 0 || strcmp(s, "\"\\u001F\"") == 0, "%s", s);
    /* UTF-8 goes through as it is. */
    ck_assert_str_eq(json_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
                     "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");

    /* Every control character comes out escaped and reads back as itself. */
    char all[40];
    for (int i = 1; i < 32; i++) all[i - 1] = (char)i;
    all[31] = '"';
    all[32] = '\\';
    all[33] = '/';
    all[34] = 0x7f;
    all[35] = '\0';
    s = json_string(all);
    for (const char *p = s; *p; p++)
        ck_assert_msg((unsigned char)*p >= 0x20, "raw control byte 0x%02x in %s", *p, s);
    cJSON *j = cJSON_Parse(s);
    ck_assert_ptr_nonnull(j);
    ck_assert(cJSON_IsString(j));
    ck_assert_str_eq(j->valuestring, all);
    cJSON_Delete(j);
}
END_TEST

/* ---- messages ---- */

START_TEST(welcome)
{
    proto_buf b;
    proto_buf_init(&b);
    proto_welcome w = {.client = 3,
                       .dim = 2,
                       .tick = 100,
                       .tick_hz = 60,
                       .snapshot_hz = 20,
                       .gravity = {0, -10, 0},
                       .has_avatar = true,
                       .avatar = 7};
    proto_write_welcome(&b, &w);
    cJSON *j = parse_line(&b);
    ck_assert_str_eq(str(j, "type"), "welcome");
    ck_assert_double_eq(num(j, "protocol"), 1);
    ck_assert_double_eq(num(j, "client"), 3);
    ck_assert_double_eq(num(j, "dim"), 2);
    ck_assert_double_eq(num(j, "tick"), 100);
    ck_assert_double_eq_tol(num(j, "tick_hz"), 60, 1e-9);
    ck_assert_double_eq_tol(num(j, "snapshot_hz"), 20, 1e-9);
    assert_vec(j, "gravity", 2, (double[]){0, -10}, 1e-9);
    ck_assert_double_eq(num(j, "avatar"), 7);
    cJSON_Delete(j);

    proto_buf_clear(&b);
    w = (proto_welcome){.client = 4000000000u,
                        .dim = 3,
                        .tick = UINT64_C(9007199254740992),
                        .tick_hz = 62.5,
                        .snapshot_hz = 12.5,
                        .gravity = {0.5, -9.75, 0.25},
                        .has_avatar = false};
    proto_write_welcome(&b, &w);
    j = parse_line(&b);
    ck_assert_str_eq(str(j, "type"), "welcome");
    ck_assert_double_eq(num(j, "client"), 4000000000.0);
    ck_assert_double_eq(num(j, "dim"), 3);
    ck_assert_double_eq(num(j, "tick"), 9007199254740992.0);
    ck_assert_double_eq_tol(num(j, "tick_hz"), 62.5, 1e-9);
    ck_assert_double_eq_tol(num(j, "snapshot_hz"), 12.5, 1e-9);
    assert_vec(j, "gravity", 3, (double[]){0.5, -9.75, 0.25}, 1e-9);
    ck_assert(!has(j, "avatar"));
    cJSON_Delete(j);
    proto_buf_free(&b);
}
END_TEST

START_TEST(error_line)
{
    proto_buf b;
    proto_buf_init(&b);
    const char *message = "body.tag: \"x\\y\"\nnot\tallowed";
    proto_write_error(&b, PROTO_ERR_BAD_REQUEST, message, "{\"id\":1,\"k\":[1,2]}");
    cJSON *j = parse_line(&b);
    ck_assert_str_eq(str(j, "type"), "error");
    ck_assert_str_eq(str(j, "code"), "bad_request");
    ck_assert_str_eq(str(j, "message"), message);
    const cJSON *req = field(j, "req");
    ck_assert(cJSON_IsObject(req));
    ck_assert_double_eq(num(req, "id"), 1);
    assert_vec(req, "k", 2, (double[]){1, 2}, 0);
    cJSON_Delete(j);

    /* Without a req there is none in the answer. */
    proto_buf_clear(&b);
    proto_write_error(&b, PROTO_ERR_LINE_TOO_LONG, "line longer than 65536 bytes", NULL);
    j = parse_line(&b);
    ck_assert_str_eq(str(j, "type"), "error");
    ck_assert_str_eq(str(j, "code"), "line_too_long");
    ck_assert_str_eq(str(j, "message"), "line longer than 65536 bytes");
    ck_assert(!has(j, "req"));
    cJSON_Delete(j);

    /* A req that was a string or null is echoed as that value. */
    proto_buf_clear(&b);
    proto_write_error(&b, PROTO_ERR_NOT_FOUND, "id: no such body", "\"r-1\"");
    j = parse_line(&b);
    ck_assert_str_eq(str(j, "code"), "not_found");
    ck_assert_str_eq(str(j, "req"), "r-1");
    cJSON_Delete(j);
    proto_buf_clear(&b);
    proto_write_error(&b, PROTO_ERR_QUOTA, "too many bodies", "null");
    j = parse_line(&b);
    ck_assert_str_eq(str(j, "code"), "quota");
    ck_assert(cJSON_IsNull(field(j, "req")));
    cJSON_Delete(j);

    /* Every code by its wire name. */
    for (int c = PROTO_ERR_BAD_JSON; c <= PROTO_ERR_LAST; c++) {
        proto_buf_clear(&b);
        proto_write_error(&b, (proto_error_code)c, "m", NULL);
        j = parse_line(&b);
        ck_assert_str_eq(str(j, "code"), proto_error_name((proto_error_code)c));
        cJSON_Delete(j);
    }
    proto_buf_free(&b);
}
END_TEST

START_TEST(spawned_and_despawned)
{
    proto_buf b;
    proto_buf_init(&b);
    proto_write_spawned(&b, "\"a\"", 42);
    cJSON *j = parse_line(&b);
    ck_assert_str_eq(str(j, "type"), "spawned");
    ck_assert_str_eq(str(j, "req"), "a");
    ck_assert_double_eq(num(j, "id"), 42);
    cJSON_Delete(j);

    proto_buf_clear(&b);
    proto_write_spawned(&b, NULL, UINT64_C(9007199254740992));
    j = parse_line(&b);
    ck_assert_str_eq(str(j, "type"), "spawned");
    ck_assert_double_eq(num(j, "id"), 9007199254740992.0);
    ck_assert(!has(j, "req") || cJSON_IsNull(field(j, "req")));
    cJSON_Delete(j);
    /* Ids are written as integers, digit for digit. */
    ck_assert_ptr_nonnull(strstr(contents(&b), "9007199254740992"));

    proto_buf_clear(&b);
    proto_write_despawned(&b, "{\"n\":[true,null]}", 7);
    j = parse_line(&b);
    ck_assert_str_eq(str(j, "type"), "despawned");
    ck_assert_double_eq(num(j, "id"), 7);
    const cJSON *req = field(j, "req");
    ck_assert(cJSON_IsObject(req));
    const cJSON *n = field(req, "n");
    ck_assert_int_eq(cJSON_GetArraySize(n), 2);
    ck_assert(cJSON_IsTrue(cJSON_GetArrayItem(n, 0)));
    ck_assert(cJSON_IsNull(cJSON_GetArrayItem(n, 1)));
    cJSON_Delete(j);

    proto_buf_clear(&b);
    proto_write_despawned(&b, NULL, UINT64_C(12345678901234567));
    j = parse_line(&b);
    ck_assert_str_eq(str(j, "type"), "despawned");
    cJSON_Delete(j);
    ck_assert_ptr_nonnull(strstr(contents(&b), "12345678901234567"));
    proto_buf_free(&b);
}
END_TEST

START_TEST(pong_echoes_t)
{
    proto_buf b;
    proto_buf_init(&b);
    proto_write_pong(&b, "{\"a\":[1,2]}", 99);
    ck_assert_ptr_nonnull(strstr(contents(&b), "{\"a\":[1,2]}"));
    cJSON *j = parse_line(&b);
    ck_assert_str_eq(str(j, "type"), "pong");
    ck_assert_double_eq(num(j, "tick"), 99);
    const cJSON *t = field(j, "t");
    ck_assert(cJSON_IsObject(t));
    assert_vec(t, "a", 2, (double[]){1, 2}, 0);
    cJSON_Delete(j);

    proto_buf_clear(&b);
    proto_write_pong(&b, "\"hi\"", 0);
    j = parse_line(&b);
    ck_assert_str_eq(str(j, "t"), "hi");
    ck_assert_double_eq(num(j, "tick"), 0);
    cJSON_Delete(j);

    proto_buf_clear(&b);
    proto_write_pong(&b, "null", 5);
    j = parse_line(&b);
    ck_assert(cJSON_IsNull(field(j, "t")));
    cJSON_Delete(j);

    proto_buf_clear(&b);
    proto_write_pong(&b, "1712345678.25", 5);
    j = parse_line(&b);
    ck_assert_double_eq(num(j, "t"), 1712345678.25);
    cJSON_Delete(j);
    proto_buf_free(&b);
}
END_TEST

/* A point list [[x, y(, z)], ...] of n points. */
static void assert_points(const cJSON *a, int n, int dim, const double (*expect)[3], double tol)
{
    ck_assert(cJSON_IsArray(a));
    ck_assert_int_eq(cJSON_GetArraySize(a), n);
    for (int i = 0; i < n; i++) assert_numbers(cJSON_GetArrayItem(a, i), dim, expect[i], tol);
}

START_TEST(result_hit_and_miss)
{
    proto_buf b;
    proto_buf_init(&b);
    proto_result r = {.hit = true,
                      .depth = 0.25,
                      .normal = {0, 1, 0},
                      .npoints = 2,
                      .points = {{0.5, -0.25, 0}, {-0.5, -0.25, 0}}};
    proto_write_result(&b, "7", 2, &r);
    cJSON *j = parse_line(&b);
    ck_assert_str_eq(str(j, "type"), "result");
    ck_assert_double_eq(num(j, "req"), 7);
    ck_assert(cJSON_IsTrue(field(j, "hit")));
    ck_assert_double_eq_tol(num(j, "depth"), 0.25, 1e-9);
    assert_vec(j, "normal", 2, (double[]){0, 1}, 1e-9);
    assert_points(field(j, "points"), 2, 2, (const double[][3]){{0.5, -0.25}, {-0.5, -0.25}},
                  1e-9);
    ck_assert(!has(j, "distance"));
    cJSON_Delete(j);

    proto_buf_clear(&b);
    r = (proto_result){.hit = true,
                       .depth = 0.125,
                       .normal = {0, 0, -1},
                       .npoints = 4,
                       .points = {{1, 2, 3}, {-1, 2, 3}, {-1, -2, 3}, {1, -2, 3.5}}};
    proto_write_result(&b, "{\"q\":1}", 3, &r);
    j = parse_line(&b);
    ck_assert(cJSON_IsTrue(field(j, "hit")));
    ck_assert(cJSON_IsObject(field(j, "req")));
    ck_assert_double_eq_tol(num(j, "depth"), 0.125, 1e-9);
    assert_vec(j, "normal", 3, (double[]){0, 0, -1}, 1e-9);
    assert_points(field(j, "points"), 4, 3,
                  (const double[][3]){{1, 2, 3}, {-1, 2, 3}, {-1, -2, 3}, {1, -2, 3.5}}, 1e-9);
    cJSON_Delete(j);

    /* A miss: the gap and its direction, depth 0, no points. */
    proto_buf_clear(&b);
    r = (proto_result){.hit = false, .distance = 1.5, .normal = {0.6, -0.8}};
    proto_write_result(&b, "\"m\"", 2, &r);
    j = parse_line(&b);
    ck_assert_str_eq(str(j, "type"), "result");
    ck_assert_str_eq(str(j, "req"), "m");
    ck_assert(cJSON_IsFalse(field(j, "hit")));
    ck_assert_double_eq_tol(num(j, "distance"), 1.5, 1e-9);
    ck_assert(cJSON_IsArray(field(j, "points")));
    ck_assert_int_eq(cJSON_GetArraySize(field(j, "points")), 0);
    ck_assert_double_eq(num(j, "depth"), 0);
    assert_vec(j, "normal", 2, (double[]){0.6, -0.8}, 1e-9);
    cJSON_Delete(j);

    proto_buf_clear(&b);
    r = (proto_result){.hit = false, .distance = 0.0625};
    proto_write_result(&b, "1", 3, &r);
    j = parse_line(&b);
    ck_assert(cJSON_IsFalse(field(j, "hit")));
    ck_assert_double_eq_tol(num(j, "distance"), 0.0625, 1e-9);
    ck_assert_int_eq(cJSON_GetArraySize(field(j, "points")), 0);
    ck_assert_double_eq(num(j, "depth"), 0);
    assert_vec(j, "normal", 3, (double[]){0, 0, 0}, 0);
    cJSON_Delete(j);
    proto_buf_free(&b);
}
END_TEST

/* ---- state ---- */

START_TEST(state_2d_with_everything)
{
    proto_buf b;
    proto_buf_init(&b);
    proto_state_begin(&b, 10, 4);
    proto_body_state s1 = {.id = 1, .pos = {1.5, -2.25}, .rot = {0.5}, .vel = {0.125, 0},
                           .w = {0.75}};
    proto_state_body(&b, 2, &s1, true);
    proto_shape circle = {.type = PROTO_SHAPE_CIRCLE, .radius = 0.5};
    proto_state_body_first(&b, 2, &circle, PROTO_KIND_DYNAMIC, 3, "ball \"7\"");
    proto_state_body_end(&b);
    proto_body_state s2 = {.id = 2, .pos = {0, 0}, .rot = {-1}, .vel = {0, -9.81}, .w = {0}};
    proto_state_body(&b, 2, &s2, false);
    proto_state_body_end(&b);
    proto_state_bodies_end(&b);
    uint64_t removed[] = {5, 9};
    proto_state_removed(&b, removed, 2);
    proto_state_contacts_begin(&b);
    proto_contact c = {.a = 1,
                       .b = 2,
                       .normal = {0, 1},
                       .npoints = 2,
                       .points = {{0, -0.5}, {0.25, -0.5}},
                       .depths = {0.01, 0.02},
                       .ids = {0x10, 0x40000102u}};
    proto_state_contact(&b, 2, &c, true);
    proto_contact c2 = {.a = 2, .b = 7, .normal = {-1, 0}, .npoints = 1,
                        .points = {{3, 4}}, .depths = {0.5}};
    proto_state_contact(&b, 2, &c2, false);
    proto_state_contacts_end(&b);
    proto_state_end(&b);

    cJSON *j = parse_line(&b);
    ck_assert_str_eq(str(j, "type"), "state");
    ck_assert_double_eq(num(j, "tick"), 10);
    ck_assert_double_eq(num(j, "ack"), 4);
    const cJSON *bodies = field(j, "bodies");
    ck_assert_int_eq(cJSON_GetArraySize(bodies), 2);

    const cJSON *b1 = cJSON_GetArrayItem(bodies, 0);
    ck_assert_double_eq(num(b1, "id"), 1);
    assert_vec(b1, "pos", 2, (double[]){1.5, -2.25}, 1e-9);
    ck_assert_double_eq_tol(num(b1, "rot"), 0.5, 1e-9); /* a number in 2D */
    assert_vec(b1, "vel", 2, (double[]){0.125, 0}, 1e-9);
    ck_assert_double_eq_tol(num(b1, "w"), 0.75, 1e-9);
    const cJSON *shape = field(b1, "shape");
    ck_assert_str_eq(str(shape, "type"), "circle");
    ck_assert_double_eq_tol(num(shape, "radius"), 0.5, 1e-9);
    ck_assert_str_eq(str(b1, "kind"), "dynamic");
    ck_assert_double_eq(num(b1, "owner"), 3);
    ck_assert_str_eq(str(b1, "tag"), "ball \"7\"");

    const cJSON *b2 = cJSON_GetArrayItem(bodies, 1);
    ck_assert_double_eq(num(b2, "id"), 2);
    assert_vec(b2, "pos", 2, (double[]){0, 0}, 1e-9);
    ck_assert_double_eq_tol(num(b2, "rot"), -1, 1e-9);
    assert_vec(b2, "vel", 2, (double[]){0, -9.81}, 1e-9);
    ck_assert_double_eq_tol(num(b2, "w"), 0, 1e-9);
    /* Seen before: no first-sighting fields. */
    ck_assert(!has(b2, "shape"));
    ck_assert(!has(b2, "kind"));
    ck_assert(!has(b2, "owner"));
    ck_assert(!has(b2, "tag"));

    assert_vec(j, "removed", 2, (double[]){5, 9}, 0);

    const cJSON *contacts = field(j, "contacts");
    ck_assert_int_eq(cJSON_GetArraySize(contacts), 2);
    const cJSON *k = cJSON_GetArrayItem(contacts, 0);
    ck_assert_double_eq(num(k, "a"), 1);
    ck_assert_double_eq(num(k, "b"), 2);
    assert_vec(k, "normal", 2, (double[]){0, 1}, 1e-9);
    const cJSON *pts = field(k, "points");
    ck_assert_int_eq(cJSON_GetArraySize(pts), 2);
    assert_vec(cJSON_GetArrayItem(pts, 0), "pos", 2, (double[]){0, -0.5}, 1e-9);
    ck_assert_double_eq_tol(num(cJSON_GetArrayItem(pts, 0), "depth"), 0.01, 0.5e-4);
    assert_vec(cJSON_GetArrayItem(pts, 1), "pos", 2, (double[]){0.25, -0.5}, 1e-9);
    ck_assert_double_eq_tol(num(cJSON_GetArrayItem(pts, 1), "depth"), 0.02, 0.5e-4);
    /* Feature ids go out whole, as unsigned integers. */
    ck_assert_double_eq(num(cJSON_GetArrayItem(pts, 0), "id"), 16);
    ck_assert_double_eq(num(cJSON_GetArrayItem(pts, 1), "id"), 1073742082.0);
    k = cJSON_GetArrayItem(contacts, 1);
    ck_assert_double_eq(num(k, "a"), 2);
    ck_assert_double_eq(num(k, "b"), 7);
    assert_vec(k, "normal", 2, (double[]){-1, 0}, 1e-9);
    pts = field(k, "points");
    ck_assert_int_eq(cJSON_GetArraySize(pts), 1);
    assert_vec(cJSON_GetArrayItem(pts, 0), "pos", 2, (double[]){3, 4}, 1e-9);
    ck_assert_double_eq_tol(num(cJSON_GetArrayItem(pts, 0), "depth"), 0.5, 0.5e-4);
    cJSON_Delete(j);
    proto_buf_free(&b);
}
END_TEST

START_TEST(compact_body_entries)
{
    /* The same states as arrays: id, pos, rot, vel, w, at the object form's precisions, and
     * a tiny negative rounds to 0, never "-0". */
    proto_buf b;
    proto_buf_init(&b);
    proto_body_state s2 = {.id = 12, .pos = {1.23456, -0.5}, .rot = {0.25},
                           .vel = {3.0004, -2}, .w = {-0.00004}};
    proto_state_body_compact(&b, 2, &s2);
    proto_body_state s3 = {.id = 77, .pos = {1, 2.5, -3}, .rot = {0, 0.6, 0, 0.8},
                           .vel = {0.5, 0, -0.25}, .w = {0.1, -0.2, 0.3}};
    proto_state_body_compact(&b, 3, &s3);
    ck_assert_int_eq(b.failed, 0);
    proto_buf_append_char(&b, '\0');
    ck_assert_str_eq(b.data, ",[12,1.2346,-0.5,0.25,3,-2,0]" /* never "-0" */
                             ",[77,1,2.5,-3,0,0.6,0,0.8,0.5,0,-0.25,0.1,-0.2,0.3]");
    proto_buf_free(&b);
}
END_TEST

START_TEST(state_3d_vectors_and_quaternions)
{
    proto_buf b;
    proto_buf_init(&b);
    proto_state_begin(&b, UINT64_C(123456789), 0);
    proto_body_state s = {.id = 77,
                          .pos = {1, 2.5, -3},
                          .rot = {0, 0.6, 0, 0.8},
                          .vel = {0.5, 0, -0.25},
                          .w = {0.1, -0.2, 0.3}};
    proto_state_body(&b, 3, &s, true);
    proto_shape box = {.type = PROTO_SHAPE_BOX, .half = {1, 2, 0.5}};
    proto_state_body_first(&b, 3, &box, PROTO_KIND_CHARACTER, 0, "");
    proto_state_body_end(&b);
    proto_state_bodies_end(&b);
    proto_state_removed(&b, NULL, 0); /* nothing removed: no field */
    proto_state_contacts_begin(&b);
    proto_contact c = {.a = 77,
                       .b = 78,
                       .normal = {0, -1, 0},
                       .npoints = 4,
                       .points = {{1, 0, 1}, {-1, 0, 1}, {-1, 0, -1}, {1, 0, -1}},
                       .depths = {0.001, 0.002, 0.003, 0.004}};
    proto_state_contact(&b, 3, &c, true);
    proto_state_contacts_end(&b);
    proto_state_end(&b);

    cJSON *j = parse_line(&b);
    ck_assert_str_eq(str(j, "type"), "state");
    ck_assert_double_eq(num(j, "tick"), 123456789);
    ck_assert_double_eq(num(j, "ack"), 0);
    ck_assert(!has(j, "removed"));
    const cJSON *b1 = cJSON_GetArrayItem(field(j, "bodies"), 0);
    ck_assert_ptr_nonnull(b1);
    ck_assert_double_eq(num(b1, "id"), 77);
    assert_vec(b1, "pos", 3, (double[]){1, 2.5, -3}, 1e-9);
    assert_vec(b1, "rot", 4, (double[]){0, 0.6, 0, 0.8}, 1e-9);
    assert_vec(b1, "vel", 3, (double[]){0.5, 0, -0.25}, 1e-9);
    assert_vec(b1, "w", 3, (double[]){0.1, -0.2, 0.3}, 1e-9);
    const cJSON *shape = field(b1, "shape");
    ck_assert_str_eq(str(shape, "type"), "box");
    assert_vec(shape, "half", 3, (double[]){1, 2, 0.5}, 1e-9);
    ck_assert_str_eq(str(b1, "kind"), "character");
    ck_assert_double_eq(num(b1, "owner"), 0);
    ck_assert_str_eq(str(b1, "tag"), "");
    const cJSON *k = cJSON_GetArrayItem(field(j, "contacts"), 0);
    assert_vec(k, "normal", 3, (double[]){0, -1, 0}, 1e-9);
    const cJSON *pts = field(k, "points");
    ck_assert_int_eq(cJSON_GetArraySize(pts), 4);
    assert_vec(cJSON_GetArrayItem(pts, 2), "pos", 3, (double[]){-1, 0, -1}, 1e-9);
    ck_assert_double_eq_tol(num(cJSON_GetArrayItem(pts, 3), "depth"), 0.004, 0.5e-4);
    cJSON_Delete(j);
    proto_buf_free(&b);
}
END_TEST

START_TEST(state_without_bodies_removed_or_contacts)
{
    proto_buf b;
    proto_buf_init(&b);
    proto_state_begin(&b, 1, 2);
    proto_state_bodies_end(&b);
    proto_state_end(&b);
    cJSON *j = parse_line(&b);
    ck_assert_str_eq(str(j, "type"), "state");
    ck_assert_double_eq(num(j, "tick"), 1);
    ck_assert_double_eq(num(j, "ack"), 2);
    ck_assert(cJSON_IsArray(field(j, "bodies")));
    ck_assert_int_eq(cJSON_GetArraySize(field(j, "bodies")), 0);
    ck_assert(!has(j, "removed"));
    ck_assert(!has(j, "contacts"));
    cJSON_Delete(j);

    /* Subscribed to contacts but none this tick: an empty list. */
    proto_buf_clear(&b);
    proto_state_begin(&b, 3, 0);
    proto_state_bodies_end(&b);
    uint64_t gone = UINT64_C(9007199254740992);
    proto_state_removed(&b, &gone, 1);
    proto_state_contacts_begin(&b);
    proto_state_contacts_end(&b);
    proto_state_end(&b);
    j = parse_line(&b);
    assert_vec(j, "removed", 1, (double[]){9007199254740992.0}, 0);
    ck_assert(cJSON_IsArray(field(j, "contacts")));
    ck_assert_int_eq(cJSON_GetArraySize(field(j, "contacts")), 0);
    cJSON_Delete(j);
    proto_buf_free(&b);
}
END_TEST

START_TEST(bodies_encoded_once_and_copied)
{
    /* Encode bodies into a shared buffer, not first in any list, then copy them into a state
     * after a body written directly. */
    proto_buf shared;
    proto_buf_init(&shared);
    proto_body_state s2 = {.id = 2, .pos = {2, 0}, .rot = {0}, .vel = {0, 0}, .w = {0}};
    proto_body_state s3 = {.id = 3, .pos = {3, 0}, .rot = {0}, .vel = {0, 1}, .w = {0}};
    proto_state_body(&shared, 2, &s2, false);
    proto_state_body_end(&shared);
    proto_state_body(&shared, 2, &s3, false);
    proto_state_body_end(&shared);
    ck_assert(!shared.failed);

    proto_buf b;
    proto_buf_init(&b);
    proto_state_begin(&b, 8, 1);
    proto_body_state s1 = {.id = 1, .pos = {1, 0}, .rot = {0}, .vel = {0, 0}, .w = {0}};
    proto_state_body(&b, 2, &s1, true);
    proto_state_body_end(&b);
    proto_buf_append(&b, shared.data, shared.len);
    proto_state_bodies_end(&b);
    proto_state_end(&b);
    cJSON *j = parse_line(&b);
    const cJSON *bodies = field(j, "bodies");
    ck_assert_int_eq(cJSON_GetArraySize(bodies), 3);
    for (int i = 0; i < 3; i++) {
        const cJSON *x = cJSON_GetArrayItem(bodies, i);
        ck_assert_double_eq(num(x, "id"), i + 1);
        assert_vec(x, "pos", 2, (double[]){i + 1, 0}, 1e-9);
    }
    cJSON_Delete(j);
    proto_buf_free(&b);
    proto_buf_free(&shared);
}
END_TEST

/* One body in a whole state line, read back. */
static cJSON *state_of_one(proto_buf *b, int dim, const proto_body_state *s)
{
    proto_buf_clear(b);
    proto_state_begin(b, 1, 0);
    proto_state_body(b, dim, s, true);
    proto_state_body_end(b);
    proto_state_bodies_end(b);
    proto_state_end(b);
    ck_assert(!b->failed);
    ck_assert_msg(!has_negative_zero(contents(b)), "-0 in %s", text);
    cJSON *j = parse_line(b);
    const cJSON *bodies = field(j, "bodies");
    ck_assert_int_eq(cJSON_GetArraySize(bodies), 1);
    return j;
}

static void assert_close(const cJSON *a, int i, double expect, double tol, const char *what,
                         int k)
{
    const cJSON *x = cJSON_IsArray(a) ? cJSON_GetArrayItem(a, i) : a;
    ck_assert_ptr_nonnull(x);
    ck_assert(cJSON_IsNumber(x));
    if (!(fabs(x->valuedouble - expect) <= tol))
        ck_abort_msg("round %d: %s[%d] %.17g read back as %.17g (tolerance %g)", k, what, i,
                     expect, x->valuedouble, tol);
}

START_TEST(state_round_trip_2d)
{
    /* 2D, 10,000 random bodies: positions to 0.1 mm (error at most half of it), rotations to
     * 1e-4, velocities (linear and angular) to 1 mm/s. */
    proto_buf b;
    proto_buf_init(&b);
    rng_state = 7;
    for (int k = 0; k < 10000; k++) {
        proto_body_state s = {0};
        s.id = rng_next() % (UINT64_C(9007199254740992) + 1);
        for (int i = 0; i < 2; i++) s.pos[i] = component(PROTO_MAX_COORD);
        s.rot[0] = component(PROTO_MAX_ANGLE);
        for (int i = 0; i < 2; i++) s.vel[i] = component(PROTO_MAX_VEL);
        s.w[0] = component(1000);
        cJSON *j = state_of_one(&b, 2, &s);
        const cJSON *x = cJSON_GetArrayItem(field(j, "bodies"), 0);
        ck_assert_msg((uint64_t)num(x, "id") == s.id, "round %d: id", k);
        const cJSON *pos = field(x, "pos"), *vel = field(x, "vel");
        ck_assert_int_eq(cJSON_GetArraySize(pos), 2);
        ck_assert_int_eq(cJSON_GetArraySize(vel), 2);
        ck_assert(cJSON_IsNumber(field(x, "rot")));
        ck_assert(cJSON_IsNumber(field(x, "w")));
        for (int i = 0; i < 2; i++) {
            assert_close(pos, i, s.pos[i], 0.5e-4 + 1e-9, "pos", k);
            assert_close(vel, i, s.vel[i], 0.5e-3 + 1e-9, "vel", k);
        }
        assert_close(field(x, "rot"), 0, s.rot[0], 0.5e-4 + 1e-9, "rot", k);
        assert_close(field(x, "w"), 0, s.w[0], 0.5e-3 + 1e-9, "w", k);
        cJSON_Delete(j);
    }
    ck_assert(!b.failed);
    proto_buf_free(&b);
}
END_TEST

START_TEST(state_round_trip_3d)
{
    proto_buf b;
    proto_buf_init(&b);
    rng_state = 11;
    for (int k = 0; k < 10000; k++) {
        proto_body_state s = {0};
        s.id = rng_next() % (UINT64_C(9007199254740992) + 1);
        for (int i = 0; i < 3; i++) s.pos[i] = component(PROTO_MAX_COORD);
        double n = 0;
        do {
            for (int i = 0; i < 4; i++) s.rot[i] = uniform(-1, 1);
            n = sqrt(s.rot[0] * s.rot[0] + s.rot[1] * s.rot[1] + s.rot[2] * s.rot[2] +
                     s.rot[3] * s.rot[3]);
        } while (n < 0.1);
        for (int i = 0; i < 4; i++) s.rot[i] /= n;
        for (int i = 0; i < 3; i++) s.vel[i] = component(PROTO_MAX_VEL);
        for (int i = 0; i < 3; i++) s.w[i] = component(1000);
        cJSON *j = state_of_one(&b, 3, &s);
        const cJSON *x = cJSON_GetArrayItem(field(j, "bodies"), 0);
        ck_assert_msg((uint64_t)num(x, "id") == s.id, "round %d: id", k);
        const cJSON *pos = field(x, "pos"), *rot = field(x, "rot"), *vel = field(x, "vel"),
                    *w = field(x, "w");
        ck_assert_int_eq(cJSON_GetArraySize(pos), 3);
        ck_assert_int_eq(cJSON_GetArraySize(rot), 4);
        ck_assert_int_eq(cJSON_GetArraySize(vel), 3);
        ck_assert_int_eq(cJSON_GetArraySize(w), 3);
        for (int i = 0; i < 3; i++) {
            assert_close(pos, i, s.pos[i], 0.5e-4 + 1e-9, "pos", k);
            assert_close(vel, i, s.vel[i], 0.5e-3 + 1e-9, "vel", k);
            assert_close(w, i, s.w[i], 0.5e-3 + 1e-9, "w", k);
        }
        for (int i = 0; i < 4; i++) assert_close(rot, i, s.rot[i], 0.5e-4 + 1e-12, "rot", k);
        cJSON_Delete(j);
    }
    ck_assert(!b.failed);
    proto_buf_free(&b);
}
END_TEST

/* ---- shapes ---- */

/* The shape as written, read back with cJSON. */
static cJSON *shape_json(int dim, const proto_shape *shape)
{
    proto_buf b;
    proto_buf_init(&b);
    proto_write_shape(&b, dim, shape);
    const char *s = contents(&b);
    cJSON *j = cJSON_Parse(s);
    ck_assert_msg(j != NULL && cJSON_IsObject(j), "not a JSON object: %s", s);
    ck_assert_str_eq(str(j, "type"), proto_shape_name(shape->type));
    proto_buf_free(&b);
    return j;
}

/* The shape as written, then parsed by proto_parse inside a spawn: the same shape. */
static proto_shape shape_through_parser(int dim, const proto_shape *shape)
{
    proto_buf b;
    proto_buf_init(&b);
    proto_buf_append_str(&b, "{\"type\":\"spawn\",\"body\":{\"shape\":");
    proto_write_shape(&b, dim, shape);
    proto_buf_append_str(&b, dim == 2 ? ",\"pos\":[0,0]}}" : ",\"pos\":[0,0,0]}}");
    ck_assert(!b.failed);
    static proto_msg m;
    proto_error e;
    proto_error_code rc = proto_parse(b.data, b.len, dim, &m, &e);
    ck_assert_msg(rc == PROTO_OK, "%s refused: %s", contents(&b), e.message);
    proto_buf_free(&b);
    ck_assert_int_eq(m.type, PROTO_MSG_SPAWN);
    return m.u.spawn.body.shape;
}

START_TEST(shapes_2d)
{
    proto_buf b;
    proto_buf_init(&b);
    proto_shape aabb = {.type = PROTO_SHAPE_AABB, .half = {1, 0.5}};
    proto_write_shape(&b, 2, &aabb);
    ck_assert_str_eq(contents(&b), "{\"type\":\"aabb\",\"half\":[1,0.5]}");
    proto_buf_free(&b);

    cJSON *j = shape_json(2, &aabb);
    assert_vec(j, "half", 2, (double[]){1, 0.5}, 1e-9);
    cJSON_Delete(j);
    proto_shape back = shape_through_parser(2, &aabb);
    ck_assert_int_eq(back.type, PROTO_SHAPE_AABB);
    ck_assert_double_eq_tol(back.half[0], 1, 1e-9);
    ck_assert_double_eq_tol(back.half[1], 0.5, 1e-9);

    proto_shape box = {.type = PROTO_SHAPE_BOX, .half = {2.25, 0.125}};
    j = shape_json(2, &box);
    assert_vec(j, "half", 2, (double[]){2.25, 0.125}, 1e-9);
    cJSON_Delete(j);
    back = shape_through_parser(2, &box);
    ck_assert_int_eq(back.type, PROTO_SHAPE_BOX);
    ck_assert_double_eq_tol(back.half[1], 0.125, 1e-9);

    proto_shape circle = {.type = PROTO_SHAPE_CIRCLE, .radius = 0.75};
    j = shape_json(2, &circle);
    ck_assert_double_eq_tol(num(j, "radius"), 0.75, 1e-9);
    cJSON_Delete(j);
    back = shape_through_parser(2, &circle);
    ck_assert_double_eq_tol(back.radius, 0.75, 1e-9);

    proto_shape poly = {.type = PROTO_SHAPE_POLYGON,
                        .npoints = 4,
                        .points = {{-1, -0.5}, {1, -0.5}, {1.5, 0.5}, {-0.25, 1}}};
    j = shape_json(2, &poly);
    assert_points(field(j, "points"), 4, 2,
                  (const double[][3]){{-1, -0.5}, {1, -0.5}, {1.5, 0.5}, {-0.25, 1}}, 1e-9);
    cJSON_Delete(j);
    back = shape_through_parser(2, &poly);
    ck_assert_int_eq(back.type, PROTO_SHAPE_POLYGON);
    ck_assert_int_eq(back.npoints, 4);
    ck_assert_double_eq_tol(back.points[2][0], 1.5, 1e-9);
    ck_assert_double_eq_tol(back.points[3][1], 1, 1e-9);
}
END_TEST

START_TEST(shapes_3d)
{
    proto_shape sphere = {.type = PROTO_SHAPE_SPHERE, .radius = 2.5};
    cJSON *j = shape_json(3, &sphere);
    ck_assert_double_eq_tol(num(j, "radius"), 2.5, 1e-9);
    cJSON_Delete(j);
    ck_assert_double_eq_tol(shape_through_parser(3, &sphere).radius, 2.5, 1e-9);

    proto_shape box = {.type = PROTO_SHAPE_BOX, .half = {1, 2, 0.5}};
    j = shape_json(3, &box);
    assert_vec(j, "half", 3, (double[]){1, 2, 0.5}, 1e-9);
    cJSON_Delete(j);
    ck_assert_double_eq_tol(shape_through_parser(3, &box).half[2], 0.5, 1e-9);

    proto_shape ell = {.type = PROTO_SHAPE_ELLIPSOID, .radii = {0.5, 1.5, 3}};
    j = shape_json(3, &ell);
    assert_vec(j, "radii", 3, (double[]){0.5, 1.5, 3}, 1e-9);
    cJSON_Delete(j);
    proto_shape back = shape_through_parser(3, &ell);
    ck_assert_int_eq(back.type, PROTO_SHAPE_ELLIPSOID);
    ck_assert_double_eq_tol(back.radii[1], 1.5, 1e-9);

    static const proto_shape_type rounded[] = {PROTO_SHAPE_CAPSULE, PROTO_SHAPE_CYLINDER,
                                             PROTO_SHAPE_CONE};
    for (size_t i = 0; i < 3; i++) {
        proto_shape s = {.type = rounded[i], .radius = 0.25 + (double)i, .half_height = 1.125};
        j = shape_json(3, &s);
        ck_assert_double_eq_tol(num(j, "radius"), 0.25 + (double)i, 1e-9);
        ck_assert_double_eq_tol(num(j, "half_height"), 1.125, 1e-9);
        cJSON_Delete(j);
        back = shape_through_parser(3, &s);
        ck_assert_int_eq(back.type, rounded[i]);
        ck_assert_double_eq_tol(back.radius, 0.25 + (double)i, 1e-9);
        ck_assert_double_eq_tol(back.half_height, 1.125, 1e-9);
    }

    proto_shape hull = {.type = PROTO_SHAPE_HULL,
                        .npoints = 5,
                        .points = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-0.5, 2, 0.25}}};
    j = shape_json(3, &hull);
    assert_points(field(j, "points"), 5, 3,
                  (const double[][3]){{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-0.5, 2, 0.25}},
                  1e-9);
    cJSON_Delete(j);
    back = shape_through_parser(3, &hull);
    ck_assert_int_eq(back.type, PROTO_SHAPE_HULL);
    ck_assert_int_eq(back.npoints, 5);
    ck_assert_double_eq_tol(back.points[4][0], -0.5, 1e-9);
    ck_assert_double_eq_tol(back.points[4][1], 2, 1e-9);
    ck_assert_double_eq_tol(back.points[4][2], 0.25, 1e-9);

    /* A 3D box has three half extents, a 2D one two. */
    j = shape_json(2, &box);
    ck_assert_int_eq(cJSON_GetArraySize(field(j, "half")), 2);
    cJSON_Delete(j);
}
END_TEST

/* `hits`: ray hits with point, normal and fraction, overlap hits with depth, normal and
 * points; the exact line for a 2D ray. */
START_TEST(hits_for_rays_and_overlaps)
{
    proto_buf b;
    proto_buf_init(&b);
    proto_hit h[2] = {{.id = 3, .fraction = 0.25, .point = {1.5, -2, 0}, .normal = {0, 1, 0}},
                      {.id = 16777218, .fraction = 0.5, .point = {3, 0.125, 0},
                       .normal = {-1, 0, 0}}};
    proto_write_hits(&b, "\"r\"", 2, 77, false, h, 2);
    ck_assert_str_eq(contents(&b),
                     "{\"type\":\"hits\",\"req\":\"r\",\"tick\":77,\"hits\":[{\"id\":3,"
                     "\"point\":[1.5,-2],\"normal\":[0,1],\"fraction\":0.25},{\"id\":16777218,"
                     "\"point\":[3,0.125],\"normal\":[-1,0],\"fraction\":0.5}]}\n");
    proto_buf_clear(&b);
    proto_write_hits(&b, NULL, 3, 5, false, NULL, 0);
    ck_assert_str_eq(contents(&b), "{\"type\":\"hits\",\"tick\":5,\"hits\":[]}\n");
    proto_buf_clear(&b);
    proto_hit o = {.id = 9, .depth = 0.1, .normal = {0, 0, -1}, .npoints = 2,
                   .points = {{1, 2, 3}, {4, 5, 6}}};
    proto_write_hits(&b, "1", 3, 8, true, &o, 1);
    cJSON *j = parse_line(&b);
    ck_assert_str_eq(str(j, "type"), "hits");
    const cJSON *hit = cJSON_GetArrayItem(field(j, "hits"), 0);
    ck_assert_double_eq(num(hit, "id"), 9);
    ck_assert_double_eq(num(hit, "depth"), 0.1);
    assert_vec(hit, "normal", 3, (double[]){0, 0, -1}, 0);
    assert_points(field(hit, "points"), 2, 3, (const double[][3]){{1, 2, 3}, {4, 5, 6}}, 0);
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(hit, "fraction"));
    cJSON_Delete(j);
    proto_buf_free(&b);
}
END_TEST

MINK_CHECK_SUITE("proto_writer", s)
{
    MINK_TCASE(s, "numbers", 60, buf_basics, buf_failure_is_sticky_until_clear,
               fixed_exact_strings, fixed_just_below_a_half_rounds_down,
               fixed_large_odd_integers_are_exact, fixed_appends_to_what_is_there,
               fixed_huge_values_round_trip, fixed_random_values, integers, json_strings);

    MINK_TCASE(s, "messages", 60, welcome, error_line, spawned_and_despawned, pong_echoes_t,
               result_hit_and_miss, shapes_2d, shapes_3d, hits_for_rays_and_overlaps);

    MINK_TCASE(s, "state", 60, state_2d_with_everything, state_3d_vectors_and_quaternions,
               compact_body_entries, state_without_bodies_removed_or_contacts,
               bodies_encoded_once_and_copied, state_round_trip_2d, state_round_trip_3d);
}
