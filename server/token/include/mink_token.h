/* mink_token: connect tokens. A game's backend and its Mink servers share a 32-byte secret; the
 * backend hands a player a token that says who the player is and until when, signed with
 * HMAC-SHA256 (OpenSSL's libcrypto), and a server lets in only players whose `hello` carries a
 * valid one, once (netcode.io's connect tokens, in the JSON Web Token's shape):
 *
 *     v1.<claims>.<mac>
 *
 * <claims> is base64url (RFC 4648 section 5, no padding) of a JSON object, <mac> base64url of
 * HMAC-SHA256(key, "v1." + <claims>). The claims: `sub` the user id (1 to 64 bytes of
 * [A-Za-z0-9_.@:-]), `exp` when it expires (Unix seconds, an integer), and optionally `name`
 * (at most 64 bytes of UTF-8, no control characters), `role` (at most 32 bytes of [a-z0-9_-])
 * and `nonce` (any string of at most 64 bytes: two tokens with the same claims are the same
 * token, and a token is let in once). Other fields are ignored. */
#ifndef MINK_TOKEN_H
#define MINK_TOKEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mk_error.h"

#define TOK_KEY_BYTES 32
#define TOK_MAC_BYTES 32
#define TOK_MAX_LEN 1024  /* bytes of a token */
#define TOK_MAX_USER 64
#define TOK_MAX_NAME 64
#define TOK_MAX_ROLE 32
#define TOK_MAX_NONCE 64
#define TOK_MAX_TTL 86400 /* s: a token that expires later than this from now is refused, so
                             that the replay check remembers no token for longer */

typedef struct tok_claims {
    char user[TOK_MAX_USER + 1];
    int64_t exp; /* Unix seconds */
    char name[TOK_MAX_NAME + 1]; /* "" when the token has none */
    char role[TOK_MAX_ROLE + 1]; /* "" when the token has none */
    char nonce[TOK_MAX_NONCE + 1];
    uint8_t mac[TOK_MAC_BYTES]; /* set by tok_verify: the token's identity for the replay check */
} tok_claims;

/* Reads a key file: exactly 32 bytes. -1 with *err (naming the file) otherwise. */
int tok_key_load(const char *path, uint8_t key[TOK_KEY_BYTES], mk_error *err);

/* Checks a token against the key at time `now` (Unix seconds): its form and signature first
 * (the claims are read only once the signature holds), then the claims, then the expiry.
 * 0 and *out filled, or -1 with *err saying what is wrong (MK_ERR_INVALID). */
int tok_verify(const uint8_t key[TOK_KEY_BYTES], const char *token, size_t len, int64_t now,
               tok_claims *out, mk_error *err);

/* Writes the token of the claims (user, exp and, when not empty, name, role and nonce; the
 * fields are checked as tok_verify checks them) into out, NUL-terminated. Its length, or -1 with
 * *err. */
int tok_mint(const uint8_t key[TOK_KEY_BYTES], const tok_claims *claims, char *out, size_t cap,
             mk_error *err);

/* Fills `out` (at least 17 bytes) with a fresh nonce: 8 random bytes (OpenSSL's RAND_bytes) in
 * hex. -1 when the random generator fails. */
int tok_random_nonce(char *out, size_t cap);

/* The replay check: the tokens let in, each remembered until it expires, in a table of a fixed
 * size (an open-addressed hash set keyed by the MAC, 24 bytes a slot): memory stays bounded
 * however many tokens are shown. */
typedef struct tok_replay tok_replay;

/* A table for up to `live` unexpired tokens at once (it has twice as many slots). */
tok_replay *tok_replay_new(size_t live);
void tok_replay_free(tok_replay *r);
typedef enum { TOK_FIRST = 0, TOK_REPLAYED = 1, TOK_FULL = 2 } tok_replay_result;
/* TOK_FIRST: not seen before, now remembered until `exp`; TOK_REPLAYED: seen before and not
 * expired; TOK_FULL: `live` unexpired tokens are remembered already (the token is refused and
 * not remembered). */
tok_replay_result tok_replay_check(tok_replay *r, const uint8_t mac[TOK_MAC_BYTES], int64_t exp,
                                   int64_t now);
/* Tokens remembered that have not expired at `now`. */
size_t tok_replay_count(const tok_replay *r, int64_t now);

#endif
