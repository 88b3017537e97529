/* Rays and shape casts against 3D shapes, in double in the shape's frame. Closed forms where
 * the surface is a quadric or planes: the sphere's and the ellipsoid's quadratic (the
 * ellipsoid scaled to the unit sphere), the box's slabs (Kay and Kajiya 1986), the hull's
 * face planes clipping the segment (Cyrus and Beck 1978), the cylinder as its infinite tube
 * intersected with the slab of its caps, the capsule as the union of its tube and its two
 * spheres, the cone as one nappe of its quadric cut by the plane of its base. The segment is
 * from -> to exactly (to - from in double), and a shape's rotation is its quaternion's made
 * unit in double (a float quaternion is unit within ~1e-7, which would otherwise scale and
 * shear the shape by as much about its centre). Every shape cast by conservative advancement
 * on GJK's exact distance (Mirtich 1996): each step moves by the gap over the closing speed
 * along the gap's normal, which never passes the first contact of convex shapes, until the
 * gap is under COL_CAST_TOLERANCE. */
#include <math.h>

#include "collide3_internal.h"

/* Where the ray enters a convex piece: t of entry and exit, and the normal (shape frame) at
 * the entry. empty when the line misses the piece within [0, 1]. */
typedef struct ray_span {
    bool empty;
    double enter, exit;
    col_d3 normal;
} ray_span;

static const ray_span EMPTY_SPAN = {true, 0.0, 0.0, {0.0, 0.0, 0.0}};

/* The t where a t^2 + 2 b t + k <= 0 (a > 0): between the roots, found without cancellation
 * (q = -(b + sign(b) s), t = q / a and k / q). The caller gives the normal. */
static ray_span quadratic_span(double a, double b, double k)
{
    double disc = b * b - a * k;
    if (disc < 0.0)
        return EMPTY_SPAN;
    double s = sqrt(disc);
    double q = b >= 0.0 ? -(b + s) : -(b - s);
    double t0 = q / a, t1 = q != 0.0 ? k / q : t0;
    return (ray_span){false, fmin(t0, t1), fmax(t0, t1), {0.0, 0.0, 0.0}};
}

/* The line p + t d inside the sphere |x - c| <= r. */
static ray_span sphere_span(col_d3 c, double r, col_d3 p, col_d3 d)
{
    col_d3 m = d3_sub(p, c);
    ray_span sp = quadratic_span(d3_dot(d, d), d3_dot(m, d), d3_dot(m, m) - r * r);
    if (!sp.empty)
        sp.normal = d3_scale(d3_sub(d3_mad(p, sp.enter, d), c), 1.0 / r);
    return sp;
}

/* The line inside the slab |x_k| <= h on axis k (x_k = p_k + t d_k). */
static ray_span slab_span(double p, double d, double h, col_d3 axis)
{
    if (d == 0.0)
        return fabs(p) <= h ? (ray_span){false, -INFINITY, INFINITY, axis} : EMPTY_SPAN;
    double t0 = (-h - p) / d, t1 = (h - p) / d;
    ray_span sp = {false, fmin(t0, t1), fmax(t0, t1), d3_scale(axis, d > 0.0 ? -1.0 : 1.0)};
    return sp;
}

/* The intersection of two spans: the later entry gives the normal. */
static ray_span span_and(ray_span a, ray_span b)
{
    if (a.empty || b.empty)
        return EMPTY_SPAN;
    ray_span r = b.enter > a.enter ? b : a;
    r.exit = fmin(a.exit, b.exit);
    r.enter = fmax(a.enter, b.enter);
    if (r.exit < r.enter)
        return EMPTY_SPAN;
    return r;
}

/* The line inside the infinite tube x^2 + z^2 <= r^2 about the y axis. */
static ray_span tube_span(double r, col_d3 p, col_d3 d)
{
    double a = d.x * d.x + d.z * d.z, b = p.x * d.x + p.z * d.z;
    double k = p.x * p.x + p.z * p.z - r * r;
    if (a == 0.0)
        return k <= 0.0 ? (ray_span){false, -INFINITY, INFINITY, {0.0, 0.0, 0.0}} : EMPTY_SPAN;
    ray_span sp = quadratic_span(a, b, k);
    if (!sp.empty) {
        col_d3 at = d3_mad(p, sp.enter, d);
        sp.normal = d3(at.x / r, 0.0, at.z / r);
    }
    return sp;
}

static ray_span hull_span(const col_hull3 *h, col_d3 p, col_d3 d)
{
    ray_span sp = {false, -INFINITY, INFINITY, {0.0, 0.0, 0.0}};
    for (int i = 0; i < h->face_count; i++) {
        col_d3 n = d3_of(h->faces[i].normal);
        double num = h->faces[i].offset - d3_dot(n, p), den = d3_dot(n, d);
        if (den == 0.0) {
            if (num < 0.0)
                return EMPTY_SPAN;
        } else if (den < 0.0) {
            double t = num / den;
            if (t > sp.enter) {
                sp.enter = t;
                sp.normal = n;
            }
        } else {
            sp.exit = fmin(sp.exit, num / den);
        }
        if (sp.exit < sp.enter)
            return EMPTY_SPAN;
    }
    return sp;
}

/* The faces of a cone the line can enter it through. */
typedef enum cone_face { CONE_NONE, CONE_SIDE, CONE_APEX, CONE_BASE } cone_face;

/* The normal of the cone's side in the plane of the axis and the ray, facing the ray: where
 * the line meets the side at the apex, or so near the axis that the point's azimuth is lost
 * to rounding. A ray along the axis gets the axis. */
static col_d3 cone_apex_normal(double k, col_d3 d)
{
    double sigma = sqrt(d.x * d.x + d.z * d.z), slope = sqrt(1.0 + k * k);
    if (sigma == 0.0)
        return d3(0.0, 1.0, 0.0);
    return d3(-d.x / (sigma * slope), k / slope, -d.z / (sigma * slope));
}

/* The line p + t d inside the cone of radius r and half height h: apex (0, h, 0), base the
 * disc of radius r at y = -h. Its side is the nappe below the apex of the quadric
 * x^2 + z^2 = k^2 u^2, u = h - y the depth below the apex, k = r / 2h; along the line
 * f(t) = a t^2 + 2 b t + c <= 0 inside the double cone. For a > 0 (the line less steep than
 * the side) that is one interval, within one nappe; for a < 0 two half-lines, one in each
 * nappe, of which the one toward growing u is the cone's; a = 0 (parallel to a side line) is
 * linear. Then the planes u >= 0 (the apex's: only the apex itself is entered through it)
 * and y >= -h (the base). The quadric is homogeneous about the apex: its terms are of the
 * size of the point's distance from the apex squared, so the line is first moved to its
 * point nearest the apex, where b^2 - a c keeps the digits a grazing ray needs (measured from
 * the ray's start 20 m off, or from the middle of a 10 km cone, they would be lost). */
static ray_span cone_span(double r, double h, col_d3 p, col_d3 d)
{
    double k = r / (2.0 * h), k2 = k * k;
    double shift = -(p.x * d.x + (p.y - h) * d.y + p.z * d.z) / d3_dot(d, d);
    col_d3 m = d3_mad(p, shift, d);
    /* Every point of the cone is within its side's length of the apex. */
    if (m.x * m.x + (m.y - h) * (m.y - h) + m.z * m.z > (r * r + 4.0 * h * h) * (1.0 + 1e-9))
        return EMPTY_SPAN;
    double u = h - m.y, du = -d.y;
    double a = d.x * d.x + d.z * d.z - k2 * du * du;
    double b = m.x * d.x + m.z * d.z - k2 * u * du;
    double c = m.x * m.x + m.z * m.z - k2 * u * u;
    double lo = -INFINITY, hi = INFINITY;
    cone_face face = CONE_NONE;
    if (a == 0.0) {
        if (b == 0.0 && c > 0.0)
            return EMPTY_SPAN;
        if (b > 0.0)
            hi = -c / (2.0 * b);
        else if (b < 0.0) {
            lo = -c / (2.0 * b);
            face = CONE_SIDE;
        }
    } else {
        double disc = b * b - a * c;
        if (disc < 0.0) {
            if (a > 0.0)
                return EMPTY_SPAN;
            disc = 0.0; /* a < 0: the line passes through the apex, within rounding */
        }
        double sq = sqrt(disc);
        double q = b >= 0.0 ? -(b + sq) : -(b - sq);
        double t0 = q / a, t1 = q != 0.0 ? c / q : t0;
        double r0 = fmin(t0, t1), r1 = fmax(t0, t1);
        if (a > 0.0 || du > 0.0) {
            lo = a > 0.0 ? r0 : r1;
            face = CONE_SIDE;
        }
        if (a > 0.0 || du < 0.0)
            hi = a > 0.0 ? r1 : r0;
    }
    /* u >= 0 and y >= -h along the line. */
    if (du == 0.0) {
        if (u < 0.0 || m.y < -h)
            return EMPTY_SPAN;
    } else if (du > 0.0) {
        double apex = -u / du, base = (-h - m.y) / d.y;
        if (apex > lo) {
            lo = apex;
            face = CONE_APEX;
        }
        hi = fmin(hi, base);
    } else {
        double apex = -u / du, base = (-h - m.y) / d.y;
        hi = fmin(hi, apex);
        if (base > lo) {
            lo = base;
            face = CONE_BASE;
        }
    }
    if (hi < lo)
        return EMPTY_SPAN;
    ray_span sp = {false, shift + lo, shift + hi, {0.0, 0.0, 0.0}};
    if (face == CONE_BASE) {
        sp.normal = d3(0.0, -1.0, 0.0);
    } else if (face == CONE_APEX) {
        sp.normal = cone_apex_normal(k, d);
    } else if (face == CONE_SIDE) {
        /* The gradient (x, k^2 u, z) of the quadric, which on the side is
         * rho (cos phi, k, sin phi): the azimuth from the point's own x and z, unless they are
         * within rounding (1e-9 of the coordinates they came from) of the axis. */
        col_d3 at = d3_mad(m, lo, d);
        double rho = sqrt(at.x * at.x + at.z * at.z);
        double noise = 1e-9 * (fabs(m.x) + fabs(m.z) + fabs(lo) * (fabs(d.x) + fabs(d.z)));
        double slope = sqrt(1.0 + k2);
        sp.normal = rho > noise ? d3(at.x / (rho * slope), k / slope, at.z / (rho * slope))
                                : cone_apex_normal(k, d);
    }
    return sp;
}

/* The span of the line in the shape (shape frame). */
static ray_span shape_span(const col_shape3 *s, col_d3 p, col_d3 d)
{
    switch (s->type) {
    case COL_SHAPE3_SPHERE:
        return sphere_span(d3(0.0, 0.0, 0.0), s->radius, p, d);
    case COL_SHAPE3_BOX: {
        ray_span sp = slab_span(p.x, d.x, s->half.x, d3(1.0, 0.0, 0.0));
        sp = span_and(sp, slab_span(p.y, d.y, s->half.y, d3(0.0, 1.0, 0.0)));
        return span_and(sp, slab_span(p.z, d.z, s->half.z, d3(0.0, 0.0, 1.0)));
    }
    case COL_SHAPE3_ELLIPSOID: {
        col_d3 r = d3_of(s->half);
        col_d3 ps = d3(p.x / r.x, p.y / r.y, p.z / r.z), ds = d3(d.x / r.x, d.y / r.y, d.z / r.z);
        ray_span sp = sphere_span(d3(0.0, 0.0, 0.0), 1.0, ps, ds);
        /* The gradient of x^2/a^2 + ...: the unit sphere's normal divided by the radii. */
        sp.normal = d3_norm(d3(sp.normal.x / r.x, sp.normal.y / r.y, sp.normal.z / r.z));
        return sp;
    }
    case COL_SHAPE3_CYLINDER:
        return span_and(tube_span(s->radius, p, d),
                        slab_span(p.y, d.y, s->half_height, d3(0.0, 1.0, 0.0)));
    case COL_SHAPE3_CAPSULE: {
        /* A union of convex pieces: the line enters it where it enters the first piece. */
        double h = s->half_height;
        ray_span parts[3] = {
            span_and(tube_span(s->radius, p, d), slab_span(p.y, d.y, h, d3(0.0, 1.0, 0.0))),
            sphere_span(d3(0.0, h, 0.0), s->radius, p, d),
            sphere_span(d3(0.0, -h, 0.0), s->radius, p, d),
        };
        /* The slab's planes are inside the capsule, not faces of it: the tube's piece is
         * entered through one only on the seam with a cap (anywhere else inside the cap's
         * radius its sphere is entered first), where the normal is the radial one both faces
         * share. */
        if (!parts[0].empty && isfinite(parts[0].enter)) {
            col_d3 at = d3_mad(p, parts[0].enter, d);
            double rho = sqrt(at.x * at.x + at.z * at.z);
            if (rho > 0.0)
                parts[0].normal = d3(at.x / rho, 0.0, at.z / rho);
        }
        ray_span best = EMPTY_SPAN;
        for (int i = 0; i < 3; i++) {
            if (parts[i].empty || parts[i].exit < 0.0)
                continue;
            if (parts[i].enter <= 0.0)
                return parts[i]; /* inside a piece: inside the capsule */
            if (best.empty || parts[i].enter < best.enter)
                best = parts[i];
        }
        return best;
    }
    case COL_SHAPE3_HULL:
        return hull_span(s->hull, p, d);
    case COL_SHAPE3_CONE:
        return cone_span(s->radius, s->half_height, p, d);
    case COL_SHAPE3_COUNT:
        break;
    }
    assert(0 && "unknown shape type");
    return EMPTY_SPAN;
}

static col_ray_hit3 no_hit3(void) { return (col_ray_hit3){.hit = false}; }

/* Conservative advancement of A along `translation` toward B. A point moving is a sphere of
 * radius 0 (GJK on its centre). */
static col_ray_hit3 advance(const col_shape3 *a, col_xf3 xa, mk_vec3 translation,
                            const col_shape3 *b, col_xf3 xb)
{
    double t = 0.0;
    col_d3 start = d3_of(xa.p), v = d3_of(translation);
    for (int iter = 0; iter < COL_CAST_MAX_ITERATIONS; iter++) {
        col_xf3 at = {d3_to_f(d3_mad(start, t, v)), xa.q};
        col_distance3 g = col_gjk3_distance(a, at, b, xb);
        if (g.overlap || g.distance <= COL_CAST_TOLERANCE) {
            if (g.overlap) {
                /* Overlapping (at the start, or within rounding of the contact): the exact
                 * narrowphase gives the normal and a point. */
                col_manifold3 m = col_collide3(a, at, b, xb);
                if (m.count > 0)
                    return (col_ray_hit3){true, (float)t, m.points[0].point,
                                          mk_v3_neg(m.normal)};
                return (col_ray_hit3){true, (float)t, at.p,
                                      mk_v3_neg(mk_v3_norm(translation))};
            }
            return (col_ray_hit3){true, (float)t, g.point_b, mk_v3_neg(g.normal)};
        }
        double closing = d3_dot(v, d3_of(g.normal));
        if (closing <= 0.0)
            return no_hit3();
        t += g.distance / closing;
        if (t > 1.0)
            return no_hit3();
    }
    return no_hit3();
}

/* The rotation of q / |q|: the matrix of q's formula is |q|^2 R + (1 - |q|^2) I, R the
 * rotation q stands for. */
static col_drot unit_rot(mk_quat q)
{
    col_drot m = col_drot_of(q);
    double n2 = (double)q.w * q.w + (double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z;
    double off = 1.0 - n2, inv = 1.0 / n2;
    m.r0.x -= off;
    m.r1.y -= off;
    m.r2.z -= off;
    return (col_drot){d3_scale(m.r0, inv), d3_scale(m.r1, inv), d3_scale(m.r2, inv)};
}

col_ray_hit3 col_ray3(const col_shape3 *s, col_xf3 xf, mk_vec3 from, mk_vec3 to)
{
    col_d3 f = d3_of(from), dir = d3_sub(d3_of(to), f);
    col_drot r = unit_rot(xf.q);
    col_d3 p = drot_apply_t(&r, d3_sub(f, d3_of(xf.p)));
    col_d3 d = drot_apply_t(&r, dir);
    ray_span sp = shape_span(s, p, d);
    if (sp.empty || sp.exit < 0.0 || sp.enter > 1.0)
        return no_hit3();
    if (sp.enter <= 0.0) /* starts inside */
        return (col_ray_hit3){true, 0.0f, from, d3_to_f(d3_neg(d3_norm(dir)))};
    col_d3 at = d3_mad(f, sp.enter, dir);
    return (col_ray_hit3){true, (float)sp.enter, d3_to_f(at),
                          d3_to_f(d3_norm(drot_apply(&r, sp.normal)))};
}

col_ray_hit3 col_cast3(const col_shape3 *a, col_xf3 xa, mk_vec3 translation,
                       const col_shape3 *b, col_xf3 xb)
{
    return advance(a, xa, translation, b, xb);
}
