/* Bodies by region: the bounds every body keeps between steps, and the queries that find the
 * bodies in a box through the broadphase (the statics' tree and the moving bodies' sorted
 * order) instead of looking at every body. Sweeps, ground snapping, wakes on removal and the
 * network's interest radius ask here.
 *
 * After each step every awake body's shape bounds are taken (shape_box) and its fat box is
 * grown over them where it moved out of it, as Box2D enlarges its proxies after the solve:
 * between steps every body lies inside its fat box, so a query over the fat boxes misses
 * none, and the next step's broadphase starts from these bounds instead of computing them
 * again. A 2D world's boxes are col_aabb3 with z = 0 and half.z = 0. */
#include <math.h>

#include "body_rules.h"
#include "broadphase.h"
#include "level.h"
#include "static_tree.h"
#include "world_internal.h"

static col_aabb3 from2(col_aabb b)
{
    return (col_aabb3){mk_v3(b.center.x, b.center.y, 0.0f), mk_v3(b.half.x, b.half.y, 0.0f)};
}

col_aabb3 sim_shape_bounds_now(const sim_world *w, uint32_t slot)
{
    const sim_body *b = &w->slots.bodies.at[slot];
    if (w->slots.levels > 0 && b->level) { /* the level pointer, in the body's last line */
        const sim_body3 *b3 = w->cfg.dim == 3 ? sim_part3(w, slot) : NULL;
        return sim_level_bounds(b->level, (col_xf2){b->pos, b->angle},
                                b3 ? (col_xf3){b3->pos, b3->rot} : (col_xf3){{0, 0, 0}, {0, 0, 0, 1}});
    }
    if (w->cfg.dim == 3)
        return sim_body_bounds3(sim_part3(w, slot));
    return from2(col_shape_bounds_q(&b->shape, (col_xf2){b->pos, b->angle}, sim_body_rot2(b)));
}

/* A fat box of a 3D world (is3) or a 2D one. The loops that store slots take is3 once: a
 * uint32_t store may change the world's int `dim` as far as the compiler knows. */
static col_aabb3 fat_box(const sim_world *w, bool is3, uint32_t slot)
{
    if (is3)
        return w->d3.bounds.at[slot];
    return from2(w->d2.bounds.at[slot]);
}

col_aabb3 sim_fat_box(const sim_world *w, uint32_t slot)
{
    return fat_box(w, w->cfg.dim == 3, slot);
}

static float fat_min_x(const sim_world *w, bool is3, uint32_t slot)
{
    if (is3) {
        const col_aabb3 *b = &w->d3.bounds.at[slot];
        return b->center.x - b->half.x;
    }
    const col_aabb *b = &w->d2.bounds.at[slot];
    return b->center.x - b->half.x;
}

/* Sets a body's fat box to its shape bounds grown by `margin` on every axis (none on z in 2D),
 * and its tight bounds to the shape's own. */
void sim_set_fat_box(sim_world *w, uint32_t slot, col_aabb3 shape, float margin)
{
    if (w->cfg.dim == 3) {
        col_aabb3 fat = {shape.center, mk_v3_add(shape.half, mk_v3(margin, margin, margin))};
        w->d3.bounds.at[slot] = fat;
        w->d3.tight.at[slot] = shape;
    } else {
        col_aabb fat = {mk_v2(shape.center.x, shape.center.y),
                        mk_v2(shape.half.x + margin, shape.half.y + margin)};
        w->d2.bounds.at[slot] = fat;
        w->d2.tight.at[slot] = (col_aabb){fat.center, mk_v2(shape.half.x, shape.half.y)};
    }
    if (shape.half.x + margin > w->broad.fat_half_max)
        w->broad.fat_half_max = shape.half.x + margin;
}

void sim_order_sort(sim_world *w)
{
    uint32_t *order = w->broad.order.at;
    size_t n = w->broad.order.v.len;
    bool is3 = w->cfg.dim == 3;
    float widest = 0.0f;
    for (size_t i = 0; i < n; i++) {
        uint32_t s = order[i];
        float key = fat_min_x(w, is3, s);
        size_t j = i;
        while (j > 0 && fat_min_x(w, is3, order[j - 1]) > key) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = s;
        float half = fat_box(w, is3, s).half.x;
        widest = half > widest ? half : widest;
    }
    w->broad.fat_half_max = widest;
    w->broad.order_unsorted = false;
}

bool sim_statics_refresh(sim_world *w)
{
    if (!w->broad.statics_dirty)
        return true;
    if (!sim_tree_build(&w->broad.tree, w->broad.statics.at, w->broad.statics.v.len,
                        w->broad.shape_box.at))
        return false;
    w->broad.statics_dirty = false;
    return true;
}

size_t sim_order_lower_bound(const sim_world *w, float x)
{
    const uint32_t *order = w->broad.order.at;
    size_t lo = 0, hi = w->broad.order.v.len;
    bool is3 = w->cfg.dim == 3;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (fat_min_x(w, is3, order[mid]) < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool sim_query_statics(sim_world *w, const col_aabb3 *box)
{
    w->broad.hits.v.len = 0;
    return sim_statics_refresh(w) &&
           sim_tree_query(&w->broad.tree, w->broad.shape_box.at, box, &w->broad.hits.v);
}

bool sim_query_box(sim_world *w, const col_aabb3 *box, bool with_statics)
{
    w->broad.hits.v.len = 0;
    if (with_statics && !sim_query_statics(w, box))
        return false;
    if (w->broad.order_unsorted)
        sim_order_sort(w);
    /* A fat box that reaches box on x starts at most two of the widest half widths left of
     * it: the bodies from there to the box's right edge are the only ones to test. */
    const uint32_t *order = w->broad.order.at;
    bool is3 = w->cfg.dim == 3;
    float left = box->center.x - box->half.x - 2.0f * w->broad.fat_half_max;
    float right = box->center.x + box->half.x;
    for (size_t i = sim_order_lower_bound(w, left); i < w->broad.order.v.len; i++) {
        uint32_t s = order[i];
        if (fat_min_x(w, is3, s) > right)
            break;
        col_aabb3 fat = fat_box(w, is3, s);
        if (w->slots.bodies.at[s].id != 0 && sim_aabb3_overlap(&fat, box) &&
            !MK_VEC_PUSH(&w->broad.hits, s))
            return false;
    }
    return true;
}

#define SIM_BOUNDS_GRAIN 512 /* movers a block of the workers' pass */

/* Movers [begin, end): takes the shape bounds of each awake one and marks (moved_mark) those
 * whose fat box no longer holds them. */
static void after_step_range(void *ctx, size_t begin, size_t end)
{
    sim_world *w = ctx;
    col_aabb3 *shape_box = w->broad.shape_box.at;
    const uint32_t *movers = w->broad.movers.at;
    uint8_t *mark = w->broad.moved_mark.at;
    for (size_t i = begin; i < end; i++) {
        uint32_t s = movers[i];
        if (w->slots.bodies.at[s].sleeping)
            continue; /* it has not moved since its bounds were taken */
        col_aabb3 box = sim_shape_bounds_now(w, s);
        shape_box[s] = box;
        col_aabb3 fat = sim_fat_box(w, s);
        mark[s] = !sim_aabb3_contains(&fat, &box);
    }
}

void sim_bounds_after_step(sim_world *w)
{
    sim_pool_for(w->pool, w->broad.movers.v.len, SIM_BOUNDS_GRAIN, after_step_range, w);
    const uint32_t *movers = w->broad.movers.at;
    uint8_t *mark = w->broad.moved_mark.at;
    for (size_t i = 0; i < w->broad.movers.v.len; i++) {
        uint32_t s = movers[i];
        if (!mark[s])
            continue;
        mark[s] = 0;
        /* The solver sped it past what the broadphase allowed for: its fat box follows, and
         * its pairs are looked up again at the next step (the move buffer). */
        sim_set_fat_box(w, s, w->broad.shape_box.at[s], SIM_FAT_MARGIN);
        w->broad.order_unsorted = true;
        if (!MK_VEC_PUSH(&w->broad.moved, s))
            w->broad.pairs_dirty = true; /* out of memory: the list is made anew */
    }
}

/* Distance from c to the box, squared, within r on each axis tested first (most bodies of a
 * wide world are out on x alone). */
static bool box_within(const col_aabb3 *box, mk_vec3 c, float r)
{
    float dx = fabsf(c.x - box->center.x) - box->half.x;
    if (dx > r)
        return false;
    float dy = fabsf(c.y - box->center.y) - box->half.y;
    if (dy > r)
        return false;
    float dz = fabsf(c.z - box->center.z) - box->half.z;
    if (dz > r)
        return false;
    dx = dx > 0.0f ? dx : 0.0f;
    dy = dy > 0.0f ? dy : 0.0f;
    dz = dz > 0.0f ? dz : 0.0f;
    return dx * dx + dy * dy + dz * dz <= r * r;
}

bool sim_world_bodies_near(sim_world *w, mk_vec3 centre, float radius, const uint32_t **slots,
                           size_t *count)
{
    if (w->cfg.dim != 3)
        centre.z = 0.0f;
    col_aabb3 box = {centre, mk_v3(radius, radius, w->cfg.dim == 3 ? radius : 0.0f)};
    *slots = NULL;
    *count = 0;
    size_t words = (sim_slot_count(w) + 63) / 64;
    if (!mk_vec_reserve(&w->broad.near_bits.v, words) || !sim_query_box(w, &box, true))
        return false;
    if (w->broad.near_bits.v.len < words) { /* new words start empty, and are left empty */
        uint64_t *bits = w->broad.near_bits.at;
        for (size_t i = w->broad.near_bits.v.len; i < words; i++)
            bits[i] = 0;
        w->broad.near_bits.v.len = words;
    }
    /* The hits within the radius, put in slot order through a bitset of the slots: O(hits
     * plus slots / 64), where a sort would cost O(hits log hits). */
    uint32_t *hits = w->broad.hits.at;
    uint64_t *bits = w->broad.near_bits.at;
    const col_aabb3 *shape_box = w->broad.shape_box.at;
    size_t lo = SIZE_MAX, hi = 0;
    for (size_t i = 0; i < w->broad.hits.v.len; i++) {
        uint32_t s = hits[i];
        if (w->slots.bodies.at[s].id == 0 || !box_within(&shape_box[s], centre, radius))
            continue;
        bits[s >> 6] |= (uint64_t)1 << (s & 63);
        lo = s >> 6 < lo ? s >> 6 : lo;
        hi = s >> 6 > hi ? s >> 6 : hi;
    }
    size_t n = 0;
    for (size_t i = lo; i <= hi && lo != SIZE_MAX; i++) {
        for (uint64_t word = bits[i]; word; word &= word - 1)
            hits[n++] = (uint32_t)(i * 64 + (size_t)__builtin_ctzll(word));
        bits[i] = 0;
    }
    w->broad.hits.v.len = n;
    *slots = hits;
    *count = n;
    return true;
}

bool sim_static_pairs(sim_world *w)
{
    if (!sim_statics_refresh(w))
        return false;
    const uint32_t *order = w->broad.order.at;
    for (size_t i = 0; i < w->broad.order.v.len; i++) {
        uint32_t s = order[i];
        const sim_body *b = &w->slots.bodies.at[s];
        if (b->sleeping || sim_kind_fixed(b->kind)) /* at rest, or a pair of fixed bodies */
            continue;
        col_aabb3 fat = sim_fat_box(w, s);
        w->broad.hits.v.len = 0;
        if (!sim_tree_query(&w->broad.tree, w->broad.shape_box.at, &fat, &w->broad.hits.v))
            return false;
        const uint32_t *hits = w->broad.hits.at;
        for (size_t k = 0; k < w->broad.hits.v.len; k++) {
            sim_pair p = {.a = hits[k], .b = s};
            bool collides = sim_pair_collides(w, hits[k], s) &&
                            sim_joint_pair_collides(&w->joints, hits[k], s);
            if (collides && !mk_vec_push(&w->broad.pairs.v, &p))
                return false;
        }
    }
    return true;
}
