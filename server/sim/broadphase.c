/* Broadphase by sort and sweep on the x axis (Baraff's "sweep and prune", one axis): the bodies
 * that can move stay in an array sorted by the left edge of their fattened bounds; from one step to the next
 * the order barely changes, so insertion sort re-sorts it in near-linear time, and the sweep
 * only looks at bodies whose x intervals overlap.
 *
 * The fattened bounds persist, as Box2D's proxies do: each step a body's tight bounds (the
 * shape grown by half the speculative distance and by what it can move this step) are
 * checked against its fat bounds, which are only moved when the tight ones leave them. While
 * no fat bounds move and no body comes or goes, the pairs of the last step are still every
 * pair whose tight bounds can overlap, and the sort and the sweep are skipped: a resting pile
 * costs one containment test per body, and a sleeping one nothing at all.
 *
 * Static bodies are not in the sweep: they are in a tree of their own (static_tree.c), which
 * each awake body's fat box is looked up in, so a level of many static pieces is never sorted
 * or swept again, as Box2D keeps a static tree apart from its moving one. */
#include <math.h>

#include "body_rules.h"
#include "broadphase.h"
#include "world_internal.h"

static bool contains(const col_aabb *outer, const col_aabb *inner)
{
    return fabsf(inner->center.x - outer->center.x) + inner->half.x <= outer->half.x &&
           fabsf(inner->center.y - outer->center.y) + inner->half.y <= outer->half.y;
}

void sim_broadphase(sim_world *w, float dt, float g)
{
    col_aabb *bounds = w->bounds.data, *tight = w->tight.data;
    const col_aabb3 *shape_box = w->shape_box.data;
    const uint32_t *movers = w->movers.data;
    bool moved = w->pairs_dirty;

    for (size_t i = 0; i < w->movers.len; i++) {
        uint32_t s = movers[i];
        const sim_body *b = &w->bodies[s];
        if (b->sleeping) /* it does not move: its bounds stand */
            continue;
        /* The shape's bounds as the last step left them (region.c). */
        col_aabb box = {mk_v2(shape_box[s].center.x, shape_box[s].center.y),
                        mk_v2(shape_box[s].half.x, shape_box[s].half.y)};
        float grow = 0.5f * SIM_SPECULATIVE + (mk_v2_len(b->vel) + g * dt) * dt;
        box.half = mk_v2_add(box.half, mk_v2(grow, grow));
        tight[s] = box;
        if (!contains(&bounds[s], &box)) {
            box.half = mk_v2_add(box.half, mk_v2(SIM_FAT_MARGIN, SIM_FAT_MARGIN));
            bounds[s] = box;
            w->fat_half_max = mk_maxf(w->fat_half_max, box.half.x);
            moved = true;
        }
    }
    if (!moved)
        return;
    w->pairs_dirty = false;
    sim_order_sort(w);
    const uint32_t *order = w->order.data;
    size_t n = w->order.len;
    if (w->order.len == 0) { /* static bodies alone: no pair can move */
        w->pairs.len = 0;
        return;
    }

    /* The sweep reads the sorted bounds as four flat arrays: the inner loop touches nothing
     * else, so it runs through a tall pile's many x-overlaps quickly. */
    if (!sim_vec_reserve(&w->sweep, 4 * n))
        return; /* out of memory: no pairs this step */
    float *lox = w->sweep.data, *hix = lox + n, *loy = hix + n, *hiy = loy + n;
    for (size_t i = 0; i < n; i++) {
        const col_aabb *b = &bounds[order[i]];
        lox[i] = b->center.x - b->half.x;
        hix[i] = b->center.x + b->half.x;
        loy[i] = b->center.y - b->half.y;
        hiy[i] = b->center.y + b->half.y;
    }
    /* The pairs with static bodies first: the solver then works up from the ground. Those
     * are of awake bodies alone; a sleeper among the others is noted. */
    w->pairs.len = 0;
    w->pairs_sleeper = true; /* until the list is whole */
    if (!sim_static_pairs(w))
        return; /* out of memory: this step resolves the pairs it has */
    bool sleeper = false;
    for (size_t i = 0; i < n; i++) {
        float a_right = hix[i], a_low = loy[i], a_high = hiy[i];
        for (size_t j = i + 1; j < n && lox[j] <= a_right; j++) {
            if (loy[j] > a_high || a_low > hiy[j])
                continue;
            uint32_t sa = order[i], sb = order[j];
            /* A pair of resting bodies is not listed (a sleeping island keeps its contacts in
             * the cache); waking or sleeping changes the list. */
            const sim_body *a = &w->bodies[sa], *b = &w->bodies[sb];
            /* Kinematic bodies are never moved by contacts, so pairs of them do nothing. */
            if ((sim_kind_fixed(a->kind) && sim_kind_fixed(b->kind)) ||
                (sim_body_resting(a) && sim_body_resting(b)))
                continue;
            sleeper |= a->sleeping || b->sleeping;
            sim_pair p = {sa, sb, 0.0f, 0};
            if (!sim_vec_push(&w->pairs, &p))
                return; /* out of memory: this step resolves the pairs it has */
        }
    }
    w->pairs_sleeper = sleeper;
}
