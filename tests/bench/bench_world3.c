/* The 3D world scene pile3d N: the benchmark layout of 1 m cubes in columns of ten (the server's
 * `--scene pile3d:N`), timed step by step. No 3D peer library is packaged for Debian 12 (Jolt
 * and Bullet's figures for the same scene are in docs/BENCHMARKS.md); the row says so. */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "mink_world_io.h"

void bench_scene_pile3(const bench_opts *o, int n)
{
    char name[32];
    snprintf(name, sizeof name, "pile3d %d", n);
    bench_row r;
    bench_row_init(&r, name);
    r.bodies = n;
    sim_config cfg = sim_config_default();
    cfg.sleep = !o->no_sleep;
    cfg.workers = o->workers;
    if ((uint32_t)n + 1 > cfg.max_bodies)
        cfg.max_bodies = (uint32_t)n + 1;
    mk_error err = {0};
    sim_world *w = wio_scene_pile3(n, &cfg, &err);
    if (!w) {
        bench_note(&r, "%s", err.message);
        bench_row_print(&r);
        return;
    }
    bench_step_stats s = bench_world_steps(w, o->steps);
    r.step_mean_ms = s.mean_ms;
    r.step_p99_ms = s.p99_ms;
    size_t slots, awake = 0, resting = 0, contacts;
    double top = 0.0;
    const sim_body *b = sim_world_slots(w, &slots);
    for (size_t i = 0; i < slots; i++) {
        if (b[i].id == 0 || b[i].kind != SIM_DYNAMIC)
            continue;
        const sim_body3 *b3 = sim_body3_of(w, &b[i]);
        awake += !b[i].sleeping;
        resting += b[i].sleeping || mk_v3_len(b3->vel) < (float)BENCH_REST_SPEED;
        if (b3->pos.y > top)
            top = b3->pos.y;
    }
    sim_world_contacts3(w, &contacts);
    bench_note(&r, "sleep %s; %zu awake at the end, %zu/%d resting, top y %.2f m, %zu contacts; "
               "no 3D peer installable here (Jolt 5.5: 1.34 / 7.91 ms for 1,000 / 5,000)",
               o->no_sleep ? "off" : "on", awake, resting, n, top, contacts);
    snprintf(r.peer, sizeof r.peer, "none");
    bench_row_print(&r);
    sim_world_free(w);
}
