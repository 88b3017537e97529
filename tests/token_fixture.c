#include "token_fixture.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server_fixture.h"

void tf_make_key(char *path, uint8_t key[TOK_KEY_BYTES])
{
    strcpy(path, "/tmp/mink-test-key-XXXXXX");
    make_temp_file(path);
    for (int i = 0; i < TOK_KEY_BYTES; i++)
        key[i] = (uint8_t)(rand() & 0xff);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(key, 1, TOK_KEY_BYTES, f), TOK_KEY_BYTES);
    fclose(f);
}

void tf_mint(const uint8_t key[TOK_KEY_BYTES], char *out, const char *user, long ttl)
{
    static int n;
    tok_claims c = {.exp = (int64_t)time(NULL) + ttl};
    snprintf(c.user, sizeof c.user, "%s", user);
    snprintf(c.nonce, sizeof c.nonce, "n%d", ++n);
    mk_error err = {0};
    ck_assert_int_gt(tok_mint(key, &c, out, TOK_MAX_LEN + 1, &err), 0);
}

void tf_hello_line(char *line, size_t cap, const char *token, bool avatar)
{
    snprintf(line, cap, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"p\"%s%s%s%s}",
             token ? ",\"token\":\"" : "", token ? token : "", token ? "\"" : "",
             avatar ? ",\"avatar\":{\"shape\":{\"type\":\"aabb\",\"half\":[0.4,0.9]},\"pos\":[0,"
                      "4],\"kind\":\"kinematic\",\"max_speed\":5}"
                    : "");
}
