/* mink-client's model of a 3D world, without a server or a terminal: the footprints the
 * top-down view fills (each expected outline, bound and height worked out by hand from the
 * shape, its position and its quaternion), and `state` lines read into the world, bad ones
 * included. */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "world.h"
#include "check_main.h"
#include "client_fixture.h"

#define EPS 1e-9
#define S45 0.70710678118654752 /* sin 45 deg = cos 45 deg: the half angle of a 90 deg turn */

static const double identity[4] = {0, 0, 0, 1};

static void assert_bounds(const cli_footprint *f, double x0, double x1, double z0, double z1)
{
    ck_assert_double_eq_tol(f->lo[0], x0, 1e-9);
    ck_assert_double_eq_tol(f->hi[0], x1, 1e-9);
    ck_assert_double_eq_tol(f->lo[1], z0, 1e-9);
    ck_assert_double_eq_tol(f->hi[1], z1, 1e-9);
}

/* ---- footprints ---- */

START_TEST(box_turned_a_quarter_about_y)
{
    /* 90 deg about y takes local x to world -z and local z to world x: the 2 x 4 m box (x by z)
     * lies 4 m along x and 2 m along z around (10, -5). */
    cli_solid s = {.type = CLI_SOLID_BOX, .half = {1, 0.5, 2}};
    const double pos[3] = {10, 3, -5}, q[4] = {0, S45, 0, S45};
    cli_footprint f;
    cli_footprint_make(&s, pos, q, &f);
    ck_assert_int_eq(f.n, 4); /* 8 corners, 4 above the other 4 */
    assert_bounds(&f, 8, 12, -6, -4);
    ck_assert_double_eq_tol(f.bottom, 2.5, EPS);
    ck_assert_double_eq_tol(f.top, 3.5, EPS);
    ck_assert(cli_footprint_contains(&f, 11.9, -4.1));
    ck_assert(!cli_footprint_contains(&f, 10, -3.9));
    ck_assert(!cli_footprint_contains(&f, 7.9, -5));
}
END_TEST

START_TEST(box_turned_45_degrees_is_a_diamond)
{
    /* A 2 m cube turned 45 deg about y: a square standing on a corner, |x| + |z| <= sqrt 2. */
    cli_solid s = {.type = CLI_SOLID_BOX, .half = {1, 1, 1}};
    const double pos[3] = {0, 0, 0};
    const double q[4] = {0, 0.38268343236508977, 0, 0.92387953251128674}; /* sin, cos 22.5 */
    cli_footprint f;
    cli_footprint_make(&s, pos, q, &f);
    ck_assert_int_eq(f.n, 4);
    assert_bounds(&f, -sqrt(2), sqrt(2), -sqrt(2), sqrt(2));
    ck_assert(cli_footprint_contains(&f, 1.3, 0));
    ck_assert(cli_footprint_contains(&f, 0.7, -0.7)); /* 1.4 < 1.414 */
    ck_assert(!cli_footprint_contains(&f, 0.8, 0.8)); /* 1.6 > 1.414 */
    ck_assert(!cli_footprint_contains(&f, 1, 1));      /* the unturned cube's corner */
}
END_TEST

START_TEST(sphere_is_a_disc)
{
    cli_solid s = {.type = CLI_SOLID_SPHERE, .radius = 2};
    const double pos[3] = {1, 2, 3};
    cli_footprint f;
    cli_footprint_make(&s, pos, identity, &f);
    ck_assert_int_eq(f.n, CLI_FOOTPRINT_SAMPLES);
    assert_bounds(&f, -1, 3, 1, 5); /* samples at 0, 90, 180 and 270 deg touch the bounds */
    ck_assert_double_eq_tol(f.bottom, 0, EPS);
    ck_assert_double_eq_tol(f.top, 4, EPS);
    /* The 64-gon is inscribed: everything within 2 cos(pi/64) = 1.9976 m of the centre is in,
     * nothing beyond 2 m. */
    ck_assert(cli_footprint_contains(&f, 1 + 1.4, 3 + 1.4)); /* 1.980 m */
    ck_assert(cli_footprint_contains(&f, 1, 3 - 1.99));
    ck_assert(!cli_footprint_contains(&f, 1 + 1.45, 3 + 1.45)); /* 2.051 m */
    ck_assert(!cli_footprint_contains(&f, 3.01, 3));
}
END_TEST

START_TEST(capsule_on_its_side)
{
    /* 90 deg about z takes the axis (local y) to world -x: a 3 m x 1 m stadium along x. */
    cli_solid s = {.type = CLI_SOLID_CAPSULE, .radius = 0.5, .half_height = 1};
    const double pos[3] = {0, 0.5, 0}, q[4] = {0, 0, S45, S45};
    cli_footprint f;
    cli_footprint_make(&s, pos, q, &f);
    assert_bounds(&f, -1.5, 1.5, -0.5, 0.5);
    ck_assert_double_eq_tol(f.bottom, 0, EPS);
    ck_assert_double_eq_tol(f.top, 1, EPS);
    ck_assert(cli_footprint_contains(&f, 1.4, 0));
    ck_assert(cli_footprint_contains(&f, 0, 0.45));
    ck_assert(cli_footprint_contains(&f, -0.9, -0.45));
    /* 0.566 m from the end cap's centre (1, 0): outside the rounded end. */
    ck_assert(!cli_footprint_contains(&f, 1.4, 0.4));
}
END_TEST

START_TEST(cone_tipped_over_is_a_triangle)
{
    /* 90 deg about x takes local y to world z: the apex at z = +1, the base disc standing in
     * the x-y plane at z = -1, seen from above as the segment x in [-1, 1]. The outline is
     * the triangle (-1, -1), (1, -1), (0, 1); its half width at z is (1 - z) / 2. */
    cli_solid s = {.type = CLI_SOLID_CONE, .radius = 1, .half_height = 1};
    const double pos[3] = {0, 0, 0}, q[4] = {S45, 0, 0, S45};
    cli_footprint f;
    cli_footprint_make(&s, pos, q, &f);
    ck_assert_int_eq(f.n, 3);
    assert_bounds(&f, -1, 1, -1, 1);
    ck_assert_double_eq_tol(f.bottom, -1, EPS);
    ck_assert_double_eq_tol(f.top, 1, EPS);
    ck_assert(cli_footprint_contains(&f, 0, 0.9));
    ck_assert(cli_footprint_contains(&f, 0.9, -0.9));
    ck_assert(cli_footprint_contains(&f, 0.2, 0.5));
    ck_assert(!cli_footprint_contains(&f, 0.3, 0.5));
    ck_assert(!cli_footprint_contains(&f, 0, -1.01));
}
END_TEST

START_TEST(upright_cylinder_and_ellipsoid)
{
    cli_solid c = {.type = CLI_SOLID_CYLINDER, .radius = 0.5, .half_height = 1.5};
    const double pos[3] = {2, 1.5, 0};
    cli_footprint f;
    cli_footprint_make(&c, pos, identity, &f);
    assert_bounds(&f, 1.5, 2.5, -0.5, 0.5);
    ck_assert_double_eq_tol(f.bottom, 0, EPS);
    ck_assert_double_eq_tol(f.top, 3, EPS);

    /* Radii 2 (x), 0.5 (y), 1 (z): the ellipse (x/2)^2 + z^2 <= 1. */
    cli_solid e = {.type = CLI_SOLID_ELLIPSOID, .half = {2, 0.5, 1}};
    const double origin[3] = {0, 0, 0};
    cli_footprint_make(&e, origin, identity, &f);
    assert_bounds(&f, -2, 2, -1, 1);
    ck_assert_double_eq_tol(f.top, 0.5, EPS);
    ck_assert(cli_footprint_contains(&f, 1.9, 0));
    ck_assert(cli_footprint_contains(&f, 1, 0.8)); /* 0.25 + 0.64 = 0.89 */
    ck_assert(!cli_footprint_contains(&f, 1.5, 0.7)); /* 0.5625 + 0.49 = 1.05 */
}
END_TEST

START_TEST(cylinder_on_its_side_is_a_rectangle)
{
    /* 90 deg about z lays the axis along x: a 3 m x 1 m rectangle, whose 64 samples are its
     * four corners and the middles of its ends, many times over and a few ulps apart. */
    cli_solid s = {.type = CLI_SOLID_CYLINDER, .radius = 0.5, .half_height = 1.5};
    const double pos[3] = {-3, 0.5, -3}, q[4] = {0, 0, S45, S45};
    cli_footprint f;
    cli_footprint_make(&s, pos, q, &f);
    ck_assert_int_eq(f.n, 4);
    assert_bounds(&f, -4.5, -1.5, -3.5, -2.5);
    ck_assert_double_eq_tol(f.bottom, 0, EPS);
    ck_assert_double_eq_tol(f.top, 1, EPS);
    /* Near each of the four corners. */
    ck_assert(cli_footprint_contains(&f, -4.4, -3.4));
    ck_assert(cli_footprint_contains(&f, -1.6, -3.4));
    ck_assert(cli_footprint_contains(&f, -1.6, -2.6));
    ck_assert(cli_footprint_contains(&f, -4.4, -2.6));
    ck_assert(!cli_footprint_contains(&f, -4.6, -3));
}
END_TEST

START_TEST(turned_boxes_cover_their_corners)
{
    /* Any turn: the outline of a box is a convex polygon of 4 or 6 corners (a hexagon when
     * three faces show from above) holding every corner, and its bounds are the corners'. */
    uint64_t rng = 12345;
    for (int trial = 0; trial < 2000; trial++) {
        double q[4], n = 0;
        for (int i = 0; i < 4; i++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull; /* Knuth's MMIX LCG */
            q[i] = (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
            n += q[i] * q[i];
        }
        for (int i = 0; i < 4; i++)
            q[i] /= sqrt(n);
        cli_solid s = {.type = CLI_SOLID_BOX, .half = {0.5, 1, 2}};
        const double pos[3] = {7, 0, -3};
        cli_footprint f;
        cli_footprint_make(&s, pos, q, &f);
        ck_assert_msg(f.n == 4 || f.n == 6, "trial %d: %d corners", trial, f.n);
        for (int k = 0; k < 8; k++) {
            double c[3] = {k & 1 ? 0.5 : -0.5, k & 2 ? 1 : -1, k & 4 ? 2 : -2}, w[3];
            cli_quat_rotate(q, c, w);
            /* 1 um inwards: the outline's corners sit on a 1 nm grid */
            double x = pos[0] + w[0] * (1 - 1e-6), z = pos[2] + w[2] * (1 - 1e-6);
            ck_assert_msg(cli_footprint_contains(&f, x, z), "trial %d corner %d", trial, k);
            ck_assert(pos[0] + w[0] >= f.lo[0] && pos[0] + w[0] <= f.hi[0]);
        }
    }
}
END_TEST

START_TEST(hull_tetrahedron)
{
    /* The apex (0, 3, 0) lies above the corner (0, 0, 0): the outline is the right triangle
     * x >= 0, z >= 0, x + z <= 2, moved to (-8, 2). */
    double pts[4][3] = {{0, 0, 0}, {2, 0, 0}, {0, 0, 2}, {0, 3, 0}};
    cli_solid s = {.type = CLI_SOLID_HULL, .points = pts, .npoints = 4};
    const double pos[3] = {-8, 0, 2};
    cli_footprint f;
    cli_footprint_make(&s, pos, identity, &f);
    ck_assert_int_eq(f.n, 3);
    assert_bounds(&f, -8, -6, 2, 4);
    ck_assert_double_eq_tol(f.bottom, 0, EPS);
    ck_assert_double_eq_tol(f.top, 3, EPS);
    ck_assert(cli_footprint_contains(&f, -7.5, 2.5));
    ck_assert(cli_footprint_contains(&f, -7, 3)); /* on the long edge */
    ck_assert(!cli_footprint_contains(&f, -6.5, 3.5));
}
END_TEST

/* ---- states ---- */

static bool apply(cli_world *w, const char *json) { return client_apply(w, json); }

/* An empty world of a 3D server. */
static void init_3d(cli_world *w)
{
    cli_world_init(w);
    w->dim = 3;
}

START_TEST(compact_entries_update_seen_bodies)
{
    cli_world w;
    init_3d(&w);
    ck_assert(apply(&w, "{\"type\":\"state\",\"tick\":1,\"ack\":0,\"bodies\":["
                        "{\"id\":5,\"pos\":[1,2,3],\"rot\":[0,0,0,1],\"vel\":[0,0,0],"
                        "\"w\":[0,0,0],\"shape\":{\"type\":\"sphere\",\"radius\":1},"
                        "\"kind\":\"dynamic\",\"owner\":0,\"tag\":\"\"}]}"));
    /* [id, x, y, z, qx, qy, qz, qw, vx, vy, vz, wx, wy, wz] */
    ck_assert(apply(&w, "{\"type\":\"state\",\"tick\":2,\"ack\":0,\"bodies\":["
                        "[5,4,5,6,0,0.6,0,0.8,-1,-2,-3,0.5,0.25,-0.5]]}"));
    cli_body *b = cli_world_find(&w, 5);
    ck_assert_double_eq(b->pos[0], 4);
    ck_assert_double_eq(b->pos[2], 6);
    ck_assert_double_eq_tol(b->quat[1], 0.6, 1e-12);
    ck_assert_double_eq_tol(b->quat[3], 0.8, 1e-12);
    ck_assert_double_eq(b->vel[1], -2);
    ck_assert_double_eq(b->spin[2], -0.5);
    ck_assert(b->has_shape); /* from the first sighting */
    /* Short, long, non-numeric or zero-quaternion entries are refused and change nothing. */
    static const char *const refused[] = {
        "{\"type\":\"state\",\"tick\":3,\"ack\":0,\"bodies\":[[5,9,9,9,0,0,0,1,0,0,0,0,0]]}",
        "{\"type\":\"state\",\"tick\":4,\"ack\":0,\"bodies\":[[5,9,9,9,0,0,0,0,0,0,0,0,0,0]]}",
        "{\"type\":\"state\",\"tick\":5,\"ack\":0,\"bodies\":[[5,9,\"9\",9,0,0,0,1,0,0,0,0,0,0]]}",
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        ck_assert_msg(!apply(&w, refused[i]), "%s", refused[i]);
    ck_assert_double_eq(cli_world_find(&w, 5)->pos[0], 4);
    cli_world_free(&w);

    cli_world_init(&w); /* 2D: [id, x, y, rot, vx, vy, w] */
    ck_assert(apply(&w, "{\"type\":\"state\",\"tick\":1,\"ack\":0,\"bodies\":["
                        "[8,1.5,-2,0.25,3,4,0.1]]}"));
    b = cli_world_find(&w, 8);
    ck_assert_ptr_nonnull(b);
    ck_assert_double_eq(b->pos[1], -2);
    ck_assert_double_eq(b->rot, 0.25);
    ck_assert_double_eq(b->vel[0], 3);
    ck_assert(!b->has_shape); /* not seen as an object yet: drawn once its shape comes */
    cli_world_free(&w);
}
END_TEST

START_TEST(state_3d_first_sighting_then_removed)
{
    cli_world w;
    init_3d(&w);
    ck_assert(apply(&w, "{\"type\":\"state\",\"tick\":7,\"ack\":2,\"bodies\":["
                        "{\"id\":5,\"pos\":[1,2,3],\"rot\":[0,0,0,2],\"vel\":[4,5,6],"
                        "\"w\":[0.5,0,-0.5],\"shape\":{\"type\":\"box\",\"half\":[1,2,3]},"
                        "\"kind\":\"static\",\"owner\":0,\"tag\":\"\"},"
                        "{\"id\":6,\"pos\":[0,1,0],\"rot\":[0,0.6,0,0.8],\"vel\":[0,0,0],"
                        "\"w\":[0,0,0],\"shape\":{\"type\":\"capsule\",\"radius\":0.4,"
                        "\"half_height\":0.5},\"kind\":\"character\",\"owner\":3,\"tag\":\"p\"}]}"));
    ck_assert_uint_eq(w.tick, 7);
    ck_assert_uint_eq(w.ack, 2);
    ck_assert_uint_eq(w.count, 2);
    cli_body *b = cli_world_find(&w, 5);
    ck_assert_ptr_nonnull(b);
    ck_assert_double_eq(b->pos[2], 3);
    ck_assert_double_eq(b->vel[2], 6);
    ck_assert_double_eq(b->spin[2], -0.5);
    ck_assert_double_eq(b->quat[3], 1); /* [0, 0, 0, 2] normalised */
    ck_assert(b->has_shape);
    ck_assert_int_eq(b->solid.type, CLI_SOLID_BOX);
    ck_assert_double_eq(b->solid.half[2], 3);
    ck_assert_int_eq(b->kind, PROTO_KIND_STATIC);
    cli_body *c = cli_world_find(&w, 6);
    ck_assert_int_eq(c->solid.type, CLI_SOLID_CAPSULE);
    ck_assert_uint_eq(c->owner, 3);

    /* A later state carries only what moved; the shape stays from the first sighting. */
    ck_assert(apply(&w, "{\"type\":\"state\",\"tick\":8,\"ack\":3,\"bodies\":["
                        "{\"id\":6,\"pos\":[1,1,-1],\"rot\":[0,0,0,1],\"vel\":[1,0,-1],"
                        "\"w\":[0,0,0]}],\"removed\":[5]}"));
    ck_assert_uint_eq(w.count, 1);
    ck_assert_ptr_null(cli_world_find(&w, 5));
    c = cli_world_find(&w, 6);
    ck_assert_double_eq(c->pos[2], -1);
    ck_assert_int_eq(c->solid.type, CLI_SOLID_CAPSULE);
    /* The capsule seen from above: a 0.8 m disc around (1, -1), from y = 0.1 to 1.9. */
    cli_footprint f;
    cli_body_footprint(c, &f);
    assert_bounds(&f, 0.6, 1.4, -1.4, -0.6);
    ck_assert_double_eq_tol(f.bottom, 0.1, EPS);
    ck_assert_double_eq_tol(f.top, 1.9, EPS);
    cli_world_free(&w);
}
END_TEST

START_TEST(state_3d_bad_data_is_refused_not_fatal)
{
    cli_world w;
    init_3d(&w);
    ck_assert(apply(&w, "{\"tick\":1,\"ack\":0,\"bodies\":[{\"id\":1,\"pos\":[0,0,0],"
                        "\"rot\":[0,0,0,1],\"shape\":{\"type\":\"sphere\",\"radius\":1}}]}"));
    static const char *const bad[] = {
        "{\"tick\":2,\"ack\":0,\"bodies\":[{\"id\":1,\"pos\":[5,5]}]}",
        "{\"tick\":2,\"ack\":0,\"bodies\":[{\"id\":1,\"pos\":[5,5,\"5\"]}]}",
        "{\"tick\":2,\"ack\":0,\"bodies\":[{\"id\":1,\"pos\":[0,0,0],\"rot\":[0,0,0,0]}]}",
        "{\"tick\":2,\"ack\":0,\"bodies\":[{\"id\":1,\"pos\":[0,0,0],\"rot\":0.5}]}",
        "{\"tick\":2,\"ack\":0,\"bodies\":[{\"id\":1,\"pos\":[0,0,0],\"w\":1}]}",
        "{\"tick\":2,\"ack\":0,\"bodies\":[{\"id\":2,\"pos\":[0,0,0],"
        "\"shape\":{\"type\":\"circle\",\"radius\":1}}]}",
        "{\"tick\":2,\"ack\":0,\"bodies\":[{\"id\":3,\"pos\":[0,0,0],"
        "\"shape\":{\"type\":\"hull\",\"points\":[[0,0,0],[1,0,0],[0,1,0]]}}]}",
        "{\"tick\":2,\"ack\":0,\"bodies\":[{\"id\":4,\"pos\":[0,0,0],"
        "\"shape\":{\"type\":\"box\",\"half\":[1,-1,1]}}]}",
        "{\"tick\":2,\"ack\":0,\"bodies\":[{\"id\":5,\"pos\":[0,0,0],"
        "\"shape\":{\"type\":\"ellipsoid\",\"radii\":[1,1e300,1]}}]}",
        "{\"tick\":2,\"ack\":0,\"bodies\":[{\"id\":6,\"pos\":[0,0,0],"
        "\"shape\":{\"type\":\"cone\",\"radius\":1}}]}",
        "{\"tick\":2,\"ack\":0,\"bodies\":{}}",
        "{\"tick\":2,\"ack\":0,\"bodies\":[],\"removed\":[\"1\"]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!apply(&w, bad[i]), "accepted: %s", bad[i]);
    /* Body 1 kept its last good state; the bodies with a bad shape have none to draw. */
    cli_body *b = cli_world_find(&w, 1);
    ck_assert_ptr_nonnull(b);
    ck_assert_double_eq(b->pos[0], 0);
    ck_assert_double_eq(b->quat[3], 1);
    ck_assert_int_eq(b->solid.type, CLI_SOLID_SPHERE);
    for (uint64_t id = 2; id <= 6; id++)
        ck_assert(!cli_world_find(&w, id)->has_shape);
    cli_world_free(&w);
}
END_TEST

START_TEST(state_2d_reads_as_before)
{
    cli_world w;
    cli_world_init(&w);
    ck_assert_int_eq(w.dim, 2);
    ck_assert(apply(&w, "{\"tick\":1,\"ack\":0,\"bodies\":[{\"id\":1,\"pos\":[1,2],\"rot\":0.5,"
                        "\"vel\":[3,4],\"w\":1,\"shape\":{\"type\":\"circle\",\"radius\":1}}]}"));
    cli_body *b = cli_world_find(&w, 1);
    ck_assert_double_eq(b->pos[1], 2);
    ck_assert_double_eq(b->pos[2], 0);
    ck_assert_double_eq(b->rot, 0.5);
    ck_assert(cli_body_contains(b, 1.9, 2));
    /* 3D vectors and shapes are not 2D ones. */
    ck_assert(!apply(&w, "{\"tick\":2,\"ack\":0,\"bodies\":[{\"id\":1,\"pos\":[1,2,3]}]}"));
    ck_assert(!apply(&w, "{\"tick\":2,\"ack\":0,\"bodies\":[{\"id\":2,\"pos\":[1,2],"
                         "\"shape\":{\"type\":\"sphere\",\"radius\":1}}]}"));
    ck_assert_double_eq(b->pos[0], 1);
    cli_world_free(&w);
}
END_TEST

START_TEST(levels_as_lines_and_footprints)
{
    cli_world w;
    cli_world_init(&w);
    /* A 2D chain: the cells on its segments, none beside them; a segment placed and turned. */
    ck_assert(apply(&w, "{\"tick\":1,\"ack\":0,\"bodies\":[{\"id\":1,\"pos\":[0,0],"
                        "\"rot\":0,\"shape\":{\"type\":\"chain\",\"points\":[[4,0],[2,0],"
                        "[0,1],[-2,1]],\"loop\":false},\"kind\":\"static\"},{\"id\":2,"
                        "\"pos\":[10,0],\"rot\":1.5707963,\"shape\":{\"type\":\"segment\","
                        "\"a\":[-1,0],\"b\":[1,0]},\"kind\":\"static\"}]}"));
    cli_body *b = cli_world_find(&w, 1);
    ck_assert(b->has_shape);
    ck_assert(cli_body_contains(b, 3, 0.1));   /* on 4,0 - 2,0 */
    ck_assert(cli_body_contains(b, 1, 0.5));   /* on 2,0 - 0,1 */
    ck_assert(!cli_body_contains(b, 1, -0.5)); /* below it */
    ck_assert(!cli_body_contains(b, -1, -1));
    b = cli_world_find(&w, 2);
    ck_assert(cli_body_contains(b, 10, 0.9)); /* turned upright */
    ck_assert(!cli_body_contains(b, 10.9, 0));
    cli_world_free(&w);
    /* A 3D level named by key: its footprint is its bounds placed at the body. */
    cli_world_init(&w);
    w.dim = 3;
    ck_assert(apply(&w, "{\"tick\":1,\"ack\":0,\"bodies\":[{\"id\":1,\"pos\":[5,0,0],"
                        "\"rot\":[0,0,0,1],\"shape\":{\"type\":\"mesh\",\"level\":"
                        "\"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\","
                        "\"bounds\":[[-24,-2,-20],[24,1,20]],\"pieces\":4644},"
                        "\"kind\":\"static\"}]}"));
    cli_footprint f;
    cli_body_footprint(cli_world_find(&w, 1), &f);
    assert_bounds(&f, -19, 29, -20, 20);
    ck_assert_double_eq_tol(f.bottom, -2, EPS);
    ck_assert_double_eq_tol(f.top, 1, EPS);
    cli_world_free(&w);
}
END_TEST

MINK_CHECK_SUITE("client_view", s)
{
    MINK_TCASE(s, "footprint", 0, box_turned_a_quarter_about_y, box_turned_45_degrees_is_a_diamond,
               sphere_is_a_disc, capsule_on_its_side, cone_tipped_over_is_a_triangle,
               upright_cylinder_and_ellipsoid, cylinder_on_its_side_is_a_rectangle,
               turned_boxes_cover_their_corners, hull_tetrahedron);
    MINK_TCASE(s, "world", 0, state_3d_first_sighting_then_removed,
               state_3d_bad_data_is_refused_not_fatal, state_2d_reads_as_before,
               compact_entries_update_seen_bodies, levels_as_lines_and_footprints);
}
