/* mink-client's e key (client/game.c): what the example games' messages name (a ball, targets)
 * and the action line aimed at them as the picture shows them, at the tick it shows: states
 * every 3 ticks arriving 50 ms after their tick, drawn two intervals (100 ms) behind, so that
 * at 550 ms the picture shows tick 24. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "client_fixture.h"
#include "game.h"

#define TICK_MS (1000.0 / 60.0)

static cli_game note(const char *json)
{
    cli_game g;
    memset(&g, 0, sizeof g);
    cJSON *d = cJSON_Parse(json);
    ck_assert_ptr_nonnull(d);
    cli_game_note(&g, d);
    cJSON_Delete(d);
    return g;
}

/* A 3D world: the avatar 1 still at the origin; target 2 from (3, 3, -10) at 4 m/s along x;
 * target 3 still at (-10, 0, 0). Or 2D: the avatar at the origin, the ball 5 at (3, 4). */
static void stream(cli_world *w, cli_interp *ip, int dim)
{
    cli_world_init(w);
    w->dim = dim;
    cli_interp_init(ip, 60);
    for (uint64_t t = 0; t <= 30; t += 3) {
        char line[1024];
        const char *first = t == 0 ? ",\"kind\":\"dynamic\",\"owner\":0,\"tag\":\"\"" : "";
        const char *ball = t ? "" : ",\"shape\":{\"type\":\"sphere\",\"radius\":0.4}";
        const char *box = t ? "" : ",\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]}";
        const char *disc = t ? "" : ",\"shape\":{\"type\":\"circle\",\"radius\":0.5}";
        const char *still3 = "\"rot\":[0,0,0,1],\"vel\":[0,0,0],\"w\":[0,0,0]";
        if (dim == 3)
            snprintf(line, sizeof line,
                     "{\"type\":\"state\",\"tick\":%llu,\"ack\":0,\"bodies\":["
                     "{\"id\":1,\"pos\":[0,0,0],%s%s%s},"
                     "{\"id\":2,\"pos\":[%.6f,3,-10],\"rot\":[0,0,0,1],\"vel\":[4,0,0],"
                     "\"w\":[0,0,0]%s%s},"
                     "{\"id\":3,\"pos\":[-10,0,0],%s%s%s}]}",
                     (unsigned long long)t, still3, ball, first, 3.0 + 4.0 * (double)t / 60.0,
                     box, first, still3, box, first);
        else
            snprintf(line, sizeof line,
                     "{\"type\":\"state\",\"tick\":%llu,\"ack\":0,\"bodies\":["
                     "{\"id\":1,\"pos\":[0,0],\"rot\":0,\"vel\":[0,0],\"w\":0%s%s},"
                     "{\"id\":5,\"pos\":[3,4],\"rot\":0,\"vel\":[0,0],\"w\":0%s%s}]}",
                     (unsigned long long)t, disc, first, disc, first);
        ck_assert(client_apply(w, line));
        ck_assert_int_eq(cli_interp_push(ip, w, 50.0 + (double)t * TICK_MS), 0);
    }
}

/* The range: the target nearest the way the avatar faces, where the picture shows it at tick
 * 24 (x = 3 + 4 * 24 / 60 = 4.6), from 0.5 m over the avatar. */
START_TEST(fire_at_the_faced_target_as_drawn)
{
    cli_world w;
    cli_interp ip;
    stream(&w, &ip, 3);
    cli_game g = note("{\"targets\":[2,3,77],\"points\":0}");
    ck_assert_int_eq(g.ntargets, 3);
    double t = cli_interp_render_tick(&ip, 550.0);
    ck_assert_double_eq_tol(t, 24.0, 1e-9);
    char line[512];
    const double ahead[3] = {0, 0, 0}, left[3] = {-1, 0, 0};
    ck_assert_uint_gt(cli_game_action(&g, &ip, t, 3, 1, ahead, line, sizeof line), 0);
    ck_assert_str_eq(line, "{\"type\":\"action\",\"req\":\"act\",\"name\":\"fire\",\"data\":"
                           "{\"tick\":24,\"from\":[0.0000,0.5000,0.0000],"
                           "\"dir\":[4.6000,2.5000,-10.0000]}}\n");
    ck_assert_uint_gt(cli_game_action(&g, &ip, t, 3, 1, left, line, sizeof line), 0);
    ck_assert_str_eq(line, "{\"type\":\"action\",\"req\":\"act\",\"name\":\"fire\",\"data\":"
                           "{\"tick\":24,\"from\":[0.0000,0.5000,0.0000],"
                           "\"dir\":[-10.0000,-0.5000,0.0000]}}\n");
    /* No avatar drawn, or a line that does not fit: nothing. */
    ck_assert_uint_eq(cli_game_action(&g, &ip, t, 3, 9, ahead, line, sizeof line), 0);
    ck_assert_uint_eq(cli_game_action(&g, &ip, t, 3, 1, ahead, line, 40), 0);
    cli_interp_free(&ip);
    cli_world_free(&w);
}
END_TEST

/* The ball game: a kick from the avatar toward the ball; nothing before a message names one. */
START_TEST(kick_toward_the_ball)
{
    cli_world w;
    cli_interp ip;
    stream(&w, &ip, 2);
    char line[512];
    const double none[3] = {0, 0, 0};
    cli_game g = note("{\"side\":\"left\"}");
    ck_assert_uint_eq(cli_game_action(&g, &ip, 24.0, 2, 1, none, line, sizeof line), 0);
    g = note("{\"ball\":5,\"score\":{\"left\":0,\"right\":0}}");
    ck_assert_uint_eq(g.ball, 5);
    ck_assert_uint_gt(cli_game_action(&g, &ip, 24.0, 2, 1, none, line, sizeof line), 0);
    ck_assert_str_eq(line, "{\"type\":\"action\",\"req\":\"act\",\"name\":\"kick\",\"data\":"
                           "{\"dir\":[3.0000,4.0000]}}\n");
    cli_interp_free(&ip);
    cli_world_free(&w);
}
END_TEST

/* What is not an id is not taken: a negative ball, a fraction past 2^53, strings. */
START_TEST(only_ids_are_noted)
{
    cli_game g = note("{\"ball\":-1,\"targets\":[\"a\",0,-4,1e300,12]}");
    ck_assert_uint_eq(g.ball, 0);
    ck_assert_int_eq(g.ntargets, 1);
    ck_assert_uint_eq(g.targets[0], 12);
    g = note("{\"targets\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18]}");
    ck_assert_int_eq(g.ntargets, CLI_GAME_TARGETS);
    ck_assert_uint_eq(g.targets[CLI_GAME_TARGETS - 1], 16);
}
END_TEST

MINK_CHECK_TESTS("client_game", 30, fire_at_the_faced_target_as_drawn, kick_toward_the_ball,
                 only_ids_are_noted)
