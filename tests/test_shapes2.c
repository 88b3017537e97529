/* mink_collision: the 2D shape API (aabb, box, circle, polygon) through col_polygon_make and
 * col_collide2. Hand-computed cases with known answers, the seed example of "Minkowski
 * Collisions - I Want My Game To Have Slopes!", and properties over random pairs checked
 * against a brute-force Minkowski support written here, in double, from the shapes' vertices. */
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
#define SQRT2 1.41421356237309504880


/* ---- shapes and transforms ---- */

static col_shape2 aabb_shape(float hx, float hy)
{
    return (col_shape2){.type = COL_SHAPE_AABB, .half = {hx, hy}};
}
static col_shape2 box_shape(float hx, float hy)
{
    return (col_shape2){.type = COL_SHAPE_BOX, .half = {hx, hy}};
}
static col_shape2 circle_shape(float r)
{
    return (col_shape2){.type = COL_SHAPE_CIRCLE, .radius = r};
}
static col_shape2 polygon_shape(const col_polygon *p)
{
    return (col_shape2){.type = COL_SHAPE_POLYGON, .polygon = p};
}
static col_xf2 xf(float x, float y, float angle) { return (col_xf2){mk_v2(x, y), angle}; }

/* The world position of the local point (lx, ly) of a shape placed at `t` (double rotation). */
static mk_vec2 place(col_xf2 t, double lx, double ly)
{
    double c = cos((double)t.angle), s = sin((double)t.angle);
    return mk_v2((float)(t.p.x + c * lx - s * ly), (float)(t.p.y + s * lx + c * ly));
}
/* The direction (lx, ly) turned by the angle of `t`. */
static mk_vec2 turn(col_xf2 t, double lx, double ly)
{
    double c = cos((double)t.angle), s = sin((double)t.angle);
    return mk_v2((float)(c * lx - s * ly), (float)(s * lx + c * ly));
}

/* A polygon that must be accepted. */
static col_polygon make_poly(const mk_vec2 *pts, int n)
{
    col_polygon p;
    mk_error why = {0};
    int rc = col_polygon_make(pts, n, &p, &why);
    EXPECT(rc == 0, "col_polygon_make refused %d points: %s", n, why.message);
    return p;
}

static const char *type_name(col_shape_type t)
{
    static const char *names[] = {"aabb", "box", "circle", "polygon"};
    return t < COL_SHAPE_COUNT ? names[t] : "?";
}

/* The shape's parameters, for failure messages: enough to rebuild it. */
static const char *shape_desc(const col_shape2 *s, char *buf, size_t len)
{
    if (s->type == COL_SHAPE_CIRCLE) {
        snprintf(buf, len, "circle r %.9g", (double)s->radius);
    } else if (s->type != COL_SHAPE_POLYGON) {
        snprintf(buf, len, "%s half (%.9g, %.9g)", type_name(s->type), (double)s->half.x,
                 (double)s->half.y);
    } else {
        size_t at = (size_t)snprintf(buf, len, "polygon");
        for (int i = 0; i < s->polygon->count && at < len; i++)
            at += (size_t)snprintf(buf + at, len - at, " (%.9g, %.9g)",
                                   (double)s->polygon->verts[i].x, (double)s->polygon->verts[i].y);
    }
    return buf;
}

/* The signed separation of a manifold: depth when touching, minus the gap when apart. */
static double signed_sep(col_manifold2 m) { return m.count > 0 ? m.depth : -m.distance; }

/* ---- the test's own geometry, in double ---- */

typedef struct dvec {
    double x, y;
} dvec;

static dvec dv(double x, double y) { return (dvec){x, y}; }
static dvec dsub(dvec a, dvec b) { return dv(a.x - b.x, a.y - b.y); }
static double ddot(dvec a, dvec b) { return a.x * b.x + a.y * b.y; }
static double dcross(dvec a, dvec b) { return a.x * b.y - a.y * b.x; }
static double dlen(dvec a) { return sqrt(a.x * a.x + a.y * a.y); }
static dvec dof(mk_vec2 v) { return dv(v.x, v.y); }
/* The angle between two directions, rad. */
static double angle_between(dvec a, dvec b) { return fabs(atan2(dcross(a, b), ddot(a, b))); }

/* A shape placed in the world: a convex polygon (n vertices, counter-clockwise) or a circle
 * (n == 1, the centre, with its radius). */
typedef struct world_shape {
    int n;
    dvec v[COL_MAX_POLYGON];
    dvec nrm[COL_MAX_POLYGON]; /* outward unit normal of edge v[i] -> v[i + 1] */
    double radius;
} world_shape;

static world_shape world_of(const col_shape2 *s, col_xf2 t)
{
    world_shape w;
    memset(&w, 0, sizeof w);
    dvec p = dof(t.p);
    if (s->type == COL_SHAPE_CIRCLE) {
        w.n = 1;
        w.v[0] = p;
        w.radius = s->radius;
        return w;
    }
    dvec local[COL_MAX_POLYGON];
    if (s->type == COL_SHAPE_POLYGON) {
        w.n = s->polygon->count;
        for (int i = 0; i < w.n; i++)
            local[i] = dof(s->polygon->verts[i]);
    } else {
        double hx = s->half.x, hy = s->half.y;
        w.n = 4;
        local[0] = dv(-hx, -hy);
        local[1] = dv(hx, -hy);
        local[2] = dv(hx, hy);
        local[3] = dv(-hx, hy);
    }
    /* An AABB never turns, whatever the transform's angle. */
    double a = s->type == COL_SHAPE_AABB ? 0.0 : (double)t.angle;
    double c = cos(a), sn = sin(a);
    for (int i = 0; i < w.n; i++)
        w.v[i] = dv(p.x + c * local[i].x - sn * local[i].y, p.y + sn * local[i].x + c * local[i].y);
    for (int i = 0; i < w.n; i++) {
        dvec e = dsub(w.v[(i + 1) % w.n], w.v[i]);
        double l = dlen(e);
        w.nrm[i] = dv(e.y / l, -e.x / l);
    }
    return w;
}

/* The support function max_{x in X} d.x of a placed shape. */
static double support(const world_shape *w, dvec d)
{
    double best = -INFINITY;
    for (int i = 0; i < w->n; i++)
        best = fmax(best, ddot(d, w->v[i]));
    return best + w->radius * dlen(d);
}

/* h(d) = max_{a in A} d.a - min_{b in B} d.b: the support of the Minkowski difference A - B. */
static double h_dir(const world_shape *A, const world_shape *B, dvec d)
{
    return support(A, d) + support(B, dv(-d.x, -d.y));
}

/* The distance from a point to a placed shape (0 inside). */
static double dist_to_shape(const world_shape *w, dvec q)
{
    if (w->n == 1)
        return fmax(0.0, dlen(dsub(q, w->v[0])) - w->radius);
    bool inside = true;
    double best = INFINITY;
    for (int i = 0; i < w->n; i++) {
        dvec a = w->v[i], b = w->v[(i + 1) % w->n];
        if (ddot(w->nrm[i], dsub(q, a)) > 0.0)
            inside = false;
        dvec e = dsub(b, a);
        double t = fmin(1.0, fmax(0.0, ddot(dsub(q, a), e) / ddot(e, e)));
        best = fmin(best, dlen(dsub(q, dv(a.x + t * e.x, a.y + t * e.y))));
    }
    return inside ? 0.0 : best;
}

/* ---- brute force over directions ---- */

#define NDIR 4096
/* Two directions tie when their h differ by less than this: float rounding in the library
 * (~1e-6 m at these sizes, and its bias of a few float epsilons toward A's faces) may then
 * pick either. */
#define TIE_EPS 3e-6

static double dir_c[NDIR], dir_s[NDIR];

static void init_dirs(void)
{
    for (int k = 0; k < NDIR; k++) {
        dir_c[k] = cos(2.0 * PI * k / NDIR);
        dir_s[k] = sin(2.0 * PI * k / NDIR);
    }
}

/* The vertex of `w` furthest along (dx, dy). */
static int support_index(const world_shape *w, double dx, double dy)
{
    int i = 0;
    for (int j = 1; j < w->n; j++)
        if (dx * w->v[j].x + dy * w->v[j].y > dx * w->v[i].x + dy * w->v[i].y)
            i = j;
    return i;
}

/* The smallest h over the NDIR sampled directions (2 pi k / NDIR), and its k. As the direction
 * turns counter-clockwise, the support vertex of a counter-clockwise polygon only moves
 * forward: each walks from where it was instead of being searched again (O(NDIR + n)). */
static double sampled_min(const world_shape *A, const world_shape *B, int *kbest)
{
    int ia = support_index(A, 1, 0), ib = support_index(B, -1, 0);
    double best = INFINITY;
    for (int k = 0; k < NDIR; k++) {
        double c = dir_c[k], s = dir_s[k];
        double ha = c * A->v[ia].x + s * A->v[ia].y;
        for (int j = ia + 1 == A->n ? 0 : ia + 1; c * A->v[j].x + s * A->v[j].y > ha;
             j = j + 1 == A->n ? 0 : j + 1) {
            ia = j;
            ha = c * A->v[j].x + s * A->v[j].y;
        }
        /* B's support against the direction: its lowest point along (c, s). */
        double lb = c * B->v[ib].x + s * B->v[ib].y;
        for (int j = ib + 1 == B->n ? 0 : ib + 1; c * B->v[j].x + s * B->v[j].y < lb;
             j = j + 1 == B->n ? 0 : j + 1) {
            ib = j;
            lb = c * B->v[j].x + s * B->v[j].y;
        }
        double h = ha - lb + A->radius + B->radius;
        if (h < best) {
            best = h;
            *kbest = k;
        }
    }
    return best;
}

typedef struct brute_result {
    double s;  /* min over unit d of h(d): the depth when >= 0, minus the gap when < 0 */
    dvec d;    /* a minimising direction: the normal from A toward B */
    bool tie;  /* another candidate more than 1e-3 rad away is as good within TIE_EPS */
    double len; /* the minimiser joins two points this far apart (INFINITY: a face normal) */
} brute_result;

/* How far a normal may turn from the exact one through float rounding. A face normal is good to
 * a few 1e-7 rad; a direction between two points `len` apart, with coordinates of a few metres
 * rounded to ~5e-7 m, turns by up to ~2e-6 / len rad. Below 10 um it says nothing: not compared. */
static bool normal_comparable(const brute_result *bf) { return !bf->tie && bf->len >= 1e-5; }
static double normal_tol(const brute_result *bf, double base)
{
    return fmax(base, 2e-6 / bf->len);
}

typedef struct candidate {
    dvec d;
    double len; /* length of the vector between the two points it joins; INFINITY for a face */
    double h;
} candidate;

#define MAX_CAND (COL_MAX_POLYGON * COL_MAX_POLYGON + 2 * COL_MAX_POLYGON)

/* The exact minimum of h over unit directions lies at one of these directions: where the
 * origin is nearest a face of A - B (for polygons: a face normal of A or a negated face normal
 * of B), or nearest one of its vertices a - b, or (with circles) nearest the rounded corner
 * around a - c: in both cases the direction from a point of A to a point of B, where a point is
 * a vertex or a circle's centre. The dense sample checks that nothing was missed. */
static brute_result brute_force(const world_shape *A, const world_shape *B)
{
    static candidate cand[MAX_CAND];
    int nc = 0;
    if (A->radius == 0.0)
        for (int i = 0; i < A->n; i++)
            cand[nc++] = (candidate){A->nrm[i], INFINITY, 0.0};
    if (B->radius == 0.0)
        for (int j = 0; j < B->n; j++)
            cand[nc++] = (candidate){dv(-B->nrm[j].x, -B->nrm[j].y), INFINITY, 0.0};
    for (int i = 0; i < A->n; i++)
        for (int j = 0; j < B->n; j++) {
            dvec e = dsub(B->v[j], A->v[i]);
            double l = dlen(e);
            if (l > 1e-12)
                cand[nc++] = (candidate){dv(e.x / l, e.y / l), l, 0.0};
        }

    brute_result r = {INFINITY, dv(1, 0), false, INFINITY};
    int best = -1;
    for (int c = 0; c < nc; c++) {
        cand[c].h = h_dir(A, B, cand[c].d);
        if (best < 0 || cand[c].h < cand[best].h ||
            (cand[c].h == cand[best].h && cand[c].len > cand[best].len))
            best = c;
    }

    int kbest = 0;
    double sampled = sampled_min(A, B, &kbest);

    if (best < 0) { /* concentric circles: every direction is as good */
        r.s = sampled;
        r.d = dv(dir_c[kbest], dir_s[kbest]);
        r.tie = true;
        return r;
    }
    /* The candidates hold the exact minimum, so no sampled direction may go below it. */
    EXPECT(sampled >= cand[best].h - 1e-9,
           "brute force: a sampled direction (%g) beats every candidate (%g)", sampled,
           cand[best].h);
    r.s = cand[best].h;
    r.d = cand[best].d;
    r.len = cand[best].len;
    for (int c = 0; c < nc; c++)
        if (cand[c].h <= r.s + TIE_EPS && angle_between(cand[c].d, r.d) > 1e-3)
            r.tie = true;
    return r;
}


/* ---- hull properties ---- */

static bool same_point(mk_vec2 a, mk_vec2 b) { return a.x == b.x && a.y == b.y; }

/* `got` lists the same points as `want`, in the same cyclic order (any start). */
static bool same_cycle(const mk_vec2 *got, int ng, const mk_vec2 *want, int nw)
{
    if (ng != nw)
        return false;
    for (int s = 0; s < ng; s++) {
        bool all = true;
        for (int i = 0; i < ng && all; i++)
            all = same_point(got[(s + i) % ng], want[i]);
        if (all)
            return true;
    }
    return false;
}

/* A hull made of `pts`: its vertices are input points, counter-clockwise and strictly convex
 * (no three on a line), every input point is inside or on it, its normals are the outward unit
 * normals of its edges, and its area and centroid are those of the vertices (shoelace). */
static void check_hull(const mk_vec2 *pts, int n, const col_polygon *p)
{
    EXPECT(p->count >= 3 && p->count <= COL_MAX_POLYGON && p->count <= n,
           "%d points gave a hull of %d vertices", n, p->count);
    double area2 = 0.0, cx = 0.0, cy = 0.0;
    for (int i = 0; i < p->count; i++) {
        bool found = false;
        for (int k = 0; k < n && !found; k++)
            found = same_point(p->verts[i], pts[k]);
        EXPECT(found, "hull vertex %d (%g, %g) is not an input point", i,
               (double)p->verts[i].x, (double)p->verts[i].y);
        dvec a = dof(p->verts[i]), b = dof(p->verts[(i + 1) % p->count]);
        dvec c = dof(p->verts[(i + 2) % p->count]);
        EXPECT(dcross(dsub(b, a), dsub(c, b)) > 0.0,
               "hull not strictly convex counter-clockwise at vertex %d",
               (i + 1) % p->count);
        dvec e = dsub(b, a);
        double l = dlen(e);
        NEAR(p->normals[i].x, e.y / l, 1e-5);
        NEAR(p->normals[i].y, -e.x / l, 1e-5);
        for (int k = 0; k < n; k++)
            EXPECT(dcross(e, dsub(dof(pts[k]), a)) >= -(COL_WELD_DISTANCE + 1e-6) * l,
                   "input point %d (%g, %g) outside the hull edge %d", k,
                   (double)pts[k].x, (double)pts[k].y, i);
        double cr = dcross(a, b);
        area2 += cr;
        cx += (a.x + b.x) * cr;
        cy += (a.y + b.y) * cr;
    }
    double area = 0.5 * area2;
    NEAR(p->area, area, 1e-5 * fmax(1.0, area));
    NEAR(p->centroid.x, cx / (3.0 * area2), 1e-5);
    NEAR(p->centroid.y, cy / (3.0 * area2), 1e-5);
}

/* ---- 1. the seed example and the hull builder ---- */

START_TEST(seed_minkowski_hexagon)
{
    const mk_vec2 a[3] = {{1, 1}, {3, 1}, {2, 2}}, b[3] = {{2, 1}, {4, 1}, {3, 2}};
    mk_vec2 diff[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            diff[3 * i + j] = mk_v2_sub(a[i], b[j]);
    col_polygon md = make_poly(diff, 9);
    check_hull(diff, 9, &md);
    /* (-1, 0) appears three times and is inside; the six others are the hull, CCW. */
    const mk_vec2 hex[6] = {{-3, 0}, {-2, -1}, {0, -1}, {1, 0}, {0, 1}, {-2, 1}};
    ck_assert_int_eq(md.count, 6);
    EXPECT(same_cycle(md.verts, md.count, hex, 6), "not the seed's hexagon, CCW");
    /* Area by hand: the rectangle x in [-2, 0], y in [-1, 1] (4) and two triangles of base 2 and
     * height 1 (1 each): 6. The shoelace terms 3 + 2 + 1 + 1 + 2 + 3 = 12 agree. Centroid:
     * (4 * -1 + 1 * -7/3 + 1 * 1/3) / 6 = -1, on the x axis by symmetry. */
    NEAR(md.area, 6.0, 1e-6);
    NEAR(md.centroid.x, -1.0, 1e-6);
    NEAR(md.centroid.y, 0.0, 1e-6);
    /* The difference contains the origin: the triangles collide. */
    for (int i = 0; i < md.count; i++)
        ck_assert(mk_v2_dot(md.normals[i], mk_v2_neg(md.verts[i])) < 0.0f);

    /* The origin is sqrt(2)/2 from the edges x + y = 1 and x - y = 1, 1 from y = +-1 and
     * 3/sqrt(2) from the left edges: the depth is sqrt(2)/2 along (1, 1) or (1, -1), a tie. */
    col_polygon pa = make_poly(a, 3), pb = make_poly(b, 3);
    col_shape2 sa = polygon_shape(&pa), sb = polygon_shape(&pb);
    col_manifold2 m = col_collide2(&sa, xf(0, 0, 0), &sb, xf(0, 0, 0));
    ck_assert_int_ge(m.count, 1);
    ck_assert_int_le(m.count, 2);
    NEAR(m.depth, SQRT2 / 2, 1e-6);
    NEAR(m.normal.x, SQRT2 / 2, 1e-6);
    NEAR(fabs(m.normal.y), SQRT2 / 2, 1e-6);
}
END_TEST

START_TEST(hull_drops_duplicates_collinear_and_interior)
{
    /* A square given with its corners twice, its edge midpoints, points on its edges and
     * points inside, in no particular order. */
    const mk_vec2 pts[] = {{0, 0},  {1, 1},   {-1, 0}, {1, -1},   {0, 1}, {-1, -1}, {1, 1},
                           {1, 0},  {0, -1},  {-1, 1}, {0.5f, 1}, {1, -1}, {0.25f, 0.3f},
                           {-1, -1}, {-0.5f, -1}, {1, 0.75f}, {-1, 1}, {0.9f, -0.9f}};
    int n = (int)(sizeof pts / sizeof pts[0]);
    col_polygon p = make_poly(pts, n);
    check_hull(pts, n, &p);
    const mk_vec2 square[4] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    ck_assert_int_eq(p.count, 4);
    EXPECT(same_cycle(p.verts, p.count, square, 4), "not the square, CCW");
    NEAR(p.area, 4.0, 1e-6);
    NEAR(p.centroid.x, 0.0, 1e-6);
    NEAR(p.centroid.y, 0.0, 1e-6);
    /* Each normal is an axis: which one follows from the edge. */
    for (int i = 0; i < 4; i++) {
        mk_vec2 mid = mk_v2_scale(mk_v2_add(p.verts[i], p.verts[(i + 1) % 4]), 0.5f);
        NEAR(p.normals[i].x, mid.x, 1e-6);
        NEAR(p.normals[i].y, mid.y, 1e-6);
    }

    /* A triangle with points along all three edges and a repeated vertex. */
    const mk_vec2 tri[] = {{0, 0}, {2, 0}, {0, 2}, {1, 0}, {1, 1}, {0, 1}, {0.5f, 1.5f},
                           {2, 0}, {0.5f, 0}, {0, 0.25f}, {0.2f, 0.2f}};
    int nt = (int)(sizeof tri / sizeof tri[0]);
    p = make_poly(tri, nt);
    check_hull(tri, nt, &p);
    const mk_vec2 want[3] = {{0, 0}, {2, 0}, {0, 2}};
    EXPECT(same_cycle(p.verts, p.count, want, 3), "not the triangle, CCW");
    NEAR(p.area, 2.0, 1e-6);
    NEAR(p.centroid.x, 2.0 / 3.0, 1e-6);
    NEAR(p.centroid.y, 2.0 / 3.0, 1e-6);
}
END_TEST

START_TEST(hull_start_point_irrelevant)
{
    rng_state = 0x5eed5eedull;
    for (int set = 0; set < 200; set++) {
        mk_vec2 pts[16];
        int n = 3 + rnd_int(14);
        for (int i = 0; i < n; i++)
            pts[i] = mk_v2((float)rnd(-1, 1), (float)rnd(-1, 1));
        if (set % 2) /* a few repeated points too */
            pts[n - 1] = pts[0];
        col_polygon first;
        mk_error why = {0};
        if (col_polygon_make(pts, n, &first, &why) != 0)
            continue; /* a thin random set: nothing to compare */
        check_hull(pts, n, &first);
        for (int perm = 0; perm < 10; perm++) {
            /* Rotate the list, then shuffle it: another first point, another order. */
            mk_vec2 q[16];
            int shift = rnd_int(n);
            for (int i = 0; i < n; i++)
                q[i] = pts[(i + shift) % n];
            if (perm % 2)
                for (int i = n - 1; i > 0; i--) {
                    int j = rnd_int(i + 1);
                    mk_vec2 t = q[i];
                    q[i] = q[j];
                    q[j] = t;
                }
            col_polygon p;
            ck_assert_int_eq(col_polygon_make(q, n, &p, &why), 0);
            EXPECT(same_cycle(p.verts, p.count, first.verts, first.count),
                   "set %d: another order of the same points gives another hull", set);
        }
    }
}
END_TEST

/* ---- the textbook hull, in double, by another method than Mink's (Andrew's monotone chain):
 * gift wrapping (Jarvis's march) ---- */

typedef struct ref_pt {
    double x, y;
} ref_pt;

static double ref_cross(ref_pt o, ref_pt a, ref_pt b)
{
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

static double ref_dist2(ref_pt a, ref_pt b)
{
    return (b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y);
}

/* The hull of pts, counter-clockwise, into out (room for 2 n); returns its vertex count. From
 * the lowest of the leftmost points, each next corner is the point no other point lies right
 * of the way to, the farthest of them when several lie on that way (so that points on an edge
 * are not corners), until the wrap is back where it began. */
static int ref_hull(const mk_vec2 *pts, int n, mk_vec2 *out)
{
    ref_pt p[COL_MAX_HULL_INPUT];
    int start = 0;
    for (int i = 0; i < n; i++) {
        p[i] = (ref_pt){pts[i].x, pts[i].y};
        if (p[i].x < p[start].x || (p[i].x == p[start].x && p[i].y < p[start].y))
            start = i;
    }
    int k = 0, at = start;
    do {
        out[k++] = mk_v2((float)p[at].x, (float)p[at].y);
        int next = -1;
        for (int i = 0; i < n; i++) {
            if (ref_dist2(p[at], p[i]) == 0)
                continue;
            double c = next < 0 ? -1 : ref_cross(p[at], p[next], p[i]);
            if (c < 0 || (c == 0 && ref_dist2(p[at], p[i]) > ref_dist2(p[at], p[next])))
                next = i;
        }
        if (next < 0) /* one distinct point */
            break;
        at = next;
    } while (ref_dist2(p[at], p[start]) != 0 && k < n);
    return k;
}

/* Random sets of points with interior points, points given two or three times and points on
 * the hull's edges, shuffled: Mink's hull is the textbook hull, vertex for vertex, in the
 * same counter-clockwise cycle, and so are its area and its normals (check_hull). */
START_TEST(hull_is_the_textbook_hull)
{
    rng_state = 0x0c7a90a1ull;
    int compared = 0;
    for (int set = 0; set < 2000; set++) {
        mk_vec2 pts[64];
        int n = 3 + rnd_int(24);
        for (int i = 0; i < n; i++)
            pts[i] = mk_v2((float)rnd(-1, 1), (float)rnd(-1, 1));
        int extra = rnd_int(12);
        for (int e = 0; e < extra; e++) {
            int kind = rnd_int(3);
            mk_vec2 a = pts[rnd_int(n)], b = pts[rnd_int(n)];
            if (kind == 0) /* a point again (some three times) */
                pts[n++] = a;
            else if (kind == 1) /* a point inside, near the centre */
                pts[n++] = mk_v2((float)rnd(-0.2, 0.2), (float)rnd(-0.2, 0.2));
            else /* between two points: inside, or on an edge when they are hull neighbours */
                pts[n++] = mk_v2(0.5f * (a.x + b.x), 0.5f * (a.y + b.y));
        }
        /* Random points closer than the weld distance, or three nearly on a line, would make
         * Mink's hull differ from the textbook's on purpose: such sets are not compared. */
        bool close = false;
        for (int i = 0; i < n && !close; i++)
            for (int j = i + 1; j < n && !close; j++)
                close = (pts[i].x != pts[j].x || pts[i].y != pts[j].y) &&
                        fabs(pts[i].x - pts[j].x) <= 2e-4 && fabs(pts[i].y - pts[j].y) <= 2e-4;
        mk_vec2 want[2 * 64];
        int nw = ref_hull(pts, n, want);
        for (int i = 0; i < nw && !close; i++) {
            mk_vec2 a = want[(i + nw - 1) % nw], b = want[i], c = want[(i + 1) % nw];
            double len = hypot(c.x - a.x, c.y - a.y);
            close = fabs((c.x - a.x) * ((double)b.y - a.y) - (c.y - a.y) * ((double)b.x - a.x)) /
                        len <= 2e-4;
        }
        if (close || nw < 3)
            continue;
        for (int i = n - 1; i > 0; i--) {
            int j = rnd_int(i + 1);
            mk_vec2 t = pts[i];
            pts[i] = pts[j];
            pts[j] = t;
        }
        mk_error why = {0};
        col_polygon p;
        EXPECT(col_polygon_make(pts, n, &p, &why) == 0, "set %d refused: %s", set, why.message);
        check_hull(pts, n, &p);
        EXPECT(same_cycle(p.verts, p.count, want, nw),
               "set %d: %d vertices, the textbook hull has %d", set, p.count, nw);
        compared++;
    }
    EXPECT(compared >= 1800, "only %d of 2000 sets compared", compared);
}
END_TEST

/* A fine octagon given with a repeated point and interior points, which gift wrapping in
 * float refused ("could not be wrapped into a convex hull"). */
START_TEST(hull_octagon_with_repeats_and_interior)
{
    const mk_vec2 pts[] = {{-0.043526f, -0.012811f}, {0.54002f, 0.87961f},
                           {-0.138839f, -1.050899f}, {-0.601282f, 0.66037f},
                           {0.616045f, -0.215166f},  {0.213951f, 0.874344f},
                           {-0.091769f, -0.357767f}, {-0.000227f, 0.053406f},
                           {-0.82439f, -0.271784f},  {-0.138839f, -1.050899f},
                           {-0.049598f, -1.104252f}, {0.28322349999999996f, -0.659709f},
                           {-0.602866f, -0.637459f}};
    int n = (int)(sizeof pts / sizeof pts[0]);
    col_polygon p = make_poly(pts, n);
    check_hull(pts, n, &p);
    /* The nine distinct points' hull has eight corners (checked by hand on a plot):
     * (-0.043526, -0.012811), (-0.091769, -0.357767), (-0.000227, 0.053406) and
     * (0.2832235, -0.659709) are inside, and (-0.138839, -1.050899) is given twice. */
    const mk_vec2 octagon[8] = {{-0.82439f, -0.271784f}, {-0.602866f, -0.637459f},
                                {-0.138839f, -1.050899f}, {-0.049598f, -1.104252f},
                                {0.616045f, -0.215166f},  {0.54002f, 0.87961f},
                                {0.213951f, 0.874344f},   {-0.601282f, 0.66037f}};
    ck_assert_int_eq(p.count, 8);
    EXPECT(same_cycle(p.verts, p.count, octagon, 8), "not the octagon, CCW");
    /* The textbook hull of the points as floats: (0.2832235, -0.659709) is the midpoint of the
     * edge (-0.049598, -1.104252) - (0.616045, -0.215166), rounded to float a hair outside it,
     * where the textbook keeps it as a ninth corner and Mink welds it onto the edge. */
    mk_vec2 want[32];
    int nw = ref_hull(pts, n, want);
    ck_assert_int_eq(nw, 9);
    mk_vec2 a = octagon[3], b = octagon[4], mid = pts[11];
    double off = ((double)b.x - a.x) * ((double)mid.y - a.y) - ((double)b.y - a.y) * ((double)mid.x - a.x);
    EXPECT(fabs(off) / hypot((double)b.x - a.x, (double)b.y - a.y) < COL_WELD_DISTANCE,
           "the midpoint is %g m off the edge", fabs(off));
}
END_TEST

/* Box2D's ShortEdge shape: a 10 mm x 2 mm triangle is a polygon, with its area. */
START_TEST(hull_small_triangle)
{
    const mk_vec2 tri[3] = {{0, 0}, {0.01f, 0}, {0.005f, 0.002f}};
    col_polygon p = make_poly(tri, 3);
    check_hull(tri, 3, &p);
    ck_assert_int_eq(p.count, 3);
    NEAR(p.area, 1e-5, 1e-10);
    NEAR(p.centroid.x, 0.005, 1e-7);
    NEAR(p.centroid.y, 0.002 / 3.0, 1e-7);
}
END_TEST

/* `s` contains one of the words (case-insensitive). */
static bool mentions(const char *s, const char *const *words)
{
    char low[256];
    size_t n = strlen(s);
    if (n >= sizeof low)
        n = sizeof low - 1;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)tolower((unsigned char)s[i]);
    low[n] = '\0';
    for (; *words; words++)
        if (strstr(low, *words))
            return true;
    return false;
}

/* col_polygon_make refuses the points with -1 and a reason naming one of the words. */
static void expect_refusal(const mk_vec2 *pts, int n, const char *const *words, const char *what)
{
    col_polygon p;
    mk_error why = {0};
    memset(&why, 0, sizeof why);
    int rc = col_polygon_make(pts, n, &p, &why);
    EXPECT(rc == -1, "%s: accepted (rc %d), expected a refusal", what, rc);
    EXPECT(why.message[0] != '\0', "%s: refused without a reason", what);
    EXPECT(mentions(why.message, words), "%s: the reason \"%s\" does not say why", what,
           why.message);
}

START_TEST(hull_refusals)
{
    static mk_vec2 pts[COL_MAX_HULL_INPUT + 1];
    col_polygon p;
    mk_error why = {0};

    const char *few[] = {"few", "least", "3", "need", NULL};
    expect_refusal(pts, 0, few, "no points");
    const mk_vec2 two[2] = {{0, 0}, {1, 1}};
    expect_refusal(two, 2, few, "two points");
    /* Three points of which two are equal: only two distinct points (or a line). */
    const mk_vec2 dup[3] = {{0, 0}, {1, 1}, {0, 0}};
    const char *few_or_line[] = {"few", "least", "3", "distinct", "line", "collinear", NULL};
    expect_refusal(dup, 3, few_or_line, "two distinct points");

    /* 257 points of a 16 x 16 grid plus one: too many. 256 are fine (the hull is a square). */
    for (int i = 0; i < COL_MAX_HULL_INPUT + 1; i++)
        pts[i] = mk_v2((float)(i % 16), (float)(i / 16 % 16));
    const char *many[] = {"many", "most", "256", NULL};
    expect_refusal(pts, COL_MAX_HULL_INPUT + 1, many, "257 points");
    ck_assert_int_eq(col_polygon_make(pts, COL_MAX_HULL_INPUT, &p, &why), 0);
    ck_assert_int_eq(p.count, 4);
    NEAR(p.area, 225.0, 1e-4);

    const char *finite[] = {"finite", "nan", "inf", NULL};
    mk_vec2 bad[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    bad[2].x = NAN;
    expect_refusal(bad, 4, finite, "a NaN coordinate");
    bad[2].x = 1;
    bad[3].y = INFINITY;
    expect_refusal(bad, 4, finite, "an infinite coordinate");
    bad[3].y = 1;
    bad[0].x = -INFINITY;
    expect_refusal(bad, 4, finite, "a -infinite coordinate");

    const char *line[] = {"line", "collinear", NULL};
    const mk_vec2 on_line[5] = {{0, 1}, {2, 5}, {1, 3}, {-1, -1}, {0.5f, 2}}; /* y = 2x + 1 */
    expect_refusal(on_line, 5, line, "points on y = 2x + 1");

    /* 65 points on a circle of radius 10 are all hull vertices (the sagitta between neighbours
     * is 10 * (1 - cos(pi / 65)) = 1.2 cm): one too many. 64 are accepted. */
    for (int i = 0; i < COL_MAX_POLYGON + 1; i++) {
        double t = 2.0 * PI * i / (COL_MAX_POLYGON + 1);
        pts[i] = mk_v2((float)(10 * cos(t)), (float)(10 * sin(t)));
    }
    const char *verts[] = {"vert", "64", "hull", NULL};
    expect_refusal(pts, COL_MAX_POLYGON + 1, verts, "65 hull vertices");
    for (int i = 0; i < COL_MAX_POLYGON; i++) {
        double t = 2.0 * PI * i / COL_MAX_POLYGON;
        pts[i] = mk_v2((float)(10 * cos(t)), (float)(10 * sin(t)));
    }
    ck_assert_int_eq(col_polygon_make(pts, COL_MAX_POLYGON, &p, &why), 0);
    ck_assert_int_eq(p.count, COL_MAX_POLYGON);

    /* Thin is not degenerate: a 4 m x 1.9 mm rectangle and a triangle 1.5 mm high over its
     * 3 m side are polygons. Points within the weld distance (0.01 mm) of a line are on it:
     * a 4 m x 0.005 mm rectangle has no area. */
    const mk_vec2 sliver[4] = {{-2, 0}, {2, 0}, {2, 0.0019f}, {-2, 0.0019f}};
    ck_assert_int_eq(col_polygon_make(sliver, 4, &p, &why), 0);
    NEAR(p.area, 4 * 0.0019, 1e-7);
    const mk_vec2 needle[3] = {{0, 0}, {3, 0}, {1, 0.0015f}};
    ck_assert_int_eq(col_polygon_make(needle, 3, &p, &why), 0);
    ck_assert_int_eq(p.count, 3);
    const mk_vec2 hair[4] = {{-2, 0}, {2, 0}, {2, 0.000005f}, {-2, 0.000005f}};
    expect_refusal(hair, 4, few_or_line, "a 0.005 mm hair");
    const mk_vec2 bent[3] = {{-2, 0}, {2, 0}, {0, 0.000005f}};
    expect_refusal(bent, 3, line, "a 0.005 mm bend");

    /* A square 40 km across (half extent 2e4 m from its centre and from the origin) is too
     * large; one 8 km across is fine. */
    const char *large[] = {"large", "big", "extent", "across", NULL};
    const mk_vec2 huge[4] = {{-2e4f, -2e4f}, {2e4f, -2e4f}, {2e4f, 2e4f}, {-2e4f, 2e4f}};
    expect_refusal(huge, 4, large, "a 40 km square");
    const mk_vec2 big[4] = {{-4e3f, -4e3f}, {4e3f, -4e3f}, {4e3f, 4e3f}, {-4e3f, 4e3f}};
    ck_assert_int_eq(col_polygon_make(big, 4, &p, &why), 0);

    /* The reason comes as an invalid-input error with a terminated message, and a caller that
     * wants no reason may pass none. */
    mk_error e;
    memset(&e, 'x', sizeof e);
    ck_assert_int_eq(col_polygon_make(two, 2, &p, &e), -1);
    ck_assert_int_eq(e.code, MK_ERR_INVALID);
    EXPECT(memchr(e.message, '\0', sizeof e.message) != NULL, "the reason is not terminated");
    ck_assert_int_eq(col_polygon_make(two, 2, &p, NULL), -1);
}
END_TEST

/* ---- 2. exact cases per pair type ---- */

/* The manifold has a point at (x, y) with depth `depth` (within 1e-5). */
static void expect_point(col_manifold2 m, mk_vec2 at, double depth)
{
    for (int i = 0; i < m.count; i++)
        if (fabs(m.points[i].point.x - at.x) <= 1e-5 && fabs(m.points[i].point.y - at.y) <= 1e-5) {
            NEAR(m.points[i].depth, depth, 1e-5);
            return;
        }
    ck_abort_msg("no contact point at (%g, %g); the manifold has %d: (%g, %g) (%g, %g)",
                 (double)at.x, (double)at.y, m.count, (double)m.points[0].point.x,
                 (double)m.points[0].point.y, (double)m.points[1].point.x,
                 (double)m.points[1].point.y);
}

static void expect_normal(col_manifold2 m, mk_vec2 n, double tol)
{
    NEAR(m.normal.x, n.x, tol);
    NEAR(m.normal.y, n.y, tol);
}

/* One contact point, at `at`, of depth `depth` along n. */
static void expect_one_point(col_manifold2 m, double depth, mk_vec2 n, mk_vec2 at)
{
    ck_assert_int_eq(m.count, 1);
    NEAR(m.depth, depth, 1e-6);
    expect_normal(m, n, 1e-6);
    expect_point(m, at, depth);
}

/* Apart: no contact point, a gap of `distance` along n. */
static void expect_gap(col_manifold2 m, double distance, mk_vec2 n)
{
    ck_assert_int_eq(m.count, 0);
    NEAR(m.distance, distance, 1e-6);
    expect_normal(m, n, 1e-6);
}

START_TEST(circle_circle_exact)
{
    col_shape2 a = circle_shape(1.0f), b = circle_shape(0.5f);
    /* Centres 1 apart along (0.6, 0.8): depth 1 + 0.5 - 1 = 0.5; the surfaces are at
     * (0.6, 0.8) (A) and (0.3, 0.4) (B): the point is midway, (0.45, 0.6). */
    col_manifold2 m = col_collide2(&a, xf(0, 0, 0), &b, xf(0.6f, 0.8f, 1.0f));
    expect_one_point(m, 0.5, mk_v2(0.6f, 0.8f), mk_v2(0.45f, 0.6f));
    /* Swapped: the normal turns around. */
    m = col_collide2(&b, xf(0.6f, 0.8f, 1.0f), &a, xf(0, 0, 0));
    NEAR(m.depth, 0.5, 1e-6);
    expect_normal(m, mk_v2(-0.6f, -0.8f), 1e-6);

    /* Shifted by (10, -3) and 2 apart: a gap of 0.5 along (-0.6, 0.8). */
    m = col_collide2(&a, xf(10, -3, 0), &b, xf(10 - 1.2f, -3 + 1.6f, 0));
    ck_assert_int_eq(m.count, 0);
    NEAR(m.distance, 0.5, 1e-5);
    expect_normal(m, mk_v2(-0.6f, 0.8f), 1e-5);

    /* Exactly touching at 1.5 along x: a hit with zero depth. */
    m = col_collide2(&a, xf(0, 0, 0), &b, xf(1.5f, 0, 0));
    ck_assert_int_eq(m.count, 1);
    NEAR(m.depth, 0.0, 1e-6);
    expect_normal(m, mk_v2(1, 0), 1e-6);

    /* Concentric: any direction, depth the sum of the radii. */
    m = col_collide2(&a, xf(2, 2, 0), &b, xf(2, 2, 0));
    ck_assert_int_eq(m.count, 1);
    NEAR(m.depth, 1.5, 1e-6);
    NEAR(mk_v2_len(m.normal), 1.0, 1e-6);
}
END_TEST

START_TEST(circle_box_exact)
{
    col_shape2 box = box_shape(1.0f, 0.5f);
    for (int rot = 0; rot < 2; rot++) {
        /* The box as it is, then turned by 0.5 rad and moved to (2, -1). */
        col_xf2 xb = rot ? xf(2, -1, 0.5f) : xf(0, 0, 0);

        /* Face region: a circle of 0.25 at (0.3, 0.7) in the box's frame reaches 0.45 < 0.5:
         * depth 0.05 along the top normal; surfaces at y = 0.5 and 0.45, point at 0.475. */
        col_shape2 c = circle_shape(0.25f);
        col_xf2 xc = (col_xf2){place(xb, 0.3, 0.7), 0.3f};
        col_manifold2 m = col_collide2(&box, xb, &c, xc);
        expect_one_point(m, 0.05, turn(xb, 0, 1), place(xb, 0.3, 0.475));
        m = col_collide2(&c, xc, &box, xb);
        NEAR(m.depth, 0.05, 1e-6);
        expect_normal(m, turn(xb, 0, -1), 1e-6);

        /* Corner region: the corner (1, 0.5) and a centre at (1.3, 0.9) are 0.5 apart along
         * (0.6, 0.8). Radius 0.6: depth 0.1, the circle's surface at (0.94, 0.42), the point
         * midway at (0.97, 0.46). Radius 0.4: a gap of 0.1. */
        c = circle_shape(0.6f);
        xc = (col_xf2){place(xb, 1.3, 0.9), 0};
        m = col_collide2(&box, xb, &c, xc);
        expect_one_point(m, 0.1, turn(xb, 0.6, 0.8), place(xb, 0.97, 0.46));
        c = circle_shape(0.4f);
        m = col_collide2(&box, xb, &c, xc);
        expect_gap(m, 0.1, turn(xb, 0.6, 0.8));
        m = col_collide2(&c, xc, &box, xb);
        expect_gap(m, 0.1, turn(xb, -0.6, -0.8));

        /* Centre inside: a circle of 0.2 at (0.5, 0.3) is 0.2 below the top face and 0.5 from
         * the right one. Out through the top: 0.2 + 0.2 = 0.4; the circle's lowest point is at
         * y = 0.1, so the point is midway between 0.1 and 0.5: (0.5, 0.3). */
        c = circle_shape(0.2f);
        xc = (col_xf2){place(xb, 0.5, 0.3), 0};
        m = col_collide2(&box, xb, &c, xc);
        expect_one_point(m, 0.4, turn(xb, 0, 1), place(xb, 0.5, 0.3));
    }
}
END_TEST

START_TEST(box45_vertex_on_flat_box)
{
    /* A flat box of half (2, 0.5) and a unit square turned 45 degrees whose lowest corner,
     * sqrt(2)/2 below its centre, is 0.1 into the top face. The other axes: (1, 1)/sqrt(2)
     * gives 1.27, (-1, 1)/sqrt(2) 1.70, x 2.41: the depth is 0.1 along +y, one contact at the
     * corner (0.3, 0.4), midway to the face: (0.3, 0.45). The square's other corners are 0.6 m
     * or more above the face: no second point. Then the whole scene turned by 0.7 rad. */
    col_shape2 flat = box_shape(2.0f, 0.5f), sq = box_shape(0.5f, 0.5f);
    for (int rot = 0; rot < 2; rot++) {
        double phi = rot ? 0.7 : 0.0;
        col_xf2 frame = xf(rot ? -3.0f : 0.0f, rot ? 1.0f : 0.0f, (float)phi);
        col_xf2 xa = frame;
        col_xf2 xb = {place(frame, 0.3, 0.5 + SQRT2 / 2 - 0.1), (float)(phi + PI / 4)};
        col_manifold2 m = col_collide2(&flat, xa, &sq, xb);
        ck_assert_int_eq(m.count, 1);
        NEAR(m.depth, 0.1, 2e-6);
        expect_normal(m, turn(frame, 0, 1), 1e-6);
        expect_point(m, place(frame, 0.3, 0.45), 0.1);
        /* The square as A: the same contact, the normal down. */
        m = col_collide2(&sq, xb, &flat, xa);
        ck_assert_int_eq(m.count, 1);
        NEAR(m.depth, 0.1, 2e-6);
        expect_normal(m, turn(frame, 0, -1), 1e-6);
        expect_point(m, place(frame, 0.3, 0.45), 0.1);
    }
    /* The same square on an AABB of the same size, given a transform angle it must ignore. */
    col_shape2 ground = aabb_shape(2.0f, 0.5f);
    col_xf2 xb = {mk_v2(0.3f, (float)(0.5 + SQRT2 / 2 - 0.1)), (float)(PI / 4)};
    col_manifold2 m = col_collide2(&ground, xf(0, 0, 1.1f), &sq, xb);
    ck_assert_int_eq(m.count, 1);
    NEAR(m.depth, 0.1, 2e-6);
    expect_normal(m, mk_v2(0, 1), 1e-6);
    expect_point(m, mk_v2(0.3f, 0.45f), 0.1);
}
END_TEST

START_TEST(aabb_polygon_exact)
{
    /* An AABB of half (1, 1) at the origin (its transform angle is ignored) and the triangle
     * (-0.5, -0.5), (0.5, -0.5), (0, 0.5). */
    const mk_vec2 tri[3] = {{-0.5f, -0.5f}, {0.5f, -0.5f}, {0, 0.5f}};
    col_polygon p = make_poly(tri, 3);
    col_shape2 a = aabb_shape(1, 1), t = polygon_shape(&p);

    /* Triangle at (0, 1.4), upright: its base (y = 0.9) is 0.1 into the top face. Other axes:
     * its sides' normals (+-2, 1)/sqrt(5) give 3.1/sqrt(5) = 1.39. Depth 0.1 along +y, two
     * points at the base's ends, midway to the face: (+-0.5, 0.95). */
    col_manifold2 m = col_collide2(&a, xf(0, 0, 0.8f), &t, xf(0, 1.4f, 0));
    ck_assert_int_eq(m.count, 2);
    NEAR(m.depth, 0.1, 1e-6);
    expect_normal(m, mk_v2(0, 1), 1e-6);
    expect_point(m, mk_v2(-0.5f, 0.95f), 0.1);
    expect_point(m, mk_v2(0.5f, 0.95f), 0.1);
    ck_assert_uint_ne(m.points[0].id, m.points[1].id);

    /* Turned by pi at (0.2, 1.4): the apex points down, at (0.2, 0.9). Its sides' normals
     * (2, 1)/sqrt(5) and (-2, 1)/sqrt(5) give 1.7/sqrt(5) and 2.5/sqrt(5), x 1.3 and 1.7:
     * depth 0.1 along +y, one point, (0.2, 0.95). */
    m = col_collide2(&a, xf(0, 0, 0), &t, xf(0.2f, 1.4f, (float)PI));
    expect_one_point(m, 0.1, mk_v2(0, 1), mk_v2(0.2f, 0.95f));

    /* The triangle to the right, apex toward the box: its apex turned by -pi/2 is at
     * (x - 0.5, 0); at x = 1.8 it is 0.3 from the face x = 1. */
    m = col_collide2(&t, xf(1.8f, 0, (float)(PI / 2)), &a, xf(0, 0, 2.0f));
    expect_gap(m, 0.3, mk_v2(-1, 0));
}
END_TEST

START_TEST(polygon_polygon_exact)
{
    const mk_vec2 unit[4] = {{-0.5f, -0.5f}, {0.5f, -0.5f}, {0.5f, 0.5f}, {-0.5f, 0.5f}};
    col_polygon p = make_poly(unit, 4);
    col_shape2 s = polygon_shape(&p);
    /* Unit squares offset by (0.9, 0.3): x overlap 0.1, y overlap 0.7. The faces x = 0.5 (A)
     * and x = 0.4 (B) overlap over y in [-0.2, 0.5]: points (0.45, -0.2) and (0.45, 0.5). */
    col_manifold2 m = col_collide2(&s, xf(0, 0, 0), &s, xf(0.9f, 0.3f, 0));
    ck_assert_int_eq(m.count, 2);
    NEAR(m.depth, 0.1, 1e-6);
    expect_normal(m, mk_v2(1, 0), 1e-6);
    expect_point(m, mk_v2(0.45f, -0.2f), 0.1);
    expect_point(m, mk_v2(0.45f, 0.5f), 0.1);
    /* Offset (1.2, 0.3): a gap of 0.2 along x. */
    m = col_collide2(&s, xf(0, 0, 0), &s, xf(1.2f, 0.3f, 0));
    expect_gap(m, 0.2, mk_v2(1, 0));

    /* A hexagon of circumradius 1 (flat top: vertices at 0, 60, ... degrees), and the square
     * turned 45 degrees below it, its top corner 0.05 into the bottom face y = -sqrt(3)/2. */
    mk_vec2 hexv[6];
    for (int i = 0; i < 6; i++)
        hexv[i] = mk_v2((float)cos(PI / 3 * i), (float)sin(PI / 3 * i));
    col_polygon ph = make_poly(hexv, 6);
    NEAR(ph.area, 1.5 * sqrt(3.0), 1e-5); /* six equilateral triangles of side 1 */
    col_shape2 hex = polygon_shape(&ph);
    double top = -sqrt(3.0) / 2 + 0.05;
    m = col_collide2(&hex, xf(0, 0, 0), &s, xf(0.1f, (float)(top - SQRT2 / 2), (float)(PI / 4)));
    ck_assert_int_eq(m.count, 1);
    NEAR(m.depth, 0.05, 2e-6);
    expect_normal(m, mk_v2(0, -1), 1e-6);
    expect_point(m, mk_v2(0.1f, (float)(top - 0.025)), 0.05);
}
END_TEST

START_TEST(apart_distances_exact)
{
    /* Corner to corner: boxes of half 0.5 and 0.25, the small one's lower left corner at
     * (0.8, 0.9), 0.3 and 0.4 beyond the big one's upper right corner: 0.5 along (0.6, 0.8).
     * Then the whole scene turned by -1.2 rad around (5, 5). */
    col_shape2 a = box_shape(0.5f, 0.5f), b = box_shape(0.25f, 0.25f);
    for (int rot = 0; rot < 2; rot++) {
        col_xf2 frame = rot ? xf(5, 5, -1.2f) : xf(0, 0, 0);
        col_xf2 xa = frame, xb = {place(frame, 1.05, 1.15), frame.angle};
        col_manifold2 m = col_collide2(&a, xa, &b, xb);
        ck_assert_int_eq(m.count, 0);
        NEAR(m.distance, sqrt(0.3 * 0.3 + 0.4 * 0.4), 2e-6);
        expect_normal(m, turn(frame, 0.6, 0.8), 2e-6);
        m = col_collide2(&b, xb, &a, xa);
        ck_assert_int_eq(m.count, 0);
        NEAR(m.distance, 0.5, 2e-6);
        expect_normal(m, turn(frame, -0.6, -0.8), 2e-6);
    }
    /* An AABB of half (1, 0.5) (transform angle ignored) and the unit square turned 45
     * degrees, its left corner at (1.3, 0): a gap of 0.3 along +x. */
    col_shape2 g = aabb_shape(1.0f, 0.5f);
    col_manifold2 m = col_collide2(&g, xf(0, 0, 0.9f), &a,
                                   xf((float)(1.3 + SQRT2 / 2), 0, (float)(PI / 4)));
    expect_gap(m, 0.3, mk_v2(1, 0));
    /* AABB corner to AABB corner: gaps 1.5 and 2 → 2.5. */
    col_shape2 u = aabb_shape(0.5f, 0.5f);
    m = col_collide2(&u, xf(0, 0, 0), &u, xf(-2.5f, -3.0f, 0.3f));
    expect_gap(m, 2.5, mk_v2(-0.6f, -0.8f));
    /* A circle of radius 0.5 at (3, 4) and the unit square turned by pi (the same corners):
     * the centre is in the region of the corner (0.5, 0.5), |(2.5, 3.5)| - 0.5 away. */
    const mk_vec2 unit[4] = {{-0.5f, -0.5f}, {0.5f, -0.5f}, {0.5f, 0.5f}, {-0.5f, 0.5f}};
    col_polygon p = make_poly(unit, 4);
    col_shape2 sp = polygon_shape(&p), c = circle_shape(0.5f);
    m = col_collide2(&c, xf(3, 4, 0), &sp, xf(0, 0, (float)PI));
    ck_assert_int_eq(m.count, 0);
    double l = sqrt(2.5 * 2.5 + 3.5 * 3.5);
    NEAR(m.distance, l - 0.5, 2e-6);
    expect_normal(m, mk_v2((float)(-2.5 / l), (float)(-3.5 / l)), 2e-6);
}
END_TEST

START_TEST(nearly_parallel_faces_apart)
{
    /* A unit square (half 0.5) turned by 0.01 rad, its lower left corner u to the left of and
     * g above the upper left corner (-1, 1) of an AABB of half 1. Its bottom face, nearly
     * parallel to the AABB's top, passes over that corner: the gap is the corner's distance to
     * the face line, about u sin(0.01) + g cos(0.01), along the face's normal (-sin, cos)(0.01).
     * The corners themselves are sqrt(u^2 + g^2) apart, 2 to 4 times more. Computed here in
     * double from the float transform. */
    col_shape2 a = aabb_shape(1, 1), b = box_shape(0.5f, 0.5f);
    const double cases[3][2] = {{2e-5, 1e-5}, {4e-5, 1e-5}, {1e-3, 1e-4}}; /* u, g */
    for (int k = 0; k < 3; k++) {
        double u = cases[k][0], g = cases[k][1], beta = 0.01;
        col_xf2 xb = {place(xf((float)(-1 - u), (float)(1 + g), (float)beta), 0.5, 0.5),
                      (float)beta};
        double c = cos((double)xb.angle), s = sin((double)xb.angle);
        /* B's lower left corner and the distance of (-1, 1) below its bottom face line. */
        double bx = xb.p.x - 0.5 * c + 0.5 * s, by = xb.p.y - 0.5 * s - 0.5 * c;
        double gap = -s * (bx + 1) + c * (by - 1);
        col_manifold2 m = col_collide2(&a, xf(0, 0, 0), &b, xb);
        EXPECT(m.count == 0 && fabs(m.distance - gap) <= 1e-6,
               "B at (%.9g, %.9g, %.9g): count %d distance %.9g, expected %.9g",
               (double)xb.p.x, (double)xb.p.y, (double)xb.angle, m.count,
               (double)m.distance, gap);
        EXPECT(angle_between(dof(m.normal), dv(-s, c)) <= 1e-3,
               "B at (%.9g, %.9g, %.9g): normal (%.7f, %.7f), expected (%.7f, %.7f)",
               (double)xb.p.x, (double)xb.p.y, (double)xb.angle, (double)m.normal.x,
               (double)m.normal.y, -s, c);
        m = col_collide2(&b, xb, &a, xf(0, 0, 0));
        NEAR(m.distance, gap, 1e-6);
        EXPECT(angle_between(dof(m.normal), dv(s, -c)) <= 1e-3,
               "swapped: normal (%.7f, %.7f), expected (%.7f, %.7f)", (double)m.normal.x,
               (double)m.normal.y, s, -c);
    }
}
END_TEST

START_TEST(face_and_vertex_region_boundary)
{
    /* The same square and AABB, 0.5 m apart: B's lower left corner u to the left of and 0.5
     * above A's corner (-1, 1). A's corner faces B's bottom face while it projects onto it,
     * u >= 0.5 tan(0.01); beyond, B's corner. On both sides of that boundary (where the two
     * distances agree to 1e-7 over a few tenths of a millimetre) the normal is the exact one:
     * the face's, or the corner-to-corner direction, within 1e-4 rad. Expected values in
     * double from the float transform. */
    col_shape2 a = aabb_shape(1, 1), b = box_shape(0.5f, 0.5f);
    double g = 0.5, beta = 0.01;
    for (int k = -100; k <= 100; k++) {
        double u = g * tan(beta) + 2e-5 * k;
        col_xf2 xb = {place(xf((float)(-1 - u), (float)(1 + g), (float)beta), 0.5, 0.5),
                      (float)beta};
        double c = cos((double)xb.angle), s = sin((double)xb.angle);
        dvec corner = dv(xb.p.x - 0.5 * c + 0.5 * s, xb.p.y - 0.5 * s - 0.5 * c);
        dvec rel = dsub(corner, dv(-1, 1)); /* from A's corner to B's */
        double along = -(rel.x * c + rel.y * s); /* A's corner along B's face from its end */
        double gap;
        dvec normal;
        if (along >= 0) {
            normal = dv(-s, c);
            gap = ddot(rel, normal);
        } else {
            gap = dlen(rel);
            normal = dv(rel.x / gap, rel.y / gap);
        }
        col_manifold2 m = col_collide2(&a, xf(0, 0, 0), &b, xb);
        EXPECT(m.count == 0 && fabs(m.distance - gap) <= 1e-6,
               "u %.9g: count %d distance %.9g, expected %.9g", u, m.count, (double)m.distance,
               gap);
        EXPECT(angle_between(dof(m.normal), normal) <= 1e-4,
               "u %.9g (B at (%.9g, %.9g, %.9g)): normal (%.7f, %.7f), expected (%.7f, %.7f)",
               u, (double)xb.p.x, (double)xb.p.y, (double)xb.angle, (double)m.normal.x,
               (double)m.normal.y, normal.x, normal.y);
        m = col_collide2(&b, xb, &a, xf(0, 0, 0));
        EXPECT(angle_between(dof(m.normal), dv(-normal.x, -normal.y)) <= 1e-4,
               "u %.9g swapped: normal (%.7f, %.7f), expected (%.7f, %.7f)", u,
               (double)m.normal.x, (double)m.normal.y, -normal.x, -normal.y);
    }
}
END_TEST

/* ---- 3. properties over random pairs ---- */

/* A random shape of the type, sizes (full) in [0.05, 2] m. Polygons: 3..12 random points
 * around an offset origin (the body's origin need not be inside), hull by col_polygon_make;
 * a refused set is drawn again. Returns the bounding radius around the body's origin. */
static double random_shape(col_shape_type type, col_polygon *store, col_shape2 *out)
{
    switch (type) {
    case COL_SHAPE_AABB:
    case COL_SHAPE_BOX:
        *out = type == COL_SHAPE_AABB ? aabb_shape((float)rnd(0.025, 1), (float)rnd(0.025, 1))
                                      : box_shape((float)rnd(0.025, 1), (float)rnd(0.025, 1));
        return hypot(out->half.x, out->half.y);
    case COL_SHAPE_CIRCLE:
        *out = circle_shape((float)rnd(0.025, 1));
        return out->radius;
    case COL_SHAPE_POLYGON:
    case COL_SHAPE_COUNT:
        break;
    }
    for (;;) {
        mk_vec2 pts[12];
        int n = 3 + rnd_int(10);
        double s = rnd(0.025, 1), ox = rnd(-0.5, 0.5) * s, oy = rnd(-0.5, 0.5) * s;
        for (int i = 0; i < n; i++)
            pts[i] = mk_v2((float)(ox + rnd(-s, s)), (float)(oy + rnd(-s, s)));
        mk_error why = {0};
        if (col_polygon_make(pts, n, store, &why) != 0) {
            EXPECT(why.message[0] != '\0', "refused without a reason");
            continue;
        }
        check_hull(pts, n, store);
        *out = polygon_shape(store);
        double r = 0.0;
        for (int i = 0; i < store->count; i++)
            r = fmax(r, hypot(store->verts[i].x, store->verts[i].y));
        return r;
    }
}

typedef struct pair_stats {
    int pairs, hits, misses, near_touch;
    int skipped_normal; /* ties, or a minimiser between points < 10 um apart: not compared */
    double max_err;     /* largest |signed separation - brute force| */
    double max_moved;   /* largest change of separation or h(normal) under a rigid motion */
    double min_point_depth;
} pair_stats;

#define MTV_EPS 1e-4 /* the spec's offset for the minimum translation test */

/* All the properties of one pair: (d) against the brute force, (a) the minimum translation,
 * (e) the contact points, (b) the swap and (c) a rigid motion. */
static void check_pair(const col_shape2 *a, col_xf2 xa, const col_shape2 *b, col_xf2 xb,
                       const brute_result *bf, const world_shape *wa, const world_shape *wb,
                       pair_stats *st, int idx)
{
    const char *ta = type_name(a->type), *tb = type_name(b->type);
    /* Agreement with the brute force: 1e-5 m for every pair. (1e-4 would do for circles if the
     * brute force only sampled directions; its candidate directions make it exact for circles
     * too, and the library's float results stay within ~1e-6 m of it.) */
    const double tol = 1e-5;
    col_manifold2 m = col_collide2(a, xa, b, xb);
    double sep = signed_sep(m);
    dvec n = dof(m.normal);
    st->pairs++;
    if (m.count > 0)
        st->hits++;
    else
        st->misses++;
    if (fabs(bf->s) < 2e-3)
        st->near_touch++;
    st->max_err = fmax(st->max_err, fabs(sep - bf->s));

    char da_[1024], db_[1024];
#define PAIR_MSG "%s-%s pair %d: A %s at (%.9g, %.9g, %.9g), B %s at (%.9g, %.9g, %.9g): "
#define PAIR_ARGS                                                                              \
    ta, tb, idx, shape_desc(a, da_, sizeof da_), (double)xa.p.x, (double)xa.p.y,             \
        (double)xa.angle, shape_desc(b, db_, sizeof db_), (double)xb.p.x, (double)xb.p.y,    \
        (double)xb.angle

    /* (d) the brute force: separation, hit or miss, and a minimising normal. */
    EXPECT(fabs(sep - bf->s) <= tol,
           PAIR_MSG "count %d depth %.9g distance %.9g, brute force %.9g", PAIR_ARGS,
           m.count, (double)m.depth, (double)m.distance, bf->s);
    if (fabs(bf->s) > tol)
        EXPECT((m.count > 0) == (bf->s > 0), PAIR_MSG "count %d but brute force %.9g",
               PAIR_ARGS, m.count, bf->s);
    EXPECT(m.count >= 0 && m.count <= COL_MAX_POINTS2, PAIR_MSG "count %d", PAIR_ARGS,
           m.count);
    EXPECT(fabs(dlen(n) - 1.0) <= 1e-5, PAIR_MSG "normal (%g, %g) not unit", PAIR_ARGS,
           n.x, n.y);
    /* Whatever the ties, the normal must be a direction that achieves the minimum. */
    double hn = h_dir(wa, wb, n);
    EXPECT(hn <= bf->s + tol,
           PAIR_MSG "count %d depth %.9g distance %.9g normal (%.7g, %.7g): h(normal) = "
                    "%.9g above the minimum %.9g (along (%.7g, %.7g))",
           PAIR_ARGS, m.count, (double)m.depth, (double)m.distance, n.x, n.y, hn, bf->s,
           bf->d.x, bf->d.y);
    bool compare_normals = normal_comparable(bf);
    if (compare_normals)
        EXPECT(angle_between(n, bf->d) <= normal_tol(bf, 1e-3),
               PAIR_MSG "normal (%.7g, %.7g), brute force (%.7g, %.7g)", PAIR_ARGS, n.x,
               n.y, bf->d.x, bf->d.y);
    else
        st->skipped_normal++;

    /* (a) B moved by normal * (depth + eps) only just misses (the gap is then eps exactly for
     * an exact normal); by normal * (depth - eps) it still overlaps by eps. For a miss, B moved
     * toward A by normal * (distance - eps) is still eps away. */
    if (m.count > 0) {
        col_xf2 out = xb;
        out.p = mk_v2_mad(xb.p, m.depth + (float)MTV_EPS, m.normal);
        col_manifold2 o = col_collide2(a, xa, b, out);
        EXPECT(o.count == 0, PAIR_MSG "still touching after the push (depth %.9g)",
               PAIR_ARGS, (double)o.depth);
        EXPECT(fabs(o.distance - MTV_EPS) <= tol,
               PAIR_MSG "gap after the push %.9g, expected %g", PAIR_ARGS,
               (double)o.distance, MTV_EPS);
        if (m.depth > MTV_EPS + 1e-5) {
            out.p = mk_v2_mad(xb.p, m.depth - (float)MTV_EPS, m.normal);
            o = col_collide2(a, xa, b, out);
            EXPECT(o.count > 0, PAIR_MSG "apart before the full push (gap %.9g)",
                   PAIR_ARGS, (double)o.distance);
            EXPECT(fabs(o.depth - MTV_EPS) <= tol,
                   PAIR_MSG "depth after the short push %.9g, expected %g", PAIR_ARGS,
                   (double)o.depth, MTV_EPS);
        }
    } else if (m.distance > MTV_EPS + 1e-5) {
        col_xf2 back = xb;
        back.p = mk_v2_mad(xb.p, -(m.distance - (float)MTV_EPS), m.normal);
        col_manifold2 o = col_collide2(a, xa, b, back);
        EXPECT(o.count == 0 && fabs(o.distance - MTV_EPS) <= tol,
               PAIR_MSG "moved to within %g: count %d gap %.9g", PAIR_ARGS, MTV_EPS,
               o.count, (double)o.distance);
    }

    /* (e) contact points: at most two, depths in [0, depth], distinct ids, and on (or within
     * the depth of) both shapes. */
    if (m.count > 0) {
        for (int i = 0; i < m.count; i++) {
            col_contact_point2 cp = m.points[i];
            st->min_point_depth = fmin(st->min_point_depth, cp.depth);
            EXPECT(cp.depth >= 0.0f && cp.depth <= m.depth + 1e-5,
                   PAIR_MSG "point %d depth %.9g, manifold depth %.9g", PAIR_ARGS, i,
                   (double)cp.depth, (double)m.depth);
            double reach = fmax(m.depth, fabs(cp.depth)) + 1e-4;
            double da = dist_to_shape(wa, dof(cp.point)), db = dist_to_shape(wb, dof(cp.point));
            EXPECT(da <= reach && db <= reach,
                   PAIR_MSG "point %d (%g, %g) is %g from A and %g from B", PAIR_ARGS, i,
                   (double)cp.point.x, (double)cp.point.y, da, db);
        }
        if (m.count == 2)
            EXPECT(m.points[0].id != m.points[1].id, PAIR_MSG "both points have id %u",
                   PAIR_ARGS, (unsigned)m.points[0].id);
    }

    /* (b) swap: the same separation, the normal turned around (unless it is not unique). */
    col_manifold2 w = col_collide2(b, xb, a, xa);
    EXPECT(fabs(signed_sep(w) - sep) <= 1e-5,
           PAIR_MSG "swapped separation %.9g, unswapped %.9g", PAIR_ARGS, signed_sep(w),
           sep);
    if (fabs(sep) > 1e-5)
        EXPECT((w.count > 0) == (m.count > 0), PAIR_MSG "swapped count %d, unswapped %d",
               PAIR_ARGS, w.count, m.count);
    if (compare_normals)
        EXPECT(angle_between(dof(w.normal), dv(-n.x, -n.y)) <= normal_tol(bf, 1e-4),
               PAIR_MSG "swapped normal (%.7g, %.7g), unswapped (%.7g, %.7g)", PAIR_ARGS,
               (double)w.normal.x, (double)w.normal.y, n.x, n.y);
    /* Ties or not, the swapped normal minimises h of B - A, that is h of A - B at -normal. */
    double hw = h_dir(wa, wb, dv(-w.normal.x, -w.normal.y));
    EXPECT(hw <= bf->s + tol,
           PAIR_MSG "swapped: count %d normal (%.7g, %.7g), h(-normal) = %.9g above the minimum "
                    "%.9g (along (%.7g, %.7g))",
           PAIR_ARGS, w.count, (double)w.normal.x, (double)w.normal.y, hw, bf->s, bf->d.x,
           bf->d.y);

    /* (c) rigid motion: both shapes turned by theta about the origin and moved by up to 100 m.
     * An AABB never turns, so pairs with one turn by a multiple of 90 degrees, the AABB's half
     * extents swapped for odd quarters. Positions near 100 m are rounded to 7.6e-6 m in float,
     * which moves the separation by up to ~1.1e-5 (1e-5 seen): 1e-4 holds with room to spare,
     * and needs no loosening to 2e-4. */
    bool has_aabb = a->type == COL_SHAPE_AABB || b->type == COL_SHAPE_AABB;
    int quarter = rnd_int(4);
    double theta = has_aabb ? quarter * (PI / 2) : rnd(-PI, PI);
    double c = cos(theta), s = sin(theta);
    dvec shift = dv(rnd(-100, 100), rnd(-100, 100));
    col_shape2 a2 = *a, b2 = *b;
    if (has_aabb && quarter % 2) {
        if (a2.type == COL_SHAPE_AABB)
            a2.half = mk_v2(a->half.y, a->half.x);
        if (b2.type == COL_SHAPE_AABB)
            b2.half = mk_v2(b->half.y, b->half.x);
    }
    col_xf2 xa2 = {mk_v2((float)(c * xa.p.x - s * xa.p.y + shift.x),
                         (float)(s * xa.p.x + c * xa.p.y + shift.y)),
                   (float)(xa.angle + theta)};
    col_xf2 xb2 = {mk_v2((float)(c * xb.p.x - s * xb.p.y + shift.x),
                         (float)(s * xb.p.x + c * xb.p.y + shift.y)),
                   (float)(xb.angle + theta)};
    col_manifold2 r = col_collide2(&a2, xa2, &b2, xb2);
    EXPECT(fabs(signed_sep(r) - sep) <= 1e-4,
           PAIR_MSG "moved by %g rad and (%g, %g): separation %.9g, before %.9g",
           PAIR_ARGS, theta, shift.x, shift.y, signed_sep(r), sep);
    if (fabs(sep) > 1e-4)
        EXPECT((r.count > 0) == (m.count > 0), PAIR_MSG "moved: count %d, before %d",
               PAIR_ARGS, r.count, m.count);
    /* The moved normal must still be a minimising direction: its h (on the moved shapes) no
     * more than the minimum before the move, within the same 1e-4. */
    world_shape wa2 = world_of(&a2, xa2), wb2 = world_of(&b2, xb2);
    double hr = h_dir(&wa2, &wb2, dof(r.normal));
    st->max_moved = fmax(st->max_moved, fmax(fabs(signed_sep(r) - sep), hr - bf->s));
    dvec turned = dv(c * bf->d.x - s * bf->d.y, s * bf->d.x + c * bf->d.y);
    EXPECT(hr <= bf->s + 1e-4,
           PAIR_MSG "moved to A (%.9g, %.9g, %.9g) B (%.9g, %.9g, %.9g): count %d depth "
                    "%.9g distance %.9g normal (%.7g, %.7g), h(normal) = %.9g, but "
                    "h(%.7g, %.7g) = %.9g",
           PAIR_ARGS, (double)xa2.p.x, (double)xa2.p.y, (double)xa2.angle,
           (double)xb2.p.x, (double)xb2.p.y, (double)xb2.angle, r.count, (double)r.depth,
           (double)r.distance, (double)r.normal.x, (double)r.normal.y, hr, turned.x,
           turned.y, h_dir(&wa2, &wb2, turned));
#undef PAIR_MSG
#undef PAIR_ARGS
}

#define PAIRS_PER_TYPE 10000

/* One ordered pair of types per iteration (_i = 4 * type of A + type of B). */
/* col_collide2_near gives col_collide2's answer for a pair within its margin, and for one
 * farther apart no points and a gap above the margin and not above the exact gap. */
static void check_near(const col_shape2 *a, col_xf2 xa, const col_shape2 *b, col_xf2 xb)
{
    const float margins[] = {0.0f, 0.3f};
    col_manifold2 full = col_collide2(a, xa, b, xb);
    for (size_t k = 0; k < sizeof margins / sizeof margins[0]; k++) {
        col_manifold2 near = col_collide2_near(a, xa, b, xb, margins[k]);
        if (full.count > 0 || full.distance <= margins[k]) {
            ck_assert_int_eq(near.count, full.count);
            ck_assert(near.normal.x == full.normal.x && near.normal.y == full.normal.y);
            ck_assert(near.depth == full.depth && near.distance == full.distance);
            for (int i = 0; i < full.count; i++) {
                ck_assert(same_point(near.points[i].point, full.points[i].point));
                ck_assert(near.points[i].depth == full.points[i].depth);
                ck_assert_uint_eq(near.points[i].id, full.points[i].id);
            }
        } else {
            ck_assert_int_eq(near.count, 0);
            ck_assert(near.distance > margins[k]);
            ck_assert(near.distance <= full.distance * (1.0f + 1e-5f) + 1e-6f);
            ck_assert(fabsf(mk_v2_len(near.normal) - 1.0f) < 1e-5f);
        }
    }
}

START_TEST(random_pairs)
{
    col_shape_type ta = (col_shape_type)(_i / COL_SHAPE_COUNT);
    col_shape_type tb = (col_shape_type)(_i % COL_SHAPE_COUNT);
    init_dirs();
    rng_state = 0x9E3779B97F4A7C15ull ^ (uint64_t)(_i + 1) * 0x100000001B3ull;
    static col_polygon pa, pb;
    pair_stats st = {0};
    /* How far B's origin may be, in sums of bounding radii: circles fill their bounding
     * radius, so pairs of them need a shorter reach for as many misses as hits. */
    int circles = (ta == COL_SHAPE_CIRCLE) + (tb == COL_SHAPE_CIRCLE);
    double reach = circles == 2 ? 2.0 : circles == 1 ? 1.4 : 1.2;
    st.min_point_depth = INFINITY;

    for (int i = 0; i < PAIRS_PER_TYPE; i++) {
        col_shape2 a, b;
        double ra = random_shape(ta, &pa, &a), rb = random_shape(tb, &pb, &b);
        col_xf2 xa = xf((float)rnd(-2, 2), (float)rnd(-2, 2), (float)rnd(-PI, PI));
        /* B's origin at a random fraction of `reach` bounding radii from A's origin: about
         * half of the pairs overlap. */
        double phi = rnd(-PI, PI), dist = rnd(0.0, reach) * (ra + rb);
        col_xf2 xb = xf((float)(xa.p.x + dist * cos(phi)), (float)(xa.p.y + dist * sin(phi)),
                        (float)rnd(-PI, PI));
        world_shape wa = world_of(&a, xa), wb = world_of(&b, xb);
        brute_result bf = brute_force(&wa, &wb);
        if (i % 4 == 0) {
            /* Near touching: moving B by t along the minimising direction lowers the signed
             * separation by t; B is moved to -g, apart by g in [-1 mm, 1 mm] (overlapping when
             * g < 0, and exactly touching for one in eight). */
            double g = i % 32 == 0 ? 0.0 : rnd(-1e-3, 1e-3);
            double t = bf.s + g;
            xb.p = mk_v2((float)(xb.p.x + t * bf.d.x), (float)(xb.p.y + t * bf.d.y));
            wb = world_of(&b, xb);
            bf = brute_force(&wa, &wb);
        }
        check_pair(&a, xa, &b, xb, &bf, &wa, &wb, &st, i);
        if (i % 4 <= 1) /* the near-touching pairs and as many others: a share of the time */
            check_near(&a, xa, &b, xb);
    }

    ck_assert_int_eq(st.pairs, PAIRS_PER_TYPE);
    /* Both outcomes in quantity, and near-touching pairs among them. */
    EXPECT(st.hits > PAIRS_PER_TYPE * 3 / 10 && st.misses > PAIRS_PER_TYPE * 3 / 10,
           "%s-%s: %d hits, %d misses", type_name(ta), type_name(tb), st.hits, st.misses);
    ck_assert_int_gt(st.near_touch, PAIRS_PER_TYPE / 5);
    /* Normals were compared for all but a small fraction of pairs. */
    EXPECT(st.skipped_normal < PAIRS_PER_TYPE * 8 / 100, "%s-%s: %d normals not compared",
           type_name(ta), type_name(tb), st.skipped_normal);
    if (getenv("MINK_SHAPES2_STATS"))
        fprintf(stderr,
                "%s-%s: %d pairs, %d hits, %d misses, %d near touching, %d normals skipped, "
                "max error %.3g, max change when moved %.3g, min point depth %.3g\n",
                type_name(ta), type_name(tb), st.pairs, st.hits, st.misses, st.near_touch,
                st.skipped_normal, st.max_err, st.max_moved, st.min_point_depth);
}
END_TEST

START_TEST(bounds_and_area)
{
    /* The bounding box of every placed shape is the tight box of its world vertices (grown by
     * the radius for a circle); the area is 4 hx hy, pi r^2 or the hull's shoelace area. */
    rng_state = 0xB0B0B0B0ull;
    static col_polygon store;
    for (int i = 0; i < 4000; i++) {
        col_shape_type type = (col_shape_type)(i % COL_SHAPE_COUNT);
        col_shape2 s;
        random_shape(type, &store, &s);
        col_xf2 t = xf((float)rnd(-50, 50), (float)rnd(-50, 50), (float)rnd(-10, 10));
        world_shape w = world_of(&s, t);
        double lox = INFINITY, loy = INFINITY, hix = -INFINITY, hiy = -INFINITY;
        for (int k = 0; k < w.n; k++) {
            lox = fmin(lox, w.v[k].x - w.radius);
            hix = fmax(hix, w.v[k].x + w.radius);
            loy = fmin(loy, w.v[k].y - w.radius);
            hiy = fmax(hiy, w.v[k].y + w.radius);
        }
        col_aabb bb = col_shape_bounds(&s, t);
        /* 1e-5: the corners are float sums of positions up to 50 m (ulp 3.8e-6). */
        NEAR(col_aabb_min(bb).x, lox, 1e-5);
        NEAR(col_aabb_min(bb).y, loy, 1e-5);
        NEAR(col_aabb_max(bb).x, hix, 1e-5);
        NEAR(col_aabb_max(bb).y, hiy, 1e-5);
        double area = 0.0;
        if (type == COL_SHAPE_CIRCLE) {
            area = PI * s.radius * s.radius;
        } else if (type == COL_SHAPE_POLYGON) {
            for (int k = 0; k < store.count; k++)
                area += 0.5 * dcross(dof(store.verts[k]), dof(store.verts[(k + 1) % store.count]));
        } else {
            area = 4.0 * s.half.x * s.half.y;
        }
        NEAR(col_shape_area(&s), area, 1e-6 * fmax(1.0, area));
    }
}
END_TEST

/* ---- 4. feature ids ---- */

/* `square` sunk 1 mm into the top of `ground` (half height 0.5, at xg), then slid 1 mm along
 * it: both times two points, and after the slide the same two ids, each on a point that moved
 * 1 mm with the square. The square is A when `square_first`. */
static void check_slide_keeps_ids(const col_shape2 *square, const col_shape2 *ground, col_xf2 xg,
                                  bool square_first, const char *what)
{
    col_manifold2 m[2];
    for (int step = 0; step < 2; step++) {
        col_xf2 xs = {place(xg, 1.0 + 0.001 * step, 0.999), xg.angle};
        m[step] = square_first ? col_collide2(square, xs, ground, xg)
                               : col_collide2(ground, xg, square, xs);
        EXPECT(m[step].count == 2, "%s, step %d: %d points", what, step, m[step].count);
        NEAR(m[step].depth, 0.001, 1e-5);
        ck_assert_uint_ne(m[step].points[0].id, m[step].points[1].id);
    }
    mk_vec2 along = turn(xg, 0.001, 0);
    for (int k = 0; k < 2; k++) {
        uint32_t id = m[0].points[k].id;
        int j = m[1].points[0].id == id ? 0 : m[1].points[1].id == id ? 1 : -1;
        EXPECT(j >= 0, "%s: id %#x gone after a 1 mm slide (now %#x, %#x)", what,
               (unsigned)id, (unsigned)m[1].points[0].id, (unsigned)m[1].points[1].id);
        mk_vec2 moved = mk_v2_sub(m[1].points[j].point, m[0].points[k].point);
        NEAR(moved.x, along.x, 2e-5);
        NEAR(moved.y, along.y, 2e-5);
    }
}

START_TEST(resting_box_keeps_feature_ids)
{
    /* The square as a box, an AABB and a polygon; the ground 10 m wide as a box and a polygon;
     * either order; level, and with the whole scene tilted by 0.2 rad (not for the AABB). */
    const mk_vec2 unit[4] = {{-0.5f, -0.5f}, {0.5f, -0.5f}, {0.5f, 0.5f}, {-0.5f, 0.5f}};
    const mk_vec2 wide[4] = {{-5, -0.5f}, {5, -0.5f}, {5, 0.5f}, {-5, 0.5f}};
    col_polygon pu = make_poly(unit, 4), pw = make_poly(wide, 4);
    col_shape2 squares[3] = {box_shape(0.5f, 0.5f), aabb_shape(0.5f, 0.5f), polygon_shape(&pu)};
    col_shape2 grounds[2] = {box_shape(5.0f, 0.5f), polygon_shape(&pw)};
    for (int si = 0; si < 3; si++)
        for (int gi = 0; gi < 2; gi++)
            for (int tilt = 0; tilt < 2; tilt++)
                for (int first = 0; first < 2; first++) {
                    if (tilt && squares[si].type == COL_SHAPE_AABB)
                        continue;
                    char what[96];
                    snprintf(what, sizeof what, "%s on %s ground, tilt %d, %s first",
                             type_name(squares[si].type), type_name(grounds[gi].type), tilt,
                             first ? "square" : "ground");
                    check_slide_keeps_ids(&squares[si], &grounds[gi],
                                          xf(0, -0.5f, tilt ? 0.2f : 0.0f), first, what);
                }
}
END_TEST

MINK_CHECK_SUITE("shapes2", s)
{
    MINK_TCASE(s, "hull", 0, seed_minkowski_hexagon, hull_drops_duplicates_collinear_and_interior,
               hull_start_point_irrelevant, hull_refusals,
               hull_is_the_textbook_hull, hull_octagon_with_repeats_and_interior,
               hull_small_triangle);

    MINK_TCASE(s, "exact", 0, circle_circle_exact, circle_box_exact, box45_vertex_on_flat_box,
               aabb_polygon_exact, polygon_polygon_exact, apart_distances_exact,
               nearly_parallel_faces_apart, face_and_vertex_region_boundary, bounds_and_area,
               resting_box_keeps_feature_ids);

    TCase *props = tcase_create("random");
    tcase_add_loop_test(props, random_pairs, 0, COL_SHAPE_COUNT * COL_SHAPE_COUNT);
    tcase_set_timeout(props, 60);
    suite_add_tcase(s, props);
}
