/* World scenes: the embedded demo, and piles of boxes dropped onto a wide ground, timed step by
 * step; the pile is also run through Chipmunk2D. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "mink_world_io.h"

static void boxes_alloc(bench_boxes *b, int n)
{
    b->n = n;
    b->x = malloc((size_t)n * sizeof *b->x);
    b->y = malloc((size_t)n * sizeof *b->y);
    if (!b->x || !b->y) {
        fprintf(stderr, "mink-bench: out of memory\n");
        exit(1);
    }
}

void bench_layout_pile(int n, bench_boxes *out)
{
    boxes_alloc(out, n);
    int cols = (n + BENCH_PILE_ROWS - 1) / BENCH_PILE_ROWS;
    for (int i = 0; i < n; i++) {
        int col = i / BENCH_PILE_ROWS, row = i % BENCH_PILE_ROWS;
        out->x[i] = ((double)col - 0.5 * (double)(cols - 1)) * BENCH_PILE_DX;
        out->y[i] = 0.55 + (double)row * BENCH_PILE_DY;
    }
    /* A toppled column reaches out about its height from the pile's edge. */
    out->ground_half = 0.5 * (double)cols * BENCH_PILE_DX + 50.0;
}

void bench_layout_pyramid(int base, bench_boxes *out)
{
    boxes_alloc(out, base * (base + 1) / 2);
    double h = BENCH_BOX_HALF;
    int k = 0;
    for (int i = 0; i < base; i++) {
        for (int j = i; j < base; j++, k++) {
            out->x[k] = (i + 1.0) * h + 2.0 * (j - i) * h - h * base;
            out->y[k] = (2.0 * i + 1.0) * h;
        }
    }
    out->ground_half = base * h + 50.0;
}

void bench_boxes_free(bench_boxes *b)
{
    free(b->x);
    free(b->y);
    b->x = b->y = NULL;
}

sim_body_def bench_box_body(sim_kind kind, double x, double y, double hx, double hy)
{
    sim_body_def d;
    memset(&d, 0, sizeof d);
    d.shape.type = COL_SHAPE_BOX;
    d.shape.half = mk_v2((float)hx, (float)hy);
    d.pos = mk_v2((float)x, (float)y);
    d.kind = kind;
    d.density = 1.0f;
    d.friction = (float)BENCH_FRICTION;
    return d;
}

/* A box as the server makes it from a spec with the protocol's defaults. */
static sim_body_def box_def(sim_kind kind, double x, double y, double hx, double hy,
                            const char *tag)
{
    sim_body_def d = bench_box_body(kind, x, y, hx, hy);
    d.restitution = 0.0f;
    d.max_speed = (float)PROTO_DEFAULT_MAX_SPEED;
    d.jump_height = (float)PROTO_DEFAULT_JUMP_HEIGHT;
    snprintf(d.tag, sizeof d.tag, "%s", tag);
    return d;
}

/* What a world holds after its timed steps: its dynamic bodies, how many of them are awake and
 * how many rest (asleep, or slower than BENCH_REST_SPEED), its contacts, and the highest
 * body's centre, m. */
typedef struct {
    size_t dynamic, awake, resting, contacts;
    double top;
} world_end;

static void count_resting(sim_world *w, world_end *e)
{
    size_t n;
    const sim_body *b = sim_world_slots(w, &n);
    e->dynamic = e->awake = e->resting = 0;
    e->top = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (b[i].id == 0 || b[i].kind != SIM_DYNAMIC)
            continue;
        e->dynamic++;
        e->awake += !b[i].sleeping;
        if (b[i].sleeping || mk_v2_len(b[i].vel) < (float)BENCH_REST_SPEED)
            e->resting++;
        if (b[i].pos.y > e->top)
            e->top = b[i].pos.y;
    }
}

/* Steps the world o->steps times into r's step times, then counts what rests and touches. */
static world_end run_timed(const bench_opts *o, sim_world *w, bench_row *r)
{
    bench_step_stats s = bench_world_steps(w, o->steps);
    r->step_mean_ms = s.mean_ms;
    r->step_p99_ms = s.p99_ms;
    world_end e;
    count_resting(w, &e);
    sim_world_contacts2(w, &e.contacts);
    return e;
}

void bench_scene_demo(const bench_opts *o)
{
    bench_row r;
    bench_row_init(&r, "demo");
    sim_config cfg = sim_config_default();
    cfg.workers = o->workers;
    mk_error err = {0};
    sim_world *w = wio_scene_load(wio_demo_scene2, strlen(wio_demo_scene2), "demo", &cfg, &err);
    if (!w) {
        bench_note(&r, "scene did not load: %s", err.message);
        bench_row_print(&r);
        return;
    }
    r.bodies = (long)sim_world_body_count(w);
    world_end e = run_timed(o, w, &r);
    bench_note(&r, "embedded demo scene; at the end %zu/%zu dynamic bodies resting "
               "(|v| < %.2g m/s), %zu contacts", e.resting, e.dynamic, BENCH_REST_SPEED,
               e.contacts);
    bench_row_print(&r);
    sim_world_free(w);
}

/* Runs a box scene in Mink and, when installed, in Chipmunk; one row. */
static void scene_boxes(const bench_opts *o, const char *name, const bench_boxes *layout)
{
    bench_row r;
    bench_row_init(&r, name);
    int n = layout->n;
    r.bodies = n;

    sim_config cfg = sim_config_default();
    cfg.sleep = !o->no_sleep;
    cfg.workers = o->workers;
    cfg.bounds = mk_maxf(cfg.bounds, (float)layout->ground_half + 100.0f);
    if ((uint32_t)n + 1 > cfg.max_bodies)
        cfg.max_bodies = (uint32_t)n + 1;
    sim_world *w = sim_world_new(&cfg);
    sim_body_def ground = box_def(SIM_STATIC, 0.0, -0.5, layout->ground_half, 0.5, "ground");
    bool ok = w && sim_world_add(w, &ground, 0) != 0;
    for (int i = 0; ok && i < n; i++) {
        sim_body_def d = box_def(SIM_DYNAMIC, layout->x[i], layout->y[i], BENCH_BOX_HALF,
                                 BENCH_BOX_HALF, "crate");
        ok = sim_world_add(w, &d, 0) != 0;
    }
    if (!ok) {
        bench_note(&r, "the world could not hold the scene");
        bench_row_print(&r);
        sim_world_free(w);
        return;
    }
    world_end e = run_timed(o, w, &r);
    bench_note(&r, "sleep %s; mink: %zu awake at the end, %zu/%d resting, top y %.2f m, %zu "
               "contacts", o->no_sleep ? "off" : "on", e.awake, e.resting, n, e.top,
               e.contacts);
    if (e.dynamic != (size_t)n)
        bench_note(&r, ", %zu left the world", (size_t)n - e.dynamic);
    sim_world_free(w);

    snprintf(r.peer, sizeof r.peer, "chipmunk");
    if (o->no_peer) {
        snprintf(r.peer_time, sizeof r.peer_time, "not run");
        bench_row_print(&r);
        return;
    }
    bench_cp_boxes_result cp;
    if (!bench_cp_boxes(layout, o->steps, !o->no_sleep, &cp)) {
        snprintf(r.peer_time, sizeof r.peer_time, "not installed");
        bench_row_print(&r);
        return;
    }
    /* The ratio is taken against the faster of Chipmunk's two broadphases. */
    bool hash = cp.hash.mean_ms < cp.tree.mean_ms;
    bench_step_stats best = hash ? cp.hash : cp.tree;
    snprintf(r.peer, sizeof r.peer, "chipmunk %s", hash ? "hash" : "bbtree");
    snprintf(r.peer_time, sizeof r.peer_time, "%.3f ms", best.mean_ms);
    r.ratio = r.step_mean_ms / best.mean_ms;
    bench_note(&r, "; chipmunk (%s, %d iterations): %zu/%d resting, top y %.2f m; bbtree "
               "%.3f ms (p99 %.3f), hash %.3f ms (p99 %.3f)", hash ? "hash" : "bbtree",
               cp.iterations, hash ? cp.resting_hash : cp.resting_tree, n,
               hash ? cp.top_hash : cp.top_tree, cp.tree.mean_ms, cp.tree.p99_ms,
               cp.hash.mean_ms, cp.hash.p99_ms);
    bench_row_print(&r);
}

/* A 2D scene of boxes laid out by `layout`, named by `fmt` with its size. */
static void scene_laid_out(const bench_opts *o, const char *fmt, int size,
                           void (*layout)(int, bench_boxes *))
{
    char name[32];
    snprintf(name, sizeof name, fmt, size);
    bench_boxes b;
    layout(size, &b);
    scene_boxes(o, name, &b);
    bench_boxes_free(&b);
}

void bench_scene_pile(const bench_opts *o, int n)
{
    scene_laid_out(o, "pile2d %d", n, bench_layout_pile);
}

void bench_scene_pyramid(const bench_opts *o, int base)
{
    scene_laid_out(o, "pyramid %d", base, bench_layout_pyramid);
}
