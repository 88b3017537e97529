/* The broadphase's pair list (server/sim/broadphase.c), which is made anew by the sweep only
 * when a body comes, goes, sleeps or wakes and is otherwise brought up to date around the
 * bodies whose fat bounds moved: after every step of a falling pile, and of a pile whose
 * boxes are thrown apart, it holds exactly the pairs a look at every pair of bodies finds,
 * each once. And the pairs' set (pair_set.c) against a table of every pair, through adds and
 * removes that grow it and shift its probe runs. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "world_internal.h"
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

/* Steps the pile, checking the list after each step; halfway every third box is thrown
 * sideways and up, so that pairs leave the list as well as join it. */
static void run(sim_world *w, int steps)
{
    for (int step = 0; step < steps; step++) {
        if (step == steps / 2) {
            size_t slots;
            const sim_body *bodies = sim_world_slots(w, &slots);
            for (size_t i = 0; i < slots; i += 3) {
                if (bodies[i].id == 0 || bodies[i].kind != SIM_DYNAMIC)
                    continue;
                float s = (i / 3) % 2 ? 4.0f : -4.0f;
                if (w->cfg.dim == 3)
                    ck_assert(sim_body_set_velocity3(w, bodies[i].id, mk_v3(s, 3.0f, -s)));
                else
                    ck_assert(sim_body_set_velocity2(w, bodies[i].id, mk_v2(s, 3.0f)));
            }
        }
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
                 pair_set_against_table)
