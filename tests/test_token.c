/* mink_token: connect tokens and the replay check. The expected tokens were minted by the
 * Python of docs/OPERATING.md's "Invited players" (hmac, hashlib, base64, json from Python's
 * standard library) with the key 00 01 02 ... 1f, so they check that a backend in another
 * language and Mink agree byte for byte. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "mink_token.h"

static uint8_t key[TOK_KEY_BYTES];

static void setup_key(void)
{
    for (int i = 0; i < TOK_KEY_BYTES; i++)
        key[i] = (uint8_t)i;
}

#define NOW 1999999000 /* 1,000 s before the tokens below expire */
#define ALICE                                                                                  \
    "v1.eyJzdWIiOiJhbGljZSIsImV4cCI6MjAwMDAwMDAwMCwibmFtZSI6IkFsaWNlIiwicm9sZSI6InBsYXllciIs" \
    "Im5vbmNlIjoibjEifQ.lUEjYf3GuzY1siA09SAVnhcAFhxyHgymgPuSWO2jzjU"
#define BOB                                                                                    \
    "v1.eyJzdWIiOiJib2ItNyIsImV4cCI6MjAwMDAwMDAwMH0.A83OwH2xORaqIqSTXSgOH0w1qB2YWpyJKG4a761bujI"

static int verify(const char *t, int64_t now, tok_claims *c, mk_error *err)
{
    return tok_verify(key, t, strlen(t), now, c, err);
}

START_TEST(python_minted_tokens_are_accepted)
{
    setup_key();
    tok_claims c;
    mk_error err = {0};
    ck_assert_int_eq(verify(ALICE, NOW, &c, &err), 0);
    ck_assert_str_eq(c.user, "alice");
    ck_assert_str_eq(c.name, "Alice");
    ck_assert_str_eq(c.role, "player");
    ck_assert_str_eq(c.nonce, "n1");
    ck_assert_int_eq(c.exp, 2000000000);
    ck_assert_int_eq(verify(BOB, NOW, &c, &err), 0);
    ck_assert_str_eq(c.user, "bob-7");
    ck_assert_str_eq(c.name, "");
    ck_assert_str_eq(c.role, "");
    /* Fields it does not know are ignored. */
    ck_assert_int_eq(verify("v1.eyJzdWIiOiJldmUiLCJleHAiOjIwMDAwMDAwMDAsImV4dHJhIjpbMSwyLHsieCI6"
                            "bnVsbH1dfQ.7G3kVfo2HLEVP8SS5uq62Z9x5leVVajZsEhSG3oRzGs",
                            NOW, &c, &err),
                     0);
    ck_assert_str_eq(c.user, "eve");
}
END_TEST

START_TEST(mint_gives_the_same_bytes_as_python)
{
    setup_key();
    tok_claims c = {.user = "alice", .exp = 2000000000, .name = "Alice", .role = "player",
                    .nonce = "n1"};
    char out[TOK_MAX_LEN + 1];
    mk_error err = {0};
    ck_assert_int_eq(tok_mint(key, &c, out, sizeof out, &err), (int)strlen(ALICE));
    ck_assert_str_eq(out, ALICE);
    tok_claims b = {.user = "bob-7", .exp = 2000000000};
    ck_assert_int_eq(tok_mint(key, &b, out, sizeof out, &err), (int)strlen(BOB));
    ck_assert_str_eq(out, BOB);
    /* What tok_verify would refuse is not minted. */
    tok_claims bad = {.user = "bad user", .exp = 2000000000};
    ck_assert_int_eq(tok_mint(key, &bad, out, sizeof out, &err), -1);
    tok_claims role = {.user = "u", .exp = 2000000000, .role = "Admin"};
    ck_assert_int_eq(tok_mint(key, &role, out, sizeof out, &err), -1);
    tok_claims small = {.user = "u", .exp = 2000000000};
    ck_assert_int_eq(tok_mint(key, &small, out, 20, &err), -1);
}
END_TEST

static void expect_refused(const char *t, int64_t now, const char *why)
{
    tok_claims c;
    mk_error err = {0};
    ck_assert_int_eq(verify(t, now, &c, &err), -1);
    ck_assert_int_eq(err.code, MK_ERR_INVALID);
    ck_assert_msg(strstr(err.message, why) != NULL, "'%s' does not say '%s'", err.message, why);
}

START_TEST(expired_tampered_and_malformed_tokens_are_refused)
{
    setup_key();
    expect_refused(ALICE, 2000000000, "expired");
    expect_refused(ALICE, 2000000001, "expired");
    expect_refused(ALICE, 2000000000 - TOK_MAX_TTL - 1, "more than a day ahead");
    /* Every single character changed in turn: each is refused (most by the signature). */
    char t[sizeof ALICE];
    for (size_t i = 0; i < strlen(ALICE); i++) {
        strcpy(t, ALICE);
        t[i] = t[i] == 'A' ? 'B' : 'A';
        tok_claims c;
        mk_error err = {0};
        ck_assert_msg(verify(t, NOW, &c, &err) == -1, "changed at %zu: accepted", i);
    }
    strcpy(t, ALICE);
    t[40] = t[40] == 'x' ? 'y' : 'x';
    expect_refused(t, NOW, "bad signature");
    /* Another key. */
    uint8_t other[TOK_KEY_BYTES] = {1};
    tok_claims c;
    mk_error err = {0};
    ck_assert_int_eq(tok_verify(other, ALICE, strlen(ALICE), NOW, &c, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "bad signature"));
    /* Signed, but the claims are wrong: a fractional exp, no exp, a user id with a space. */
    expect_refused("v1.eyJzdWIiOiJldmUiLCJleHAiOjIwMDAwMDAwMDAuNX0."
                   "2L-QJmn9gCI5kKN0wS_MMS0ij_0JME-11WeiISRjDAM", NOW, "exp");
    expect_refused("v1.eyJzdWIiOiJldmUifQ.ThpJLVUYODZiMoX4YtMXSG_If8kbTKeVvCe2Oo6C53Q", NOW,
                   "exp");
    expect_refused("v1.eyJzdWIiOiJiYWQgdXNlciIsImV4cCI6MjAwMDAwMDAwMH0."
                   "T4JRm269HEjUJ_5IvwkoQh6iQ4fIKM4YDxIwMFnW0_c", NOW, "sub");
    /* Not tokens at all. */
    expect_refused("", NOW, "not a Mink token");
    expect_refused("v2.abc.def", NOW, "not a Mink token");
    expect_refused("v1.abc", NOW, "not a Mink token");
    expect_refused("v1.abc.!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!", NOW, "base64url");
    char *big = malloc(TOK_MAX_LEN + 2);
    memset(big, 'A', TOK_MAX_LEN + 1);
    big[TOK_MAX_LEN + 1] = '\0';
    expect_refused(big, NOW, "longer than 1024");
    free(big);
}
END_TEST

START_TEST(a_token_is_let_in_once_until_it_expires)
{
    tok_replay *r = tok_replay_new(4);
    ck_assert_ptr_nonnull(r);
    uint8_t mac[TOK_MAC_BYTES] = {0};
    for (int i = 0; i < 4; i++) {
        mac[0] = (uint8_t)i;
        ck_assert_int_eq(tok_replay_check(r, mac, 100 + i, 50), TOK_FIRST);
        ck_assert_int_eq(tok_replay_check(r, mac, 100 + i, 50), TOK_REPLAYED);
    }
    ck_assert_uint_eq(tok_replay_count(r, 50), 4);
    /* Four unexpired tokens fill a table for four: the fifth is refused, not remembered. */
    mac[0] = 9;
    ck_assert_int_eq(tok_replay_check(r, mac, 200, 50), TOK_FULL);
    ck_assert_int_eq(tok_replay_check(r, mac, 200, 50), TOK_FULL);
    /* At 101 the tokens that expired at 100 and 101 make room, and the others are still
     * remembered. */
    ck_assert_int_eq(tok_replay_check(r, mac, 200, 101), TOK_FIRST);
    ck_assert_int_eq(tok_replay_check(r, mac, 200, 101), TOK_REPLAYED);
    mac[0] = 3;
    ck_assert_int_eq(tok_replay_check(r, mac, 103, 101), TOK_REPLAYED);
    mac[0] = 2;
    ck_assert_int_eq(tok_replay_check(r, mac, 102, 101), TOK_REPLAYED);
    ck_assert_uint_eq(tok_replay_count(r, 101), 3);
    tok_replay_free(r);
}
END_TEST

START_TEST(replay_check_holds_over_many_random_tokens)
{
    /* 20,000 tokens through a table for 1,000, each living 500 steps: every one is let in
     * once and refused while it lives, with a brute-force list as the reference. */
    enum { N = 20000, LIVE = 1000, TTL = 500 };
    tok_replay *r = tok_replay_new(LIVE);
    uint8_t (*macs)[TOK_MAC_BYTES] = calloc(N, TOK_MAC_BYTES);
    srand(7);
    for (int i = 0; i < N; i++)
        for (int k = 0; k < TOK_MAC_BYTES; k++)
            macs[i][k] = (uint8_t)rand();
    for (int i = 0; i < N; i++) {
        int64_t now = i / 2; /* two tokens a step: 1,000 live at once at most */
        ck_assert_int_eq(tok_replay_check(r, macs[i], now + TTL, now), TOK_FIRST);
        int j = rand() % (i + 1);
        int64_t exp = j / 2 + TTL;
        tok_replay_result want = exp > now ? TOK_REPLAYED : TOK_FIRST;
        if (want == TOK_REPLAYED)
            ck_assert_int_eq(tok_replay_check(r, macs[j], exp, now), TOK_REPLAYED);
    }
    free(macs);
    tok_replay_free(r);
}
END_TEST

START_TEST(key_files_must_hold_32_bytes)
{
    char path[] = "/tmp/mink-key-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    uint8_t k[TOK_KEY_BYTES];
    mk_error err = {0};
    ck_assert_int_eq(write(fd, "0123456789abcdef0123456789abcdef", 32), 32);
    ck_assert_int_eq(tok_key_load(path, k, &err), 0);
    ck_assert_int_eq(k[31], 'f');
    ck_assert_int_eq(write(fd, "!", 1), 1);
    ck_assert_int_eq(tok_key_load(path, k, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "exactly 32 bytes"));
    close(fd);
    unlink(path);
    ck_assert_int_eq(tok_key_load(path, k, &err), -1);
    ck_assert_int_eq(err.code, MK_ERR_IO);
}
END_TEST

MINK_CHECK_SUITE("token", s)
{
    MINK_TCASE(s, "tokens", 30, python_minted_tokens_are_accepted,
               mint_gives_the_same_bytes_as_python,
               expired_tampered_and_malformed_tokens_are_refused,
               a_token_is_let_in_once_until_it_expires, replay_check_holds_over_many_random_tokens,
               key_files_must_hold_32_bytes);
}
