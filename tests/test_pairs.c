/* The broadphase's pair list (server/sim/broadphase.c), which is made anew by the sweep only
 * when a body comes, goes, sleeps or wakes and is otherwise brought up to date around the
 * bodies whose fat bounds moved: after every step of a falling pile, and of a pile whose
 * boxes are thrown apart, it holds exactly the pairs a look at every pair of bodies finds,
 * each once. And the pairs' set (pair_set.c) against a table of every pair, through adds and
 * removes that grow it and shift its probe runs. And the narrowphase's proofs that a pair of
 * boxes is still apart (contacts.h, dim_still_apart), against the exact gap. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "contacts.h"
#include "mink_world_io.h"
#include "check_main.h"

/* A body's fat box as low and high edges on each axis (z 0 in 2D), as the sweep takes them. */
static void fat_edges(const sim_world *w, uint32_t s, float lo[3], float hi[3])
{
    if (w->cfg.dim == 3) {
        const col_aabb3 *b = &w->d3.bounds.at[s];
        const float c[3] = {b->center.x, b->center.y, b->center.z};
        const float h[3] = {b->half.x, b->half.y, b->half.z};
        for (int k = 0; k < 3; k++) {
            lo[k] = c[k] - h[k];
            hi[k] = c[k] + h[k];
        }
        return;
    }
    const col_aabb *b = &w->d2.bounds.at[s];
    lo[0] = b->center.x - b->half.x;
    hi[0] = b->center.x + b->half.x;
    lo[1] = b->center.y - b->half.y;
    hi[1] = b->center.y + b->half.y;
    lo[2] = hi[2] = 0.0f;
}

static bool fixed(sim_kind k) { return k == SIM_STATIC || k == SIM_KINEMATIC; }

/* Whether the list must hold the pair of slots a and b: a static body and an awake dynamic
 * one whose fat box meets the static's shape bounds, or two moving bodies whose fat boxes
 * overlap, not both fixed, not both at rest. */
static bool wanted(const sim_world *w, uint32_t a, uint32_t b)
{
    const sim_body *ba = &w->slots.bodies.at[a], *bb = &w->slots.bodies.at[b];
    bool sa = ba->kind == SIM_STATIC, sb = bb->kind == SIM_STATIC;
    if (sa && sb)
        return false;
    if (sa || sb) {
        uint32_t st = sa ? a : b, m = sa ? b : a;
        const sim_body *bm = &w->slots.bodies.at[m];
        if (bm->sleeping || fixed(bm->kind))
            return false;
        /* The moving body's fat box against the static's shape bounds, centre to centre. */
        col_aabb3 fat;
        if (w->cfg.dim == 3) {
            fat = w->d3.bounds.at[m];
        } else {
            const col_aabb *f = &w->d2.bounds.at[m];
            fat = (col_aabb3){mk_v3(f->center.x, f->center.y, 0.0f),
                              mk_v3(f->half.x, f->half.y, 0.0f)};
        }
        const col_aabb3 *box = &w->broad.shape_box.at[st];
        return fabsf(box->center.x - fat.center.x) <= box->half.x + fat.half.x &&
               fabsf(box->center.y - fat.center.y) <= box->half.y + fat.half.y &&
               fabsf(box->center.z - fat.center.z) <= box->half.z + fat.half.z;
    }
    if ((fixed(ba->kind) && fixed(bb->kind)) || (ba->sleeping && bb->sleeping))
        return false;
    float la[3], ha[3], lb[3], hb[3];
    fat_edges(w, a, la, ha);
    fat_edges(w, b, lb, hb);
    for (int k = 0; k < 3; k++)
        if (la[k] > hb[k] || lb[k] > ha[k])
            return false;
    return true;
}

static int by_key(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

/* The list against every pair of live bodies: each listed pair wanted and listed once, and as
 * many listed as wanted. */
static void check_pairs(const sim_world *w, int step)
{
    size_t n = w->broad.pairs.v.len, slots = w->slots.bodies.v.len;
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    ck_assert(keys != NULL);
    for (size_t i = 0; i < n; i++) {
        uint32_t a = w->broad.pairs.at[i].a, b = w->broad.pairs.at[i].b;
        ck_assert_msg(a < slots && b < slots && a != b, "step %d: pair %zu names slots %u, %u",
                      step, i, a, b);
        ck_assert_msg(wanted(w, a, b), "step %d: pair %u-%u listed but not overlapping", step,
                      a, b);
        keys[i] = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
    }
    qsort(keys, n, sizeof *keys, by_key);
    for (size_t i = 1; i < n; i++)
        ck_assert_msg(keys[i] != keys[i - 1], "step %d: a pair listed twice", step);
    free(keys);
    size_t want = 0;
    for (uint32_t a = 0; a < slots; a++)
        for (uint32_t b = a + 1; b < slots; b++)
            want += w->slots.bodies.at[a].id != 0 && w->slots.bodies.at[b].id != 0 &&
                    wanted(w, a, b);
    ck_assert_msg(want == n, "step %d: %zu pairs listed, %zu overlap", step, n, want);
}

static sim_world *pile(int dim, int n)
{
    sim_config c = sim_config_default();
    c.dim = dim;
    c.sleep = false;
    mk_error err = {0};
    sim_world *w = dim == 3 ? wio_scene_pile3(n, &c, &err) : wio_scene_pile2(n, &c, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    return w;
}

/* Throws every `every`-th dynamic body sideways, left and right in turn at `speed` m/s (and
 * along -z at the same in 3D), and up at `up` m/s; with `spin`, a 2D box also spins at twice
 * its sideways speed, rad/s. */
static void throw_bodies(sim_world *w, size_t every, float speed, float up, bool spin)
{
    size_t slots;
    const sim_body *bodies = sim_world_slots(w, &slots);
    for (size_t i = 0; i < slots; i += every) {
        if (bodies[i].id == 0 || bodies[i].kind != SIM_DYNAMIC)
            continue;
        float s = (i / every) % 2 ? speed : -speed;
        if (w->cfg.dim == 3)
            ck_assert(sim_body_set_velocity3(w, bodies[i].id, mk_v3(s, up, -s)));
        else
            ck_assert(sim_body_set_velocity2(w, bodies[i].id, mk_v2(s, up)));
        if (spin && bodies[i].shape.type == COL_SHAPE_BOX)
            ck_assert(sim_body_set_spin2(w, bodies[i].id, 2.0f * s));
    }
}

/* Steps the pile, checking the list after each step; halfway every third box is thrown
 * sideways and up, so that pairs leave the list as well as join it. */
static void run(sim_world *w, int steps)
{
    for (int step = 0; step < steps; step++) {
        if (step == steps / 2)
            throw_bodies(w, 3, 4.0f, 3.0f, false);
        sim_world_step(w);
        check_pairs(w, step);
    }
}

START_TEST(pile2d_falls_and_scatters)
{
    sim_world *w = pile(2, 300);
    run(w, 160);
    sim_world_free(w);
}
END_TEST

START_TEST(pile3d_falls_and_scatters)
{
    sim_world *w = pile(3, 200);
    run(w, 120);
    sim_world_free(w);
}
END_TEST

/* Before each step of a 2D pile whose boxes are thrown about and spun twice, every pair that
 * the narrowphase would skip as proven apart is checked against its exact gap (col_collide2,
 * which collides in full): no points, and a gap of at least SIM_SPECULATIVE, so that the
 * skipped collision would have given no points either. The proofs must be used (held counts
 * the pair-steps skipped), or the check would say nothing. */
static sim_body_def rect(col_shape_type type, sim_kind kind, float x, float y, float hx, float hy)
{
    sim_body_def d = {0};
    d.shape.type = type;
    d.shape.half = mk_v2(hx, hy);
    d.kind = kind;
    d.pos = mk_v2(x, y);
    d.density = 1.0f;
    d.friction = 0.6f;
    return d;
}

START_TEST(apart_proofs_hold)
{
    /* 300 boxes in columns of ten on a wide ground, every fifth an AABB (which never turns),
     * the columns 1.05 m apart as in the benchmark's pile. */
    sim_config c = sim_config_default();
    c.sleep = false;
    sim_world *w = sim_world_new(&c);
    ck_assert(w != NULL);
    sim_body_def ground = rect(COL_SHAPE_BOX, SIM_STATIC, 0.0f, -0.5f, 60.0f, 0.5f);
    ck_assert(sim_world_add(w, &ground, 0) != 0);
    for (int i = 0; i < 300; i++) {
        float x = ((float)(i / 10) - 14.5f) * 1.05f, y = 0.55f + (float)(i % 10) * 1.05f;
        sim_body_def d = rect(i % 5 == 4 ? COL_SHAPE_AABB : COL_SHAPE_BOX, SIM_DYNAMIC, x, y, 0.5f,
                              0.5f);
        ck_assert(sim_world_add(w, &d, 0) != 0);
    }
    size_t held = 0;
    for (int step = 0; step < 240; step++) {
        if (step == 80 || step == 160)
            throw_bodies(w, 4, 3.0f, 2.0f, true);
        for (size_t i = 0; i < w->broad.pairs.v.len; i++) {
            const sim_pair *p = &w->broad.pairs.at[i];
            const sim_body *a = &w->slots.bodies.at[p->a], *b = &w->slots.bodies.at[p->b];
            if (a->id > b->id) { /* the narrowphase's order of the pair */
                const sim_body *t = a;
                a = b;
                b = t;
            }
            if (!dim_still_apart(p, a, b))
                continue;
            held++;
            col_manifold2 m = col_collide2(&a->shape, (col_xf2){a->pos, a->angle}, &b->shape,
                                           (col_xf2){b->pos, b->angle});
            ck_assert_msg(m.count == 0 && m.distance >= SIM_SPECULATIVE,
                          "step %d: bodies %u and %u skipped as apart, but %d points, gap %g m",
                          step, (unsigned)a->id, (unsigned)b->id, m.count, (double)m.distance);
        }
        sim_world_step(w);
    }
    ck_assert_msg(held > 10000, "only %zu pair-steps skipped as apart", held);
    sim_world_free(w);
}
END_TEST

/* Random adds and removes of pairs of 64 slots against a table of every pair. */
START_TEST(pair_set_against_table)
{
    sim_broadphase bp = {0};
    bp.pair_set.v.item = sizeof(uint64_t);
    static bool in[64][64];
    size_t count = 0;
    uint32_t r = 12345;
    ck_assert(sim_pair_set_clear(&bp, 4));
    for (int op = 0; op < 40000; op++) {
        r = r * 1664525u + 1013904223u;
        uint32_t a = (r >> 8) % 64, b = (r >> 16) % 64;
        if (a == b)
            continue;
        bool add = op < 20000 ? (r >> 30) != 0 : (r >> 30) == 0;
        uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
        if (add) {
            int got = sim_pair_set_add(&bp, a, b);
            ck_assert_int_eq(got, in[lo][hi] ? 0 : 1);
            count += !in[lo][hi];
            in[lo][hi] = true;
        } else {
            sim_pair_set_remove(&bp, b, a);
            count -= in[lo][hi];
            in[lo][hi] = false;
        }
        ck_assert_uint_eq(bp.pair_set_count, count);
    }
    for (uint32_t a = 0; a < 64; a++) /* each pair's presence, asked by adding it */
        for (uint32_t b = a + 1; b < 64; b++)
            ck_assert_int_eq(sim_pair_set_add(&bp, b, a), in[a][b] ? 0 : 1);
    mk_vec_free(&bp.pair_set.v);
}
END_TEST

MINK_CHECK_TESTS("pairs", 600, pile2d_falls_and_scatters, pile3d_falls_and_scatters,
                 apart_proofs_hold, pair_set_against_table)
