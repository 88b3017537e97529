/* Sleeping by islands (sleep.c): the per-slot tables of the islands found each step, and the
 * wake that takes a body's whole island with it. */
#ifndef MINK_SIM_SLEEP_H
#define MINK_SIM_SLEEP_H

#include "mink_sim.h"
#include "mk_vec.h"

/* The islands of touching bodies, found anew each step by union-find (sleep.c). */
typedef struct sim_islands {
    MK_VEC(uint32_t) parent; /* per slot: union-find parent */
    MK_VEC(float) sleep;     /* per slot: an island root's shortest sleep time, s */
    MK_VEC(uint32_t) ring;   /* per slot: an island root's first body put to sleep */
    sim_id loaded_ring;      /* a body of the ring that a saved world's sleepers form */
} sim_islands;

/* Wakes a sleeping body and every body that fell asleep with it. */
void sim_wake(sim_world *w, sim_body *b);
/* Puts to sleep the islands of touching bodies that have all rested long enough. */
void sim_sleep_islands(sim_world *w, float dt);

#endif
