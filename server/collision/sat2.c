/* Convex polygon against convex polygon (aabb, box and polygon shapes alike).
 *
 * The Minkowski difference A - B of two convex polygons (its construction and origin test are
 * those of "Minkowski Collisions - I Want My Game To Have Slopes!") is a convex polygon whose
 * edge normals are A's edge normals and B's negated ones. Its face with A's normal n lies at
 * n.x = -sep(n), where sep(n) = min over B of n.(b - a_i) is the separating-axis distance of
 * that edge; so the origin is inside exactly when every sep is <= 0, and the closest face is
 * the one of largest sep: the minimum translation is -sep along it. This is the separating
 * axis test over the edge normals of both shapes, which is exact, not an approximation.
 *
 * When they are apart, the origin's closest point on A - B lies on that same face of largest
 * sep or at one of its ends (for a convex polygon, the face of largest separation from an
 * outside point carries the closest point), which gives the exact distance.
 *
 * The contact points come from clipping B's incident edge (the one most against the normal)
 * to the side planes of the reference face, as in Box2D's b2CollidePolygons. */
#include <float.h>
#include <math.h>

#include "collide2_internal.h"

/* Largest separation of B from the edges of A, and the edge that has it. */
static float max_separation(const col_poly_view *a, const col_poly_view *b, int *edge)
{
    float best = -FLT_MAX;
    int best_i = 0;
    for (int i = 0; i < a->count; i++) {
        mk_vec2 n = a->n[i], v = a->v[i];
        float sep = FLT_MAX;
        for (int j = 0; j < b->count; j++)
            sep = mk_minf(sep, mk_v2_dot(n, mk_v2_sub(b->v[j], v)));
        if (sep > best) {
            best = sep;
            best_i = i;
        }
    }
    *edge = best_i;
    return best;
}

/* A polygon's extent, for tolerances relative to size. */
static float view_scale(const col_poly_view *p)
{
    float s = 0.0f;
    for (int i = 0; i < p->count; i++)
        s = mk_maxf(s, mk_maxf(fabsf(p->v[i].x), fabsf(p->v[i].y)));
    return s;
}

/* Exact gap between separated polygons, from the face of largest separation `sep` > 0: the
 * edge `edge` of R (the reference) against the incident polygon I, both in one frame. Writes
 * the normal from R toward I. */
static float face_distance(const col_poly_view *r, int edge, const col_poly_view *inc, float sep,
                           float tol, mk_vec2 *normal)
{
    mk_vec2 n = r->n[edge];
    mk_vec2 t = mk_v2(-n.y, n.x);
    mk_vec2 r0 = r->v[edge], r1 = r->v[edge + 1 < r->count ? edge + 1 : 0];
    /* I's points nearest the face: its support against n, an edge when one lies parallel. */
    float lo = FLT_MAX, tb_lo = FLT_MAX, tb_hi = -FLT_MAX;
    for (int j = 0; j < inc->count; j++)
        lo = mk_minf(lo, mk_v2_dot(n, inc->v[j]));
    for (int j = 0; j < inc->count; j++) {
        if (mk_v2_dot(n, inc->v[j]) <= lo + tol) {
            float tj = mk_v2_dot(t, inc->v[j]);
            tb_lo = mk_minf(tb_lo, tj);
            tb_hi = mk_maxf(tb_hi, tj);
        }
    }
    /* The face of the difference R - I spans these tangential coordinates; the origin's
     * tangential offset from it is the part of the gap along the face. */
    float ta0 = mk_v2_dot(t, r0), ta1 = mk_v2_dot(t, r1);
    float face_lo = mk_minf(ta0, ta1) - tb_hi, face_hi = mk_maxf(ta0, ta1) - tb_lo;
    float along = face_lo > 0.0f ? face_lo : face_hi < 0.0f ? face_hi : 0.0f;
    /* The closest point of R - I is -sep * n + along * t; I lies the other way from R. */
    mk_vec2 q = mk_v2_mad(mk_v2_scale(n, -sep), along, t);
    float dist = mk_v2_len(q);
    /* A gap within rounding of zero has no direction of its own (q is rounding noise); the
     * face's normal is then the one that separates, to within that gap. */
    *normal = dist > 4.0f * tol ? mk_v2_scale(q, -1.0f / dist) : n;
    return dist;
}

/* How far apart A and B are along d (from A toward B): min over B - max over A. */
static float gap_along(const col_poly_view *a, const col_poly_view *b, mk_vec2 d)
{
    float hi_a = -FLT_MAX, lo_b = FLT_MAX;
    for (int i = 0; i < a->count; i++)
        hi_a = mk_maxf(hi_a, mk_v2_dot(d, a->v[i]));
    for (int j = 0; j < b->count; j++)
        lo_b = mk_minf(lo_b, mk_v2_dot(d, b->v[j]));
    return lo_b - hi_a;
}

/* Feature ids of clipped points: which polygon holds the reference face, the reference
 * feature, the incident feature, and whether a side plane cut the point. */
static uint32_t make_id(bool flip, bool clipped, int ref, int inc, int end)
{
    return (flip ? 1u << 30 : 0u) | (clipped ? 1u << 29 : 0u) | ((uint32_t)ref << 16) |
           ((uint32_t)inc << 8) | (uint32_t)end;
}

/* The manifold of reference face `edge` of R against I, both in one frame, normal R -> I. */
static col_manifold2 clip_manifold(const col_poly_view *r, int edge, const col_poly_view *inc,
                                   bool flip)
{
    col_manifold2 m = {0};
    mk_vec2 n = r->n[edge];
    int e1 = edge + 1 < r->count ? edge + 1 : 0;
    mk_vec2 r0 = r->v[edge], r1 = r->v[e1];

    /* The incident edge: the one whose normal is most against n. */
    int k = 0;
    float best = FLT_MAX;
    for (int j = 0; j < inc->count; j++) {
        float d = mk_v2_dot(n, inc->n[j]);
        if (d < best) {
            best = d;
            k = j;
        }
    }
    int k1 = k + 1 < inc->count ? k + 1 : 0;
    mk_vec2 p[2] = {inc->v[k], inc->v[k1]};
    int vid[2] = {k, k1};
    bool clipped[2] = {false, false};
    int side[2] = {edge, edge};

    /* Clip to the side planes of the reference face: t.x >= t.r0 and t.x <= t.r1. */
    mk_vec2 t = mk_v2_sub(r1, r0);
    float lo = mk_v2_dot(t, r0), hi = mk_v2_dot(t, r1);
    for (int plane = 0; plane < 2; plane++) {
        float d0 = plane == 0 ? mk_v2_dot(t, p[0]) - lo : hi - mk_v2_dot(t, p[0]);
        float d1 = plane == 0 ? mk_v2_dot(t, p[1]) - lo : hi - mk_v2_dot(t, p[1]);
        if (d0 < 0.0f && d1 < 0.0f)
            return m; /* cannot happen for overlapping polygons; the caller falls back */
        if (d0 < 0.0f || d1 < 0.0f) {
            int out = d0 < 0.0f ? 0 : 1;
            float u = d0 / (d0 - d1);
            p[out] = mk_v2_mad(p[0], u, mk_v2_sub(p[1], p[0]));
            clipped[out] = true;
            side[out] = plane == 0 ? edge : e1;
        }
    }

    for (int i = 0; i < 2; i++) {
        float sep = mk_v2_dot(n, mk_v2_sub(p[i], r0));
        if (sep > 0.0f)
            continue;
        col_contact_point2 *cp = &m.points[m.count++];
        cp->point = mk_v2_mad(p[i], -0.5f * sep, n);
        cp->depth = -sep;
        cp->id = clipped[i] ? make_id(flip, true, side[i], k, i) : make_id(flip, false, edge, vid[i], i);
    }
    return m;
}

static bool is_box(const col_shape2 *s)
{
    return s->type == COL_SHAPE_AABB || s->type == COL_SHAPE_BOX;
}

/* Two boxes (the common pair of a world of crates): the same separating axis test as
 * max_separation, with the support of a box written out. A's faces against B: B's extent
 * along A's axes, read off B's four corners. B's face j against A: A's support along -n_j is
 * its half extents against |n_j|, so sep_j = -(hx |n.x| + hy |n.y|) - n_j . v_j. Eight
 * separations in a few dozen operations instead of two 4 x 4 loops of dot products. Writes
 * both views (A local, B in A's frame) and returns the larger coordinate scale of the two. */
static float box_separations(const col_shape2 *a, const col_shape2 *b, col_rot2 rel, mk_vec2 off,
                             col_poly_view *pa, col_poly_view *pb, float *sep_a, int *ea,
                             float *sep_b, int *eb)
{
    col_view_local(a, pa);
    mk_vec2 ux = mk_v2(rel.c * b->half.x, rel.s * b->half.x);
    mk_vec2 uy = mk_v2(-rel.s * b->half.y, rel.c * b->half.y);
    mk_vec2 *v = pb->own_v, *n = pb->own_n;
    v[0] = mk_v2_sub(mk_v2_sub(off, ux), uy);
    v[1] = mk_v2_sub(mk_v2_add(off, ux), uy);
    v[2] = mk_v2_add(mk_v2_add(off, ux), uy);
    v[3] = mk_v2_add(mk_v2_sub(off, ux), uy);
    n[0] = mk_v2(rel.s, -rel.c);
    n[1] = mk_v2(rel.c, rel.s);
    n[2] = mk_v2(-rel.s, rel.c);
    n[3] = mk_v2(-rel.c, -rel.s);
    pb->count = 4;
    pb->v = v;
    pb->n = n;

    mk_vec2 lo = mk_v2_min(mk_v2_min(v[0], v[1]), mk_v2_min(v[2], v[3]));
    mk_vec2 hi = mk_v2_max(mk_v2_max(v[0], v[1]), mk_v2_max(v[2], v[3]));
    float ha_x = a->half.x, ha_y = a->half.y;
    /* A's faces in col_view_local's order: -y, +x, +y, -x. */
    float sa[4] = {-hi.y - ha_y, lo.x - ha_x, lo.y - ha_y, -hi.x - ha_x};
    *ea = 0;
    for (int i = 1; i < 4; i++)
        if (sa[i] > sa[*ea])
            *ea = i;
    *sep_a = sa[*ea];
    *eb = 0;
    float best = -FLT_MAX;
    for (int j = 0; j < 4; j++) {
        float sep = -(ha_x * fabsf(n[j].x) + ha_y * fabsf(n[j].y)) - mk_v2_dot(n[j], v[j]);
        if (sep > best) {
            best = sep;
            *eb = j;
        }
    }
    *sep_b = best;
    float scale_b = mk_maxf(mk_maxf(fabsf(lo.x), fabsf(hi.x)), mk_maxf(fabsf(lo.y), fabsf(hi.y)));
    return mk_maxf(mk_maxf(ha_x, ha_y), scale_b);
}

col_manifold2 col_collide_polygons(const col_shape2 *a, col_xf2 xa, const col_shape2 *b,
                                   col_xf2 xb)
{
    return col_collide_polygons_near(a, xa, col_shape_rot(a, xa), b, xb, col_shape_rot(b, xb),
                                     FLT_MAX);
}

col_manifold2 col_collide_polygons_near(const col_shape2 *a, col_xf2 xa, col_rot2 ra,
                                        const col_shape2 *b, col_xf2 xb, col_rot2 rb,
                                        float margin)
{
    /* Everything happens in A's frame: A as it is, B moved and turned into it. */
    col_poly_view pa, pb;
    int ea, eb;
    float sep_a, sep_b, scale;
    if (is_box(a) && is_box(b)) {
        col_rot2 rel = {ra.c * rb.c + ra.s * rb.s, ra.c * rb.s - ra.s * rb.c};
        mk_vec2 off = col_unrotate(ra, mk_v2_sub(xb.p, xa.p));
        scale = box_separations(a, b, rel, off, &pa, &pb, &sep_a, &ea, &sep_b, &eb);
    } else {
        col_view_local(a, &pa);
        col_view_in_frame(b, xb, rb, xa, ra, &pb);
        sep_a = max_separation(&pa, &pb, &ea);
        sep_b = max_separation(&pb, &pa, &eb);
        scale = mk_maxf(view_scale(&pa), view_scale(&pb));
    }
    /* Ties go to A's face unless B's is clearly larger, so the reference face does not flicker
     * between two equal faces from one tick to the next. The bias is a few float roundings at
     * the shapes' scale, far inside the accuracy the world needs. */
    float tol = 4.0f * FLT_EPSILON * scale;
    bool flip = sep_b > sep_a + tol;
    float sep = flip ? sep_b : sep_a;

    col_manifold2 m = {0};
    if (sep_a > margin || sep_b > margin) {
        /* Farther apart than the caller cares for: a separating axis shows it, and the gap is
         * at least that axis's separation (the exact gap, face_distance, is not needed). */
        m.distance = mk_maxf(sep_a, sep_b);
        m.normal = sep_a >= sep_b ? pa.n[ea] : mk_v2_neg(pb.n[eb]);
        col_manifold_to_world(&m, xa.p, ra);
        return m;
    }
    if (sep_a > 0.0f || sep_b > 0.0f) {
        /* Apart. The closest point lies on the face of largest separation; when A's best face
         * and B's best face are within rounding of each other (nearly parallel faces), either
         * may be it. Each face's distance is never below the true gap, so the smaller of the
         * two is the gap. */
        mk_vec2 na = pa.n[ea], nb = mk_v2_neg(pb.n[eb]);
        float da = sep_a > 0.0f ? face_distance(&pa, ea, &pb, sep_a, tol, &na) : FLT_MAX;
        float db = sep_b > 0.0f ? face_distance(&pb, eb, &pa, sep_b, tol, &nb) : FLT_MAX;
        m.distance = mk_minf(da, db);
        m.normal = da <= db ? na : mk_v2_neg(nb);
        if (fabsf(da - db) <= 8.0f * tol) {
            /* Within rounding of each other: both faces end at (nearly) the same point of the
             * difference, and the normal is the one along which the shapes are farthest
             * apart. */
            mk_vec2 nb_ab = mk_v2_neg(nb);
            m.normal = gap_along(&pa, &pb, na) >= gap_along(&pa, &pb, nb_ab) ? na : nb_ab;
        }
        col_manifold_to_world(&m, xa.p, ra);
        return m;
    }

    m = flip ? clip_manifold(&pb, eb, &pa, true) : clip_manifold(&pa, ea, &pb, false);
    mk_vec2 n = flip ? mk_v2_neg(pb.n[eb]) : pa.n[ea];
    if (m.count == 0) {
        /* Rounding left no clipped point below the face (a grazing touch): the deepest vertex
         * of the incident polygon stands for the contact. */
        const col_poly_view *r = flip ? &pb : &pa, *inc = flip ? &pa : &pb;
        int e = flip ? eb : ea, deepest = 0;
        float d = FLT_MAX;
        for (int j = 0; j < inc->count; j++) {
            float s = mk_v2_dot(r->n[e], mk_v2_sub(inc->v[j], r->v[e]));
            if (s < d) {
                d = s;
                deepest = j;
            }
        }
        m.count = 1;
        m.points[0].point = mk_v2_mad(inc->v[deepest], -0.5f * d, r->n[e]);
        m.points[0].depth = mk_maxf(-d, 0.0f);
        m.points[0].id = make_id(flip, false, e, deepest, 0);
    }
    m.normal = n;
    m.depth = -sep;
    col_manifold_to_world(&m, xa.p, ra);
    return m;
}
