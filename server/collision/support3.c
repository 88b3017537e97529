/* The placements GJK and EPA use (a pair in A's frame), the shapes' reach and tolerances,
 * and the public support and bounds of a placed shape. The support mappings themselves (the
 * "3D support mapping" of the seed, Kenwright's "Collision Detection Using Minkowski
 * Difference": a shape is the function that returns its furthest point along a ray) are
 * inline in collide3_internal.h, where the inner loops of GJK, EPA and the polish see them. */
#include <assert.h>
#include <float.h>

#include "collide3_internal.h"

static col_drot drot_of_d(double w, double x, double y, double z)
{
    return (col_drot){d3(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)),
                      d3(2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)),
                      d3(2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y))};
}

col_drot col_drot_of(mk_quat q) { return drot_of_d(q.w, q.x, q.y, q.z); }

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
    /* Not below 1e-12 of the larger reach: the coordinates of A - B are of that size, and
     * double rounds them to about 1e-16 of it, which GJK's squared lengths and closest-point
     * solves make a few digits worse. A point (a sphere of radius 0: reach 0) or a tiny
     * sphere would otherwise ask GJK for a distance of exactly 0 to call an overlap (a point
     * inside a capsule came out 1e-16 m apart) and for no progress at all to stop. */
    double ra = col_shape3_reach(a), rb = col_shape3_reach(b);
    return fmax(1e-9 * fmin(ra, rb), 1e-12 * fmax(ra, rb));
}

static col_placed3 placed(const col_shape3 *s, col_drot r, col_d3 p)
{
    return (col_placed3){s, r, p, false, col_shape3_margin(s),
                         s->type == COL_SHAPE3_BOX || s->type == COL_SHAPE3_HULL, false};
}

void col_place_pair(const col_shape3 *a, col_xf3 xa, const col_shape3 *b, col_xf3 xb,
                    col_placed3 *pa, col_placed3 *pb)
{
    /* B relative to A: the rotation of conj(qa) qb, the offset pb - pa turned by conj(qa)
     * (v + 2w (u x v) + 2 u x (u x v) with u = -qa.xyz): one matrix built instead of two
     * and their product. */
    double aw = xa.q.w, ax = xa.q.x, ay = xa.q.y, az = xa.q.z;
    double bw = xb.q.w, bx = xb.q.x, by = xb.q.y, bz = xb.q.z;
    double rw = aw * bw + ax * bx + ay * by + az * bz;
    double rx = aw * bx - ax * bw - ay * bz + az * by;
    double ry = aw * by + ax * bz - ay * bw - az * bx;
    double rz = aw * bz - ax * by + ay * bx - az * bw;
    col_d3 u = d3(-ax, -ay, -az);
    col_d3 v = d3_sub(d3_of(xb.p), d3_of(xa.p));
    col_d3 t = d3_scale(d3_cross(u, v), 2.0);
    col_d3 off = d3_add(d3_mad(v, aw, t), d3_cross(u, t));
    *pa = placed(a, (col_drot){d3(1, 0, 0), d3(0, 1, 0), d3(0, 0, 1)}, d3(0.0, 0.0, 0.0));
    pa->ident = true;
    *pb = placed(b, drot_of_d(rw, rx, ry, rz), off);
}

mk_vec3 col_support3(const col_shape3 *s, col_xf3 xf, mk_vec3 dir)
{
    col_placed3 ps = placed(s, col_drot_of(xf.q), d3_of(xf.p));
    return d3_to_f(col_placed_support(&ps, d3_of(dir)));
}

col_aabb3 col_shape3_bounds(const col_shape3 *s, col_xf3 xf)
{
    /* A sphere's, whatever its turn: its radius on every side. */
    if (s->type == COL_SHAPE3_SPHERE)
        return (col_aabb3){xf.p, mk_v3(s->radius, s->radius, s->radius)};
    /* The support along +-e_i, in the shape's frame the rows of R: exact for every shape. */
    col_drot r = col_drot_of(xf.q);
    col_d3 rows[3] = {r.r0, r.r1, r.r2};
    /* A shape symmetric about its origin has the support along -d the negative of the one
     * along d, to the bit (a negated direction gives negated terms, copysign flips a box's
     * signs of zero too): only the cone and a hull need both. */
    bool symmetric = s->type != COL_SHAPE3_CONE && s->type != COL_SHAPE3_HULL;
    double lo[3], hi[3];
    for (int i = 0; i < 3; i++) {
        hi[i] = d3_dot(rows[i], col_local_support(s, rows[i], false));
        lo[i] = symmetric ? -hi[i]
                          : d3_dot(rows[i], col_local_support(s, d3_neg(rows[i]), false));
    }
    col_d3 c = d3(0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]));
    col_d3 h = d3(0.5 * (hi[0] - lo[0]), 0.5 * (hi[1] - lo[1]), 0.5 * (hi[2] - lo[2]));
    return (col_aabb3){d3_to_f(d3_add(d3_of(xf.p), c)), d3_to_f(h)};
}
