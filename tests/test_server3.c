/* Integration: 3D worlds, the server started with --dim 3 (the embedded demo3d scene). */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server_fixture.h"

/* ---- 3D worlds: the server started with --dim 3 (the embedded demo3d scene) ---- */


/* The length of a state body's `rot` quaternion. */
static double quat_norm(const cJSON *body)
{
    double x = h_vec(body, "rot", 0), y = h_vec(body, "rot", 1), z = h_vec(body, "rot", 2),
           w = h_vec(body, "rot", 3);
    return sqrt(x * x + y * y + z * z + w * w);
}

static int array_size(const cJSON *obj, const char *key)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
}

/* Sends `line`; the answer must be error `code`, its message containing `text`. */
static void expect_refusal(h_conn *c, const char *line, const char *code, const char *text)
{
    ck_assert(h_send_line(c, line));
    cJSON *e = h_recv_type(c, "error", 3000);
    ck_assert_msg(e != NULL, "no error %s for %s", code, line);
    const char *got = h_str(e, "code"), *message = h_str(e, "message");
    ck_assert_msg(got && strcmp(got, code) == 0, "%s: code %s, not %s", line,
                  got ? got : "(none)", code);
    ck_assert_msg(message && strstr(message, text), "%s: '%s' does not say '%s'", line,
                  message ? message : "(none)", text);
    cJSON_Delete(e);
}

/* A capsule character of radius 0.4 and half height 0.5 stands with its centre 0.9 m above
 * the demo3d floor (whose top is y = 0); (12, -15) is open floor, away from the scene. */
#define CAPSULE_AVATAR                                                                         \
    "{\"type\":\"hello\",\"protocol\":1,\"name\":\"c3\",\"avatar\":{\"shape\":{\"type\":"    \
    "\"capsule\",\"radius\":0.4,\"half_height\":0.5},\"pos\":[12,0.9,-15],\"kind\":"       \
    "\"character\",\"max_speed\":3}}"

START_TEST(dim3_welcome_and_states_are_3d)
{
    start(DIM3);
    h_conn c;
    cJSON *w = join(&c, CAPSULE_AVATAR);
    ck_assert_double_eq(h_num(w, "dim"), 3);
    ck_assert_int_eq(array_size(w, "gravity"), 3);
    ck_assert_double_eq(h_vec(w, "gravity", 0), 0);
    ck_assert_double_eq(h_vec(w, "gravity", 1), -10);
    ck_assert_double_eq(h_vec(w, "gravity", 2), 0);
    double avatar = h_num(w, "avatar");
    ck_assert_double_ge(avatar, 1);
    cJSON *s = h_recv_type(&c, "state", 3000);
    ck_assert_ptr_nonnull(s);
    /* The demo3d scene's 25 bodies and the avatar, every one with 3D vectors and a unit
     * quaternion. */
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(s, "bodies"), *b;
    ck_assert_int_eq(cJSON_GetArraySize(bodies), 26);
    cJSON_ArrayForEach(b, bodies)
    {
        ck_assert_int_eq(array_size(b, "pos"), 3);
        ck_assert_int_eq(array_size(b, "vel"), 3);
        ck_assert_int_eq(array_size(b, "w"), 3);
        ck_assert_int_eq(array_size(b, "rot"), 4);
        ck_assert_double_eq_tol(quat_norm(b), 1.0, 2e-4); /* 4 decimals a component */
    }
    const cJSON *shape = expect_avatar_shape(s, w, "capsule");
    const cJSON *a = h_state_body(s, avatar);
    ck_assert_double_eq_tol(h_num(shape, "radius"), 0.4, 1e-6);
    ck_assert_double_eq_tol(h_num(shape, "half_height"), 0.5, 1e-6);
    ck_assert_double_eq_tol(h_vec(a, "pos", 0), 12, 1e-3);
    ck_assert_double_eq_tol(h_vec(a, "pos", 2), -15, 1e-3);
    /* The floor: static, a 40 x 1 x 40 m box. */
    const cJSON *floor = h_state_body(s, 1);
    ck_assert_ptr_nonnull(floor);
    ck_assert_str_eq(h_str(floor, "kind"), "static");
    shape = cJSON_GetObjectItemCaseSensitive(floor, "shape");
    ck_assert_str_eq(h_str(shape, "type"), "box");
    ck_assert_double_eq_tol(h_vec(shape, "half", 0), 20, 1e-6);
    ck_assert_double_eq_tol(h_vec(shape, "half", 1), 0.5, 1e-6);
    ck_assert_double_eq_tol(h_vec(shape, "half", 2), 20, 1e-6);
    cJSON_Delete(s);
    cJSON_Delete(w);
    close_and_stop(&c);
}
END_TEST

START_TEST(dim3_spawns_and_refusals)
{
    h_conn c = start_joined(DIM3);
    /* Shapes and vectors of the other dim, and a zero quaternion, are refused. */
    static const char *const refused[][2] = {
        {"{\"type\":\"spawn\",\"req\":5,\"body\":{\"shape\":{\"type\":\"aabb\",\"half\":[1,1]},"
         "\"pos\":[0,5,0]}}",
         "2D shape"},
        {"{\"type\":\"spawn\",\"req\":6,\"body\":{\"shape\":{\"type\":\"circle\",\"radius\":1},"
         "\"pos\":[0,5,0]}}",
         "2D shape"},
        {"{\"type\":\"spawn\",\"req\":7,\"body\":{\"shape\":{\"type\":\"sphere\",\"radius\":1},"
         "\"pos\":[0,5]}}",
         "3 numbers"},
        {"{\"type\":\"spawn\",\"req\":8,\"body\":{\"shape\":{\"type\":\"sphere\",\"radius\":1},"
         "\"pos\":[0,5,0],\"rot\":[0,0,0,0]}}",
         "zero quaternion"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        expect_refusal(&c, refused[i][0], "bad_request", refused[i][1]);
    }
    ck_assert(h_send_line(&c, "{\"type\":\"spawn\",\"req\":9,\"body\":{\"shape\":{\"type\":"
                              "\"hull\",\"points\":[[0,0,0],[1,0,0],[0,1,0],[2,2,0]]},"
                              "\"pos\":[0,5,0]}}"));
    expect_error(&c, "bad_request"); /* flat: no volume */

    /* Four static bodies (what the state shows is what was spawned) in one write, so that
     * no state comes between the answers and their first sightings are in the next one.
     * [0, 2, 0, 2] is [0, sin 45, 0, cos 45] scaled: 90 degrees about y. */
    const char *specs[4] = {
        "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.25,1]},\"pos\":[12,3,-12],"
        "\"kind\":\"static\",\"tag\":\"b\"}",
        "{\"shape\":{\"type\":\"sphere\",\"radius\":0.3},\"pos\":[14,3,-12],"
        "\"kind\":\"static\"}",
        "{\"shape\":{\"type\":\"hull\",\"points\":[[0,0,0],[1,0,0],[0,1,0],[0,0,1],"
        "[0.1,0.1,0.1]]},\"pos\":[16,3,-12],\"kind\":\"static\"}",
        "{\"shape\":{\"type\":\"box\",\"half\":[1,0.5,0.5]},\"pos\":[12,3,-16],"
        "\"rot\":[0,2,0,2],\"kind\":\"static\"}",
    };
    char lines[2048];
    size_t n = 0;
    for (int i = 0; i < 4; i++)
        n += (size_t)snprintf(lines + n, sizeof lines - n,
                              "{\"type\":\"spawn\",\"req\":%d,\"body\":%s}\n", i, specs[i]);
    ck_assert(h_send_raw(&c, lines, n));
    double ids[4];
    for (int i = 0; i < 4; i++) {
        cJSON *sp = h_recv_type(&c, "spawned", 3000);
        ck_assert_ptr_nonnull(sp);
        ck_assert_double_eq(h_num(sp, "req"), i);
        ids[i] = h_num(sp, "id");
        cJSON_Delete(sp);
    }
    double box = ids[0], ball = ids[1], hull = ids[2], turned = ids[3];

    /* The four bodies' first sightings. */
    cJSON *s = next_state_with(&c, turned);
    const cJSON *b = h_state_body(s, box);
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(h_str(b, "tag"), "b");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(b, "shape");
    ck_assert_str_eq(h_str(shape, "type"), "box");
    ck_assert_double_eq_tol(h_vec(shape, "half", 0), 0.5, 1e-6);
    ck_assert_double_eq_tol(h_vec(shape, "half", 1), 0.25, 1e-6);
    ck_assert_double_eq_tol(h_vec(shape, "half", 2), 1, 1e-6);
    ck_assert_double_eq_tol(h_vec(b, "pos", 0), 12, 1e-4);
    ck_assert_double_eq_tol(h_vec(b, "pos", 1), 3, 1e-4);
    ck_assert_double_eq_tol(h_vec(b, "pos", 2), -12, 1e-4);

    b = h_state_body(s, ball);
    ck_assert_ptr_nonnull(b);
    shape = cJSON_GetObjectItemCaseSensitive(b, "shape");
    ck_assert_str_eq(h_str(shape, "type"), "sphere");
    ck_assert_double_eq_tol(h_num(shape, "radius"), 0.3, 1e-6);

    /* The hull lists its vertices: the tetrahedron's four corners, not the point inside. */
    b = h_state_body(s, hull);
    ck_assert_ptr_nonnull(b);
    shape = cJSON_GetObjectItemCaseSensitive(b, "shape");
    ck_assert_str_eq(h_str(shape, "type"), "hull");
    const cJSON *points = cJSON_GetObjectItemCaseSensitive(shape, "points"), *p;
    ck_assert_int_eq(cJSON_GetArraySize(points), 4);
    static const double corners[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    int found = 0;
    cJSON_ArrayForEach(p, points)
    {
        ck_assert_int_eq(cJSON_GetArraySize(p), 3);
        double v[3];
        for (int k = 0; k < 3; k++)
            v[k] = cJSON_GetArrayItem(p, k)->valuedouble;
        for (int i = 0; i < 4; i++)
            found += fabs(v[0] - corners[i][0]) < 1e-6 && fabs(v[1] - corners[i][1]) < 1e-6 &&
                     fabs(v[2] - corners[i][2]) < 1e-6;
    }
    ck_assert_int_eq(found, 4);

    /* The non-unit quaternion was normalised: [0, sqrt(1/2), 0, sqrt(1/2)]. */
    b = h_state_body(s, turned);
    ck_assert_double_eq_tol(quat_norm(b), 1.0, 2e-4);
    ck_assert_double_eq_tol(h_vec(b, "rot", 0), 0, 1e-4);
    ck_assert_double_eq_tol(h_vec(b, "rot", 1), 0.70710678, 1e-4);
    ck_assert_double_eq_tol(h_vec(b, "rot", 2), 0, 1e-4);
    ck_assert_double_eq_tol(h_vec(b, "rot", 3), 0.70710678, 1e-4);
    cJSON_Delete(s);
    expect_alive(&c);
    close_and_stop(&c);
}
END_TEST

START_TEST(dim3_input_walks_the_character_on_the_floor)
{
    start(DIM3);
    h_conn c;
    cJSON *w = join(&c, CAPSULE_AVATAR);
    double avatar = h_num(w, "avatar");
    cJSON_Delete(w);
    /* A 2D move is refused in a 3D world. */
    expect_refusal(&c, "{\"type\":\"input\",\"seq\":1,\"move\":[1,0]}", "bad_request",
                   "3 numbers");
    /* Skip to the states after the last input: it runs at max_speed (3 m/s) along +x, on the
     * floor (its centre 0.9 m up), not drifting in z. */
    double ack = send_inputs_to_ack(&c, "[1,0,0]", 30);
    ck_assert_double_eq(ack, 30);
    const field_near on_floor[] = {{"vel", 0, 3.0, 1e-2},
                                   {"vel", 2, 0.0, 1e-3},
                                   {"pos", 1, 0.9, 0.03},
                                   {"pos", 2, -15.0, 1e-3}};
    double x = expect_run(&c, avatar, 3.0, on_floor, 4, 2e-2, &ack);
    /* 30 inputs 33 ms apart: about a second at up to 3 m/s. */
    ck_assert_double_gt(x, 12.0 + 2.0);
    close_and_stop(&c);
}
END_TEST

START_TEST(dim3_dropped_sphere_rests_then_sleeps)
{
    h_conn c = start_joined(DIM3);
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"contacts\":true}"));
    double ball = spawn_ok(&c, 1, "{\"shape\":{\"type\":\"sphere\",\"radius\":0.5},"
                                  "\"pos\":[14,3,-14]}");
    /* It falls 2.5 m (0.7 s) and rests with its centre one radius over the floor's top; once
     * asleep and sent at rest it leaves the states. Its contact with the floor (id 1) has
     * the normal straight up from the floor to the ball; at rest (the landing at 7 m/s
     * sinks it a few cm for a few steps) its point is on the floor's top below the centre. */
    double y = NAN, speed = NAN, point[3] = {NAN, NAN, NAN};
    long long last_seen = 0, start_ms = h_now_ms();
    bool contact = false;
    while (h_now_ms() < start_ms + 6000) {
        cJSON *s = h_recv_type(&c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        const cJSON *b = h_state_body(s, ball);
        if (b) {
            last_seen = h_now_ms();
            y = h_vec(b, "pos", 1);
            speed = fabs(h_vec(b, "vel", 0)) + fabs(h_vec(b, "vel", 1)) +
                    fabs(h_vec(b, "vel", 2));
            ck_assert_double_eq_tol(h_vec(b, "pos", 0), 14, 1e-3);
            ck_assert_double_eq_tol(h_vec(b, "pos", 2), -14, 1e-3);
        }
        const cJSON *cs = cJSON_GetObjectItemCaseSensitive(s, "contacts"), *k;
        cJSON_ArrayForEach(k, cs)
        {
            bool ab = h_num(k, "a") == 1 && h_num(k, "b") == ball;
            bool ba = h_num(k, "a") == ball && h_num(k, "b") == 1;
            if (!ab && !ba)
                continue;
            contact = true;
            ck_assert_int_eq(array_size(k, "normal"), 3);
            ck_assert_double_eq_tol(h_vec(k, "normal", 0), 0, 1e-3);
            ck_assert_double_eq_tol(h_vec(k, "normal", 1), ab ? 1 : -1, 1e-3);
            ck_assert_double_eq_tol(h_vec(k, "normal", 2), 0, 1e-3);
            const cJSON *pt = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(k, "points"), 0);
            ck_assert_ptr_nonnull(pt);
            for (int i = 0; i < 3; i++)
                point[i] = h_vec(pt, "pos", i);
        }
        cJSON_Delete(s);
    }
    ck_assert(contact);
    ck_assert_double_eq_tol(point[0], 14, 1e-3);
    ck_assert_double_eq_tol(point[1], 0, 1e-2);
    ck_assert_double_eq_tol(point[2], -14, 1e-3);
    ck_assert_double_eq_tol(y, 0.5, 0.01);
    ck_assert_double_eq(speed, 0.0);
    /* Out of the states for the last second at least. */
    ck_assert_int_lt(last_seen, h_now_ms() - 1000);
    close_and_stop(&c);
}
END_TEST

START_TEST(dim3_query_over_the_wire)
{
    h_conn c = start_joined(DIM3);
    /* Two unit spheres 1.5 m apart overlap by 0.5 m along +x; the contact point is midway
     * between the surfaces (x = 1 of a, x = 0.5 of b): x = 0.75. */
    cJSON *r = expect_hit(&c, "{\"type\":\"query\",\"req\":\"q1\",\"a\":{\"shape\":{\"type\":"
                              "\"sphere\",\"radius\":1},\"pos\":[0,0,0]},\"b\":{\"shape\":{"
                              "\"type\":\"sphere\",\"radius\":1},\"pos\":[1.5,0,0]}}",
                              "q1", 0.5, 1e-4);
    ck_assert_int_eq(array_size(r, "normal"), 3);
    ck_assert_double_eq_tol(h_vec(r, "normal", 0), 1, 1e-4);
    ck_assert_double_eq_tol(h_vec(r, "normal", 1), 0, 1e-4);
    ck_assert_double_eq_tol(h_vec(r, "normal", 2), 0, 1e-4);
    const cJSON *pt = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "points"), 0);
    ck_assert_int_eq(cJSON_GetArraySize(pt), 3);
    ck_assert_double_eq_tol(cJSON_GetArrayItem(pt, 0)->valuedouble, 0.75, 1e-4);
    cJSON_Delete(r);
    /* Apart: 3 m between centres, 1 m between surfaces. Then along z: the half-metre cube at
     * the origin reaches z = 0.5, the unit sphere at z = 2.5 down to z = 1.5: a 1 m gap. */
    expect_miss(&c, "{\"type\":\"query\",\"req\":2,\"a\":{\"shape\":{\"type\":"
                    "\"sphere\",\"radius\":1},\"pos\":[0,0,0]},\"b\":{\"shape\":{"
                    "\"type\":\"sphere\",\"radius\":1},\"pos\":[3,0,0]}}", 1.0, 1e-4);
    expect_miss(&c, "{\"type\":\"query\",\"req\":3,\"a\":{\"shape\":{\"type\":"
                    "\"box\",\"half\":[0.5,0.5,0.5]},\"pos\":[0,0,0]},\"b\":{\"shape\":{"
                    "\"type\":\"sphere\",\"radius\":1},\"pos\":[0,0,2.5]}}", 1.0, 1e-3);
    /* A 2D shape is refused, the connection stays. */
    expect_refusal(&c, "{\"type\":\"query\",\"req\":4,\"a\":{\"shape\":{\"type\":"
                       "\"circle\",\"radius\":1},\"pos\":[0,0]},\"b\":{\"shape\":{"
                       "\"type\":\"circle\",\"radius\":1},\"pos\":[1,0]}}",
                   "bad_request", "2D shape");
    expect_alive(&c);
    close_and_stop(&c);
}
END_TEST

/* A body's compact entry ([id, ...]) in a state's bodies, or NULL. */

START_TEST(dim3_radius_counts_z)
{
    start(DIM3);
    h_conn c;
    /* A kinematic avatar high above the scene, a static box 5 m from it along x and one 15 m
     * from it along z: with a 10 m radius only the first is near. (In x and y alone both
     * would be.) */
    cJSON *w = join(&c, "{\"type\":\"hello\",\"protocol\":1,\"avatar\":{\"shape\":{\"type\":"
                        "\"box\",\"half\":[0.5,0.5,0.5]},\"pos\":[0,100,0],\"kind\":"
                        "\"kinematic\"}}");
    double avatar = h_num(w, "avatar");
    cJSON_Delete(w);
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"radius\":10}"));
    /* The near one last: a static body is sent once, and a state that came while waiting for
     * the other's `spawned` would be passed over. */
    double far = spawn_ok(&c, 2, "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},"
                                 "\"pos\":[0,100,15],\"kind\":\"static\"}");
    double near = spawn_ok(&c, 1, "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},"
                                  "\"pos\":[5,100,0],\"kind\":\"static\"}");
    cJSON *s = next_state_with(&c, near);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "bodies")), 2);
    ck_assert_ptr_nonnull(h_state_body(s, avatar));
    ck_assert_ptr_null(h_state_body(s, far));
    cJSON_Delete(s);
    close_and_stop(&c);
}
END_TEST

START_TEST(dim3_pile_scene_and_dim_flags)
{
    const char *args[] = {"--scene", "pile3d:50", NULL};
    start(args);
    h_conn c;
    cJSON *w = join(&c, HELLO);
    ck_assert_double_eq(h_num(w, "dim"), 3);
    cJSON_Delete(w);
    cJSON *s = h_recv_type(&c, "state", 3000);
    ck_assert_ptr_nonnull(s);
    /* The ground and 50 cubes. */
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "bodies")), 51);
    const cJSON *ground = h_state_body(s, 1), *cube = h_state_body(s, 2);
    ck_assert_ptr_nonnull(ground);
    ck_assert_ptr_nonnull(cube);
    ck_assert_str_eq(h_str(ground, "kind"), "static");
    ck_assert_str_eq(h_str(cube, "kind"), "dynamic");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(cube, "shape");
    ck_assert_str_eq(h_str(shape, "type"), "box");
    for (int k = 0; k < 3; k++)
        ck_assert_double_eq_tol(h_vec(shape, "half", k), 0.5, 1e-9);
    /* The first row rests 0.05 m above the ground's top, and a cube falls that far in
     * 0.1 s: by the first state it is between y = 0.5 and 0.55. */
    ck_assert_double_ge(h_vec(cube, "pos", 1), 0.5 - 1e-3);
    ck_assert_double_le(h_vec(cube, "pos", 1), 0.55 + 1e-4);
    cJSON_Delete(s);
    expect_alive(&c);
    close_and_stop(&c);

    /* A --dim that contradicts the scene, and a bad N, exit 2 saying why. */
    char scene[] = "/tmp/mink-scene3-XXXXXX";
    int fd = mkstemp(scene);
    ck_assert_int_ge(fd, 0);
    const char *json = "{\"dim\":3,\"bodies\":[{\"shape\":{\"type\":\"sphere\",\"radius\":1},"
                       "\"pos\":[0,0,0],\"kind\":\"static\"}]}";
    ck_assert_int_eq(write(fd, json, strlen(json)), (ssize_t)strlen(json));
    close(fd);
    const char *cases[][2] = {
        {"--dim 3 --scene pile:5", "2D world"},  {"--dim 2 --scene pile3d:5", "3D world"},
        {"--dim 2 --scene demo3d", "3D world"},  {"--dim 4", "--dim"},
        {"--scene pile3d:0", "--scene pile3d:N"}, {"--scene pile3d:x", "--scene pile3d:N"},
        {"--dim 2 --scene", "3D world"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[512], out[1024];
        bool file = i == sizeof cases / sizeof cases[0] - 1;
        snprintf(cmd, sizeof cmd, "%s %s%s%s --port 0 2>&1", MINK_SERVER_PATH, cases[i][0],
                 file ? " " : "", file ? scene : "");
        int status = run_command(cmd, out, sizeof out);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2, "%s: %d", cases[i][0],
                      status);
        ck_assert_msg(strstr(out, cases[i][1]) != NULL, "%s: %s", cases[i][0], out);
    }
    /* Without --dim the file's dim decides. */
    const char *from_file[] = {"--scene", scene, NULL};
    start(from_file);
    w = join(&c, HELLO);
    ck_assert_double_eq(h_num(w, "dim"), 3);
    cJSON_Delete(w);
    close_and_stop(&c);
    unlink(scene);
}
END_TEST

START_TEST(dim3_recorded_session_replays)
{
    char path[] = "/tmp/mink-record3-XXXXXX";
    /* Next to the demo3d's tower of crates (x = 4, z = 4), which the avatar runs into. */
    h_conn c = start_recording(path, true, "[2,1,4]");
    spawn_ok(&c, 1, "{\"shape\":{\"type\":\"box\",\"half\":[0.3,0.3,0.3]},\"pos\":[1,5,2],"
                    "\"rot\":[0.1,0.2,0.3,0.9]}");
    const char *moves[] = {"[1,0,0],\"jump\":false", "[1,0,0.5],\"jump\":true",
                           "[-1,0,-1],\"jump\":false"};
    send_moves(&c, moves);
    char log[] = "/tmp/mink-replay3-XXXXXX";
    stop_and_replay(&c, path, "--dim 3 ", log);
    /* On the 2D demo it does not replay. */
    ck_assert_int_eq(server_exit_code("--replay %s 2> %s", path, log), 1);
    unlink(path);
    unlink(log);
}
END_TEST

START_TEST(dim3_2d_clients_get_errors_and_the_server_stays)
{
    start(DIM3);
    /* The bots join with 2D avatars: each hello is refused with bad_request (they may say
     * hello again), and the server goes on serving a 3D client. */
    char cmd[512], out[8192];
    snprintf(cmd, sizeof cmd, "%s --port %d --bots 5 --duration 2 2>/dev/null",
             MINK_CLIENT_PATH, srv.port);
    run_command(cmd, out, sizeof out);
    h_conn c;
    cJSON *w = join(&c, CAPSULE_AVATAR);
    ck_assert_double_eq(h_num(w, "dim"), 3);
    cJSON_Delete(w);
    expect_alive(&c);
    h_close(&c);
    ck_assert(h_server_log_has(&srv, "listening"));
    stop();
}
END_TEST

void server_3d_tests(TCase *tc)
{
    tcase_add_test(tc, dim3_welcome_and_states_are_3d);
    tcase_add_test(tc, dim3_spawns_and_refusals);
    tcase_add_test(tc, dim3_input_walks_the_character_on_the_floor);
    tcase_add_test(tc, dim3_dropped_sphere_rests_then_sleeps);
    tcase_add_test(tc, dim3_query_over_the_wire);
    tcase_add_test(tc, dim3_radius_counts_z);
    tcase_add_test(tc, dim3_pile_scene_and_dim_flags);
    tcase_add_test(tc, dim3_recorded_session_replays);
    tcase_add_test(tc, dim3_2d_clients_get_errors_and_the_server_stays);
}
