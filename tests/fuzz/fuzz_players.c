/* The table of invited players beside a durable save (FILE.players) as a restart reads it
 * (server/world_io/players.c): whatever the bytes, wio_players_parse accepts or refuses with a
 * message. The first byte picks the input's form: odd, the rest is the file as it is on disk;
 * even, the rest is the table without its checksum line, which is added here with the right
 * CRC-32C, so that the fuzzer reaches the fields behind the checksum. The format has one
 * spelling for each table, so what is accepted holds valid fields, no user or owner twice,
 * and is written back byte for byte the same. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "mk_crc.h"
#include "mink_world_io.h"

static bool in_set(const char *s, bool user)
{
    size_t len = strlen(s);
    if (len == 0 || len > (user ? WIO_PLAYER_USER : WIO_PLAYER_ROLE))
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              (user && ((c >= 'A' && c <= 'Z') || c == '.' || c == '@' || c == ':'))))
            return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > (1u << 20))
        return 0;
    static char file[(1u << 20) + 32];
    const char *bytes = (const char *)data + 1;
    size_t len = size - 1;
    if ((data[0] & 1) == 0) {
        memcpy(file, data + 1, len);
        len += (size_t)snprintf(file + len, 32, "crc32c %08x\n",
                                (unsigned)mk_crc32c(0, data + 1, size - 1));
        bytes = file;
    }
    size_t n = 12345;
    mk_error err = {0};
    wio_player *p = wio_players_parse(bytes, len, &n, &err);
    if (!p) {
        fuzz_check(n == 0 && err.message[0] != '\0');
        return 0;
    }
    fuzz_check(n <= WIO_PLAYERS_MAX);
    for (size_t i = 0; i < n; i++) {
        fuzz_check(p[i].owner > 0);
        fuzz_check(in_set(p[i].user, true));
        fuzz_check(p[i].role[0] == '\0' || in_set(p[i].role, false));
        for (size_t j = 0; j < i && n <= 512; j++)
            fuzz_check(p[j].owner != p[i].owner && strcmp(p[j].user, p[i].user) != 0);
    }
    proto_buf b;
    proto_buf_init(&b);
    wio_players_format(&b, p, n);
    fuzz_check(!b.failed && b.len == len && memcmp(b.data, bytes, len) == 0);
    proto_buf_free(&b);
    free(p);
    return 0;
}
