/* mink_proto framing: JSON Lines cut out of a TCP byte stream. A line may arrive in one read
 * with thousands of others or one byte at a time; either way the callback sees the same lines,
 * in order, without '\n' or a '\r' before it. A line longer than the limit is refused as soon as
 * it is known to be too long, without the buffer growing past the limit. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mink_proto.h"
#include "check_main.h"

/* A framer under test and what its callback saw: every line copied, in order. */
typedef struct seen {
    proto_framer f;   /* the framer under test */
    size_t count;
    size_t cap;
    char **lines;
    size_t *lens;
    size_t stop_at;   /* 1-based index of the line whose callback stops feeding; 0 = never */
    int stop_value;   /* returned by that callback */
    const char *data; /* the bytes of the current feed, to check that lines are handed in place */
    size_t data_len;
    size_t in_place;  /* lines whose pointer lay inside the current feed's bytes */
} seen;

static void seen_init(seen *s, size_t max_line)
{
    memset(s, 0, sizeof *s);
    proto_framer_init(&s->f, max_line);
}

static void seen_free(seen *s)
{
    for (size_t i = 0; i < s->count; i++) free(s->lines[i]);
    free(s->lines);
    free(s->lens);
    proto_framer_free(&s->f);
    memset(s, 0, sizeof *s);
}

static int on_line(void *ud, const char *line, size_t len)
{
    seen *s = ud;
    if (s->count == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->lines = realloc(s->lines, s->cap * sizeof *s->lines);
        s->lens = realloc(s->lens, s->cap * sizeof *s->lens);
        ck_assert_ptr_nonnull(s->lines);
        ck_assert_ptr_nonnull(s->lens);
    }
    char *copy = malloc(len + 1);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, line, len);
    copy[len] = '\0';
    s->lines[s->count] = copy;
    s->lens[s->count] = len;
    s->count++;
    if (s->data) {
        uintptr_t p = (uintptr_t)line, d = (uintptr_t)s->data;
        if (p >= d && p + len <= d + s->data_len) s->in_place++;
    }
    if (s->stop_at != 0 && s->count == s->stop_at) return s->stop_value;
    return 0;
}

static int feed(seen *s, const char *data, size_t n)
{
    s->data = data;
    s->data_len = n;
    int rc = proto_framer_feed(&s->f, data, n, on_line, s);
    s->data = NULL;
    s->data_len = 0;
    return rc;
}

/* Feeds a NUL-terminated string. */
static int feed_str(seen *s, const char *str)
{
    return feed(s, str, strlen(str));
}

static void assert_line(const seen *s, size_t i, const char *expect)
{
    ck_assert_msg(i < s->count, "line %zu missing (saw %zu lines)", i, s->count);
    ck_assert_uint_eq(s->lens[i], strlen(expect));
    ck_assert_str_eq(s->lines[i], expect);
}

START_TEST(one_line_in_one_feed)
{
    seen s;
    seen_init(&s, PROTO_MAX_LINE);
    const char *data = "{\"type\":\"ping\",\"t\":1}\n";
    ck_assert_int_eq(feed_str(&s, data), 0);
    ck_assert_uint_eq(s.count, 1);
    assert_line(&s, 0, "{\"type\":\"ping\",\"t\":1}");
    /* A line wholly inside the fed bytes is handed over in place, not copied. */
    ck_assert_uint_eq(s.in_place, 1);
    /* Nothing buffered: feeding nothing delivers nothing. */
    ck_assert_int_eq(feed(&s, "", 0), 0);
    ck_assert_uint_eq(s.count, 1);
    seen_free(&s);
}
END_TEST

START_TEST(line_without_newline_waits)
{
    seen s;
    seen_init(&s, PROTO_MAX_LINE);
    ck_assert_int_eq(feed_str(&s, "{\"type\":\"bye\"}"), 0);
    ck_assert_uint_eq(s.count, 0); /* no '\n' yet: not a line */
    ck_assert_int_eq(feed_str(&s, "\n"), 0);
    ck_assert_uint_eq(s.count, 1);
    assert_line(&s, 0, "{\"type\":\"bye\"}");
    seen_free(&s);
}
END_TEST

START_TEST(ten_thousand_lines_in_one_feed)
{
    enum { N = 10000 };
    char *data = malloc((size_t)N * 32);
    ck_assert_ptr_nonnull(data);
    size_t n = 0;
    for (int i = 0; i < N; i++) n += (size_t)sprintf(data + n, "{\"seq\":%d}\n", i);

    seen s;
    seen_init(&s, PROTO_MAX_LINE);
    ck_assert_int_eq(feed(&s, data, n), 0);
    ck_assert_uint_eq(s.count, N);
    ck_assert_uint_eq(s.in_place, N);
    char expect[32];
    for (int i = 0; i < N; i++) {
        snprintf(expect, sizeof expect, "{\"seq\":%d}", i);
        ck_assert_msg(s.lens[i] == strlen(expect) && strcmp(s.lines[i], expect) == 0,
                      "line %d: expected %s, got %s", i, expect, s.lines[i]);
    }
    seen_free(&s);
    free(data);
}
END_TEST

/* The stream below, whatever the reads, is these three lines. */
static const char split_stream[] = "{\"type\":\"hello\"}\r\n\n{\"a\":\"b c\"}\n\r\nlast\n";
static const char *const split_lines[] = {"{\"type\":\"hello\"}", "{\"a\":\"b c\"}", "last"};

static void assert_split_lines(const seen *s, const char *how)
{
    ck_assert_msg(s->count == 3, "%s: %zu lines, expected 3", how, s->count);
    for (size_t i = 0; i < 3; i++) {
        ck_assert_msg(s->lens[i] == strlen(split_lines[i]) &&
                          memcmp(s->lines[i], split_lines[i], s->lens[i]) == 0,
                      "%s: line %zu is \"%s\", expected \"%s\"", how, i, s->lines[i],
                      split_lines[i]);
    }
}

START_TEST(line_split_at_every_position)
{
    const size_t n = sizeof split_stream - 1;
    char how[64];
    /* Two reads, cut at every position (0 and n included: one read is empty). */
    for (size_t cut = 0; cut <= n; cut++) {
        seen s;
        seen_init(&s, PROTO_MAX_LINE);
        ck_assert_int_eq(feed(&s, split_stream, cut), 0);
        ck_assert_int_eq(feed(&s, split_stream + cut, n - cut), 0);
        snprintf(how, sizeof how, "cut at %zu", cut);
        assert_split_lines(&s, how);
        seen_free(&s);
    }
    /* Three reads, cut at every pair of positions. */
    for (size_t i = 0; i <= n; i++) {
        for (size_t j = i; j <= n; j++) {
            seen s;
            seen_init(&s, PROTO_MAX_LINE);
            ck_assert_int_eq(feed(&s, split_stream, i), 0);
            ck_assert_int_eq(feed(&s, split_stream + i, j - i), 0);
            ck_assert_int_eq(feed(&s, split_stream + j, n - j), 0);
            snprintf(how, sizeof how, "cuts at %zu and %zu", i, j);
            assert_split_lines(&s, how);
            seen_free(&s);
        }
    }
}
END_TEST

START_TEST(one_byte_reads)
{
    const size_t n = sizeof split_stream - 1;
    seen s;
    seen_init(&s, PROTO_MAX_LINE);
    for (size_t i = 0; i < n; i++) ck_assert_int_eq(feed(&s, split_stream + i, 1), 0);
    assert_split_lines(&s, "one-byte reads");
    seen_free(&s);
}
END_TEST

START_TEST(random_reads_of_many_lines)
{
    /* 10,000 lines of varying length cut into reads of 1 to 300 bytes (fixed seed). */
    enum { N = 10000 };
    char *data = malloc((size_t)N * 64);
    ck_assert_ptr_nonnull(data);
    size_t n = 0;
    for (int i = 0; i < N; i++) {
        n += (size_t)sprintf(data + n, "{\"i\":%d,\"pad\":\"%.*s\"}%s", i, i % 23,
                             "xxxxxxxxxxxxxxxxxxxxxxx", (i % 3 == 0) ? "\r\n" : "\n");
    }
    seen s;
    seen_init(&s, 100);
    srand(12345);
    for (size_t at = 0; at < n;) {
        size_t k = 1 + (size_t)(rand() % 300);
        if (k > n - at) k = n - at;
        ck_assert_int_eq(feed(&s, data + at, k), 0);
        at += k;
    }
    ck_assert_uint_eq(s.count, N);
    char expect[64];
    for (int i = 0; i < N; i++) {
        snprintf(expect, sizeof expect, "{\"i\":%d,\"pad\":\"%.*s\"}", i, i % 23,
                 "xxxxxxxxxxxxxxxxxxxxxxx");
        ck_assert_msg(s.lens[i] == strlen(expect) && strcmp(s.lines[i], expect) == 0,
                      "line %d: expected %s, got %s", i, expect, s.lines[i]);
    }
    seen_free(&s);
    free(data);
}
END_TEST

START_TEST(crlf_is_stripped)
{
    seen s;
    seen_init(&s, PROTO_MAX_LINE);
    ck_assert_int_eq(feed_str(&s, "abc\r\nx\r\n"), 0);
    ck_assert_uint_eq(s.count, 2);
    assert_line(&s, 0, "abc");
    assert_line(&s, 1, "x");
    /* '\r' and '\n' in different reads. */
    ck_assert_int_eq(feed_str(&s, "def\r"), 0);
    ck_assert_uint_eq(s.count, 2);
    ck_assert_int_eq(feed_str(&s, "\n"), 0);
    ck_assert_uint_eq(s.count, 3);
    assert_line(&s, 2, "def");
    /* Only a '\r' right before the '\n' is a line ending; one inside the line stays. */
    ck_assert_int_eq(feed_str(&s, "a\rb\n"), 0);
    ck_assert_uint_eq(s.count, 4);
    assert_line(&s, 3, "a\rb");
    seen_free(&s);
}
END_TEST

START_TEST(blank_lines_are_skipped)
{
    seen s;
    seen_init(&s, PROTO_MAX_LINE);
    ck_assert_int_eq(feed_str(&s, "\n\n\r\n\n"), 0);
    ck_assert_uint_eq(s.count, 0);
    ck_assert_int_eq(feed_str(&s, "\r"), 0);
    ck_assert_int_eq(feed_str(&s, "\n"), 0);
    ck_assert_uint_eq(s.count, 0);
    ck_assert_int_eq(feed_str(&s, "\nA\n\r\n\nB\n\n"), 0);
    ck_assert_uint_eq(s.count, 2);
    assert_line(&s, 0, "A");
    assert_line(&s, 1, "B");
    seen_free(&s);
}
END_TEST

START_TEST(callback_stop_returns_its_value_and_drops_the_rest)
{
    seen s;
    seen_init(&s, PROTO_MAX_LINE);
    s.stop_at = 2;
    s.stop_value = 42;
    ck_assert_int_eq(feed_str(&s, "one\ntwo\nthree\nfour\npart"), 42);
    ck_assert_uint_eq(s.count, 2);
    assert_line(&s, 0, "one");
    assert_line(&s, 1, "two");
    /* The rest was dropped: nothing of it comes out of a later (empty) feed. */
    ck_assert_int_eq(feed(&s, "", 0), 0);
    ck_assert_uint_eq(s.count, 2);
    seen_free(&s);

    /* The stopping line was partly buffered from an earlier read; a negative value is
     * returned as it is too. */
    seen_init(&s, PROTO_MAX_LINE);
    s.stop_at = 1;
    s.stop_value = -7;
    ck_assert_int_eq(feed_str(&s, "{\"type\":"), 0);
    ck_assert_uint_eq(s.count, 0);
    ck_assert_int_eq(feed_str(&s, "\"bye\"}\n{\"type\":\"ping\"}\n"), -7);
    ck_assert_uint_eq(s.count, 1);
    assert_line(&s, 0, "{\"type\":\"bye\"}");
    ck_assert_int_eq(feed(&s, "", 0), 0);
    ck_assert_uint_eq(s.count, 1);
    seen_free(&s);
}
END_TEST

static char *repeat(char c, size_t n, const char *tail)
{
    size_t t = strlen(tail);
    char *p = malloc(n + t + 1);
    ck_assert_ptr_nonnull(p);
    memset(p, c, n);
    memcpy(p + n, tail, t + 1);
    return p;
}

START_TEST(line_of_exactly_max_line_is_accepted)
{
    enum { MAX = 16 };
    char *line = repeat('x', MAX, "\n");

    seen s;
    seen_init(&s, MAX);
    ck_assert_int_eq(feed(&s, line, MAX + 1), 0);
    ck_assert_uint_eq(s.count, 1);
    ck_assert_uint_eq(s.lens[0], MAX);
    seen_free(&s);

    /* The same line one byte at a time, buffered whole. */
    seen_init(&s, MAX);
    for (size_t i = 0; i < MAX + 1; i++) ck_assert_int_eq(feed(&s, line + i, 1), 0);
    ck_assert_uint_eq(s.count, 1);
    ck_assert_uint_eq(s.lens[0], MAX);
    ck_assert_str_eq(s.lines[0], "xxxxxxxxxxxxxxxx");
    /* The framer goes on after a line at the limit. */
    ck_assert_int_eq(feed_str(&s, "next\n"), 0);
    ck_assert_uint_eq(s.count, 2);
    assert_line(&s, 1, "next");
    seen_free(&s);
    free(line);
}
END_TEST

START_TEST(line_over_max_line_in_one_feed_is_refused)
{
    enum { MAX = 16 };
    /* A good line, a line of MAX + 1 bytes, then a line that must never be delivered. */
    char *data = repeat('y', MAX + 1, "\nafter\n");
    char *stream = malloc(strlen(data) + 4);
    ck_assert_ptr_nonnull(stream);
    strcpy(stream, "ok\n");
    strcat(stream, data);

    seen s;
    seen_init(&s, MAX);
    ck_assert_int_eq(feed_str(&s, stream), PROTO_ERR_LINE_TOO_LONG);
    ck_assert_uint_eq(s.count, 1);
    assert_line(&s, 0, "ok");
    seen_free(&s);
    free(stream);
    free(data);
}
END_TEST

START_TEST(line_over_max_line_refused_on_the_first_byte_past_it)
{
    enum { MAX = 16 };
    char *data = repeat('z', 64, "");

    /* One byte at a time with no '\n' ever: the line is known to be too long on the byte that
     * makes it MAX + 1 (a 'z' cannot be the '\r' of a line ending). */
    seen s;
    seen_init(&s, MAX);
    for (size_t i = 0; i < MAX; i++) ck_assert_int_eq(feed(&s, data + i, 1), 0);
    ck_assert_int_eq(feed(&s, data + MAX, 1), PROTO_ERR_LINE_TOO_LONG);
    ck_assert_uint_eq(s.count, 0);
    seen_free(&s);
    free(data);
}
END_TEST

START_TEST(line_over_max_line_in_small_reads_is_refused)
{
    enum { MAX = 16 };
    char *data = repeat('z', 64, "");
    seen s;

    /* Reads of 5 bytes: 5, 10, 15 are fine, 20 is over. */
    seen_init(&s, MAX);
    ck_assert_int_eq(feed(&s, data, 5), 0);
    ck_assert_int_eq(feed(&s, data + 5, 5), 0);
    ck_assert_int_eq(feed(&s, data + 10, 5), 0);
    ck_assert_int_eq(feed(&s, data + 15, 5), PROTO_ERR_LINE_TOO_LONG);
    ck_assert_uint_eq(s.count, 0);
    seen_free(&s);

    /* A buffered start plus a read that completes the line with its '\n': MAX + 1 bytes in
     * all is still too long, and the line after it never arrives. */
    seen_init(&s, MAX);
    ck_assert_int_eq(feed(&s, data, 10), 0);
    ck_assert_int_eq(feed_str(&s, "1234567\nafter\n"), PROTO_ERR_LINE_TOO_LONG);
    ck_assert_uint_eq(s.count, 0);
    seen_free(&s);
    free(data);
}
END_TEST

START_TEST(protocol_limit_of_64_kib)
{
    /* PROTOCOL.md: at most 64 KiB per line from a client. */
    ck_assert_int_eq(PROTO_MAX_LINE, 65536);
    char *exact = repeat('a', PROTO_MAX_LINE, "\n");
    char *over = repeat('b', PROTO_MAX_LINE + 1, "\nafter\n");

    seen s;
    seen_init(&s, PROTO_MAX_LINE);
    ck_assert_int_eq(feed(&s, exact, PROTO_MAX_LINE + 1), 0);
    ck_assert_uint_eq(s.count, 1);
    ck_assert_uint_eq(s.lens[0], PROTO_MAX_LINE);
    seen_free(&s);

    /* The 64 KiB line in reads of 1000 bytes (the last one short). */
    seen_init(&s, PROTO_MAX_LINE);
    for (size_t at = 0; at < PROTO_MAX_LINE + 1; at += 1000) {
        size_t k = PROTO_MAX_LINE + 1 - at < 1000 ? PROTO_MAX_LINE + 1 - at : 1000;
        ck_assert_int_eq(feed(&s, exact + at, k), 0);
    }
    ck_assert_uint_eq(s.count, 1);
    ck_assert_uint_eq(s.lens[0], PROTO_MAX_LINE);
    ck_assert_int_eq(s.lines[0][0], 'a');
    ck_assert_int_eq(s.lines[0][PROTO_MAX_LINE - 1], 'a');
    seen_free(&s);

    /* 64 KiB + 1 in one read, with a line after it that is never delivered. */
    seen_init(&s, PROTO_MAX_LINE);
    ck_assert_int_eq(feed_str(&s, over), PROTO_ERR_LINE_TOO_LONG);
    ck_assert_uint_eq(s.count, 0);
    seen_free(&s);

    /* 64 KiB + 1 in reads of 1000 bytes, no '\n': refused on the read that passes the limit
     * (bytes 65001..66000), the buffer never past the limit. */
    char *endless = repeat('c', 70000, "");
    seen_init(&s, PROTO_MAX_LINE);
    int rc = 0;
    size_t at = 0;
    while (rc == 0 && at < 70000) {
        rc = feed(&s, endless + at, 1000);
        at += 1000;
    }
    ck_assert_int_eq(rc, PROTO_ERR_LINE_TOO_LONG);
    ck_assert_uint_eq(at, 66000);
    ck_assert_uint_eq(s.count, 0);
    seen_free(&s);
    free(endless);
    free(exact);
    free(over);
}
END_TEST

/* Whatever arrives, the copy of an unfinished line is never larger than max_line bytes
 * (header: "the buffer never grows past max_line bytes"). */
START_TEST(buffer_never_grows_past_max_line)
{
    enum { MAX = 16 };
    char *exact = repeat('x', MAX, "\n");
    char *endless = repeat('z', 64, "");
    seen s;

    /* A line of exactly MAX bytes, one byte at a time. */
    seen_init(&s, MAX);
    for (size_t i = 0; i < MAX + 1; i++) {
        ck_assert_int_eq(feed(&s, exact + i, 1), 0);
        ck_assert_msg(s.f.cap <= MAX, "after %zu bytes of a %d-byte line: cap %zu > max_line %d",
                      i + 1, MAX, s.f.cap, MAX);
    }
    ck_assert_uint_eq(s.count, 1);
    seen_free(&s);

    /* A line that never ends, one byte at a time, until it is refused. */
    seen_init(&s, MAX);
    int rc = 0;
    for (size_t i = 0; i < 64 && rc == 0; i++) {
        rc = feed(&s, endless + i, 1);
        ck_assert_msg(s.f.cap <= MAX, "after %zu bytes with no '\\n': cap %zu > max_line %d",
                      i + 1, s.f.cap, MAX);
    }
    ck_assert_int_eq(rc, PROTO_ERR_LINE_TOO_LONG);
    seen_free(&s);

    /* The protocol's limit, in reads of 1000 bytes, a line that fits and one that does not. */
    char *big = repeat('a', PROTO_MAX_LINE, "\n");
    char *huge = repeat('c', 70000, "");
    seen_init(&s, PROTO_MAX_LINE);
    for (size_t at = 0; at < PROTO_MAX_LINE + 1; at += 1000) {
        size_t k = PROTO_MAX_LINE + 1 - at < 1000 ? PROTO_MAX_LINE + 1 - at : 1000;
        ck_assert_int_eq(feed(&s, big + at, k), 0);
        ck_assert_uint_le(s.f.cap, PROTO_MAX_LINE);
    }
    ck_assert_uint_eq(s.count, 1);
    rc = 0;
    for (size_t at = 0; at < 70000 && rc == 0; at += 1000) {
        rc = feed(&s, huge + at, 1000);
        ck_assert_uint_le(s.f.cap, PROTO_MAX_LINE);
    }
    ck_assert_int_eq(rc, PROTO_ERR_LINE_TOO_LONG);
    seen_free(&s);
    free(big);
    free(huge);
    free(exact);
    free(endless);
}
END_TEST

START_TEST(init_and_free_without_use)
{
    seen s;
    seen_init(&s, 128);
    ck_assert_uint_eq(s.f.max_line, 128);
    ck_assert_uint_eq(s.f.len, 0);
    ck_assert_uint_le(s.f.cap, 128);
    ck_assert_int_eq(feed(&s, "", 0), 0);
    ck_assert_uint_eq(s.count, 0);
    seen_free(&s);
}
END_TEST

/* A reader that pauses: stopped at the second line of a read, the framer says where the bytes
 * after that line begin, and feeding them later yields the rest in order, also when the line
 * it stopped on had been completed from an earlier read. */
START_TEST(stopped_feed_says_what_it_took)
{
    seen s;
    seen_init(&s, PROTO_MAX_LINE);
    s.stop_at = 2;
    s.stop_value = 7;
    const char *data = "{\"a\":1}\n{\"b\":2}\r\n{\"c\":3}\n{\"d\"";
    size_t used = 99;
    ck_assert_int_eq(proto_framer_feed_used(&s.f, data, strlen(data), on_line, &s, &used), 7);
    ck_assert_uint_eq(s.count, 2);
    ck_assert_uint_eq(used, strlen("{\"a\":1}\n{\"b\":2}\r\n"));
    ck_assert_uint_eq(s.f.len, 0);
    s.stop_at = 0;
    ck_assert_int_eq(
        proto_framer_feed_used(&s.f, data + used, strlen(data) - used, on_line, &s, &used), 0);
    ck_assert_uint_eq(used, strlen("{\"c\":3}\n{\"d\""));
    ck_assert_uint_eq(s.count, 3);
    /* The unfinished line is completed by the next read, and stopping on it takes only the
     * bytes up to its '\n'. */
    s.stop_at = 4;
    ck_assert_int_eq(proto_framer_feed_used(&s.f, ":4}\n{\"e\":5}\n", 12, on_line, &s, &used), 7);
    ck_assert_uint_eq(used, 4);
    ck_assert_uint_eq(s.count, 4);
    assert_line(&s, 3, "{\"d\":4}");
    assert_line(&s, 1, "{\"b\":2}");
    seen_free(&s);
}
END_TEST

MINK_CHECK_SUITE("proto_framing", s)
{
    MINK_TCASE(s, "lines", 60, one_line_in_one_feed, line_without_newline_waits,
               ten_thousand_lines_in_one_feed, line_split_at_every_position, one_byte_reads,
               random_reads_of_many_lines, crlf_is_stripped, blank_lines_are_skipped,
               callback_stop_returns_its_value_and_drops_the_rest, stopped_feed_says_what_it_took,
               init_and_free_without_use);

    MINK_TCASE(s, "limits", 60, line_of_exactly_max_line_is_accepted,
               line_over_max_line_in_one_feed_is_refused,
               line_over_max_line_refused_on_the_first_byte_past_it,
               line_over_max_line_in_small_reads_is_refused, protocol_limit_of_64_kib,
               buffer_never_grows_past_max_line);
}
