/* The table of invited players beside a durable save (--save FILE with --token-key): the
 * bodies in the save belong to owner numbers, and only this table says which user each number
 * is (server/net/players.c keeps it, players_file.c writes it). The file is text:
 *
 *   mink-players 1 N                    magic, format version, number of players
 *   OWNER AVATAR USER ROLE              N lines: owner number (1 to 2^31-1), avatar body id
 *                                       (0: none), user id (1 to 64 of A-Z a-z 0-9 _ . @ : -),
 *                                       role (1 to 32 of a-z 0-9 _ -, or * for none)
 *   crc32c XXXXXXXX                     the CRC-32C of every byte before this line
 *
 * On a restore it is untrusted input: its size is bounded before it is read, every field is
 * checked (the user ids and roles as tok_verify lets them in, mink_token.h), no user or owner
 * number may appear twice, the count must match, and anything wrong refuses the whole file
 * with the line and what is wrong in it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mk_crc.h"
#include "world_io_internal.h"

#define MAGIC "mink-players"
#define VERSION 1
/* The bytes of a player's line at most: "2147483647 18446744073709551615 USER ROLE\n". */
#define REC_LINE_MAX (10 + 1 + 20 + 1 + WIO_PLAYER_USER + 1 + WIO_PLAYER_ROLE + 1)
#define FILE_MAX ((size_t)64 + (size_t)WIO_PLAYERS_MAX * REC_LINE_MAX + 16)

void wio_players_format(proto_buf *b, const wio_player *r, size_t n)
{
    proto_buf_clear(b);
    char line[REC_LINE_MAX + 32];
    snprintf(line, sizeof line, "%s %d %zu\n", MAGIC, VERSION, n);
    proto_buf_append_str(b, line);
    for (size_t i = 0; i < n; i++) {
        snprintf(line, sizeof line, "%" PRIu32 " %" PRIu64 " %s %s\n", r[i].owner,
                 (uint64_t)r[i].avatar, r[i].user, r[i].role[0] ? r[i].role : "*");
        proto_buf_append_str(b, line);
    }
    snprintf(line, sizeof line, "crc32c %08" PRIx32 "\n", mk_crc32c(0, b->data, b->len));
    proto_buf_append_str(b, line);
}

/* A decimal number of at most `digits` digits, nothing else, no leading zero (but "0"), not
 * above `max`: true with *out. */
static bool number(const char *s, size_t len, size_t digits, uint64_t max, uint64_t *out)
{
    if (len == 0 || len > digits || (len > 1 && s[0] == '0'))
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (max - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* The characters tok_verify lets into a user id (mink_token.h), and into a role. */
static bool in_set(const char *s, size_t len, size_t most, bool user)
{
    if (len == 0 || len > most)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                  (user && ((c >= 'A' && c <= 'Z') || c == '.' || c == '@' || c == ':'));
        if (!ok)
            return false;
    }
    return true;
}

/* Splits a line (without its newline) into exactly `n` fields separated by single spaces. */
static bool fields(const char *line, size_t len, size_t n, const char **f, size_t *flen)
{
    size_t k = 0, start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && line[i] != ' ')
            continue;
        if (k == n || i == start)
            return false;
        f[k] = line + start;
        flen[k++] = i - start;
        start = i + 1;
    }
    return k == n;
}

static int cmp_user(const void *a, const void *b)
{
    return strcmp(((const wio_player *)a)->user, ((const wio_player *)b)->user);
}

static int cmp_owner(const void *a, const void *b)
{
    uint32_t x = ((const wio_player *)a)->owner, y = ((const wio_player *)b)->owner;
    return x < y ? -1 : x > y;
}

wio_player *wio_players_parse(const char *data, size_t len, size_t *n, mk_error *err)
{
    *n = 0;
    if (len > FILE_MAX) {
        mk_fail(err, MK_ERR_INVALID, "%zu bytes, more than a table of %d players takes", len,
                WIO_PLAYERS_MAX);
        return NULL;
    }
    /* The checksum line last: a file cut short has none, a changed byte fails it. */
    const char *trail = "crc32c ";
    size_t tl = strlen(trail) + 8 + 1;
    if (len < tl || data[len - 1] != '\n' || memcmp(data + len - tl, trail, tl - 9) != 0 ||
        (len > tl && data[len - tl - 1] != '\n')) {
        mk_fail(err, MK_ERR_INVALID, "no checksum line at the end (cut short?)");
        return NULL;
    }
    /* Lower-case hex, as written: one spelling for each table. */
    uint32_t want = 0;
    for (size_t i = len - 9; i < len - 1; i++) {
        char c = data[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            mk_fail(err, MK_ERR_INVALID, "byte %zu: the checksum is not 8 lower-case hex digits",
                    len - 9);
            return NULL;
        }
        want = want << 4 | (uint32_t)(c <= '9' ? c - '0' : c - 'a' + 10);
    }
    size_t body = len - tl;
    uint32_t got = mk_crc32c(0, data, body);
    if (got != want) {
        mk_fail(err, MK_ERR_INVALID, "the first %zu bytes do not match their checksum "
                "(%08" PRIx32 ", the file says %08" PRIx32 ")", body, got, want);
        return NULL;
    }
    /* The header. */
    const char *nl = memchr(data, '\n', body);
    const char *f[4];
    size_t fl[4];
    uint64_t version, count;
    if (!nl || !fields(data, (size_t)(nl - data), 3, f, fl) || fl[0] != strlen(MAGIC) ||
        memcmp(f[0], MAGIC, fl[0]) != 0) {
        mk_fail(err, MK_ERR_INVALID, "line 1: not \"%s VERSION COUNT\"", MAGIC);
        return NULL;
    }
    if (!number(f[1], fl[1], 9, UINT32_MAX, &version) || version != VERSION) {
        mk_fail(err, MK_ERR_INVALID, "line 1: format version %.*s, this build reads %d",
                (int)(fl[1] < 16 ? fl[1] : 16), f[1], VERSION);
        return NULL;
    }
    if (!number(f[2], fl[2], 9, WIO_PLAYERS_MAX, &count)) {
        mk_fail(err, MK_ERR_INVALID, "line 1: the count is not a number from 0 to %d",
                WIO_PLAYERS_MAX);
        return NULL;
    }
    wio_player *r = calloc(count ? count : 1, sizeof *r);
    if (!r) {
        mk_fail(err, MK_ERR_IO, "out of memory for %" PRIu64 " players", count);
        return NULL;
    }
    size_t at = (size_t)(nl - data) + 1, k = 0;
    for (size_t line = 2; at < body; line++) {
        nl = memchr(data + at, '\n', body - at);
        uint64_t owner, avatar;
        if (k == count) {
            mk_fail(err, MK_ERR_INVALID, "line %zu: more players than the %" PRIu64 " line 1 "
                    "says", line, count);
            goto fail;
        }
        if (!fields(data + at, (size_t)(nl - (data + at)), 4, f, fl)) {
            mk_fail(err, MK_ERR_INVALID, "line %zu: not \"OWNER AVATAR USER ROLE\"", line);
            goto fail;
        }
        /* Client ids count on from the largest owner number: one near 2^32 would wrap them
         * to 0, the server's own. */
        if (!number(f[0], fl[0], 10, INT32_MAX, &owner) || owner == 0) {
            mk_fail(err, MK_ERR_INVALID, "line %zu: owner: not a number from 1 to 2147483647",
                    line);
            goto fail;
        }
        if (!number(f[1], fl[1], 20, UINT64_MAX, &avatar)) {
            mk_fail(err, MK_ERR_INVALID, "line %zu: avatar: not a body id", line);
            goto fail;
        }
        if (!in_set(f[2], fl[2], WIO_PLAYER_USER, true)) {
            mk_fail(err, MK_ERR_INVALID, "line %zu: user: not 1 to %d of A-Z a-z 0-9 _ . @ : -",
                    line, WIO_PLAYER_USER);
            goto fail;
        }
        bool none = fl[3] == 1 && f[3][0] == '*';
        if (!none && !in_set(f[3], fl[3], WIO_PLAYER_ROLE, false)) {
            mk_fail(err, MK_ERR_INVALID, "line %zu: role: not * or 1 to %d of a-z 0-9 _ -", line,
                    WIO_PLAYER_ROLE);
            goto fail;
        }
        r[k].owner = (uint32_t)owner;
        r[k].avatar = (sim_id)avatar;
        memcpy(r[k].user, f[2], fl[2]);
        if (!none)
            memcpy(r[k].role, f[3], fl[3]);
        k++;
        at = (size_t)(nl - data) + 1;
    }
    if (k != count) {
        mk_fail(err, MK_ERR_INVALID, "%zu players where line 1 says %" PRIu64, k, count);
        goto fail;
    }
    /* No user and no owner number twice: each would give one player another's bodies. */
    wio_player *sorted = malloc((k ? k : 1) * sizeof *sorted);
    if (!sorted) {
        mk_fail(err, MK_ERR_IO, "out of memory for %zu players", k);
        goto fail;
    }
    memcpy(sorted, r, k * sizeof *r);
    qsort(sorted, k, sizeof *sorted, cmp_user);
    for (size_t i = 1; i < k; i++)
        if (strcmp(sorted[i - 1].user, sorted[i].user) == 0) {
            mk_fail(err, MK_ERR_INVALID, "user %s: twice", sorted[i].user);
            free(sorted);
            goto fail;
        }
    qsort(sorted, k, sizeof *sorted, cmp_owner);
    for (size_t i = 1; i < k; i++)
        if (sorted[i - 1].owner == sorted[i].owner) {
            mk_fail(err, MK_ERR_INVALID, "owner %" PRIu32 ": twice", sorted[i].owner);
            free(sorted);
            goto fail;
        }
    free(sorted);
    *n = k;
    return r;
fail:
    free(r);
    return NULL;
}

wio_player *wio_players_read(const char *path, size_t *n, bool *found, mk_error *err)
{
    *n = 0;
    *found = false;
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    *found = true;
    if (st.st_size < 0 || (uint64_t)st.st_size > FILE_MAX) {
        mk_fail(err, MK_ERR_INVALID, "%s: %lld bytes, more than a table of %d players takes",
                path, (long long)st.st_size, WIO_PLAYERS_MAX);
        return NULL;
    }
    size_t len;
    char *data = wio_read_file(path, &len, err);
    if (!data)
        return NULL;
    wio_player *r = wio_players_parse(data, len, n, err);
    free(data);
    if (!r)
        mk_error_prefix(err, "%s: ", path);
    return r;
}
