/* Shared by the 3D collide functions: double vectors for GJK and EPA, shapes placed in a
 * common frame, and the manifold helpers. Not part of the library's interface.
 *
 * Why double inside: the accuracy targets (depth within 1e-5 m for polytopes, distance within
 * 1e-5 m) are at the level of float rounding of coordinates of a few metres (ulp 2.4e-7 at
 * 2 m, 7.6e-6 at 100 m), and GJK's closest-point solves and EPA's face planes lose several
 * more digits to cancellation (a face plane through three points 1e-3 m apart in float is
 * good to ~1e-4 rad only). In double both converge to 1e-9 of the shapes' size; the data,
 * inputs and results stay float. */
#ifndef MINK_COLLIDE3_INTERNAL_H
#define MINK_COLLIDE3_INTERNAL_H

#include <assert.h>
#include <float.h>
#include <math.h>

#include "mink_collision.h"

typedef struct col_d3 {
    double x, y, z;
} col_d3;

static inline col_d3 d3(double x, double y, double z) { return (col_d3){x, y, z}; }
static inline col_d3 d3_of(mk_vec3 v) { return d3(v.x, v.y, v.z); }
static inline mk_vec3 d3_to_f(col_d3 v) { return mk_v3((float)v.x, (float)v.y, (float)v.z); }
static inline col_d3 d3_add(col_d3 a, col_d3 b) { return d3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline col_d3 d3_sub(col_d3 a, col_d3 b) { return d3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline col_d3 d3_scale(col_d3 a, double s) { return d3(a.x * s, a.y * s, a.z * s); }
static inline col_d3 d3_neg(col_d3 a) { return d3(-a.x, -a.y, -a.z); }
static inline col_d3 d3_mad(col_d3 a, double s, col_d3 b)
{
    return d3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}
static inline double d3_dot(col_d3 a, col_d3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline col_d3 d3_cross(col_d3 a, col_d3 b)
{
    return d3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double d3_len(col_d3 a) { return sqrt(d3_dot(a, a)); }
static inline col_d3 d3_norm(col_d3 a)
{
    double l = d3_len(a);
    return l > 0.0 ? d3_scale(a, 1.0 / l) : d3(0.0, 0.0, 0.0);
}

/* A rotation matrix in double, by rows (so that R^T v is three dot products too). */
typedef struct col_drot {
    col_d3 r0, r1, r2;
} col_drot;

static inline col_d3 drot_apply(const col_drot *m, col_d3 v)
{
    return d3(d3_dot(m->r0, v), d3_dot(m->r1, v), d3_dot(m->r2, v));
}
static inline col_d3 drot_apply_t(const col_drot *m, col_d3 v)
{
    return d3_add(d3_add(d3_scale(m->r0, v.x), d3_scale(m->r1, v.y)), d3_scale(m->r2, v.z));
}
col_drot col_drot_of(mk_quat q);

/* A shape placed in a frame: local x is at p + R x. With `core` set it stands for its core (a
 * sphere's centre, a capsule's segment) and `margin` is the radius left out: GJK on cores is
 * exact for the rounded shapes, whose distance is then the cores' less the margins. */
typedef struct col_placed3 {
    const col_shape3 *s;
    col_drot r;
    col_d3 p;
    bool core;
    double margin; /* m, the radius left out when `core` */
    bool polytope; /* box or hull: faces and finitely many vertices */
    bool ident;    /* r is the identity and p zero (A in its own frame): support by the shape's */
} col_placed3;

/* A and B in A's frame: A at the origin unrotated, B relative to it. */
void col_place_pair(const col_shape3 *a, col_xf3 xa, const col_shape3 *b, col_xf3 xb,
                    col_placed3 *pa, col_placed3 *pb);
/* The margin of a rounded shape (sphere, capsule), 0 for the others. */
double col_shape3_margin(const col_shape3 *s);
/* The pair's tolerance for GJK and EPA: 1e-9 of the smaller reach, so that a small shape on a
 * large one (1:1000) is as accurate as two small ones (double has the digits), but at least
 * 1e-12 of the larger reach (beyond 1:1000 double no longer has them; a point has reach 0). */
double col_pair_tol(const col_shape3 *a, const col_shape3 *b);

/* ---- support mappings, inline: GJK, EPA and the polish call them in their inner loops,
 * and a call would pass and return every vector through memory ---- */

/* The support mappings below are the "3D support mapping" of Kenwright's "Collision
 * Detection Using Minkowski Difference" (a shape is the function that returns its furthest
 * point along a ray), with the standard formulas (van den Bergen, "Collision Detection in
 * Interactive 3D Environments", 2003, ch. 4.3): of the local shape along a local direction
 * (not zero), of a placed shape along a direction of its frame, and of A - B along d with
 * the points of A and B it came from. */

/* A vertex of the Minkowski difference A - B with the support points it came from. */
typedef struct col_mvert {
    col_d3 w, a, b;
} col_mvert;

/* s with the sign of v (v = -0 counts as negative): branch free, where v < 0 ? -s : s
 * would be a jump that the sign of a search direction makes unpredictable. */
static inline double col_signed(double s, double v) { return copysign(s, v); }

static inline col_d3 col_local_support(const col_shape3 *s, col_d3 d, bool core)
{
    double r = s->radius, h = s->half_height;
    switch (s->type) {
    case COL_SHAPE3_SPHERE:
        return core ? d3(0.0, 0.0, 0.0) : d3_scale(d, r / d3_len(d));
    case COL_SHAPE3_BOX:
        return d3(col_signed(s->half.x, d.x), col_signed(s->half.y, d.y),
                  col_signed(s->half.z, d.z));
    case COL_SHAPE3_ELLIPSOID: {
        /* The support of the unit sphere scaled by diag(a): diag(a)^2 d / |diag(a) d|. */
        col_d3 ad = d3(s->half.x * d.x, s->half.y * d.y, s->half.z * d.z);
        double l = d3_len(ad);
        return d3(s->half.x * ad.x / l, s->half.y * ad.y / l, s->half.z * ad.z / l);
    }
    case COL_SHAPE3_CAPSULE: {
        col_d3 end = d3(0.0, col_signed(h, d.y), 0.0);
        return core ? end : d3_mad(end, r / d3_len(d), d);
    }
    case COL_SHAPE3_CYLINDER: {
        /* A cap's rim point toward d; along the axis itself the cap's centre, which is as
         * far along d as any of the cap. */
        double sigma = sqrt(d.x * d.x + d.z * d.z);
        double k = sigma > 0.0 ? r / sigma : 0.0;
        return d3(k * d.x, col_signed(h, d.y), k * d.z);
    }
    case COL_SHAPE3_CONE: {
        /* The apex or the base's rim point toward d, whichever reaches further along d;
         * chosen by a 0 or 1 factor, not a jump (which way d points is unpredictable). */
        double sigma = sqrt(d.x * d.x + d.z * d.z);
        double rim = (double)(2.0 * h * d.y < r * sigma);
        double k = sigma > 0.0 ? rim * r / sigma : 0.0;
        return d3(k * d.x, h - 2.0 * h * rim, k * d.z);
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

static inline col_d3 col_placed_support(const col_placed3 *ps, col_d3 d)
{
    /* A in A's frame, the first shape of every pair: two rotations and a sum saved on half
     * of all support calls. */
    if (ps->ident)
        return col_local_support(ps->s, d, ps->core);
    col_d3 local = col_local_support(ps->s, drot_apply_t(&ps->r, d), ps->core);
    return d3_add(ps->p, drot_apply(&ps->r, local));
}

static inline col_mvert col_support_pair(const col_placed3 *a, const col_placed3 *b, col_d3 d)
{
    col_mvert m;
    m.a = col_placed_support(a, d);
    m.b = col_placed_support(b, d3_neg(d));
    m.w = d3_sub(m.a, m.b);
    return m;
}

/* ---- GJK and EPA (gjk3.c, epa3.c) ---- */


typedef struct col_gjk_result {
    double distance;    /* between the placed shapes (their cores when `core`) */
    col_d3 pa, pb;      /* closest points */
    col_d3 dir;         /* the last search direction (a unit vector from A toward B) */
    bool overlap;       /* the origin is in (or within tolerance of) A - B */
    bool within;        /* col_gjk_bounded: the distance is at most `touch` */
    bool bounded;       /* col_gjk_bounded: the distance is at least `lower`, more than `beyond` */
    double lower;       /* m, when `bounded` */
    bool converged;     /* apart, and van den Bergen's termination test held: h(-dir) is
                           within tol of -distance. Else GJK stopped at a repeated point or
                           without progress (rounding near touching) and dir may be off */
    int iterations;
    int count;          /* the final simplex, for EPA when `overlap` */
    col_mvert simplex[4];
} col_gjk_result;


col_gjk_result col_gjk(const col_placed3 *a, const col_placed3 *b, double tol);
/* As col_gjk, its first support point along d instead of along the line of the centres: a
 * warm start where the caller knows about where the closest points are. */
col_gjk_result col_gjk_from(const col_placed3 *a, const col_placed3 *b, double tol, col_d3 d);
/* GJK that stops as soon as the answer to a coarser question is known: `within` as soon as
 * the distance's upper bound |v| is at most `touch` (0: only on overlap), `bounded` as soon
 * as its lower bound v.w / |v| (van den Bergen 1999) exceeds `beyond` (INFINITY: never).
 * A boolean overlap test is touch = beyond = 0 (the margins for cores): on shapes apart it
 * usually stops after one to three support calls, where the exact gap on a curved surface
 * takes about twenty. The other fields are as col_gjk's where it stopped. */
col_gjk_result col_gjk_bounded(const col_placed3 *a, const col_placed3 *b, double tol,
                               double touch, double beyond);

/* Whether the placed shapes (or their cores, when `core`) overlap, by GJK that computes no
 * distance: 1 overlap (touching included), with the simplex about the origin written to
 * *hit (when not NULL) as col_gjk's overlap result, for EPA; 0 apart by more than `beyond`
 * (m), with that lower bound of the gap in *lower along the unit *dir (from A toward B); -1
 * undecided: apart by less than `beyond` as far as `more` further steps after the first
 * separating axis could tell (the best bound in *lower and *dir, 0 when none), or a cycle of
 * support points at a touch, for col_gjk_bounded to settle. `lower` and `dir` may be NULL
 * (a caller that only asks whether). */
int col_gjk_intersect(const col_placed3 *a, const col_placed3 *b, double beyond, int more,
                      double *lower, col_d3 *dir, col_gjk_result *hit);

typedef struct col_epa_result {
    double depth;   /* h(normal): moving B by normal * depth separates the shapes */
    col_d3 normal;  /* unit, from A toward B */
    col_d3 pa, pb;  /* witness points on A and B */
    bool contact;   /* pa, pb are the contact itself (a face resting on the other shape) */
    int iterations;
} col_epa_result;

/* Penetration of two overlapping placed shapes (full shapes, not cores) from GJK's simplex. */
col_epa_result col_epa(const col_placed3 *a, const col_placed3 *b, const col_gjk_result *g,
                       double tol);

/* The least h(d) = max over A - B of d.x near the unit direction *n (moved there): the depth
 * when A and B overlap, minus the gap when apart. The flat faces of either shape tried, then
 * the crease of h near *n solved by col_crease3 (its pieces named within `slack`, m: about how
 * far h(*n) may be above the minimum), else Newton's method in the tangent plane where h is
 * smooth and a compass search at its creases (polish3.c). When it ends at a flat face of
 * either shape resting on the other or on a crease, *at_face is set and *face_wa, *face_wb
 * are the contact on A and on B. */
double col_polish3(const col_placed3 *a, const col_placed3 *b, col_d3 *n, double tol,
                   double slack, col_d3 *face_wa, col_d3 *face_wb, bool *at_face);

/* The least of h near the unit direction *n where it lies on a crease of h: an edge or a
 * side line of one shape against a smooth piece of the other, or of both (crease3.c). The
 * shapes' pieces within `slack` (m) of their supports along *n name the crease. True when
 * found and lower than *h: *n, *h and the contact on A and B (*wa, *wb) are written. */
bool col_crease3(const col_placed3 *a, const col_placed3 *b, col_d3 *n, double *h,
                 double slack, double tol, col_d3 *wa, col_d3 *wb);

/* The contact of a pair touching along the unit `normal` (a minimum of h) with minimum
 * translation `depth`, from the support points along it: where h is smooth there, its
 * gradient s.a - s.b is depth * normal and the two support points are the contact. One
 * support call, where GJK on the pair moved apart needs ten to twenty on a curved surface.
 * False (nothing written) at a crease of h: a flat of either shape (a face, a cap, an
 * edge, a side line) touches there, and a point of it would only be a guess. */
bool col_support_witness(const col_placed3 *a, const col_placed3 *b, col_d3 normal,
                         double depth, col_d3 *wa, col_d3 *wb);

/* ---- polytopes and manifolds (box3.c, manifold3.c) ---- */

/* A box or hull seen as a polytope in some frame: vertices and faces placed there. */
typedef struct col_poly3 {
    int vert_count, face_count;
    col_d3 v[COL_MAX_HULL3_VERTS];
    const col_hull3_face *faces; /* local planes and index lists */
    const uint8_t *indices;
    col_drot r; /* to turn the local face normals */
} col_poly3;

void col_poly3_view(const col_placed3 *ps, col_poly3 *out);
static inline col_d3 col_poly3_normal(const col_poly3 *p, int f)
{
    return drot_apply(&p->r, d3_of(p->faces[f].normal));
}

/* The one-shot manifold of two polytopes touching along `normal` (from A toward B, A's frame)
 * with minimum translation `depth`: the incident face clipped against the reference face's
 * side planes, reduced to four points. Writes points in A's frame; returns false when neither
 * shape has a face along the normal (edge or vertex contact: the caller gives one point). */
bool col_poly3_clip(const col_placed3 *a, const col_placed3 *b, col_d3 normal, double depth,
                    col_manifold3 *m);
/* As col_poly3_clip, with the incident points up to `reach` (m) in front of the reference face
 * kept, their depths down to -reach: shapes apart by -depth along a face normal, less than
 * reach, get their speculative points (the gap in the manifold's distance), as they would
 * moved reach toward each other and clipped, their points then moved back. */
bool col_poly3_clip_within(const col_placed3 *a, const col_placed3 *b, col_d3 normal,
                           double depth, double reach, col_manifold3 *m);
/* Keeps the deepest of n points and those that span the largest area with it (Bullet's
 * sortCachedPoints idea: area, not order): writes the kept indices, returns their count. */
int col_reduce4(const col_d3 *p, const double *depth, int n, col_d3 normal, int keep[4]);

/* Box against box by the separating-axis test over 15 axes (box3.c). */
/* As col_collide_boxes3, but boxes apart by more than `margin` get only a lower bound of
 * their distance (the separating axis's), without GJK; and a face axis is kept unless another
 * axis (B's face, an edge pair) separates more by `face_bias`. */
col_manifold3 col_collide_boxes3_within(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                        col_xf3 xb, float margin, float face_bias);
col_manifold3 col_collide_boxes3(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                 col_xf3 xb);
/* Whether two boxes overlap (touching included), by the same fifteen axes as a boolean. */
bool col_boxes3_overlap(const col_shape3 *a, col_xf3 xa, const col_shape3 *b, col_xf3 xb);
/* Any pair through GJK and EPA, the rounded shapes by their cores (gjk3.c). */
col_manifold3 col_collide_convex3(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                  col_xf3 xb);

/* As col_collide_convex3, but shapes apart by more than `margin` get only a lower bound of
 * their distance (GJK's, past margin), normal along GJK's last direction. */
col_manifold3 col_collide_convex3_within(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                         col_xf3 xb, float margin);

/* The exact cases of the rounded shapes (round3.c). */
col_manifold3 col_collide_spheres3(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                   col_xf3 xb);
col_manifold3 col_collide_box_sphere3(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                      col_xf3 xb);
col_manifold3 col_collide_capsules3(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                    col_xf3 xb);

/* The closest points of the segments p0 + s d1 and q0 + t d2, s and t in [0, 1]. */
void col_segments_closest(col_d3 p0, col_d3 d1, col_d3 q0, col_d3 d2, double *s, double *t);

/* A hull's exact mass properties (mass3.c), also used by col_hull3_make. */
col_mass3 col_hull3_mass_props(const col_hull3 *h);

/* A manifold computed in A's frame taken to the world. */
void col_manifold3_to_world(col_manifold3 *m, col_xf3 xa);
/* B against A from A against B: the normal turns, ids get the swap bit. */
col_manifold3 col_manifold3_swap(col_manifold3 m);

#define COL_ID3_SWAPPED 0x80000000u

#endif
