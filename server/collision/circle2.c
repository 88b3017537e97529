/* Circles against circles and against polygons (aabb, box, polygon).
 *
 * The Minkowski difference of a polygon and a circle is the polygon grown by the radius, so
 * everything reduces to the circle's centre against the polygon: inside, the nearest face
 * (the one of largest separation) gives the minimum translation exactly; outside, the closest
 * point of the polygon to the centre lies on the face of largest separation or at one of its
 * two ends, which gives the exact distance (the vertex regions of Box2D's
 * b2CollidePolygonAndCircle). */
#include <float.h>
#include <math.h>

#include "collide2_internal.h"

/* Feature ids: the polygon's face or vertex that touches the circle. */
#define ID_FACE 0x100u
#define ID_VERTEX 0x200u

/* One contact between surface points pa (on A) and pb (on B) along normal n (A -> B) with
 * signed gap `gap`: a hit when gap <= 0. */
static col_manifold2 single_contact(mk_vec2 pa, mk_vec2 pb, mk_vec2 n, float gap, uint32_t id)
{
    col_manifold2 m = {0};
    m.normal = n;
    if (gap > 0.0f) {
        m.distance = gap;
        return m;
    }
    m.count = 1;
    m.depth = -gap;
    m.points[0].point = mk_v2_scale(mk_v2_add(pa, pb), 0.5f);
    m.points[0].depth = -gap;
    m.points[0].id = id;
    return m;
}

col_manifold2 col_collide_circles(const col_shape2 *a, col_xf2 xa, const col_shape2 *b,
                                  col_xf2 xb)
{
    mk_vec2 d = mk_v2_sub(xb.p, xa.p);
    float dist = mk_v2_len(d);
    /* Concentric circles have no preferred direction; up is as good as any. */
    mk_vec2 n = dist > 0.0f ? mk_v2_scale(d, 1.0f / dist) : mk_v2(0.0f, 1.0f);
    mk_vec2 pa = mk_v2_mad(xa.p, a->radius, n);
    mk_vec2 pb = mk_v2_mad(xb.p, -b->radius, n);
    return single_contact(pa, pb, n, dist - a->radius - b->radius, 0);
}

col_manifold2 col_collide_polygon_circle(const col_shape2 *a, col_xf2 xa, const col_shape2 *b,
                                         col_xf2 xb)
{
    col_rot2 ra = col_shape_rot(a, xa);
    col_poly_view pa;
    col_view_local(a, &pa);
    /* The circle's centre in the polygon's frame. */
    mk_vec2 c = col_unrotate(ra, mk_v2_sub(xb.p, xa.p));
    float r = b->radius;

    float sep = -FLT_MAX;
    int face = 0;
    for (int i = 0; i < pa.count; i++) {
        float s = mk_v2_dot(pa.n[i], mk_v2_sub(c, pa.v[i]));
        if (s > sep) {
            sep = s;
            face = i;
        }
    }
    int f1 = (face + 1) % pa.count;
    mk_vec2 v0 = pa.v[face], v1 = pa.v[f1];

    mk_vec2 n, on_a;
    float gap;
    uint32_t id;
    /* Outside and beyond one end of the face: that vertex is the closest point. */
    int corner = -1;
    if (sep > 0.0f && mk_v2_dot(mk_v2_sub(c, v0), mk_v2_sub(v1, v0)) < 0.0f)
        corner = face;
    else if (sep > 0.0f && mk_v2_dot(mk_v2_sub(c, v1), mk_v2_sub(v0, v1)) < 0.0f)
        corner = f1;
    if (corner >= 0) {
        on_a = pa.v[corner];
        mk_vec2 d = mk_v2_sub(c, on_a);
        float len = mk_v2_len(d);
        n = mk_v2_scale(d, 1.0f / len);
        gap = len - r;
        id = ID_VERTEX | (uint32_t)corner;
    } else {
        /* Over the face, inside or out: the face itself is nearest. */
        n = pa.n[face];
        on_a = mk_v2_mad(c, -sep, n);
        gap = sep - r;
        id = ID_FACE | (uint32_t)face;
    }
    col_manifold2 m = single_contact(on_a, mk_v2_mad(c, -r, n), n, gap, id);
    col_manifold_to_world(&m, xa.p, ra);
    return m;
}
