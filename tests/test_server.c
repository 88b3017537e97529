/* Integration: the real mink-server on an ephemeral loopback port, spoken to over TCP: joining,
 * spawning, inputs, queries, errors that keep the connection, flags, the client. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server_fixture.h"
#include "check_main.h"

START_TEST(hello_gets_welcome)
{
    start(NULL);
    h_conn c;
    cJSON *w = join(&c, "{\"type\":\"hello\",\"protocol\":1,\"avatar\":{\"shape\":{\"type\":"
                        "\"aabb\",\"half\":[0.4,0.9]},\"pos\":[0,4],\"kind\":\"character\"}}");
    ck_assert_double_eq(h_num(w, "protocol"), 1);
    ck_assert_double_ge(h_num(w, "client"), 1);
    ck_assert_double_eq(h_num(w, "dim"), 2);
    ck_assert_double_eq(h_num(w, "tick_hz"), 60);
    ck_assert_double_eq(h_num(w, "snapshot_hz"), 20);
    ck_assert_double_eq(h_vec(w, "gravity", 0), 0);
    ck_assert_double_eq(h_vec(w, "gravity", 1), -10);
    double avatar = h_num(w, "avatar");
    ck_assert_double_ge(avatar, 1);
    /* The first state shows the avatar with its first-sighting fields and the scene. */
    cJSON *s = h_recv_type(&c, "state", 3000);
    ck_assert_ptr_nonnull(s);
    const cJSON *shape = expect_avatar_shape(s, w, "aabb");
    ck_assert_double_eq_tol(h_vec(shape, "half", 1), 0.9, 1e-9);
    /* The demo's 20 bodies (9 of them static) and the avatar. */
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "bodies")), 21);
    cJSON_Delete(s);
    /* Later states leave out the static bodies already seen and drop first-sighting fields. */
    s = h_recv_type(&c, "state", 3000);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "bodies")), 12);
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(h_state_body(s, avatar), "shape"));
    cJSON_Delete(s);
    cJSON_Delete(w);
    close_and_stop(&c);
}
END_TEST

START_TEST(spawned_box_rests_on_ground)
{
    h_conn c = start_joined(NULL);
    cJSON *sp = request(&c, "{\"type\":\"spawn\",\"req\":7,\"body\":{\"shape\":{\"type\":"
                            "\"aabb\",\"half\":[0.5,0.5]},\"pos\":[-2,4],\"tag\":\"mine\"}}",
                            "spawned");
    ck_assert_double_eq(h_num(sp, "req"), 7);
    double id = h_num(sp, "id");
    cJSON_Delete(sp);
    /* It falls 3.5 m (0.84 s); after 2.5 s of states it has rested on the ground's top. Once
     * asleep and sent at rest, it leaves the states (until something moves it). */
    long long end = h_now_ms() + 2500;
    double y = NAN, vy = NAN;
    bool first = true;
    while (h_now_ms() < end) {
        cJSON *s = h_recv_type(&c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        const cJSON *b = h_state_body(s, id);
        ck_assert(b != NULL || !first);
        if (!b) {
            cJSON_Delete(s);
            continue;
        }
        if (first) {
            ck_assert_str_eq(h_str(b, "tag"), "mine");
            ck_assert_str_eq(h_str(b, "kind"), "dynamic");
            first = false;
        }
        y = h_vec(b, "pos", 1);
        vy = h_vec(b, "vel", 1);
        cJSON_Delete(s);
    }
    ck_assert_double_eq_tol(y, 0.5, 1e-3);
    ck_assert_double_eq_tol(vy, 0.0, 1e-3);
    close_and_stop(&c);
}
END_TEST

START_TEST(input_moves_kinematic_avatar)
{
    start(NULL);
    h_conn c;
    double avatar = join_kinematic(&c, 0.5, 0.5, 10, 3);
    /* States sent while the inputs went out are still queued: skip to the first one that
     * acknowledges the last input, then it moves at exactly max_speed. */
    double ack = send_inputs_to_ack(&c, "[1,0]", 30);
    const field_near at[] = {{"vel", 0, 3.0, 1e-3}, {"pos", 1, 10.0, 1e-4}};
    double x = expect_run(&c, avatar, 3.0, at, 2, 2e-3, &ack);
    ck_assert_double_eq(ack, 30);
    ck_assert_double_gt(x, 2.0);
    close_and_stop(&c);
}
END_TEST

START_TEST(bad_json_keeps_connection)
{
    h_conn c = start_joined(NULL);
    ck_assert(h_send_line(&c, "{not json"));
    expect_error(&c, "bad_json");
    ck_assert(h_send_line(&c, "{\"type\":\"spawn\",\"req\":\"r1\",\"body\":{\"shape\":{\"type\":"
                              "\"aabb\",\"half\":[0.5,0.5]},\"pos\":[0,NaN]}}"));
    expect_error(&c, "bad_json");
    cJSON *e = request(&c, "{\"type\":\"spawn\",\"req\":\"r2\",\"body\":{\"shape\":{\"type\":"
                           "\"aabb\",\"half\":[0.5,0.5]},\"pos\":[0,1e999]}}", "error");
    ck_assert_str_eq(h_str(e, "code"), "bad_request");
    ck_assert_str_eq(h_str(e, "req"), "r2");
    cJSON_Delete(e);
    ck_assert(h_send_line(&c, "{\"type\":\"teleport\"}"));
    expect_error(&c, "unknown_type");
    expect_alive(&c);
    close_and_stop(&c);
}
END_TEST

START_TEST(long_line_refused_others_served)
{
    start(NULL);
    h_conn bad, good;
    cJSON_Delete(join(&bad, HELLO));
    cJSON_Delete(join(&good, HELLO));
    size_t n = 70 * 1024;
    char *junk = malloc(n);
    memset(junk, 'a', n);
    ck_assert(h_send_raw(&bad, junk, n));
    free(junk);
    expect_error(&bad, "line_too_long");
    ck_assert(h_wait_closed(&bad, 3000));
    h_close(&bad);
    /* The other client goes on receiving states with advancing ticks, and pings work. */
    cJSON *s1 = h_recv_type(&good, "state", 2000);
    cJSON *s2 = h_recv_type(&good, "state", 2000);
    ck_assert_ptr_nonnull(s1);
    ck_assert_ptr_nonnull(s2);
    ck_assert_double_gt(h_num(s2, "tick"), h_num(s1, "tick"));
    cJSON_Delete(s1);
    cJSON_Delete(s2);
    expect_alive(&good);
    h_close(&good);
    stop();
}
END_TEST

START_TEST(order_and_ownership_errors)
{
    start(NULL);
    h_conn a, b;
    ck_assert(h_connect(&a, srv.port));
    ck_assert(h_send_line(&a, "{\"type\":\"spawn\",\"req\":1,\"body\":{\"shape\":{\"type\":"
                              "\"aabb\",\"half\":[0.5,0.5]},\"pos\":[0,4]}}"));
    expect_error(&a, "not_joined");
    expect_alive(&a); /* ping is allowed before hello */
    ck_assert(h_send_line(&a, HELLO));
    cJSON_Delete(h_recv_type(&a, "welcome", 3000));
    ck_assert(h_send_line(&a, HELLO));
    expect_error(&a, "bad_request"); /* already joined */
    cJSON *sp = request(&a, "{\"type\":\"spawn\",\"body\":{\"shape\":{\"type\":\"aabb\","
                            "\"half\":[0.5,0.5]},\"pos\":[3,4]}}", "spawned");
    double id = h_num(sp, "id");
    cJSON_Delete(sp);

    cJSON_Delete(join(&b, HELLO));
    char line[160];
    snprintf(line, sizeof line, "{\"type\":\"despawn\",\"req\":2,\"id\":%.0f}", id);
    ck_assert(h_send_line(&b, line));
    expect_error(&b, "not_owner");
    ck_assert(h_send_line(&b, "{\"type\":\"despawn\",\"id\":1}")); /* the scene's ground */
    expect_error(&b, "not_owner");
    ck_assert(h_send_line(&b, "{\"type\":\"despawn\",\"id\":99999}"));
    expect_error(&b, "not_found");
    ck_assert(h_send_line(&b, "{\"type\":\"input\",\"seq\":1,\"move\":[1,0]}"));
    expect_error(&b, "not_found"); /* b has no avatar */

    ck_assert(h_send_line(&a, line));
    cJSON *d = h_recv_type(&a, "despawned", 3000);
    ck_assert_ptr_nonnull(d);
    ck_assert_double_eq(h_num(d, "id"), id);
    ck_assert_double_eq(h_num(d, "req"), 2);
    cJSON_Delete(d);
    /* b had seen the body: its next state lists it in `removed`. */
    bool removed = false;
    for (int i = 0; i < 4 && !removed; i++) {
        cJSON *s = h_recv_type(&b, "state", 2000);
        ck_assert_ptr_nonnull(s);
        removed = h_state_removed(s, id);
        cJSON_Delete(s);
    }
    ck_assert(removed);
    h_close(&a);
    close_and_stop(&b);
}
END_TEST

START_TEST(leaving_client_bodies_removed)
{
    start(NULL);
    h_conn a, b;
    cJSON *w = join(&a, "{\"type\":\"hello\",\"protocol\":1,\"avatar\":{\"shape\":{\"type\":"
                        "\"aabb\",\"half\":[0.4,0.9]},\"pos\":[2,4],\"kind\":\"character\"}}");
    double avatar = h_num(w, "avatar");
    cJSON_Delete(w);
    cJSON_Delete(join(&b, HELLO));
    cJSON *s = h_recv_type(&b, "state", 2000);
    ck_assert_ptr_nonnull(h_state_body(s, avatar));
    cJSON_Delete(s);
    ck_assert(h_send_line(&a, "{\"type\":\"bye\"}"));
    ck_assert(h_wait_closed(&a, 3000));
    h_close(&a);
    bool removed = false;
    for (int i = 0; i < 4 && !removed; i++) {
        s = h_recv_type(&b, "state", 2000);
        ck_assert_ptr_nonnull(s);
        removed = h_state_removed(s, avatar);
        cJSON_Delete(s);
    }
    ck_assert(removed);
    close_and_stop(&b);
}
END_TEST

START_TEST(quota_and_server_full)
{
    const char *args[] = {"--max-bodies-per-client", "2", "--max-clients", "1", NULL};
    start(args);
    h_conn a, b;
    cJSON_Delete(join(&a, HELLO));
    const char *spawn = "{\"type\":\"spawn\",\"req\":3,\"body\":{\"shape\":{\"type\":\"aabb\","
                        "\"half\":[0.2,0.2]},\"pos\":[0,6]}}";
    for (int i = 0; i < 2; i++) {
        ck_assert(h_send_line(&a, spawn));
        cJSON_Delete(h_recv_type(&a, "spawned", 3000));
    }
    ck_assert(h_send_line(&a, spawn));
    cJSON *e = h_recv_type(&a, "error", 3000);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(h_str(e, "code"), "quota");
    ck_assert_double_eq(h_num(e, "req"), 3);
    cJSON_Delete(e);

    ck_assert(h_connect(&b, srv.port));
    expect_error(&b, "server_full");
    ck_assert(h_wait_closed(&b, 3000));
    h_close(&b);
    expect_alive(&a);
    close_and_stop(&a);
}
END_TEST

START_TEST(query_over_the_wire)
{
    /* A 1 x 1 m box sunk 0.25 m into the top of a 2 x 2 m one. */
    const char *overlap = "{\"type\":\"query\",\"req\":\"q\",\"a\":{\"shape\":{\"type\":"
                          "\"aabb\",\"half\":[1,1]},\"pos\":[0,0]},\"b\":{\"shape\":{"
                          "\"type\":\"aabb\",\"half\":[0.5,0.5]},\"pos\":[0.25,1.25]}}";
    h_conn c = start_joined(NULL);
    cJSON *r = expect_hit(&c, overlap, "q", 0.25, 1e-6);
    ck_assert_double_eq_tol(h_vec(r, "normal", 1), 1.0, 1e-6);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "points")), 2);
    cJSON_Delete(r);
    expect_miss(&c, "{\"type\":\"query\",\"a\":{\"shape\":{\"type\":\"aabb\",\"half\":"
                    "[1,1]},\"pos\":[0,0]},\"b\":{\"shape\":{\"type\":\"aabb\","
                    "\"half\":[1,1]},\"pos\":[5,0]}}", 3.0, 1e-6);
    close_and_stop(&c);
}
END_TEST

START_TEST(subscribe_contacts)
{
    h_conn c = start_joined(NULL);
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"contacts\":true}"));
    /* The demo's crates rest on the ground (id 1): contacts carry its normal pointing up. */
    bool found = false;
    for (int i = 0; i < 6 && !found; i++) {
        cJSON *s = h_recv_type(&c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        const cJSON *k;
        cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(s, "contacts"))
        {
            if (h_num(k, "a") == 1 && h_vec(k, "normal", 1) == 1.0) {
                const cJSON *pts = cJSON_GetObjectItemCaseSensitive(k, "points");
                ck_assert_int_eq(cJSON_GetArraySize(pts), 2);
                ck_assert_double_ge(h_num(cJSON_GetArrayItem(pts, 0), "depth"), 0);
                /* Each point names the features that made it: two corners, two ids. */
                ck_assert_double_ne(h_num(cJSON_GetArrayItem(pts, 0), "id"),
                                    h_num(cJSON_GetArrayItem(pts, 1), "id"));
                found = true;
            }
        }
        cJSON_Delete(s);
    }
    ck_assert(found);
    close_and_stop(&c);
}
END_TEST

START_TEST(sigterm_stops_cleanly)
{
    h_conn c = start_joined(NULL);
    long long t0 = h_now_ms();
    ck_assert_int_eq(h_server_stop(&srv, SIGTERM, 1000), 0);
    ck_assert_int_lt(h_now_ms() - t0, 1000);
    expect_error(&c, "shutdown");
    ck_assert(h_wait_closed(&c, 1000));
    h_close(&c);
    ck_assert(h_server_log_has(&srv, "stopping (SIGTERM)"));
    unlink(srv.log_path);
}
END_TEST

START_TEST(client_bot_mode)
{
    start(NULL);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --port %d --bot 2 < /dev/null", MINK_CLIENT_PATH, srv.port);
    char out[4096];
    int status = run_command(cmd, out, sizeof out);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "bot exit %d: %s", status, out);
    ck_assert_ptr_nonnull(strstr(out, "states received"));
    /* About 20 states a second for 2 s. */
    const char *at = strstr(out, "states received: ");
    ck_assert_ptr_nonnull(at);
    int states = atoi(at + strlen("states received: "));
    ck_assert_int_ge(states, 30);
    stop();
}
END_TEST

START_TEST(bad_flags_and_scenes_exit_cleanly)
{
    ck_assert_int_eq(server_exit_code("--port 99999 2>/dev/null"), 2);
    ck_assert_int_eq(server_exit_code("--frobnicate 2>/dev/null"), 2);
    ck_assert_int_eq(server_exit_code("--scene /nonexistent.json 2>/dev/null"), 1);
    /* A port in use: the second server cannot listen and says so. */
    start(NULL);
    ck_assert_int_eq(server_exit_code("--host 127.0.0.1 --port %d 2>/dev/null", srv.port), 1);
    stop();
}
END_TEST

MINK_CHECK_SUITE("server", s)
{
    MINK_TCASE(s, "wire", 30, hello_gets_welcome, spawned_box_rests_on_ground,
               input_moves_kinematic_avatar, bad_json_keeps_connection,
               long_line_refused_others_served, order_and_ownership_errors,
               leaving_client_bodies_removed, quota_and_server_full, query_over_the_wire,
               subscribe_contacts, sigterm_stops_cleanly, client_bot_mode,
               bad_flags_and_scenes_exit_cleanly);

    /* The other files' test cases and their timeouts. */
    static const struct {
        const char *name;
        void (*add)(TCase *tc);
        int timeout;
    } files[] = {
        {"limits", server_limit_tests, 60},
        {"world", server_world_tests, 30},
        {"netcode", server_netcode_tests, 60},
        {"3d", server_3d_tests, 30},
        {"queries", server_query_tests, 30},
        {"tokens", server_token_tests, 30},
        {"events", server_event_tests, 30},
        {"joints", server_joint_tests, 30},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        TCase *tc = tcase_create(files[i].name);
        files[i].add(tc);
        tcase_set_timeout(tc, files[i].timeout);
        suite_add_tcase(s, tc);
    }
}
