/* Shared by the 2D collide functions: shapes seen as polygons in a chosen frame, rotations,
 * and the manifold's way back to world space. Not part of the library's interface. */
#ifndef MINK_COLLIDE2_INTERNAL_H
#define MINK_COLLIDE2_INTERNAL_H

#include "mink_collision.h"

/* A rotation as cosine and sine. */
typedef struct col_rot2 {
    float c, s;
} col_rot2;

static inline col_rot2 col_rot(float angle) { return (col_rot2){cosf(angle), sinf(angle)}; }
static inline mk_vec2 col_rotate(col_rot2 r, mk_vec2 v)
{
    return mk_v2(r.c * v.x - r.s * v.y, r.s * v.x + r.c * v.y);
}
static inline mk_vec2 col_unrotate(col_rot2 r, mk_vec2 v)
{
    return mk_v2(r.c * v.x + r.s * v.y, -r.s * v.x + r.c * v.y);
}
/* The rotation of a placed shape: an AABB never turns. */
static inline col_rot2 col_shape_rot(const col_shape2 *s, col_xf2 xf)
{
    return s->type == COL_SHAPE_AABB ? (col_rot2){1.0f, 0.0f} : col_rot(xf.angle);
}

/* A polygonal shape (aabb, box, polygon) in some frame. `v` and `n` point either into the
 * shape's own polygon or into `own`; a view is used where it was made and never copied. */
typedef struct col_poly_view {
    int count;
    const mk_vec2 *v, *n;
    mk_vec2 own_v[COL_MAX_POLYGON], own_n[COL_MAX_POLYGON];
} col_poly_view;

/* The shape in its own frame: a box's four corners, or the polygon as it is. */
void col_view_local(const col_shape2 *s, col_poly_view *out);
/* The shape placed at `xf`, seen from the frame `frame` (its vertices in that frame). */
void col_view_in_frame(const col_shape2 *s, col_xf2 xf, col_rot2 rot, col_xf2 frame,
                       col_rot2 frame_rot, col_poly_view *out);

/* A manifold computed in a frame at `origin` rotated by `rot`, taken to world space. */
void col_manifold_to_world(col_manifold2 *m, mk_vec2 origin, col_rot2 rot);
/* The manifold of B against A from that of A against B: the normal turns around; points and
 * depths stay, ids get the swap bit so that they cannot meet the unswapped ones. */
col_manifold2 col_manifold_swap(col_manifold2 m);

#define COL_ID_SWAPPED 0x80000000u

/* A shape builder's count of points, checked: 0 when it is in [lo, hi], else -1 with `err`
 * saying what a `what` needs (col_polygon_make, col_hull3_make). */
static inline int col_check_point_count(int n, int lo, int hi, const char *what, mk_error *err)
{
    if (n < lo)
        return mk_fail(err, MK_ERR_INVALID, "a %s needs at least %d points (got %d)", what, lo, n);
    if (n > hi)
        return mk_fail(err, MK_ERR_INVALID, "a %s takes at most %d points (got %d)", what, hi, n);
    return 0;
}

/* The collide functions of the table that are not in the public header. */
col_manifold2 col_collide_polygons(const col_shape2 *a, col_xf2 xa, const col_shape2 *b,
                                   col_xf2 xb);
/* col_collide2_near's polygon pair: col_collide_polygons with the margin. */
col_manifold2 col_collide_polygons_near(const col_shape2 *a, col_xf2 xa, col_rot2 ra,
                                        const col_shape2 *b, col_xf2 xb, col_rot2 rb,
                                        float margin);
col_manifold2 col_collide_polygon_circle(const col_shape2 *a, col_xf2 xa, const col_shape2 *b,
                                         col_xf2 xb);
col_manifold2 col_collide_circles(const col_shape2 *a, col_xf2 xa, const col_shape2 *b,
                                  col_xf2 xb);

#endif
