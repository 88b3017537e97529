/* mink_collision: the 3D shape API (sphere, box, ellipsoid, capsule, cylinder, cone, hull)
 * through col_hull3_make, col_collide3, col_gjk3_distance, the contact cache and the mass
 * properties. Hand-computed cases with known answers, and properties over random pairs of
 * every pair type checked against a brute force written here, in double, from the shapes'
 * own definitions (support functions, polytope features). */
#include <check.h>
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mink_collision.h"
#include "shapes_check.h"
#include "check_main.h"

#define PI 3.14159265358979323846


/* ---- the test's own geometry, in double ---- */

typedef struct dvec {
    double x, y, z;
} dvec;

static dvec dv(double x, double y, double z) { return (dvec){x, y, z}; }
static dvec dof(mk_vec3 v) { return dv(v.x, v.y, v.z); }
static dvec dadd(dvec a, dvec b) { return dv(a.x + b.x, a.y + b.y, a.z + b.z); }
static dvec dsub(dvec a, dvec b) { return dv(a.x - b.x, a.y - b.y, a.z - b.z); }
static dvec dscale(dvec a, double s) { return dv(a.x * s, a.y * s, a.z * s); }
static double ddot(dvec a, dvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static dvec dcross(dvec a, dvec b)
{
    return dv(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static double dlen(dvec a) { return sqrt(ddot(a, a)); }
static dvec dnorm(dvec a) { return dscale(a, 1.0 / dlen(a)); }
static double angle_between(dvec a, dvec b)
{
    return atan2(dlen(dcross(a, b)), ddot(a, b));
}

/* ---- shapes and placements ---- */

static col_shape3 sphere(float r) { return (col_shape3){.type = COL_SHAPE3_SPHERE, .radius = r}; }
static col_shape3 box(float x, float y, float z)
{
    return (col_shape3){.type = COL_SHAPE3_BOX, .half = {x, y, z}};
}
static col_shape3 ellipsoid(float x, float y, float z)
{
    return (col_shape3){.type = COL_SHAPE3_ELLIPSOID, .half = {x, y, z}};
}
static col_shape3 capsule(float r, float h)
{
    return (col_shape3){.type = COL_SHAPE3_CAPSULE, .radius = r, .half_height = h};
}
static col_shape3 cylinder(float r, float h)
{
    return (col_shape3){.type = COL_SHAPE3_CYLINDER, .radius = r, .half_height = h};
}
static col_shape3 cone(float r, float h)
{
    return (col_shape3){.type = COL_SHAPE3_CONE, .radius = r, .half_height = h};
}
static col_shape3 hull_shape(const col_hull3 *h)
{
    return (col_shape3){.type = COL_SHAPE3_HULL, .hull = h};
}

/* A unit quaternion for the rotation by `angle` about (ax, ay, az). */
static mk_quat rot(double ax, double ay, double az, double angle)
{
    double l = sqrt(ax * ax + ay * ay + az * az), s = sin(0.5 * angle) / l;
    mk_quat q;
    ck_assert(mk_quat_normalize_checked(
        (mk_quat){(float)(ax * s), (float)(ay * s), (float)(az * s), (float)cos(0.5 * angle)},
        &q));
    return q;
}
static col_xf3 at(double x, double y, double z) { return (col_xf3){mk_v3((float)x, (float)y, (float)z), {0, 0, 0, 1}}; }
static col_xf3 at_rot(double x, double y, double z, mk_quat q)
{
    return (col_xf3){mk_v3((float)x, (float)y, (float)z), q};
}

static const char *type_name(col_shape3_type t)
{
    static const char *names[] = {"sphere", "box", "ellipsoid", "capsule", "cylinder", "cone",
                                  "hull"};
    return t < COL_SHAPE3_COUNT ? names[t] : "?";
}

static bool polytope(col_shape3_type t) { return t == COL_SHAPE3_BOX || t == COL_SHAPE3_HULL; }

/* The signed separation of a manifold: depth when touching, minus the gap when apart. */
static double signed_sep(col_manifold3 m) { return m.count > 0 ? m.depth : -m.distance; }

/* A placed shape in double: rotation matrix rows from the (unit float) quaternion. */
typedef struct world_shape {
    const col_shape3 *s;
    dvec r[3]; /* rows of R: world = p + R local */
    dvec p;
    /* polytopes: world vertices, faces as (first, count) into idx, and their normals */
    int nv, nf, ni;
    dvec v[COL_MAX_HULL3_VERTS];
    dvec fn[COL_MAX_HULL3_FACES];
    int ffirst[COL_MAX_HULL3_FACES], fcount[COL_MAX_HULL3_FACES];
    int idx[COL_MAX_HULL3_INDICES];
} world_shape;

static dvec rapply(const world_shape *w, dvec l)
{
    return dv(ddot(w->r[0], l), ddot(w->r[1], l), ddot(w->r[2], l));
}
static dvec rapply_t(const world_shape *w, dvec d)
{
    return dadd(dadd(dscale(w->r[0], d.x), dscale(w->r[1], d.y)), dscale(w->r[2], d.z));
}

static void world_of(const col_shape3 *s, col_xf3 t, world_shape *w)
{
    double x = t.q.x, y = t.q.y, z = t.q.z, qw = t.q.w;
    double l = sqrt(x * x + y * y + z * z + qw * qw);
    x /= l, y /= l, z /= l, qw /= l;
    w->s = s;
    w->r[0] = dv(1 - 2 * (y * y + z * z), 2 * (x * y - qw * z), 2 * (x * z + qw * y));
    w->r[1] = dv(2 * (x * y + qw * z), 1 - 2 * (x * x + z * z), 2 * (y * z - qw * x));
    w->r[2] = dv(2 * (x * z - qw * y), 2 * (y * z + qw * x), 1 - 2 * (x * x + y * y));
    w->p = dof(t.p);
    w->nv = w->nf = w->ni = 0;
    if (s->type == COL_SHAPE3_BOX) {
        w->nv = 8;
        for (int i = 0; i < 8; i++)
            w->v[i] = dadd(w->p, rapply(w, dv(i & 1 ? s->half.x : -s->half.x,
                                             i & 2 ? s->half.y : -s->half.y,
                                             i & 4 ? s->half.z : -s->half.z)));
        /* Faces written out here, independently of the library's table. */
        static const int f[6][4] = {{1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3},
                                    {0, 1, 5, 4}, {4, 5, 7, 6}, {0, 2, 3, 1}};
        static const double n[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0},
                                       {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
        w->nf = 6;
        for (int k = 0; k < 6; k++) {
            w->ffirst[k] = 4 * k;
            w->fcount[k] = 4;
            for (int j = 0; j < 4; j++)
                w->idx[4 * k + j] = f[k][j];
            w->fn[k] = rapply(w, dv(n[k][0], n[k][1], n[k][2]));
        }
        w->ni = 24;
    } else if (s->type == COL_SHAPE3_HULL) {
        const col_hull3 *h = s->hull;
        w->nv = h->vert_count;
        for (int i = 0; i < h->vert_count; i++)
            w->v[i] = dadd(w->p, rapply(w, dof(h->verts[i])));
        w->nf = h->face_count;
        for (int k = 0; k < h->face_count; k++) {
            w->ffirst[k] = h->faces[k].first;
            w->fcount[k] = h->faces[k].count;
            /* The normal from the face's own vertices (Newell), not the stored one. */
            dvec nn = dv(0, 0, 0);
            for (int j = 0; j < h->faces[k].count; j++) {
                dvec a = dof(h->verts[h->indices[h->faces[k].first + j]]);
                dvec b = dof(h->verts[h->indices[h->faces[k].first + (j + 1) % h->faces[k].count]]);
                nn = dadd(nn, dcross(a, b));
            }
            w->fn[k] = rapply(w, dnorm(nn));
        }
        int total = 0;
        for (int k = 0; k < h->face_count; k++)
            total += h->faces[k].count;
        for (int i = 0; i < total; i++)
            w->idx[i] = h->indices[i];
        w->ni = total;
    }
}

/* max over the shape of d . x, with d in the world (any length). */
static double support(const world_shape *w, dvec d)
{
    const col_shape3 *s = w->s;
    if (w->nv > 0) {
        double best = -INFINITY;
        for (int i = 0; i < w->nv; i++)
            best = fmax(best, ddot(d, w->v[i]));
        return best;
    }
    dvec l = rapply_t(w, d);
    double r = s->radius, h = s->half_height, sigma = sqrt(l.x * l.x + l.z * l.z);
    double local = 0.0;
    switch (s->type) {
    case COL_SHAPE3_SPHERE:
        local = r * dlen(l);
        break;
    case COL_SHAPE3_ELLIPSOID:
        local = dlen(dv(s->half.x * l.x, s->half.y * l.y, s->half.z * l.z));
        break;
    case COL_SHAPE3_CAPSULE:
        local = h * fabs(l.y) + r * dlen(l);
        break;
    case COL_SHAPE3_CYLINDER:
        local = h * fabs(l.y) + r * sigma;
        break;
    case COL_SHAPE3_CONE: /* the better of the apex and the base's rim */
        local = fmax(h * l.y, -h * l.y + r * sigma);
        break;
    default:
        ck_abort_msg("no support for %s", type_name(s->type));
    }
    return ddot(d, w->p) + local;
}

/* h(d) = max_{a in A} d.a - min_{b in B} d.b: the support of the Minkowski difference A - B. */
static double h_dir(const world_shape *A, const world_shape *B, dvec d)
{
    return support(A, d) + support(B, dscale(d, -1.0));
}


/* A uniformly random rotation (Shoemake, "Uniform random rotations", Graphics Gems III). */
static mk_quat rnd_quat(void)
{
    double u1 = rnd(0, 1), u2 = rnd(0, 2 * PI), u3 = rnd(0, 2 * PI);
    double a = sqrt(1 - u1), b = sqrt(u1);
    mk_quat q;
    ck_assert(mk_quat_normalize_checked((mk_quat){(float)(a * sin(u2)), (float)(a * cos(u2)),
                                                  (float)(b * sin(u3)), (float)(b * cos(u3))},
                                        &q));
    return q;
}
static dvec rnd_unit(void)
{
    double z = rnd(-1, 1), t = rnd(0, 2 * PI), s = sqrt(1 - z * z);
    return dv(s * cos(t), s * sin(t), z);
}

/* A hull that must be accepted. */
static void make_hull(const mk_vec3 *pts, int n, col_hull3 *h)
{
    mk_error why = {0};
    int rc = col_hull3_make(pts, n, h, &why);
    EXPECT(rc == 0, "col_hull3_make refused %d points: %s", n, why.message);
}

/* The unit cube [-h, h]^3 as a hull, from its corners and, when `extra`, points inside it, on
 * its faces and edges, and its corners again. */
static int cube_points(float h, bool extra, mk_vec3 *pts)
{
    int n = 0;
    for (int i = 0; i < 8; i++)
        pts[n++] = mk_v3(i & 1 ? h : -h, i & 2 ? h : -h, i & 4 ? h : -h);
    if (!extra)
        return n;
    pts[n++] = mk_v3(0, 0, 0);                 /* the centre */
    pts[n++] = mk_v3(0.3f * h, -0.2f * h, 0.1f * h);
    pts[n++] = mk_v3(h, h, h);                 /* duplicates */
    pts[n++] = mk_v3(-h, -h, -h);
    pts[n++] = mk_v3(h, 0, 0);                 /* face centres: coplanar */
    pts[n++] = mk_v3(0, -h, 0);
    pts[n++] = mk_v3(0.5f * h, 0.25f * h, h);
    pts[n++] = mk_v3(h, h, 0);                 /* edge midpoints: collinear */
    pts[n++] = mk_v3(-h, 0.5f * h, -h);
    return n;
}

/* The cube of cube_points as a hull in *h. */
static void cube_hull(float half, bool extra, col_hull3 *h)
{
    mk_vec3 pts[32];
    make_hull(pts, cube_points(half, extra, pts), h);
}

/* ---- 1. exact cases ---- */

/* The manifold's normal is (nx, ny, nz) and its depth `depth`, both ways round. */
static void check_contact(const col_shape3 *a, col_xf3 xa, const col_shape3 *b, col_xf3 xb,
                          double depth, dvec n, double tol, const char *what)
{
    for (int swap = 0; swap < 2; swap++) {
        col_manifold3 m = swap ? col_collide3(b, xb, a, xa) : col_collide3(a, xa, b, xb);
        dvec want = swap ? dscale(n, -1) : n;
        EXPECT(m.count >= 1 && m.count <= COL_MAX_POINTS3, "%s (swap %d): %d points", what,
               swap, m.count);
        EXPECT(fabs(m.depth - depth) <= tol, "%s (swap %d): depth %.9g, expected %.9g", what,
               swap, (double)m.depth, depth);
        EXPECT(angle_between(dof(m.normal), want) <= 1e-4,
               "%s (swap %d): normal (%.7g, %.7g, %.7g), expected (%.7g, %.7g, %.7g)", what,
               swap, (double)m.normal.x, (double)m.normal.y, (double)m.normal.z, want.x,
               want.y, want.z);
        for (int i = 0; i < m.count; i++)
            EXPECT(m.points[i].depth >= 0 && m.points[i].depth <= m.depth + 1e-6,
                   "%s: point %d depth %g", what, i, (double)m.points[i].depth);
    }
}

static void check_gap(const col_shape3 *a, col_xf3 xa, const col_shape3 *b, col_xf3 xb,
                      double gap, dvec n, double tol, const char *what)
{
    for (int swap = 0; swap < 2; swap++) {
        col_manifold3 m = swap ? col_collide3(b, xb, a, xa) : col_collide3(a, xa, b, xb);
        dvec want = swap ? dscale(n, -1) : n;
        EXPECT(m.count == 0, "%s (swap %d): %d points, depth %g", what, swap, m.count,
               (double)m.depth);
        EXPECT(fabs(m.distance - gap) <= tol, "%s (swap %d): gap %.9g, expected %.9g", what,
               swap, (double)m.distance, gap);
        EXPECT(angle_between(dof(m.normal), want) <= 1e-4, "%s (swap %d): gap normal", what,
               swap);
        col_distance3 d = swap ? col_gjk3_distance(b, xb, a, xa) : col_gjk3_distance(a, xa, b, xb);
        EXPECT(!d.overlap && fabs(d.distance - gap) <= tol, "%s: col_gjk3_distance %.9g",
               what, (double)d.distance);
    }
}

START_TEST(sphere_sphere_exact)
{
    col_shape3 a = sphere(1.0f), b = sphere(0.5f);
    check_contact(&a, at(0, 0, 0), &b, at(1.2, 0, 0), 0.3, dv(1, 0, 0), 1e-6, "overlap");
    col_manifold3 m = col_collide3(&a, at(0, 0, 0), &b, at(1.2, 0, 0));
    /* Midway between the surfaces at x = 1 and x = 0.7. */
    NEAR(m.points[0].point.x, 0.85, 1e-6);
    check_gap(&a, at(1, 2, 3), &b, at(1, 2, 5), 0.5, dv(0, 0, 1), 1e-6, "apart");
    check_contact(&a, at(0, 0, 0), &b, at(0, 1.5, 0), 0.0, dv(0, 1, 0), 1e-6, "touching");
}
END_TEST

START_TEST(sphere_box_exact)
{
    col_shape3 bx = box(1, 1, 1), s = sphere(0.5f);
    mk_quat q = rot(1, 2, 3, 0.7);
    /* In the box's frame: face, edge, corner, and the centre inside. */
    struct {
        dvec c;
        double depth;
        dvec n;
    } cases[] = {
        {dv(0, 1.3, 0), 0.2, dv(0, 1, 0)},
        {dv(1.2, 1.2, 0), 0.5 - 0.2 * sqrt(2.0), dv(1 / sqrt(2.0), 1 / sqrt(2.0), 0)},
        {dv(1.2, -1.2, 1.2), 0.5 - 0.2 * sqrt(3.0), dnorm(dv(1, -1, 1))},
        {dv(0.1, 0, 0.05), 1.4, dv(1, 0, 0)},
    };
    world_shape wb;
    col_xf3 xb = at_rot(0.5, -2, 3, q);
    world_of(&bx, xb, &wb);
    for (int i = 0; i < 4; i++) {
        dvec c = dadd(wb.p, rapply(&wb, cases[i].c));
        char what[64];
        snprintf(what, sizeof what, "sphere-box case %d", i);
        check_contact(&bx, xb, &s, at(c.x, c.y, c.z), cases[i].depth, rapply(&wb, cases[i].n),
                      2e-6, what);
    }
    dvec c = dadd(wb.p, rapply(&wb, dv(0, 0, 2)));
    check_gap(&bx, xb, &s, at(c.x, c.y, c.z), 0.5, rapply(&wb, dv(0, 0, 1)), 2e-6, "apart");
}
END_TEST

START_TEST(box_box_face_and_edge)
{
    col_shape3 a = box(0.5f, 0.5f, 0.5f), b = box(0.5f, 0.5f, 0.5f);
    /* Face on face: four points, each 0.1 deep, at B's bottom corners. */
    col_manifold3 m = col_collide3(&a, at(0, 0, 0), &b, at(0.1, 0.9, 0.2));
    ck_assert_int_eq(m.count, 4);
    NEAR(m.depth, 0.1, 1e-6);
    NEAR(m.normal.y, 1.0, 1e-6);
    for (int i = 0; i < 4; i++) {
        NEAR(m.points[i].depth, 0.1, 1e-6);
        NEAR(m.points[i].point.y, 0.45, 1e-6);
        NEAR(fabs(m.points[i].point.x - 0.05), 0.45, 0.05 + 1e-6);
    }
    check_contact(&a, at(0, 0, 0), &b, at(0.1, 0.9, 0.2), 0.1, dv(0, 1, 0), 1e-6, "face");
    /* B turned 45 degrees about y: its bottom is clipped to an octagon, reduced to 4. */
    m = col_collide3(&a, at(0, 0, 0), &b, at_rot(0, 0.9, 0, rot(0, 1, 0, PI / 4)));
    ck_assert_int_eq(m.count, 4);
    NEAR(m.depth, 0.1, 1e-6);
    /* Edge across edge: A turned 45 degrees about x has an edge on top at y = sqrt(1/2);
     * B turned 45 degrees about z has one at the bottom, across it. */
    double e = sqrt(0.5);
    col_xf3 xa = at_rot(0, 0, 0, rot(1, 0, 0, PI / 4)), xb = at_rot(0, 2 * e - 0.1, 0, rot(0, 0, 1, PI / 4));
    check_contact(&a, xa, &b, xb, 0.1, dv(0, 1, 0), 1e-6, "edge-edge");
    m = col_collide3(&a, xa, &b, xb);
    ck_assert_int_eq(m.count, 1);
    NEAR(m.points[0].point.y, e - 0.05, 1e-6);
    NEAR(m.points[0].point.x, 0.0, 1e-6);
    NEAR(m.points[0].point.z, 0.0, 1e-6);
    check_gap(&a, xa, &b, at_rot(0, 2 * e + 0.25, 0, rot(0, 0, 1, PI / 4)), 0.25, dv(0, 1, 0),
              1e-6, "edges apart");
    check_contact(&a, at(0, 0, 0), &b, at(0, 1, 0), 0.0, dv(0, 1, 0), 1e-6, "touching");
}
END_TEST

START_TEST(capsule_capsule_exact)
{
    col_shape3 a = capsule(0.5f, 1.0f), b = capsule(0.5f, 1.0f);
    check_contact(&a, at(0, 0, 0), &b, at(0.9, 0.5, 0), 0.1, dv(1, 0, 0), 1e-6, "parallel");
    /* Crossed: B along z. */
    col_xf3 xb = at_rot(0.8, 0.3, 0, rot(1, 0, 0, PI / 2));
    check_contact(&a, at(0, 0, 0), &b, xb, 0.2, dv(1, 0, 0), 1e-6, "crossed");
    col_manifold3 m = col_collide3(&a, at(0, 0, 0), &b, xb);
    NEAR(m.points[0].point.x, 0.4, 1e-6);
    NEAR(m.points[0].point.y, 0.3, 1e-6);
    /* End to end along the axis. */
    check_gap(&a, at(0, 0, 0), &b, at(0, 3.5, 0), 0.5, dv(0, 1, 0), 1e-6, "end to end apart");
    /* Crossing axes (the cores meet): EPA; the depth is the sum of radii, along +x or -x
     * (a tie by symmetry). */
    for (int swap = 0; swap < 2; swap++) {
        col_xf3 xc = at_rot(0, 0.2, 0, rot(1, 0, 0, PI / 2));
        m = swap ? col_collide3(&b, xc, &a, at(0, 0, 0)) : col_collide3(&a, at(0, 0, 0), &b, xc);
        ck_assert_int_eq(m.count, 1);
        NEAR(m.depth, 1.0, 1e-5);
        NEAR(fabs(m.normal.x), 1.0, 1e-5);
    }
}
END_TEST

START_TEST(resting_on_a_box)
{
    /* Cylinder, cone (apex up and apex down) and a box-like hull on a wide ground box whose top
     * is y = 0, each sunk 1 cm: depth 0.01 along +y. */
    col_shape3 ground = box(5, 0.5f, 5);
    col_xf3 xg = at(0, -0.5, 0);
    col_shape3 cy = cylinder(0.5f, 1.0f), co = cone(0.5f, 1.0f);
    check_contact(&ground, xg, &cy, at(0.3, 0.99, -0.2), 0.01, dv(0, 1, 0), 1e-5, "cylinder");
    check_contact(&ground, xg, &co, at(0.3, 0.99, -0.2), 0.01, dv(0, 1, 0), 1e-5, "cone");
    check_contact(&ground, xg, &co, at_rot(0.3, 0.99, -0.2, rot(1, 0, 0, PI)), 0.01,
                  dv(0, 1, 0), 1e-5, "cone on its apex");
    /* A cylinder on its side: its curved surface on the ground. */
    check_contact(&ground, xg, &cy, at_rot(0, 0.49, 0, rot(0, 0, 1, PI / 2)), 0.01,
                  dv(0, 1, 0), 1e-5, "cylinder on its side");
    /* The same on a tilted ground. */
    mk_quat tilt = rot(1, 0, 1, 0.3);
    world_shape wg;
    col_xf3 xt = at_rot(2, 1, -1, tilt);
    world_of(&ground, xt, &wg);
    dvec up = rapply(&wg, dv(0, 1, 0));
    dvec c = dadd(wg.p, rapply(&wg, dv(0.2, 0.5 + 0.99, 0.1)));
    check_contact(&ground, xt, &cy, at_rot(c.x, c.y, c.z, tilt), 0.01, up, 1e-5,
                  "cylinder, tilted");
    check_contact(&ground, xt, &co, at_rot(c.x, c.y, c.z, tilt), 0.01, up, 1e-5, "cone, tilted");
    /* Apart: 5 cm above. */
    check_gap(&ground, xg, &cy, at(0.3, 1.05, -0.2), 0.05, dv(0, 1, 0), 1e-5, "cylinder above");
    check_gap(&ground, xg, &co, at(0.3, 1.05, -0.2), 0.05, dv(0, 1, 0), 1e-5, "cone above");
}
END_TEST

START_TEST(hull_cube_equals_box)
{
    static col_hull3 h;
    cube_hull(0.5f, true, &h);
    ck_assert_int_eq(h.vert_count, 8);
    ck_assert_int_eq(h.face_count, 6);
    for (int f = 0; f < 6; f++)
        ck_assert_int_eq(h.faces[f].count, 4);
    NEAR(h.volume, 1.0, 1e-6);
    col_shape3 hc = hull_shape(&h), bx = box(0.5f, 0.5f, 0.5f);
    /* Against every shape type, in many placements: the same depth and normal, or gap. */
    static col_hull3 other;
    mk_vec3 op[8] = {{0.4f, 0.1f, 0.2f}, {-0.3f, 0.5f, 0.1f}, {0.1f, -0.4f, 0.3f}, {0.2f, 0.2f, -0.5f},
                     {-0.4f, -0.3f, -0.2f}, {0.5f, -0.1f, -0.3f}, {-0.2f, 0.4f, -0.4f}, {0.0f, 0.0f, 0.6f}};
    make_hull(op, 8, &other);
    col_shape3 others[7] = {sphere(0.4f), box(0.3f, 0.6f, 0.2f), ellipsoid(0.5f, 0.3f, 0.4f),
                            capsule(0.3f, 0.5f), cylinder(0.4f, 0.3f), cone(0.4f, 0.5f),
                            hull_shape(&other)};
    rng_state = 0xC0BEull;
    for (int i = 0; i < 700; i++) {
        const col_shape3 *o = &others[i % 7];
        col_xf3 xa = at_rot(rnd(-1, 1), rnd(-1, 1), rnd(-1, 1), rnd_quat());
        dvec d = dscale(rnd_unit(), rnd(0.2, 1.6));
        col_xf3 xo = at_rot(xa.p.x + d.x, xa.p.y + d.y, xa.p.z + d.z, rnd_quat());
        col_manifold3 mh = col_collide3(&hc, xa, o, xo), mb = col_collide3(&bx, xa, o, xo);
        double tol = polytope(o->type) ? 1e-5 : 1e-4;
        EXPECT(fabs(signed_sep(mh) - signed_sep(mb)) <= tol,
               "cube hull vs box against %s: %.9g and %.9g", type_name(o->type),
               signed_sep(mh), signed_sep(mb));
        /* The same normals between polytopes; against a curved shape, where the minimum can
         * be flat, the hull's normal must be as good a minimum translation for the box. */
        if (fabs(signed_sep(mb)) > 1e-3 && polytope(o->type))
            EXPECT(angle_between(dof(mh.normal), dof(mb.normal)) <= 1e-3,
                   "cube hull vs box against %s: normals differ by %g rad", type_name(o->type),
                   angle_between(dof(mh.normal), dof(mb.normal)));
        static world_shape wbx, wo;
        world_of(&bx, xa, &wbx);
        world_of(o, xo, &wo);
        double hh = h_dir(&wbx, &wo, dof(mh.normal));
        EXPECT(hh <= signed_sep(mb) + tol, "cube hull vs box against %s: h(hull's normal) %.9g, "
               "box's separation %.9g", type_name(o->type), hh, signed_sep(mb));
    }
}
END_TEST

START_TEST(tiny_against_huge)
{
    /* 1:1000: shapes of 0.1 m against a box and a hull of 100 m half extent, 5 cm deep. */
    col_shape3 ground = box(100, 100, 100);
    static col_hull3 big, small;
    cube_hull(100.0f, false, &big);
    cube_hull(0.1f, true, &small);
    col_shape3 hb = hull_shape(&big);
    col_shape3 tiny[6] = {sphere(0.1f), box(0.1f, 0.1f, 0.1f), ellipsoid(0.1f, 0.1f, 0.1f),
                          cylinder(0.1f, 0.1f), cone(0.1f, 0.1f), hull_shape(&small)};
    for (int g = 0; g < 2; g++)
        for (int i = 0; i < 6; i++) {
            char what[64];
            snprintf(what, sizeof what, "%s on a huge %s", type_name(tiny[i].type),
                     g ? "hull" : "box");
            const col_shape3 *big_shape = g ? &hb : &ground;
            check_contact(big_shape, at(0, 0, 0), &tiny[i], at(3, 100.05, -7), 0.05,
                          dv(0, 1, 0), 1e-5, what);
            check_gap(big_shape, at(0, 0, 0), &tiny[i], at(3, 100.13, -7), 0.03, dv(0, 1, 0),
                      1e-5, what);
        }
}
END_TEST

START_TEST(deep_overlap)
{
    /* Cube hulls nearly on top of each other: the least overlap is along x (0.9). */
    static col_hull3 c;
    cube_hull(0.5f, false, &c);
    col_shape3 hc = hull_shape(&c), bx = box(0.5f, 0.5f, 0.5f);
    check_contact(&hc, at(0, 0, 0), &hc, at(0.1, 0.05, 0.02), 0.9, dv(1, 0, 0), 1e-5,
                  "hull in hull");
    check_contact(&bx, at(0, 0, 0), &hc, at(0.1, 0.05, 0.02), 0.9, dv(1, 0, 0), 1e-5,
                  "hull in box");
    /* A sphere around the centre of an ellipsoid: out along the ellipsoid's thinnest radius. */
    col_shape3 e = ellipsoid(1.0f, 0.4f, 0.7f), s = sphere(0.2f);
    check_contact(&e, at(0, 0, 0), &s, at(0, 0.01, 0), 0.6 - 0.01, dv(0, 1, 0), 1e-4,
                  "sphere in ellipsoid");
    /* Same centres: a capsule in a cylinder, out sideways (r + r). */
    col_shape3 cap = capsule(0.2f, 0.3f), cy = cylinder(0.5f, 2.0f);
    col_manifold3 m = col_collide3(&cy, at(0, 0, 0), &cap, at(0.05, 0, 0));
    NEAR(m.depth, 0.65, 1e-4);
    NEAR(m.normal.x, 1.0, 1e-3);
}
END_TEST

/* Two cones 0.25 mm apart, the closest points at A's apex crease: GJK stops there on a
 * repeated point with the gap right but its direction 1e-4 rad off (h along it was -1.8e-5 m
 * for a gap of 2.54e-4 m). The gap's normal must achieve the gap, in either order. */
START_TEST(cones_apart_at_a_crease)
{
    col_shape3 a = cone(0.339966714f, 0.485393047f), b = cone(0.301249415f, 0.762280524f);
    col_xf3 xa = {mk_v3(-0.14016661f, -0.748005688f, 1.20704687f),
                  {-0.647772491f, 0.2263598f, -0.299311131f, -0.662996888f}};
    col_xf3 xb = {mk_v3(-0.571412861f, -0.879437923f, 1.65370011f),
                  {-0.0256129056f, -0.433436692f, -0.0670394748f, 0.898321927f}};
    static world_shape wa, wb;
    world_of(&a, xa, &wa);
    world_of(&b, xb, &wb);
    col_manifold3 m = col_collide3(&a, xa, &b, xb), w = col_collide3(&b, xb, &a, xa);
    ck_assert_int_eq(m.count, 0);
    ck_assert_int_eq(w.count, 0);
    NEAR(m.distance, 2.5383e-4, 1e-6);
    NEAR(w.distance, 2.5383e-4, 1e-6);
    double hm = h_dir(&wa, &wb, dof(m.normal)), hw = h_dir(&wa, &wb, dscale(dof(w.normal), -1));
    EXPECT(hm <= -m.distance + 1e-6, "h(normal) %.9g, gap %.9g", hm, (double)m.distance);
    EXPECT(hw <= -w.distance + 1e-6, "swapped: h(-normal) %.9g, gap %.9g", hw, (double)w.distance);
}
END_TEST

/* A ball deep in a flat cone, its centre 0.3 mm off the axis: every side line is about as
 * deep, and the least depth is out through the side nearest the centre, a radian along the
 * side crease from where EPA ends (the crease's Newton steps were refused as too long, and
 * the compass search stopped 3e-5 m short). Exact: the centre's distance to the side plus
 * the radius. */
START_TEST(ball_near_a_cone_axis)
{
    col_shape3 a = cone(0.736891031f, 0.248471618f), b = sphere(0.248156965f);
    col_xf3 xa = {mk_v3(1.37480342f, -1.72968459f, 0.473492354f),
                  {0.394150347f, 0.423801035f, 0.694709897f, 0.427102238f}};
    col_xf3 xb = {mk_v3(1.3737042f, -1.73053885f, 0.477414966f),
                  {-0.364344001f, 0.879983306f, -0.0258041006f, -0.303672433f}};
    mk_vec3 c = col_xf3_apply_inv(xa, xb.p);
    double r = a.radius, h = a.half_height, rho = sqrt((double)c.x * c.x + (double)c.z * c.z);
    double side = -(2 * h * rho + r * ((double)c.y - h)) / sqrt(4 * h * h + r * r);
    double depth = fmin(side, (double)c.y + h) + b.radius;
    col_manifold3 m = col_collide3(&a, xa, &b, xb);
    ck_assert_int_eq(m.count, 1);
    NEAR(m.depth, depth, 1e-6);
}
END_TEST

/* ---- 2. hulls ---- */

/* A hull made of `pts`: vertices are input points, each on three or more faces; faces are
 * planar, convex, counter-clockwise about their outward unit normal, with every input point
 * on or below them; Euler's V - E + F = 2 holds; volume and centroid match a tetrahedron fan
 * computed here. */
static void check_hull(const mk_vec3 *pts, int n, const col_hull3 *h)
{
    EXPECT(h->vert_count >= 4 && h->vert_count <= n, "%d points, %d vertices", n, h->vert_count);
    int edges2 = 0;
    double scale = 0;
    for (int i = 0; i < n; i++)
        scale = fmax(scale, dlen(dof(pts[i])));
    double tol = 1e-5 * scale;
    for (int i = 0; i < h->vert_count; i++) {
        bool found = false;
        for (int k = 0; k < n && !found; k++)
            found = h->verts[i].x == pts[k].x && h->verts[i].y == pts[k].y &&
                    h->verts[i].z == pts[k].z;
        EXPECT(found, "vertex %d is not an input point", i);
    }
    dvec c0 = dof(h->verts[0]);
    double vol = 0;
    dvec cen = dv(0, 0, 0);
    int on_faces[COL_MAX_HULL3_VERTS] = {0};
    for (int f = 0; f < h->face_count; f++) {
        const col_hull3_face *fc = &h->faces[f];
        dvec n0 = dof(fc->normal);
        NEAR(dlen(n0), 1.0, 1e-6);
        EXPECT(fc->count >= 3, "face %d has %d vertices", f, fc->count);
        edges2 += fc->count;
        for (int k = 0; k < fc->count; k++) {
            int i = h->indices[fc->first + k];
            on_faces[i]++;
            dvec a = dof(h->verts[i]), b = dof(h->verts[h->indices[fc->first + (k + 1) % fc->count]]);
            dvec c = dof(h->verts[h->indices[fc->first + (k + 2) % fc->count]]);
            NEAR(ddot(n0, a), fc->offset, tol);
            /* Strictly convex, counter-clockwise seen from outside. */
            EXPECT(ddot(dcross(dsub(b, a), dsub(c, b)), n0) > 0, "face %d not convex CCW at %d", f, k);
        }
        for (int k = 0; k < n; k++)
            EXPECT(ddot(n0, dof(pts[k])) <= fc->offset + tol, "input point %d above face %d",
                   k, f);
        dvec a = dof(h->verts[h->indices[fc->first]]);
        for (int k = 1; k + 1 < fc->count; k++) {
            dvec b = dof(h->verts[h->indices[fc->first + k]]);
            dvec c = dof(h->verts[h->indices[fc->first + k + 1]]);
            double v6 = ddot(dsub(a, c0), dcross(dsub(b, c0), dsub(c, c0)));
            vol += v6 / 6;
            cen = dadd(cen, dscale(dadd(dadd(dsub(a, c0), dsub(b, c0)), dsub(c, c0)), v6 / 24));
        }
    }
    for (int i = 0; i < h->vert_count; i++)
        EXPECT(on_faces[i] >= 3, "vertex %d is on %d faces", i, on_faces[i]);
    ck_assert_int_eq(h->vert_count - edges2 / 2 + h->face_count, 2);
    NEAR(h->volume, vol, 1e-5 * fmax(1, vol));
    NEAR(h->centroid.x, c0.x + cen.x / vol, 1e-5 * scale);
    NEAR(h->centroid.y, c0.y + cen.y / vol, 1e-5 * scale);
    NEAR(h->centroid.z, c0.z + cen.z / vol, 1e-5 * scale);
}

START_TEST(hull_cube_from_noisy_points)
{
    mk_vec3 pts[32];
    int n = cube_points(1.0f, true, pts);
    static col_hull3 h;
    make_hull(pts, n, &h);
    check_hull(pts, n, &h);
    ck_assert_int_eq(h.vert_count, 8);
    ck_assert_int_eq(h.face_count, 6);
    NEAR(h.volume, 8.0, 1e-5);
    /* Any order of the same points: the same vertex set. */
    rng_state = 0xABCDull;
    for (int perm = 0; perm < 20; perm++) {
        for (int i = n - 1; i > 0; i--) {
            int j = rnd_int(i + 1);
            mk_vec3 t = pts[i];
            pts[i] = pts[j];
            pts[j] = t;
        }
        make_hull(pts, n, &h);
        ck_assert_int_eq(h.vert_count, 8);
        ck_assert_int_eq(h.face_count, 6);
    }
    /* An octahedron with points on its faces: 6 vertices, 8 triangles. */
    mk_vec3 oct[10] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1},
                       {1 / 3.0f, 1 / 3.0f, 1 / 3.0f}, {0.5f, 0, 0.5f}, {0, 0, 0}, {0, -1, 0}};
    make_hull(oct, 10, &h);
    check_hull(oct, 10, &h);
    ck_assert_int_eq(h.vert_count, 6);
    ck_assert_int_eq(h.face_count, 8);
    NEAR(h.volume, 4.0 / 3.0, 1e-6);
}
END_TEST

START_TEST(hull_random_clouds)
{
    rng_state = 0x5EED3Dull;
    static col_hull3 h;
    int made = 0;
    for (int set = 0; set < 300; set++) {
        mk_vec3 pts[COL_MAX_HULL3_INPUT];
        int n = set % 10 == 0 ? COL_MAX_HULL3_INPUT : 4 + rnd_int(60);
        bool on_sphere = set % 3 == 0;
        for (int i = 0; i < n; i++) {
            dvec u = on_sphere ? rnd_unit() : dv(rnd(-1, 1), rnd(-0.5, 0.5), rnd(-2, 2));
            pts[i] = mk_v3((float)u.x, (float)u.y, (float)u.z);
        }
        if (set % 4 == 1) /* repeats */
            for (int i = 0; i + 1 < n; i += 5)
                pts[i + 1] = pts[i];
        mk_error why = {0};
        if (col_hull3_make(pts, n, &h, &why) != 0)
            continue; /* a thin random set */
        made++;
        check_hull(pts, n, &h);
    }
    ck_assert_int_gt(made, 250);
}
END_TEST

static const char *refusal(const mk_vec3 *pts, int n)
{
    static col_hull3 h;
    static mk_error why;
    why.message[0] = '\0';
    EXPECT(col_hull3_make(pts, n, &h, &why) == -1, "%d points accepted", n);
    EXPECT(why.message[0] != '\0', "no reason given");
    return why.message;
}

static void expect_words(const char *why, const char *word)
{
    char low[160];
    size_t i = 0;
    for (; why[i] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)why[i]);
    low[i] = '\0';
    EXPECT(strstr(low, word) != NULL, "reason \"%s\" does not mention \"%s\"", why, word);
}

START_TEST(hull_refusals)
{
    mk_vec3 pts[COL_MAX_HULL3_INPUT + 1];
    for (int i = 0; i < COL_MAX_HULL3_INPUT + 1; i++)
        pts[i] = mk_v3((float)cos(i), (float)sin(i * 1.3), (float)cos(i * 0.7));
    expect_words(refusal(pts, 3), "at least 4");
    expect_words(refusal(pts, COL_MAX_HULL3_INPUT + 1), "at most");
    mk_vec3 bad[5] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {NAN, 0, 0}};
    expect_words(refusal(bad, 5), "not finite");
    bad[4] = mk_v3(INFINITY, 0, 0);
    expect_words(refusal(bad, 5), "not finite");
    mk_vec3 same[6] = {{1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {2, 2, 3}, {1, 2, 3}};
    expect_words(refusal(same, 6), "distinct");
    mk_vec3 line[6] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {-1, -1, -1}, {0.5f, 0.5f, 0.5f}, {3, 3, 3}};
    expect_words(refusal(line, 6), "collinear");
    mk_vec3 flat[6] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0.5f, 0.2f, 0}, {3, -1, 0}};
    expect_words(refusal(flat, 6), "coplanar");
    /* A slab 1e-4 m thick (half width 5e-5 < COL_MIN_HALF). */
    mk_vec3 thin[8];
    for (int i = 0; i < 8; i++)
        thin[i] = mk_v3(i & 1 ? 1.0f : -1.0f, i & 2 ? 1e-4f : 0.0f, i & 4 ? 1.0f : -1.0f);
    expect_words(refusal(thin, 8), "thinner");
    mk_vec3 huge[8];
    for (int i = 0; i < 8; i++)
        huge[i] = mk_v3(i & 1 ? 2e4f : -2e4f, i & 2 ? 1.0f : 0.0f, i & 4 ? 1.0f : -1.0f);
    expect_words(refusal(huge, 8), "larger");
}
END_TEST

START_TEST(shape_checks)
{
    mk_error why = {0};
    col_shape3 good[6] = {sphere(0.5f), box(1, 2, 3), ellipsoid(0.1f, 0.2f, 0.3f),
                          capsule(0.2f, 0.5f), cylinder(0.3f, 1), cone(0.4f, 0.6f)};
    for (int i = 0; i < 6; i++)
        EXPECT(col_shape3_check(&good[i], &why) == 0, "%s refused: %s",
               type_name(good[i].type), why.message);
    col_shape3 bad[8] = {sphere(0), sphere(NAN), box(1, -1, 1), ellipsoid(1, 1, INFINITY),
                         capsule(0.2f, 0), cylinder(2e4f, 1), cone(0.5f, 1e-4f),
                         {.type = COL_SHAPE3_HULL, .hull = NULL}};
    const char *words[8] = {"radius", "not finite", "y half", "not finite",
                            "half height", "radius", "half height", "hull"};
    for (int i = 0; i < 8; i++) {
        why.message[0] = '\0';
        EXPECT(col_shape3_check(&bad[i], &why) == -1, "bad shape %d accepted", i);
        expect_words(why.message, words[i]);
    }
}
END_TEST

/* ---- 3. quaternions, bounds, mass properties ---- */

START_TEST(quaternion_from_client)
{
    mk_quat q;
    ck_assert(mk_quat_normalize_checked((mk_quat){0, 0, 0, 2}, &q));
    NEAR(q.w, 1.0, 0);
    ck_assert(mk_quat_normalize_checked((mk_quat){1e-5f, 0, 0, 1e-5f}, &q));
    NEAR(q.x, sqrt(0.5), 1e-7);
    ck_assert(mk_quat_normalize_checked((mk_quat){3e38f, 3e38f, 0, 0}, &q));
    NEAR(q.y, sqrt(0.5), 1e-7);
    ck_assert(!mk_quat_normalize_checked((mk_quat){0, 0, 0, 0}, &q));
    ck_assert(!mk_quat_normalize_checked((mk_quat){1e-30f, 0, 0, 0}, &q));
    ck_assert(!mk_quat_normalize_checked((mk_quat){NAN, 0, 0, 1}, &q));
    ck_assert(!mk_quat_normalize_checked((mk_quat){0, INFINITY, 0, 1}, &q));
    /* Rotating (1, 0, 0) by 90 degrees about z gives (0, 1, 0). */
    mk_vec3 v = mk_quat_rotate(rot(0, 0, 1, PI / 2), mk_v3(1, 0, 0));
    NEAR(v.x, 0, 1e-7);
    NEAR(v.y, 1, 1e-7);
    mk_mat3 m = mk_m3_from_quat(rot(0, 0, 1, PI / 2));
    v = mk_m3_mul_v(m, mk_v3(1, 0, 0));
    NEAR(v.y, 1, 1e-7);
}
END_TEST

/* A shape of each type with random sizes; hulls are stored in `store`. Returns its reach. */
static void random_shape(col_shape3_type type, col_hull3 *store, col_shape3 *out)
{
    switch (type) {
    case COL_SHAPE3_SPHERE:
        *out = sphere((float)rnd(0.2, 1.0));
        break;
    case COL_SHAPE3_BOX:
        *out = box((float)rnd(0.2, 1.0), (float)rnd(0.2, 1.0), (float)rnd(0.2, 1.0));
        break;
    case COL_SHAPE3_ELLIPSOID:
        *out = ellipsoid((float)rnd(0.2, 1.0), (float)rnd(0.2, 1.0), (float)rnd(0.2, 1.0));
        break;
    case COL_SHAPE3_CAPSULE:
        *out = capsule((float)rnd(0.15, 0.6), (float)rnd(0.1, 0.8));
        break;
    case COL_SHAPE3_CYLINDER:
        *out = cylinder((float)rnd(0.2, 0.8), (float)rnd(0.1, 0.8));
        break;
    case COL_SHAPE3_CONE:
        *out = cone((float)rnd(0.2, 0.8), (float)rnd(0.2, 0.8));
        break;
    case COL_SHAPE3_HULL:
    default: {
        mk_error why = {0};
        for (;;) {
            mk_vec3 pts[24];
            int n = 5 + rnd_int(16);
            double ax = rnd(0.2, 1.0), ay = rnd(0.2, 1.0), az = rnd(0.2, 1.0);
            for (int i = 0; i < n; i++) {
                dvec u = rnd_unit();
                double r = rnd(0.6, 1.0);
                pts[i] = mk_v3((float)(ax * r * u.x), (float)(ay * r * u.y), (float)(az * r * u.z));
            }
            if (col_hull3_make(pts, n, store, &why) == 0)
                break;
        }
        *out = hull_shape(store);
        break;
    }
    }
}

/* The bounding radius about the shape's origin, from the test's own support along 64 spread
 * directions, grown by a fifth. */
static double reach_of(const col_shape3 *s)
{
    static dvec dirs[64];
    static bool ready;
    if (!ready) {
        for (int k = 0; k < 64; k++)
            dirs[k] = dv(cos(k * 0.7) * sin(k * 0.3), sin(k * 0.7) * sin(k * 0.3), cos(k * 0.3));
        ready = true;
    }
    static world_shape w;
    world_of(s, at(0, 0, 0), &w);
    double r = 0;
    for (int k = 0; k < 64; k++)
        r = fmax(r, support(&w, dirs[k]));
    return r * 1.2;
}

START_TEST(bounds_and_support)
{
    rng_state = 0xB0B0ull;
    static col_hull3 store;
    for (int i = 0; i < 3500; i++) {
        col_shape3 s;
        random_shape((col_shape3_type)(i % COL_SHAPE3_COUNT), &store, &s);
        col_xf3 x = at_rot(rnd(-50, 50), rnd(-50, 50), rnd(-50, 50), rnd_quat());
        world_shape w;
        world_of(&s, x, &w);
        col_aabb3 bb = col_shape3_bounds(&s, x);
        dvec axes[3] = {dv(1, 0, 0), dv(0, 1, 0), dv(0, 0, 1)};
        double c[3] = {bb.center.x, bb.center.y, bb.center.z}, h[3] = {bb.half.x, bb.half.y, bb.half.z};
        for (int k = 0; k < 3; k++) {
            /* 2e-5: float corners of positions up to 50 m (ulp 3.8e-6). */
            NEAR(c[k] + h[k], support(&w, axes[k]), 2e-5);
            NEAR(c[k] - h[k], -support(&w, dscale(axes[k], -1)), 2e-5);
        }
        /* The support point lies on the supporting plane. */
        dvec d = rnd_unit();
        mk_vec3 sp = col_support3(&s, x, mk_v3((float)d.x, (float)d.y, (float)d.z));
        NEAR(ddot(d, dof(sp)), support(&w, d), 3e-5);
    }
}
END_TEST

/* Monte Carlo volume, centroid and inertia from inside tests written here. */
static bool inside(const col_shape3 *s, dvec p)
{
    double r = s->radius, h = s->half_height, rho = sqrt(p.x * p.x + p.z * p.z);
    switch (s->type) {
    case COL_SHAPE3_SPHERE:
        return dlen(p) <= r;
    case COL_SHAPE3_BOX:
        return fabs(p.x) <= s->half.x && fabs(p.y) <= s->half.y && fabs(p.z) <= s->half.z;
    case COL_SHAPE3_ELLIPSOID:
        return pow(p.x / s->half.x, 2) + pow(p.y / s->half.y, 2) + pow(p.z / s->half.z, 2) <= 1;
    case COL_SHAPE3_CAPSULE:
        return dlen(dv(p.x, fmax(fabs(p.y) - h, 0), p.z)) <= r;
    case COL_SHAPE3_CYLINDER:
        return fabs(p.y) <= h && rho <= r;
    case COL_SHAPE3_CONE:
        return fabs(p.y) <= h && rho <= r * (h - p.y) / (2 * h);
    default:
        for (int f = 0; f < s->hull->face_count; f++)
            if (ddot(dof(s->hull->faces[f].normal), p) > s->hull->faces[f].offset)
                return false;
        return true;
    }
}

START_TEST(mass_properties)
{
    mk_vec3 pts[COL_MAX_HULL3_INPUT];
    static col_hull3 hc, hcyl;
    int n = cube_points(0.5f, true, pts);
    make_hull(pts, n, &hc);
    /* A 128-gon prism approximating the cylinder r 0.6, h 0.4. */
    for (int i = 0; i < 128; i++) {
        double t = 2 * PI * i / 128;
        pts[2 * i] = mk_v3((float)(0.6 * cos(t)), 0.4f, (float)(0.6 * sin(t)));
        pts[2 * i + 1] = mk_v3((float)(0.6 * cos(t)), -0.4f, (float)(0.6 * sin(t)));
    }
    make_hull(pts, 256, &hcyl);
    col_shape3 shapes[9] = {sphere(0.7f), box(0.3f, 0.5f, 0.9f), ellipsoid(0.4f, 0.8f, 0.6f),
                            capsule(0.4f, 0.6f), cylinder(0.6f, 0.4f), cone(0.5f, 0.7f),
                            hull_shape(&hc), hull_shape(&hcyl), box(0.5f, 0.5f, 0.5f)};
    /* Exact values for a few: box, cube hull = box, the prism near the cylinder. */
    col_mass3 mb = col_shape3_mass(&shapes[1]);
    NEAR(mb.volume, 8 * 0.3 * 0.5 * 0.9, 1e-6);
    NEAR(mb.inertia.c0.x, mb.volume / 3 * (0.25 + 0.81), 1e-6);
    col_mass3 mh = col_shape3_mass(&shapes[6]), mbox = col_shape3_mass(&shapes[8]);
    NEAR(mh.volume, 1.0, 1e-6);
    NEAR(mh.inertia.c0.x, mbox.inertia.c0.x, 1e-6);
    NEAR(mh.inertia.c1.y, mbox.inertia.c1.y, 1e-6);
    NEAR(mh.inertia.c0.y, 0, 1e-6);
    col_mass3 mp = col_shape3_mass(&shapes[7]), mc = col_shape3_mass(&shapes[4]);
    NEAR(mp.volume / mc.volume, 1.0, 1e-3);
    NEAR(mp.inertia.c1.y / mc.inertia.c1.y, 1.0, 2e-3);
    NEAR(mp.inertia.c0.x / mc.inertia.c0.x, 1.0, 2e-3);
    NEAR(col_shape3_volume(&shapes[5]), PI * 0.25 * 1.4 / 3, 1e-6);
    NEAR(col_shape3_mass(&shapes[5]).centroid.y, -0.35, 1e-6);

    /* Every shape against a Monte Carlo integral over its bounding box (400k samples: ~0.3%
     * on the volume and the inertia, 1 mm on the centroid). */
    rng_state = 0x3A55ull;
    for (int k = 0; k < 8; k++) {
        const col_shape3 *s = &shapes[k];
        col_aabb3 bb = col_shape3_bounds(s, at(0, 0, 0));
        dvec lo = dsub(dof(bb.center), dof(bb.half)), span = dscale(dof(bb.half), 2);
        double cnt = 0, sx = 0, sy = 0, sz = 0, xx = 0, yy = 0, zz = 0, xy = 0;
        const int N = 400000;
        for (int i = 0; i < N; i++) {
            dvec p = dv(lo.x + span.x * rnd(0, 1), lo.y + span.y * rnd(0, 1), lo.z + span.z * rnd(0, 1));
            if (!inside(s, p))
                continue;
            cnt++;
            sx += p.x, sy += p.y, sz += p.z;
            xx += p.x * p.x, yy += p.y * p.y, zz += p.z * p.z, xy += p.x * p.y;
        }
        double boxv = span.x * span.y * span.z, vol = boxv * cnt / N;
        dvec c = dv(sx / cnt, sy / cnt, sz / cnt);
        col_mass3 m = col_shape3_mass(s);
        double dens = boxv / N; /* volume per sample */
        double ixx = dens * (yy + zz) - vol * (c.y * c.y + c.z * c.z);
        double iyy = dens * (xx + zz) - vol * (c.x * c.x + c.z * c.z);
        double ixy = -(dens * xy - vol * c.x * c.y);
        EXPECT(fabs(m.volume / vol - 1) < 0.01, "%s volume %g, Monte Carlo %g", type_name(s->type),
               (double)m.volume, vol);
        NEAR(m.centroid.x, c.x, 5e-3);
        NEAR(m.centroid.y, c.y, 5e-3);
        NEAR(m.centroid.z, c.z, 5e-3);
        EXPECT(fabs(m.inertia.c0.x / ixx - 1) < 0.02 && fabs(m.inertia.c1.y / iyy - 1) < 0.02,
               "%s inertia (%g, %g), Monte Carlo (%g, %g)", type_name(s->type),
               (double)m.inertia.c0.x, (double)m.inertia.c1.y, ixx, iyy);
        NEAR(m.inertia.c1.x, ixy, 0.01 * fabs(ixx) + 1e-4);
    }
}
END_TEST

/* ---- 4. contacts kept across steps ---- */

/* A box sunk 1 mm into a ground box and slid 1 mm: four points both times, the same ids. */
START_TEST(resting_box_keeps_feature_ids)
{
    col_shape3 ground = box(5, 0.5f, 5), cube = box(0.5f, 0.5f, 0.5f);
    static col_hull3 hc;
    cube_hull(0.5f, false, &hc);
    col_shape3 hull_cube = hull_shape(&hc);
    const col_shape3 *cubes[2] = {&cube, &hull_cube};
    for (int c = 0; c < 2; c++)
        for (int tilt = 0; tilt < 2; tilt++)
            for (int first = 0; first < 2; first++) {
                mk_quat q = tilt ? rot(1, 0, 0.5, 0.2) : rot(0, 1, 0, 0);
                world_shape wg;
                col_xf3 xg = at_rot(0, -0.5, 0, q);
                world_of(&ground, xg, &wg);
                col_manifold3 m[2];
                for (int step = 0; step < 2; step++) {
                    dvec p = dadd(wg.p, rapply(&wg, dv(1.0 + 0.001 * step, 0.999, 0.3)));
                    col_xf3 xc = at_rot(p.x, p.y, p.z, q);
                    m[step] = first ? col_collide3(cubes[c], xc, &ground, xg)
                                    : col_collide3(&ground, xg, cubes[c], xc);
                    EXPECT(m[step].count == 4, "cube %d tilt %d first %d step %d: %d points", c,
                           tilt, first, step, m[step].count);
                    NEAR(m[step].depth, 0.001, 2e-6);
                }
                for (int k = 0; k < 4; k++) {
                    bool found = false;
                    for (int j = 0; j < 4; j++) {
                        found = found || m[1].points[j].id == m[0].points[k].id;
                        if (j != k)
                            EXPECT(m[0].points[j].id != m[0].points[k].id, "two points, one id");
                    }
                    EXPECT(found, "cube %d tilt %d first %d: id %#x gone after a 1 mm slide", c,
                           tilt, first, (unsigned)m[0].points[k].id);
                }
            }
}
END_TEST

static col_manifold3 one_point(dvec p, double depth, dvec n)
{
    col_manifold3 m = {0};
    m.count = 1;
    m.normal = mk_v3((float)n.x, (float)n.y, (float)n.z);
    m.depth = (float)depth;
    m.points[0] = (col_contact_point3){mk_v3((float)p.x, (float)p.y, (float)p.z), (float)depth, 7};
    return m;
}

START_TEST(contact_cache_builds_and_drops)
{
    /* A curved body rocking on the ground gives one point per step; the cache gathers them. */
    col_xf3 xa = at(0, 0, 0), xb = at(0, 1, 0);
    col_contact_cache3 c = {0};
    dvec up = dv(0, 1, 0);
    dvec corners[5] = {dv(-0.5, 0, -0.5), dv(0.5, 0, -0.5), dv(0.5, 0, 0.5), dv(-0.5, 0, 0.5),
                       dv(0.05, 0, 0.05)};
    for (int i = 0; i < 5; i++) {
        col_manifold3 f = one_point(corners[i], i < 4 ? 0.01 : 0.005, up);
        c = col_contact_cache3_update(&c, xa, xb, &f, 0.02f);
        ck_assert_int_eq(c.count, i < 4 ? i + 1 : 4);
    }
    /* Of five, the middle one went: the deepest and the corners that span the largest
     * area with it stay. */
    for (int i = 0; i < 4; i++)
        EXPECT(fabs(fabs(c.points[i].c.point.x) - 0.5) < 1e-6, "point %d at x %g kept", i,
               (double)c.points[i].c.point.x);
    /* A fresh point within the threshold of a cached one replaces it. */
    col_manifold3 f = one_point(dv(0.49, 0, 0.49), 0.012, up);
    col_contact_cache3 d = col_contact_cache3_update(&c, xa, xb, &f, 0.02f);
    ck_assert_int_eq(d.count, 4);
    bool replaced = false;
    for (int i = 0; i < 4; i++)
        replaced = replaced || fabs(d.points[i].c.point.x - 0.49) < 1e-6;
    ck_assert(replaced);
    /* B lifted 5 cm: every cached point separated along the normal; only the fresh one. */
    col_xf3 lifted = at(0, 1.05, 0);
    f = one_point(dv(0, 0, 0), 0.001, up);
    d = col_contact_cache3_update(&c, xa, lifted, &f, 0.02f);
    ck_assert_int_eq(d.count, 1);
    /* B slid 3 cm sideways: the points drifted apart beyond the threshold. */
    col_xf3 slid = at(0.03, 1, 0);
    d = col_contact_cache3_update(&c, xa, slid, &f, 0.02f);
    ck_assert_int_eq(d.count, 1);
    /* B slid 1 cm: the points stay, carried by the bodies; their depth follows. */
    col_xf3 near = at(0.01, 0.995, 0);
    f = one_point(dv(0, 0, 0), 0.015, up);
    d = col_contact_cache3_update(&c, xa, near, &f, 0.02f);
    ck_assert_int_eq(d.count, 4);
    for (int i = 0; i < 4; i++)
        NEAR(d.points[i].c.depth, 0.015, 1e-6);
    /* No contact: the cache empties. */
    col_manifold3 none = {0};
    d = col_contact_cache3_update(&c, xa, xb, &none, 0.02f);
    ck_assert_int_eq(d.count, 0);
}
END_TEST

/* ---- 5. random pairs against a brute force ---- */

/* The brute force's minimum of h(d) = the signed separation (depth >= 0, minus the gap < 0):
 *  - two polytopes: exact. Overlapping, the minimum is at a separating-axis candidate (a face
 *    normal of either, or the cross product of two edges); apart (some candidate has
 *    h < 0), the gap is the least distance between a vertex and a face triangle or between
 *    two edges, from the closest-point formulas in double.
 *  - any other pair: the least of h over 400 directions spread over the sphere (a Fibonacci
 *    lattice), each of the best 4 refined by a pattern search (16 directions about it, the
 *    step halved down to 1e-10 rad, turned by the golden angle each round so that no valley
 *    is missed for long). This is an upper bound on the exact minimum, tight where h is
 *    smooth. */
typedef struct brute_result {
    double s;      /* the minimum found */
    dvec d;        /* where */
    bool exact;
    bool tie;      /* another direction 1e-2 rad away or more is as good within 1e-7 */
} brute_result;

#define NFIB 400
#define NSEED 4 /* sampled directions refined */
static dvec fib[NFIB];

static void init_fib(void)
{
    double ga = PI * (3 - sqrt(5.0));
    for (int k = 0; k < NFIB; k++) {
        double z = 1 - (2 * k + 1.0) / NFIB, r = sqrt(1 - z * z);
        fib[k] = dv(r * cos(ga * k), r * sin(ga * k), z);
    }
}

static void basis(dvec d, dvec *u, dvec *v)
{
    dvec a = fabs(d.x) < 0.6 ? dv(1, 0, 0) : dv(0, 1, 0);
    *u = dnorm(dcross(d, a));
    *v = dcross(d, *u);
}

static double refine(const world_shape *A, const world_shape *B, dvec *d)
{
    /* The 16 directions of a round, turned by the golden angle from one round to the next:
     * cos and sin of 2 pi k / 16 once, of the turn once a round. */
    static double c16[16], s16[16];
    if (c16[0] == 0.0)
        for (int k = 0; k < 16; k++)
            c16[k] = cos(2 * PI * k / 16), s16[k] = sin(2 * PI * k / 16);
    double hb = h_dir(A, B, *d), step = 0.03, turn = 0;
    const double golden = PI * (3 - sqrt(5.0));
    for (int evals = 0; step > 1e-10 && evals < 1500;) {
        dvec u, v, best = *d;
        double hbest = hb, ct = cos(turn), st = sin(turn);
        basis(*d, &u, &v);
        for (int k = 0; k < 16; k++, evals++) {
            double ck = c16[k] * ct - s16[k] * st, sk = s16[k] * ct + c16[k] * st;
            dvec c = dnorm(dadd(*d, dadd(dscale(u, step * ck), dscale(v, step * sk))));
            double hc = h_dir(A, B, c);
            if (hc < hbest) {
                hbest = hc;
                best = c;
            }
        }
        turn += golden;
        if (hbest < hb) {
            hb = hbest;
            *d = best;
            step *= 1.5;
        } else {
            step *= 0.5;
        }
    }
    return hb;
}

/* Closest point of segment ab to p: the foot of p on the line, clamped to the segment. */
static dvec closest_on_seg(dvec p, dvec a, dvec b)
{
    dvec ab = dsub(b, a);
    double len2 = ddot(ab, ab);
    double t = len2 > 0 ? fmin(1, fmax(0, ddot(dsub(p, a), ab) / len2)) : 0;
    return dadd(a, dscale(ab, t));
}

/* Closest point of triangle abc to p, in double: the foot of p on the triangle's plane when
 * its barycentric weights are all non-negative (it lies inside), else the nearest of the
 * closest points of the three edges. */
static dvec closest_on_tri(dvec p, dvec a, dvec b, dvec c)
{
    dvec ab = dsub(b, a), ac = dsub(c, a), ap = dsub(p, a);
    double d00 = ddot(ab, ab), d01 = ddot(ab, ac), d11 = ddot(ac, ac);
    double d20 = ddot(ap, ab), d21 = ddot(ap, ac), den = d00 * d11 - d01 * d01;
    if (den > 0) {
        double v = (d11 * d20 - d01 * d21) / den, w = (d00 * d21 - d01 * d20) / den;
        if (v >= 0 && w >= 0 && v + w <= 1)
            return dadd(a, dadd(dscale(ab, v), dscale(ac, w)));
    }
    dvec corner[3] = {a, b, c}, best = a;
    for (int k = 0; k < 3; k++) {
        dvec q = closest_on_seg(p, corner[k], corner[(k + 1) % 3]);
        if (dlen(dsub(q, p)) < dlen(dsub(best, p)))
            best = q;
    }
    return best;
}

/* The closest points of segments p0p1 and q0q1: |p0 + s d1 - q0 - t d2|^2 is a convex
 * quadratic over the unit square, so its minimum is the interior stationary point or lies on
 * one of the four sides, where it is a clamped one-dimensional minimum. */
static double seg_dist(dvec p0, dvec p1, dvec q0, dvec q1, dvec *dir)
{
    dvec d1 = dsub(p1, p0), d2 = dsub(q1, q0), r = dsub(p0, q0);
    double a = ddot(d1, d1), b = ddot(d1, d2), c = ddot(d2, d2), d = ddot(d1, r), e = ddot(d2, r);
    double cs[5], ct[5];
    int n = 0;
    double den = a * c - b * b;
    if (den > 1e-14 * a * c) {
        double s = (b * e - c * d) / den, t = (a * e - b * d) / den;
        if (s >= 0 && s <= 1 && t >= 0 && t <= 1)
            cs[n] = s, ct[n++] = t;
    }
    for (int k = 0; k < 2; k++) {
        cs[n] = k, ct[n] = fmin(1, fmax(0, (b * k + e) / c)), n++;      /* s fixed */
        ct[n] = k, cs[n] = fmin(1, fmax(0, (b * k - d) / a)), n++;      /* t fixed */
    }
    double best = INFINITY;
    for (int i = 0; i < n; i++) {
        dvec g = dsub(dadd(q0, dscale(d2, ct[i])), dadd(p0, dscale(d1, cs[i])));
        if (dlen(g) < best)
            best = dlen(g), *dir = g;
    }
    return best;
}

/* The least distance from a vertex of P to a face triangle of Q; *dir from P's point to Q's
 * (turned around when `flip`). */
static double vertex_face_dist(const world_shape *P, const world_shape *Q, bool flip, dvec *dir)
{
    double best = INFINITY;
    for (int i = 0; i < P->nv; i++)
        for (int f = 0; f < Q->nf; f++) {
            const int *ix = &Q->idx[Q->ffirst[f]];
            for (int k = 1; k + 1 < Q->fcount[f]; k++) {
                dvec c = closest_on_tri(P->v[i], Q->v[ix[0]], Q->v[ix[k]], Q->v[ix[k + 1]]);
                double l = dlen(dsub(c, P->v[i]));
                if (l < best) {
                    best = l;
                    *dir = flip ? dsub(P->v[i], c) : dsub(c, P->v[i]);
                }
            }
        }
    return best;
}

/* The edges of a placed polytope, each once, as vertex index pairs. */
static int edges_of(const world_shape *w, int (*e)[2])
{
    int n = 0;
    for (int f = 0; f < w->nf; f++)
        for (int k = 0; k < w->fcount[f]; k++) {
            int a = w->idx[w->ffirst[f] + k], b = w->idx[w->ffirst[f] + (k + 1) % w->fcount[f]];
            if (a < b) {
                e[n][0] = a;
                e[n++][1] = b;
            }
        }
    return n;
}

#define MAX_EDGES (COL_MAX_HULL3_INDICES / 2)
#define MAX_CAND (2 * COL_MAX_HULL3_FACES + 2 * 64 * 64)

static brute_result brute_force(const world_shape *A, const world_shape *B)
{
    brute_result r = {INFINITY, dv(1, 0, 0), false, false};
    if (A->nv > 0 && B->nv > 0) {
        r.exact = true;
        static int ea[MAX_EDGES][2], eb[MAX_EDGES][2];
        int nea = edges_of(A, ea), neb = edges_of(B, eb);
        /* Candidate axes: faces of A, faces of B turned around, edge crossings both ways. */
        static dvec cand[MAX_CAND];
        static double ch[MAX_CAND];
        int nc = 0;
        for (int f = 0; f < A->nf; f++)
            cand[nc++] = A->fn[f];
        for (int f = 0; f < B->nf; f++)
            cand[nc++] = dscale(B->fn[f], -1);
        for (int i = 0; i < nea; i++)
            for (int j = 0; j < neb && nc + 2 <= MAX_CAND; j++) {
                dvec a = dsub(A->v[ea[i][1]], A->v[ea[i][0]]);
                dvec x = dcross(a, dsub(B->v[eb[j][1]], B->v[eb[j][0]]));
                double l = dlen(x);
                if (l < 1e-9 * dlen(a))
                    continue;
                cand[nc++] = dscale(x, 1 / l);
                cand[nc++] = dscale(x, -1 / l);
            }
        EXPECT(nc < MAX_CAND, "brute force: too many candidate axes");
        int best = 0;
        for (int c = 0; c < nc; c++) {
            ch[c] = h_dir(A, B, cand[c]);
            if (ch[c] < ch[best])
                best = c;
        }
        if (ch[best] >= 0) {
            r.s = ch[best];
            r.d = cand[best];
            for (int c = 0; c < nc; c++)
                if (ch[c] <= r.s + 1e-7 && angle_between(cand[c], r.d) > 1e-2)
                    r.tie = true;
            return r;
        }
        /* Apart: the least distance between a vertex and a face or between two edges. */
        dvec d1 = dv(1, 0, 0), d2 = d1, d3 = d1;
        double g1 = vertex_face_dist(A, B, false, &d1), g2 = vertex_face_dist(B, A, true, &d2);
        double g3 = INFINITY;
        for (int i = 0; i < nea; i++)
            for (int j = 0; j < neb; j++) {
                dvec d = dv(1, 0, 0);
                double g = seg_dist(A->v[ea[i][0]], A->v[ea[i][1]], B->v[eb[j][0]], B->v[eb[j][1]], &d);
                if (g < g3)
                    g3 = g, d3 = d;
            }
        double gap = fmin(g1, fmin(g2, g3));
        r.s = -gap;
        r.d = dnorm(gap == g1 ? d1 : gap == g2 ? d2 : d3);
        /* Two closest pairs in different directions: a tie (rare with random placements). */
        r.tie = gap < 1e-9;
        return r;
    }
    /* Sampled, then the best few refined. */
    int top[NSEED];
    double th[NSEED];
    for (int k = 0; k < NSEED; k++)
        top[k] = -1, th[k] = INFINITY;
    for (int k = 0; k < NFIB; k++) {
        double h = h_dir(A, B, fib[k]);
        int j = NSEED;
        while (j > 0 && h < th[j - 1])
            j--;
        if (j < NSEED) {
            for (int m = NSEED - 1; m > j; m--)
                top[m] = top[m - 1], th[m] = th[m - 1];
            top[j] = k, th[j] = h;
        }
    }
    dvec found[NSEED];
    double fh[NSEED];
    for (int k = 0; k < NSEED; k++) {
        found[k] = fib[top[k]];
        fh[k] = refine(A, B, &found[k]);
        if (fh[k] < r.s)
            r.s = fh[k], r.d = found[k];
    }
    for (int k = 0; k < NSEED; k++)
        if (fh[k] <= r.s + 1e-7 && angle_between(found[k], r.d) > 1e-2)
            r.tie = true;
    return r;
}

typedef struct pair_stats {
    int pairs, hits, misses, near_touch, brute, normals, skipped_normal;
    double err_depth;   /* largest |separation - exact| (exact brute force), or how far ours
                           went above the sampled minimum, on overlapping pairs */
    double err_dist;    /* the same on separated pairs */
    double err_normal;  /* largest angle from the brute force's direction, rad */
    double err_h;       /* largest h(normal) - separation: how far our normal misses ours */
    double err_swap, err_moved;
} pair_stats;

#define MTV_EPS 1e-3 /* m: the push of property (a) */

static void describe(const col_shape3 *s, char *buf, size_t len)
{
    if (s->type == COL_SHAPE3_HULL)
        snprintf(buf, len, "hull of %d vertices", s->hull->vert_count);
    else
        snprintf(buf, len, "%s r %.9g h %.9g half (%.9g, %.9g, %.9g)", type_name(s->type),
                 (double)s->radius, (double)s->half_height, (double)s->half.x,
                 (double)s->half.y, (double)s->half.z);
}

/* The largest amount by which p lies outside the placed shape, seen along 26 directions and
 * `n`: 0 for a point inside. */
static double outside_by(const world_shape *w, dvec p, dvec n)
{
    double worst = ddot(n, p) - support(w, n);
    for (int i = -1; i <= 1; i++)
        for (int j = -1; j <= 1; j++)
            for (int k = -1; k <= 1; k++) {
                if (!i && !j && !k)
                    continue;
                dvec d = dnorm(dv(i, j, k));
                worst = fmax(worst, ddot(d, p) - support(w, d));
            }
    return worst;
}

static void check_pair(const col_shape3 *a, col_xf3 xa, const col_shape3 *b, col_xf3 xb,
                       bool do_brute, pair_stats *st, int idx)
{
    /* Static: large (polytope tables), and the suite runs one test per process. */
    static world_shape wa_s, wb_s;
    world_shape *wa = &wa_s, *wb = &wb_s;
    world_of(a, xa, wa);
    world_of(b, xb, wb);
    bool poly = polytope(a->type) && polytope(b->type);
    col_manifold3 m = col_collide3(a, xa, b, xb);
    double sep = signed_sep(m);
    dvec n = dof(m.normal);
    /* Depth: 1e-5 for polytope pairs, 1e-4 with a curved shape; gaps 1e-5. A cylinder or a
     * cone has creases (rims, an apex) where h is not smooth; the Newton polish after EPA
     * seeks the crease itself (crease3.c), so such pairs are held like any curved pair: depth
     * within 1e-4 m, the target for smooth shapes, gaps within 1e-5 m, and a push short of
     * the depth by eps must leave them overlapping (the measured worst cases are printed per
     * pair type). */
    double tol = sep < 0 ? 1e-5 : poly ? 1e-5 : 1e-4;
    /* After the push out by depth + eps the gap is eps for an exact normal; where h is flat
     * at its minimum (deep, nearly concentric curved pairs) a normal a few 1e-2 rad off is as
     * deep to 1e-6 m but moves B out further: 1e-3 more is allowed with a curved shape. */
    double push_tol = poly ? tol + 1e-6 : fmax(1e-3, tol);
    st->pairs++;
    if (m.count > 0)
        st->hits++;
    else
        st->misses++;
    if (fabs(sep) < 2e-3)
        st->near_touch++;
    char da[160], db[160];
    describe(a, da, sizeof da);
    describe(b, db, sizeof db);
#define PAIR_MSG "pair %d: A %s at (%.9g, %.9g, %.9g) q (%.9g, %.9g, %.9g, %.9g), B %s at (%.9g, %.9g, %.9g) q (%.9g, %.9g, %.9g, %.9g): "
#define PAIR_ARGS                                                                             \
    idx, da, (double)xa.p.x, (double)xa.p.y, (double)xa.p.z, (double)xa.q.x, (double)xa.q.y,   \
        (double)xa.q.z, (double)xa.q.w, db, (double)xb.p.x, (double)xb.p.y, (double)xb.p.z,   \
        (double)xb.q.x, (double)xb.q.y, (double)xb.q.z, (double)xb.q.w

    EXPECT(m.count >= 0 && m.count <= COL_MAX_POINTS3, PAIR_MSG "count %d", PAIR_ARGS, m.count);
    EXPECT(fabs(dlen(n) - 1) <= 1e-5, PAIR_MSG "normal not unit", PAIR_ARGS);
    EXPECT(m.count > 0 || m.distance >= 0, PAIR_MSG "negative gap", PAIR_ARGS);
    /* The normal achieves the separation: h(normal) is the separation along it. */
    double hn = h_dir(wa, wb, n);
    st->err_h = fmax(st->err_h, hn - sep);
    EXPECT(hn <= sep + tol, PAIR_MSG "sep %.9g but h(normal) %.9g", PAIR_ARGS, sep, hn);

    /* (d) the brute force. */
    if (do_brute) {
        brute_result bf = brute_force(wa, wb);
        st->brute++;
        double e = bf.exact ? fabs(sep - bf.s) : sep - bf.s;
        if (bf.s >= 0)
            st->err_depth = fmax(st->err_depth, e);
        else
            st->err_dist = fmax(st->err_dist, e);
        EXPECT(e <= tol, PAIR_MSG "count %d depth %.9g gap %.9g, brute force %.9g (%s)",
               PAIR_ARGS, m.count, (double)m.depth, (double)m.distance, bf.s,
               bf.exact ? "exact" : "sampled");
        /* Normals are compared away from touching, where the minimum is unique: against the
         * exact brute force of polytope pairs, and against the sampled one only where h is
         * smooth (spheres and ellipsoids: elsewhere the pattern search can stop in a crease
         * of h short of the minimum's direction) and sharp: h rises by 1e-6 or more within
         * 1e-3 rad of it (where h is flatter, a direction 1e-3 rad off is as good as the
         * minimum to 1e-6 m: either is a right normal). For every pair, h(normal) is checked
         * against the separation above: the normal achieves the minimum translation. */
        bool smooth = (wa->s->type == COL_SHAPE3_SPHERE || wa->s->type == COL_SHAPE3_ELLIPSOID) &&
                      (wb->s->type == COL_SHAPE3_SPHERE || wb->s->type == COL_SHAPE3_ELLIPSOID);
        bool sharp = bf.exact;
        if (!sharp && smooth && fabs(bf.s) > 1e-3 && !bf.tie) {
            dvec u, v;
            basis(bf.d, &u, &v);
            double ring = INFINITY;
            for (int k = 0; k < 16; k++) {
                double t = 2 * PI * k / 16;
                ring = fmin(ring, h_dir(wa, wb, dnorm(dadd(bf.d, dadd(dscale(u, 1e-3 * cos(t)),
                                                                          dscale(v, 1e-3 * sin(t)))))));
            }
            sharp = ring - bf.s >= 1e-6;
        }
        if (fabs(bf.s) > 1e-3 && fabs(bf.s - sep) <= 1e-5 && !bf.tie && sharp) {
            double ang = angle_between(n, bf.d);
            st->normals++;
            st->err_normal = fmax(st->err_normal, ang);
            EXPECT(ang <= 1e-3, PAIR_MSG "normal (%.7g, %.7g, %.7g), brute force (%.7g, %.7g, %.7g)",
                   PAIR_ARGS, n.x, n.y, n.z, bf.d.x, bf.d.y, bf.d.z);
        } else {
            st->skipped_normal++;
        }
    }

    /* (a) B moved by normal * (depth + eps) only just misses; by normal * (depth - eps) it
     * still overlaps by eps. A miss moved toward A by normal * (gap - eps) is eps away. */
    if (m.count > 0) {
        col_xf3 out = xb;
        out.p = mk_v3_mad(xb.p, m.depth + (float)MTV_EPS, m.normal);
        col_manifold3 o = col_collide3(a, xa, b, out);
        EXPECT(o.count == 0, PAIR_MSG "still touching after the push (depth %.9g)", PAIR_ARGS,
               (double)o.depth);
        EXPECT(o.distance >= MTV_EPS - tol - 1e-6 && o.distance <= MTV_EPS + push_tol,
               PAIR_MSG "gap after the push %.9g", PAIR_ARGS, (double)o.distance);
        if (m.depth > MTV_EPS + 1e-5) {
            out.p = mk_v3_mad(xb.p, m.depth - (float)MTV_EPS, m.normal);
            o = col_collide3(a, xa, b, out);
            EXPECT(o.count > 0, PAIR_MSG "apart before the full push (gap %.9g)", PAIR_ARGS,
                   (double)o.distance);
            EXPECT(o.depth <= MTV_EPS + tol + 1e-6, PAIR_MSG "depth after the short push %.9g",
                   PAIR_ARGS, (double)o.depth);
        }
    } else if (m.distance > MTV_EPS + 1e-5) {
        col_xf3 back = xb;
        back.p = mk_v3_mad(xb.p, -(m.distance - (float)MTV_EPS), m.normal);
        col_manifold3 o = col_collide3(a, xa, b, back);
        EXPECT(o.count == 0 && fabs(o.distance - MTV_EPS) <= (poly ? tol + 1e-6 : push_tol),
               PAIR_MSG "moved to within %g: count %d gap %.9g", PAIR_ARGS, MTV_EPS, o.count,
               (double)o.distance);
    }

    /* (e) contact points: depths in [0, depth], distinct ids, inside both shapes to within
     * the depth. */
    for (int i = 0; i < m.count; i++) {
        col_contact_point3 cp = m.points[i];
        EXPECT(cp.depth >= 0 && cp.depth <= m.depth + 1e-5, PAIR_MSG "point %d depth %.9g",
               PAIR_ARGS, i, (double)cp.depth);
        double oa = outside_by(wa, dof(cp.point), n), ob = outside_by(wb, dof(cp.point), n);
        EXPECT(oa <= m.depth + 1e-4 && ob <= m.depth + 1e-4,
               PAIR_MSG "point %d is %g outside A and %g outside B", PAIR_ARGS, i, oa, ob);
        for (int j = 0; j < i; j++)
            EXPECT(m.points[j].id != cp.id, PAIR_MSG "points %d and %d share id %#x", PAIR_ARGS,
                   j, i, (unsigned)cp.id);
    }

    /* (f) the boolean and the bounded query agree with the exact one: col_overlap3 farther
     * from touching than the exact query's own tolerance; col_collide3_within (2 cm) exact
     * within its margin, beyond it either exact or a lower bound of the gap past the
     * margin. */
    if (fabs(sep) > fmax(1e-4, tol))
        EXPECT(col_overlap3(a, xa, b, xb) == (m.count > 0), PAIR_MSG "col_overlap3 says %d, "
               "separation %.9g", PAIR_ARGS, (int)col_overlap3(a, xa, b, xb), sep);
    if (a->type != COL_SHAPE3_BOX || b->type != COL_SHAPE3_BOX) {
        col_manifold3 wm = col_collide3_within(a, xa, b, xb, 0.02f, 0.0f);
        if (m.count == 0 && m.distance > 0.02f - 1e-5)
            EXPECT(wm.count == 0 && wm.distance <= m.distance + 1e-5 &&
                       (wm.distance > 0.02f || fabs(wm.distance - m.distance) <= 1e-6),
                   PAIR_MSG "within: count %d gap %.9g, exact gap %.9g", PAIR_ARGS, wm.count,
                   (double)wm.distance, (double)m.distance);
        else
            EXPECT(wm.count == m.count && fabs(signed_sep(wm) - sep) <= 1e-6, PAIR_MSG
                   "within: separation %.9g, exact %.9g", PAIR_ARGS, signed_sep(wm), sep);
    }

    /* (b) swap: the same separation, the normal turned around. */
    col_manifold3 w = col_collide3(b, xb, a, xa);
    st->err_swap = fmax(st->err_swap, fabs(signed_sep(w) - sep));
    EXPECT(fabs(signed_sep(w) - sep) <= tol, PAIR_MSG "swapped separation %.9g, unswapped %.9g",
           PAIR_ARGS, signed_sep(w), sep);
    double hw = h_dir(wa, wb, dscale(dof(w.normal), -1));
    EXPECT(hw <= sep + tol, PAIR_MSG "swapped: h(-normal) = %.9g, separation %.9g", PAIR_ARGS,
           hw, sep);
    if (fabs(sep) > 1e-3)
        EXPECT((w.count > 0) == (m.count > 0), PAIR_MSG "swapped count %d, unswapped %d",
               PAIR_ARGS, w.count, m.count);

    /* (c) rigid motion: both turned about the origin and moved by up to 100 m. Positions near
     * 100 m round to 7.6e-6 m in float: 1e-4 allows for that. */
    mk_quat q = rnd_quat();
    dvec shift = dv(rnd(-100, 100), rnd(-100, 100), rnd(-100, 100));
    mk_vec3 pa2 = mk_v3_add(mk_quat_rotate(q, xa.p), mk_v3((float)shift.x, (float)shift.y, (float)shift.z));
    mk_vec3 pb2 = mk_v3_add(mk_quat_rotate(q, xb.p), mk_v3((float)shift.x, (float)shift.y, (float)shift.z));
    mk_quat qa2, qb2;
    ck_assert(mk_quat_normalize_checked(mk_quat_mul(q, xa.q), &qa2));
    ck_assert(mk_quat_normalize_checked(mk_quat_mul(q, xb.q), &qb2));
    col_xf3 xa2 = {pa2, qa2}, xb2 = {pb2, qb2};
    col_manifold3 r = col_collide3(a, xa2, b, xb2);
    st->err_moved = fmax(st->err_moved, fabs(signed_sep(r) - sep));
    EXPECT(fabs(signed_sep(r) - sep) <= fmax(1e-4, tol), PAIR_MSG "moved: separation %.9g, before %.9g",
           PAIR_ARGS, signed_sep(r), sep);
    world_of(a, xa2, wa);
    world_of(b, xb2, wb);
    double hr = h_dir(wa, wb, dof(r.normal));
    EXPECT(hr <= sep + 1e-4 + fmax(1e-4, tol), PAIR_MSG "moved: h(normal) %.9g, separation before %.9g", PAIR_ARGS,
           hr, sep);
#undef PAIR_MSG
#undef PAIR_ARGS
}

/* An ellipsoid on a cone's base rim, near the base's normal: the polish tried the base as a
 * face, the ellipsoid's deepest point fell outside it, and Newton's steps began at the base's
 * normal, where the rim's support point is undefined (they ended 2.7e-5 m deep of the
 * minimum). Against the brute force, which samples and refines directions. */
START_TEST(ellipsoid_on_a_cone_rim)
{
    init_fib();
    col_shape3 a = ellipsoid(0.719477892f, 0.453670263f, 0.65965873f);
    col_shape3 b = cone(0.977474451f, 0.339598596f);
    col_xf3 xa = {mk_v3(-0.718441618f, -0.849309488f, -0.759150326f),
                  {-0.176380575f, -0.0339471735f, 0.476019531f, -0.860896587f}};
    col_xf3 xb = {mk_v3(0.0277119149f, -1.25235367f, -1.59763372f),
                  {0.216751471f, 0.409665406f, 0.631840765f, -0.621265054f}};
    static world_shape wa, wb;
    world_of(&a, xa, &wa);
    world_of(&b, xb, &wb);
    brute_result bf = brute_force(&wa, &wb);
    col_manifold3 m = col_collide3(&a, xa, &b, xb);
    ck_assert_int_eq(m.count, 1);
    EXPECT(m.depth <= bf.s + 2e-6, "depth %.9g, brute force %.9g", (double)m.depth, bf.s);
    EXPECT(h_dir(&wa, &wb, dof(m.normal)) <= m.depth + 1e-6, "h(normal) above the depth");
}
END_TEST

/* A cone and a hull of the given points placed so that they touch: col_collide3 must find
 * them touching (depth or gap at most 1e-6 m). */
static void check_cone_touching_hull(const float (*p)[3], int n, float radius, float half_height,
                                     col_xf3 xa, col_xf3 xb)
{
    mk_vec3 pts[COL_MAX_HULL3_INPUT];
    for (int i = 0; i < n; i++)
        pts[i] = mk_v3(p[i][0], p[i][1], p[i][2]);
    static col_hull3 hl;
    make_hull(pts, n, &hl);
    col_shape3 a = cone(radius, half_height), b = hull_shape(&hl);
    col_manifold3 m = col_collide3(&a, xa, &b, xb);
    EXPECT(m.count == 0 || m.depth <= 1e-6, "depth %.9g of a touching pair", (double)m.depth);
    EXPECT(m.count > 0 || m.distance <= 1e-6, "gap %.9g of a touching pair", (double)m.distance);
}

/* A cone touching a hull (the suite's exactly touching case): the face taken by the polish
 * does not hold the contact, and Newton's steps from EPA's direction alone ended 2.1e-3 m deep;
 * from the face's normal they reach the touching minimum. */
START_TEST(cone_touching_a_hull)
{
    static const float p[17][3] = {
        {0.303647667f, -0.0216931179f, 0.102980047f}, {-0.234600544f, -0.128159314f, -0.0822718367f},
        {-0.511517406f, -0.0202265345f, -0.0254356675f}, {0.513004839f, -0.0346243382f, -0.0236468352f},
        {0.133811012f, -0.0214327555f, 0.195427686f}, {0.340049028f, 0.188740939f, -0.0741514191f},
        {-0.115565062f, -0.0334210508f, -0.210077778f}, {-0.0957030728f, 0.0189411268f, -0.169313118f},
        {0.0233099014f, -0.134787589f, 0.0817397013f}, {-0.359573632f, 0.102638796f, 0.0466571003f},
        {0.201611698f, -0.230994686f, 0.00762333022f}, {-0.323343039f, 0.120417468f, 0.0925469026f},
        {0.294909477f, -0.107345715f, -0.0754860714f}, {0.09578529f, -0.217385754f, 0.0150275091f},
        {-0.356792897f, 0.0224707965f, -0.126247704f}, {-0.0599566512f, 0.204907313f, 0.120134383f},
        {0.18599622f, 0.097303316f, 0.0789322406f},
    };
    col_xf3 xa = {mk_v3(0.737116814f, 1.52214873f, -1.10078621f),
                  {0.673588455f, -0.40322116f, -0.369229555f, -0.497353852f}};
    col_xf3 xb = {mk_v3(0.107871726f, 1.36536896f, -1.4749167f),
                  {0.130961195f, -0.856801391f, 0.455161899f, 0.203882903f}};
    check_cone_touching_hull(p, 17, 0.679016113f, 0.614949584f, xa, xb);
}
END_TEST

/* A thin cone touching a hull at a crease: GJK ends on a segment through the origin, EPA's
 * first polytope is flat and cannot grow, and Newton's steps from its faces stalled at the
 * crease: col_collide3 said 1.0e-3 m deep (the same pair turned and moved: 5.6e-7 m). The
 * crease is sought again where Newton's steps stop. */
START_TEST(thin_cone_touching_a_hull)
{
    static const float p[13][3] = {
        {-0.268079996f, -0.23494868f, -0.290345728f}, {-0.548951864f, 0.16196011f, -0.348111004f},
        {0.750745654f, -0.104686506f, 0.101077393f}, {0.481562108f, -0.100121282f, -0.345593065f},
        {0.0763636902f, 0.00890078209f, -0.364014328f}, {0.340318471f, -0.210895956f, -0.310086042f},
        {0.451686442f, 0.164962724f, -0.365866065f}, {-0.475257069f, -0.0620990507f, 0.38938725f},
        {0.109913737f, -0.0333698802f, 0.4597058f}, {0.281029105f, -0.0636454225f, 0.476654947f},
        {-0.599395156f, 0.157359168f, 0.136613905f}, {0.738665342f, 0.181272358f, -0.0184610337f},
        {-0.572324514f, -0.10270863f, -0.240921333f},
    };
    col_xf3 xa = {mk_v3(-0.154408261f, -0.33398813f, -0.915623426f),
                  {-0.837995112f, 0.212475821f, 0.48273623f, -0.139942825f}};
    col_xf3 xb = {mk_v3(0.416210234f, 0.662719131f, -0.687860429f),
                  {-0.513434529f, -0.0531468242f, -0.405600131f, -0.754353285f}};
    check_cone_touching_hull(p, 13, 0.21109432f, 0.775223553f, xa, xb);
}
END_TEST

START_TEST(booleans_at_known_places)
{
    /* col_overlap3 a millimetre either side of touching, and col_collide3_within (2 cm) at
     * gaps inside and beyond its margin, for pairs whose gap is known from their geometry:
     * B is moved along +y by `gap` from touching. */
    const double mm = 1e-3, e = sqrt(0.5);
    col_shape3 cube = box(0.5f, 0.5f, 0.5f), tip = cone(0.5f, 0.5f), ball = sphere(0.5f);
    col_shape3 rod = capsule(0.25f, 0.5f), egg = ellipsoid(0.5f, 1.0f, 0.5f);
    col_shape3 drum = cylinder(0.5f, 0.5f);
    struct {
        const char *what;
        const col_shape3 *a, *b;
        col_xf3 xa;
        mk_quat qb;
        double touch_y; /* B's centre height at which the two touch */
        double depth;   /* the minimum translation when B is 1 mm lower */
    } cases[] = {
        {"boxes face to face", &cube, &cube, at(0, 0, 0), {0, 0, 0, 1}, 1.0, mm},
        {"boxes edge across edge", &cube, &cube, at_rot(0, 0, 0, rot(1, 0, 0, PI / 4)),
         rot(0, 0, 1, PI / 4), 2 * e, mm},
        /* B upside down, apex on apex: the tips slide apart across the sides, whose slope
         * (radius 0.5 over height 1) makes that 1 mm / sqrt(5) */
        {"cones apex to apex", &tip, &tip, at(0, 0, 0), rot(1, 0, 0, PI), 1.0, mm / sqrt(5.0)},
        /* the capsule lying along x over the ball: cores a point and a segment */
        {"ball under a lying capsule", &ball, &rod, at(0, 0, 0), rot(0, 0, 1, PI / 2), 0.75, mm},
        /* the ellipsoid's tip (y = 1) on the cylinder lying along x, its side down */
        {"egg tip on a drum's side", &egg, &drum, at(0, 0, 0), rot(0, 0, 1, PI / 2), 1.5, mm},
        {"cone apex on a box face", &cube, &tip, at(0, 0, 0), rot(1, 0, 0, PI), 1.0, mm},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const col_shape3 *a = cases[k].a, *b = cases[k].b;
        col_xf3 xa = cases[k].xa;
        double y0 = cases[k].touch_y;
        col_xf3 in = at_rot(0, y0 - mm, 0, cases[k].qb), out = at_rot(0, y0 + mm, 0, cases[k].qb);
        ck_assert_msg(col_overlap3(a, xa, b, in), "%s: 1 mm in, no overlap", cases[k].what);
        ck_assert_msg(!col_overlap3(a, xa, b, out), "%s: 1 mm apart, overlap", cases[k].what);
        ck_assert_msg(col_overlap3(b, in, a, xa) && !col_overlap3(b, out, a, xa),
                      "%s: swapped, another answer", cases[k].what);
        /* Within the margin: the exact gap; beyond it, a lower bound past the margin. */
        col_manifold3 m = col_collide3_within(a, xa, b, at_rot(0, y0 + 0.01, 0, cases[k].qb),
                                              0.02f, 0.0f);
        ck_assert_msg(m.count == 0 && fabs(m.distance - 0.01) <= 1e-5,
                      "%s: 1 cm apart, count %d gap %.9g", cases[k].what, m.count,
                      (double)m.distance);
        NEAR(m.normal.y, 1.0, 1e-3);
        m = col_collide3_within(a, xa, b, at_rot(0, y0 + 0.5, 0, cases[k].qb), 0.02f, 0.0f);
        ck_assert_msg(m.count == 0 && m.distance > 0.02f && m.distance <= 0.5 + 1e-5,
                      "%s: 50 cm apart, count %d bound %.9g", cases[k].what, m.count,
                      (double)m.distance);
        m = col_collide3_within(a, xa, b, in, 0.02f, 0.0f);
        ck_assert_msg(m.count > 0 && fabs(m.depth - cases[k].depth) <= 1e-5,
                      "%s: 1 mm in, count %d depth %.9g", cases[k].what, m.count,
                      (double)m.depth);
    }
}
END_TEST

#define PAIRS_PER_TYPE 10000
#define BRUTE_EVERY 40 /* the brute force on two pairs in 40 (one near touching): 500 per type */

/* One unordered pair of types per iteration; A and B take turns being the first. */
START_TEST(random_pairs)
{
    int k = 0, ta = 0, tb = 0;
    for (int i = 0; i < COL_SHAPE3_COUNT; i++)
        for (int j = i; j < COL_SHAPE3_COUNT; j++)
            if (k++ == _i)
                ta = i, tb = j;
    init_fib();
    rng_state = 0x9E3779B97F4A7C15ull ^ (uint64_t)(_i + 1) * 0x100000001B3ull;
    static col_hull3 ha, hb;
    pair_stats st = {0};
    double spread = 0.85; /* B's distance: up to this share of the summed reaches */
    for (int i = 0; i < PAIRS_PER_TYPE; i++) {
        /* About as many hits as misses for every pair type, whatever their fill. */
        if (i > 0 && i % 100 == 0)
            spread *= st.hits > st.misses ? 1.05 : 0.95;
        col_shape3 a, b;
        bool flip = i % 2;
        random_shape((col_shape3_type)(flip ? tb : ta), &ha, &a);
        random_shape((col_shape3_type)(flip ? ta : tb), &hb, &b);
        double reach = reach_of(&a) + reach_of(&b);
        col_xf3 xa = at_rot(rnd(-2, 2), rnd(-2, 2), rnd(-2, 2), rnd_quat());
        dvec off = dscale(rnd_unit(), rnd(0.0, spread) * reach);
        col_xf3 xb = at_rot(xa.p.x + off.x, xa.p.y + off.y, xa.p.z + off.z, rnd_quat());
        if (i % 4 == 0) {
            /* Near touching: B moved along the normal to a separation of g in [-1, 1] mm
             * (exactly touching for one in eight). */
            col_manifold3 m = col_collide3(&a, xa, &b, xb);
            double g = i % 32 == 0 ? 0.0 : rnd(-1e-3, 1e-3);
            double t = signed_sep(m) + g;
            xb.p = mk_v3_mad(xb.p, (float)t, m.normal);
        }
        check_pair(&a, xa, &b, xb, i % BRUTE_EVERY == 0 || i % BRUTE_EVERY == 13, &st, i);
    }
    ck_assert_int_eq(st.pairs, PAIRS_PER_TYPE);
    EXPECT(st.hits > PAIRS_PER_TYPE / 4 && st.misses > PAIRS_PER_TYPE / 4, "%s-%s: %d hits, %d misses",
           type_name(ta), type_name(tb), st.hits, st.misses);
    ck_assert_int_gt(st.near_touch, PAIRS_PER_TYPE / 5);
    if (polytope(ta) && polytope(tb))
        EXPECT(st.normals > st.brute / 4, "%s-%s: only %d of %d normals compared",
               type_name(ta), type_name(tb), st.normals, st.brute);
    fprintf(stderr,
            "shapes3 %-9s %-9s %5d pairs %5d hits %5d misses %5d near; brute %4d: depth err %.2e "
            "gap err %.2e normal err %.2e rad (%d compared); h(n)-sep %.2e swap %.2e moved %.2e\n",
            type_name(ta), type_name(tb), st.pairs, st.hits, st.misses, st.near_touch, st.brute,
            st.err_depth, st.err_dist, st.err_normal, st.normals, st.err_h, st.err_swap,
            st.err_moved);
}
END_TEST

MINK_CHECK_SUITE("shapes3", s)
{
    MINK_TCASE(s, "exact", 30, sphere_sphere_exact, sphere_box_exact, box_box_face_and_edge,
               capsule_capsule_exact, resting_on_a_box, hull_cube_equals_box, tiny_against_huge,
               deep_overlap, cones_apart_at_a_crease, ball_near_a_cone_axis,
               ellipsoid_on_a_cone_rim, cone_touching_a_hull, thin_cone_touching_a_hull,
               booleans_at_known_places, resting_box_keeps_feature_ids,
               contact_cache_builds_and_drops);

    MINK_TCASE(s, "hull", 30, hull_cube_from_noisy_points, hull_random_clouds, hull_refusals,
               shape_checks, quaternion_from_client, bounds_and_support, mass_properties);

    TCase *props = tcase_create("random");
    tcase_add_loop_test(props, random_pairs, 0, COL_SHAPE3_COUNT * (COL_SHAPE3_COUNT + 1) / 2);
    tcase_set_timeout(props, 60);
    suite_add_tcase(s, props);
}
