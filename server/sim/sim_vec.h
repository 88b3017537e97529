/* Growable arrays of the world (world.c). */
#ifndef MINK_SIM_VEC_H
#define MINK_SIM_VEC_H

#include <stdbool.h>
#include <stddef.h>

/* A growable array of fixed-size items: it grows when the world grows and is reused every
 * step, so the step allocates nothing once the world has its size. */
typedef struct sim_vec {
    void *data;
    size_t len, cap, item;
} sim_vec;

bool sim_vec_push(sim_vec *v, const void *item);
bool sim_vec_reserve(sim_vec *v, size_t cap);
void sim_vec_free(sim_vec *v);

#endif
