/* Integration: the world over time: recording and replay, saves, the stress scene, sleeping
 * bodies in the states, the interest radius and compact states. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server_fixture.h"

/* A durable save's files: the snapshot and its neighbours (server/net/durable.c). */
static void remove_save_files(const char *path)
{
    const char *suffix[] = {"", ".prev", ".next", ".journal", ".journal.new", ".prev.journal"};
    char name[256];
    for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
        snprintf(name, sizeof name, "%s%s", path, suffix[i]);
        unlink(name);
    }
}

static const cJSON *body_by_id(const cJSON *bodies, double id)
{
    const cJSON *b;
    cJSON_ArrayForEach(b, bodies)
    {
        if (h_num(b, "id") == id)
            return b;
    }
    return NULL;
}

START_TEST(a_recorded_session_replays_to_the_same_hash)
{
    char path[] = "/tmp/mink-record-XXXXXX";
    /* Next to the demo's stack of crates (x = 5), which the avatar then pushes: the client's
     * bodies leave with it, the crates keep what it did to them. */
    h_conn c = start_recording(path, false, "[3.6,1]");
    cJSON_Delete(request(&c, "{\"type\":\"spawn\",\"req\":1,\"body\":{\"shape\":{\"type\":"
                             "\"box\",\"half\":[0.3,0.3]},\"pos\":[1,5],\"rot\":0.4}}",
                         "spawned"));
    /* Inputs over half a second: run right, jump, run left. */
    const char *moves[] = {"[1,0],\"jump\":false", "[1,0],\"jump\":true", "[-1,0],\"jump\":false"};
    send_moves(&c, moves);
    /* Offline, on the same scene: the same ids and the same final hash. */
    char log[] = "/tmp/mink-replay-XXXXXX";
    stop_and_replay(&c, path, "", log);
    ck_assert(file_has(path, "\"type\":\"spawn\""));
    ck_assert(file_has(path, "\"type\":\"bye\""));

    /* A recording with a line changed no longer replays: the hash tells. */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "sed -i 's/\"move\":\\[1,0\\]/\"move\":[0.5,0]/' %s", path);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(server_exit_code("--replay %s 2> %s", path, log), 1);
    ck_assert(file_has(log, "the end hash is"));
    unlink(log);
    unlink(path);
}
END_TEST

START_TEST(save_on_stop_and_restart_from_it)
{
    char path[] = "/tmp/mink-world-XXXXXX";
    make_temp_file(path);
    const char *const args[] = {"--save", path, NULL};
    start(args);
    h_conn c;
    cJSON *w = join(&c, "{\"type\":\"hello\",\"protocol\":1,\"avatar\":{\"shape\":{\"type\":"
                        "\"aabb\",\"half\":[0.4,0.9]},\"pos\":[0,1],\"kind\":\"character\"}}");
    double avatar = h_num(w, "avatar");
    cJSON_Delete(w);
    cJSON *sp = request(&c, "{\"type\":\"spawn\",\"req\":1,\"body\":{\"shape\":{\"type\":"
                            "\"polygon\",\"points\":[[0,0],[1,0],[0.5,0.8]]},\"pos\":[-4,3],"
                            "\"tag\":\"gem\"}}", "spawned");
    double gem = h_num(sp, "id");
    cJSON_Delete(sp);
    /* The bodies as a client that joins sees them first, whole, before the stop (the gem has
     * landed by then). */
    h_sleep_ms(300);
    h_conn viewer;
    cJSON_Delete(join(&viewer, HELLO));
    cJSON *before = next_state_with(&viewer, gem);
    h_close(&viewer);
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(before, "bodies");
    ck_assert_ptr_nonnull(body_by_id(bodies, avatar));

    /* SIGHUP saves the world and the server goes on. */
    kill(srv.pid, SIGHUP);
    h_sleep_ms(300);
    ck_assert(h_server_log_has(&srv, "SIGHUP: saved 22 bodies"));
    expect_alive(&c);

    /* SIGTERM: saved with the client's bodies still in it, then a clean exit. */
    int status = h_server_stop(&srv, SIGTERM, 3000);
    ck_assert_int_eq(status, 0);
    ck_assert(h_server_log_has(&srv, "SIGTERM: saved 22 bodies"));
    unlink(srv.log_path);
    h_close(&c);
    ck_assert(file_has(path, "MINKSNAP"));

    /* Restarted from the save: the same bodies, ids and places; nobody owns them now. */
    const char *const again[] = {"--save", path, NULL};
    start(again);
    ck_assert(h_server_log_has(&srv, "--save: restored"));
    cJSON_Delete(join(&c, HELLO));
    cJSON *s = h_recv_type(&c, "state", 3000);
    ck_assert_ptr_nonnull(s);
    const cJSON *now = cJSON_GetObjectItemCaseSensitive(s, "bodies");
    ck_assert_int_eq(cJSON_GetArraySize(now), 22);
    ck_assert_int_eq(cJSON_GetArraySize(bodies), 22);
    const cJSON *b;
    cJSON_ArrayForEach(b, bodies)
    {
        const cJSON *n = body_by_id(now, h_num(b, "id"));
        ck_assert_msg(n != NULL, "body %.0f is missing", h_num(b, "id"));
        ck_assert_double_eq(h_num(n, "owner"), 0);
        ck_assert_str_eq(h_str(n, "kind"), h_str(b, "kind"));
        if (strcmp(h_str(b, "kind"), "static") == 0)
            ck_assert_double_eq_tol(h_vec(n, "pos", 1), h_vec(b, "pos", 1), 1e-4);
    }
    ck_assert_ptr_nonnull(body_by_id(now, avatar));
    const cJSON *g = body_by_id(now, gem);
    ck_assert_str_eq(h_str(g, "tag"), "gem");
    ck_assert_str_eq(h_str(cJSON_GetObjectItemCaseSensitive(g, "shape"), "type"), "polygon");
    ck_assert_double_eq_tol(h_vec(g, "pos", 0), h_vec(body_by_id(bodies, gem), "pos", 0), 0.05);
    cJSON_Delete(s);
    cJSON_Delete(before);
    h_close(&c);
    stop();
    remove_save_files(path);
}
END_TEST


/* ---- the stress scene, interest radius, backpressure ---- */

START_TEST(sleeping_bodies_leave_the_states_at_rest)
{
    h_conn c;
    start_and_join_with(&c, "--scene", "pile:25");
    /* The 25 boxes settle and fall asleep within a couple of seconds; each is in the states
     * until every client has seen it at rest, then no more. */
    double last_speed[27];
    int seen_in[27] = {0};
    int with_boxes = 0, states = 0;
    long long until = h_now_ms() + 5000;
    while (h_now_ms() < until) {
        cJSON *st = h_recv_type(&c, "state", 1000);
        ck_assert_ptr_nonnull(st);
        states++;
        const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(st, "bodies"), *b;
        int boxes = 0;
        cJSON_ArrayForEach(b, bodies)
        {
            int id = (int)h_num(b, "id");
            if (id < 2 || id > 26)
                continue;
            boxes++;
            seen_in[id]++;
            last_speed[id] = hypot(h_vec(b, "vel", 0), h_vec(b, "vel", 1)) + fabs(h_num(b, "w"));
        }
        with_boxes += boxes > 0;
        cJSON_Delete(st);
    }
    ck_assert_int_ge(states, 80);
    ck_assert_int_lt(with_boxes, states - 20); /* the last second or more: no box at all */
    for (int id = 2; id <= 26; id++) {
        ck_assert_int_gt(seen_in[id], 1);
        ck_assert_msg(last_speed[id] == 0.0, "box %d last sent moving at %g", id,
                      last_speed[id]);
    }
    expect_alive(&c);
    h_close(&c);
    stop();
}
END_TEST

START_TEST(pile_scene_is_served)
{
    h_conn c;
    start_and_join_with(&c, "--scene", "pile:25");
    cJSON *s = h_recv_type(&c, "state", 3000);
    ck_assert_ptr_nonnull(s);
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(s, "bodies");
    ck_assert_int_eq(cJSON_GetArraySize(bodies), 26);
    /* The ground first, then the boxes of the first column. */
    const cJSON *ground = h_state_body(s, 1), *box = h_state_body(s, 2);
    ck_assert_ptr_nonnull(ground);
    ck_assert_ptr_nonnull(box);
    ck_assert_str_eq(h_str(ground, "kind"), "static");
    ck_assert_str_eq(h_str(box, "kind"), "dynamic");
    ck_assert_double_eq_tol(h_vec(cJSON_GetObjectItemCaseSensitive(box, "shape"), "half", 0), 0.5,
                            1e-9);
    ck_assert_double_eq_tol(h_vec(box, "pos", 0), -1.05, 1e-3);
    cJSON_Delete(s);
    h_close(&c);
    stop();

    /* A bad N is a bad flag: exit 2, the flag named. */
    const char *bad[] = {"pile:0", "pile:x", "pile:", "pile:2.5", "pile:100000"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "%s --scene %s 2>&1", MINK_SERVER_PATH, bad[i]);
        char out[1024];
        int status = run_command(cmd, out, sizeof out);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2, "--scene %s: %d", bad[i],
                      status);
        ck_assert_msg(strstr(out, "--scene pile:N") != NULL, "--scene %s: %s", bad[i], out);
    }
}
END_TEST

/* Spawns two static 1 m boxes at (x0, y) and (x1, y) in one write, so that no state can come
 * between their answers, and returns their ids. */
static void spawn_statics(h_conn *c, double x0, double x1, double y, double ids[2])
{
    char lines[512];
    const char *fmt = "{\"type\":\"spawn\",\"req\":%d,\"body\":{\"shape\":{\"type\":\"aabb\","
                      "\"half\":[0.5,0.5]},\"pos\":[%g,%g],\"kind\":\"static\"}}\n";
    int n = snprintf(lines, sizeof lines, fmt, 0, x0, y);
    n += snprintf(lines + n, sizeof lines - (size_t)n, fmt, 1, x1, y);
    ck_assert(h_send_raw(c, lines, (size_t)n));
    for (int i = 0; i < 2; i++) {
        cJSON *sp = h_recv_type(c, "spawned", 3000);
        ck_assert_ptr_nonnull(sp);
        ck_assert_double_eq(h_num(sp, "req"), i);
        ids[i] = h_num(sp, "id");
        cJSON_Delete(sp);
    }
}

START_TEST(radius_limits_the_state_to_nearby_bodies)
{
    start(NULL);
    h_conn c;
    /* A kinematic avatar high above the demo scene (whose bodies are all below y = 20), with a
     * radius of 20 m: none of the demo's bodies is near it. */
    double avatar = join_kinematic(&c, 0.4, 0.9, 100, 50);
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"radius\":-1}"));
    expect_error(&c, "bad_request");
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"radius\":2e6}"));
    expect_error(&c, "bad_request");
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"radius\":20}"));
    double ids[2];
    spawn_statics(&c, 5, 60, 100, ids);
    double near = ids[0], far = ids[1];
    /* The next state: the near box with its first-sighting fields, and the avatar. */
    cJSON *s = h_recv_type(&c, "state", 2000);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "bodies")), 2);
    ck_assert_str_eq(h_str(h_state_body(s, near), "kind"), "static");
    ck_assert_ptr_nonnull(h_state_body(s, avatar));
    ck_assert_ptr_null(h_state_body(s, far));
    ck_assert_ptr_null(h_state_body(s, 1)); /* the demo's ground */
    cJSON_Delete(s);
    /* The next state: the avatar only (the near box is static and seen). */
    s = h_recv_type(&c, "state", 2000);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "bodies")), 1);
    ck_assert_ptr_nonnull(h_state_body(s, avatar));
    cJSON_Delete(s);

    /* Flying right at 50 m/s: the near box leaves the radius (listed in removed, the body is
     * still in the world), the far one enters with its first-sighting fields. */
    ck_assert(h_send_line(&c, "{\"type\":\"input\",\"seq\":1,\"move\":[1,0]}"));
    bool left = false, entered = false;
    for (int i = 0; i < 60 && !(left && entered); i++) {
        s = h_recv_type(&c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        if (h_state_removed(s, near)) {
            ck_assert_double_gt(h_vec(h_state_body(s, avatar), "pos", 0), 25.5 - 3.0);
            left = true;
        }
        const cJSON *b = h_state_body(s, far);
        if (b) {
            ck_assert_str_eq(h_str(b, "kind"), "static");
            ck_assert_double_eq(h_vec(b, "pos", 0), 60);
            ck_assert_double_gt(h_vec(h_state_body(s, avatar), "pos", 0), 39.5 - 3.0);
            entered = true;
        }
        cJSON_Delete(s);
    }
    ck_assert(left);
    ck_assert(entered);
    ck_assert(h_send_line(&c, "{\"type\":\"input\",\"seq\":2,\"move\":[0,0]}"));
    expect_alive(&c);
    h_close(&c);
    stop();
}
END_TEST

static const cJSON *compact_entry(const cJSON *state, double id)
{
    const cJSON *b;
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(state, "bodies"))
    {
        const cJSON *first = cJSON_IsArray(b) ? cJSON_GetArrayItem(b, 0) : NULL;
        if (cJSON_IsNumber(first) && first->valuedouble == id)
            return b;
    }
    return NULL;
}

static double item(const cJSON *array, int i)
{
    const cJSON *v = cJSON_GetArrayItem(array, i);
    ck_assert_msg(cJSON_IsNumber(v), "item %d is not a number", i);
    return v->valuedouble;
}

START_TEST(compact_states_send_seen_bodies_as_arrays)
{
    start(NULL);
    h_conn c, v1;
    /* A kinematic avatar flying right at 4 m/s, and a second client that reads the same
     * world as every version 1 client does, without `compact`. */
    double avatar = join_kinematic(&c, 0.4, 0.9, 50, 4);
    cJSON *w = join(&v1, HELLO);
    cJSON_Delete(w);
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"compact\":\"yes\"}"));
    expect_error(&c, "bad_request");
    ck_assert(h_send_line(&c, "{\"type\":\"input\",\"seq\":1,\"move\":[1,0]}"));
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"compact\":true}"));
    const cJSON *e = NULL;
    cJSON *s = NULL;
    for (int i = 0; i < 20 && !e; i++) {
        cJSON_Delete(s);
        s = h_recv_type(&c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        e = compact_entry(s, avatar);
    }
    ck_assert_ptr_nonnull(e);
    /* [id, x, y, rot, vx, vy, w] */
    ck_assert_int_eq(cJSON_GetArraySize(e), 7);
    ck_assert_double_eq(item(e, 0), avatar);
    ck_assert_double_eq_tol(item(e, 2), 50, 1e-4);
    ck_assert_double_eq(item(e, 3), 0);
    ck_assert_double_eq_tol(item(e, 4), 4, 1e-3);
    ck_assert_double_eq(item(e, 5), 0);
    ck_assert_ptr_null(h_state_body(s, avatar)); /* not also as an object */
    /* The other client's states have it as an object, at the same speed and where that speed
     * takes it between the two ticks (each client's states go out on a tick of its own). */
    double tick = h_num(s, "tick"), x = item(e, 1);
    cJSON_Delete(s);
    bool compared = false;
    for (int i = 0; i < 40 && !compared; i++) {
        s = h_recv_type(&v1, "state", 2000);
        ck_assert_ptr_nonnull(s);
        const cJSON *o = h_state_body(s, avatar);
        ck_assert_ptr_null(compact_entry(s, avatar));
        if (o && h_num(s, "tick") > tick) {
            ck_assert_double_eq(h_vec(o, "vel", 0), 4);
            ck_assert_double_eq_tol(h_vec(o, "pos", 0), x + 4.0 * (h_num(s, "tick") - tick) / 60,
                                    2e-4);
            compared = true;
        }
        cJSON_Delete(s);
    }
    ck_assert(compared);
    /* A body it sees for the first time comes as an object with its shape, as always. */
    double box = spawn_ok(&c, 1, "{\"shape\":{\"type\":\"aabb\",\"half\":[0.5,0.5]},"
                                 "\"pos\":[3,52],\"kind\":\"static\"}");
    s = next_state_with(&c, box);
    ck_assert_str_eq(h_str(h_state_body(s, box), "kind"), "static");
    cJSON_Delete(s);
    /* compact:false: objects again. */
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"compact\":false}"));
    s = NULL;
    for (int i = 0; i < 20; i++) {
        cJSON_Delete(s);
        s = h_recv_type(&c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        if (h_state_body(s, avatar))
            break;
    }
    ck_assert_ptr_nonnull(h_state_body(s, avatar));
    ck_assert_ptr_null(compact_entry(s, avatar));
    cJSON_Delete(s);
    h_close(&c);
    h_close(&v1);
    stop();
}
END_TEST

void server_world_tests(TCase *tc)
{
    tcase_add_test(tc, save_on_stop_and_restart_from_it);
    tcase_add_test(tc, a_recorded_session_replays_to_the_same_hash);
    tcase_add_test(tc, pile_scene_is_served);
    tcase_add_test(tc, sleeping_bodies_leave_the_states_at_rest);
    tcase_add_test(tc, radius_limits_the_state_to_nearby_bodies);
    tcase_add_test(tc, compact_states_send_seen_bodies_as_arrays);
}
