/* mink_collision, 3D: shapes given by their support mappings, convex hulls, GJK distance,
 * penetration by EPA, exact special cases for the common pairs, contact manifolds of up to
 * four points, and mass properties. Pure functions in the style of the 2D API: no I/O, no
 * allocation in a query, results by value. Included by mink_collision.h. */
#ifndef MINK_COLLISION3_H
#define MINK_COLLISION3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mk_error.h"
#include "mink_collision.h" /* the shared definitions (COL_MANIFOLD_TYPES) */
#include "mk_math3.h"

/* ---- bounds ---- */

typedef struct col_aabb3 {
    mk_vec3 center;
    mk_vec3 half; /* half extents, m, >= 0 */
} col_aabb3;

/* ---- convex hulls ---- */

#define COL_MAX_HULL3_INPUT 256 /* points given to col_hull3_make */
#define COL_MAX_HULL3_VERTS 256 /* vertices of a hull (every input point may be one) */
#define COL_MAX_HULL3_FACES (2 * COL_MAX_HULL3_VERTS - 4)
#define COL_MAX_HULL3_INDICES (6 * COL_MAX_HULL3_VERTS - 12) /* 2 E, each edge seen twice */

typedef struct col_hull3_face {
    mk_vec3 normal; /* outward, unit */
    float offset;   /* normal . x = offset on the face, m */
    uint16_t first; /* its vertices: indices[first .. first + count), counter-clockwise seen */
    uint16_t count; /* from outside, no three on a line */
} col_hull3_face;

/* A convex polytope in its body's frame: vertices are input points (every one a true corner:
 * none inside a face or an edge), faces are maximal planar polygons. */
typedef struct col_hull3 {
    int vert_count, face_count;
    mk_vec3 verts[COL_MAX_HULL3_VERTS];
    col_hull3_face faces[COL_MAX_HULL3_FACES];
    uint8_t indices[COL_MAX_HULL3_INDICES];
    mk_vec3 centroid; /* m */
    float volume;     /* m^3 */
    float reach;      /* m: the largest |vertex|, the radius of a ball about the origin */
} col_hull3;

/* The convex hull of n points (4..COL_MAX_HULL3_INPUT) by incremental construction (the
 * beneath-beyond method; each new point replaces the faces it sees by a cone over their
 * horizon, as in quickhull, Barber, Dobkin, Huhdanpaa 1996), in double, with a tolerance
 * relative to the points' extent: duplicates welded, points on faces or edges dropped,
 * coplanar triangles merged into one face. Returns 0, or -1 with `err` saying what is wrong:
 * too few or too many points, a non-finite coordinate, fewer than 4 distinct points, all of
 * them on one line or one plane, a hull thinner than COL_MIN_HALF or larger than COL_MAX_HALF
 * (the limits of col_polygon_make). */
int col_hull3_make(const mk_vec3 *points, int n, col_hull3 *out, mk_error *err);

/* ---- shapes and placements ---- */

typedef enum col_shape3_type {
    COL_SHAPE3_SPHERE,    /* radius */
    COL_SHAPE3_BOX,       /* half extents */
    COL_SHAPE3_ELLIPSOID, /* radii along the local axes, in `half` */
    COL_SHAPE3_CAPSULE,   /* radius, half_height: the segment (0, +-h, 0) grown by r */
    COL_SHAPE3_CYLINDER,  /* radius, half_height; axis local y */
    COL_SHAPE3_CONE,      /* radius, half_height; axis local y, apex (0, h, 0), base at y = -h */
    COL_SHAPE3_HULL,      /* a hull from col_hull3_make */
    COL_SHAPE3_COUNT
} col_shape3_type;

typedef struct col_shape3 {
    col_shape3_type type;
    mk_vec3 half;            /* box half extents, ellipsoid radii, m */
    float radius;            /* sphere, capsule, cylinder, cone, m */
    float half_height;       /* capsule, cylinder, cone, m */
    const col_hull3 *hull;   /* hull: not owned, outlives the shape */
} col_shape3;

/* A placement: the body-frame point x is at p + q x in the world. q is a unit quaternion
 * (mk_quat_normalize_checked makes one from a client's four numbers). */
typedef struct col_xf3 {
    mk_vec3 p;
    mk_quat q;
} col_xf3;

static inline mk_vec3 col_xf3_apply(col_xf3 t, mk_vec3 v)
{
    return mk_v3_add(t.p, mk_quat_rotate(t.q, v));
}
static inline mk_vec3 col_xf3_apply_inv(col_xf3 t, mk_vec3 v)
{
    return mk_quat_unrotate(t.q, mk_v3_sub(v, t.p));
}

/* Whether a shape's sizes can be collided: every radius, half extent and half height finite
 * and in [COL_MIN_HALF, COL_MAX_HALF] (the limits of col_polygon_make), a hull given. Returns
 * 0, or -1 with `err` saying what is wrong: the world checks what clients send with it. */
int col_shape3_check(const col_shape3 *s, mk_error *err);

/* The seed's support mapping ("Collision Detection Using Minkowski Difference", Kenwright):
 * the point of the placed shape furthest along `dir` (any length, not zero), in the world. */
mk_vec3 col_support3(const col_shape3 *s, col_xf3 xf, mk_vec3 dir);

/* The tight bounding box of a placed shape (its support along the six axis directions). */
col_aabb3 col_shape3_bounds(const col_shape3 *s, col_xf3 xf);
/* The radius of a ball about the shape's origin holding it, m: the scale of tolerances, and
 * the farthest a point of the shape goes when it turns about its origin. */
double col_shape3_reach(const col_shape3 *s);

/* ---- mass properties, unit density ---- */

typedef struct col_mass3 {
    float volume;     /* m^3: the mass for density 1 kg/m^3 */
    mk_vec3 centroid; /* body frame, m */
    mk_mat3 inertia;  /* about the centroid, body axes, kg m^2 for density 1 */
} col_mass3;

float col_shape3_volume(const col_shape3 *s);
/* Analytic for the primitives; for hulls exact by tetrahedra from the centroid (the
 * polyhedral mass properties of Mirtich 1996, in the tetrahedron form of Tonon 2004). */
col_mass3 col_shape3_mass(const col_shape3 *s);

/* ---- distance ---- */

typedef struct col_distance3 {
    bool overlap;         /* the shapes share a point: distance 0, the rest undefined */
    float distance;       /* m, the gap when apart */
    mk_vec3 point_a;      /* the closest points of A and of B, world */
    mk_vec3 point_b;
    mk_vec3 normal;       /* unit, from A toward B */
    int iterations;
} col_distance3;

/* The distance between two placed shapes by GJK (Gilbert, Johnson, Keerthi 1988), computed in
 * double in A's frame; spheres (a radius of 0 included: a point) and capsules by their cores,
 * their radii as margins, as col_collide3. */
col_distance3 col_gjk3_distance(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                col_xf3 xb);

/* ---- manifolds ---- */

#define COL_MAX_POINTS3 4

COL_MANIFOLD_TYPES(3, mk_vec3) /* as col_manifold2 (mink_collision.h) */

/* Collides any pair of 3D shapes, in either order, through a table indexed by the shape pair.
 * Polytope pairs (box, hull) get a one-shot manifold of up to 4 points (the incident face
 * clipped against the reference face); pairs with a curved shape one point, the deepest
 * (col_contact_cache3_update builds their manifold over several steps). Swapping A and B
 * negates the normal. */
col_manifold3 col_collide3(const col_shape3 *a, col_xf3 xa, const col_shape3 *b, col_xf3 xb);

/* As col_collide3 for a simulation step: it only needs the distance of shapes closer than
 * `margin` (a speculative contact's reach), and farther apart `distance` may be any lower
 * bound greater than margin, which box pairs find without GJK and the other GJK pairs by
 * stopping GJK once its lower bound passes margin (on a curved surface a few support calls
 * instead of about twenty). Box pairs also keep a face
 * contact unless an edge pair (or the other box's face) is shallower by `face_bias` m: two
 * stacked boxes with a slight tilt between them rest on four face points rather than one edge
 * point that flickers (the tolerance of Gregorius's SAT, "The Separating Axis Test between
 * Convex Polyhedra", GDC 2013). The depth is then that face's, off by at most face_bias. */
col_manifold3 col_collide3_within(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                  col_xf3 xb, float margin, float face_bias);

/* Whether two placed shapes overlap (touching counts), without the depth or the gap: GJK on
 * the shapes (the cores of spheres and capsules, their radii as margins) that stops at the
 * first separating plane (its lower bound past 0) or once the origin is enclosed, the
 * boolean GJK of libccd's ccdGJKIntersect and Bullet's. A broadphase filter, or a query that
 * only needs yes or no; agrees with col_collide3's count > 0 except within 1e-7 of the
 * shapes' size of touching. */
bool col_overlap3(const col_shape3 *a, col_xf3 xa, const col_shape3 *b, col_xf3 xb);

/* ---- rays and shape casts (col_ray_hit3: see COL_RAY_TYPES in mink_collision.h) ---- */

COL_RAY_TYPES(3, mk_vec3)

/* The first point of the segment from -> to (not of zero length) on the placed shape, in
 * closed form for every shape, exact up to rounding (in double, the shape turned by its
 * quaternion made unit). The normal is the face's that was entered: on an edge or a cylinder's
 * or cone's rim either face's; on a capsule's seam the radial one both share; at a cone's apex
 * (or within 1e-9 of the coordinates' size from its axis) the side's normal in the plane of
 * the ray and the axis, facing the ray (the axis for a ray along it). */
col_ray_hit3 col_ray3(const col_shape3 *s, col_xf3 xf, mk_vec3 from, mk_vec3 to);
/* Shape A at xa moved by `translation` against B at xb, as col_cast2. */
col_ray_hit3 col_cast3(const col_shape3 *a, col_xf3 xa, mk_vec3 translation,
                       const col_shape3 *b, col_xf3 xb);

/* ---- the persistent manifold of the seed's arbiter ---- */

typedef struct col_cached_point3 {
    mk_vec3 local_a; /* the contact on A's surface, A's frame, m */
    mk_vec3 local_b; /* on B's surface, B's frame, m */
    col_contact_point3 c;
} col_cached_point3;

typedef struct col_contact_cache3 {
    mk_vec3 normal;
    int count;
    col_cached_point3 points[COL_MAX_POINTS3];
} col_contact_cache3;

/* The seed's arbiter ("Collision Detection Using Minkowski Difference": cached points are
 * replaced by a new one near them, and old ones pushed out) done as Bullet's persistent
 * manifold (btPersistentManifold: refresh, replace, sort by area). From the cached manifold,
 * the current transforms and a fresh manifold of the pair (its points and normal): each cached
 * point is carried by both bodies to where they are now; it is dropped when its two surface
 * points separated along the normal by more than `threshold` or drifted apart sideways by more
 * than `threshold`; each fresh point replaces the cached point within `threshold` of it (or is
 * added); past COL_MAX_POINTS3 the deepest point and those spanning the largest area stay.
 * A fresh manifold without points empties the cache. */
col_contact_cache3 col_contact_cache3_update(const col_contact_cache3 *cached, col_xf3 xa,
                                            col_xf3 xb, const col_manifold3 *fresh,
                                            float threshold);

#endif
