/* Level bodies with filters and sensors, against known answers: a ball whose mask leaves out a
 * level's category falls through it as in free fall while a ball without a filter rests on
 * it; a dynamic sensor ball falling through a level sees it from the step its lowest point
 * reaches the floor to the step its highest point leaves it (the kinematics of free fall); a
 * level cannot be a sensor. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "check_main.h"
#include "mink_sim.h"
#include "sim_fixture.h"

/* The square [-2, 2]^2 at height 0, facing up, as a static level body of category 2. */
static const sim_level *floor_level(void)
{
    static const mk_vec3 v[4] = {{-2, 0, -2}, {2, 0, -2}, {2, 0, 2}, {-2, 0, 2}};
    static const uint32_t idx[6] = {0, 2, 1, 0, 3, 2};
    col_mesh3_desc d = {v, 4, idx, 6, 16, COL_ACTIVE_EDGE_COS};
    mk_error err = {0};
    sim_level *l = sim_level_mesh3(&d, &err);
    ck_assert_msg(l != NULL, "%s", err.message);
    return l;
}

/* A 3D world, and in *d a static body of level l. */
static sim_world *world_and_level_def(const sim_level *l, sim_body_def *d)
{
    sim_config c = sim_config_default();
    c.dim = 3;
    memset(d, 0, sizeof *d);
    fixture_defaults(d, SIM_STATIC);
    d->level = l;
    d->d3.rot = mk_quat_identity();
    return sim_world_new(&c);
}

static sim_world *world_on_floor(const sim_level *l, sim_id *floor)
{
    static sim_body_def d;
    sim_world *w = world_and_level_def(l, &d);
    d.has_filter = true;
    d.filter = (sim_filter){2u, UINT64_MAX, 0};
    *floor = sim_world_add(w, &d, 0);
    ck_assert_uint_ne(*floor, 0);
    return w;
}

static const col_shape3 BALL = {.type = COL_SHAPE3_SPHERE, .radius = 0.5f};

START_TEST(a_mask_without_the_level_falls_through)
{
    const sim_level *l = floor_level();
    sim_id floor;
    sim_world *w = world_on_floor(l, &floor);
    static sim_body_def d;
    fixture_body3(&d, BALL, SIM_DYNAMIC, mk_v3(-1.0f, 1.0f, 0.0f));
    sim_id rests = sim_world_add(w, &d, 0);
    fixture_body3(&d, BALL, SIM_DYNAMIC, mk_v3(1.0f, 1.0f, 0.0f));
    d.has_filter = true;
    d.filter = (sim_filter){1u, 1u, 0}; /* collides with category 1 alone */
    sim_id falls = sim_world_add(w, &d, 0);
    ck_assert(rests && falls);
    for (int i = 0; i < 60; i++)
        sim_world_step(w);
    /* One second of free fall from 1 m: 1 - g t^2 / 2 = -4 m, and the solver's semi-implicit
     * Euler over 4 substeps of h = dt / 4 falls g h t / 2 = 2.1 cm further. */
    float y, vy;
    fixture_height(w, falls, &y, &vy);
    ck_assert_double_eq_tol(y, 1.0 - 5.0 - 5.0 / 240.0, 1e-3);
    fixture_height(w, rests, &y, &vy);
    ck_assert_double_eq_tol(y, 0.5, 0.01);
    ck_assert_double_lt(fabs(vy), 0.01);
    sim_world_free(w);
    sim_level_release(l);
}
END_TEST

START_TEST(a_sensor_sees_the_level_it_falls_through)
{
    const sim_level *l = floor_level();
    sim_id floor;
    sim_world *w = world_on_floor(l, &floor);
    sim_world_set_events(w, true, 1.0f);
    static sim_body_def d;
    fixture_body3(&d, BALL, SIM_DYNAMIC, mk_v3(0.0f, 2.0f, 0.0f));
    d.sensor = true;
    sim_id sensor = sim_world_add(w, &d, 0);
    ck_assert_uint_ne(sensor, 0);
    long begin = -1, end = -1;
    for (int i = 1; i <= 90; i++) {
        sim_world_step(w);
        size_t n;
        const sim_event *e = sim_world_events(w, &n);
        for (size_t k = 0; k < n; k++) {
            if (e[k].a != sensor || e[k].b != floor)
                continue;
            if (e[k].type == SIM_EVENT_SENSOR_BEGIN)
                begin = i;
            if (e[k].type == SIM_EVENT_SENSOR_END)
                end = i;
        }
        sim_world_clear_events(w);
    }
    /* Semi-implicit Euler over 4 substeps of h = dt / 4: after k steps (4 k substeps) the
     * ball has fallen g h^2 4k (4k + 1) / 2. Its lowest point reaches the floor when that is
     * 1.5 m (k = 32.7: step 33), its highest leaves it at 2.5 m (k = 42.3: step 43). */
    ck_assert_int_eq(begin, 33);
    ck_assert_int_eq(end, 43);
    sim_world_free(w);
    sim_level_release(l);
}
END_TEST

START_TEST(a_level_is_no_sensor)
{
    const sim_level *l = floor_level();
    static sim_body_def d;
    sim_world *w = world_and_level_def(l, &d);
    d.sensor = true;
    ck_assert_uint_eq(sim_world_add(w, &d, 0), 0);
    sim_world_free(w);
    sim_level_release(l);
}
END_TEST

MINK_CHECK_TESTS("level_filters", 60, a_mask_without_the_level_falls_through,
                 a_sensor_sees_the_level_it_falls_through, a_level_is_no_sensor)
