/* Filters (filter.c): each slot's filter and sensor flag, kept beside the bodies so that the
 * step's hot loops do not carry them, and the count that lets every pair collide at no cost in
 * a world that uses none. */
#ifndef MINK_SIM_FILTER_H
#define MINK_SIM_FILTER_H

#include "mink_sim.h"
#include "mk_vec.h"

/* A slot's filter and whether its body is a sensor. */
typedef struct sim_slot_filter {
    sim_filter f;
    bool sensor;
} sim_slot_filter;

typedef struct sim_filters {
    MK_VEC(sim_slot_filter) slots; /* per slot: a free slot's is the default */
    /* Bodies (and anything else: a joint that lets its bodies pass) that can stop a pair from
     * colliding: while none, every pair collides and sim_pair_collides reads nothing more.
     * Made again from the slots when an image is read (sim_filters_recount). */
    size_t active;
} sim_filters;

/* Whether the bodies of slots a and b collide, the world holding some rule that can stop a
 * pair (sim_filters.active): neither is a sensor, and their filters collide. The narrowphase's
 * pairs, the sweep and the ground snap ask through sim_pair_collides (world_internal.h). */
bool sim_pair_filtered(const sim_world *w, uint32_t a, uint32_t b);
/* Whether sensor s sees the body of slot b: b is no sensor, the two filters collide, and they
 * are not both static. */
bool sim_sensor_sees(const sim_world *w, uint32_t s, uint32_t b);
/* Whether the body of slot s has a category that meets `mask` (0: every body does). */
bool sim_filter_meets(const sim_world *w, uint32_t s, uint64_t mask);
/* The body of slot s is placed from `def`, or is about to leave its slot. */
void sim_filter_place(sim_world *w, uint32_t s, const sim_body_def *def);
void sim_filter_clear(sim_world *w, uint32_t s);
/* Counts `active` again from the slots (a world read from its image). */
void sim_filters_recount(sim_world *w);

#endif
