/* The world's private state and the passes of its step, shared by the files of mink_sim;
 * each module's own types are in its header (static_tree.h, contact_cache.h,
 * solver.h, body_rules.h, broadphase.h, mass.h). */
#ifndef MINK_SIM_WORLD_INTERNAL_H
#define MINK_SIM_WORLD_INTERNAL_H

#include "contact_cache.h"
#include "mink_sim.h"
#include "pool.h"
#include "mk_vec.h"
#include "static_tree.h"

#define SIM_WIDE_COLORS 16 /* the wide solvers' colors (solver.h, graph_color.c) */

struct sim_world {
    sim_config cfg;
    uint64_t tick;
    void (*step)(sim_world *w); /* the dimension's step: sim_world_step2 or sim_world_step3 */

    sim_body *bodies; /* slots */
    uint32_t *generation;
    size_t slot_count, slot_cap, body_count;
    mk_vec free_slots;    /* uint32_t, reusable now */
    mk_vec pending_slots; /* uint32_t, reusable after sim_world_clear_removed */
    mk_vec removed;       /* sim_id */

    /* Broadphase: sort and sweep on x over the moving bodies' fattened bounds (broadphase.c),
     * and a tree over the static ones (static_tree.c, region.c). */
    mk_vec order;  /* uint32_t slots of the bodies that are not static, by bounds min x */
    /* The same slots in slot order: the passes over the moving bodies that any order serves
     * (controls, bounds, solver bodies) read the bodies one after the other in memory rather
     * than hopping about as the order on x does. */
    mk_vec movers;
    bool order_unsorted; /* a fat box moved since the order was last sorted */
    float fat_half_max;  /* m: no fat box in `order` is wider than twice this on x */
    mk_vec statics;     /* uint32_t slots of the static bodies */
    sim_tree tree;       /* over the statics' bounds */
    bool statics_dirty;  /* a static body came or went: the tree is built anew */
    /* Some moving body is kinematic this step (step.c): a sweep that stops only at static and
     * kinematic bodies reads the order too, not the statics' tree alone (sweep.c). */
    bool kinematic_movers;
    mk_vec shape_box;   /* col_aabb3 per slot: the shape's bounds after the last step */
    mk_vec hits;        /* uint32_t: the bodies found by the last query (region.c) */
    mk_vec near_bits;   /* uint64_t: one bit a slot, all clear between queries (region.c) */
    mk_vec bounds; /* col_aabb per slot: fat bounds (2D); a static body's are its own */
    mk_vec tight;  /* col_aabb per slot: the shape grown by what it can reach this step */
    bool pairs_dirty; /* a body came or went: the pairs are computed anew */
    mk_vec pairs;  /* sim_pair */
    mk_vec pairs_prev; /* sim_pair: the list before the last was made anew (broadphase.c) */
    /* 2D: a pair of the list may have a sleeping body. The list is made anew whenever a body
     * falls asleep or wakes (pairs_dirty), so this holds until then. */
    bool pairs_sleeper;
    mk_vec sweep;  /* float: the sorted bounds' min x, max x, min y, max y (broadphase.c) */

    mk_vec contacts; /* sim_contact2 of the last step */

    /* Dynamics (solver.c, contact_cache.c, sleep.c). */
    sim_cache cache;          /* impulses of the touching pairs */
    mk_vec solved;           /* uint32_t: cache entries solved in the last step */
    mk_vec solver_bodies;    /* sim_solver_body, [0] at rest */
    mk_vec solver_info;      /* sim_solver_info, at the same indices */
    mk_vec constraints;      /* sim_constraint */
    bool constraints_bounce;  /* one of them has restitution */
    mk_vec push_pairs;       /* sim_pair: characters against fixed bodies and each other */
    uint32_t *solver_index;   /* per slot: its solver body, 0 for static and sleeping ones */
    mk_vec wide_groups;      /* sim_wide_group */
    mk_vec wide_cold;        /* sim_wide_cold, at the same indices */
    mk_vec wide_bits;        /* uint64_t: a bitset of bodies per color */
    mk_vec wide_order;       /* uint32_t: constraints by color */
    mk_vec wide_overflow;    /* uint32_t: constraints with no color */
    mk_vec wide_colors;      /* uint8_t: each constraint's color */
    mk_vec wide_ends;        /* uint32_t: each constraint's two movable bodies, or 0 */
    mk_vec wide_groups3;     /* sim_wide_group3 */
    uint32_t *island;         /* per slot: union-find parent, for sleeping (sleep.c) */
    float *island_sleep;      /* per slot: an island root's shortest sleep time */
    uint32_t *ring;           /* per slot: an island root's first body put to sleep */
    sim_id loaded_ring;       /* a body of the ring that a saved world's sleepers form */

    /* 3D worlds (world3.c and the files compiled for both dimensions). */
    sim_body3 *bodies3;     /* per slot */
    mk_vec bounds3;        /* col_aabb3 per slot: fat bounds (3D); a static body's are its own */
    mk_vec tight3;         /* col_aabb3 per slot */
    mk_vec contacts3;      /* sim_contact3 of the last step */
    mk_vec constraints3;   /* sim_constraint3 */
    mk_vec rows3;          /* sim_rows3 of the constraints solved one by one */
    mk_vec solver_bodies3; /* sim_solver_body3, [0] at rest */
    mk_vec solver_info3;   /* sim_solver_info3, at the same indices */

    /* Queries' scratch and the history of placements (history.c), made on first use. */
    struct sim_history *history;
    /* The step's parallel parts (pool.c): the workers, NULL for one. */
    sim_pool *pool;
    mk_vec narrow;  /* the narrowphase's per-pair results when it runs on the workers */
    mk_vec narrow_fills; /* the constraints it fills on the workers (contacts.c) */
    uint32_t wide_color_groups[SIM_WIDE_COLORS + 1]; /* the first group of each color, and
                                                         * the end */

    /* Changes made from outside the step (sim_world_on_change). */
    sim_change_fn on_change;
    void *change_ctx;
};

/* Every growable array of the world with the size of its items (world.c): one list that
 * sim_world_new, sim_world_free and the world's image (image.c) all walk, so that none is
 * left unsized, unfreed or unsaved. */
typedef struct world_vec {
    mk_vec *v;
    size_t item;
} world_vec;
#define WORLD_VECS 48
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
/* The size of the narrowphase's per-pair result (w->narrow's item) of each dimension. */
size_t sim_narrow_item_size2(void);
size_t sim_narrow_item_size3(void);
size_t sim_narrow_fill_size2(void);
size_t sim_narrow_fill_size3(void);

/* Wakes a sleeping body and every body that fell asleep with it (sleep.c). */
void sim_wake(sim_world *w, sim_body *b);
/* Puts to sleep the islands of touching bodies that have all rested long enough. */
void sim_sleep_islands(sim_world *w, float dt);

/* Continuous collision for a fast body (sweep.c): when its motion d over this step of dt
 * seconds would hit a static or kinematic body, moves it to the time of impact, resolves the
 * impact (sim_impact_of) and returns true; returns false (and changes
 * nothing) otherwise. */
bool sim_sweep2(sim_world *w, sim_body *b, mk_vec2 d, float dt);
bool sim_sweep3(sim_world *w, sim_body *b, mk_vec3 d, float dt);

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

#endif
