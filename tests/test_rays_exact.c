/* mink_collision: col_ray2 and col_ray3 against an independent exact method, over many random
 * rays of the kinds that find a ray test's faults: grazing rays, rays through edges, rims,
 * seams and apexes, rays from inside, rays parallel to faces and to a cone's side lines, rays
 * that end on the surface; shapes of normal size, tiny (1 to 10 mm) and huge (1 to 10 km),
 * and far from the origin (1 to 10 km), as tests/test_points3.c does for the 3D point queries.
 *
 * The reference, in long double, shares no code with the method under test: the signed
 * distance to the shape, written here from the shape's definition (mink_collision3.h: a
 * cone's apex at (0, h, 0), its base the disc of radius r at y = -h), taken along the
 * segment. For a convex shape it is a convex function of the fraction t, so its minimum over
 * [0, 1] (golden-section search) says whether the segment meets the shape and by how much,
 * and below 0 the first crossing is the unique root on [0, t_min] (bisection). A shape is
 * placed by its rotation made unit (the quaternion, or cosf and sinf of the angle, divided by
 * their length), as col_ray2 and col_ray3 document. A polygon and a hull are their edges' and
 * faces' half planes as the shape stores them, and an ellipsoid its implicit function times
 * its smallest radius: convex functions with the shape as their zero set, no larger than the
 * distance, so their margins read as distances a little generously.
 *
 * Asserted for every ray whose segment misses the shape, or enters it, by more than the
 * grazing band (GRAZE_BAND times the size of the ray's coordinates in the shape's frame,
 * where double's own rounding of the inputs and of the quadric's discriminant lives): the
 * verdict; for a hit, the fraction within 1e-5 m along the ray (or the float fraction's own
 * rounding, 2^-24 of the ray's length, where that is more) and the normal within
 * NORMAL_TOLERANCE rad of the surface's normal at the exact hit point. Within FEATURE_BAND of
 * an edge, a rim or an apex any normal of a face that meets there is right (at a cone's apex,
 * or so near its axis that the point's azimuth is lost to rounding, any normal of its side
 * facing the ray). A ray that starts inside gets fraction 0 and the normal against it. Prints
 * the counts and the worst errors per shape and size. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "mink_collision.h"
#include "shapes_check.h"

#define PI 3.14159265358979323846L
#define RAYS 3000               /* per shape and size class */
#define GRAZE_BAND 1e-12L       /* of the ray's size in the shape's frame */
#define FEATURE_BAND 1e-7L      /* of the same: where a point is on an edge, rim or apex */
#define FRACTION_TOLERANCE 1e-5 /* m along the ray */
#define NORMAL_TOLERANCE 1e-5   /* rad */

typedef long double ld;

typedef struct lv {
    ld x, y, z;
} lv;

static lv v3(ld x, ld y, ld z) { return (lv){x, y, z}; }
static lv vadd(lv a, lv b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static lv vsub(lv a, lv b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static lv vscale(lv a, ld s) { return v3(a.x * s, a.y * s, a.z * s); }
static ld vdot(lv a, lv b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static ld vlen(lv a) { return sqrtl(vdot(a, a)); }
static lv vnorm(lv a) { return vscale(a, 1.0L / vlen(a)); }
static lv vcross(lv a, lv b)
{
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static ld vmax_abs(lv a) { return fmaxl(fabsl(a.x), fmaxl(fabsl(a.y), fabsl(a.z))); }
static lv vof(mk_vec3 v) { return v3(v.x, v.y, v.z); }
static mk_vec3 vto_f(lv v) { return mk_v3((float)v.x, (float)v.y, (float)v.z); }

static lv rnd_unit(void)
{
    ld z = rnd(-1, 1), a = rnd(0, 2 * (double)PI), s = sqrtl(1 - z * z);
    return v3(s * cosl(a), z, s * sinl(a));
}

/* A unit vector at right angles to n (2D: in the plane). */
static lv rnd_perp(lv n, int dim)
{
    if (dim == 2)
        return rnd_int(2) ? v3(-n.y, n.x, 0) : v3(n.y, -n.x, 0);
    for (;;) {
        lv t = vcross(n, rnd_unit());
        if (vlen(t) > 0.1L)
            return vnorm(t);
    }
}

/* ---- a case: one shape placed, one ray ---- */

typedef struct ray_case {
    int dim;
    col_shape2 s2;
    col_xf2 x2;
    col_shape3 s3;
    col_xf3 x3;
    lv pos;     /* the placement, long double */
    lv rot[3];  /* rows of the unit rotation: world = pos + R local */
    ld reach;   /* the shape's radius about its origin, m */
    mk_vec3 from, to;
} ray_case;

static col_polygon poly_store;
static col_hull3 hull_store;

static void place(ray_case *c)
{
    if (c->dim == 3) {
        mk_quat q = c->x3.q;
        ld n = sqrtl((ld)q.w * q.w + (ld)q.x * q.x + (ld)q.y * q.y + (ld)q.z * q.z);
        ld w = q.w / n, x = q.x / n, y = q.y / n, z = q.z / n;
        c->rot[0] = v3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y));
        c->rot[1] = v3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x));
        c->rot[2] = v3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y));
        c->pos = vof(c->x3.p);
        return;
    }
    ld co = 1, si = 0;
    if (c->s2.type != COL_SHAPE_AABB) {
        co = cosf(c->x2.angle);
        si = sinf(c->x2.angle);
        ld n = sqrtl(co * co + si * si);
        co /= n;
        si /= n;
    }
    c->rot[0] = v3(co, -si, 0);
    c->rot[1] = v3(si, co, 0);
    c->rot[2] = v3(0, 0, 1);
    c->pos = v3(c->x2.p.x, c->x2.p.y, 0);
}

static lv to_world(const ray_case *c, lv l)
{
    return vadd(c->pos, v3(vdot(c->rot[0], l), vdot(c->rot[1], l), vdot(c->rot[2], l)));
}
static lv dir_local(const ray_case *c, lv w)
{
    return vadd(vadd(vscale(c->rot[0], w.x), vscale(c->rot[1], w.y)), vscale(c->rot[2], w.z));
}
static lv to_local(const ray_case *c, lv w) { return dir_local(c, vsub(w, c->pos)); }

/* ---- the shapes' signed distances and normals, in the shape's frame ---- */

/* Distance from (x, y) to the segment a-b in a plane. */
static ld seg_dist(ld x, ld y, ld ax, ld ay, ld bx, ld by)
{
    ld ux = bx - ax, uy = by - ay;
    ld s = ((x - ax) * ux + (y - ay) * uy) / (ux * ux + uy * uy);
    s = fminl(fmaxl(s, 0), 1);
    return hypotl(x - ax - s * ux, y - ay - s * uy);
}

/* A box of half extents h (2D: z ignored). */
static ld box_sdf(lv h, lv p, int dim)
{
    lv q = v3(fabsl(p.x) - h.x, fabsl(p.y) - h.y, dim == 3 ? fabsl(p.z) - h.z : -1.0L);
    lv o = v3(fmaxl(q.x, 0), fmaxl(q.y, 0), fmaxl(q.z, 0));
    return vlen(o) + fminl(fmaxl(q.x, fmaxl(q.y, q.z)), 0);
}

/* The solid cone in its meridian half plane (rho, y): the triangle apex (0, h), rim (r, -h),
 * base centre (0, -h), of which the side and the base are the surface. */
static ld cone_sdf(ld r, ld h, lv p)
{
    ld rho = hypotl(p.x, p.z), y = p.y, k = r / (2 * h);
    if (y >= -h && rho <= k * (h - y))
        return -fminl(y + h, (k * (h - y) - rho) / sqrtl(1 + k * k));
    return fminl(seg_dist(rho, y, 0, -h, r, -h), seg_dist(rho, y, 0, h, r, -h));
}

static ld sdf(const ray_case *c, lv p)
{
    if (c->dim == 2) {
        const col_shape2 *s = &c->s2;
        switch (s->type) {
        case COL_SHAPE_AABB:
        case COL_SHAPE_BOX:
            return box_sdf(v3(s->half.x, s->half.y, 0), p, 2);
        case COL_SHAPE_CIRCLE:
            return hypotl(p.x, p.y) - s->radius;
        case COL_SHAPE_POLYGON: {
            ld g = -INFINITY;
            for (int i = 0; i < s->polygon->count; i++) {
                mk_vec2 n = s->polygon->normals[i], v = s->polygon->verts[i];
                g = fmaxl(g, (n.x * (p.x - v.x) + n.y * (p.y - v.y)) / hypotl(n.x, n.y));
            }
            return g;
        }
        default:
            break;
        }
        return 0;
    }
    const col_shape3 *s = &c->s3;
    ld r = s->radius, h = s->half_height;
    switch (s->type) {
    case COL_SHAPE3_SPHERE:
        return vlen(p) - r;
    case COL_SHAPE3_BOX:
        return box_sdf(vof(s->half), p, 3);
    case COL_SHAPE3_ELLIPSOID: {
        lv a = vof(s->half);
        return (vlen(v3(p.x / a.x, p.y / a.y, p.z / a.z)) - 1) * fminl(a.x, fminl(a.y, a.z));
    }
    case COL_SHAPE3_CAPSULE:
        return vlen(v3(p.x, p.y - fminl(fmaxl(p.y, -h), h), p.z)) - r;
    case COL_SHAPE3_CYLINDER: {
        ld qx = hypotl(p.x, p.z) - r, qy = fabsl(p.y) - h;
        return hypotl(fmaxl(qx, 0), fmaxl(qy, 0)) + fminl(fmaxl(qx, qy), 0);
    }
    case COL_SHAPE3_CONE:
        return cone_sdf(r, h, p);
    case COL_SHAPE3_HULL: {
        ld g = -INFINITY;
        for (int i = 0; i < s->hull->face_count; i++) {
            const col_hull3_face *f = &s->hull->faces[i];
            g = fmaxl(g, (vdot(vof(f->normal), p) - f->offset) / vlen(vof(f->normal)));
        }
        return g;
    }
    default:
        break;
    }
    return 0;
}

/* The normals of the faces within `band` of the surface point p (a hull's faces can be
 * slivers, many of them near one point); `apex` set where any normal of a cone's side facing
 * the ray is right. */
typedef struct normal_set {
    int count;
    lv n[COL_MAX_HULL3_FACES];
    bool apex;
} normal_set;

static void add_normal(normal_set *s, lv n)
{
    if (s->count < COL_MAX_HULL3_FACES)
        s->n[s->count++] = vnorm(n);
}

static void box_normals(lv h, lv p, ld band, int dim, normal_set *out)
{
    ld pc[3] = {p.x, p.y, p.z}, hc[3] = {h.x, h.y, h.z};
    for (int k = 0; k < dim; k++) {
        bool within = true;
        for (int j = 0; j < dim; j++)
            within = within && (j == k || fabsl(pc[j]) <= hc[j] + band);
        if (within && fabsl(fabsl(pc[k]) - hc[k]) <= band)
            add_normal(out, v3(k == 0 ? copysignl(1, pc[0]) : 0, k == 1 ? copysignl(1, pc[1]) : 0,
                               k == 2 ? copysignl(1, pc[2]) : 0));
    }
}

static normal_set normals_at(const ray_case *c, lv p, ld band)
{
    normal_set out = {0};
    if (c->dim == 2) {
        const col_shape2 *s = &c->s2;
        if (s->type == COL_SHAPE_CIRCLE) {
            add_normal(&out, v3(p.x, p.y, 0));
        } else if (s->type == COL_SHAPE_POLYGON) {
            for (int i = 0; i < s->polygon->count; i++) {
                mk_vec2 n = s->polygon->normals[i], v = s->polygon->verts[i];
                if (fabsl(n.x * (p.x - v.x) + n.y * (p.y - v.y)) <= band)
                    add_normal(&out, v3(n.x, n.y, 0));
            }
        } else {
            box_normals(v3(s->half.x, s->half.y, 0), p, band, 2, &out);
        }
        return out;
    }
    const col_shape3 *s = &c->s3;
    ld r = s->radius, h = s->half_height, rho = hypotl(p.x, p.z);
    switch (s->type) {
    case COL_SHAPE3_SPHERE:
        add_normal(&out, p);
        break;
    case COL_SHAPE3_BOX:
        box_normals(vof(s->half), p, band, 3, &out);
        break;
    case COL_SHAPE3_ELLIPSOID: {
        lv a = vof(s->half);
        add_normal(&out, v3(p.x / (a.x * a.x), p.y / (a.y * a.y), p.z / (a.z * a.z)));
        break;
    }
    case COL_SHAPE3_CAPSULE:
        add_normal(&out, v3(p.x, p.y - fminl(fmaxl(p.y, -h), h), p.z));
        break;
    case COL_SHAPE3_CYLINDER:
        if (fabsl(rho - r) <= band && fabsl(p.y) <= h + band)
            add_normal(&out, v3(p.x, 0, p.z));
        if (fabsl(fabsl(p.y) - h) <= band && rho <= r + band)
            add_normal(&out, v3(0, copysignl(1, p.y), 0));
        break;
    case COL_SHAPE3_CONE: {
        ld k = r / (2 * h);
        if (seg_dist(rho, p.y, 0, h, r, -h) <= band) {
            if (rho <= band)
                out.apex = true;
            else
                add_normal(&out, v3(p.x / rho, k, p.z / rho));
        }
        if (fabsl(p.y + h) <= band && rho <= r + band)
            add_normal(&out, v3(0, -1, 0));
        break;
    }
    case COL_SHAPE3_HULL:
        for (int i = 0; i < s->hull->face_count; i++) {
            const col_hull3_face *f = &s->hull->faces[i];
            if (fabsl(vdot(vof(f->normal), p) - f->offset) <= band)
                add_normal(&out, vof(f->normal));
        }
        break;
    default:
        break;
    }
    return out;
}

/* ---- the reference: the signed distance along the segment ---- */

typedef struct reference {
    bool inside; /* the start is inside (or on) the shape */
    ld least;    /* the smallest signed distance along the segment, m */
    ld t;        /* the first crossing, when least <= 0 */
} reference;

static reference exact_ray(const ray_case *c, lv p, lv d)
{
    reference ref = {false, 0, 0};
    ld g0 = sdf(c, p);
    if (g0 <= 0) {
        ref.inside = true;
        ref.least = g0;
        return ref;
    }
    /* Golden-section search for the minimum of a convex function on [0, 1]. */
    const ld inv_phi = 0.61803398874989484820458683436563812L;
    ld a = 0, b = 1, x1 = b - inv_phi * (b - a), x2 = a + inv_phi * (b - a);
    ld f1 = sdf(c, vadd(p, vscale(d, x1))), f2 = sdf(c, vadd(p, vscale(d, x2)));
    for (int i = 0; i < 160 && b - a > 0; i++) {
        if (f1 <= f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - inv_phi * (b - a);
            f1 = sdf(c, vadd(p, vscale(d, x1)));
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + inv_phi * (b - a);
            f2 = sdf(c, vadd(p, vscale(d, x2)));
        }
    }
    ld tm = f1 <= f2 ? x1 : x2, fm = fminl(f1, f2);
    ld f_end = sdf(c, vadd(p, d));
    if (f_end < fm) {
        tm = 1;
        fm = f_end;
    }
    ref.least = fm;
    if (fm > 0)
        return ref;
    ld lo = 0, hi = tm;
    for (int i = 0; i < 200; i++) {
        ld mid = 0.5L * (lo + hi);
        if (mid <= lo || mid >= hi)
            break;
        if (sdf(c, vadd(p, vscale(d, mid))) <= 0)
            hi = mid;
        else
            lo = mid;
    }
    ref.t = hi;
    return ref;
}

/* ---- one ray checked ---- */

typedef struct tally {
    long rays, hits, misses, inside, grazing;
    long wrong_verdict, wrong_fraction, wrong_normal;
    double fraction_err; /* m, worst */
    double normal_err;   /* rad, worst */
    double verdict_margin; /* m: the deepest wrong verdict's |least distance| */
    char first[512];     /* the first failure, in full */
} tally;

static void note(tally *t, const char *fmt, const ray_case *c, double a, double b)
{
    if (t->first[0])
        return;
    char what[160];
    snprintf(what, sizeof what, fmt, a, b);
    snprintf(t->first, sizeof t->first,
             "%s: shape %d at (%.9g %.9g %.9g), ray (%.9g %.9g %.9g) -> (%.9g %.9g %.9g)", what,
             c->dim == 2 ? (int)c->s2.type : (int)c->s3.type, (double)c->pos.x, (double)c->pos.y,
             (double)c->pos.z, c->from.x, c->from.y, c->from.z, c->to.x, c->to.y, c->to.z);
}

/* The angle between the reported normal (world) and the nearest right one, rad. */
static double normal_error(const ray_case *c, const normal_set *want, lv n_world, lv d)
{
    lv n = vnorm(dir_local(c, n_world));
    double best = INFINITY;
    for (int i = 0; i < want->count; i++)
        best = fmin(best, (double)acosl(fminl(1, fmaxl(-1, vdot(n, want->n[i])))));
    if (want->apex && c->dim == 3) {
        /* A cone's side normal: (cos phi, k, sin phi) / sqrt(1 + k^2), facing the ray. */
        ld k = (ld)c->s3.radius / (2 * (ld)c->s3.half_height), ny = k / sqrtl(1 + k * k);
        double off = fabs((double)(asinl(fminl(1, fmaxl(-1, n.y))) - asinl(ny)));
        if (vdot(n, d) <= 0)
            best = fmin(best, off);
    }
    return best;
}

static void check_ray(const ray_case *c, tally *t)
{
    lv from = vof(c->from), d_world = vsub(vof(c->to), from);
    if (vlen(d_world) == 0)
        return;
    lv p = to_local(c, from), d = dir_local(c, d_world);
    reference ref = exact_ray(c, p, d);
    bool hit;
    float fraction;
    lv normal;
    if (c->dim == 2) {
        col_ray_hit2 h = col_ray2(&c->s2, c->x2, mk_v2(c->from.x, c->from.y),
                                  mk_v2(c->to.x, c->to.y));
        hit = h.hit;
        fraction = h.fraction;
        normal = v3(h.normal.x, h.normal.y, 0);
    } else {
        col_ray_hit3 h = col_ray3(&c->s3, c->x3, c->from, c->to);
        hit = h.hit;
        fraction = h.fraction;
        normal = vof(h.normal);
    }
    ld size = vmax_abs(p) + vmax_abs(vadd(p, d)) + c->reach;
    ld band = GRAZE_BAND * size, length = vlen(d);
    t->rays++;
    bool want = ref.least <= 0;
    t->inside += ref.inside;
    if (fabsl(ref.least) <= band) {
        t->grazing++;
        return; /* either verdict */
    }
    t->hits += want;
    t->misses += !want;
    if (hit != want) {
        t->wrong_verdict++;
        t->verdict_margin = fmax(t->verdict_margin, (double)fabsl(ref.least));
        note(t, want ? "missed, the segment goes %.3g m deep" : "hit, %.3g m off the shape", c,
             (double)fabsl(ref.least), 0);
        return;
    }
    if (!hit)
        return;
    double err = (double)(fabsl((ld)fraction - ref.t) * length);
    /* A float fraction is itself rounded by up to 2^-25 of the ray's length. */
    double tol = fmax(FRACTION_TOLERANCE, (double)length * 0x1p-24);
    t->fraction_err = fmax(t->fraction_err, err);
    if (err > tol) {
        t->wrong_fraction++;
        note(t, "fraction %.9g m off (%g)", c, err, (double)ref.t);
    }
    normal_set ns;
    if (ref.inside) {
        ns = (normal_set){1, {vnorm(vscale(d, -1))}, false};
    } else {
        ld fb = FEATURE_BAND * size;
        ns = normals_at(c, vadd(p, vscale(d, ref.t)), fb);
    }
    double angle = normal_error(c, &ns, normal, d);
    t->normal_err = fmax(t->normal_err, angle);
    if (!(angle <= NORMAL_TOLERANCE)) {
        t->wrong_normal++;
        note(t, "normal %.3g rad off (%.0f right ones)", c, angle, ns.count);
    }
}

/* ---- the rays ---- */

enum size_class { SIZE_NORMAL, SIZE_TINY, SIZE_HUGE, SIZE_FAR, SIZE_COUNT };
static const char *size_names[] = {"normal", "tiny", "huge", "far"};

/* A random point of the surface (shape frame) and its outward normal; `feature` picks a
 * point on an edge, rim, seam, corner or apex instead (its normal then one of the faces'). */
static lv surface_point(const ray_case *c, bool feature, lv *normal)
{
    if (c->dim == 2) {
        const col_shape2 *s = &c->s2;
        if (s->type == COL_SHAPE_CIRCLE) {
            ld a = rnd(0, 2 * (double)PI);
            *normal = v3(cosl(a), sinl(a), 0);
            return vscale(*normal, s->radius);
        }
        if (s->type == COL_SHAPE_POLYGON) {
            int i = rnd_int(s->polygon->count), j = (i + 1) % s->polygon->count;
            mk_vec2 a = s->polygon->verts[i], b = s->polygon->verts[j];
            ld u = feature ? 0 : rnd(0, 1);
            *normal = vnorm(v3(s->polygon->normals[i].x, s->polygon->normals[i].y, 0));
            return v3(a.x + u * (b.x - a.x), a.y + u * (b.y - a.y), 0);
        }
        ld sx = rnd_int(2) ? 1 : -1, sy = rnd_int(2) ? 1 : -1;
        if (rnd_int(2)) {
            *normal = v3(sx, 0, 0);
            return v3(sx * s->half.x, feature ? sy * s->half.y : rnd(-1, 1) * s->half.y, 0);
        }
        *normal = v3(0, sy, 0);
        return v3(feature ? sx * s->half.x : rnd(-1, 1) * s->half.x, sy * s->half.y, 0);
    }
    const col_shape3 *s = &c->s3;
    ld r = s->radius, h = s->half_height, a = rnd(0, 2 * (double)PI);
    lv radial = v3(cosl(a), 0, sinl(a));
    switch (s->type) {
    case COL_SHAPE3_SPHERE:
        *normal = rnd_unit();
        return vscale(*normal, r);
    case COL_SHAPE3_ELLIPSOID: {
        lv u = rnd_unit(), e = vof(s->half);
        lv q = v3(u.x * e.x, u.y * e.y, u.z * e.z);
        *normal = vnorm(v3(q.x / (e.x * e.x), q.y / (e.y * e.y), q.z / (e.z * e.z)));
        return q;
    }
    case COL_SHAPE3_BOX: {
        lv e = vof(s->half);
        ld q[3] = {rnd(-1, 1) * e.x, rnd(-1, 1) * e.y, rnd(-1, 1) * e.z}, ec[3] = {e.x, e.y, e.z};
        int k = rnd_int(3);
        ld sign = rnd_int(2) ? 1 : -1;
        q[k] = sign * ec[k];
        if (feature) { /* an edge, or a corner */
            int j = (k + 1 + rnd_int(2)) % 3;
            q[j] = (rnd_int(2) ? 1 : -1) * ec[j];
            if (rnd_int(3) == 0)
                q[3 - k - j] = (rnd_int(2) ? 1 : -1) * ec[3 - k - j];
        }
        *normal = v3(k == 0 ? sign : 0, k == 1 ? sign : 0, k == 2 ? sign : 0);
        return v3(q[0], q[1], q[2]);
    }
    case COL_SHAPE3_CAPSULE: {
        if (feature) { /* the seam of the tube and a cap */
            *normal = radial;
            return v3(r * radial.x, rnd_int(2) ? h : -h, r * radial.z);
        }
        if (rnd_int(2)) {
            *normal = radial;
            return v3(r * radial.x, rnd(-1, 1) * h, r * radial.z);
        }
        lv u = rnd_unit();
        ld cy = u.y >= 0 ? h : -h;
        *normal = u;
        return v3(r * u.x, cy + r * u.y, r * u.z);
    }
    case COL_SHAPE3_CYLINDER: {
        ld sy = rnd_int(2) ? 1 : -1;
        if (feature) {
            *normal = radial;
            return v3(r * radial.x, sy * h, r * radial.z);
        }
        if (rnd_int(2)) {
            *normal = radial;
            return v3(r * radial.x, rnd(-1, 1) * h, r * radial.z);
        }
        ld rr = r * sqrtl(rnd(0, 1));
        *normal = v3(0, sy, 0);
        return v3(rr * radial.x, sy * h, rr * radial.z);
    }
    case COL_SHAPE3_CONE: {
        ld k = r / (2 * h);
        lv side = vnorm(v3(radial.x, k, radial.z));
        if (feature) {
            if (rnd_int(2)) { /* the apex */
                *normal = side;
                return v3(0, h, 0);
            }
            *normal = side; /* the rim */
            return v3(r * radial.x, -h, r * radial.z);
        }
        if (rnd_int(3)) {
            ld u = 2 * h * sqrtl(rnd(0, 1));
            *normal = side;
            return v3(k * u * radial.x, h - u, k * u * radial.z);
        }
        ld rr = r * sqrtl(rnd(0, 1));
        *normal = v3(0, -1, 0);
        return v3(rr * radial.x, -h, rr * radial.z);
    }
    case COL_SHAPE3_HULL: {
        const col_hull3_face *f = &s->hull->faces[rnd_int(s->hull->face_count)];
        const uint8_t *idx = &s->hull->indices[f->first];
        lv q = vof(s->hull->verts[idx[0]]);
        if (!feature) { /* a point inside the face's first triangle */
            ld u = rnd(0, 1), v = rnd(0, 1);
            if (u + v > 1) {
                u = 1 - u;
                v = 1 - v;
            }
            lv b = vof(s->hull->verts[idx[1]]), e = vof(s->hull->verts[idx[2]]);
            q = vadd(q, vadd(vscale(vsub(b, q), u), vscale(vsub(e, q), v)));
        }
        *normal = vof(f->normal);
        return q;
    }
    default:
        break;
    }
    *normal = v3(0, 1, 0);
    return v3(0, 0, 0);
}

static void make_shape(ray_case *c, int type, int size)
{
    ld lo = 0.1, hi = 2;
    if (size == SIZE_TINY) {
        lo = 1e-3;
        hi = 1e-2;
    } else if (size == SIZE_HUGE) {
        lo = 1e3;
        hi = 1e4;
    }
    ld pos_lo = size == SIZE_FAR ? 1e3 : 0, pos_hi = size == SIZE_FAR ? 1e4 : 2;
    float p[3];
    for (int k = 0; k < 3; k++)
        p[k] = (float)((rnd_int(2) ? 1 : -1) * rnd((double)pos_lo, (double)pos_hi));
    if (c->dim == 2) {
        c->s2 = (col_shape2){.type = (col_shape_type)type};
        c->s2.half = mk_v2((float)rnd((double)lo, (double)hi), (float)rnd((double)lo, (double)hi));
        c->s2.radius = (float)rnd((double)lo, (double)hi);
        if (type == COL_SHAPE_POLYGON) {
            mk_vec2 pts[10];
            for (int i = 0; i < 10; i++)
                pts[i] = mk_v2((float)rnd((double)-hi, (double)hi),
                               (float)rnd((double)-hi, (double)hi));
            mk_error e;
            ck_assert_int_eq(col_polygon_make(pts, 10, &poly_store, &e), 0);
            c->s2.polygon = &poly_store;
        }
        c->x2 = (col_xf2){mk_v2(p[0], p[1]), (float)rnd(-(double)PI, (double)PI)};
        c->reach = type == COL_SHAPE_CIRCLE ? c->s2.radius
                   : type == COL_SHAPE_POLYGON ? sqrtl(2) * hi
                                               : hypotl(c->s2.half.x, c->s2.half.y);
    } else {
        c->s3 = (col_shape3){.type = (col_shape3_type)type};
        c->s3.half = mk_v3((float)rnd((double)lo, (double)hi), (float)rnd((double)lo, (double)hi),
                           (float)rnd((double)lo, (double)hi));
        c->s3.radius = (float)rnd((double)lo, (double)hi);
        c->s3.half_height = (float)rnd((double)lo, (double)hi);
        if (type == COL_SHAPE3_HULL) {
            mk_vec3 pts[14];
            for (int i = 0; i < 14; i++)
                pts[i] = mk_v3((float)rnd((double)-hi, (double)hi),
                               (float)rnd((double)-hi, (double)hi),
                               (float)rnd((double)-hi, (double)hi));
            mk_error e;
            ck_assert_int_eq(col_hull3_make(pts, 14, &hull_store, &e), 0);
            c->s3.hull = &hull_store;
        }
        mk_quat q;
        while (!mk_quat_normalize_checked((mk_quat){(float)rnd(-1, 1), (float)rnd(-1, 1),
                                                    (float)rnd(-1, 1), (float)rnd(-1, 1)},
                                          &q))
            ;
        c->x3 = (col_xf3){mk_v3(p[0], p[1], p[2]), q};
        const col_shape3 *s = &c->s3;
        ld r = s->radius, h = s->half_height;
        c->reach = type == COL_SHAPE3_SPHERE      ? r
                   : type == COL_SHAPE3_BOX       ? vlen(vof(s->half))
                   : type == COL_SHAPE3_ELLIPSOID ? vmax_abs(vof(s->half))
                   : type == COL_SHAPE3_CAPSULE   ? r + h
                   : type == COL_SHAPE3_HULL      ? (ld)s->hull->reach
                                                  : hypotl(r, h);
    }
    c->reach = fmaxl(c->reach, 1e-3L);
    place(c);
}

/* The segment local a -> local b placed in the world, in float. */
static void set_ray(ray_case *c, lv a, lv b)
{
    c->from = vto_f(to_world(c, a));
    c->to = vto_f(to_world(c, b));
    if (c->dim == 2)
        c->from.z = c->to.z = 0;
}

/* A ray of one of the kinds the file's comment lists, in the shape's frame. */
static void make_ray(ray_case *c, int size)
{
    ld reach = c->reach;
    /* Rays of a few times the shape's size, but at most 30 m (a km-sized shape's rays start
     * near its surface, where a float fraction can still be good to 1e-5 m). */
    ld length = fminl(rnd(1, 4) * reach + 0.01L * reach, 30);
    if (size == SIZE_HUGE)
        length = rnd(5, 30);
    lv n, s;
    int kind = rnd_int(10);
    if (kind == 0 && size != SIZE_HUGE) { /* at random through the shape's ball */
        lv from = vscale(rnd_unit(), 3 * reach + 1e-3L);
        lv target = vscale(rnd_unit(), reach * rnd(0, 1));
        if (c->dim == 2)
            from.z = target.z = 0;
        set_ray(c, from, vadd(from, vscale(vsub(target, from), 1.5L)));
    } else if (kind <= 3) { /* grazing: tangent at a surface point, offset by up to 1e-4 */
        s = surface_point(c, rnd_int(4) == 0, &n);
        lv tangent = rnd_perp(n, c->dim);
        ld off = rnd_int(8) == 0 ? 0 : (rnd_int(2) ? 1 : -1) * powl(10, rnd(-11, -4)) * reach;
        lv q = vadd(s, vscale(n, off));
        ld back = rnd(0.2, 1) * length;
        set_ray(c, vsub(q, vscale(tangent, back)), vadd(q, vscale(tangent, length - back)));
    } else if (kind <= 5) { /* through an edge, rim, seam, corner or apex */
        s = surface_point(c, true, &n);
        lv u = rnd_unit();
        if (c->dim == 2)
            u = vnorm(v3(u.x, u.y, 0));
        if (vdot(u, n) < 0)
            u = vscale(u, -1);
        ld back = rnd(0.3, 0.9) * length;
        set_ray(c, vadd(s, vscale(u, back)), vsub(s, vscale(u, length - back)));
    } else if (kind == 6) { /* from inside, out */
        s = surface_point(c, false, &n);
        lv in = vscale(s, rnd(0, 0.999));
        if (c->dim == 3 && c->s3.type == COL_SHAPE3_HULL)
            in = vadd(vscale(vof(c->s3.hull->centroid), 0.5L), vscale(s, 0.5L * rnd(0, 0.999)));
        lv u = rnd_unit();
        if (c->dim == 2)
            u = vnorm(v3(u.x, u.y, 0));
        set_ray(c, in, vadd(in, vscale(u, length)));
    } else if (kind == 7) { /* parallel to a face: along a tangent at a point of it */
        s = surface_point(c, false, &n);
        lv along;
        if (c->dim == 3 && c->s3.type == COL_SHAPE3_CONE && rnd_int(2)) {
            /* parallel to one of the cone's side lines, or to its axis */
            ld a = rnd(0, 2 * (double)PI), r = c->s3.radius, h = c->s3.half_height;
            along = rnd_int(3) ? vnorm(v3(r * cosl(a), -2 * h, r * sinl(a))) : v3(0, 1, 0);
            if (rnd_int(2))
                along = vscale(along, -1);
        } else {
            along = rnd_perp(n, c->dim);
        }
        ld off = (rnd_int(2) ? 1 : -1) * powl(10, rnd(-9, -3)) * reach;
        lv q = vadd(s, vscale(n, off));
        ld back = rnd(0.2, 1) * length;
        set_ray(c, vsub(q, vscale(along, back)), vadd(q, vscale(along, length - back)));
    } else { /* ending on the surface, from outside */
        s = surface_point(c, rnd_int(4) == 0, &n);
        lv u = vnorm(vadd(n, vscale(rnd_unit(), 0.9L)));
        if (c->dim == 2)
            u = vnorm(v3(u.x, u.y, 0));
        if (vdot(u, n) <= 0)
            u = n;
        set_ray(c, vadd(s, vscale(u, length)), s);
    }
}

static const char *names2[] = {"aabb", "box", "circle", "polygon"};
static const char *names3[] = {"sphere", "box", "ellipsoid", "capsule", "cylinder", "cone", "hull"};

static void run(int dim, int type)
{
    tally all = {0};
    for (int size = 0; size < SIZE_COUNT; size++) {
        tally t = {0};
        rng_state = 0x5eed0000ull + (uint64_t)(dim * 100 + type * 10 + size);
        for (int i = 0; i < RAYS; i++) {
            ray_case c = {.dim = dim};
            make_shape(&c, type, size);
            make_ray(&c, size);
            check_ray(&c, &t);
        }
        printf("ray%d %-9s %-6s %5ld rays: %5ld hit, %5ld miss, %4ld from inside, %4ld grazing;"
               " wrong: %ld verdicts (deepest %.2e m), %ld fractions, %ld normals; worst "
               "fraction %.2e m, normal %.2e rad\n",
               dim, dim == 2 ? names2[type] : names3[type], size_names[size], t.rays, t.hits,
               t.misses, t.inside, t.grazing, t.wrong_verdict, t.verdict_margin, t.wrong_fraction,
               t.wrong_normal, t.fraction_err, t.normal_err);
        if (t.first[0])
            printf("  first: %s\n", t.first);
        fflush(stdout); /* before a failure ends the forked test */
        all.wrong_verdict += t.wrong_verdict;
        all.wrong_fraction += t.wrong_fraction;
        all.wrong_normal += t.wrong_normal;
        if (!all.first[0])
            memcpy(all.first, t.first, sizeof all.first);
    }
    EXPECT(all.wrong_verdict + all.wrong_fraction + all.wrong_normal == 0,
           "%ld wrong verdicts, %ld fractions, %ld normals; first: %s", all.wrong_verdict,
           all.wrong_fraction, all.wrong_normal, all.first);
}

START_TEST(rays2_exact) { run(2, _i); }
END_TEST

START_TEST(rays3_exact) { run(3, _i); }
END_TEST

MINK_CHECK_SUITE("rays_exact", s)
{
    TCase *tc = tcase_create("exact");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, rays2_exact, 0, COL_SHAPE_COUNT);
    tcase_add_loop_test(tc, rays3_exact, 0, COL_SHAPE3_COUNT);
    suite_add_tcase(s, tc);
}
