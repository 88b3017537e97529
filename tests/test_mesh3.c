/* mink_collision, 3D level geometry: triangle meshes. Known answers (a box resting on a flat
 * mesh, a box over the shared edge of two flat triangles with and without active edges, every
 * shape over that edge, a sphere on a tilted plane, a ray's exact height, a placed mesh, casts
 * that would tunnel, back faces), and the build: welds, drops, active edges, bad input
 * refused with the field named, the memory a triangle takes. test_level3.c holds the
 * heightfield and the brute-force checks. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "level_check.h"
#include "mink_collision.h"
#include "shapes_check.h"

#define PI 3.14159265358979323846

/* The square [-2, 2]^2 at height h, split on the diagonal (-2, -2) - (2, 2), facing up. */
static col_mesh3 flat_square(float h, float cos_threshold)
{
    mk_vec3 v[4] = {{-2, h, -2}, {2, h, -2}, {2, h, 2}, {-2, h, 2}};
    static const uint32_t idx[6] = {0, 2, 1, 0, 3, 2};
    return build_mesh(v, 4, idx, 6, cos_threshold);
}

static void expect_up(mk_vec3 n)
{
    EXPECT(n.x == 0.0f && n.y == 1.0f && n.z == 0.0f, "normal (%.9g, %.9g, %.9g), not exactly up",
           (double)n.x, (double)n.y, (double)n.z);
}

/* ---- known answers ---- */

START_TEST(box_rests_on_flat_mesh)
{
    const float h = 1.25f, sink = 0.001f;
    col_mesh3 m = flat_square(h, COL_ACTIVE_EDGE_COS);
    ck_assert_uint_eq(m.tri_count, 2);
    ck_assert_uint_eq(m.vert_count, 4);
    col_level3 l = {&m, NULL};
    col_shape3 box = {.type = COL_SHAPE3_BOX, .half = {0.5f, 0.5f, 0.5f}};
    col_xf3 xb = {{0.3f, h + 0.5f - sink, -0.2f}, {0, 0, 0, 1}};
    col_tri_contact3 how = contact(0.02f);
    col_child_manifold3 out[8];
    uint32_t n = col_level3_collide(l, IDENTITY, &box, xb, &how, out, 8);
    ck_assert_uint_eq(n, 2); /* the footprint lies on both triangles */
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_int_ge(out[i].m.count, 3);
        expect_up(out[i].m.normal);
        NEAR(out[i].m.depth, sink, 1e-6);
        for (int k = 0; k < out[i].m.count; k++)
            NEAR(out[i].m.points[k].point.y, h - 0.5 * sink, 1e-6);
    }
    /* Both triangles' manifolds share the normal: one manifold, the box's four corners. */
    ck_assert_uint_eq(col_merge_manifolds3(out, n, 0.9998f), 1);
    ck_assert_int_eq(out[0].m.count, 4);
    expect_up(out[0].m.normal);
    bool corner[4] = {false, false, false, false};
    for (int k = 0; k < 4; k++) {
        mk_vec3 p = out[0].m.points[k].point;
        NEAR(p.y, h - 0.5 * sink, 1e-6);
        int cx = fabsf(p.x - -0.2f) < 1e-5f ? 0 : fabsf(p.x - 0.8f) < 1e-5f ? 1 : -1;
        int cz = fabsf(p.z - -0.7f) < 1e-5f ? 0 : fabsf(p.z - 0.3f) < 1e-5f ? 1 : -1;
        ck_assert_msg(cx >= 0 && cz >= 0, "point (%g, %g) is not a corner", (double)p.x,
                      (double)p.z);
        corner[2 * cx + cz] = true;
    }
    ck_assert(corner[0] && corner[1] && corner[2] && corner[3]);
    col_mesh3_free(&m);
}
END_TEST

START_TEST(feature_ids_persist)
{
    /* A box moved 1 mm over one triangle keeps its points' ids (warm starting). */
    col_mesh3 m = flat_square(0.0f, COL_ACTIVE_EDGE_COS);
    col_level3 l = {&m, NULL};
    col_shape3 box = {.type = COL_SHAPE3_BOX, .half = {0.3f, 0.2f, 0.25f}};
    col_tri_contact3 how = contact(0.02f);
    col_child_manifold3 a[4], b[4];
    col_xf3 x0 = {{1.0f, 0.199f, -1.0f}, {0, 0, 0, 1}}, x1 = x0;
    x1.p.x += 0.001f;
    ck_assert_uint_eq(col_level3_collide(l, IDENTITY, &box, x0, &how, a, 4), 1);
    ck_assert_uint_eq(col_level3_collide(l, IDENTITY, &box, x1, &how, b, 4), 1);
    ck_assert_int_eq(a[0].m.count, b[0].m.count);
    for (int i = 0; i < a[0].m.count; i++) {
        bool found = false;
        for (int k = 0; k < b[0].m.count; k++)
            found |= a[0].m.points[i].id == b[0].m.points[k].id;
        ck_assert(found);
    }
    col_mesh3_free(&m);
}
END_TEST

/* A box rolled 45 degrees about the diagonal, resting on its lowest edge right over the
 * shared edge, sunk by d: against one triangle alone, the least translation is along the
 * box's tilted face (d / sqrt 2 < d), a normal 45 degrees off; the shared edge is inactive
 * (the two triangles are flat), so the mesh gives the face normal, exactly up, and depth d. */
START_TEST(active_edge_keeps_normal_up)
{
    const float h = 0.5f, d = 0.01f;
    col_mesh3 m = flat_square(h, COL_ACTIVE_EDGE_COS);
    col_level3 l = {&m, NULL};
    mk_vec3 u = mk_v3((float)sqrt(0.5), 0.0f, (float)sqrt(0.5));
    mk_quat yaw = mk_quat_axis_angle(mk_v3(0, 1, 0), (float)(-PI / 4));
    mk_quat q = mk_quat_mul(mk_quat_axis_angle(u, (float)(PI / 4)), yaw);
    col_shape3 box = {.type = COL_SHAPE3_BOX, .half = {0.5f, 0.5f, 0.5f}};
    col_xf3 xb = {{0.1f, h + 0.5f * (float)sqrt(2.0) - d, 0.1f}, q};
    col_tri_contact3 how = contact(0.02f);
    col_child_manifold3 out[4];
    uint32_t n = col_level3_collide(l, IDENTITY, &box, xb, &how, out, 4);
    ck_assert_uint_eq(n, 2);
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_int_gt(out[i].m.count, 0);
        expect_up(out[i].m.normal);
        NEAR(out[i].m.depth, d, 2e-6);
    }
    /* The same triangles with every edge active: the normal tilts by 45 degrees. */
    for (uint32_t t = 0; t < 2; t++) {
        col_triangle3 tri = col_mesh3_triangle(&m, IDENTITY, t);
        ck_assert_int_eq(__builtin_popcount(tri.active), 2); /* two borders; not the diagonal */
        tri.active = 0x7;
        col_manifold3 raw = col_collide_triangle3(&tri, &box, xb, &how);
        ck_assert_int_gt(raw.count, 0);
        NEAR(raw.normal.y, sqrt(0.5), 1e-4);
        NEAR(raw.depth, d * sqrt(0.5), 1e-5);
    }
    /* Jolt's movement rule: moving along the tilted normal, the edge's normal stays. */
    col_triangle3 tri = col_mesh3_triangle(&m, IDENTITY, 0);
    col_triangle3 all = tri;
    all.active = 0x7;
    how.motion = col_collide_triangle3(&all, &box, xb, &how).normal;
    NEAR(col_collide_triangle3(&tri, &box, xb, &how).normal.y, sqrt(0.5), 1e-4);
    col_mesh3_free(&m);
}
END_TEST

START_TEST(every_shape_rests_over_the_seam)
{
    /* Every convex shape, its lowest point over the shared edge and 5 mm down: each
     * triangle's normal is up and its depth 5 mm. */
    const float d = 0.005f;
    col_mesh3 m = flat_square(0.0f, COL_ACTIVE_EDGE_COS);
    col_level3 l = {&m, NULL};
    mk_vec3 pts[8] = {{-0.3f, -0.2f, -0.25f}, {0.3f, -0.2f, -0.25f}, {0.3f, -0.2f, 0.25f},
                      {-0.3f, -0.2f, 0.25f},  {-0.2f, 0.3f, -0.1f},  {0.25f, 0.2f, 0.0f},
                      {0.0f, 0.25f, 0.2f},    {-0.1f, 0.2f, 0.15f}};
    static col_hull3 hull;
    mk_error err = {0};
    ck_assert_msg(col_hull3_make(pts, 8, &hull, &err) == 0, "%s", err.message);
    col_shape3 shapes[7] = {
        {.type = COL_SHAPE3_SPHERE, .radius = 0.4f},
        {.type = COL_SHAPE3_BOX, .half = {0.4f, 0.3f, 0.2f}},
        {.type = COL_SHAPE3_ELLIPSOID, .half = {0.5f, 0.3f, 0.4f}},
        {.type = COL_SHAPE3_CAPSULE, .radius = 0.2f, .half_height = 0.4f},
        {.type = COL_SHAPE3_CYLINDER, .radius = 0.3f, .half_height = 0.4f},
        {.type = COL_SHAPE3_CONE, .radius = 0.3f, .half_height = 0.4f},
        {.type = COL_SHAPE3_HULL, .hull = &hull},
    };
    col_tri_contact3 how = contact(0.02f);
    for (int s = 0; s < 7; s++) {
        col_xf3 xb = {{0.0f, 0.0f, 0.0f}, {0, 0, 0, 1}};
        float low = col_shape3_bounds(&shapes[s], xb).center.y -
                    col_shape3_bounds(&shapes[s], xb).half.y;
        xb.p = mk_v3(0.3f, -low - d, 0.3f);
        col_child_manifold3 out[4];
        uint32_t n = col_level3_collide(l, IDENTITY, &shapes[s], xb, &how, out, 4);
        EXPECT(n >= 1, "shape %d: no contact", s);
        for (uint32_t i = 0; i < n; i++) {
            EXPECT(out[i].m.count > 0, "shape %d: apart", s);
            NEAR(out[i].m.normal.y, 1.0, 1e-6);
            NEAR(out[i].m.depth, d, 1e-5);
        }
    }
    col_mesh3_free(&m);
}
END_TEST

START_TEST(sphere_on_tilted_plane)
{
    /* A plane through the origin tilted 30 degrees about z: normal (-sin 30, cos 30, 0). */
    double c = cos(PI / 6), s = sin(PI / 6);
    mk_vec3 v[4];
    double st[4][2] = {{-5, -5}, {-5, 5}, {5, 5}, {5, -5}};
    for (int i = 0; i < 4; i++)
        v[i] = mk_v3((float)(st[i][0] * c), (float)(st[i][0] * s), (float)st[i][1]);
    static const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    col_mesh3 m = build_mesh(v, 4, idx, 6, COL_ACTIVE_EDGE_COS);
    col_level3 l = {&m, NULL};
    const double r = 0.5, d = 0.01;
    double n[3] = {-s, c, 0.0};
    double p[3] = {0.7 * c, 0.7 * s, -0.3};
    col_shape3 sphere = {.type = COL_SHAPE3_SPHERE, .radius = (float)r};
    col_xf3 xb = {{(float)(p[0] + n[0] * (r - d)), (float)(p[1] + n[1] * (r - d)),
                   (float)(p[2] + n[2] * (r - d))},
                  {0, 0, 0, 1}};
    col_tri_contact3 how = contact(0.02f);
    col_child_manifold3 out[4];
    ck_assert_uint_eq(col_level3_collide(l, IDENTITY, &sphere, xb, &how, out, 4), 1);
    const col_manifold3 *mm = &out[0].m;
    ck_assert_int_eq(mm->count, 1);
    NEAR(mm->normal.x, n[0], 1e-6);
    NEAR(mm->normal.y, n[1], 1e-6);
    NEAR(mm->normal.z, n[2], 1e-6);
    NEAR(mm->depth, d, 1e-6);
    NEAR(mm->points[0].point.x, p[0] - 0.5 * d * n[0], 2e-6);
    NEAR(mm->points[0].point.y, p[1] - 0.5 * d * n[1], 2e-6);
    NEAR(mm->points[0].point.z, p[2], 2e-6);
    col_mesh3_free(&m);
}
END_TEST

START_TEST(ray_down_hits_plane_height)
{
    const float h = 1.25f;
    col_mesh3 m = flat_square(h, COL_ACTIVE_EDGE_COS);
    col_level3 l = {&m, NULL};
    rng_state = 0x5EEDu;
    for (int i = 0; i < 1000; i++) {
        float x = (float)rnd(-1.99, 1.99), z = (float)rnd(-1.99, 1.99);
        float top = (float)rnd(1.5, 20.0), bottom = (float)rnd(-20.0, 1.0);
        uint32_t tri = UINT32_MAX;
        col_ray_hit3 hit = col_level3_ray(l, IDENTITY, mk_v3(x, top, z), mk_v3(x, bottom, z),
                                          COL_BACK_FACES_IGNORE, &tri);
        EXPECT(hit.hit, "missed at (%g, %g)", (double)x, (double)z);
        EXPECT(hit.point.y == h, "hit at y = %.9g", (double)hit.point.y);
        EXPECT(hit.point.x == x && hit.point.z == z, "hit off the ray");
        expect_up(hit.normal);
        NEAR(hit.fraction, ((double)top - h) / ((double)top - bottom), 1e-7);
        /* From below, the back face: missed, unless back faces collide. */
        EXPECT(!col_level3_ray(l, IDENTITY, mk_v3(x, bottom, z), mk_v3(x, top, z),
                               COL_BACK_FACES_IGNORE, NULL)
                    .hit,
               "hit the back face");
        col_ray_hit3 back = col_level3_ray(l, IDENTITY, mk_v3(x, bottom, z), mk_v3(x, top, z),
                                           COL_BACK_FACES_COLLIDE, NULL);
        EXPECT(back.hit && back.point.y == h && back.normal.y == -1.0f, "back face ray");
    }
    col_mesh3_free(&m);
}
END_TEST

START_TEST(placed_mesh)
{
    /* The flat square turned 90 degrees about x (now a wall facing -z) and moved: a ray
     * toward it and a box against it, in the world. */
    col_mesh3 m = flat_square(0.0f, COL_ACTIVE_EDGE_COS);
    col_level3 l = {&m, NULL};
    col_xf3 xl = {{1.0f, 2.0f, 3.0f}, mk_quat_axis_angle(mk_v3(1, 0, 0), (float)(-PI / 2))};
    col_aabb3 bounds = col_level3_bounds(l, xl);
    NEAR(bounds.center.z, 3.0, 1e-6);
    NEAR(bounds.half.x, 2.0, 1e-6);
    NEAR(bounds.half.y, 2.0, 1e-6);
    NEAR(bounds.half.z, 0.0, 1e-6);
    col_ray_hit3 hit = col_level3_ray(l, xl, mk_v3(1.5f, 2.5f, -5.0f), mk_v3(1.5f, 2.5f, 5.0f),
                                      COL_BACK_FACES_IGNORE, NULL);
    ck_assert(hit.hit);
    NEAR(hit.point.z, 3.0, 1e-6);
    NEAR(hit.normal.z, -1.0, 1e-6);
    col_shape3 box = {.type = COL_SHAPE3_BOX, .half = {0.2f, 0.2f, 0.2f}};
    col_xf3 xb = {{1.5f, 2.5f, 3.0f - 0.19f}, {0, 0, 0, 1}};
    col_tri_contact3 how = contact(0.02f);
    col_child_manifold3 out[4];
    uint32_t n = col_level3_collide(l, xl, &box, xb, &how, out, 4);
    ck_assert_uint_ge(n, 1);
    NEAR(out[0].m.normal.z, -1.0, 1e-6);
    NEAR(out[0].m.depth, 0.01, 1e-5);
    col_mesh3_free(&m);
}
END_TEST

START_TEST(casts_do_not_tunnel)
{
    /* One triangle of floor, and shapes moving 10 m down in one step. */
    mk_vec3 v[3] = {{-50, 0, -50}, {0, 0, 50}, {50, 0, -50}};
    static const uint32_t idx[3] = {0, 1, 2};
    col_mesh3 m = build_mesh(v, 3, idx, 3, COL_ACTIVE_EDGE_COS);
    col_level3 l = {&m, NULL};
    col_shape3 sphere = {.type = COL_SHAPE3_SPHERE, .radius = 0.05f};
    col_shape3 box = {.type = COL_SHAPE3_BOX, .half = {0.1f, 0.05f, 0.1f}};
    const col_shape3 *shapes[2] = {&sphere, &box};
    for (int s = 0; s < 2; s++) {
        col_xf3 xa = {{0.3f, 1.0f, -0.4f}, {0, 0, 0, 1}};
        col_ray_hit3 hit = col_level3_cast(shapes[s], xa, mk_v3(0, -10, 0), l, IDENTITY,
                                           COL_BACK_FACES_IGNORE, NULL);
        ck_assert(hit.hit);
        NEAR(hit.fraction, (1.0 - 0.05) / 10.0, 2e-6);
        NEAR(hit.normal.y, 1.0, 1e-6);
        NEAR(hit.point.y, 0.0, 2e-5);
        /* From below, moving up through the back: passed unless back faces collide. */
        xa.p.y = -1.0f;
        ck_assert(!col_level3_cast(shapes[s], xa, mk_v3(0, 10, 0), l, IDENTITY,
                                   COL_BACK_FACES_IGNORE, NULL)
                       .hit);
        hit = col_level3_cast(shapes[s], xa, mk_v3(0, 10, 0), l, IDENTITY,
                              COL_BACK_FACES_COLLIDE, NULL);
        ck_assert(hit.hit);
        NEAR(hit.fraction, (1.0 - 0.05) / 10.0, 2e-6);
        NEAR(hit.normal.y, -1.0, 1e-6);
        /* Resting on it and sliding along it: not a hit. */
        xa.p.y = 0.05f;
        ck_assert(!col_level3_cast(shapes[s], xa, mk_v3(3, 0, 0), l, IDENTITY,
                                   COL_BACK_FACES_IGNORE, NULL)
                       .hit);
    }
    col_mesh3_free(&m);
}
END_TEST

START_TEST(back_faces)
{
    col_mesh3 m = flat_square(0.0f, COL_ACTIVE_EDGE_COS);
    col_level3 l = {&m, NULL};
    col_shape3 sphere = {.type = COL_SHAPE3_SPHERE, .radius = 0.5f};
    col_xf3 xb = {{0.5f, -0.45f, -0.5f}, {0, 0, 0, 1}};
    col_tri_contact3 how = contact(0.02f);
    col_child_manifold3 out[4];
    ck_assert_uint_eq(col_level3_collide(l, IDENTITY, &sphere, xb, &how, out, 4), 0);
    how.back = COL_BACK_FACES_COLLIDE;
    ck_assert_uint_eq(col_level3_collide(l, IDENTITY, &sphere, xb, &how, out, 4), 1);
    NEAR(out[0].m.normal.y, -1.0, 1e-6);
    NEAR(out[0].m.depth, 0.05, 1e-6);
    col_mesh3_free(&m);
}
END_TEST

/* ---- building ---- */

START_TEST(welds_and_drops)
{
    /* The flat square as an exporter writes it: each triangle its own three vertices, and a
     * degenerate triangle (a repeated vertex) and a sliver (1e-6 m high) among them. */
    mk_vec3 v[12] = {{-2, 0, -2}, {2, 0, 2}, {2, 0, -2}, {-2, 0, -2}, {-2, 0, 2}, {2, 0, 2},
                     {0, 0, 0},   {0, 0, 0}, {1, 0, 1},  {0, 0, 0},   {5, 0, 0}, {10, 1e-6f, 0}};
    /* ... and the first triangle again, turned to start at another vertex. */
    static const uint32_t idx[15] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 2, 0, 1};
    col_mesh3 m = build_mesh(v, 12, idx, 15, COL_ACTIVE_EDGE_COS);
    ck_assert_uint_eq(m.tri_count, 2);
    ck_assert_uint_eq(m.dropped, 3);
    ck_assert_uint_eq(m.vert_count, 4);
    /* Welded, the diagonal is shared and inactive; the borders are active. */
    for (uint32_t t = 0; t < 2; t++) {
        ck_assert_uint_lt(m.source[t], 2);
        ck_assert_int_eq(__builtin_popcount(m.active[t]), 2);
    }
    col_mesh3_free(&m);
    /* Every edge active when asked; a fold of 90 degrees is active, a valley is not. */
    m = flat_square(0.0f, -2.0f);
    ck_assert_int_eq(m.active[0], 0x7);
    ck_assert_int_eq(m.active[1], 0x7);
    col_mesh3_free(&m);
    mk_vec3 ridge[4] = {{0, 1, -1}, {0, 1, 1}, {-1, 0, 0}, {1, 0, 0}};
    static const uint32_t ridge_idx[6] = {0, 2, 1, 0, 1, 3}; /* a roof: the ridge is convex */
    m = build_mesh(ridge, 4, ridge_idx, 6, COL_ACTIVE_EDGE_COS);
    ck_assert_int_eq(m.active[0], 0x7);
    col_mesh3_free(&m);
    mk_vec3 valley[4] = {{0, -1, -1}, {0, -1, 1}, {-1, 0, 0}, {1, 0, 0}};
    m = build_mesh(valley, 4, ridge_idx, 6, COL_ACTIVE_EDGE_COS);
    ck_assert_int_eq(__builtin_popcount(m.active[0]), 2);
    col_mesh3_free(&m);
}
END_TEST

/* A build refused: -1, and the message names the field. */
static void expect_refused_as(int rc, const mk_error *err, const char *field)
{
    ck_assert_int_eq(rc, -1);
    ck_assert_int_eq(err->code, MK_ERR_INVALID);
    ck_assert_msg(strstr(err->message, field) != NULL, "\"%s\" does not name %s", err->message,
                  field);
}

static void expect_refused(const col_mesh3_desc *d, const char *field)
{
    col_mesh3 m;
    mk_error err = {0};
    expect_refused_as(col_mesh3_build(d, &m, &err), &err, field);
}

START_TEST(bad_meshes_refused)
{
    mk_vec3 v[4] = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0, 1}};
    uint32_t idx[6] = {0, 2, 1, 1, 2, 3};
    col_mesh3_desc d = {v, 4, idx, 6, 100, COL_ACTIVE_EDGE_COS};
    idx[4] = 4;
    expect_refused(&d, "indices[4] = 4 is out of range (4 vertices)");
    idx[4] = 2;
    v[2].y = NAN;
    expect_refused(&d, "vertices[2].y is not finite");
    v[2].y = INFINITY;
    expect_refused(&d, "vertices[2].y is not finite");
    v[2].y = 0.0f;
    v[1].x = 3e7f;
    expect_refused(&d, "vertices[1].x = 3e+07 m");
    v[1].x = 1.0f;
    mk_vec3 line[4] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}};
    col_mesh3_desc flat = {line, 4, idx, 6, 100, COL_ACTIVE_EDGE_COS};
    expect_refused(&flat, "indices: every one of the 2 triangles is degenerate");
    d.max_triangles = 1;
    expect_refused(&d, "indices: 2 triangles, more than the limit of 1");
    d.max_triangles = 100;
    d.index_count = 5;
    expect_refused(&d, "indices: 5 indices");
    d.index_count = 0;
    expect_refused(&d, "indices");
    d.index_count = 6;
    d.vertex_count = 0;
    expect_refused(&d, "vertices");
    /* And the good one builds. */
    d.vertex_count = 4;
    col_mesh3 m;
    mk_error err = {0};
    ck_assert_int_eq(col_mesh3_build(&d, &m, &err), 0);
    col_mesh3_free(&m);
}
END_TEST

static void expect_hf_refused(const col_heightfield3_desc *d, const char *field)
{
    col_heightfield3 h;
    mk_error err = {0};
    expect_refused_as(col_heightfield3_build(d, &h, &err), &err, field);
}

START_TEST(bad_heightfields_refused)
{
    float y[6] = {0, 1, 2, 3, 4, 5};
    uint8_t holes[2] = {1, 1};
    col_heightfield3_desc d = {3, 2, {1, 1, 1}, y, NULL, 100, COL_ACTIVE_EDGE_COS};
    y[4] = NAN;
    expect_hf_refused(&d, "heights[4] is not finite");
    y[4] = 2e6f;
    expect_hf_refused(&d, "heights[4] = 2e+06 m");
    y[4] = 4.0f;
    d.scale.z = 0.0f;
    expect_hf_refused(&d, "scale.z");
    d.scale.z = 1.0f;
    d.cols = 1;
    expect_hf_refused(&d, "size: a heightfield needs at least 2 x 2 samples");
    d.cols = 3;
    d.holes = holes;
    expect_hf_refused(&d, "holes: every one of the 2 cells is a hole");
    d.holes = NULL;
    d.max_triangles = 3;
    expect_hf_refused(&d, "more than the limit of 3");
}
END_TEST

START_TEST(grid_memory)
{
    /* A terrain of 200 x 200 cells as a mesh: what it costs a triangle, and that the tree
     * stays shallow. */
    const uint32_t g = 200;
    uint32_t nv = (g + 1) * (g + 1);
    mk_vec3 *v = malloc(nv * sizeof *v);
    uint32_t *idx = malloc(6 * g * g * sizeof *idx), *p = idx;
    rng_state = 7;
    for (uint32_t j = 0; j <= g; j++)
        for (uint32_t i = 0; i <= g; i++)
            v[j * (g + 1) + i] = mk_v3((float)i, (float)rnd(0, 2), (float)j);
    for (uint32_t j = 0; j < g; j++)
        for (uint32_t i = 0; i < g; i++) {
            uint32_t a = j * (g + 1) + i, b = a + g + 1;
            uint32_t t[6] = {a, b, b + 1, a, b + 1, a + 1};
            memcpy(p, t, sizeof t);
            p += 6;
        }
    col_mesh3 m = build_mesh(v, nv, idx, 6 * g * g, COL_ACTIVE_EDGE_COS);
    double per = (double)col_mesh3_bytes(&m) / m.tri_count;
    printf("mesh of %u triangles: %.1f bytes a triangle (%u nodes, depth %u)\n", m.tri_count, per,
           m.bvh.node_count, m.bvh.depth);
    /* 12 (indices) + 6 (vertices, each shared by six triangles) + 1 (edges) + 4 (source)
     * + 16 for each node (a node for every two triangles or so, leaves of up to four). */
    ck_assert(per < 36.0);
    ck_assert_uint_le(m.bvh.depth, 24);
    col_mesh3_free(&m);
    free(v);
    free(idx);
}
END_TEST

/* The overlap of the projections of the box's corners c and the triangle's corners t on
 * axis d (not unit), per unit of its length; DBL_MAX for an axis of no length. */
static double sat_overlap(double c[8][3], double t[3][3], const double d[3])
{
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (len < 1e-9)
        return DBL_MAX;
    double lo[2] = {DBL_MAX, DBL_MAX}, hi[2] = {-DBL_MAX, -DBL_MAX};
    for (int k = 0; k < 11; k++) {
        const double *p = k < 8 ? c[k] : t[k - 8];
        double x = (p[0] * d[0] + p[1] * d[1] + p[2] * d[2]) / len;
        int s = k < 8 ? 0 : 1;
        lo[s] = fmin(lo[s], x);
        hi[s] = fmax(hi[s], x);
    }
    return fmin(hi[0] - lo[1], hi[1] - lo[0]);
}

/* A box whose side lies in the plane of a triangle's edge, overlapping it in height: GJK's
 * simplex of the two was four points in one plane (mink-bench's terrain met it, a falling box
 * at a cell's edge), which EPA cannot make a tetrahedron of; it read a face before the first.
 * Moving down, the contact keeps its own normal (the active-edge rule's motion test), so the
 * answer is the pair's least translation: the separating-axis theorem's, over the box's three
 * face normals, the triangle's normal and the nine cross products of their edges (here 0,
 * along z: the box's side is flush with the edge). */
START_TEST(box_flush_with_triangle_edge)
{
    mk_vec3 v[3] = {{223, 0x1.312502p-1f, 227}, {224, 0x1.e1a61cp-2f, 228},
                    {224, 0x1.fd021cp-2f, 227}};
    static const uint32_t idx[3] = {0, 1, 2};
    col_mesh3 m = build_mesh(v, 3, idx, 3, COL_ACTIVE_EDGE_COS);
    col_triangle3 tri = col_mesh3_triangle(&m, IDENTITY, 0);
    tri.active = 0;
    col_shape3 box = {.type = COL_SHAPE3_BOX, .half = {0.5f, 0.5f, 0.5f}};
    col_xf3 xb = {{0x1.bffefep+7f, 0x1.07033p+0f, 226.5f}, mk_quat_identity()};
    col_tri_contact3 how = contact(0.02f);
    how.motion = mk_v3(0.0f, -1.0f / 6.0f, 0.0f);
    col_manifold3 got = col_collide_triangle3(&tri, &box, xb, &how);
    double c[8][3], t[3][3], te[3][3];
    for (int k = 0; k < 8; k++) {
        c[k][0] = xb.p.x + (k & 1 ? 0.5 : -0.5);
        c[k][1] = xb.p.y + (k & 2 ? 0.5 : -0.5);
        c[k][2] = xb.p.z + (k & 4 ? 0.5 : -0.5);
    }
    for (int k = 0; k < 3; k++) {
        t[k][0] = v[k].x, t[k][1] = v[k].y, t[k][2] = v[k].z;
    }
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++)
            te[k][i] = t[(k + 1) % 3][i] - t[k][i];
    double axes[13][3], least = DBL_MAX;
    int best = 0, n = 0;
    for (int i = 0; i < 3; i++) { /* the box's face normals */
        axes[n][0] = i == 0, axes[n][1] = i == 1, axes[n][2] = i == 2;
        n++;
    }
    axes[n][0] = te[0][1] * te[1][2] - te[0][2] * te[1][1]; /* the triangle's normal */
    axes[n][1] = te[0][2] * te[1][0] - te[0][0] * te[1][2];
    axes[n][2] = te[0][0] * te[1][1] - te[0][1] * te[1][0];
    n++;
    for (int i = 0; i < 3; i++) /* box edge i x triangle edge k */
        for (int k = 0; k < 3; k++) {
            double e[3] = {i == 0, i == 1, i == 2};
            axes[n][0] = e[1] * te[k][2] - e[2] * te[k][1];
            axes[n][1] = e[2] * te[k][0] - e[0] * te[k][2];
            axes[n][2] = e[0] * te[k][1] - e[1] * te[k][0];
            n++;
        }
    for (int k = 0; k < n; k++) {
        double o = sat_overlap(c, t, axes[k]);
        if (o < least) {
            least = o;
            best = k;
        }
    }
    double len = sqrt(axes[best][0] * axes[best][0] + axes[best][1] * axes[best][1] +
                      axes[best][2] * axes[best][2]);
    double along = fabs(got.normal.x * axes[best][0] + got.normal.y * axes[best][1] +
                        got.normal.z * axes[best][2]) / len;
    ck_assert_int_gt(got.count, 0);
    ck_assert_double_eq(least, 0.0); /* flush: they touch along the edge and no deeper */
    NEAR(got.depth, least, 1e-5);
    NEAR(along, 1.0, 1e-5);
    col_mesh3_free(&m);
}
END_TEST

/* A unit box standing on the plane of a triangle whose corner is at its centre: the manifold
 * is the part of the box's bottom face over the triangle, the triangle (-1, 0, -1), (0, 0, 0),
 * (0, 0, -1) cut to the square, whose corners are (-0.5, 0, -0.5), (0, 0, -0.5) and the
 * origin, each once, at depth 0. GCC 12.2's SLP vectorizer at -O2 once dropped the rounding
 * of the triangle's centre to float here (the debug build's 3D files), moving a corner of the
 * triangle's hull by one ulp and the clip's answer to four points, one of them twice: the
 * project builds with -fno-tree-slp-vectorize (CMakeLists.txt). */
START_TEST(box_on_a_triangle_corner_clips_to_its_corners)
{
    col_triangle3 tri = {{{-1, 0, -1}, {0, 0, 0}, {0, 0, -1}}, 0x4};
    col_shape3 box = {.type = COL_SHAPE3_BOX, .half = {0.5f, 0.5f, 0.5f}};
    col_xf3 xb = {{0, 0.5f, 0}, mk_quat_identity()};
    col_tri_contact3 how = contact(0.02f);
    how.motion = mk_v3(6.0f, 0.0f, 0.0f);
    col_manifold3 m = col_collide_triangle3(&tri, &box, xb, &how);
    static const double want[3][3] = {{-0.5, 0, -0.5}, {0, 0, -0.5}, {0, 0, 0}};
    ck_assert_int_eq(m.count, 3);
    NEAR(m.normal.y, 1.0, 1e-7);
    for (int k = 0; k < 3; k++) {
        int found = 0;
        for (int i = 0; i < m.count; i++)
            found += fabs(m.points[i].point.x - want[k][0]) < 1e-6 &&
                     fabs(m.points[i].point.y - want[k][1]) < 1e-6 &&
                     fabs(m.points[i].point.z - want[k][2]) < 1e-6;
        EXPECT(found == 1, "corner %d found %d times", k, found);
        NEAR(m.points[k].depth, 0.0, 1e-7);
    }
}
END_TEST

/* A sphere (radius 0.5 m) 1 cm from a triangle, within a 2 cm margin: asked for speculative
 * contacts, its one point midway between the triangle's nearest point and its surface, at
 * depth -1 cm, along the line of the two (over the face, and beyond an active edge); without,
 * no point and the gap. Beyond an inactive edge the rule's face normal is not that line: no
 * point (the caller makes those). */
START_TEST(sphere_speculative_point)
{
    col_triangle3 t = {{{0, 0, 0}, {0, 0, 2}, {2, 0, 0}}, 0x7};
    col_shape3 ball = {.type = COL_SHAPE3_SPHERE, .radius = 0.5f};
    col_tri_contact3 how = contact(0.02f);
    double zc = -sqrt(0.51 * 0.51 - 0.3 * 0.3); /* beyond edge v2-v0 (z = 0), 0.51 m from it */
    const mk_vec3 centres[2] = {{0.5f, 0.51f, 0.5f}, {1.0f, 0.3f, (float)zc}};
    const mk_vec3 nearest[2] = {{0.5f, 0.0f, 0.5f}, {1.0f, 0.0f, 0.0f}};
    for (int k = 0; k < 2; k++) {
        col_xf3 xb = {centres[k], {0, 0, 0, 1}};
        mk_vec3 line = mk_v3_scale(mk_v3_sub(centres[k], nearest[k]), 1.0f / 0.51f);
        how.speculative = false;
        col_manifold3 m = col_collide_triangle3(&t, &ball, xb, &how);
        ck_assert_int_eq(m.count, 0);
        NEAR(m.distance, 0.01, 1e-6);
        how.speculative = true;
        m = col_collide_triangle3(&t, &ball, xb, &how);
        ck_assert_int_eq(m.count, 1);
        NEAR(m.distance, 0.01, 1e-6);
        NEAR(m.depth, -0.01, 1e-6);
        NEAR(m.points[0].depth, -0.01, 1e-6);
        mk_vec3 want = mk_v3_mad(nearest[k], 0.005f, line);
        ck_assert_float_le(mk_v3_len(mk_v3_sub(m.points[0].point, want)), 1e-6f);
        ck_assert_float_le(mk_v3_len(mk_v3_sub(m.normal, line)), 1e-6f);
    }
    /* Farther than the margin: nothing either way. */
    col_xf3 far = {{0.5f, 0.53f, 0.5f}, {0, 0, 0, 1}};
    ck_assert_int_eq(col_collide_triangle3(&t, &ball, far, &how).count, 0);
    /* Edge v2-v0 inactive: the face's normal, no point. */
    t.active = 0x3;
    col_xf3 beyond = {centres[1], {0, 0, 0, 1}};
    ck_assert_int_eq(col_collide_triangle3(&t, &ball, beyond, &how).count, 0);
}
END_TEST

MINK_CHECK_SUITE("mesh3", s)
{
    MINK_TCASE(s, "known", 60, box_rests_on_flat_mesh, feature_ids_persist,
               active_edge_keeps_normal_up, every_shape_rests_over_the_seam,
               sphere_on_tilted_plane, ray_down_hits_plane_height, placed_mesh,
               casts_do_not_tunnel, back_faces, box_flush_with_triangle_edge,
               box_on_a_triangle_corner_clips_to_its_corners, sphere_speculative_point);
    MINK_TCASE(s, "build", 60, welds_and_drops, bad_meshes_refused, bad_heightfields_refused,
               grid_memory);
}
