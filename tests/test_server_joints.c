/* Integration: joints against the real server. A client pins its ball to the world 2 m from
 * it: `joined` answers, the next state shows the joint once (its type, bodies and anchors in
 * each body's frame), and the ball swings on a circle of 2 m; bad joints are refused, each
 * naming its field, and another client sees no joint come of them; `unjoint` and a despawn
 * take joints away, listed in `removed_joints`; a joint pulled past its break force breaks
 * once, with its event; a session with joints replays as recorded. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "server_fixture.h"

/* The joints first seen and those removed in the states that come within `ms`, appended to
 * `seen` (objects) and `gone` (ids). */
static void collect_joints(h_conn *c, int ms, cJSON *seen, cJSON *gone)
{
    long long end = h_now_ms() + ms;
    for (cJSON *s; (s = state_before(c, end, 200)) != NULL;) {
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(s, "joints"))
            cJSON_AddItemToArray(seen, cJSON_Duplicate(e, true));
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(s, "removed_joints"))
            cJSON_AddItemToArray(gone, cJSON_Duplicate(e, true));
        cJSON_Delete(s);
    }
}

static double joint_ok(h_conn *c, const char *joint)
{
    char line[512];
    snprintf(line, sizeof line, "{\"type\":\"joint\",\"req\":\"j\",\"joint\":%s}", joint);
    cJSON *r = request(c, line, "joined");
    ck_assert_str_eq(h_str(r, "req"), "j");
    double id = h_num(r, "id");
    ck_assert_double_gt(id, 0);
    cJSON_Delete(r);
    return id;
}

/* The distance of body `id` from (x, y) in the next state that has it. */
static double distance_from(h_conn *c, double id, double x, double y)
{
    double p[3];
    next_state_vec(c, id, "pos", p);
    return hypot(p[0] - x, p[1] - y);
}

START_TEST(joints_over_the_wire)
{
    h_conn c, other;
    start_and_join_pair(&c, &other);
    /* A 0.1 m ball 2 m right of the pin, let go level: it swings down on a circle of 2 m. */
    double ball = spawn_ok(&c, 1, "{\"shape\":{\"type\":\"circle\",\"radius\":0.1},"
                                  "\"pos\":[802,100]}");
    double box = spawn_unit_box(&c, 2, 820, 100, ",\"kind\":\"static\"");
    double theirs = spawn_unit_box(&other, 3, 840, 100, "");
    char spec[256];
    snprintf(spec, sizeof spec, "{\"type\":\"revolute\",\"a\":%.0f,\"anchor\":[800,100]}", ball);
    double pin = joint_ok(&c, spec);
    cJSON *seen = cJSON_CreateArray(), *gone = cJSON_CreateArray();
    collect_joints(&other, 500, seen, gone);
    ck_assert_int_eq(cJSON_GetArraySize(seen), 1); /* once, however many states */
    const cJSON *j = cJSON_GetArrayItem(seen, 0);
    ck_assert_double_eq(h_num(j, "id"), pin);
    ck_assert_str_eq(h_str(j, "type"), "revolute");
    ck_assert_double_eq(h_num(j, "a"), ball);
    ck_assert_double_eq(h_num(j, "b"), 0);
    /* The anchor 2 m left of the ball (not turned), a little above it: the ball fell for the
     * ticks between its spawn and the joint. It swings on a circle of that radius. */
    ck_assert_double_eq_tol(h_vec(j, "local_a", 0), -2.0, 1e-4);
    ck_assert_double_ge(h_vec(j, "local_a", 1), 0.0);
    ck_assert_double_lt(h_vec(j, "local_a", 1), 1.0);
    double arm = hypot(h_vec(j, "local_a", 0), h_vec(j, "local_a", 1));
    ck_assert_double_eq_tol(h_vec(j, "local_b", 0), 800.0, 1e-5);
    ck_assert_double_eq_tol(h_vec(j, "local_b", 1), 100.0, 1e-5);
    cJSON_Delete(seen);
    cJSON_Delete(gone);
    for (int i = 0; i < 5; i++)
        ck_assert_double_eq_tol(distance_from(&c, ball, 800, 100), arm, 0.01 * arm);

    /* Refusals, each naming its field; nobody sees a joint come of them. */
    char line[512];
#define JOINT(...) (snprintf(line, sizeof line, "{\"type\":\"joint\",\"joint\":" __VA_ARGS__), line)
    expect_refused_naming(&c, JOINT("{\"type\":\"revolute\",\"a\":99999999}}"), "not_found",
                          "joint.a");
    expect_refused_naming(&c, JOINT("{\"type\":\"revolute\",\"a\":%.0f,\"b\":%.0f}}", box, box),
                   "bad_request", "joint.b");
    expect_refused_naming(&c, JOINT("{\"type\":\"revolute\",\"a\":%.0f,\"anchor\":[1e400,0]}}", box),
                   "bad_request", "joint.anchor");
    expect_refused_naming(&c, JOINT("{\"type\":\"revolute\",\"a\":%.0f,\"limits\":[1,-1]}}", box),
                   "bad_request", "joint.limits");
    expect_refused_naming(&c, JOINT("{\"type\":\"distance\",\"a\":%.0f,\"b\":%.0f,\"length\":-1}}", box,
                             ball),
                   "bad_request", "joint.length");
    expect_refused_naming(&c, JOINT("{\"type\":\"hinge\",\"a\":%.0f}}", box), "bad_request",
                   "joint.type");
    expect_refused_naming(&c, JOINT("{\"type\":\"weld\",\"a\":%.0f,\"b\":%.0f}}", box, theirs),
                   "not_owner", "joint.b");
    expect_refused_naming(&c, JOINT("{\"type\":\"weld\",\"a\":%.0f}}", theirs), "not_owner", "joint.a");
#undef JOINT
    snprintf(line, sizeof line, "{\"type\":\"unjoint\",\"id\":%.0f}", pin);
    expect_refused_naming(&other, line, "not_owner", "id");
    expect_refused_naming(&c, "{\"type\":\"unjoint\",\"id\":99999999}", "not_found", "id");
    seen = cJSON_CreateArray();
    gone = cJSON_CreateArray();
    collect_joints(&other, 300, seen, gone);
    ck_assert_int_eq(cJSON_GetArraySize(seen), 0);
    ck_assert_int_eq(cJSON_GetArraySize(gone), 0);
    cJSON_Delete(seen);
    cJSON_Delete(gone);

    /* The ball welded to the (static) box; the pin taken off, then the box despawned: both
     * joints are listed gone, the weld with its body. */
    snprintf(spec, sizeof spec, "{\"type\":\"weld\",\"a\":%.0f,\"b\":%.0f}", box, ball);
    double weld = joint_ok(&c, spec);
    snprintf(line, sizeof line, "{\"type\":\"unjoint\",\"req\":4,\"id\":%.0f}", pin);
    cJSON *r = request(&c, line, "unjoined");
    ck_assert_double_eq(h_num(r, "id"), pin);
    ck_assert_double_eq(h_num(r, "req"), 4);
    cJSON_Delete(r);
    snprintf(line, sizeof line, "{\"type\":\"despawn\",\"id\":%.0f}", box);
    cJSON_Delete(request(&c, line, "despawned"));
    seen = cJSON_CreateArray();
    gone = cJSON_CreateArray();
    collect_joints(&other, 500, seen, gone);
    ck_assert_int_eq(cJSON_GetArraySize(gone), 2);
    double g0 = cJSON_GetArrayItem(gone, 0)->valuedouble,
           g1 = cJSON_GetArrayItem(gone, 1)->valuedouble;
    ck_assert((g0 == pin && g1 == weld) || (g0 == weld && g1 == pin));
    cJSON_Delete(seen);
    cJSON_Delete(gone);
    h_close(&other);
    close_and_stop(&c);
}
END_TEST

/* A 1 kg box pinned at its centre with a break force of 15 N holds its 10 N weight; once the
 * client has seen the joint, a 2 kg box dropped on it adds its 20 N and the joint breaks, once:
 * a `joint_break` event naming it to a subscriber, and the joint in `removed_joints`. (A push
 * alone does not break it: the force is the joint's impulse at the end of the step, Box2D's
 * constraint force, which a blow taken up within the step leaves as it was.) */
START_TEST(a_joint_breaks_over_the_wire)
{
    h_conn c;
    start_and_join(&c, NULL);
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"events\":true}"));
    double box = spawn_unit_box(&c, 1, 900, 100, "");
    char spec[256];
    snprintf(spec, sizeof spec,
             "{\"type\":\"revolute\",\"a\":%.0f,\"anchor\":[900,100],\"break_force\":15}",
             box);
    double pin = joint_ok(&c, spec);
    cJSON *seen = NULL;
    for (long long until = h_now_ms() + 3000; !seen && h_now_ms() < until;) {
        cJSON *s = h_recv_type(&c, "state", 200);
        if (s && cJSON_GetObjectItemCaseSensitive(s, "joints"))
            seen = s;
        else
            cJSON_Delete(s);
    }
    ck_assert_ptr_nonnull(seen);
    cJSON_Delete(seen);
    spawn_unit_box(&c, 2, 900, 103, ",\"density\":2");
    int breaks = 0, gone = 0;
    long long end = h_now_ms() + 2500;
    while (h_now_ms() < end) {
        cJSON *s = h_recv_type(&c, "state", 200);
        if (!s)
            continue;
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(s, "events"))
        {
            if (strcmp(h_str(e, "type"), "joint_break") == 0) {
                ck_assert_double_eq(h_num(e, "joint"), pin);
                breaks++;
            }
        }
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(s, "removed_joints"))
        {
            ck_assert_double_eq(e->valuedouble, pin);
            gone++;
        }
        cJSON_Delete(s);
    }
    ck_assert_int_eq(breaks, 1);
    ck_assert_int_eq(gone, 1);
    char line[128];
    snprintf(line, sizeof line, "{\"type\":\"unjoint\",\"id\":%.0f}", pin);
    expect_refused_naming(&c, line, "not_found", "id");
    close_and_stop(&c);
}
END_TEST

/* A recorded session that makes and removes joints replays to the same ids and hashes. */
START_TEST(a_session_with_joints_replays_as_recorded)
{
    char path[] = "/tmp/mink-record-joints-XXXXXX";
    h_conn c = start_recording(path, false, "[-3.6,1]");
    double a = spawn_ok(&c, 1, "{\"shape\":{\"type\":\"box\",\"half\":[0.3,0.3]},\"pos\":[1,6]}");
    double b = spawn_ok(&c, 2, "{\"shape\":{\"type\":\"box\",\"half\":[0.3,0.3]},\"pos\":[2,6]}");
    char spec[256];
    snprintf(spec, sizeof spec, "{\"type\":\"revolute\",\"a\":%.0f,\"anchor\":[0.5,7]}", a);
    joint_ok(&c, spec);
    snprintf(spec, sizeof spec,
             "{\"type\":\"distance\",\"a\":%.0f,\"b\":%.0f,\"spring\":{\"hz\":3,\"damping\":0.3},"
             "\"break_force\":500}",
             a, b);
    double rope = joint_ok(&c, spec);
    const char *moves[] = {"[1,0],\"jump\":false", "[1,0],\"jump\":true", "[-1,0],\"jump\":false"};
    send_moves(&c, moves);
    char line[128];
    snprintf(line, sizeof line, "{\"type\":\"unjoint\",\"id\":%.0f}", rope);
    cJSON_Delete(request(&c, line, "unjoined"));
    char log[] = "/tmp/mink-replay-joints-XXXXXX";
    stop_and_replay(&c, path, "", log);
    ck_assert(file_has(path, "\"type\":\"joint\""));
    ck_assert(file_has(path, "\"type\":\"unjoint\""));
    unlink(path);
    unlink(log);
}
END_TEST

void server_joint_tests(TCase *tc)
{
    tcase_add_test(tc, joints_over_the_wire);
    tcase_add_test(tc, a_joint_breaks_over_the_wire);
    tcase_add_test(tc, a_session_with_joints_replays_as_recorded);
}
