/* mink_collision: the AABB Minkowski difference of the seed articles, with the seed's corner
 * formulas as the reference, and properties over many random pairs with a fixed seed. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "mink_collision.h"
#include "check_main.h"

/* A box given by its sides, as "2D Collisions with Minkowski Differences" writes them. */
typedef struct sides {
    float left, right, bottom, top;
} sides;

static col_aabb from_sides(sides s)
{
    return (col_aabb){mk_v2(0.5f * (s.left + s.right), 0.5f * (s.bottom + s.top)),
                      mk_v2(0.5f * (s.right - s.left), 0.5f * (s.top - s.bottom))};
}

/* The seed's corner form: black.top = red.top - blue.bottom, and so on. */
static sides seed_difference(sides red, sides blue)
{
    return (sides){red.left - blue.right, red.right - blue.left, red.bottom - blue.top,
                   red.top - blue.bottom};
}

START_TEST(minkowski_matches_seed_corner_form)
{
    sides red = {1, 4, 2, 5}, blue = {3, 7, 0, 3};
    col_aabb md = col_aabb_minkowski(from_sides(red), from_sides(blue));
    sides expect = seed_difference(red, blue); /* left -6, right 1, bottom -1, top 5 */
    ck_assert_float_eq(expect.left, -6.0f);
    ck_assert_float_eq(expect.top, 5.0f);
    ck_assert_float_eq_tol(col_aabb_min(md).x, expect.left, 1e-6f);
    ck_assert_float_eq_tol(col_aabb_max(md).x, expect.right, 1e-6f);
    ck_assert_float_eq_tol(col_aabb_min(md).y, expect.bottom, 1e-6f);
    ck_assert_float_eq_tol(col_aabb_max(md).y, expect.top, 1e-6f);
    /* The center + extents form of the second seed: center a - b, extents a + b. */
    ck_assert_float_eq_tol(md.center.x, 2.5f - 5.0f, 1e-6f);
    ck_assert_float_eq_tol(md.half.y, 1.5f + 1.5f, 1e-6f);
    ck_assert(col_aabb_contains_origin(md));
}
END_TEST

START_TEST(penetration_is_the_smallest_side)
{
    /* Sides of the difference: left -6, right 1, bottom -1, top 5. Right and bottom tie at 1;
     * the seed checks left, right, top, bottom in order with a strict <, so right wins. */
    sides red = {1, 4, 2, 5}, blue = {3, 7, 0, 3};
    col_aabb md = col_aabb_minkowski(from_sides(red), from_sides(blue));
    mk_vec2 pen = col_aabb_closest_boundary_point(md, mk_v2(0, 0));
    ck_assert_float_eq_tol(pen.x, 1.0f, 1e-6f);
    ck_assert_float_eq_tol(pen.y, 0.0f, 1e-6f);

    /* Box of half 1 at the origin, box of half 1 at (1.5, 0.25): the difference spans
     * x [-3.5, 0.5], y [-2.25, 1.75]; the nearest side is x = 0.5. */
    col_aabb a = {mk_v2(0, 0), mk_v2(1, 1)}, b = {mk_v2(1.5f, 0.25f), mk_v2(1, 1)};
    pen = col_aabb_closest_boundary_point(col_aabb_minkowski(a, b), mk_v2(0, 0));
    ck_assert_float_eq_tol(pen.x, 0.5f, 1e-6f);
    ck_assert_float_eq_tol(pen.y, 0.0f, 1e-6f);
}
END_TEST

START_TEST(manifold_of_overlapping_boxes)
{
    sides red = {1, 4, 2, 5}, blue = {3, 7, 0, 3};
    col_manifold2 m = col_collide_aabb(from_sides(red), from_sides(blue));
    ck_assert_int_eq(m.count, 2);
    ck_assert_float_eq_tol(m.depth, 1.0f, 1e-6f);
    ck_assert_float_eq_tol(m.normal.x, 1.0f, 1e-6f);
    ck_assert_float_eq_tol(m.normal.y, 0.0f, 1e-6f);
    /* Overlap along the face: y in [2, 3]; midway between red's right (4) and blue's left (3). */
    ck_assert_float_eq_tol(m.points[0].point.x, 3.5f, 1e-6f);
    ck_assert_float_eq_tol(m.points[0].point.y, 2.0f, 1e-6f);
    ck_assert_float_eq_tol(m.points[1].point.x, 3.5f, 1e-6f);
    ck_assert_float_eq_tol(m.points[1].point.y, 3.0f, 1e-6f);
    ck_assert_float_eq_tol(m.points[0].depth, 1.0f, 1e-6f);
    ck_assert_uint_ne(m.points[0].id, m.points[1].id);
}
END_TEST

START_TEST(box_resting_on_ground)
{
    /* Ground top at y = 0; a unit box sunk 2 mm: pushed up by 2 mm, contacts at its corners. */
    col_aabb ground = {mk_v2(0, -0.5f), mk_v2(10, 0.5f)};
    col_aabb box = {mk_v2(3, 0.498f), mk_v2(0.5f, 0.5f)};
    col_manifold2 m = col_collide_aabb(ground, box);
    ck_assert_int_eq(m.count, 2);
    ck_assert_float_eq_tol(m.normal.y, 1.0f, 1e-6f);
    ck_assert_float_eq_tol(m.depth, 0.002f, 1e-6f);
    ck_assert_float_eq_tol(m.points[0].point.x, 2.5f, 1e-6f);
    ck_assert_float_eq_tol(m.points[1].point.x, 3.5f, 1e-6f);
    ck_assert_float_eq_tol(m.points[0].point.y, -0.001f, 1e-6f);
}
END_TEST

START_TEST(separated_boxes_report_distance)
{
    col_aabb a = {mk_v2(0, 0), mk_v2(1, 1)}, b = {mk_v2(3, 4), mk_v2(0.5f, 0.5f)};
    col_manifold2 m = col_collide_aabb(a, b);
    ck_assert_int_eq(m.count, 0);
    /* Gaps 1.5 in x and 2.5 in y: the corners are sqrt(1.5^2 + 2.5^2) apart. */
    ck_assert_float_eq_tol(m.distance, sqrtf(1.5f * 1.5f + 2.5f * 2.5f), 1e-5f);

    b.center = mk_v2(0.25f, 2.5f); /* straight above, 0.5 apart */
    m = col_collide_aabb(a, b);
    ck_assert_int_eq(m.count, 0);
    ck_assert_float_eq_tol(m.distance, 1.0f, 1e-6f);
}
END_TEST

START_TEST(touching_boxes_hit_with_zero_depth)
{
    col_aabb a = {mk_v2(0, 0), mk_v2(1, 1)}, b = {mk_v2(2, 0.5f), mk_v2(1, 1)};
    col_manifold2 m = col_collide_aabb(a, b);
    ck_assert_int_eq(m.count, 2);
    ck_assert_float_eq(m.depth, 0.0f);
    ck_assert_float_eq(m.normal.x, 1.0f);
    b.center = mk_v2(0.5f, -2.0f);
    m = col_collide_aabb(a, b);
    ck_assert_int_eq(m.count, 2);
    ck_assert_float_eq(m.normal.y, -1.0f);
}
END_TEST

/* A small, fixed-seed generator so that every run tests the same pairs. */
static uint64_t rng_state;
static float rnd(float lo, float hi)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    float u = (float)(rng_state >> 40) / (float)(1ull << 24);
    return lo + (hi - lo) * u;
}

static col_aabb random_box(void)
{
    return (col_aabb){mk_v2(rnd(-2, 2), rnd(-2, 2)), mk_v2(rnd(0.05f, 1.5f), rnd(0.05f, 1.5f))};
}

/* Brute force: the penetration depth is the smallest value of the Minkowski difference's
 * support function h(d) = h_A(d) + h_B(-d) - d.(cb - ca) over unit directions d, sampled
 * every 0.1 degree (the sample includes the axes, where the minimum of two boxes lies). */
static float brute_depth(col_aabb a, col_aabb b)
{
    float best = INFINITY;
    for (int i = 0; i < 3600; i++) {
        double t = (double)i * (2.0 * 3.14159265358979323846 / 3600.0);
        float dx = (float)cos(t), dy = (float)sin(t);
        float ha = fabsf(dx) * a.half.x + fabsf(dy) * a.half.y;
        float hb = fabsf(dx) * b.half.x + fabsf(dy) * b.half.y;
        float h = ha + hb + dx * (a.center.x - b.center.x) + dy * (a.center.y - b.center.y);
        best = fminf(best, h);
    }
    return best;
}

static bool overlap(col_aabb a, col_aabb b)
{
    return col_collide_aabb(a, b).count > 0;
}

START_TEST(random_pairs_properties)
{
    rng_state = 12345;
    int hits = 0, misses = 0;
    for (int i = 0; i < 20000; i++) {
        col_aabb a = random_box(), b = random_box();
        col_manifold2 m = col_collide_aabb(a, b);
        float brute = brute_depth(a, b);
        if (m.count == 0) {
            misses++;
            ck_assert_msg(brute < 1e-6f, "pair %d: missed but brute depth %g", i, brute);
            continue;
        }
        hits++;
        ck_assert_msg(fabsf(m.depth - brute) < 1e-5f, "pair %d: depth %g vs brute %g", i,
                      m.depth, brute);
        /* Moving b by normal * (depth + eps) separates, by normal * (depth - eps) does not. */
        col_aabb out = b, in = b;
        out.center = mk_v2_mad(b.center, m.depth + 1e-4f, m.normal);
        ck_assert_msg(!overlap(a, out), "pair %d: still overlapping after the push", i);
        if (m.depth > 1e-4f) {
            in.center = mk_v2_mad(b.center, m.depth - 1e-4f, m.normal);
            ck_assert_msg(overlap(a, in), "pair %d: separated before depth", i);
        }
        /* Swapping a and b negates the normal (the depth is the same). */
        col_manifold2 s = col_collide_aabb(b, a);
        ck_assert_float_eq_tol(s.depth, m.depth, 1e-6f);
        float dot = mk_v2_dot(s.normal, m.normal);
        /* Where two sides tie, either is a minimum translation; otherwise the normal flips. */
        if (dot > -0.5f)
            ck_assert_float_eq_tol(s.depth, brute, 1e-5f);
        else
            ck_assert_float_eq_tol(dot, -1.0f, 1e-6f);
        /* Moving both boxes together keeps the depth. */
        mk_vec2 shift = mk_v2(rnd(-100, 100), rnd(-100, 100));
        col_aabb a2 = {mk_v2_add(a.center, shift), a.half};
        col_aabb b2 = {mk_v2_add(b.center, shift), b.half};
        ck_assert_float_eq_tol(col_collide_aabb(a2, b2).depth, m.depth, 1e-4f);
    }
    /* The generator gives both outcomes in quantity, so neither branch went untested. */
    ck_assert_int_gt(hits, 5000);
    ck_assert_int_gt(misses, 2000);
}
END_TEST

START_TEST(shape_table_dispatches_aabb)
{
    col_shape2 box = {.type = COL_SHAPE_AABB, .half = {0.5f, 0.5f}};
    col_manifold2 m = col_collide2(&box, (col_xf2){mk_v2(0, 0), 0}, &box,
                                   (col_xf2){mk_v2(0.8f, 0.1f), 1.0f});
    ck_assert_int_eq(m.count, 2);
    ck_assert_float_eq_tol(m.depth, 0.2f, 1e-6f);
    ck_assert_float_eq_tol(col_shape_area(&box), 1.0f, 1e-6f);
    col_aabb bb = col_shape_bounds(&box, (col_xf2){mk_v2(3, 4), 0.7f});
    ck_assert_float_eq(bb.center.x, 3.0f);
    ck_assert_float_eq(bb.half.y, 0.5f); /* an AABB never rotates */
}
END_TEST

MINK_CHECK_TESTS("collision", 60, minkowski_matches_seed_corner_form,
                 penetration_is_the_smallest_side, manifold_of_overlapping_boxes,
                 box_resting_on_ground, separated_boxes_report_distance,
                 touching_boxes_hit_with_zero_depth, random_pairs_properties,
                 shape_table_dispatches_aabb)
