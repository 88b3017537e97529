/* mink-client's prediction and reconciliation without a server: a scripted stream of states
 * with known timing and inputs, and the avatar's predicted and drawn positions worked out by
 * hand from the character rules (a 6 m/s run reached in 0.08 s: 1.25 m/s more each 60 Hz
 * tick; standing on the ground, gravity's pull is taken back by the push-out each tick). The
 * prediction stands a round trip and a margin (1 tick) ahead of the server's tick, which a
 * state of tick S received at time T puts at S + (t - T) / TICK_MS; each input is stamped
 * with the tick after the one it stands at. Times are chosen a little past a tick's start,
 * so that no tick is on the edge of being reached. */
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

/* A ground whose top is y = 0 and the avatar (id 2) standing on it at x, moving at vx; the
 * state acknowledges input `ack`, which step `ack_tick` first applied (0: not said). */
static void state_acked(cli_world *w, uint64_t tick, uint64_t ack, uint64_t ack_tick, double x,
                        double vx, bool first)
{
    char line[1024], acked[64] = "";
    if (ack_tick > 0)
        snprintf(acked, sizeof acked, ",\"ack_tick\":%llu", (unsigned long long)ack_tick);
    snprintf(line, sizeof line,
             "{\"type\":\"state\",\"tick\":%llu,\"ack\":%llu%s,\"bodies\":[%s{\"id\":2,"
             "\"pos\":[%.4f,0.9],\"rot\":0,\"vel\":[%.3f,0],\"w\":0%s}]}",
             (unsigned long long)tick, (unsigned long long)ack, acked,
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

static void state(cli_world *w, uint64_t tick, uint64_t ack, double x, double vx, bool first)
{
    state_acked(w, tick, ack, 0, x, vx, first);
}

static const double gravity[3] = {0, -10, 0};
static const double right[3] = {1, 0, 0};

/* A 60 Hz world, empty, and a predictor of the avatar (body 2) in it. */
static void predictor(cli_world *w, cli_predict *p)
{
    cli_world_init(w);
    w->tick_hz = 60;
    cli_predict_init(p, 2, 60, gravity, false);
}

/* The world's state of tick 60 has the avatar at rest at x 0 on a ground, received at
 * 1000 ms: returns the predictor's error then. */
static double start(cli_world *w, cli_predict *p)
{
    predictor(w, p);
    state(w, 60, 0, 0, 0, true);
    return cli_predict_state(p, w, 2, 1000.0);
}

/* Started, and pushed right (input 1) at 1000 ms: with no round trip known the prediction
 * stands at 61, and the input is stamped 62. */
static void start_walking(cli_world *w, cli_predict *p)
{
    start(w, p);
    ck_assert_uint_eq(cli_predict_input(p, 1, right, false, 1000.0), 62);
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
    cli_predict p;
    ck_assert_double_eq(start(&w, &p), 0);
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

START_TEST(input_is_stamped_a_round_trip_ahead)
{
    cli_world w;
    cli_predict p;
    start_walking(&w, &p); /* the server at tick 60, the input stamped 62 */
    /* A 100 ms round trip: 6 ticks more. Two ticks on (1033.8 ms) the server is at 62.03,
     * the prediction at 62 + 6 + 1 = 69: the input is stamped 70. */
    cli_predict_rtt(&p, 100.0);
    ck_assert_uint_eq(cli_predict_input(&p, 2, right, false, 1000.0 + 2 * TICK_MS + 0.5), 70);
    /* Input 1 ran from 62 to 69 (8 ticks: 1.25 + 2.5 + 3.75 + 5 + 6 * 4 = 36.5 / 60 m) */
    ck_assert_double_eq_tol(p.pos[0], 36.5 / 60, 1e-5);
    cli_world_free(&w);
}
END_TEST

START_TEST(reconciliation_replays_and_smooths)
{
    cli_world w;
    cli_predict p;
    start_walking(&w, &p);
    double now = 1000.0 + 5 * TICK_MS + 0.01; /* the server at 65: the prediction at 66 */
    ck_assert_double_eq_tol(drawn_x(&p, now), 18.5 / 60, 1e-5);
    /* The state of tick 65 has input 1 applied from 62, as stamped, but the avatar at x 0.3
     * (it was pushed): tick 66 is replayed, from 5 to 6 m/s, to x 0.4. */
    state_acked(&w, 65, 1, 62, 0.3, 5, false);
    double err = cli_predict_state(&p, &w, 2, now);
    ck_assert_double_eq_tol(err, 0.4 - 18.5 / 60, 1e-5);
    ck_assert_double_eq_tol(p.pos[0], 0.4, 1e-5);
    ck_assert_uint_eq(p.late, 0);
    /* Drawn where it was at that moment, then eased onto the new path: after 60 ms (the time
     * constant) a third (e^-1) of the correction is left, on top of 4 more ticks at 6 m/s. */
    ck_assert_double_eq_tol(drawn_x(&p, now), 18.5 / 60, 1e-5);
    double later = now + 4 * TICK_MS + 0.49; /* 4 ticks on, and 0.03 of one */
    double left = (18.5 / 60 - 0.4) * exp(-(later - now) / CLI_PRED_SMOOTH_MS);
    ck_assert_double_eq_tol(drawn_x(&p, later), 0.4 + 4 * 0.1 + left, 1e-5);
    /* A large correction snaps: the server has it 3 m away. */
    state_acked(&w, 69, 1, 62, 4.0, 6, false);
    err = cli_predict_state(&p, &w, 2, later);
    ck_assert(err > CLI_PRED_SNAP);
    ck_assert_double_eq_tol(drawn_x(&p, later), p.pos[0], 1e-9);
    cli_world_free(&w);
}
END_TEST

START_TEST(a_late_input_moves_the_prediction_ahead)
{
    cli_world w;
    cli_predict p;
    start(&w, &p);
    cli_predict_rtt(&p, 0.1); /* known, and too short to move a tick */
    ck_assert_uint_eq(cli_predict_input(&p, 1, right, false, 1000.0), 62);
    /* The server took it up at 64, two ticks late: it is replayed from there, and the
     * prediction stands two ticks further ahead: a margin of 3. */
    double now = 1000.0 + 5 * TICK_MS + 0.5;
    state_acked(&w, 65, 1, 64, 2.5 / 60 + 1.25 / 60, 2.5, false);
    cli_predict_state(&p, &w, 2, now);
    ck_assert_uint_eq(p.late, 1);
    ck_assert_double_eq_tol(p.margin, 3.0, 1e-9);
    ck_assert_uint_eq(p.in[0].tick, 64);
    ck_assert_uint_eq(p.tick, 68); /* 65.03 + 3 */
    /* From the server's 3.75 / 60 at 2.5 m/s: 66, 67, 68 at 3.75, 5, 6 m/s. */
    ck_assert_double_eq_tol(p.pos[0], (3.75 + 3.75 + 5 + 6) / 60, 1e-5);
    /* The next input goes out stamped past it. */
    ck_assert_uint_eq(cli_predict_input(&p, 2, right, false, now), 69);
    cli_world_free(&w);
}
END_TEST

/* Before the first pong the round trip is not known, and every input comes late: that says
 * nothing of the margin. The input still replays from where the server took it up. */
START_TEST(an_input_sent_before_the_round_trip_is_known_is_not_counted_late)
{
    cli_world w;
    cli_predict p;
    start_walking(&w, &p);
    state_acked(&w, 65, 1, 64, 2.5 / 60 + 1.25 / 60, 2.5, false);
    cli_predict_state(&p, &w, 2, 1000.0 + 5 * TICK_MS + 0.5);
    ck_assert_uint_eq(p.late, 0);
    ck_assert_double_eq_tol(p.margin, CLI_PRED_MARGIN, 1e-9);
    ck_assert_uint_eq(p.in[0].tick, 64);
    cli_world_free(&w);
}
END_TEST

/* An input sent before the first state goes out without a tick: the server applies it when it
 * arrives. The first state's clock says when that is: a round trip after it was sent, in the
 * server's ticks, and the step after. */
START_TEST(an_input_sent_before_the_first_state_gets_its_arrival_tick)
{
    cli_world w;
    cli_predict p;
    predictor(&w, &p);
    cli_predict_rtt(&p, 100.0); /* the welcome's */
    ck_assert_uint_eq(cli_predict_input(&p, 1, right, false, 950.5), 0);
    /* The state of tick 60 at 1000 ms: the server's tick at 1050.5 ms (950.5 and the round
     * trip) is 63.03, and 64 the first step after it. */
    state(&w, 60, 0, 0, 0, true);
    cli_predict_state(&p, &w, 2, 1000.0);
    ck_assert_uint_eq(p.in[0].tick, 64);
    cli_world_free(&w);
}
END_TEST

START_TEST(inputs_before_the_state_are_dropped)
{
    cli_world w;
    cli_predict p;
    start(&w, &p);
    /* One every 2 ticks, 0.03 past: stamped 64, 66, 68, 70, 72. */
    for (uint64_t s = 1; s <= 5; s++)
        ck_assert_uint_eq(
            cli_predict_input(&p, s, right, false, 1000.0 + (double)s * 2 * TICK_MS + 0.5),
            62 + 2 * s);
    ck_assert_uint_eq(p.n, 5);
    state_acked(&w, 67, 2, 66, 0.1, 3, false);
    cli_predict_state(&p, &w, 2, 1000.0 + 11 * TICK_MS + 0.5);
    /* The server applies 3 at 68 (the state's next tick) and on: 1 and 2 are gone. */
    ck_assert_uint_eq(p.n, 3);
    ck_assert_uint_eq(p.in[0].seq, 3);
    cli_world_free(&w);
}
END_TEST

MINK_CHECK_TESTS("client_predict", 0, input_moves_the_avatar_at_once,
                 input_is_stamped_a_round_trip_ahead, reconciliation_replays_and_smooths,
                 a_late_input_moves_the_prediction_ahead,
                 an_input_sent_before_the_round_trip_is_known_is_not_counted_late,
                 an_input_sent_before_the_first_state_gets_its_arrival_tick,
                 inputs_before_the_state_are_dropped)
