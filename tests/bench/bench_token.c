/* token: what --token-key costs a hello. Tokens minted beforehand (each with its own nonce, as
 * a backend mints them) are checked as the server checks them: tok_verify (the signature by
 * OpenSSL's HMAC-SHA256, then the claims) and the replay check, in the server's table size.
 * ns/op is one whole check; the note gives checks a second and the HMAC's share. */
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "mink_token.h"

#define NOW 1999999000

void bench_scene_token(const bench_opts *o)
{
    int n = o->quick ? 2000 : 30000;
    uint8_t key[TOK_KEY_BYTES];
    for (int i = 0; i < TOK_KEY_BYTES; i++)
        key[i] = (uint8_t)(i * 7 + 1);
    char (*tokens)[TOK_MAX_LEN + 1] = bench_xcalloc((size_t)n, TOK_MAX_LEN + 1);
    size_t *lens = bench_xcalloc((size_t)n, sizeof *lens);
    mk_error err = {0};
    for (int i = 0; i < n; i++) {
        tok_claims c = {.exp = NOW + 600, .name = "Player One", .role = "player"};
        snprintf(c.user, sizeof c.user, "user-%d", i);
        snprintf(c.nonce, sizeof c.nonce, "%016x", (unsigned)i * 2654435761u);
        int len = tok_mint(key, &c, tokens[i], TOK_MAX_LEN + 1, &err);
        if (len < 0) {
            fprintf(stderr, "mink-bench: token: %s\n", err.message);
            exit(1);
        }
        lens[i] = (size_t)len;
    }
    tok_replay *r = tok_replay_new(32768);
    int ok = 0;
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < n; i++) {
        tok_claims c;
        ok += tok_verify(key, tokens[i], lens[i], NOW, &c, &err) == 0 &&
              tok_replay_check(r, c.mac, c.exp, NOW) == TOK_FIRST;
    }
    uint64_t t1 = bench_now_ns();
    /* The signature alone, over the same bytes. */
    unsigned char mac[32];
    unsigned int mlen;
    for (int i = 0; i < n; i++) {
        size_t signed_len = (size_t)(strrchr(tokens[i], '.') - tokens[i]);
        HMAC(EVP_sha256(), key, TOK_KEY_BYTES, (unsigned char *)tokens[i], signed_len, mac, &mlen);
    }
    uint64_t t2 = bench_now_ns();
    bench_row row;
    bench_row_init(&row, "token check");
    row.ns_op = (double)(t1 - t0) / n;
    row.bytes_op = (double)lens[0];
    bench_note(&row, "%.0f checks/s (verify + replay), %d of %d let in; HMAC-SHA256 alone %.0f ns",
               1e9 * n / (double)(t1 - t0), ok, n, (double)(t2 - t1) / n);
    bench_row_print(&row);
    tok_replay_free(r);
    free(tokens);
    free(lens);
}
