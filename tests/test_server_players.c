/* Integration: invited players (--token-key) outlive a crash of a server with --save. Their
 * table is kept in FILE.players; a server killed with SIGKILL and started again on the same
 * save brings its players back, away since the restart: a player who comes back with a fresh
 * token owns their bodies and avatar again, another client does not, a new client's id is not
 * a player's owner number, and a player who does not come back within --keep-bodies loses
 * their bodies. A damaged FILE.players is refused with its reason and the server runs. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "mk_crc.h"
#include "mink_token.h"
#include "server_fixture.h"
#include "token_fixture.h"

static char key_path[64], save_path[64], players_path[80];
static uint8_t key[TOK_KEY_BYTES];
static const char *args[16];

/* A fresh key in a file and a save path of this test's own; the server's flags with
 * --keep-bodies `keep`. */
static void setup_files(const char *keep)
{
    srand((unsigned)getpid());
    tf_make_key(key_path, key);
    snprintf(save_path, sizeof save_path, "/tmp/mink-players-%d", (int)getpid());
    snprintf(players_path, sizeof players_path, "%s.players", save_path);
    const char *a[] = {"--token-key", key_path, "--save", save_path, "--fsync-ms", "50",
                       "--keep-bodies", keep, NULL};
    memcpy(args, a, sizeof a);
}

static void remove_files(void)
{
    h_remove_save(save_path);
    char name[96];
    snprintf(name, sizeof name, "%s.tmp", players_path);
    unlink(name);
    unlink(players_path);
    unlink(key_path);
}

/* Joins as `user` with a fresh token (and a kinematic avatar when `avatar`); the welcome. */
static cJSON *join_as(h_conn *c, const char *user, bool avatar)
{
    char token[TOK_MAX_LEN + 1], line[2048];
    tf_mint(key, token, user, 60);
    tf_hello_line(line, sizeof line, token, avatar);
    return join(c, line);
}

/* Waits up to 3 s for the players file to hold `text`. */
static bool players_file_has(const char *text)
{
    for (int i = 0; i < 300; i++) {
        if (file_has(players_path, text))
            return true;
        h_sleep_ms(10);
    }
    return false;
}

/* The players file lists `user` as owner `client` with `avatar` (0: none). */
static void expect_listed(double client, double avatar, const char *user)
{
    char want[160];
    snprintf(want, sizeof want, "%.0f %.0f %s *\n", client, avatar, user);
    ck_assert_msg(players_file_has(want), "no '%s' in %s", want, players_path);
}

/* A small circle of c's at (x, 9), spawned with req `n`; its id. */
static double spawn_circle(h_conn *c, int n, int x)
{
    char body[128];
    snprintf(body, sizeof body,
             "{\"shape\":{\"type\":\"circle\",\"radius\":0.3},\"pos\":[%d,9]}", x);
    return spawn_ok(c, n, body);
}

/* A server with --keep-bodies 60 and one player, `user`, listed in the players file and owning
 * a circle (returned); the player's owner number in *client. */
static double start_with_player(h_conn *a, const char *user, double *client)
{
    setup_files("60");
    start(args);
    cJSON *w = join_as(a, user, false);
    *client = h_num(w, "client");
    cJSON_Delete(w);
    double box = spawn_circle(a, 1, 5);
    expect_listed(*client, 0, user);
    return box;
}

/* `user` joins again and owns `box` no more: its despawn is not_owner. */
static void expect_owns_no_more(h_conn *a, const char *user, double box)
{
    cJSON_Delete(join_as(a, user, false));
    char line[128];
    despawn(a, 2, box, line, sizeof line);
    expect_error(a, "not_owner");
}

/* Kills the server with SIGKILL once the journal has been flushed past what the test did
 * (--fsync-ms 50: 400 ms is several flushes). */
static void crash(void)
{
    h_sleep_ms(400);
    ck_assert_int_eq(h_server_stop(&srv, SIGKILL, 3000), -2);
    unlink(srv.log_path);
}

/* The same, and the server started again on the same save. */
static void crash_and_restart(void)
{
    crash();
    start(args);
}

START_TEST(a_player_owns_their_bodies_again_after_a_crash)
{
    setup_files("60");
    start(args);
    h_conn a, b, c;
    cJSON *w = join_as(&a, "alice", true);
    double alice = h_num(w, "client"), avatar = h_num(w, "avatar");
    cJSON_Delete(w);
    ck_assert_double_gt(avatar, 0);
    double box1 = spawn_circle(&a, 1, 5);
    double box2 = spawn_circle(&a, 2, 6);
    w = join_as(&b, "bob", false);
    double bob = h_num(w, "client");
    cJSON_Delete(w);
    ck_assert_double_ne(bob, alice);
    double box3 = spawn_circle(&b, 1, -5);
    /* The table on disk: both players, alice with her avatar. */
    expect_listed(alice, avatar, "alice");
    expect_listed(bob, 0, "bob");
    ck_assert(file_has(players_path, "mink-players 1 2\n"));
    h_close(&a);
    h_close(&b);

    crash_and_restart();
    ck_assert(h_server_log_has(&srv, "--save: restored "));
    ck_assert_msg(h_server_log_has(&srv, "2 players back, away since the restart: 4 bodies keep "
                                         "their owners"), "restart did not bring the players back");
    /* A newcomer first: its id is above every player's owner number. */
    w = join_as(&c, "carol", false);
    double carol = h_num(w, "client");
    cJSON_Delete(w);
    ck_assert_double_gt(carol, alice);
    ck_assert_double_gt(carol, bob);
    /* alice back with a fresh token: her owner number and avatar. */
    w = join_as(&a, "alice", false);
    ck_assert_double_eq(h_num(w, "client"), alice);
    ck_assert_double_eq(h_num(w, "avatar"), avatar);
    cJSON_Delete(w);
    expect_owner(&a, box2, alice);
    expect_owner(&c, box3, bob);
    char line[128];
    /* carol may not touch alice's or bob's bodies. */
    despawn(&c, 1, box1, line, sizeof line);
    expect_error(&c, "not_owner");
    despawn(&c, 2, box3, line, sizeof line);
    expect_error(&c, "not_owner");
    /* alice may remove hers, not bob's. */
    despawn(&a, 3, box1, line, sizeof line);
    cJSON *m = h_recv_type(&a, "despawned", 3000);
    ck_assert_ptr_nonnull(m);
    ck_assert_double_eq(h_num(m, "id"), box1);
    cJSON_Delete(m);
    despawn(&a, 4, box3, line, sizeof line);
    expect_error(&a, "not_owner");
    /* Inputs go to the avatar she got back. */
    ck_assert_double_ge(send_inputs_to_ack(&a, "[1,0]", 3), 3);
    /* The table now has carol too, and survives a second crash with all three. */
    expect_listed(carol, 0, "carol");
    h_close(&a);
    h_close(&c);
    crash_and_restart();
    ck_assert(h_server_log_has(&srv, "3 players back"));
    w = join_as(&b, "bob", false);
    ck_assert_double_eq(h_num(w, "client"), bob);
    cJSON_Delete(w);
    despawn(&b, 5, box3, line, sizeof line);
    m = h_recv_type(&b, "despawned", 3000);
    ck_assert_ptr_nonnull(m);
    ck_assert_double_eq(h_num(m, "id"), box3);
    cJSON_Delete(m);
    h_close(&b);
    stop();
    remove_files();
}
END_TEST

/* Cuts the players file to `keep` bytes (negative: that many fewer), or flips a bit of byte
 * `flip` when `flip` >= 0. */
static void damage(long keep, long flip)
{
    FILE *f = fopen(players_path, "r+b");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    if (flip >= 0) {
        ck_assert_int_lt(flip, size);
        fseek(f, flip, SEEK_SET);
        int ch = fgetc(f);
        fseek(f, flip, SEEK_SET);
        fputc(ch ^ 0x01, f);
        fclose(f);
        return;
    }
    fclose(f);
    ck_assert_int_eq(truncate(players_path, keep < 0 ? size + keep : keep), 0);
}

START_TEST(a_damaged_players_file_is_refused_and_the_server_runs)
{
    h_conn a;
    double dave;
    double box = start_with_player(&a, "dave", &dave);
    cJSON *w;
    h_close(&a);
    crash();

    /* Cut short in the checksum line: refused, the body comes back without an owner. */
    damage(-5, -1);
    start(args);
    ck_assert_msg(h_server_log_has(&srv, "--save: players refused: "),
                  "a cut players file was not refused");
    ck_assert(h_server_log_has(&srv, ".players: no checksum line at the end (cut short?); the "
                                     "bodies come back without owners"));
    ck_assert(h_server_log_has(&srv, "0 players back"));
    expect_owns_no_more(&a, "dave", box);
    expect_alive(&a);
    h_close(&a);
    /* The start wrote the table anew: dave is in it again with the number he has now. */
    ck_assert(players_file_has(" dave *\n"));
    crash();

    /* One bit of the owner number flipped: the checksum does not match. */
    damage(0, strlen("mink-players 1 1\n"));
    start(args);
    ck_assert(h_server_log_has(&srv, "do not match their checksum"));
    ck_assert(h_server_log_has(&srv, "0 players back"));
    ck_assert(players_file_has("mink-players 1 0\n"));
    h_conn b;
    w = join_as(&b, "erin", false);
    ck_assert_double_gt(h_num(w, "client"), 0);
    cJSON_Delete(w);
    expect_alive(&b);
    h_close(&b);
    ck_assert_int_eq(h_server_stop(&srv, SIGKILL, 3000), -2);
    unlink(srv.log_path);

    /* Another format's file (here: a later version, its checksum right) is refused for that. */
    FILE *f = fopen(players_path, "wb");
    ck_assert_ptr_nonnull(f);
    const char *head = "mink-players 2 0\n";
    fprintf(f, "%scrc32c %08x\n", head, (unsigned)mk_crc32c(0, head, strlen(head)));
    fclose(f);
    start(args);
    ck_assert(h_server_log_has(&srv, "line 1: format version 2, this build reads 1"));
    ck_assert(h_server_log_has(&srv, "0 players back"));
    stop();
    remove_files();
}
END_TEST

START_TEST(a_player_who_does_not_come_back_after_a_restart_loses_their_bodies)
{
    setup_files("1");
    start(args);
    h_conn a;
    cJSON *w = join_as(&a, "frank", true);
    double frank = h_num(w, "client"), avatar = h_num(w, "avatar");
    cJSON_Delete(w);
    double box = spawn_circle(&a, 1, 5);
    expect_listed(frank, avatar, "frank");
    char want[160];
    /* Still connected when the server dies: his bodies are his after the restart, for
     * --keep-bodies 1 s from it. */
    crash_and_restart();
    ck_assert(h_server_log_has(&srv, "1 players back, away since the restart: 2 bodies keep"));
    h_close(&a);
    h_conn c;
    h_sleep_ms(2000);
    snprintf(want, sizeof want, "player frank (owner %.0f): did not come back in time; 2 bodies "
             "removed", frank);
    ck_assert_msg(h_server_log_has(&srv, want), "no '%s' in the log", want);
    ck_assert(players_file_has("mink-players 1 0\n"));
    /* Back too late: a new player, with a new owner number, and the box is gone. */
    w = join_as(&c, "frank", false);
    ck_assert_double_gt(h_num(w, "client"), frank);
    expect_forgotten(&c, w, box);
    h_close(&c);
    stop();
    remove_files();
}
END_TEST

/* A restart without --token-key leaves every body ownerless and drops the table: a later
 * restart with the key has no players, and its newcomers own nothing of the old ones'. */
START_TEST(an_open_restart_drops_the_table_of_players)
{
    h_conn a;
    double gina;
    double box = start_with_player(&a, "gina", &gina);
    h_close(&a);
    stop();
    const char *open_args[] = {"--save", save_path, NULL};
    start(open_args);
    ck_assert(h_server_log_has(&srv, ".players removed: without --token-key the save's bodies "
                                     "have no players"));
    ck_assert_int_ne(access(players_path, F_OK), 0);
    stop();
    start(args);
    ck_assert(h_server_log_has(&srv, ".players: the bodies come back without owners"));
    ck_assert(h_server_log_has(&srv, "0 players back"));
    expect_owns_no_more(&a, "gina", box);
    h_close(&a);
    stop();
    remove_files();
}
END_TEST

MINK_CHECK_TESTS("server_players", 60, a_player_owns_their_bodies_again_after_a_crash,
                 a_damaged_players_file_is_refused_and_the_server_runs,
                 a_player_who_does_not_come_back_after_a_restart_loses_their_bodies,
                 an_open_restart_drops_the_table_of_players)
