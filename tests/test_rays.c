/* mink_collision: rays and shape casts against every shape of both dimensions. Exact cases by
 * hand, then random rays and casts (fixed seed) against a brute force: the segment marched in
 * 4,000 steps with an inside test (2D: the narrowphase's, a point being a circle of radius 0;
 * 3D: the shape's definition, in double; a cast: the narrowphase's), the first inside step
 * bisected to 1e-9. Prints the largest error per shape (the table in docs/PHYSICS.md,
 * "Accuracy of world queries"). tests/test_rays_exact.c holds the rays to a long double
 * reference at grazing, rims and apexes, and far from the origin. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "mink_collision.h"
#include "shapes_check.h"

#define PI 3.14159265358979323846

/* ---- exact cases ---- */

START_TEST(ray2_exact)
{
    col_shape2 circle = {.type = COL_SHAPE_CIRCLE, .radius = 1.0f};
    col_ray_hit2 h = col_ray2(&circle, (col_xf2){mk_v2(2, 0), 0}, mk_v2(-8, 0), mk_v2(12, 0));
    ck_assert(h.hit);
    NEAR(h.fraction, 0.45, 1e-7); /* enters at x = 1: 9 of 20 m */
    NEAR(h.point.x, 1.0, 1e-6);
    NEAR(h.normal.x, -1.0, 1e-7);
    /* A box turned by 45 degrees: its corner at x = -sqrt(2) on the axis. */
    col_shape2 box = {.type = COL_SHAPE_BOX, .half = {1, 1}};
    h = col_ray2(&box, (col_xf2){mk_v2(0, 0), (float)(PI / 4)}, mk_v2(-10, 0.5f), mk_v2(10, 0.5f));
    ck_assert(h.hit);
    /* The lower left edge x - y = -sqrt 2 ... at y = 0.5: x = 0.5 - sqrt 2. */
    NEAR(h.point.x, 0.5 - sqrt(2.0), 1e-6);
    NEAR(h.normal.x, -sqrt(0.5), 1e-6);
    NEAR(h.normal.y, sqrt(0.5), 1e-6);
    /* An aabb never turns; a ray that misses; a ray that stops short; one that starts inside. */
    col_shape2 aabb = {.type = COL_SHAPE_AABB, .half = {1, 2}};
    h = col_ray2(&aabb, (col_xf2){mk_v2(0, 0), 1.0f}, mk_v2(0, 10), mk_v2(0, -10));
    ck_assert(h.hit);
    NEAR(h.point.y, 2.0, 1e-6);
    NEAR(h.normal.y, 1.0, 1e-7);
    ck_assert(!col_ray2(&aabb, (col_xf2){mk_v2(0, 0), 0}, mk_v2(1.01f, 10), mk_v2(1.01f, -10)).hit);
    ck_assert(!col_ray2(&aabb, (col_xf2){mk_v2(0, 0), 0}, mk_v2(0, 10), mk_v2(0, 2.01f)).hit);
    h = col_ray2(&aabb, (col_xf2){mk_v2(0, 0), 0}, mk_v2(0, 0), mk_v2(3, 0));
    ck_assert(h.hit);
    NEAR(h.fraction, 0.0, 0.0);
    NEAR(h.normal.x, -1.0, 1e-7);
}
END_TEST

START_TEST(ray3_exact)
{
    col_xf3 at0 = {mk_v3(0, 0, 0), mk_quat_identity()};
    /* The cone of radius 1 and half height 1 across at y = -0.5: its radius there is 0.75, its
     * side's normal (2, 1) / sqrt 5 in the x-y plane. */
    col_shape3 cone = {.type = COL_SHAPE3_CONE, .radius = 1, .half_height = 1};
    col_ray_hit3 h = col_ray3(&cone, at0, mk_v3(-5, -0.5f, 0), mk_v3(5, -0.5f, 0));
    ck_assert(h.hit);
    NEAR(h.fraction, 4.25 / 10, 1e-7);
    NEAR(h.point.x, -0.75, 1e-6);
    NEAR(h.normal.x, -2 / sqrt(5.0), 1e-6);
    NEAR(h.normal.y, 1 / sqrt(5.0), 1e-6);
    /* From below it meets the base; at y = -1 + 1e-7 beside it, 1e-7 m inside the base's
     * slab, the side at x = -(1 - 0.5e-7); 1e-7 m below the base it misses. */
    h = col_ray3(&cone, at0, mk_v3(0.3f, -5, 0.2f), mk_v3(0.3f, 5, 0.2f));
    NEAR(h.fraction, 0.4, 1e-7);
    NEAR(h.normal.y, -1.0, 1e-7);
    h = col_ray3(&cone, at0, mk_v3(-5, -1 + 1e-7f, 0), mk_v3(5, -1 + 1e-7f, 0));
    ck_assert(h.hit);
    NEAR(h.point.x, -(1 - 0.5e-7), 1e-7);
    ck_assert(!col_ray3(&cone, at0, mk_v3(-5, -1 - 1e-7f, 0), mk_v3(5, -1 - 1e-7f, 0)).hit);
    /* Down the axis onto the apex: the axis is its normal; slanting into the apex, the side's
     * normal in the plane of the ray and the axis, (-2, 1) / sqrt 5 facing it. */
    h = col_ray3(&cone, at0, mk_v3(0, 5, 0), mk_v3(0, -5, 0));
    NEAR(h.fraction, 0.4, 1e-7);
    NEAR(h.normal.y, 1.0, 1e-7);
    h = col_ray3(&cone, at0, mk_v3(-0.2f, 2, 0), mk_v3(0.2f, 0, 0));
    NEAR(h.fraction, 0.5, 1e-7);
    NEAR(h.normal.x, -2 / sqrt(5.0), 1e-6);
    NEAR(h.normal.y, 1 / sqrt(5.0), 1e-6);
    /* Parallel to the side line from the apex (0, 1, 0) to the rim (1, -1, 0), 1e-6 m out
     * along its normal (2, 1) / sqrt 5: no hit; 1e-6 m in: it enters the other side 1e-6 m
     * below the apex, a quarter of the way along, with that side's normal (-2, 1) / sqrt 5. */
    for (int side = -1; side <= 1; side += 2) {
        double off = side * 1e-6, nx = 2 / sqrt(5.0), ny = 1 / sqrt(5.0);
        mk_vec3 a = mk_v3((float)(-0.5 + off * nx), (float)(2 + off * ny), 0);
        mk_vec3 b = mk_v3((float)(1.5 + off * nx), (float)(-2 + off * ny), 0);
        h = col_ray3(&cone, at0, a, b);
        ck_assert(h.hit == (side < 0));
        if (h.hit) {
            NEAR(h.fraction, 0.25, 1e-6);
            NEAR(h.normal.x, -nx, 1e-5);
            NEAR(h.normal.y, ny, 1e-5);
        }
    }
    /* A capsule from above meets its top sphere; a cylinder its cap; from the side its tube. */
    col_shape3 cap = {.type = COL_SHAPE3_CAPSULE, .radius = 0.5f, .half_height = 1};
    h = col_ray3(&cap, at0, mk_v3(0.3f, 5, 0), mk_v3(0.3f, -5, 0));
    ck_assert(h.hit);
    NEAR(h.point.y, 1 + 0.4, 1e-6); /* sqrt(0.25 - 0.09) = 0.4 */
    /* Rays that end on the seam of the tube and the top cap, from above and aslant, and
     * along its circle's tangent: the normal there is the radial one both faces share. */
    const mk_vec3 starts[] = {{1.5f, 2, 0}, {0.5f, 3, 0}, {3, 1, 0}, {0.5f, 1, -2}};
    for (int i = 0; i < 4; i++) {
        h = col_ray3(&cap, at0, starts[i], mk_v3(0.5f, 1, 0));
        ck_assert(h.hit);
        NEAR(h.fraction, 1.0, 1e-6);
        NEAR(h.normal.x, 1.0, 1e-6);
    }
    col_shape3 cyl = {.type = COL_SHAPE3_CYLINDER, .radius = 0.5f, .half_height = 1};
    h = col_ray3(&cyl, at0, mk_v3(0.3f, 5, 0), mk_v3(0.3f, -5, 0));
    NEAR(h.point.y, 1.0, 1e-6);
    NEAR(h.normal.y, 1.0, 1e-7);
    h = col_ray3(&cyl, at0, mk_v3(-5, 0.9f, 0), mk_v3(5, 0.9f, 0));
    NEAR(h.point.x, -0.5, 1e-6);
    NEAR(h.normal.x, -1.0, 1e-6);
    ck_assert(!col_ray3(&cyl, at0, mk_v3(-5, 1.01f, 0), mk_v3(5, 1.01f, 0)).hit);
    /* An ellipsoid of radii (2, 1, 1) along x; a box turned 90 degrees about z. */
    col_shape3 ell = {.type = COL_SHAPE3_ELLIPSOID, .half = {2, 1, 1}};
    h = col_ray3(&ell, at0, mk_v3(-5, 0, 0), mk_v3(5, 0, 0));
    NEAR(h.point.x, -2.0, 1e-6);
    col_shape3 box = {.type = COL_SHAPE3_BOX, .half = {2, 1, 1}};
    col_xf3 turned = {mk_v3(0, 0, 0), mk_quat_axis_angle(mk_v3(0, 0, 1), (float)(PI / 2))};
    h = col_ray3(&box, turned, mk_v3(0, 5, 0), mk_v3(0, -5, 0));
    NEAR(h.point.y, 2.0, 1e-6);
    NEAR(h.normal.y, 1.0, 1e-6);
    /* A sphere cast down onto the cone's apex: its centre stops 1 m above it. */
    col_shape3 ball = {.type = COL_SHAPE3_SPHERE, .radius = 1};
    h = col_cast3(&ball, (col_xf3){mk_v3(0, 5, 0), mk_quat_identity()}, mk_v3(0, -10, 0), &cone,
                  at0);
    ck_assert(h.hit);
    NEAR(h.fraction, 0.3, 2e-6);
    NEAR(h.point.y, 1.0, 2e-5);
    NEAR(h.normal.y, 1.0, 1e-4);
}
END_TEST

START_TEST(cast2_exact)
{
    col_shape2 circle = {.type = COL_SHAPE_CIRCLE, .radius = 1};
    col_shape2 box = {.type = COL_SHAPE_BOX, .half = {1, 1}};
    col_ray_hit2 h = col_cast2(&circle, (col_xf2){mk_v2(-5, 0), 0}, mk_v2(10, 0), &box,
                               (col_xf2){mk_v2(0, 0), 0});
    ck_assert(h.hit);
    NEAR(h.fraction, 0.3, 2e-6);
    NEAR(h.point.x, -1.0, 2e-5);
    NEAR(h.normal.x, -1.0, 1e-6);
    /* Passing 0.1 m above the box's top: no hit; overlapping at the start: fraction 0. */
    ck_assert(!col_cast2(&circle, (col_xf2){mk_v2(-5, 2.1f), 0}, mk_v2(10, 0), &box,
                         (col_xf2){mk_v2(0, 0), 0})
                   .hit);
    h = col_cast2(&circle, (col_xf2){mk_v2(0.5f, 0), 0}, mk_v2(10, 0), &box,
                  (col_xf2){mk_v2(0, 0), 0});
    ck_assert(h.hit);
    NEAR(h.fraction, 0.0, 0.0);
}
END_TEST

/* ---- random shapes against a brute force ---- */

static col_polygon poly_store;
static col_hull3 hull_store;

static col_shape2 random_shape2(int type)
{
    col_shape2 s = {.type = (col_shape_type)type};
    s.half = mk_v2((float)rnd(0.1, 2), (float)rnd(0.1, 2));
    s.radius = (float)rnd(0.1, 2);
    if (type == COL_SHAPE_POLYGON) {
        mk_vec2 pts[10];
        for (int i = 0; i < 10; i++)
            pts[i] = mk_v2((float)rnd(-1.5, 1.5), (float)rnd(-1.5, 1.5));
        mk_error e;
        ck_assert_int_eq(col_polygon_make(pts, 10, &poly_store, &e), 0);
        s.polygon = &poly_store;
    }
    return s;
}

static col_shape3 random_shape3(int type)
{
    col_shape3 s = {.type = (col_shape3_type)type};
    s.half = mk_v3((float)rnd(0.1, 2), (float)rnd(0.1, 2), (float)rnd(0.1, 2));
    s.radius = (float)rnd(0.1, 1.5);
    s.half_height = (float)rnd(0.1, 1.5);
    if (type == COL_SHAPE3_HULL) {
        mk_vec3 pts[14];
        for (int i = 0; i < 14; i++)
            pts[i] = mk_v3((float)rnd(-1.5, 1.5), (float)rnd(-1.5, 1.5), (float)rnd(-1.5, 1.5));
        mk_error e;
        ck_assert_int_eq(col_hull3_make(pts, 14, &hull_store, &e), 0);
        s.hull = &hull_store;
    }
    return s;
}

static mk_quat random_quat(void)
{
    mk_quat q;
    ck_assert(mk_quat_normalize_checked(
        (mk_quat){(float)rnd(-1, 1), (float)rnd(-1, 1), (float)rnd(-1, 1), (float)rnd(-1, 1)}, &q));
    return q;
}

/* A point (world, in double) inside a 3D shape, by the shape's definition in its frame, turned
 * by the unit quaternion (an independent reference: GJK with a point of radius 0 is not one). */
static bool point_in3(const col_shape3 *s, col_xf3 xf, const double w[3])
{
    mk_quat q = xf.q;
    double n = sqrt((double)q.w * q.w + (double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z);
    double qw = q.w / n, u[3] = {-q.x / n, -q.y / n, -q.z / n};
    double v[3] = {w[0] - xf.p.x, w[1] - xf.p.y, w[2] - xf.p.z};
    /* v turned by the inverse: v + 2 qw (u x v) + 2 u x (u x v), u = -q.xyz */
    double t[3] = {2 * (u[1] * v[2] - u[2] * v[1]), 2 * (u[2] * v[0] - u[0] * v[2]),
                   2 * (u[0] * v[1] - u[1] * v[0])};
    double x = v[0] + qw * t[0] + (u[1] * t[2] - u[2] * t[1]);
    double y = v[1] + qw * t[1] + (u[2] * t[0] - u[0] * t[2]);
    double z = v[2] + qw * t[2] + (u[0] * t[1] - u[1] * t[0]);
    double r = s->radius, h = s->half_height;
    switch (s->type) {
    case COL_SHAPE3_SPHERE:
        return x * x + y * y + z * z <= r * r;
    case COL_SHAPE3_BOX:
        return fabs(x) <= s->half.x && fabs(y) <= s->half.y && fabs(z) <= s->half.z;
    case COL_SHAPE3_ELLIPSOID:
        return x * x / ((double)s->half.x * s->half.x) + y * y / ((double)s->half.y * s->half.y) +
                   z * z / ((double)s->half.z * s->half.z) <=
               1.0;
    case COL_SHAPE3_CAPSULE: {
        double yy = fmax(fabs(y) - h, 0.0);
        return x * x + yy * yy + z * z <= r * r;
    }
    case COL_SHAPE3_CYLINDER:
        return fabs(y) <= h && x * x + z * z <= r * r;
    case COL_SHAPE3_CONE: {
        double rr = r * (h - y) / (2.0 * h);
        return y >= -h && y <= h && x * x + z * z <= rr * rr;
    }
    case COL_SHAPE3_HULL:
        for (int i = 0; i < s->hull->face_count; i++) {
            const col_hull3_face *f = &s->hull->faces[i];
            if (f->normal.x * x + f->normal.y * y + f->normal.z * z > f->offset)
                return false;
        }
        return true;
    case COL_SHAPE3_COUNT:
        break;
    }
    return false;
}

/* Inside tests: a 2D point is a circle of radius 0 to the narrowphase; a 3D point is tested
 * in double against the shape's definition; a cast's shape A, placed at fraction t along its
 * translation, by the narrowphase. */
typedef struct probe {
    int dim;
    const col_shape2 *a2, *b2;
    col_xf2 xa2, xb2;
    mk_vec2 d2;
    const col_shape3 *a3, *b3;
    col_xf3 xa3, xb3;
    mk_vec3 d3;
    double ray3[3]; /* a 3D ray's to - from, in double (col_ray3's segment) */
} probe;

static bool inside_at(const probe *p, double t)
{
    if (p->dim == 2) {
        col_xf2 x = p->xa2;
        x.p = mk_v2((float)(x.p.x + t * p->d2.x), (float)(x.p.y + t * p->d2.y));
        col_manifold2 m = col_collide2(p->a2, x, p->b2, p->xb2);
        return m.count > 0;
    }
    if (!p->a3) {
        const double w[3] = {p->xa3.p.x + t * p->ray3[0], p->xa3.p.y + t * p->ray3[1],
                             p->xa3.p.z + t * p->ray3[2]};
        return point_in3(p->b3, p->xb3, w);
    }
    col_xf3 x = p->xa3;
    x.p = mk_v3((float)(x.p.x + t * p->d3.x), (float)(x.p.y + t * p->d3.y),
                (float)(x.p.z + t * p->d3.z));
    return col_collide3(p->a3, x, p->b3, p->xb3).count > 0;
}

/* The brute force: the first of 4,000 steps inside, bisected; -1 when none is. */
static double brute_fraction(const probe *p)
{
    const int steps = 4000;
    if (inside_at(p, 0.0))
        return 0.0;
    for (int i = 1; i <= steps; i++) {
        double t = (double)i / steps;
        if (!inside_at(p, t))
            continue;
        double lo = (double)(i - 1) / steps, hi = t;
        while (hi - lo > 1e-9) {
            double mid = 0.5 * (lo + hi);
            if (inside_at(p, mid))
                hi = mid;
            else
                lo = mid;
        }
        return hi;
    }
    return -1.0;
}

/* Compares one answer with the brute force; returns the error in m (0 when both miss). A hit
 * the march did not see (a chord shorter than a step) must lie on the shape. */
static double compare(const probe *p, bool hit, double fraction, double length, const char *what,
                      int i)
{
    double want = brute_fraction(p);
    if (want < 0.0) {
        if (!hit)
            return 0.0;
        EXPECT(!inside_at(p, fraction - 1e-4 / length) || fraction == 0.0,
               "%s %d: hit at %g but the march found none", what, i, fraction);
        return 0.0;
    }
    EXPECT(hit, "%s %d: missed; the brute force enters at %.9g", what, i, want);
    return fabs(fraction - want) * length;
}

/* A sweep of rays at one shape type: the largest error against the brute force and the hits. */
typedef struct sweep {
    const char *kind, *name;
    double worst;
    int hits;
} sweep;

/* One ray of the sweep: its error; a hit past the start has a unit normal (`normal_len` within
 * `tol` of 1) facing against the ray (`normal_dot`, its dot with the ray, below 0). */
static void sweep_ray(sweep *s, const probe *p, bool hit, float fraction, double length,
                      double normal_len, double normal_dot, double tol, int i)
{
    s->worst = fmax(s->worst, compare(p, hit, fraction, length, s->name, i));
    s->hits += hit;
    if (hit && fraction > 0.0f) {
        NEAR(normal_len, 1.0, tol);
        EXPECT(normal_dot < 0.0, "%s %d: the normal faces away", s->name, i);
    }
}

/* The sweep's line, and its bounds: between lo and hi of n rays hit, the error within `limit`. */
static void sweep_end(const sweep *s, int n, int lo, int hi, double limit)
{
    printf("%s %-9s hits %3d/%d, largest error %.2e m\n", s->kind, s->name, s->hits, n, s->worst);
    EXPECT(s->hits > lo && s->hits < hi, "%d hits: the rays test too little", s->hits);
    EXPECT(s->worst <= limit, "%s: error %g m", s->name, s->worst);
}

static const char *names2[] = {"aabb", "box", "circle", "polygon"};
static const char *names3[] = {"sphere", "box", "ellipsoid", "capsule", "cylinder", "cone", "hull"};

START_TEST(ray2_against_brute_force)
{
    rng_state = 0x7a12ull + (uint64_t)_i;
    int type = _i;
    sweep sw = {"ray2", names2[type], 0.0, 0};
    col_shape2 point = {.type = COL_SHAPE_CIRCLE, .radius = 0.0f};
    for (int i = 0; i < 400; i++) {
        col_shape2 s = random_shape2(type);
        col_xf2 xf = {mk_v2((float)rnd(-2, 2), (float)rnd(-2, 2)), (float)rnd(-PI, PI)};
        double a = rnd(0, 2 * PI);
        mk_vec2 from = mk_v2((float)(6 * cos(a)), (float)(6 * sin(a)));
        mk_vec2 to = mk_v2((float)rnd(-3, 3), (float)rnd(-3, 3));
        mk_vec2 d = mk_v2_sub(to, from);
        to = mk_v2_mad(from, 1.5f, d);
        d = mk_v2_sub(to, from);
        col_ray_hit2 h = col_ray2(&s, xf, from, to);
        probe p = {.dim = 2, .a2 = &point, .b2 = &s, .xa2 = {from, 0}, .xb2 = xf, .d2 = d};
        sweep_ray(&sw, &p, h.hit, h.fraction, mk_v2_len(d), mk_v2_len(h.normal),
                  mk_v2_dot(h.normal, d), 1e-5, i);
    }
    sweep_end(&sw, 400, 100, 380, 2e-6);
}
END_TEST

START_TEST(ray3_against_brute_force)
{
    rng_state = 0x3a13ull + (uint64_t)_i;
    int type = _i;
    sweep sw = {"ray3", names3[type], 0.0, 0};
    for (int i = 0; i < 200; i++) {
        col_shape3 s = random_shape3(type);
        col_xf3 xf = {mk_v3((float)rnd(-2, 2), (float)rnd(-2, 2), (float)rnd(-2, 2)),
                      random_quat()};
        mk_vec3 dir = mk_v3_norm(mk_v3((float)rnd(-1, 1), (float)rnd(-1, 1), (float)rnd(-1, 1)));
        mk_vec3 from = mk_v3_scale(dir, 7.0f);
        mk_vec3 target = mk_v3_add(xf.p, mk_v3((float)rnd(-1.5, 1.5), (float)rnd(-1.5, 1.5),
                                                (float)rnd(-1.5, 1.5)));
        mk_vec3 d = mk_v3_scale(mk_v3_sub(target, from), 1.5f);
        mk_vec3 to = mk_v3_add(from, d);
        col_ray_hit3 h = col_ray3(&s, xf, from, to);
        probe p = {.dim = 3, .a3 = NULL, .b3 = &s, .xa3 = {from, mk_quat_identity()}, .xb3 = xf,
                   .d3 = d,
                   .ray3 = {(double)to.x - from.x, (double)to.y - from.y, (double)to.z - from.z}};
        sweep_ray(&sw, &p, h.hit, h.fraction, mk_v3_len(d), mk_v3_len(h.normal),
                  mk_v3_dot(h.normal, d), 1e-4, i);
    }
    /* A float fraction of a ray 10 to 20 m long is itself rounded by up to 6e-7 m. */
    sweep_end(&sw, 200, 30, 190, 1e-6);
}
END_TEST

START_TEST(cast_against_brute_force)
{
    rng_state = 0xca57ull;
    double worst2 = 0.0, worst3 = 0.0;
    int hits = 0;
    for (int i = 0; i < 120; i++) {
        col_shape2 a = random_shape2(i % COL_SHAPE_COUNT);
        col_polygon pa = poly_store;
        if (a.type == COL_SHAPE_POLYGON)
            a.polygon = &pa;
        col_shape2 b = random_shape2((i / COL_SHAPE_COUNT) % COL_SHAPE_COUNT);
        col_xf2 xa = {mk_v2((float)rnd(-8, -5), (float)rnd(-2, 2)), (float)rnd(-PI, PI)};
        col_xf2 xb = {mk_v2((float)rnd(-1, 1), (float)rnd(-1, 1)), (float)rnd(-PI, PI)};
        mk_vec2 d = mk_v2((float)rnd(8, 14), (float)rnd(-4, 4));
        col_ray_hit2 h = col_cast2(&a, xa, d, &b, xb);
        probe p = {.dim = 2, .a2 = &a, .b2 = &b, .xa2 = xa, .xb2 = xb, .d2 = d};
        worst2 = fmax(worst2, compare(&p, h.hit, h.fraction, mk_v2_len(d), "cast2", i));
        hits += h.hit;
    }
    for (int i = 0; i < 98; i++) {
        col_shape3 a = random_shape3(i % COL_SHAPE3_COUNT);
        col_hull3 *ha = malloc(sizeof *ha);
        *ha = hull_store;
        if (a.type == COL_SHAPE3_HULL)
            a.hull = ha;
        col_shape3 b = random_shape3((i / COL_SHAPE3_COUNT) % COL_SHAPE3_COUNT);
        col_xf3 xa = {mk_v3((float)rnd(-8, -5), (float)rnd(-2, 2), (float)rnd(-2, 2)),
                      random_quat()};
        col_xf3 xb = {mk_v3((float)rnd(-1, 1), (float)rnd(-1, 1), (float)rnd(-1, 1)),
                      random_quat()};
        mk_vec3 d = mk_v3((float)rnd(8, 14), (float)rnd(-3, 3), (float)rnd(-3, 3));
        col_ray_hit3 h = col_cast3(&a, xa, d, &b, xb);
        probe p = {.dim = 3, .a3 = &a, .b3 = &b, .xa3 = xa, .xb3 = xb, .d3 = d};
        worst3 = fmax(worst3, compare(&p, h.hit, h.fraction, mk_v3_len(d), "cast3", i));
        hits += h.hit;
        free(ha);
    }
    printf("cast2 largest error %.2e m, cast3 %.2e m, %d hits of 218\n", worst2, worst3, hits);
    EXPECT(hits > 40, "%d hits", hits);
    /* The cast stops within COL_CAST_TOLERANCE of contact across the gap; along a grazing
     * path that is more. */
    EXPECT(worst2 <= 1e-3 && worst3 <= 1e-3, "errors %g, %g m", worst2, worst3);
}
END_TEST

MINK_CHECK_SUITE("rays", s)
{
    MINK_TCASE(s, "exact", 0, ray2_exact, ray3_exact, cast2_exact);
    TCase *tc = tcase_create("brute");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, ray2_against_brute_force, 0, COL_SHAPE_COUNT);
    tcase_add_loop_test(tc, ray3_against_brute_force, 0, COL_SHAPE3_COUNT);
    tcase_add_test(tc, cast_against_brute_force);
    suite_add_tcase(s, tc);
}

