/* mink_collision: shapes, Minkowski-difference tests and contact manifolds as pure functions.
 * Links libm only: no I/O, no allocation in a query. Results come back by value. */
#ifndef MINK_COLLISION_H
#define MINK_COLLISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mk_error.h"
#include "mk_math.h"

/* ---- axis-aligned boxes in center + extents form ---- */

typedef struct col_aabb {
    mk_vec2 center;
    mk_vec2 half; /* half extents, m, > 0 */
} col_aabb;

static inline mk_vec2 col_aabb_min(col_aabb a) { return mk_v2_sub(a.center, a.half); }
static inline mk_vec2 col_aabb_max(col_aabb a) { return mk_v2_add(a.center, a.half); }

/* The Minkowski difference A - B of two AABBs, itself an AABB: its center is the difference of
 * the centers and its extents the sum of the extents (method of "Simple AABB Collision Detection
 * Using the Minkowski Difference": top = a.top - b.bottom, left = a.left - b.right, ...). */
col_aabb col_aabb_minkowski(col_aabb a, col_aabb b);

/* The origin test of "2D Collisions with Minkowski Differences": A and B share a point exactly
 * when their Minkowski difference contains the origin (touching boundaries count). */
bool col_aabb_contains_origin(col_aabb md);

/* The point of the boundary of `box` closest to `p`, for p inside or on the box. Applied to the
 * Minkowski difference and the origin, it is the penetration vector: the shortest translation
 * of B that makes the boxes stop overlapping. Ties between sides go to the first of left,
 * right, top, bottom, the order of the seed. */
mk_vec2 col_aabb_closest_boundary_point(col_aabb box, mk_vec2 p);

/* ---- manifolds ---- */

#define COL_MAX_POINTS2 2

/* A contact point and a manifold, one definition for both dimensions (mink_collision3.h makes
 * the 3D ones). The manifold of A and B: `normal` is the unit vector from A toward B such that
 * moving B by normal * depth separates them (the minimum translation). count == 0 when they do
 * not touch; `distance` is then the gap between them, m, with `normal` along it. Each point is
 * in world space, midway between the two surfaces, with its depth (m, >= 0 while touching) and
 * a feature id that stays the same while the same features touch (warm starting). */
#define COL_MANIFOLD_TYPES(dim, vec)                                                           \
    typedef struct col_contact_point##dim {                                                    \
        vec point;                                                                             \
        float depth;                                                                           \
        uint32_t id;                                                                           \
    } col_contact_point##dim;                                                                  \
    typedef struct col_manifold##dim {                                                         \
        vec normal;                                                                            \
        int count;                                                                             \
        col_contact_point##dim points[COL_MAX_POINTS##dim];                                    \
        float depth;    /* the minimum translation distance, m; >= every point's depth */     \
        float distance; /* when count == 0 */                                                 \
    } col_manifold##dim;

COL_MANIFOLD_TYPES(2, mk_vec2)

/* AABB against AABB, from the Minkowski difference and its closest boundary point to the
 * origin. Contact points are the two ends of the overlap along the contact face. */
col_manifold2 col_collide_aabb(col_aabb a, col_aabb b);

/* ---- convex polygons ---- */

#define COL_MAX_POLYGON 64     /* vertices of a hull */
#define COL_MAX_HULL_INPUT 256 /* points given to col_polygon_make */
#define COL_MIN_HALF 1e-3f     /* m: the smallest size (half extent, radius) of a shape */
#define COL_WELD_DISTANCE 1e-5 /* m: polygon points closer than this are one point */
#define COL_MAX_HALF 1e4f      /* m: the largest half extent of a hull */

/* A convex polygon in its body's frame: counter-clockwise, no two vertices equal, no three
 * collinear. normals[i] is the outward unit normal of the edge verts[i] -> verts[i + 1]. */
typedef struct col_polygon {
    int count;
    mk_vec2 verts[COL_MAX_POLYGON];
    mk_vec2 normals[COL_MAX_POLYGON];
    mk_vec2 centroid;
    float area; /* m^2 */
} col_polygon;

/* The convex hull of n points by Andrew's monotone chain (1979), in double: points closer than
 * COL_WELD_DISTANCE on both axes (or 8 float ulps of the largest coordinate, where coarser)
 * are welded into one, and hull vertices closer than that to the line through their
 * neighbours are dropped; otherwise it is the textbook hull of the points, for any order,
 * duplicates and interior points. Counter-clockwise from the highest (then leftmost) vertex.
 * Returns 0, or -1 with `err` saying what is wrong: too few or too many points, a
 * non-finite coordinate, all points on one line (zero area after welding), more than
 * COL_MAX_POLYGON hull vertices, or a hull larger than COL_MAX_HALF. Thin is fine: a
 * 10 mm x 2 mm triangle is a polygon. */
int col_polygon_make(const mk_vec2 *points, int n, col_polygon *out, mk_error *err);

/* ---- shapes, placed in the world, and the collide table ---- */

typedef enum col_shape_type {
    COL_SHAPE_AABB,    /* half extents; never rotates */
    COL_SHAPE_BOX,     /* half extents, rotated by the body's angle */
    COL_SHAPE_CIRCLE,  /* radius */
    COL_SHAPE_POLYGON, /* a hull from col_polygon_make */
    COL_SHAPE_COUNT
} col_shape_type;

typedef struct col_shape2 {
    col_shape_type type;
    mk_vec2 half;                /* aabb, box */
    float radius;                /* circle */
    const col_polygon *polygon;  /* polygon: not owned, outlives the shape */
} col_shape2;

/* Position and angle of a shape; an AABB ignores the angle: it never rotates. */
typedef struct col_xf2 {
    mk_vec2 p;
    float angle; /* rad, counter-clockwise */
} col_xf2;

/* The bounding box of a placed shape. */
col_aabb col_shape_bounds(const col_shape2 *s, col_xf2 xf);
/* The same, with q = (cos, sin) of xf.angle given. */
col_aabb col_shape_bounds_q(const col_shape2 *s, col_xf2 xf, mk_vec2 q);
/* Area, m^2 (for mass = density * area). */
float col_shape_area(const col_shape2 *s);

/* Collides any pair of shapes, in either order, through a table of functions indexed by the
 * shape pair. Depth, normal and distance are exact up to float rounding: the closest face of
 * the Minkowski difference A - B to the origin. When they overlap or touch, count is 1 or 2
 * and `depth` is the minimum translation distance (B moved by normal * depth only touches A);
 * when they are apart, count is 0, `distance` is the gap and `normal` points from A toward B
 * along the shortest gap. Swapping A and B negates the normal. */
col_manifold2 col_collide2(const col_shape2 *a, col_xf2 xa, const col_shape2 *b, col_xf2 xb);
/* col_collide2 for a caller that only needs pairs within `margin` m of each other (a
 * narrowphase with speculative contacts): the same answer for a pair that overlaps or is apart
 * by at most `margin`; for one farther apart, count is 0, `distance` is only a lower bound of
 * the gap (> margin) and `normal` the separating axis that shows it, which saves finding the
 * exact gap. */
col_manifold2 col_collide2_near(const col_shape2 *a, col_xf2 xa, const col_shape2 *b, col_xf2 xb,
                                float margin);
/* col_collide2_near for a caller that keeps each shape's rotation: qa and qb are (cos, sin) of
 * xa.angle and xb.angle, so that no pair works them out again (Box2D v3's transforms carry
 * the rotation as a unit vector). */
col_manifold2 col_collide2_near_q(const col_shape2 *a, col_xf2 xa, mk_vec2 qa, const col_shape2 *b,
                                  col_xf2 xb, mk_vec2 qb, float margin);

/* ---- rays and shape casts ---- */

/* The gap at which a shape cast counts as touching, m, and its most steps. */
#define COL_CAST_TOLERANCE 1e-5f
#define COL_CAST_MAX_ITERATIONS 100

/* Where a ray or a cast first meets a shape: `fraction` in [0, 1] of the way from its start
 * to its end, the point in the world, and the unit normal of the shape's surface there
 * (facing the ray). A ray that starts inside the shape hits it at fraction 0 with the normal
 * against the ray's direction. */
#define COL_RAY_TYPES(dim, vec)                                                                \
    typedef struct col_ray_hit##dim {                                                          \
        bool hit;                                                                              \
        float fraction;                                                                        \
        vec point;                                                                             \
        vec normal;                                                                            \
    } col_ray_hit##dim;

COL_RAY_TYPES(2, mk_vec2)

/* The first point of the segment from -> to (not of zero length) on the placed shape, exact
 * up to rounding (closed form: the circle's quadratic, the polygon's edges clipped). */
col_ray_hit2 col_ray2(const col_shape2 *s, col_xf2 xf, mk_vec2 from, mk_vec2 to);
/* Shape A at xa moved by `translation` against B at xb: the first fraction where they touch
 * (within COL_CAST_TOLERANCE m; conservative advancement on the exact distance), the contact
 * point and B's surface normal there (from B toward A). A that already overlaps B hits at
 * fraction 0 with the manifold's normal. */
col_ray_hit2 col_cast2(const col_shape2 *a, col_xf2 xa, mk_vec2 translation,
                       const col_shape2 *b, col_xf2 xb);

#include "mink_collision3.h"
#include "mink_level.h"

#endif
