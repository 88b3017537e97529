/* Shapes in the world and the table of collide functions indexed by shape pair (the layout of
 * Box2D v3's contact registers: one function per ordered pair, none of them allocating). */
#include <assert.h>
#include <stddef.h>

#include "collide2_internal.h"

col_aabb col_shape_bounds(const col_shape2 *s, col_xf2 xf)
{
    if (s->type == COL_SHAPE_BOX || s->type == COL_SHAPE_POLYGON)
        return col_shape_bounds_q(s, xf, mk_v2(cosf(xf.angle), sinf(xf.angle)));
    return col_shape_bounds_q(s, xf, mk_v2(1.0f, 0.0f));
}

col_aabb col_shape_bounds_q(const col_shape2 *s, col_xf2 xf, mk_vec2 q)
{
    switch (s->type) {
    case COL_SHAPE_AABB:
        return (col_aabb){xf.p, s->half};
    case COL_SHAPE_BOX: {
        col_rot2 r = {q.x, q.y};
        float c = fabsf(r.c), sn = fabsf(r.s);
        return (col_aabb){xf.p, mk_v2(c * s->half.x + sn * s->half.y,
                                      sn * s->half.x + c * s->half.y)};
    }
    case COL_SHAPE_CIRCLE:
        return (col_aabb){xf.p, mk_v2(s->radius, s->radius)};
    case COL_SHAPE_POLYGON: {
        col_rot2 r = {q.x, q.y};
        const col_polygon *poly = s->polygon;
        mk_vec2 lo = col_rotate(r, poly->verts[0]), hi = lo;
        for (int i = 1; i < poly->count; i++) {
            mk_vec2 v = col_rotate(r, poly->verts[i]);
            lo = mk_v2_min(lo, v);
            hi = mk_v2_max(hi, v);
        }
        return (col_aabb){mk_v2_add(xf.p, mk_v2_scale(mk_v2_add(lo, hi), 0.5f)),
                          mk_v2_scale(mk_v2_sub(hi, lo), 0.5f)};
    }
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
    case COL_SHAPE_BOX:
        return 4.0f * s->half.x * s->half.y;
    case COL_SHAPE_CIRCLE:
        return 3.14159265f * s->radius * s->radius;
    case COL_SHAPE_POLYGON:
        return s->polygon->area;
    case COL_SHAPE_COUNT:
        break;
    }
    assert(0 && "unknown shape type");
    return 0.0f;
}

col_manifold2 col_manifold_swap(col_manifold2 m)
{
    m.normal = mk_v2_neg(m.normal);
    for (int i = 0; i < m.count; i++)
        m.points[i].id ^= COL_ID_SWAPPED;
    return m;
}

/* ---- the table ---- */

static col_manifold2 collide_aabb_aabb(const col_shape2 *a, col_xf2 xa, const col_shape2 *b,
                                       col_xf2 xb)
{
    return col_collide_aabb((col_aabb){xa.p, a->half}, (col_aabb){xb.p, b->half});
}

static col_manifold2 collide_circle_polygon(const col_shape2 *a, col_xf2 xa, const col_shape2 *b,
                                            col_xf2 xb)
{
    return col_manifold_swap(col_collide_polygon_circle(b, xb, a, xa));
}

typedef col_manifold2 (*collide_fn)(const col_shape2 *, col_xf2, const col_shape2 *, col_xf2);

/* Rows are A's type, columns B's. aabb, box and polygon are all polygons to the separating
 * axis test; two AABBs keep the seed's Minkowski-difference box. */
static const collide_fn collide_table[COL_SHAPE_COUNT][COL_SHAPE_COUNT] = {
    [COL_SHAPE_AABB] = {collide_aabb_aabb, col_collide_polygons, col_collide_polygon_circle,
                        col_collide_polygons},
    [COL_SHAPE_BOX] = {col_collide_polygons, col_collide_polygons, col_collide_polygon_circle,
                       col_collide_polygons},
    [COL_SHAPE_CIRCLE] = {collide_circle_polygon, collide_circle_polygon, col_collide_circles,
                          collide_circle_polygon},
    [COL_SHAPE_POLYGON] = {col_collide_polygons, col_collide_polygons,
                           col_collide_polygon_circle, col_collide_polygons},
};

col_manifold2 col_collide2(const col_shape2 *a, col_xf2 xa, const col_shape2 *b, col_xf2 xb)
{
    assert(a->type < COL_SHAPE_COUNT && b->type < COL_SHAPE_COUNT);
    collide_fn fn = collide_table[a->type][b->type];
    assert(fn != NULL);
    return fn(a, xa, b, xb);
}

col_manifold2 col_collide2_near(const col_shape2 *a, col_xf2 xa, const col_shape2 *b, col_xf2 xb,
                                float margin)
{
    assert(a->type < COL_SHAPE_COUNT && b->type < COL_SHAPE_COUNT);
    collide_fn fn = collide_table[a->type][b->type];
    if (fn == col_collide_polygons)
        return col_collide_polygons_near(a, xa, col_shape_rot(a, xa), b, xb, col_shape_rot(b, xb),
                                         margin);
    return fn(a, xa, b, xb);
}

col_manifold2 col_collide2_near_q(const col_shape2 *a, col_xf2 xa, mk_vec2 qa, const col_shape2 *b,
                                  col_xf2 xb, mk_vec2 qb, float margin)
{
    assert(a->type < COL_SHAPE_COUNT && b->type < COL_SHAPE_COUNT);
    collide_fn fn = collide_table[a->type][b->type];
    if (fn != col_collide_polygons)
        return fn(a, xa, b, xb);
    /* An AABB never turns, whatever its body's angle. */
    col_rot2 ra = a->type == COL_SHAPE_AABB ? (col_rot2){1.0f, 0.0f} : (col_rot2){qa.x, qa.y};
    col_rot2 rb = b->type == COL_SHAPE_AABB ? (col_rot2){1.0f, 0.0f} : (col_rot2){qb.x, qb.y};
    return col_collide_polygons_near(a, xa, ra, b, xb, rb, margin);
}
