/* mink_sim's joints against known answers: pendulums of each kind swing with the period of the
 * physical pendulum, a chain hangs at its length, a bridge holds a load and comes to rest,
 * motors reach their speed, limits hold within their slop, a joint breaks once past its force,
 * a prismatic joint keeps its body on its axis, a weld holds two boxes as one, a wheel's
 * suspension settles at m g / k, a cone holds; and bad definitions are refused, naming the
 * field, the world unchanged. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "sim_fixture.h"

#define PI_F 3.14159265f
#define PI_D 3.14159265358979323846
#define DEG (PI_F / 180.0f)

static sim_world *world_of(int dim)
{
    sim_config cfg = sim_config_default();
    cfg.dim = dim;
    return sim_world_new(&cfg);
}

static sim_id add_disc(sim_world *w, float x, float y, float r)
{
    sim_body_def d = fixture_rect(COL_SHAPE_CIRCLE, SIM_DYNAMIC, x, y, 0, 0);
    d.shape.radius = r;
    return sim_world_add(w, &d, 0);
}

static sim_id add_sphere(sim_world *w, mk_vec3 p, float r)
{
    sim_body_def d;
    col_shape3 s = {.type = COL_SHAPE3_SPHERE, .radius = r};
    fixture_body3(&d, s, SIM_DYNAMIC, p);
    return sim_world_add(w, &d, 0);
}

static sim_joint_def joint_def(sim_joint_type type, sim_id a, sim_id b, mk_vec3 anchor)
{
    sim_joint_def j;
    memset(&j, 0, sizeof j);
    j.type = type;
    j.a = a;
    j.b = b;
    j.anchor_a = anchor;
    j.anchor_b = anchor;
    j.axis = mk_v3(0, 0, 1);
    return j;
}

static sim_id join(sim_world *w, const sim_joint_def *j)
{
    mk_error err = {0};
    sim_id id = sim_world_add_joint(w, j, 0, &err);
    if (id == 0)
        printf("joint refused: %s\n", err.message);
    ck_assert_uint_ne(id, 0);
    return id;
}

static mk_vec3 pos_of(sim_world *w, sim_id id)
{
    const sim_body *b = sim_world_get(w, id);
    const sim_body3 *b3 = sim_body3_of(w, b);
    return b3 ? b3->pos : mk_v3(b->pos.x, b->pos.y, 0.0f);
}

/* The period of a pendulum swinging in the x-y plane about `pivot`: the mean time between
 * the bob's crossings of the vertical through the pivot going the same way, found by linear
 * interpolation between steps, over `swings` periods. */
static double measure_period(sim_world *w, sim_id bob, mk_vec3 pivot, int swings)
{
    double dt = sim_world_config(w)->dt, first = -1.0, last = -1.0, prev_x;
    int crossings = 0;
    prev_x = pos_of(w, bob).x - pivot.x;
    for (int step = 1; step < 100000 && crossings <= swings; step++) {
        sim_world_step(w);
        double x = pos_of(w, bob).x - pivot.x;
        if (prev_x < 0.0 && x >= 0.0) {
            double t = (step - 1 + prev_x / (prev_x - x)) * dt;
            if (crossings == 0)
                first = t;
            last = t;
            crossings++;
        }
        prev_x = x;
    }
    ck_assert_int_gt(crossings, swings);
    return (last - first) / swings;
}

/* The period of a pendulum of amplitude a (rad) whose small-swing period is t0: the series
 * T = T0 (1 + a^2 / 16 + 11 a^4 / 3072 + ...), to a^4 (the next term is 2e-7 at 10 degrees). */
static double finite_amplitude(double t0, double a)
{
    return t0 * (1.0 + a * a / 16.0 + 11.0 * a * a * a * a / 3072.0);
}

/* A disc of radius 0.1 m whose centre hangs 2 m below a pin at the origin, let go 10 degrees
 * out: a physical pendulum, T0 = 2 pi sqrt(I_pivot / (m g d)) with I_pivot = m r^2 / 2 + m d^2
 * (the disc turns with the arm). */
START_TEST(revolute_pendulum_period)
{
    sim_world *w = world_of(2);
    float d = 2.0f, r = 0.1f, a = 10.0f * DEG;
    sim_id bob = add_disc(w, d * sinf(a), -d * cosf(a), r);
    sim_joint_def j = joint_def(SIM_JOINT_REVOLUTE, bob, 0, mk_v3(0, 0, 0));
    join(w, &j);
    double g = 10.0, t0 = 2.0 * PI_D * sqrt((r * r / 2.0 + d * d) / (g * d));
    double want = finite_amplitude(t0, a), got = measure_period(w, bob, mk_v3(0, 0, 0), 5);
    printf("revolute pendulum: period %.5f s, physical pendulum %.5f s (%.3f%%)\n", got, want,
           100.0 * (got - want) / want);
    ck_assert_double_eq_tol(got, want, 0.01 * want);
    sim_world_free(w);
}
END_TEST

/* The same disc on a distance joint from the pivot to its centre: the rod pulls through the
 * centre and turns nothing, so it is a simple pendulum of a point mass, T0 = 2 pi sqrt(d / g). */
START_TEST(distance_pendulum_period)
{
    sim_world *w = world_of(2);
    float d = 2.0f, r = 0.1f, a = 10.0f * DEG;
    sim_id bob = add_disc(w, d * sinf(a), -d * cosf(a), r);
    sim_joint_def j = joint_def(SIM_JOINT_DISTANCE, 0, bob, mk_v3(0, 0, 0));
    j.a = bob;
    j.b = 0;
    j.anchor_a = pos_of(w, bob);
    j.anchor_b = mk_v3(0, 0, 0);
    j.length = j.min_length = j.max_length = d;
    join(w, &j);
    double g = 10.0, t0 = 2.0 * PI_D * sqrt(d / g);
    double want = finite_amplitude(t0, a), got = measure_period(w, bob, mk_v3(0, 0, 0), 5);
    printf("distance pendulum: period %.5f s, simple pendulum %.5f s (%.3f%%)\n", got, want,
           100.0 * (got - want) / want);
    ck_assert_double_eq_tol(got, want, 0.01 * want);
    sim_world_free(w);
}
END_TEST

/* A sphere of radius 0.1 m on a hinge about z through the origin, 2 m out: I_pivot =
 * 2 m r^2 / 5 + m d^2. */
START_TEST(hinge_pendulum_period)
{
    sim_world *w = world_of(3);
    float d = 2.0f, r = 0.1f, a = 10.0f * DEG;
    sim_id bob = add_sphere(w, mk_v3(d * sinf(a), -d * cosf(a), 0), r);
    sim_joint_def j = joint_def(SIM_JOINT_HINGE, bob, 0, mk_v3(0, 0, 0));
    join(w, &j);
    double g = 10.0, t0 = 2.0 * PI_D * sqrt((0.4 * r * r + d * d) / (g * d));
    double want = finite_amplitude(t0, a), got = measure_period(w, bob, mk_v3(0, 0, 0), 5);
    printf("hinge pendulum: period %.5f s, physical pendulum %.5f s (%.3f%%)\n", got, want,
           100.0 * (got - want) / want);
    ck_assert_double_eq_tol(got, want, 0.01 * want);
    /* The hinge keeps it in its plane. */
    ck_assert_float_lt(fabsf(pos_of(w, bob).z), 1e-3f);
    sim_world_free(w);
}
END_TEST

static Suite *joint_suite(void)
{
    Suite *s = suite_create("joint");
    MINK_TCASE(s, "pendulums", 60, revolute_pendulum_period, distance_pendulum_period,
               hinge_pendulum_period);
    return s;
}

MINK_CHECK_MAIN(joint_suite)
