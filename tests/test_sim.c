/* mink_sim: bodies fall and rest, push-out shares by inverse mass, inputs move kinematic bodies
 * and characters, ids carry generations, scenes load or say exactly what is wrong. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mink_world_io.h"
#include "sim_fixture.h"
#include "check_main.h"

#define PI_F 3.14159265f

static sim_body_def box_def(sim_kind kind, float x, float y, float hx, float hy)
{
    return fixture_rect(COL_SHAPE_AABB, kind, x, y, hx, hy);
}

/* A static right triangle rising to the right: from (x0, 0) to (x0 + run, run * tan(angle)). */
static sim_id add_ramp(sim_world *w, float x0, float run, float angle)
{
    sim_body_def d = box_def(SIM_STATIC, 0, 0, 1, 1);
    mk_vec2 pts[3] = {mk_v2(x0, 0), mk_v2(x0 + run, 0), mk_v2(x0 + run, run * tanf(angle))};
    mk_error why = {0};
    ck_assert_int_eq(col_polygon_make(pts, 3, &d.polygon, &why), 0);
    d.shape.type = COL_SHAPE_POLYGON;
    d.shape.polygon = &d.polygon;
    return sim_world_add(w, &d, 0);
}

/* A world with a static ground whose top is y = 0, 100 m wide. */
static sim_world *world_with_ground(sim_id *ground)
{
    sim_config cfg = sim_config_default();
    sim_world *w = sim_world_new(&cfg);
    sim_body_def g = box_def(SIM_STATIC, 0, -0.5f, 50, 0.5f);
    sim_id id = sim_world_add(w, &g, 0);
    if (ground)
        *ground = id;
    return w;
}

/* A world with the default configuration but no gravity. */
static sim_world *weightless_world(void)
{
    sim_config cfg = sim_config_default();
    cfg.gravity = mk_v2(0, 0);
    return sim_world_new(&cfg);
}

static void run(sim_world *w, int steps)
{
    for (int i = 0; i < steps; i++)
        sim_world_step(w);
}

/* A world with the ground and a ramp on it (add_ramp). */
static sim_world *world_with_ramp(float x0, float run_x, float angle)
{
    sim_world *w = world_with_ground(NULL);
    add_ramp(w, x0, run_x, angle);
    return w;
}

/* n 1 m boxes, dynamic, in rows of `cols`: box i at (x0 + dx (i % cols), y0 + dy (i / cols));
 * their ids. */
static void add_boxes(sim_world *w, sim_id *ids, int n, int cols, float x0, float dx, float y0,
                      float dy)
{
    for (int i = 0; i < n; i++) {
        sim_body_def d = box_def(SIM_DYNAMIC, x0 + (float)(i % cols) * dx,
                                 y0 + (float)(i / cols) * dy, 0.5f, 0.5f);
        ids[i] = sim_world_add(w, &d, 0);
    }
}

/* Two 1 m boxes on the x axis in a weightless world: a at the origin moving at va (m/s), b at
 * xb of density rho_b; their ids. */
static sim_world *weightless_pair(float va, float xb, float rho_b, sim_id *ia, sim_id *ib)
{
    sim_world *w = weightless_world();
    sim_body_def a = box_def(SIM_DYNAMIC, 0, 0, 0.5f, 0.5f);
    sim_body_def b = box_def(SIM_DYNAMIC, xb, 0, 0.5f, 0.5f);
    a.vel = mk_v2(va, 0);
    b.density = rho_b;
    *ia = sim_world_add(w, &a, 0);
    *ib = sim_world_add(w, &b, 0);
    return w;
}

START_TEST(box_falls_and_rests_on_ground)
{
    sim_world *w = world_with_ground(NULL);
    sim_body_def d = box_def(SIM_DYNAMIC, 2, 5, 0.5f, 0.5f);
    sim_id id = sim_world_add(w, &d, 0);
    /* Free fall from a height of 4.5 m takes sqrt(2 * 4.5 / 10) = 0.95 s. */
    run(w, 30);
    ck_assert_float_gt(sim_world_get(w, id)->pos.y, 2.0f);
    run(w, 270);
    const sim_body *b = sim_world_get(w, id);
    ck_assert_float_eq_tol(b->pos.y, 0.5f, 1e-3f);
    ck_assert_float_eq_tol(b->pos.x, 2.0f, 1e-6f);
    ck_assert_float_eq_tol(b->vel.y, 0.0f, 1e-4f);
    ck_assert_uint_eq(sim_world_tick(w), 300);
    sim_world_free(w);
}
END_TEST

START_TEST(stack_of_three_settles)
{
    sim_world *w = world_with_ground(NULL);
    sim_id ids[3];
    add_boxes(w, ids, 3, 1, 0, 0, 0.6f, 1.2f);
    run(w, 240);
    /* Soft contacts rest a little deep under load: a millimetre or so per contact. */
    for (int i = 0; i < 3; i++) {
        const sim_body *b = sim_world_get(w, ids[i]);
        ck_assert_float_eq_tol(b->pos.y, 0.5f + (float)i, 3e-3f);
        ck_assert_float_eq_tol(b->pos.x, 0.0f, 1e-6f);
    }
    sim_world_free(w);
}
END_TEST

START_TEST(overlapping_pair_is_pushed_apart_keeping_momentum)
{
    sim_id ia, ib;
    sim_world *w = weightless_pair(0, 0.9f, 3.0f, &ia, &ib); /* 3 kg against 1 kg */
    sim_world_step(w);
    size_t n;
    const sim_contact2 *c = sim_world_contacts2(w, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_float_eq_tol(c[0].m.depth, 0.1f, 1e-6f);
    /* The normal points from the pair's first body to its second. */
    float sign = c[0].a == ia ? 1.0f : -1.0f;
    ck_assert_float_eq_tol(c[0].m.normal.x, sign, 1e-6f);
    /* The soft contact pushes them apart at a bounded speed (3 m/s at most) and the relax
     * pass takes that speed back: they part without flying apart, and momentum stays 0. */
    for (int i = 0; i < 60; i++) {
        sim_world_step(w);
        const sim_body *x = sim_world_get(w, ia), *y = sim_world_get(w, ib);
        ck_assert_float_eq_tol(x->vel.x * 1.0f + y->vel.x * 3.0f, 0.0f, 1e-5f);
        ck_assert_float_lt(fabsf(y->vel.x - x->vel.x), 3.0f);
    }
    const sim_body *x = sim_world_get(w, ia), *y = sim_world_get(w, ib);
    ck_assert_float_ge(y->pos.x - x->pos.x, 1.0f - 2e-3f);
    ck_assert_float_lt(y->pos.x - x->pos.x, 1.05f);
    /* The lighter box moved three times as far as the heavier one. */
    ck_assert_float_eq_tol(-x->pos.x, 3.0f * (y->pos.x - 0.9f), 1e-4f);
    sim_world_free(w);
}
END_TEST

START_TEST(closing_velocity_removed_momentum_kept)
{
    sim_id ia, ib;
    sim_world *w = weightless_pair(6, 1.05f, 1.0f, &ia, &ib); /* 1 kg at 6 m/s meets 1 kg */
    run(w, 3);
    /* A perfectly inelastic normal impulse: both go on at 3 m/s, momentum 6 kg m/s kept. */
    ck_assert_float_eq_tol(sim_world_get(w, ia)->vel.x, 3.0f, 1e-4f);
    ck_assert_float_eq_tol(sim_world_get(w, ib)->vel.x, 3.0f, 1e-4f);
    sim_world_free(w);
}
END_TEST

START_TEST(static_pushes_dynamic_out_without_adding_energy)
{
    sim_world *w = world_with_ground(NULL);
    sim_body_def d = box_def(SIM_DYNAMIC, 0, 0.3f, 0.5f, 0.5f); /* sunk 0.2 m */
    sim_id id = sim_world_add(w, &d, 0);
    /* Out within a few steps, never launched: it rises no higher than resting height. */
    float highest = 0.0f;
    for (int i = 0; i < 60; i++) {
        sim_world_step(w);
        highest = mk_maxf(highest, sim_world_get(w, id)->pos.y);
    }
    const sim_body *b = sim_world_get(w, id);
    ck_assert_float_eq_tol(b->pos.y, 0.5f, 2e-3f);
    ck_assert_float_lt(highest, 0.5f + 1e-3f);
    ck_assert_float_eq_tol(b->vel.y, 0.0f, 1e-3f);
    sim_world_free(w);
}
END_TEST

START_TEST(kinematic_moves_at_max_speed_and_is_not_pushed)
{
    sim_world *w = world_with_ground(NULL);
    sim_body_def k = box_def(SIM_KINEMATIC, -10, 0.25f, 1, 0.25f); /* sunk into the ground */
    k.max_speed = 4.0f;
    sim_id kid = sim_world_add(w, &k, 0);
    sim_body_def crate = box_def(SIM_DYNAMIC, -7, 0.5f, 0.5f, 0.5f);
    sim_id cid = sim_world_add(w, &crate, 0);
    sim_body_set_input2(w, kid, mk_v2(1, 0), false);
    run(w, 60);
    const sim_body *kb = sim_world_get(w, kid);
    /* 4 m/s for one second, exactly along x, not lifted by the ground it overlaps. */
    ck_assert_float_eq_tol(kb->pos.x, -6.0f, 1e-3f);
    ck_assert_float_eq_tol(kb->pos.y, 0.25f, 1e-6f);
    ck_assert_float_eq_tol(kb->vel.x, 4.0f, 1e-6f);
    /* The crate in its way was pushed ahead of it. */
    ck_assert_float_ge(sim_world_get(w, cid)->pos.x, -6.0f + 1.0f + 0.5f - 1e-3f);
    sim_world_free(w);
}
END_TEST

START_TEST(character_runs_jumps_and_lands)
{
    sim_world *w = world_with_ground(NULL);
    sim_body_def c = box_def(SIM_CHARACTER, 0, 0.9f, 0.4f, 0.9f);
    c.max_speed = 6.0f;
    sim_id id = sim_world_add(w, &c, 1);
    run(w, 10);
    const sim_body *b = sim_world_get(w, id);
    ck_assert(b->grounded);
    ck_assert_float_eq_tol(b->pos.y, 0.9f, 1e-3f);

    sim_body_set_input2(w, b->id, mk_v2(1, 0), false);
    run(w, 30);
    b = sim_world_get(w, id);
    ck_assert_float_eq_tol(b->vel.x, 6.0f, 1e-4f);
    ck_assert(b->grounded);

    /* Jump: v = sqrt(2 g h) rises about h = 1.5 m (a little less with a discrete step). */
    sim_body_set_input2(w, b->id, mk_v2(0, 0), true);
    float peak = 0.0f;
    bool left_ground = false;
    for (int i = 0; i < 120; i++) {
        sim_world_step(w);
        b = sim_world_get(w, id);
        if (i == 0)
            sim_body_set_input2(w, b->id, mk_v2(0, 0), false);
        left_ground |= !b->grounded;
        peak = fmaxf(peak, b->pos.y - 0.9f);
    }
    ck_assert(left_ground);
    ck_assert_float_eq_tol(peak, 1.5f, 0.1f);
    /* Landed again, standing. */
    ck_assert(b->grounded);
    ck_assert_float_eq_tol(b->pos.y, 0.9f, 1e-3f);
    ck_assert_float_eq_tol(b->vel.x, 0.0f, 1e-4f);
    sim_world_free(w);
}
END_TEST

START_TEST(jump_between_steps_is_not_lost)
{
    sim_world *w = world_with_ground(NULL);
    sim_body_def c = box_def(SIM_CHARACTER, 0, 0.9f, 0.4f, 0.9f);
    sim_id id = sim_world_add(w, &c, 1);
    run(w, 10);
    const sim_body *b = sim_world_get(w, id);
    ck_assert(b->grounded);
    /* Two inputs between two steps: the first asks for a jump, the second does not. */
    sim_body_set_input2(w, b->id, mk_v2(0, 0), true);
    sim_body_set_input2(w, b->id, mk_v2(0, 0), false);
    sim_world_step(w);
    b = sim_world_get(w, id);
    /* Launched at sqrt(2 g h) = sqrt(30) m/s, less one step of gravity. */
    ck_assert_float_eq_tol(b->vel.y, sqrtf(30.0f) - 10.0f / 60.0f, 1e-4f);
    /* The jump was consumed: landing again does not jump a second time. */
    run(w, 120);
    b = sim_world_get(w, id);
    ck_assert(b->grounded);
    ck_assert_float_eq_tol(b->vel.y, 0.0f, 1e-4f);
    sim_world_free(w);
}
END_TEST

START_TEST(character_walks_up_a_slope_and_stands_on_it)
{
    const float angle = 30.0f * PI_F / 180.0f;
    sim_world *w = world_with_ramp(2.0f, 20.0f, angle);
    sim_body_def c = box_def(SIM_CHARACTER, 0, 0.9f, 0.4f, 0.9f);
    c.max_speed = 4.0f;
    sim_id id = sim_world_add(w, &c, 1);
    run(w, 10);
    const sim_body *b = sim_world_get(w, id);
    sim_body_set_input2(w, b->id, mk_v2(1, 0), false);
    run(w, 120); /* 2 s: about 8 m, well onto the ramp */
    b = sim_world_get(w, id);
    ck_assert(b->grounded);
    ck_assert_float_gt(b->pos.x, 6.0f);
    /* The box's lower right corner rests on the slope: y - 0.9 = (x + 0.4 - 2) tan(30). */
    float on_slope = (b->pos.x + 0.4f - 2.0f) * tanf(angle) + 0.9f;
    ck_assert_float_eq_tol(b->pos.y, on_slope, 0.02f);
    /* It ran at full speed across the ground, up the ramp. */
    ck_assert_float_eq_tol(b->vel.x, 4.0f, 1e-3f);
    /* Let go: it stops and stands still on the slope, without sliding or jittering. */
    sim_body_set_input2(w, b->id, mk_v2(0, 0), false);
    run(w, 30);
    b = sim_world_get(w, id);
    mk_vec2 rest = b->pos;
    for (int i = 0; i < 120; i++) {
        sim_world_step(w);
        b = sim_world_get(w, id);
        ck_assert(b->grounded);
        ck_assert_float_eq_tol(b->pos.x, rest.x, 1e-4f);
        ck_assert_float_eq_tol(b->pos.y, rest.y, 1e-3f);
    }
    sim_world_free(w);
}
END_TEST

START_TEST(character_walks_down_a_slope_without_leaving_it)
{
    const float angle = 30.0f * PI_F / 180.0f;
    sim_world *w = world_with_ramp(2.0f, 20.0f, angle);
    /* Standing on the slope (rising to the right) near its top: its lower right corner on the
     * surface. */
    float x = 18.0f;
    sim_body_def c = box_def(SIM_CHARACTER, x, (x + 0.4f - 2.0f) * tanf(angle) + 0.9f, 0.4f, 0.9f);
    c.max_speed = 6.0f; /* 0.1 m a step, 5.8 cm down the slope */
    sim_id id = sim_world_add(w, &c, 1);
    run(w, 5);
    const sim_body *b = sim_world_get(w, id);
    ck_assert(b->grounded);
    sim_body_set_input2(w, b->id, mk_v2(-1, 0), false);
    /* 1.5 s down the slope: on the ground at every step, riding the surface (no hops), at
     * running speed along x. */
    for (int i = 0; i < 90; i++) {
        sim_world_step(w);
        b = sim_world_get(w, id);
        float on_slope = (b->pos.x + 0.4f - 2.0f) * tanf(angle) + 0.9f;
        ck_assert_msg(b->grounded, "step %d: left the slope at (%g, %g)", i, b->pos.x, b->pos.y);
        ck_assert_float_eq_tol(b->pos.y, on_slope, 0.01f);
    }
    ck_assert_float_lt(b->pos.x, 18.0f - 8.0f);
    sim_world_free(w);
}
END_TEST

START_TEST(character_slides_down_a_steep_slope)
{
    const float angle = 65.0f * PI_F / 180.0f; /* steeper than 50 degrees */
    sim_world *w = world_with_ramp(0.0f, 4.0f, angle);
    /* Dropped onto the slope's face, near its top. */
    float x = 2.5f, y = (x + 0.4f) * tanf(angle) + 0.9f + 0.05f;
    sim_body_def c = box_def(SIM_CHARACTER, x, y, 0.4f, 0.9f);
    sim_id id = sim_world_add(w, &c, 1);
    sim_world_step(w);
    float y0 = sim_world_get(w, id)->pos.y;
    bool ever_grounded = false;
    for (int i = 0; i < 30; i++) {
        sim_world_step(w);
        ever_grounded |= sim_world_get(w, id)->grounded;
    }
    const sim_body *b = sim_world_get(w, id);
    /* Too steep to stand on: never ground, and it went down (and away from the slope). */
    ck_assert(!ever_grounded);
    ck_assert_float_lt(b->pos.y, y0 - 0.5f);
    ck_assert_float_lt(b->pos.x, x);
    sim_world_free(w);
}
END_TEST

START_TEST(fast_small_circle_does_not_tunnel)
{
    sim_world *w = weightless_world();
    /* A wall 0.05 m thick at x = 10, and a 0.1 m circle at 200 m/s: 3.3 m per step. */
    sim_body_def wall = box_def(SIM_STATIC, 10.0f, 0, 0.025f, 2.0f);
    wall.shape.type = COL_SHAPE_BOX;
    sim_world_add(w, &wall, 0);
    sim_body_def ball = box_def(SIM_DYNAMIC, 0, 0.3f, 1, 1);
    ball.shape.type = COL_SHAPE_CIRCLE;
    ball.shape.radius = 0.1f;
    ball.vel = mk_v2(200.0f, 0);
    sim_id id = sim_world_add(w, &ball, 0);
    for (int i = 0; i < 60; i++) {
        sim_world_step(w);
        const sim_body *b = sim_world_get(w, id);
        ck_assert_ptr_nonnull(b);
        ck_assert_float_le(b->pos.x, 10.0f - 0.025f - 0.1f + 0.01f);
    }
    const sim_body *b = sim_world_get(w, id);
    /* It stopped at the wall's face, its velocity into the wall gone. */
    ck_assert_float_eq_tol(b->pos.x, 10.0f - 0.025f - 0.1f, 0.01f);
    ck_assert_float_le(b->vel.x, 1e-3f);
    sim_world_free(w);
}
END_TEST

START_TEST(every_2d_shape_rests_on_the_ground)
{
    sim_world *w = world_with_ground(NULL);
    sim_body_def box = box_def(SIM_DYNAMIC, -4, 2, 0.5f, 0.25f);
    box.shape.type = COL_SHAPE_BOX;
    sim_body_def circle = box_def(SIM_DYNAMIC, 0, 2, 1, 1);
    circle.shape.type = COL_SHAPE_CIRCLE;
    circle.shape.radius = 0.3f;
    sim_body_def poly = box_def(SIM_DYNAMIC, 4, 2, 1, 1);
    mk_vec2 pts[6] = {mk_v2(-0.5f, -0.5f), mk_v2(0.5f, -0.5f), mk_v2(0.7f, 0.2f),
                      mk_v2(0, 0.8f),      mk_v2(-0.7f, 0.2f), mk_v2(0, 0)};
    mk_error why = {0};
    ck_assert_int_eq(col_polygon_make(pts, 6, &poly.polygon, &why), 0);
    ck_assert_int_eq(poly.polygon.count, 5); /* (0, 0) is inside */
    poly.shape.type = COL_SHAPE_POLYGON;
    sim_id ids[3] = {sim_world_add(w, &box, 0), sim_world_add(w, &circle, 0),
                     sim_world_add(w, &poly, 0)};
    run(w, 180);
    /* Resting: the lowest point of each shape on y = 0. */
    ck_assert_float_eq_tol(sim_world_get(w, ids[0])->pos.y, 0.25f, 1e-3f);
    ck_assert_float_eq_tol(sim_world_get(w, ids[1])->pos.y, 0.3f, 1e-3f);
    ck_assert_float_eq_tol(sim_world_get(w, ids[2])->pos.y, 0.5f, 1e-3f);
    for (int i = 0; i < 3; i++)
        ck_assert_float_eq_tol(sim_world_get(w, ids[i])->vel.y, 0.0f, 1e-3f);
    sim_world_free(w);
}
END_TEST

START_TEST(degenerate_polygon_spec_is_refused)
{
    proto_body_spec spec = {
        .shape = {.type = PROTO_SHAPE_POLYGON, .npoints = 3, .points = {{0, 0}, {1, 1}, {2, 2}}},
        .density = 1,
    };
    static sim_body_def def;
    mk_error err = {0};
    ck_assert_int_eq(wio_body_def_from_spec(&spec, 2, &def, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "shape.points: "));
    ck_assert_ptr_nonnull(strstr(err.message, "collinear"));
    spec.shape.points[2][1] = 0;
    ck_assert_int_eq(wio_body_def_from_spec(&spec, 2, &def, &err), 0);
    ck_assert_int_eq(def.shape.type, COL_SHAPE_POLYGON);
    ck_assert_int_eq(def.polygon.count, 3);
}
END_TEST

START_TEST(character_stops_at_a_wall)
{
    sim_world *w = world_with_ground(NULL);
    sim_body_def wall = box_def(SIM_STATIC, 5, 2, 0.5f, 2);
    sim_world_add(w, &wall, 0);
    sim_body_def c = box_def(SIM_CHARACTER, 0, 0.9f, 0.4f, 0.9f);
    sim_id id = sim_world_add(w, &c, 1);
    sim_body_set_input2(w, id, mk_v2(1, 0), false);
    run(w, 120);
    const sim_body *b = sim_world_get(w, id);
    /* Its right side (x + 0.4) rests on the wall's left side (4.5). */
    ck_assert_float_eq_tol(b->pos.x, 4.1f, 1e-3f);
    ck_assert_float_eq_tol(b->pos.y, 0.9f, 1e-3f);
    sim_world_free(w);
}
END_TEST

START_TEST(ids_carry_generations)
{
    sim_config cfg = sim_config_default();
    sim_world *w = sim_world_new(&cfg);
    sim_body_def d = box_def(SIM_DYNAMIC, 0, 0, 0.5f, 0.5f);
    sim_id a = sim_world_add(w, &d, 7);
    sim_id b = sim_world_add(w, &d, 7);
    ck_assert_uint_eq(a, 1);
    ck_assert_uint_eq(b, 2);
    ck_assert(sim_world_remove(w, a));
    ck_assert(!sim_world_remove(w, a));
    size_t n;
    const sim_id *gone = sim_world_removed(w, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(gone[0], a);
    /* The slot is not reused until the removal has been seen by everyone. */
    sim_id c = sim_world_add(w, &d, 7);
    ck_assert_uint_eq(c, 3);
    sim_world_clear_removed(w);
    sim_id e = sim_world_add(w, &d, 7);
    ck_assert_uint_eq(sim_id_slot(e), 0);
    ck_assert_uint_eq(e, (1ull << SIM_SLOT_BITS) | 1u);
    ck_assert_ptr_null(sim_world_get(w, a));
    ck_assert_ptr_nonnull(sim_world_get(w, e));
    ck_assert_ptr_null(sim_world_get(w, 0));
    ck_assert_ptr_null(sim_world_get(w, 999));
    ck_assert_uint_eq(sim_world_count_owned(w, 7), 3);
    ck_assert_uint_eq(sim_world_remove_owned(w, 7), 3);
    ck_assert_uint_eq(sim_world_body_count(w), 0);
    sim_world_free(w);
}
END_TEST

START_TEST(world_full_refuses)
{
    sim_body_def d = box_def(SIM_DYNAMIC, 0, 0, 0.5f, 0.5f);
    sim_config cfg = sim_config_default();
    cfg.max_bodies = 2;
    sim_world *w = sim_world_new(&cfg);
    ck_assert_uint_ne(sim_world_add(w, &d, 0), 0);
    ck_assert_uint_ne(sim_world_add(w, &d, 0), 0);
    ck_assert_uint_eq(sim_world_add(w, &d, 0), 0);
    sim_world_free(w);
}
END_TEST

START_TEST(bodies_leaving_bounds_are_removed)
{
    sim_config cfg = sim_config_default();
    cfg.bounds = 20.0f;
    sim_world *w = sim_world_new(&cfg);
    sim_body_def d = box_def(SIM_DYNAMIC, 0, 0, 0.5f, 0.5f);
    sim_id id = sim_world_add(w, &d, 0);
    /* Falling 20 m from rest takes 2 s. */
    run(w, 100);
    ck_assert_ptr_nonnull(sim_world_get(w, id));
    run(w, 40);
    ck_assert_ptr_null(sim_world_get(w, id));
    size_t n;
    const sim_id *gone = sim_world_removed(w, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(gone[0], id);
    sim_world_free(w);
}
END_TEST

START_TEST(many_boxes_never_pass_through_the_ground)
{
    sim_world *w = world_with_ground(NULL);
    sim_id ids[200];
    add_boxes(w, ids, 200, 20, -11.0f, 1.1f, 1.0f, 1.3f);
    run(w, 600);
    for (int i = 0; i < 200; i++) {
        const sim_body *b = sim_world_get(w, ids[i]);
        ck_assert_ptr_nonnull(b);
        ck_assert(mk_v2_finite(b->pos) && mk_v2_finite(b->vel));
        /* Ten boxes per column: each rests within a few centimetres of its row (soft
         * contacts rest deeper under more weight). */
        float row = (float)(i / 20);
        ck_assert_float_eq_tol(b->pos.y, 0.5f + row, 0.03f);
    }
    sim_world_free(w);
}
END_TEST

static sim_world *load(const char *json, mk_error *err)
{
    sim_config cfg = sim_config_default();
    return wio_scene_load(json, strlen(json), "test.json", &cfg, err);
}

START_TEST(demo_scene_loads)
{
    mk_error err = {0};
    sim_world *w = load(wio_demo_scene2, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    ck_assert_uint_eq(sim_world_body_count(w), 20);
    /* Everything falls and settles: after 10 s every body is asleep. The ball rolled down the
     * plank, flew onto the platform at x = 12 and rests there (top y = 1.5, radius 0.4)
     * against the side of the large crate (x = 12 + 0.75 + 0.4). */
    run(w, 600);
    size_t slots;
    const sim_body *b = sim_world_slots(w, &slots);
    for (size_t i = 0; i < slots; i++) {
        if (!b[i].id || b[i].kind == SIM_STATIC)
            continue;
        if (strcmp(b[i].tag, "ball") == 0) {
            ck_assert_float_eq_tol(b[i].pos.y, 1.5f + 0.4f, 2e-3f);
            ck_assert_float_eq_tol(b[i].pos.x, 12.0f + 0.75f + 0.4f, 1e-2f);
        }
        ck_assert_msg(b[i].sleeping, "%s at (%g, %g) moves at (%g, %g)", b[i].tag, b[i].pos.x,
                      b[i].pos.y, b[i].vel.x, b[i].vel.y);
    }
    sim_world_free(w);
}
END_TEST

START_TEST(scene_errors_name_the_field)
{
    mk_error err = {0};
    ck_assert_ptr_null(load("{\"dim\":2,", &err));
    ck_assert_str_eq(err.message, "test.json: not valid JSON");
    ck_assert_ptr_null(load("[]", &err));
    ck_assert_ptr_nonnull(strstr(err.message, "a scene is a JSON object"));
    ck_assert_ptr_null(load("{\"dim\":4,\"bodies\":[]}", &err));
    ck_assert_str_eq(err.message, "test.json: dim: must be 2 or 3");
    ck_assert_ptr_null(load("{\"dim\":2}", &err));
    ck_assert_ptr_nonnull(strstr(err.message, "bodies: expected an array"));
    ck_assert_ptr_null(load("{\"dim\":2,\"gravity\":[0,\"x\"],\"bodies\":[]}", &err));
    ck_assert_ptr_nonnull(strstr(err.message, "test.json: gravity"));
    ck_assert_ptr_null(load("{\"dim\":2,\"bodies\":["
                            "{\"shape\":{\"type\":\"aabb\",\"half\":[1,1]},\"pos\":[0,0]},"
                            "{\"shape\":{\"type\":\"aabb\",\"half\":[1,1]},\"pos\":[0,0]},"
                            "{\"shape\":{\"type\":\"aabb\",\"half\":[1,0]},\"pos\":[0,0]}]}",
                            &err));
    ck_assert_ptr_nonnull(strstr(err.message, "test.json: bodies[2].shape.half[1]"));
    ck_assert_ptr_null(load("{\"dim\":2,\"bodies\":["
                            "{\"shape\":{\"type\":\"sphere\",\"radius\":1},\"pos\":[0,0]}]}",
                            &err));
    ck_assert_ptr_nonnull(strstr(err.message, "test.json: bodies[0].shape.type"));
    /* A polygon whose points lie on one line has no area: refused, and the reason given. */
    ck_assert_ptr_null(load("{\"dim\":2,\"bodies\":[{\"shape\":{\"type\":\"aabb\","
                            "\"half\":[1,1]},\"pos\":[0,0]},{\"shape\":{\"type\":\"polygon\","
                            "\"points\":[[0,0],[1,1],[3,3]]},\"pos\":[0,0]}]}", &err));
    ck_assert_ptr_nonnull(strstr(err.message, "test.json: bodies[1].shape.points"));
    ck_assert_ptr_nonnull(strstr(err.message, "collinear"));
    ck_assert_ptr_null(load("{\"dim\":2,\"bodies\":["
                            "{\"shape\":{\"type\":\"aabb\",\"half\":[1,1]},\"pos\":[0,1e999]}]}",
                            &err));
    ck_assert_ptr_nonnull(strstr(err.message, "bodies[0].pos"));

    sim_config cfg = sim_config_default();
    ck_assert_ptr_null(wio_scene_load_file("/nonexistent/scene.json", &cfg, &err));
    ck_assert_ptr_nonnull(strstr(err.message, "/nonexistent/scene.json: cannot open"));
}
END_TEST

START_TEST(scene_gravity_applies)
{
    mk_error err = {0};
    sim_world *w = load("{\"dim\":2,\"gravity\":[0,-2],\"bodies\":["
                        "{\"shape\":{\"type\":\"aabb\",\"half\":[1,1]},\"pos\":[0,0]}]}", &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    ck_assert_float_eq(sim_world_config(w)->gravity.y, -2.0f);
    run(w, 60);
    /* v = g t = -2 m/s after one second. */
    ck_assert_float_eq_tol(sim_world_get(w, 1)->vel.y, -2.0f, 1e-4f);
    sim_world_free(w);
}
END_TEST

START_TEST(query_aabb_and_circle)
{
    proto_placed_shape a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.shape.type = b.shape.type = PROTO_SHAPE_AABB;
    a.shape.half[0] = a.shape.half[1] = 1.0;
    b.shape.half[0] = b.shape.half[1] = 0.5;
    b.pos[0] = 0.25;
    b.pos[1] = 1.25;
    proto_result r;
    mk_error err = {0};
    ck_assert_int_eq(wio_query(2, &a, &b, &r, &err), 0);
    /* b's bottom (0.75) is 0.25 below a's top (1): pushed up by 0.25. */
    ck_assert(r.hit);
    ck_assert_double_eq_tol(r.depth, 0.25, 1e-6);
    ck_assert_double_eq_tol(r.normal[1], 1.0, 1e-6);
    ck_assert_int_eq(r.npoints, 2);
    ck_assert_double_eq_tol(r.points[0][0], -0.25, 1e-6);
    ck_assert_double_eq_tol(r.points[1][0], 0.75, 1e-6);
    ck_assert_double_eq_tol(r.points[0][1], 0.875, 1e-6);

    b.pos[1] = 3.0; /* 1.5 apart vertically */
    ck_assert_int_eq(wio_query(2, &a, &b, &r, &err), 0);
    ck_assert(!r.hit);
    ck_assert_double_eq_tol(r.distance, 1.5, 1e-6);

    /* A circle of radius 0.5 at (0.25, 3): its lowest point is 1.5 above a's top. */
    b.shape.type = PROTO_SHAPE_CIRCLE;
    b.shape.radius = 0.5;
    ck_assert_int_eq(wio_query(2, &a, &b, &r, &err), 0);
    ck_assert(!r.hit);
    ck_assert_double_eq_tol(r.distance, 1.5, 1e-6);
    ck_assert_double_eq_tol(r.normal[1], 1.0, 1e-6);

    /* Lowered to y = 1.25 it sinks 0.25 into a's top, touching at one point. */
    b.pos[1] = 1.25;
    ck_assert_int_eq(wio_query(2, &a, &b, &r, &err), 0);
    ck_assert(r.hit);
    ck_assert_double_eq_tol(r.depth, 0.25, 1e-6);
    ck_assert_int_eq(r.npoints, 1);
    ck_assert_double_eq_tol(r.points[0][0], 0.25, 1e-6);
    ck_assert_double_eq_tol(r.points[0][1], 0.875, 1e-6);

    b.shape.type = PROTO_SHAPE_SPHERE;
    ck_assert_int_eq(wio_query(2, &a, &b, &r, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "b.shape.type"));
}
END_TEST

/* A body of a against the one with the same id in b: the same state, bit for bit. */
static void assert_same_body(sim_world *a, const sim_body *x, sim_world *b, const sim_body *y)
{
    (void)a;
    (void)b;
    ck_assert(x->pos.x == y->pos.x && x->pos.y == y->pos.y);
    ck_assert(x->vel.x == y->vel.x && x->vel.y == y->vel.y);
    ck_assert(x->angle == y->angle && x->w == y->w);
    ck_assert(x->sleeping == y->sleeping);
    ck_assert_int_eq(x->kind, y->kind);
    ck_assert_int_eq(x->shape.type, y->shape.type);
    ck_assert(x->shape.half.x == y->shape.half.x && x->shape.half.y == y->shape.half.y);
    ck_assert(x->shape.radius == y->shape.radius);
    if (x->shape.type == COL_SHAPE_POLYGON) {
        ck_assert_int_eq(x->polygon->count, y->polygon->count);
        for (int k = 0; k < x->polygon->count; k++)
            ck_assert(x->polygon->verts[k].x == y->polygon->verts[k].x &&
                      x->polygon->verts[k].y == y->polygon->verts[k].y);
    }
    ck_assert(x->inv_mass == y->inv_mass && x->friction == y->friction &&
              x->max_speed == y->max_speed && x->max_slope == y->max_slope);
    ck_assert_str_eq(x->tag, y->tag);
    ck_assert_uint_eq(y->owner, 0);
}

START_TEST(saved_world_loads_back_the_same)
{
    mk_error err = {0};
    sim_world *w = load(wio_demo_scene2, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    run(w, 90);
    /* A client's character and a gap in the ids: the second crate is gone. */
    sim_body_def c = box_def(SIM_CHARACTER, 1, 3, 0.4f, 0.9f);
    c.max_slope = 0.6f;
    snprintf(c.tag, sizeof c.tag, "say \"hi\"");
    sim_id cid = sim_world_add(w, &c, 7);
    ck_assert(sim_world_remove(w, 9));
    sim_world_clear_removed(w);
    run(w, 30);

    char path[] = "/tmp/mink-save-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_msg(wio_world_save(w, path, &err) == 0, "%s", err.message);
    sim_config cfg = sim_config_default();
    sim_world *back = wio_scene_load_file(path, &cfg, &err);
    ck_assert_msg(back != NULL, "%s", err.message);
    unlink(path);

    ck_assert_uint_eq(sim_world_tick(back), sim_world_tick(w));
    ck_assert(sim_world_get(back, 9) == NULL);
    ck_assert_ptr_nonnull(sim_world_get(back, cid));
    fixture_each_pair(w, back, assert_same_body);
    /* Both go on the same way: the restored world is the world. The solver's warm-start
     * impulses are not saved, so bodies in contact that are awake may differ by a hair. */
    run(w, 60);
    run(back, 60);
    size_t slots;
    const sim_body *bw = sim_world_slots(w, &slots);
    for (size_t i = 0; i < slots; i++) {
        const sim_body *y = bw[i].id ? sim_world_get(back, bw[i].id) : NULL;
        if (!bw[i].id)
            continue;
        ck_assert_ptr_nonnull(y);
        ck_assert_float_lt(mk_v2_len(mk_v2_sub(bw[i].pos, y->pos)), 1e-3f);
        ck_assert_float_lt(fabsf(bw[i].angle - y->angle), 1e-3f);
    }
    /* Bodies added now get ids no body had: the slot of the removed body 9 comes back with
     * its next generation, (1 << 24) | 9, never as 9 again. */
    sim_body_def d = box_def(SIM_DYNAMIC, 0, 5, 0.5f, 0.5f);
    bool reused = false;
    for (int i = 0; i < 8 && !reused; i++) {
        sim_id fresh = sim_world_add(back, &d, 0);
        ck_assert(fresh != 0 && fresh != 9 && sim_world_get(w, fresh) == NULL);
        reused = sim_id_slot(fresh) == sim_id_slot(9);
        if (reused)
            ck_assert_uint_eq(fresh, ((sim_id)1 << 24) | 9);
    }
    ck_assert(reused);
    sim_world_free(w);
    sim_world_free(back);
}
END_TEST

START_TEST(scene_ids_are_checked)
{
    mk_error err = {0};
    ck_assert_ptr_null(load("{\"dim\":2,\"bodies\":["
                            "{\"id\":3,\"shape\":{\"type\":\"aabb\",\"half\":[1,1]},\"pos\":[0,0]},"
                            "{\"id\":3,\"shape\":{\"type\":\"aabb\",\"half\":[1,1]},\"pos\":[5,0]}]}",
                            &err));
    ck_assert_ptr_nonnull(strstr(err.message, "test.json: bodies[1].id"));
    ck_assert_ptr_null(load("{\"dim\":2,\"bodies\":[{\"id\":1.5,\"shape\":{\"type\":\"aabb\","
                            "\"half\":[1,1]},\"pos\":[0,0]}]}", &err));
    ck_assert_ptr_nonnull(strstr(err.message, "bodies[0].id: must be a whole number"));
    /* A slot far past the world's max_bodies would only make the file allocate. */
    ck_assert_ptr_null(load("{\"dim\":2,\"bodies\":[{\"id\":16000000,\"shape\":{\"type\":"
                            "\"aabb\",\"half\":[1,1]},\"pos\":[0,0]}]}", &err));
    ck_assert_ptr_nonnull(strstr(err.message, "bodies[0].id"));
    /* A free slot's generation, but the slot holds a body. */
    ck_assert_ptr_null(load("{\"dim\":2,\"bodies\":[{\"id\":1,\"shape\":{\"type\":\"aabb\","
                            "\"half\":[1,1]},\"pos\":[0,0]}],\"free\":[[0,3]]}", &err));
    ck_assert_ptr_nonnull(strstr(err.message, "test.json: free[0]"));
    ck_assert_ptr_null(load("{\"dim\":2,\"tick\":-1,\"bodies\":[]}", &err));
    ck_assert_ptr_nonnull(strstr(err.message, "tick"));
    /* Bodies with ids keep them; the others fill the free slots around them. */
    sim_world *w = load("{\"dim\":2,\"tick\":500,\"bodies\":["
                        "{\"shape\":{\"type\":\"aabb\",\"half\":[1,1]},\"pos\":[0,0]},"
                        "{\"id\":2,\"shape\":{\"type\":\"aabb\",\"half\":[1,1]},\"pos\":[5,0]}]}",
                        &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    ck_assert_uint_eq(sim_world_tick(w), 500);
    ck_assert_float_eq(sim_world_get(w, 2)->pos.x, 5.0f);
    ck_assert_float_eq(sim_world_get(w, 1)->pos.x, 0.0f);
    sim_world_free(w);
}
END_TEST

/* pile:N as specified: 23 boxes are columns of 10, 10 and 3, 1.05 m apart around x = 0, rows
 * 1.05 m apart from y = 0.55, on a static ground whose top is y = 0 and which covers them. */
START_TEST(pile_scene_layout_and_range)
{
    sim_config cfg = sim_config_default();
    mk_error err = {0};
    sim_world *w = wio_scene_pile2(23, &cfg, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    size_t slots;
    const sim_body *b = sim_world_slots(w, &slots);
    ck_assert_uint_eq(sim_world_body_count(w), 24);
    ck_assert_uint_eq(slots, 24);
    ck_assert_int_eq(b[0].kind, SIM_STATIC);
    ck_assert_float_eq(b[0].pos.x, 0.0f);
    ck_assert_float_eq_tol(b[0].pos.y + b[0].shape.half.y, 0.0f, 1e-6f);
    ck_assert_float_ge(b[0].shape.half.x, 1.05f + 0.5f);
    int per_column[3] = {0, 0, 0};
    for (size_t i = 1; i < slots; i++) {
        ck_assert_int_eq(b[i].kind, SIM_DYNAMIC);
        ck_assert_int_eq(b[i].shape.type, COL_SHAPE_AABB);
        ck_assert_float_eq(b[i].shape.half.x, 0.5f);
        ck_assert_float_eq(b[i].shape.half.y, 0.5f);
        ck_assert_float_eq(b[i].density, 1.0f);
        ck_assert_float_eq_tol(b[i].friction, 0.6f, 1e-7f);
        int col = (int)lroundf(b[i].pos.x / 1.05f) + 1;
        ck_assert_int_ge(col, 0);
        ck_assert_int_le(col, 2);
        ck_assert_float_eq_tol(b[i].pos.x, 1.05f * (float)(col - 1), 1e-5f);
        int row = (int)(i - 1) % 10;
        ck_assert_float_eq_tol(b[i].pos.y, 0.55f + 1.05f * (float)row, 1e-5f);
        per_column[col]++;
    }
    ck_assert_int_eq(per_column[0], 10);
    ck_assert_int_eq(per_column[1], 10);
    ck_assert_int_eq(per_column[2], 3);
    sim_world_free(w);

    /* An even number of columns straddles x = 0. */
    w = wio_scene_pile2(20, &cfg, &err);
    ck_assert_ptr_nonnull(w);
    b = sim_world_slots(w, &slots);
    ck_assert_float_eq_tol(b[1].pos.x, -0.525f, 1e-6f);
    ck_assert_float_eq_tol(b[11].pos.x, 0.525f, 1e-6f);
    sim_world_free(w);

    /* N counts against max_bodies with the ground. */
    cfg.max_bodies = 10;
    w = wio_scene_pile2(9, &cfg, &err);
    ck_assert_ptr_nonnull(w);
    ck_assert_uint_eq(sim_world_body_count(w), 10);
    sim_world_free(w);
    ck_assert_ptr_null(wio_scene_pile2(10, &cfg, &err));
    ck_assert_ptr_nonnull(strstr(err.message, "[1, 9]"));
    ck_assert_ptr_null(wio_scene_pile2(0, &cfg, &err));
    ck_assert_ptr_null(wio_scene_pile2(-5, &cfg, &err));
}
END_TEST

MINK_CHECK_SUITE("sim", s)
{
    MINK_TCASE(s, "world", 60, box_falls_and_rests_on_ground, stack_of_three_settles,
               overlapping_pair_is_pushed_apart_keeping_momentum,
               closing_velocity_removed_momentum_kept,
               static_pushes_dynamic_out_without_adding_energy,
               kinematic_moves_at_max_speed_and_is_not_pushed, character_runs_jumps_and_lands,
               jump_between_steps_is_not_lost, character_walks_up_a_slope_and_stands_on_it,
               character_walks_down_a_slope_without_leaving_it,
               character_slides_down_a_steep_slope, fast_small_circle_does_not_tunnel,
               every_2d_shape_rests_on_the_ground, degenerate_polygon_spec_is_refused,
               character_stops_at_a_wall, ids_carry_generations, world_full_refuses,
               bodies_leaving_bounds_are_removed, many_boxes_never_pass_through_the_ground);
    MINK_TCASE(s, "scene", 0, demo_scene_loads, scene_errors_name_the_field, scene_gravity_applies,
               query_aabb_and_circle, saved_world_loads_back_the_same, scene_ids_are_checked,
               pile_scene_layout_and_range);
}
