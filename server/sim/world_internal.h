/* The world's private state and the passes of its step, shared by the files of mink_sim. The
 * world is a few parts, each declared in its module's header: the body pool (below), the
 * broadphase (broadphase.h), the solver (solver.h, with the contact cache of
 * contact_cache.h), the islands (sleep.h), and the arrays whose items differ by dimension
 * (sim_dim2 and sim_dim3 below, read through dim.h by the files compiled for both). */
#ifndef MINK_SIM_WORLD_INTERNAL_H
#define MINK_SIM_WORLD_INTERNAL_H

#include "broadphase.h"
#include "contact_cache.h"
#include "events.h"
#include "filter.h"
#include "joint.h"
#include "mink_sim.h"
#include "mk_vec.h"
#include "pool.h"
#include "sleep.h"
#include "solver.h"

/* The body pool (world.c): bodies in slots, addressed by ids that carry the slot's generation
 * (Box2D's id scheme). Every per-slot array of the world (these two, and those of the other
 * parts: SIM_VEC_SLOT in sim_world_vecs) has the slot count for its length. */
typedef struct sim_slots {
    MK_VEC(sim_body) bodies;     /* per slot: free where id == 0 */
    MK_VEC(uint32_t) generation; /* per slot: the generation the slot's next id carries */
    size_t live;                 /* bodies in the slots */
    /* Bodies with a level shape, and characters: while there is none of either, the
     * narrowphase skips its passes and tests for them (contacts.c, contacts_level.c).
     * Counted again when an image is read. */
    size_t levels, characters;
    MK_VEC(uint32_t) free;       /* slots reusable now */
    MK_VEC(uint32_t) pending;    /* slots reusable after sim_world_clear_removed */
    MK_VEC(sim_id) removed;      /* ids removed since sim_world_clear_removed */
} sim_slots;

/* The arrays of a 2D world whose items are 2D ones; a 3D world leaves them empty. sim_dim3 has
 * the same names, so that the files compiled for both dimensions read either one through
 * dim_of (dim.h), as parry keeps its 2D and 3D types apart under one set of names. */
typedef struct sim_dim2 {
    MK_VEC(col_aabb) bounds;               /* per slot: fat bounds; a static body's its own */
    MK_VEC(col_aabb) tight;                /* per slot: the shape grown by its reach this step */
    MK_VEC(sim_contact2) contacts;         /* of the last step */
    MK_VEC(sim_constraint) constraints;    /* the step's contacts to solve */
    MK_VEC(sim_solver_body) solver_bodies; /* [0] at rest */
    MK_VEC(sim_solver_info) solver_info;   /* at the same indices */
    MK_VEC(sim_wide_group) wide_groups;    /* the constraints four by four (solver_wide.c) */
    MK_VEC(sim_wide_cold) wide_cold;       /* at the same indices */
} sim_dim2;

/* The same of a 3D world, with its bodies' 3D parts. */
typedef struct sim_dim3 {
    MK_VEC(sim_body3) bodies;               /* per slot: the 3D part of that slot's body */
    MK_VEC(col_aabb3) bounds;               /* per slot */
    MK_VEC(col_aabb3) tight;                /* per slot */
    MK_VEC(sim_contact3) contacts;
    MK_VEC(sim_constraint3) constraints;
    MK_VEC(sim_rows3) rows;                 /* of the constraints solved one by one */
    MK_VEC(sim_solver_body3) solver_bodies;
    MK_VEC(sim_solver_info3) solver_info;
    MK_VEC(sim_wide_group3) wide_groups;    /* solver3_wide.c */
    /* The one-thread solve's blocks (solver3_blocks.c): the blocks, their colored constraints
     * by block and color, those solved one by one by block, and per solver body its block. */
    MK_VEC(sim_wide_block3) blocks;
    MK_VEC(uint32_t) block_order, block_one, block_of;
} sim_dim3;

struct sim_world {
    sim_config cfg;
    uint64_t tick;
    void (*step)(sim_world *w); /* the dimension's step: sim_world_step2 or sim_world_step3 */

    sim_slots slots;
    sim_broadphase broad;
    sim_solver solver;
    sim_islands islands;
    sim_dim2 d2;
    sim_dim3 d3;
    sim_joints joints; /* joint.c */

    /* Queries' scratch and the history of placements (history.c), made on first use. */
    struct sim_history *history;
    /* The step's parallel parts (pool.c): the workers, NULL for one. */
    sim_pool *pool;

    /* What happened since sim_world_clear_events (events.c). */
    MK_VEC(sim_event) events;
    /* Filters and sensors (filter.c), and what the events are found from (events.c). */
    sim_filters filter;
    sim_event_state ev;

    /* Changes made from outside the step (sim_world_on_change). */
    sim_change_fn on_change;
    void *change_ctx;
};

/* Appends an event (events.c); false when memory ran out. */
bool sim_emit_event(sim_world *w, const sim_event *e);

/* The slots in use (and the length of every per-slot array). */
static inline size_t sim_slot_count(const sim_world *w) { return w->slots.bodies.v.len; }

/* Whether the bodies of slots a and b collide: the one test of a pair, which the broadphase
 * asks before it lists a pair (so the narrowphase and the characters' push-out never meet one
 * that does not), and the sweep and the ground snap ask of what they would stop at. Free while
 * no rule can stop a pair (filter.h). */
static inline bool sim_pair_collides(const sim_world *w, uint32_t a, uint32_t b)
{
    return w->filter.active == 0 || sim_pair_filtered(w, a, b);
}

/* The body with this id, or NULL (world.c): sim_world_get for the world's own files, which
 * change the bodies. */
sim_body *sim_body_of(sim_world *w, sim_id id);
/* A 3D world's part of the body in `slot`. */
static inline sim_body3 *sim_part3(const sim_world *w, uint32_t slot)
{
    return &w->d3.bodies.at[slot];
}

/* Every growable array of the world with the size of its items (world.c): one list that
 * sim_world_new, sim_world_free, the slots' growth and the world's image (image.c) all walk,
 * so that none is left unsized, unfreed, ungrown or unsaved. */
enum {
    SIM_VEC_SLOT = 1,    /* per slot of the world: its length is the slot count */
    SIM_VEC_SCRATCH = 2, /* items not carried from one step to the next: the image keeps its
                          * length and room, and brings it back zeroed */
    SIM_VEC_REBUILT = 4, /* made anew from the rest when needed: not in the image */
};
typedef struct world_vec {
    mk_vec *v;
    size_t item;
    unsigned flags; /* SIM_VEC_* */
} world_vec;
#define WORLD_VECS 96
size_t sim_world_vecs(sim_world *w, world_vec out[WORLD_VECS]);

/* The narrowphase (contacts.c): wakes sleeping bodies that something awake touches, builds
 * the solver's bodies, turns touching pairs into constraints, push-out pairs and contacts,
 * and stores the solved impulses of the constraints only[0..n) (all n when only is NULL) for
 * the next step. */
void sim_wake_touched2(sim_world *w);
void sim_build_solver_bodies2(sim_world *w);
void sim_collide2(sim_world *w, mk_vec2 up);
void sim_store_impulses2(sim_world *w, const uint32_t *only, size_t n);
void sim_wake_touched3(sim_world *w);
void sim_build_solver_bodies3(sim_world *w);
void sim_collide3(sim_world *w, mk_vec3 up);
void sim_store_impulses3(sim_world *w, const uint32_t *only, size_t n);
/* The sizes of the narrowphase's per-pair result and fill item (sim_solver.narrow and
 * narrow_fills) of each dimension. */
size_t sim_narrow_item_size2(void);
size_t sim_narrow_item_size3(void);
size_t sim_narrow_fill_size2(void);
size_t sim_narrow_fill_size3(void);

/* Continuous collision for a fast body (sweep.c): when its motion d over this step of dt
 * seconds would hit a static or kinematic body, moves it to the time of impact, resolves the
 * impact (sim_impact_of) and returns true; returns false (and changes
 * nothing) otherwise. */
bool sim_sweep2(sim_world *w, sim_body *b, mk_vec2 d, float dt);
bool sim_sweep3(sim_world *w, sim_body *b, mk_vec3 d, float dt);

/* Whether sim_sweep would meet nothing, found without writing anything, so that threads may
 * ask at once: no body is kinematic and moving this step, and no static body's bounds (a
 * level's among them) meet the region the body's part p sweeps through by d. p is placed and
 * turned as sim_sweep will see it (in 3D the step's new rotation: the one the body holds when
 * it is swept). False when it cannot tell. */
bool sim_sweep_meets_nothing2(const sim_world *w, const sim_body *p, mk_vec2 d);
bool sim_sweep_meets_nothing3(const sim_world *w, const sim_body3 *p, mk_vec3 d);

/* Keeps a character on the ground it walks down (sweep.c): moves it down along -up by at most
 * `reach` onto walkable ground (within its max_slope) and returns true, or returns false and
 * changes nothing when no walkable ground is that close. */
bool sim_snap_to_ground2(sim_world *w, sim_body *b, mk_vec2 up, float reach);
bool sim_snap_to_ground3(sim_world *w, sim_body *b, mk_vec3 up, float reach);

/* The fixed step of each dimension (step.c compiled for it); a world takes its dimension's
 * when it is created (sim_world.step). */
void sim_world_step2(sim_world *w);
void sim_world_step3(sim_world *w);

/* Reports a change made from outside the step to the world's listener, if any (world.c). */
void sim_report_change(sim_world *w, sim_change_kind kind, const sim_body *body, uint32_t owner,
                       mk_vec3 move, bool jump);
void sim_report(sim_world *w, const sim_change *c);

/* ---- 3D worlds ---- */

/* The 3D world's bodies (world3.c). */
/* Fills slot's 3D part from the definition (a hull is copied); false when memory runs out. */
bool sim_place_body3(sim_world *w, const sim_body_def *def, uint32_t slot);
col_aabb3 sim_body_bounds3(const sim_body3 *b3);
/* The centre of mass in world space, m (contacts3.c). */
mk_vec3 sim_body_center3(const sim_body3 *b3);

/* Removes a body as sim_world_remove does, but unrecorded: the step's own removals follow from
 * the recorded inputs. */
bool sim_remove(sim_world *w, sim_id id);
/* Wakes body b with its island, and every sleeping body whose bounds come within the
 * speculative distance of b's shape where it is now (world.c): what may rest on it when it
 * goes or moves. */
void sim_wake_near(sim_world *w, sim_body *b);

#endif
