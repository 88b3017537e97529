/* Integration: WebSocket players on the HTTP port's `/ws`, served by the same session code as
 * the game port's TCP players, with the same limits; and the bad inputs of RFC 6455, each
 * closed with its code while the game goes on. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "ops_fixture.h"
#include "ws_client.h"

#define AVATAR_HELLO                                                                           \
    "{\"type\":\"hello\",\"protocol\":1,\"name\":\"web\",\"avatar\":{\"kind\":\"kinematic\","  \
    "\"shape\":{\"type\":\"aabb\",\"half\":[0.5,0.5]},\"pos\":[0,30],\"max_speed\":4}}"

static cJSON *ws_join(ws_conn *c, const char *hello)
{
    ck_assert_msg(ws_connect(c, http_port, "/ws"), "no upgrade on /ws: status %d", c->status);
    ck_assert(ws_send_text(c, hello));
    cJSON *w = ws_recv_type(c, "welcome", 3000);
    ck_assert_msg(w != NULL, "no welcome over WebSocket");
    return w;
}

/* A WebSocket player joins, gets states with a rising tick, moves its avatar with inputs, and
 * a TCP player in the same world sees that avatar move: one world, two transports. */
START_TEST(ws_player_plays_with_tcp_player)
{
    start_http(NULL);
    ws_conn w;
    cJSON *welcome = ws_join(&w, AVATAR_HELLO);
    double avatar = h_num(welcome, "avatar");
    ck_assert(avatar > 0);
    ck_assert_int_eq((int)h_num(welcome, "dim"), 2);
    cJSON_Delete(welcome);

    cJSON *s1 = ws_recv_type(&w, "state", 2000), *s2 = ws_recv_type(&w, "state", 2000);
    ck_assert(s1 && s2);
    ck_assert(h_num(s2, "tick") > h_num(s1, "tick"));
    ck_assert(h_state_body(s2, avatar) != NULL);
    double x0 = h_vec(h_state_body(s2, avatar), "pos", 0);
    cJSON_Delete(s1);
    cJSON_Delete(s2);

    h_conn t;
    cJSON *tw = join(&t, HELLO);
    cJSON_Delete(tw);

    char line[128];
    for (int i = 1; i <= 20; i++) {
        snprintf(line, sizeof line, "{\"type\":\"input\",\"seq\":%d,\"move\":[1,0]}", i);
        ck_assert(ws_send_text(&w, line));
        h_sleep_ms(20);
    }
    /* 20 inputs over 0.4 s at up to 4 m/s: the TCP player sees the avatar well to the right. */
    double x = x0;
    long long end = h_now_ms() + 3000;
    while (x < x0 + 0.5 && h_now_ms() < end) {
        cJSON *st = state_with(&t, avatar, 1000);
        if (st)
            x = h_vec(h_state_body(st, avatar), "pos", 0);
        cJSON_Delete(st);
    }
    ck_assert_msg(x > x0 + 0.5, "the avatar stayed at x %.3f (from %.3f)", x, x0);

    ck_assert(ws_send_text(&w, "{\"type\":\"ping\",\"t\":7}"));
    cJSON *pong = ws_recv_type(&w, "pong", 2000);
    ck_assert(pong && h_num(pong, "t") == 7);
    cJSON_Delete(pong);

    /* The WebSocket player leaves: its avatar goes with it, as a TCP player's does. */
    ws_close_conn(&w);
    bool removed = false;
    end = h_now_ms() + 3000;
    while (!removed && h_now_ms() < end) {
        cJSON *st = h_recv_type(&t, "state", 1000);
        removed = st && h_state_removed(st, avatar);
        cJSON_Delete(st);
    }
    ck_assert(removed);
    close_and_stop(&t);
}
END_TEST

/* --max-clients counts both transports: with one of each, the third is refused on either. */
START_TEST(max_clients_counts_both_transports)
{
    const char *args[] = {"--max-clients", "2", NULL};
    start_http(args);
    h_conn t;
    cJSON_Delete(join(&t, HELLO));
    ws_conn w;
    cJSON_Delete(ws_join(&w, HELLO));

    ws_conn w2;
    ck_assert(ws_connect(&w2, http_port, "/ws"));
    char code[32];
    ck_assert_int_eq(ws_recv_close(&w2, 3000, code, sizeof code), 1013);
    ck_assert_str_eq(code, "server_full");
    ws_close_conn(&w2);

    h_conn t2;
    ck_assert(h_connect(&t2, srv.port));
    expect_error(&t2, "server_full");
    ck_assert(h_wait_closed(&t2, 2000));
    h_close(&t2);

    /* One leaves; a WebSocket player takes its place. */
    ws_close_conn(&w);
    h_sleep_ms(200);
    ws_conn w3;
    cJSON_Delete(ws_join(&w3, HELLO));
    ws_close_conn(&w3);
    expect_alive(&t);
    close_and_stop(&t);
}
END_TEST

/* The upgrade is served on /ws only; the other paths stay plain HTTP. */
START_TEST(upgrade_only_on_ws)
{
    start_http(NULL);
    ws_conn w;
    ck_assert(!ws_connect(&w, http_port, "/metrics"));
    ck_assert_int_ne(w.status, 101);
    ws_close_conn(&w);
    char *body = get_ok("/livez", 200);
    free(body);
    stop();
}
END_TEST

/* A WebSocket connection that never says hello is closed after --hello-timeout, with 1008. */
START_TEST(ws_hello_timeout)
{
    const char *args[] = {"--hello-timeout", "0.3", NULL};
    start_http(args);
    ws_conn w;
    ck_assert(ws_connect(&w, http_port, "/ws"));
    ck_assert_int_eq(ws_recv_close(&w, 3000, NULL, 0), 1008);
    ws_close_conn(&w);
    stop();
}
END_TEST

void ops_ws_tests(Suite *s)
{
    MINK_TCASE(s, "websocket", 60, ws_player_plays_with_tcp_player,
               max_clients_counts_both_transports, upgrade_only_on_ws, ws_hello_timeout);
}
