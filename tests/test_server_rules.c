/* Integration: a server running a game's rules (--script, tests/data/rules/game.lua), over
 * loopback: a script that does not load stops the start with its file and line; hooks reach
 * clients as `event` lines in order with the states; actions are answered, every one, within
 * their rate; a refusal and a kick reach the client; SIGHUP reloads the script and keeps the
 * old one when the new one does not load; /metrics counts the hooks and their stops; a `game`
 * connection acts on any body, emits to players and hears every message. */
#include <stdint.h>
#include <time.h>

#include "check_main.h"
#include "game_fixture.h"
#include "http_client.h"
#include "mink_token.h"

#define SCRIPT MINK_SOURCE_DIR "/tests/data/rules/game.lua"
#define HELLO(name) "{\"type\":\"hello\",\"protocol\":1,\"name\":\"" name "\"}"

static h_server srv;

static void start_rules(const char *const *more)
{
    const char *args[32] = {"--script", SCRIPT, "--script-budget", "200000", NULL};
    int n = 4;
    for (int i = 0; more && more[i]; i++)
        args[n++] = more[i];
    args[n] = NULL;
    ck_assert(h_server_start(&srv, args));
}

/* start_rules with an HTTP port: its number. */
static int start_with_http(void)
{
    int http = http_free_port();
    char port[16];
    snprintf(port, sizeof port, "%d", http);
    const char *more[] = {"--http-port", port, NULL};
    start_rules(more);
    return http;
}

/* start_rules(NULL), then joins `c` with `hello`; returns the welcome's client id. */
static double start_and_join(h_conn *c, const char *hello)
{
    start_rules(NULL);
    return game_join(c, &srv, hello);
}

static void stop_server(void) { ck_assert_int_eq(h_server_stop(&srv, SIGTERM, 5000), 0); }

/* Writes `text` to `path`. */
static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

START_TEST(a_script_that_does_not_load_stops_the_start)
{
    char path[] = "/tmp/mink_rules_bad_XXXXXX";
    game_temp(path);
    write_file(path, "function on_start(game)\n  local x = = 1\nend\n");
    char cmd[512], out[1024] = "";
    snprintf(cmd, sizeof cmd, "%s --port 0 --http-port 0 --script %s 2>&1", MINK_SERVER_PATH,
             path);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t got = fread(out, 1, sizeof out - 1, p);
    out[got] = '\0';
    int st = pclose(p);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 1);
    char want[128];
    snprintf(want, sizeof want, "%s:2: unexpected symbol near '='", path);
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);
    snprintf(cmd, sizeof cmd, "%s --port 0 --http-port 0 --script %s.gone 2>/dev/null",
             MINK_SERVER_PATH, path);
    ck_assert_int_eq(game_shell(cmd), 1);
    unlink(path);
}
END_TEST

/* on_join's broadcast reaches the players in the game; a refused player gets the script's
 * reason as `unauthorized` after its welcome, and is closed; on_leave's broadcast follows a
 * close. */
START_TEST(join_refuse_and_leave)
{
    h_conn a, b, m;
    double ida = start_and_join(&a, HELLO("ann"));
    cJSON *ev;
    const cJSON *d = game_event_data(&a, "joined", 2000, &ev);
    ck_assert_double_eq(h_num(d, "id"), ida);
    ck_assert_double_eq(h_num(d, "joins"), 1);
    cJSON_Delete(ev);
    game_join(&m, &srv, HELLO("mallory"));
    cJSON *err = h_recv_type(&m, "error", 2000);
    ck_assert_ptr_nonnull(err);
    ck_assert_str_eq(h_str(err, "code"), "unauthorized");
    ck_assert_str_eq(h_str(err, "message"), "mallory may not play");
    cJSON_Delete(err);
    ck_assert(h_wait_closed(&m, 2000));
    h_close(&m);
    double idb = game_join(&b, &srv, HELLO("bob"));
    d = game_event_data(&a, "joined", 2000, &ev);
    ck_assert_double_eq(h_num(d, "id"), idb);
    ck_assert_double_eq(h_num(d, "joins"), 2); /* mallory never joined the game */
    cJSON_Delete(ev);
    h_close(&b);
    d = game_event_data(&a, "left", 2000, &ev);
    ck_assert_double_eq(h_num(d, "id"), idb);
    ck_assert_str_eq(h_str(d, "name"), "bob");
    cJSON_Delete(ev);
    h_close(&a);
    stop_server();
}
END_TEST

/* Every action is answered: done, the script's refusal, a budget stop and a memory stop named
 * as such; the game goes on after both stops. */
START_TEST(actions_answered)
{
    const char *more[] = {"--script-memory", "4194304", NULL};
    start_rules(more);
    h_conn c;
    game_join(&c, &srv, HELLO("ann"));
    game_action_ok(&c, 1, "echo", "{\"x\":[1,2.5,\"s\"]}");
    cJSON *ev;
    const cJSON *d = game_event_data(&c, "echo", 2000, &ev);
    ck_assert_double_eq(h_vec(d, "x", 1), 2.5);
    cJSON_Delete(ev);
    const char *cases[][2] = {
        {"nope", "unknown action nope"},
        {"spin", "the game's rules failed on this action: stopped at its instruction budget "
                 "(--script-budget)"},
        {"grow", "the game's rules failed on this action: stopped at its memory cap "
                 "(--script-memory)"},
    };
    for (int i = 0; i < 3; i++) {
        cJSON *m = game_action(&c, 2 + i, cases[i][0], NULL);
        ck_assert_str_eq(h_str(m, "type"), "error");
        ck_assert_str_eq(h_str(m, "code"), "bad_request");
        ck_assert_str_eq(h_str(m, "message"), cases[i][1]);
        cJSON_Delete(m);
    }
    game_action_ok(&c, 9, "echo", "7");
    /* A name too long, data too big: the protocol's bad_request, naming the field. */
    char line[6000];
    snprintf(line, sizeof line, "{\"type\":\"action\",\"req\":10,\"name\":\"%070d\"}", 0);
    ck_assert(h_send_line(&c, line));
    cJSON *m = h_recv_type(&c, "error", 2000);
    ck_assert_ptr_nonnull(strstr(h_str(m, "message"), "name: longer than 64 bytes"));
    cJSON_Delete(m);
    snprintf(line, sizeof line,
             "{\"type\":\"action\",\"req\":11,\"name\":\"echo\",\"data\":\"%04200d\"}", 0);
    ck_assert(h_send_line(&c, line));
    m = h_recv_type(&c, "error", 2000);
    ck_assert_ptr_nonnull(strstr(h_str(m, "message"), "data: longer than 4096 bytes"));
    cJSON_Delete(m);
    h_close(&c);
    stop_server();
    ck_assert(h_server_log_has(&srv, "on_action stopped"));
}
END_TEST

/* 200 actions at once: each answered, done or rate_limited, and at most the burst (60) done. */
START_TEST(actions_rate_limited)
{
    h_conn c;
    start_and_join(&c, HELLO("ann"));
    char line[128];
    for (int i = 1; i <= 200; i++) {
        snprintf(line, sizeof line, "{\"type\":\"action\",\"req\":%d,\"name\":\"nope\"}", i);
        ck_assert(h_send_line(&c, line));
    }
    int answered = 0, limited = 0;
    long long end = h_now_ms() + 10000;
    while (answered < 200 && h_now_ms() < end) {
        cJSON *m = h_recv_type(&c, "error", 1000);
        if (!m)
            continue;
        answered++;
        limited += strcmp(h_str(m, "code"), "rate_limited") == 0;
        cJSON_Delete(m);
    }
    ck_assert_int_eq(answered, 200);
    ck_assert_int_ge(limited, 200 - 62); /* the burst, and what refilled meanwhile */
    h_close(&c);
    stop_server();
}
END_TEST

/* on_tick's broadcast of its tick: a state of tick S comes after the event of tick S and
 * before that of S + 1. */
START_TEST(events_in_order_with_states)
{
    h_conn c;
    start_and_join(&c, HELLO("ann"));
    game_action_ok(&c, 1, "tick_events", NULL);
    double last_event = -1;
    int states = 0;
    long long end = h_now_ms() + 3000;
    while (states < 20 && h_now_ms() < end) {
        cJSON *m = h_recv(&c, 500);
        if (!m)
            continue;
        const char *type = h_str(m, "type");
        if (strcmp(type, "event") == 0 && strcmp(h_str(m, "name"), "tick") == 0) {
            double t = h_num(cJSON_GetObjectItemCaseSensitive(m, "data"), "tick");
            if (last_event >= 0)
                ck_assert_double_eq(t, last_event + 1);
            last_event = t;
        } else if (strcmp(type, "state") == 0 && last_event >= 0) {
            ck_assert_double_eq(h_num(m, "tick"), last_event);
            states++;
        }
        cJSON_Delete(m);
    }
    ck_assert_int_eq(states, 20);
    h_close(&c);
    stop_server();
}
END_TEST

/* SIGHUP reloads the script (VERSION 2); a script that does not load leaves it running. */
START_TEST(sighup_reloads)
{
    char path[] = "/tmp/mink_rules_hup_XXXXXX";
    game_temp(path);
    FILE *in = fopen(SCRIPT, "r");
    ck_assert_ptr_nonnull(in);
    static char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, in);
    text[n] = '\0';
    fclose(in);
    write_file(path, text);
    const char *args[] = {"--script", path, NULL};
    ck_assert(h_server_start(&srv, args));
    h_conn c;
    game_join(&c, &srv, HELLO("ann"));
    for (int round = 0; round < 3; round++) {
        if (round == 1) {
            char *v = strstr(text, "VERSION = 1");
            v[10] = '2';
            write_file(path, text);
        } else if (round == 2) {
            write_file(path, "function on_action(game, p, name) return false, 'v3'\n");
        }
        if (round > 0) {
            kill(srv.pid, SIGHUP);
            h_sleep_ms(300);
        }
        game_action_ok(&c, round + 1, "version", NULL);
        cJSON *ev;
        const cJSON *d = game_event_data(&c, "version", 2000, &ev);
        ck_assert_double_eq(h_num(d, "v"), round == 0 ? 1 : 2);
        cJSON_Delete(ev);
    }
    ck_assert(h_server_log_has(&srv, "the script was not reloaded, the old one runs on"));
    h_close(&c);
    stop_server();
    unlink(path);
}
END_TEST

START_TEST(metrics_count_hooks)
{
    int http = start_with_http();
    h_conn c;
    game_join(&c, &srv, HELLO("ann"));
    cJSON_Delete(game_action(&c, 1, "spin", NULL));
    game_action_ok(&c, 2, "echo", "1");
    h_sleep_ms(200);
    http_resp r;
    ck_assert(http_get(http, "/metrics", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_double_eq(http_metric(r.body, "mink_script_budget_stops_total{hook=\"on_action\"}"),
                        1);
    ck_assert_double_eq(http_metric(r.body, "mink_script_hook_calls_total{hook=\"on_action\"}"),
                        2);
    ck_assert_double_eq(http_metric(r.body, "mink_script_hook_calls_total{hook=\"on_join\"}"), 1);
    ck_assert_double_eq(http_metric(r.body, "mink_script_hook_calls_total{hook=\"on_start\"}"),
                        1);
    ck_assert_double_eq(http_metric(r.body, "mink_script_actions_refused_total"), 1);
    ck_assert_double_gt(http_metric(r.body, "mink_script_hook_calls_total{hook=\"on_tick\"}"), 0);
    http_resp_free(&r);
    h_close(&c);
    stop_server();
}
END_TEST

/* game.kick: the reason, then the close, and on_leave. */
START_TEST(kick_closes)
{
    h_conn a, b;
    start_and_join(&a, HELLO("ann"));
    double idb = game_join(&b, &srv, HELLO("bob"));
    ck_assert(h_send_line(&b, "{\"type\":\"action\",\"name\":\"kick_me\"}"));
    cJSON *err = h_recv_type(&b, "error", 2000);
    ck_assert_ptr_nonnull(err);
    ck_assert_str_eq(h_str(err, "message"), "asked to be kicked");
    cJSON_Delete(err);
    ck_assert(h_wait_closed(&b, 2000));
    cJSON *ev;
    const cJSON *d = game_event_data(&a, "left", 2000, &ev);
    ck_assert_double_eq(h_num(d, "id"), idb);
    cJSON_Delete(ev);
    h_close(&a);
    h_close(&b);
    stop_server();
}
END_TEST

/* The token key of the signed tests, and its file. */
static uint8_t key[TOK_KEY_BYTES];
static char keypath[32];

/* Joins `c` with a token for `user` in `role` ("" for a player) whose nonce is `nonce`, signed
 * with `key`; returns the welcome's client id. */
static double join_signed(h_conn *c, const char *user, const char *role, const char *nonce)
{
    tok_claims claims = {.exp = (int64_t)time(NULL) + 60};
    snprintf(claims.user, sizeof claims.user, "%s", user);
    snprintf(claims.role, sizeof claims.role, "%s", role);
    snprintf(claims.nonce, sizeof claims.nonce, "%s", nonce);
    mk_error err = {0};
    char tok[TOK_MAX_LEN + 1], line[TOK_MAX_LEN + 512];
    ck_assert_int_gt(tok_mint(key, &claims, tok, sizeof tok, &err), 0);
    snprintf(line, sizeof line, "{\"type\":\"hello\",\"protocol\":1,\"token\":\"%s\"}", tok);
    return game_join(c, &srv, line);
}

/* A key in a new file (`keypath`, `key`), mink-server started with it as the token key, and
 * `c` joined as the player ann; returns ann's client id. */
static double start_signed(h_conn *c)
{
    snprintf(keypath, sizeof keypath, "/tmp/mink_rules_key_XXXXXX");
    int fd = mkstemp(keypath);
    ck_assert_int_ge(fd, 0);
    for (int i = 0; i < TOK_KEY_BYTES; i++)
        key[i] = (uint8_t)(i * 37 + 11);
    ck_assert_int_eq(write(fd, key, TOK_KEY_BYTES), (ssize_t)TOK_KEY_BYTES);
    close(fd);
    const char *more[] = {"--token-key", keypath, NULL};
    start_rules(more);
    return join_signed(c, "ann", "", "ann");
}

/* An invited player who signs in again on a new connection leaves the game on the old one
 * and joins again on the new one, as the same player: on_leave, then on_join, not a refusal. */
START_TEST(signing_in_again_rejoins)
{
    h_conn a, b;
    double first = start_signed(&a);
    /* A second token of the same user, with a nonce of its own. */
    double second = join_signed(&b, "ann", "", "again");
    ck_assert_double_eq(second, first); /* the player's owner number, on both connections */
    cJSON *ev;
    const cJSON *d = game_event_data(&b, "joined", 2000, &ev);
    ck_assert_double_eq(h_num(d, "id"), first);
    ck_assert_double_eq(h_num(d, "joins"), 2);
    cJSON_Delete(ev);
    ck_assert(!h_server_log_has(&srv, "already in the game"));
    h_close(&a);
    h_close(&b);
    stop_server();
    unlink(keypath);
}
END_TEST

/* A `game` connection pushes a player's body, emits to that player and to all, and hears the
 * rules' messages to anyone; a player's emit is unauthorized; what the game connection spawns
 * and joins is the world's and outlives it. */
START_TEST(game_role_connection)
{
    h_conn p, g;
    double ann = start_signed(&p);
    ck_assert(h_send_line(&p, "{\"type\":\"spawn\",\"body\":{\"shape\":{\"type\":\"box\","
                              "\"half\":[0.5,0.5]},\"pos\":[5,5]}}"));
    cJSON *spawned = h_recv_type(&p, "spawned", 2000);
    ck_assert_ptr_nonnull(spawned);
    double body = h_num(spawned, "id");
    cJSON_Delete(spawned);
    join_signed(&g, "backend", "game", "backend");
    char line[256];
    snprintf(line, sizeof line, "{\"type\":\"push\",\"req\":1,\"id\":%.0f,\"impulse\":[1,0]}",
             body);
    ck_assert(h_send_line(&g, line));
    cJSON *m = h_recv_type(&g, "pushed", 2000);
    ck_assert_ptr_nonnull(m);
    cJSON_Delete(m);
    snprintf(line, sizeof line,
             "{\"type\":\"emit\",\"req\":2,\"to\":%.0f,\"name\":\"hello\",\"data\":{\"a\":1}}",
             ann);
    ck_assert(h_send_line(&g, line));
    m = h_recv_type(&g, "done", 2000);
    ck_assert_ptr_nonnull(m);
    cJSON_Delete(m);
    cJSON *ev;
    const cJSON *d = game_event_data(&p, "hello", 2000, &ev);
    ck_assert_double_eq(h_num(d, "a"), 1);
    cJSON_Delete(ev);
    /* The rules' message to ann alone reaches the game connection too. */
    game_action_ok(&p, 3, "echo", "5");
    ev = game_event(&g, "echo", 2000);
    ck_assert_ptr_nonnull(ev);
    cJSON_Delete(ev);
    ck_assert(h_send_line(&p, "{\"type\":\"emit\",\"req\":4,\"name\":\"x\"}"));
    m = h_recv_type(&p, "error", 2000);
    ck_assert_str_eq(h_str(m, "code"), "unauthorized");
    cJSON_Delete(m);
    /* What the game connection spawns and joins is the world's: it welds ann's box to a post
     * of its own, and both stay when it goes. */
    ck_assert(h_send_line(&g, "{\"type\":\"spawn\",\"req\":5,\"body\":{\"shape\":{\"type\":"
                              "\"box\",\"half\":[0.5,2]},\"pos\":[300,100],\"kind\":\"static\"}}"));
    m = h_recv_type(&g, "spawned", 2000);
    ck_assert_ptr_nonnull(m);
    double post = h_num(m, "id");
    cJSON_Delete(m);
    snprintf(line, sizeof line,
             "{\"type\":\"joint\",\"req\":6,\"joint\":{\"type\":\"weld\",\"a\":%.0f,\"b\":%.0f}}",
             body, post);
    ck_assert(h_send_line(&g, line));
    m = h_recv_type(&g, "joined", 2000);
    ck_assert_ptr_nonnull(m);
    double weld = h_num(m, "id");
    cJSON_Delete(m);
    h_close(&g);
    /* ann sees the post, the server's (owner 0), and the weld; nothing of them removed. */
    bool post_seen = false, weld_seen = false;
    for (int i = 0; i < 60 && !(post_seen && weld_seen); i++) {
        cJSON *st = h_recv_type(&p, "state", 2000);
        ck_assert_ptr_nonnull(st);
        const cJSON *it;
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(st, "bodies"))
        {
            if (h_num(it, "id") == post && cJSON_GetObjectItemCaseSensitive(it, "owner")) {
                ck_assert_double_eq(h_num(it, "owner"), 0);
                post_seen = true;
            }
        }
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(st, "joints"))
            weld_seen |= h_num(it, "id") == weld;
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(st, "removed"))
            ck_assert(it->valuedouble != post);
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(st, "removed_joints"))
            ck_assert(it->valuedouble != weld);
        cJSON_Delete(st);
    }
    ck_assert(post_seen && weld_seen);
    /* A second of states after the close: the post and the weld are still there. */
    for (int i = 0; i < 30; i++) {
        cJSON *st = h_recv_type(&p, "state", 2000);
        ck_assert_ptr_nonnull(st);
        const cJSON *it;
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(st, "removed"))
            ck_assert(it->valuedouble != post);
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(st, "removed_joints"))
            ck_assert(it->valuedouble != weld);
        cJSON_Delete(st);
    }
    h_close(&p);
    stop_server();
    unlink(keypath);
}
END_TEST

/* Ways out of the sandbox, tried by a hook: every one refused (the memory bomb too), and the
 * game goes on. */
START_TEST(sandbox_escapes_refused)
{
    h_conn c;
    start_and_join(&c, HELLO("eve"));
    game_action_ok(&c, 1, "escape", NULL);
    cJSON *ev;
    const cJSON *d = game_event_data(&c, "escape", 3000, &ev);
    ck_assert_int_eq(cJSON_GetArraySize(d), 10);
    const cJSON *item;
    cJSON_ArrayForEach(item, d)
    {
        ck_assert_msg(cJSON_IsFalse(item), "escaped: %s", item->string);
    }
    cJSON_Delete(ev);
    game_action_ok(&c, 2, "echo", "1");
    h_close(&c);
    stop_server();
}
END_TEST

/* An on_tick that fails every tick is disabled after ten failures in a row, said in the log
 * and in /metrics; the rest of the game goes on. */
START_TEST(failing_tick_disabled)
{
    int http = start_with_http();
    h_conn c;
    game_join(&c, &srv, HELLO("ann"));
    game_action_ok(&c, 1, "break_tick", NULL);
    h_sleep_ms(600);
    game_action_ok(&c, 2, "echo", "1");
    http_resp r;
    ck_assert(http_get(http, "/metrics", &r));
    ck_assert_double_eq(http_metric(r.body, "mink_script_hooks_disabled"), 1);
    ck_assert_double_eq(http_metric(r.body, "mink_script_hook_errors_total{hook=\"on_tick\"}"),
                        10);
    http_resp_free(&r);
    h_close(&c);
    stop_server();
    ck_assert(h_server_log_has(&srv, "on_tick broke at"));
    ck_assert(h_server_log_has(&srv, "disabled"));
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("server_rules");
    MINK_TCASE(s, "rules", 60, a_script_that_does_not_load_stops_the_start,
               join_refuse_and_leave, actions_answered, actions_rate_limited,
               events_in_order_with_states, sighup_reloads, metrics_count_hooks, kick_closes,
               game_role_connection, signing_in_again_rejoins, sandbox_escapes_refused,
               failing_tick_disabled);
    return s;
}

MINK_CHECK_MAIN(make_suite)
