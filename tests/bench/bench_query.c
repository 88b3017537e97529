/* Query scenes: one pair of 2D shapes per call through the collide table (col_collide2, what
 * the world's step calls), hits and misses apart, for every pair of shape types in KINDS;
 * Chipmunk2D's cpShapesCollide collides the same shapes at the same places in the same run.
 * The pairs are made beforehand (bench_pairs.c), so the loops time the queries only. */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

#define QUERY_PAIRS 200000 /* per row */
#define QUICK_PAIRS 20000
#define QUERY_PASSES 3 /* the fastest pass is reported, the others absorb noise */

/* An unordered pair of shape types; A is the first named, B the second. */
typedef struct pair_kind {
    const char *name;
    col_shape_type a, b;
} pair_kind;

static const pair_kind KINDS[] = {
    {"aabb-aabb", COL_SHAPE_AABB, COL_SHAPE_AABB},
    {"box-box", COL_SHAPE_BOX, COL_SHAPE_BOX},
    {"box-circle", COL_SHAPE_BOX, COL_SHAPE_CIRCLE},
    {"circle-circle", COL_SHAPE_CIRCLE, COL_SHAPE_CIRCLE},
    {"box-polygon", COL_SHAPE_BOX, COL_SHAPE_POLYGON},
    {"circle-polygon", COL_SHAPE_CIRCLE, COL_SHAPE_POLYGON},
    {"polygon-polygon", COL_SHAPE_POLYGON, COL_SHAPE_POLYGON},
    {"aabb-polygon", COL_SHAPE_AABB, COL_SHAPE_POLYGON},
    {"aabb-circle", COL_SHAPE_AABB, COL_SHAPE_CIRCLE},
    {"aabb-box", COL_SHAPE_AABB, COL_SHAPE_BOX},
};
#define NKINDS (sizeof KINDS / sizeof KINDS[0])

typedef struct query_result {
    double ns_table;  /* per col_collide2 call */
    double ns_direct; /* per col_collide_aabb call (aabb-aabb only), else -1 */
    double sum;       /* depths of hits plus distances of misses */
    size_t hits;
} query_result;

static double pass_table(const bench_pairs *p, double *sum, size_t *hits)
{
    const col_shape2 *sa = p->pal_a->shapes, *sb = p->pal_b->shapes;
    double s = 0.0;
    size_t h = 0;
    uint64_t t = bench_now_ns();
    for (size_t i = 0; i < p->n; i++) {
        col_manifold2 m = col_collide2(&sa[p->ia[i]], p->xa[i], &sb[p->ib[i]], p->xb[i]);
        h += m.count > 0;
        s += m.count > 0 ? (double)m.depth : (double)m.distance;
    }
    double ns = (double)(bench_now_ns() - t) / (double)p->n;
    *sum = s;
    *hits = h;
    return ns;
}

/* AABB pairs only: the AABB function itself, without the table, on boxes passed by value. */
static double pass_direct(const bench_pairs *p, double *sum)
{
    const col_shape2 *sa = p->pal_a->shapes, *sb = p->pal_b->shapes;
    double s = 0.0;
    uint64_t t = bench_now_ns();
    for (size_t i = 0; i < p->n; i++) {
        col_manifold2 m = col_collide_aabb((col_aabb){p->xa[i].p, sa[p->ia[i]].half},
                                           (col_aabb){p->xb[i].p, sb[p->ib[i]].half});
        s += m.count > 0 ? (double)m.depth : (double)m.distance;
    }
    double ns = (double)(bench_now_ns() - t) / (double)p->n;
    *sum = s;
    return ns;
}

static query_result run_mink(const bench_pairs *p, int passes)
{
    bool direct = p->pal_a->type == COL_SHAPE_AABB && p->pal_b->type == COL_SHAPE_AABB;
    query_result r = {1e30, direct ? 1e30 : -1.0, 0.0, 0};
    for (int k = 0; k < passes; k++) {
        double t = pass_table(p, &r.sum, &r.hits);
        r.ns_table = t < r.ns_table ? t : r.ns_table;
        if (!direct)
            continue;
        double sum_direct;
        t = pass_direct(p, &sum_direct);
        r.ns_direct = t < r.ns_direct ? t : r.ns_direct;
        if (sum_direct != r.sum)
            fprintf(stderr, "mink-bench: col_collide2 and col_collide_aabb disagree\n");
    }
    return r;
}

/* The peer's fastest pass (placing-only time: its own fastest), or false without the peer. */
static bool run_peer(const bench_pairs *p, int passes, bench_cp_query_result *best)
{
    for (int k = 0; k < passes; k++) {
        bench_cp_query_result c;
        if (!bench_cp_query(p, &c))
            return false;
        if (k == 0) {
            *best = c;
            continue;
        }
        double place = best->ns_place < c.ns_place ? best->ns_place : c.ns_place;
        if (c.ns_call < best->ns_call)
            *best = c;
        best->ns_place = place;
    }
    return passes > 0;
}

static void query_row(const bench_opts *o, const pair_kind *kind, const bench_palette *pal_a,
                      const bench_palette *pal_b, bool hit, uint64_t seed)
{
    bench_row r;
    char scene[sizeof r.scene];
    snprintf(scene, sizeof scene, "query %s %s", kind->name, hit ? "hit" : "miss");
    bench_row_init(&r, scene);
    size_t n = o->quick ? QUICK_PAIRS : QUERY_PAIRS;
    int passes = o->quick ? 1 : QUERY_PASSES;
    bench_pairs p;
    bench_pairs_make(&p, pal_a, pal_b, n, hit, seed);

    query_result m = run_mink(&p, passes);
    r.ns_op = m.ns_table;
    bench_note(&r, "%zu pairs (of %zu placed); mink %zu hits, %s sum %.3f", n, p.tries, m.hits,
               hit ? "depth" : "distance", m.sum);
    if (m.ns_direct >= 0.0)
        bench_note(&r, ", col_collide_aabb direct %.1f ns", m.ns_direct);

    snprintf(r.peer, sizeof r.peer, "chipmunk");
    bench_cp_query_result c;
    if (!run_peer(&p, passes, &c)) {
        snprintf(r.peer_time, sizeof r.peer_time, "not installed");
    } else {
        snprintf(r.peer_time, sizeof r.peer_time, "%.1f ns", c.ns_call);
        r.ratio = r.ns_op / c.ns_call;
        bench_note(&r, "; chipmunk %zu hits", c.hits);
        if (hit)
            bench_note(&r, ", deepest-point sum %.3f (max diff %.2g m)", c.depth_sum,
                       c.depth_diff_max);
        bench_note(&r, ", %.1f ns of it placing", c.ns_place);
        if (c.disagree > 0)
            bench_note(&r, "; DISAGREE: chipmunk says %s for %zu pairs", hit ? "miss" : "hit",
                       c.disagree);
    }
    bench_row_print(&r);
    bench_pairs_free(&p);
}

void bench_scene_query(const bench_opts *o)
{
    /* One palette per shape type for each side, so that a pair never meets its own shape. */
    bench_palette *pal = calloc(2 * COL_SHAPE_COUNT, sizeof *pal);
    if (!pal) {
        fprintf(stderr, "mink-bench: out of memory\n");
        exit(1);
    }
    for (int side = 0; side < 2; side++) {
        for (int t = 0; t < COL_SHAPE_COUNT; t++)
            bench_palette_make(&pal[side * COL_SHAPE_COUNT + t], (col_shape_type)t,
                               0xD1B54A32D192ED03ULL * (uint64_t)(side * COL_SHAPE_COUNT + t + 1));
    }
    printf("# query: best of %d pass%s; A is the first named shape, B the second; mink: "
           "col_collide2(A, {pos, angle}, B, {pos, angle}); chipmunk: cpShapeUpdate of both "
           "(cpTransformRigid, cpTransformTranslate for aabb and circle) and cpShapesCollide\n",
           o->quick ? 1 : QUERY_PASSES, o->quick ? "" : "es");
    for (size_t k = 0; k < NKINDS; k++) {
        const bench_palette *a = &pal[KINDS[k].a], *b = &pal[COL_SHAPE_COUNT + KINDS[k].b];
        for (int hit = 1; hit >= 0; hit--)
            query_row(o, &KINDS[k], a, b, hit, 0x9E3779B97F4A7C15ULL * (2 * k + (size_t)hit + 1));
    }
    for (int i = 0; i < 2 * COL_SHAPE_COUNT; i++)
        bench_palette_free(&pal[i]);
    free(pal);
}
