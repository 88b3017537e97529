/* Integration: WebSocket players on the HTTP port's `/ws`, served by the same session code as
 * the game port's TCP players, with the same limits; and the bad inputs of RFC 6455, each
 * closed with its code while the game goes on. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* ---- bad input: each gets its answer and close code; the game goes on ---- */

/* The players that watch the game go on: a TCP player and a WebSocket player. */
typedef struct watchers {
    h_conn tcp;
    ws_conn ws;
} watchers;

static void watchers_join(watchers *w)
{
    cJSON_Delete(join(&w->tcp, HELLO));
    cJSON_Delete(ws_join(&w->ws, HELLO));
}

/* Both still play: the TCP player's ping is answered, the WebSocket player gets states whose
 * tick rises. */
static void expect_game_goes_on(watchers *w)
{
    expect_alive(&w->tcp);
    cJSON *a = ws_recv_type(&w->ws, "state", 2000), *b = ws_recv_type(&w->ws, "state", 2000);
    ck_assert_msg(a && b, "the WebSocket player gets no states");
    ck_assert(h_num(b, "tick") > h_num(a, "tick"));
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void watchers_stop(watchers *w)
{
    ws_close_conn(&w->ws);
    close_and_stop(&w->tcp);
}

/* Sends the frames (opcode, fin, text) on a new /ws connection and returns the close code
 * the server answers with; `error` gets the code of the `error` before it, if any. */
typedef struct frame {
    int op;
    bool fin;
    const char *text;
} frame;

static int close_code_after(const frame *frames, int n, char *error, size_t cap)
{
    ws_conn c;
    ck_assert(ws_connect(&c, http_port, "/ws"));
    for (int i = 0; i < n; i++)
        ck_assert(ws_send_frame(&c, frames[i].op, frames[i].fin, true, frames[i].text,
                                strlen(frames[i].text)));
    int code = ws_recv_close(&c, 3000, error, cap);
    ws_close_conn(&c);
    return code;
}

/* Handshakes that are not RFC 6455's get no upgrade: no key is closed by libwebsockets, a
 * version other than 13 is 400, another path 404. */
START_TEST(ws_broken_handshakes)
{
    start_http(NULL);
    watchers w;
    watchers_join(&w);
    ws_conn c;
    const char nokey[] = "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                         "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n";
    ck_assert(!ws_handshake(&c, http_port, nokey));
    ck_assert_int_eq(c.status, 0);
    ws_close_conn(&c);
    const char v8[] = "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n";
    ck_assert(!ws_handshake(&c, http_port, v8));
    ck_assert_int_eq(c.status, 400);
    ws_close_conn(&c);
    ck_assert(!ws_connect(&c, http_port, "/metrics"));
    ck_assert_int_eq(c.status, 404);
    ws_close_conn(&c);
    /* Half a handshake, then the close. */
    const char *req = ws_request("/ws");
    http_resp r;
    ck_assert(http_raw(http_port, req, strlen(req) / 2, &r, 500) || r.status == 0);
    http_resp_free(&r);
    free(get_ok("/livez", 200));
    expect_game_goes_on(&w);
    watchers_stop(&w);
}
END_TEST

/* A binary frame: `bad_request`, then 1003; text that is not UTF-8: 1007; opcodes that break
 * the framing (a reserved one, a continuation with nothing to continue, a control frame over
 * 125 bytes): 1002 or a close. */
START_TEST(ws_bad_frames)
{
    start_http(NULL);
    watchers w;
    watchers_join(&w);
    char err[32];
    frame binary[] = {{WS_BINARY, true, "{\"type\":\"ping\",\"t\":1}"}};
    ck_assert_int_eq(close_code_after(binary, 1, err, sizeof err), 1003);
    ck_assert_str_eq(err, "bad_request");
    frame utf8[] = {{WS_TEXT, true, "{\"type\":\"ping\",\"t\":\"\xff\xfe\"}"}};
    ck_assert_int_eq(close_code_after(utf8, 1, NULL, 0), 1007);
    frame reserved[] = {{3, true, "abc"}};
    ck_assert_int_eq(close_code_after(reserved, 1, NULL, 0), 1002);
    frame orphan[] = {{WS_CONT, true, "abc"}};
    ck_assert_int_eq(close_code_after(orphan, 1, NULL, 0), 1002);
    /* libwebsockets drops a control frame over 125 bytes without a close frame. */
    char big[201];
    memset(big, 'a', 200);
    big[200] = '\0';
    frame ping[] = {{WS_PING, true, big}};
    ck_assert_int_le(close_code_after(ping, 1, NULL, 0), 0);
    expect_game_goes_on(&w);
    watchers_stop(&w);
}
END_TEST

/* A message is gathered from its fragments; over --max-line, in one frame or in several, it
 * is `line_too_long` and 1009. */
START_TEST(ws_fragmented_and_oversized)
{
    const char *args[] = {"--max-line", "256", NULL};
    start_http(args);
    watchers w;
    watchers_join(&w);

    ws_conn c;
    ck_assert(ws_connect(&c, http_port, "/ws"));
    ck_assert(ws_send_frame(&c, WS_TEXT, false, true, "{\"type\":", 8));
    ck_assert(ws_send_frame(&c, WS_CONT, false, true, "\"ping\",", 7));
    ck_assert(ws_send_frame(&c, WS_PING, true, true, "hi", 2)); /* a control frame between */
    ck_assert(ws_send_frame(&c, WS_CONT, true, true, "\"t\":42}", 7));
    cJSON *pong = ws_recv_type(&c, "pong", 2000);
    ck_assert(pong && h_num(pong, "t") == 42);
    cJSON_Delete(pong);
    ws_close_conn(&c);

    char big[301], err[32];
    snprintf(big, sizeof big, "{\"type\":\"ping\",\"t\":1,\"pad\":\"%0270d\"}", 0);
    frame one[] = {{WS_TEXT, true, big}};
    ck_assert_int_eq(close_code_after(one, 1, err, sizeof err), 1009);
    ck_assert_str_eq(err, "line_too_long");
    char half[151];
    memset(half, ' ', 150);
    half[150] = '\0';
    frame two[] = {{WS_TEXT, false, half}, {WS_CONT, true, half}};
    ck_assert_int_eq(close_code_after(two, 2, err, sizeof err), 1009);
    ck_assert_str_eq(err, "line_too_long");
    expect_game_goes_on(&w);
    watchers_stop(&w);
}
END_TEST

/* A player with an avatar closes in the middle of a message: the close is answered (1000),
 * the half message is dropped, the avatar leaves the world, and the others play on. */
START_TEST(ws_close_mid_message)
{
    start_http(NULL);
    watchers w;
    watchers_join(&w);
    ws_conn c;
    cJSON *welcome = ws_join(&c, AVATAR_HELLO);
    double avatar = h_num(welcome, "avatar");
    cJSON_Delete(welcome);
    cJSON_Delete(state_with(&w.tcp, avatar, 2000));
    ck_assert(ws_send_frame(&c, WS_TEXT, false, true, "{\"type\":\"sp", 12));
    ck_assert(ws_send_frame(&c, WS_CLOSE, true, true, "\x03\xe8", 2));
    ck_assert_int_eq(ws_recv_close(&c, 3000, NULL, 0), 1000);
    ws_close_conn(&c);
    bool removed = false;
    long long end = h_now_ms() + 3000;
    while (!removed && h_now_ms() < end) {
        cJSON *st = h_recv_type(&w.tcp, "state", 1000);
        removed = st && h_state_removed(st, avatar);
        cJSON_Delete(st);
    }
    ck_assert(removed);
    expect_game_goes_on(&w);
    watchers_stop(&w);
}
END_TEST

/* SIGTERM with a WebSocket player connected: it is told `shutdown`, gets close 1001, and the
 * server exits 0 (stop() checks). */
START_TEST(ws_player_hears_the_stop)
{
    start_http(NULL);
    ws_conn w;
    cJSON_Delete(ws_join(&w, AVATAR_HELLO));
    cJSON_Delete(ws_recv_type(&w, "state", 2000));
    kill(srv.pid, SIGTERM);
    char code[32];
    ck_assert_int_eq(ws_recv_close(&w, 3000, code, sizeof code), 1001);
    ck_assert_str_eq(code, "shutdown");
    ck_assert_int_eq(wait_exit(5000), 0);
    ws_close_conn(&w);
}
END_TEST

/* --tls-cert and --tls-key go together and must be readable (2, before anything starts); a
 * file that is not a PEM certificate stops the start with an error (1). The https page and wss
 * players are tested in a browser (web_check.py, web_viewer_2d_tls). */
START_TEST(tls_flags_checked)
{
    char log[] = "/tmp/mink-tls-XXXXXX";
    make_temp_file(log);
    ck_assert_int_eq(server_exit_code("--port 0 --http-port 0 --tls-cert %s 2> %s", log, log), 2);
    ck_assert(file_has(log, "--tls-cert and --tls-key go together"));
    ck_assert_int_eq(server_exit_code("--port 0 --tls-cert /nonexistent/cert.pem --tls-key %s "
                                      "2> %s", log, log), 2);
    ck_assert(file_has(log, "/nonexistent/cert.pem"));
    int port = http_free_port();
    ck_assert_int_eq(server_exit_code("--host 127.0.0.1 --port 0 --http-port %d --tls-cert %s "
                                      "--tls-key %s 2> %s", port, log, log, log), 1);
    ck_assert(file_has(log, "cannot serve HTTPS"));
    unlink(log);
}
END_TEST

/* The load generator's players over WebSocket (mink-client --bots N --ws) beside TCP ones in
 * the same run: all connect, all get states at the snapshot rate, their pings are answered. */
START_TEST(ws_bots_beside_tcp_bots)
{
    start_http(NULL);
    char cmd[512], ws_out[1024], tcp_out[1024];
    snprintf(cmd, sizeof cmd,
             "%s --bots 5 --ws --host 127.0.0.1 --port %d --duration 2 --json 2>/dev/null & "
             "%s --bots 5 --host 127.0.0.1 --port %d --duration 2 --json 2>/dev/null > %s.tcp; "
             "wait",
             MINK_CLIENT_PATH, http_port, MINK_CLIENT_PATH, srv.port, srv.log_path);
    ck_assert_int_eq(run_command(cmd, ws_out, sizeof ws_out), 0);
    snprintf(cmd, sizeof cmd, "cat %s.tcp; rm -f %s.tcp", srv.log_path, srv.log_path);
    ck_assert_int_eq(run_command(cmd, tcp_out, sizeof tcp_out), 0);
    const char *outs[2] = {ws_out, tcp_out};
    for (int i = 0; i < 2; i++) {
        cJSON *j = cJSON_Parse(outs[i]);
        ck_assert_msg(j != NULL, "not JSON: %s", outs[i]);
        ck_assert_int_eq((int)h_num(j, "connected"), 5);
        ck_assert_int_eq((int)h_num(j, "errors"), 0);
        /* 20 states a second by default: at least half of them on a busy test machine. */
        ck_assert_msg(h_num(j, "states_per_s_median") >= 10, "%s", outs[i]);
        ck_assert(h_num(j, "pongs") >= 5);
        cJSON_Delete(j);
    }
    stop();
}
END_TEST

void ops_ws_tests(Suite *s)
{
    MINK_TCASE(s, "websocket", 60, ws_player_plays_with_tcp_player,
               max_clients_counts_both_transports, ws_hello_timeout, tls_flags_checked,
               ws_bots_beside_tcp_bots, ws_player_hears_the_stop);
    MINK_TCASE(s, "websocket bad input", 60, ws_broken_handshakes, ws_bad_frames,
               ws_fragmented_and_oversized, ws_close_mid_message);
}
