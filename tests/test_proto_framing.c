/* mink_proto framing: JSON Lines cut out of a TCP byte stream. A line may arrive in one read
 * with thousands of others or one byte at a time; either way the callback sees the same lines,
 * in order, without '\n' or a '\r' before it. A line longer than the limit is refused as soon as
 * it is known to be too long, without the buffer growing past the limit. */
#include <check.h>
#include <stdbool.h>
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

/* A framer of the protocol's limit whose callback stops feeding on line `stop_at` (1-based),
 * returning stop_value. */
static void seen_init_stopping(seen *s, size_t stop_at, int stop_value)
{
    seen_init(s, PROTO_MAX_LINE);
    s->stop_at = stop_at;
    s->stop_value = stop_value;
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

/* Feeds n bytes: the feed returns rc, and `count` lines have been seen in all. */
static void feed_bytes_expect(seen *s, const char *data, size_t n, int rc, size_t count)
{
    ck_assert_int_eq(feed(s, data, n), rc);
    ck_assert_uint_eq(s->count, count);
}

/* The same for a NUL-terminated string. */
static void feed_expect(seen *s, const char *str, int rc, size_t count)
{
    feed_bytes_expect(s, str, strlen(str), rc, count);
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
    feed_expect(&s, data, 0, 1);
    assert_line(&s, 0, "{\"type\":\"ping\",\"t\":1}");
    /* A line wholly inside the fed bytes is handed over in place, not copied. */
    ck_assert_uint_eq(s.in_place, 1);
    /* Nothing buffered: feeding nothing delivers nothing. */
    feed_bytes_expect(&s, "", 0, 0, 1);
    seen_free(&s);
}
END_TEST

START_TEST(line_without_newline_waits)
{
    seen s;
    seen_init(&s, PROTO_MAX_LINE);
    feed_expect(&s, "{\"type\":\"bye\"}", 0, 0); /* no '\n' yet: not a line */
    feed_expect(&s, "\n", 0, 1);
    assert_line(&s, 0, "{\"type\":\"bye\"}");
    seen_free(&s);
}
END_TEST

/* Line i of a generated stream, without its ending, into out (room for 64 bytes). */
typedef void line_fn(char *out, int i);

/* n lines of `line`, each ended by '\n', or by "\r\n" every third one when crlf: the stream's
 * length in *len. */
static char *make_lines(int n, line_fn *line, bool crlf, size_t *len)
{
    char *data = malloc((size_t)n * 66);
    ck_assert_ptr_nonnull(data);
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        line(data + at, i);
        at += strlen(data + at);
        at += (size_t)sprintf(data + at, "%s", crlf && i % 3 == 0 ? "\r\n" : "\n");
    }
    *len = at;
    return data;
}

/* The callback saw exactly the n lines of `line`, in order. */
static void expect_lines(const seen *s, int n, line_fn *line)
{
    ck_assert_uint_eq(s->count, (size_t)n);
    char expect[64];
    for (int i = 0; i < n; i++) {
        line(expect, i);
        ck_assert_msg(s->lens[i] == strlen(expect) && strcmp(s->lines[i], expect) == 0,
                      "line %d: expected %s, got %s", i, expect, s->lines[i]);
    }
}

static void seq_line(char *out, int i) { sprintf(out, "{\"seq\":%d}", i); }

START_TEST(ten_thousand_lines_in_one_feed)
{
    enum { N = 10000 };
    size_t n;
    char *data = make_lines(N, seq_line, false, &n);

    seen s;
    seen_init(&s, PROTO_MAX_LINE);
    feed_bytes_expect(&s, data, n, 0, N);
    ck_assert_uint_eq(s.in_place, N);
    expect_lines(&s, N, seq_line);
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

/* Lines of 0 to 22 bytes of padding. */
static void padded_line(char *out, int i)
{
    sprintf(out, "{\"i\":%d,\"pad\":\"%.*s\"}", i, i % 23, "xxxxxxxxxxxxxxxxxxxxxxx");
}

START_TEST(random_reads_of_many_lines)
{
    /* 10,000 lines of varying length cut into reads of 1 to 300 bytes (fixed seed). */
    enum { N = 10000 };
    size_t n;
    char *data = make_lines(N, padded_line, true, &n);
    seen s;
    seen_init(&s, 100);
    srand(12345);
    for (size_t at = 0; at < n;) {
        size_t k = 1 + (size_t)(rand() % 300);
        if (k > n - at) k = n - at;
        ck_assert_int_eq(feed(&s, data + at, k), 0);
        at += k;
    }
    expect_lines(&s, N, padded_line);
    seen_free(&s);
    free(data);
}
END_TEST

START_TEST(crlf_is_stripped)
{
    seen s;
    seen_init(&s, PROTO_MAX_LINE);
    feed_expect(&s, "abc\r\nx\r\n", 0, 2);
    assert_line(&s, 0, "abc");
    assert_line(&s, 1, "x");
    /* '\r' and '\n' in different reads. */
    feed_expect(&s, "def\r", 0, 2);
    feed_expect(&s, "\n", 0, 3);
    assert_line(&s, 2, "def");
    /* Only a '\r' right before the '\n' is a line ending; one inside the line stays. */
    feed_expect(&s, "a\rb\n", 0, 4);
    assert_line(&s, 3, "a\rb");
    seen_free(&s);
}
END_TEST

START_TEST(blank_lines_are_skipped)
{
    seen s;
    seen_init(&s, PROTO_MAX_LINE);
    feed_expect(&s, "\n\n\r\n\n", 0, 0);
    ck_assert_int_eq(feed_str(&s, "\r"), 0);
    feed_expect(&s, "\n", 0, 0);
    feed_expect(&s, "\nA\n\r\n\nB\n\n", 0, 2);
    assert_line(&s, 0, "A");
    assert_line(&s, 1, "B");
    seen_free(&s);
}
END_TEST

START_TEST(callback_stop_returns_its_value_and_drops_the_rest)
{
    seen s;
    seen_init_stopping(&s, 2, 42);
    feed_expect(&s, "one\ntwo\nthree\nfour\npart", 42, 2);
    assert_line(&s, 0, "one");
    assert_line(&s, 1, "two");
    /* The rest was dropped: nothing of it comes out of a later (empty) feed. */
    feed_bytes_expect(&s, "", 0, 0, 2);
    seen_free(&s);

    /* The stopping line was partly buffered from an earlier read; a negative value is
     * returned as it is too. */
    seen_init_stopping(&s, 1, -7);
    feed_expect(&s, "{\"type\":", 0, 0);
    feed_expect(&s, "\"bye\"}\n{\"type\":\"ping\"}\n", -7, 1);
    assert_line(&s, 0, "{\"type\":\"bye\"}");
    feed_bytes_expect(&s, "", 0, 0, 1);
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

/* A line of exactly max bytes and its '\n' fed whole to a framer of limit max: one line of max
 * bytes. */
static void expect_whole_line(const char *line, size_t max)
{
    seen s;
    seen_init(&s, max);
    feed_bytes_expect(&s, line, max + 1, 0, 1);
    ck_assert_uint_eq(s.lens[0], max);
    seen_free(&s);
}

START_TEST(line_of_exactly_max_line_is_accepted)
{
    enum { MAX = 16 };
    char *line = repeat('x', MAX, "\n");
    expect_whole_line(line, MAX);

    seen s;

    /* The same line one byte at a time, buffered whole. */
    seen_init(&s, MAX);
    for (size_t i = 0; i < MAX + 1; i++) ck_assert_int_eq(feed(&s, line + i, 1), 0);
    ck_assert_uint_eq(s.count, 1);
    ck_assert_uint_eq(s.lens[0], MAX);
    ck_assert_str_eq(s.lines[0], "xxxxxxxxxxxxxxxx");
    /* The framer goes on after a line at the limit. */
    feed_expect(&s, "next\n", 0, 2);
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
    feed_expect(&s, stream, PROTO_ERR_LINE_TOO_LONG, 1);
    assert_line(&s, 0, "ok");
    seen_free(&s);
    free(stream);
    free(data);
}
END_TEST

/* 64 bytes of 'z' and no '\n' fed to a framer of limit max in reads of `read` bytes: the reads
 * that keep the line within max bytes are taken, the next one refuses it; no line is seen. */
static void expect_refused_in_reads(size_t max, size_t read)
{
    char *data = repeat('z', 64, "");
    seen s;
    seen_init(&s, max);
    size_t at = 0;
    for (; at + read <= max; at += read)
        ck_assert_int_eq(feed(&s, data + at, read), 0);
    feed_bytes_expect(&s, data + at, read, PROTO_ERR_LINE_TOO_LONG, 0);
    seen_free(&s);
    free(data);
}

START_TEST(line_over_max_line_refused_on_the_first_byte_past_it)
{
    /* One byte at a time with no '\n' ever: the line is known to be too long on the byte that
     * makes it 17 bytes (a 'z' cannot be the '\r' of a line ending). */
    expect_refused_in_reads(16, 1);
}
END_TEST

START_TEST(line_over_max_line_in_small_reads_is_refused)
{
    enum { MAX = 16 };
    /* Reads of 5 bytes: 5, 10, 15 are fine, 20 is over. */
    expect_refused_in_reads(MAX, 5);

    char *data = repeat('z', 64, "");
    seen s;

    /* A buffered start plus a read that completes the line with its '\n': MAX + 1 bytes in
     * all is still too long, and the line after it never arrives. */
    seen_init(&s, MAX);
    ck_assert_int_eq(feed(&s, data, 10), 0);
    feed_expect(&s, "1234567\nafter\n", PROTO_ERR_LINE_TOO_LONG, 0);
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

    expect_whole_line(exact, PROTO_MAX_LINE);

    seen s;

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
    feed_expect(&s, over, PROTO_ERR_LINE_TOO_LONG, 0);
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
    feed_bytes_expect(&s, "", 0, 0, 0);
    seen_free(&s);
}
END_TEST

/* A reader that pauses: stopped at the second line of a read, the framer says where the bytes
 * after that line begin, and feeding them later yields the rest in order, also when the line
 * it stopped on had been completed from an earlier read. */
START_TEST(stopped_feed_says_what_it_took)
{
    seen s;
    seen_init_stopping(&s, 2, 7);
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
