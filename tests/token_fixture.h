/* Connect tokens for the integration tests of invited players (test_server_tokens.c,
 * test_server_players.c): a fresh key in a file, tokens minted with it, and the hello that
 * carries one. */
#ifndef MINK_TOKEN_FIXTURE_H
#define MINK_TOKEN_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mink_token.h"

/* A random key written to a new file: `path` (64 bytes) gets its name, `key` its bytes. */
void tf_make_key(char *path, uint8_t key[TOK_KEY_BYTES]);
/* A token for `user` signed with `key`, expiring `ttl` seconds from now (negative: in the
 * past), with a nonce of its own; `out` holds TOK_MAX_LEN + 1 bytes. */
void tf_mint(const uint8_t key[TOK_KEY_BYTES], char *out, const char *user, long ttl);
/* A hello with `token` (NULL: none) and, with `avatar`, a kinematic avatar. */
void tf_hello_line(char *line, size_t cap, const char *token, bool avatar);

#endif
