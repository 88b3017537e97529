/* mink_collision, 2D level geometry: segments and chains of one-sided segments with ghost
 * vertices. Known answers (a box and a circle on a segment from either side, a box sliding
 * across 100 seams of a straight chain with its normal exactly up at every step where plain
 * segments catch, concave and convex corners, casts that would tunnel), the hierarchy
 * against a brute force over every segment (boxes, rays, collisions), and bad points refused
 * with the field named. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "mink_collision.h"
#include "shapes_check.h"

static const col_xf2 AT0 = {{0.0f, 0.0f}, 0.0f};

static col_chain2 build_chain(const mk_vec2 *p, uint32_t n, bool loop)
{
    col_chain2 c;
    mk_error err = {0};
    ck_assert_msg(col_chain2_build(p, n, loop, 1u << 24, &c, &err) == 0, "%s", err.message);
    return c;
}

/* Flat ground along y = 0 under x in [0, segments], drawn from right to left so that it
 * faces up: its ends (x = segments + 1 and -1) are ghosts. */
static col_chain2 ground(uint32_t segments)
{
    uint32_t n = segments + 3;
    mk_vec2 *p = malloc(n * sizeof *p);
    for (uint32_t i = 0; i < n; i++)
        p[i] = mk_v2((float)segments + 1.0f - (float)i, 0.0f);
    col_chain2 c = build_chain(p, n, false);
    free(p);
    return c;
}

START_TEST(segment_both_sides)
{
    col_segment2 s = {{-2, 0}, {2, 0}};
    col_shape2 box = {.type = COL_SHAPE_BOX, .half = {0.5f, 0.25f}};
    col_manifold2 m = col_collide_segment2(s, AT0, &box, (col_xf2){{0.3f, 0.24f}, 0}, 0.02f);
    ck_assert_int_eq(m.count, 2);
    NEAR(m.normal.x, 0.0, 0.0);
    NEAR(m.normal.y, 1.0, 0.0);
    NEAR(m.depth, 0.01, 1e-6);
    NEAR(fmin(m.points[0].point.x, m.points[1].point.x), -0.2, 1e-6);
    NEAR(fmax(m.points[0].point.x, m.points[1].point.x), 0.8, 1e-6);
    m = col_collide_segment2(s, AT0, &box, (col_xf2){{0.3f, -0.24f}, 0}, 0.02f);
    ck_assert_int_eq(m.count, 2);
    NEAR(m.normal.y, -1.0, 0.0);
    m = col_collide_segment2(s, AT0, &box, (col_xf2){{0.3f, 1.0f}, 0}, 0.02f);
    ck_assert_int_eq(m.count, 0);
    NEAR(m.distance, 0.75, 1e-6);
    /* A circle beyond the segment's end: the end is the closest point. */
    col_shape2 circle = {.type = COL_SHAPE_CIRCLE, .radius = 0.5f};
    m = col_collide_segment2(s, AT0, &circle, (col_xf2){{2.3f, 0.3f}, 0}, 0.02f);
    ck_assert_int_eq(m.count, 1);
    NEAR(m.normal.x, sqrt(0.5), 1e-6);
    NEAR(m.depth, 0.5 - 0.3 * sqrt(2.0), 1e-6);
    /* Placed: the segment turned 90 degrees and moved is a wall at x = 5. */
    col_xf2 xs = {{5.0f, 1.0f}, 1.57079633f};
    m = col_collide_segment2(s, xs, &circle, (col_xf2){{5.45f, 1.5f}, 0}, 0.02f);
    ck_assert_int_eq(m.count, 1);
    NEAR(m.normal.x, 1.0, 1e-6);
    NEAR(m.depth, 0.05, 1e-6);
    /* Rays: both sides of a segment, one side of a chain segment's. */
    col_ray_hit2 h = col_ray_segment2(s, AT0, mk_v2(0.5f, -3), mk_v2(0.5f, 1), false);
    ck_assert(h.hit);
    NEAR(h.fraction, 0.75, 1e-7);
    NEAR(h.normal.y, -1.0, 0.0);
    col_segment2 back = {{2, 0}, {-2, 0}}; /* right side up */
    ck_assert(!col_ray_segment2(back, AT0, mk_v2(0.5f, -3), mk_v2(0.5f, 1), true).hit);
    h = col_ray_segment2(back, AT0, mk_v2(0.5f, 3), mk_v2(0.5f, -1), true);
    ck_assert(h.hit);
    NEAR(h.point.y, 0.0, 0.0);
    NEAR(h.normal.y, 1.0, 0.0);
}
END_TEST

/* A box sliding along a straight chain of 101 segments, 5 mm into it, in steps of 3.7 mm
 * across every one of its 100 seams: each manifold's normal is exactly up and its depth
 * 5 mm. The same segments taken two-sided catch the box's corners at the seams. */
START_TEST(box_slides_across_seams)
{
    col_chain2 c = ground(101);
    ck_assert_uint_eq(c.segment_count, 101);
    col_shape2 box = {.type = COL_SHAPE_BOX, .half = {0.5f, 0.25f}};
    col_shape2 circle = {.type = COL_SHAPE_CIRCLE, .radius = 0.3f};
    const float sink = 0.005f;
    int steps = 0, caught = 0;
    for (double x = 0.6; x < 100.4; x += 0.0037, steps++) {
        col_xf2 xb = {{(float)x, 0.25f - sink}, 0.0f};
        col_child_manifold2 out[8];
        uint32_t n = col_chain2_collide(&c, AT0, &box, xb, 0.02f, out, 8);
        int points = 0;
        for (uint32_t i = 0; i < n; i++) {
            const col_manifold2 *m = &out[i].m;
            if (m->count == 0)
                continue;
            EXPECT(m->normal.x == 0.0f && m->normal.y == 1.0f,
                   "x = %.4f, segment %u: normal (%.9g, %.9g)", x, out[i].child,
                   (double)m->normal.x, (double)m->normal.y);
            for (int k = 0; k < m->count; k++)
                NEAR(m->points[k].depth, sink, 1e-6);
            points += m->count;
        }
        EXPECT(points >= 2, "x = %.4f: the box rests on %d points", x, points);
        /* The circle too (its normal from the closest point: up to rounding). */
        xb.p.y = 0.3f - sink;
        n = col_chain2_collide(&c, AT0, &circle, xb, 0.02f, out, 8);
        for (uint32_t i = 0; i < n; i++)
            if (out[i].m.count > 0) {
                NEAR(out[i].m.normal.y, 1.0, 1e-6);
                NEAR(out[i].m.depth, sink, 1e-6);
            }
        /* Two-sided segments: a seam within 5 mm of the box's side catches its corner. */
        xb.p.y = 0.25f - sink;
        bool side = false;
        uint32_t near[8];
        uint32_t nn = col_chain2_query(&c, col_shape_bounds(&box, xb), near, 8);
        for (uint32_t k = 0; k < nn; k++) {
            col_chain_segment2 cs = col_chain2_segment(&c, near[k]);
            col_manifold2 m = col_collide_segment2((col_segment2){cs.p1, cs.p2}, AT0, &box, xb,
                                                   0.02f);
            side |= m.count > 0 && m.normal.y < 0.5f;
        }
        caught += side;
    }
    ck_assert_int_gt(steps, 26000);
    printf("box over 100 seams: %d steps, plain segments caught it at %d\n", steps, caught);
    ck_assert_int_gt(caught, 100);
    col_chain2_free(&c);
}
END_TEST

START_TEST(feature_ids_persist)
{
    col_chain2 c = ground(10);
    col_shape2 box = {.type = COL_SHAPE_BOX, .half = {0.3f, 0.2f}};
    col_child_manifold2 a[4], b[4];
    ck_assert_uint_eq(col_chain2_collide(&c, AT0, &box, (col_xf2){{4.5f, 0.19f}, 0}, 0.02f, a, 4), 1);
    ck_assert_uint_eq(col_chain2_collide(&c, AT0, &box, (col_xf2){{4.51f, 0.19f}, 0}, 0.02f, b, 4), 1);
    ck_assert_int_eq(a[0].m.count, 2);
    ck_assert_int_eq(b[0].m.count, 2);
    ck_assert_uint_eq(a[0].m.points[0].id, b[0].m.points[0].id);
    ck_assert_uint_eq(a[0].m.points[1].id, b[0].m.points[1].id);
    ck_assert_uint_ne(a[0].m.points[0].id, a[0].m.points[1].id);
    col_chain2_free(&c);
}
END_TEST

START_TEST(one_sided)
{
    col_chain2 c = ground(10);
    col_shape2 box = {.type = COL_SHAPE_BOX, .half = {0.3f, 0.2f}};
    col_child_manifold2 out[4];
    /* Below the ground, overlapping it: behind every segment. */
    ck_assert_uint_eq(col_chain2_collide(&c, AT0, &box, (col_xf2){{4.5f, -0.15f}, 0}, 0.02f, out, 4), 0);
    uint32_t seg = UINT32_MAX;
    ck_assert(!col_chain2_ray(&c, AT0, mk_v2(4.5f, -1), mk_v2(4.5f, 1), &seg).hit);
    col_ray_hit2 h = col_chain2_ray(&c, AT0, mk_v2(4.25f, 1), mk_v2(4.25f, -1), &seg);
    ck_assert(h.hit);
    NEAR(h.fraction, 0.5, 0.0);
    NEAR(h.normal.y, 1.0, 0.0);
    /* Segment 0 runs from x = 10 to 9: x = 4.25 is on segment 5. */
    ck_assert_uint_eq(seg, 5);
    col_chain2_free(&c);
}
END_TEST

/* The manifolds that touch: at least `least`, each with the normal `want` (or, when want is
 * zero, along an axis: a segment's or a box face's, never a corner's diagonal). */
static void expect_normals(const col_chain2 *c, const col_shape2 *b, col_xf2 xb, int least,
                           mk_vec2 want)
{
    col_child_manifold2 out[4];
    uint32_t n = col_chain2_collide(c, AT0, b, xb, 0.02f, out, 4);
    int touching = 0;
    for (uint32_t i = 0; i < n; i++) {
        const col_manifold2 *m = &out[i].m;
        if (m->count == 0)
            continue;
        touching++;
        bool ok = want.x == 0.0f && want.y == 0.0f
                      ? fabsf(m->normal.x) == 1.0f || fabsf(m->normal.y) == 1.0f
                      : m->normal.x == want.x && m->normal.y == want.y;
        EXPECT(ok, "normal (%g, %g)", (double)m->normal.x, (double)m->normal.y);
    }
    EXPECT(touching >= least, "%d manifolds touch, expected %d", touching, least);
}

START_TEST(corners)
{
    col_shape2 box = {.type = COL_SHAPE_BOX, .half = {0.5f, 0.5f}};
    mk_vec2 up = {0, 1}, axis = {0, 0};
    /* A wall at x = 0 (facing left) meeting the floor (facing up): a concave corner. A box
     * pressed into it meets both, each along its own normal. */
    mk_vec2 concave[5] = {{0, 5}, {0, 3}, {0, 0}, {-3, 0}, {-5, 0}};
    col_chain2 c = build_chain(concave, 5, false);
    col_child_manifold2 out[4];
    uint32_t n = col_chain2_collide(&c, AT0, &box, (col_xf2){{-0.49f, 0.49f}, 0}, 0.02f, out, 4);
    ck_assert_uint_eq(n, 2);
    for (uint32_t i = 0; i < n; i++) {
        mk_vec2 want = out[i].child == 0 ? mk_v2(-1, 0) : up;
        ck_assert_int_eq(out[i].m.count, 2);
        ck_assert(out[i].m.normal.x == want.x && out[i].m.normal.y == want.y);
        NEAR(out[i].m.depth, 0.01, 1e-6);
    }
    expect_normals(&c, &box, (col_xf2){{-1.5f, 0.49f}, 0}, 1, up);
    col_chain2_free(&c);
    /* A ledge: its top (facing up) and its side (facing right), a convex corner. A box
     * hanging over the edge rests on the top; one beside the side is pushed right; one over
     * the corner is pushed out along an axis. */
    mk_vec2 convex[5] = {{0, -5}, {0, -3}, {0, 0}, {-3, 0}, {-5, 0}};
    c = build_chain(convex, 5, false);
    expect_normals(&c, &box, (col_xf2){{0.2f, 0.49f}, 0}, 1, up);
    expect_normals(&c, &box, (col_xf2){{0.49f, -1.5f}, 0}, 1, mk_v2(1, 0));
    expect_normals(&c, &box, (col_xf2){{0.45f, 0.45f}, 0}, 1, axis);
    col_chain2_free(&c);
}
END_TEST

START_TEST(cast_does_not_tunnel)
{
    col_chain2 c = ground(10);
    col_shape2 box = {.type = COL_SHAPE_BOX, .half = {0.05f, 0.05f}};
    col_shape2 circle = {.type = COL_SHAPE_CIRCLE, .radius = 0.05f};
    const col_shape2 *shapes[2] = {&box, &circle};
    for (int s = 0; s < 2; s++) {
        uint32_t seg = UINT32_MAX;
        col_ray_hit2 h = col_chain2_cast(shapes[s], (col_xf2){{4.3f, 2.0f}, 0}, mk_v2(0.3f, -20.0f),
                                         &c, AT0, &seg);
        ck_assert(h.hit);
        NEAR(h.fraction, (2.0 - 0.05) / 20.0, 2e-6);
        NEAR(h.normal.y, 1.0, 1e-6);
        ck_assert_uint_eq(seg, 5);
        /* From below: passed (one-sided). Resting and sliding: not a hit. */
        ck_assert(!col_chain2_cast(shapes[s], (col_xf2){{4.3f, -1.0f}, 0}, mk_v2(0, 20), &c, AT0,
                                   NULL).hit);
        ck_assert(!col_chain2_cast(shapes[s], (col_xf2){{4.3f, 0.05f}, 0}, mk_v2(3, 0), &c, AT0,
                                   NULL).hit);
    }
    col_chain2_free(&c);
}
END_TEST

/* A chain placed by a turn and a shift answers as the chain built from its points moved there
 * and left in place (to float rounding): collisions, rays, casts and bounds. */
START_TEST(placed_chain)
{
    mk_vec2 p[6] = {{6, 1}, {4, 0}, {2, 0.5f}, {0, 0}, {-2, 0.3f}, {-4, 1}};
    const float angle = 0.4f;
    col_xf2 xc = {{3.0f, -2.0f}, angle};
    mk_vec2 moved[6];
    float c = cosf(angle), s = sinf(angle);
    for (int i = 0; i < 6; i++)
        moved[i] = mk_v2(xc.p.x + c * p[i].x - s * p[i].y, xc.p.y + s * p[i].x + c * p[i].y);
    col_chain2 local = build_chain(p, 6, false), world = build_chain(moved, 6, false);
    col_aabb bl = col_segment2_bounds((col_segment2){p[1], p[4]}, xc);
    col_aabb bw = col_segment2_bounds((col_segment2){moved[1], moved[4]}, AT0);
    NEAR(bl.center.x, bw.center.x, 1e-5);
    NEAR(bl.half.y, bw.half.y, 1e-5);
    col_shape2 box = {.type = COL_SHAPE_BOX, .half = {0.4f, 0.3f}};
    col_shape2 aabb = {.type = COL_SHAPE_AABB, .half = {0.4f, 0.3f}};
    rng_state = 0x9A9A;
    int touching = 0;
    for (int q = 0; q < 500; q++) {
        const col_shape2 *b = q % 2 ? &box : &aabb;
        float t = (float)rnd(-3.5, 5.5);
        mk_vec2 on = mk_v2(xc.p.x + c * t, xc.p.y + s * t);
        col_xf2 xb = {{on.x - s * (float)rnd(-0.2, 0.8), on.y + c * (float)rnd(-0.2, 0.8)},
                      (float)rnd(-1, 1)};
        col_child_manifold2 a[8], w[8];
        uint32_t na = col_chain2_collide(&local, xc, b, xb, 0.02f, a, 8);
        uint32_t nw = col_chain2_collide(&world, AT0, b, xb, 0.02f, w, 8);
        EXPECT(na == nw, "case %d: %u and %u manifolds", q, na, nw);
        for (uint32_t i = 0; i < na; i++) {
            EXPECT(a[i].child == w[i].child || na > 1, "case %d: segments differ", q);
            const col_manifold2 *ma = &a[i].m, *mw = NULL;
            for (uint32_t k = 0; k < nw; k++)
                if (w[k].child == a[i].child)
                    mw = &w[k].m;
            EXPECT(mw && ma->count == mw->count, "case %d: point counts differ", q);
            NEAR(ma->normal.x, mw->normal.x, 1e-5);
            NEAR(ma->normal.y, mw->normal.y, 1e-5);
            if (ma->count > 0)
                NEAR(ma->depth, mw->depth, 1e-4);
            touching += ma->count > 0;
        }
        mk_vec2 from = mk_v2(xb.p.x - s * 3.0f, xb.p.y + c * 3.0f);
        col_ray_hit2 ra = col_chain2_ray(&local, xc, from, xb.p, NULL);
        col_ray_hit2 rw = col_chain2_ray(&world, AT0, from, xb.p, NULL);
        EXPECT(ra.hit == rw.hit, "case %d: rays differ", q);
        if (ra.hit) {
            NEAR(ra.fraction, rw.fraction, 1e-5);
            NEAR(ra.normal.x, rw.normal.x, 1e-5);
        }
        col_ray_hit2 ca = col_chain2_cast(&box, (col_xf2){from, xb.angle}, mk_v2_sub(xb.p, from),
                                          &local, xc, NULL);
        col_ray_hit2 cw = col_chain2_cast(&box, (col_xf2){from, xb.angle}, mk_v2_sub(xb.p, from),
                                          &world, AT0, NULL);
        EXPECT(ca.hit == cw.hit, "case %d: casts differ", q);
        if (ca.hit)
            NEAR(ca.fraction, cw.fraction, 1e-4);
    }
    ck_assert_int_gt(touching, 100);
    col_chain2_free(&local);
    col_chain2_free(&world);
}
END_TEST

/* ---- against a brute force ---- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void brute_queries(const col_chain2 *c, col_xf2 xc, float span)
{
    uint32_t n = c->segment_count;
    uint32_t *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
    col_polygon tri;
    mk_vec2 tp[3] = {{-0.4f, -0.3f}, {0.5f, -0.2f}, {0.0f, 0.6f}};
    mk_error err = {0};
    ck_assert(col_polygon_make(tp, 3, &tri, &err) == 0);
    col_shape2 shapes[4] = {{.type = COL_SHAPE_AABB, .half = {0.6f, 0.3f}},
                            {.type = COL_SHAPE_BOX, .half = {0.5f, 0.2f}},
                            {.type = COL_SHAPE_CIRCLE, .radius = 0.4f},
                            {.type = COL_SHAPE_POLYGON, .polygon = &tri}};
    for (int q = 0; q < 2000; q++) {
        mk_vec2 ctr = mk_v2((float)rnd(-span, span), (float)rnd(-span, span));
        col_aabb box = {ctr, mk_v2((float)rnd(0, 4), (float)rnd(0, 4))};
        uint32_t ng = col_chain2_query(c, box, got, n), nw = 0;
        for (uint32_t s = 0; s < n; s++) {
            col_chain_segment2 cs = col_chain2_segment(c, s);
            mk_vec2 lo = mk_v2_min(cs.p1, cs.p2), hi = mk_v2_max(cs.p1, cs.p2);
            mk_vec2 blo = col_aabb_min(box), bhi = col_aabb_max(box);
            if (lo.x <= bhi.x && blo.x <= hi.x && lo.y <= bhi.y && blo.y <= hi.y)
                want[nw++] = s;
        }
        qsort(got, ng, sizeof *got, cmp_u32);
        EXPECT(ng == nw && memcmp(got, want, nw * sizeof *got) == 0,
               "box %d: %u segments found, %u touch it", q, ng, nw);
    }
    for (int q = 0; q < 2000; q++) {
        mk_vec2 a = mk_v2((float)rnd(-span, span), (float)rnd(-span, span));
        mk_vec2 b = mk_v2((float)rnd(-span, span), (float)rnd(-span, span));
        uint32_t seg = UINT32_MAX;
        col_ray_hit2 h = col_chain2_ray(c, xc, a, b, &seg);
        float best = 2.0f;
        for (uint32_t s = 0; s < n; s++) {
            col_chain_segment2 cs = col_chain2_segment(c, s);
            col_ray_hit2 hs = col_ray_segment2((col_segment2){cs.p1, cs.p2}, xc, a, b, true);
            if (hs.hit && hs.fraction < best)
                best = hs.fraction;
        }
        EXPECT(h.hit == (best <= 1.0f), "ray %d: hit %d, brute force %g", q, h.hit, (double)best);
        if (h.hit)
            NEAR(h.fraction, best, 1e-6);
    }
    /* Collisions: the hierarchy's candidates against every segment's own answer. */
    for (int q = 0; q < 2000; q++) {
        const col_shape2 *s = &shapes[q % 4];
        col_xf2 xb = {{(float)rnd(-span, span), (float)rnd(-span, span)}, (float)rnd(-3, 3)};
        col_child_manifold2 out[64];
        uint32_t no = col_chain2_collide(c, xc, s, xb, 0.05f, out, 64), nw = 0;
        for (uint32_t k = 0; k < n; k++) {
            col_chain_segment2 cs = col_chain2_segment(c, k);
            col_manifold2 m = col_collide_chain_segment2(&cs, xc, s, xb, 0.05f);
            if (m.count == 0 && !(m.distance <= 0.05f))
                continue;
            bool found = false;
            for (uint32_t i = 0; i < no && !found; i++)
                found = out[i].child == k && memcmp(&out[i].m, &m, sizeof m) == 0;
            EXPECT(found, "collision %d: segment %u missed", q, k);
            nw++;
        }
        EXPECT(no == nw, "collision %d: %u manifolds, %u segments touch", q, no, nw);
    }
    free(got);
    free(want);
}

START_TEST(chain_hierarchy_brute_force)
{
    /* A loop round a noisy circle of radius 30 (counter-clockwise: facing out) and an open
     * random walk. */
    rng_state = 0x2D2D;
    enum { N = 1500 };
    mk_vec2 p[N];
    for (int i = 0; i < N; i++) {
        double a = 2.0 * 3.14159265358979 * i / N, r = 30.0 + rnd(-2, 2);
        p[i] = mk_v2((float)(r * cos(a)), (float)(r * sin(a)));
    }
    col_chain2 c = build_chain(p, N, true);
    ck_assert_uint_eq(c.segment_count, N);
    brute_queries(&c, AT0, 35.0f);
    col_chain2_free(&c);
    mk_vec2 w = {-30, 0};
    for (int i = 0; i < N; i++) {
        w = mk_v2_add(w, mk_v2((float)rnd(0.0, 0.08), (float)rnd(-0.5, 0.5)));
        p[i] = w;
    }
    c = build_chain(p, N, false);
    brute_queries(&c, AT0, 35.0f);
    col_chain2_free(&c);
}
END_TEST

START_TEST(bad_points_refused)
{
    mk_vec2 p[6] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}};
    col_chain2 c;
    mk_error err = {0};
    p[2].y = NAN;
    ck_assert_int_eq(col_chain2_build(p, 6, false, 100, &c, &err), -1);
    ck_assert_str_eq(err.message, "points[2].y is not finite");
    p[2].y = 0.0f;
    p[1].x = 2e6f;
    ck_assert_int_eq(col_chain2_build(p, 6, false, 100, &c, &err), -1);
    ck_assert_msg(strstr(err.message, "points[1].x = 2e+06 m") != NULL, "%s", err.message);
    p[1].x = 1.0f;
    ck_assert_int_eq(col_chain2_build(p, 3, false, 100, &c, &err), -1);
    ck_assert_str_eq(err.message, "points: an open chain needs at least 4 points (got 3)");
    ck_assert_int_eq(col_chain2_build(p, 6, false, 5, &c, &err), -1);
    ck_assert_str_eq(err.message, "points: 6 points, more than the limit of 5");
    /* Repeats are welded and counted; too few left is refused. */
    mk_vec2 rep[5] = {{0, 0}, {1, 0}, {1, 0}, {2, 0}, {3, 0}};
    ck_assert_int_eq(col_chain2_build(rep, 5, false, 100, &c, &err), 0);
    ck_assert_uint_eq(c.welded, 1);
    ck_assert_uint_eq(c.segment_count, 1);
    col_chain2_free(&c);
    ck_assert_int_eq(col_chain2_build(rep, 4, false, 100, &c, &err), -1);
    ck_assert_msg(strstr(err.message, "3 distinct points") != NULL, "%s", err.message);
}
END_TEST

START_TEST(long_chain)
{
    /* 100,000 points of rolling ground: what a segment costs, and a query near one point
     * finds only its neighbours. */
    enum { N = 100000 };
    mk_vec2 *p = malloc(N * sizeof *p);
    for (int i = 0; i < N; i++)
        p[i] = mk_v2((float)(N - i) * 0.5f, (float)sin(0.01 * i));
    col_chain2 c = build_chain(p, N, false);
    printf("chain of %u segments: %.1f bytes a segment, depth %u\n", c.segment_count,
           (double)col_chain2_bytes(&c) / c.segment_count, c.bvh.depth);
    ck_assert_uint_lt(c.bvh.depth, COL_BVH_MAX_DEPTH);
    uint32_t out[16];
    uint32_t n = col_chain2_query(&c, (col_aabb){{1000.25f, 0.0f}, {0.1f, 2.0f}}, out, 16);
    ck_assert_uint_ge(n, 1);
    ck_assert_uint_le(n, 3);
    col_chain2_free(&c);
    free(p);
}
END_TEST

MINK_CHECK_SUITE("chain2", s)
{
    MINK_TCASE(s, "known", 120, segment_both_sides, box_slides_across_seams, feature_ids_persist,
               one_sided, corners, cast_does_not_tunnel);
    MINK_TCASE(s, "brute", 300, placed_chain, chain_hierarchy_brute_force);
    MINK_TCASE(s, "build", 60, bad_points_refused, long_chain);
}
