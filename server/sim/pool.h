/* The step's worker pool (pool.c): threads started once with the world that run the parallel
 * parts of a step (narrowphase, solver colors, integration) beside the stepping thread, as
 * Box2D v3's task system and Jolt's job system do. A parallel part is a range of items whose
 * results do not depend on which thread handles which item (each item writes only its own
 * memory), so a world steps bit for bit the same with any number of workers. */
#ifndef MINK_SIM_POOL_H
#define MINK_SIM_POOL_H

#include <stddef.h>

typedef struct sim_pool sim_pool;

/* Runs items [begin, end) of a parallel part. */
typedef void sim_task_fn(void *ctx, size_t begin, size_t end);

/* A pool of `workers` threads in all, the caller's included (workers - 1 are started); NULL
 * for one worker, or when the threads could not be started (the caller then runs every part
 * alone, which gives the same results). */
sim_pool *sim_pool_new(int workers);
void sim_pool_free(sim_pool *p);
/* Threads that take part in a parallel part, the caller's included (1 for NULL). */
int sim_pool_workers(const sim_pool *p);
/* Between begin and end (one step) the workers wait for parts by spinning, so that a part
 * starts within a microsecond; outside they sleep. */
void sim_pool_begin(sim_pool *p);
void sim_pool_end(sim_pool *p);
/* Runs fn over [0, n) in blocks of at least `grain` items, on every worker, and returns when
 * all are done. Runs it on the caller alone for a NULL pool, outside begin/end, or when n is
 * at most grain. */
void sim_pool_for(sim_pool *p, size_t n, size_t grain, sim_task_fn *fn, void *ctx);

#endif
