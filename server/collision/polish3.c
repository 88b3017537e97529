/* The depth or gap of a pair with a curved shape, polished: the least of h(d), the support of
 * the Minkowski difference A - B along the unit direction d, near a starting direction (EPA's
 * nearest face, GJK's last direction). EPA on a curved difference converges slowly (every face
 * of a nearly round polytope has to be refined before the nearest one is known to the
 * tolerance) and GJK only linearly; where h is smooth Newton's method converges in a few
 * steps: its gradient is exact (the support point: h(d) = d . w(d)), its Hessian comes from
 * two more support points by finite differences. The flat faces of both shapes are tried
 * first, then the crease of h near the start (an edge or a side line: col_crease3, exact);
 * where neither holds and Newton stalls at a crease, a compass search looks for a way down,
 * and the crease is sought again where the steps end.
 * Every step is only taken when h drops, so the answer is never worse than the start. */
#include "collide3_internal.h"

typedef struct polish_pair {
    const col_placed3 *a, *b;
} polish_pair;

static col_mvert support(const polish_pair *e, col_d3 d)
{
    return col_support_pair(e->a, e->b, d);
}

/* h(d) = d . w(d) of the Minkowski difference, with w the support point: its gradient. */
static double h_at(const polish_pair *e, col_d3 d, col_d3 *w)
{
    col_mvert m = support(e, d);
    *w = m.w;
    return d3_dot(d, m.w);
}

/* The gradient of f(t) = h(normalize(n + t0 u + t1 v)) at t, from the support point there. */
static void tangent_grad(col_d3 n, col_d3 u, col_d3 v, double t0, double t1, col_d3 w,
                         double g[2])
{
    col_d3 x = d3_add(n, d3_add(d3_scale(u, t0), d3_scale(v, t1)));
    double l = d3_len(x);
    col_d3 d = d3_scale(x, 1.0 / l);
    g[0] = d3_dot(w, d3_sub(u, d3_scale(d, d3_dot(d, u)))) / l;
    g[1] = d3_dot(w, d3_sub(v, d3_scale(d, d3_dot(d, v)))) / l;
}

/* Where Newton finds no step down (a crease of h: an edge, a rim, an apex), a compass search
 * (8 directions, steps from 1e-2 down to 1e-5 rad) looks for one. True when h dropped. */
static bool pattern_step(const polish_pair *e, col_d3 *n, double *h, col_d3 *w, double tol)
{
    col_d3 axis = fabs(n->x) < 0.6 ? d3(1, 0, 0) : d3(0, 1, 0);
    col_d3 u = d3_norm(d3_cross(*n, axis)), v = d3_cross(*n, u);
    for (double step = 1e-2; step >= 1e-5; step *= 0.1)
        for (int k = 0; k < 8; k++) {
            double t = 0.7853981633974483 * k;
            col_d3 c = d3_norm(d3_add(*n, d3_add(d3_scale(u, step * cos(t)),
                                                 d3_scale(v, step * sin(t)))));
            col_d3 wc;
            double hc = h_at(e, c, &wc);
            if (hc < *h - 1e-4 * tol) {
                *n = c;
                *h = hc;
                *w = wc;
                return true;
            }
        }
    return false;
}

/* Whether the point q (the frame of the placed shape) projects into the flat face of that
 * shape picked by try_faces' candidate k: a box's face 2i (+) or 2i + 1 (-) on axis i, a
 * hull's face k, a cylinder's bottom (0) or top (1) cap, a cone's base (0). */
static bool face_holds(const col_placed3 *ps, int k, col_d3 world_q)
{
    const col_shape3 *s = ps->s;
    col_d3 q = drot_apply_t(&ps->r, d3_sub(world_q, ps->p));
    double c[3] = {q.x, q.y, q.z};
    if (s->type == COL_SHAPE3_BOX) {
        double h[3] = {s->half.x, s->half.y, s->half.z};
        int axis = k / 2;
        for (int i = 0; i < 3; i++)
            if (i != axis && fabs(c[i]) > h[i])
                return false;
        return true;
    }
    if (s->type == COL_SHAPE3_HULL) {
        const col_hull3_face *f = &s->hull->faces[k];
        col_d3 fn = d3_of(f->normal);
        for (int i = 0; i < f->count; i++) {
            col_d3 v0 = d3_of(s->hull->verts[s->hull->indices[f->first + i]]);
            col_d3 v1 = d3_of(s->hull->verts[s->hull->indices[f->first + (i + 1) % f->count]]);
            if (d3_dot(d3_cross(d3_sub(v1, v0), d3_sub(q, v0)), fn) < 0.0)
                return false;
        }
        return true;
    }
    return q.x * q.x + q.z * q.z <= (double)s->radius * s->radius; /* a cap or the base */
}

/* Directions where h has a crease and often its minimum: a flat face of either shape resting
 * on the other (a box's or a hull's faces, a cylinder's caps, a cone's base), its outward
 * normal for A and the reverse for B. Those within 0.3 rad of n are tried; the one taken
 * (when one is lower than *h) is written to *won (its candidate index), with its support
 * points in *at. */
static void try_faces(const polish_pair *e, const col_placed3 *ps, double sign, col_d3 *n,
                      double *h, col_d3 *w, int *won, col_mvert *at)
{
    const col_shape3 *s = ps->s;
    col_d3 cand[COL_MAX_HULL3_FACES];
    int nc = 0;
    if (s->type == COL_SHAPE3_BOX) {
        col_d3 cols[3] = {d3(ps->r.r0.x, ps->r.r1.x, ps->r.r2.x), d3(ps->r.r0.y, ps->r.r1.y, ps->r.r2.y),
                          d3(ps->r.r0.z, ps->r.r1.z, ps->r.r2.z)};
        for (int k = 0; k < 3; k++) {
            cand[nc++] = cols[k];
            cand[nc++] = d3_neg(cols[k]);
        }
    } else if (s->type == COL_SHAPE3_HULL) {
        for (int f = 0; f < s->hull->face_count; f++)
            cand[nc++] = drot_apply(&ps->r, d3_of(s->hull->faces[f].normal));
    } else if (s->type == COL_SHAPE3_CYLINDER || s->type == COL_SHAPE3_CONE) {
        col_d3 axis = d3(ps->r.r0.y, ps->r.r1.y, ps->r.r2.y);
        cand[nc++] = d3_neg(axis);
        if (s->type == COL_SHAPE3_CYLINDER)
            cand[nc++] = axis;
    }
    col_d3 start = *n;
    for (int k = 0; k < nc; k++) {
        col_d3 c = d3_scale(cand[k], sign);
        if (d3_dot(c, start) < 0.955) /* 0.3 rad */
            continue;
        col_mvert m = support(e, c);
        double hc = d3_dot(c, m.w);
        if (hc < *h) {
            *h = hc;
            *n = c;
            *w = m.w;
            *won = k;
            *at = m;
        }
    }
}

/* Newton's steps in the tangent plane from *n (h, w there), each taken only when h drops; at
 * a crease, up to three compass searches. Returns the h reached. */
static double newton(const polish_pair *e, col_d3 *n, double h, col_d3 w, double tol)
{
    int patterns = 0;
    /* rad: the longest step tried, 4 times the last one taken. At a crease the quadratic
     * model overshoots across it by orders of magnitude, and halving down from there cost
     * most of the support calls; where h is smooth Newton's steps shrink faster than this. */
    double reach = 0.5;
    for (int it = 0; it < 20; it++) {
        col_d3 axis = fabs(n->x) < 0.6 ? d3(1, 0, 0) : d3(0, 1, 0);
        col_d3 u = d3_norm(d3_cross(*n, axis)), v = d3_cross(*n, u);
        double g[2], gu[2], gv[2];
        tangent_grad(*n, u, v, 0.0, 0.0, w, g);
        double gl = sqrt(g[0] * g[0] + g[1] * g[1]);
        if (gl <= 100.0 * tol) /* a smooth minimum */
            break;
        const double t = 1e-5;
        col_d3 wu, wv;
        h_at(e, d3_norm(d3_mad(*n, t, u)), &wu);
        h_at(e, d3_norm(d3_mad(*n, t, v)), &wv);
        tangent_grad(*n, u, v, t, 0.0, wu, gu);
        tangent_grad(*n, u, v, 0.0, t, wv, gv);
        double h00 = (gu[0] - g[0]) / t, h11 = (gv[1] - g[1]) / t;
        double h01 = 0.5 * ((gu[1] - g[1]) / t + (gv[0] - g[0]) / t);
        double det = h00 * h11 - h01 * h01;
        double s0, s1;
        if (h00 > 0.0 && det > 0.0) {
            s0 = -(h11 * g[0] - h01 * g[1]) / det;
            s1 = -(h00 * g[1] - h01 * g[0]) / det;
        } else { /* not convex here (near a saddle of h): down the gradient, up to 0.5 rad */
            s0 = -0.5 * g[0] / gl;
            s1 = -0.5 * g[1] / gl;
        }
        double sl = sqrt(s0 * s0 + s1 * s1);
        if (sl > reach) {
            s0 *= reach / sl;
            s1 *= reach / sl;
        }
        bool moved = false;
        /* Quartered, not halved: 15 tries span the same 1e-9 range of step lengths. */
        for (int half = 0; half < 15 && !moved; half++, s0 *= 0.25, s1 *= 0.25) {
            col_d3 c = d3_norm(d3_add(*n, d3_add(d3_scale(u, s0), d3_scale(v, s1))));
            col_d3 wc;
            double hc = h_at(e, c, &wc);
            if (hc < h) {
                double gain = h - hc;
                *n = c;
                h = hc;
                w = wc;
                if (gain <= tol) /* m: about 1e-9 of the size, 1e4 inside the target */
                    return h;
                moved = true;
                reach = 4.0 * sqrt(s0 * s0 + s1 * s1);
            }
        }
        /* No step down with a gradient left: a crease of h. */
        if (!moved && (++patterns > 2 || !pattern_step(e, n, &h, &w, tol)))
            break;
    }
    return h;
}

static double polish(const polish_pair *e, col_d3 *n, double tol, double slack,
                     col_d3 *face_wa, col_d3 *face_wb, bool *at_face)
{
    col_d3 w;
    double h = h_at(e, *n, &w);
    col_d3 start = *n;
    int won_a = -1, won_b = -1;
    col_mvert at_a = {0}, at_b = {0};
    try_faces(e, e->a, 1.0, n, &h, &w, &won_a, &at_a);
    try_faces(e, e->b, -1.0, n, &h, &w, &won_b, &at_b);
    /* A face resting on the other shape is a minimum of h, exactly (no Newton steps and no
     * compass search at the crease) when the other's deepest point along its normal (or
     * one point of its deepest flat) projects into the face: the subgradients of h there,
     * the face's points less that point, then hold the normal itself. A's face: B's
     * deepest point along -n is at.b; B's face: A's along n is at.a. */
    if (won_b >= 0 ? face_holds(e->b, won_b, at_b.a)
                   : won_a >= 0 && face_holds(e->a, won_a, at_a.b)) {
        /* The other's deepest point is the contact on it; on the face, h behind it. */
        if (won_b >= 0) {
            *face_wa = at_b.a;
            *face_wb = d3_mad(at_b.a, -h, *n);
        } else {
            *face_wb = at_a.b;
            *face_wa = d3_mad(at_a.b, h, *n);
        }
        *at_face = true;
        return h;
    }
    /* On a crease of h (an edge or a side line of either shape): solved there exactly. */
    if (col_crease3(e->a, e->b, n, &h, slack, tol, face_wa, face_wb)) {
        *at_face = true;
        return h;
    }
    /* A face lower than the start whose contact falls outside it: the minimum is often on
     * one of its edges, nearer the start than the face's normal is. */
    if ((won_a >= 0 || won_b >= 0) &&
        col_crease3(e->a, e->b, &start, &h, slack, tol, face_wa, face_wb)) {
        *n = start;
        *at_face = true;
        return h;
    }
    /* A face taken whose contact falls outside it: Newton's steps from its normal and from
     * the start, the lower kept. From the face's normal alone they may begin where the other
     * shape's support is at a crease (a rim at a cap's normal) and stall; from the start
     * alone they may miss the minimum next to the face. */
    h = newton(e, n, h, w, tol);
    if (won_a >= 0 || won_b >= 0) {
        col_d3 m = start, wm;
        double hm = newton(e, &m, h_at(e, start, &wm), wm, tol);
        if (hm < h) {
            *n = m;
            h = hm;
        }
    }
    /* Where Newton's steps stalled at a crease far from the start (the slack from EPA too
     * wide or too narrow to name it), the crease is sought again from there with the pieces
     * within 1e-3, 1e-4, then 1e-5 of the size. */
    double s = 1e6 * tol;
    for (int k = 0; k < 3; k++, s *= 0.1)
        if (col_crease3(e->a, e->b, n, &h, s, tol, face_wa, face_wb)) {
            *at_face = true;
            break;
        }
    return h;
}

double col_polish3(const col_placed3 *a, const col_placed3 *b, col_d3 *n, double tol,
                   double slack, col_d3 *face_wa, col_d3 *face_wb, bool *at_face)
{
    polish_pair pr = {a, b};
    *at_face = false;
    return polish(&pr, n, tol, slack, face_wa, face_wb, at_face);
}
