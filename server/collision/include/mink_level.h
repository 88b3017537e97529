/* mink_collision, level geometry: what a game's level is made of, terrain and architecture
 * modelled in Blender and exported as glTF, or a 2D outline drawn as a chain of segments. In
 * 2D a segment and a chain of one-sided segments with ghost vertices (Box2D v3's
 * b2ChainSegment); in 3D a triangle mesh and a heightfield, with active edges (Jolt's
 * ActiveEdges). Each has a bounding-volume hierarchy or a grid over its pieces, AABB queries
 * that write candidate indices into the caller's buffer, collide functions of every convex
 * shape against one piece (one manifold per piece, feature ids stable from tick to tick),
 * rays and shape casts. Building a shape allocates and validates what it is given (mk_error
 * names the field and index); no query allocates. Included by mink_collision.h. */
#ifndef MINK_LEVEL_H
#define MINK_LEVEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mink_collision.h"

/* ---- limits ---- */

/* m: a vertex or point farther from its shape's origin on any axis is refused. Float has 8 mm
 * steps there; the limit catches garbage (1e30, a unit mix-up), not large levels. */
#define COL_LEVEL_MAX_COORD 1e5f
/* Pieces (triangles, segments) one shape may hold: the hierarchy's leaves address 2^27. */
#define COL_LEVEL_MAX_PIECES (1u << 27)
/* Jolt's MeshShapeSettings::mActiveEdgeCosThresholdAngle: cos 5 degrees. Two triangles on an
 * edge that bend by less than this (or bend inwards, a concave edge) make it inactive. */
#define COL_ACTIVE_EDGE_COS 0.996195f

/* ---- the bounding-volume hierarchy of a chain or a mesh ---- */

/* A node's box is quantised to 16 bits an axis within the root's box, rounded outwards (lo
 * down, hi up), so a node takes 16 bytes. data: a leaf (bit 31) holds the pieces at slots
 * first .. first + count of the shape's leaf order (first in bits 0-26, count - 1 in bits
 * 27-30); an inner node's first child follows it and data is its second child's index. */
typedef struct col_bvh_node {
    uint16_t lo[3], hi[3];
    uint32_t data;
} col_bvh_node;

#define COL_BVH_MAX_DEPTH 64 /* the build keeps every path shorter: a query's stack is fixed */

typedef struct col_bvh {
    col_bvh_node *nodes;
    uint32_t node_count;
    uint32_t depth;      /* nodes on the longest path from the root */
    float lo[3], hi[3];  /* the root's box, exact, m */
    double step[3];      /* m per quantisation step on each axis */
} col_bvh;

/* ---- 2D: segments ---- */

/* A segment in its body's frame, two-sided: it collides on both sides. */
typedef struct col_segment2 {
    mk_vec2 a, b;
} col_segment2;

/* One segment of a chain, p1 -> p2, with its neighbours' far ends: ghost1 -> p1 is the
 * segment before it, p2 -> ghost2 the one after (Box2D v3's b2ChainSegment). One-sided: it
 * collides only on its right (the normal is the right perpendicular of p2 - p1, so a
 * counter-clockwise loop faces outward and ground drawn from right to left faces up). */
typedef struct col_chain_segment2 {
    mk_vec2 ghost1, p1, p2, ghost2;
} col_chain_segment2;

/* The segment (placed at xs) against a shape (AABB, box, polygon, circle): the answer of
 * col_collide2_near with the segment as shape A (its normal from the segment toward B), a
 * convex polygon of two vertices to the separating-axis test. */
col_manifold2 col_collide_segment2(col_segment2 s, col_xf2 xs, const col_shape2 *b, col_xf2 xb,
                                   float margin);

/* A chain segment (its chain placed at xs) against a shape, Box2D v3's
 * b2CollideChainSegmentAndPolygon and b2CollideChainSegmentAndCircle: the normal is decided
 * from the ghost vertices (Box2D's b2ClassifyNormal on the Gauss map of the two corners), so
 * that a shape sliding along a chain of many segments meets no seam: a normal that belongs
 * to a convex neighbour is left to that neighbour, one in a concave corner snaps to the
 * segment's. The same contract as col_collide2_near (normal from the segment toward B,
 * count 0 with the gap when apart), and count 0 with distance FLT_MAX when the segment leaves
 * B to its neighbours or B is behind it (one-sided). */
col_manifold2 col_collide_chain_segment2(const col_chain_segment2 *s, col_xf2 xs,
                                         const col_shape2 *b, col_xf2 xb, float margin);

col_aabb col_segment2_bounds(col_segment2 s, col_xf2 xs);

/* The first point of from -> to on the segment, in double. one_sided: a ray from the
 * segment's left side (behind a chain segment) misses, as Box2D's chain segments. The normal
 * faces the ray. */
col_ray_hit2 col_ray_segment2(col_segment2 s, col_xf2 xs, mk_vec2 from, mk_vec2 to,
                              bool one_sided);
/* Shape A at xa moved by `translation` against the segment: col_cast2 with the segment as a
 * polygon of two vertices. */
col_ray_hit2 col_cast_segment2(const col_shape2 *a, col_xf2 xa, mk_vec2 translation,
                               col_segment2 s, col_xf2 xs);
/* As col_cast_segment2, no hit when A starts within `skin` (m) of the segment: a step's sweep
 * looks past the pieces its narrowphase already gave contact points. */
col_ray_hit2 col_cast_segment2_beyond(const col_shape2 *a, col_xf2 xa, mk_vec2 translation,
                                      col_segment2 s, col_xf2 xs, float skin);

/* ---- 2D: chains ---- */

/* A chain of segments through points (Box2D v3's b2ChainDef). A loop joins the last point to
 * the first and has a segment per point; an open chain's first and last points are ghosts
 * only (as Box2D's): its segments are points[1] -> points[2] ... points[n-3] -> points[n-2].
 * Points closer than COL_WELD_DISTANCE to the one before are welded into it (and counted). */
typedef struct col_chain2 {
    mk_vec2 *points;
    uint32_t point_count;
    bool loop;
    uint32_t segment_count;
    uint32_t welded;  /* input points dropped as repeats */
    uint32_t *order;  /* the hierarchy's leaf slots: slot k holds segment order[k] */
    col_bvh bvh;
    col_aabb bounds;  /* of the segments (ghost-only ends excluded), chain frame */
} col_chain2;

/* Builds a chain from n points (at least 4 for an open chain, 3 for a loop, after welding;
 * at most max_points). Returns 0, or -1 with `err` naming the field: "points[7].y is not
 * finite", too few or too many points, a coordinate past COL_LEVEL_MAX_COORD. */
int col_chain2_build(const mk_vec2 *points, uint32_t n, bool loop, uint32_t max_points,
                     col_chain2 *out, mk_error *err);
void col_chain2_free(col_chain2 *c);
/* Bytes the chain holds (points, leaf order, nodes). */
size_t col_chain2_bytes(const col_chain2 *c);
/* Segment i (0 .. segment_count - 1) with its ghosts, in the chain's frame. */
col_chain_segment2 col_chain2_segment(const col_chain2 *c, uint32_t i);
/* The segments whose boxes touch `box` (chain frame): their indices written to out[0 ..
 * cap), in the hierarchy's order; returns how many there are (more than cap: only cap were
 * written, as snprintf). */
uint32_t col_chain2_query(const col_chain2 *c, col_aabb box, uint32_t *out, uint32_t cap);

/* A piece's manifold: which piece (segment, triangle) and the manifold against it. */
typedef struct col_child_manifold2 {
    uint32_t child;
    col_manifold2 m;
} col_child_manifold2;

/* A shape against every segment of the chain (placed at xc) near it: the manifolds that
 * touch or are apart by at most `margin` (col_collide_chain_segment2), the first cap written
 * to out in the hierarchy's order; returns how many there are. */
uint32_t col_chain2_collide(const col_chain2 *c, col_xf2 xc, const col_shape2 *b, col_xf2 xb,
                            float margin, col_child_manifold2 *out, uint32_t cap);
/* The first segment a ray from -> to meets (one-sided, as col_ray_segment2), through the
 * hierarchy: its index in *segment (when not NULL). */
col_ray_hit2 col_chain2_ray(const col_chain2 *c, col_xf2 xc, mk_vec2 from, mk_vec2 to,
                            uint32_t *segment);
/* Shape A at xa moved by `translation` against the chain: the first segment it touches
 * (col_cast2 on each candidate of the swept box). As Box2D's continuous collision, a segment
 * with A's origin behind it at the start is passed through. The hit's normal follows the
 * ghosts' rule of col_collide_chain_segment2 (a seam's corner met while sliding along the
 * chain gives the segment's normal), and a hit whose normal does not oppose the motion
 * (touching while moving along or away) is passed: it would stop nothing. */
col_ray_hit2 col_chain2_cast(const col_shape2 *a, col_xf2 xa, mk_vec2 translation,
                             const col_chain2 *c, col_xf2 xc, uint32_t *segment);
/* As col_chain2_cast, passing the segments A starts within `skin` (m) of: a step's sweep
 * looks past those its narrowphase already gave contact points. */
col_ray_hit2 col_chain2_cast_beyond(const col_shape2 *a, col_xf2 xa, mk_vec2 translation,
                                    const col_chain2 *c, col_xf2 xc, float skin,
                                    uint32_t *segment);

/* ---- 3D: triangles ---- */

/* Which side of a triangle collides. Jolt's EBackFaceMode: IGNORE skips a triangle whose
 * plane has B's origin behind it (what Jolt's bodies do by default, and its rays); COLLIDE
 * collides with its back as with its front, facing B (Jolt's CharacterVirtual default). */
typedef enum col_back_face {
    COL_BACK_FACES_IGNORE,
    COL_BACK_FACES_COLLIDE
} col_back_face;

/* A triangle, counter-clockwise seen from its front, and which of its edges are active:
 * bit 0 v0-v1, bit 1 v1-v2, bit 2 v2-v0 (Jolt's order). */
typedef struct col_triangle3 {
    mk_vec3 v[3];
    uint8_t active;
} col_triangle3;

/* How a shape meets triangles. */
typedef struct col_tri_contact3 {
    float margin;       /* m: triangles farther than this need only a lower bound of the gap */
    col_back_face back;
    mk_vec3 motion;     /* B's velocity relative to the level (any scale; zero if unknown):
                           Jolt's active edge movement direction */
    float face_bias;    /* m: a box keeps a face contact unless an edge pair (or its own
                           face) is shallower by this (col_collide3_within's face_bias) */
    bool speculative;   /* a sphere apart by less than the margin along the line of its
                           nearest points gets that point all the same, of negative depth (a
                           speculative contact), with the gap in `distance` (> 0 only for
                           such a manifold), not an empty manifold; so does a box apart along
                           the triangle's face or its own with that face over the other's
                           nearest point, its face clipped as at a touch */
} col_tri_contact3;

/* A shape against one triangle, with the normal from the triangle toward B: GJK and EPA on
 * the triangle's support (a flat polytope: its face clipped against B's for up to four
 * points), spheres and capsules exact by their cores; a sphere from the triangle's point
 * nearest its centre and a box by the separating-axis test, without GJK or EPA. A contact on an inactive edge or
 * vertex gets the triangle's face normal instead of the edge's (Jolt's ActiveEdges::
 * FixNormal, with its movement rule), its depth and points measured along the face normal,
 * so that a shape sliding across the shared edge of two flat triangles is not bumped. Count 0
 * with distance FLT_MAX when the back face is ignored and B's origin is behind. */
col_manifold3 col_collide_triangle3(const col_triangle3 *t, const col_shape3 *b, col_xf3 xb,
                                    const col_tri_contact3 *how);

/* The first point of from -> to on the triangle: the watertight test of Woop, Benthin and
 * Wald (2013) in double, so that a ray through an edge two triangles share hits one of them.
 * A back face is hit only with COL_BACK_FACES_COLLIDE; the normal faces the ray. */
col_ray_hit3 col_ray_triangle3(const col_triangle3 *t, mk_vec3 from, mk_vec3 to,
                               col_back_face back);

/* Whether the edge two triangles share is active (Jolt's ActiveEdges::IsEdgeActive): n1 and
 * n2 are their unit normals, `edge` the shared edge's direction as the first triangle winds
 * it. Back to back (within 1 degree) it is; concave it is not; convex when the normals are
 * further apart than cos_threshold. */
bool col_edge_active(mk_vec3 n1, mk_vec3 n2, mk_vec3 edge, float cos_threshold);

typedef struct col_child_manifold3 {
    uint32_t child;
    col_manifold3 m;
} col_child_manifold3;

/* Jolt's manifold reduction for one body pair: the manifolds of items[0 .. n) whose normals
 * are within `cos_tolerance` of each other are merged into the first of them (its child
 * stays), their points reduced to four (the deepest and those spanning the largest area),
 * each point's id mixed with its piece's. Returns the number of manifolds left, in place. */
uint32_t col_merge_manifolds3(col_child_manifold3 *items, uint32_t n, float cos_tolerance);

/* ---- 3D: triangle meshes ---- */

typedef struct col_mesh3_desc {
    const mk_vec3 *vertices;
    uint32_t vertex_count;
    const uint32_t *indices; /* three per triangle */
    uint32_t index_count;
    uint32_t max_triangles;  /* the caller's limit on index_count / 3 */
    float active_edge_cos;   /* COL_ACTIVE_EDGE_COS as Jolt; below -1: every edge active */
} col_mesh3_desc;

/* A mesh in its body's frame. Vertices at exactly the same position are one vertex (a glTF
 * export splits them at seams of its normals and UVs); triangles are stored in the
 * hierarchy's leaf order, `source` names the input triangle of each. */
typedef struct col_mesh3 {
    mk_vec3 *verts;
    uint32_t vert_count;
    uint32_t (*tris)[3];
    uint8_t *active;   /* per triangle, as col_triangle3.active */
    uint32_t *source;  /* per triangle: its index in the input (indices[3 * source]) */
    uint32_t tri_count;
    uint32_t dropped;  /* input triangles dropped: degenerate, or a repeat of one before */
    col_bvh bvh;
    col_aabb3 bounds;  /* mesh frame */
} col_mesh3;

/* Builds a mesh: validates the input (an index out of range, a non-finite coordinate, one past
 * COL_LEVEL_MAX_COORD, more triangles than max_triangles, none left), drops degenerate
 * triangles (a repeated vertex, or a height below COL_WELD_DISTANCE over its longest edge)
 * and repeated ones (the same vertices, the same winding) and counts them, marks active edges as Jolt (an edge with one triangle, or three or more,
 * is active) and builds the hierarchy (binned SAH). Returns 0, or -1 with `err` naming the
 * field and index ("indices[17] = 9 is out of range (8 vertices)"). */
int col_mesh3_build(const col_mesh3_desc *d, col_mesh3 *out, mk_error *err);
void col_mesh3_free(col_mesh3 *m);
/* Bytes the mesh holds, everything counted. */
size_t col_mesh3_bytes(const col_mesh3 *m);
/* Triangle i placed at xm, with its active edges. */
col_triangle3 col_mesh3_triangle(const col_mesh3 *m, col_xf3 xm, uint32_t i);

/* ---- 3D: heightfields ---- */

typedef struct col_heightfield3_desc {
    uint32_t cols, rows;     /* samples along x and along z, each at least 2 */
    mk_vec3 scale;           /* m between samples on x and z, and per unit of height on y */
    const float *heights;    /* rows * cols, row-major: sample (i, j) is heights[j * cols + i] */
    const uint8_t *holes;    /* NULL, or (rows - 1) * (cols - 1) cells, row-major; non-zero:
                                the cell has no triangles */
    uint32_t max_triangles;  /* the caller's limit on 2 * (cols - 1) * (rows - 1) */
    float active_edge_cos;
} col_heightfield3_desc;

/* A heightfield in its body's frame: sample (i, j) is at (i sx, h sy, j sz). Cell (i, j)
 * between samples i, i + 1 and j, j + 1 holds two triangles on the fixed diagonal from
 * (i, j) to (i + 1, j + 1), both facing +y: triangle 2 c is (i, j), (i, j + 1), (i + 1, j + 1)
 * and 2 c + 1 is (i, j), (i + 1, j + 1), (i + 1, j), with c = j (cols - 1) + i. */
typedef struct col_heightfield3 {
    uint32_t cols, rows;
    mk_vec3 scale;
    float *y;          /* the samples' heights times scale.y, m */
    uint8_t *cells;    /* per cell: bits 0-2 triangle 2c's active edges, 3-5 2c + 1's, 6 hole */
    float min_y, max_y;
    uint32_t tri_count; /* 2 (cols - 1) (rows - 1), holes included */
    col_aabb3 bounds;
} col_heightfield3;

int col_heightfield3_build(const col_heightfield3_desc *d, col_heightfield3 *out,
                           mk_error *err);
void col_heightfield3_free(col_heightfield3 *h);
size_t col_heightfield3_bytes(const col_heightfield3 *h);
/* Sample (i, j) in the heightfield's frame. */
mk_vec3 col_heightfield3_vertex(const col_heightfield3 *h, uint32_t i, uint32_t j);
/* Triangle i placed at xh; false for a triangle of a hole (or past the end). */
bool col_heightfield3_triangle(const col_heightfield3 *h, col_xf3 xh, uint32_t i,
                               col_triangle3 *out);

/* ---- 3D: queries of meshes and heightfields alike ---- */

/* A mesh or a heightfield: exactly one of the two set. */
typedef struct col_level3 {
    const col_mesh3 *mesh;
    const col_heightfield3 *hf;
} col_level3;

col_aabb3 col_level3_bounds(col_level3 l, col_xf3 xl);
/* The triangles whose boxes touch `box` (the level's frame), as col_chain2_query. */
uint32_t col_level3_query(col_level3 l, col_aabb3 box, uint32_t *out, uint32_t cap);
/* The first triangle a ray from -> to meets (col_ray_triangle3), through the hierarchy or
 * along the heightfield's cells; ties go to the lower index. */
col_ray_hit3 col_level3_ray(col_level3 l, col_xf3 xl, mk_vec3 from, mk_vec3 to,
                            col_back_face back, uint32_t *tri);
/* Shape A at xa moved by `translation` against the level: the first triangle it touches
 * (col_cast3 on the candidates along the swept box, nearest first). A triangle whose front
 * faces away from the motion is passed through when back faces are ignored (Jolt's shape
 * cast). The hit's normal follows the active-edge rule (an inactive edge met while sliding
 * over a flat mesh gives the face normal), and a hit whose normal does not oppose the motion
 * is passed: it would stop nothing (Jolt's continuous collision skips those too). */
col_ray_hit3 col_level3_cast(const col_shape3 *a, col_xf3 xa, mk_vec3 translation,
                             col_level3 l, col_xf3 xl, col_back_face back, uint32_t *tri);
/* As col_level3_cast, passing the triangles A starts within `skin` (m) of: a step's sweep
 * looks past those its narrowphase already gave contact points. */
col_ray_hit3 col_level3_cast_beyond(const col_shape3 *a, col_xf3 xa, mk_vec3 translation,
                                    col_level3 l, col_xf3 xl, col_back_face back, float skin,
                                    uint32_t *tri);
/* A shape against every triangle of the level near it (col_collide_triangle3 with `how`,
 * whose motion is in the world): the manifolds that touch or are within how->margin, the
 * first cap written to out; returns how many there are. */
uint32_t col_level3_collide(col_level3 l, col_xf3 xl, const col_shape3 *b, col_xf3 xb,
                            const col_tri_contact3 *how, col_child_manifold3 *out,
                            uint32_t cap);
/* How far a shape is from the triangles of a level, as separating planes: each of `count`
 * triangles lies wholly behind the plane `gap` m (>= 0) from the shape along `normal` (unit,
 * world axes, from the triangle toward the shape); every other triangle is farther than `far`,
 * or past side[2k] (side[2k + 1]) m from the shape's box along -axis k (+axis k) of the
 * level's frame (turned by `frame` from the world's), save those the caller leaves out. When
 * the shape moves by d, the gap along a fixed axis changes by d along it: a triangle stays
 * apart while gap + min(0, d . normal) > 0. */
#define COL_LEVEL3_CLEAR_MAX 16
typedef struct col_level3_clear {
    float far;
    float side[6];
    mk_quat frame;
    uint32_t count;
    struct {
        mk_vec3 normal;
        float gap;
    } near[COL_LEVEL3_CLEAR_MAX];
} col_level3_clear;

/* Adds a triangle gap m from the shape along normal; past COL_LEVEL3_CLEAR_MAX the nearest
 * are kept and the others bound `far` by their gaps. */
void col_level3_clear_add(col_level3_clear *c, mk_vec3 normal, float gap);
/* Whether the shape moved by d (world axes, m) stays more than `room` m from every
 * triangle of c. */
bool col_level3_clear_moves(const col_level3_clear *c, mk_vec3 d, float room);

/* A shape's candidate triangles kept from one query to the next (the triangles under a box a
 * little larger than the query's, kept while the query's box stays inside it: Bullet's and
 * Jolt's caches of a body's nearby triangles). Walking the kept list gives the triangles the
 * level's own walk gives, in the same order: those whose boxes meet the query's box, a
 * heightfield's in its cells' order and a mesh's in its tree's, the same for any box. The
 * caller owns `tris` (room for `cap`) and sets `valid` false when it is not this shape's or
 * not this level's; the query fills the rest. */
typedef struct col_level3_tri {
    mk_vec3 v[3];       /* level frame */
    float lo[3], hi[3]; /* its box */
    uint32_t tri;
    uint8_t active;
} col_level3_tri;

typedef struct col_level3_near {
    float lo[3], hi[3]; /* level frame: every triangle whose box meets this one is listed */
    uint32_t count, cap;
    bool valid;
    col_level3_tri *tris;
} col_level3_near;

/* col_level3_collide (the same manifolds in the same order), and when clear is not NULL, how
 * far the shape is from the triangles it gives no manifold for (apart by more than
 * how->margin) into *clear: those under its box grown by how->margin + slack and swept along
 * `ahead` (world axes, m) by their collision's separation, a sphere's nearest point or their
 * boxes' gap, the others by the sides of that box. With `near` (NULL: none), the candidates
 * come from its list, made anew when the box leaves it; the answers are the same. */
uint32_t col_level3_collide_clear(col_level3 l, col_xf3 xl, const col_shape3 *b, col_xf3 xb,
                                  const col_tri_contact3 *how, mk_vec3 ahead, float slack,
                                  col_child_manifold3 *out, uint32_t cap,
                                  col_level3_clear *clear, col_level3_near *near);
/* As col_level3_cast_beyond, the candidates of a cast no longer than the shape taken from
 * the shape's kept list (NULL: none) when its box holds the swept box: the same answer. */
col_ray_hit3 col_level3_cast_near(const col_shape3 *a, col_xf3 xa, mk_vec3 translation,
                                  col_level3 l, col_xf3 xl, col_back_face back, float skin,
                                  const col_level3_near *near, uint32_t *tri);

#endif
