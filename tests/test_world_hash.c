/* The world hash after 2,000 ticks of seven worlds with scripted inputs, pinned: the 2D demo,
 * the 3D demo, pile:2000, pile3d:1000, a 2D level world (a chain), and the two demos with
 * joints of every kind added. Each world gets a character that runs and jumps by a fixed
 * script, and bodies dropped and removed now and then, so that every pass of the step
 * (inputs, characters, sweeps, contacts, the solver, sleeping and waking, removal) is on the
 * path. A change to them is a change of the simulation's arithmetic, which must be
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
    check_hash("demo 2d", run2(w, -6, 1), 0x1684fef20c88dbd7ull);
    sim_world_free(w);
}
END_TEST

START_TEST(demo_3d)
{
    sim_world *w = load(wio_demo_scene3, "demo3d", 3);
    check_hash("demo 3d", run3(w, mk_v3(0, 1, 0), false), 0x394d0a1bde858613ull);
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
    check_hash("pile:2000", run2(w, 0.525f, 11.5f), 0x0d19f626192dec4bull);
    sim_world_free(w);
}
END_TEST

START_TEST(pile3d_1000)
{
    sim_world *w = pile(3, 1000);
    check_hash("pile3d:1000", run3(w, mk_v3(0.525f, 11.5f, 0.525f), true),
               0xca19a35e897aebdbull);
    sim_world_free(w);
}
END_TEST

/* A level world: an open chain of ground with a dip and a bump, the character running along
 * it and crates dropped on it. */
START_TEST(levels_2d)
{
    sim_world *w = load("{\"dim\":2,\"bodies\":[{\"shape\":{\"type\":\"chain\",\"points\":"
                        "[[12,0],[10,0],[7,0],[5,-0.6],[3,0],[1,0.4],[-1,0],[-4,0],[-7,0.8],"
                        "[-9,0],[-12,0],[-14,0]]},\"pos\":[0,0],\"kind\":\"static\"}]}",
                        "levels2d", 2);
    check_hash("levels 2d", run2(w, -3, 1), 0xca86af0950a6d1aeull);
    sim_world_free(w);
}
END_TEST

/* The joints made in the world being built (these worlds keep no events, which the hashes
 * pin: a joint that broke is one of them no longer in the world). */
static size_t made;

static sim_id joint(sim_world *w, sim_joint_def j)
{
    mk_error err = {0};
    sim_id id = sim_world_add_joint(w, &j, 0, &err);
    ck_assert_msg(id != 0, "%s", err.message);
    made++;
    return id;
}

/* A joint of `type` from body a to the world at `anchor` along `axis`, held within [lower,
 * upper] and driven at `speed` by a motor of at most `max_motor`. */
static sim_joint_def limited_motor(sim_joint_type type, sim_id a, mk_vec3 anchor, mk_vec3 axis,
                                   float lower, float upper, float speed, float max_motor)
{
    sim_joint_def j = fixture_joint(type, a, 0, anchor);
    j.axis = axis;
    j.limit = true;
    j.lower = lower;
    j.upper = upper;
    j.motor = true;
    j.motor_speed = speed;
    j.max_motor = max_motor;
    return j;
}

/* The 2D demo with joints: a 20 x 20 piece of Box2D's joint grid hung from two static discs
 * (400 bodies: the step runs on the workers, the joints in colors), a bridge of 12 planks
 * with springs and friction, a wheel on a suspension, a box on a prismatic joint with limits
 * and a motor, a rope, and a weld that breaks under a crate. */
START_TEST(joints_2d)
{
    sim_world *w = load(wio_demo_scene2, "demo", 2);
    made = 0;
    sim_id grid[20][20];
    sim_body_def disc = box2(SIM_DYNAMIC, 0, 0, 0, 0);
    disc.shape.type = COL_SHAPE_CIRCLE;
    disc.shape.radius = 0.4f;
    for (int k = 0; k < 20; k++)
        for (int i = 0; i < 20; i++) {
            disc.kind = i == 0 && (k == 4 || k == 15) ? SIM_STATIC : SIM_DYNAMIC;
            disc.pos = mk_v2(-20.0f + (float)k, 40.0f - (float)i);
            grid[k][i] = sim_world_add(w, &disc, 0);
            if (i > 0)
                joint(w, fixture_joint(SIM_JOINT_REVOLUTE, grid[k][i - 1], grid[k][i],
                                  mk_v3(-20.0f + (float)k, 40.5f - (float)i, 0)));
            if (k > 0)
                joint(w, fixture_joint(SIM_JOINT_REVOLUTE, grid[k - 1][i], grid[k][i],
                                  mk_v3(-20.5f + (float)k, 40.0f - (float)i, 0)));
        }
    sim_id prev = 0;
    for (int i = 0; i < 12; i++) {
        sim_body_def plank = box2(SIM_DYNAMIC, 0.5f + (float)i, 6, 0.5f, 0.125f);
        plank.density = 5.0f;
        sim_id id = sim_world_add(w, &plank, 0);
        sim_joint_def j = fixture_joint(SIM_JOINT_REVOLUTE, id, prev, mk_v3((float)i, 6, 0));
        j.motor = true;
        j.max_motor = 20.0f;
        j.spring_hz = 2.0f;
        j.spring_damping = 0.7f;
        joint(w, j);
        prev = id;
    }
    joint(w, fixture_joint(SIM_JOINT_REVOLUTE, prev, 0, mk_v3(12, 6, 0)));
    sim_body_def wheel = disc;
    wheel.kind = SIM_DYNAMIC;
    wheel.pos = mk_v2(-4, 3);
    sim_joint_def j = fixture_joint(SIM_JOINT_WHEEL, sim_world_add(w, &wheel, 0), 0, mk_v3(-4, 3, 0));
    j.axis = mk_v3(0, 1, 0);
    j.spring_hz = 3.0f;
    j.spring_damping = 0.5f;
    j.motor = true;
    j.motor_speed = 5.0f;
    j.max_motor = 10.0f;
    joint(w, j);
    sim_body_def box = box2(SIM_DYNAMIC, 25, 5, 0.5f, 0.5f);
    joint(w, limited_motor(SIM_JOINT_PRISMATIC, sim_world_add(w, &box, 0), mk_v3(25, 5, 0),
                           mk_v3(1, 1, 0), -2.0f, 1.0f, 1.0f, 15.0f));
    box.pos = mk_v2(-25, 12);
    j = fixture_joint(SIM_JOINT_DISTANCE, sim_world_add(w, &box, 0), 0, mk_v3(-25, 12, 0));
    j.anchor_b = mk_v3(-24, 14, 0);
    j.length = 1.0f;
    j.max_length = 3.0f;
    joint(w, j);
    /* A box on a weld that holds its weight (10 N) until the script's first crate lands on
     * it. */
    box.pos = mk_v2(-5.9f, 6);
    j = fixture_joint(SIM_JOINT_WELD, sim_world_add(w, &box, 0), 0, mk_v3(-5.9f, 6, 0));
    j.break_force = 12.0f;
    sim_id weld = joint(w, j);
    check_hash("joints 2d", run2(w, -6, 1), 0x3aeccad132f42b7aull);
    printf("joints 2d: %zu joints at the end of %zu\n", sim_world_joint_count(w), made);
    ck_assert_ptr_null(sim_world_get_joint(w, weld)); /* it broke, and it alone */
    ck_assert_uint_eq(sim_world_joint_count(w), made - 1);
    sim_world_free(w);
}
END_TEST

/* The 3D demo with joints: a net of 17 x 17 balls on distance joints hung from its corners
 * (the step runs on the workers), a chain of 12 capsules on spherical joints with cones, a
 * door on a hinge with limits and a motor, a slider, a rope and a weld that breaks. */
START_TEST(joints_3d)
{
    sim_world *w = load(wio_demo_scene3, "demo3d", 3);
    made = 0;
    sim_id net[17][17];
    for (int k = 0; k < 17; k++)
        for (int i = 0; i < 17; i++) {
            bool corner = (k == 0 || k == 16) && (i == 0 || i == 16);
            mk_vec3 at = mk_v3(-8.0f + (float)k, 14, -8.0f + (float)i);
            sim_body_def ball = body3(shape3(COL_SHAPE3_SPHERE, 0.2f, 0, 0),
                                      corner ? SIM_STATIC : SIM_DYNAMIC, at);
            net[k][i] = sim_world_add(w, &ball, 0);
            for (int side = 0; side < 2; side++) {
                int pk = side ? k : k - 1, pi = side ? i - 1 : i;
                if (pk < 0 || pi < 0)
                    continue;
                sim_joint_def j = fixture_joint(SIM_JOINT_DISTANCE, net[k][i], net[pk][pi], at);
                j.anchor_b = mk_v3(-8.0f + (float)pk, 14, -8.0f + (float)pi);
                j.length = j.min_length = j.max_length = 1.0f;
                joint(w, j);
            }
        }
    sim_id prev = 0;
    for (int i = 0; i < 12; i++) {
        sim_body_def link = body3(shape3(COL_SHAPE3_CAPSULE, 0.1f, 0.15f, 0), SIM_DYNAMIC,
                                  mk_v3(-6, 12.0f - 0.5f * (float)i - 0.25f, 3));
        sim_id id = sim_world_add(w, &link, 0);
        sim_joint_def j = fixture_joint(SIM_JOINT_SPHERICAL, id, prev,
                                   mk_v3(-6, 12.0f - 0.5f * (float)i, 3));
        j.axis = mk_v3(0, -1, 0);
        j.cone = 0.5f;
        joint(w, j);
        prev = id;
    }
    sim_body_def door = body3(shape3(COL_SHAPE3_BOX, 0.6f, 1.0f, 0.05f), SIM_DYNAMIC,
                              mk_v3(6.6f, 1.1f, -4));
    joint(w, limited_motor(SIM_JOINT_HINGE, sim_world_add(w, &door, 0), mk_v3(6, 1.1f, -4),
                           mk_v3(0, 1, 0), -1.2f, 1.2f, 1.0f, 5.0f));
    sim_body_def block = body3(shape3(COL_SHAPE3_BOX, 0.3f, 0.3f, 0.3f), SIM_DYNAMIC,
                               mk_v3(-3, 6, -3));
    sim_joint_def j =
        fixture_joint(SIM_JOINT_PRISMATIC, sim_world_add(w, &block, 0), 0, mk_v3(-3, 6, -3));
    j.axis = mk_v3(1, 0, 1);
    j.limit = true;
    j.lower = -1.0f;
    j.upper = 1.0f;
    j.spring_hz = 1.0f;
    j.spring_damping = 0.2f;
    joint(w, j);
    block.d3.pos = mk_v3(3, 8, 3);
    j = fixture_joint(SIM_JOINT_DISTANCE, sim_world_add(w, &block, 0), 0, mk_v3(3, 8, 3));
    j.anchor_b = mk_v3(3.5f, 10, 3);
    j.length = 1.0f;
    j.max_length = 2.5f;
    joint(w, j);
    /* A block on a weld that holds its weight (2.2 N) until the script's first ball lands on
     * it. */
    block.d3.pos = mk_v3(-4, 4, 1);
    j = fixture_joint(SIM_JOINT_WELD, sim_world_add(w, &block, 0), 0, mk_v3(-4, 4, 1));
    j.break_force = 3.0f;
    sim_id weld = joint(w, j);
    check_hash("joints 3d", run3(w, mk_v3(0, 1, 0), false), 0xa4324189ab8c47ebull);
    printf("joints 3d: %zu joints at the end of %zu\n", sim_world_joint_count(w), made);
    ck_assert_ptr_null(sim_world_get_joint(w, weld)); /* it broke, and it alone */
    ck_assert_uint_eq(sim_world_joint_count(w), made - 1);
    sim_world_free(w);
}
END_TEST

/* Two cases, which ctest runs as two tests (CK_RUN_CASE): the worlds without joints, and the
 * demos with joints. */
MINK_CHECK_SUITE("world_hash", s)
{
    MINK_TCASE(s, "worlds", 600, demo_2d, demo_3d, pile_2000, pile3d_1000, levels_2d);
    MINK_TCASE(s, "joints", 600, joints_2d, joints_3d);
}
