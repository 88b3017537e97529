/* Integration: events, filters, sensors, push, set and explode against the real server: a ball
 * falling through a sensor onto a platform gives its sensor and contact events and a hit at
 * sqrt(2 g h), in tick order, to a subscriber, and none to one whose interest radius is
 * elsewhere; a despawn ends its contacts; push, set and explode move a client's own bodies by
 * their known answers and nobody else's, each bad input a refusal naming its field that
 * changes nothing; a reader of events past its queue gets the newest and a dropped count. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "server_fixture.h"

/* The events of the states that come within `ms`, appended to `out` (an array). */
static void collect_events(h_conn *c, int ms, cJSON *out, double *dropped)
{
    long long end = h_now_ms() + ms;
    for (cJSON *s; (s = state_before(c, end, 500)) != NULL;) {
        const cJSON *ev = cJSON_GetObjectItemCaseSensitive(s, "events");
        const cJSON *e;
        cJSON_ArrayForEach(e, ev) cJSON_AddItemToArray(out, cJSON_Duplicate(e, true));
        if (dropped && cJSON_GetObjectItemCaseSensitive(s, "dropped"))
            *dropped += h_num(s, "dropped");
        cJSON_Delete(s);
    }
}

/* The first event of `type` with these bodies (the keys are a, b or sensor, body). */
static const cJSON *find_event(const cJSON *events, const char *type, const char *ka, double a,
                               const char *kb, double b)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        if (strcmp(h_str(e, "type"), type) == 0 && h_num(e, ka) == a && h_num(e, kb) == b)
            return e;
    }
    return NULL;
}

START_TEST(events_over_the_wire)
{
    h_conn c, far;
    start_and_join(&c, NULL);
    /* A second client with its avatar at the demo and a radius of 10 m: nothing of what
     * happens at x = 500 is near it. */
    cJSON *w = join(&far, "{\"type\":\"hello\",\"protocol\":1,\"avatar\":{\"shape\":{\"type\":"
                          "\"box\",\"half\":[0.5,0.5]},\"pos\":[0,0.5],\"kind\":\"static\"}}");
    cJSON_Delete(w);
    ck_assert(h_send_line(&far, "{\"type\":\"subscribe\",\"events\":true,\"radius\":10}"));
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"events\":true}"));
    double platform = spawn_ok(&c, 1, "{\"shape\":{\"type\":\"box\",\"half\":[3,1]},"
                                      "\"pos\":[500,90],\"kind\":\"static\"}");
    double gate = spawn_ok(&c, 2, "{\"shape\":{\"type\":\"box\",\"half\":[3,0.5]},"
                                  "\"pos\":[500,100],\"kind\":\"static\",\"sensor\":true,"
                                  "\"filter\":{\"category\":2,\"group\":-7}}");
    cJSON *s = next_state_with(&c, gate);
    const cJSON *g = h_state_body(s, gate);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "sensor")));
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(g, "filter");
    ck_assert_double_eq(h_num(f, "category"), 2);
    ck_assert_double_eq(h_num(f, "group"), -7);
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(f, "mask"));
    cJSON_Delete(s);
    /* The ball starts 14.75 m above the platform's top (y = 91): it meets it at
     * sqrt(2 g h) = 17.18 m/s. */
    double ball = spawn_ok(&c, 3, "{\"shape\":{\"type\":\"circle\",\"radius\":0.25},"
                                  "\"pos\":[500,106]}");
    cJSON *events = cJSON_CreateArray();
    collect_events(&c, 2500, events, NULL);
    const cJSON *in = find_event(events, "sensor_begin", "sensor", gate, "body", ball);
    const cJSON *out = find_event(events, "sensor_end", "sensor", gate, "body", ball);
    const cJSON *hit = find_event(events, "hit", "a", platform, "b", ball);
    const cJSON *touch = find_event(events, "contact_begin", "a", platform, "b", ball);
    ck_assert(in && out && hit && touch);
    ck_assert_double_lt(h_num(in, "tick"), h_num(out, "tick"));
    ck_assert_double_le(h_num(out, "tick"), h_num(hit, "tick"));
    ck_assert_double_le(h_num(hit, "tick"), h_num(touch, "tick"));
    ck_assert_double_eq_tol(h_num(hit, "speed"), sqrt(2 * 10 * 14.75), 0.02 * 17.18);
    ck_assert_double_eq_tol(h_vec(hit, "normal", 1), 1.0, 1e-3);
    ck_assert_double_eq_tol(h_vec(hit, "point", 1), 91.0, 0.05);
    /* In tick order. */
    double last = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        ck_assert_double_ge(h_num(e, "tick"), last);
        last = h_num(e, "tick");
    }
    cJSON_Delete(events);
    /* A despawn ends the ball's contact with the platform. */
    char line[256];
    snprintf(line, sizeof line, "{\"type\":\"despawn\",\"id\":%.0f}", ball);
    cJSON_Delete(request(&c, line, "despawned"));
    events = cJSON_CreateArray();
    collect_events(&c, 400, events, NULL);
    ck_assert_ptr_nonnull(find_event(events, "contact_end", "a", platform, "b", ball));
    cJSON_Delete(events);
    /* The far client heard none of it. */
    events = cJSON_CreateArray();
    collect_events(&far, 300, events, NULL);
    cJSON_ArrayForEach(e, events)
    {
        ck_assert(h_num(e, "a") != ball && h_num(e, "b") != ball && h_num(e, "body") != ball);
    }
    cJSON_Delete(events);
    h_close(&far);
    close_and_stop(&c);
}
END_TEST

/* A body's velocity in the next state that has it. */
static double vel_of(h_conn *c, double id, int axis)
{
    double v[3];
    next_state_vec(c, id, "vel", v);
    return v[axis];
}

START_TEST(push_set_and_explode_over_the_wire)
{
    h_conn c, other;
    start_and_join_pair(&c, &other);
    /* 1 x 1 m boxes at density 1: 1 kg. */
    double box = spawn_unit_box(&c, 1, 700, 100, "");
    double theirs = spawn_unit_box(&other, 1, 697.5, 100, "");
    double wall = spawn_unit_box(&c, 2, 720, 100, ",\"kind\":\"static\"");
    char line[256];
    snprintf(line, sizeof line, "{\"type\":\"push\",\"req\":\"p\",\"id\":%.0f,\"impulse\":[3,0]}",
             box);
    cJSON *r = request(&c, line, "pushed");
    ck_assert_str_eq(h_str(r, "req"), "p");
    ck_assert_double_eq(h_num(r, "id"), box);
    cJSON_Delete(r);
    ck_assert_double_eq_tol(vel_of(&c, box, 0), 3.0, 1e-3); /* J / m */
    /* A teleport and a new velocity. */
    snprintf(line, sizeof line,
             "{\"type\":\"set\",\"req\":5,\"id\":%.0f,\"pos\":[740,200],\"vel\":[0,4],\"w\":1}",
             box);
    cJSON_Delete(request(&c, line, "updated"));
    cJSON *s = state_with(&c, box, 3000);
    const cJSON *b = h_state_body(s, box);
    ck_assert_double_eq_tol(h_vec(b, "pos", 0), 740.0, 1e-3);
    ck_assert_double_eq_tol(h_vec(b, "pos", 1), 200.0, 0.5);
    ck_assert_double_eq_tol(h_num(b, "w"), 1.0, 0.02); /* a step of contact-free spin */
    cJSON_Delete(s);
    /* The explosion pushes the client's own box and not the other client's beside it. The
     * teleport and the explosion go in one write, so that no step (and no fall) comes between
     * them: the box is exactly 1 m right of the centre. */
    snprintf(line, sizeof line,
             "{\"type\":\"set\",\"id\":%.0f,\"pos\":[700,100],\"vel\":[0,0],\"w\":0}\n"
             "{\"type\":\"explode\",\"req\":9,\"pos\":[699,100],\"radius\":4,\"impulse\":8}\n",
             box);
    ck_assert(h_send_raw(&c, line, strlen(line)));
    cJSON_Delete(h_recv_type(&c, "updated", 3000));
    r = h_recv_type(&c, "exploded", 3000);
    ck_assert_ptr_nonnull(r);
    ck_assert_double_eq(h_num(r, "bodies"), 1);
    cJSON_Delete(r);
    /* 8 (1 - 1/4) N s along +x on 1 kg. */
    ck_assert_double_eq_tol(vel_of(&c, box, 0), 6.0, 1e-3);
    ck_assert_double_eq_tol(vel_of(&c, theirs, 0), 0.0, 1e-3);
    r = request(&c, "{\"type\":\"explode\",\"pos\":[699,100],\"radius\":4,\"impulse\":8,"
                    "\"mask\":2}",
                "exploded");
    ck_assert_double_eq(h_num(r, "bodies"), 0);
    cJSON_Delete(r);

    /* Refusals, each naming its field, changing nothing. */
    const struct {
        const char *line; /* %.0f: the body's id */
        double id;
        const char *code, *field;
    } refusals[] = {
        {"{\"type\":\"push\",\"id\":%.0f,\"impulse\":[1e7,0]}", box, "bad_request", "impulse[0]"},
        {"{\"type\":\"push\",\"id\":%.0f,\"impulse\":[1,0]}", theirs, "not_owner", "id"},
        {"{\"type\":\"set\",\"id\":%.0f,\"pos\":[0,0]}", theirs, "not_owner", "id"},
        {"{\"type\":\"push\",\"id\":%.0f,\"impulse\":[1,0]}", wall, "bad_request", "id"},
        {"{\"type\":\"set\",\"id\":%.0f,\"vel\":[1,0]}", wall, "bad_request", "vel"},
        {"{\"type\":\"set\",\"id\":%.0f,\"pos\":\"here\"}", box, "bad_request", "pos"},
        {"{\"type\":\"push\",\"id\":%.0f,\"impulse\":[1,0]}", 99999999.0, "not_found", "id"},
    };
    for (size_t i = 0; i < sizeof refusals / sizeof *refusals; i++) {
        snprintf(line, sizeof line, refusals[i].line, refusals[i].id);
        expect_refused_naming(&c, line, refusals[i].code, refusals[i].field);
    }
    expect_refused_naming(&c, "{\"type\":\"explode\",\"pos\":[0,0],\"radius\":-1,\"impulse\":1}",
                   "bad_request", "radius");
    ck_assert_double_eq_tol(vel_of(&c, box, 0), 6.0, 1e-3);
    ck_assert_double_eq_tol(vel_of(&c, theirs, 0), 0.0, 1e-3);
    h_close(&other);
    close_and_stop(&c);
}
END_TEST

/* A client whose states could carry at most 4 events, that reads nothing for a second and a
 * half while a pile falls: its states carry the newest 4 and say how many it missed. */
START_TEST(a_slow_reader_of_events_gets_the_newest_and_a_dropped_count)
{
    const char *const args[] = {"--events-per-state", "4", NULL};
    h_conn c;
    start_and_join(&c, args);
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"events\":true}"));
    for (int i = 0; i < 12; i++) {
        char body[160];
        snprintf(body, sizeof body, "{\"shape\":{\"type\":\"box\",\"half\":[0.4,0.4]},"
                                    "\"pos\":[%d,%d]}",
                 -10 + (i % 4), 3 + i);
        spawn_ok(&c, 10 + i, body);
    }
    h_sleep_ms(1500);
    cJSON *events = cJSON_CreateArray();
    double dropped = 0;
    long long end = h_now_ms() + 1500;
    int most = 0;
    while (h_now_ms() < end) {
        cJSON *s = h_recv_type(&c, "state", 500);
        if (!s)
            continue;
        const cJSON *ev = cJSON_GetObjectItemCaseSensitive(s, "events");
        int n = cJSON_GetArraySize(ev);
        most = n > most ? n : most;
        /* The newest: the last one is of the state's tick or before it. */
        if (n > 0)
            ck_assert_double_le(h_num(cJSON_GetArrayItem(ev, n - 1), "tick"), h_num(s, "tick"));
        if (cJSON_GetObjectItemCaseSensitive(s, "dropped"))
            dropped += h_num(s, "dropped");
        cJSON_Delete(s);
    }
    cJSON_Delete(events);
    printf("slow reader: at most %d events a state, %.0f dropped\n", most, dropped);
    ck_assert_int_le(most, 4);
    ck_assert_int_eq(most, 4);
    ck_assert_double_gt(dropped, 0);
    expect_alive(&c);
    close_and_stop(&c);
}
END_TEST

void server_event_tests(TCase *tc)
{
    tcase_add_test(tc, events_over_the_wire);
    tcase_add_test(tc, push_set_and_explode_over_the_wire);
    tcase_add_test(tc, a_slow_reader_of_events_gets_the_newest_and_a_dropped_count);
}
