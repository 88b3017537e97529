/* GJK distance (Gilbert, Johnson, Keerthi, "A fast procedure for computing the distance
 * between complex objects in three-dimensional space", 1988) on support mappings, with the
 * termination test of van den Bergen ("A fast and robust GJK implementation for collision
 * detection of convex objects", 1999: stop when |v|^2 - v.w, the gap between the upper and
 * lower bounds on the distance, is within tolerance). The closest point of each simplex comes
 * from Johnson's sub-algorithm done as Voronoi-region tests (Ericson, "Real-Time Collision
 * Detection", 2005, 5.1.5 and 5.1.6), with degenerate simplices falling back to their
 * sub-simplices. Computed in double (see collide3_internal.h). */
#include <float.h>

#include "collide3_internal.h"

#define GJK_MAX_ITER 96

/* The vertices of A - B met so far, in the order found: a simplex names its vertices by
 * index, so that the closest-point solves pass 48 bytes around instead of four vertices with
 * their support points (which the copies of dominated). */
typedef struct gjk_pool {
    col_mvert v[GJK_MAX_ITER + 1];
} gjk_pool;

typedef struct simplex {
    int n;
    int v[4];
    double lam[4];
} simplex;

static col_d3 point_of(const gjk_pool *P, const simplex *s)
{
    col_d3 p = d3(0.0, 0.0, 0.0);
    for (int i = 0; i < s->n; i++)
        p = d3_mad(p, s->lam[i], P->v[s->v[i]].w);
    return p;
}

static simplex one(int a) { return (simplex){1, {a}, {1.0}}; }

static simplex seg(const gjk_pool *P, int ia, int ib)
{
    col_d3 a = P->v[ia].w, b = P->v[ib].w;
    col_d3 ab = d3_sub(b, a);
    double den = d3_dot(ab, ab);
    double t = den > 0.0 ? -d3_dot(a, ab) / den : 0.0;
    if (t <= 0.0)
        return one(ia);
    if (t >= 1.0)
        return one(ib);
    return (simplex){2, {ia, ib}, {1.0 - t, t}};
}

static double len2(const gjk_pool *P, const simplex *s)
{
    col_d3 p = point_of(P, s);
    return d3_dot(p, p);
}

/* Ericson's ClosestPtPointTriangle for the origin, keeping the region's vertices. */
static simplex tri(const gjk_pool *P, int ia, int ib, int ic)
{
    col_d3 a = P->v[ia].w, b = P->v[ib].w, c = P->v[ic].w;
    col_d3 ab = d3_sub(b, a), ac = d3_sub(c, a);
    double d1 = -d3_dot(ab, a), d2 = -d3_dot(ac, a);
    if (d1 <= 0.0 && d2 <= 0.0)
        return one(ia);
    double d3v = -d3_dot(ab, b), d4 = -d3_dot(ac, b);
    if (d3v >= 0.0 && d4 <= d3v)
        return one(ib);
    double vc = d1 * d4 - d3v * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3v <= 0.0) {
        double t = d1 / (d1 - d3v);
        return (simplex){2, {ia, ib}, {1.0 - t, t}};
    }
    double d5 = -d3_dot(ab, c), d6 = -d3_dot(ac, c);
    if (d6 >= 0.0 && d5 <= d6)
        return one(ic);
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        double t = d2 / (d2 - d6);
        return (simplex){2, {ia, ic}, {1.0 - t, t}};
    }
    double va = d3v * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3v >= 0.0 && d5 - d6 >= 0.0) {
        double t = (d4 - d3v) / ((d4 - d3v) + (d5 - d6));
        return (simplex){2, {ib, ic}, {1.0 - t, t}};
    }
    double sum = va + vb + vc;
    /* A flat (collinear) triangle has no interior: its closest point is on an edge. */
    col_d3 cr = d3_cross(ab, ac);
    if (!(sum > 0.0) || d3_dot(cr, cr) <= 1e-24 * d3_dot(ab, ab) * d3_dot(ac, ac)) {
        simplex e[3] = {seg(P, ia, ib), seg(P, ib, ic), seg(P, ia, ic)};
        int best = 0;
        for (int i = 1; i < 3; i++)
            if (len2(P, &e[i]) < len2(P, &e[best]))
                best = i;
        return e[best];
    }
    return (simplex){3, {ia, ib, ic}, {va / sum, vb / sum, vc / sum}};
}

/* The origin against the tetrahedron: inside when it is on the inner side of every face;
 * else the closest point of the faces it is outside of. A face whose plane passes (nearly)
 * through the opposite vertex is flat: it is always looked at. */
static simplex tet(const gjk_pool *P, const int v[4], bool *inside)
{
    static const int face[4][4] = {{0, 1, 2, 3}, {0, 3, 1, 2}, {0, 2, 3, 1}, {1, 3, 2, 0}};
    simplex best = {0};
    double best_d = DBL_MAX;
    *inside = true;
    /* Face 0 is the last triangle, w = v[3] the new point. In exact arithmetic the origin is
     * on w's side of it (w was found toward the origin from it and passed the convergence
     * test), but only as far as v, the triangle's computed closest point, is along its
     * normal: on a needle of a triangle gathered from a curved surface (the two ends of a
     * capsule's side, 2 m apart and 1e-4 m across, met where GJK goes on into rounding, as
     * it did for a point, whose tolerance was 0) v is off the normal by more than the gap
     * left, w lands behind the face's plane with the origin in front of it, and
     * the other three faces alone would call the origin inside: a point 0.1 mm off a capsule
     * reported overlapping. So every face is tested, face 0 as the others (Ericson, "Real-Time
     * Collision Detection", 5.1.6, tests all four). */
    for (int f = 0; f < 4; f++) {
        int ia = v[face[f][0]], ib = v[face[f][1]], ic = v[face[f][2]];
        col_d3 a = P->v[ia].w, b = P->v[ib].w, c = P->v[ic].w, o = P->v[v[face[f][3]]].w;
        col_d3 n = d3_cross(d3_sub(b, a), d3_sub(c, a));
        col_d3 oa = d3_sub(o, a);
        double so = d3_dot(n, oa), sp = -d3_dot(n, a);
        /* Flat: |so| <= 1e-12 |n| (|o - a| + |a|), squared without roots (the bound within
         * a factor of 2, which a flatness threshold does not feel). */
        bool flat = so * so <= 2e-24 * d3_dot(n, n) * (d3_dot(oa, oa) + d3_dot(a, a));
        if (!flat && sp * so > 0.0)
            continue; /* the origin is on the vertex's side of this face */
        if (!flat && sp * so == 0.0 && sp == 0.0)
            continue; /* on the face: still inside (touching) */
        *inside = false;
        simplex t = tri(P, ia, ib, ic);
        double d = len2(P, &t);
        if (d < best_d) {
            best_d = d;
            best = t;
        }
    }
    if (*inside)
        return (simplex){4, {v[0], v[1], v[2], v[3]}, {0.25, 0.25, 0.25, 0.25}};
    return best;
}

static void gjk(const col_placed3 *a, const col_placed3 *b, double tol, double touch,
                double beyond, col_d3 d, col_gjk_result *out);

col_gjk_result col_gjk(const col_placed3 *a, const col_placed3 *b, double tol)
{
    return col_gjk_bounded(a, b, tol, 0.0, INFINITY);
}

col_gjk_result col_gjk_from(const col_placed3 *a, const col_placed3 *b, double tol, col_d3 d)
{
    col_gjk_result r;
    gjk(a, b, tol, 0.0, INFINITY, d, &r);
    return r;
}

col_gjk_result col_gjk_bounded(const col_placed3 *a, const col_placed3 *b, double tol,
                               double touch, double beyond)
{
    col_gjk_result r;
    gjk(a, b, tol, touch, beyond, d3_sub(b->p, a->p), &r);
    return r;
}

/* d: the direction of the first support point (any length). The result is written in place
 * (it carries four vertices with their support points: a copy costs as much as a support
 * call), the simplex's unused slots left as they are. */
static void gjk(const col_placed3 *a, const col_placed3 *b, double tol, double touch,
                double beyond, col_d3 d, col_gjk_result *out)
{
    col_gjk_result *r = out;
    r->distance = 0.0;
    r->overlap = r->within = r->bounded = r->converged = false;
    r->lower = 0.0;
    if (d3_dot(d, d) <= 0.0)
        d = d3(1.0, 0.0, 0.0);
    gjk_pool pool;
    gjk_pool *P = &pool;
    int np = 0;
    P->v[np++] = col_support_pair(a, b, d);
    simplex s = one(0);
    col_d3 v = P->v[0].w;
    double vv = d3_dot(v, v);
    r->dir = d3_norm(d);
    int it = 0;
    bool overlap = false, stuck = false;
    /* The first direction is a separating axis already when A - B lies wholly behind it
     * (the usual case for shapes apart along the line of their centres): its lower bound
     * -dir.w answers a bounded question with one support call instead of two. */
    double lower0 = -d3_dot(r->dir, v);
    if (lower0 > beyond) {
        r->bounded = true;
        r->lower = lower0;
        r->iterations = 1;
        r->count = 1;
        r->simplex[0] = P->v[0];
        r->pa = P->v[0].a;
        r->pb = P->v[0].b;
        r->distance = sqrt(vv);
        return;
    }
    while (it < GJK_MAX_ITER) {
        it++;
        if (vv <= tol * tol) { /* the origin is (within tolerance) a point of A - B */
            overlap = true;
            break;
        }
        if (vv <= touch * touch) { /* the upper bound |v| says: nearer than `touch` */
            r->within = true;
            break;
        }
        double lv = sqrt(vv);
        r->dir = d3_scale(v, -1.0 / lv);
        col_mvert w = col_support_pair(a, b, d3_neg(v));
        /* The lower bound v.w / |v| (every point x of A - B has v.x >= v.w): once past
         * `beyond`, the caller needs no more digits. */
        double vw = d3_dot(v, w.w);
        if (vw > beyond * lv) {
            r->bounded = true;
            r->lower = vw / lv;
            break;
        }
        /* Converged: the new point gets no nearer the origin than tol along v. */
        if (vv - vw <= tol * lv) {
            r->converged = true;
            break;
        }
        bool dup = false;
        for (int i = 0; i < s.n; i++) {
            col_d3 dw = d3_sub(w.w, P->v[s.v[i]].w);
            dup = dup || d3_dot(dw, dw) <= tol * tol;
        }
        if (dup)
            break;
        int iw = np;
        P->v[np++] = w;
        simplex next;
        bool inside = false;
        if (s.n == 1)
            next = seg(P, s.v[0], iw);
        else if (s.n == 2)
            next = tri(P, s.v[0], s.v[1], iw);
        else if (s.n == 3)
            next = tet(P, (const int[4]){s.v[0], s.v[1], s.v[2], iw}, &inside);
        else
            break;
        if (inside) {
            s = next;
            overlap = true;
            break;
        }
        col_d3 nv = point_of(P, &next);
        double nvv = d3_dot(nv, nv);
        if (nvv >= vv) {
            /* No progress although w is below the simplex: rounding in the closest-point
             * solve, which happens near touching on thin simplices of points gathered from a
             * curved surface. The distance |v| is still an upper bound, but -v may be far
             * from the contact normal; the simplex's own plane (a face of A - B near the
             * origin) often is the normal: of these the direction with the least h wins. */
            stuck = s.n == 3;
            break;
        }
        s = next;
        v = nv;
        vv = nvv;
    }
    r->iterations = it;
    r->count = s.n;
    for (int i = 0; i < s.n; i++)
        r->simplex[i] = P->v[s.v[i]];
    r->overlap = overlap;
    col_d3 pa = d3(0.0, 0.0, 0.0), pb = d3(0.0, 0.0, 0.0);
    for (int i = 0; i < s.n; i++) {
        pa = d3_mad(pa, s.lam[i], P->v[s.v[i]].a);
        pb = d3_mad(pb, s.lam[i], P->v[s.v[i]].b);
    }
    r->pa = pa;
    r->pb = pb;
    r->distance = overlap ? 0.0 : sqrt(vv);
    if (!overlap && vv > 0.0)
        r->dir = d3_scale(v, -1.0 / sqrt(vv));
    if (stuck) {
        col_d3 s0 = P->v[s.v[0]].w;
        col_d3 tn = d3_norm(d3_cross(d3_sub(P->v[s.v[1]].w, s0), d3_sub(P->v[s.v[2]].w, s0)));
        col_d3 cand[3] = {r->dir, tn, d3_neg(tn)};
        double best = DBL_MAX;
        for (int k = 0; k < 3; k++) {
            double h = d3_dot(cand[k], col_support_pair(a, b, cand[k]).w);
            if (h < best) {
                best = h;
                r->dir = cand[k];
            }
        }
    }
}

/* ---- GJK as a boolean ----
 * Whether the origin is in A - B, without the closest point: no weights, no distance; each
 * case of the simplex (segment, triangle, tetrahedron, the newest vertex first) gives the next
 * search direction by cross products, as in Gilbert, Johnson and Keerthi's algorithm written
 * for the boolean question (van den Bergen 2003, 4.3.6; libccd's and Bullet's GJK
 * intersect). The vertices keep their support points, so that EPA can start from the
 * tetrahedron that holds the origin. */

/* The direction from the segment a-b (a the newest) toward the origin; the segment shrinks
 * to a when the origin is beyond a. */
static col_d3 toward_from_segment(col_mvert *v, int *n)
{
    col_d3 a = v[*n - 1].w, b = v[0].w;
    col_d3 ab = d3_sub(b, a), ao = d3_neg(a);
    if (d3_dot(ab, ao) > 0.0) /* (ab x ao) x ab: across the segment, toward the origin */
        return d3_sub(d3_scale(ao, d3_dot(ab, ab)), d3_scale(ab, d3_dot(ab, ao)));
    v[0] = v[*n - 1];
    *n = 1;
    return ao;
}

/* The triangle (v[0], v[1], a = v[2]): the feature nearest the origin that a is on. */
static col_d3 toward_from_triangle(col_mvert *v, int *n)
{
    col_d3 a = v[2].w, b = v[1].w, c = v[0].w;
    col_d3 ab = d3_sub(b, a), ac = d3_sub(c, a), ao = d3_neg(a);
    col_d3 abc = d3_cross(ab, ac);
    if (d3_dot(d3_cross(abc, ac), ao) > 0.0) {
        if (d3_dot(ac, ao) > 0.0) { /* the edge a-c */
            v[1] = v[2];
            *n = 2;
            return d3_sub(d3_scale(ao, d3_dot(ac, ac)), d3_scale(ac, d3_dot(ac, ao)));
        }
        v[0] = v[1];
        v[1] = v[2];
        *n = 2;
        return toward_from_segment(v, n);
    }
    if (d3_dot(d3_cross(ab, abc), ao) > 0.0) {
        v[0] = v[1];
        v[1] = v[2];
        *n = 2;
        return toward_from_segment(v, n);
    }
    if (d3_dot(abc, ao) > 0.0)
        return abc; /* above the face: keep c, b, a */
    col_mvert t = v[0]; /* below: the order turned so that the next apex is above */
    v[0] = v[1];
    v[1] = t;
    return d3_neg(abc);
}

/* The tetrahedron (v[0], v[1], v[2], a = v[3]): inside, or the face through a that the
 * origin is outside of, as a triangle. */
static bool toward_from_tetrahedron(col_mvert *v, int *n, col_d3 *d)
{
    col_d3 a = v[3].w;
    col_d3 ab = d3_sub(v[2].w, a), ac = d3_sub(v[1].w, a), ad = d3_sub(v[0].w, a);
    col_d3 ao = d3_neg(a);
    /* Each face through a (its other two vertices by index), its normal turned away from
     * the fourth vertex. */
    static const int other[3][3] = {{1, 2, 0}, {0, 1, 2}, {2, 0, 1}};
    col_d3 nrm[3] = {d3_cross(ab, ac), d3_cross(ac, ad), d3_cross(ad, ab)};
    for (int f = 0; f < 3; f++) {
        col_d3 nf = nrm[f];
        if (d3_dot(nf, d3_sub(v[other[f][2]].w, a)) > 0.0)
            nf = d3_neg(nf);
        if (d3_dot(nf, ao) > 0.0) {
            col_mvert p = v[other[f][0]], q = v[other[f][1]], apex = v[3];
            v[0] = p;
            v[1] = q;
            v[2] = apex;
            *n = 3;
            *d = toward_from_triangle(v, n);
            return false;
        }
    }
    return true;
}

int col_gjk_intersect(const col_placed3 *a, const col_placed3 *b, double beyond, int more,
                      double *lower, col_d3 *dir, col_gjk_result *hit)
{
    /* For a caller that only asks whether (no simplex for EPA), the simplex starts at a point
     * inside A - B, the difference of the shapes' centres (a hull's centroid; the others are
     * centred on their origin), as MPR's portal does (Snethen, "XenoCollide", 2008): three
     * support points about it can enclose the origin, where four are the least otherwise.
     * EPA needs a polytope of support points: for it the first vertex is the support along
     * the line of the centres. Either way the first search is along that line. */
    col_d3 ca = a->p, cb = b->p;
    if (a->s->type == COL_SHAPE3_HULL)
        ca = d3_add(ca, drot_apply(&a->r, d3_of(a->s->hull->centroid)));
    if (b->s->type == COL_SHAPE3_HULL)
        cb = d3_add(cb, drot_apply(&b->r, d3_of(b->s->hull->centroid)));
    col_d3 d = d3_sub(cb, ca);
    if (!(d3_dot(d, d) > 0.0))
        d = d3(1.0, 0.0, 0.0); /* the centres coincide: any first direction */
    col_mvert v[4];
    int n = 1;
    v[0] = hit ? col_support_pair(a, b, d) : (col_mvert){d3_sub(ca, cb), ca, cb};
    bool first = hit != NULL; /* v[0] is the first support point, to be tested */
    double best = 0.0; /* the best lower bound so far, and its axis */
    col_d3 best_dir = d;
    /* Once an axis separates (by less than `beyond`), up to `more` steps toward the nearest
     * feature may find one that separates by more: each is a lower bound of the gap. The
     * simplex no longer holds the origin on the newest point's side then, so it can no
     * longer prove an overlap. */
    bool apart = false, inside = false;
    int after = 0;
    for (int it = 0; it < 32 && !inside; it++) {
        col_mvert p = first ? v[0] : col_support_pair(a, b, d);
        double dp = d3_dot(p.w, d);
        if (dp < 0.0) {
            /* d separates: A - B lies behind the plane d.x = d.p, -d.p / |d| from the
             * origin (compared squared: no root unless a caller asks for the bound). */
            if (beyond <= 0.0 && !lower && !dir)
                return 0; /* apart, and nothing more asked */
            double dd = d3_dot(d, d);
            if (dp * dp > best * best * dd) {
                best = -dp / sqrt(dd);
                best_dir = d;
            }
            if (best > beyond) {
                if (lower)
                    *lower = best;
                if (dir)
                    *dir = d3_norm(best_dir);
                return 0;
            }
            apart = true;
        }
        if (apart && ++after > more) {
            if (lower)
                *lower = best;
            if (dir)
                *dir = d3_norm(best_dir);
            return -1;
        }
        if (first) {
            first = false;
            d = d3_neg(v[0].w);
        } else {
            v[n++] = p;
            if (n == 2)
                d = toward_from_segment(v, &n);
            else if (n == 3)
                d = toward_from_triangle(v, &n);
            else
                inside = toward_from_tetrahedron(v, &n, &d);
        }
        /* d = 0: the origin is on the simplex (touching) */
        inside = inside || !(d3_dot(d, d) > 0.0);
    }
    if (!inside || apart) {
        if (lower)
            *lower = best;
        if (dir)
            *dir = d3_norm(best_dir);
        return -1;
    }
    if (hit) { /* for EPA, as col_gjk's result on an overlap */
        hit->overlap = true;
        hit->within = hit->bounded = hit->converged = false;
        hit->distance = hit->lower = 0.0;
        hit->dir = d3_norm(best_dir);
        hit->iterations = 0;
        hit->count = n;
        for (int i = 0; i < n; i++)
            hit->simplex[i] = v[i];
        hit->pa = v[0].a;
        hit->pb = v[0].a;
    }
    return 1;
}

col_distance3 col_gjk3_distance(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                col_xf3 xb)
{
    col_placed3 pa, pb;
    col_place_pair(a, xa, b, xb, &pa, &pb);
    /* Spheres and capsules by their cores (a point, a segment) with their radii as margins,
     * as col_collide3 takes them (Box2D's and Jolt's convex radius): GJK between points and
     * segments is exact in two or three steps, where on the rounded surfaces it converges
     * only linearly and its simplices turn to needles (the two ends of a capsule's side). A
     * point, a sphere of radius 0, is its own core. The gap is the cores' less the margins;
     * cores within the margins overlap. */
    double ma = pa.margin, mb = pb.margin;
    pa.core = a->type == COL_SHAPE3_SPHERE || a->type == COL_SHAPE3_CAPSULE;
    pb.core = b->type == COL_SHAPE3_SPHERE || b->type == COL_SHAPE3_CAPSULE;
    double tol = col_pair_tol(a, b);
    col_gjk_result g = col_gjk(&pa, &pb, tol);
    col_distance3 out = {0};
    out.overlap = g.overlap || g.distance <= ma + mb;
    out.iterations = g.iterations;
    col_drot ra = col_drot_of(xa.q);
    col_d3 o = d3_of(xa.p);
    out.point_a = d3_to_f(d3_add(o, drot_apply(&ra, d3_mad(g.pa, ma, g.dir))));
    out.point_b = d3_to_f(d3_add(o, drot_apply(&ra, d3_mad(g.pb, -mb, g.dir))));
    out.normal = d3_to_f(drot_apply(&ra, g.dir));
    out.distance = out.overlap ? 0.0f : (float)(g.distance - ma - mb);
    return out;
}
