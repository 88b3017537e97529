/* Support mappings of the 3D shapes: the "3D support mapping" of the seed ("Collision
 * Detection Using Minkowski Difference", Kenwright: a shape is the function that returns its
 * furthest point along a ray), for every shape Mink has, and the placements GJK and EPA use.
 * The formulas are the standard ones (van den Bergen, "Collision Detection in Interactive 3D
 * Environments", 2003, ch. 4.3). */
#include <assert.h>
#include <float.h>

#include "collide3_internal.h"

col_drot col_drot_of(mk_quat q)
{
    double x = q.x, y = q.y, z = q.z, w = q.w;
    return (col_drot){d3(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)),
                      d3(2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)),
                      d3(2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y))};
}

double col_shape3_margin(const col_shape3 *s)
{
    return s->type == COL_SHAPE3_SPHERE || s->type == COL_SHAPE3_CAPSULE ? (double)s->radius
                                                                          : 0.0;
}

double col_shape3_reach(const col_shape3 *s)
{
    double r = s->radius, h = s->half_height;
    switch (s->type) {
    case COL_SHAPE3_SPHERE:
        return r;
    case COL_SHAPE3_BOX:
        return d3_len(d3_of(s->half));
    case COL_SHAPE3_ELLIPSOID:
        return fmax(s->half.x, fmax(s->half.y, s->half.z));
    case COL_SHAPE3_CAPSULE:
        return h + r;
    case COL_SHAPE3_CYLINDER:
    case COL_SHAPE3_CONE:
        return sqrt(r * r + h * h);
    case COL_SHAPE3_HULL:
        return s->hull->reach;
    case COL_SHAPE3_COUNT:
        break;
    }
    assert(0 && "unknown shape type");
    return 0.0;
}

double col_pair_tol(const col_shape3 *a, const col_shape3 *b)
{
    return 1e-9 * fmin(col_shape3_reach(a), col_shape3_reach(b));
}

static double sgn(double v) { return v < 0.0 ? -1.0 : 1.0; }

col_d3 col_local_support(const col_shape3 *s, col_d3 d, bool core)
{
    double r = s->radius, h = s->half_height;
    switch (s->type) {
    case COL_SHAPE3_SPHERE:
        return core ? d3(0.0, 0.0, 0.0) : d3_scale(d, r / d3_len(d));
    case COL_SHAPE3_BOX:
        return d3(sgn(d.x) * s->half.x, sgn(d.y) * s->half.y, sgn(d.z) * s->half.z);
    case COL_SHAPE3_ELLIPSOID: {
        /* The support of the unit sphere scaled by diag(a): diag(a)^2 d / |diag(a) d|. */
        col_d3 ad = d3(s->half.x * d.x, s->half.y * d.y, s->half.z * d.z);
        double l = d3_len(ad);
        return d3(s->half.x * ad.x / l, s->half.y * ad.y / l, s->half.z * ad.z / l);
    }
    case COL_SHAPE3_CAPSULE: {
        col_d3 end = d3(0.0, sgn(d.y) * h, 0.0);
        return core ? end : d3_mad(end, r / d3_len(d), d);
    }
    case COL_SHAPE3_CYLINDER: {
        /* A cap's rim point toward d; along the axis itself the cap's centre, which is as
         * far along d as any of the cap. */
        double sigma = sqrt(d.x * d.x + d.z * d.z);
        double k = sigma > 0.0 ? r / sigma : 0.0;
        return d3(k * d.x, sgn(d.y) * h, k * d.z);
    }
    case COL_SHAPE3_CONE: {
        /* The apex or the base's rim point toward d, whichever reaches further along d. */
        double sigma = sqrt(d.x * d.x + d.z * d.z);
        if (2.0 * h * d.y >= r * sigma)
            return d3(0.0, h, 0.0);
        double k = sigma > 0.0 ? r / sigma : 0.0;
        return d3(k * d.x, -h, k * d.z);
    }
    case COL_SHAPE3_HULL: {
        const col_hull3 *hull = s->hull;
        int best = 0;
        double bd = -DBL_MAX;
        for (int i = 0; i < hull->vert_count; i++) {
            double v = d.x * hull->verts[i].x + d.y * hull->verts[i].y + d.z * hull->verts[i].z;
            if (v > bd) {
                bd = v;
                best = i;
            }
        }
        return d3_of(hull->verts[best]);
    }
    case COL_SHAPE3_COUNT:
        break;
    }
    assert(0 && "unknown shape type");
    return d3(0.0, 0.0, 0.0);
}

col_d3 col_placed_support(const col_placed3 *ps, col_d3 d)
{
    /* A in A's frame, the first shape of every pair: two rotations and a sum saved on half
     * of all support calls. */
    if (ps->ident)
        return col_local_support(ps->s, d, ps->core);
    col_d3 local = col_local_support(ps->s, drot_apply_t(&ps->r, d), ps->core);
    return d3_add(ps->p, drot_apply(&ps->r, local));
}

col_mvert col_support_pair(const col_placed3 *a, const col_placed3 *b, col_d3 d)
{
    col_mvert m;
    m.a = col_placed_support(a, d);
    m.b = col_placed_support(b, d3_neg(d));
    m.w = d3_sub(m.a, m.b);
    return m;
}

static col_placed3 placed(const col_shape3 *s, col_drot r, col_d3 p)
{
    return (col_placed3){s, r, p, false, col_shape3_margin(s),
                         s->type == COL_SHAPE3_BOX || s->type == COL_SHAPE3_HULL, false};
}

void col_place_pair(const col_shape3 *a, col_xf3 xa, const col_shape3 *b, col_xf3 xb,
                    col_placed3 *pa, col_placed3 *pb)
{
    col_drot ra = col_drot_of(xa.q), rb = col_drot_of(xb.q);
    /* B relative to A: R = Ra^T Rb, p = Ra^T (pb - pa). */
    col_d3 c0 = drot_apply_t(&ra, d3(rb.r0.x, rb.r1.x, rb.r2.x));
    col_d3 c1 = drot_apply_t(&ra, d3(rb.r0.y, rb.r1.y, rb.r2.y));
    col_d3 c2 = drot_apply_t(&ra, d3(rb.r0.z, rb.r1.z, rb.r2.z));
    col_drot rel = {d3(c0.x, c1.x, c2.x), d3(c0.y, c1.y, c2.y), d3(c0.z, c1.z, c2.z)};
    col_d3 off = drot_apply_t(&ra, d3_sub(d3_of(xb.p), d3_of(xa.p)));
    *pa = placed(a, (col_drot){d3(1, 0, 0), d3(0, 1, 0), d3(0, 0, 1)}, d3(0.0, 0.0, 0.0));
    pa->ident = true;
    *pb = placed(b, rel, off);
}

mk_vec3 col_support3(const col_shape3 *s, col_xf3 xf, mk_vec3 dir)
{
    col_placed3 ps = placed(s, col_drot_of(xf.q), d3_of(xf.p));
    return d3_to_f(col_placed_support(&ps, d3_of(dir)));
}

col_aabb3 col_shape3_bounds(const col_shape3 *s, col_xf3 xf)
{
    /* The support along +-e_i, in the shape's frame the rows of R: exact for every shape. */
    col_drot r = col_drot_of(xf.q);
    col_d3 rows[3] = {r.r0, r.r1, r.r2};
    double lo[3], hi[3];
    for (int i = 0; i < 3; i++) {
        hi[i] = d3_dot(rows[i], col_local_support(s, rows[i], false));
        lo[i] = d3_dot(rows[i], col_local_support(s, d3_neg(rows[i]), false));
    }
    col_d3 c = d3(0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]));
    col_d3 h = d3(0.5 * (hi[0] - lo[0]), 0.5 * (hi[1] - lo[1]), 0.5 * (hi[2] - lo[2]));
    return (col_aabb3){d3_to_f(d3_add(d3_of(xf.p), c)), d3_to_f(h)};
}
