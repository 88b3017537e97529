/* The 3D world: mass properties, stacking, sliding, bouncing, curved shapes at rest,
 * characters, sleeping and waking, saves and determinism. Expected values come from the
 * physics (formulas in the comments), never from the program's own output. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mink_world_io.h"
#include "check_main.h"
#include "sim_fixture.h"

#define PI_F 3.14159265f

static sim_config config3(void)
{
    sim_config c = sim_config_default();
    c.dim = 3;
    return c;
}

/* A body definition with the body spec's defaults and the given shape. */
static sim_body_def *def3(col_shape3 shape, sim_kind kind, mk_vec3 pos)
{
    static sim_body_def d; /* one, reused */
    return fixture_body3(&d, shape, kind, pos);
}

static col_shape3 box3(float hx, float hy, float hz)
{
    return (col_shape3){.type = COL_SHAPE3_BOX, .half = {hx, hy, hz}};
}

static col_shape3 round3(col_shape3_type type, float radius, float half_height)
{
    return (col_shape3){.type = type, .radius = radius, .half_height = half_height};
}

/* A world with a static floor whose top is y = 0. */
static sim_world *world_with_floor(void)
{
    sim_config c = config3();
    sim_world *w = sim_world_new(&c);
    ck_assert_uint_ne(sim_world_add(w, def3(box3(50, 0.5f, 50), SIM_STATIC, mk_v3(0, -0.5f, 0)), 0),
                      0);
    return w;
}

static const sim_body3 *body3(sim_world *w, sim_id id)
{
    const sim_body *b = sim_world_get(w, id);
    ck_assert_ptr_nonnull(b);
    return sim_body3_of(w, b);
}

static bool all_asleep(sim_world *w)
{
    size_t n;
    const sim_body *b = sim_world_slots(w, &n);
    for (size_t i = 0; i < n; i++)
        if (b[i].id && b[i].kind == SIM_DYNAMIC && !b[i].sleeping)
            return false;
    return true;
}

/* Steps until every dynamic body sleeps, at most max_steps; returns the steps taken. */
static int steps_to_sleep(sim_world *w, int max_steps)
{
    for (int i = 1; i <= max_steps; i++) {
        sim_world_step(w);
        if (all_asleep(w))
            return i;
    }
    return max_steps + 1;
}

START_TEST(mass_and_inertia_3d)
{
    sim_config c = config3();
    sim_world *w = sim_world_new(&c);
    /* A 1 x 2 x 3 m box of density 2: m = 12 kg, Ixx = m (2^2 + 3^2) / 12 = 13 kg m^2,
     * Iyy = m (1 + 9) / 12 = 10, Izz = m (1 + 4) / 12 = 5. */
    sim_body_def *d = def3(box3(0.5f, 1.0f, 1.5f), SIM_DYNAMIC, mk_v3(0, 5, 0));
    d->density = 2.0f;
    sim_id box = sim_world_add(w, d, 0);
    ck_assert_float_eq_tol(sim_world_get(w, box)->inv_mass, 1.0f / 12.0f, 1e-6f);
    const sim_body3 *b = body3(w, box);
    ck_assert_float_eq_tol(b->inv_inertia.c0.x, 1.0f / 13.0f, 1e-5f);
    ck_assert_float_eq_tol(b->inv_inertia.c1.y, 1.0f / 10.0f, 1e-5f);
    ck_assert_float_eq_tol(b->inv_inertia.c2.z, 1.0f / 5.0f, 1e-5f);
    ck_assert_float_eq_tol(b->inv_inertia.c0.y, 0.0f, 1e-6f);
    /* A unit sphere of density 1: m = 4/3 pi, I = 2/5 m r^2. */
    sim_id ball = sim_world_add(w, def3(round3(COL_SHAPE3_SPHERE, 1, 0), SIM_DYNAMIC,
                                        mk_v3(5, 5, 0)), 0);
    float m = 4.0f / 3.0f * PI_F;
    ck_assert_float_eq_tol(sim_world_get(w, ball)->inv_mass, 1.0f / m, 1e-5f);
    ck_assert_float_eq_tol(body3(w, ball)->inv_inertia.c1.y, 1.0f / (0.4f * m), 1e-4f);
    /* A cone's centre of mass is a quarter of its height above its base: y = -h + 2h/4. */
    sim_id cone = sim_world_add(w, def3(round3(COL_SHAPE3_CONE, 0.5f, 1.0f), SIM_DYNAMIC,
                                        mk_v3(-5, 5, 0)), 0);
    ck_assert_float_eq_tol(body3(w, cone)->local_center.y, -0.5f, 1e-5f);
    /* Characters never turn; static bodies never move. */
    sim_id chr = sim_world_add(w, def3(round3(COL_SHAPE3_CAPSULE, 0.4f, 0.5f), SIM_CHARACTER,
                                       mk_v3(0, 10, 5)), 0);
    ck_assert_float_gt(sim_world_get(w, chr)->inv_mass, 0.0f);
    ck_assert_float_eq(body3(w, chr)->inv_inertia.c0.x, 0.0f);
    sim_id wall = sim_world_add(w, def3(box3(1, 1, 1), SIM_STATIC, mk_v3(0, 0, 9)), 0);
    ck_assert_float_eq(sim_world_get(w, wall)->inv_mass, 0.0f);
    sim_world_free(w);
}
END_TEST

/* n unit cubes stacked on the floor at the origin, ids[0] the lowest. */
static void stack_cubes(sim_world *w, int n, sim_id *ids)
{
    for (int i = 0; i < n; i++)
        ids[i] = sim_world_add(w, def3(box3(0.5f, 0.5f, 0.5f), SIM_DYNAMIC,
                                       mk_v3(0, 0.5f + (float)i, 0)), 0);
}

START_TEST(tower_of_ten_cubes_settles_and_sleeps)
{
    sim_world *w = world_with_floor();
    sim_id ids[10];
    stack_cubes(w, 10, ids);
    int steps = steps_to_sleep(w, 300);
    printf("10-cube tower asleep after %d steps\n", steps);
    ck_assert_int_le(steps, 300); /* within 5 s */
    for (int i = 0; i < 120; i++)
        sim_world_step(w);
    ck_assert(all_asleep(w));
    const sim_body3 *top = body3(w, ids[9]);
    /* Upright, over its base, its height 9.5 m less what soft contacts give under load. */
    ck_assert_float_lt(fabsf(top->pos.x), 0.02f);
    ck_assert_float_lt(fabsf(top->pos.z), 0.02f);
    ck_assert_float_gt(top->pos.y, 9.4f);
    ck_assert_float_lt(top->pos.y, 9.51f);
    ck_assert_float_gt(fabsf(top->rot.w), 0.9999f);
    sim_world_free(w);
}
END_TEST

START_TEST(pyramid_of_base_eight_settles_and_sleeps)
{
    sim_world *w = world_with_floor();
    /* Layers of 8 x 8, 7 x 7, ... 1 cube: 204 cubes, each layer on the gaps of the last. */
    sim_id ids[204];
    mk_vec3 start[204];
    int n = 0;
    for (int layer = 0; layer < 8; layer++) {
        int side = 8 - layer;
        float c0 = -0.5f * (float)(side - 1) * 1.02f;
        for (int i = 0; i < side; i++)
            for (int k = 0; k < side; k++) {
                start[n] = mk_v3(c0 + 1.02f * (float)i, 0.5f + 1.0f * (float)layer,
                                 c0 + 1.02f * (float)k);
                ids[n] = sim_world_add(w, def3(box3(0.5f, 0.5f, 0.5f), SIM_DYNAMIC, start[n]), 0);
                n++;
            }
    }
    ck_assert_int_eq(n, 204);
    int steps = steps_to_sleep(w, 300);
    printf("base-8 pyramid (204 cubes) asleep after %d steps\n", steps);
    ck_assert_int_le(steps, 300);
    float moved = 0.0f;
    for (int i = 0; i < n; i++)
        moved = mk_maxf(moved, mk_v3_len(mk_v3_sub(body3(w, ids[i])->pos, start[i])));
    printf("largest move %.4f m\n", (double)moved);
    ck_assert_float_lt(moved, 0.05f);
    sim_world_free(w);
}
END_TEST

/* How far a cube slides in `seconds` on a static 30-degree slope with this friction. */
static float slide_on_slope3(float friction, float seconds)
{
    sim_config c = config3();
    sim_world *w = sim_world_new(&c);
    float angle = 30.0f * PI_F / 180.0f;
    mk_quat tilt = mk_quat_axis_angle(mk_v3(0, 0, 1), angle);
    sim_body_def *d = def3(box3(20, 0.5f, 5), SIM_STATIC, mk_v3(0, 0, 0));
    d->d3.rot = tilt;
    d->friction = friction;
    sim_world_add(w, d, 0);
    /* The cube rests on the slope's top face: 1 m above the slope's centre plane. */
    mk_vec3 up = mk_quat_rotate(tilt, mk_v3(0, 1, 0));
    d = def3(box3(0.5f, 0.5f, 0.5f), SIM_DYNAMIC, mk_v3_scale(up, 1.0f));
    d->d3.rot = tilt;
    d->friction = friction;
    sim_id id = sim_world_add(w, d, 0);
    mk_vec3 p0 = body3(w, id)->pos;
    int steps = (int)(seconds * 60.0f + 0.5f);
    for (int i = 0; i < steps; i++)
        sim_world_step(w);
    float slid = mk_v3_len(mk_v3_sub(body3(w, id)->pos, p0));
    sim_world_free(w);
    return slid;
}

START_TEST(cube_on_a_slope_stays_or_slides_by_its_friction)
{
    /* tan 30 = 0.577 < 0.6: static friction holds it. */
    float stay = slide_on_slope3(0.6f, 3.0f);
    printf("3D friction 0.6: slid %.5f m in 3 s\n", (double)stay);
    ck_assert_float_lt(stay, 0.01f);
    /* a = g (sin 30 - 0.1 cos 30) = 4.134 m/s^2: 2.067 m in the first second. */
    float slide = slide_on_slope3(0.1f, 1.0f);
    printf("3D friction 0.1: slid %.4f m in 1 s (2.067 expected)\n", (double)slide);
    ck_assert_float_eq_tol(slide, 2.067f, 0.1f);
}
END_TEST

START_TEST(ball_bounces_to_restitution_squared_height_3d)
{
    sim_world *w = world_with_floor();
    sim_body_def *d = def3(round3(COL_SHAPE3_SPHERE, 0.25f, 0), SIM_DYNAMIC,
                           mk_v3(0, 1.25f, 0));
    d->restitution = 0.8f;
    sim_id id = sim_world_add(w, d, 0);
    fixture_expect_bounce(w, id, "3D ");
    sim_world_free(w);
}
END_TEST

/* A fixture_landing_body: the cube or the ball. */
static sim_body_def landing_body(int shape, int k)
{
    col_shape3 s = shape == 0 ? box3(0.5f, 0.5f, 0.5f) : round3(COL_SHAPE3_SPHERE, 0.5f, 0);
    sim_body_def *d = def3(s, SIM_DYNAMIC, mk_v3(0, 0.8f + 0.0137f * (float)k, 0));
    d->d3.vel = mk_v3(0, -1.0f - (float)k, 0);
    return *d;
}

/* test_dynamics.c's fast landings in 3D: a cube and a ball landing at 1 to 30 m/s, from start
 * heights that put the floor at other points of the step, go no deeper than their resting
 * depth, and the cube does not bounce. */
START_TEST(fast_landings_neither_sink_nor_hop_3d)
{
    fixture_expect_fast_landings(world_with_floor, landing_body, "3D ", "cube");
}
END_TEST

START_TEST(curved_shapes_come_to_rest_on_their_support)
{
    sim_world *w = world_with_floor();
    mk_quat lying = mk_quat_axis_angle(mk_v3(0, 0, 1), 0.5f * PI_F);
    /* A cylinder on its end and a cone on its base, dropped 1 m; a capsule and a cylinder on
     * their sides, dropped 0.1 m. */
    sim_id standing = sim_world_add(
        w, def3(round3(COL_SHAPE3_CYLINDER, 0.5f, 0.5f), SIM_DYNAMIC, mk_v3(0, 1.5f, 0)), 0);
    sim_id cone = sim_world_add(
        w, def3(round3(COL_SHAPE3_CONE, 0.5f, 0.5f), SIM_DYNAMIC, mk_v3(3, 1.5f, 0)), 0);
    sim_body_def *d = def3(round3(COL_SHAPE3_CAPSULE, 0.3f, 0.5f), SIM_DYNAMIC,
                           mk_v3(6, 0.4f, 0));
    d->d3.rot = lying;
    sim_id capsule = sim_world_add(w, d, 0);
    d = def3(round3(COL_SHAPE3_CYLINDER, 0.3f, 0.5f), SIM_DYNAMIC, mk_v3(9, 0.4f, 0));
    d->d3.rot = lying;
    sim_id log = sim_world_add(w, d, 0);
    int steps = steps_to_sleep(w, 300);
    printf("curved shapes asleep after %d steps\n", steps);
    ck_assert_int_le(steps, 300);
    /* Each rests where its support says: centre at half its height or its radius. */
    ck_assert_float_eq_tol(body3(w, standing)->pos.y, 0.5f, 0.005f);
    ck_assert_float_gt(fabsf(body3(w, standing)->rot.w), 0.9999f);
    ck_assert_float_eq_tol(body3(w, cone)->pos.y, 0.5f, 0.005f);
    ck_assert_float_eq_tol(body3(w, capsule)->pos.y, 0.3f, 0.005f);
    ck_assert_float_eq_tol(body3(w, log)->pos.y, 0.3f, 0.005f);
    /* Lying ones did not roll away. */
    ck_assert_float_lt(fabsf(body3(w, capsule)->pos.z), 0.02f);
    ck_assert_float_lt(fabsf(body3(w, log)->pos.z), 0.02f);
    sim_world_free(w);
}
END_TEST

START_TEST(character_stands_walks_and_jumps_3d)
{
    sim_world *w = world_with_floor();
    /* A capsule of radius 0.4 and half height 0.5 stands with its centre 0.9 m up. */
    sim_id id = sim_world_add(w, def3(round3(COL_SHAPE3_CAPSULE, 0.4f, 0.5f), SIM_CHARACTER,
                                      mk_v3(0, 1.0f, 0)), 1);
    for (int i = 0; i < 60; i++)
        sim_world_step(w);
    const sim_body *c = sim_world_get(w, id);
    ck_assert(c->grounded);
    ck_assert_float_eq_tol(body3(w, id)->pos.y, 0.9f, 0.01f);
    /* Run along +z at 5 m/s for 1 s: the ramp takes 0.08 s, so about 4.8 m. */
    sim_body_set_input3(w, c->id, mk_v3(0, 0, 1), false);
    for (int i = 0; i < 60; i++)
        sim_world_step(w);
    const sim_body3 *b = body3(w, id);
    printf("character ran %.3f m along z\n", (double)b->pos.z);
    ck_assert_float_eq_tol(b->pos.z, 4.8f, 0.15f);
    ck_assert_float_lt(fabsf(b->pos.x), 0.01f);
    ck_assert_float_eq_tol(b->pos.y, 0.9f, 0.01f);
    /* Jump: it rises jump_height = 1.5 m. */
    sim_body_set_input3(w, id, mk_v3(0, 0, 0), true);
    float peak = 0.0f;
    for (int i = 0; i < 90; i++) {
        sim_world_step(w);
        peak = mk_maxf(peak, body3(w, id)->pos.y - 0.9f);
    }
    printf("character jumped %.3f m\n", (double)peak);
    ck_assert_float_eq_tol(peak, 1.5f, 0.1f);
    ck_assert(sim_world_get(w, id)->grounded);
    sim_world_free(w);
}
END_TEST

START_TEST(character_stands_on_a_slope_and_pushes_a_crate_3d)
{
    sim_world *w = world_with_floor();
    /* A 20-degree ramp (within the 50-degree slope limit): a character on it stays put. */
    mk_quat tilt = mk_quat_axis_angle(mk_v3(0, 0, 1), 20.0f * PI_F / 180.0f);
    sim_body_def *d = def3(box3(5, 0.5f, 3), SIM_STATIC, mk_v3(0, 1, 0));
    d->d3.rot = tilt;
    sim_world_add(w, d, 0);
    mk_vec3 on_ramp = mk_v3_add(mk_v3(0, 1, 0), mk_quat_rotate(tilt, mk_v3(0, 0.5f + 1.0f, 0)));
    sim_id chr = sim_world_add(w, def3(round3(COL_SHAPE3_CAPSULE, 0.4f, 0.5f), SIM_CHARACTER,
                                       on_ramp), 1);
    for (int i = 0; i < 60; i++)
        sim_world_step(w);
    mk_vec3 p0 = body3(w, chr)->pos;
    for (int i = 0; i < 120; i++)
        sim_world_step(w);
    float drift = mk_v3_len(mk_v3_sub(body3(w, chr)->pos, p0));
    printf("character on a 20-degree ramp drifted %.4f m in 2 s\n", (double)drift);
    ck_assert(sim_world_get(w, chr)->grounded);
    ck_assert_float_lt(drift, 0.01f);

    /* On the floor, a character running at a crate pushes it along. */
    sim_id pusher = sim_world_add(w, def3(round3(COL_SHAPE3_CAPSULE, 0.4f, 0.5f), SIM_CHARACTER,
                                          mk_v3(0, 0.9f, 10)), 2);
    sim_id crate = sim_world_add(w, def3(box3(0.5f, 0.5f, 0.5f), SIM_DYNAMIC,
                                         mk_v3(2, 0.5f, 10)), 0);
    sim_body_set_input3(w, pusher, mk_v3(1, 0, 0), false);
    for (int i = 0; i < 120; i++)
        sim_world_step(w);
    printf("crate pushed to x = %.3f\n", (double)body3(w, crate)->pos.x);
    ck_assert_float_gt(body3(w, crate)->pos.x, 4.0f);
    ck_assert_float_lt(body3(w, pusher)->pos.x, body3(w, crate)->pos.x - 0.85f);
    sim_world_free(w);
}
END_TEST

START_TEST(sleepers_wake_when_their_support_goes_3d)
{
    sim_world *w = world_with_floor();
    sim_id ids[3];
    stack_cubes(w, 3, ids);
    ck_assert_int_le(steps_to_sleep(w, 300), 300);
    size_t ncontacts;
    sim_world_step(w);
    sim_world_contacts3(w, &ncontacts);
    ck_assert_uint_eq(ncontacts, 0); /* asleep: nothing is collided */
    float y2 = body3(w, ids[2])->pos.y;
    ck_assert(sim_world_remove(w, ids[0]));
    for (int i = 0; i < 90; i++)
        sim_world_step(w);
    /* The two above fell the 1 m the bottom cube held them up. */
    ck_assert_float_eq_tol(body3(w, ids[2])->pos.y, y2 - 1.0f, 0.02f);
    ck_assert_float_eq_tol(body3(w, ids[1])->pos.y, 0.5f, 0.01f);
    sim_world_free(w);
}
END_TEST

/* The 3D demo with a character that runs a fixed script and a body dropped now and then;
 * returns the world hash after `ticks`. */
static uint64_t scripted_run3(int ticks)
{
    sim_config c = config3();
    mk_error err = {0};
    sim_world *w = wio_scene_load(wio_demo_scene3, strlen(wio_demo_scene3), "demo3d", &c, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    sim_id chr = sim_world_add(w, def3(round3(COL_SHAPE3_CAPSULE, 0.4f, 0.5f), SIM_CHARACTER,
                                       mk_v3(0, 1, 0)), 1);
    for (int t = 0; t < ticks; t++) {
        if (t % 50 == 0) {
            float a = 0.37f * (float)t;
            sim_body_set_input3(w, chr, mk_v3(cosf(a), 0, sinf(a)),
                                t % 150 == 0);
        }
        if (t % 200 == 100)
            sim_world_add(w, def3(round3(COL_SHAPE3_SPHERE, 0.3f, 0), SIM_DYNAMIC,
                                  mk_v3(0.01f * (float)t - 5, 6, 1)), 0);
        sim_world_step(w);
    }
    uint64_t h = sim_world_hash(w);
    sim_world_free(w);
    return h;
}

START_TEST(same_inputs_give_the_same_3d_world_bit_for_bit)
{
    uint64_t h1 = scripted_run3(2000), h2 = scripted_run3(2000);
    ck_assert_uint_eq(h1, h2);
    ck_assert_uint_ne(scripted_run3(1999), h1);
    printf("3D world hash after 2000 ticks: %016llx\n", (unsigned long long)h1);
}
END_TEST

/* A 3D body of a against the one with the same id in b: the same motion, bit for bit. */
static void assert_same_body3(sim_world *a, const sim_body *x, sim_world *b, const sim_body *y)
{
    const sim_body3 *a3 = sim_body3_of(a, x), *b3 = sim_body3_of(b, y);
    ck_assert_mem_eq(&a3->pos, &b3->pos, sizeof a3->pos);
    ck_assert_mem_eq(&a3->rot, &b3->rot, sizeof a3->rot);
    ck_assert_mem_eq(&a3->vel, &b3->vel, sizeof a3->vel);
    ck_assert_mem_eq(&a3->w, &b3->w, sizeof a3->w);
    ck_assert_int_eq(a3->shape.type, b3->shape.type);
}

START_TEST(a_saved_3d_world_loads_back_exactly)
{
    sim_config c = config3();
    mk_error err = {0};
    sim_world *w = wio_scene_load(wio_demo_scene3, strlen(wio_demo_scene3), "demo3d", &c, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int i = 0; i < 30; i++) /* mid-fall: speeds and spins are not zero */
        sim_world_step(w);
    proto_buf b;
    proto_buf_init(&b);
    wio_world_write(w, &b);
    sim_world *back = wio_scene_load(b.data, b.len, "saved", &c, &err);
    ck_assert_msg(back != NULL, "%s", err.message);
    ck_assert_int_eq(sim_world_dim(back), 3);
    fixture_each_pair(w, back, assert_same_body3);
    proto_buf_free(&b);
    sim_world_free(back);
    sim_world_free(w);
}
END_TEST

/* A world of many separate stacks of cubes, wobbling (each cube a little off the one below),
 * with kinematic bars sweeping through the tops of two stacks each, and balls and capsules
 * rolling into the stacks between them: on one worker the solver takes it block by block
 * (runs of bodies no contact joins; a kinematic bar joins the stacks it touches), on two it
 * takes each color over the whole world, and the two must move every body alike, bit for
 * bit. The contacts have from one point (a ball) to four (a cube on a cube), which the groups
 * are laid out by within a color, differently on one worker and on two. */
/* A world on a floor `half` m each way whose top is y = 0, stepped by `workers`, where no body
 * sleeps (the solver works every step). */
static sim_world *sleepless_world_on_floor(int workers, float half)
{
    sim_config c = config3();
    c.workers = workers;
    c.sleep = false;
    sim_world *w = sim_world_new(&c);
    ck_assert_uint_ne(
        sim_world_add(w, def3(box3(half, 0.5f, half), SIM_STATIC, mk_v3(0, -0.5f, 0)), 0), 0);
    return w;
}

/* Steps two worlds alike, checking after every step that they are the same, bit for bit. */
static void step_alike(sim_world *one, sim_world *two, int steps)
{
    for (int t = 0; t < steps; t++) {
        sim_world_step(one);
        sim_world_step(two);
        ck_assert_msg(sim_world_hash(one) == sim_world_hash(two), "step %d: the worlds differ", t);
    }
}

static sim_world *stacks_and_bars(int workers)
{
    sim_world *w = sleepless_world_on_floor(workers, 60);
    for (int sx = 0; sx < 24; sx++)
        for (int sz = 0; sz < 10; sz++)
            for (int k = 0; k < 5; k++) {
                float off = 0.03f * (float)((sx + sz + k) % 3);
                mk_vec3 at = {1.5f * (float)sx - 18.0f + off, 0.5f + 1.01f * (float)k,
                              1.5f * (float)sz - 7.0f};
                sim_id cube = sim_world_add(w, def3(box3(0.5f, 0.5f, 0.5f), SIM_DYNAMIC, at), 0);
                ck_assert_uint_ne(cube, 0);
            }
    /* Each bar spans two neighbouring stacks along x, a pair of rows of stacks apart from the
     * next bar's, and drifts along z through the top cubes of both. */
    for (int i = 0; i < 12; i++) {
        mk_vec3 at = {3.0f * (float)i - 17.25f, 4.6f, 1.5f * (float)(i % 10) - 7.0f};
        sim_id bar = sim_world_add(w, def3(box3(1.0f, 0.1f, 0.2f), SIM_KINEMATIC, at), 0);
        ck_assert_uint_ne(bar, 0);
        ck_assert(sim_body_set_velocity3(w, bar, mk_v3(0, 0, 0.3f)));
    }
    for (int i = 0; i < 40; i++) {
        mk_vec3 at = {1.5f * (float)(i % 20) - 17.25f, 0.5f, 1.5f * (float)(i / 20) * 4.0f - 6.25f};
        col_shape3 s = i % 2 ? round3(COL_SHAPE3_SPHERE, 0.3f, 0.0f)
                             : round3(COL_SHAPE3_CAPSULE, 0.2f, 0.3f);
        sim_id ball = sim_world_add(w, def3(s, SIM_DYNAMIC, at), 0);
        ck_assert_uint_ne(ball, 0);
        ck_assert(sim_body_set_velocity3(w, ball, mk_v3(0.5f * (float)(i % 3) - 0.5f, 0, 1.0f)));
    }
    return w;
}

START_TEST(solving_by_blocks_moves_bodies_as_solving_the_whole_world)
{
    sim_world *one = stacks_and_bars(1), *two = stacks_and_bars(2);
    step_alike(one, two, 240);
    size_t contacts;
    sim_world_contacts3(one, &contacts);
    ck_assert_uint_ge(contacts, 1200); /* every cube rests on something */
    fixture_each_pair(one, two, assert_same_body3);
    ck_assert_uint_eq(sim_world_hash(one), sim_world_hash(two));
    sim_world_free(one);
    sim_world_free(two);
}
END_TEST

/* Boxes spinning down onto the floor, each moving more than 2 cm a step so that it is swept:
 * with two workers a body whose sweep cannot meet anything is finished on a worker, which must
 * judge that by the box the sweep itself takes (the step's new rotation); with one worker every
 * sweep is made. Both must land every box alike, bit for bit. */
static sim_world *spinning_landing(int workers)
{
    sim_world *w = sleepless_world_on_floor(workers, 40);
    for (int i = 0; i < 400; i++) {
        float x = -30.0f + 1.5f * (float)(i % 40), z = -15.0f + 3.0f * (float)(i / 40);
        float y = 0.9f + 0.013f * (float)(i % 17);
        sim_id id = sim_world_add(w, def3(box3(0.5f, 0.5f, 0.5f), SIM_DYNAMIC, mk_v3(x, y, z)), 0);
        ck_assert_uint_ne(id, 0);
        ck_assert(sim_body_set_velocity3(w, id, mk_v3(0, -1.3f - 0.07f * (float)(i % 13), 0)));
        mk_vec3 spin = {2.0f + 0.3f * (float)(i % 7), 0.1f * (float)(i % 5),
                        1.5f - 0.2f * (float)(i % 11)};
        ck_assert(sim_body_set_spin3(w, id, spin));
    }
    return w;
}

START_TEST(spinning_boxes_land_alike_with_one_worker_and_two)
{
    sim_world *one = spinning_landing(1), *two = spinning_landing(2);
    step_alike(one, two, 90);
    fixture_each_pair(one, two, assert_same_body3);
    sim_world_free(one);
    sim_world_free(two);
}
END_TEST

START_TEST(shapes_of_the_other_dim_are_refused)
{
    proto_body_spec spec = {.shape = {.type = PROTO_SHAPE_CIRCLE, .radius = 1},
                            .rot = {0, 0, 0, 1}};
    sim_body_def *d = def3(box3(1, 1, 1), SIM_DYNAMIC, mk_v3(0, 0, 0));
    mk_error err = {0};
    ck_assert_int_eq(wio_body_def_from_spec(&spec, 3, d, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "2D shape"));
    spec.shape.type = PROTO_SHAPE_SPHERE;
    ck_assert_int_eq(wio_body_def_from_spec(&spec, 2, d, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "3D shape"));
    ck_assert_int_eq(wio_body_def_from_spec(&spec, 3, d, &err), 0);
    /* A hull of four points on one plane is refused, with the reason. */
    spec.shape.type = PROTO_SHAPE_HULL;
    spec.shape.npoints = 4;
    double flat[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0, 1}};
    memcpy(spec.shape.points, flat, sizeof flat);
    ck_assert_int_eq(wio_body_def_from_spec(&spec, 3, d, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "shape.points"));
}
END_TEST

MINK_CHECK_TESTS("dynamics3", 120, mass_and_inertia_3d, tower_of_ten_cubes_settles_and_sleeps,
                 pyramid_of_base_eight_settles_and_sleeps,
                 cube_on_a_slope_stays_or_slides_by_its_friction,
                 ball_bounces_to_restitution_squared_height_3d,
                 fast_landings_neither_sink_nor_hop_3d, curved_shapes_come_to_rest_on_their_support,
                 character_stands_walks_and_jumps_3d,
                 character_stands_on_a_slope_and_pushes_a_crate_3d,
                 sleepers_wake_when_their_support_goes_3d,
                 same_inputs_give_the_same_3d_world_bit_for_bit,
                 a_saved_3d_world_loads_back_exactly,
                 solving_by_blocks_moves_bodies_as_solving_the_whole_world,
                 spinning_boxes_land_alike_with_one_worker_and_two,
                 shapes_of_the_other_dim_are_refused)
