/* mink-bench: Mink's speed in named scenes, one table row per scene, with the same work done
 * by a peer library in the same run where one is installed (Chipmunk2D for the 2D world,
 * cJSON for the state line). As CONTRIBUTING.md says, speed is measured here and never asserted
 * by a test; docs/BENCHMARKS.md keeps the tables. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "mink_sim.h"

#define DEFAULT_STEPS 600 /* 10 s of a 60 Hz world */
#define QUICK_STEPS 60
#define MAX_PILE 100000 /* bodies: the default world's max_bodies */

uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

bench_step_stats bench_step_stats_of(uint64_t *ns, size_t n)
{
    bench_step_stats s = {-1.0, -1.0};
    if (n == 0)
        return s;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += (double)ns[i];
    qsort(ns, n, sizeof *ns, cmp_u64);
    /* Nearest rank: the smallest time that at least 99% of the steps do not exceed. */
    size_t rank = (size_t)ceil(0.99 * (double)n);
    s.mean_ms = sum / (double)n / 1e6;
    s.p99_ms = (double)ns[rank - 1] / 1e6;
    return s;
}

bench_step_stats bench_world_steps(sim_world *w, int steps)
{
    uint64_t *ns = bench_xcalloc((size_t)steps, sizeof *ns);
    for (int i = 0; i < steps; i++) {
        uint64_t t = bench_now_ns();
        sim_world_step(w);
        ns[i] = bench_now_ns() - t;
    }
    bench_step_stats s = bench_step_stats_of(ns, (size_t)steps);
    free(ns);
    return s;
}

void bench_row_init(bench_row *r, const char *scene)
{
    memset(r, 0, sizeof *r);
    snprintf(r->scene, sizeof r->scene, "%s", scene);
    r->bodies = -1;
    r->step_mean_ms = r->step_p99_ms = -1.0;
    r->ns_op = r->bytes_op = -1.0;
    r->ratio = -1.0;
}

void bench_note(bench_row *r, const char *fmt, ...)
{
    size_t len = strlen(r->note);
    if (len + 1 >= sizeof r->note)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->note + len, sizeof r->note - len, fmt, ap);
    va_end(ap);
}

/* A number in a column of `width`, or "-" when it was not measured. */
static void print_num(double v, int width, int decimals)
{
    if (v < 0.0)
        printf(" %*s", width, "-");
    else
        printf(" %*.*f", width, decimals, v);
}

static void print_header(void)
{
    printf("%-26s %7s %13s %12s %9s %9s  %-15s %13s %7s  %s\n", "scene", "bodies",
           "ms/step mean", "ms/step p99", "ns/op", "bytes/op", "peer", "peer time", "ratio",
           "note");
    fflush(stdout);
}

void bench_row_print(const bench_row *r)
{
    printf("%-26s", r->scene);
    if (r->bodies < 0)
        printf(" %7s", "-");
    else
        printf(" %7ld", r->bodies);
    print_num(r->step_mean_ms, 13, 4);
    print_num(r->step_p99_ms, 12, 4);
    print_num(r->ns_op, 9, 1);
    print_num(r->bytes_op, 9, 1);
    printf("  %-15s %13s", r->peer[0] ? r->peer : "-", r->peer_time[0] ? r->peer_time : "-");
    print_num(r->ratio, 7, r->ratio >= 0.0 && r->ratio < 0.1 ? 3 : 2);
    printf("  %s\n", r->note);
    fflush(stdout);
}

void *bench_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p) {
        fprintf(stderr, "mink-bench: out of memory\n");
        exit(1);
    }
    return p;
}

uint64_t bench_rng_next(bench_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1DULL;
}

double bench_rng_range(bench_rng *r, double lo, double hi)
{
    /* The top 53 bits give a double in [0, 1). */
    return lo + (hi - lo) * ((double)(bench_rng_next(r) >> 11) * 0x1p-53);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mink-bench [--steps N] [--scene NAME] [--pile N]... [--pile-only N]... "
            "[--pile3d N]... [--no-sleep] [--quick] [--pair A-B] [--workers N] [--no-peer] "
            "[--help]\n"
            "  --steps N     steps of every world scene (default %d; %d with --quick)\n"
            "  --scene NAME  run one scene: demo, pyramid, pile2d, pile3d, joint_grid, query, "
            "query3, rays, snapshot, save, token, events, rules, levels\n"
            "                (default: all); save: pile2d:20000 at 60 Hz while snapshots of it are\n"
            "                written (--save), ms/step being the whole tick's; events: pile2d\n"
            "                2000 with the world's events on and off, alternated; rules: a game's\n"
            "                hooks (on_tick over 1,000 bodies, on_event at 10,000 a second, an\n"
            "                action's round trip); levels: a 1,000,000-triangle glTF loaded,\n"
            "                1,000 bodies on a 256 x 256 heightfield and the same mesh, 10,000\n"
            "                rays onto each\n"
            "  --pile N      add a pile2d scene of N boxes (default list: 1000 5000 20000)\n"
            "  --pile-only N run pile2d at N boxes instead of the default list (repeatable;\n"
            "                --pile sizes still add to it): one size under a profiler\n"
            "  --pile3d N    add a pile3d scene of N cubes (default list: 1000 5000)\n"
            "  --no-sleep    bodies never sleep (in the peer too): piles cost full price\n"
            "  --quick       a smoke run: fewer steps, queries and snapshots\n"
            "  --pair A-B    query3: only the rows of this pair of 3D shapes (e.g. box-cone)\n"
            "  --workers N   threads that step the world scenes, 1 to 64 (default 1: the\n"
            "                peer rows compare one thread with one)\n"
            "  --no-peer     world scenes: Mink alone (Chipmunk's runs take most of the time)\n"
            "  --help        this text\n"
            "Columns: ms/step mean and p99 over the steps of a world scene; ns/op per query\n"
            "(query rows) or per encoded body (snapshot rows); bytes/op per body of the state\n"
            "line; peer is the same work by Chipmunk2D, libccd or cJSON in this run; ratio =\n"
            "Mink's time / the peer's time (below 1: Mink is faster).\n",
            DEFAULT_STEPS, QUICK_STEPS);
}

/* A positive integer of at most `max`, or -1. */
static long parse_count(const char *s, long max)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v <= 0 || v > max)
        return -1;
    return v;
}

/* The value of `flag`, a positive integer of at most `max`, into *out; false, said, when bad. */
static bool count_arg(const char *flag, const char *v, long max, int *out)
{
    long n = parse_count(v, max);
    if (n < 0) {
        fprintf(stderr, "mink-bench: %s wants an integer in [1, %ld]\n", flag, max);
        return false;
    }
    *out = (int)n;
    return true;
}

static void add_pile(bench_opts *o, int n)
{
    for (int i = 0; i < o->npiles; i++) {
        if (o->piles[i] == n)
            return;
    }
    if (o->npiles < BENCH_MAX_PILES)
        o->piles[o->npiles++] = n;
}

/* A --pile or --pile3d size into list (n sizes so far, at most cap); false, said, when bad. */
static bool add_size(const char *flag, const char *v, int *list, int *n, int cap)
{
    int size;
    if (!count_arg(flag, v, MAX_PILE, &size))
        return false;
    if (*n == cap) {
        fprintf(stderr, "mink-bench: at most %d %s sizes\n", cap, flag);
        return false;
    }
    list[(*n)++] = size;
    return true;
}

int main(int argc, char **argv)
{
    bench_opts o = {.steps = 0, .quick = false, .npiles = 0, .workers = 1};
    const char *scene = NULL;
    /* The two default sizes come first, so at most BENCH_MAX_PILES - 2 more. */
    int extra[BENCH_MAX_PILES - 2], nextra = 0;
    int extra3[BENCH_MAX_PILES - 2], nextra3 = 0; /* pile3d sizes beyond 1000 and 5000 */
    bool pile_defaults = true; /* false once --pile-only replaces the default list */

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--no-sleep") == 0) {
            o.no_sleep = true;
        } else if (strcmp(a, "--no-peer") == 0) {
            o.no_peer = true;
        } else if (strcmp(a, "--workers") == 0) {
            if (!count_arg(a, v, 64, &o.workers))
                return 2;
            i++;
        } else if (strcmp(a, "--quick") == 0) {
            o.quick = true;
        } else if (strcmp(a, "--pair") == 0) {
            if (!v) {
                fprintf(stderr, "mink-bench: --pair wants a pair of 3D shapes, e.g. box-cone\n");
                return 2;
            }
            o.pair = v;
            i++;
        } else if (strcmp(a, "--steps") == 0) {
            if (!count_arg(a, v, 1000000, &o.steps))
                return 2;
            i++;
        } else if (strcmp(a, "--scene") == 0) {
            if (!v || (strcmp(v, "demo") != 0 && strcmp(v, "pile2d") != 0 &&
                       strcmp(v, "pile3d") != 0 && strcmp(v, "joint_grid") != 0 &&
                       strcmp(v, "pyramid") != 0 && strcmp(v, "query") != 0 &&
                       strcmp(v, "query3") != 0 && strcmp(v, "rays") != 0 &&
                       strcmp(v, "snapshot") != 0 && strcmp(v, "save") != 0 &&
                       strcmp(v, "token") != 0 && strcmp(v, "events") != 0 &&
                       strcmp(v, "rules") != 0 && strcmp(v, "levels") != 0)) {
                fprintf(stderr, "mink-bench: --scene wants demo, pyramid, pile2d, pile3d, "
                                "joint_grid, query, query3, rays, snapshot, save, token, "
                                "events, rules or levels\n");
                return 2;
            }
            scene = v;
            i++;
        } else if (strcmp(a, "--pile-only") == 0) {
            int size;
            if (!count_arg(a, v, MAX_PILE, &size))
                return 2;
            pile_defaults = false;
            add_pile(&o, size);
            i++;
        } else if (strcmp(a, "--pile") == 0 || strcmp(a, "--pile3d") == 0) {
            bool three = a[6] == '3';
            if (!add_size(a, v, three ? extra3 : extra, three ? &nextra3 : &nextra,
                          BENCH_MAX_PILES - 2))
                return 2;
            i++;
        } else {
            fprintf(stderr, "mink-bench: unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (o.steps == 0)
        o.steps = o.quick ? QUICK_STEPS : DEFAULT_STEPS;
    if (pile_defaults) {
        add_pile(&o, 1000);
        add_pile(&o, 5000);
        if (!o.quick)
            add_pile(&o, 20000);
    }
    for (int i = 0; i < nextra; i++)
        add_pile(&o, extra[i]);

    uint64_t t0 = bench_now_ns();
    printf("# mink-bench: %d steps per world scene at 60 Hz, %d worker%s%s; chipmunk ", o.steps,
           o.workers, o.workers == 1 ? "" : "s", o.quick ? ", quick" : "");
    if (!bench_cp_available())
        printf("not installed\n");
    else if (bench_cp_debug_build())
        printf("%s (this build keeps its debug checks: it asserts as it runs)\n",
               bench_cp_version());
    else
        printf("%s\n", bench_cp_version());
    print_header();
    if (!scene || strcmp(scene, "demo") == 0)
        bench_scene_demo(&o);
    if (!scene || strcmp(scene, "pyramid") == 0)
        bench_scene_pyramid(&o, o.quick ? 20 : 100);
    if (!scene || strcmp(scene, "pile2d") == 0) {
        for (int i = 0; i < o.npiles; i++)
            bench_scene_pile(&o, o.piles[i]);
    }
    if (!scene || strcmp(scene, "events") == 0)
        bench_scene_events(&o);
    if (!scene || strcmp(scene, "rules") == 0)
        bench_scene_rules(&o);
    if (!scene || strcmp(scene, "pile3d") == 0) {
        bench_scene_pile3(&o, 1000);
        if (!o.quick)
            bench_scene_pile3(&o, 5000);
        for (int i = 0; i < nextra3; i++)
            if (extra3[i] != 1000 && (o.quick || extra3[i] != 5000))
                bench_scene_pile3(&o, extra3[i]);
    }
    if (!scene || strcmp(scene, "joint_grid") == 0)
        bench_scene_joint_grid(&o);
    if (!scene || strcmp(scene, "query") == 0)
        bench_scene_query(&o);
    if (!scene || strcmp(scene, "query3") == 0)
        bench_scene_query3(&o);
    if (!scene || strcmp(scene, "rays") == 0)
        bench_scene_rays(&o);
    if (!scene || strcmp(scene, "snapshot") == 0)
        bench_scene_snapshot(&o);
    if (!scene || strcmp(scene, "save") == 0)
        bench_scene_save(&o, o.quick ? 5000 : 20000);
    if (!scene || strcmp(scene, "token") == 0)
        bench_scene_token(&o);
    if (!scene || strcmp(scene, "levels") == 0)
        bench_scene_levels(&o);
    printf("# total %.1f s\n", (double)(bench_now_ns() - t0) / 1e9);
    return 0;
}
