/* mink-client's picture and its timing, without a terminal or a server: the view rendered
 * into a character buffer and compared with pictures worked out by hand from the cell size
 * (0.25 m by 0.5 m at zoom 1), and entity interpolation driven by a scripted stream of states
 * with known arrival times, so that the drawn positions are known exactly. */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"
#include "render.h"
#include "world.h"

#include "check_main.h"
#include "client_fixture.h"

#define TICK_MS (1000.0 / 60.0)

static cli_body box_body(uint64_t id, double x, double y, double hx, double hy,
                         proto_body_kind kind, uint32_t owner)
{
    cli_body b;
    memset(&b, 0, sizeof b);
    b.id = id;
    b.pos[0] = x;
    b.pos[1] = y;
    b.lo[0] = -hx;
    b.lo[1] = -hy;
    b.hi[0] = hx;
    b.hi[1] = hy;
    b.has_shape = true;
    b.shape = CLI_SHAPE_BOX;
    b.kind = kind;
    b.owner = owner;
    b.quat[3] = 1;
    return b;
}

static void assert_rows(const cli_canvas *cv, const char *const *expected, int n)
{
    char line[256];
    for (int r = 0; r < n; r++) {
        cli_canvas_row(cv, r, line);
        ck_assert_msg(strcmp(line, expected[r]) == 0, "row %d: '%s', expected '%s'", r, line,
                      expected[r]);
    }
}

/* A ground, the avatar standing on it and a small crate this client spawned. */
static void scene3(cli_body bodies[3])
{
    bodies[0] = box_body(1, 0, -0.5, 10, 0.5, PROTO_KIND_STATIC, 0);
    bodies[1] = box_body(2, 0, 1, 0.5, 1, PROTO_KIND_CHARACTER, 7);
    bodies[2] = box_body(3, -1.5, 0.25, 0.25, 0.25, PROTO_KIND_DYNAMIC, 7);
}

/* The three bodies seen from the side by client 7, whose avatar is body 2, on a 20 x 6
 * canvas centred on (0, 1) at the given zoom. */
static cli_scene side_scene(cli_body bodies[3], cli_canvas *cv, double zoom)
{
    scene3(bodies);
    ck_assert_int_eq(cli_canvas_init(cv, 20, 6), 0);
    return (cli_scene){.dim = 2, .bodies = bodies, .count = 3, .has_avatar = true, .avatar = 2,
                       .client = 7, .centre = {0, 1, 0}, .zoom = zoom};
}

START_TEST(side_view_picture)
{
    /* 20 x 6 cells around (0, 1): the left edge at -2.5 m, the top at 2.5 m. The avatar's
     * x [-0.5, 0.5] is columns 8..11, its y [0, 2] rows 1..4; the crate's x [-1.75, -1.25]
     * columns 3..4, y [0, 0.5] row 4; the ground's top at 0 starts row 5. */
    cli_body bodies[3];
    cli_canvas cv;
    cli_scene sc = side_scene(bodies, &cv, 1);
    cli_render(&cv, 6, &sc);
    static const char *const expected[] = {
        "",
        "        @@@@",
        "        @@@@",
        "        @@@@",
        "   oo   @@@@",
        "####################",
    };
    assert_rows(&cv, expected, 6);
    ck_assert_int_eq(cv.paint[1 * 20 + 8], CLI_PAINT_AVATAR);
    ck_assert_int_eq(cv.paint[4 * 20 + 3], CLI_PAINT_MINE);
    ck_assert_int_eq(cv.paint[5 * 20 + 0], CLI_PAINT_STATIC);
    ck_assert_int_eq(cv.paint[0], CLI_PAINT_EMPTY);
    /* Another client's crate is painted as the world's; without an avatar of ours the
     * character is a player. */
    sc.client = 8;
    sc.has_avatar = false;
    cli_canvas_clear(&cv);
    cli_render(&cv, 6, &sc);
    ck_assert_int_eq(cv.paint[4 * 20 + 3], CLI_PAINT_DYNAMIC);
    ck_assert_int_eq(cv.ch[1 * 20 + 8], 'P'); /* no avatar of ours: a player */
    cli_canvas_free(&cv);
}
END_TEST

START_TEST(an_edge_millimetres_off_a_border_keeps_its_cell)
{
    /* The avatar 2 mm lower (a predicted position eased onto the server's) still stands on the
     * ground's row, not in it; 10 mm lower it reaches into it. */
    cli_body bodies[3];
    cli_canvas cv;
    cli_scene sc = side_scene(bodies, &cv, 1);
    bodies[1].pos[1] = 1 - 0.002;
    cli_render(&cv, 6, &sc);
    ck_assert_int_eq(cv.ch[5 * 20 + 8], '#');
    ck_assert_int_eq(cv.ch[4 * 20 + 8], '@');
    cli_canvas_clear(&cv);
    bodies[1].pos[1] = 1 - 0.010;
    cli_render(&cv, 6, &sc);
    ck_assert_int_eq(cv.ch[5 * 20 + 8], '@');
    cli_canvas_free(&cv);
}
END_TEST

START_TEST(side_view_zoomed_out)
{
    /* Zoom 2: 0.5 m by 1 m cells; left at -5 m, top at 4 m. The avatar is columns 9..10,
     * rows 2..3; the crate columns 6..7, row 3; the ground row 4. */
    cli_body bodies[3];
    cli_canvas cv;
    cli_scene sc = side_scene(bodies, &cv, 2);
    cli_render(&cv, 6, &sc);
    static const char *const expected[] = {
        "", "", "         @@", "      oo @@", "####################", "",
    };
    assert_rows(&cv, expected, 6);
    cli_canvas_free(&cv);
}
END_TEST

START_TEST(rows_past_the_view_are_left_for_the_status_bar)
{
    cli_body bodies[3];
    cli_canvas cv;
    cli_scene sc = side_scene(bodies, &cv, 1);
    /* Four rows around y = 1: the top at 2 m, so the avatar fills rows 0..3 and the crate
     * row 3; the ground is below the view and rows 4 and 5 are left alone. */
    cli_render(&cv, 4, &sc);
    cli_canvas_text(&cv, 0, 5, "tick 9\x1b[2J", CLI_PAINT_BAR);
    static const char *const expected[] = {
        "        @@@@", "        @@@@", "        @@@@", "   oo   @@@@", "", "tick 9?[2J",
    };
    assert_rows(&cv, expected, 6);
    ck_assert_int_eq(cv.paint[5 * 20 + 0], CLI_PAINT_BAR);
    cli_canvas_free(&cv);
}
END_TEST

static cli_body solid_body(uint64_t id, double x, double y, double z, cli_solid solid,
                           proto_body_kind kind)
{
    cli_body b;
    memset(&b, 0, sizeof b);
    b.id = id;
    b.pos[0] = x;
    b.pos[1] = y;
    b.pos[2] = z;
    b.quat[3] = 1;
    b.has_shape = true;
    b.solid = solid;
    b.kind = kind;
    return b;
}

START_TEST(view_from_above_picture)
{
    /* A 10 m floor (top at y 0), the avatar (a capsule of radius 0.4 standing on it: feet at
     * 0) and a 1 m crate at x 2 (its top 1 m above the feet: '1'). 20 x 6 cells around the
     * avatar: x from -2.5 m, z from -1.5 m. The capsule's disc of 0.4 m covers columns 8..11
     * (x -0.5..0.5) in rows 2..3 (z -0.5..0.5); the crate columns 16..19, rows 2..3. */
    cli_body bodies[3];
    bodies[0] = solid_body(1, 0, -0.5, 0, (cli_solid){.type = CLI_SOLID_BOX, .half = {5, 0.5, 5}},
                           PROTO_KIND_STATIC);
    bodies[1] = solid_body(2, 0, 0.9, 0,
                           (cli_solid){.type = CLI_SOLID_CAPSULE, .radius = 0.4, .half_height = 0.5},
                           PROTO_KIND_CHARACTER);
    bodies[2] = solid_body(3, 2, 0.5, 0, (cli_solid){.type = CLI_SOLID_BOX, .half = {0.5, 0.5, 0.5}},
                           PROTO_KIND_DYNAMIC);
    cli_canvas cv;
    ck_assert_int_eq(cli_canvas_init(&cv, 20, 6), 0);
    cli_scene sc = {.dim = 3, .bodies = bodies, .count = 3, .has_avatar = true, .avatar = 2,
                    .client = 7, .centre = {0, 0.9, 0}, .zoom = 1};
    cli_render(&cv, 6, &sc);
    static const char *const expected[] = {
        "....................", "....................", "........@@@@....1111",
        "........@@@@....1111", "....................", "....................",
    };
    assert_rows(&cv, expected, 6);
    ck_assert_int_eq(cv.paint[2 * 20 + 8], CLI_PAINT_AVATAR);
    ck_assert_int_eq(cv.paint[2 * 20 + 16], CLI_PAINT_DYNAMIC);
    ck_assert_int_eq(cv.paint[0], CLI_PAINT_STATIC);
    cli_canvas_free(&cv);
}
END_TEST

/* ---- interpolation ---- */

/* A state of one 2D body moving along x at 2 m/s: at tick t it is at t / 30 m. */
static void apply_state(cli_world *w, uint64_t tick, bool first)
{
    char line[512];
    double x = (double)tick / 30.0;
    snprintf(line, sizeof line,
             "{\"type\":\"state\",\"tick\":%llu,\"ack\":0,\"bodies\":[{\"id\":5,\"pos\":[%.6f,0],"
             "\"rot\":0,\"vel\":[2,0],\"w\":0%s}]}",
             (unsigned long long)tick, x,
             first ? ",\"shape\":{\"type\":\"aabb\",\"half\":[0.5,0.5]},\"kind\":\"kinematic\","
                     "\"owner\":0,\"tag\":\"\""
                   : "");
    ck_assert(client_apply(w, line));
}

/* States every 3 ticks (20 a second at 60 Hz), each arriving 50 ms after its tick plus
 * `jitter(k)` ms. */
static void stream(cli_world *w, cli_interp *ip, uint64_t last, double (*jitter)(int))
{
    for (uint64_t t = 0; t <= last; t += 3) {
        apply_state(w, t, t == 0);
        ck_assert_int_eq(cli_interp_push(ip, w, 50.0 + (double)t * TICK_MS + jitter((int)(t / 3))), 0);
    }
}

static double no_jitter(int k)
{
    (void)k;
    return 0;
}

START_TEST(steady_stream_is_drawn_two_intervals_behind)
{
    cli_world w;
    cli_world_init(&w);
    cli_interp ip;
    cli_interp_init(&ip, 60);
    stream(&w, &ip, 30, no_jitter);
    /* The interval is 50 ms and there is no jitter: a delay of 100 ms. At the arrival of
     * tick 30 (550 ms) the picture shows tick 24, x = 0.8 m. */
    ck_assert_double_eq_tol(cli_interp_delay(&ip), 100.0, 1e-9);
    double t = cli_interp_render_tick(&ip, 550.0);
    ck_assert_double_eq_tol(t, 24.0, 1e-9);
    cli_body b;
    memset(&b, 0, sizeof b);
    ck_assert(cli_interp_sample(&ip, 5, t, &b));
    ck_assert_double_eq_tol(b.pos[0], 0.8, 1e-6);
    /* 25 ms later: tick 25.5, between the states of ticks 24 and 27. */
    ck_assert(cli_interp_sample(&ip, 5, cli_interp_render_tick(&ip, 575.0), &b));
    ck_assert_double_eq_tol(b.pos[0], 0.85, 1e-6);
    /* No body 6. */
    ck_assert(!cli_interp_sample(&ip, 6, t, &b));
    cli_interp_free(&ip);
    cli_world_free(&w);
}
END_TEST

START_TEST(a_gap_extrapolates_briefly_then_holds)
{
    cli_world w;
    cli_world_init(&w);
    cli_interp ip;
    cli_interp_init(&ip, 60);
    stream(&w, &ip, 30, no_jitter);
    cli_body b;
    memset(&b, 0, sizeof b);
    /* Tick 30 arrived at 550 ms and is drawn at 650 ms; tick 33 would be drawn at 700 ms: 3
     * ticks (50 ms) past the newest state at 2 m/s. */
    ck_assert(cli_interp_sample(&ip, 5, cli_interp_render_tick(&ip, 650.0), &b));
    ck_assert_double_eq_tol(b.pos[0], 1.0, 1e-6);
    ck_assert(cli_interp_sample(&ip, 5, cli_interp_render_tick(&ip, 700.0), &b));
    ck_assert_double_eq_tol(b.pos[0], 1.0 + 0.1, 1e-6);
    /* A second later: extrapolated for 100 ms at most, then held at 1.2 m. */
    ck_assert(cli_interp_sample(&ip, 5, cli_interp_render_tick(&ip, 1650.0), &b));
    ck_assert_double_eq_tol(b.pos[0], 1.2, 1e-6);
    cli_interp_free(&ip);
    cli_world_free(&w);
}
END_TEST

static double alternating_jitter(int k)
{
    return k % 2 ? 10.0 : -10.0;
}

START_TEST(jittered_stream_moves_steadily)
{
    /* Arrivals 10 ms early and late in turn: the timeline takes their mean, so frames 33 ms
     * apart step the body by 2 m/s * 33 ms = 66.7 mm each, within a millimetre, however the
     * states fall between the frames. */
    cli_world w;
    cli_world_init(&w);
    cli_interp ip;
    cli_interp_init(&ip, 60);
    stream(&w, &ip, 600, alternating_jitter); /* 10 s of states */
    ck_assert(cli_interp_delay(&ip) > 100.0 && cli_interp_delay(&ip) < 150.0);
    cli_body b;
    memset(&b, 0, sizeof b);
    double arrival_last = 50.0 + 600 * TICK_MS, prev = NAN;
    for (int f = 0; f < 10; f++) {
        double now = arrival_last - 200.0 + f * 33.0; /* inside the states kept */
        ck_assert(cli_interp_sample(&ip, 5, cli_interp_render_tick(&ip, now), &b));
        if (f > 0)
            ck_assert_double_eq_tol(b.pos[0] - prev, 2.0 * 0.033, 0.001);
        prev = b.pos[0];
    }
    cli_interp_free(&ip);
    cli_world_free(&w);
}
END_TEST

MINK_CHECK_SUITE("client_frame", s)
{
    TCase *view = tcase_create("render");
    tcase_add_test(view, side_view_picture);
    tcase_add_test(view, side_view_zoomed_out);
    tcase_add_test(view, an_edge_millimetres_off_a_border_keeps_its_cell);
    tcase_add_test(view, view_from_above_picture);
    tcase_add_test(view, rows_past_the_view_are_left_for_the_status_bar);
    suite_add_tcase(s, view);
    TCase *interp = tcase_create("interp");
    tcase_add_test(interp, steady_stream_is_drawn_two_intervals_behind);
    tcase_add_test(interp, a_gap_extrapolates_briefly_then_holds);
    tcase_add_test(interp, jittered_stream_moves_steadily);
    suite_add_tcase(s, interp);
}
