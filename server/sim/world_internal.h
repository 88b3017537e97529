/* The world's private state, shared by the files of mink_sim. */
#ifndef MINK_SIM_WORLD_INTERNAL_H
#define MINK_SIM_WORLD_INTERNAL_H

#include "mink_sim.h"

/* A pair of slots whose fattened bounds overlap: a candidate for the narrowphase. */
typedef struct sim_pair {
    uint32_t a, b;
    float height; /* m: the lower body's position along "up", the order of resolution */
} sim_pair;

/* A growable array of fixed-size items: it grows when the world grows and is reused every
 * step, so the step allocates nothing once the world has its size. */
typedef struct sim_vec {
    void *data;
    size_t len, cap, item;
} sim_vec;

bool sim_vec_push(sim_vec *v, const void *item);
bool sim_vec_reserve(sim_vec *v, size_t cap);
void sim_vec_free(sim_vec *v);

struct sim_world {
    sim_config cfg;
    uint64_t tick;

    sim_body *bodies; /* slots */
    uint32_t *generation;
    size_t slot_count, slot_cap, body_count;
    sim_vec free_slots;    /* uint32_t, reusable now */
    sim_vec pending_slots; /* uint32_t, reusable after sim_world_clear_removed */
    sim_vec removed;       /* sim_id */

    /* Broadphase: sort and sweep on x over fattened bounds (see broadphase.c). */
    sim_vec order;  /* uint32_t slots, sorted by bounds min x */
    sim_vec bounds; /* col_aabb per slot */
    sim_vec pairs;  /* sim_pair */

    sim_vec contacts; /* sim_contact of the last step */
};

/* Continuous collision for a fast body (sweep.c): when its motion this step of dt seconds
 * would hit a static or kinematic body, moves it to the time of impact, removes its velocity
 * into that body and returns true; returns false (and changes nothing) otherwise. */
bool sim_sweep(sim_world *w, sim_body *b, float dt);

/* Keeps a character on the ground it walks down (sweep.c): moves it down along -up by at most
 * `reach` onto walkable ground (within its max_slope) and returns true, or returns false and
 * changes nothing when no walkable ground is that close. */
bool sim_snap_to_ground(sim_world *w, sim_body *b, mk_vec2 up, float reach);

/* Fills w->pairs with the candidate pairs of the current positions. */
void sim_broadphase(sim_world *w, float margin);

#endif
