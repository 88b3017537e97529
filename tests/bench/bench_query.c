/* Query scenes: one AABB pair per call, through the collide table (col_collide2, what the
 * world's step calls) and directly (col_collide_aabb), against cpShapesCollide on the same
 * boxes. The pairs are made beforehand with a fixed seed, so the loops time the queries only. */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

#define QUERY_PAIRS 1000000
#define QUICK_PAIRS 100000
#define QUERY_PASSES 3 /* the fastest pass is reported, the others absorb noise */
#define HALF_MIN 0.1   /* m */
#define HALF_MAX 2.0   /* m */
#define CENTRE_RANGE 100.0 /* m: |x|, |y| of the first box's centre */

typedef struct query_result {
    double ns_table, ns_direct; /* per call */
    double sum;                 /* depths of hits plus distances of misses */
    size_t hits;
} query_result;

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p) {
        fprintf(stderr, "mink-bench: out of memory\n");
        exit(1);
    }
    return p;
}

/* Pairs that all overlap (hit) or all stay apart by 1 cm to 2 m along x or y (miss). */
static void make_pairs(bench_pairs *p, size_t n, bool hit, uint64_t seed)
{
    bench_rng rng = {seed};
    p->n = n;
    p->a = xcalloc(n, sizeof *p->a);
    p->b = xcalloc(n, sizeof *p->b);
    p->ia = xcalloc(n, sizeof *p->ia);
    p->ib = xcalloc(n, sizeof *p->ib);
    for (int i = 0; i < BENCH_PALETTE; i++) {
        p->pal_a[i] = mk_v2((float)bench_rng_range(&rng, HALF_MIN, HALF_MAX),
                            (float)bench_rng_range(&rng, HALF_MIN, HALF_MAX));
        p->pal_b[i] = mk_v2((float)bench_rng_range(&rng, HALF_MIN, HALF_MAX),
                            (float)bench_rng_range(&rng, HALF_MIN, HALF_MAX));
    }
    for (size_t i = 0; i < n; i++) {
        p->ia[i] = (uint8_t)(bench_rng_next(&rng) % BENCH_PALETTE);
        p->ib[i] = (uint8_t)(bench_rng_next(&rng) % BENCH_PALETTE);
        mk_vec2 ha = p->pal_a[p->ia[i]], hb = p->pal_b[p->ib[i]];
        double sx = (double)ha.x + (double)hb.x, sy = (double)ha.y + (double)hb.y;
        double dx, dy;
        if (hit) {
            /* Inside 90% of the summed extents on both axes: a sure overlap. */
            dx = bench_rng_range(&rng, -0.9, 0.9) * sx;
            dy = bench_rng_range(&rng, -0.9, 0.9) * sy;
        } else {
            double gap = bench_rng_range(&rng, 0.01, 2.0);
            double sign = bench_rng_next(&rng) & 1 ? 1.0 : -1.0;
            if (bench_rng_next(&rng) & 1) {
                dx = sign * (sx + gap);
                dy = bench_rng_range(&rng, -sy - 2.0, sy + 2.0);
            } else {
                dy = sign * (sy + gap);
                dx = bench_rng_range(&rng, -sx - 2.0, sx + 2.0);
            }
        }
        mk_vec2 ca = mk_v2((float)bench_rng_range(&rng, -CENTRE_RANGE, CENTRE_RANGE),
                           (float)bench_rng_range(&rng, -CENTRE_RANGE, CENTRE_RANGE));
        p->a[i] = (col_aabb){ca, ha};
        p->b[i] = (col_aabb){mk_v2(ca.x + (float)dx, ca.y + (float)dy), hb};
    }
}

static void free_pairs(bench_pairs *p)
{
    free(p->a);
    free(p->b);
    free(p->ia);
    free(p->ib);
}

static double pass_table(const bench_pairs *p, double *sum, size_t *hits)
{
    double s = 0.0;
    size_t h = 0;
    uint64_t t = bench_now_ns();
    for (size_t i = 0; i < p->n; i++) {
        col_shape2 sa = {.type = COL_SHAPE_AABB, .half = p->a[i].half};
        col_shape2 sb = {.type = COL_SHAPE_AABB, .half = p->b[i].half};
        col_manifold2 m = col_collide2(&sa, (col_xf2){p->a[i].center, 0.0f}, &sb,
                                       (col_xf2){p->b[i].center, 0.0f});
        h += m.count > 0;
        s += m.count > 0 ? (double)m.depth : (double)m.distance;
    }
    double ns = (double)(bench_now_ns() - t) / (double)p->n;
    *sum = s;
    *hits = h;
    return ns;
}

static double pass_direct(const bench_pairs *p, double *sum)
{
    double s = 0.0;
    uint64_t t = bench_now_ns();
    for (size_t i = 0; i < p->n; i++) {
        col_manifold2 m = col_collide_aabb(p->a[i], p->b[i]);
        s += m.count > 0 ? (double)m.depth : (double)m.distance;
    }
    double ns = (double)(bench_now_ns() - t) / (double)p->n;
    *sum = s;
    return ns;
}

static query_result run_mink(const bench_pairs *p, int passes)
{
    query_result r = {1e30, 1e30, 0.0, 0};
    for (int k = 0; k < passes; k++) {
        double sum_direct;
        double t = pass_table(p, &r.sum, &r.hits);
        r.ns_table = t < r.ns_table ? t : r.ns_table;
        t = pass_direct(p, &sum_direct);
        r.ns_direct = t < r.ns_direct ? t : r.ns_direct;
        if (sum_direct != r.sum)
            fprintf(stderr, "mink-bench: col_collide2 and col_collide_aabb disagree\n");
    }
    return r;
}

static void query_row(const bench_opts *o, bool hit)
{
    bench_row r;
    bench_row_init(&r, hit ? "query aabb hit" : "query aabb miss");
    bench_pairs p;
    size_t n = o->quick ? QUICK_PAIRS : QUERY_PAIRS;
    int passes = o->quick ? 1 : QUERY_PASSES;
    make_pairs(&p, n, hit, hit ? 0x9E3779B97F4A7C15ULL : 0xD1B54A32D192ED03ULL);

    query_result m = run_mink(&p, passes);
    r.ns_op = m.ns_table;
    bench_note(&r, "%zu pairs, best of %d pass%s; mink col_collide2 (the world's collide "
               "table), col_collide_aabb direct %.1f ns, %zu hits, %s sum %.3f", n, passes,
               passes == 1 ? "" : "es", m.ns_direct, m.hits, hit ? "depth" : "distance", m.sum);

    snprintf(r.peer, sizeof r.peer, "chipmunk");
    bench_cp_query_result best = {1e30, 1e30, 0.0, 0};
    bool have = true;
    for (int k = 0; have && k < passes; k++) {
        bench_cp_query_result c;
        have = bench_cp_query(&p, &c);
        if (!have)
            break;
        double place = best.ns_place < c.ns_place ? best.ns_place : c.ns_place;
        if (c.ns_call < best.ns_call)
            best = c;
        best.ns_place = place;
    }
    if (!have) {
        snprintf(r.peer_time, sizeof r.peer_time, "not installed");
    } else {
        snprintf(r.peer_time, sizeof r.peer_time, "%.1f ns", best.ns_call);
        r.ratio = r.ns_op / best.ns_call;
        bench_note(&r, "; chipmunk cpShapesCollide on box polygons (GJK/EPA), %.1f ns of it "
                   "placing the 2 shapes, %zu hits", best.ns_place, best.hits);
        if (hit)
            bench_note(&r, ", depth sum %.3f", best.depth_sum);
    }
    bench_row_print(&r);
    free_pairs(&p);
}

void bench_scene_query(const bench_opts *o)
{
    query_row(o, true);
    query_row(o, false);
}
