/* Shapes in the world and the table of collide functions indexed by shape pair (the layout of
 * Box2D v3's contact registers: one function per ordered pair, none of them allocating). */
#include <assert.h>
#include <stddef.h>

#include "mink_collision.h"

col_aabb col_shape_bounds(const col_shape2 *s, col_xf2 xf)
{
    switch (s->type) {
    case COL_SHAPE_AABB:
        return (col_aabb){xf.p, s->half};
    case COL_SHAPE_COUNT:
        break;
    }
    assert(0 && "unknown shape type");
    return (col_aabb){xf.p, mk_v2(0.0f, 0.0f)};
}

float col_shape_area(const col_shape2 *s)
{
    switch (s->type) {
    case COL_SHAPE_AABB:
        return 4.0f * s->half.x * s->half.y;
    case COL_SHAPE_COUNT:
        break;
    }
    assert(0 && "unknown shape type");
    return 0.0f;
}

static col_manifold2 collide_aabb_aabb(const col_shape2 *a, col_xf2 xa, const col_shape2 *b,
                                       col_xf2 xb)
{
    return col_collide_aabb((col_aabb){xa.p, a->half}, (col_aabb){xb.p, b->half});
}

typedef col_manifold2 (*collide_fn)(const col_shape2 *, col_xf2, const col_shape2 *, col_xf2);

static const collide_fn collide_table[COL_SHAPE_COUNT][COL_SHAPE_COUNT] = {
    [COL_SHAPE_AABB][COL_SHAPE_AABB] = collide_aabb_aabb,
};

col_manifold2 col_collide2(const col_shape2 *a, col_xf2 xa, const col_shape2 *b, col_xf2 xb)
{
    assert(a->type < COL_SHAPE_COUNT && b->type < COL_SHAPE_COUNT);
    collide_fn fn = collide_table[a->type][b->type];
    assert(fn != NULL);
    return fn(a, xa, b, xb);
}
