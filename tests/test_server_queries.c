/* Integration: world queries over the wire (raycast, cast, overlap, at_tick) against the real
 * server, and the bad inputs, each a bad_request naming its field. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "server_fixture.h"

/* The hits array of a `hits` answer. */
static const cJSON *hits_of(const cJSON *r)
{
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(r, "hits");
    ck_assert(cJSON_IsArray(h));
    return h;
}

/* The one hit of a `hits` answer (there must be exactly one). */
static const cJSON *one_hit(const cJSON *r)
{
    const cJSON *h = hits_of(r);
    ck_assert_int_eq(cJSON_GetArraySize(h), 1);
    return cJSON_GetArrayItem(h, 0);
}

/* A value a hit must have: its number `key` (i < 0) or component i of its vector `key`, less
 * than tol from want. */
typedef struct hit_value {
    const char *key;
    int i;
    double want, tol;
} hit_value;

/* Sends the query `line`, whose answer must hold exactly one hit: of body `id` (any when NAN),
 * with the n values `want`, answering `req` (not checked when NULL). */
static void expect_one_hit(h_conn *c, const char *line, const char *req, double id,
                           const hit_value *want, size_t n)
{
    cJSON *r = request(c, line, "hits");
    if (req)
        ck_assert_str_eq(h_str(r, "req"), req);
    const cJSON *h = one_hit(r);
    if (!isnan(id))
        ck_assert_double_eq(h_num(h, "id"), id);
    for (size_t k = 0; k < n; k++) {
        const hit_value *v = &want[k];
        ck_assert_double_eq_tol(v->i < 0 ? h_num(h, v->key) : h_vec(h, v->key, v->i), v->want,
                                v->tol);
    }
    cJSON_Delete(r);
}

static void expect_bad(h_conn *c, const char *line, const char *field)
{
    ck_assert(h_send_line(c, line));
    cJSON *e = h_recv_type(c, "error", 3000);
    ck_assert_msg(e != NULL, "no error for %s", line);
    ck_assert_str_eq(h_str(e, "code"), "bad_request");
    ck_assert_msg(strncmp(h_str(e, "message"), field, strlen(field)) == 0,
                  "the message \"%s\" does not name %s", h_str(e, "message"), field);
    ck_assert_str_eq(h_str(e, "req"), "bad");
    cJSON_Delete(e);
}

/* Two static boxes stacked far from the demo's bodies, a ray down through both, a circle
 * overlapping one and a circle cast into it. */
START_TEST(world_queries_over_the_wire)
{
    h_conn c = start_joined(NULL);
    double low = spawn_ok(&c, 1, "{\"shape\":{\"type\":\"box\",\"half\":[1,1]},\"pos\":[500,100],"
                                 "\"kind\":\"static\"}");
    double high = spawn_ok(&c, 2, "{\"shape\":{\"type\":\"box\",\"half\":[1,1]},\"pos\":[500,"
                                  "103],\"kind\":\"static\"}");
    const hit_value down[] = {
        {"point", 0, 500.5, 1e-4},
        {"point", 1, 104.0, 1e-4},
        {"normal", 1, 1.0, 1e-6},
        {"fraction", -1, 6.0 / 20.0, 1e-6},
    };
    expect_one_hit(&c,
                   "{\"type\":\"raycast\",\"req\":\"r1\",\"from\":[500.5,110],\"to\":[500.5,90]}",
                   "r1", high, down, 4);
    /* all: both, in order; ignore the high one: the low one; kinds dynamic only: none. */
    cJSON *r = request(&c,
                       "{\"type\":\"raycast\",\"req\":2,\"from\":[500.5,110],\"to\":[500.5,90],"
                       "\"all\":true}",
                       "hits");
    const cJSON *h = hits_of(r);
    ck_assert_int_eq(cJSON_GetArraySize(h), 2);
    ck_assert_double_eq(h_num(cJSON_GetArrayItem(h, 0), "id"), high);
    ck_assert_double_eq(h_num(cJSON_GetArrayItem(h, 1), "id"), low);
    ck_assert_double_eq_tol(h_vec(cJSON_GetArrayItem(h, 1), "point", 1), 101.0, 1e-4);
    cJSON_Delete(r);
    char line[512];
    snprintf(line, sizeof line,
             "{\"type\":\"raycast\",\"req\":3,\"from\":[500.5,110],\"to\":[500.5,90],"
             "\"ignore\":[%.0f]}",
             high);
    r = request(&c, line, "hits");
    ck_assert_double_eq(h_num(cJSON_GetArrayItem(hits_of(r), 0), "id"), low);
    cJSON_Delete(r);
    r = request(&c, "{\"type\":\"raycast\",\"req\":4,\"from\":[500.5,110],\"to\":[500.5,90],"
                    "\"kinds\":[\"dynamic\",\"character\"]}",
                "hits");
    ck_assert_int_eq(cJSON_GetArraySize(hits_of(r)), 0);
    cJSON_Delete(r);
    /* A circle of radius 0.2 at x = 501.1 reaches 0.1 into the low box. */
    const hit_value reach[] = {{"depth", -1, 0.1, 1e-5}, {"normal", 0, -1.0, 1e-6}};
    expect_one_hit(
        &c,
        "{\"type\":\"overlap\",\"req\":5,\"shape\":{\"type\":\"circle\",\"radius\":0.2},"
        "\"pos\":[501.1,100]}",
        NULL, low, reach, 2);
    /* A circle of radius 0.5 cast from x = 495 to 505 stops with its edge on x = 499. */
    const hit_value stop_at[] = {{"fraction", -1, 0.35, 1e-5}, {"normal", 0, -1.0, 1e-5}};
    expect_one_hit(&c,
                   "{\"type\":\"cast\",\"req\":6,\"shape\":{\"type\":\"circle\",\"radius\":0.5},"
                   "\"pos\":[495,100],\"to\":[505,100]}",
                   NULL, low, stop_at, 2);

    /* Bad input: each a bad_request naming the field; the connection and the world go on. */
    expect_bad(&c, "{\"type\":\"raycast\",\"req\":\"bad\",\"from\":[1,2],\"to\":[1,2]}", "to");
    expect_bad(&c, "{\"type\":\"raycast\",\"req\":\"bad\",\"from\":[1e999,2],\"to\":[1,2]}",
               "from");
    expect_bad(&c, "{\"type\":\"raycast\",\"req\":\"bad\",\"to\":[1,2]}", "from");
    expect_bad(&c, "{\"type\":\"raycast\",\"req\":\"bad\",\"from\":[0,0],\"to\":[1,2],"
                   "\"at_tick\":999999999}",
               "at_tick");
    expect_bad(&c, "{\"type\":\"raycast\",\"req\":\"bad\",\"from\":[0,0],\"to\":[1,2],"
                   "\"at_tick\":-1}",
               "at_tick");
    char many[1024] = "{\"type\":\"overlap\",\"req\":\"bad\",\"shape\":{\"type\":\"circle\","
                      "\"radius\":1},\"pos\":[0,0],\"ignore\":[";
    for (int i = 0; i < 65; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%s%d", i ? "," : "", i + 1);
    strcat(many, "]}");
    expect_bad(&c, many, "ignore");
    expect_bad(&c, "{\"type\":\"overlap\",\"req\":\"bad\",\"shape\":{\"type\":\"circle\","
                   "\"radius\":1},\"pos\":[0,0],\"kinds\":[\"rock\"]}",
               "kinds[0]");
    expect_bad(&c, "{\"type\":\"cast\",\"req\":\"bad\",\"shape\":{\"type\":\"circle\","
                   "\"radius\":1},\"pos\":[3,4],\"to\":[3,4]}",
               "to");
    expect_bad(&c, "{\"type\":\"cast\",\"req\":\"bad\",\"shape\":{\"type\":\"sphere\","
                   "\"radius\":1},\"pos\":[3,4],\"to\":[5,4]}",
               "shape");
    expect_alive(&c);
    h_close(&c);
    stop();
}
END_TEST

/* Lag compensation over the wire: a kinematic box moving at 3 m/s is hit at the tick of a
 * state the client saw, where that state showed it, though it has moved on since. */
START_TEST(at_tick_answers_as_the_client_saw_it)
{
    h_conn c = start_joined(NULL);
    double mover = spawn_ok(&c, 1, "{\"shape\":{\"type\":\"box\",\"half\":[0.25,0.25]},"
                                   "\"pos\":[-300,200],\"vel\":[3,0],\"kind\":\"kinematic\"}");
    cJSON *s = next_state_with(&c, mover);
    double tick = h_num(s, "tick");
    const cJSON *b = h_state_body(s, mover);
    double x = h_vec(b, "pos", 0), y = h_vec(b, "pos", 1);
    cJSON_Delete(s);
    h_sleep_ms(400); /* 1.2 m on: the box is no longer at x */
    char line[512];
    snprintf(line, sizeof line,
             "{\"type\":\"raycast\",\"req\":1,\"from\":[%.4f,%.4f],\"to\":[%.4f,%.4f]}", x, y + 5,
             x, y - 5);
    cJSON *r = request(&c, line, "hits");
    ck_assert_int_eq(cJSON_GetArraySize(hits_of(r)), 0);
    ck_assert(h_num(r, "tick") > tick + 10);
    cJSON_Delete(r);
    snprintf(line, sizeof line,
             "{\"type\":\"raycast\",\"req\":2,\"from\":[%.4f,%.4f],\"to\":[%.4f,%.4f],"
             "\"at_tick\":%.0f}",
             x, y + 5, x, y - 5, tick);
    r = request(&c, line, "hits");
    const cJSON *h = one_hit(r);
    ck_assert_double_eq(h_num(h, "id"), mover);
    ck_assert_double_eq(h_num(r, "tick"), tick);
    ck_assert_double_eq_tol(h_vec(h, "point", 1), y + 0.25, 2e-4);
    cJSON_Delete(r);
    h_close(&c);
    stop();
}
END_TEST

/* A 3D world: a static box hit by a ray from above, a sphere overlapping it and a sphere cast
 * down onto it; a 2D vector is refused naming the field. */
START_TEST(world_queries_in_3d)
{
    const hit_value down[] = {
        {"point", 1, 50.5, 1e-4},
        {"point", 2, 301.0, 1e-4},
        {"normal", 1, 1.0, 1e-6},
        {"fraction", -1, 9.5 / 20.0, 1e-6},
    };
    h_conn c = start_joined(DIM3);
    double box = spawn_ok(&c, 1, "{\"shape\":{\"type\":\"box\",\"half\":[1,0.5,2]},"
                                 "\"pos\":[300,50,300],\"kind\":\"static\"}");
    expect_one_hit(
        &c, "{\"type\":\"raycast\",\"req\":1,\"from\":[300.5,60,301],\"to\":[300.5,40,301]}", NULL,
        box, down, 4);
    const hit_value reach[] = {{"depth", -1, 0.2, 1e-5}, {"normal", 1, -1.0, 1e-5}};
    expect_one_hit(&c,
                   "{\"type\":\"overlap\",\"req\":2,\"shape\":{\"type\":\"sphere\","
                   "\"radius\":0.5},\"pos\":[300,50.8,300]}",
                   NULL, NAN, reach, 2);
    /* The sphere's centre stops 0.5 m above the top at 50.5: 9 of the 20 m. */
    const hit_value stop_at[] = {{"fraction", -1, 9.0 / 20.0, 2e-6}, {"point", 1, 50.5, 1e-4}};
    expect_one_hit(&c,
                   "{\"type\":\"cast\",\"req\":3,\"shape\":{\"type\":\"sphere\","
                   "\"radius\":0.5},\"pos\":[300,60,300],\"to\":[300,40,300]}",
                   NULL, NAN, stop_at, 2);
    expect_bad(&c, "{\"type\":\"raycast\",\"req\":\"bad\",\"from\":[1,2],\"to\":[1,3]}",
               "from");
    expect_alive(&c);
    h_close(&c);
    stop();
}
END_TEST

void server_query_tests(TCase *tc)
{
    tcase_add_test(tc, world_queries_in_3d);
    tcase_add_test(tc, world_queries_over_the_wire);
    tcase_add_test(tc, at_tick_answers_as_the_client_saw_it);
}
