/* The price of events: pile2d 2000 (the pile2d scene's layout) stepped with the world keeping
 * no events and keeping them (contacts beginning and ending, hits, and a sensor across the
 * pile's lower rows), taken and cleared after each step as the server does, the two runs
 * alternated three times; the row's step times are the runs with events, the note says what
 * the events cost a step against the runs without. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "mink_world_io.h"

#define EVENTS_PILE 2000
#define EVENTS_ROUNDS 3

static sim_body_def box_at(sim_kind kind, double x, double y, double hx, double hy, bool sensor)
{
    sim_body_def d;
    memset(&d, 0, sizeof d);
    d.shape.type = COL_SHAPE_BOX;
    d.shape.half = mk_v2((float)hx, (float)hy);
    d.pos = mk_v2((float)x, (float)y);
    d.kind = kind;
    d.density = 1.0f;
    d.friction = (float)BENCH_FRICTION;
    d.sensor = sensor;
    return d;
}

/* The pile stepped o->steps times: the mean and p99 of its steps, the events it kept. */
static bench_step_stats run(const bench_opts *o, const bench_boxes *layout, bool events,
                            size_t *kept)
{
    sim_config cfg = sim_config_default();
    cfg.sleep = !o->no_sleep;
    cfg.workers = o->workers;
    cfg.events = events;
    sim_world *w = sim_world_new(&cfg);
    sim_body_def ground = box_at(SIM_STATIC, 0.0, -0.5, layout->ground_half, 0.5, false);
    sim_body_def band = box_at(SIM_STATIC, 0.0, 1.5, layout->ground_half, 1.0, true);
    bool ok = w && sim_world_add(w, &ground, 0) != 0 && sim_world_add(w, &band, 0) != 0;
    for (int i = 0; ok && i < layout->n; i++) {
        sim_body_def d = box_at(SIM_DYNAMIC, layout->x[i], layout->y[i], BENCH_BOX_HALF,
                                BENCH_BOX_HALF, false);
        ok = sim_world_add(w, &d, 0) != 0;
    }
    if (!ok) {
        fprintf(stderr, "mink-bench: the world could not hold the events scene\n");
        exit(1);
    }
    uint64_t *ns = bench_xcalloc((size_t)o->steps, sizeof *ns);
    *kept = 0;
    for (int i = 0; i < o->steps; i++) {
        uint64_t t = bench_now_ns();
        sim_world_step(w);
        size_t n;
        sim_world_events(w, &n);
        sim_world_clear_events(w);
        ns[i] = bench_now_ns() - t;
        *kept += n;
    }
    bench_step_stats s = bench_step_stats_of(ns, (size_t)o->steps);
    free(ns);
    sim_world_free(w);
    return s;
}

static int by_mean(const void *pa, const void *pb)
{
    double a = ((const bench_step_stats *)pa)->mean_ms, b = ((const bench_step_stats *)pb)->mean_ms;
    return (a > b) - (a < b);
}

void bench_scene_events(const bench_opts *o)
{
    bench_row r;
    bench_row_init(&r, "pile2d 2000 events");
    bench_boxes layout;
    bench_layout_pile(EVENTS_PILE, &layout);
    r.bodies = EVENTS_PILE;
    bench_step_stats off[EVENTS_ROUNDS], on[EVENTS_ROUNDS];
    size_t kept = 0, none;
    for (int k = 0; k < EVENTS_ROUNDS; k++) {
        off[k] = run(o, &layout, false, &none);
        on[k] = run(o, &layout, true, &kept);
    }
    bench_boxes_free(&layout);
    qsort(off, EVENTS_ROUNDS, sizeof *off, by_mean);
    qsort(on, EVENTS_ROUNDS, sizeof *on, by_mean);
    bench_step_stats a = off[EVENTS_ROUNDS / 2], b = on[EVENTS_ROUNDS / 2];
    r.step_mean_ms = b.mean_ms;
    r.step_p99_ms = b.p99_ms;
    bench_note(&r, "sleep %s; the median of %d runs each way, alternated: without events "
               "%.4f ms a step (p99 %.4f), with them %.4f: %+.4f ms (%+.1f%%) a step for %zu "
               "events over the run (contacts, hits, a sensor band across the lower rows)",
               o->no_sleep ? "off" : "on", EVENTS_ROUNDS, a.mean_ms, a.p99_ms, b.mean_ms,
               b.mean_ms - a.mean_ms, 100.0 * (b.mean_ms - a.mean_ms) / a.mean_ms, kept);
    bench_row_print(&r);
}
