/* The narrowphase of a step: every broadphase pair is collided once, and each touching pair
 * becomes a constraint of the solver (warm-started from the contact cache by feature id), a
 * push-out pair of a character, or, between sleeping bodies, is left as it was.
 *
 * A pair that has hardly moved since last step keeps last step's manifold (Jolt's body pair
 * cache). In 2D every pair may keep it; in 3D the pairs of polytopes (boxes, hulls) get a
 * one-shot manifold, kept the same way, while a pair with a curved shape gets one point per
 * step from the narrowphase and keeps a persistent manifold of up to four in its cache entry,
 * the arbiter of "Collision Detection Using Minkowski Difference" (col_contact_cache3_update),
 * so that a cylinder standing on its end or a capsule lying down rests on several points. */
#include <assert.h>
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "contacts.h"
#include "contacts_level.h"

/* A pair's collision and a kept manifold, inline in the pass over the pairs however large
 * they grow: GCC keeps them out of line once the workers' collide_pair calls them too, and
 * the manifold then goes through memory between the calls (1.7% of pile2d 1000's step and
 * 2.4% of the 5,050-box pyramid's, in instructions). */
#if defined(__GNUC__)
#define NARROW_INLINE __attribute__((always_inline)) inline
#else
#define NARROW_INLINE inline
#endif

/* A body that wakes a sleeping one it touches: anything awake that moves. */
static bool active(const sim_world *w, const sim_body *b)
{
    if (b->sleeping || b->kind == SIM_STATIC)
        return false;
    return b->kind != SIM_KINEMATIC ||
           !dv_is_zero(dim_part(w, (uint32_t)(b - w->slots.bodies.at))->vel);
}

/* The manifold of a pair, with speculative points when they are apart by less than
 * SIM_SPECULATIVE (Box2D v3's speculative contacts): B moved that far toward A is collided
 * and the depths taken back by as much, so a point's depth is negative while apart. The solver
 * then lets them close the gap and no more, so resting bodies keep their contact from step to
 * step instead of losing it whenever they stand a hair apart. */
static dmanifold speculative_collide(const dpart *a, const dpart *b)
{
    dmanifold m = dim_collide_within(a, b, b->pos, SIM_SPECULATIVE);
    if (m.count > 0 || !(m.distance < SIM_SPECULATIVE))
        return m;
    dvec shift = dv_scale(m.normal, -SIM_SPECULATIVE);
    dmanifold s = dim_collide_within(a, b, dv_add(b->pos, shift), DIM_SHIFTED_MARGIN);
    if (s.count == 0)
        return m;
    for (int i = 0; i < s.count; i++) {
        s.points[i].depth -= SIM_SPECULATIVE;
        s.points[i].point = dv_mad(s.points[i].point, -0.5f, shift);
    }
    s.depth -= SIM_SPECULATIVE;
    return s;
}

/* Whether two bodies touch now (a pair apart needs no exact gap); a level by its pieces. */
static bool touching_now(const sim_world *w, const sim_body *a, const sim_body *b)
{
    if (a->level || b->level) {
        const sim_body *lb = a->level ? a : b, *o = a->level ? b : a;
        const dpart *op = dim_part_of(w, o);
        return DIM_NAME(sim_level_deepest)(w, lb, &op->shape, dim_xf_at(op, op->pos),
                                           dv_sub(op->vel, dim_part_of(w, lb)->vel),
                                           COL_BACK_FACES_IGNORE, 0.0f)
                   .count > 0;
    }
    return dim_touching(dim_part_of(w, a), dim_part_of(w, b));
}

void DIM_NAME(sim_wake_touched)(sim_world *w)
{
    if (!dim_pairs_may_sleep(w))
        return; /* no pair has a sleeper to wake */
    const sim_pair *pairs = w->broad.pairs.at;
    for (size_t i = 0; i < w->broad.pairs.v.len; i++) {
        sim_body *a = &w->slots.bodies.at[pairs[i].a], *b = &w->slots.bodies.at[pairs[i].b];
        if (a->sleeping == b->sleeping)
            continue;
        sim_body *sleeper = a->sleeping ? a : b, *other = a->sleeping ? b : a;
        if (active(w, other) && dim_tight_overlap(w, pairs[i].a, pairs[i].b) &&
            touching_now(w, a, b))
            sim_wake(w, sleeper);
    }
}

/* Whether a mover takes part in the solver: not static, not asleep. */
static inline bool solves(const sim_body *b)
{
    return b->kind != SIM_STATIC && !b->sleeping;
}

/* Mover slot s's solver body, n. */
static inline void put_solver_body(sim_world *w, const sim_body *b, uint32_t s, size_t n)
{
    ddim *d = dim_of(w);
    const dpart *p = dim_part(w, s);
    dsolver_body sb = dim_solver_rest();
    sb.v = p->vel;
    sb.w = p->w;
    sb.gravity_scale = b->kind == SIM_KINEMATIC ? 0.0f : 1.0f;
    w->solver.index.at[s] = (uint32_t)n;
    d->solver_bodies.at[n] = sb;
    d->solver_info.at[n] = (dsolver_info){b->inv_mass, dim_solver_inv_inertia(b, p), s};
}

#define SIM_SOLVER_BODY_BLOCK 1024 /* movers a block of the workers' solver bodies */

/* The end of block k of n movers. */
static inline size_t block_end(size_t k, size_t n)
{
    size_t end = (k + 1) * SIM_SOLVER_BODY_BLOCK;
    return end < n ? end : n;
}

typedef struct solver_bodies_job {
    sim_world *w;
    const uint32_t *slots;
    size_t movers;
    uint32_t *starts; /* per block: its count, then its first solver body */
} solver_bodies_job;

static void count_range(void *ctx, size_t begin, size_t end)
{
    const solver_bodies_job *job = ctx;
    const sim_body *bodies = job->w->slots.bodies.at;
    for (size_t k = begin; k < end; k++) {
        size_t last = block_end(k, job->movers);
        uint32_t count = 0;
        for (size_t i = k * SIM_SOLVER_BODY_BLOCK; i < last; i++)
            count += solves(&bodies[job->slots[i]]);
        job->starts[k] = count;
    }
}

static void place_range(void *ctx, size_t begin, size_t end)
{
    const solver_bodies_job *job = ctx;
    sim_world *w = job->w;
    for (size_t k = begin; k < end; k++) {
        size_t last = block_end(k, job->movers);
        size_t n = job->starts[k];
        for (size_t i = k * SIM_SOLVER_BODY_BLOCK; i < last; i++) {
            uint32_t s = job->slots[i];
            const sim_body *b = &w->slots.bodies.at[s];
            if (solves(b))
                put_solver_body(w, b, s, n++);
            else
                w->solver.index.at[s] = 0;
        }
    }
}

void DIM_NAME(sim_build_solver_bodies)(sim_world *w)
{
    ddim *d = dim_of(w);
    d->solver_bodies.v.len = d->solver_info.v.len = 0;
    size_t movers;
    const uint32_t *slots = dim_movers(w, &movers);
    /* Room for the body at rest was reserved with the world (place_body); with room for every
     * body the arrays are written in place. Out of memory, no body moves this step. */
    bool room = mk_vec_reserve(&d->solver_bodies.v, movers + 1) &&
                mk_vec_reserve(&d->solver_info.v, movers + 1);
    d->solver_bodies.at[0] = dim_solver_rest();
    d->solver_info.at[0] = dim_solver_info_rest();
    size_t n = 1;
    size_t blocks = (movers + SIM_SOLVER_BODY_BLOCK - 1) / SIM_SOLVER_BODY_BLOCK;
    if (room && sim_pool_workers(w->pool) > 1 && blocks > 1 &&
        mk_vec_resize(&w->solver.body_blocks.v, blocks)) {
        /* On the workers: each block's count, then (after their sum before it) its bodies,
         * in the same places as one by one. */
        solver_bodies_job job = {w, slots, movers, w->solver.body_blocks.at};
        sim_pool_for(w->pool, blocks, 1, count_range, &job);
        for (size_t k = 0; k < blocks; k++) {
            uint32_t count = job.starts[k];
            job.starts[k] = (uint32_t)n;
            n += count;
        }
        sim_pool_for(w->pool, blocks, 1, place_range, &job);
    } else {
        for (size_t i = 0; i < movers; i++) {
            uint32_t s = slots[i];
            const sim_body *b = &w->slots.bodies.at[s];
            if (room && solves(b))
                put_solver_body(w, b, s, n++);
            else
                w->solver.index.at[s] = 0;
        }
    }
    d->solver_bodies.v.len = d->solver_info.v.len = n;
}

/* A constraint whose points are filled on the workers (fill_range): its pair, whose
 * narrow_item holds the manifold, and whether dim_fill_points found points to solve. */
typedef struct fill_item {
    uint32_t pair;
    bool ok;
    bool bounce; /* the constraint has restitution (dim_note_bounce), known when it was placed */
    bool fast;   /* placed by fast_pair: its header is written on the workers (place_fast) */
    bool kept;   /* a level pair's piece: its manifold is last step's, kept (a convex pair's
                  * narrow_item says so for it) */
    uint32_t child; /* a level pair's piece: its manifold's index in solver.level_children;
                     * NO_CHILD for a convex pair */
    uint32_t solved; /* a fast pair's place in solver.solved (a level pair lists more entries
                      * than constraints, so it is not the constraint's index) */
} fill_item;

#define NO_CHILD UINT32_MAX

/* A constraint's ends, materials and cache entry, from its bodies (ordered as pair_bodies
 * orders them). */
static inline void constraint_header(sim_world *w, dconstraint *c, const sim_body *a,
                                     const sim_body *b, uint32_t entry)
{
    c->a = w->solver.index.at[sim_id_slot(a->id)];
    c->b = w->solver.index.at[sim_id_slot(b->id)];
    c->friction = sim_pair_friction(a, b);
    c->restitution = sim_pair_restitution(a, b);
    const dsolver_info *si = dim_of(w)->solver_info.at;
    c->ma = si[c->a].inv_mass;
    c->mb = si[c->b].inv_mass;
    c->fixed = c->ma == 0.0f || c->mb == 0.0f;
    c->cache_entry = entry;
}

/* A touching pair's contact, its depths clamped at 0 (the solver's speculative points are not
 * the users' business). */
static void put_contact(dcontact *contact, const sim_body *a, const sim_body *b,
                        const dmanifold *m)
{
    *contact = (dcontact){a->id, b->id, *m};
    for (int k = 0; k < m->count; k++)
        contact->m.points[k].depth = mk_maxf(m->points[k].depth, 0.0f);
    contact->m.depth = mk_maxf(m->depth, 0.0f);
}

/* Marks a cache entry solved in this step, counting the entries solved in the last step too
 * (sim_cache_end_pairs then knows when none of those has ended). */
static inline void stamp(sim_world *w, sim_cache_head *h)
{
    w->solver.restamped += h->stamp + 1 == w->tick;
    h->stamp = w->tick;
}

/* found: the pair's cache entry (UINT32_MAX: none yet); kept: m is that entry's kept manifold
 * (dim_kept_manifold). With `fills`, the constraint is only placed in the list and its
 * points are left to fill_range; pair i's narrow_item then holds m, or for a level pair's
 * piece (child: its manifold's index in solver.level_children, else NO_CHILD) the level's
 * manifolds do. Returns whether it was placed with a cache entry. */
static inline bool add_constraint(sim_world *w, sim_pair *pair, const sim_body *a,
                                  const sim_body *b, const dmanifold *m, uint32_t found, bool kept,
                                  fill_item *fills, uint32_t i, uint32_t child)
{
    ddim *d = dim_of(w);
    size_t k = d->constraints.v.len;
    /* Built in place: sim_collide reserved one constraint a pair. */
    assert(k < d->constraints.v.cap);
    dconstraint *c = &d->constraints.at[k];
    uint32_t sa = sim_id_slot(a->id), sb = sim_id_slot(b->id);
    constraint_header(w, c, a, b, found);
    if (c->ma == 0.0f && c->mb == 0.0f)
        return false; /* a kinematic body against a sleeping one: nothing to solve */
    sim_cache *cache = &w->solver.cache;
    if (found == UINT32_MAX && child != NO_CHILD) {
        const dchild *ch = (const dchild *)w->solver.level_children.data + child;
        c->cache_entry = sim_cache_add_child(cache, a->id, b->id, ch->child + 1);
        if (ch->child == 0)
            pair->piece_entry = c->cache_entry + 1;
    } else if (found == UINT32_MAX) {
        c->cache_entry = sim_cache_add(cache, a->id, b->id);
        pair->entry = c->cache_entry + 1;
    }
    dcache_entry *e = (dcache_entry *)sim_cache_at(cache, c->cache_entry);
    stamp(w, &e->head);
    /* sim_collide made room for every pair. */
    assert(w->solver.solved.v.len < w->solver.solved.v.cap);
    w->solver.solved.at[w->solver.solved.v.len++] = c->cache_entry;
    if (fills) {
        fills[k] = (fill_item){i, false, dim_bounces(c), false, kept, child, 0};
        d->constraints.v.len = k + 1;
        return true;
    }
    if (dim_fill_points(w, c, e, dim_part(w, sa), dim_part(w, sb), m, kept)) {
        dim_finish_constraint(w, c, k);
        dim_note_bounce(w, c);
        d->constraints.v.len = k + 1;
    }
    return true;
}

/* A pair's collision, the part of the narrowphase that reads the bodies and the pair's own
 * cache entry alone: the pair's entry (UINT32_MAX: none yet), whether it keeps last step's
 * manifold (dim_kept_manifold), and the manifold. */
typedef struct narrow_item {
    dmanifold m;
    uint32_t found;
    uint8_t state; /* NARROW_* */
    bool kept;
} narrow_item;

enum {
    NARROW_SKIP,    /* nothing to collide: apart, or resolved by push-out */
    NARROW_DONE,    /* m, found and kept hold the pair's collision */
    NARROW_RESTING, /* both resting when collided: a wake later in the pass may change it */
};

size_t DIM_NAME(sim_narrow_item_size)(void) { return sizeof(narrow_item); }
size_t DIM_NAME(sim_narrow_fill_size)(void) { return sizeof(fill_item); }

/* A pair's bodies in one order per pair, so that its normal and feature ids persist. */
static void pair_bodies(sim_world *w, const sim_pair *pair, sim_body **a, sim_body **b)
{
    *a = &w->slots.bodies.at[pair->a];
    *b = &w->slots.bodies.at[pair->b];
    if ((*a)->id > (*b)->id) {
        sim_body *t = *a;
        *a = *b;
        *b = t;
    }
}

/* Whether either body of a pair has a level shape: never while the world has no level body,
 * which is then known without reading the bodies' level pointers (past their other fields). */
static inline bool level_pair_of(const sim_world *w, const sim_body *a, const sim_body *b)
{
    return w->slots.levels > 0 && (a->level || b->level);
}

/* The collision of a pair of convex bodies, ordered by pair_bodies, that are not both
 * resting, not the characters' and whose tight bounds overlap (the pass and collide_pair have
 * checked). */
static NARROW_INLINE void collide_bodies(sim_world *w, sim_pair *pair, const sim_body *a,
                                         const sim_body *b, narrow_item *it)
{
    it->state = NARROW_SKIP;
    uint32_t sa = sim_id_slot(a->id), sb = sim_id_slot(b->id);
    const dpart *pa = dim_part(w, sa), *pb = dim_part(w, sb);
    /* A pair proven apart has had no constraint since, so it keeps no manifold either. */
    if (dim_surely_apart(pa, pb) || dim_still_apart(pair, pa, pb))
        return;
    it->found = UINT32_MAX;
    dcache_entry *e = (dcache_entry *)sim_cache_find_hinted(&w->solver.cache, &pair->entry,
                                                            a->id, b->id, &it->found);
    it->kept = dim_kept_manifold(w, e, pa, pb);
    if (it->kept) {
        it->m = dim_manifold_of(e, pa, pb);
        pair->apart = 0.0f;
    } else {
        it->m = speculative_collide(pa, pb);
        dim_note_apart(pair, pa, pb, &it->m);
    }
    it->state = NARROW_DONE;
}

static void collide_pair(sim_world *w, sim_pair *pair, narrow_item *it)
{
    sim_body *a, *b;
    pair_bodies(w, pair, &a, &b);
    it->state = NARROW_SKIP;
    if (sim_body_resting(a) && sim_body_resting(b)) {
        it->state = NARROW_RESTING; /* a sleeping pair keeps its cache entry untouched */
        return;
    }
    if (sim_is_push_pair(a, b) || level_pair_of(w, a, b) ||
        !dim_tight_overlap(w, pair->a, pair->b))
        return; /* a level pair's pieces are sim_level_pairs' */
    collide_bodies(w, pair, a, b, it);
}

/* What the pass in pair order needs to know of a pair the workers collided, a byte a pair, as
 * Box2D v3's workers leave simFlags (and bits of a bitset) for its serial b2UpdateContacts to
 * read instead of the contacts: the pass then reads a few bytes a pair rather than the whole
 * manifold the other core wrote. */
enum {
    PAIR_SLOW = 1,       /* the pass takes the pair as one thread does: sleepers, characters,
                          * a new cache entry, events */
    PAIR_CONTACT = 2,    /* touching: a contact, copied on the workers (fast_contacts) */
    PAIR_CONSTRAINT = 4, /* a constraint on its found cache entry, set up on the workers */
};

static uint8_t pair_flags(const sim_world *w, const sim_pair *pair, const narrow_item *it)
{
    const sim_body *a = &w->slots.bodies.at[pair->a], *b = &w->slots.bodies.at[pair->b];
    /* A sleeper may wake in the pass and a character's contacts set its ground: in order. */
    if (it->state == NARROW_RESTING || a->sleeping || b->sleeping || a->kind == SIM_CHARACTER ||
        b->kind == SIM_CHARACTER || level_pair_of(w, a, b))
        return PAIR_SLOW;
    if (it->state != NARROW_DONE || it->m.count == 0)
        return 0;
    if (w->cfg.events || it->found == UINT32_MAX) /* events and new entries: in order */
        return PAIR_SLOW;
    uint8_t f = it->m.depth >= -SIM_TOUCHING ? PAIR_CONTACT : 0;
    const dsolver_info *si = dim_of((sim_world *)w)->solver_info.at;
    const uint32_t *index = w->solver.index.at;
    if (si[index[pair->a]].inv_mass == 0.0f && si[index[pair->b]].inv_mass == 0.0f)
        return f; /* nothing to solve (add_constraint) */
    return f | PAIR_CONSTRAINT;
}

/* A contact of a fast pair: its place in the contacts and its pair. */
typedef struct fast_contact {
    uint32_t contact, pair;
} fast_contact;

/* The workers' part of the narrowphase in the solver's `narrow` array: a narrow_item a pair,
 * then a flag byte a pair, then room for a fast_contact a pair; false when out of memory. */
static bool narrow_scratch(sim_world *w, size_t n, narrow_item **items, uint8_t **flags,
                           fast_contact **contacts)
{
    size_t at_flags = n * sizeof(narrow_item), at_contacts = at_flags + (n + 7) / 8 * 8;
    size_t bytes = at_contacts + n * sizeof(fast_contact);
    if (!mk_vec_reserve(&w->solver.narrow, (bytes + sizeof(narrow_item) - 1) / sizeof(narrow_item)))
        return false;
    char *base = w->solver.narrow.data;
    *items = (narrow_item *)(void *)base;
    *flags = (uint8_t *)(base + at_flags);
    *contacts = (fast_contact *)(void *)(base + at_contacts);
    return true;
}

typedef struct narrow_job {
    sim_world *w;
    narrow_item *items;
    uint8_t *flags;
} narrow_job;

/* Whether the world has no characters and no levels: then no pair is a push-out or level
 * pair, every pair is collided or skipped by collide_bodies, and one whose tight bounds are
 * apart is nothing to the pass whatever its bodies, which need not be read. */
static inline bool plain_world(const sim_world *w)
{
    return w->slots.characters == 0 && w->slots.levels == 0;
}

static void collide_range(void *arg, size_t begin, size_t end)
{
    const narrow_job *job = arg;
    sim_world *w = job->w;
    sim_pair *pairs = w->broad.pairs.at;
    bool plain = plain_world(w); /* as on one thread */
    for (size_t i = begin; i < end; i++) {
        if (plain && !dim_tight_overlap(w, pairs[i].a, pairs[i].b)) {
            job->items[i].state = NARROW_SKIP;
            job->flags[i] = 0;
            continue;
        }
        collide_pair(w, &pairs[i], &job->items[i]);
        job->flags[i] = pair_flags(w, &pairs[i], &job->items[i]);
    }
}

/* The pass's step for a pair the workers found needs no order (no PAIR_SLOW): it takes the
 * next contact and constraint places, to be filled on the workers. False for a slow pair. */
static bool fast_pair(sim_world *w, uint8_t f, uint32_t i, fill_item *fills, fast_contact *fc,
                      size_t *n_fc)
{
    if (f & PAIR_SLOW)
        return false;
    ddim *d = dim_of(w);
    if (f & PAIR_CONTACT)
        fc[(*n_fc)++] = (fast_contact){(uint32_t)d->contacts.v.len++, i};
    if (f & PAIR_CONSTRAINT) {
        uint32_t at = (uint32_t)w->solver.solved.v.len++; /* written by place_fast */
        fills[d->constraints.v.len++] = (fill_item){i, false, false, true, false, NO_CHILD, at};
    }
    return true;
}

/* The fast pairs' contacts, copied on the workers in the same run as the constraints' points
 * (fill_constraints): one wait for the workers fewer. */
typedef struct contact_job {
    sim_world *w;
    const narrow_item *items;
    const fast_contact *fc;
    size_t n;
} contact_job;

static void contact_range(const contact_job *job, size_t begin, size_t end)
{
    sim_world *w = job->w;
    for (size_t k = begin; k < end; k++) {
        sim_body *a, *b;
        pair_bodies(w, &w->broad.pairs.at[job->fc[k].pair], &a, &b);
        put_contact(&dim_of(w)->contacts.at[job->fc[k].contact], a, b,
                    &job->items[job->fc[k].pair].m);
    }
}

/* A fast pair's constraint k, what add_constraint does in the pass: its header, its entry's
 * stamp and its place in the entries solved. */
static void place_fast(sim_world *w, dconstraint *c, fill_item *f, const narrow_item *it,
                       size_t solved_at)
{
    sim_body *a, *b;
    pair_bodies(w, &w->broad.pairs.at[f->pair], &a, &b);
    constraint_header(w, c, a, b, it->found);
    ((dcache_entry *)sim_cache_at(&w->solver.cache, it->found))->head.stamp = w->tick;
    w->solver.solved.at[solved_at] = it->found;
    f->bounce = dim_bounces(c);
}

#define SIM_NARROW_GRAIN 64 /* pairs a worker takes at least at once */

typedef struct fill_job {
    sim_world *w;
    const narrow_item *items;
    fill_item *fills;
    size_t n;            /* constraints */
    size_t threads;      /* the workers' shares (fill_or_copy_range) */
    contact_job contacts; /* the fast contacts */
    atomic_bool dropped; /* some constraint had no points to solve */
    atomic_bool bounce;  /* some constraint with points has restitution */
} fill_job;

/* The points of constraints placed by add_constraint, on the workers: each reads the bodies
 * and writes only its constraint and its pair's cache entry. */
static void fill_range(void *arg, size_t begin, size_t end)
{
    fill_job *job = arg;
    bool dropped = false, bounce = false;
    sim_world *w = job->w;
    dconstraint *cs = dim_of(w)->constraints.at;
    const sim_pair *pairs = w->broad.pairs.at;
    for (size_t k = begin; k < end; k++) {
        dconstraint *c = &cs[k];
        const narrow_item *it = &job->items[job->fills[k].pair];
        if (job->fills[k].fast)
            place_fast(w, c, &job->fills[k], it, job->fills[k].solved);
        const sim_pair *pair = &pairs[job->fills[k].pair];
        uint32_t child = job->fills[k].child;
        const dmanifold *m =
            child == NO_CHILD ? &it->m : &((const dchild *)w->solver.level_children.data)[child].m;
        sim_body *a, *b;
        pair_bodies(w, pair, &a, &b);
        dcache_entry *e = (dcache_entry *)sim_cache_at(&w->solver.cache, c->cache_entry);
        job->fills[k].ok = dim_fill_points(w, c, e, dim_part(w, sim_id_slot(a->id)),
                                           dim_part(w, sim_id_slot(b->id)), m,
                                           child == NO_CHILD ? it->kept : job->fills[k].kept);
        if (job->fills[k].ok) {
            dim_finish_constraint(w, c, k);
            bounce |= job->fills[k].bounce;
        } else {
            dropped = true;
        }
    }
    /* Written only when true: the workers do not take turns with the line for nothing. */
    if (dropped)
        atomic_store_explicit(&job->dropped, true, memory_order_relaxed);
    if (bounce)
        atomic_store_explicit(&job->bounce, true, memory_order_relaxed);
}

/* The fill job's items, as the workers take them: for each worker's share in turn (of
 * `threads`), that share of the constraints, then that share of the fast contacts. Both lists
 * are in the pairs' order, so a worker fills and copies the pairs it collided (collide_range
 * took the pairs in the same shares), whose items and bodies are in its own cache; with the
 * constraints first and the contacts after, one worker filled every constraint and the other
 * copied every contact, each reading half of its pairs from the other core. */
static void fill_or_copy_range(void *arg, size_t begin, size_t end)
{
    fill_job *job = arg;
    size_t nc = job->n, nf = job->contacts.n, c = job->threads;
    size_t t = 0; /* the share that item `begin` is in */
    while (t + 1 < c && begin >= nc * (t + 1) / c + nf * (t + 1) / c)
        t++;
    size_t at = nc * t / c + nf * t / c; /* where that share starts */
    while (begin < end) {
        size_t c0 = nc * t / c, c1 = nc * (t + 1) / c, f0 = nf * t / c, f1 = nf * (t + 1) / c;
        size_t share_end = at + (c1 - c0) + (f1 - f0);
        size_t stop = end < share_end ? end : share_end;
        size_t split = at + (c1 - c0); /* the share's contacts start here */
        if (begin < split)
            fill_range(job, c0 + (begin - at), c0 + ((stop < split ? stop : split) - at));
        if (stop > split) {
            size_t from = begin > split ? begin : split;
            contact_range(&job->contacts, f0 + (from - split), f0 + (stop - split));
        }
        begin = stop;
        at = share_end;
        t++;
    }
}

/* Fills the placed constraints on the workers, then drops those without points, keeping the
 * others' order: the list comes out as the one-by-one pass makes it. */
static void fill_constraints(sim_world *w, const narrow_item *items, fill_item *fills,
                             contact_job contacts)
{
    mk_vec *cv = &dim_of(w)->constraints.v;
    size_t threads = (size_t)sim_pool_workers(w->pool);
    fill_job job = {w, items, fills, cv->len, threads, contacts, false, false};
    sim_pool_for(w->pool, cv->len + contacts.n, SIM_NARROW_GRAIN, fill_or_copy_range, &job);
    if (!atomic_load_explicit(&job.dropped, memory_order_relaxed)) {
        w->solver.bounce |= atomic_load_explicit(&job.bounce, memory_order_relaxed);
        return; /* every constraint stays where it is */
    }
    size_t n = 0;
    for (size_t k = 0; k < cv->len; k++) {
        if (!fills[k].ok)
            continue;
        if (n != k)
            dim_move_constraint(w, k, n);
        /* From the fill item, not the constraint, which another core may have written. */
        w->solver.bounce |= fills[k].bounce;
        n++;
    }
    cv->len = n;
}

/* A touching pair's contact for the step's list, and what touching does: a sleeping body
 * that something active touches wakes, a character on ground is grounded. */
static inline void note_touching(sim_world *w, sim_body *a, sim_body *b, const dmanifold *m,
                                 dvec up)
{
    ddim *d = dim_of(w);
    put_contact(&d->contacts.at[d->contacts.v.len++], a, b, m);
    /* Touching a sleeping body that the wake pass did not reach (it was woken later
     * in that pass): it takes this step as if static and wakes for the next. */
    if (a->sleeping && active(w, b))
        sim_wake(w, a);
    if (b->sleeping && active(w, a))
        sim_wake(w, b);
    b->grounded |= dim_is_ground(b, m->normal, up);
    a->grounded |= dim_is_ground(a, dv_neg(m->normal), up);
}

/* A pair with a level body: a contact and a constraint per piece it touches (sim_level_pairs
 * collided them), each with the cache entry of its piece; and the pair's own entry (child 0,
 * no points), which is stamped and listed as solved while any piece is, so that it stands
 * for the body pair from its first touching step to its last, as a convex pair's entry
 * does. The pieces' contacts are adjacent in the step's list. */
static void level_pair(sim_world *w, sim_pair *pair, sim_body *a, sim_body *b, dvec up,
                       const sim_level_span *sp, fill_item *fills, uint32_t i)
{
    const dchild *ch = (const dchild *)w->solver.level_children.data;
    sim_cache *cache = &w->solver.cache;
    bool placed = false;
    for (uint32_t k = sp->first; k < sp->first + sp->count; k++) {
        const dmanifold *m = &ch[k].m;
        if (w->cfg.events)
            DIM_NAME(sim_hit_check)(w, a, b, m);
        if (m->depth >= -SIM_TOUCHING)
            note_touching(w, a, b, m, up);
        uint32_t found = UINT32_MAX;
        sim_cache_find_piece(cache, &pair->piece_entry, a->id, b->id, ch[k].child + 1, &found);
        placed |= add_constraint(w, pair, a, b, m, found, sp->kept, fills, i, k);
    }
    if (!placed)
        return;
    uint32_t found = UINT32_MAX;
    sim_cache_head *e = sim_cache_find_hinted(cache, &pair->entry, a->id, b->id, &found);
    if (!e) {
        found = sim_cache_add(cache, a->id, b->id);
        pair->entry = found + 1;
        e = sim_cache_at(cache, found);
    }
    stamp(w, e);
    w->solver.solved.at[w->solver.solved.v.len++] = found;
}

/* With more than one worker, every pair is collided on the workers first (collide_pair writes
 * only the pair, its item and its own cache entry); the pass in the pairs' order then turns
 * the collisions into contacts, wakes, cache entries and places in the constraint list one by
 * one, as the pass alone does: a pair found resting by the workers that a wake in this pass
 * reached is collided there, as it would have been. The constraints' points are then filled
 * on the workers again (fill_constraints). So the constraints, their order and the cache come
 * out the same with any number of workers. */
void DIM_NAME(sim_collide)(sim_world *w, dvec up)
{
    ddim *d = dim_of(w);
    size_t n_pairs = w->broad.pairs.v.len;
    dim_clear_constraints(w);
    w->solver.push_pairs.v.len = 0;
    d->contacts.v.len = 0;
    /* The pairs with a level body first: how many manifolds they make is known only then. */
    bool level_ok;
    size_t room = n_pairs + DIM_NAME(sim_level_pairs)(w, &level_ok);
    if (!sim_cache_reserve_step(w, room) ||
        !mk_vec_reserve(&w->solver.solved.v, w->solver.solved.v.len + room) ||
        !dim_reserve_constraints(w, room) ||
        !mk_vec_reserve(&w->solver.push_pairs.v, n_pairs) ||
        !mk_vec_reserve(&d->contacts.v, room))
        return; /* out of memory: this step has no contacts */

    narrow_item *items = NULL;
    fill_item *fills = NULL;
    uint8_t *flags = NULL;
    fast_contact *fc = NULL;
    size_t n_fc = 0;
    if (sim_pool_workers(w->pool) > 1 && n_pairs > SIM_NARROW_GRAIN &&
        narrow_scratch(w, n_pairs, &items, &flags, &fc) &&
        mk_vec_reserve(&w->solver.narrow_fills, room)) {
        fills = w->solver.narrow_fills.data;
        narrow_job job = {w, items, flags};
        sim_pool_for(w->pool, n_pairs, SIM_NARROW_GRAIN, collide_range, &job);
    } else {
        items = NULL;
    }
    size_t first_solved = w->solver.solved.v.len;
    w->solver.restamped = 0;
    sim_pair *pairs = w->broad.pairs.at;
    const sim_level_span *spans = w->solver.level_spans.data;
    size_t span = 0, n_spans = w->solver.level_spans.len;
    w->ev.in_collide = true; /* a sleeper woken in the pass skipped its pairs (events.c) */
    /* On one thread, in a plain world (plain_world), a pair whose tight bounds are apart is
     * skipped before its bodies are read, and the others are not asked what they cannot be. */
    bool plain = !items && plain_world(w);
    for (size_t i = 0; i < n_pairs; i++) {
        if (fills && fast_pair(w, flags[i], (uint32_t)i, fills, fc, &n_fc))
            continue;
        if (plain && !dim_tight_overlap(w, pairs[i].a, pairs[i].b))
            continue;
        sim_body *a, *b;
        pair_bodies(w, &pairs[i], &a, &b);
        if (sim_body_resting(a) && sim_body_resting(b))
            continue; /* a sleeping pair keeps its cache entry untouched */
        uint32_t sa = sim_id_slot(a->id), sb = sim_id_slot(b->id);
        if (!plain && sim_is_push_pair(a, b)) {
            sim_pair p = {.a = sa, .b = sb};
            mk_vec_push(&w->solver.push_pairs.v, &p);
            continue; /* resolved after the solver, with fresh manifolds */
        }
        if (!plain && level_pair_of(w, a, b)) {
            while (span < n_spans && spans[span].pair < i)
                span++;
            if (span < n_spans && spans[span].pair == i)
                level_pair(w, &pairs[i], a, b, up, &spans[span], fills, (uint32_t)i);
            continue;
        }
        narrow_item here;
        narrow_item *it = items ? &items[i] : &here;
        if (!items || it->state == NARROW_RESTING) { /* a wake in this pass reached it */
            it->state = NARROW_SKIP;
            if (plain || dim_tight_overlap(w, pairs[i].a, pairs[i].b))
                collide_bodies(w, &pairs[i], a, b, it);
        }
        if (it->state != NARROW_DONE || it->m.count == 0)
            continue;
        const dmanifold *m = &it->m;
        if (w->cfg.events)
            DIM_NAME(sim_hit_check)(w, a, b, m);
        if (m->depth >= -SIM_TOUCHING)
            note_touching(w, a, b, m, up);
        add_constraint(w, &pairs[i], a, b, m, it->found, it->kept, fills, (uint32_t)i, NO_CHILD);
    }
    w->ev.in_collide = false;
    if (fills) {
        fill_constraints(w, items, fills, (contact_job){w, items, fc, n_fc});
    }
    sim_cache_end_pairs(w, first_solved);
}

void DIM_NAME(sim_store_impulses)(sim_world *w, const uint32_t *only, size_t n)
{
    const dconstraint *cs = dim_of(w)->constraints.at;
    for (size_t k = 0; k < n; k++) {
        const dconstraint *c = &cs[only ? only[k] : k];
        dcache_entry *e = (dcache_entry *)sim_cache_at(&w->solver.cache, c->cache_entry);
        for (int i = 0; i < c->count; i++)
            dim_store_point(e, i, &c->points[i]);
    }
}

