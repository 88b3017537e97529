/* AABB collision by the Minkowski difference, after the seed articles "2D Collisions with
 * Minkowski Differences" (corner form, penetration vector as the closest boundary point) and
 * "Simple AABB Collision Detection Using the Minkowski Difference" (center + extents form). */
#include <float.h>
#include <math.h>

#include "mink_collision.h"

col_aabb col_aabb_minkowski(col_aabb a, col_aabb b)
{
    /* top = a.top - b.bottom and bottom = a.bottom - b.top give a box of extents a.half + b.half
     * around a.center - b.center. */
    return (col_aabb){mk_v2_sub(a.center, b.center), mk_v2_add(a.half, b.half)};
}

bool col_aabb_contains_origin(col_aabb md)
{
    mk_vec2 lo = col_aabb_min(md), hi = col_aabb_max(md);
    return lo.x <= 0.0f && hi.x >= 0.0f && lo.y <= 0.0f && hi.y >= 0.0f;
}

mk_vec2 col_aabb_closest_boundary_point(col_aabb box, mk_vec2 p)
{
    mk_vec2 lo = col_aabb_min(box), hi = col_aabb_max(box);
    /* The shortest way out of a box is straight through one of its four sides. */
    float best = fabsf(p.x - lo.x);
    mk_vec2 out = mk_v2(lo.x, p.y);
    if (fabsf(hi.x - p.x) < best) {
        best = fabsf(hi.x - p.x);
        out = mk_v2(hi.x, p.y);
    }
    if (fabsf(hi.y - p.y) < best) {
        best = fabsf(hi.y - p.y);
        out = mk_v2(p.x, hi.y);
    }
    if (fabsf(lo.y - p.y) < best) {
        out = mk_v2(p.x, lo.y);
    }
    return out;
}

/* The gap between two separated boxes: the origin's closest point of their Minkowski
 * difference, q; B moved by q would touch A, so the normal from A toward B is -q / |q|. */
static float aabb_distance(col_aabb md, mk_vec2 *normal)
{
    mk_vec2 lo = col_aabb_min(md), hi = col_aabb_max(md);
    mk_vec2 q = mk_v2(mk_clampf(0.0f, lo.x, hi.x), mk_clampf(0.0f, lo.y, hi.y));
    float dist = mk_v2_len(q);
    *normal = mk_v2_scale(q, -1.0f / dist);
    return dist;
}

col_manifold2 col_collide_aabb(col_aabb a, col_aabb b)
{
    col_manifold2 m = {0};
    col_aabb md = col_aabb_minkowski(a, b);
    if (!col_aabb_contains_origin(md)) {
        m.distance = aabb_distance(md, &m.normal);
        return m;
    }
    mk_vec2 pen = col_aabb_closest_boundary_point(md, mk_v2(0.0f, 0.0f));
    /* pen lies on an axis; moving B by pen brings the origin onto the difference's boundary. */
    int axis = pen.x != 0.0f ? 0 : 1;
    float depth = axis == 0 ? fabsf(pen.x) : fabsf(pen.y);
    float sign;
    if (depth > 0.0f) {
        sign = (axis == 0 ? pen.x : pen.y) > 0.0f ? 1.0f : -1.0f;
    } else {
        /* Exactly touching: the origin is on the boundary and pen is zero. The touching side is
         * where the origin sits on the difference's boundary. */
        mk_vec2 lo = col_aabb_min(md), hi = col_aabb_max(md);
        if (lo.x == 0.0f || hi.x == 0.0f) {
            axis = 0;
            sign = hi.x == 0.0f ? 1.0f : -1.0f;
        } else {
            axis = 1;
            sign = hi.y == 0.0f ? 1.0f : -1.0f;
        }
    }
    m.normal = axis == 0 ? mk_v2(sign, 0.0f) : mk_v2(0.0f, sign);
    m.depth = depth;

    /* Contact points: the two ends of the overlap of the boxes along the contact face, midway
     * between A's face and B's face. */
    mk_vec2 amin = col_aabb_min(a), amax = col_aabb_max(a);
    mk_vec2 bmin = col_aabb_min(b), bmax = col_aabb_max(b);
    float face_a = axis == 0 ? (sign > 0 ? amax.x : amin.x) : (sign > 0 ? amax.y : amin.y);
    float face_b = axis == 0 ? (sign > 0 ? bmin.x : bmax.x) : (sign > 0 ? bmin.y : bmax.y);
    float mid = 0.5f * (face_a + face_b);
    float lo_a = axis == 0 ? amin.y : amin.x, hi_a = axis == 0 ? amax.y : amax.x;
    float lo_b = axis == 0 ? bmin.y : bmin.x, hi_b = axis == 0 ? bmax.y : bmax.x;
    float lo = mk_maxf(lo_a, lo_b), hi = mk_minf(hi_a, hi_b);
    /* Feature ids: which face carries the normal (axis and sign), and which box's edge bounds
     * each end of the overlap. They stay fixed while the same edges touch. */
    uint32_t face = (uint32_t)(axis * 2 + (sign > 0 ? 1 : 0)) << 4;
    uint32_t id_lo = face | (lo_a >= lo_b ? 0u : 1u);
    uint32_t id_hi = face | 2u | (hi_a <= hi_b ? 0u : 1u);
    float ends[2] = {lo, hi};
    uint32_t ids[2] = {id_lo, id_hi};
    int n = hi > lo ? 2 : 1;
    for (int i = 0; i < n; i++) {
        m.points[i].point = axis == 0 ? mk_v2(mid, ends[i]) : mk_v2(ends[i], mid);
        m.points[i].depth = depth;
        m.points[i].id = ids[i];
    }
    m.count = n;
    return m;
}
