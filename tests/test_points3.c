/* mink_collision: points (spheres of radius 0) and tiny spheres (1e-6, 1e-4 m) against 3D
 * shapes, as a query's sphere or a tiny body meets them. Every public 3D entry point
 * (col_overlap3, col_collide3, col_collide3_within, col_gjk3_distance, col_cast3), in both
 * orders, is compared at sweeps of positions near the surface, on the axis, at the centre and
 * farther out with the exact distance written here in double: from the point to the
 * capsule's segment (or the sphere's centre, the box) less the radii. Capsules of several
 * sizes and orientations, one with a segment of length 0, huge and tiny ones. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mink_collision.h"
#include "shapes_check.h"
#include "check_main.h"

#define PI 3.14159265358979323846
#define POSITIONS 1000 /* per shape, orientation and radius of the point */

typedef struct dvec {
    double x, y, z;
} dvec;

static dvec dv(double x, double y, double z) { return (dvec){x, y, z}; }
static dvec dsub(dvec a, dvec b) { return dv(a.x - b.x, a.y - b.y, a.z - b.z); }
static dvec dscale(dvec a, double s) { return dv(a.x * s, a.y * s, a.z * s); }
static double ddot(dvec a, dvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static double dlen(dvec a) { return sqrt(ddot(a, a)); }
static dvec dof(mk_vec3 v) { return dv(v.x, v.y, v.z); }

/* v turned by the unit quaternion q (its float components normalised here, in double):
 * v + 2w (u x v) + 2 u x (u x v). */
static dvec turn(mk_quat q, dvec v, bool inverse)
{
    double n = sqrt((double)q.w * q.w + (double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z);
    double w = q.w / n, s = inverse ? -1.0 / n : 1.0 / n;
    dvec u = dv(q.x * s, q.y * s, q.z * s);
    dvec t = dv(2.0 * (u.y * v.z - u.z * v.y), 2.0 * (u.z * v.x - u.x * v.z),
                2.0 * (u.x * v.y - u.y * v.x));
    return dv(v.x + w * t.x + (u.y * t.z - u.z * t.y), v.y + w * t.y + (u.z * t.x - u.x * t.z),
              v.z + w * t.z + (u.x * t.y - u.y * t.x));
}

static mk_quat axis_angle(double x, double y, double z, double angle)
{
    double l = sqrt(x * x + y * y + z * z), s = sin(angle / 2) / l;
    return (mk_quat){(float)(x * s), (float)(y * s), (float)(z * s), (float)cos(angle / 2)};
}

static mk_quat rnd_quat(void)
{
    for (;;) {
        mk_quat q;
        if (mk_quat_normalize_checked((mk_quat){(float)rnd(-1, 1), (float)rnd(-1, 1),
                                                (float)rnd(-1, 1), (float)rnd(-1, 1)},
                                      &q))
            return q;
    }
}

static dvec rnd_unit(void)
{
    double z = rnd(-1, 1), a = rnd(0, 2 * PI), s = sqrt(1 - z * z);
    return dv(s * cos(a), z, s * sin(a));
}

/* ---- the exact distances, in the shape's frame ---- */

/* From p to the segment (0, +-h, 0) grown by r: the signed distance, and the direction from
 * the segment's closest point to p (zero on the segment). */
static double capsule_distance(double r, double h, dvec p, dvec *out)
{
    double cy = fmin(fmax(p.y, -h), h);
    *out = dv(p.x, p.y - cy, p.z);
    return dlen(*out) - r;
}

static double box_distance(mk_vec3 half, dvec p, dvec *out)
{
    dvec q = dv(fmin(fmax(p.x, -half.x), half.x), fmin(fmax(p.y, -half.y), half.y),
                fmin(fmax(p.z, -half.z), half.z));
    *out = dsub(p, q);
    double outside = dlen(*out);
    if (outside > 0.0)
        return outside;
    /* Inside: minus the distance to the nearest face. */
    return -fmin(half.x - fabs(p.x), fmin(half.y - fabs(p.y), half.z - fabs(p.z)));
}

/* The signed distance from the world point w to the placed shape (capsule, sphere or box),
 * and the outward direction there in the world (zero when not defined). */
static double exact_distance(const col_shape3 *s, col_xf3 xf, dvec w, dvec *outward)
{
    dvec p = turn(xf.q, dsub(w, dof(xf.p)), true), d;
    double dist;
    switch (s->type) {
    case COL_SHAPE3_CAPSULE:
        dist = capsule_distance(s->radius, s->half_height, p, &d);
        break;
    case COL_SHAPE3_SPHERE:
        dist = capsule_distance(s->radius, 0.0, p, &d);
        break;
    default:
        dist = box_distance(s->half, p, &d);
        break;
    }
    double l = dlen(d);
    *outward = l > 0.0 ? turn(xf.q, dscale(d, 1.0 / l), false) : dv(0, 0, 0);
    return dist;
}

/* ---- the comparison ---- */

typedef struct tally {
    int positions, outside, inside, wrong;
} tally;

/* Reports one disagreement (the first few in full), counts it. */
static void wrong(tally *t, const char *what, const col_shape3 *s, col_xf3 xf, float pr,
                  mk_vec3 w, double truth, double got)
{
    if (t->wrong++ < 8)
        fprintf(stderr,
                "points3: %s: point of radius %g at (%.9g, %.9g, %.9g) against a shape of "
                "type %d (radius %g, half height %g) at (%g, %g, %g) q (%g, %g, %g, %g): "
                "true signed distance %.9g, got %.9g\n",
                what, (double)pr, (double)w.x, (double)w.y, (double)w.z, (int)s->type,
                (double)s->radius, (double)s->half_height, (double)xf.p.x, (double)xf.p.y,
                (double)xf.p.z, (double)xf.q.x, (double)xf.q.y, (double)xf.q.z,
                (double)xf.q.w, truth, got);
}

/* Every entry point, both orders, for a point of radius pr at w against s at xf. The
 * tolerance: 1e-5 m, and the float placement's resolution (coordinates and the quaternion
 * good to about 6e-8 of their size, so the point is placed to 4e-7 of its offset). */
static void compare(const col_shape3 *s, col_xf3 xf, float pr, mk_vec3 w, tally *t)
{
    col_shape3 pt = {.type = COL_SHAPE3_SPHERE, .radius = pr};
    col_xf3 xp = {w, rnd_int(4) == 0 ? rnd_quat() : (mk_quat){0, 0, 0, 1}};
    dvec outward;
    double truth = exact_distance(s, xf, dof(w), &outward) - pr;
    double tol = 1e-5 + 4e-7 * dlen(dsub(dof(w), dof(xf.p)));
    t->positions++;
    if (fabs(truth) <= tol)
        return; /* touching, within what the placement resolves */
    /* Depths and gaps come back as floats: two ulps of theirs on top. */
    double vtol = tol + 2.5e-7 * fabs(truth);
    bool apart = truth > 0.0;
    t->outside += apart;
    t->inside += !apart;
    if (col_overlap3(&pt, xp, s, xf) == apart)
        wrong(t, "col_overlap3", s, xf, pr, w, truth, apart ? 0.0 : 1.0);
    if (col_overlap3(s, xf, &pt, xp) == apart)
        wrong(t, "col_overlap3, swapped", s, xf, pr, w, truth, apart ? 0.0 : 1.0);
    col_manifold3 m[2] = {col_collide3(&pt, xp, s, xf), col_collide3(s, xf, &pt, xp)};
    for (int k = 0; k < 2; k++) {
        double got = m[k].count > 0 ? -(double)m[k].depth : (double)m[k].distance;
        if ((m[k].count == 0) != apart || fabs(got - truth) > vtol)
            wrong(t, k ? "col_collide3, swapped" : "col_collide3", s, xf, pr, w, truth, got);
    }
    col_manifold3 near = col_collide3_within(&pt, xp, s, xf, 0.02f, 0.0f);
    if ((near.count == 0) != apart || (!apart && fabs(near.depth + truth) > vtol) ||
        (apart && truth <= 0.02 && fabs(near.distance - truth) > vtol))
        wrong(t, "col_collide3_within", s, xf, pr, w, truth,
              near.count > 0 ? -(double)near.depth : (double)near.distance);
    col_distance3 g[2] = {col_gjk3_distance(&pt, xp, s, xf), col_gjk3_distance(s, xf, &pt, xp)};
    for (int k = 0; k < 2; k++) {
        double got = g[k].overlap ? 0.0 : (double)g[k].distance;
        if (g[k].overlap == apart || (apart && fabs(got - truth) > vtol))
            wrong(t, k ? "col_gjk3_distance, swapped" : "col_gjk3_distance", s, xf, pr, w,
                  truth, got);
    }
    /* A cast of the point straight away from the shape meets nothing; a cast of the shape
     * away from the point neither. */
    if (apart && dlen(outward) > 0.0) {
        mk_vec3 away = mk_v3((float)outward.x, (float)outward.y, (float)outward.z);
        if (col_cast3(&pt, xp, away, s, xf).hit)
            wrong(t, "col_cast3 away", s, xf, pr, w, truth, 0.0);
        if (col_cast3(s, xf, mk_v3_neg(away), &pt, xp).hit)
            wrong(t, "col_cast3 away, swapped", s, xf, pr, w, truth, 0.0);
    }
}

/* Positions about a capsule (r, h) in its frame: near its surface (within 1e-3 of its size
 * either side, on the side, the caps and where they meet), on its axis beyond the ends,
 * on the segment, at the centre, and anywhere within twice its size. */
static dvec capsule_position(double r, double h, int i)
{
    double size = r + h;
    switch (i % 5) {
    case 0:
    case 1: { /* near the surface: a point of the segment, out along a direction */
        double y = i % 10 == 0 ? (rnd_int(2) ? h : -h) : rnd(-h, h);
        dvec u = rnd_unit();
        if (i % 10 == 1)
            u.y = 0.0; /* the side */
        else if ((u.y > 0.0) != (y > 0.0))
            u.y = -u.y;
        double l = dlen(u);
        if (!(l > 0.0))
            u = dv(1, 0, 0), l = 1.0;
        double g = rnd(-1e-3, 1e-3) * size;
        return dv(u.x / l * (r + g), y + u.y / l * (r + g), u.z / l * (r + g));
    }
    case 2: /* on the axis, beyond an end or within the segment */
        return dv(0.0, rnd(-1.5, 1.5) * size, 0.0);
    case 3:
        return i % 15 == 3 ? dv(0, 0, 0) : dscale(rnd_unit(), rnd(0.0, 2.0) * size);
    default: /* 1e-4 of the size off the axis, beyond an end by up to the radius and more */
        return dv(rnd(-1e-4, 1e-4) * size, (rnd_int(2) ? 1 : -1) * (h + rnd(0.0, 1.2) * r),
                  rnd(-1e-4, 1e-4) * size);
    }
}

static const float point_radii[] = {0.0f, 1e-6f, 1e-4f};

/* A sweep's count said, and held to: every position compared, most of them decided either
 * way (so that the sweep means something), none wrong. */
static void check_tally(const char *what, const tally *t, int positions)
{
    fprintf(stderr, "points3 %s: %d positions, %d outside, %d inside, %d wrong\n", what,
            t->positions, t->outside, t->inside, t->wrong);
    ck_assert_int_eq(t->positions, positions);
    ck_assert_int_gt(t->outside, t->positions / 4);
    ck_assert_int_gt(t->inside, t->positions / 8);
    ck_assert_msg(t->wrong == 0, "%d disagreements with the exact distance (the first on stderr)",
                  t->wrong);
}

START_TEST(points_about_capsules)
{
    static const struct {
        const char *what;
        float r, h;
    } caps[] = {
        {"1 m", 0.5f, 1.0f},          {"ball-shaped (segment of length 0)", 0.25f, 0.0f},
        {"tiny", 1e-3f, 1e-3f},       {"tiny, segment of length 0", 1e-3f, 0.0f},
        {"huge", 1e3f, 1e3f},         {"long and thin", 0.1f, 5.0f},
        {"short and wide", 2.0f, 1e-3f}, {"at the size limit", 1e4f, 1e4f},
    };
    rng_state = 0x5EED0F9017E5ull;
    tally t = {0};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        col_shape3 cap = {.type = COL_SHAPE3_CAPSULE, .radius = caps[c].r,
                          .half_height = caps[c].h};
        mk_quat turns[3] = {{0, 0, 0, 1}, axis_angle(0, 0, 1, PI / 2), rnd_quat()};
        for (int o = 0; o < 3; o++)
            for (size_t k = 0; k < sizeof point_radii / sizeof point_radii[0]; k++) {
                col_xf3 xf = {mk_v3((float)rnd(-2, 2), (float)rnd(-2, 2), (float)rnd(-2, 2)),
                              turns[o]};
                for (int i = 0; i < POSITIONS; i++) {
                    dvec p = turn(xf.q, capsule_position(caps[c].r, caps[c].h, i), false);
                    mk_vec3 w = mk_v3((float)(xf.p.x + p.x), (float)(xf.p.y + p.y),
                                      (float)(xf.p.z + p.z));
                    compare(&cap, xf, point_radii[k], w, &t);
                }
            }
    }
    check_tally("capsules", &t, 8 * 3 * 3 * POSITIONS);
}
END_TEST

START_TEST(points_about_spheres_and_boxes)
{
    /* Spheres (a point among them) and boxes, down to the size limit and up to 1 km. */
    static const col_shape3 shapes[] = {
        {.type = COL_SHAPE3_SPHERE, .radius = 0.5f},
        {.type = COL_SHAPE3_SPHERE, .radius = 1e-3f},
        {.type = COL_SHAPE3_SPHERE, .radius = 1e3f},
        {.type = COL_SHAPE3_SPHERE, .radius = 0.0f},
        {.type = COL_SHAPE3_BOX, .half = {0.5f, 0.5f, 0.5f}},
        {.type = COL_SHAPE3_BOX, .half = {2.0f, 1e-3f, 0.25f}},
        {.type = COL_SHAPE3_BOX, .half = {1e-3f, 1e-3f, 1e-3f}},
        {.type = COL_SHAPE3_BOX, .half = {1e3f, 10.0f, 1e3f}},
    };
    rng_state = 0xB0C5A11ull;
    tally t = {0};
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
        const col_shape3 *s = &shapes[c];
        double size = s->type == COL_SHAPE3_SPHERE
                          ? fmax(s->radius, 1e-3)
                          : fmax(s->half.x, fmax(s->half.y, s->half.z));
        mk_quat turns[2] = {{0, 0, 0, 1}, rnd_quat()};
        for (int o = 0; o < 2; o++)
            for (size_t k = 0; k < sizeof point_radii / sizeof point_radii[0]; k++) {
                col_xf3 xf = {mk_v3((float)rnd(-2, 2), (float)rnd(-2, 2), (float)rnd(-2, 2)),
                              turns[o]};
                for (int i = 0; i < POSITIONS; i++) {
                    dvec p;
                    if (i % 3 == 0 && s->type == COL_SHAPE3_BOX) {
                        /* near a face, an edge or a corner: each coordinate at the face
                         * (within 1e-3 of the size) or inside */
                        double h[3] = {s->half.x, s->half.y, s->half.z}, c3[3];
                        for (int a = 0; a < 3; a++)
                            c3[a] = rnd_int(2) ? (rnd_int(2) ? 1 : -1) * h[a] +
                                                     rnd(-1e-3, 1e-3) * size
                                               : rnd(-h[a], h[a]);
                        p = dv(c3[0], c3[1], c3[2]);
                    } else if (i % 3 == 0) {
                        p = dscale(rnd_unit(), s->radius + rnd(-1e-3, 1e-3) * size);
                    } else {
                        p = dscale(rnd_unit(), rnd(0.0, 2.0) * size);
                    }
                    p = turn(xf.q, p, false);
                    mk_vec3 w = mk_v3((float)(xf.p.x + p.x), (float)(xf.p.y + p.y),
                                      (float)(xf.p.z + p.z));
                    compare(s, xf, point_radii[k], w, &t);
                }
            }
    }
    check_tally("spheres and boxes", &t, 8 * 2 * 3 * POSITIONS);
}
END_TEST

START_TEST(point_off_a_capsule_side)
{
    /* A position found by the sweep: a point 6.9e-5 m off the side of a capsule (radius
     * 0.5 m, half height 1 m) at the origin, which col_gjk3_distance called overlapping
     * (its tetrahedron, a needle between the two ends of the side, held the origin only
     * because its last face was not tested). The exact gap: sqrt(x^2 + z^2) - 0.5. */
    col_shape3 cap = {.type = COL_SHAPE3_CAPSULE, .radius = 0.5f, .half_height = 1.0f};
    col_shape3 pt = {.type = COL_SHAPE3_SPHERE, .radius = 0.0f};
    mk_vec3 w = mk_v3(0x1.f03eep-2f, -0x1.5ba738p-1f, -0x1.f948a2p-4f);
    col_xf3 xc = {mk_v3(0, 0, 0), {0, 0, 0, 1}}, xp = {w, {0, 0, 0, 1}};
    double gap = sqrt((double)w.x * w.x + (double)w.z * w.z) - 0.5;
    ck_assert(gap > 6e-5 && gap < 7e-5);
    col_distance3 d = col_gjk3_distance(&pt, xp, &cap, xc);
    ck_assert_msg(!d.overlap, "a point %.3g m off the capsule reported overlapping", gap);
    NEAR(d.distance, gap, 1e-6);
    d = col_gjk3_distance(&cap, xc, &pt, xp);
    ck_assert(!d.overlap);
    NEAR(d.distance, gap, 1e-6);
    ck_assert(!col_cast3(&pt, xp, mk_v3(1, 0, 0), &cap, xc).hit);
    ck_assert(!col_overlap3(&pt, xp, &cap, xc));
}
END_TEST

MINK_CHECK_TESTS("points3", 120, point_off_a_capsule_side, points_about_capsules,
                 points_about_spheres_and_boxes)
