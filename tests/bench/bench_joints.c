/* Joints: Box2D's joint_grid benchmark (its benchmark/ app's CreateJointGrid) built in Mink, 100 x
 * 100 discs of radius 0.4 m on a 1 m grid, each pinned to its neighbour above and to its left by
 * revolute joints, the top row's seven middle discs static: the grid hangs from them and folds
 * as it falls. Box2D runs it without sleeping for 500 steps at 60 Hz and 4 substeps; so does
 * this scene (the step count is Box2D's, not --steps). Box2D's discs are filtered apart by
 * their categories; Mink's pinned neighbours are kept apart by their joints (no `collide`),
 * and the rest may touch when the grid folds (the note counts the contacts at the end). The
 * peer is Box2D's own app, run beside mink-bench: `box2d_benchmark -b=joint_grid -t=1`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "mink_sim.h"

#define GRID 100
#define GRID_STEPS 500 /* Box2D's benchmark's for joint_grid */

void bench_scene_joint_grid(const bench_opts *o)
{
    bench_row r;
    bench_row_init(&r, "joint_grid");
    sim_config cfg = sim_config_default();
    cfg.sleep = false;
    cfg.workers = o->workers;
    sim_world *w = sim_world_new(&cfg);
    sim_id *ids = bench_xcalloc(GRID * GRID, sizeof *ids);
    sim_body_def d;
    memset(&d, 0, sizeof d);
    d.shape.type = COL_SHAPE_CIRCLE;
    d.shape.radius = 0.4f;
    d.density = 1.0f;
    d.friction = 0.6f;
    sim_joint_def j;
    memset(&j, 0, sizeof j);
    j.type = SIM_JOINT_REVOLUTE;
    bool ok = w != NULL;
    mk_error err = {0};
    for (int k = 0; ok && k < GRID; k++) {
        for (int i = 0; ok && i < GRID; i++) {
            d.kind = k >= GRID / 2 - 3 && k <= GRID / 2 + 3 && i == 0 ? SIM_STATIC : SIM_DYNAMIC;
            d.pos = mk_v2((float)k, (float)-i);
            sim_id id = sim_world_add(w, &d, 0);
            ok = id != 0;
            ids[k * GRID + i] = id;
            /* Pinned halfway to the disc above, and halfway to the disc on the left. */
            if (ok && i > 0) {
                j.a = ids[k * GRID + i - 1];
                j.b = id;
                j.anchor_a = mk_v3((float)k, 0.5f - (float)i, 0);
                ok = sim_world_add_joint(w, &j, 0, &err) != 0;
            }
            if (ok && k > 0) {
                j.a = ids[(k - 1) * GRID + i];
                j.b = id;
                j.anchor_a = mk_v3((float)k - 0.5f, (float)-i, 0);
                ok = sim_world_add_joint(w, &j, 0, &err) != 0;
            }
        }
    }
    free(ids);
    if (!ok) {
        bench_note(&r, "the world could not hold the scene: %s", err.message);
        bench_row_print(&r);
        sim_world_free(w);
        return;
    }
    r.bodies = (long)sim_world_body_count(w);
    int steps = o->quick ? 20 : GRID_STEPS;
    /* Box2D's app times all but the first step (which it calls expensive); so does this. */
    sim_world_step(w);
    uint64_t *ns = bench_xcalloc((size_t)steps, sizeof *ns);
    for (int i = 1; i < steps; i++) {
        uint64_t t = bench_now_ns();
        sim_world_step(w);
        ns[i - 1] = bench_now_ns() - t;
    }
    uint64_t total = 0;
    for (int i = 0; i < steps - 1; i++)
        total += ns[i];
    bench_step_stats s = bench_step_stats_of(ns, (size_t)steps - 1);
    free(ns);
    r.step_mean_ms = s.mean_ms;
    r.step_p99_ms = s.p99_ms;
    size_t contacts;
    sim_world_contacts2(w, &contacts);
    snprintf(r.peer, sizeof r.peer, "box2d");
    snprintf(r.peer_time, sizeof r.peer_time, "run beside");
    bench_note(&r,
               "%zu joints, sleep off, %d steps (the first untimed), %.1f ms in all (Box2D's "
               "app prints the same sum: box2d_benchmark -b=joint_grid -t=1); %zu contacts at "
               "the end",
               sim_world_joint_count(w), steps, (double)total / 1e6, contacts);
    bench_row_print(&r);
    sim_world_free(w);
}
