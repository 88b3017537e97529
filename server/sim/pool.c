/* The step's worker pool. A part is published as one job: its function and its items, cut
 * into one share a thread, each with its own claim counter. Every thread, the publishing one
 * included, claims blocks of its own share with an atomic add (Box2D v3's stage blocks,
 * claimed the same way), then of the others' shares until none is left, and the publisher
 * waits until every item is done. A thread's share is the same slice of every part of the same
 * size, so a solver color's constraints are solved by the same thread in every substep and
 * stay in its cache: on a machine where a cache line takes a fifth of a microsecond to move
 * between cores, that is what a second worker gains or loses by. Which thread runs which
 * block still changes from run to run; the results do not, since a block writes only its own
 * items.
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
#include <string.h>

#define SIM_POOL_SPINS 4096  /* pauses before a waiting thread yields its core */
#define SIM_POOL_BLOCKS 4    /* blocks per thread a part is cut into, for balance */
#define SIM_POOL_MAX 64      /* threads at most */

/* A thread's own share of a part, and the claim counter of its blocks, alone on its cache line
 * (the other thread claims from it only once its own share is done). */
typedef struct {
    _Alignas(64) atomic_size_t next;
    size_t end;
} share;

typedef struct {
    sim_pool *pool;
    int index; /* 1.. for the started threads; the caller is 0 */
} worker_arg;

struct sim_pool {
    int threads; /* started, the caller not counted */
    pthread_t tid[SIM_POOL_MAX];
    worker_arg args[SIM_POOL_MAX];
    share shares[SIM_POOL_MAX];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_bool awake, quit;
    atomic_uint_fast64_t seq; /* even: the job is whole; odd: being written */
    atomic_int busy;          /* threads inside the current job */
    /* The job. */
    sim_task_fn *fn;
    void *ctx;
    size_t n, block;
    _Alignas(64) atomic_size_t done;
};

static inline void relax(void)
{
#if defined(__SSE2__)
    __builtin_ia32_pause();
#endif
}

/* Claims and runs blocks of the current job until none is left: first of the thread's own
 * share, then of the others'. */
static void run_blocks(sim_pool *p, int self)
{
    sim_task_fn *fn = p->fn;
    void *ctx = p->ctx;
    size_t block = p->block;
    int count = p->threads + 1;
    size_t ran = 0; /* counted into done once, not per block: each add moves its cache line */
    for (int k = 0; k < count; k++) {
        share *sh = &p->shares[(self + k) % count];
        size_t end_of_share = sh->end;
        for (;;) {
            size_t begin = atomic_fetch_add(&sh->next, block);
            if (begin >= end_of_share)
                break;
            size_t end = begin + block < end_of_share ? begin + block : end_of_share;
            fn(ctx, begin, end);
            ran += end - begin;
        }
    }
    if (ran > 0)
        atomic_fetch_add(&p->done, ran);
}

static void *worker_main(void *arg)
{
    const worker_arg *me = arg;
    sim_pool *p = me->pool;
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
            run_blocks(p, me->index);
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
    /* The shares sit on cache lines of their own: calloc promises 16 bytes of alignment,
     * not the 64 the struct asks for. */
    size_t size = (sizeof(sim_pool) + 63) / 64 * 64;
    sim_pool *p = aligned_alloc(_Alignof(sim_pool), size);
    if (!p)
        return NULL;
    memset(p, 0, size);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    atomic_init(&p->awake, false);
    atomic_init(&p->quit, false);
    atomic_init(&p->seq, 0);
    atomic_init(&p->busy, 0);
    atomic_init(&p->done, 0);
    for (int i = 0; i < SIM_POOL_MAX; i++)
        atomic_init(&p->shares[i].next, 0);
    for (int i = 0; i < workers - 1; i++) {
        p->args[i] = (worker_arg){p, i + 1};
        if (pthread_create(&p->tid[i], NULL, worker_main, &p->args[i]) != 0)
            break;
        p->threads++;
    }
    if (p->threads == 0) {
        sim_pool_free(p);
        return NULL;
    }
    return p;
}

/* Sets a flag the sleeping workers wait on (awake or quit) and wakes them: under the mutex,
 * so that none misses it between its test and its wait. */
static void raise_and_wake(sim_pool *p, atomic_bool *flag)
{
    pthread_mutex_lock(&p->mu);
    atomic_store(flag, true);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void sim_pool_free(sim_pool *p)
{
    if (!p)
        return;
    raise_and_wake(p, &p->quit);
    for (int i = 0; i < p->threads; i++)
        pthread_join(p->tid[i], NULL);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

int sim_pool_workers(const sim_pool *p) { return p ? p->threads + 1 : 1; }

void sim_pool_begin(sim_pool *p)
{
    if (p)
        raise_and_wake(p, &p->awake);
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
    size_t count = (size_t)p->threads + 1;
    size_t parts = count * SIM_POOL_BLOCKS;
    size_t block = (n + parts - 1) / parts;
    p->fn = fn;
    p->ctx = ctx;
    p->n = n;
    p->block = block > grain ? block : grain;
    /* Each thread's share is the same slice of every part of the same size, so the items a
     * thread handled in one substep are in its own cache in the next. */
    for (size_t t = 0; t < count; t++) {
        atomic_store(&p->shares[t].next, n * t / count);
        p->shares[t].end = n * (t + 1) / count;
    }
    atomic_store(&p->done, 0);
    atomic_fetch_add(&p->seq, 1); /* even: whole */
    run_blocks(p, 0);
    spins = 0;
    while (atomic_load(&p->done) < n)
        ++spins < SIM_POOL_SPINS ? relax() : (void)sched_yield();
}
