/* The joints' rows, one source for both dimensions (dim.h, joint_rows.h): each joint's row
 * prepared from its joint and the solver bodies at the start of the step, the passes that run
 * them (on the workers, a color at a time: each row writes only its own and the velocities of
 * its movable bodies, which no other row of its color has), the constraints along a free axis
 * and the distance joint, which are the same arithmetic in both dimensions, and the impulses
 * back into the joints for the next step's warm start. */
#include <math.h>

#include "joint_rows.h"

size_t DIM_NAME(sim_joint_row_size)(void)
{
    return sizeof(joint_row);
}

#if MK_DIM == 2
/* a's frame turned by b: complex multiplication of (cos, sin) pairs. */
static mk_vec2 rot_mul(mk_vec2 a, mk_vec2 b)
{
    return mk_v2(a.x * b.x - a.y * b.y, a.y * b.x + a.x * b.y);
}

/* A body's centre of mass (m), its rotation, and the joint's anchor and frame in it, as the
 * row takes them at the start of the step; the world (slot UINT32_MAX) is at the origin,
 * unturned. */
static void body_frame(const sim_world *w, uint32_t slot, mk_vec3 local, mk_quat frame,
                       dvec *center, dvec *r, drot *q)
{
    mk_vec2 f = mk_v2(frame.x, frame.y), p = mk_v2(local.x, local.y);
    if (slot == UINT32_MAX) {
        *center = mk_v2(0.0f, 0.0f);
        *r = p;
        *q = f;
        return;
    }
    const sim_body *b = &w->slots.bodies.at[slot];
    mk_vec2 rot = sim_body_rot2(b);
    *center = sim_body_center2(b);
    *r = dim_rotate(rot, mk_v2_sub(p, b->local_center));
    *q = rot_mul(rot, f);
}

static bool inertia_moves(float i)
{
    return i > 0.0f;
}
static float inertia_zero(void)
{
    return 0.0f;
}
#else
static void body_frame(const sim_world *w, uint32_t slot, mk_vec3 local, mk_quat frame,
                       dvec *center, dvec *r, drot *q)
{
    if (slot == UINT32_MAX) {
        *center = mk_v3(0.0f, 0.0f, 0.0f);
        *r = local;
        *q = frame;
        return;
    }
    const sim_body3 *b3 = sim_part3(w, slot);
    *center = sim_body_center3(b3);
    *r = mk_quat_rotate(b3->rot, mk_v3_sub(local, b3->local_center));
    *q = mk_quat_mul(b3->rot, frame);
}

static bool inertia_moves(mk_mat3 i)
{
    return i.c0.x > 0.0f || i.c1.y > 0.0f || i.c2.z > 0.0f;
}
static mk_mat3 inertia_zero(void)
{
    return mk_m3_diag(0.0f, 0.0f, 0.0f);
}
#endif

/* The solver body of a slot (0 for the world, a static or a sleeping body). */
static uint32_t solver_body(const sim_world *w, uint32_t slot)
{
    return slot == UINT32_MAX ? 0 : w->solver.index.at[slot];
}

static void prepare_row(sim_world *w, joint_row *r, const sim_joint *j, float h)
{
    /* The row's first body is the joint's b (the base: the world, a frame, a chassis) and its
     * second the joint's a: the joint's angles, translations and speeds are a's relative to
     * b, its axis turns with b. */
    const dsolver_info *info = dim_of(w)->solver_info.at;
    r->a = solver_body(w, j->slot_b);
    r->b = solver_body(w, j->slot_a);
    r->joint = (uint32_t)(j - w->joints.items.at);
    r->type = (uint8_t)j->type;
    r->ma = info[r->a].inv_mass;
    r->mb = info[r->b].inv_mass;
    r->ia = r->a ? info[r->a].inv_inertia : inertia_zero();
    r->ib = r->b ? info[r->b].inv_inertia : inertia_zero();
    r->flags = 0;
    if (r->a && (r->ma > 0.0f || inertia_moves(r->ia)))
        r->flags |= ROW_MOVE_A;
    if (r->b && (r->mb > 0.0f || inertia_moves(r->ib)))
        r->flags |= ROW_MOVE_B;
    r->flags |= (j->limit ? ROW_LIMIT : 0) | (j->motor ? ROW_MOTOR : 0) |
                (j->spring_hz > 0.0f ? ROW_SPRING : 0) |
                (j->linear_hz > 0.0f ? ROW_LINEAR_SPRING : 0) | (j->rigid ? ROW_RIGID : 0);
    dvec ca, cb;
    body_frame(w, j->slot_b, j->local_b, j->frame_b, &ca, &r->ra, &r->qa);
    body_frame(w, j->slot_a, j->local_a, j->frame_a, &cb, &r->rb, &r->qb);
    r->dc = dv_sub(cb, ca);
    r->linear = DIM_PICK(mk_v2(j->linear.x, j->linear.y), j->linear);
    r->angular = DIM_PICK(j->angular.z, j->angular);
    r->spring = j->spring;
    r->motor = j->motor_impulse;
    r->lower = j->lower_impulse;
    r->upper = j->upper_impulse;
    r->lower_limit = j->lower;
    r->upper_limit = j->upper;
    r->motor_speed = j->motor_speed;
    r->max_motor = h * j->max_motor;
    r->spring_soft = sim_make_soft(j->spring_hz, j->spring_damping, h);
    r->linear_soft = sim_make_soft(j->linear_hz, j->linear_damping, h);
    r->length = j->length;
    r->min_length = j->min_length;
    r->max_length = j->max_length;
    r->cone = j->cone;
    DIM_NAME(sim_joint_prepare_rows)(r, j);
}

/* A body the solver moves: awake and not fixed (0 for the body at rest, a kinematic one). */
static uint32_t movable(const sim_world *w, uint32_t slot)
{
    uint32_t i = solver_body(w, slot);
    const dsolver_info *info = dim_of((sim_world *)w)->solver_info.at;
    return i && (info[i].inv_mass > 0.0f || inertia_moves(info[i].inv_inertia)) ? i : 0;
}

void DIM_NAME(sim_joint_ends_range)(void *arg, size_t begin, size_t end)
{
    const sim_joint_ctx *c = arg;
    const sim_world *w = c->w;
    const uint32_t *active = w->joints.active.at;
    uint32_t *ends = w->joints.ends.at;
    for (size_t i = begin; i < end; i++) {
        const sim_joint *j = &w->joints.items.at[active[i]];
        /* In the row's order: the joint's b, then its a (prepare_row). */
        ends[2 * i] = movable(w, j->slot_b);
        ends[2 * i + 1] = movable(w, j->slot_a);
    }
}

void DIM_NAME(sim_joint_prepare_range)(void *arg, size_t begin, size_t end)
{
    const sim_joint_ctx *c = arg;
    sim_world *w = c->w;
    joint_row *rows = w->joints.rows.data;
    const uint32_t *active = w->joints.active.at, *rank = w->joints.rank.at;
    for (size_t k = begin; k < end; k++)
        prepare_row(w, &rows[k], &w->joints.items.at[active[rank[k]]], c->h);
}

void DIM_NAME(sim_joint_store_range)(void *arg, size_t begin, size_t end)
{
    const sim_joint_ctx *c = arg;
    const joint_row *rows = c->w->joints.rows.data;
    for (size_t i = begin; i < end; i++) {
        const joint_row *r = &rows[i];
        sim_joint *j = &c->w->joints.items.at[r->joint];
#if MK_DIM == 2
        j->linear = mk_v3(r->linear.x, r->linear.y, 0.0f);
        j->angular = mk_v3(0.0f, 0.0f, r->angular);
#else
        j->linear = r->linear;
        j->angular = r->angular;
#endif
        j->spring = r->spring;
        j->motor_impulse = r->motor;
        j->lower_impulse = r->lower;
        j->upper_impulse = r->upper;
    }
}

/* The force the joint carries, N: its anchor's (or across its axis) and, where the free axis
 * is a translation, along it (Box2D's b2GetJointReaction, as its break test takes it). */
float DIM_NAME(sim_joint_row_force)(const sim_world *w, size_t i, float inv_h)
{
    const joint_row *r = (const joint_row *)w->joints.rows.data + i;
    float along = 0.0f;
    if (r->type == SIM_JOINT_PRISMATIC || r->type == SIM_JOINT_DISTANCE)
        along = axis_impulse(r);
    else if (r->type == SIM_JOINT_WHEEL)
        along = r->spring + r->lower - r->upper; /* its motor turns the wheel */
    return sqrtf(dv_dot(r->linear, r->linear) + along * along) * inv_h;
}

float DIM_NAME(sim_joint_limit)(float *acc, float C, float speed, float mass,
                                const sim_joint_ctx *c, bool use_bias)
{
    float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
    if (C > 0.0f) {
        bias = C * c->inv_h; /* speculative: close the gap this substep, no more */
    } else if (use_bias) {
        bias = c->soft.bias_rate * C;
        mass_scale = c->soft.mass_scale;
        impulse_scale = c->soft.impulse_scale;
    }
    float j = -mass_scale * mass * (speed + bias) - impulse_scale * *acc;
    float next = mk_maxf(*acc + j, 0.0f);
    j = next - *acc;
    *acc = next;
    return j;
}

void DIM_NAME(sim_joint_axis)(joint_row *r, joint_vel *v, const axis_row *x, float position,
                              const sim_joint_ctx *c, bool use_bias, unsigned which)
{
    which &= r->flags;
    if (which & ROW_SPRING) {
        sim_softness s = r->spring_soft;
        float j = -s.mass_scale * x->mass * (row_speed(v, x) + s.bias_rate * position) -
                  s.impulse_scale * r->spring;
        r->spring += j;
        row_apply(r, v, x, j);
    }
    if (which & ROW_MOTOR) {
        float j = -x->mass * (row_speed(v, x) - r->motor_speed);
        float next = mk_clampf(r->motor + j, -r->max_motor, r->max_motor);
        j = next - r->motor;
        r->motor = next;
        row_apply(r, v, x, j);
    }
    if (which & ROW_LIMIT) {
        float j = DIM_NAME(sim_joint_limit)(&r->lower, position - r->lower_limit, row_speed(v, x),
                                            x->mass, c, use_bias);
        row_apply(r, v, x, j);
        /* The upper limit pushes the other way: its row is the axis's negated. */
        j = DIM_NAME(sim_joint_limit)(&r->upper, r->upper_limit - position, -row_speed(v, x),
                                      x->mass, c, use_bias);
        row_apply(r, v, x, -j);
    }
}

#if MK_DIM == 2
/* r x d for the row of a direction d at arm r: a number in 2D, a vector in 3D. */
static float arm(mk_vec2 r, mk_vec2 d)
{
    return mk_v2_cross(r, d);
}
#else
static mk_vec3 arm(mk_vec3 r, mk_vec3 d)
{
    return mk_v3_cross(r, d);
}
#endif

/* The distance joint along the line between its anchors (Box2D's distance_joint.c): held at
 * its length (rigid, softened by the joints' stiffness), or a spring toward it with the range
 * [min_length, max_length] as two limits (a rope: no spring, min 0), and a motor. */
void DIM_NAME(sim_joint_distance)(joint_row *r, joint_vel *v, const joint_motion *m,
                                  const sim_joint_ctx *c, bool use_bias)
{
    dvec ra, rb;
    dvec d = joint_separation(r, m, &ra, &rb);
    float len = dv_len(d);
    dvec u = dv_norm(d);
    axis_row x = make_row(r, u, arm(ra, u), arm(rb, u));
    if (r->flags & ROW_RIGID) {
        float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
        if (use_bias) {
            bias = c->soft.bias_rate * (len - r->length);
            mass_scale = c->soft.mass_scale;
            impulse_scale = c->soft.impulse_scale;
        }
        float j = -mass_scale * x.mass * (row_speed(v, &x) + bias) - impulse_scale * r->spring;
        r->spring += j;
        row_apply(r, v, &x, j);
        return;
    }
    /* The spring pulls toward the length: the axis's position is the stretch, and its limits
     * are the range's ends less the length (joint.c sets them so). */
    solve_axis(r, v, &x, len - r->length, c, use_bias, ROW_AXIS);
}

void DIM_NAME(sim_joint_distance_warm)(joint_row *r, joint_vel *v, const joint_motion *m)
{
    dvec ra, rb;
    dvec d = joint_separation(r, m, &ra, &rb);
    dvec u = dv_norm(d);
    axis_row x = {u, arm(ra, u), arm(rb, u), 0.0f};
    row_apply(r, v, &x, axis_impulse(r));
}
