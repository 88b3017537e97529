/* The 3D broadphase: the same sort and sweep on x over persistent fattened bounds as the 2D
 * one, with the statics in their tree (broadphase.c says why), with boxes in three
 * dimensions. */
#include <math.h>

#include "body_rules.h"
#include "broadphase.h"
#include "world_internal.h"

/* Refreshes the tight bounds of every moving body; true when a fat box had to move. */
static bool refresh_bounds(sim_world *w, float dt, float g)
{
    col_aabb3 *bounds = w->bounds3.data, *tight = w->tight3.data;
    const col_aabb3 *shape_box = w->shape_box.data;
    const uint32_t *order = w->order.data;
    bool moved = false;
    for (size_t i = 0; i < w->order.len; i++) {
        uint32_t s = order[i];
        const sim_body *b = &w->bodies[s];
        if (b->sleeping)
            continue;
        const sim_body3 *b3 = &w->bodies3[s];
        col_aabb3 box = shape_box[s]; /* as the last step left it (region.c) */
        float grow = 0.5f * SIM_SPECULATIVE + (mk_v3_len(b3->vel) + g * dt) * dt;
        box.half = mk_v3_add(box.half, mk_v3(grow, grow, grow));
        tight[s] = box;
        if (!sim_aabb3_contains(&bounds[s], &box)) {
            box.half = mk_v3_add(box.half, mk_v3(SIM_FAT_MARGIN, SIM_FAT_MARGIN, SIM_FAT_MARGIN));
            bounds[s] = box;
            w->fat_half_max = mk_maxf(w->fat_half_max, box.half.x);
            moved = true;
        }
    }
    return moved;
}

void sim_broadphase3(sim_world *w, float dt, float g)
{
    bool moved = refresh_bounds(w, dt, g) || w->pairs_dirty;
    if (!moved)
        return;
    w->pairs_dirty = false;
    sim_order_sort(w);
    if (w->order.len == 0) { /* static bodies alone: no pair can move */
        w->pairs.len = 0;
        return;
    }
    const col_aabb3 *bounds = w->bounds3.data;
    const uint32_t *order = w->order.data;
    size_t n = w->order.len;
    /* Six flat arrays of the sorted bounds: the inner loop reads nothing else. */
    if (!sim_vec_reserve(&w->sweep, 6 * n))
        return;
    float *lox = w->sweep.data, *hix = lox + n, *loy = hix + n, *hiy = loy + n;
    float *loz = hiy + n, *hiz = loz + n;
    for (size_t i = 0; i < n; i++) {
        const col_aabb3 *b = &bounds[order[i]];
        lox[i] = b->center.x - b->half.x;
        hix[i] = b->center.x + b->half.x;
        loy[i] = b->center.y - b->half.y;
        hiy[i] = b->center.y + b->half.y;
        loz[i] = b->center.z - b->half.z;
        hiz[i] = b->center.z + b->half.z;
    }
    /* The pairs with static bodies first: the solver then works up from the ground. */
    w->pairs.len = 0;
    if (!sim_static_pairs(w))
        return; /* out of memory: this step resolves the pairs it has */
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n && lox[j] <= hix[i]; j++) {
            if (loy[j] > hiy[i] || loy[i] > hiy[j] || loz[j] > hiz[i] || loz[i] > hiz[j])
                continue;
            uint32_t sa = order[i], sb = order[j];
            const sim_body *a = &w->bodies[sa], *b = &w->bodies[sb];
            if ((sim_kind_fixed(a->kind) && sim_kind_fixed(b->kind)) ||
                (sim_body_resting(a) && sim_body_resting(b)))
                continue;
            sim_pair p = {sa, sb, 0.0f, 0};
            if (!sim_vec_push(&w->pairs, &p))
                return;
        }
    }
}

bool sim_tight_overlap3(const sim_world *w, uint32_t a, uint32_t b)
{
    const col_aabb3 *t = w->tight3.data;
    return sim_aabb3_overlap(&t[a], &t[b]);
}
