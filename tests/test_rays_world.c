/* mink_sim: rays through the world's broadphase that graze boxes by micrometres, 40 m and
 * 2 km from the origin, against an exact slab test of every body in long double. A body's
 * float bounds (the statics' tree, the moving bodies' fat boxes and order on x, the history's
 * boxes at a past tick, the slab test of each candidate's bounds) decide only whether its
 * exact test runs: rounded inward anywhere, they would turn away a ray that the exact test
 * hits. Each ray passes a random corner (2D) or a corner or edge (3D) of a random box at a
 * distance of 1e-7 to 1e-5 m, inside or outside, from 20 to 80 m away, and every body's
 * verdict is asserted where the segment misses it or enters it by more than the grazing band
 * (1e-12 of the coordinates' size): the answer with all hits holds exactly the bodies that
 * the exact test hits, at their fractions (within 1e-5 m along the ray), and the first hit is
 * the nearest. In 2D the boxes are AABBs; in 3D boxes, half of them turned at random. Statics,
 * kinematic bodies at rest and moving ones, now and at a past tick. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "shapes_check.h"
#include "sim_fixture.h"

#define BODIES 400
#define RAYS 4000 /* per world */
#define GRAZE_BAND 1e-12L

typedef long double ld;

/* A box as the exact test sees it: centre, unit rotation (rows), half extents. */
typedef struct exact_box {
    sim_id id;
    ld c[3], rot[3][3], h[3];
} exact_box;

static void exact_of(sim_world *w, sim_id id, exact_box *e)
{
    const sim_body *b = sim_world_get(w, id);
    memset(e, 0, sizeof *e);
    e->id = id;
    for (int k = 0; k < 3; k++)
        e->rot[k][k] = 1;
    if (sim_world_dim(w) == 2) {
        e->c[0] = b->pos.x;
        e->c[1] = b->pos.y;
        e->h[0] = b->shape.half.x;
        e->h[1] = b->shape.half.y;
        return;
    }
    const sim_body3 *b3 = sim_body3_of(w, b);
    mk_quat q = b3->rot;
    ld n = sqrtl((ld)q.w * q.w + (ld)q.x * q.x + (ld)q.y * q.y + (ld)q.z * q.z);
    ld qw = q.w / n, x = q.x / n, y = q.y / n, z = q.z / n;
    ld m[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - qw * z), 2 * (x * z + qw * y)},
                  {2 * (x * y + qw * z), 1 - 2 * (x * x + z * z), 2 * (y * z - qw * x)},
                  {2 * (x * z - qw * y), 2 * (y * z + qw * x), 1 - 2 * (x * x + y * y)}};
    memcpy(e->rot, m, sizeof m);
    e->c[0] = b3->pos.x;
    e->c[1] = b3->pos.y;
    e->c[2] = b3->pos.z;
    e->h[0] = b3->shape.half.x;
    e->h[1] = b3->shape.half.y;
    e->h[2] = b3->shape.half.z;
}

/* The slab test of the segment in the box's frame with its half extents grown by `grow`:
 * the entering fraction, or -1 for a miss. */
static ld exact_enter(const exact_box *e, mk_vec3 from, mk_vec3 to, int dim, ld grow)
{
    ld rel[3] = {(ld)from.x - e->c[0], (ld)from.y - e->c[1], (ld)from.z - e->c[2]};
    ld dw[3] = {(ld)to.x - from.x, (ld)to.y - from.y, (ld)to.z - from.z};
    ld lo = 0, hi = 1;
    for (int k = 0; k < dim; k++) {
        /* local = R^T world */
        ld p = e->rot[0][k] * rel[0] + e->rot[1][k] * rel[1] + e->rot[2][k] * rel[2];
        ld d = e->rot[0][k] * dw[0] + e->rot[1][k] * dw[1] + e->rot[2][k] * dw[2];
        ld h = e->h[k] + grow;
        if (d == 0) {
            if (fabsl(p) > h)
                return -1;
            continue;
        }
        ld t0 = (-h - p) / d, t1 = (h - p) / d;
        lo = fmaxl(lo, fminl(t0, t1));
        hi = fminl(hi, fmaxl(t0, t1));
        if (lo > hi)
            return -1;
    }
    return lo;
}

/* A ray `length` long passing a random corner (or, in 3D, a point of an edge) of box e at a
 * distance of 1e-7 to 1e-5 m on either side. */
static void grazing_ray(const exact_box *e, int dim, ld length, mk_vec3 *from, mk_vec3 *to)
{
    ld corner[3] = {0, 0, 0}, u[3], n[3];
    for (int k = 0; k < dim; k++)
        corner[k] = (rnd_int(2) ? 1 : -1) * e->h[k];
    if (dim == 3 && rnd_int(2)) /* a point of an edge instead */
        corner[rnd_int(3)] *= rnd(-1, 1);
    /* A direction, and the offset at right angles to it. */
    ld a = rnd(0, 6.283185307179586), z = dim == 3 ? rnd(-1, 1) : 0, s = sqrtl(1 - z * z);
    u[0] = s * cosl(a);
    u[1] = s * sinl(a);
    u[2] = z;
    if (dim == 2) {
        n[0] = -u[1];
        n[1] = u[0];
        n[2] = 0;
    } else {
        ld b = rnd(0, 6.283185307179586);
        ld v[3] = {cosl(b), sinl(b), rnd(-1, 1)};
        n[0] = u[1] * v[2] - u[2] * v[1];
        n[1] = u[2] * v[0] - u[0] * v[2];
        n[2] = u[0] * v[1] - u[1] * v[0];
        ld l = sqrtl(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++)
            n[k] /= l;
    }
    ld off = (rnd_int(2) ? 1 : -1) * powl(10, rnd(-7, -5)), back = rnd(0.2, 0.8) * length;
    ld w0[3], w1[3];
    for (int i = 0; i < 3; i++) {
        ld l0 = 0, l1 = 0;
        for (int k = 0; k < 3; k++) {
            ld p0 = corner[k] + off * n[k] - back * u[k], p1 = p0 + length * u[k];
            l0 += e->rot[i][k] * p0;
            l1 += e->rot[i][k] * p1;
        }
        w0[i] = e->c[i] + l0;
        w1[i] = e->c[i] + l1;
    }
    *from = mk_v3((float)w0[0], (float)w0[1], dim == 3 ? (float)w0[2] : 0.0f);
    *to = mk_v3((float)w1[0], (float)w1[1], dim == 3 ? (float)w1[2] : 0.0f);
}

typedef struct tally {
    long rays, checked, hits, grazing, wrong, wrong_fraction, wrong_first;
    double worst_fraction; /* m */
    char first[256];
} tally;

/* Every body's verdict for one ray, against the world's answer at tick t. */
static void check_ray(sim_world *w, uint64_t t, const exact_box *boxes, int n, mk_vec3 from,
                      mk_vec3 to, tally *ty)
{
    static sim_hit hits[BODIES + 8];
    size_t total;
    int dim = sim_world_dim(w);
    int got = sim_world_raycast(w, t, from, to, NULL, true, hits, BODIES + 8, &total);
    ck_assert_int_ge(got, 0);
    ld length = sqrtl(((ld)to.x - from.x) * ((ld)to.x - from.x) +
                      ((ld)to.y - from.y) * ((ld)to.y - from.y) +
                      ((ld)to.z - from.z) * ((ld)to.z - from.z));
    ld size = fmaxl(fmaxl(fabsl(from.x), fabsl(from.y)), fabsl(from.z)) + length;
    ld band = GRAZE_BAND * size, nearest = 2;
    ty->rays++;
    for (int i = 0; i < n; i++) {
        ld inner = exact_enter(&boxes[i], from, to, dim, -band);
        ld outer = exact_enter(&boxes[i], from, to, dim, band);
        int found = -1;
        for (int k = 0; k < got && found < 0; k++)
            if (hits[k].id == boxes[i].id)
                found = k;
        if ((inner < 0) != (outer < 0)) {
            ty->grazing++;
            continue;
        }
        ty->checked++;
        bool want = inner >= 0;
        ty->hits += want;
        if (want != (found >= 0)) {
            ty->wrong++;
            if (!ty->first[0])
                snprintf(ty->first, sizeof ty->first,
                         "body %llu %s; ray (%.9g %.9g %.9g) -> (%.9g %.9g %.9g)",
                         (unsigned long long)boxes[i].id, want ? "missed" : "hit by a miss",
                         from.x, from.y, from.z, to.x, to.y, to.z);
            continue;
        }
        if (!want)
            continue;
        ld enter = exact_enter(&boxes[i], from, to, dim, 0);
        nearest = fminl(nearest, enter);
        double err = (double)(fabsl((ld)hits[found].fraction - enter) * length);
        ty->worst_fraction = fmax(ty->worst_fraction, err);
        if (err > fmax(1e-5, (double)length * 0x1p-24)) {
            ty->wrong_fraction++;
            if (!ty->first[0])
                snprintf(ty->first, sizeof ty->first,
                         "body %llu at %.9Lg, not %.9g; ray (%.9g %.9g %.9g) -> (%.9g %.9g %.9g)",
                         (unsigned long long)boxes[i].id, enter, hits[found].fraction, from.x,
                         from.y, from.z, to.x, to.y, to.z);
        }
    }
    /* The first hit: one, no farther than the nearest (a grazing body's may be nearer). */
    sim_hit first;
    int one = sim_world_raycast(w, t, from, to, NULL, false, &first, 1, &total);
    if (nearest <= 1 && (one != 1 || ((ld)first.fraction - nearest) * length > 1e-5L))
        ty->wrong_first++;
}

typedef enum phase { PHASE_STATIC, PHASE_RESTING, PHASE_MOVING_NOW, PHASE_MOVING_PAST } phase;
static const char *phase_names[] = {"static", "resting", "moving", "at a past tick"};

/* A world of BODIES boxes about (x0, 0, z0), of the phase's kind; RAYS grazing rays. */
static void run(int dim, phase ph, double x0, tally *ty)
{
    sim_config cfg = sim_config_default();
    cfg.dim = dim;
    cfg.bounds = 1e4f;
    cfg.sleep = false;
    sim_world *w = sim_world_new(&cfg);
    ck_assert_ptr_nonnull(w);
    ck_assert(sim_world_set_history(w, 30));
    static sim_body_def d;
    static exact_box boxes[BODIES];
    sim_id ids[BODIES];
    sim_kind kind = ph == PHASE_STATIC ? SIM_STATIC : SIM_KINEMATIC;
    for (int i = 0; i < BODIES; i++) {
        float x = (float)(x0 + rnd(-10, 10)), y = (float)rnd(-10, 10), z = (float)rnd(-10, 10);
        mk_vec3 half = mk_v3((float)rnd(0.05, 2), (float)rnd(0.05, 2), (float)rnd(0.05, 2));
        if (dim == 2) {
            d = fixture_rect(COL_SHAPE_AABB, kind, x, y, half.x, half.y);
            if (ph >= PHASE_MOVING_NOW)
                d.vel = mk_v2((float)rnd(-3, 3), (float)rnd(-3, 3));
        } else {
            fixture_body3(&d, (col_shape3){.type = COL_SHAPE3_BOX, .half = half}, kind,
                          mk_v3(x, y, (float)(x0 + z)));
            /* Half of them unturned, their corners and edges on their bounds. */
            if (i % 2)
                ck_assert(mk_quat_normalize_checked(
                    (mk_quat){(float)rnd(-1, 1), (float)rnd(-1, 1), (float)rnd(-1, 1),
                              (float)rnd(-1, 1)},
                    &d.d3.rot));
            if (ph >= PHASE_MOVING_NOW)
                d.d3.vel = mk_v3((float)rnd(-3, 3), (float)rnd(-3, 3), (float)rnd(-3, 3));
        }
        ids[i] = sim_world_add(w, &d, 0);
        ck_assert_uint_ne(ids[i], 0);
    }
    /* Stepped, so that the moving bodies' fat boxes and the history are the step's. */
    for (int s = 0; s < 3; s++)
        sim_world_step(w);
    uint64_t t = sim_world_tick(w);
    for (int i = 0; i < BODIES; i++)
        exact_of(w, ids[i], &boxes[i]);
    if (ph == PHASE_MOVING_PAST)
        for (int s = 0; s < 10; s++)
            sim_world_step(w);
    for (int r = 0; r < RAYS; r++) {
        mk_vec3 from, to;
        grazing_ray(&boxes[rnd_int(BODIES)], dim, rnd(20, 80), &from, &to);
        check_ray(w, t, boxes, BODIES, from, to, ty);
    }
    sim_world_free(w);
}

static void report(int dim, phase ph, double x0, const tally *t)
{
    printf("rays%d %-14s at %5.0f m: %ld rays, %ld verdicts (%ld hits), %ld grazing; wrong: %ld "
           "verdicts, %ld fractions, %ld first hits; worst fraction %.2e m\n",
           dim, phase_names[ph], x0, t->rays, t->checked, t->hits, t->grazing, t->wrong,
           t->wrong_fraction, t->wrong_first, t->worst_fraction);
    fflush(stdout);
}

START_TEST(grazing_rays)
{
    int dim = 2 + _i / 8;
    phase ph = (phase)(_i / 2 % 4);
    double x0 = _i % 2 ? 2000.0 : 40.0;
    rng_state = 0x6a5e0000ull + (uint64_t)_i;
    tally t = {0};
    run(dim, ph, x0, &t);
    report(dim, ph, x0, &t);
    EXPECT(t.wrong + t.wrong_fraction + t.wrong_first == 0,
           "%ld wrong verdicts, %ld fractions, %ld first hits; first: %s", t.wrong,
           t.wrong_fraction, t.wrong_first, t.first);
    EXPECT(t.hits > RAYS / 4, "only %ld hits", t.hits);
}
END_TEST

MINK_CHECK_SUITE("rays_world", s)
{
    TCase *tc = tcase_create("grazing");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, grazing_rays, 0, 16);
    suite_add_tcase(s, tc);
}
