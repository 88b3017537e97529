/* Integration: the 3D hit-scan range of examples/range, played by bots over a real server. The
 * first target, a 1 m cube, hangs 12 m below a spherical joint at (0, 12, -10) and swings
 * across the range in the plane z = -10, 4 m/s at the bottom of its swing (x = 0, y = 0): up
 * to acos(1 - 4²/(2 g 12)) = 0.37 rad, a 4.4 m arc, period 2π sqrt(12/g) = 6.95 s. A bot reads
 * the target's place in a state of tick T0 within 0.4 m of the bottom and fires straight down
 * -z from there 300 ms later: at the current tick the target has swung on about 1 m along its
 * arc (4.4 m × (sin(0.09 + 0.27 ω) - sin 0.09) for ω = 0.90 rad/s, at least 16 ticks on),
 * more than its half width, so the shot misses; at tick T0 (the tick the bot saw) it hits the
 * cube's front face, z = -9.5 (the swing turns the cube about z only), where the bot saw it. */
#include <math.h>

#include "check_main.h"
#include "game_fixture.h"

#define HELLO_SAM "{\"type\":\"hello\",\"protocol\":1,\"name\":\"sam\"}"

static h_server srv;

static const game_files RANGE = {GAME_PATH("range/range.json"), GAME_PATH("range/range.lua")};

/* Joins as sam: the first target's id, and the points the game says sam has. */
static double join_sam(h_conn *c, double *points)
{
    game_join(c, &srv, HELLO_SAM);
    cJSON *ev;
    const cJSON *data = game_event_data(c, "welcome", 3000, &ev);
    const cJSON *targets = cJSON_GetObjectItemCaseSensitive(data, "targets");
    ck_assert_int_eq(cJSON_GetArraySize(targets), 4);
    double target = cJSON_GetArrayItem(targets, 0)->valuedouble;
    *points = h_num(data, "points");
    cJSON_Delete(ev);
    return target;
}

/* The tick, x and y of the next state that shows `id` within 0.4 m of the bottom of its
 * swing; its place is 12 m from the joint (within 1%) in the plane z = -10. */
static double seen_at(h_conn *c, double id, double *tick, double *y)
{
    long long end = h_now_ms() + 10000; /* more than half a period */
    while (h_now_ms() < end) {
        cJSON *s = h_recv_type(c, "state", 1000);
        const cJSON *b = s ? h_state_body(s, id) : NULL;
        if (b && fabs(h_vec(b, "pos", 0)) < 0.4) {
            double x = h_vec(b, "pos", 0);
            *y = h_vec(b, "pos", 1);
            ck_assert_double_eq_tol(hypot(x, *y - 12), 12, 0.12);
            ck_assert_double_eq_tol(h_vec(b, "pos", 2), -10, 1e-3);
            *tick = h_num(s, "tick");
            cJSON_Delete(s);
            return x;
        }
        cJSON_Delete(s);
    }
    ck_abort_msg("no state showed the target at the bottom of its swing");
    return 0;
}

/* The miss at the current tick, then the hit at the tick the bot saw: returns the hit's
 * points. */
static double miss_then_hit(h_conn *c, double target)
{
    double t0, y0;
    double x0 = seen_at(c, target, &t0, &y0);
    h_sleep_ms(300);
    char data[256];
    snprintf(data, sizeof data, "{\"from\":[%.4f,%.4f,0],\"dir\":[0,0,-1]}", x0, y0);
    game_action_ok(c, 1, "fire", data);
    cJSON *ev;
    const cJSON *miss = game_event_data(c, "miss", 2000, &ev);
    ck_assert_double_gt(h_num(miss, "tick"), t0 + 15); /* 300 ms on: 18 ticks, less jitter */
    cJSON_Delete(ev);
    snprintf(data, sizeof data, "{\"tick\":%.0f,\"from\":[%.4f,%.4f,0],\"dir\":[0,0,-1]}",
             t0, x0, y0);
    game_action_ok(c, 2, "fire", data);
    const cJSON *hit = game_event_data(c, "hit", 2000, &ev);
    ck_assert_double_eq(h_num(hit, "body"), target);
    ck_assert_double_eq(h_num(hit, "tick"), t0);
    ck_assert_str_eq(h_str(hit, "name"), "sam");
    ck_assert_double_eq_tol(h_vec(hit, "point", 0), x0, 2e-4);
    ck_assert_double_eq_tol(h_vec(hit, "point", 1), y0, 2e-4);
    ck_assert_double_eq_tol(h_vec(hit, "point", 2), -9.5, 1e-4);
    double points = h_num(hit, "points");
    cJSON_Delete(ev);
    return points;
}

/* sam joins, misses and hits. */
static void play_a_hit(h_conn *c)
{
    double points;
    double target = join_sam(c, &points);
    ck_assert_double_eq(points, 0);
    ck_assert_double_eq(miss_then_hit(c, target), 1);
}

/* After a restart on play_a_hit's save: sam has 1. */
static void point_kept(h_conn *c)
{
    double points;
    join_sam(c, &points);
    ck_assert_double_eq(points, 1);
}

START_TEST(hit_at_the_shooters_tick)
{
    game_start(&srv, &RANGE, NULL, NULL);
    h_conn c;
    play_a_hit(&c);
    /* A tick the history does not hold (the last 1 s by default) is refused, naming at_tick. */
    cJSON *m =
        game_action(&c, 3, "fire", "{\"tick\":999999,\"from\":[0,0,0],\"dir\":[0,0,-1]}");
    ck_assert_str_eq(h_str(m, "type"), "error");
    ck_assert_ptr_nonnull(strstr(h_str(m, "message"), "at_tick"));
    cJSON_Delete(m);
    game_stop(&srv, &c);
}
END_TEST

/* A recorded miss and hit replay to the recorded hash, three ways (game_replays). */
START_TEST(replay_same_hash)
{
    char rec[] = "/tmp/mink_range_rec_XXXXXX";
    game_record_and_replay(&srv, &RANGE, rec, play_a_hit);
}
END_TEST

/* The hit's point survives a kill -9: sam has 1 after the restart. */
START_TEST(kill_keeps_the_points)
{
    char save[] = "/tmp/mink_range_save_XXXXXX";
    game_kill_and_restart(&srv, &RANGE, save, play_a_hit, point_kept);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("game_range");
    MINK_TCASE(s, "range", 60, hit_at_the_shooters_tick, kill_keeps_the_points,
               replay_same_hash);
    return s;
}

MINK_CHECK_MAIN(make_suite)
