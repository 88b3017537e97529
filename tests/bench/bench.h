/* mink-bench: the pieces shared by its scenes. Each scene fills table rows; bench.c prints
 * them. Times come from CLOCK_MONOTONIC; nothing here is asserted, only measured. */
#ifndef MINK_BENCH_H
#define MINK_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mink_collision.h"
#include "mink_sim.h"

/* One table row. A negative number means "not measured" and prints as "-". */
typedef struct bench_row {
    char scene[32];
    long bodies;
    double step_mean_ms, step_p99_ms; /* ms per step */
    double ns_op, bytes_op;           /* ns and bytes per query or per encoded body */
    char peer[24];
    char peer_time[24]; /* the peer's figure with its unit, e.g. "4.210 ms" */
    double ratio;       /* Mink's time / the peer's time */
    char note[512];
} bench_row;

#define BENCH_MAX_PILES 16

typedef struct bench_opts {
    int steps;                  /* steps of every world scene */
    bool quick;                 /* smoke run: fewer queries and snapshots */
    int piles[BENCH_MAX_PILES]; /* body counts of the pile2d scenes */
    int npiles;
    bool no_sleep;              /* bodies never sleep, in Mink and in the peer */
    const char *pair;           /* query3: only the rows of this pair ("box-cone"), or NULL */
    int workers;                /* threads that step the world scenes (sim_config.workers) */
    bool no_peer;               /* world scenes: Mink alone, Chipmunk not run */
} bench_opts;

/* Mean and 99th percentile of per-step times. */
typedef struct bench_step_stats {
    double mean_ms, p99_ms;
} bench_step_stats;

struct sim_world;
/* Steps a world `steps` times, each timed: their mean and p99. */
bench_step_stats bench_world_steps(struct sim_world *w, int steps);
/* ns since an arbitrary start (CLOCK_MONOTONIC). */
uint64_t bench_now_ns(void);
/* Mean and p99 (the nearest-rank value) of n step times in ns; sorts `ns`. */
bench_step_stats bench_step_stats_of(uint64_t *ns, size_t n);
/* calloc, or exit with a message when out of memory. */
void *bench_xcalloc(size_t n, size_t size);
/* A row with nothing measured yet. */
void bench_row_init(bench_row *r, const char *scene);
/* Prints a row at once, so that a long run shows its progress. */
void bench_row_print(const bench_row *r);
/* Appends printf-formatted text to a row's note. */
void bench_note(bench_row *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift generators"): a
 * fixed seed gives every run the same scenes. */
typedef struct bench_rng {
    uint64_t s;
} bench_rng;
uint64_t bench_rng_next(bench_rng *r);
/* Uniform in [lo, hi). */
double bench_rng_range(bench_rng *r, double lo, double hi);

/* ---- box scenes: the same boxes dropped in Mink and in the peer ---- */

#define BENCH_BOX_HALF 0.5    /* m: boxes are 1 m squares of density 1 */
#define BENCH_PILE_ROWS 10    /* a pile is N / 10 columns of 10 boxes */
#define BENCH_PILE_DX 1.05    /* m between columns */
#define BENCH_PILE_DY 1.05    /* m between rows; the lowest row's centres at y = 0.55 */
#define BENCH_FRICTION 0.6
#define BENCH_REST_SPEED 0.01 /* m/s: a body slower than this at the end counts as resting */
#define BENCH_GRAVITY (-10.0) /* m/s^2, along y */
#define BENCH_DT (1.0 / 60.0) /* s */
#define BENCH_SLEEP_TIME 0.5  /* s at rest before a body sleeps (when sleeping is on) */

/* Box centres over a static ground whose top is y = 0 (1 m thick, 2 * ground_half wide). */
typedef struct bench_boxes {
    int n;
    double *x, *y;
    double ground_half;
} bench_boxes;

/* N boxes in N / 10 columns of 10 (the last column shorter), columns BENCH_PILE_DX apart
 * around x = 0, rows at y = 0.55 + 1.05 r. */
void bench_layout_pile(int n, bench_boxes *out);
/* Box2D's large pyramid (its benchmark's CreateLargePyramid): rows of base, base - 1, ... 1
 * boxes, touching, the lowest row on the ground. */
void bench_layout_pyramid(int base, bench_boxes *out);
void bench_boxes_free(bench_boxes *b);
/* A box body of the piles: its half sizes (m) at (x, y), density 1, BENCH_FRICTION; every
 * other field zero. */
sim_body_def bench_box_body(sim_kind kind, double x, double y, double hx, double hy);

/* ---- scenes ---- */

void bench_scene_demo(const bench_opts *o);
void bench_scene_pile(const bench_opts *o, int n);
void bench_scene_pyramid(const bench_opts *o, int base);
/* pile2d 2000 with the world's events on and off (bench_events.c). */
void bench_scene_events(const bench_opts *o);
/* The cost of a game's rules: on_tick over 1,000 bodies, on_event at 10,000 a second, an
 * action's round trip (bench_rules.c). */
void bench_scene_rules(const bench_opts *o);
/* pile3d N: N 1 m cubes in columns of ten on a square grid (bench_world3.c). */
void bench_scene_pile3(const bench_opts *o, int n);
/* Box2D's joint_grid: 100 x 100 discs pinned by revolute joints (bench_joints.c). */
void bench_scene_joint_grid(const bench_opts *o);
void bench_scene_query(const bench_opts *o);
/* token: connect tokens checked as a hello checks them (bench_token.c). */
void bench_scene_token(const bench_opts *o);
void bench_scene_snapshot(const bench_opts *o);
/* A pile of n stepping at 60 Hz while snapshots of it are written (bench_durable.c). */
void bench_scene_save(const bench_opts *o, int n);
void bench_scene_query3(const bench_opts *o);
/* World queries (rays, overlaps, casts, at a past tick) on pile2d and pile3d (bench_rays.c). */
void bench_scene_rays(const bench_opts *o);
/* Levels: a 1,000,000-triangle glTF loaded; 1,000 bodies on a 256 x 256 heightfield and on
 * the same terrain as a mesh; 10,000 rays onto each (bench_levels.c). */
void bench_scene_levels(const bench_opts *o);
/* The server's snapshots for 200 clients (bench_clients.c); part of the snapshot scene. */
void bench_scene_snapshot_clients(const bench_opts *o);

/* ---- Chipmunk2D, the 2D peer; each returns false when mink-bench was built without it ---- */

typedef struct bench_cp_boxes_result {
    bench_step_stats tree, hash; /* default bounding-box tree; cpSpaceUseSpatialHash */
    size_t resting_tree, resting_hash; /* bodies slower than BENCH_REST_SPEED or asleep */
    double top_tree, top_hash; /* m: the highest box centre at the end */
    int iterations;            /* the space's solver iterations */
} bench_cp_boxes_result;

bool bench_cp_available(void);
/* "7.0.3", and whether the installed library was built with its debug checks (Chipmunk then
 * asserts as it runs, and says so on stdout when the first space is made: this call makes
 * that space and keeps the message out of the table). */
const char *bench_cp_version(void);
bool bench_cp_debug_build(void);
bool bench_cp_boxes(const bench_boxes *b, int steps, bool sleep, bench_cp_boxes_result *out);

/* ---- the query pairs (bench_pairs.c), shared with the peer: both collide the same shapes ---- */

/* BENCH_PALETTE prepared shapes of one type: sizes 0.1..2 m (half extents, radii, or the half
 * axes of the ellipse a polygon's 5..8 vertices lie on). The peer builds its own shapes from
 * these once and only places them per query, as col_collide2 places these. */
#define BENCH_PALETTE 256
typedef struct bench_palette {
    col_shape_type type;
    col_shape2 shapes[BENCH_PALETTE];
    col_polygon *hulls; /* BENCH_PALETTE hulls from col_polygon_make for polygons, else NULL */
} bench_palette;

/* Pair i is pal_a->shapes[ia[i]] placed at xa[i] against pal_b->shapes[ib[i]] at xb[i]. The
 * angle of an AABB or a circle is 0 (neither turns); boxes and polygons have random angles. */
typedef struct bench_pairs {
    const bench_palette *pal_a, *pal_b;
    size_t n;
    uint8_t *ia, *ib;
    col_xf2 *xa, *xb;
    float *depth; /* col_collide2's depth of each pair (0 for a miss), for the peer's check */
    size_t tries; /* placements made to keep n of the wanted class */
} bench_pairs;

/* A palette of `type` (the polygons' hulls allocated); exits when out of memory. */
void bench_palette_make(bench_palette *pal, col_shape_type type, uint64_t seed);
void bench_palette_free(bench_palette *pal);
/* n pairs that all overlap by at least BENCH_MIN_DEPTH (hit) or are all 1 cm..2 m apart
 * (miss), by col_collide2's verdict. */
#define BENCH_MIN_DEPTH 1e-3 /* m */
void bench_pairs_make(bench_pairs *p, const bench_palette *pal_a, const bench_palette *pal_b,
                      size_t n, bool hit, uint64_t seed);
void bench_pairs_free(bench_pairs *p);
/* Whether the shapes of a palette turn with their angle (boxes and polygons). */
static inline bool bench_palette_turns(const bench_palette *pal)
{
    return pal->type == COL_SHAPE_BOX || pal->type == COL_SHAPE_POLYGON;
}

typedef struct bench_cp_query_result {
    double ns_call;   /* per pair: placing both shapes and cpShapesCollide */
    double ns_place;  /* per pair: placing both shapes only */
    double depth_sum; /* of the hits: the deepest contact point's depth */
    size_t hits;
    /* Checked after the timing: pairs where the peer's hit or miss differs from Mink's, and
     * the largest difference of the peer's deepest point from Mink's depth where both hit. */
    size_t disagree;
    double depth_diff_max; /* m */
} bench_cp_query_result;

bool bench_cp_query(const bench_pairs *p, bench_cp_query_result *out);

/* ---- 3D query pairs (bench_query3.c), shared with libccd (bench_ccd.c) ---- */

/* Pair i is sa[i] at xa[i] against sb[i] at xb[i] (hull shapes point into a palette). */
typedef struct bench3_pairs {
    size_t n;
    col_shape3 *sa, *sb;
    col_xf3 *xa, *xb;
} bench3_pairs;

/* A shape placed in double (rotation rows, position), and its support function: the
 * brute-force reference of bench_query3.c and libccd's support callbacks share them. */
typedef struct bench3_obj {
    const col_shape3 *s;
    double r[3][3];
    double p[3];
} bench3_obj;
void bench3_place(bench3_obj *o, const col_shape3 *s, col_xf3 xf);
void bench3_support(const bench3_obj *o, const double dir[3], double out[3]);

#define BENCH_REF_PAIRS 200 /* pairs per row whose depth is checked against a brute force */
enum { BENCH_CCD_INTERSECT, BENCH_CCD_EPA, BENCH_CCD_MPR };

bool bench_ccd_available(void);
/* ns per call of ccdGJKIntersect, ccdGJKPenetration or ccdMPRPenetration (which), placing
 * both shapes included; -1 without libccd. For the first BENCH_REF_PAIRS pairs the depth
 * (-1 for a miss) and direction are written when `depth` is given. */
double bench_ccd_query(const bench3_pairs *p, int which, double *depth, double (*dir)[3],
                       size_t *hits);

#endif
