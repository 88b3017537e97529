/* The world hash after 2,000 ticks of four worlds with scripted inputs, pinned: the 2D demo,
 * the 3D demo, pile:2000 and pile3d:1000. Each world gets a character that runs and jumps by a
 * fixed script, and bodies dropped and removed now and then, so that every pass of the step
 * (inputs, characters, sweeps, contacts, the solver, sleeping and waking, removal) is on the
 * path. The values were recorded from the step as it stood before the world's code was
 * reorganised; a change to them is a change of the simulation's arithmetic, which must be
 * deliberate and explained. Hashes hold for builds with the same floating-point code: the
 * debug and sanitizer builds agree (-ffp-contract=off; the collision library is optimised in
 * both).
 *
 * Built three times: with one worker (test_world_hash), and with MINK_HASH_WORKERS 2 and 4
 * (test_world_hash_w2, _w4), whose worlds run the step's parallel parts on that many threads
 * and must reach the same pinned hashes bit for bit, so that replays, saves and lag
 * compensation hold whatever the server's --workers. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "mink_world_io.h"
#include "check_main.h"
#include "sim_fixture.h"

#ifndef MINK_HASH_WORKERS
#define MINK_HASH_WORKERS 1
#endif

static sim_config config(int dim)
{
    sim_config c = sim_config_default();
    c.dim = dim;
    c.workers = MINK_HASH_WORKERS;
    return c;
}

static sim_body_def box2(sim_kind kind, float x, float y, float hx, float hy)
{
    return fixture_rect(COL_SHAPE_BOX, kind, x, y, hx, hy);
}

static sim_body_def body3(col_shape3 s, sim_kind kind, mk_vec3 pos)
{
    static sim_body_def d;
    return *fixture_body3(&d, s, kind, pos);
}

static col_shape3 shape3(col_shape3_type type, float a, float b, float c)
{
    col_shape3 s;
    memset(&s, 0, sizeof s);
    s.type = type;
    if (type == COL_SHAPE3_BOX || type == COL_SHAPE3_ELLIPSOID)
        s.half = mk_v3(a, b, c);
    else {
        s.radius = a;
        s.half_height = b;
    }
    return s;
}

/* What a script does at tick t of a run, before the step: inputs and dropped bodies. */
typedef void (*script_fn)(sim_world *w, int t, const void *ctx);

/* 2,000 ticks of a world: the script's changes at each tick, client 2's bodies removed at
 * tick 1500, then the step. Returns the world hash at the end. */
static uint64_t run(sim_world *w, script_fn script, const void *ctx)
{
    for (int t = 0; t < 2000; t++) {
        script(w, t, ctx);
        if (t == 1500)
            sim_world_remove_owned(w, 2);
        sim_world_step(w);
    }
    ck_assert_uint_eq(sim_world_tick(w), 2000);
    return sim_world_hash(w);
}

static const sim_body *character(sim_world *w, sim_id id)
{
    const sim_body *b = sim_world_get(w, id);
    ck_assert_ptr_nonnull(b);
    return b;
}

typedef struct script2 {
    sim_id chr;
    float x0, y0;
} script2;

/* A 2D world's script: the character (client 1) turns every 97 ticks and jumps every third
 * turn; client 2 drops a tilted crate every 300 ticks from tick 150 at x0 + 0.7 k. */
static void script_2d(sim_world *w, int t, const void *ctx)
{
    const script2 *s = ctx;
    if (t % 97 == 0) {
        float dir = (t / 97) % 2 ? -1.0f : 1.0f;
        sim_body_set_input2(w, character(w, s->chr)->id, mk_v2(dir, 0), (t / 97) % 3 == 0);
    }
    if (t % 300 == 150) {
        sim_body_def crate = box2(SIM_DYNAMIC, s->x0 + 0.7f * (float)(t / 300), s->y0 + 8, 0.3f,
                                  0.3f);
        crate.angle = 0.3f;
        ck_assert_uint_ne(sim_world_add(w, &crate, 2), 0);
    }
}

static uint64_t run2(sim_world *w, float x0, float y0)
{
    sim_body_def c = box2(SIM_CHARACTER, x0, y0, 0.4f, 0.9f);
    script2 s = {sim_world_add(w, &c, 1), x0, y0};
    ck_assert_uint_ne(s.chr, 0);
    return run(w, script_2d, &s);
}

typedef struct script3 {
    sim_id chr;
    mk_vec3 at;
    bool to_and_fro;
} script3;

/* A 3D world's script: every 50 ticks the character takes a new heading (a turning one, or,
 * with `to_and_fro`, +x and -x in turn at 0.7 of its speed, so that it stays on a pile's top)
 * and jumps every 150 ticks; client 2 drops a ball every 200 ticks from tick 100 and a box
 * every 400 from tick 300. */
static void script_3d(sim_world *w, int t, const void *ctx)
{
    const script3 *s = ctx;
    mk_vec3 at = s->at;
    if (t % 50 == 0) {
        float a = 0.37f * (float)t;
        mk_vec3 move = mk_v3(cosf(a), 0, sinf(a));
        if (s->to_and_fro)
            move = mk_v3((t / 50) % 2 ? -0.7f : 0.7f, 0, 0);
        sim_body_set_input3(w, character(w, s->chr)->id, move, t % 150 == 0);
    }
    if (t % 200 == 100) {
        sim_body_def ball = body3(shape3(COL_SHAPE3_SPHERE, 0.3f, 0, 0), SIM_DYNAMIC,
                                  mk_v3(at.x + 0.01f * (float)t - 5, at.y + 6, at.z + 1));
        ck_assert_uint_ne(sim_world_add(w, &ball, 2), 0);
    }
    if (t % 400 == 300) {
        sim_body_def box = body3(shape3(COL_SHAPE3_BOX, 0.3f, 0.2f, 0.4f), SIM_DYNAMIC,
                                 mk_v3(at.x + 1, at.y + 7, at.z - 0.5f));
        box.d3.rot = mk_quat_axis_angle(mk_v3(0.6f, 0, 0.8f), 0.4f);
        ck_assert_uint_ne(sim_world_add(w, &box, 2), 0);
    }
}

static uint64_t run3(sim_world *w, mk_vec3 at, bool to_and_fro)
{
    sim_body_def c = body3(shape3(COL_SHAPE3_CAPSULE, 0.4f, 0.5f, 0), SIM_CHARACTER, at);
    script3 s = {sim_world_add(w, &c, 1), at, to_and_fro};
    ck_assert_uint_ne(s.chr, 0);
    return run(w, script_3d, &s);
}

static sim_world *load(const char *scene, const char *name, int dim)
{
    sim_config c = config(dim);
    mk_error err = {0};
    sim_world *w = wio_scene_load(scene, strlen(scene), name, &c, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    return w;
}

static void check_hash(const char *what, uint64_t got, uint64_t pinned)
{
    printf("%s, %d workers: world hash after 2000 ticks %016llx\n", what, MINK_HASH_WORKERS,
           (unsigned long long)got);
    ck_assert_msg(got == pinned, "%s: hash %016llx, pinned %016llx", what,
                  (unsigned long long)got, (unsigned long long)pinned);
}

START_TEST(demo_2d)
{
    sim_world *w = load(wio_demo_scene2, "demo", 2);
    check_hash("demo 2d", run2(w, -6, 1), 0x0ea038302d3fdb9eull);
    sim_world_free(w);
}
END_TEST

START_TEST(demo_3d)
{
    sim_world *w = load(wio_demo_scene3, "demo3d", 3);
    check_hash("demo 3d", run3(w, mk_v3(0, 1, 0), false), 0xe1a215738674cf32ull);
    sim_world_free(w);
}
END_TEST

/* The stress scene of `dim` with n boxes; fails the test when it cannot be built. */
static sim_world *pile(int dim, int n)
{
    sim_config c = config(dim);
    mk_error err = {0};
    sim_world *w = dim == 3 ? wio_scene_pile3(n, &c, &err) : wio_scene_pile2(n, &c, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    return w;
}

START_TEST(pile_2000)
{
    sim_world *w = pile(2, 2000);
    /* The character runs to and fro on top of the middle columns (ten boxes high). */
    check_hash("pile:2000", run2(w, 0.525f, 11.5f), 0x15d84ea60f15abdaull);
    sim_world_free(w);
}
END_TEST

START_TEST(pile3d_1000)
{
    sim_world *w = pile(3, 1000);
    check_hash("pile3d:1000", run3(w, mk_v3(0.525f, 11.5f, 0.525f), true),
               0xe3a90e9ca439feb3ull);
    sim_world_free(w);
}
END_TEST

MINK_CHECK_TESTS("world_hash", 600, demo_2d, demo_3d, pile_2000, pile3d_1000)
