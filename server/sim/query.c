/* World queries: rays, shape casts and overlaps against the bodies, now or at a past tick.
 *
 * The candidates come from the broadphase, never from a scan: the box the query covers (the
 * segment's bounds, the cast shape's swept bounds, the shape's bounds) goes through the
 * statics' tree and the moving bodies' order on x (sim_query_box); at a past tick the bodies
 * that have not moved since come from there too, and the others from the history (history.c:
 * its records from that tick on), where they were then. Each candidate's own bounds are tested against the segment (the slab test of Kay
 * and Kajiya), and a first-hit ray tests the shapes in order of where the segment enters
 * their bounds, stopping once that is past the nearest hit. Bounds decide only whether the
 * exact test runs, so every bound is rounded outward: the boxes are grown by more than the
 * float rounding they carry and the slab test's own (BOUNDS_SLACK), and the query's box is
 * rounded outward from the segment's ends. The exact answers are the
 * collision library's (col_ray2/3, col_cast2/3, col_collide2/3: the same narrowphase as the
 * stateless `query`). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "broadphase.h"
#include "history.h"
#include "level.h"

/* Whether the filter admits a body: never a sensor (a query passes through it), and only one
 * of the kinds, out of the ignored ids and with a category that meets the mask. */
static bool wanted(const sim_query_filter *f, const sim_qbody *q)
{
    if (q->sensor)
        return false;
    if (!f)
        return true;
    if ((f->kinds && !(f->kinds & (1u << q->kind))) || (f->mask && !(f->mask & q->category)))
        return false;
    for (size_t i = 0; i < f->ignore_count; i++)
        if (f->ignore[i] == q->id)
            return false;
    return true;
}

/* A body now: its bounds are those taken after the last step (region.c), which it has not
 * left since. */
static sim_qbody live_body(const sim_world *w, uint32_t slot)
{
    const sim_body *b = &w->slots.bodies.at[slot];
    col_aabb3 box = w->broad.shape_box.at[slot];
    const sim_slot_filter *f = &w->filter.slots.at[slot];
    if (w->cfg.dim == 3) {
        const sim_body3 *b3 = sim_part3(w, slot);
        return (sim_qbody){b->id, b->kind, f->f.category, f->sensor, NULL, {{0, 0}, 0},
                           &b3->shape, {b3->pos, b3->rot}, b->level, box, 0.0f};
    }
    return (sim_qbody){b->id, b->kind, f->f.category, f->sensor, &b->shape, {b->pos, b->angle},
                       NULL, {{0, 0, 0}, {0, 0, 0, 1}}, b->level, box, 0.0f};
}

/* 2^-19: a float bound carries a few roundings of 2^-24 of its coordinates' size (the shape's
 * bounds rounded to float centre and half extents, the 3D ones taken through the quaternion's
 * matrix where a ray turns by the unit rotation, a fat box holding them as float arithmetic
 * decides, the order's cut-off on x a float sum); growing it by 2^-19 of that size covers 16
 * or more. */
#define BOUNDS_SLACK 0x1p-19

static double abs_max3(mk_vec3 v) { return fmax(fabs(v.x), fmax(fabs(v.y), fabs(v.z))); }

/* x rounded to a float no smaller than it. */
static float float_up(double x)
{
    float f = (float)x;
    return (double)f < x ? nextafterf(f, INFINITY) : f;
}

/* A float box grown by `by` on every axis, its half extents rounded up. */
static col_aabb3 grown(col_aabb3 b, double by)
{
    return (col_aabb3){b.center, mk_v3(float_up((double)b.half.x + by),
                                       float_up((double)b.half.y + by),
                                       float_up((double)b.half.z + by))};
}

/* The box from lo to hi as a float centre and half extents whose c - h and c + h, however
 * rounded, are outside [lo, hi]. */
static col_aabb3 box_of(const double lo[3], const double hi[3])
{
    float c[3], h[3];
    for (int k = 0; k < 3; k++) {
        c[k] = (float)(0.5 * (lo[k] + hi[k]));
        h[k] = float_up(fmax(hi[k] - c[k], c[k] - lo[k]));
    }
    return (col_aabb3){mk_v3(c[0], c[1], c[2]), mk_v3(h[0], h[1], h[2])};
}

/* The size of the world's float bounds, m, what their rounding is relative to: the statics'
 * tree's root, the box moving bodies are kept within (config bounds) and the widest of them
 * (`widest`, a half width). */
static double world_size(const sim_world *w, double widest)
{
    double size = (double)w->cfg.bounds + 2.0 * fmax((double)w->broad.fat_half_max, widest);
    if (w->broad.tree.nodes.v.len > 0) {
        const sim_tree_node *root = w->broad.tree.nodes.at;
        size = fmax(size, abs_max3(root->box.center) + abs_max3(root->box.half));
    }
    return size;
}

/* A segment a query moves along: from `from` by `d`, a box of half extents `grow` swept along
 * it (zero for a ray), `slack` the rounding of that box (0 for a ray, whose ends are exact);
 * `size` the largest |from|; `inv` and `abs_inv` 1 / d and its size per axis, 1e30 where
 * |d| < 1e-30 (see slab_enter); `axes` 2 in a 2D world, whose z is 0 everywhere. A body whose
 * bounds the swept box never enters is no candidate. */
typedef struct sweep_path {
    float from[3], inv[3], abs_inv[3];
    mk_vec3 grow;
    float slack, size;
    int axes;
} sweep_path;

static sweep_path path_of(const sim_world *w, mk_vec3 from, const double d[3], mk_vec3 grow,
                          float slack)
{
    sweep_path p = {{from.x, from.y, from.z}, {0, 0, 0}, {0, 0, 0}, grow, slack,
                    (float)abs_max3(from), w->cfg.dim == 3 ? 3 : 2};
    for (int k = 0; k < 3; k++) {
        p.inv[k] = fabs(d[k]) >= 1e-30 ? (float)(1.0 / d[k]) : 1e30f;
        p.abs_inv[k] = fabsf(p.inv[k]);
    }
    return p;
}

/* Where the path enters the body's bounds, or false: the slab test of Kay and Kajiya about
 * each slab's centre (along axis k the path is within e of c for t in (c - from) / d -+
 * e / |d|), in float, the bounds grown by the path's box and by `slack`: BOUNDS_SLACK of the
 * coordinates' sizes covers both boxes' rounding and this test's own (about three roundings
 * of 2^-24 of |c - from| + e, each way), so that the interval found holds the true one and
 * its start is no later than where the path enters the shape. Where |d| < 1e-30, 1e30 stands
 * for 1 / d: the interval is then all of [0, 1] or lies wholly outside it, as from is within
 * e of c or not (a product past the float range, for sizes beyond 1e8 m, leaves the axis
 * unconstrained, or rejects a box that from is truly outside). Each body in a long ray's box
 * comes here: this is the query's inner loop, without a branch or a division per axis. */
static bool slab_enter(const col_aabb3 *b, const sweep_path *p, float *enter)
{
    const float c[3] = {b->center.x, b->center.y, b->center.z};
    const float e[3] = {b->half.x + p->grow.x, b->half.y + p->grow.y, b->half.z + p->grow.z};
    float slack = (float)BOUNDS_SLACK * (fabsf(c[0]) + fabsf(c[1]) + fabsf(c[2]) + e[0] + e[1] +
                                         e[2] + p->size) +
                  p->slack;
    float lo = 0.0f, hi = 1.0f;
    for (int k = 0; k < p->axes; k++) {
        float mid = (c[k] - p->from[k]) * p->inv[k], reach = (e[k] + slack) * p->abs_inv[k];
        float t0 = mid - reach, t1 = mid + reach;
        lo = t0 > lo ? t0 : lo;
        hi = t1 < hi ? t1 : hi;
    }
    *enter = lo;
    return lo <= hi;
}

/* Whether the path enters the body's bounds, and where (q->enter). */
static bool on_path(const sweep_path *p, sim_qbody *q)
{
    if (!p)
        return true;
    return slab_enter(&q->box, p, &q->enter);
}

/* The bodies whose bounds may meet `query` at tick t, filtered, into the candidates. The
 * box is first grown by the rounding of the bounds it is tested against. */
static mk_vec *gather(sim_world *w, uint64_t t, const col_aabb3 *query, const sim_query_filter *f,
                      const sweep_path *path, int *rc)
{
    sim_history *h = sim_history_of(w);
    *rc = SIM_QUERY_NOMEM;
    if (!h || !sim_statics_refresh(w))
        return NULL;
    double size = abs_max3(query->center) + abs_max3(query->half);
    col_aabb3 grown_box = grown(*query, BOUNDS_SLACK * (size + world_size(w, 0.0)));
    const col_aabb3 *box = &grown_box;
    mk_vec *out = sim_history_candidates(h);
    out->len = 0;
    bool now = t == w->tick;
    if (!now) {
        if (t > w->tick || t < sim_world_history_oldest(w)) {
            *rc = SIM_QUERY_NO_HISTORY;
            return NULL;
        }
        /* A body of then may be wider than any now. */
        grown_box = grown(*query, BOUNDS_SLACK * (size + world_size(w, sim_history_widest(h))));
    }
    /* Now, every body of the broadphase; at a past tick those that have not moved since t
     * (the statics, less those added since t, and the moving bodies with no record from t on)
     * are where they are now, and the history has the rest (removed ones too). */
    if (!sim_query_box(w, box, true))
        return NULL;
    const uint32_t *hits = w->broad.hits.at;
    for (size_t i = 0; i < w->broad.hits.v.len; i++) {
        uint32_t s = hits[i];
        if (w->slots.bodies.at[s].id == 0 ||
            (!now && (!sim_history_born_by(w, s, t) || !sim_history_still_since(w, s, t))))
            continue;
        sim_qbody q = live_body(w, s);
        if (wanted(f, &q) && on_path(path, &q) && !mk_vec_push(out, &q))
            return NULL;
    }
    if (now) {
        *rc = 0;
        return out;
    }
    size_t from = out->len;
    if (!sim_history_bodies_at(w, t, box, out))
        return NULL;
    sim_qbody *qs = out->data;
    size_t kept = from;
    for (size_t i = from; i < out->len; i++)
        if (wanted(f, &qs[i]) && on_path(path, &qs[i]))
            qs[kept++] = qs[i];
    out->len = kept;
    *rc = 0;
    return out;
}

/* The candidates along a path (gather), in order of where it enters their bounds. */
typedef struct path_candidates {
    const sim_qbody *qs;
    const sim_sort_key *keys; /* into qs, by where the path enters their bounds (the history's) */
    size_t n;
    int rc; /* 0, or the query's failure (then n is 0) */
} path_candidates;

static path_candidates along_path(sim_world *w, uint64_t t, const col_aabb3 *box,
                                  const sim_query_filter *f, const sweep_path *path)
{
    path_candidates c = {NULL, NULL, 0, 0};
    const mk_vec *cand = gather(w, t, box, f, path, &c.rc);
    if (!cand)
        return c;
    mk_vec *kv = sim_history_keys(w->history);
    if (!mk_vec_resize(kv, cand->len)) {
        c.rc = SIM_QUERY_NOMEM;
        return c;
    }
    const sim_qbody *qs = cand->data;
    sim_sort_key *k = kv->data;
    for (size_t i = 0; i < cand->len; i++)
        k[i] = (sim_sort_key){qs[i].enter, (uint32_t)i};
    sim_sort_keys(k, cand->len);
    return (path_candidates){qs, k, cand->len, 0};
}

static int by_fraction(const void *a, const void *b)
{
    const sim_hit *p = a, *q = b;
    if (p->fraction != q->fraction)
        return p->fraction < q->fraction ? -1 : 1;
    return p->id < q->id ? -1 : p->id > q->id;
}

/* ---- level bodies: the exact answers on their pieces (the collision library's level
 * queries), as the step meets them: a triangle's front alone, a chain segment's right side. ---- */

static col_ray_hit2 level_ray2(const sim_qbody *q, mk_vec2 from, mk_vec2 to)
{
    const sim_level *l = q->level;
    if (l->kind == SIM_LEVEL_CHAIN)
        return col_chain2_ray(&l->chain, q->x2, from, to, NULL);
    return col_ray_segment2(l->segment, q->x2, from, to, false);
}

static col_ray_hit2 level_cast2(const sim_qbody *q, const sim_query_shape *s, mk_vec2 move)
{
    const sim_level *l = q->level;
    if (l->kind == SIM_LEVEL_CHAIN)
        return col_chain2_cast(&s->shape2, s->xf2, move, &l->chain, q->x2, NULL);
    return col_cast_segment2(&s->shape2, s->xf2, move, l->segment, q->x2);
}

#define LEVEL_OVERLAP_PIECES 64 /* pieces an overlap looks at for the deepest */

/* The query shape against the level: the deepest piece it overlaps, normal from the shape
 * toward the level (count 0 when it overlaps none). */
static col_manifold2 level_overlap2(const sim_qbody *q, const sim_query_shape *s)
{
    const sim_level *l = q->level;
    col_manifold2 best = {.count = 0};
    col_child_manifold2 pieces[LEVEL_OVERLAP_PIECES];
    uint32_t n = 0;
    if (l->kind == SIM_LEVEL_CHAIN) {
        n = col_chain2_collide(&l->chain, q->x2, &s->shape2, s->xf2, 0.0f, pieces,
                               LEVEL_OVERLAP_PIECES);
    } else {
        pieces[0].m = col_collide_segment2(l->segment, q->x2, &s->shape2, s->xf2, 0.0f);
        n = 1;
    }
    for (uint32_t i = 0; i < n && i < LEVEL_OVERLAP_PIECES; i++)
        if (pieces[i].m.count > 0 && (best.count == 0 || pieces[i].m.depth > best.depth))
            best = pieces[i].m;
    best.normal = mk_v2_neg(best.normal);
    return best;
}

static col_manifold3 level_overlap3(const sim_qbody *q, const sim_query_shape *s)
{
    col_manifold3 best = {.count = 0};
    col_child_manifold3 pieces[LEVEL_OVERLAP_PIECES];
    col_tri_contact3 how = {0.0f, COL_BACK_FACES_IGNORE, {0, 0, 0}, 0.0f, false};
    uint32_t n = col_level3_collide(sim_level_3d(q->level), q->x3, &s->shape3, s->xf3, &how,
                                    pieces, LEVEL_OVERLAP_PIECES);
    for (uint32_t i = 0; i < n && i < LEVEL_OVERLAP_PIECES; i++)
        if (pieces[i].m.count > 0 && (best.count == 0 || pieces[i].m.depth > best.depth))
            best = pieces[i].m;
    best.normal = mk_v3_neg(best.normal);
    return best;
}

static bool ray_body(const sim_qbody *q, mk_vec3 from, mk_vec3 to, sim_hit *out)
{
    if (q->level && q->s3) {
        col_ray_hit3 r = col_level3_ray(sim_level_3d(q->level), q->x3, from, to,
                                        COL_BACK_FACES_IGNORE, NULL);
        if (!r.hit)
            return false;
        *out = (sim_hit){.id = q->id, .fraction = r.fraction, .point = r.point,
                         .normal = r.normal};
        return true;
    }
    if (q->s3) {
        col_ray_hit3 r = col_ray3(q->s3, q->x3, from, to);
        if (!r.hit)
            return false;
        *out = (sim_hit){.id = q->id, .fraction = r.fraction, .point = r.point,
                         .normal = r.normal};
        return true;
    }
    col_ray_hit2 r = q->level ? level_ray2(q, mk_v2(from.x, from.y), mk_v2(to.x, to.y))
                              : col_ray2(q->s2, q->x2, mk_v2(from.x, from.y), mk_v2(to.x, to.y));
    if (!r.hit)
        return false;
    *out = (sim_hit){.id = q->id, .fraction = r.fraction,
                     .point = mk_v3(r.point.x, r.point.y, 0),
                     .normal = mk_v3(r.normal.x, r.normal.y, 0)};
    return true;
}

int sim_world_raycast(sim_world *w, uint64_t at_tick, mk_vec3 from, mk_vec3 to,
                      const sim_query_filter *f, bool all, sim_hit *hits, size_t max,
                      size_t *total)
{
    if (w->cfg.dim != 3)
        from.z = to.z = 0.0f;
    *total = 0;
    /* The segment's ends are exact; its direction is to - from in double, as col_ray2/3's. */
    const double d[3] = {(double)to.x - from.x, (double)to.y - from.y, (double)to.z - from.z};
    sweep_path path = path_of(w, from, d, mk_v3(0, 0, 0), 0.0f);
    const double start[3] = {from.x, from.y, from.z};
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = fmin(start[k], start[k] + d[k]);
        hi[k] = fmax(start[k], start[k] + d[k]);
    }
    col_aabb3 box = box_of(lo, hi);
    path_candidates c = along_path(w, at_tick, &box, f, &path);
    if (c.n == 0)
        return c.rc;
    size_t n = 0;
    sim_hit best = {0};
    bool have = false;
    for (size_t i = 0; i < c.n; i++) {
        if (!all && have && c.keys[i].key > best.fraction)
            break; /* every later shape begins past the nearest hit */
        sim_hit hit;
        if (!ray_body(&c.qs[c.keys[i].index], from, to, &hit))
            continue;
        if (!all) {
            if (!have || by_fraction(&hit, &best) < 0)
                best = hit;
            have = true;
            continue;
        }
        if (n < max) {
            hits[n] = hit;
        } else if (max > 0) {
            /* Full: the nearest `max` are kept, the farthest kept one gives way. */
            size_t far = 0;
            for (size_t j = 1; j < max; j++)
                if (by_fraction(&hits[j], &hits[far]) > 0)
                    far = j;
            if (by_fraction(&hit, &hits[far]) < 0)
                hits[far] = hit;
        }
        n++;
    }
    if (!all) {
        if (have && max > 0)
            hits[0] = best;
        *total = have ? 1 : 0;
        return have && max > 0 ? 1 : 0;
    }
    *total = n;
    n = n < max ? n : max;
    qsort(hits, n, sizeof *hits, by_fraction);
    return (int)n;
}

/* The shape's bounds at the start and the end of a move, in 3D form. */
static col_aabb3 shape_bounds(const sim_world *w, const sim_query_shape *s, mk_vec3 move)
{
    col_aabb3 a;
    if (w->cfg.dim == 3) {
        a = col_shape3_bounds(&s->shape3, s->xf3);
    } else {
        col_aabb b = col_shape_bounds(&s->shape2, s->xf2);
        a = (col_aabb3){mk_v3(b.center.x, b.center.y, 0), mk_v3(b.half.x, b.half.y, 0)};
    }
    const double c[3] = {a.center.x, a.center.y, a.center.z}, h[3] = {a.half.x, a.half.y, a.half.z};
    const double m[3] = {move.x, move.y, move.z};
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = fmin(c[k] - h[k], c[k] - h[k] + m[k]);
        hi[k] = fmax(c[k] + h[k], c[k] + h[k] + m[k]);
    }
    return box_of(lo, hi);
}

int sim_world_cast(sim_world *w, uint64_t at_tick, const sim_query_shape *s, mk_vec3 translation,
                   const sim_query_filter *f, sim_hit *hit)
{
    if (w->cfg.dim != 3)
        translation.z = 0.0f;
    col_aabb3 box = shape_bounds(w, s, translation);
    /* The shape's bounds at its start swept along the translation: where they first meet a
     * body's bounds is a lower bound of where the shapes meet. */
    col_aabb3 start = shape_bounds(w, s, mk_v3(0, 0, 0));
    const double d[3] = {translation.x, translation.y, translation.z};
    sweep_path path =
        path_of(w, start.center, d, start.half,
                (float)(BOUNDS_SLACK * (abs_max3(start.center) + abs_max3(start.half))));
    path_candidates c = along_path(w, at_tick, &box, f, &path);
    if (c.n == 0)
        return c.rc;
    bool have = false;
    for (size_t j = 0; j < c.n; j++) {
        if (have && c.keys[j].key > hit->fraction)
            break; /* every later body's bounds are met past the nearest hit */
        const sim_qbody *q = &c.qs[c.keys[j].index];
        sim_hit h = {.id = q->id};
        if (q->s3) {
            col_ray_hit3 r =
                q->level ? col_level3_cast(&s->shape3, s->xf3, translation, sim_level_3d(q->level),
                                           q->x3, COL_BACK_FACES_IGNORE, NULL)
                         : col_cast3(&s->shape3, s->xf3, translation, q->s3, q->x3);
            if (!r.hit)
                continue;
            h.fraction = r.fraction;
            h.point = r.point;
            h.normal = r.normal;
        } else {
            mk_vec2 move = mk_v2(translation.x, translation.y);
            col_ray_hit2 r = q->level ? level_cast2(q, s, move)
                                      : col_cast2(&s->shape2, s->xf2, move, q->s2, q->x2);
            if (!r.hit)
                continue;
            h.fraction = r.fraction;
            h.point = mk_v3(r.point.x, r.point.y, 0);
            h.normal = mk_v3(r.normal.x, r.normal.y, 0);
        }
        if (!have || by_fraction(&h, hit) < 0)
            *hit = h;
        have = true;
    }
    return have ? 1 : 0;
}

static int by_id(const void *a, const void *b)
{
    const sim_hit *p = a, *q = b;
    return p->id < q->id ? -1 : p->id > q->id;
}

int sim_world_overlap(sim_world *w, uint64_t at_tick, const sim_query_shape *s,
                      const sim_query_filter *f, sim_hit *hits, size_t max, size_t *total)
{
    *total = 0;
    col_aabb3 box = shape_bounds(w, s, mk_v3(0, 0, 0));
    int rc;
    mk_vec *cand = gather(w, at_tick, &box, f, NULL, &rc);
    if (!cand)
        return rc;
    const sim_qbody *qs = cand->data;
    size_t n = 0;
    for (size_t i = 0; i < cand->len; i++) {
        sim_hit h = {.id = qs[i].id};
        if (qs[i].s3) {
            col_manifold3 m = qs[i].level ? level_overlap3(&qs[i], s)
                                           : col_collide3(&s->shape3, s->xf3, qs[i].s3, qs[i].x3);
            if (m.count == 0)
                continue;
            h.normal = m.normal;
            h.depth = m.depth;
            h.npoints = m.count;
            for (int p = 0; p < m.count; p++)
                h.points[p] = m.points[p].point;
        } else {
            col_manifold2 m = qs[i].level ? level_overlap2(&qs[i], s)
                                           : col_collide2(&s->shape2, s->xf2, qs[i].s2, qs[i].x2);
            if (m.count == 0)
                continue;
            h.normal = mk_v3(m.normal.x, m.normal.y, 0);
            h.depth = m.depth;
            h.npoints = m.count;
            for (int p = 0; p < m.count; p++)
                h.points[p] = mk_v3(m.points[p].point.x, m.points[p].point.y, 0);
        }
        if (n < max)
            hits[n] = h;
        n++;
    }
    *total = n;
    n = n < max ? n : max;
    qsort(hits, n, sizeof *hits, by_id);
    return (int)n;
}
