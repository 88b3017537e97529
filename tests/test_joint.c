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

static sim_id join(sim_world *w, const sim_joint_def *j)
{
    mk_error err = {0};
    sim_id id = sim_world_add_joint(w, j, 0, &err);
    if (id == 0)
        printf("joint refused: %s\n", err.message);
    ck_assert_uint_ne(id, 0);
    return id;
}

/* Turns on a joint's motor: `speed` (rad/s or m/s) with at most `max` (N m or N). */
static void set_motor(sim_joint_def *j, float speed, float max)
{
    j->motor = true;
    j->motor_speed = speed;
    j->max_motor = max;
}

static void run(sim_world *w, int steps)
{
    for (int i = 0; i < steps; i++)
        sim_world_step(w);
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

/* The period of `bob`, hung from the origin and let go `a` (rad) out, over 5 swings, within 1%
 * of that of amplitude a whose small-swing period is t0 (`model`'s). Prints both after
 * `what`. */
static void expect_period(sim_world *w, sim_id bob, double t0, double a, const char *what,
                          const char *model)
{
    double want = finite_amplitude(t0, a), got = measure_period(w, bob, mk_v3(0, 0, 0), 5);
    printf("%s: period %.5f s, %s %.5f s (%.3f%%)\n", what, got, model, want,
           100.0 * (got - want) / want);
    ck_assert_double_eq_tol(got, want, 0.01 * want);
}

/* A disc of radius 0.1 m whose centre hangs 2 m below a pin at the origin, let go 10 degrees
 * out: a physical pendulum, T0 = 2 pi sqrt(I_pivot / (m g d)) with I_pivot = m r^2 / 2 + m d^2
 * (the disc turns with the arm). */
START_TEST(revolute_pendulum_period)
{
    sim_world *w = world_of(2);
    float d = 2.0f, r = 0.1f, a = 10.0f * DEG;
    sim_id bob = add_disc(w, d * sinf(a), -d * cosf(a), r);
    sim_joint_def j = fixture_joint(SIM_JOINT_REVOLUTE, bob, 0, mk_v3(0, 0, 0));
    join(w, &j);
    double g = 10.0, t0 = 2.0 * PI_D * sqrt((r * r / 2.0 + d * d) / (g * d));
    expect_period(w, bob, t0, a, "revolute pendulum", "physical pendulum");
    sim_world_free(w);
}
END_TEST

/* The same disc on a distance joint from the pivot to its centre: the rod pulls through the
 * centre and turns nothing, so it is a simple pendulum of a point mass, T0 = 2 pi sqrt(d / g). */
START_TEST(distance_pendulum_period)
{
    float d = 2.0f, r = 0.1f, a = 10.0f * DEG;
    sim_world *w = world_of(2);
    sim_id bob = add_disc(w, d * sinf(a), -d * cosf(a), r);
    sim_joint_def j = fixture_joint(SIM_JOINT_DISTANCE, 0, bob, mk_v3(0, 0, 0));
    j.a = bob;
    j.b = 0;
    j.anchor_a = pos_of(w, bob);
    j.anchor_b = mk_v3(0, 0, 0);
    j.length = j.min_length = j.max_length = d;
    join(w, &j);
    double g = 10.0, t0 = 2.0 * PI_D * sqrt(d / g);
    expect_period(w, bob, t0, a, "distance pendulum", "simple pendulum");
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
    sim_joint_def j = fixture_joint(SIM_JOINT_HINGE, bob, 0, mk_v3(0, 0, 0));
    join(w, &j);
    double g = 10.0, t0 = 2.0 * PI_D * sqrt((0.4 * r * r + d * d) / (g * d));
    expect_period(w, bob, t0, a, "hinge pendulum", "physical pendulum");
    /* The hinge keeps it in its plane. */
    ck_assert_float_lt(fabsf(pos_of(w, bob).z), 1e-3f);
    sim_world_free(w);
}
END_TEST

/* The turn of body `id` (2D), rad. */
static float angle_of(sim_world *w, sim_id id)
{
    return sim_world_get(w, id)->angle;
}

static sim_id add_box(sim_world *w, sim_kind kind, float x, float y, float hx, float hy)
{
    sim_body_def d = fixture_rect(COL_SHAPE_BOX, kind, x, y, hx, hy);
    return sim_world_add(w, &d, 0);
}

static float max_speed_of(sim_world *w)
{
    size_t n;
    const sim_body *b = sim_world_slots(w, &n);
    float top = 0.0f;
    for (size_t i = 0; i < n; i++) {
        if (b[i].id == 0 || b[i].kind != SIM_DYNAMIC || b[i].sleeping)
            continue;
        const sim_body3 *b3 = sim_body3_of(w, &b[i]);
        top = mk_maxf(top, b3 ? mk_v3_len(b3->vel) : mk_v2_len(b[i].vel));
    }
    return top;
}

/* Where a joint's anchor is on body `id` (0: the world) from its local point. */
static mk_vec3 anchor_on(sim_world *w, sim_id id, mk_vec3 local)
{
    if (id == 0)
        return local;
    const sim_body *b = sim_world_get(w, id);
    const sim_body3 *b3 = sim_body3_of(w, b);
    if (b3)
        return mk_v3_add(b3->pos, mk_quat_rotate(b3->rot, local));
    float c = cosf(b->angle), s = sinf(b->angle);
    return mk_v3(b->pos.x + c * local.x - s * local.y, b->pos.y + s * local.x + c * local.y, 0);
}

/* How far apart a joint's anchors on its two bodies are, m. */
static float joint_gap(sim_world *w, sim_id joint)
{
    const sim_joint *j = sim_world_get_joint(w, joint);
    return mk_v3_len(mk_v3_sub(anchor_on(w, j->a, j->local_a), anchor_on(w, j->b, j->local_b)));
}

/* A chain of 20 links 0.5 m long (boxes 0.5 x 0.1 m, 0.5 kg each) pinned at one end to the
 * world, in a world of `dim` (3D: on hinges about z): made hanging straight down, or lying
 * straight out. Returns the world; pins[] gets its joints (when not NULL), *end the last
 * link. */
enum { LINKS = 20 };
#define LINK 0.5f
static sim_world *make_chain(int dim, bool hanging, sim_id pins[LINKS], sim_id *end)
{
    sim_world *w = world_of(dim);
    sim_id prev = 0;
    for (int i = 0; i < LINKS; i++) {
        mk_vec3 at = hanging ? mk_v3(0, -LINK * (i + 0.5f), 0) : mk_v3(LINK * (i + 0.5f), 0, 0);
        mk_vec3 pin = hanging ? mk_v3(0, -LINK * i, 0) : mk_v3(LINK * i, 0, 0);
        sim_body_def d;
        if (dim == 3) {
            col_shape3 box = {.type = COL_SHAPE3_BOX, .half = {0.5f * LINK, 0.05f, 0.05f}};
            fixture_body3(&d, box, SIM_DYNAMIC, at);
            if (hanging)
                d.d3.rot = mk_quat_axis_angle(mk_v3(0, 0, 1), -0.5f * PI_F);
            d.density = 100.0f;
        } else {
            d = fixture_rect(COL_SHAPE_BOX, SIM_DYNAMIC, at.x, at.y, 0.5f * LINK, 0.05f);
            d.angle = hanging ? -0.5f * PI_F : 0.0f;
            d.density = 10.0f;
        }
        *end = sim_world_add(w, &d, 0);
        sim_joint_def j = fixture_joint(dim == 3 ? SIM_JOINT_HINGE : SIM_JOINT_REVOLUTE, *end, prev,
                                    pin);
        sim_id pin_id = join(w, &j);
        if (pins)
            pins[i] = pin_id;
        prev = *end;
    }
    return w;
}

/* Made hanging with a 2 kg lamp pinned to its end, the chain hangs at its length within 1%
 * after 5 s: the pins give only as springs of the joints' 60 Hz stiffness. */
START_TEST(chain_hangs_at_its_length)
{
    for (int dim = 2; dim <= 3; dim++) {
        sim_id last;
        sim_world *w = make_chain(dim, true, NULL, &last);
        float want = LINKS * LINK, r = 0.2f;
        mk_vec3 at = mk_v3(0, -want - r, 0);
        sim_body_def d;
        if (dim == 3) {
            col_shape3 ball = {.type = COL_SHAPE3_SPHERE, .radius = r};
            fixture_body3(&d, ball, SIM_DYNAMIC, at);
            d.density = 2.0f / (4.0f / 3.0f * PI_F * r * r * r);
        } else {
            d = fixture_rect(COL_SHAPE_CIRCLE, SIM_DYNAMIC, at.x, at.y, 0, 0);
            d.shape.radius = r;
            d.density = 2.0f / (PI_F * r * r);
        }
        sim_id weight = sim_world_add(w, &d, 0);
        sim_joint_def j = fixture_joint(dim == 3 ? SIM_JOINT_HINGE : SIM_JOINT_REVOLUTE, weight, last,
                                    mk_v3(0, -want, 0));
        sim_id hook = join(w, &j);
        for (int i = 0; i < 300; i++)
            sim_world_step(w);
        const sim_joint *h = sim_world_get_joint(w, hook);
        float hang = mk_v3_len(anchor_on(w, h->b, h->local_b));
        printf("%dD chain: hangs %.5f m end to end, %.1f m of links (%.4f%%)\n", dim, (double)hang,
               (double)want, 100.0 * (hang - want) / want);
        ck_assert_float_eq_tol(hang, want, 0.01f * want);
        sim_world_free(w);
    }
}
END_TEST

/* Let go lying straight out, the chain falls and whips about for 10 s (its end past 25 m/s),
 * the gaps of all its pins together within 3% of its length all the while (the pins give as
 * springs of 60 Hz under the whip's pull). */
START_TEST(chain_whips_without_stretching)
{
    for (int dim = 2; dim <= 3; dim++) {
        sim_id pins[LINKS], last;
        sim_world *w = make_chain(dim, false, pins, &last);
        float stretch = 0.0f, fastest = 0.0f;
        for (int i = 0; i < 600; i++) {
            sim_world_step(w);
            float gaps = 0.0f;
            for (int k = 0; k < LINKS; k++)
                gaps += joint_gap(w, pins[k]);
            stretch = mk_maxf(stretch, gaps);
            fastest = mk_maxf(fastest, max_speed_of(w));
        }
        printf("%dD chain: whipped at up to %.2f m/s, its pins' gaps %.5f m at most (%.4f%%)\n",
               dim, (double)fastest, (double)stretch, 100.0 * stretch / (LINKS * LINK));
        ck_assert_float_lt(stretch, 0.03f * LINKS * LINK);
        sim_world_free(w);
    }
}
END_TEST

/* Box2D's Bridge sample with 40 planks (1 x 0.25 m, density 20) pinned end to end and to the
 * world at both ends 40 m apart, each pin with a spring (2 Hz, 0.7) and friction (a motor at
 * 0 rad/s of 200 N m); two triangles and three discs (density 20) fall on it. It holds them
 * and comes to rest. */
START_TEST(bridge_holds_a_load_and_rests)
{
    sim_world *w = world_of(2);
    enum { PLANKS = 40 };
    float x0 = -20.0f, y = 20.0f;
    sim_id prev = 0;
    sim_joint_def j = fixture_joint(SIM_JOINT_REVOLUTE, 0, 0, mk_v3(0, 0, 0));
    j.motor = true;
    j.max_motor = 200.0f;
    j.spring_hz = 2.0f;
    j.spring_damping = 0.7f;
    for (int i = 0; i < PLANKS; i++) {
        sim_body_def d = fixture_rect(COL_SHAPE_BOX, SIM_DYNAMIC, x0 + 0.5f + i, y, 0.5f, 0.125f);
        d.density = 20.0f;
        sim_id plank = sim_world_add(w, &d, 0);
        j.a = plank;
        j.b = prev;
        j.anchor_a = mk_v3(x0 + i, y, 0);
        join(w, &j);
        prev = plank;
    }
    j.a = prev;
    j.b = 0;
    j.anchor_a = mk_v3(x0 + PLANKS, y, 0);
    join(w, &j);
    sim_id load[5];
    mk_vec2 tri[3] = {mk_v2(-0.5f, 0), mk_v2(0.5f, 0), mk_v2(0, 1.5f)};
    for (int i = 0; i < 2; i++) {
        sim_body_def d = fixture_rect(COL_SHAPE_POLYGON, SIM_DYNAMIC, -8.0f + 8.0f * i, 22, 0, 0);
        mk_error err;
        ck_assert_int_eq(col_polygon_make(tri, 3, &d.polygon, &err), 0);
        d.shape.polygon = &d.polygon;
        d.density = 20.0f;
        load[i] = sim_world_add(w, &d, 0);
    }
    for (int i = 0; i < 3; i++) {
        sim_body_def d = fixture_rect(COL_SHAPE_CIRCLE, SIM_DYNAMIC, -6.0f + 6.0f * i, 25, 0, 0);
        d.shape.radius = 0.5f;
        d.density = 20.0f;
        load[2 + i] = sim_world_add(w, &d, 0);
    }
    /* Without body damping (Box2D's sample gives its planks 0.1), what rings longest is the
     * bridge's sag, held by the pins' stiffness: it falls asleep (every body slower than
     * 5 cm/s for half a second) within 90 s. */
    float lowest = y;
    int steps = 0;
    for (; steps < 60 * 90 && max_speed_of(w) + (steps < 60) > 0.0f; steps++) {
        sim_world_step(w);
        for (int k = 0; k < 5; k++)
            lowest = mk_minf(lowest, (float)pos_of(w, load[k]).y);
    }
    printf(
        "bridge: the load's lowest point %.3f m (the pins at %.1f m), all asleep after %.1f s\n",
        (double)lowest, (double)y, steps / 60.0);
    /* Held: every load body still on the bridge, above its sag, not fallen through. */
    for (int k = 0; k < 5; k++) {
        mk_vec3 p = pos_of(w, load[k]);
        ck_assert_float_gt(p.y, y - 4.0f);
        ck_assert_float_gt(p.x, x0);
        ck_assert_float_lt(p.x, x0 + PLANKS);
    }
    ck_assert_int_lt(steps, 60 * 90);
    sim_world_free(w);
}
END_TEST

/* A disc pinned at its centre, its motor asked for 3 rad/s with 50 N m (the disc's inertia
 * 0.5 kg m^2 reaches it in 0.03 s): it turns at 3 rad/s within 1%. The prismatic motor
 * likewise slides a box at 2 m/s, and a 3D hinge's turns a sphere at 3 rad/s. */
START_TEST(motors_reach_their_speed)
{
    sim_world *w = world_of(2);
    sim_id disc = add_disc(w, 0, 5, 1.0f);
    sim_joint_def j = fixture_joint(SIM_JOINT_REVOLUTE, disc, 0, pos_of(w, disc));
    set_motor(&j, 3.0f, 50.0f);
    join(w, &j);
    sim_id box = add_box(w, SIM_DYNAMIC, 10, 5, 0.5f, 0.5f);
    sim_joint_def p = fixture_joint(SIM_JOINT_PRISMATIC, box, 0, mk_v3(10, 5, 0));
    p.axis = mk_v3(1, 1, 0);
    set_motor(&p, 2.0f, 200.0f);
    join(w, &p);
    run(w, 60);
    const sim_body *d = sim_world_get(w, disc), *b = sim_world_get(w, box);
    printf("motors: the disc turns at %.4f rad/s (3), the box slides at %.4f m/s (2)\n",
           (double)d->w, (double)mk_v2_len(b->vel));
    ck_assert_float_eq_tol(d->w, 3.0f, 0.03f);
    ck_assert_float_eq_tol(mk_v2_len(b->vel), 2.0f, 0.02f);
    ck_assert_float_eq_tol(b->vel.x, b->vel.y, 0.01f); /* along (1, 1) */
    sim_world_free(w);

    w = world_of(3);
    sim_id ball = add_sphere(w, mk_v3(0, 5, 0), 0.5f);
    sim_joint_def h = fixture_joint(SIM_JOINT_HINGE, ball, 0, mk_v3(0, 5, 0));
    h.axis = mk_v3(1, 0, 0);
    set_motor(&h, 3.0f, 50.0f);
    join(w, &h);
    run(w, 60);
    mk_vec3 spin = sim_body3_of(w, sim_world_get(w, ball))->w;
    printf("motors: the 3D hinge turns at (%.4f, %.4f, %.4f) rad/s ((3, 0, 0))\n", (double)spin.x,
           (double)spin.y, (double)spin.z);
    ck_assert_float_eq_tol(spin.x, 3.0f, 0.03f);
    ck_assert_float_lt(fabsf(spin.y) + fabsf(spin.z), 0.01f);
    sim_world_free(w);
}
END_TEST

/* The slop a limit may be passed by, as Box2D's (B2_LINEAR_SLOP 5 mm; 2 degrees). */
#define LINEAR_SLOP 0.005f
#define ANGULAR_SLOP (2.0f * DEG)

/* A 2 m pendulum let go level, its pin limited to [-30, +20] degrees about where it was made
 * (hanging): it swings into the limit and stays within it. */
START_TEST(revolute_limit_holds)
{
    sim_world *w = world_of(2);
    sim_id arm = add_box(w, SIM_DYNAMIC, 0, -1, 0.05f, 1.0f);
    sim_joint_def j = fixture_joint(SIM_JOINT_REVOLUTE, arm, 0, mk_v3(0, 0, 0));
    j.limit = true;
    j.lower = -30.0f * DEG;
    j.upper = 20.0f * DEG;
    join(w, &j);
    sim_body_set_spin2(w, arm, 6.0f); /* swing hard into the upper limit */
    float most = -1.0f, least = 1.0f;
    for (int i = 0; i < 300; i++) {
        sim_world_step(w);
        most = mk_maxf(most, angle_of(w, arm));
        least = mk_minf(least, angle_of(w, arm));
    }
    printf("revolute limit [-30, 20] deg: reached [%.3f, %.3f] deg\n", (double)(least / DEG),
           (double)(most / DEG));
    ck_assert_float_le(most, 20.0f * DEG + ANGULAR_SLOP);
    ck_assert_float_ge(least, -30.0f * DEG - ANGULAR_SLOP);
    ck_assert_float_gt(most, 20.0f * DEG - ANGULAR_SLOP); /* it did reach it */
    sim_world_free(w);
}
END_TEST

/* A box on a vertical prismatic joint limited to [-1, 0.5] m falls onto its lower limit: it
 * stops there within the slop, and stays on the axis. */
START_TEST(prismatic_limit_and_axis)
{
    sim_world *w = world_of(2);
    sim_id box = add_box(w, SIM_DYNAMIC, 3, 4, 0.5f, 0.25f);
    sim_joint_def j = fixture_joint(SIM_JOINT_PRISMATIC, box, 0, mk_v3(3, 4, 0));
    j.axis = mk_v3(0.6f, -0.8f, 0);
    j.limit = true;
    j.lower = -0.5f;
    j.upper = 1.0f;
    join(w, &j);
    sim_body_set_spin2(w, box, 5.0f); /* a turn it must not take */
    float off = 0.0f, reach = 0.0f, turn = 0.0f;
    for (int i = 0; i < 240; i++) {
        sim_world_step(w);
        mk_vec3 p = pos_of(w, box);
        float dx = p.x - 3.0f, dy = p.y - 4.0f;
        off = mk_maxf(off, fabsf(0.8f * dx + 0.6f * dy)); /* across the axis */
        reach = mk_maxf(reach, 0.6f * dx - 0.8f * dy);    /* along it */
        turn = mk_maxf(turn, fabsf(angle_of(w, box)));
    }
    printf("prismatic: %.5f m off its axis at most, slid %.5f m (limit 1), turned %.5f rad\n",
           (double)off, (double)reach, (double)turn);
    ck_assert_float_lt(off, 1e-3f);
    ck_assert_float_le(reach, 1.0f + LINEAR_SLOP);
    ck_assert_float_gt(reach, 1.0f - LINEAR_SLOP);
    ck_assert_float_lt(turn, 0.01f);
    sim_world_free(w);
}
END_TEST

/* A rope (a distance joint with no spring, min 0, max 2 m) holds a disc let go from 1 m below
 * the pin: it falls freely to 2 m and hangs there within the slop. */
START_TEST(rope_holds_at_its_length)
{
    sim_world *w = world_of(2);
    sim_id disc = add_disc(w, 0, -1, 0.1f);
    sim_joint_def j = fixture_joint(SIM_JOINT_DISTANCE, disc, 0, mk_v3(0, -1, 0));
    j.anchor_b = mk_v3(0, 0, 0);
    j.length = 1.0f;
    j.min_length = 0.0f;
    j.max_length = 2.0f;
    join(w, &j);
    float longest = 0.0f;
    for (int i = 0; i < 20; i++)
        sim_world_step(w);
    float free_fall = (float)-pos_of(w, disc).y; /* 1 + g t^2 / 2 before it goes taut */
    for (int i = 0; i < 300; i++) {
        sim_world_step(w);
        longest = mk_maxf(longest, mk_v3_len(pos_of(w, disc)));
    }
    printf("rope: fell to %.4f m freely, stretched to %.5f m at most (2)\n", (double)free_fall,
           (double)longest);
    ck_assert_float_gt(free_fall, 1.5f);
    ck_assert_float_le(longest, 2.0f + LINEAR_SLOP);
    sim_world_free(w);
}
END_TEST

/* A 3D rod (a box 0.2 x 2 x 0.2 m) hung from its top end, as a door hangs from its hinge. */
static sim_id add_rod3(sim_world *w)
{
    sim_body_def d;
    col_shape3 rod = {.type = COL_SHAPE3_BOX, .half = {0.1f, 1.0f, 0.1f}};
    fixture_body3(&d, rod, SIM_DYNAMIC, mk_v3(0, -1, 0));
    return sim_world_add(w, &d, 0);
}

/* The angle of the rod of add_rod3 from hanging straight down, rad. */
static float rod_swing(sim_world *w, sim_id rod)
{
    mk_vec3 p = pos_of(w, rod);
    return acosf(mk_clampf(-p.y / mk_v3_len(p), -1.0f, 1.0f));
}

/* Over 300 steps the rod of add_rod3 swings out to `limit` (rad) and no more than the slop
 * past it (`what` names the limit in what it prints). */
static void expect_swing_to(sim_world *w, sim_id rod, float limit, const char *what)
{
    float most = 0.0f;
    for (int i = 0; i < 300; i++) {
        sim_world_step(w);
        most = mk_maxf(most, rod_swing(w, rod));
    }
    printf("%s: swung to %.3f deg\n", what, (double)(most / DEG));
    ck_assert_float_le(most, limit + ANGULAR_SLOP);
    ck_assert_float_gt(most, limit - ANGULAR_SLOP);
}

/* The 3D limits on a rod hung from its end (a limb, a door: the limits are solved one row at a
 * time beside the anchor's, as Box2D solves them, and a bob far from its pivot with little
 * inertia of its own would pass them by more, by as much as Box2D lets it): a hinge limited
 * to [-10, 10] degrees swung hard, and a spherical joint with a cone of 30 degrees about -y
 * swung hard sideways, each stays within its slop. */
START_TEST(limits_hold_in_3d)
{
    sim_world *w = world_of(3);
    sim_id arm = add_rod3(w);
    sim_joint_def h = fixture_joint(SIM_JOINT_HINGE, arm, 0, mk_v3(0, 0, 0));
    h.limit = true;
    h.lower = -10.0f * DEG;
    h.upper = 10.0f * DEG;
    join(w, &h);
    sim_body_set_spin3(w, arm, mk_v3(0, 0, 5));
    expect_swing_to(w, arm, 10.0f * DEG, "hinge limit 10 deg");
    sim_world_free(w);

    w = world_of(3);
    arm = add_rod3(w);
    sim_joint_def c = fixture_joint(SIM_JOINT_SPHERICAL, arm, 0, mk_v3(0, 0, 0));
    c.axis = mk_v3(0, -1, 0);
    c.cone = 30.0f * DEG;
    join(w, &c);
    sim_body_set_spin3(w, arm, mk_v3(4, 0, 10));
    expect_swing_to(w, arm, 30.0f * DEG, "spherical cone 30 deg");
    sim_world_free(w);
}
END_TEST

/* A joint holding a 1 kg box under gravity (10 N) with a break force of 30 N holds; a 4 kg box
 * (40 N) on another breaks at the first step, once: one event naming it, its id in the removed
 * joints, the box falling free. */
START_TEST(joint_breaks_once_with_its_event)
{
    sim_world *w = world_of(2);
    sim_world_set_events(w, true, 1e9f);
    sim_id light = add_box(w, SIM_DYNAMIC, 0, 0, 0.5f, 0.5f);
    sim_body_def d = fixture_rect(COL_SHAPE_BOX, SIM_DYNAMIC, 5, 0, 0.5f, 0.5f);
    d.density = 4.0f;
    sim_id heavy = sim_world_add(w, &d, 0);
    sim_joint_def j = fixture_joint(SIM_JOINT_REVOLUTE, light, 0, mk_v3(0, 0, 0));
    j.break_force = 30.0f;
    sim_id holds = join(w, &j);
    j.a = heavy;
    j.anchor_a = mk_v3(5, 0, 0);
    sim_id breaks = join(w, &j);
    for (int i = 0; i < 120; i++)
        sim_world_step(w);
    size_t n, removed, breaks_seen = 0;
    const sim_event *e = sim_world_events(w, &n);
    for (size_t i = 0; i < n; i++)
        if (e[i].type == SIM_EVENT_JOINT_BREAK) {
            breaks_seen++;
            ck_assert_uint_eq(e[i].a, breaks);
        }
    const sim_id *gone = sim_world_removed_joints(w, &removed);
    printf("break: %zu break events, %zu joints removed, the heavy box at y = %.2f\n", breaks_seen,
           removed, (double)pos_of(w, heavy).y);
    ck_assert_uint_eq(breaks_seen, 1);
    ck_assert_uint_eq(removed, 1);
    ck_assert_uint_eq(gone[0], breaks);
    ck_assert_ptr_nonnull(sim_world_get_joint(w, holds));
    ck_assert_ptr_null(sim_world_get_joint(w, breaks));
    ck_assert_float_lt(pos_of(w, heavy).y, -10.0f); /* fell free: g t^2 / 2 = 20 m in 2 s */
    ck_assert_float_lt(fabsf(pos_of(w, light).y), 0.01f);
    sim_world_free(w);
}
END_TEST

/* The largest change of the distance between two bodies' centres from `apart` (m) and of
 * their relative turn (rad) over `steps` steps. */
static void weld_drift(sim_world *w, sim_id a, sim_id b, float apart, int steps, float *gap,
                       float *turn)
{
    *gap = *turn = 0.0f;
    for (int i = 0; i < steps; i++) {
        sim_world_step(w);
        *gap = mk_maxf(*gap, fabsf(mk_v3_len(mk_v3_sub(pos_of(w, a), pos_of(w, b))) - apart));
        if (sim_world_dim(w) == 2) {
            *turn = mk_maxf(*turn, fabsf(angle_of(w, a) - angle_of(w, b)));
            continue;
        }
        mk_quat qa = sim_body3_of(w, sim_world_get(w, a))->rot;
        mk_quat qb = sim_body3_of(w, sim_world_get(w, b))->rot;
        mk_quat q = mk_quat_mul(mk_quat_conj(qa), qb);
        *turn = mk_maxf(*turn, 2.0f * asinf(mk_minf(1.0f, mk_v3_len(mk_v3(q.x, q.y, q.z)))));
    }
}

/* Two welded bodies whose centres are 1 m apart land: the landing stretches the weld by under
 * 2 cm and 0.02 rad over 60 steps, and over the next 120 it is back within 1 mm and 0.01 rad
 * (`what` names the weld in what it prints). */
static void expect_weld_held(sim_world *w, sim_id a, sim_id b, const char *what)
{
    float gap, turn, rest_gap, rest_turn;
    weld_drift(w, a, b, 1.0f, 60, &gap, &turn);
    weld_drift(w, a, b, 1.0f, 120, &rest_gap, &rest_turn);
    printf("%s: landing stretched it %.5f m and %.5f rad; at rest %.6f m and %.6f rad\n", what,
           (double)gap, (double)turn, (double)rest_gap, (double)rest_turn);
    ck_assert_float_lt(gap, 0.02f);
    ck_assert_float_lt(turn, 0.02f);
    ck_assert_float_lt(rest_gap, 1e-3f);
    ck_assert_float_lt(rest_turn, 0.01f);
}

/* Two 1 m boxes welded side by side, let go 3 m up turned 0.4 rad: they tumble and land on a
 * corner as one body. The weld is as stiff as Box2D's joints (60 Hz): the landing (6.8 m/s)
 * stretches it by up to v / (2 pi 60 Hz) = 1.8 cm, and at rest their relative placement is
 * back within 1 mm and 0.01 rad. A 3D weld the same; and a cantilever, a box welded to the
 * world and another to it, sags by the welds' stiffness alone, under 3 mm. */
START_TEST(weld_holds_two_boxes)
{
    sim_world *w = world_of(2);
    add_box(w, SIM_STATIC, 0, -0.5f, 50, 0.5f);
    sim_body_def d = fixture_rect(COL_SHAPE_BOX, SIM_DYNAMIC, 0, 3, 0.5f, 0.5f);
    d.angle = 0.4f;
    sim_id a = sim_world_add(w, &d, 0);
    d.pos = mk_v2(cosf(0.4f), 3 + sinf(0.4f));
    sim_id b = sim_world_add(w, &d, 0);
    sim_joint_def j = fixture_joint(SIM_JOINT_WELD, a, b,
                                mk_v3(0.5f * cosf(0.4f), 3 + 0.5f * sinf(0.4f), 0));
    join(w, &j);
    expect_weld_held(w, a, b, "weld");
    ck_assert_float_lt(pos_of(w, a).y, 1.2f); /* landed */
    sim_world_free(w);

    w = world_of(2);
    a = add_box(w, SIM_DYNAMIC, 0.5f, 0, 0.5f, 0.5f);
    b = add_box(w, SIM_DYNAMIC, 1.5f, 0, 0.5f, 0.5f);
    j = fixture_joint(SIM_JOINT_WELD, a, 0, mk_v3(0, 0, 0));
    join(w, &j);
    j = fixture_joint(SIM_JOINT_WELD, b, a, mk_v3(1, 0, 0));
    join(w, &j);
    for (int i = 0; i < 120; i++)
        sim_world_step(w);
    /* The welds give as springs of the joints' 60 Hz: the one to the world turns by about
     * torque / (I w^2) = 20 N m / (1/6 kg m^2 (2 pi 60 Hz)^2) = 0.84 mrad, 1.3 mm at the tip's
     * 1.5 m, and the second about as much again. */
    printf("weld: the cantilever's tip sags %.6f m\n", (double)-pos_of(w, b).y);
    ck_assert_float_lt(fabsf(pos_of(w, b).y), 3e-3f);
    sim_world_free(w);

    w = world_of(3);
    sim_body_def d3;
    col_shape3 cube = {.type = COL_SHAPE3_BOX, .half = {0.5f, 0.5f, 0.5f}};
    fixture_body3(&d3, cube, SIM_STATIC, mk_v3(0, -0.5f, 0));
    d3.d3.shape.half = mk_v3(50, 0.5f, 50);
    sim_world_add(w, &d3, 0);
    fixture_body3(&d3, cube, SIM_DYNAMIC, mk_v3(0, 3, 0));
    d3.d3.rot = mk_quat_axis_angle(mk_v3_norm(mk_v3(1, 1, 0)), 0.5f);
    a = sim_world_add(w, &d3, 0);
    mk_vec3 off = mk_quat_rotate(d3.d3.rot, mk_v3(1, 0, 0));
    d3.d3.pos = mk_v3_add(mk_v3(0, 3, 0), off);
    b = sim_world_add(w, &d3, 0);
    j = fixture_joint(SIM_JOINT_WELD, a, b, mk_v3_add(mk_v3(0, 3, 0), mk_v3_scale(off, 0.5f)));
    join(w, &j);
    expect_weld_held(w, a, b, "3D weld");
    sim_world_free(w);
}
END_TEST

/* A wheel (a disc of radius 0.4 m) hung from the world on a wheel joint along y, its spring
 * 3 Hz with damping 0.7: it settles at the static deflection m g / k below where it was made,
 * k = m (2 pi f)^2, so d = g / (2 pi f)^2 = 28.1 mm, within 2%. Its motor turns it meanwhile. */
START_TEST(wheel_settles_at_static_deflection)
{
    sim_world *w = world_of(2);
    sim_id wheel = add_disc(w, 0, 0, 0.4f);
    sim_joint_def j = fixture_joint(SIM_JOINT_WHEEL, wheel, 0, mk_v3(0, 0, 0));
    j.axis = mk_v3(0, 1, 0);
    j.spring_hz = 3.0f;
    j.spring_damping = 0.7f;
    set_motor(&j, -4.0f, 20.0f);
    join(w, &j);
    run(w, 60 * 5);
    double omega = 2.0 * PI_D * 3.0, want = 10.0 / (omega * omega);
    mk_vec3 p = pos_of(w, wheel);
    const sim_body *b = sim_world_get(w, wheel);
    printf("wheel: settled %.5f m below (m g / k = %.5f m, %.3f%%), turning at %.3f rad/s, "
           "%.6f m off its axis\n",
           (double)-p.y, want, 100.0 * (-p.y - want) / want, (double)b->w, (double)p.x);
    ck_assert_double_eq_tol(-p.y, want, 0.02 * want);
    ck_assert_float_eq_tol(b->w, -4.0f, 0.04f);
    ck_assert_float_lt(fabsf(p.x), 1e-4f);
    sim_world_free(w);
}
END_TEST

/* Adds a joint that must be refused: its message must name `field`, and the world must be as
 * it was (no joint, the same hash, no report). */
static void refused(sim_world *w, const sim_joint_def *j, const char *field)
{
    uint64_t before = sim_world_hash(w);
    size_t joints = sim_world_joint_count(w);
    mk_error err = {0};
    ck_assert_uint_eq(sim_world_add_joint(w, j, 0, &err), 0);
    printf("refused: %s\n", err.message);
    ck_assert_int_eq(err.code, MK_ERR_INVALID);
    ck_assert_msg(strncmp(err.message, field, strlen(field)) == 0 &&
                      err.message[strlen(field)] == ':',
                  "'%s' does not name %s", err.message, field);
    ck_assert_uint_eq(sim_world_joint_count(w), joints);
    ck_assert_uint_eq(sim_world_hash(w), before);
}

START_TEST(bad_definitions_are_refused)
{
    sim_world *w = world_of(2);
    sim_id a = add_box(w, SIM_DYNAMIC, 0, 0, 0.5f, 0.5f),
           b = add_box(w, SIM_DYNAMIC, 2, 0, 0.5f, 0.5f);
    sim_joint_def j = fixture_joint(SIM_JOINT_REVOLUTE, a, b, mk_v3(1, 0, 0));
    sim_joint_def bad = j;
    bad.a = 99999;
    refused(w, &bad, "a");
    bad = j;
    bad.b = 12345;
    refused(w, &bad, "b");
    bad = j;
    bad.b = a;
    refused(w, &bad, "b");
    bad = j;
    bad.anchor_a = mk_v3(NAN, 0, 0);
    refused(w, &bad, "anchor");
    bad = j;
    bad.anchor_a = mk_v3(INFINITY, 0, 0);
    refused(w, &bad, "anchor");
    bad = j;
    bad.limit = true;
    bad.lower = 0.5f;
    bad.upper = -0.5f;
    refused(w, &bad, "limits");
    bad = j;
    bad.type = SIM_JOINT_HINGE;
    refused(w, &bad, "type");
    bad.type = SIM_JOINT_SPHERICAL;
    refused(w, &bad, "type");
    bad = j;
    bad.type = SIM_JOINT_DISTANCE;
    bad.length = -1.0f;
    refused(w, &bad, "length");
    bad.length = 1.0f;
    bad.min_length = 2.0f;
    bad.max_length = 1.0f;
    refused(w, &bad, "max_length");
    bad = j;
    bad.type = SIM_JOINT_PRISMATIC;
    bad.axis = mk_v3(0, 0, 0);
    refused(w, &bad, "axis");
    bad = j;
    bad.spring_hz = -1.0f;
    refused(w, &bad, "spring");
    bad = j;
    bad.motor = true;
    bad.max_motor = -5.0f;
    refused(w, &bad, "motor");
    bad = j;
    bad.break_force = -1.0f;
    refused(w, &bad, "break_force");
    sim_world_free(w);

    w = world_of(3);
    a = add_sphere(w, mk_v3(0, 0, 0), 0.5f);
    j = fixture_joint(SIM_JOINT_REVOLUTE, a, 0, mk_v3(0, 1, 0));
    refused(w, &j, "type");
    j.type = SIM_JOINT_WHEEL;
    refused(w, &j, "type");
    j.type = SIM_JOINT_SPHERICAL;
    j.cone = 4.0f;
    refused(w, &j, "cone");
    sim_world_free(w);
}
END_TEST

/* A body that leaves the world takes its joints with it: their ids in the removed joints, the
 * body held by them woken and free to fall. */
START_TEST(removing_a_body_removes_its_joints)
{
    sim_world *w = world_of(2);
    sim_id a = add_disc(w, 0, 0, 0.2f), b = add_disc(w, 1, 0, 0.2f), c = add_disc(w, 2, 0, 0.2f);
    sim_joint_def j = fixture_joint(SIM_JOINT_REVOLUTE, a, 0, mk_v3(0, 0, 0));
    sim_id ja = join(w, &j);
    j = fixture_joint(SIM_JOINT_WELD, b, a, mk_v3(0.5f, 0, 0));
    sim_id jb = join(w, &j);
    j = fixture_joint(SIM_JOINT_WELD, c, b, mk_v3(1.5f, 0, 0));
    sim_id jc = join(w, &j);
    for (int i = 0; i < 30; i++)
        sim_world_step(w);
    ck_assert(sim_world_remove(w, b));
    size_t n;
    const sim_id *gone = sim_world_removed_joints(w, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert((gone[0] == jb && gone[1] == jc) || (gone[0] == jc && gone[1] == jb));
    ck_assert_ptr_nonnull(sim_world_get_joint(w, ja));
    ck_assert_uint_eq(sim_world_joint_count(w), 1);
    float y0 = (float)pos_of(w, c).y;
    for (int i = 0; i < 60; i++)
        sim_world_step(w);
    ck_assert_float_lt(pos_of(w, c).y, y0 - 4.0f); /* fell free: 5 m in 1 s */
    /* The ids wait for the removed list to be cleared before their slots are given again, and
     * a new joint never has a removed one's id. */
    sim_world_clear_removed(w);
    j = fixture_joint(SIM_JOINT_REVOLUTE, c, 0, pos_of(w, c));
    sim_id again = join(w, &j);
    ck_assert_uint_ne(again, jb);
    ck_assert_uint_ne(again, jc);
    ck_assert(sim_world_remove_joint(w, again));
    ck_assert(!sim_world_remove_joint(w, again));
    sim_world_free(w);
}
END_TEST

/* Bodies held together sleep as one island and wake as one: two boxes resting on the ground
 * 5 m apart, held by a distance joint, fall asleep at the same tick, and waking one wakes the
 * other though they do not touch. */
START_TEST(jointed_bodies_sleep_and_wake_together)
{
    sim_world *w = world_of(2);
    add_box(w, SIM_STATIC, 0, -0.5f, 20, 0.5f);
    sim_id a = add_box(w, SIM_DYNAMIC, 0, 0.5f, 0.5f, 0.5f);
    sim_id b = add_box(w, SIM_DYNAMIC, 5, 0.5f, 0.5f, 0.5f);
    sim_joint_def j = fixture_joint(SIM_JOINT_DISTANCE, a, b, mk_v3(0, 0.5f, 0));
    j.anchor_b = mk_v3(5, 0.5f, 0);
    j.length = j.min_length = j.max_length = 5.0f;
    join(w, &j);
    int steps = 0;
    while (!sim_world_get(w, a)->sleeping && steps < 600) {
        sim_world_step(w);
        steps++;
        ck_assert_int_eq(sim_world_get(w, a)->sleeping, sim_world_get(w, b)->sleeping);
    }
    ck_assert(sim_world_get(w, b)->sleeping);
    /* Waking one wakes the other, though they do not touch. */
    sim_body_set_velocity2(w, a, mk_v2(0, 1));
    ck_assert(!sim_world_get(w, b)->sleeping);
    printf("sleep: the welded pair slept together after %d steps and woke together\n", steps);
    sim_world_free(w);
}
END_TEST

/* A sphere of radius 2 cm on a hinge 10 cm below the pivot, let go `arc` (m of the bob's
 * path) from the bottom: steps until it sleeps (at most `steps`), and the fastest its bob moved
 * in the last 0.5 s before (or of the run). */
static int short_pendulum(float arc, int steps, float *fastest)
{
    sim_world *w = world_of(3);
    float d = 0.1f, a = arc / d;
    sim_id bob = add_sphere(w, mk_v3(d * sinf(a), -d * cosf(a), 0), 0.02f);
    sim_joint_def j = fixture_joint(SIM_JOINT_HINGE, bob, 0, mk_v3(0, 0, 0));
    join(w, &j);
    float speed[30] = {0};
    int n = 0;
    for (; n < steps && !sim_world_get(w, bob)->sleeping; n++) {
        sim_world_step(w);
        speed[n % 30] = mk_v3_len(sim_body3_of(w, sim_world_get(w, bob))->vel);
    }
    *fastest = 0.0f;
    for (int k = 0; k < 30; k++)
        *fastest = fmaxf(*fastest, speed[k]);
    sim_world_free(w);
    return n;
}

/* A body rests while its points stay within 2.5 cm of where its rest began, however fast they
 * move (as Jolt's sleep test spheres): a pendulum swinging 8 mm each way, its bob at up to
 * 8 cm/s (omega = sqrt(m g d / I_pivot) = 9.9 rad/s), sleeps within a second, though its points
 * never stayed under 5 cm/s for 0.5 s; one swinging 3 cm each way never does. */
START_TEST(a_pendulum_swinging_millimetres_rests)
{
    float fastest;
    int steps = short_pendulum(0.008f, 180, &fastest);
    printf("sleep: a pendulum swinging 8 mm slept after %d steps, its bob at up to %.3f m/s in "
           "its last 0.5 s\n", steps, (double)fastest);
    ck_assert_int_lt(steps, 60);
    ck_assert_float_gt(fastest, 0.06f);
    steps = short_pendulum(0.03f, 180, &fastest);
    ck_assert_int_eq(steps, 180);
    ck_assert_float_gt(fastest, 0.25f);
}
END_TEST

/* Two overlapping boxes held by a joint: without `collide` they pass through each other (no
 * contact), with it they are pushed apart. */
START_TEST(collide_decides_whether_jointed_bodies_touch)
{
    for (int collide = 0; collide < 2; collide++) {
        sim_world *w = world_of(2);
        sim_id a = add_box(w, SIM_DYNAMIC, 0, 0, 0.5f, 0.5f);
        sim_id b = add_box(w, SIM_DYNAMIC, 0.5f, 0, 0.5f, 0.5f);
        sim_joint_def j = fixture_joint(SIM_JOINT_DISTANCE, a, b, mk_v3(0, 0, 0));
        j.anchor_b = mk_v3(0.5f, 0, 0);
        j.length = j.min_length = 0.0f;
        j.max_length = 10.0f;
        j.collide = collide;
        join(w, &j);
        sim_world_step(w);
        size_t n;
        sim_world_contacts2(w, &n);
        float apart = fabsf((float)(pos_of(w, b).x - pos_of(w, a).x));
        for (int i = 0; i < 30; i++)
            sim_world_step(w);
        apart = fabsf((float)(pos_of(w, b).x - pos_of(w, a).x));
        printf("collide %d: %zu contacts, %.3f m apart after 0.5 s\n", collide, n, (double)apart);
        if (collide) {
            ck_assert_uint_eq(n, 1);
            ck_assert_float_gt(apart, 0.99f);
        } else {
            ck_assert_uint_eq(n, 0);
            ck_assert_float_lt(apart, 0.51f);
        }
        sim_world_free(w);
    }
}
END_TEST

/* A world with joints of every kind read back from its image steps exactly as the one it was
 * taken from: the joints' impulses, lists and frames are in it. */
START_TEST(image_with_joints_steps_on_exactly)
{
    for (int dim = 2; dim <= 3; dim++) {
        sim_id last;
        sim_world *w = make_chain(dim, false, NULL, &last);
        sim_id box = dim == 3 ? add_sphere(w, mk_v3(-3, 0, 0), 0.3f) : add_disc(w, -3, 0, 0.3f);
        sim_joint_def j = fixture_joint(SIM_JOINT_PRISMATIC, box, 0, mk_v3(-3, 0, 0));
        j.axis = mk_v3(1, -1, 0);
        j.limit = true;
        j.lower = -1;
        j.upper = 2;
        j.spring_hz = 1;
        j.spring_damping = 0.1f;
        join(w, &j);
        j = fixture_joint(SIM_JOINT_DISTANCE, last, box, pos_of(w, last));
        j.anchor_b = pos_of(w, box);
        j.length = 3;
        j.min_length = 0;
        j.max_length = 25;
        j.break_force = 400;
        join(w, &j);
        for (int i = 0; i < 100; i++)
            sim_world_step(w);
        sim_world *b = fixture_image_copy(w);
        ck_assert_uint_eq(sim_world_hash(b), sim_world_hash(w));
        ck_assert_uint_eq(sim_world_joint_count(b), sim_world_joint_count(w));
        for (int i = 0; i < 300; i++) {
            sim_world_step(w);
            sim_world_step(b);
            ck_assert_msg(sim_world_hash(b) == sim_world_hash(w),
                          "%dD tick %d: the copy went "
                          "its own way",
                          dim, i);
        }
        sim_world_free(b);
        sim_world_free(w);
    }
}
END_TEST

static Suite *joint_suite(void)
{
    Suite *s = suite_create("joint");
    MINK_TCASE(s, "pendulums", 60, revolute_pendulum_period, distance_pendulum_period,
               hinge_pendulum_period);
    MINK_TCASE(s, "structures", 120, chain_hangs_at_its_length, chain_whips_without_stretching,
               bridge_holds_a_load_and_rests, weld_holds_two_boxes);
    MINK_TCASE(s, "motors, limits, springs", 60, motors_reach_their_speed, revolute_limit_holds,
               prismatic_limit_and_axis, rope_holds_at_its_length, limits_hold_in_3d,
               joint_breaks_once_with_its_event, wheel_settles_at_static_deflection);
    MINK_TCASE(s, "the world's joints", 60, bad_definitions_are_refused,
               removing_a_body_removes_its_joints, jointed_bodies_sleep_and_wake_together,
               a_pendulum_swinging_millimetres_rests,
               collide_decides_whether_jointed_bodies_touch, image_with_joints_steps_on_exactly);
    return s;
}

MINK_CHECK_MAIN(joint_suite)
