/* The query pairs: palettes of prepared shapes, and pairs of them placed so that they surely
 * overlap (hit) or surely stay apart (miss). Made beforehand with a fixed seed, so that the
 * query loops of both Mink and the peer time the queries only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

#define HALF_MIN 0.1       /* m: the smallest half extent, radius or half axis */
#define HALF_MAX 2.0       /* m: the largest */
#define CENTRE_RANGE 100.0 /* m: |x|, |y| of the first shape's centre */
#define GAP_MIN 0.01       /* m: the gaps of misses */
#define GAP_MAX 2.0
#define HIT_REACH 0.9 /* hits: centres at most this share of the summed reaches apart */
#define POLY_MIN 5    /* vertices of a palette's polygons */
#define POLY_MAX 8
#define PI 3.14159265358979323846

/* A convex hull of POLY_MIN..POLY_MAX vertices: points on an ellipse with half axes of
 * HALF_MIN..HALF_MAX, at angles spread around it with some jitter (no two close, none on the
 * line of its neighbours, so every point is a vertex of the hull). */
static void make_hull(bench_rng *rng, col_polygon *out)
{
    for (;;) {
        int k = POLY_MIN + (int)(bench_rng_next(rng) % (POLY_MAX - POLY_MIN + 1));
        double ax = bench_rng_range(rng, HALF_MIN, HALF_MAX);
        double ay = bench_rng_range(rng, HALF_MIN, HALF_MAX);
        double phase = bench_rng_range(rng, 0.0, 2.0 * PI);
        mk_vec2 pts[POLY_MAX];
        double step = 2.0 * PI / (double)k;
        for (int j = 0; j < k; j++) {
            double t = phase + ((double)j + bench_rng_range(rng, -0.35, 0.35)) * step;
            pts[j] = mk_v2((float)(ax * cos(t)), (float)(ay * sin(t)));
        }
        mk_error why = {0};
        if (col_polygon_make(pts, k, out, &why) == 0 && out->count == k)
            return;
    }
}

void bench_palette_make(bench_palette *pal, col_shape_type type, uint64_t seed)
{
    bench_rng rng = {seed};
    pal->type = type;
    pal->hulls = type == COL_SHAPE_POLYGON ? bench_xcalloc(BENCH_PALETTE, sizeof *pal->hulls) : NULL;
    for (int i = 0; i < BENCH_PALETTE; i++) {
        col_shape2 *s = &pal->shapes[i];
        *s = (col_shape2){.type = type};
        switch (type) {
        case COL_SHAPE_AABB:
        case COL_SHAPE_BOX:
            s->half = mk_v2((float)bench_rng_range(&rng, HALF_MIN, HALF_MAX),
                            (float)bench_rng_range(&rng, HALF_MIN, HALF_MAX));
            break;
        case COL_SHAPE_CIRCLE:
            s->radius = (float)bench_rng_range(&rng, HALF_MIN, HALF_MAX);
            break;
        case COL_SHAPE_POLYGON:
            make_hull(&rng, &pal->hulls[i]);
            s->polygon = &pal->hulls[i];
            break;
        case COL_SHAPE_COUNT:
            break;
        }
    }
}

void bench_palette_free(bench_palette *pal)
{
    free(pal->hulls);
    pal->hulls = NULL;
}

/* How far a shape placed at the origin with `angle` reaches along the unit vector u: its
 * support function, exact for every type. */
static double reach(const col_shape2 *s, double angle, double ux, double uy)
{
    /* u in the shape's own frame. */
    double c = cos(angle), sn = sin(angle);
    double lx = c * ux + sn * uy, ly = -sn * ux + c * uy;
    switch (s->type) {
    case COL_SHAPE_AABB:
    case COL_SHAPE_BOX:
        return fabs(lx) * s->half.x + fabs(ly) * s->half.y;
    case COL_SHAPE_CIRCLE:
        return s->radius;
    case COL_SHAPE_POLYGON: {
        double best = -1e30;
        for (int i = 0; i < s->polygon->count; i++) {
            mk_vec2 v = s->polygon->verts[i];
            double d = lx * v.x + ly * v.y;
            best = d > best ? d : best;
        }
        return best;
    }
    case COL_SHAPE_COUNT:
        break;
    }
    return 0.0;
}

void bench_pairs_make(bench_pairs *p, const bench_palette *pal_a, const bench_palette *pal_b,
                      size_t n, bool hit, uint64_t seed)
{
    bench_rng rng = {seed};
    p->pal_a = pal_a;
    p->pal_b = pal_b;
    p->n = n;
    p->ia = bench_xcalloc(n, sizeof *p->ia);
    p->ib = bench_xcalloc(n, sizeof *p->ib);
    p->xa = bench_xcalloc(n, sizeof *p->xa);
    p->xb = bench_xcalloc(n, sizeof *p->xb);
    p->depth = bench_xcalloc(n, sizeof *p->depth);
    p->tries = 0;
    bool turn_a = bench_palette_turns(pal_a), turn_b = bench_palette_turns(pal_b);
    for (size_t i = 0; i < n;) {
        if (++p->tries > 100 * n + 1000) {
            fprintf(stderr, "mink-bench: cannot place %s pairs of shape types %d and %d\n",
                    hit ? "hit" : "miss", (int)pal_a->type, (int)pal_b->type);
            exit(1);
        }
        uint8_t ia = (uint8_t)(bench_rng_next(&rng) % BENCH_PALETTE);
        uint8_t ib = (uint8_t)(bench_rng_next(&rng) % BENCH_PALETTE);
        double angle_a = turn_a ? bench_rng_range(&rng, -PI, PI) : 0.0;
        double angle_b = turn_b ? bench_rng_range(&rng, -PI, PI) : 0.0;
        double dir = bench_rng_range(&rng, -PI, PI), ux = cos(dir), uy = sin(dir);
        const col_shape2 *a = &pal_a->shapes[ia], *b = &pal_b->shapes[ib];
        /* Along u, A reaches ra and B (from the other side) rb: centres ra + rb + gap apart
         * leave at least the gap between them; closer than ra + rb they overlap along u
         * (and usually everywhere: col_collide2 decides below). */
        double sum = reach(a, angle_a, ux, uy) + reach(b, angle_b, -ux, -uy);
        double d = hit ? bench_rng_range(&rng, 0.0, HIT_REACH) * sum
                       : sum + bench_rng_range(&rng, GAP_MIN, GAP_MAX);
        double cx = bench_rng_range(&rng, -CENTRE_RANGE, CENTRE_RANGE);
        double cy = bench_rng_range(&rng, -CENTRE_RANGE, CENTRE_RANGE);
        col_xf2 xa = {mk_v2((float)cx, (float)cy), (float)angle_a};
        col_xf2 xb = {mk_v2((float)(cx + d * ux), (float)(cy + d * uy)), (float)angle_b};

        col_manifold2 m = col_collide2(a, xa, b, xb);
        bool keep = hit ? m.count > 0 && m.depth >= BENCH_MIN_DEPTH
                        : m.count == 0 && m.distance >= GAP_MIN && m.distance <= GAP_MAX;
        if (!keep)
            continue;
        p->ia[i] = ia;
        p->ib[i] = ib;
        p->xa[i] = xa;
        p->xb[i] = xb;
        p->depth[i] = m.count > 0 ? m.depth : 0.0f;
        i++;
    }
}

void bench_pairs_free(bench_pairs *p)
{
    free(p->ia);
    free(p->ib);
    free(p->xa);
    free(p->xb);
    free(p->depth);
}
