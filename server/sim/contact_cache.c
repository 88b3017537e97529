/* The contact cache: the impulses of every touching pair, found by the pair's body ids (ids
 * carry generations, so a body that took a removed body's slot never inherits its impulses).
 * One map that persists: a pair that goes on touching is updated in place, a pair that stops
 * is removed, and the pairs of a sleeping island stay untouched for as long as it sleeps, so
 * that sleeping costs nothing and the island wakes with its impulses. Open addressing with
 * linear probing; removal leaves a tombstone, and the map is rebuilt without them when they
 * outnumber the live entries. */
#include <stdlib.h>
#include <string.h>

#include "body_rules.h"
#include "world_internal.h"

#define SLOT_EMPTY 0u
#define SLOT_TOMB 1u /* other values are an entry index + 2 */
#define SIM_CACHE_SWEEP 64 /* steps between sweeps of the whole contact cache */

static size_t slot_of(sim_id a, sim_id b, uint32_t child, size_t cap)
{
    /* Fibonacci hashing of both ids (Knuth, TAOCP vol. 3, 6.4), and of a level pair's piece
     * (0 for a convex pair, whose slot is as it was without pieces). */
    uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full) ^
                 ((uint64_t)child * 0x165667B19E3779F9ull);
    h ^= h >> 29;
    return (size_t)(h & (cap - 1));
}


/* The table slot that holds (a, b, child), or the table's capacity when none does. */
static size_t find_slot(const sim_cache *c, sim_id a, sim_id b, uint32_t child)
{
    if (c->table_cap == 0)
        return 0;
    for (size_t s = slot_of(a, b, child, c->table_cap);; s = (s + 1) & (c->table_cap - 1)) {
        uint32_t t = c->table[s];
        if (t == SLOT_EMPTY)
            return c->table_cap;
        if (t != SLOT_TOMB) {
            const sim_cache_head *e = sim_cache_at(c, t - 2);
            if (e->a == a && e->b == b && e->child == child)
                return s;
        }
    }
}

/* Builds the table anew from the live entries, which are packed to the front first. */
static bool rebuild(sim_cache *c, size_t cap)
{
    size_t n = 0, item = c->entries.item;
    for (size_t i = 0; i < c->entries.len; i++) {
        if (!sim_cache_at(c, (uint32_t)i)->live)
            continue;
        if (n != i)
            memcpy(sim_cache_at(c, (uint32_t)n), sim_cache_at(c, (uint32_t)i), item);
        n++;
    }
    c->entries.len = n;
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t)
        return false;
    free(c->table);
    c->table = t;
    c->table_cap = cap;
    c->used = n;
    for (size_t i = 0; i < n; i++) {
        const sim_cache_head *e = sim_cache_at(c, (uint32_t)i);
        size_t s = slot_of(e->a, e->b, e->child, cap);
        while (t[s] != SLOT_EMPTY)
            s = (s + 1) & (cap - 1);
        t[s] = (uint32_t)i + 2;
    }
    return true;
}

bool sim_cache_reserve(sim_cache *c, size_t more)
{
    size_t live = c->entries.len - c->dead;
    if (!mk_vec_reserve(&c->entries, c->entries.len + more))
        return false;
    /* Table slots in use (live and tombstones) stay under half of the table. */
    if (2 * (c->used + more) <= c->table_cap)
        return true;
    size_t cap = c->table_cap ? c->table_cap : 64;
    while (cap < 2 * (live + more))
        cap *= 2;
    c->dead = 0;
    return rebuild(c, cap);
}

void sim_cache_free(sim_cache *c)
{
    mk_vec_free(&c->entries);
    free(c->table);
    c->table = NULL;
    c->table_cap = c->used = c->dead = 0;
}

sim_cache_head *sim_cache_find(const sim_cache *c, sim_id a, sim_id b, uint32_t *index)
{
    return sim_cache_find_child(c, a, b, 0, index);
}

sim_cache_head *sim_cache_find_child(const sim_cache *c, sim_id a, sim_id b, uint32_t child,
                                     uint32_t *index)
{
    size_t s = find_slot(c, a, b, child);
    if (s >= c->table_cap)
        return NULL;
    *index = c->table[s] - 2;
    return sim_cache_at(c, *index);
}

uint32_t sim_cache_add(sim_cache *c, sim_id a, sim_id b)
{
    return sim_cache_add_child(c, a, b, 0);
}

uint32_t sim_cache_add_child(sim_cache *c, sim_id a, sim_id b, uint32_t child)
{
    uint32_t i = (uint32_t)c->entries.len++;
    sim_cache_head *x = sim_cache_at(c, i);
    memset(x, 0, c->entries.item);
    x->a = a;
    x->b = b;
    x->child = child;
    x->live = true;
    size_t s = slot_of(a, b, child, c->table_cap);
    while (c->table[s] != SLOT_EMPTY)
        s = (s + 1) & (c->table_cap - 1);
    c->table[s] = i + 2;
    c->used++;
    return i;
}

void sim_cache_remove(sim_cache *c, uint32_t i)
{
    sim_cache_head *e = sim_cache_at(c, i);
    if (!e->live)
        return;
    size_t s = find_slot(c, e->a, e->b, e->child);
    if (s < c->table_cap)
        c->table[s] = SLOT_TOMB;
    e->live = false;
    c->dead++;
}

bool sim_cache_reserve_step(sim_world *w, size_t pairs)
{
    sim_cache *c = &w->solver.cache;
    size_t table_cap = c->table_cap, dead = c->dead;
    if (!sim_cache_reserve(c, pairs) || !mk_vec_reserve(&w->solver.solved.v, 2 * pairs))
        return false;
    if (c->table_cap != table_cap || c->dead != dead) {
        w->solver.solved.v.len = 0;
        for (size_t i = 0; i < c->entries.len; i++) {
            uint32_t index = (uint32_t)i;
            if (sim_cache_at(c, index)->stamp + 1 == w->tick)
                mk_vec_push(&w->solver.solved.v, &index);
        }
    }
    return true;
}

/* Removes an entry solved in the last step but not in this one: its pair stopped touching,
 * unless its bodies went to sleep (then the entry waits for them). */
static void end_pair(sim_world *w, uint32_t index)
{
    sim_cache_head *x = sim_cache_at(&w->solver.cache, index);
    if (!x->live || x->stamp == w->tick)
        return;
    const sim_body *a = sim_world_get(w, x->a), *b = sim_world_get(w, x->b);
    bool asleep = a && b && (a->sleeping || b->sleeping) && sim_body_resting(a) &&
                  sim_body_resting(b);
    if (!asleep)
        sim_cache_remove(&w->solver.cache, index);
}

#define SIM_END_GRAIN 1024 /* entries a block of the workers' look for ended pairs */

typedef struct end_job {
    const sim_world *w;
    uint8_t *ended;
} end_job;

/* Last step's solved entries [begin, end): whether each is live and was not stamped in this
 * step, which end_pair then looks at in order. Reads alone: a removal changes only its own
 * entry, so a flag is the same before and after the removals before it. */
static void ended_range(void *ctx, size_t begin, size_t end)
{
    const end_job *job = ctx;
    const sim_world *w = job->w;
    const uint32_t *solved = w->solver.solved.at;
    for (size_t i = begin; i < end; i++) {
        const sim_cache_head *x = sim_cache_at(&w->solver.cache, solved[i]);
        job->ended[i] = x->live && x->stamp != w->tick;
    }
}

/* Ends last step's solved entries [0, first) that this step did not solve again. */
static void end_unsolved(sim_world *w, size_t first)
{
    const uint32_t *solved = w->solver.solved.at;
    mk_vec *ended = &w->solver.step_flags.v;
    if (sim_pool_workers(w->pool) > 1 && first > SIM_END_GRAIN && mk_vec_resize(ended, first)) {
        end_job job = {w, ended->data};
        sim_pool_for(w->pool, first, SIM_END_GRAIN, ended_range, &job);
        for (size_t i = 0; i < first; i++)
            if (job.ended[i])
                end_pair(w, solved[i]);
        return;
    }
    for (size_t i = 0; i < first; i++)
        end_pair(w, solved[i]);
}

void sim_cache_end_pairs(sim_world *w, size_t first)
{
    /* When the pass in pair order solved each of them again (its count), none ended. */
    if (w->solver.restamped != first)
        end_unsolved(w, first);
    /* A sleeping pair whose island woke and parted without touching again was in no step's
     * list: a sweep over the whole cache every SIM_CACHE_SWEEP steps finds such pairs, at a
     * small share of a step's cost. */
    if (w->tick % SIM_CACHE_SWEEP == 0) {
        for (size_t i = 0; i < w->solver.cache.entries.len; i++)
            end_pair(w, (uint32_t)i);
    }
    if (first == 0)
        return;
    uint32_t *solved = w->solver.solved.at;
    memmove(solved, solved + first, (w->solver.solved.v.len - first) * sizeof *solved);
    w->solver.solved.v.len -= first;
}
