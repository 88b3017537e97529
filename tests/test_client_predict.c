/* mink-client's prediction and reconciliation without a server: a scripted stream of states
 * with known timing and inputs, and the avatar's predicted and drawn positions worked out by
 * hand from the character rules (a 6 m/s run reached in 0.08 s: 1.25 m/s more each 60 Hz
 * tick; standing on the ground, gravity's pull is taken back by the push-out each tick). */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "predict.h"
#include "world.h"

#include "check_main.h"
#include "client_fixture.h"

#define TICK_MS (1000.0 / 60.0)

/* A ground whose top is y = 0 and the avatar (id 2) standing on it at x, moving at vx. */
static void state(cli_world *w, uint64_t tick, uint64_t ack, double x, double vx, bool first)
{
    char line[1024];
    snprintf(line, sizeof line,
             "{\"type\":\"state\",\"tick\":%llu,\"ack\":%llu,\"bodies\":[%s{\"id\":2,"
             "\"pos\":[%.4f,0.9],\"rot\":0,\"vel\":[%.3f,0],\"w\":0%s}]}",
             (unsigned long long)tick, (unsigned long long)ack,
             first ? "{\"id\":1,\"pos\":[0,-0.5],\"rot\":0,\"vel\":[0,0],\"w\":0,\"shape\":{"
                     "\"type\":\"aabb\",\"half\":[50,0.5]},\"kind\":\"static\",\"owner\":0,"
                     "\"tag\":\"\"},"
                   : "",
             x, vx,
             first ? ",\"shape\":{\"type\":\"aabb\",\"half\":[0.4,0.9]},\"kind\":\"character\","
                     "\"owner\":1,\"tag\":\"\""
                   : "");
    ck_assert(client_apply(w, line));
}

static const double gravity[3] = {0, -10, 0};
static const double right[3] = {1, 0, 0};

/* A 60 Hz world whose state of tick 60 has the avatar (body 2) at rest at x 0 on a ground,
 * received at 1000 ms, and a predictor of that avatar in it. */
static void start(cli_world *w, cli_predict *p)
{
    cli_world_init(w);
    w->tick_hz = 60;
    cli_predict_init(p, 2, 60, gravity, false);
    state(w, 60, 0, 0, 0, true);
    cli_predict_state(p, w, 2, 1000.0);
}

static double drawn_x(cli_predict *p, double now)
{
    cli_body b = {0};
    cli_predict_drawn(p, now, &b);
    return b.pos[0];
}

START_TEST(input_moves_the_avatar_at_once)
{
    cli_world w;
    cli_world_init(&w);
    w.tick_hz = 60;
    cli_predict p;
    cli_predict_init(&p, 2, 60, gravity, false);
    state(&w, 60, 0, 0, 0, true);
    ck_assert_double_eq(cli_predict_state(&p, &w, 2, 1000.0), 0);
    ck_assert(cli_predict_active(&p));
    cli_predict_input(&p, 1, right, false, 1000.0);
    /* One tick later it has moved 1.25 m/s * 1/60 s, the ground holding it at y 0.9. */
    cli_body b = {0};
    cli_predict_drawn(&p, 1000.0 + TICK_MS + 0.01, &b);
    ck_assert_double_eq_tol(b.pos[0], 1.25 / 60, 1e-5);
    ck_assert_double_eq_tol(b.pos[1], 0.9, 1e-5);
    /* Five ticks: (1.25 + 2.5 + 3.75 + 5 + 6) / 60 m. */
    ck_assert_double_eq_tol(drawn_x(&p, 1000.0 + 5 * TICK_MS + 0.01), 18.5 / 60, 1e-5);
    cli_world_free(&w);
}
END_TEST

START_TEST(reconciliation_replays_and_smooths)
{
    cli_world w;
    cli_predict p;
    start(&w, &p);
    cli_predict_input(&p, 1, right, false, 1000.0);
    double now = 1000.0 + 5 * TICK_MS + 0.01;
    ck_assert_double_eq_tol(drawn_x(&p, now), 18.5 / 60, 1e-5);
    /* The server acknowledges input 1 in its state of tick 63 with the avatar at x 0.2 and
     * 6 m/s: it began to apply it between its states of ticks 60 and 63 (at 61.5), so 1 of
     * its 5 ticks is the server's already and 4 are replayed at 6 m/s: x 0.2 + 0.4. */
    state(&w, 63, 1, 0.2, 6, false);
    double err = cli_predict_state(&p, &w, 2, now);
    ck_assert_double_eq_tol(err, 0.6 - 18.5 / 60, 1e-5);
    ck_assert_double_eq_tol(p.pos[0], 0.6, 1e-5);
    /* Drawn where it was at that moment, then eased onto the new path: after 60 ms (the time
     * constant) a third (e^-1) of the correction is left, on top of 4 more ticks at 6 m/s. */
    ck_assert_double_eq_tol(drawn_x(&p, now), 18.5 / 60, 1e-5);
    double later = now + 4 * TICK_MS; /* 66.7 ms: 4 ticks */
    double left = (18.5 / 60 - 0.6) * exp(-(4 * TICK_MS) / CLI_PRED_SMOOTH_MS);
    ck_assert_double_eq_tol(drawn_x(&p, later), 0.6 + 4 * 0.1 + left, 1e-5);
    /* A large correction snaps: the server has it 3 m away. */
    state(&w, 66, 1, 4.0, 6, false);
    err = cli_predict_state(&p, &w, 2, later);
    ck_assert(err > CLI_PRED_SNAP);
    ck_assert_double_eq_tol(drawn_x(&p, later), p.pos[0], 1e-9);
    cli_world_free(&w);
}
END_TEST

START_TEST(acknowledged_inputs_are_dropped)
{
    cli_world w;
    cli_predict p;
    start(&w, &p);
    for (uint64_t s = 1; s <= 5; s++)
        cli_predict_input(&p, s, right, false, 1000.0 + (double)s * 2 * TICK_MS);
    ck_assert_uint_eq(p.n, 5);
    state(&w, 63, 3, 0.1, 3, false);
    cli_predict_state(&p, &w, 2, 1000.0 + 11 * TICK_MS);
    /* 3 is kept: the server goes on applying it; 1 and 2 are gone. */
    ck_assert_uint_eq(p.n, 3);
    ck_assert_uint_eq(p.in[0].seq, 3);
    cli_world_free(&w);
}
END_TEST

MINK_CHECK_TESTS("client_predict", 0, input_moves_the_avatar_at_once,
                 reconciliation_replays_and_smooths, acknowledged_inputs_are_dropped)
