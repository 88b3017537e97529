/* Rays and shape casts against 2D shapes. A ray meets a circle in closed form (the quadratic
 * of |p + t d - c| = r) and a box or polygon by clipping its segment against the edges' half
 * planes (Cyrus and Beck 1978, as Box2D's b2RayCastPolygon); both in double, so that the
 * fraction of a ray 1 km long is good to ~1e-12 of it before rounding to float. The segment
 * is from -> to exactly (to - from in double: in float it is rounded, by 3.8e-6 m at 40 m from
 * the origin), and a shape's rotation is its angle's (cos, sin) made unit in double. A shape cast
 * is conservative advancement on the exact distance (col_collide2): A moves along its
 * translation by the gap over the closing speed along the gap's normal, which never passes
 * the first contact of two convex shapes (Mirtich 1996, "Impulse-based dynamic simulation of
 * rigid body systems", for translation only), until the gap is under COL_CAST_TOLERANCE. */
#include <math.h>

#include "collide2_internal.h"

typedef struct ray_d2 {
    double x, y;
} ray_d2;

static col_ray_hit2 no_hit2(void) { return (col_ray_hit2){.hit = false}; }

/* A start inside the shape: a hit at fraction 0 facing the ray. */
static col_ray_hit2 inside_hit2(mk_vec2 from, ray_d2 d)
{
    double l = sqrt(d.x * d.x + d.y * d.y);
    return (col_ray_hit2){true, 0.0f, from, mk_v2((float)(-d.x / l), (float)(-d.y / l))};
}

static col_ray_hit2 ray_circle(mk_vec2 c, float radius, mk_vec2 from, ray_d2 dd)
{
    ray_d2 m = {(double)from.x - c.x, (double)from.y - c.y};
    double r = radius, a = dd.x * dd.x + dd.y * dd.y;
    double b = m.x * dd.x + m.y * dd.y, k = m.x * m.x + m.y * m.y - r * r;
    if (k <= 0.0)
        return inside_hit2(from, dd);
    double disc = b * b - a * k;
    if (disc < 0.0 || b >= 0.0) /* misses, or starts outside moving away */
        return no_hit2();
    /* The smaller root in the form that does not cancel: k / (-b + sqrt(disc)). */
    double t = k / (-b + sqrt(disc));
    if (t > 1.0)
        return no_hit2();
    ray_d2 p = {from.x + t * dd.x, from.y + t * dd.y};
    ray_d2 n = {(p.x - c.x) / r, (p.y - c.y) / r};
    double l = hypot(n.x, n.y);
    return (col_ray_hit2){true, (float)t, mk_v2((float)p.x, (float)p.y),
                          mk_v2((float)(n.x / l), (float)(n.y / l))};
}

/* Cyrus-Beck in the shape's frame: the segment p + t d, t in [0, 1], clipped by each edge's
 * half plane n . (x - v) <= 0; the entering edge gives the normal. */
static col_ray_hit2 ray_poly(const col_shape2 *s, col_xf2 xf, mk_vec2 from, ray_d2 d)
{
    col_poly_view view;
    col_view_local(s, &view);
    col_rot2 r = col_shape_rot(s, xf);
    /* cosf and sinf are each rounded: their vector is 1 within ~1e-7, which would scale the
     * shape by as much about its centre (1 mm for one 10 km wide). */
    double unit = sqrt((double)r.c * r.c + (double)r.s * r.s), c = r.c / unit, sn = r.s / unit;
    ray_d2 rel = {(double)from.x - xf.p.x, (double)from.y - xf.p.y};
    ray_d2 p = {c * rel.x + sn * rel.y, -sn * rel.x + c * rel.y};
    ray_d2 dl = {c * d.x + sn * d.y, -sn * d.x + c * d.y};
    double lower = 0.0, upper = 1.0;
    int index = -1;
    for (int i = 0; i < view.count; i++) {
        ray_d2 n = {view.n[i].x, view.n[i].y};
        double num = n.x * (view.v[i].x - p.x) + n.y * (view.v[i].y - p.y);
        double den = n.x * dl.x + n.y * dl.y;
        if (den == 0.0) {
            if (num < 0.0)
                return no_hit2(); /* parallel and outside this edge */
        } else if (den < 0.0 && num < lower * den) {
            lower = num / den; /* entering through edge i later than before */
            index = i;
        } else if (den > 0.0 && num < upper * den) {
            upper = num / den;
        }
        if (upper < lower)
            return no_hit2();
    }
    if (index < 0)
        return inside_hit2(from, d);
    mk_vec2 n = mk_v2_norm(col_rotate(r, view.n[index]));
    return (col_ray_hit2){true, (float)lower,
                          mk_v2((float)(from.x + lower * d.x), (float)(from.y + lower * d.y)),
                          n};
}

col_ray_hit2 col_ray2(const col_shape2 *s, col_xf2 xf, mk_vec2 from, mk_vec2 to)
{
    ray_d2 d = {(double)to.x - from.x, (double)to.y - from.y};
    if (s->type == COL_SHAPE_CIRCLE)
        return ray_circle(xf.p, s->radius, from, d);
    return ray_poly(s, xf, from, d);
}

col_ray_hit2 col_cast2(const col_shape2 *a, col_xf2 xa, mk_vec2 translation,
                       const col_shape2 *b, col_xf2 xb)
{
    double t = 0.0;
    col_xf2 at = xa;
    for (int iter = 0; iter < COL_CAST_MAX_ITERATIONS; iter++) {
        at.p = mk_v2((float)(xa.p.x + t * translation.x), (float)(xa.p.y + t * translation.y));
        col_manifold2 m = col_collide2(a, at, b, xb);
        if (m.count > 0 || m.distance <= COL_CAST_TOLERANCE) {
            /* Touching: the contact point is where the surfaces meet, found by pushing A in by
             * the tolerance (the manifold's points are midway between the surfaces). */
            col_manifold2 in = m;
            if (m.count == 0) {
                col_xf2 deeper = at;
                deeper.p = mk_v2_mad(at.p, COL_CAST_TOLERANCE, m.normal);
                in = col_collide2(a, deeper, b, xb);
            }
            mk_vec2 point = in.count > 0 ? in.points[0].point : at.p;
            return (col_ray_hit2){true, (float)t, point, mk_v2_neg(m.normal)};
        }
        double closing = (double)translation.x * m.normal.x + (double)translation.y * m.normal.y;
        if (closing <= 0.0)
            return no_hit2(); /* moving along or away from the separating line */
        t += m.distance / closing;
        if (t > 1.0)
            return no_hit2();
    }
    return no_hit2(); /* a grazing pass that never closed within the tolerance */
}
