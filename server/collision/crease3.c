/* The least of h(d), the support of A - B along the unit direction d, where it lies on a crease
 * of h. Every shape's support function is the largest of a few smooth pieces: a box's or a
 * hull's vertices (d . v), a cylinder's two rims, a cone's apex and its rim, a capsule's two
 * half balls, a sphere or an ellipsoid one piece. Where two pieces of one shape are equally far
 * along d its support is a segment (an edge, a cylinder's or a cone's side line, a capsule's
 * side) and h has a crease: Newton's method in the tangent plane does not cross it, and a
 * compass search along it costs dozens of support calls. With the pieces named, the minimum
 * on a crease is a smooth problem again (the active-set view of a max of smooth functions,
 * Nocedal and Wright, "Numerical Optimization", 2006, ch. 18, applied to the support
 * functions of the features, as in the feature-based contact of Lin and Canny, "A fast
 * algorithm for incremental distance calculation", 1991):
 *  - two creases (an edge or a side of each shape): the two equalities fix d, solved by
 *    Newton's method on them (2 equations, 2 unknowns);
 *  - one crease against a smooth piece (a rim, an ellipsoid, a half ball): the objective is
 *    minimised along the crease by Newton's method in one dimension.
 * The gradient of a piece is its support point (h is homogeneous of degree 1), so each step
 * costs a few piece evaluations, not support calls over whole shapes. The answer is checked
 * as a minimum (the contact point on each segment lies inside it: the Lagrange multipliers in
 * [0, 1]) and against the full support along it (no other piece is further), else the caller
 * falls back to the generic polish. */
#include "collide3_internal.h"

#define MAX_PIECES 2

/* The pieces of a shape within `slack` (m) of its support along the frame direction d. */
typedef struct pieces {
    int n;
    int id[MAX_PIECES];
} pieces;

static col_d3 to_local(const col_placed3 *ps, col_d3 d)
{
    return ps->ident ? d : drot_apply_t(&ps->r, d);
}

/* The support point of piece k along the local direction d (unit), local frame: a box's
 * vertex by its sign bits (bit i: negative along axis i), a hull's vertex by index, a
 * cylinder's top (0) or bottom (1) rim, a cone's apex (0) or rim (1), a capsule's top (0) or
 * bottom (1) half ball, the whole shape for a sphere and an ellipsoid. */
static col_d3 piece_local(const col_shape3 *s, int k, col_d3 d)
{
    double r = s->radius, h = s->half_height;
    switch (s->type) {
    case COL_SHAPE3_BOX:
        return d3(k & 1 ? -s->half.x : s->half.x, k & 2 ? -s->half.y : s->half.y,
                  k & 4 ? -s->half.z : s->half.z);
    case COL_SHAPE3_HULL:
        return d3_of(s->hull->verts[k]);
    case COL_SHAPE3_CYLINDER:
    case COL_SHAPE3_CONE: {
        if (s->type == COL_SHAPE3_CONE && k == 0)
            return d3(0.0, h, 0.0);
        double sigma = sqrt(d.x * d.x + d.z * d.z);
        double q = sigma > 0.0 ? r / sigma : 0.0;
        return d3(q * d.x, k == 0 ? h : -h, q * d.z);
    }
    case COL_SHAPE3_CAPSULE:
        return d3(r * d.x, (k == 0 ? h : -h) + r * d.y, r * d.z);
    default:
        return col_local_support(s, d, false);
    }
}

static col_d3 piece_point(const col_placed3 *ps, int k, col_d3 d)
{
    col_d3 p = piece_local(ps->s, k, to_local(ps, d));
    return ps->ident ? p : d3_add(ps->p, drot_apply(&ps->r, p));
}

/* The pieces as far along d as the furthest within `slack` (m); false when more than two are
 * (a face or a cap along d: try_faces' case, not a crease). */
static bool active(const col_placed3 *ps, col_d3 d, double slack, pieces *out)
{
    const col_shape3 *s = ps->s;
    col_d3 l = to_local(ps, d);
    double r = s->radius, h = s->half_height, sigma = sqrt(l.x * l.x + l.z * l.z);
    out->n = 1;
    out->id[0] = 0;
    switch (s->type) {
    case COL_SHAPE3_BOX: {
        double c[3] = {l.x, l.y, l.z}, e[3] = {s->half.x, s->half.y, s->half.z};
        int bits = 0, loose = -1;
        for (int i = 0; i < 3; i++) {
            bits |= c[i] < 0.0 ? 1 << i : 0;
            if (2.0 * fabs(c[i]) * e[i] <= slack) {
                if (loose >= 0)
                    return false;
                loose = i;
            }
        }
        out->id[0] = bits;
        if (loose >= 0) {
            out->id[1] = bits ^ (1 << loose);
            out->n = 2;
        }
        return true;
    }
    case COL_SHAPE3_HULL: {
        const col_hull3 *hl = s->hull;
        double best = -INFINITY;
        for (int i = 0; i < hl->vert_count; i++)
            best = fmax(best, d3_dot(l, d3_of(hl->verts[i])));
        out->n = 0;
        for (int i = 0; i < hl->vert_count; i++)
            if (d3_dot(l, d3_of(hl->verts[i])) >= best - slack) {
                if (out->n == MAX_PIECES)
                    return false;
                out->id[out->n++] = i;
            }
        return true;
    }
    case COL_SHAPE3_CYLINDER:
    case COL_SHAPE3_CAPSULE:
        if (s->type == COL_SHAPE3_CYLINDER && r * sigma <= slack)
            return false; /* a cap */
        out->id[0] = l.y >= 0.0 ? 0 : 1;
        if (2.0 * h * fabs(l.y) <= slack) {
            out->id[1] = 1 - out->id[0];
            out->n = 2;
        }
        return true;
    case COL_SHAPE3_CONE: {
        if (l.y < 0.0 && r * sigma <= slack)
            return false; /* the base */
        double gap = 2.0 * h * l.y - r * sigma; /* the apex's lead over the rim */
        out->id[0] = gap >= 0.0 ? 0 : 1;
        if (fabs(gap) <= slack) {
            out->id[1] = 1 - out->id[0];
            out->n = 2;
        }
        return true;
    }
    default:
        return true;
    }
}

/* The support points of the active pieces along n (A) and -n (B). */
typedef struct crease {
    const col_placed3 *a, *b;
    pieces pa, pb;
    col_d3 ea[MAX_PIECES], eb[MAX_PIECES];
} crease;

static void eval(crease *c, col_d3 n)
{
    for (int i = 0; i < c->pa.n; i++)
        c->ea[i] = piece_point(c->a, c->pa.id[i], n);
    col_d3 m = d3_neg(n);
    for (int j = 0; j < c->pb.n; j++)
        c->eb[j] = piece_point(c->b, c->pb.id[j], m);
}

static void basis(col_d3 n, col_d3 *u, col_d3 *v)
{
    col_d3 axis = fabs(n.x) < 0.6 ? d3(1, 0, 0) : d3(0, 1, 0);
    *u = d3_norm(d3_cross(n, axis));
    *v = d3_cross(n, *u);
}

/* The equality of the crease: the two pieces' difference along n, and its gradient (the
 * difference of their support points). A's pieces a0, a1: n . (a0 - a1); B's, seen from A - B
 * as -b: n . (b1 - b0). */
static double crease_value(const crease *c, col_d3 n, col_d3 *grad)
{
    *grad = c->pa.n == 2 ? d3_sub(c->ea[0], c->ea[1]) : d3_sub(c->eb[1], c->eb[0]);
    return d3_dot(n, *grad);
}

/* Both shapes on a crease: Newton's method on the two equalities. */
static bool solve_two(crease *c, col_d3 *n, double tol)
{
    for (int it = 0; it < 12; it++) {
        eval(c, *n);
        col_d3 u, v;
        basis(*n, &u, &v);
        col_d3 ga = d3_sub(c->ea[0], c->ea[1]), gb = d3_sub(c->eb[1], c->eb[0]);
        double fa = d3_dot(*n, ga), fb = d3_dot(*n, gb);
        if (fabs(fa) + fabs(fb) <= 1e-2 * tol) /* m: on both creases */
            return true;
        double j00 = d3_dot(ga, u), j01 = d3_dot(ga, v), j10 = d3_dot(gb, u), j11 = d3_dot(gb, v);
        double det = j00 * j11 - j01 * j10;
        double scale = d3_len(ga) * d3_len(gb);
        if (!(fabs(det) > 1e-9 * scale)) /* the creases (nearly) parallel */
            return false;
        double s0 = -(j11 * fa - j01 * fb) / det, s1 = -(j00 * fb - j10 * fa) / det;
        double sl = sqrt(s0 * s0 + s1 * s1);
        if (sl > 0.25)
            return false;
        *n = d3_norm(d3_add(*n, d3_add(d3_scale(u, s0), d3_scale(v, s1))));
    }
    return false;
}

/* Onto the crease from near it: Newton's method on its one equality, along its gradient. */
static bool onto(crease *c, col_d3 *n, double tol)
{
    for (int it = 0; it < 8; it++) {
        eval(c, *n);
        col_d3 g;
        double f = crease_value(c, *n, &g);
        if (fabs(f) <= 1e-2 * tol) /* m: the two pieces equal */
            return true;
        col_d3 gt = d3_mad(g, -d3_dot(g, *n), *n);
        double gg = d3_dot(gt, gt);
        if (!(gg > 0.0))
            return false;
        double s = -f / gg;
        if (fabs(s) * sqrt(gg) > 0.25)
            return false;
        *n = d3_norm(d3_mad(*n, s, gt));
    }
    return false;
}

/* The objective's slope along the crease at n (on it): its gradient, the support point of
 * A - B's first pieces, along the crease's unit tangent n x grad. */
static double slope(crease *c, col_d3 n, col_d3 *t)
{
    col_d3 g;
    crease_value(c, n, &g);
    *t = d3_norm(d3_cross(n, g));
    return d3_dot(d3_sub(c->ea[0], c->eb[0]), *t);
}

/* One shape on a crease, the other smooth there: Newton's method in one dimension along the
 * crease, the second derivative by a finite difference of the slope at the start and by the
 * secant through the last two points after it (superlinear, one point per step). */
static bool solve_one(crease *c, col_d3 *n, double tol)
{
    if (!onto(c, n, tol))
        return false;
    col_d3 t, tm;
    double s0 = slope(c, *n, &t);
    const double eps = 1e-6; /* rad */
    col_d3 m = d3_norm(d3_mad(*n, eps, t));
    if (!onto(c, &m, tol))
        return false;
    double curv = (slope(c, m, &tm) - s0) / eps;
    for (int it = 0; it < 24; it++) {
        if (!(curv > 0.0)) /* not a minimum along the crease near here */
            return false;
        /* rad: at most 0.25 a step. Where the crease is nearly level (a ball near a cone's
         * axis: every side line about as deep) the minimum may be a radian along it. */
        double step = fmax(-0.25, fmin(0.25, -s0 / curv));
        m = d3_norm(d3_mad(*n, step, t));
        if (!onto(c, &m, tol))
            return false;
        double s1 = slope(c, m, &tm), moved = d3_dot(d3_sub(m, *n), t);
        *n = m;
        /* rad: h is then within 1e-14 of the size of its least along the crease */
        if (fabs(step) <= 1e-8)
            return true;
        if (moved != 0.0)
            curv = (s1 - s0) / moved;
        s0 = s1;
        t = tm;
    }
    return false;
}

bool col_crease3(const col_placed3 *a, const col_placed3 *b, col_d3 *n, double *h,
                 double slack, double tol, col_d3 *wa, col_d3 *wb)
{
    crease c = {.a = a, .b = b};
    if (!active(a, *n, slack, &c.pa) || !active(b, d3_neg(*n), slack, &c.pb))
        return false;
    int eqs = c.pa.n + c.pb.n - 2;
    if (eqs == 0)
        return false; /* smooth here: the polish's Newton steps */
    col_d3 m = *n;
    if (!(eqs == 2 ? solve_two(&c, &m, tol) : solve_one(&c, &m, tol)))
        return false;
    /* The contact on each crease's segment: the multipliers that make the tangential part of
     * (xa - xb) vanish, xa = a0 + la (a1 - a0), xb = b0 + lb (b1 - b0). */
    col_d3 u, v;
    basis(m, &u, &v);
    col_d3 w = d3_sub(c.ea[0], c.eb[0]);
    col_d3 da = c.pa.n == 2 ? d3_sub(c.ea[1], c.ea[0]) : d3(0, 0, 0);
    col_d3 db = c.pb.n == 2 ? d3_neg(d3_sub(c.eb[1], c.eb[0])) : d3(0, 0, 0);
    double la = 0.0, lb = 0.0;
    double w0 = d3_dot(w, u), w1 = d3_dot(w, v);
    if (eqs == 2) {
        double j00 = d3_dot(da, u), j01 = d3_dot(db, u), j10 = d3_dot(da, v), j11 = d3_dot(db, v);
        double det = j00 * j11 - j01 * j10;
        la = -(j11 * w0 - j01 * w1) / det;
        lb = -(j00 * w1 - j10 * w0) / det;
    } else {
        col_d3 e = c.pa.n == 2 ? da : db;
        double e0 = d3_dot(e, u), e1 = d3_dot(e, v), ee = e0 * e0 + e1 * e1;
        double l = -(w0 * e0 + w1 * e1) / ee;
        /* At a minimum along the crease the rest of the tangential part is zero. */
        if (fabs(w0 + l * e0) + fabs(w1 + l * e1) > 1e3 * tol)
            return false;
        if (c.pa.n == 2)
            la = l;
        else
            lb = l;
    }
    const double inside = 1e-7;
    if (!(la >= -inside && la <= 1.0 + inside && lb >= -inside && lb <= 1.0 + inside))
        return false;
    /* No other piece (vertex, rim, apex) further along m than these. */
    col_mvert s = col_support_pair(a, b, m);
    double hs = d3_dot(m, s.w), hp = d3_dot(m, w);
    if (hs > hp + 1e2 * tol || !(hs < *h + tol))
        return false;
    *n = m;
    *h = hs;
    *wa = d3_mad(c.ea[0], la, da);
    *wb = d3_mad(c.eb[0], -lb, db);
    return true;
}
