/* Integration: invited players (--token-key). A hello without a valid token is answered with
 * `unauthorized` and closed; a token lets a player in once; the bodies belong to the token's
 * user, so a player who comes back with a fresh token gets them back, for --keep-bodies
 * seconds. The tokens are minted with mink_token (the same bytes as docs/OPERATING.md's
 * Python, see test_token.c) or by `mink-server --make-token`. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mink_token.h"
#include "server_fixture.h"
#include "token_fixture.h"

static char key_path[64];
static uint8_t key[TOK_KEY_BYTES];

/* A fresh key in a file, and the server started with it (and `more` flags, or NULL). */
static void start_with_key(const char *more, const char *value)
{
    tf_make_key(key_path, key);
    const char *args[] = {"--token-key", key_path, more, value, NULL};
    start(args);
}

static void stop_with_key(void)
{
    stop();
    unlink(key_path);
}

/* A token for `user` expiring `ttl` seconds from now (negative: in the past). */
static void mint(char *out, const char *user, long ttl) { tf_mint(key, out, user, ttl); }

/* Connects with `token` (NULL: none) and expects `unauthorized` naming `why`, then the close. */
static void expect_refused(const char *token, const char *why)
{
    h_conn c;
    char line[2048];
    tf_hello_line(line, sizeof line, token, false);
    ck_assert(h_connect(&c, srv.port));
    ck_assert(h_send_line(&c, line));
    cJSON *m = h_recv(&c, 3000);
    ck_assert_ptr_nonnull(m);
    ck_assert_str_eq(h_str(m, "type"), "error");
    ck_assert_str_eq(h_str(m, "code"), "unauthorized");
    ck_assert_msg(strstr(h_str(m, "message"), why) != NULL, "'%s' does not say '%s'",
                  h_str(m, "message"), why);
    cJSON_Delete(m);
    ck_assert(h_wait_closed(&c, 3000));
    h_close(&c);
}

/* Joins with `token`; returns the welcome. */
static cJSON *join_token(h_conn *c, const char *token, bool avatar)
{
    char line[2048];
    tf_hello_line(line, sizeof line, token, avatar);
    return join(c, line);
}

START_TEST(open_server_says_so)
{
    h_conn c;
    start_and_join(&c, NULL);
    ck_assert(h_server_log_has(&srv, "no --token-key: the server is open"));
    h_close(&c);
    stop();
}
END_TEST

START_TEST(only_a_valid_token_gets_in_and_only_once)
{
    start_with_key(NULL, NULL);
    char token[TOK_MAX_LEN + 1];
    expect_refused(NULL, "only players with a token");
    mint(token, "alice", -1);
    expect_refused(token, "expired");
    mint(token, "alice", 60);
    char tampered[TOK_MAX_LEN + 1];
    strcpy(tampered, token);
    tampered[10] = tampered[10] == 'A' ? 'B' : 'A';
    expect_refused(tampered, "bad signature");
    expect_refused("v1.e30.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "bad signature");
    /* Before hello, ping is answered as on an open server. */
    h_conn c;
    ck_assert(h_connect(&c, srv.port));
    expect_alive(&c);
    char line[2048];
    tf_hello_line(line, sizeof line, token, false);
    ck_assert(h_send_line(&c, line));
    cJSON *w = h_recv_type(&c, "welcome", 3000);
    ck_assert_ptr_nonnull(w);
    ck_assert_double_gt(h_num(w, "client"), 0);
    cJSON_Delete(w);
    expect_alive(&c);
    /* The same token again: replayed, refused, while the first connection goes on. */
    expect_refused(token, "already used");
    expect_alive(&c);
    ck_assert(h_server_log_has(&srv, "shown again"));
    h_close(&c);
    stop_with_key();
}
END_TEST

START_TEST(a_player_back_with_a_fresh_token_gets_their_bodies)
{
    start_with_key(NULL, NULL);
    char token[TOK_MAX_LEN + 1];
    h_conn a, b;
    mint(token, "alice", 60);
    cJSON *w = join_token(&a, token, true);
    double owner = h_num(w, "client"), avatar = h_num(w, "avatar");
    cJSON_Delete(w);
    ck_assert_double_gt(avatar, 0);
    double box = spawn_ok(&a, 1, "{\"shape\":{\"type\":\"circle\",\"radius\":0.3},\"pos\":[5,9]}");
    /* Another player may not touch alice's bodies. */
    mint(token, "bob", 60);
    w = join_token(&b, token, false);
    ck_assert_double_ne(h_num(w, "client"), owner);
    cJSON_Delete(w);
    char line[256];
    despawn(&b, 2, box, line, sizeof line);
    expect_error(&b, "not_owner");
    /* alice's connection breaks; she comes back with a fresh token: same owner, same avatar,
     * her body still hers (and shown with her as owner to a newcomer). */
    h_close(&a);
    h_sleep_ms(200);
    mint(token, "alice", 60);
    w = join_token(&a, token, false);
    ck_assert_double_eq(h_num(w, "client"), owner);
    ck_assert_double_eq(h_num(w, "avatar"), avatar);
    cJSON_Delete(w);
    expect_owner(&a, box, owner);
    cJSON *m = request(&a, line, "despawned");
    ck_assert_double_eq(h_num(m, "id"), box);
    cJSON_Delete(m);
    /* Inputs go to the avatar she got back. */
    ck_assert_double_ge(send_inputs_to_ack(&a, "[1,0]", 3), 3);
    ck_assert(h_server_log_has(&srv, "back, with the bodies kept"));
    /* Signing in again while connected: the new connection wins, the old one is told. */
    h_conn a2;
    mint(token, "alice", 60);
    w = join_token(&a2, token, false);
    ck_assert_double_eq(h_num(w, "client"), owner);
    ck_assert_double_eq(h_num(w, "avatar"), avatar);
    cJSON_Delete(w);
    expect_error(&a, "unauthorized");
    ck_assert(h_wait_closed(&a, 3000));
    expect_alive(&a2);
    h_close(&a);
    h_close(&a2);
    h_close(&b);
    stop_with_key();
}
END_TEST

START_TEST(bodies_of_a_player_who_does_not_come_back_go)
{
    start_with_key("--keep-bodies", "0.5");
    char token[TOK_MAX_LEN + 1];
    h_conn a;
    mint(token, "carol", 60);
    cJSON *w = join_token(&a, token, true);
    double owner = h_num(w, "client"), avatar = h_num(w, "avatar");
    cJSON_Delete(w);
    h_close(&a);
    h_sleep_ms(1500);
    ck_assert(h_server_log_has(&srv, "did not come back in time; 1 bodies removed"));
    /* Back too late: forgotten, a new player with a new owner number and no avatar. */
    mint(token, "carol", 60);
    w = join_token(&a, token, false);
    ck_assert_double_ne(h_num(w, "client"), owner);
    expect_forgotten(&a, w, avatar);
    h_close(&a);
    stop_with_key();
}
END_TEST

START_TEST(make_token_and_client_token_flags)
{
    start_with_key(NULL, NULL);
    char cmd[8192], out[4096];
    snprintf(cmd, sizeof cmd, "%s --make-token --token-key %s --user dave --ttl 30 --role gm",
             MINK_SERVER_PATH, key_path);
    int status = run_command(cmd, out, sizeof out);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    out[strcspn(out, "\n")] = '\0';
    tok_claims c;
    mk_error err = {0};
    ck_assert_int_eq(tok_verify(key, out, strlen(out), (int64_t)time(NULL), &c, &err), 0);
    ck_assert_str_eq(c.user, "dave");
    ck_assert_str_eq(c.role, "gm");
    ck_assert_int_le(c.exp, (int64_t)time(NULL) + 30);
    ck_assert_int_ge(c.exp, (int64_t)time(NULL) + 28);
    /* mink-client sends it. */
    snprintf(cmd, sizeof cmd, "%s --port %d --token %s --bot 1 < /dev/null", MINK_CLIENT_PATH,
             srv.port, out);
    status = run_command(cmd, out, sizeof out);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "bot exit %d: %s", status, out);
    ck_assert_ptr_nonnull(strstr(out, "states received"));
    ck_assert(h_server_log_has(&srv, "user dave role gm"));
    /* Without a token the bot is refused. */
    snprintf(cmd, sizeof cmd, "%s --port %d --bot 1 < /dev/null 2>&1", MINK_CLIENT_PATH,
             srv.port);
    status = run_command(cmd, out, sizeof out);
    ck_assert(!WIFEXITED(status) || WEXITSTATUS(status) != 0);
    ck_assert_msg(strstr(out, "unauthorized") != NULL, "%s", out);
    stop_with_key();
    /* Bad uses of the flags. */
    ck_assert_int_eq(server_exit_code("--make-token --user x 2>/dev/null"), 2);
    ck_assert_int_eq(server_exit_code("--token-key /nonexistent 2>/dev/null"), 2);
    ck_assert_int_eq(server_exit_code("--token-key /dev/null --make-token --user x 2>/dev/null"),
                     2);
}
END_TEST

void server_token_tests(TCase *tc)
{
    tcase_add_test(tc, open_server_says_so);
    tcase_add_test(tc, only_a_valid_token_gets_in_and_only_once);
    tcase_add_test(tc, a_player_back_with_a_fresh_token_gets_their_bodies);
    tcase_add_test(tc, bodies_of_a_player_who_does_not_come_back_go);
    tcase_add_test(tc, make_token_and_client_token_flags);
}
