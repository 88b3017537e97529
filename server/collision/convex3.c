/* Any pair of 3D shapes by GJK and EPA on their support mappings. Spheres and capsules go to
 * GJK as their cores (a point, a segment) with the radius as a margin, as Box2D's and Jolt's
 * convex radius: while the cores stay apart, the distance and depth are exact from the cores'
 * closest points (the rounded shapes are exact, not approximated by facets) and only a deep
 * overlap of the cores needs EPA on the full shapes. */
#include "collide3_internal.h"

/* `margin`: farther apart than this (m), a lower bound of the gap is enough. */
static col_manifold3 convex(const col_shape3 *a, col_xf3 xa, const col_shape3 *b, col_xf3 xb,
                            double margin)
{
    col_placed3 pa, pb;
    col_place_pair(a, xa, b, xb, &pa, &pb);
    double ma = pa.margin, mb = pb.margin;
    pa.core = ma > 0.0;
    pb.core = mb > 0.0;
    col_manifold3 m = {0};
    col_gjk_result g;
    /* GJK as a boolean first: most pairs of a step's broadphase that do not touch are apart
     * by more than the margin along some axis, which it finds in a few support calls (up to
     * four more after the first separating axis); where the shapes overlap, its tetrahedron
     * about the origin is EPA's start. A gap within the margin needs the distance GJK below.
     * The exact query and the bounded one take the same steps up to the margin, so that their
     * answers agree there. Not for cores (a sphere, a capsule): their usual contact is cores
     * apart by less than the radii, which the boolean cannot settle; the distance GJK's first
     * support along the line of the centres is their quick miss. */
    bool overlap = false;
    if (!pa.core && !pb.core) {
        double lower;
        col_d3 dir;
        int hit = col_gjk_intersect(&pa, &pb, margin, isfinite(margin) ? 4 : 0, &lower, &dir,
                                    &g);
        if (hit == 0) {
            m.normal = d3_to_f(dir);
            m.distance = (float)lower;
            col_manifold3_to_world(&m, xa);
            return m;
        }
        overlap = hit == 1;
    }
    /* GJK converges only linearly on curved surfaces (each digit costs a few iterations): it
     * stops there at 1e-6 of the size but at most 1e-6 m (10 times inside the 1e-5 m
     * target), at 1e-9 of the size on polytopes and cores. */
    double tol = col_pair_tol(a, b);
    bool curved = !((pa.polytope || pa.core) && (pb.polytope || pb.core));
    double gtol = curved ? fmin(1e3 * tol, 1e-6) : tol;
    if (!overlap)
        g = col_gjk_bounded(&pa, &pb, gtol, 0.0, margin + ma + mb);
    if (g.bounded) {
        m.normal = d3_to_f(g.dir);
        m.distance = (float)(g.lower - ma - mb);
        col_manifold3_to_world(&m, xa);
        return m;
    }
    if (!g.overlap && g.distance > gtol && !g.converged && !pa.core && !pb.core) {
        /* GJK stopped short (at a crease of a cone or a cylinder, near touching): the
         * distance is right to its upper bound, but its direction may be 1e-4 rad off. The
         * gap is the least of -h: polished from GJK's direction, with the lower bound and
         * its direction from there. */
        col_d3 n = g.dir, fa, fb;
        bool at_face;
        double hp = col_polish3(&pa, &pb, &n, tol, 1e3 * gtol, &fa, &fb, &at_face);
        if (hp < 0.0) {
            g.dir = n;
            g.distance = fmin(g.distance, -hp);
        }
    }
    if (!g.overlap && g.distance > gtol) {
        col_d3 n = g.dir;
        m.normal = d3_to_f(n);
        if (g.distance > ma + mb) {
            m.distance = (float)(g.distance - ma - mb);
        } else {
            /* The surfaces: a's core point out by its margin, b's back by its own. */
            double depth = ma + mb - g.distance;
            col_d3 sa = d3_mad(g.pa, ma, n), sb = d3_mad(g.pb, -mb, n);
            m.count = 1;
            m.depth = (float)depth;
            m.points[0] = (col_contact_point3){d3_to_f(d3_scale(d3_add(sa, sb), 0.5)),
                                               (float)depth, 0u};
        }
        col_manifold3_to_world(&m, xa);
        return m;
    }
    if (pa.core || pb.core) {
        pa.core = pb.core = false;
        g = col_gjk(&pa, &pb, gtol);
    }
    col_epa_result e = col_epa(&pa, &pb, &g, tol);
    if (!(pa.polytope && pb.polytope && col_poly3_clip(&pa, &pb, e.normal, e.depth, &m))) {
        col_d3 wa = e.pa, wb = e.pb;
        if (!(pa.polytope && pb.polytope) && !e.contact &&
            !col_support_witness(&pa, &pb, e.normal, e.depth, &wa, &wb)) {
            /* Both supports along the normal are flats (a face or a cap on a face): the
             * contact is where B, moved out along the normal to just apart (1e-3 of the
             * smaller size), is closest to A. GJK on separated shapes is exact, where EPA's
             * witness is only as good as its last face. A contact point needs 1e-5 of the
             * size, not GJK's 1e-7 (each 10x costs GJK on a curved surface a few
             * iterations). */
            double lift = e.depth + 1e6 * tol;
            col_placed3 out = pb;
            out.p = d3_mad(pb.p, lift, e.normal);
            /* Started from the support points along the normal: at the contact (or, on a
             * flat, one point of it) already. */
            col_gjk_result c = col_gjk_from(&pa, &out, 1e4 * tol, e.normal);
            if (!c.overlap) {
                wa = c.pa;
                wb = d3_mad(c.pb, -lift, e.normal);
            }
        }
        m.count = 1;
        m.normal = d3_to_f(e.normal);
        m.depth = (float)e.depth;
        m.points[0] = (col_contact_point3){d3_to_f(d3_scale(d3_add(wa, wb), 0.5)),
                                           (float)e.depth, 0u};
    }
    col_manifold3_to_world(&m, xa);
    return m;
}

col_manifold3 col_collide_convex3(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                  col_xf3 xb)
{
    return convex(a, xa, b, xb, INFINITY);
}

col_manifold3 col_collide_convex3_within(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                         col_xf3 xb, float margin)
{
    return convex(a, xa, b, xb, (double)margin);
}
