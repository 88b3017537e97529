/* World queries against the piles (pile2d 20,000, pile3d 5,000, settled for a second with the
 * history on): rays with the first hit and with all hits, overlaps, shape casts, and rays at
 * a past tick, each timed over the same random queries as a brute-force scan of every body
 * with the same exact collision functions (the peer column), whose answers must agree: a
 * disagreement is counted in the note. Then the history's bytes per moving body per tick. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "mink_world_io.h"

typedef struct ray {
    mk_vec3 from, to;
} ray;

/* A body as the brute force sees it: its shape placed in the world (2D or 3D). */
typedef struct placed {
    sim_id id;
    const col_shape2 *s2;
    col_xf2 x2;
    const col_shape3 *s3;
    col_xf3 x3;
} placed;

/* The next body from slot *i on, every body in turn; false past the last. */
static bool next_body(sim_world *w, size_t *i, placed *p)
{
    size_t slots;
    const sim_body *b = sim_world_slots(w, &slots);
    for (; *i < slots; ++*i) {
        const sim_body *bi = &b[*i];
        if (bi->id == 0)
            continue;
        p->id = bi->id;
        p->s2 = NULL;
        p->s3 = NULL;
        if (sim_world_dim(w) == 2) {
            p->s2 = &bi->shape;
            p->x2 = (col_xf2){bi->pos, bi->angle};
        } else {
            const sim_body3 *b3 = sim_body3_of(w, bi);
            p->s3 = &b3->shape;
            p->x3 = (col_xf3){b3->pos, b3->rot};
        }
        ++*i;
        return true;
    }
    return false;
}

static int scan_ray(sim_world *w, ray r, sim_id *first, float *frac)
{
    int n = 0;
    *frac = 2.0f;
    placed p;
    for (size_t i = 0; next_body(w, &i, &p);) {
        bool hit;
        float f;
        if (p.s2) {
            col_ray_hit2 h = col_ray2(p.s2, p.x2, mk_v2(r.from.x, r.from.y),
                                      mk_v2(r.to.x, r.to.y));
            hit = h.hit;
            f = h.fraction;
        } else {
            col_ray_hit3 h = col_ray3(p.s3, p.x3, r.from, r.to);
            hit = h.hit;
            f = h.fraction;
        }
        if (!hit)
            continue;
        n++;
        if (f < *frac || (f == *frac && p.id < *first)) {
            *frac = f;
            *first = p.id;
        }
    }
    return n;
}

static int scan_overlap(sim_world *w, const sim_query_shape *q)
{
    int n = 0;
    placed p;
    for (size_t i = 0; next_body(w, &i, &p);) {
        if (p.s2)
            n += col_collide2(&q->shape2, q->xf2, p.s2, p.x2).count > 0;
        else
            n += col_collide3(&q->shape3, q->xf3, p.s3, p.x3).count > 0;
    }
    return n;
}

static float scan_cast(sim_world *w, const sim_query_shape *q, mk_vec3 move)
{
    float best = 2.0f;
    placed p;
    for (size_t i = 0; next_body(w, &i, &p);) {
        col_ray_hit2 h2 = {0};
        col_ray_hit3 h3 = {0};
        if (p.s2)
            h2 = col_cast2(&q->shape2, q->xf2, mk_v2(move.x, move.y), p.s2, p.x2);
        else
            h3 = col_cast3(&q->shape3, q->xf3, move, p.s3, p.x3);
        bool hit = p.s2 ? h2.hit : h3.hit;
        float f = p.s2 ? h2.fraction : h3.fraction;
        if (hit && f < best)
            best = f;
    }
    return best;
}

/* Shots into the pile: from above or beside it toward a random point in it, 30 m long. */
static ray random_ray(bench_rng *g, int dim, double half_x, double half_z, double top)
{
    mk_vec3 at = mk_v3((float)bench_rng_range(g, -half_x, half_x), (float)bench_rng_range(g, 0, top),
                       dim == 3 ? (float)bench_rng_range(g, -half_z, half_z) : 0.0f);
    mk_vec3 dir = mk_v3((float)bench_rng_range(g, -1, 1), (float)bench_rng_range(g, -1, 0.2),
                        dim == 3 ? (float)bench_rng_range(g, -1, 1) : 0.0f);
    dir = mk_v3_norm(dir);
    return (ray){mk_v3_sub(at, mk_v3_scale(dir, 15.0f)), mk_v3_add(at, mk_v3_scale(dir, 15.0f))};
}

static sim_query_shape ball_at(int dim, mk_vec3 p, float r)
{
    sim_query_shape q = {0};
    if (dim == 2) {
        q.shape2 = (col_shape2){.type = COL_SHAPE_CIRCLE, .radius = r};
        q.xf2 = (col_xf2){mk_v2(p.x, p.y), 0};
    } else {
        q.shape3 = (col_shape3){.type = COL_SHAPE3_SPHERE, .radius = r};
        q.xf3 = (col_xf3){p, mk_quat_identity()};
    }
    return q;
}

static void row_of(const char *scene, int n, const char *what, double ns, double ns_scan,
                   size_t disagree, size_t hits, size_t queries, const char *extra)
{
    char name[32];
    snprintf(name, sizeof name, "%s %s", scene, what);
    bench_row r;
    bench_row_init(&r, name);
    r.bodies = n;
    r.ns_op = ns;
    snprintf(r.peer, sizeof r.peer, "brute scan");
    snprintf(r.peer_time, sizeof r.peer_time, "%.0f ns", ns_scan);
    r.ratio = ns / ns_scan;
    bench_note(&r, "%.0f /s; %zu of %zu hit; %zu disagree with the scan%s", 1e9 / ns, hits,
               queries, disagree, extra);
    bench_row_print(&r);
}

static void queries_on(const bench_opts *o, int dim, int n)
{
    sim_config cfg = sim_config_default();
    cfg.dim = dim;
    cfg.sleep = !o->no_sleep;
    if ((uint32_t)n + 1 > cfg.max_bodies)
        cfg.max_bodies = (uint32_t)n + 1;
    mk_error err = {0};
    sim_world *w = dim == 2 ? wio_scene_pile2(n, &cfg, &err) : wio_scene_pile3(n, &cfg, &err);
    const char *scene = dim == 2 ? "pile2d" : "pile3d";
    if (!w || !sim_world_set_history(w, 60)) {
        fprintf(stderr, "mink-bench: %s %d: %s\n", scene, n, err.message);
        exit(1);
    }
    /* A second of falling and settling, with every moving body recorded each tick. */
    size_t most = 0, moving = 0;
    for (int t = 0; t < 60; t++) {
        size_t slots, awake = 0;
        const sim_body *b = sim_world_slots(w, &slots);
        for (size_t i = 0; i < slots; i++)
            awake += b[i].id != 0 && b[i].kind != SIM_STATIC && !b[i].sleeping;
        moving += awake;
        most = awake > most ? awake : most;
        sim_world_step(w);
    }
    double half_x = 0.5 * BENCH_PILE_DX * ceil(n / 10.0), half_z = half_x, top = 11.0;
    if (dim == 3) {
        double side = ceil(sqrt(ceil(n / 10.0)));
        half_x = half_z = 0.5 * BENCH_PILE_DX * side;
    }
    size_t nq = o->quick ? 200 : 2000, nscan = o->quick ? 20 : 100;
    ray *rays = bench_xcalloc(nq, sizeof *rays);
    bench_rng g = {0x5eedull + (uint64_t)dim};
    for (size_t i = 0; i < nq; i++)
        rays[i] = random_ray(&g, dim, half_x, half_z, top);
    static sim_hit hits[1024];
    size_t total;

    for (int all = 0; all < 2; all++) {
        size_t hit = 0, disagree = 0;
        uint64_t t0 = bench_now_ns();
        for (size_t i = 0; i < nq; i++)
            hit += sim_world_raycast(w, sim_world_tick(w), rays[i].from, rays[i].to, NULL, all,
                                     hits, 1024, &total) > 0;
        double ns = (double)(bench_now_ns() - t0) / (double)nq;
        t0 = bench_now_ns();
        for (size_t i = 0; i < nscan; i++) {
            sim_id id = 0;
            float f;
            int m = scan_ray(w, rays[i], &id, &f);
            sim_world_raycast(w, sim_world_tick(w), rays[i].from, rays[i].to, NULL, all, hits,
                              1024, &total);
            if (all ? (size_t)m != total : (m > 0) != (total > 0) || (m > 0 && hits[0].id != id))
                disagree++;
        }
        double ns_scan = (double)(bench_now_ns() - t0) / (double)nscan - ns;
        row_of(scene, n, all ? "rays all" : "rays first", ns, ns_scan, disagree, hit, nq,
               "; 30 m shots into the pile");
    }

    /* Overlaps: a ball of radius 1 m somewhere in the pile. Casts: a ball of 0.3 m moved 10 m. */
    size_t hit = 0, disagree = 0;
    uint64_t t0 = bench_now_ns();
    for (size_t i = 0; i < nq; i++) {
        sim_query_shape q = ball_at(dim, mk_v3_scale(mk_v3_add(rays[i].from, rays[i].to), 0.5f), 1);
        hit += sim_world_overlap(w, sim_world_tick(w), &q, NULL, hits, 1024, &total) > 0;
    }
    double ns = (double)(bench_now_ns() - t0) / (double)nq;
    t0 = bench_now_ns();
    for (size_t i = 0; i < nscan; i++) {
        sim_query_shape q = ball_at(dim, mk_v3_scale(mk_v3_add(rays[i].from, rays[i].to), 0.5f), 1);
        int m = scan_overlap(w, &q);
        sim_world_overlap(w, sim_world_tick(w), &q, NULL, hits, 1024, &total);
        disagree += (size_t)m != total;
    }
    row_of(scene, n, "overlaps", ns, (double)(bench_now_ns() - t0) / (double)nscan - ns, disagree,
           hit, nq, "; a 1 m ball");

    hit = disagree = 0;
    t0 = bench_now_ns();
    for (size_t i = 0; i < nq; i++) {
        sim_query_shape q = ball_at(dim, rays[i].from, 0.3f);
        mk_vec3 move = mk_v3_scale(mk_v3_sub(rays[i].to, rays[i].from), 1.0f / 3.0f);
        hit += sim_world_cast(w, sim_world_tick(w), &q, move, NULL, hits) > 0;
    }
    ns = (double)(bench_now_ns() - t0) / (double)nq;
    t0 = bench_now_ns();
    for (size_t i = 0; i < nscan; i++) {
        sim_query_shape q = ball_at(dim, rays[i].from, 0.3f);
        mk_vec3 move = mk_v3_scale(mk_v3_sub(rays[i].to, rays[i].from), 1.0f / 3.0f);
        float f = scan_cast(w, &q, move);
        int m = sim_world_cast(w, sim_world_tick(w), &q, move, NULL, hits);
        disagree += (f < 2.0f) != (m > 0) || (m > 0 && hits[0].fraction != f);
    }
    row_of(scene, n, "casts", ns, (double)(bench_now_ns() - t0) / (double)nscan - ns, disagree,
           hit, nq, "; a 0.3 m ball moved 10 m");

    /* Rays at the tick half a second back, and the history's size. */
    uint64_t back = sim_world_tick(w) - 30;
    /* The first query at a tick gathers the bodies as they were then (the records since it,
     * sorted on x); the next ones at that tick, until the world steps, reuse them. */
    uint64_t firsts[5];
    for (int k = 0; k < 5; k++) {
        t0 = bench_now_ns();
        sim_world_raycast(w, back - 5 + (uint64_t)k, rays[k].from, rays[k].to, NULL, false, hits,
                          1024, &total);
        firsts[k] = bench_now_ns() - t0;
    }
    /* The median of the five (bench_step_stats_of sorts them). */
    bench_step_stats_of(firsts, 5);
    double first_ns = (double)firsts[2];
    hit = 0;
    t0 = bench_now_ns();
    for (size_t i = 0; i < nq; i++)
        hit += sim_world_raycast(w, back, rays[i].from, rays[i].to, NULL, false, hits, 1024,
                                 &total) > 0;
    ns = (double)(bench_now_ns() - t0) / (double)nq;
    char name[32];
    snprintf(name, sizeof name, "%s rays at_tick-30", scene);
    bench_row r;
    bench_row_init(&r, name);
    r.bodies = n;
    r.ns_op = ns;
    size_t bytes = sim_world_history_bytes(w);
    r.bytes_op = (double)bytes / (double)(moving > 0 ? moving : 1);
    bench_note(&r, "%.0f /s, %zu of %zu hit, the first query at a tick %.2f ms (median of 5); history %.1f MB for "
               "%zu records (%zu moving at most, 60 ticks): bytes/op = bytes per moving body per "
               "tick (record %d)",
               1e9 / ns, hit, nq, first_ns / 1e6, (double)bytes / 1e6, moving, most,
               dim == 2 ? SIM_HISTORY_RECORD_BYTES2 : SIM_HISTORY_RECORD_BYTES3);
    bench_row_print(&r);
    free(rays);
    sim_world_free(w);
}

void bench_scene_rays(const bench_opts *o)
{
    queries_on(o, 2, o->quick ? 2000 : 20000);
    queries_on(o, 3, o->quick ? 1000 : 5000);
}
