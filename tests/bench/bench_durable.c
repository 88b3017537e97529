/* The scene `save`: what a durable save (--save) costs the tick. A pile of N boxes steps at
 * 60 Hz as the server steps it; every 2 s of ticks the world's image is copied between two
 * steps (sim_world_image_copy into a buffer kept from one snapshot to the next, as
 * server/net/durable.c does) and a second thread checksums it, writes it and fsync()s it
 * (wio_snapshot_write), as libuv's worker does. The row gives the ticks' mean and p99 and,
 * in its note, the worst tick while a snapshot was being written against the worst without,
 * the copy on the loop and the write off it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "mink_world_io.h"

#define SAVE_EVERY 120 /* ticks */

typedef struct writer {
    pthread_t thread;
    const char *path;
    const void *image;
    size_t len;
    uint64_t tick, hash, write_ns;
    volatile int done;
} writer;

static void *write_one(void *arg)
{
    writer *w = arg;
    uint64_t t0 = bench_now_ns();
    mk_error err = {0};
    if (wio_snapshot_write(w->path, w->tick, w->hash, w->image, w->len, &err) != 0)
        fprintf(stderr, "mink-bench: save: %s\n", err.message);
    w->write_ns = bench_now_ns() - t0;
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

void bench_scene_save(const bench_opts *o, int n)
{
    bench_row r;
    char name[32];
    snprintf(name, sizeof name, "save pile2d:%d", n);
    bench_row_init(&r, name);
    sim_config cfg = sim_config_default();
    cfg.sleep = !o->no_sleep;
    mk_error err = {0};
    sim_world *w = wio_scene_pile2(n, &cfg, &err);
    if (!w) {
        fprintf(stderr, "mink-bench: save: %s\n", err.message);
        return;
    }
    r.bodies = (long)sim_world_body_count(w);
    char path[64];
    snprintf(path, sizeof path, "/tmp/mink-bench-save-%d", (int)getpid());
    int steps = o->steps < 4 * SAVE_EVERY ? 4 * SAVE_EVERY : o->steps;
    uint64_t *ns = bench_xcalloc((size_t)steps, sizeof *ns);
    void *image = NULL;
    size_t cap = 0;
    writer wr = {.path = path, .done = 1};
    bool writing = false;
    uint64_t worst_writing = 0, worst_idle = 0, worst_copy = 0, write_total = 0;
    int saves = 0;
    for (int t = 0; t < steps; t++) {
        uint64_t t0 = bench_now_ns();
        sim_world_step(w);
        if (writing && __atomic_load_n(&wr.done, __ATOMIC_ACQUIRE)) {
            pthread_join(wr.thread, NULL);
            write_total += wr.write_ns;
            writing = false;
        }
        if (t % SAVE_EVERY == SAVE_EVERY - 1 && !writing) {
            size_t len = sim_world_image_size(w);
            if (len > cap) {
                /* Faulted in once, as the server does (durable.c). */
                free(image);
                cap = len + len / 4;
                image = bench_xcalloc(cap, 1);
                memset(image, 1, cap);
                memset(image, 0, cap);
            }
            uint64_t c0 = bench_now_ns();
            sim_world_image_copy(w, image);
            uint64_t copy = bench_now_ns() - c0;
            worst_copy = copy > worst_copy ? copy : worst_copy;
            wr = (writer){.path = path, .image = image, .len = len, .tick = sim_world_tick(w),
                          .hash = sim_world_hash(w)};
            /* The first buffer is allocated here; the server's is, with its first snapshot,
             * before its first tick: it is not counted against a tick. */
            if (saves == 0)
                t0 = c0;
            pthread_create(&wr.thread, NULL, write_one, &wr);
            writing = true;
            saves++;
        }
        ns[t] = bench_now_ns() - t0;
        uint64_t *worst = writing ? &worst_writing : &worst_idle;
        *worst = ns[t] > *worst ? ns[t] : *worst;
        /* At 60 Hz: what is left of the tick's 16.7 ms is the loop's to wait. */
        uint64_t left = bench_now_ns() - t0;
        if (left < 16666667u) {
            struct timespec wait = {0, (long)(16666667u - left)};
            nanosleep(&wait, NULL);
        }
    }
    if (writing) {
        pthread_join(wr.thread, NULL);
        write_total += wr.write_ns;
    }
    bench_step_stats s = bench_step_stats_of(ns, (size_t)steps);
    r.step_mean_ms = s.mean_ms;
    r.step_p99_ms = s.p99_ms;
    bench_note(&r, "%d snapshots of %.1f MB; worst tick %.2f ms while one was written, %.2f ms "
                   "otherwise; copy on the loop %.2f ms at worst; write + fsync off it %.1f ms "
                   "mean", saves, (double)wr.len / 1e6, (double)worst_writing / 1e6,
               (double)worst_idle / 1e6, (double)worst_copy / 1e6,
               saves ? (double)write_total / (double)saves / 1e6 : 0.0);
    bench_row_print(&r);
    unlink(path);
    free(image);
    free(ns);
    sim_world_free(w);
}
