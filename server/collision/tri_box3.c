/* A box against one triangle of a level by the separating-axis test, as box3.c does for two
 * boxes: the axes that can separate a triangle and a box are the triangle's normal, the box's
 * three face normals and the nine cross products of their edges (Eberly, "Intersection of a
 * Triangle and a Box", 2008; Akenine-Moller, "Fast 3D Triangle-Box Overlap Testing", 2001,
 * whose test runs in the box's frame, where the box's axes are the coordinate axes and an
 * edge axis has a zero coordinate). Where they overlap, the axis of least overlap is the exact
 * minimum translation of the two polytopes, which EPA reaches only after building a polytope
 * about the origin; a face axis gives the face contact, clipped to up to four points
 * (manifold3.c). Farther apart than the caller's margin the separation along the best axis is
 * a lower bound of the distance and enough. The rest (apart within the margin, where the
 * distance must be exact, and edge against edge) is left to GJK and EPA. Computed in double,
 * in the box's frame, the answers in the triangle hull's. */
#include "level_internal.h"

typedef struct tri_axis {
    double sep; /* > 0 apart */
    col_d3 l;   /* unit, from the triangle toward the box, in the box's frame */
} tri_axis;

/* The separation along axis l (either sense, length len) of the triangle, whose corners
 * project to a[3], and the box about the origin, which reaches r along l; l turned from the
 * triangle toward the box and made unit. */
static tri_axis along(col_d3 l, double len, const double a[3], double r)
{
    double lo = a[0], hi = a[0]; /* compares, not fmin and fmax: those are calls into libm */
    lo = a[1] < lo ? a[1] : lo;
    hi = a[1] > hi ? a[1] : hi;
    lo = a[2] < lo ? a[2] : lo;
    hi = a[2] > hi ? a[2] : hi;
    double up = -r - hi, down = lo - r; /* the box above, or below */
    double inv = 1.0 / len;
    return up >= down ? (tri_axis){up * inv, d3_scale(l, inv)}
                      : (tri_axis){down * inv, d3_scale(l, -inv)};
}

/* The corners u[3] of the triangle projected on l. */
static void project(col_d3 l, const col_d3 u[3], double a[3])
{
    for (int k = 0; k < 3; k++)
        a[k] = d3_dot(l, u[k]);
}

/* The box's reach along l. */
static double reach(col_d3 l, const double h[3])
{
    return h[0] * fabs(l.x) + h[1] * fabs(l.y) + h[2] * fabs(l.z);
}

/* Whether the separation t.sep along a face axis (kind 0: the triangle's, nb its normal; 1:
 * the box's) is the gap itself, and then the triangle's point of it (in *p, the box's frame):
 * when the other shape's point furthest toward that face lies over the face, the two are that
 * far apart there, and no closer anywhere, since the separation along any axis is a lower
 * bound of the gap. */
static bool face_gap(int kind, tri_axis t, const col_d3 u[3], const double h[3], col_d3 nb,
                     col_d3 *p)
{
    if (kind == 0) {
        /* The box's lowest corner over the triangle: inside each edge's side plane. */
        col_d3 x = d3(t.l.x > 0.0 ? -h[0] : h[0], t.l.y > 0.0 ? -h[1] : h[1],
                      t.l.z > 0.0 ? -h[2] : h[2]);
        for (int k = 0; k < 3; k++) {
            col_d3 edge = d3_sub(u[(k + 1) % 3], u[k]);
            if (d3_dot(nb, d3_cross(edge, d3_sub(x, u[k]))) < 0.0)
                return false;
        }
        *p = d3_mad(x, -t.sep, t.l);
        return true;
    }
    /* The triangle's corner nearest the box's face under the box's face. */
    int top = 0;
    for (int k = 1; k < 3; k++)
        if (d3_dot(t.l, u[k]) > d3_dot(t.l, u[top]))
            top = k;
    const double at[3] = {u[top].x, u[top].y, u[top].z}, l[3] = {t.l.x, t.l.y, t.l.z};
    for (int k = 0; k < 3; k++)
        if (fabs(l[k]) < 0.5 && fabs(at[k]) > h[k])
            return false;
    *p = u[top];
    return true;
}

/* Axis t of the box's frame in the hull's: the triangle's normal n itself (or -n), to the
 * bit, so that a face contact's normal is the face's (triangle3.c: on_face). */
static col_d3 hull_axis(tri_axis t, bool face, col_d3 n, col_d3 nb, const col_drot *r)
{
    if (face)
        return d3_dot(t.l, nb) < 0.0 ? d3_neg(n) : n;
    return drot_apply(r, t.l);
}

/* Apart along l (hull frame) by more than the margin. */
static col_tri_box_result apart(double sep, col_d3 l, col_manifold3 *m)
{
    *m = (col_manifold3){0};
    m->normal = d3_to_f(l);
    m->distance = (float)sep;
    return COL_TRI_BOX_DONE;
}

col_tri_box_result col_collide_tri_box3(const col_tri_hull *th, col_d3 n, const col_shape3 *b,
                                        col_xf3 xb, const col_tri_contact3 *how,
                                        col_manifold3 *m, col_d3 *nearest)
{
    double margin = how->margin;
    col_placed3 pa, pb;
    col_place_pair(&th->shape, th->xf, b, xb, &pa, &pb);
    /* The triangle in the box's frame: x_box = R^T (x - c). */
    col_d3 u[3], f[3];
    for (int k = 0; k < 3; k++)
        u[k] = drot_apply_t(&pb.r, d3_sub(d3_of(th->hull.verts[k]), pb.p));
    for (int k = 0; k < 3; k++)
        f[k] = d3_sub(u[(k + 1) % 3], u[k]);
    col_d3 nb = drot_apply_t(&pb.r, n);
    double h[3] = {b->half.x, b->half.y, b->half.z};
    double scale = th->hull.reach + col_shape3_reach(b);

    /* Each kind's best axis: the triangle's face, the box's faces, the edges. The first axis
     * to separate them by more than the margin ends the test: its separation is a lower bound
     * of the gap, which is all a pair that far apart needs (col_collide3_within). */
    double a[3];
    tri_axis best[3];
    project(nb, u, a);
    best[0] = along(nb, 1.0, a, reach(nb, h));
    if (best[0].sep > margin)
        return apart(best[0].sep, hull_axis(best[0], true, n, nb, &pb.r), m);
    best[1].sep = best[2].sep = -INFINITY;
    best[1].l = best[2].l = nb;
    static const col_d3 axes[3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
    for (int j = 0; j < 3; j++) {
        project(axes[j], u, a); /* the corners' coordinate j */
        tri_axis t = along(axes[j], 1.0, a, h[j]);
        if (t.sep > margin)
            return apart(t.sep, drot_apply(&pb.r, t.l), m);
        if (t.sep > best[1].sep)
            best[1] = t;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            /* e_j x f_i: a zero where the box's axis is. */
            col_d3 l = j == 0   ? d3(0.0, -f[i].z, f[i].y)
                       : j == 1 ? d3(f[i].z, 0.0, -f[i].x)
                                : d3(-f[i].y, f[i].x, 0.0);
            double len = d3_len(l);
            /* Parallel edges: the face axes already test this direction. */
            if (len < 1e-6 * d3_len(f[i]))
                continue;
            project(l, u, a);
            tri_axis t = along(l, len, a, reach(l, h));
            if (t.sep > margin)
                return apart(t.sep, drot_apply(&pb.r, t.l), m);
            if (t.sep > best[2].sep)
                best[2] = t;
        }
    /* Faces before edges, the triangle's face before the box's, unless the other is better by
     * more than rounding (1e-7 of the size) and the caller's bias, as box3.c: the face a box
     * rests on stays its face. */
    double tol = fmax(1e-7 * scale, (double)how->face_bias);
    int kind = best[1].sep > best[0].sep + tol ? 1 : 0;
    if (best[2].sep > best[kind].sep + tol)
        kind = 2;
    tri_axis t = best[kind];
    col_d3 l = hull_axis(t, kind == 0, n, nb, &pb.r);
    if (t.sep > 0.0) {
        /* Apart within the margin: the exact gap and where on the triangle it is. */
        col_d3 local;
        if (kind < 2 && face_gap(kind, t, u, h, nb, &local)) {
            *nearest = d3_add(d3_of(th->xf.p), d3_add(pb.p, drot_apply(&pb.r, local)));
            /* A face over the other's nearest point: its speculative points, the face clipped
             * as at a touch. */
            if (how->speculative && col_poly3_clip_within(&pa, &pb, l, -t.sep, margin, m)) {
                col_manifold3_to_world(m, th->xf);
                return COL_TRI_BOX_APART;
            }
            *m = (col_manifold3){0};
            m->normal = d3_to_f(l);
            m->distance = (float)t.sep;
            return COL_TRI_BOX_APART;
        }
        col_distance3 g = col_gjk3_distance(&th->shape, th->xf, b, xb);
        if (g.overlap)
            return COL_TRI_BOX_UNDECIDED;
        *m = (col_manifold3){0};
        m->normal = g.normal;
        m->distance = g.distance;
        *nearest = d3_of(g.point_a);
        return COL_TRI_BOX_APART;
    }
    if (kind == 2 || !col_poly3_clip(&pa, &pb, l, -t.sep, m))
        return COL_TRI_BOX_UNDECIDED;
    col_manifold3_to_world(m, th->xf);
    return COL_TRI_BOX_DONE;
}
