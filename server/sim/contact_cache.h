/* The contact cache: each touching pair's impulses from one step to the next (contact_cache.c). */
#ifndef MINK_SIM_CONTACT_CACHE_H
#define MINK_SIM_CONTACT_CACHE_H

#include "mink_sim.h"
#include "mk_vec.h"

/* The impulses of a touching pair, kept from one step to the next and found again by the
 * pair's body ids and each point's feature id, so that the solver starts from the last step's
 * answer (warm starting, as Box2D does). a < b. */
typedef struct sim_cached_point {
    uint32_t id;
    float jn, jt;    /* N s: normal and friction impulses */
    mk_vec2 local_a; /* a's surface point in a's frame, m: found again by place when the id
                      * changed */
    mk_vec2 local_b; /* b's surface point in b's frame, m */
} sim_cached_point;

/* What every cache entry starts with: the pair and its bookkeeping. A world's entries are
 * sim_cache_entry (2D) or sim_cache_entry3 (3D), each with this head first. */
typedef struct sim_cache_head {
    sim_id a, b;
    bool live;      /* false once removed (until the map is rebuilt) */
    /* 0 for a pair of convex bodies, and for a level pair's own entry, which stands for the
     * pair while any of its pieces touches (it has no points); a piece of a level pair (a
     * triangle, a segment) is its index + 1 (contacts_level.c). In the head's padding: the
     * entries keep their size. */
    uint32_t child;
    uint64_t stamp; /* the tick it was last solved at */
} sim_cache_head;

typedef struct sim_cache_entry {
    sim_cache_head head;
    int count;
    /* Where the manifold was computed: b's placement in a's frame (position, and the cosine
     * and sine of the angle between them) and the normal in a's frame, so that the manifold is
     * kept while the pair has hardly moved (contacts.c); `reach`, m, is the farther of the two
     * shapes' extents. */
    float reach;
    mk_vec2 rel_p, rel_q, local_normal;
    sim_cached_point points[COL_MAX_POINTS2];
} sim_cache_entry;

/* A 3D pair's entry: the persistent manifold of the seed's arbiter, with the impulses of
 * each of its points (normal, and friction along the two tangents). */
typedef struct sim_cache_entry3 {
    sim_cache_head head;
    /* Of a polytope pair's one-shot manifold with points: B's placement in A's frame and the
     * normal in A's frame when it was computed, to keep it while the pair has hardly moved
     * (contacts.c, Jolt's body pair cache). Beside the head, so that the test of a kept
     * manifold reads one or two cache lines of the entry, not its far end. */
    bool one_shot;
    mk_vec3 rel_p;
    mk_quat rel_q;
    mk_vec3 local_normal;
    col_contact_cache3 manifold;
    float jn[COL_MAX_POINTS3];
    float jt[COL_MAX_POINTS3][2];
} sim_cache_entry3;

/* One persistent map from body pairs to entries (contact_cache.c). Entry indices stay valid
 * until sim_cache_reserve rebuilds the map. entries.item is the world's entry size. */
typedef struct sim_cache {
    mk_vec entries;  /* sim_cache_entry or sim_cache_entry3 */
    uint32_t *table;  /* 0 empty, 1 removed, else entry index + 2 */
    size_t table_cap; /* a power of two */
    size_t used;      /* table slots holding an entry or a tombstone */
    size_t dead;      /* entries removed since the last rebuild */
} sim_cache;

/* Room for `more` new entries; may rebuild the map (entry indices change). */
bool sim_cache_reserve(sim_cache *c, size_t more);
void sim_cache_free(sim_cache *c);
static inline sim_cache_head *sim_cache_at(const sim_cache *c, uint32_t i)
{
    return (sim_cache_head *)((char *)c->entries.data + (size_t)i * c->entries.item);
}
/* The entry of (a, b) and its index, or NULL. */
sim_cache_head *sim_cache_find(const sim_cache *c, sim_id a, sim_id b, uint32_t *index);
/* A pair's hint when the map was asked and had no entry for it: entries are added by the
 * narrowphases' add_constraint alone, which set the hint, so the pair has none until then. */
#define SIM_CACHE_NO_ENTRY UINT32_MAX
/* sim_cache_find through a pair's hint (sim_pair.entry) while that still names (a, b) (entry
 * indices hold until the map is rebuilt), else by the map, whose table is a cache miss a pair
 * in a large world; the hint is updated with the answer. Inline: the narrowphase asks it for
 * most pairs, and the hint is nearly always right. */
static inline sim_cache_head *sim_cache_find_hinted(const sim_cache *c, uint32_t *hint, sim_id a,
                                                    sim_id b, uint32_t *index)
{
    if (*hint == SIM_CACHE_NO_ENTRY)
        return NULL;
    if (*hint > 0 && *hint - 1 < c->entries.len) {
        sim_cache_head *h = sim_cache_at(c, *hint - 1);
        if (h->live && h->a == a && h->b == b && h->child == 0) {
            *index = *hint - 1;
            return h;
        }
    }
    sim_cache_head *h = sim_cache_find(c, a, b, index);
    *hint = h ? *index + 1 : SIM_CACHE_NO_ENTRY;
    return h;
}
/* Adds (a, b), which must not be there; room reserved beforehand. Returns its index; the
 * entry is zeroed past its head. */
uint32_t sim_cache_add(sim_cache *c, sim_id a, sim_id b);
/* The entry of piece `child` of a level pair (a, b) (sim_cache_head.child), and its index, or
 * NULL; and its addition, as sim_cache_add. */
sim_cache_head *sim_cache_find_child(const sim_cache *c, sim_id a, sim_id b, uint32_t child,
                                     uint32_t *index);
uint32_t sim_cache_add_child(sim_cache *c, sim_id a, sim_id b, uint32_t child);
/* sim_cache_find_child for a level pair's piece `child` (1 on), by the pair's hint first: the
 * entries of the pieces a pair first touches in one step are made one after the other, so
 * piece k is looked for at piece 1's (*hint - 1) + k - 1 before the map. A wrong hint costs
 * only the look; finding piece 1 sets it. */
static inline sim_cache_head *sim_cache_find_piece(const sim_cache *c, uint32_t *hint, sim_id a,
                                                   sim_id b, uint32_t child, uint32_t *index)
{
    if (*hint > 0 && *hint - 1 + (size_t)(child - 1) < c->entries.len) {
        uint32_t i = *hint - 1 + child - 1;
        sim_cache_head *h = sim_cache_at(c, i);
        if (h->live && h->a == a && h->b == b && h->child == child) {
            *index = i;
            return h;
        }
    }
    sim_cache_head *h = sim_cache_find_child(c, a, b, child, index);
    if (h && child == 1)
        *hint = *index + 1;
    return h;
}
void sim_cache_remove(sim_cache *c, uint32_t index);
/* Before a step's narrowphase: room in the cache and in the solver's `solved` for every one of
 * `pairs` to be new. A rebuild moves the entries: the list of those solved in the last step is
 * then found again by their stamps. False when memory runs out. */
bool sim_cache_reserve_step(sim_world *w, size_t pairs);
/* After it: removes the entries of the pairs solved in the last step (the solver's `solved`
 * before `first`) that were not solved in this one, unless their bodies went to sleep; the
 * entries of this step become the last step's. */
void sim_cache_end_pairs(sim_world *w, size_t first);

#endif
