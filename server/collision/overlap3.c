/* Whether two 3D shapes overlap, without the manifold: two spheres by their centres, two boxes
 * by the separating-axis test (box3.c), any other pair by GJK as a boolean on the support
 * mappings (gjk3.c), with a rounded shape's core and radius as in convex3.c. The world's
 * overlap queries and the sensors ask this. */
#include "collide3_internal.h"

bool col_overlap3(const col_shape3 *a, col_xf3 xa, const col_shape3 *b, col_xf3 xb)
{
    if (a->type == COL_SHAPE3_SPHERE && b->type == COL_SHAPE3_SPHERE) {
        mk_vec3 d = mk_v3_sub(xb.p, xa.p);
        float r = a->radius + b->radius;
        return mk_v3_dot(d, d) <= r * r;
    }
    if (a->type == COL_SHAPE3_BOX && b->type == COL_SHAPE3_BOX)
        return col_boxes3_overlap(a, xa, b, xb);
    col_placed3 pa, pb;
    col_place_pair(a, xa, b, xb, &pa, &pb);
    double ma = pa.margin, mb = pb.margin;
    pa.core = ma > 0.0;
    pb.core = mb > 0.0;
    /* GJK as a boolean on shapes without a margin; cores (whose usual overlap is a gap of the
     * cores within the margins) go to the distance GJK, which stops at its first support
     * when the line of the centres separates by more than the margins. */
    if (!pa.core && !pb.core) {
        int hit = col_gjk_intersect(&pa, &pb, 0.0, 0, NULL, NULL, NULL);
        if (hit >= 0)
            return hit == 1;
    } else {
        /* The line of the centres as a separating axis, before the distance GJK is set up:
         * the cores behind it by more than the margins are apart. */
        col_d3 d = d3_sub(pb.p, pa.p);
        double dd = d3_dot(d, d), m = ma + mb;
        if (dd > 0.0) {
            double dw = d3_dot(d, col_support_pair(&pa, &pb, d).w);
            if (dw < 0.0 && dw * dw > m * m * dd)
                return false;
        }
    }
    bool curved = !((pa.polytope || pa.core) && (pb.polytope || pb.core));
    double tol = col_pair_tol(a, b), gtol = curved ? 100.0 * tol : tol;
    col_gjk_result g = col_gjk_bounded(&pa, &pb, gtol, ma + mb, ma + mb);
    if (g.bounded)
        return false;
    return g.overlap || g.within || g.distance <= ma + mb;
}
