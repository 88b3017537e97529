/* A chain of segments (Box2D v3's chain shape): its build from the points a user drew, its
 * hierarchy over the segments, and the queries that walk it (boxes, collide, rays, casts),
 * each piece answered by segment2.c. A chain of 100,000 points is one shape: a query touches
 * only the leaves near it. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collide2_internal.h"
#include "level_internal.h"

static bool welds(mk_vec2 a, mk_vec2 b)
{
    return fabsf(a.x - b.x) < (float)COL_WELD_DISTANCE && fabsf(a.y - b.y) < (float)COL_WELD_DISTANCE;
}

static int check_point(const mk_vec2 *p, uint32_t i, mk_error *err)
{
    float c[2] = {p->x, p->y};
    for (int k = 0; k < 2; k++) {
        if (!isfinite(c[k]))
            return mk_fail(err, MK_ERR_INVALID, "points[%u].%c is not finite", i, "xy"[k]);
        if (fabsf(c[k]) > COL_LEVEL_MAX_COORD)
            return mk_fail(err, MK_ERR_INVALID, "points[%u].%c = %g m is past +-%g m", i, "xy"[k],
                           (double)c[k], (double)COL_LEVEL_MAX_COORD);
    }
    return 0;
}

col_chain_segment2 col_chain2_segment(const col_chain2 *c, uint32_t i)
{
    const mk_vec2 *p = c->points;
    uint32_t n = c->point_count;
    if (c->loop)
        return (col_chain_segment2){p[(i + n - 1) % n], p[i], p[(i + 1) % n], p[(i + 2) % n]};
    return (col_chain_segment2){p[i], p[i + 1], p[i + 2], p[i + 3]};
}

static col_box segment_box(const col_chain_segment2 *s)
{
    mk_vec2 lo = mk_v2_min(s->p1, s->p2), hi = mk_v2_max(s->p1, s->p2);
    return (col_box){{lo.x, lo.y, 0.0f}, {hi.x, hi.y, 0.0f}};
}

int col_chain2_build(const mk_vec2 *points, uint32_t n, bool loop, uint32_t max_points,
                     col_chain2 *out, mk_error *err)
{
    memset(out, 0, sizeof *out);
    uint32_t need = loop ? 3 : 4;
    const char *kind = loop ? "a loop" : "an open chain";
    if (n > max_points || n > COL_LEVEL_MAX_PIECES)
        return mk_fail(err, MK_ERR_INVALID, "points: %u points, more than the limit of %u", n,
                       max_points < COL_LEVEL_MAX_PIECES ? max_points : COL_LEVEL_MAX_PIECES);
    if (n < need || !points)
        return mk_fail(err, MK_ERR_INVALID, "points: %s needs at least %u points (got %u)", kind,
                       need, n);
    for (uint32_t i = 0; i < n; i++)
        if (check_point(&points[i], i, err) < 0)
            return -1;
    out->points = malloc((size_t)n * sizeof *out->points);
    if (!out->points)
        return mk_fail(err, MK_ERR_INVALID, "points: out of memory for %u points", n);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (kept > 0 && welds(points[i], out->points[kept - 1]))
            continue;
        out->points[kept++] = points[i];
    }
    if (loop && kept > 1 && welds(out->points[kept - 1], out->points[0]))
        kept--;
    out->welded = n - kept;
    if (kept < need) {
        col_chain2_free(out);
        return mk_fail(err, MK_ERR_INVALID,
                       "points: %u distinct points after welding repeats, %s needs %u", kept,
                       kind, need);
    }
    out->point_count = kept;
    out->loop = loop;
    out->segment_count = loop ? kept : kept - 3;
    uint32_t ns = out->segment_count;
    col_box *boxes = malloc((size_t)ns * sizeof *boxes);
    out->order = malloc((size_t)ns * sizeof *out->order);
    if (boxes)
        for (uint32_t i = 0; i < ns; i++) {
            col_chain_segment2 s = col_chain2_segment(out, i);
            boxes[i] = segment_box(&s);
        }
    if (!boxes || !out->order || col_bvh_build(&out->bvh, boxes, ns, out->order) < 0) {
        free(boxes);
        col_chain2_free(out);
        return mk_fail(err, MK_ERR_INVALID, "points: out of memory for %u segments", ns);
    }
    free(boxes);
    const col_bvh *t = &out->bvh;
    out->bounds = (col_aabb){mk_v2(0.5f * t->lo[0] + 0.5f * t->hi[0], 0.5f * t->lo[1] + 0.5f * t->hi[1]),
                             mk_v2(0.5f * t->hi[0] - 0.5f * t->lo[0], 0.5f * t->hi[1] - 0.5f * t->lo[1])};
    return 0;
}

void col_chain2_free(col_chain2 *c)
{
    free(c->points);
    free(c->order);
    col_bvh_free(&c->bvh);
    memset(c, 0, sizeof *c);
}

size_t col_chain2_bytes(const col_chain2 *c)
{
    return sizeof *c + (size_t)c->point_count * sizeof *c->points +
           (size_t)c->segment_count * sizeof *c->order +
           (size_t)c->bvh.node_count * sizeof *c->bvh.nodes;
}

/* ---- queries ---- */

static col_box box_of2(col_aabb a)
{
    mk_vec2 lo = col_aabb_min(a), hi = col_aabb_max(a);
    return (col_box){{lo.x, lo.y, 0.0f}, {hi.x, hi.y, 0.0f}};
}

/* A world box seen from the chain's frame: the box around it turned into that frame. */
static col_aabb to_chain_frame(col_aabb world, col_xf2 xc)
{
    col_rot2 r = col_rot(xc.angle);
    float ac = fabsf(r.c), as = fabsf(r.s);
    return (col_aabb){col_unrotate(r, mk_v2_sub(world.center, xc.p)),
                      mk_v2(ac * world.half.x + as * world.half.y,
                            as * world.half.x + ac * world.half.y)};
}

/* The segments whose boxes touch a box (chain frame), through the hierarchy. */
typedef struct candidates {
    const col_chain2 *c;
    col_box box;
    col_bvh_iter it;
} candidates;

static void candidates_init(candidates *cd, const col_chain2 *c, col_aabb box)
{
    cd->c = c;
    cd->box = box_of2(box);
    col_bvh_iter_init(&cd->it, &c->bvh, &cd->box);
}

static bool candidates_next(candidates *cd, uint32_t *i, col_chain_segment2 *s)
{
    uint32_t slot;
    while (col_bvh_iter_slot(&cd->it, &slot)) {
        *i = cd->c->order[slot];
        *s = col_chain2_segment(cd->c, *i);
        col_box sb = segment_box(s);
        if (col_box_overlap(&sb, &cd->box))
            return true;
    }
    return false;
}

uint32_t col_chain2_query(const col_chain2 *c, col_aabb box, uint32_t *out, uint32_t cap)
{
    candidates cd;
    candidates_init(&cd, c, box);
    uint32_t i, found = 0;
    col_chain_segment2 s;
    while (candidates_next(&cd, &i, &s)) {
        if (found < cap)
            out[found] = i;
        found++;
    }
    return found;
}

uint32_t col_chain2_collide(const col_chain2 *c, col_xf2 xc, const col_shape2 *b, col_xf2 xb,
                            float margin, col_child_manifold2 *out, uint32_t cap)
{
    col_aabb reach = to_chain_frame(col_shape_bounds(b, xb), xc);
    reach.half = mk_v2_add(reach.half, mk_v2(margin, margin));
    candidates cd;
    candidates_init(&cd, c, reach);
    uint32_t i, found = 0;
    col_chain_segment2 s;
    while (candidates_next(&cd, &i, &s)) {
        col_manifold2 m = col_collide_chain_segment2(&s, xc, b, xb, margin);
        if (m.count == 0 && !(m.distance <= margin))
            continue;
        if (found < cap)
            out[found] = (col_child_manifold2){i, m};
        found++;
    }
    return found;
}

/* The ray o + t d in the chain's frame, in double. */
static void ray_in_frame(col_xf2 xc, mk_vec2 from, mk_vec2 d, double o[3], double dl[3])
{
    double c = cos((double)xc.angle), s = sin((double)xc.angle);
    double rx = (double)from.x - xc.p.x, ry = (double)from.y - xc.p.y;
    o[0] = c * rx + s * ry;
    o[1] = -s * rx + c * ry;
    o[2] = 0.0;
    dl[0] = c * d.x + s * d.y;
    dl[1] = -s * d.x + c * d.y;
    dl[2] = 0.0;
}

col_ray_hit2 col_chain2_ray(const col_chain2 *c, col_xf2 xc, mk_vec2 from, mk_vec2 to,
                            uint32_t *segment)
{
    mk_vec2 d = mk_v2_sub(to, from);
    double o[3], dl[3], grow[3] = {0.0, 0.0, 0.0};
    ray_in_frame(xc, from, d, o, dl);
    col_bvh_ray r;
    col_bvh_ray_init(&r, &c->bvh, o, dl, grow, 1.0);
    uint32_t first, count, best = UINT32_MAX;
    double best_n[2] = {0.0, 0.0};
    while (col_bvh_ray_next(&r, &first, &count))
        for (uint32_t k = first; k < first + count; k++) {
            uint32_t i = c->order[k];
            col_chain_segment2 s = col_chain2_segment(c, i);
            double a[2] = {s.p1.x, s.p1.y}, b[2] = {s.p2.x, s.p2.y}, t, n[2];
            if (!col_segment_ray_d(a, b, o, dl, true, r.tmax, &t, n))
                continue;
            if (t < r.tmax || i < best) { /* t <= tmax: ties go to the lower index */
                r.tmax = t;
                best = i;
                best_n[0] = n[0];
                best_n[1] = n[1];
            }
        }
    if (best == UINT32_MAX)
        return (col_ray_hit2){.hit = false};
    if (segment)
        *segment = best;
    double cs = cos((double)xc.angle), sn = sin((double)xc.angle), t = r.tmax;
    return (col_ray_hit2){true, (float)t,
                          mk_v2((float)(from.x + t * d.x), (float)(from.y + t * d.y)),
                          mk_v2((float)(cs * best_n[0] - sn * best_n[1]),
                                (float)(sn * best_n[0] + cs * best_n[1]))};
}

col_ray_hit2 col_chain2_cast(const col_shape2 *a, col_xf2 xa, mk_vec2 translation,
                             const col_chain2 *c, col_xf2 xc, uint32_t *segment)
{
    return col_chain2_cast_beyond(a, xa, translation, c, xc, 0.0f, segment);
}

col_ray_hit2 col_chain2_cast_beyond(const col_shape2 *a, col_xf2 xa, mk_vec2 translation,
                                    const col_chain2 *c, col_xf2 xc, float skin,
                                    uint32_t *segment)
{
    col_aabb start = to_chain_frame(col_shape_bounds(a, xa), xc);
    double o[3], dl[3], grow[3] = {start.half.x, start.half.y, 0.0};
    ray_in_frame(xc, xa.p, translation, o, dl);
    /* The walk follows the swept box's centre, already in the chain's frame. */
    o[0] = start.center.x;
    o[1] = start.center.y;
    col_rot2 r = col_rot(xc.angle);
    mk_vec2 origin = col_unrotate(r, mk_v2_sub(xa.p, xc.p));
    col_bvh_ray walk;
    col_bvh_ray_init(&walk, &c->bvh, o, dl, grow, 1.0);
    col_ray_hit2 best = {.hit = false};
    uint32_t best_i = UINT32_MAX, first, count;
    while (col_bvh_ray_next(&walk, &first, &count))
        for (uint32_t k = first; k < first + count; k++) {
            uint32_t i = c->order[k];
            col_chain_segment2 s = col_chain2_segment(c, i);
            col_box sb = segment_box(&s);
            double lo[3] = {sb.lo[0], sb.lo[1], 0.0}, hi[3] = {sb.hi[0], sb.hi[1], 0.0};
            if (col_box_enter(lo, hi, o, dl, grow, walk.tmax) > walk.tmax)
                continue;
            /* Box2D's continuous rule: a segment with A's origin behind it is passed. */
            mk_vec2 e = mk_v2_sub(s.p2, s.p1);
            if (mk_v2_cross(mk_v2_sub(origin, s.p1), e) < 0.0f)
                continue;
            col_ray_hit2 h = col_cast_segment2_beyond(a, xa, translation,
                                                      (col_segment2){s.p1, s.p2}, xc, skin);
            if (!h.hit)
                continue;
            /* The normal by the ghosts' rule, as a contact's: a seam's corner met while
             * sliding along the chain gives the segment's normal, not the corner's. */
            mk_vec2 n = col_unrotate(r, h.normal);
            if (!col_chain_segment_normal(&s, &n))
                continue;
            h.normal = col_rotate(r, n);
            if (mk_v2_dot(h.normal, translation) >= 0.0f)
                continue; /* touched while moving along or away: nothing to stop */
            if (h.fraction < walk.tmax || (h.fraction == walk.tmax && i < best_i)) {
                walk.tmax = h.fraction;
                best = h;
                best_i = i;
            }
        }
    if (segment && best.hit)
        *segment = best_i;
    return best;
}
