/* Shared by the level shapes (chains, meshes, heightfields): the hierarchy's build and its
 * walks, a radix sort for the builds, and the small geometry they share. Not part of the
 * library's interface. */
#ifndef MINK_LEVEL_INTERNAL_H
#define MINK_LEVEL_INTERNAL_H

#include "collide3_internal.h"
#include "mink_level.h"

/* ---- the hierarchy (bvh.c) ---- */

#define COL_BVH_LEAF 0x80000000u
#define COL_BVH_FIRST_MASK 0x07FFFFFFu
#define COL_BVH_LEAF_MAX 4 /* pieces a leaf holds at most (Jolt's mMaxTrianglesPerLeaf is 8, tested
                              * four at a time; one at a time, 4 is about 1.5 times faster) */

static inline bool col_bvh_is_leaf(uint32_t data) { return (data & COL_BVH_LEAF) != 0; }
static inline uint32_t col_bvh_leaf_first(uint32_t data) { return data & COL_BVH_FIRST_MASK; }
static inline uint32_t col_bvh_leaf_count(uint32_t data) { return ((data >> 27) & 0xFu) + 1u; }

/* A piece's box, m. A 2D shape's boxes have lo[2] = hi[2] = 0. */
typedef struct col_box {
    float lo[3], hi[3];
} col_box;

/* Builds the hierarchy over n boxes (1 <= n <= COL_LEVEL_MAX_PIECES): binned SAH (16 bins on
 * the longest axis of the centroids; a 2D shape's cost is the perimeter, a 3D one's the
 * surface area), leaves of up to COL_BVH_LEAF_MAX pieces, and below depth 32 an object
 * median split, which keeps every path under COL_BVH_MAX_DEPTH. order[k] is written with the
 * piece at leaf slot k. Returns 0, or -1 when memory runs out. */
int col_bvh_build(col_bvh *t, const col_box *boxes, uint32_t n, uint32_t *order);
void col_bvh_free(col_bvh *t);

/* The leaves whose node boxes touch a box, depth first. */
typedef struct col_bvh_iter {
    const col_bvh *t;
    uint16_t lo[3], hi[3];
    int sp;
    uint32_t stack[COL_BVH_MAX_DEPTH];
    uint32_t slot, end; /* col_bvh_iter_slot: the current leaf's slots not yet given */
} col_bvh_iter;

void col_bvh_iter_init(col_bvh_iter *it, const col_bvh *t, const col_box *box);
/* The next leaf: its slots first .. first + count; false when there is none. */
bool col_bvh_iter_next(col_bvh_iter *it, uint32_t *first, uint32_t *count);

/* The next slot of those leaves, one at a time; false when there is none. */
bool col_bvh_iter_slot(col_bvh_iter *it, uint32_t *slot);

/* The leaves a segment o + s d (s in [0, tmax]) passes through with every node box grown by
 * `grow` on each side (a swept box's half extents; 0 for a ray), nearest first. The caller
 * lowers tmax as it finds hits, which prunes the walk. */
typedef struct col_bvh_ray {
    const col_bvh *t;
    /* The segment in the tree's quantised units (steps above the root's lo), where a node's
     * box is read as it is stored: o, step / d (0 where d is 0), and how far each node box
     * is widened (the grow, and a thousandth of a step for the rounding). */
    double o[3], inv[3], pad[3];
    bool flat[3]; /* d is 0 on this axis */
    double tmax;
    int sp;
    uint32_t stack[COL_BVH_MAX_DEPTH];
    double enter[COL_BVH_MAX_DEPTH];
} col_bvh_ray;

void col_bvh_ray_init(col_bvh_ray *r, const col_bvh *t, const double o[3], const double d[3],
                      const double grow[3], double tmax);
bool col_bvh_ray_next(col_bvh_ray *r, uint32_t *first, uint32_t *count);

/* Where the segment o + s d enters the box lo .. hi grown by `grow`, or INFINITY when it
 * misses it within [0, tmax] (slabs, Kay and Kajiya 1986, in double; a zero component of d
 * is inside or outside its slab outright). */
double col_box_enter(const double lo[3], const double hi[3], const double o[3],
                     const double d[3], const double grow[3], double tmax);

static inline bool col_box_overlap(const col_box *a, const col_box *b)
{
    for (int k = 0; k < 3; k++)
        if (a->lo[k] > b->hi[k] || b->lo[k] > a->hi[k])
            return false;
    return true;
}

/* ---- sorting (bvh.c) ---- */

typedef struct col_keyed {
    uint64_t key;
    uint32_t value;
} col_keyed;

/* Sorts n pairs by key, stably (LSD radix, 16 bits a pass, skipping passes where every key
 * has the same digit). `tmp` has room for n. */
void col_radix_sort(col_keyed *a, col_keyed *tmp, size_t n);

/* ---- segments (segment2.c) ---- */

/* The segment a -> b against the ray o + t d, t in [0, tmax], in double (Box2D's
 * b2RayCastSegment): *t and the unit normal facing the ray. one_sided: a ray from the left of
 * a -> b misses. */
bool col_segment_ray_d(const double a[2], const double b[2], const double o[2],
                       const double d[2], bool one_sided, double tmax, double *t, double n[2]);

/* Box2D's Gauss-map rule for a normal met on a chain segment (from the segment outward, the
 * chain's frame): false when a convex neighbour owns it; snapped to the segment's normal in a
 * concave corner. */
bool col_chain_segment_normal(const col_chain_segment2 *s, mk_vec2 *normal);

/* ---- triangles (triangle3.c) ---- */

/* The unit normal of a triangle, (v1 - v0) x (v2 - v0) in double: the one formula every
 * active-edge test and every collide uses, so a mesh and a heightfield made of the same
 * triangles agree to the bit. */
col_d3 col_tri_normal(const mk_vec3 v[3]);
/* The same cross product, not made unit: the normal's direction without a square root. */
col_d3 col_tri_cross(const mk_vec3 v[3]);

/* The point of triangle v nearest p. */
col_d3 col_tri_closest(const mk_vec3 v[3], col_d3 p);

/* Whether an edge between triangles a (its edge ea) and b is active; a's winding gives the
 * edge's direction. */
bool col_tri_edge_active(const mk_vec3 a[3], int ea, const mk_vec3 b[3], float cos_threshold);

/* Jolt's ActiveEdges::FixNormal: the normal `own` met at the point p of triangle v (face
 * normal n, active edges `active`) by a shape moving along `motion`, or n when p is inside the
 * face or on an inactive edge or vertex and own would hinder the motion more. */
col_d3 col_tri_fix_normal(const mk_vec3 v[3], col_d3 n, uint8_t active, col_d3 own, col_d3 p,
                          col_d3 motion);

/* The box of a triangle. */
static inline col_box col_tri_box(const mk_vec3 v[3])
{
    col_box b;
    mk_vec3 lo = mk_v3_min(mk_v3_min(v[0], v[1]), v[2]);
    mk_vec3 hi = mk_v3_max(mk_v3_max(v[0], v[1]), v[2]);
    b.lo[0] = lo.x, b.lo[1] = lo.y, b.lo[2] = lo.z;
    b.hi[0] = hi.x, b.hi[1] = hi.y, b.hi[2] = hi.z;
    return b;
}

static inline col_box col_box_of3(col_aabb3 a)
{
    mk_vec3 lo = mk_v3_sub(a.center, a.half), hi = mk_v3_add(a.center, a.half);
    return (col_box){{lo.x, lo.y, lo.z}, {hi.x, hi.y, hi.z}};
}

/* A triangle as a convex shape for GJK, EPA and the casts: a hull of three vertices and two
 * faces (front and back) about its centroid, which `xf` places. */
typedef struct col_tri_hull {
    col_hull3 hull;
    col_shape3 shape;
    col_xf3 xf;
} col_tri_hull;

/* The hull of triangle v, n its col_tri_normal (for a triangle wound the other way, the
 * negative: exactly the normal of that winding). */
void col_tri_hull_make(const mk_vec3 v[3], col_d3 n, col_tri_hull *out);

/* col_collide_triangle3 with B's placement by address and the manifold written to *m (its
 * points past its count left as they were): a caller's loop over many triangles passes the
 * one placement it made and keeps the manifold where it will use it, rather than copies made
 * for every call (built and read straight back, which stalls). */
void col_collide_triangle3_into(const col_triangle3 *t, const col_shape3 *b, const col_xf3 *at,
                                const col_tri_contact3 *how, col_manifold3 *m);

/* What col_collide_tri_box3 settled: the manifold (touching, or apart by more than the
 * margin); apart within the margin, the exact gap and the triangle's point nearest the box;
 * or nothing (edge against edge, or a face clip that found no point), GJK and EPA's to do. */
typedef enum col_tri_box_result {
    COL_TRI_BOX_UNDECIDED,
    COL_TRI_BOX_DONE,
    COL_TRI_BOX_APART
} col_tri_box_result;

/* Box b against the triangle's hull th (unit face normal n, b's centre in front), as
 * col_collide_convex3_within(&th->shape, th->xf, b, xb, how->margin) answers it, by the
 * separating-axis test (tri_box3.c), keeping a face contact within how->face_bias as
 * col_collide3_within does. *nearest is written with COL_TRI_BOX_APART: apart within the
 * margin, the manifold has the gap, and with how->speculative its speculative points when a
 * face is over the other's nearest point (col_tri_contact3). */
col_tri_box_result col_collide_tri_box3(const col_tri_hull *th, col_d3 n, const col_shape3 *b,
                                        col_xf3 xb, const col_tri_contact3 *how,
                                        col_manifold3 *m, col_d3 *nearest);

/* A ray o + t d set up once for many triangles (Woop, Benthin and Wald's shear: the axis
 * where d is largest becomes z). */
typedef struct col_ray_pre {
    double o[3], d[3];
    int kx, ky, kz;
    double sx, sy, sz;
} col_ray_pre;

void col_ray_pre_init(col_ray_pre *r, const double o[3], const double d[3]);
/* Whether the ray meets triangle v within t in [0, tmax]: *t, and whether it met the back. */
bool col_ray_pre_hit(const col_ray_pre *r, const mk_vec3 v[3], col_back_face back, double tmax,
                     double *t, bool *from_back);
/* The hit at t: the point o + t d and the face normal facing the ray. */
col_ray_hit3 col_ray_pre_result(const col_ray_pre *r, const mk_vec3 v[3], double t,
                                bool from_back);

/* ---- meshes ---- */

/* Triangle t of a mesh in its own frame. */
static inline void col_mesh3_local(const col_mesh3 *m, uint32_t t, mk_vec3 v[3])
{
    for (int k = 0; k < 3; k++)
        v[k] = m->verts[m->tris[t][k]];
}

/* ---- heightfields (heightfield3.c) ---- */

/* Triangle t in the heightfield's frame and its active edges; false for a hole or past the
 * end. */
bool col_heightfield3_local(const col_heightfield3 *h, uint32_t t, mk_vec3 v[3],
                            uint8_t *active);
/* The samples of cell (i, j), in the heightfield's frame: (i, j), (i, j + 1), (i + 1, j + 1),
 * (i + 1, j), and its byte (col_heightfield3_cell_triangle reads them); false for a hole. */
bool col_heightfield3_cell(const col_heightfield3 *h, uint32_t i, uint32_t j, mk_vec3 corner[4],
                           uint8_t *cell);
/* Triangle k (0, 1) of a cell from its samples and byte (col_heightfield3_cell): the vertices
 * and active edges col_heightfield3_local gives it. */
static inline void col_heightfield3_cell_triangle(const mk_vec3 corner[4], uint8_t cell, int k,
                                                  mk_vec3 v[3], uint8_t *active)
{
    v[0] = corner[0];
    v[1] = corner[k == 0 ? 1 : 2];
    v[2] = corner[k == 0 ? 2 : 3];
    *active = (uint8_t)((cell >> (3 * k)) & 0x7u);
}
/* The cells a box (heightfield frame) may touch: columns range[0] .. range[1] and rows
 * range[2] .. range[3], inclusive. */
void col_heightfield3_cells(const col_heightfield3 *h, const col_box *box, uint32_t range[4]);
/* The first triangle the ray r meets within tmax (heightfield frame), ties to the lower
 * index: *best, *best_t and whether it met the back; false when none. */
bool col_heightfield3_ray(const col_heightfield3 *h, const col_ray_pre *r, col_back_face back,
                          double tmax, uint32_t *best, double *best_t, bool *best_back);

/* Placements between a level's frame and the world. */
static inline col_xf3 col_xf3_to_local(col_xf3 frame, col_xf3 x)
{
    return (col_xf3){col_xf3_apply_inv(frame, x.p), mk_quat_mul(mk_quat_conj(frame.q), x.q)};
}

#endif
