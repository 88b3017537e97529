/* Box against box by the separating-axis test over the 15 axes that can separate two boxes
 * (Gottschalk, Lin, Manocha, "OBBTree", 1996: the three face normals of each and the nine
 * cross products of their edges). For two boxes the axis of least overlap is the exact
 * minimum translation. A face axis gives a face contact, clipped to up to four points
 * (manifold3.c); an edge axis the single point between the two edges, as ODE's dBoxBox and
 * Box2D's b2CollideHulls (v3) do. Apart, GJK gives the exact distance (the SAT only bounds
 * it). Computed in double in A's frame. */
#include "collide3_internal.h"

typedef struct axis_test {
    double sep;  /* |L.c| - rA - rB: > 0 apart */
    col_d3 l;    /* unit, from A toward B */
    int kind;    /* 0: A's face, 1: B's face, 2: edges */
    int i, j;    /* A's axis, B's axis */
} axis_test;

static double proj_radius(col_d3 l, const double h[3], const col_d3 ax[3])
{
    return h[0] * fabs(d3_dot(l, ax[0])) + h[1] * fabs(d3_dot(l, ax[1])) +
           h[2] * fabs(d3_dot(l, ax[2]));
}

col_manifold3 col_collide_boxes3(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                 col_xf3 xb)
{
    return col_collide_boxes3_within(a, xa, b, xb, INFINITY, 0.0f);
}

col_manifold3 col_collide_boxes3_within(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                        col_xf3 xb, float margin, float face_bias)
{
    col_placed3 pa, pb;
    col_place_pair(a, xa, b, xb, &pa, &pb);
    double ha[3] = {a->half.x, a->half.y, a->half.z}, hb[3] = {b->half.x, b->half.y, b->half.z};
    col_d3 ea[3] = {d3(1, 0, 0), d3(0, 1, 0), d3(0, 0, 1)};
    col_d3 eb[3] = {d3(pb.r.r0.x, pb.r.r1.x, pb.r.r2.x), d3(pb.r.r0.y, pb.r.r1.y, pb.r.r2.y),
                    d3(pb.r.r0.z, pb.r.r1.z, pb.r.r2.z)};
    col_d3 c = pb.p;
    double scale = col_shape3_reach(a) + col_shape3_reach(b);

    axis_test best[3];
    for (int k = 0; k < 3; k++)
        best[k].sep = -INFINITY;
    for (int kind = 0; kind < 3; kind++) {
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                col_d3 l;
                if (kind == 0) {
                    if (j > 0)
                        break;
                    l = ea[i];
                } else if (kind == 1) {
                    if (j > 0)
                        break;
                    l = eb[i];
                } else {
                    l = d3_cross(ea[i], eb[j]);
                    double len = d3_len(l);
                    /* Parallel edges: their face axes already test this direction. */
                    if (len < 1e-6)
                        continue;
                    l = d3_scale(l, 1.0 / len);
                }
                double dist = d3_dot(l, c);
                double sep = fabs(dist) - proj_radius(l, ha, ea) - proj_radius(l, hb, eb);
                if (sep > best[kind].sep)
                    best[kind] = (axis_test){sep, dist < 0.0 ? d3_neg(l) : l, kind, i, j};
            }
        }
    }
    /* Faces before edges, A's faces before B's, unless the other is better by more than
     * rounding (1e-7 of the size) and the caller's bias: the face of a resting box stays its
     * face. */
    double tol = fmax(1e-7 * scale, (double)face_bias);
    axis_test t = best[1].sep > best[0].sep + tol ? best[1] : best[0];
    if (best[2].sep > t.sep + tol)
        t = best[2];
    if (t.sep > (double)margin) {
        /* Farther apart than the caller cares about: the separation along the best axis is
         * a lower bound of the distance, and it is enough. */
        col_manifold3 apart = {0};
        apart.normal = mk_quat_rotate(xa.q, d3_to_f(t.l));
        apart.distance = (float)t.sep;
        return apart;
    }
    if (t.sep > 0.0)
        return col_collide_convex3(a, xa, b, xb);

    col_manifold3 m = {0};
    double depth = -t.sep;
    if (t.kind < 2) {
        if (!col_poly3_clip(&pa, &pb, t.l, depth, &m))
            return col_collide_convex3(a, xa, b, xb);
        col_manifold3_to_world(&m, xa);
        return m;
    }
    /* Edge against edge: A's edge along axis i where A reaches furthest along l, B's along
     * axis j where B reaches furthest against it. */
    col_d3 p0 = d3(0.0, 0.0, 0.0), q0 = c;
    uint32_t signs = 0;
    for (int k = 0; k < 3; k++) {
        if (k != t.i) {
            double s = d3_dot(t.l, ea[k]) < 0.0 ? -1.0 : 1.0;
            p0 = d3_mad(p0, s * ha[k], ea[k]);
            signs |= (s > 0.0 ? 1u : 0u) << k;
        }
        if (k != t.j) {
            double s = d3_dot(t.l, eb[k]) > 0.0 ? -1.0 : 1.0;
            q0 = d3_mad(q0, s * hb[k], eb[k]);
            signs |= (s > 0.0 ? 1u : 0u) << (k + 3);
        }
    }
    p0 = d3_mad(p0, -ha[t.i], ea[t.i]);
    q0 = d3_mad(q0, -hb[t.j], eb[t.j]);
    double s, u;
    col_segments_closest(p0, d3_scale(ea[t.i], 2.0 * ha[t.i]), q0,
                         d3_scale(eb[t.j], 2.0 * hb[t.j]), &s, &u);
    col_d3 ca = d3_mad(p0, 2.0 * ha[t.i] * s, ea[t.i]);
    col_d3 cb = d3_mad(q0, 2.0 * hb[t.j] * u, eb[t.j]);
    m.count = 1;
    m.normal = d3_to_f(t.l);
    m.depth = (float)depth;
    m.points[0] = (col_contact_point3){d3_to_f(d3_scale(d3_add(ca, cb), 0.5)), (float)depth,
                                       0x40000000u | (uint32_t)(t.i * 3 + t.j) << 8 | signs};
    col_manifold3_to_world(&m, xa);
    return m;
}

bool col_boxes3_overlap(const col_shape3 *a, col_xf3 xa, const col_shape3 *b, col_xf3 xb)
{
    /* The separating-axis test as a boolean (Ericson, "Real-Time Collision Detection", 2005,
     * 4.4.1): B in A's frame, R[i][j] = a_i . b_j, each axis left at its first separation.
     * The epsilon on |R| keeps a near-zero edge cross product from separating by rounding. */
    col_placed3 pa, pb;
    col_place_pair(a, xa, b, xb, &pa, &pb);
    const double ha[3] = {a->half.x, a->half.y, a->half.z};
    const double hb[3] = {b->half.x, b->half.y, b->half.z};
    const col_d3 rows[3] = {pb.r.r0, pb.r.r1, pb.r.r2};
    double r[3][3], ar[3][3];
    for (int i = 0; i < 3; i++) {
        r[i][0] = rows[i].x, r[i][1] = rows[i].y, r[i][2] = rows[i].z;
        for (int j = 0; j < 3; j++)
            ar[i][j] = fabs(r[i][j]) + 1e-12;
    }
    const double t[3] = {pb.p.x, pb.p.y, pb.p.z};
    for (int i = 0; i < 3; i++) /* A's faces */
        if (fabs(t[i]) > ha[i] + hb[0] * ar[i][0] + hb[1] * ar[i][1] + hb[2] * ar[i][2])
            return false;
    for (int j = 0; j < 3; j++) /* B's faces */
        if (fabs(t[0] * r[0][j] + t[1] * r[1][j] + t[2] * r[2][j]) >
            hb[j] + ha[0] * ar[0][j] + ha[1] * ar[1][j] + ha[2] * ar[2][j])
            return false;
    for (int i = 0; i < 3; i++) { /* a_i x b_j */
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; j++) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            double ra = ha[i1] * ar[i2][j] + ha[i2] * ar[i1][j];
            double rb = hb[j1] * ar[i][j2] + hb[j2] * ar[i][j1];
            if (fabs(t[i2] * r[i1][j] - t[i1] * r[i2][j]) > ra + rb)
                return false;
        }
    }
    return true;
}
