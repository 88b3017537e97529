/* The 2D joints' own arithmetic (joint_rows.h): revolute, prismatic, weld and wheel, after
 * Box2D v3's revolute_joint.c, prismatic_joint.c, weld_joint.c and wheel_joint.c (learnt from,
 * written anew). A turn is a number and a body's rotation a (cos, sin) pair: the anchor's two
 * rows are solved as one 2 x 2 block, K recomputed from the anchors as they turn within the
 * step; an angle is read off the frames' relative (cos, sin). Compiled with MK_DIM=2. */
#include <math.h>

#include "joint_rows.h"

void sim_joint_prepare_rows2(joint_row *r, const sim_joint *j)
{
    (void)j;
    float k = r->ia + r->ib;
    r->axial_mass = k > 0.0f ? 1.0f / k : 0.0f;
}

/* (cos, sin) of b's frame relative to a's, as the bodies have turned since the step began. */
static float joint_angle(const joint_row *r, const joint_motion *m)
{
    mk_vec2 qa = dim_rotate(m->dqa, r->qa), qb = dim_rotate(m->dqb, r->qb);
    return atan2f(qa.x * qb.y - qa.y * qb.x, qa.x * qb.x + qa.y * qb.y);
}

/* The row of the turning of b relative to a. */
static axis_row turn_row(const joint_row *r)
{
    return (axis_row){mk_v2(0.0f, 0.0f), 1.0f, 1.0f, r->axial_mass};
}

/* A linear impulse p at the anchors ra, rb, and an angular one l. */
static void push(const joint_row *r, joint_vel *v, mk_vec2 ra, mk_vec2 rb, mk_vec2 p, float l)
{
    v->va = mk_v2_mad(v->va, -r->ma, p);
    v->wa -= r->ia * (mk_v2_cross(ra, p) + l);
    v->vb = mk_v2_mad(v->vb, r->mb, p);
    v->wb += r->ib * (mk_v2_cross(rb, p) + l);
}

/* x of the 2 x 2 symmetric system [a11 a12; a12 a22] x = b (0 when it is singular). */
static mk_vec2 solve22(float a11, float a12, float a22, mk_vec2 b)
{
    float det = a11 * a22 - a12 * a12;
    if (det != 0.0f)
        det = 1.0f / det;
    return mk_v2(det * (a22 * b.x - a12 * b.y), det * (a11 * b.y - a12 * b.x));
}

/* The anchors held together (revolute, weld): Cdot = (vb + wb x rb) - (va + wa x ra), two rows
 * as one block; the bias pulls the separation `sep` to 0 with softness s. */
static void point(joint_row *r, joint_vel *v, mk_vec2 ra, mk_vec2 rb, mk_vec2 sep, sim_softness s,
                  bool use_bias)
{
    mk_vec2 cdot = mk_v2_sub(mk_v2_add(v->vb, mk_v2(-v->wb * rb.y, v->wb * rb.x)),
                             mk_v2_add(v->va, mk_v2(-v->wa * ra.y, v->wa * ra.x)));
    float mass_scale = 1.0f, impulse_scale = 0.0f;
    if (use_bias) {
        cdot = mk_v2_mad(cdot, s.bias_rate, sep);
        mass_scale = s.mass_scale;
        impulse_scale = s.impulse_scale;
    }
    float m = r->ma + r->mb;
    float k11 = m + ra.y * ra.y * r->ia + rb.y * rb.y * r->ib;
    float k12 = -ra.y * ra.x * r->ia - rb.y * rb.x * r->ib;
    float k22 = m + ra.x * ra.x * r->ia + rb.x * rb.x * r->ib;
    mk_vec2 b = solve22(k11, k12, k22, cdot);
    mk_vec2 j = mk_v2(-mass_scale * b.x - impulse_scale * r->linear.x,
                      -mass_scale * b.y - impulse_scale * r->linear.y);
    r->linear = mk_v2_add(r->linear, j);
    push(r, v, ra, rb, j, 0.0f);
}

/* The frame axis of a (its x) as a has turned, the separation d and the anchors now. */
typedef struct slide {
    mk_vec2 axis, perp, d, ra, rb;
} slide;

static slide slide_of(const joint_row *r, const joint_motion *m)
{
    slide s;
    s.d = joint_separation(r, m, &s.ra, &s.rb);
    s.axis = dim_rotate(m->dqa, r->qa);
    s.perp = mk_v2(-s.axis.y, s.axis.x);
    return s;
}

/* The row of a translation along direction n of a's frame: a's arm reaches to b's anchor
 * (Box2D's a1 = (d + ra) x n). */
static axis_row slide_row(const joint_row *r, const slide *s, mk_vec2 n)
{
    return make_row(r, n, mk_v2_cross(mk_v2_add(s->d, s->ra), n), mk_v2_cross(s->rb, n));
}

/* Prismatic: along the axis the free axis's constraints; across it and in turning one 2 x 2
 * block (Box2D's prismatic block). */
static void prismatic(joint_row *r, joint_vel *v, const joint_motion *m, const sim_joint_ctx *c,
                      bool use_bias)
{
    slide s = slide_of(r, m);
    axis_row along = slide_row(r, &s, s.axis);
    solve_axis(r, v, &along, mk_v2_dot(s.axis, s.d), c, use_bias, ROW_AXIS);

    float s1 = mk_v2_cross(mk_v2_add(s.d, s.ra), s.perp), s2 = mk_v2_cross(s.rb, s.perp);
    mk_vec2 cdot = mk_v2(mk_v2_dot(s.perp, mk_v2_sub(v->vb, v->va)) + s2 * v->wb - s1 * v->wa,
                         v->wb - v->wa);
    float mass_scale = 1.0f, impulse_scale = 0.0f;
    if (use_bias) {
        mk_vec2 C = mk_v2(mk_v2_dot(s.perp, s.d), joint_angle(r, m));
        cdot = mk_v2_mad(cdot, c->soft.bias_rate, C);
        mass_scale = c->soft.mass_scale;
        impulse_scale = c->soft.impulse_scale;
    }
    float k11 = r->ma + r->mb + r->ia * s1 * s1 + r->ib * s2 * s2;
    float k12 = r->ia * s1 + r->ib * s2, k22 = r->ia + r->ib;
    mk_vec2 b = solve22(k11, k12, k22 > 0.0f ? k22 : 1.0f, cdot);
    mk_vec2 j = mk_v2(-mass_scale * b.x - impulse_scale * r->linear.x,
                      -mass_scale * b.y - impulse_scale * r->angular);
    r->linear.x += j.x;
    r->angular += j.y;
    mk_vec2 p = mk_v2_scale(s.perp, j.x);
    v->va = mk_v2_mad(v->va, -r->ma, p);
    v->wa -= r->ia * (j.x * s1 + j.y);
    v->vb = mk_v2_mad(v->vb, r->mb, p);
    v->wb += r->ib * (j.x * s2 + j.y);
}

/* Wheel: the motor turns b, the spring and the limits act along the axis, and b's anchor is
 * held on the axis's line (Box2D's point-to-line row). */
static void wheel(joint_row *r, joint_vel *v, const joint_motion *m, const sim_joint_ctx *c,
                  bool use_bias)
{
    axis_row turn = turn_row(r);
    solve_axis(r, v, &turn, 0.0f, c, use_bias, ROW_MOTOR);
    slide s = slide_of(r, m);
    axis_row along = slide_row(r, &s, s.axis);
    solve_axis(r, v, &along, mk_v2_dot(s.axis, s.d), c, use_bias, ROW_SPRING | ROW_LIMIT);
    axis_row across = slide_row(r, &s, s.perp);
    float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
    if (use_bias) {
        bias = c->soft.bias_rate * mk_v2_dot(s.perp, s.d);
        mass_scale = c->soft.mass_scale;
        impulse_scale = c->soft.impulse_scale;
    }
    float j = -mass_scale * across.mass * (row_speed(v, &across) + bias) -
              impulse_scale * r->linear.x;
    r->linear.x += j;
    row_apply(r, v, &across, j);
}

/* Weld: the turning held, then the anchors, each rigid (the joints' stiffness) or a spring. */
static void weld(joint_row *r, joint_vel *v, const joint_motion *m, const sim_joint_ctx *c,
                 bool use_bias)
{
    bool turn_spring = r->flags & ROW_SPRING, slide_spring = r->flags & ROW_LINEAR_SPRING;
    sim_softness s = turn_spring ? r->spring_soft : c->soft;
    float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
    if (use_bias || turn_spring) {
        bias = s.bias_rate * joint_angle(r, m);
        mass_scale = s.mass_scale;
        impulse_scale = s.impulse_scale;
    }
    float j = -mass_scale * r->axial_mass * (v->wb - v->wa + bias) - impulse_scale * r->angular;
    r->angular += j;
    v->wa -= r->ia * j;
    v->wb += r->ib * j;
    mk_vec2 ra, rb;
    mk_vec2 sep = joint_separation(r, m, &ra, &rb);
    point(r, v, ra, rb, sep, slide_spring ? r->linear_soft : c->soft, use_bias || slide_spring);
}

static void solve(joint_row *r, joint_vel *v, const joint_motion *m, const sim_joint_ctx *c,
                  bool use_bias)
{
    switch ((sim_joint_type)r->type) {
    case SIM_JOINT_REVOLUTE: {
        if ((r->flags & ROW_AXIS) && r->axial_mass > 0.0f) {
            axis_row turn = turn_row(r);
            float angle = r->flags & (ROW_SPRING | ROW_LIMIT) ? joint_angle(r, m) : 0.0f;
            solve_axis(r, v, &turn, angle, c, use_bias, ROW_AXIS);
        }
        mk_vec2 ra, rb;
        mk_vec2 sep = joint_separation(r, m, &ra, &rb);
        point(r, v, ra, rb, sep, c->soft, use_bias);
        return;
    }
    case SIM_JOINT_PRISMATIC:
        prismatic(r, v, m, c, use_bias);
        return;
    case SIM_JOINT_DISTANCE:
        sim_joint_distance2(r, v, m, c, use_bias);
        return;
    case SIM_JOINT_WELD:
        weld(r, v, m, c, use_bias);
        return;
    case SIM_JOINT_WHEEL:
        wheel(r, v, m, c, use_bias);
        return;
    default:
        return;
    }
}

static void warm(joint_row *r, joint_vel *v, const joint_motion *m)
{
    switch ((sim_joint_type)r->type) {
    case SIM_JOINT_REVOLUTE:
    case SIM_JOINT_WELD: {
        mk_vec2 ra = dim_rotate(m->dqa, r->ra), rb = dim_rotate(m->dqb, r->rb);
        float turn = r->type == SIM_JOINT_WELD ? r->angular : axis_impulse(r);
        push(r, v, ra, rb, r->linear, turn);
        return;
    }
    case SIM_JOINT_PRISMATIC: {
        slide s = slide_of(r, m);
        axis_row along = slide_row(r, &s, s.axis);
        row_apply(r, v, &along, axis_impulse(r));
        float s1 = mk_v2_cross(mk_v2_add(s.d, s.ra), s.perp), s2 = mk_v2_cross(s.rb, s.perp);
        mk_vec2 p = mk_v2_scale(s.perp, r->linear.x);
        v->va = mk_v2_mad(v->va, -r->ma, p);
        v->wa -= r->ia * (r->linear.x * s1 + r->angular);
        v->vb = mk_v2_mad(v->vb, r->mb, p);
        v->wb += r->ib * (r->linear.x * s2 + r->angular);
        return;
    }
    case SIM_JOINT_DISTANCE:
        sim_joint_distance_warm2(r, v, m);
        return;
    case SIM_JOINT_WHEEL: {
        slide s = slide_of(r, m);
        axis_row along = slide_row(r, &s, s.axis), across = slide_row(r, &s, s.perp);
        axis_row turn = turn_row(r);
        row_apply(r, v, &along, r->spring + r->lower - r->upper);
        row_apply(r, v, &across, r->linear.x);
        row_apply(r, v, &turn, r->motor);
        return;
    }
    default:
        return;
    }
}

void sim_joint_pass_range2(void *arg, size_t begin, size_t end)
{
    joint_pass(arg, begin, end, warm, solve);
}
