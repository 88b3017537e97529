/* The table of 3D collide functions indexed by shape pair (Box2D v3's contact registers, as
 * shape2.c does in 2D): exact special cases for sphere-sphere, sphere-box, capsule-capsule
 * and box-box, GJK and EPA for every other pair. The lower triangle is the upper one swapped,
 * so that A-B and B-A come from the same computation and their normals are exact negatives. */
#include <assert.h>
#include <stddef.h>

#include "collide2_internal.h"
#include "collide3_internal.h"

typedef col_manifold3 (*collide3_fn)(const col_shape3 *, col_xf3, const col_shape3 *, col_xf3);

typedef struct table_entry {
    collide3_fn fn;
    bool swap; /* called as fn(B, A) and the result swapped */
} table_entry;

#define SPHERES {col_collide_spheres3, false}
#define BOX_SPHERE {col_collide_box_sphere3, false}
#define SPHERE_BOX {col_collide_box_sphere3, true}
#define BOXES {col_collide_boxes3, false}
#define CAPSULES {col_collide_capsules3, false}
#define GJK {col_collide_convex3, false}
#define KJG {col_collide_convex3, true}

/* Rows are A's type, columns B's: sphere, box, ellipsoid, capsule, cylinder, cone, hull. */
static const table_entry collide_table[COL_SHAPE3_COUNT][COL_SHAPE3_COUNT] = {
    {SPHERES, SPHERE_BOX, GJK, GJK, GJK, GJK, GJK},
    {BOX_SPHERE, BOXES, GJK, GJK, GJK, GJK, GJK},
    {KJG, KJG, GJK, GJK, GJK, GJK, GJK},
    {KJG, KJG, KJG, CAPSULES, GJK, GJK, GJK},
    {KJG, KJG, KJG, KJG, GJK, GJK, GJK},
    {KJG, KJG, KJG, KJG, KJG, GJK, GJK},
    {KJG, KJG, KJG, KJG, KJG, KJG, GJK},
};

col_manifold3 col_collide3(const col_shape3 *a, col_xf3 xa, const col_shape3 *b, col_xf3 xb)
{
    assert(a->type < COL_SHAPE3_COUNT && b->type < COL_SHAPE3_COUNT);
    table_entry e = collide_table[a->type][b->type];
    return e.swap ? col_manifold3_swap(e.fn(b, xb, a, xa)) : e.fn(a, xa, b, xb);
}

col_manifold3 col_collide3_within(const col_shape3 *a, col_xf3 xa, const col_shape3 *b,
                                  col_xf3 xb, float margin, float face_bias)
{
    if (a->type == COL_SHAPE3_BOX && b->type == COL_SHAPE3_BOX)
        return col_collide_boxes3_within(a, xa, b, xb, margin, face_bias);
    table_entry e = collide_table[a->type][b->type];
    if (e.fn != col_collide_convex3)
        return col_collide3(a, xa, b, xb);
    return e.swap ? col_manifold3_swap(col_collide_convex3_within(b, xb, a, xa, margin))
                  : col_collide_convex3_within(a, xa, b, xb, margin);
}

/* One size: finite and within the polygon builder's limits. */
static int check_size(float v, const char *what, mk_error *err)
{
    if (!isfinite(v))
        return mk_fail(err, MK_ERR_INVALID, "the %s is not finite", what);
    if (v < COL_MIN_HALF || v > COL_MAX_HALF)
        return mk_fail(err, MK_ERR_INVALID, "the %s %g m is outside [%g, %g] m", what, (double)v,
                          (double)COL_MIN_HALF, (double)COL_MAX_HALF);
    return 0;
}

int col_shape3_check(const col_shape3 *s, mk_error *err)
{
    switch (s->type) {
    case COL_SHAPE3_SPHERE:
        return check_size(s->radius, "radius", err);
    case COL_SHAPE3_BOX:
    case COL_SHAPE3_ELLIPSOID:
        if (check_size(s->half.x, "x half extent", err) < 0 ||
            check_size(s->half.y, "y half extent", err) < 0)
            return -1;
        return check_size(s->half.z, "z half extent", err);
    case COL_SHAPE3_CAPSULE:
    case COL_SHAPE3_CYLINDER:
    case COL_SHAPE3_CONE:
        if (check_size(s->radius, "radius", err) < 0)
            return -1;
        return check_size(s->half_height, "half height", err);
    case COL_SHAPE3_HULL:
        return s->hull ? 0 : mk_fail(err, MK_ERR_INVALID, "a hull shape without its hull");
    case COL_SHAPE3_COUNT:
        break;
    }
    return mk_fail(err, MK_ERR_INVALID, "unknown 3D shape type %d", (int)s->type);
}
