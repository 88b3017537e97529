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
 * costs one containment test per body, and a sleeping one nothing at all. When some fat
 * bounds move, only those bodies are looked up again (Box2D v3's move buffer): their pairs
 * that no longer overlap leave the list and their new ones join it at its end, so a settling
 * pile pays for the boxes that moved, not for the whole list. The whole list is made anew, by
 * the sweep, only when a body comes, goes, falls asleep or wakes.
 *
 * Static bodies are not in the sweep: they are in a tree of their own (static_tree.c), which
 * each awake body's fat box is looked up in, so a level of many static pieces is never sorted
 * or swept again, as Box2D keeps a static tree apart from its moving one. */
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "body_rules.h"
#include "broadphase.h"
#include "dim.h"
#include "pool.h"

/* Bodies a block of the workers' passes over the moving bodies, the sorted edges and the
 * pairs. */
#define SIM_BROAD_GRAIN 512

typedef struct bounds_job {
    sim_world *w;
    float dt, g;
} bounds_job;

/* Movers [begin, end): refreshes the tight bounds (the shape grown by half the speculative
 * distance and by what it can move this step: dt s, gravity g m/s^2) and moves the fat bounds
 * of those whose tight ones left them, marking them (moved_mark) for refresh_bounds. */
static void bounds_range(void *ctx, size_t begin, size_t end)
{
    const bounds_job *job = ctx;
    sim_world *w = job->w;
    daabb *bounds = dim_of(w)->bounds.at, *tight = dim_of(w)->tight.at;
    const col_aabb3 *shape_box = w->broad.shape_box.at;
    const uint32_t *movers = w->broad.movers.at;
    uint8_t *mark = w->broad.moved_mark.at;
    for (size_t i = begin; i < end; i++) {
        uint32_t s = movers[i];
        if (w->slots.bodies.at[s].sleeping) /* it does not move: its bounds stand */
            continue;
        daabb box = dim_aabb_of3(shape_box[s]); /* as the last step left it (region.c) */
        float dt = job->dt;
        float grow = 0.5f * SIM_SPECULATIVE + (dv_len(dim_part(w, s)->vel) + job->g * dt) * dt;
        box.half = dv_add(box.half, dim_splat(grow));
        tight[s] = box;
        if (!dim_aabb_contains(&bounds[s], &box)) {
            box.half = dv_add(box.half, dim_splat(SIM_FAT_MARGIN));
            bounds[s] = box;
            mark[s] = 1;
        }
    }
}

/* Refreshes the bounds of every moving body, on the workers when the step woke them, and
 * notes those whose fat box moved in the move buffer, in the movers' order; true when a fat
 * box moved. */
static bool refresh_bounds(sim_world *w, float dt, float g)
{
    bounds_job job = {w, dt, g};
    sim_pool_for(w->pool, w->broad.movers.v.len, SIM_BROAD_GRAIN, bounds_range, &job);
    const daabb *bounds = dim_of(w)->bounds.at;
    const uint32_t *movers = w->broad.movers.at;
    uint8_t *mark = w->broad.moved_mark.at;
    bool moved = false;
    for (size_t i = 0; i < w->broad.movers.v.len; i++) {
        uint32_t s = movers[i];
        if (!mark[s])
            continue;
        mark[s] = 0;
        w->broad.fat_half_max = mk_maxf(w->broad.fat_half_max, bounds[s].half.x);
        moved = true;
        if (!MK_VEC_PUSH(&w->broad.moved, s))
            w->broad.pairs_dirty = true; /* out of memory: the list is made anew */
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
                p[i].piece_entry = old[k + d].piece_entry;
                k += d + 1;
                break;
            }
        }
    }
}

/* Whether the pair of slots sa and sb can do anything: not two fixed bodies, nor two resting
 * ones, and they collide. */
static inline bool pair_counts(const sim_world *w, uint32_t sa, uint32_t sb)
{
    /* A pair of resting bodies is not listed (a sleeping island keeps its contacts in the
     * cache); waking or sleeping changes the list. */
    const sim_body *a = &w->slots.bodies.at[sa], *b = &w->slots.bodies.at[sb];
    /* Kinematic bodies are never moved by contacts, so pairs of them do nothing; nor do bodies
     * that do not collide. */
    return !((sim_kind_fixed(a->kind) && sim_kind_fixed(b->kind)) ||
             (sim_body_resting(a) && sim_body_resting(b)) || !sim_pair_collides(w, sa, sb) ||
             !sim_joint_pair_collides(&w->joints, sa, sb));
}

/* Lists the pair of the bodies at i and j of the order unless it can do nothing; false when
 * out of memory. */
static inline bool consider(sim_world *w, const uint32_t *order, size_t i, size_t j,
                            bool *sleeper)
{
    uint32_t sa = order[i], sb = order[j];
    if (!pair_counts(w, sa, sb))
        return true;
    *sleeper |= w->slots.bodies.at[sa].sleeping || w->slots.bodies.at[sb].sleeping;
    sim_pair p = {.a = sa, .b = sb};
    return mk_vec_push(&w->broad.pairs.v, &p);
}

/* Room after the last body's edges, so that the sweep reads four at once past it. */
#define SWEEP_PAD 4

/* Whether two fat boxes overlap, by the same edges and comparisons as the sweep (touching
 * counts), so that a pair kept or dropped by update_pairs is one the sweep would list or not. */
static bool fat_overlap(const daabb *a, const daabb *b)
{
    float e[4 * MK_DIM];
    float *lo[MK_DIM], *hi[MK_DIM];
    for (int k = 0; k < MK_DIM; k++) {
        lo[k] = e + 4 * k;
        hi[k] = e + 4 * k + 2;
    }
    dim_aabb_edges(a, lo, hi, 0);
    dim_aabb_edges(b, lo, hi, 1);
    bool apart = false;
    for (int k = 0; k < MK_DIM; k++)
        apart |= lo[k][1] > hi[k][0] || lo[k][0] > hi[k][1];
    return !apart;
}

/* Whether a listed pair's bodies still overlap as the list's makers found them: a static body
 * by its shape's bounds in the statics' tree (sim_static_pairs), two moving ones by the sweep's
 * edges. */
static bool still_overlap(const sim_world *w, uint32_t a, uint32_t b)
{
    const sim_body *bodies = w->slots.bodies.at;
    if (bodies[a].kind == SIM_STATIC || bodies[b].kind == SIM_STATIC) {
        uint32_t st = bodies[a].kind == SIM_STATIC ? a : b, other = st == a ? b : a;
        col_aabb3 fat = sim_fat_box(w, other);
        return sim_aabb3_overlap(&w->broad.shape_box.at[st], &fat);
    }
    const daabb *bounds = DIM_PICK(w->d2, w->d3).bounds.at;
    return fat_overlap(&bounds[a], &bounds[b]);
}

/* Makes the pairs' set hold exactly the list's pairs (after the list was made anew, or read
 * from an image); a pair listed twice, which only a damaged image can hold, is dropped. False
 * when out of memory. */
static bool refill_set(sim_world *w)
{
    sim_broadphase *bp = &w->broad;
    if (!sim_pair_set_clear(bp, bp->pairs.v.len))
        return false;
    sim_pair *p = bp->pairs.at;
    size_t kept = 0;
    for (size_t i = 0; i < bp->pairs.v.len; i++) {
        int added = sim_pair_set_add(bp, p[i].a, p[i].b);
        if (added < 0)
            return false;
        if (added)
            p[kept++] = p[i];
    }
    bp->pairs.v.len = kept;
    bp->pair_set_fresh = true;
    return true;
}

/* Appends the pair of slots a and b unless it is listed; false when out of memory. */
static bool add_pair(sim_world *w, uint32_t a, uint32_t b, bool *sleeper)
{
    int added = sim_pair_set_add(&w->broad, a, b);
    if (added <= 0)
        return added == 0;
    sim_pair p = {.a = a, .b = b};
    if (!mk_vec_push(&w->broad.pairs.v, &p)) {
        sim_pair_set_remove(&w->broad, a, b);
        return false;
    }
    *sleeper |= w->slots.bodies.at[a].sleeping || w->slots.bodies.at[b].sleeping;
    return true;
}

/* Whether listed pair p has a marked (moved) body and their boxes no longer overlap. */
static bool parted(const sim_world *w, const sim_pair *p)
{
    const uint8_t *mark = w->broad.moved_mark.at;
    return (mark[p->a] | mark[p->b]) && !still_overlap(w, p->a, p->b);
}

static void parted_range(void *ctx, size_t begin, size_t end)
{
    const sim_world *w = ctx;
    for (size_t i = begin; i < end; i++)
        w->broad.parted.at[i] = parted(w, &w->broad.pairs.at[i]);
}

/* Drops the listed pairs of the marked (moved) bodies whose boxes no longer overlap: found on
 * the workers when the step woke them, then taken out of the list and the set in the list's
 * order; the other pairs keep their order and those before the first dropped their places. */
static void drop_parted(sim_world *w)
{
    sim_broadphase *bp = &w->broad;
    size_t n = bp->pairs.v.len;
    if (!mk_vec_resize(&bp->parted.v, n)) { /* out of memory: one by one, here */
        sim_pair *p = bp->pairs.at;
        size_t kept = 0;
        for (size_t i = 0; i < n; i++) {
            if (parted(w, &p[i]))
                sim_pair_set_remove(bp, p[i].a, p[i].b);
            else
                p[kept++] = p[i];
        }
        bp->pairs.v.len = kept;
        return;
    }
    sim_pool_for(w->pool, n, SIM_BROAD_GRAIN, parted_range, w);
    const uint8_t *leaves = bp->parted.at;
    sim_pair *p = bp->pairs.at;
    size_t kept = 0, i = 0;
    while (i < n) {
        size_t run = i; /* a run of kept pairs moves down as one */
        while (run < n && !leaves[run])
            run++;
        if (kept != i)
            memmove(p + kept, p + i, (run - i) * sizeof *p);
        kept += run - i;
        for (i = run; i < n && leaves[i]; i++)
            sim_pair_set_remove(bp, p[i].a, p[i].b);
    }
    bp->pairs.v.len = kept;
}

/* Where a moved body's pairs go (pairs_of_moved): `emit` takes each pair of slots it finds
 * (the pair's first slot first), and false from it ends the look. */
typedef bool emit_fn(void *ctx, uint32_t a, uint32_t b);
typedef struct emitter {
    emit_fn *emit;
    void *ctx;
    const sim_world *w;
    uint32_t m; /* the moved body */
} emitter;

/* A static body that the moved body's fat box overlaps, through the tree's visit. */
static bool emit_static(void *ctx, uint32_t h)
{
    const emitter *e = ctx;
    return !(sim_pair_collides(e->w, h, e->m) && sim_joint_pair_collides(&e->w->joints, h, e->m)) ||
           e->emit(e->ctx, h, e->m);
}

/* Finds the pairs of moved body m: with the statics its fat box overlaps (an awake body that
 * is not fixed, as sim_static_pairs lists them), then with the moving bodies, found in the
 * sorted edges from the first that can reach m's box on x to the last that starts within it.
 * It only reads the world, so the workers look for many moved bodies at once. False when
 * `emit` said so. */
static bool pairs_of_moved(const sim_world *w, uint32_t m, float *const lo[], float *const hi[],
                           size_t n, emit_fn *emit, void *ctx)
{
    const sim_body *b = &w->slots.bodies.at[m];
    if (!(b->sleeping || sim_kind_fixed(b->kind))) {
        col_aabb3 fat = sim_fat_box(w, m);
        emitter e = {emit, ctx, w, m};
        if (!sim_tree_visit(&w->broad.tree, w->broad.shape_box.at, &fat, emit_static, &e))
            return false;
    }
    float e[2 * MK_DIM];
    float *lo_m[MK_DIM], *hi_m[MK_DIM];
    for (int k = 0; k < MK_DIM; k++) {
        lo_m[k] = e + 2 * k;
        hi_m[k] = e + 2 * k + 1;
    }
    dim_aabb_edges(&DIM_PICK(w->d2, w->d3).bounds.at[m], lo_m, hi_m, 0);
    /* A box that reaches m's on x starts at most two of the widest half widths left of it
     * (less a hair for the rounding of its edges). */
    float from = lo_m[0][0] - 2.0f * w->broad.fat_half_max;
    from -= 1e-6f * fabsf(from) + 1e-6f;
    const uint32_t *order = w->broad.order.at;
    size_t j = sim_order_lower_bound(w, from);
#if defined(__SSE2__)
    /* Four at once, as make_pairs's sweep: when most bodies move (a grid of 10,000 swinging
     * on its joints), each looks through its neighbours' columns on x, and one by one that
     * was most of the step's broadphase. The same pairs in the same order, by the same
     * comparisons (the edges past n are infinite: no box reaches them). */
    (void)n; /* the pad past the last body's edges ends the look */
    __m128 hi_x = _mm_set1_ps(hi_m[0][0]), lo_x = _mm_set1_ps(lo_m[0][0]);
    __m128 lo_k[MK_DIM], hi_k[MK_DIM];
    for (int k = 1; k < MK_DIM; k++) {
        lo_k[k] = _mm_set1_ps(lo_m[k][0]);
        hi_k[k] = _mm_set1_ps(hi_m[k][0]);
    }
    for (;; j += 4) {
        int in_x = _mm_movemask_ps(_mm_cmple_ps(_mm_loadu_ps(lo[0] + j), hi_x));
        __m128 apart = _mm_cmpgt_ps(lo_x, _mm_loadu_ps(hi[0] + j));
        for (int k = 1; k < MK_DIM; k++) {
            apart = _mm_or_ps(apart, _mm_cmpgt_ps(_mm_loadu_ps(lo[k] + j), hi_k[k]));
            apart = _mm_or_ps(apart, _mm_cmpgt_ps(lo_k[k], _mm_loadu_ps(hi[k] + j)));
        }
        int out = ~in_x & 0xF;
        int hit = ~_mm_movemask_ps(apart) & (out ? (out & -out) - 1 : 0xF);
        for (; hit; hit &= hit - 1) {
            uint32_t o = order[j + (size_t)__builtin_ctz((unsigned)hit)];
            if (o != m && pair_counts(w, m, o) && !emit(ctx, m, o))
                return false;
        }
        if (out)
            break;
    }
#else
    for (; j < n && lo[0][j] <= hi_m[0][0]; j++) {
        bool apart = lo_m[0][0] > hi[0][j] || order[j] == m;
        for (int k = 1; k < MK_DIM; k++)
            apart |= lo[k][j] > hi_m[k][0] || lo_m[k][0] > hi[k][j];
        if (!apart && pair_counts(w, m, order[j]) && !emit(ctx, m, order[j]))
            return false;
    }
#endif
    return true;
}

/* The loop's thread's emitter: the pair joins the list unless it is listed. */
typedef struct adder {
    sim_world *w;
    bool sleeper;
} adder;

static bool emit_add(void *ctx, uint32_t a, uint32_t b)
{
    adder *ad = ctx;
    return add_pair(ad->w, a, b, &ad->sleeper);
}

/* Moved bodies a block of the workers' look (find_range): enough that a block's pairs are
 * many bytes apart from the next block's, few enough that the blocks share out evenly. */
#define SIM_FOUND_BLOCK 32
#define SIM_FOUND_ROOM 4     /* pairs a moved body may find, on average, at first */
#define SIM_FOUND_ROOM_MAX 1024

/* A worker's emitter: the pair is written to its block's room unless it is listed already;
 * false when the room is full. */
typedef struct finder {
    const sim_broadphase *bp;
    sim_slot_pair *out;
    size_t n, room;
} finder;

static bool emit_found(void *ctx, uint32_t a, uint32_t b)
{
    finder *f = ctx;
    if (sim_pair_set_has(f->bp, a, b))
        return true;
    if (f->n == f->room)
        return false;
    f->out[f->n++] = (sim_slot_pair){a, b};
    return true;
}

typedef struct find_job {
    sim_world *w;
    float *const *lo, *const *hi;
    size_t n;
    const uint32_t *moved;
    size_t n_moved;
} find_job;

/* Blocks [begin, end) of the moved bodies: each block's new pairs into its room. */
static void find_range(void *ctx, size_t begin, size_t end)
{
    const find_job *job = ctx;
    sim_broadphase *bp = &job->w->broad;
    size_t room = (size_t)SIM_FOUND_BLOCK * bp->found_room;
    for (size_t k = begin; k < end; k++) {
        finder f = {bp, bp->found.at + k * room, 0, room};
        size_t last = (k + 1) * SIM_FOUND_BLOCK;
        last = last < job->n_moved ? last : job->n_moved;
        bool fit = true;
        for (size_t i = k * SIM_FOUND_BLOCK; fit && i < last; i++)
            fit = pairs_of_moved(job->w, job->moved[i], job->lo, job->hi, job->n, emit_found, &f);
        bp->found_count.at[k] = fit ? (uint32_t)f.n : UINT32_MAX;
    }
}

/* Appends the new pairs of the moved bodies, in the buffer's order: on the workers when
 * there are two or more and enough moved bodies (Box2D v3's b2FindPairsTask: the workers
 * find the pairs, one thread adds them), each block's pairs then added in the blocks' order
 * by the loop's thread, so the list is the one a thread alone makes. A block whose pairs did
 * not fit its room is looked up again by the loop's thread, and the next step gives every
 * block twice the room. False when out of memory. */
static bool add_pairs_of_moved(sim_world *w, float *const lo[], float *const hi[], size_t n,
                               const uint32_t *moved, size_t n_moved, bool *sleeper)
{
    sim_broadphase *bp = &w->broad;
    adder ad = {w, false};
    size_t blocks = (n_moved + SIM_FOUND_BLOCK - 1) / SIM_FOUND_BLOCK;
    bool parallel = sim_pool_workers(w->pool) > 1 && blocks > 1;
    if (parallel) {
        bp->found_room = bp->found_room ? bp->found_room : SIM_FOUND_ROOM;
        parallel = mk_vec_resize(&bp->found.v, blocks * SIM_FOUND_BLOCK * bp->found_room) &&
                   mk_vec_resize(&bp->found_count.v, blocks);
    }
    bool ok = true;
    if (parallel) {
        find_job job = {w, lo, hi, n, moved, n_moved};
        sim_pool_for(w->pool, blocks, 1, find_range, &job);
        bool full = false;
        for (size_t k = 0; ok && k < blocks; k++) {
            uint32_t count = bp->found_count.at[k];
            if (count == UINT32_MAX) {
                full = true;
                size_t last = (k + 1) * SIM_FOUND_BLOCK;
                last = last < n_moved ? last : n_moved;
                for (size_t i = k * SIM_FOUND_BLOCK; ok && i < last; i++)
                    ok = pairs_of_moved(w, moved[i], lo, hi, n, emit_add, &ad);
                continue;
            }
            const sim_slot_pair *f = bp->found.at + k * SIM_FOUND_BLOCK * bp->found_room;
            for (uint32_t i = 0; ok && i < count; i++)
                ok = add_pair(w, f[i].a, f[i].b, &ad.sleeper);
        }
        if (full && bp->found_room < SIM_FOUND_ROOM_MAX)
            bp->found_room *= 2;
    } else {
        for (size_t i = 0; ok && i < n_moved; i++)
            ok = pairs_of_moved(w, moved[i], lo, hi, n, emit_add, &ad);
    }
    *sleeper |= ad.sleeper;
    return ok;
}

/* Brings the list up to date around the moved bodies alone, as Box2D v3's
 * b2UpdateBroadPhasePairs queries its tree for the proxies of its move buffer: a pair of a
 * moved body whose fat boxes no longer overlap leaves the list (the others keep their places
 * and their cache hints), then each moved body, in the buffer's order, appends the pairs it
 * now has that are not listed. The list is every pair the sweep would find, in another order;
 * the order depends only on the world's history, never on the workers. */
static void update_pairs(sim_world *w, float *const lo[], float *const hi[], size_t n)
{
    sim_broadphase *bp = &w->broad;
    uint8_t *mark = bp->moved_mark.at;
    uint32_t *moved = bp->moved.at;
    size_t n_moved = 0;
    for (size_t i = 0; i < bp->moved.v.len; i++) { /* a body noted twice is looked up once */
        if (!mark[moved[i]]) {
            mark[moved[i]] = 1;
            moved[n_moved++] = moved[i];
        }
    }
    bool ok = (bp->pair_set_fresh || refill_set(w)) && sim_statics_refresh(w);
    if (ok)
        drop_parted(w);
    bool sleeper = false;
    ok = ok && add_pairs_of_moved(w, lo, hi, n, moved, n_moved, &sleeper);
    for (size_t i = 0; i < n_moved; i++)
        mark[moved[i]] = 0;
    bp->moved.v.len = 0;
    bp->pairs_sleeper |= sleeper;
    if (!ok) /* out of memory: this step resolves the pairs it has, the next makes them anew */
        bp->pairs_dirty = true;
}

/* Makes the list anew: the pairs with static bodies first, then the sweep's. */
static void make_pairs(sim_world *w, float *const lo[], float *const hi[], size_t n)
{
    const uint32_t *order = w->broad.order.at;
    /* The pairs with static bodies first: the solver then works up from the ground. Those
     * are of awake bodies alone; a sleeper among the others is noted. The last list is kept
     * for its hints (carry_hints). */
    mk_vec last = w->broad.pairs.v;
    w->broad.pairs.v = w->broad.pairs_prev.v;
    w->broad.pairs_prev.v = last;
    w->broad.pairs.v.len = 0;
    w->broad.pair_set_fresh = false;
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

typedef struct edges_job {
    const daabb *bounds;
    const uint32_t *order;
    float **lo, **hi;
} edges_job;

/* The sorted bodies [begin, end)'s edges into the sweep's arrays. */
static void edges_range(void *ctx, size_t begin, size_t end)
{
    const edges_job *job = ctx;
    for (size_t i = begin; i < end; i++)
        dim_aabb_edges(&job->bounds[job->order[i]], job->lo, job->hi, i);
}

void DIM_NAME(sim_broadphase)(sim_world *w, float dt, float g)
{
    bool moved = refresh_bounds(w, dt, g);
    if (!moved && !w->broad.pairs_dirty && w->broad.moved.v.len == 0)
        return;
    sim_order_sort(w);
    const daabb *bounds = dim_of(w)->bounds.at;
    const uint32_t *order = w->broad.order.at;
    size_t n = w->broad.order.v.len;
    if (n == 0) { /* static bodies alone: no pair can move */
        w->broad.pairs.v.len = 0;
        w->broad.moved.v.len = 0;
        w->broad.pairs_dirty = false;
        w->broad.pair_set_fresh = false;
        return;
    }

    /* The sweep reads the sorted bounds as flat arrays, the low and the high edge on each
     * axis: the inner loop touches nothing else, so it runs through a tall pile's many
     * x-overlaps quickly. */
    size_t stride = n + SWEEP_PAD;
    if (!mk_vec_reserve(&w->broad.sweep.v, 2 * MK_DIM * stride))
        return; /* out of memory: no new pairs this step */
    float *lo[MK_DIM], *hi[MK_DIM];
    for (int k = 0; k < MK_DIM; k++) {
        lo[k] = w->broad.sweep.at + 2 * (size_t)k * stride;
        hi[k] = lo[k] + stride;
        for (size_t i = n; i < stride; i++)
            lo[k][i] = hi[k][i] = INFINITY; /* past the end: no box reaches it on x */
    }
    edges_job job = {bounds, order, lo, hi};
    sim_pool_for(w->pool, n, SIM_BROAD_GRAIN, edges_range, &job);
    if (w->broad.pairs_dirty) {
        w->broad.pairs_dirty = false;
        w->broad.moved.v.len = 0; /* every body is looked up */
        make_pairs(w, lo, hi, n);
    } else {
        update_pairs(w, lo, hi, n);
    }
}
