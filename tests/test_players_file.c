/* The table of invited players beside a durable save (FILE.players, server/world_io/players.c):
 * the bytes written for a known table (its checksum computed apart, with Python's CRC-32C),
 * read back the same, and every kind of damage refused with the line and what is wrong. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "mk_crc.h"
#include "mink_world_io.h"

/* "mink-players 1 2\n1 21 alice *\n2 0 bob admin\n" has CRC-32C 645bd3db (computed with a
 * bitwise CRC-32C in Python, polynomial 0x82F63B78, not with mk_crc). */
static const char two[] = "mink-players 1 2\n1 21 alice *\n2 0 bob admin\ncrc32c 645bd3db\n";

START_TEST(a_known_table_is_written_and_read_back)
{
    wio_player p[2] = {{.owner = 1, .avatar = 21}, {.owner = 2, .avatar = 0}};
    strcpy(p[0].user, "alice");
    strcpy(p[1].user, "bob");
    strcpy(p[1].role, "admin");
    proto_buf b;
    proto_buf_init(&b);
    wio_players_format(&b, p, 2);
    ck_assert_uint_eq(b.len, strlen(two));
    ck_assert(memcmp(b.data, two, b.len) == 0);
    proto_buf_free(&b);

    size_t n = 99;
    mk_error err = {0};
    wio_player *r = wio_players_parse(two, strlen(two), &n, &err);
    ck_assert_msg(r != NULL, "%s", err.message);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(r[0].owner, 1);
    ck_assert_uint_eq(r[0].avatar, 21);
    ck_assert_str_eq(r[0].user, "alice");
    ck_assert_str_eq(r[0].role, "");
    ck_assert_uint_eq(r[1].owner, 2);
    ck_assert_uint_eq(r[1].avatar, 0);
    ck_assert_str_eq(r[1].user, "bob");
    ck_assert_str_eq(r[1].role, "admin");
    free(r);
}
END_TEST

START_TEST(the_widest_fields_and_an_empty_table_round_trip)
{
    wio_player p = {.owner = 2147483647u, .avatar = 18446744073709551615ull};
    memset(p.user, 'Z', 64);
    memset(p.role, 'r', 32);
    p.user[0] = '.';
    p.user[1] = '@';
    p.user[2] = ':';
    p.role[0] = '-';
    proto_buf b;
    proto_buf_init(&b);
    wio_players_format(&b, &p, 1);
    size_t n;
    mk_error err = {0};
    wio_player *r = wio_players_parse(b.data, b.len, &n, &err);
    ck_assert_msg(r != NULL, "%s", err.message);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(r[0].owner, 2147483647u);
    ck_assert(r[0].avatar == 18446744073709551615ull);
    ck_assert_str_eq(r[0].user, p.user);
    ck_assert_str_eq(r[0].role, p.role);
    free(r);
    wio_players_format(&b, NULL, 0);
    /* "mink-players 1 0\n": CRC-32C 39e93f6b (computed apart, as above). */
    const char empty[] = "mink-players 1 0\ncrc32c 39e93f6b\n";
    ck_assert_uint_eq(b.len, strlen(empty));
    ck_assert(memcmp(b.data, empty, b.len) == 0);
    r = wio_players_parse(b.data, b.len, &n, &err);
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(n, 0);
    free(r);
    proto_buf_free(&b);
}
END_TEST

/* `body` with its right checksum line after it, parsed: refused with `why` in the message. */
static void expect_refused(const char *body, const char *why)
{
    char file[512];
    size_t len = strlen(body);
    ck_assert_uint_lt(len + 17, sizeof file);
    memcpy(file, body, len);
    len += (size_t)snprintf(file + len, sizeof file - len, "crc32c %08x\n",
                            (unsigned)mk_crc32c(0, body, strlen(body)));
    size_t n = 7;
    mk_error err = {0};
    wio_player *r = wio_players_parse(file, len, &n, &err);
    ck_assert_msg(r == NULL, "accepted: %s", body);
    ck_assert_uint_eq(n, 0);
    ck_assert_msg(strstr(err.message, why) != NULL, "'%s' does not say '%s'", err.message, why);
}

START_TEST(every_field_is_checked)
{
    expect_refused("", "line 1: not \"mink-players VERSION COUNT\"");
    expect_refused("mink-player 1 0\n", "line 1: not \"mink-players VERSION COUNT\"");
    expect_refused("mink-players 1  0\n", "line 1: not \"mink-players VERSION COUNT\"");
    expect_refused("mink-players 2 0\n", "line 1: format version 2, this build reads 1");
    expect_refused("mink-players 01 0\n", "line 1: format version 01, this build reads 1");
    expect_refused("mink-players 1 131073\n", "line 1: the count is not a number from 0 to 131072");
    expect_refused("mink-players 1 -1\n", "line 1: the count is not a number");
    expect_refused("mink-players 1 1\n0 0 alice *\n", "line 2: owner: not a number from 1 to");
    expect_refused("mink-players 1 1\n2147483648 0 alice *\n",
                   "line 2: owner: not a number from 1 to 2147483647");
    expect_refused("mink-players 1 1\n4294967295 0 alice *\n", "line 2: owner: not a number");
    expect_refused("mink-players 1 1\n4294967296 0 alice *\n", "line 2: owner: not a number");
    expect_refused("mink-players 1 1\n07 0 alice *\n", "line 2: owner: not a number");
    expect_refused("mink-players 1 1\n+7 0 alice *\n", "line 2: owner: not a number");
    expect_refused("mink-players 1 1\n7 -1 alice *\n", "line 2: avatar: not a body id");
    expect_refused("mink-players 1 1\n7 18446744073709551616 alice *\n",
                   "line 2: avatar: not a body id");
    expect_refused("mink-players 1 1\n7 0 al/ice *\n", "line 2: user: not 1 to 64 of");
    expect_refused("mink-players 1 1\n7 0 "
                   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa *\n",
                   "line 2: user: not 1 to 64 of");
    expect_refused("mink-players 1 1\n7 0 alice Admin\n", "line 2: role: not * or 1 to 32");
    expect_refused("mink-players 1 1\n7 0 alice **\n", "line 2: role: not * or 1 to 32");
    expect_refused("mink-players 1 1\n7 0 alice *\r\n", "line 2: role: not * or 1 to 32");
    expect_refused("mink-players 1 1\n7 0 al ice *\n", "line 2: not \"OWNER AVATAR USER ROLE\"");
    expect_refused("mink-players 1 1\n7 0 alice\n", "line 2: not \"OWNER AVATAR USER ROLE\"");
    expect_refused("mink-players 1 1\n7 0  alice *\n", "line 2: not \"OWNER AVATAR USER ROLE\"");
    expect_refused("mink-players 1 1\n\n", "line 2: not \"OWNER AVATAR USER ROLE\"");
    expect_refused("mink-players 1 2\n7 0 alice *\n", "1 players where line 1 says 2");
    expect_refused("mink-players 1 1\n7 0 alice *\n8 0 bob *\n",
                   "line 3: more players than the 1 line 1 says");
    expect_refused("mink-players 1 2\n7 0 alice *\n8 0 alice *\n", "user alice: twice");
    expect_refused("mink-players 1 2\n7 0 alice *\n7 0 bob *\n", "owner 7: twice");
}
END_TEST

START_TEST(a_damaged_file_is_refused_by_its_checksum)
{
    size_t n, len = strlen(two);
    mk_error err = {0};
    char copy[sizeof two];
    /* Cut short anywhere: no checksum line. */
    for (size_t cut = 0; cut < len; cut++) {
        memcpy(copy, two, len);
        ck_assert_ptr_null(wio_players_parse(copy, cut, &n, &err));
        ck_assert_msg(strcmp(err.message, "no checksum line at the end (cut short?)") == 0,
                      "cut at %zu: %s", cut, err.message);
    }
    /* Any bit of the table flipped (but the newline before the checksum line, without which
     * there is none): the checksum does not match. */
    size_t body = len - strlen("crc32c 645bd3db\n");
    for (size_t i = 0; i + 1 < body; i++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(copy, two, len);
            copy[i] ^= (char)(1 << bit);
            ck_assert_ptr_null(wio_players_parse(copy, len, &n, &err));
            ck_assert_msg(strstr(err.message, "the first 44 bytes do not match their checksum") !=
                              NULL, "byte %zu bit %d: %s", i, bit, err.message);
        }
    memcpy(copy, two, len);
    copy[len - 3] = 'x';
    ck_assert_ptr_null(wio_players_parse(copy, len, &n, &err));
    ck_assert_str_eq(err.message, "byte 51: the checksum is not 8 lower-case hex digits");
    /* The same checksum in capitals: not the file's one spelling. */
    memcpy(copy, two, len);
    copy[len - 6] = 'B';
    ck_assert_ptr_null(wio_players_parse(copy, len, &n, &err));
    ck_assert_str_eq(err.message, "byte 51: the checksum is not 8 lower-case hex digits");
}
END_TEST

START_TEST(a_file_too_large_is_refused_before_it_is_read)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/mink-players-big-%d", (int)getpid());
    size_t n;
    bool found = true;
    mk_error err = {0};
    ck_assert_ptr_null(wio_players_read(path, &n, &found, &err));
    ck_assert(!found);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    /* 64 MiB, sparse: more than 131,072 players of 119 bytes take. */
    ck_assert_int_eq(truncate(path, 64L << 20), 0);
    ck_assert_ptr_null(wio_players_read(path, &n, &found, &err));
    ck_assert(found);
    ck_assert_msg(strstr(err.message, ": 67108864 bytes, more than a table of 131072 players takes"),
                  "%s", err.message);
    f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(two, f);
    fclose(f);
    wio_player *r = wio_players_read(path, &n, &found, &err);
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(r[1].user, "bob");
    free(r);
    unlink(path);
}
END_TEST

MINK_CHECK_TESTS("players_file", 0, a_known_table_is_written_and_read_back,
                 the_widest_fields_and_an_empty_table_round_trip, every_field_is_checked,
                 a_damaged_file_is_refused_by_its_checksum,
                 a_file_too_large_is_refused_before_it_is_read)
