/* The step's worker pool. A part is published as one job: its function, its items and a claim
 * counter; every thread, the publishing one included, claims blocks of items with an atomic
 * add until none is left (Box2D v3's stage blocks, claimed the same way), and the publisher
 * waits until every item is done. Which thread runs which block changes from run to run; the
 * results do not, since a block writes only its own items.
 *
 * A job's fields are guarded by a sequence number, as a seqlock: the publisher makes it odd
 * while it writes them and even when they are whole, and first waits until no thread is still
 * inside the last job; a thread enters a job by counting itself in `busy` and reading the
 * sequence again, backing off when it changed. So a slow thread never runs a stale function
 * with a new job's items.
 *
 * Within a step the threads spin for the next part (with the pause hint, then yielding the
 * core when a part is long in coming), since a step publishes one part per solver color and
 * substep, and waking a sleeping thread costs more than most parts take; between steps they
 * sleep on a condition variable. */
#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define SIM_POOL_SPINS 4096  /* pauses before a waiting thread yields its core */
#define SIM_POOL_BLOCKS 4    /* blocks per thread a part is cut into, for balance */
#define SIM_POOL_MAX 64      /* threads at most */

struct sim_pool {
    int threads; /* started, the caller not counted */
    pthread_t tid[SIM_POOL_MAX];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_bool awake, quit;
    atomic_uint_fast64_t seq; /* even: the job is whole; odd: being written */
    atomic_int busy;          /* threads inside the current job */
    /* The job. */
    sim_task_fn *fn;
    void *ctx;
    size_t n, block;
    atomic_size_t next, done;
};

static inline void relax(void)
{
#if defined(__SSE2__)
    __builtin_ia32_pause();
#endif
}

/* Claims and runs blocks of the current job until none is left. */
static void run_blocks(sim_pool *p)
{
    sim_task_fn *fn = p->fn;
    void *ctx = p->ctx;
    size_t n = p->n, block = p->block;
    for (;;) {
        size_t begin = atomic_fetch_add(&p->next, block);
        if (begin >= n)
            return;
        size_t end = begin + block < n ? begin + block : n;
        fn(ctx, begin, end);
        atomic_fetch_add(&p->done, end - begin);
    }
}

static void *worker_main(void *arg)
{
    sim_pool *p = arg;
    uint_fast64_t seen = atomic_load(&p->seq);
    unsigned spins = 0;
    for (;;) {
        if (atomic_load(&p->quit))
            return NULL;
        uint_fast64_t s = atomic_load(&p->seq);
        if (s == seen || (s & 1)) {
            if (!atomic_load(&p->awake)) {
                pthread_mutex_lock(&p->mu);
                while (!atomic_load(&p->awake) && !atomic_load(&p->quit))
                    pthread_cond_wait(&p->cv, &p->mu);
                pthread_mutex_unlock(&p->mu);
                spins = 0;
            } else if (++spins < SIM_POOL_SPINS) {
                relax();
            } else {
                sched_yield();
            }
            continue;
        }
        spins = 0;
        atomic_fetch_add(&p->busy, 1);
        if (atomic_load(&p->seq) == s)
            run_blocks(p);
        atomic_fetch_sub(&p->busy, 1);
        seen = s;
    }
}

sim_pool *sim_pool_new(int workers)
{
    if (workers <= 1)
        return NULL;
    if (workers > SIM_POOL_MAX)
        workers = SIM_POOL_MAX;
    sim_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    atomic_init(&p->awake, false);
    atomic_init(&p->quit, false);
    atomic_init(&p->seq, 0);
    atomic_init(&p->busy, 0);
    atomic_init(&p->next, 0);
    atomic_init(&p->done, 0);
    for (int i = 0; i < workers - 1; i++) {
        if (pthread_create(&p->tid[i], NULL, worker_main, p) != 0)
            break;
        p->threads++;
    }
    if (p->threads == 0) {
        sim_pool_free(p);
        return NULL;
    }
    return p;
}

void sim_pool_free(sim_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->quit, true);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->threads; i++)
        pthread_join(p->tid[i], NULL);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

int sim_pool_workers(const sim_pool *p) { return p ? p->threads + 1 : 1; }

void sim_pool_begin(sim_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->awake, true);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void sim_pool_end(sim_pool *p)
{
    if (p)
        atomic_store(&p->awake, false);
}

void sim_pool_for(sim_pool *p, size_t n, size_t grain, sim_task_fn *fn, void *ctx)
{
    if (n == 0)
        return;
    if (!p || n <= grain || !atomic_load(&p->awake)) {
        fn(ctx, 0, n);
        return;
    }
    /* Write the job while no thread is inside the last one. */
    atomic_fetch_add(&p->seq, 1); /* odd */
    unsigned spins = 0;
    while (atomic_load(&p->busy) != 0)
        ++spins < SIM_POOL_SPINS ? relax() : (void)sched_yield();
    size_t parts = (size_t)(p->threads + 1) * SIM_POOL_BLOCKS;
    size_t block = (n + parts - 1) / parts;
    p->fn = fn;
    p->ctx = ctx;
    p->n = n;
    p->block = block > grain ? block : grain;
    atomic_store(&p->next, 0);
    atomic_store(&p->done, 0);
    atomic_fetch_add(&p->seq, 1); /* even: whole */
    run_blocks(p);
    spins = 0;
    while (atomic_load(&p->done) < n)
        ++spins < SIM_POOL_SPINS ? relax() : (void)sched_yield();
}
