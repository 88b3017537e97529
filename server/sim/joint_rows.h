/* The joints' rows in the solver, for the files compiled with MK_DIM (dim.h): the row of one
 * joint for one step (joint_rows.c fills it, for both dimensions), the two bodies' velocities
 * held while it is solved, and the constraint along one free axis (a limit, a motor, a
 * spring), which every dimension and most joint types share. What each dimension's joint
 * types do with the anchor and the turning is in joint2.c and joint3.c.
 *
 * The method is Box2D v3's soft step for joints (Erin Catto, "Solver2D", 2024; revolute_joint.c
 * and its kin): each substep warm-starts from the accumulated impulses, solves with a soft
 * position bias (a spring-damper of the joints' stiffness, SIM_JOINT_HERTZ), integrates, and
 * relaxes without the bias; the anchors ride on the bodies' motion since the step began
 * (dp, dq), so the narrowphase is not run again. Limits are speculative as contacts are: while
 * inside its range a limit lets the bodies close the gap this substep and no more. */
#ifndef MINK_SIM_JOINT_ROWS_H
#define MINK_SIM_JOINT_ROWS_H

#include "dim.h"
#include "joint.h"

/* An inverse inertia as the solver takes it: a number in 2D, a world tensor in 3D. */
typedef DIM_PICK(float, mk_mat3) dinertia;

/* What a row does (joint_row.flags). */
enum {
    ROW_MOVE_A = 1, /* the solver may change a's velocity (it has mass, it is awake) */
    ROW_MOVE_B = 2,
    ROW_LIMIT = 4,
    ROW_MOTOR = 8,
    ROW_SPRING = 16,
    ROW_LINEAR_SPRING = 32, /* a weld's translation is a spring */
    ROW_RIGID = 64,         /* a distance joint held at its length */
};

/* One joint for one step. Where its impulses go by type: `linear` the anchor's (revolute,
 * hinge, spherical, weld) or the rows across the axis (prismatic, wheel: x, and 3D y);
 * `angular` the turning held (weld, prismatic: 2D its z, 3D all three; hinge: the two rows
 * across its axis in x and y); `spring`, `motor`, `lower`, `upper` along the free axis (a
 * distance joint's length in `spring`, a spherical joint's cone in `upper`). */
typedef struct joint_row {
    uint32_t a, b;  /* solver bodies: 0 is the body at rest (static, asleep, the world) */
    uint32_t joint; /* its slot */
    uint8_t type, flags;
    float ma, mb;    /* inverse masses, 1/kg */
    dinertia ia, ib; /* inverse inertias (world axes at the start of the step) */
    dvec ra, rb;     /* the anchors from each centre of mass, world axes, m */
    dvec dc;         /* b's centre of mass less a's, m */
    drot qa, qb;     /* the joint's frame in the world, as each body carries it */
    dvec linear;
    dang angular;
    float spring, motor, lower, upper;
    float lower_limit, upper_limit, motor_speed, max_motor; /* max_motor: N s a substep */
    sim_softness spring_soft, linear_soft;
    float length, min_length, max_length, cone;
#if MK_DIM == 2
    float axial_mass; /* 1 / (ia + ib): the turning's effective mass */
#else
    mk_mat3 point_mass; /* the anchor's three rows' inverse K, from the start's anchors */
    mk_mat3 turn_mass;  /* the turning's: (I_a^-1 + I_b^-1)^-1 */
#endif
} joint_row;

/* The velocities of a joint's two bodies while it is solved. */
typedef struct joint_vel {
    dvec va, vb;
    dang wa, wb;
} joint_vel;

/* A row along one direction: its speed is u . (vb - va) + jb . wb - ja . wa (an angle's has
 * u = 0 and ja = jb = the axis); `mass` its effective mass. */
typedef struct axis_row {
    dvec u;
    dang ja, jb;
    float mass;
} axis_row;

#if MK_DIM == 2
static inline float dang_dot(float a, float b)
{
    return a * b;
}
static inline float dang_scale(float a, float s)
{
    return a * s;
}
static inline float inertia_mul(float i, float j)
{
    return i * j;
}
static inline float dang_zero(void)
{
    return 0.0f;
}
#else
static inline float dang_dot(mk_vec3 a, mk_vec3 b)
{
    return mk_v3_dot(a, b);
}
static inline mk_vec3 dang_scale(mk_vec3 a, float s)
{
    return mk_v3_scale(a, s);
}
static inline mk_vec3 inertia_mul(mk_mat3 i, mk_vec3 j)
{
    return mk_m3_mul_v(i, j);
}
static inline mk_vec3 dang_zero(void)
{
    return mk_v3(0.0f, 0.0f, 0.0f);
}
#endif
static inline dang dang_add(dang a, dang b)
{
    return DIM_PICK(a + b, mk_v3_add(a, b));
}
static inline dang dang_sub(dang a, dang b)
{
    return DIM_PICK(a - b, mk_v3_sub(a, b));
}

/* The speed of a row, and an impulse j along it applied to both bodies. */
static inline float row_speed(const joint_vel *v, const axis_row *x)
{
    return dv_dot(x->u, dv_sub(v->vb, v->va)) + dang_dot(x->jb, v->wb) - dang_dot(x->ja, v->wa);
}
static inline void row_apply(const joint_row *r, joint_vel *v, const axis_row *x, float j)
{
    v->va = dv_mad(v->va, -r->ma * j, x->u);
    v->wa = dang_sub(v->wa, dang_scale(inertia_mul(r->ia, x->ja), j));
    v->vb = dv_mad(v->vb, r->mb * j, x->u);
    v->wb = dang_add(v->wb, dang_scale(inertia_mul(r->ib, x->jb), j));
}
/* The effective mass of a row: 1 / (ma |u|^2 + mb |u|^2 + ja.Ia ja + jb.Ib jb). */
static inline float row_mass(const joint_row *r, dvec u, dang ja, dang jb)
{
    float uu = dv_dot(u, u);
    float k = (r->ma + r->mb) * uu + dang_dot(ja, inertia_mul(r->ia, ja)) +
              dang_dot(jb, inertia_mul(r->ib, jb));
    return k > 0.0f ? 1.0f / k : 0.0f;
}
static inline axis_row make_row(const joint_row *r, dvec u, dang ja, dang jb)
{
    return (axis_row){u, ja, jb, row_mass(r, u, ja, jb)};
}

/* The constraints along a free axis at `position` (rad or m; 0 where the joint was made),
 * those of `which` (ROW_SPRING, ROW_MOTOR, ROW_LIMIT) that the joint has: the spring toward 0
 * (solved in the relax pass too: it is a real spring), the motor toward its speed within its
 * impulse, and the two limits, each one-sided and speculative. */
#define ROW_AXIS (ROW_SPRING | ROW_MOTOR | ROW_LIMIT)
void DIM_NAME(sim_joint_axis)(joint_row *r, joint_vel *v, const axis_row *x, float position,
                              const sim_joint_ctx *c, bool use_bias, unsigned which);
#define solve_axis DIM_NAME(sim_joint_axis)

/* The impulse change of one one-sided limit whose accumulated impulse is *acc: C >= 0 is
 * within it (m or rad), `speed` its row's speed toward C growing (m/s or rad/s), `mass` the
 * row's effective mass. */
float DIM_NAME(sim_joint_limit)(float *acc, float C, float speed, float mass,
                                const sim_joint_ctx *c, bool use_bias);

/* The impulse of the free axis's constraints together (spring, motor and limits). */
static inline float axis_impulse(const joint_row *r)
{
    return r->spring + r->motor + r->lower - r->upper;
}

/* The bodies' motion since the step began. */
typedef struct joint_motion {
    dvec dpa, dpb;
    drot dqa, dqb;
} joint_motion;

/* A pass over rows [begin, end) of the context's kind (warm start, solve with the position
 * bias, relax without it), the rows' bodies' velocities held in locals: each dimension's
 * sim_joint_pass_range (joint2.c, joint3.c) is this with its own warm start and solve of a
 * row, so that they are inlined. The body at rest and a body the joint never moves keep their
 * velocities (a kinematic body may be shared by the rows of one color). */
typedef void joint_warm_fn(joint_row *r, joint_vel *v, const joint_motion *m);
typedef void joint_solve_fn(joint_row *r, joint_vel *v, const joint_motion *m,
                            const sim_joint_ctx *c, bool use_bias);
static inline void joint_pass(const sim_joint_ctx *c, size_t begin, size_t end,
                              joint_warm_fn *warm, joint_solve_fn *solve)
{
    dsolver_body *bodies = dim_of(c->w)->solver_bodies.at;
    joint_row *rows = c->w->joints.rows.data;
    for (size_t k = begin; k < end; k++) {
        joint_row *r = &rows[k];
        dsolver_body *a = &bodies[r->a], *b = &bodies[r->b];
        joint_vel v = {a->v, b->v, a->w, b->w};
        joint_motion m = {a->dp, b->dp, a->dq, b->dq};
        if (c->pass == JOINT_WARM)
            warm(r, &v, &m);
        else
            solve(r, &v, &m, c, c->pass == JOINT_SOLVE);
        if (r->flags & ROW_MOVE_A) {
            a->v = v.va;
            a->w = v.wa;
        }
        if (r->flags & ROW_MOVE_B) {
            b->v = v.vb;
            b->w = v.wb;
        }
    }
}

/* Each dimension's rows prepared from the joint's frames (joint2.c, joint3.c). */
void DIM_NAME(sim_joint_prepare_rows)(joint_row *r, const sim_joint *j);
/* The distance joint, the same in both dimensions (joint_rows.c). */
void DIM_NAME(sim_joint_distance)(joint_row *r, joint_vel *v, const joint_motion *m,
                                  const sim_joint_ctx *c, bool use_bias);
void DIM_NAME(sim_joint_distance_warm)(joint_row *r, joint_vel *v, const joint_motion *m);
/* The anchors now (rotated by the bodies' turns since the step began) and the separation of
 * b's from a's, m. */
static inline dvec joint_separation(const joint_row *r, const joint_motion *m, dvec *ra, dvec *rb)
{
    *ra = dim_rotate(m->dqa, r->ra);
    *rb = dim_rotate(m->dqb, r->rb);
    return dv_add(dv_add(dv_sub(m->dpb, m->dpa), dv_sub(*rb, *ra)), r->dc);
}

#endif
