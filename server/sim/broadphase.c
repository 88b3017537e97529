/* Broadphase by sort and sweep on the x axis (Baraff's "sweep and prune", one axis): the bodies
 * that can move stay in an array sorted by the left edge of their fattened bounds; from one
 * step to the next the order barely changes, so insertion sort re-sorts it in near-linear time,
 * and the sweep only looks at bodies whose x intervals overlap.
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
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "body_rules.h"
#include "broadphase.h"
#include "dim.h"

/* Refreshes the tight bounds of every moving body (the shape grown by half the speculative
 * distance and by what it can move this step: dt s, gravity g m/s^2) and moves the fat bounds
 * of those whose tight ones left them; true when a fat box moved. */
static bool refresh_bounds(sim_world *w, float dt, float g)
{
    daabb *bounds = dim_of(w)->bounds.at, *tight = dim_of(w)->tight.at;
    const col_aabb3 *shape_box = w->broad.shape_box.at;
    const uint32_t *movers = w->broad.movers.at;
    bool moved = false;
    for (size_t i = 0; i < w->broad.movers.v.len; i++) {
        uint32_t s = movers[i];
        if (w->slots.bodies.at[s].sleeping) /* it does not move: its bounds stand */
            continue;
        daabb box = dim_aabb_of3(shape_box[s]); /* as the last step left it (region.c) */
        float grow = 0.5f * SIM_SPECULATIVE + (dv_len(dim_part(w, s)->vel) + g * dt) * dt;
        box.half = dv_add(box.half, dim_splat(grow));
        tight[s] = box;
        if (!dim_aabb_contains(&bounds[s], &box)) {
            box.half = dv_add(box.half, dim_splat(SIM_FAT_MARGIN));
            bounds[s] = box;
            w->broad.fat_half_max = mk_maxf(w->broad.fat_half_max, box.half.x);
            moved = true;
        }
    }
    return moved;
}

/* Gives each new pair the cache hint it had in the last list (sim_pair.entry): without it,
 * every pair of a list made anew looks its entry up in the cache's map, a cache miss a pair in
 * a large world, and a settling pile makes its list anew every step while any box leaves its
 * fat bounds (a third of the step in the first second of a 5,050-box pyramid). The lists come
 * in the same order (statics first, then the sweep) and barely change, so each new pair looks
 * a few pairs ahead of where the last match was. A wrong or missing hint costs only the
 * lookup: sim_cache_find_hinted checks the hint's pair. */
#define SIM_HINT_WINDOW 8
static void carry_hints(sim_world *w)
{
    const sim_pair *old = w->broad.pairs_prev.at;
    sim_pair *p = w->broad.pairs.at;
    size_t n_old = w->broad.pairs_prev.v.len, k = 0;
    for (size_t i = 0; i < w->broad.pairs.v.len && k < n_old; i++) {
        for (size_t d = 0; d < SIM_HINT_WINDOW && k + d < n_old; d++) {
            if (old[k + d].a == p[i].a && old[k + d].b == p[i].b) {
                p[i].entry = old[k + d].entry;
                k += d + 1;
                break;
            }
        }
    }
}

/* Lists the pair of the bodies at i and j of the order unless it can do nothing (two fixed
 * bodies, or two resting ones); false when out of memory. */
static inline bool consider(sim_world *w, const uint32_t *order, size_t i, size_t j,
                            bool *sleeper)
{
    uint32_t sa = order[i], sb = order[j];
    /* A pair of resting bodies is not listed (a sleeping island keeps its contacts in the
     * cache); waking or sleeping changes the list. */
    const sim_body *a = &w->slots.bodies.at[sa], *b = &w->slots.bodies.at[sb];
    /* Kinematic bodies are never moved by contacts, so pairs of them do nothing; nor do bodies
     * that do not collide. */
    if ((sim_kind_fixed(a->kind) && sim_kind_fixed(b->kind)) ||
        (sim_body_resting(a) && sim_body_resting(b)) || !sim_pair_collides(w, sa, sb))
        return true;
    *sleeper |= a->sleeping || b->sleeping;
    sim_pair p = {sa, sb, 0.0f, 0};
    return mk_vec_push(&w->broad.pairs.v, &p);
}

/* Room after the last body's edges, so that the sweep reads four at once past it. */
#define SWEEP_PAD 4

void DIM_NAME(sim_broadphase)(sim_world *w, float dt, float g)
{
    bool moved = refresh_bounds(w, dt, g) || w->broad.pairs_dirty;
    if (!moved)
        return;
    w->broad.pairs_dirty = false;
    sim_order_sort(w);
    const daabb *bounds = dim_of(w)->bounds.at;
    const uint32_t *order = w->broad.order.at;
    size_t n = w->broad.order.v.len;
    if (n == 0) { /* static bodies alone: no pair can move */
        w->broad.pairs.v.len = 0;
        return;
    }

    /* The sweep reads the sorted bounds as flat arrays, the low and the high edge on each
     * axis: the inner loop touches nothing else, so it runs through a tall pile's many
     * x-overlaps quickly. */
    size_t stride = n + SWEEP_PAD;
    if (!mk_vec_reserve(&w->broad.sweep.v, 2 * MK_DIM * stride))
        return; /* out of memory: no pairs this step */
    float *lo[MK_DIM], *hi[MK_DIM];
    for (int k = 0; k < MK_DIM; k++) {
        lo[k] = w->broad.sweep.at + 2 * (size_t)k * stride;
        hi[k] = lo[k] + stride;
        for (size_t i = n; i < stride; i++)
            lo[k][i] = hi[k][i] = INFINITY; /* past the end: no box reaches it on x */
    }
    for (size_t i = 0; i < n; i++)
        dim_aabb_edges(&bounds[order[i]], lo, hi, i);
    /* The pairs with static bodies first: the solver then works up from the ground. Those
     * are of awake bodies alone; a sleeper among the others is noted. The last list is kept
     * for its hints (carry_hints). */
    mk_vec last = w->broad.pairs.v;
    w->broad.pairs.v = w->broad.pairs_prev.v;
    w->broad.pairs_prev.v = last;
    w->broad.pairs.v.len = 0;
    w->broad.pairs_sleeper = true; /* until the list is whole */
    if (!sim_static_pairs(w))
        return; /* out of memory: this step resolves the pairs it has */
    bool sleeper = false;
    for (size_t i = 0; i < n; i++) {
#if defined(__SSE2__)
        /* Four bodies at once: in a tall pile most bodies that overlap i's on x (its column)
         * are apart on y, and testing them one by one was most of a settling pyramid's
         * sweep. The pairs come out in the same order as one by one: j rising, up to the
         * first body that starts past i's box on x (the order is sorted on x, so that is the
         * end), the comparisons the same (a NaN edge counts as overlapping on that axis). */
        __m128 hi0 = _mm_set1_ps(hi[0][i]);
        __m128 lo_i[MK_DIM], hi_i[MK_DIM];
        for (int k = 1; k < MK_DIM; k++) {
            lo_i[k] = _mm_set1_ps(lo[k][i]);
            hi_i[k] = _mm_set1_ps(hi[k][i]);
        }
        for (size_t j = i + 1;; j += 4) {
            int in_x = _mm_movemask_ps(_mm_cmple_ps(_mm_loadu_ps(lo[0] + j), hi0));
            __m128 apart = _mm_setzero_ps();
            for (int k = 1; k < MK_DIM; k++) {
                apart = _mm_or_ps(apart, _mm_cmpgt_ps(_mm_loadu_ps(lo[k] + j), hi_i[k]));
                apart = _mm_or_ps(apart, _mm_cmpgt_ps(lo_i[k], _mm_loadu_ps(hi[k] + j)));
            }
            int out = ~in_x & 0xF;
            int hit = ~_mm_movemask_ps(apart) & (out ? (out & -out) - 1 : 0xF);
            for (; hit; hit &= hit - 1)
                if (!consider(w, order, i, j + (size_t)__builtin_ctz((unsigned)hit), &sleeper))
                    return; /* out of memory: this step resolves the pairs it has */
            if (out)
                break;
        }
#else
        for (size_t j = i + 1; j < n && lo[0][j] <= hi[0][i]; j++) {
            bool apart = false;
            for (int k = 1; k < MK_DIM; k++)
                apart |= lo[k][j] > hi[k][i] || lo[k][i] > hi[k][j];
            if (!apart && !consider(w, order, i, j, &sleeper))
                return; /* out of memory: this step resolves the pairs it has */
        }
#endif
    }
    w->broad.pairs_sleeper = sleeper;
    carry_hints(w);
}
