/* mink_sim's broadphase and region queries: bodies found near a point are exactly those a
 * look at every body finds (2D and 3D, moving, sleeping, static, just spawned, removed), bodies
 * rest on a floor of many static pieces, and fast bodies are still caught by thin statics. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mink_sim.h"
#include "sim_fixture.h"
#include "check_main.h"

/* A small fixed generator, so that every run sees the same worlds. */
static uint32_t rng_state;
static float frand(float lo, float hi)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng_state >> 8) / 16777216.0f;
}

/* Distance from c to the box, within r: the oracle, written apart from the world's. */
static bool near_box(mk_vec3 lo, mk_vec3 hi, mk_vec3 c, float r)
{
    float dx = fmaxf(fmaxf(lo.x - c.x, c.x - hi.x), 0.0f);
    float dy = fmaxf(fmaxf(lo.y - c.y, c.y - hi.y), 0.0f);
    float dz = fmaxf(fmaxf(lo.z - c.z, c.z - hi.z), 0.0f);
    return dx * dx + dy * dy + dz * dz <= r * r;
}

/* The bodies near c by looking at every body's shape bounds; returns how many, and checks
 * that the world's answer is the same set in increasing slot order. */
static size_t check_near(sim_world *w, mk_vec3 c, float r)
{
    const uint32_t *slots;
    size_t n;
    ck_assert(sim_world_bodies_near(w, c, r, &slots, &n));
    size_t slot_count, expected = 0, k = 0;
    const sim_body *bodies = sim_world_slots(w, &slot_count);
    for (size_t i = 0; i < slot_count; i++) {
        if (bodies[i].id == 0)
            continue;
        mk_vec3 lo, hi;
        const sim_body3 *b3 = sim_body3_of(w, &bodies[i]);
        if (b3) {
            col_aabb3 a = col_shape3_bounds(&b3->shape, (col_xf3){b3->pos, b3->rot});
            lo = mk_v3_sub(a.center, a.half);
            hi = mk_v3_add(a.center, a.half);
        } else {
            col_aabb a = col_shape_bounds(&bodies[i].shape, (col_xf2){bodies[i].pos,
                                                                      bodies[i].angle});
            lo = mk_v3(a.center.x - a.half.x, a.center.y - a.half.y, 0.0f);
            hi = mk_v3(a.center.x + a.half.x, a.center.y + a.half.y, 0.0f);
        }
        if (!near_box(lo, hi, c, r))
            continue;
        expected++;
        ck_assert_msg(k < n && slots[k] == i, "slot %zu is within %.2f m of (%.2f, %.2f, %.2f) "
                      "but not found", i, (double)r, (double)c.x, (double)c.y, (double)c.z);
        k++;
    }
    ck_assert_uint_eq(n, expected);
    return n;
}

static sim_world *world2(void)
{
    sim_config cfg = sim_config_default();
    return sim_world_new(&cfg);
}

static sim_world *weightless_world(void)
{
    sim_config cfg = sim_config_default();
    cfg.gravity = mk_v2(0, 0);
    return sim_world_new(&cfg);
}

static sim_world *world3(void)
{
    sim_config cfg = sim_config_default();
    cfg.dim = 3;
    cfg.gravity3 = mk_v3(0, -10, 0);
    return sim_world_new(&cfg);
}

static sim_body_def cube(sim_kind kind, mk_vec3 pos, mk_vec3 half)
{
    sim_body_def d = fixture_rect(COL_SHAPE_BOX, kind, 0, 0, 1, 1);
    d.d3.shape.type = COL_SHAPE3_BOX;
    d.d3.shape.half = half;
    d.d3.pos = pos;
    d.d3.rot = mk_quat_identity();
    return d;
}

/* Queries at many places and sizes; returns the total found, so a test can tell they found
 * something. */
static size_t check_many(sim_world *w, float span, int queries)
{
    size_t found = 0;
    for (int q = 0; q < queries; q++) {
        mk_vec3 c = mk_v3(frand(-span, span), frand(-2.0f, 12.0f), frand(-span, span));
        if (sim_world_dim(w) == 2)
            c.z = 0.0f; /* a 2D world's bodies lie in z = 0 */
        found += check_near(w, c, frand(0.1f, 0.4f * span));
    }
    return found;
}

START_TEST(bodies_near_match_every_body_2d)
{
    rng_state = 1;
    sim_world *w = world2();
    sim_body_def g = fixture_rect(COL_SHAPE_BOX, SIM_STATIC, 0, -0.5f, 40, 0.5f);
    sim_id ground = sim_world_add(w, &g, 0);
    ck_assert_uint_ne(ground, 0);
    /* Static steps and posts, and boxes, circles and turned boxes dropped among them. */
    for (int i = 0; i < 60; i++) {
        sim_body_def s = fixture_rect(COL_SHAPE_BOX, SIM_STATIC, frand(-35, 35), frand(0, 8),
                                      frand(0.1f, 2), frand(0.1f, 0.5f));
        s.angle = frand(-0.5f, 0.5f);
        ck_assert_uint_ne(sim_world_add(w, &s, 0), 0);
    }
    sim_id ids[300];
    for (int i = 0; i < 300; i++) {
        sim_body_def d = fixture_rect(i % 3 == 0 ? COL_SHAPE_CIRCLE : COL_SHAPE_BOX, SIM_DYNAMIC,
                                      frand(-35, 35), frand(1, 12), frand(0.2f, 0.6f),
                                      frand(0.2f, 0.6f));
        d.shape.radius = d.shape.half.x;
        d.vel = mk_v2(frand(-5, 5), frand(-5, 5));
        d.angle = frand(-1, 1);
        ids[i] = sim_world_add(w, &d, 0);
        ck_assert_uint_ne(ids[i], 0);
    }
    ck_assert_uint_gt(check_many(w, 40, 50), 0); /* before the first step */
    size_t found = 0;
    for (int t = 0; t < 240; t++) {
        sim_world_step(w);
        if (t % 20 == 0)
            found += check_many(w, 40, 30);
        if (t == 100) /* a third of them go, statics too: the tree is built again */
            for (int i = 0; i < 300; i += 3)
                ck_assert(sim_world_remove(w, ids[i]));
        if (t == 101)
            ck_assert(sim_world_remove(w, ground));
    }
    printf("2D: %zu bodies found near 360 points, all as a look at every body finds\n", found);
    ck_assert_uint_gt(found, 1000);
    sim_world_free(w);
}
END_TEST

START_TEST(bodies_near_match_every_body_3d)
{
    rng_state = 2;
    sim_world *w = world3();
    sim_body_def g = cube(SIM_STATIC, mk_v3(0, -0.5f, 0), mk_v3(30, 0.5f, 30));
    ck_assert_uint_ne(sim_world_add(w, &g, 0), 0);
    for (int i = 0; i < 40; i++) {
        sim_body_def s = cube(SIM_STATIC, mk_v3(frand(-25, 25), frand(0, 6), frand(-25, 25)),
                              mk_v3(frand(0.2f, 2), frand(0.1f, 0.4f), frand(0.2f, 2)));
        ck_assert_uint_ne(sim_world_add(w, &s, 0), 0);
    }
    for (int i = 0; i < 200; i++) {
        sim_body_def d = cube(SIM_DYNAMIC, mk_v3(frand(-25, 25), frand(1, 10), frand(-25, 25)),
                              mk_v3(frand(0.2f, 0.5f), frand(0.2f, 0.5f), frand(0.2f, 0.5f)));
        d.d3.vel = mk_v3(frand(-4, 4), frand(-4, 4), frand(-4, 4));
        ck_assert(mk_quat_normalize_checked((mk_quat){frand(-1, 1), frand(-1, 1), frand(-1, 1), 1},
                                            &d.d3.rot));
        ck_assert_uint_ne(sim_world_add(w, &d, 0), 0);
    }
    size_t found = check_many(w, 30, 40);
    for (int t = 0; t < 180; t++) {
        sim_world_step(w);
        if (t % 30 == 0)
            found += check_many(w, 30, 30);
    }
    printf("3D: %zu bodies found, all as a look at every body finds\n", found);
    ck_assert_uint_gt(found, 500);
    sim_world_free(w);
}
END_TEST

START_TEST(a_box_knocked_away_is_found_where_it_went)
{
    /* A heavy box at 40 m/s hits a light one at rest: the solver throws the light one much
     * faster than its bounds were grown for at the start of the step. It must be found where
     * it is after every step, not where its bounds were. */
    sim_world *w = weightless_world();
    sim_body_def light = fixture_rect(COL_SHAPE_BOX, SIM_DYNAMIC, 0, 0, 0.25f, 0.25f);
    light.density = 0.01f;
    light.restitution = 1.0f;
    sim_id lid = sim_world_add(w, &light, 0);
    sim_body_def heavy = fixture_rect(COL_SHAPE_BOX, SIM_DYNAMIC, -1.0f, 0, 0.5f, 0.5f);
    heavy.density = 1000.0f;
    heavy.vel = mk_v2(40, 0);
    ck_assert_uint_ne(sim_world_add(w, &heavy, 0), 0);
    float fastest = 0.0f;
    for (int t = 0; t < 20; t++) {
        sim_world_step(w);
        const sim_body *b = sim_world_get(w, lid);
        fastest = fmaxf(fastest, b->vel.x);
        /* Small radii around where it is now: it is found there and only there. */
        ck_assert_uint_ge(check_near(w, mk_v3(b->pos.x, b->pos.y, 0), 0.05f), 1);
        check_near(w, mk_v3(b->pos.x - 3.0f, b->pos.y, 0), 1.0f);
    }
    printf("knocked to %.1f m/s\n", (double)fastest);
    ck_assert_float_gt(fastest, 60.0f);
    sim_world_free(w);
}
END_TEST

/* n static squares of half side `half` in a row at height y, their centres dx apart from x0. */
static void add_static_row(sim_world *w, int n, float x0, float dx, float y, float half)
{
    for (int i = 0; i < n; i++) {
        sim_body_def s = fixture_rect(COL_SHAPE_BOX, SIM_STATIC, x0 + dx * (float)i, y, half, half);
        ck_assert_uint_ne(sim_world_add(w, &s, 0), 0);
    }
}

START_TEST(boxes_rest_on_a_floor_of_many_static_tiles)
{
    /* 400 static tiles of 0.5 m side by side make the floor; 100 boxes dropped in two layers
     * come to rest on it, their bottoms at y = 0, none through a seam. */
    sim_world *w = world2();
    add_static_row(w, 400, -100.0f, 0.5f, -0.25f, 0.25f);
    sim_id ids[100];
    for (int i = 0; i < 100; i++) {
        sim_body_def d = fixture_rect(COL_SHAPE_BOX, SIM_DYNAMIC, -90.0f + 1.8f * (float)(i % 50),
                                      1.0f + 2.0f * (float)(i / 50), 0.5f, 0.5f);
        ids[i] = sim_world_add(w, &d, 0);
    }
    for (int t = 0; t < 300; t++)
        sim_world_step(w);
    float lowest = 1e9f, highest = -1e9f;
    for (int i = 0; i < 100; i++) {
        const sim_body *b = sim_world_get(w, ids[i]);
        ck_assert_ptr_nonnull(b);
        lowest = fminf(lowest, b->pos.y);
        highest = fmaxf(highest, b->pos.y);
        ck_assert(b->sleeping);
    }
    printf("on 400 tiles: box centres from y %.4f to %.4f\n", (double)lowest, (double)highest);
    ck_assert_float_eq_tol(lowest, 0.5f, 0.01f);
    ck_assert_float_eq_tol(highest, 1.5f, 0.02f); /* the second layer on the first */
    sim_world_free(w);
}
END_TEST

START_TEST(fast_box_stops_at_a_thin_static_wall)
{
    /* 300 m/s toward a 2 cm wall among 500 other static pieces: the sweep finds it through
     * the statics' tree. */
    sim_world *w = weightless_world();
    add_static_row(w, 500, -200.0f, 0.8f, -5.0f, 0.3f);
    sim_body_def wall = fixture_rect(COL_SHAPE_BOX, SIM_STATIC, 20, 0, 0.01f, 3);
    ck_assert_uint_ne(sim_world_add(w, &wall, 0), 0);
    sim_body_def d = fixture_rect(COL_SHAPE_BOX, SIM_DYNAMIC, 0, 0, 0.25f, 0.25f);
    d.vel = mk_v2(300, 0);
    sim_id id = sim_world_add(w, &d, 0);
    for (int t = 0; t < 30; t++)
        sim_world_step(w);
    const sim_body *b = sim_world_get(w, id);
    ck_assert_ptr_nonnull(b);
    ck_assert_float_lt(b->pos.x, 20.0f - 0.25f + 0.01f);
    ck_assert_float_gt(b->pos.x, 19.0f);
    sim_world_free(w);
}
END_TEST

MINK_CHECK_TESTS("region", 60, bodies_near_match_every_body_2d, bodies_near_match_every_body_3d,
                 a_box_knocked_away_is_found_where_it_went,
                 boxes_rest_on_a_floor_of_many_static_tiles, fast_box_stops_at_a_thin_static_wall)
