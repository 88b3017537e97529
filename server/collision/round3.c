/* Exact special cases of the rounded shapes, faster than GJK and exact to rounding: sphere
 * against sphere (the distance of the centres), sphere against box (the closest point of the
 * box by clamping, in the box's frame; a centre inside leaves by the nearest face), capsule
 * against capsule (the closest points of the two segments, Ericson, "Real-Time Collision
 * Detection", 5.1.9). Computed in double from the float data, in A's frame. */
#include "collide3_internal.h"

/* The manifold of two rounded points: `pa` on A's core, `pb` on B's core, grown by ra and rb,
 * in A's frame (`dist` = |pb - pa| > 0 along the unit `n` from A toward B). */
static col_manifold3 round_pair(col_d3 pa, double ra, col_d3 pb, double rb, col_d3 n,
                                double dist, uint32_t id)
{
    col_manifold3 m = {0};
    m.normal = d3_to_f(n);
    if (dist > ra + rb) {
        m.distance = (float)(dist - ra - rb);
        return m;
    }
    double depth = ra + rb - dist;
    col_d3 sa = d3_mad(pa, ra, n), sb = d3_mad(pb, -rb, n);
    m.count = 1;
    m.depth = (float)depth;
    m.points[0] = (col_contact_point3){d3_to_f(d3_scale(d3_add(sa, sb), 0.5)), (float)depth, id};
    return m;
}

col_manifold3 col_collide_spheres3(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                   col_xf3 xb)
{
    col_d3 d = d3_sub(d3_of(xb.p), d3_of(xa.p));
    double dist = d3_len(d);
    /* Concentric: any direction is a minimum translation; up, by convention. */
    col_d3 n = dist > 0.0 ? d3_scale(d, 1.0 / dist) : d3(0.0, 1.0, 0.0);
    col_manifold3 m = round_pair(d3(0, 0, 0), a->radius, d, b->radius, n, dist, 0u);
    for (int i = 0; i < m.count; i++)
        m.points[i].point = mk_v3_add(m.points[i].point, xa.p);
    return m;
}

col_manifold3 col_collide_box_sphere3(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                      col_xf3 xb)
{
    col_drot ra = col_drot_of(xa.q);
    col_d3 c = drot_apply_t(&ra, d3_sub(d3_of(xb.p), d3_of(xa.p)));
    double h[3] = {a->half.x, a->half.y, a->half.z}, cc[3] = {c.x, c.y, c.z}, q[3];
    bool inside = true;
    for (int i = 0; i < 3; i++) {
        q[i] = fmin(fmax(cc[i], -h[i]), h[i]);
        inside = inside && q[i] == cc[i];
    }
    col_manifold3 m;
    if (!inside) {
        col_d3 qp = d3(q[0], q[1], q[2]), d = d3_sub(c, qp);
        double dist = d3_len(d);
        m = round_pair(qp, 0.0, c, b->radius, d3_scale(d, 1.0 / dist), dist, 0u);
    } else {
        /* The centre inside: out through the face it is nearest (the minimum translation
         * of a point in a box), the sphere's radius on top. */
        int k = 0;
        double best = h[0] - fabs(cc[0]);
        for (int i = 1; i < 3; i++)
            if (h[i] - fabs(cc[i]) < best) {
                best = h[i] - fabs(cc[i]);
                k = i;
            }
        double nn[3] = {0.0, 0.0, 0.0};
        nn[k] = cc[k] < 0.0 ? -1.0 : 1.0;
        col_d3 n = d3(nn[0], nn[1], nn[2]);
        q[k] = nn[k] * h[k];
        col_d3 face = d3(q[0], q[1], q[2]);
        double depth = best + b->radius;
        m = (col_manifold3){0};
        m.normal = d3_to_f(n);
        m.count = 1;
        m.depth = (float)depth;
        m.points[0] = (col_contact_point3){
            d3_to_f(d3_scale(d3_add(face, d3_mad(c, -b->radius, n)), 0.5)), (float)depth,
            (uint32_t)k + 1u};
    }
    col_manifold3_to_world(&m, xa);
    return m;
}

col_manifold3 col_collide_capsules3(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                    col_xf3 xb)
{
    col_placed3 pa, pb;
    col_place_pair(a, xa, b, xb, &pa, &pb);
    col_d3 p0 = d3(0.0, -a->half_height, 0.0), d1 = d3(0.0, 2.0 * a->half_height, 0.0);
    col_d3 axis = d3(pb.r.r0.y, pb.r.r1.y, pb.r.r2.y); /* B's y axis in A's frame */
    col_d3 q0 = d3_mad(pb.p, -(double)b->half_height, axis);
    col_d3 d2 = d3_scale(axis, 2.0 * b->half_height);
    double s, t;
    col_segments_closest(p0, d1, q0, d2, &s, &t);
    col_d3 ca = d3_mad(p0, s, d1), cb = d3_mad(q0, t, d2);
    col_d3 d = d3_sub(cb, ca);
    double dist = d3_len(d);
    /* Crossing segments: the depth is no longer that of two balls; EPA decides. */
    if (dist <= 1e-6 * (col_shape3_reach(a) + col_shape3_reach(b)))
        return col_collide_convex3(a, xa, b, xb);
    col_manifold3 m = round_pair(ca, a->radius, cb, b->radius, d3_scale(d, 1.0 / dist), dist, 0u);
    col_manifold3_to_world(&m, xa);
    return m;
}
