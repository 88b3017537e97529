/* 3D query scenes: one pair of shapes per call of col_collide3 for every unordered pair of
 * the seven 3D shape types, hits and misses apart; libccd does the same pairs in the same run
 * (bench_ccd.c) by GJK (boolean), GJK + EPA and MPR. The depth of each is compared on the
 * first BENCH_REF_PAIRS hits of a row with a brute force: the least support of the Minkowski
 * difference over 300 sampled directions and each method's own, each refined by a pattern
 * search, in double. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define QUERY3_PAIRS 10000 /* per row */
#define QUICK3_PAIRS 1000
#define QUERY3_PASSES 2
#define PALETTE3 64
#define PI 3.14159265358979323846

/* ---- shapes in double ---- */

void bench3_place(bench3_obj *o, const col_shape3 *s, col_xf3 xf)
{
    double x = xf.q.x, y = xf.q.y, z = xf.q.z, w = xf.q.w;
    o->s = s;
    o->r[0][0] = 1 - 2 * (y * y + z * z), o->r[0][1] = 2 * (x * y - w * z), o->r[0][2] = 2 * (x * z + w * y);
    o->r[1][0] = 2 * (x * y + w * z), o->r[1][1] = 1 - 2 * (x * x + z * z), o->r[1][2] = 2 * (y * z - w * x);
    o->r[2][0] = 2 * (x * z - w * y), o->r[2][1] = 2 * (y * z + w * x), o->r[2][2] = 1 - 2 * (x * x + y * y);
    o->p[0] = xf.p.x, o->p[1] = xf.p.y, o->p[2] = xf.p.z;
}

static double sgn(double v) { return v < 0.0 ? -1.0 : 1.0; }

static void local_support(const col_shape3 *s, const double d[3], double out[3])
{
    double r = s->radius, h = s->half_height, sigma = sqrt(d[0] * d[0] + d[2] * d[2]);
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    switch (s->type) {
    case COL_SHAPE3_SPHERE:
    case COL_SHAPE3_CAPSULE:
        for (int i = 0; i < 3; i++)
            out[i] = r * d[i] / len;
        if (s->type == COL_SHAPE3_CAPSULE)
            out[1] += sgn(d[1]) * h;
        return;
    case COL_SHAPE3_BOX:
        out[0] = sgn(d[0]) * s->half.x, out[1] = sgn(d[1]) * s->half.y, out[2] = sgn(d[2]) * s->half.z;
        return;
    case COL_SHAPE3_ELLIPSOID: {
        double a[3] = {s->half.x * d[0], s->half.y * d[1], s->half.z * d[2]};
        double l = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        out[0] = s->half.x * a[0] / l, out[1] = s->half.y * a[1] / l, out[2] = s->half.z * a[2] / l;
        return;
    }
    case COL_SHAPE3_CYLINDER:
    case COL_SHAPE3_CONE: {
        double k = sigma > 0.0 ? r / sigma : 0.0;
        if (s->type == COL_SHAPE3_CONE && 2.0 * h * d[1] >= r * sigma) {
            out[0] = 0.0, out[1] = h, out[2] = 0.0; /* the apex */
            return;
        }
        out[0] = k * d[0], out[2] = k * d[2];
        out[1] = s->type == COL_SHAPE3_CONE ? -h : sgn(d[1]) * h;
        return;
    }
    case COL_SHAPE3_HULL:
    default: {
        const col_hull3 *hl = s->hull;
        int best = 0;
        double bd = -DBL_MAX;
        for (int i = 0; i < hl->vert_count; i++) {
            double v = d[0] * hl->verts[i].x + d[1] * hl->verts[i].y + d[2] * hl->verts[i].z;
            if (v > bd)
                bd = v, best = i;
        }
        out[0] = hl->verts[best].x, out[1] = hl->verts[best].y, out[2] = hl->verts[best].z;
        return;
    }
    }
}

void bench3_support(const bench3_obj *o, const double dir[3], double out[3])
{
    double d[3], l[3];
    for (int i = 0; i < 3; i++) /* R^T dir */
        d[i] = o->r[0][i] * dir[0] + o->r[1][i] * dir[1] + o->r[2][i] * dir[2];
    local_support(o->s, d, l);
    for (int i = 0; i < 3; i++)
        out[i] = o->p[i] + o->r[i][0] * l[0] + o->r[i][1] * l[1] + o->r[i][2] * l[2];
}

/* ---- the brute-force depth ---- */

/* h(d) = max over A of d.a - min over B of d.b, d a unit vector. */
static double h_dir(const bench3_obj *a, const bench3_obj *b, const double d[3])
{
    double sa[3], sb[3], nd[3] = {-d[0], -d[1], -d[2]};
    bench3_support(a, d, sa);
    bench3_support(b, nd, sb);
    return d[0] * (sa[0] - sb[0]) + d[1] * (sa[1] - sb[1]) + d[2] * (sa[2] - sb[2]);
}

static void normalize(double d[3])
{
    double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int i = 0; i < 3; i++)
        d[i] /= l;
}

/* A pattern search from d: 16 directions about it, the step halved when none is lower. */
static double refine(const bench3_obj *a, const bench3_obj *b, double d[3])
{
    double h = h_dir(a, b, d), step = 0.02, turn = 0.0;
    for (int evals = 0; step > 1e-10 && evals < 1200;) {
        double ax[3] = {fabs(d[0]) < 0.6 ? 1.0 : 0.0, fabs(d[0]) < 0.6 ? 0.0 : 1.0, 0.0};
        double u[3] = {d[1] * ax[2] - d[2] * ax[1], d[2] * ax[0] - d[0] * ax[2], d[0] * ax[1] - d[1] * ax[0]};
        normalize(u);
        double v[3] = {d[1] * u[2] - d[2] * u[1], d[2] * u[0] - d[0] * u[2], d[0] * u[1] - d[1] * u[0]};
        double best[3] = {d[0], d[1], d[2]}, hb = h;
        for (int k = 0; k < 16; k++, evals++) {
            double t = turn + 2 * PI * k / 16, c[3];
            for (int i = 0; i < 3; i++)
                c[i] = d[i] + step * (cos(t) * u[i] + sin(t) * v[i]);
            normalize(c);
            double hc = h_dir(a, b, c);
            if (hc < hb) {
                hb = hc;
                for (int i = 0; i < 3; i++)
                    best[i] = c[i];
            }
        }
        turn += 2.39996322972865332;
        if (hb < h) {
            h = hb;
            for (int i = 0; i < 3; i++)
                d[i] = best[i];
            step *= 1.5;
        } else {
            step *= 0.5;
        }
    }
    return h;
}

/* The least h over sampled directions and the given seeds (n of them), each refined. */
static double brute_depth(const col_shape3 *sa, col_xf3 xa, const col_shape3 *sb, col_xf3 xb,
                          double (*seed)[3], int nseed)
{
    bench3_obj a, b;
    bench3_place(&a, sa, xa);
    bench3_place(&b, sb, xb);
    double best = INFINITY, bd[3] = {1, 0, 0};
    const int n = 300;
    for (int k = 0; k < n; k++) {
        double z = 1 - (2 * k + 1.0) / n, r = sqrt(1 - z * z), t = 2.39996322972865332 * k;
        double d[3] = {r * cos(t), r * sin(t), z};
        double h = h_dir(&a, &b, d);
        if (h < best) {
            best = h;
            for (int i = 0; i < 3; i++)
                bd[i] = d[i];
        }
    }
    best = refine(&a, &b, bd);
    for (int s = 0; s < nseed; s++) {
        double l = sqrt(seed[s][0] * seed[s][0] + seed[s][1] * seed[s][1] + seed[s][2] * seed[s][2]);
        if (!(l > 0.0))
            continue;
        double d[3] = {seed[s][0] / l, seed[s][1] / l, seed[s][2] / l};
        best = fmin(best, refine(&a, &b, d));
    }
    return best;
}

/* ---- palettes and pairs ---- */

static void make_shape(bench_rng *rng, col_shape3_type t, col_hull3 *store, col_shape3 *s)
{
    *s = (col_shape3){.type = t};
    double lo = 0.1, hi = 1.0;
    switch (t) {
    case COL_SHAPE3_SPHERE:
        s->radius = (float)bench_rng_range(rng, lo, hi);
        break;
    case COL_SHAPE3_BOX:
    case COL_SHAPE3_ELLIPSOID:
        s->half = mk_v3((float)bench_rng_range(rng, lo, hi), (float)bench_rng_range(rng, lo, hi),
                        (float)bench_rng_range(rng, lo, hi));
        break;
    case COL_SHAPE3_CAPSULE:
    case COL_SHAPE3_CYLINDER:
    case COL_SHAPE3_CONE:
        s->radius = (float)bench_rng_range(rng, lo, hi);
        s->half_height = (float)bench_rng_range(rng, lo, hi);
        break;
    case COL_SHAPE3_HULL:
    default:
        /* 8..16 points on an ellipsoid around the origin. */
        for (;;) {
            mk_vec3 pts[16];
            int k = 8 + (int)(bench_rng_next(rng) % 9);
            double ax = bench_rng_range(rng, lo, hi), ay = bench_rng_range(rng, lo, hi);
            double az = bench_rng_range(rng, lo, hi);
            for (int i = 0; i < k; i++) {
                double z = bench_rng_range(rng, -1, 1), phi = bench_rng_range(rng, 0, 2 * PI);
                double r = sqrt(1 - z * z);
                pts[i] = mk_v3((float)(ax * r * cos(phi)), (float)(ay * r * sin(phi)), (float)(az * z));
            }
            mk_error why = {0};
            if (col_hull3_make(pts, k, store, &why) == 0)
                break;
        }
        s->hull = store;
        break;
    }
}

static mk_quat random_quat(bench_rng *rng)
{
    double u1 = bench_rng_range(rng, 0, 1), u2 = bench_rng_range(rng, 0, 2 * PI);
    double u3 = bench_rng_range(rng, 0, 2 * PI), a = sqrt(1 - u1), b = sqrt(u1);
    mk_quat q;
    if (!mk_quat_normalize_checked((mk_quat){(float)(a * sin(u2)), (float)(a * cos(u2)),
                                             (float)(b * sin(u3)), (float)(b * cos(u3))}, &q))
        q = mk_quat_identity();
    return q;
}

/* n pairs of a palette of each type that overlap by 1 mm or more (hit) or are 1 cm..1 m
 * apart (miss), by col_collide3; A within 2 m of the origin. */
static void make_pairs(bench3_pairs *p, const col_shape3 *pa, const col_shape3 *pb, size_t n,
                       bool hit, uint64_t seed)
{
    bench_rng rng = {seed};
    p->n = n;
    p->sa = bench_xcalloc(n, sizeof *p->sa);
    p->sb = bench_xcalloc(n, sizeof *p->sb);
    p->xa = bench_xcalloc(n, sizeof *p->xa);
    p->xb = bench_xcalloc(n, sizeof *p->xb);
    for (size_t i = 0; i < n;) {
        const col_shape3 *a = &pa[bench_rng_next(&rng) % PALETTE3];
        const col_shape3 *b = &pb[bench_rng_next(&rng) % PALETTE3];
        col_xf3 xa = {mk_v3((float)bench_rng_range(&rng, -2, 2), (float)bench_rng_range(&rng, -2, 2),
                            (float)bench_rng_range(&rng, -2, 2)), random_quat(&rng)};
        double z = bench_rng_range(&rng, -1, 1), t = bench_rng_range(&rng, 0, 2 * PI);
        double r = sqrt(1 - z * z), dist = bench_rng_range(&rng, 0.0, 2.0);
        col_xf3 xb = {mk_v3((float)(xa.p.x + dist * r * cos(t)), (float)(xa.p.y + dist * r * sin(t)),
                            (float)(xa.p.z + dist * z)), random_quat(&rng)};
        col_manifold3 m = col_collide3(a, xa, b, xb);
        bool ok = hit ? m.count > 0 && m.depth >= 1e-3
                      : m.count == 0 && m.distance >= 0.01 && m.distance <= 1.0;
        if (!ok)
            continue;
        p->sa[i] = *a;
        p->sb[i] = *b;
        p->xa[i] = xa;
        p->xb[i] = xb;
        i++;
    }
}

static void free_pairs(bench3_pairs *p)
{
    free(p->sa);
    free(p->sb);
    free(p->xa);
    free(p->xb);
}

/* ---- rows ---- */

/* Where the timed loop leaves its result, so that it is not optimised away. */
static volatile double mink_sink;

static double time_mink(const bench3_pairs *p, size_t *hits, double *depth, double (*dir)[3])
{
    size_t h = 0;
    double sum = 0.0;
    uint64_t t = bench_now_ns();
    for (size_t i = 0; i < p->n; i++) {
        col_manifold3 m = col_collide3(&p->sa[i], p->xa[i], &p->sb[i], p->xb[i]);
        h += m.count > 0;
        sum += m.count > 0 ? (double)m.depth : (double)m.distance;
        if (depth && i < BENCH_REF_PAIRS) {
            depth[i] = m.count > 0 ? m.depth : -1.0;
            dir[i][0] = m.normal.x, dir[i][1] = m.normal.y, dir[i][2] = m.normal.z;
        }
    }
    double ns = (double)(bench_now_ns() - t) / (double)p->n;
    *hits = h;
    mink_sink = sum;
    return ns;
}

/* col_overlap3, the boolean that ccdGJKIntersect answers. */
static double time_overlap(const bench3_pairs *p, size_t *hits)
{
    size_t h = 0;
    uint64_t t = bench_now_ns();
    for (size_t i = 0; i < p->n; i++)
        h += col_overlap3(&p->sa[i], p->xa[i], &p->sb[i], p->xb[i]);
    double ns = (double)(bench_now_ns() - t) / (double)p->n;
    *hits = h;
    mink_sink = (double)h;
    return ns;
}

/* m: the reach of a speculative contact in Mink's 3D world (SIM_SPECULATIVE): what a
 * simulation step asks col_collide3_within for. */
#define WITHIN_MARGIN 0.02f

static double time_within(const bench3_pairs *p, size_t *hits)
{
    size_t h = 0;
    double sum = 0.0;
    uint64_t t = bench_now_ns();
    for (size_t i = 0; i < p->n; i++) {
        col_manifold3 m = col_collide3_within(&p->sa[i], p->xa[i], &p->sb[i], p->xb[i],
                                              WITHIN_MARGIN, 0.0f);
        h += m.count > 0;
        sum += m.count > 0 ? (double)m.depth : (double)m.distance;
    }
    double ns = (double)(bench_now_ns() - t) / (double)p->n;
    *hits = h;
    mink_sink = sum;
    return ns;
}

static const char *names3[COL_SHAPE3_COUNT] = {"sphere", "box", "ellipsoid", "capsule",
                                                "cylinder", "cone", "hull"};

/* The median and largest |depth - reference| of one method over the reference pairs that it
 * and the reference both call hits (-1, -1 when there were none). */
static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void depth_error(const double *depth, const double *ref, size_t n, double *median,
                        double *max)
{
    double e[BENCH_REF_PAIRS];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (depth[i] >= 0.0 && ref[i] > 0.0)
            e[k++] = fabs(depth[i] - ref[i]);
    *median = *max = -1.0;
    if (k == 0)
        return;
    qsort(e, k, sizeof e[0], cmp_double);
    *median = e[k / 2];
    *max = e[k - 1];
}

static void query3_row(const bench_opts *o, int ta, int tb, const col_shape3 *pa,
                       const col_shape3 *pb, bool hit, uint64_t seed)
{
    bench_row r;
    char scene[sizeof r.scene];
    snprintf(scene, sizeof scene, "q3 %s-%s %s", names3[ta], names3[tb], hit ? "hit" : "miss");
    bench_row_init(&r, scene);
    size_t n = o->quick ? QUICK3_PAIRS : QUERY3_PAIRS;
    int passes = o->quick ? 1 : QUERY3_PASSES;
    bench3_pairs p;
    make_pairs(&p, pa, pb, n, hit, seed);

    static double dm[BENCH_REF_PAIRS], de[BENCH_REF_PAIRS], dp[BENCH_REF_PAIRS], ref[BENCH_REF_PAIRS];
    static double nm[BENCH_REF_PAIRS][3], ne[BENCH_REF_PAIRS][3], np[BENCH_REF_PAIRS][3];
    size_t hm = 0, hi = 0, he = 0, hp = 0, ho = 0, hw = 0;
    double tm = 1e30, ti = 1e30, te = 1e30, tp = 1e30, to = 1e30, tw = 1e30;
    bool ccd = bench_ccd_available();
    for (int k = 0; k < passes; k++) {
        tm = fmin(tm, time_mink(&p, &hm, dm, nm));
        to = fmin(to, time_overlap(&p, &ho));
        if (!hit)
            tw = fmin(tw, time_within(&p, &hw));
        if (!ccd)
            continue;
        ti = fmin(ti, bench_ccd_query(&p, BENCH_CCD_INTERSECT, NULL, NULL, &hi));
        te = fmin(te, bench_ccd_query(&p, BENCH_CCD_EPA, de, ne, &he));
        tp = fmin(tp, bench_ccd_query(&p, BENCH_CCD_MPR, dp, np, &hp));
    }
    r.ns_op = tm;
    bench_note(&r, "%zu pairs; mink %zu hits; overlap3 %.1f ns (%zu hits)", n, hm, to, ho);
    if (!hit)
        bench_note(&r, ", within %.0f cm %.1f ns (%zu hits)", 100.0 * WITHIN_MARGIN, tw, hw);
    snprintf(r.peer, sizeof r.peer, "libccd EPA");
    if (!ccd) {
        snprintf(r.peer_time, sizeof r.peer_time, "not installed");
    } else {
        snprintf(r.peer_time, sizeof r.peer_time, "%.1f ns", te);
        r.ratio = tm / te;
        bench_note(&r, "; libccd GJK %.1f ns (ratio %.2f, overlap3 / GJK %.2f, %zu hits), EPA %zu "
                       "hits, MPR %.1f ns (ratio %.2f, %zu hits)",
                   ti, tm / ti, to / ti, hi, he, tp, tm / tp, hp);
    }
    if (hit) {
        size_t nr = n < BENCH_REF_PAIRS ? n : BENCH_REF_PAIRS;
        for (size_t i = 0; i < nr; i++) {
            double seeds[3][3] = {{nm[i][0], nm[i][1], nm[i][2]},
                                  {ccd ? ne[i][0] : 0, ccd ? ne[i][1] : 0, ccd ? ne[i][2] : 0},
                                  {ccd ? np[i][0] : 0, ccd ? np[i][1] : 0, ccd ? np[i][2] : 0}};
            ref[i] = brute_depth(&p.sa[i], p.xa[i], &p.sb[i], p.xb[i], seeds, 3);
        }
        double med, max;
        depth_error(dm, ref, nr, &med, &max);
        bench_note(&r, "; depth error vs brute force (%zu pairs), median/max: mink %.1e/%.1e",
                   nr, med, max);
        if (ccd) {
            depth_error(de, ref, nr, &med, &max);
            bench_note(&r, ", EPA %.1e/%.1e", med, max);
            depth_error(dp, ref, nr, &med, &max);
            bench_note(&r, ", MPR %.1e/%.1e", med, max);
        }
    }
    bench_row_print(&r);
    free_pairs(&p);
}

void bench_scene_query3(const bench_opts *o)
{
    col_shape3 *pal = bench_xcalloc(2 * COL_SHAPE3_COUNT * PALETTE3, sizeof *pal);
    col_hull3 *hulls = bench_xcalloc(2 * PALETTE3, sizeof *hulls);
    for (int side = 0; side < 2; side++)
        for (int t = 0; t < COL_SHAPE3_COUNT; t++) {
            bench_rng rng = {0xA0761D6478BD642FULL * (uint64_t)(side * COL_SHAPE3_COUNT + t + 1)};
            for (int i = 0; i < PALETTE3; i++)
                make_shape(&rng, (col_shape3_type)t, &hulls[side * PALETTE3 + i],
                           &pal[(side * COL_SHAPE3_COUNT + t) * PALETTE3 + i]);
        }
    printf("# query3: best of %d pass%s; A is the first named shape, B the second, sizes "
           "0.1..1 m; mink: col_collide3; libccd: ccdGJKIntersect, ccdGJKPenetration (EPA), "
           "ccdMPRPenetration with its default tolerances (1e-4), support functions in double; "
           "ratios are mink / libccd. A miss row's ratio is col_collide3's exact gap, which "
           "libccd has no query for, over EPA's no-penetration answer; the same question on "
           "both sides is overlap3 / GJK (and, for a step's margin, within / EPA)\n",
           o->quick ? 1 : QUERY3_PASSES, o->quick ? "" : "es");
    int row = 0;
    for (int a = 0; a < COL_SHAPE3_COUNT; a++)
        for (int b = a; b < COL_SHAPE3_COUNT; b++, row++) {
            char name[40];
            snprintf(name, sizeof name, "%s-%s", names3[a], names3[b]);
            if (o->pair && strcmp(o->pair, name) != 0)
                continue;
            for (int hit = 1; hit >= 0; hit--)
                query3_row(o, a, b, &pal[a * PALETTE3], &pal[(COL_SHAPE3_COUNT + b) * PALETTE3],
                           hit, 0x9E3779B97F4A7C15ULL * (uint64_t)(2 * row + hit + 1));
        }
    free(pal);
    free(hulls);
}
