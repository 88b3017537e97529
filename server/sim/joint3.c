/* The 3D joints' own arithmetic (joint_rows.h): hinge, prismatic (a slider), weld and
 * spherical with its cone, after Jolt's HingeConstraint, SliderConstraint, FixedConstraint
 * and ConeConstraint (their constraint parts: the point's three rows, the hinge's two rows
 * across its axis of Chappuis's "Constraints Derivation for Rigid Body Simulation in 3D",
 * section 2.4.1, the rotation held by the difference quaternion) on Box2D v3's soft step
 * rather than Jolt's position passes. Learnt from, written anew. Compiled with MK_DIM=3.
 *
 * The joint's frame in each body has its x along the joint's axis. The effective masses of
 * the anchor's rows and of the turning are taken from the start of the step's anchors and
 * inertias (the contacts' solver does the same: within 1/60 s the turn is small); those of
 * rows that follow an axis as it turns are made at each pass. */
#include <math.h>

#include "joint_rows.h"

static const mk_vec3 X = {1.0f, 0.0f, 0.0f}, Y = {0.0f, 1.0f, 0.0f}, Z = {0.0f, 0.0f, 1.0f};

/* S(r) I S(r)^T, with S(r) x = r x x: what an impulse at arm r does to the arm's speed
 * through the inertia I (positive semidefinite). */
static mk_mat3 arm_mass(mk_vec3 r, mk_mat3 i)
{
    mk_vec3 e[3] = {X, Y, Z}, c[3];
    for (int k = 0; k < 3; k++)
        c[k] = mk_v3_neg(mk_v3_cross(r, mk_m3_mul_v(i, mk_v3_cross(r, e[k]))));
    return (mk_mat3){c[0], c[1], c[2]};
}

void sim_joint_prepare_rows3(joint_row *r, const sim_joint *j)
{
    (void)j;
    float m = r->ma + r->mb;
    mk_mat3 k = mk_m3_add(mk_m3_add(mk_m3_diag(m, m, m), arm_mass(r->ra, r->ia)),
                          arm_mass(r->rb, r->ib));
    r->point_mass = mk_m3_inverse(k);
    r->turn_mass = mk_m3_inverse(mk_m3_add(r->ia, r->ib));
}

/* The joint's frames in the world as the bodies have turned since the step began. */
static void frames(const joint_row *r, const joint_motion *m, mk_quat *qa, mk_quat *qb)
{
    *qa = mk_quat_mul(m->dqa, r->qa);
    *qb = mk_quat_mul(m->dqb, r->qb);
}

/* b's frame relative to a's, in a's frame, on the side of w >= 0. */
static mk_quat relative(mk_quat qa, mk_quat qb)
{
    mk_quat q = mk_quat_mul(mk_quat_conj(qa), qb);
    return q.w < 0.0f ? (mk_quat){-q.x, -q.y, -q.z, -q.w} : q;
}

/* A linear impulse p at the anchors and an angular one l. */
static void push(const joint_row *r, joint_vel *v, mk_vec3 ra, mk_vec3 rb, mk_vec3 p, mk_vec3 l)
{
    v->va = mk_v3_mad(v->va, -r->ma, p);
    v->wa = mk_v3_sub(v->wa, mk_m3_mul_v(r->ia, mk_v3_add(mk_v3_cross(ra, p), l)));
    v->vb = mk_v3_mad(v->vb, r->mb, p);
    v->wb = mk_v3_add(v->wb, mk_m3_mul_v(r->ib, mk_v3_add(mk_v3_cross(rb, p), l)));
}

static const mk_vec3 NONE = {0.0f, 0.0f, 0.0f};

/* The anchors held together: three rows as one block. */
static void point(joint_row *r, joint_vel *v, const joint_motion *m, sim_softness s, bool use_bias)
{
    mk_vec3 ra, rb;
    mk_vec3 sep = joint_separation(r, m, &ra, &rb);
    mk_vec3 cdot = mk_v3_sub(mk_v3_add(v->vb, mk_v3_cross(v->wb, rb)),
                             mk_v3_add(v->va, mk_v3_cross(v->wa, ra)));
    float mass_scale = 1.0f, impulse_scale = 0.0f;
    if (use_bias) {
        cdot = mk_v3_mad(cdot, s.bias_rate, sep);
        mass_scale = s.mass_scale;
        impulse_scale = s.impulse_scale;
    }
    mk_vec3 j = mk_v3_sub(mk_v3_scale(mk_m3_mul_v(r->point_mass, cdot), -mass_scale),
                          mk_v3_scale(r->linear, impulse_scale));
    r->linear = mk_v3_add(r->linear, j);
    push(r, v, ra, rb, j, NONE);
}

/* The turning held: b's frame kept on a's, three rows as one block; the bias turns the small
 * rotation between them, 2 (x, y, z) of their difference quaternion taken to world axes, to
 * 0. */
static void hold_turn(joint_row *r, joint_vel *v, const joint_motion *m, sim_softness s,
                      bool use_bias)
{
    mk_vec3 cdot = mk_v3_sub(v->wb, v->wa);
    float mass_scale = 1.0f, impulse_scale = 0.0f;
    if (use_bias) {
        mk_quat qa, qb;
        frames(r, m, &qa, &qb);
        mk_quat q = relative(qa, qb);
        mk_vec3 err = mk_quat_rotate(qa, mk_v3(2.0f * q.x, 2.0f * q.y, 2.0f * q.z));
        cdot = mk_v3_mad(cdot, s.bias_rate, err);
        mass_scale = s.mass_scale;
        impulse_scale = s.impulse_scale;
    }
    mk_vec3 j = mk_v3_sub(mk_v3_scale(mk_m3_mul_v(r->turn_mass, cdot), -mass_scale),
                          mk_v3_scale(r->angular, impulse_scale));
    r->angular = mk_v3_add(r->angular, j);
    push(r, v, NONE, NONE, NONE, j);
}

/* The hinge's axis on a (a1) and its two rows across it: u_k = b_k x a1 with b_k b's frame's y
 * and z, C_k = a1 . b_k (0 while a1 is b's axis too), speed u_k . (wb - wa). */
typedef struct hinge {
    mk_vec3 a1, u[2];
    float C[2];
} hinge;

static hinge hinge_of(const joint_row *r, const joint_motion *m)
{
    mk_quat qa, qb;
    frames(r, m, &qa, &qb);
    hinge h;
    h.a1 = mk_quat_rotate(qa, X);
    mk_vec3 b2 = mk_quat_rotate(qb, Y), c2 = mk_quat_rotate(qb, Z);
    h.u[0] = mk_v3_cross(b2, h.a1);
    h.u[1] = mk_v3_cross(c2, h.a1);
    h.C[0] = mk_v3_dot(h.a1, b2);
    h.C[1] = mk_v3_dot(h.a1, c2);
    return h;
}

/* The hinge's two rows as one block, K_kl = u_k . (Ia + Ib) u_l. */
static void hinge_rows(joint_row *r, joint_vel *v, const hinge *h, sim_softness s, bool use_bias)
{
    mk_vec3 dw = mk_v3_sub(v->wb, v->wa);
    float b0 = mk_v3_dot(h->u[0], dw), b1 = mk_v3_dot(h->u[1], dw);
    float mass_scale = 1.0f, impulse_scale = 0.0f;
    if (use_bias) {
        b0 += s.bias_rate * h->C[0];
        b1 += s.bias_rate * h->C[1];
        mass_scale = s.mass_scale;
        impulse_scale = s.impulse_scale;
    }
    mk_mat3 i = mk_m3_add(r->ia, r->ib);
    mk_vec3 iu0 = mk_m3_mul_v(i, h->u[0]), iu1 = mk_m3_mul_v(i, h->u[1]);
    float k11 = mk_v3_dot(h->u[0], iu0), k12 = mk_v3_dot(h->u[0], iu1);
    float k22 = mk_v3_dot(h->u[1], iu1), det = k11 * k22 - k12 * k12;
    if (det != 0.0f)
        det = 1.0f / det;
    float x0 = det * (k22 * b0 - k12 * b1), x1 = det * (k11 * b1 - k12 * b0);
    float j0 = -mass_scale * x0 - impulse_scale * r->angular.x;
    float j1 = -mass_scale * x1 - impulse_scale * r->angular.y;
    r->angular.x += j0;
    r->angular.y += j1;
    push(r, v, NONE, NONE, NONE, mk_v3_add(mk_v3_scale(h->u[0], j0), mk_v3_scale(h->u[1], j1)));
}

/* The turn of b about the hinge's axis relative to a, rad in [-pi, pi]: twice the angle of
 * the difference quaternion's part about x. */
static float hinge_angle(const joint_row *r, const joint_motion *m)
{
    mk_quat qa, qb;
    frames(r, m, &qa, &qb);
    mk_quat q = relative(qa, qb);
    return 2.0f * atan2f(q.x, q.w);
}

static axis_row turn_about(const joint_row *r, mk_vec3 axis)
{
    return make_row(r, NONE, axis, axis);
}

static void hinge_joint(joint_row *r, joint_vel *v, const joint_motion *m, const sim_joint_ctx *c,
                        bool use_bias)
{
    hinge h = hinge_of(r, m);
    if (r->flags & ROW_AXIS) {
        axis_row turn = turn_about(r, h.a1);
        float angle = r->flags & (ROW_SPRING | ROW_LIMIT) ? hinge_angle(r, m) : 0.0f;
        solve_axis(r, v, &turn, angle, c, use_bias, ROW_AXIS);
    }
    hinge_rows(r, v, &h, c->soft, use_bias);
    point(r, v, m, c->soft, use_bias);
}

/* The cone's row: n across a's and b's axes (their angle grows turning b about it), or none
 * (false) while they are too near parallel to tell, when the cone is far. */
static bool cone_row(const joint_row *r, const joint_motion *m, mk_vec3 *n, float *angle)
{
    mk_quat qa, qb;
    frames(r, m, &qa, &qb);
    mk_vec3 aa = mk_quat_rotate(qa, X), ab = mk_quat_rotate(qb, X);
    *angle = acosf(mk_clampf(mk_v3_dot(aa, ab), -1.0f, 1.0f));
    mk_vec3 c = mk_v3_cross(aa, ab);
    float len = mk_v3_len(c);
    if (len > 1e-6f) {
        *n = mk_v3_scale(c, 1.0f / len);
        return true;
    }
    if (*angle < 1.5707963f)
        return false;           /* parallel: in the cone */
    *n = mk_quat_rotate(qa, Y); /* opposite: any way back will do */
    return true;
}

static void spherical(joint_row *r, joint_vel *v, const joint_motion *m, const sim_joint_ctx *c,
                      bool use_bias)
{
    mk_vec3 n;
    float angle;
    if ((r->flags & ROW_LIMIT) && cone_row(r, m, &n, &angle)) {
        axis_row x = turn_about(r, n);
        float j = sim_joint_limit3(&r->upper, r->cone - angle, -row_speed(v, &x), x.mass, c,
                                   use_bias);
        row_apply(r, v, &x, -j);
    }
    point(r, v, m, c->soft, use_bias);
}

/* A slider's axis (a's frame's x) and its two across (y, z) as a has turned, and the
 * separation and anchors now; a row along a direction n has a's arm reach to b's anchor. */
typedef struct slide {
    mk_vec3 axis[3], d, ra, rb;
} slide;

static slide slide_of(const joint_row *r, const joint_motion *m)
{
    slide s;
    s.d = joint_separation(r, m, &s.ra, &s.rb);
    mk_quat qa = mk_quat_mul(m->dqa, r->qa);
    s.axis[0] = mk_quat_rotate(qa, X);
    s.axis[1] = mk_quat_rotate(qa, Y);
    s.axis[2] = mk_quat_rotate(qa, Z);
    return s;
}

static axis_row slide_row(const joint_row *r, const slide *s, int k)
{
    mk_vec3 n = s->axis[k];
    return make_row(r, n, mk_v3_cross(mk_v3_add(s->d, s->ra), n), mk_v3_cross(s->rb, n));
}

/* The two rows across a slider's axis as one block. */
static void slide_across(joint_row *r, joint_vel *v, const slide *s, sim_softness soft,
                         bool use_bias)
{
    axis_row x[2] = {slide_row(r, s, 1), slide_row(r, s, 2)};
    float b[2], k[2][2];
    for (int p = 0; p < 2; p++) {
        b[p] = row_speed(v, &x[p]);
        if (use_bias)
            b[p] += soft.bias_rate * mk_v3_dot(x[p].u, s->d);
        for (int q = 0; q < 2; q++)
            k[p][q] = (r->ma + r->mb) * mk_v3_dot(x[p].u, x[q].u) +
                      mk_v3_dot(x[p].ja, mk_m3_mul_v(r->ia, x[q].ja)) +
                      mk_v3_dot(x[p].jb, mk_m3_mul_v(r->ib, x[q].jb));
    }
    float det = k[0][0] * k[1][1] - k[0][1] * k[1][0];
    if (det != 0.0f)
        det = 1.0f / det;
    float y0 = det * (k[1][1] * b[0] - k[0][1] * b[1]),
          y1 = det * (k[0][0] * b[1] - k[1][0] * b[0]);
    float mass_scale = use_bias ? soft.mass_scale : 1.0f;
    float impulse_scale = use_bias ? soft.impulse_scale : 0.0f;
    float j0 = -mass_scale * y0 - impulse_scale * r->linear.x;
    float j1 = -mass_scale * y1 - impulse_scale * r->linear.y;
    r->linear.x += j0;
    r->linear.y += j1;
    row_apply(r, v, &x[0], j0);
    row_apply(r, v, &x[1], j1);
}

static void prismatic(joint_row *r, joint_vel *v, const joint_motion *m, const sim_joint_ctx *c,
                      bool use_bias)
{
    slide s = slide_of(r, m);
    axis_row along = slide_row(r, &s, 0);
    solve_axis(r, v, &along, mk_v3_dot(s.axis[0], s.d), c, use_bias, ROW_AXIS);
    hold_turn(r, v, m, c->soft, use_bias);
    slide_across(r, v, &s, c->soft, use_bias);
}

static void weld(joint_row *r, joint_vel *v, const joint_motion *m, const sim_joint_ctx *c,
                 bool use_bias)
{
    bool turn_spring = r->flags & ROW_SPRING, slide_spring = r->flags & ROW_LINEAR_SPRING;
    hold_turn(r, v, m, turn_spring ? r->spring_soft : c->soft, use_bias || turn_spring);
    point(r, v, m, slide_spring ? r->linear_soft : c->soft, use_bias || slide_spring);
}

static void solve(joint_row *r, joint_vel *v, const joint_motion *m, const sim_joint_ctx *c,
                  bool use_bias)
{
    switch ((sim_joint_type)r->type) {
    case SIM_JOINT_HINGE:
        hinge_joint(r, v, m, c, use_bias);
        return;
    case SIM_JOINT_PRISMATIC:
        prismatic(r, v, m, c, use_bias);
        return;
    case SIM_JOINT_DISTANCE:
        sim_joint_distance3(r, v, m, c, use_bias);
        return;
    case SIM_JOINT_WELD:
        weld(r, v, m, c, use_bias);
        return;
    case SIM_JOINT_SPHERICAL:
        spherical(r, v, m, c, use_bias);
        return;
    default:
        return;
    }
}

static void warm(joint_row *r, joint_vel *v, const joint_motion *m)
{
    mk_vec3 ra = mk_quat_rotate(m->dqa, r->ra), rb = mk_quat_rotate(m->dqb, r->rb);
    switch ((sim_joint_type)r->type) {
    case SIM_JOINT_HINGE: {
        hinge h = hinge_of(r, m);
        mk_vec3 l = mk_v3_add(mk_v3_scale(h.u[0], r->angular.x),
                              mk_v3_scale(h.u[1], r->angular.y));
        push(r, v, ra, rb, r->linear, mk_v3_mad(l, axis_impulse(r), h.a1));
        return;
    }
    case SIM_JOINT_SPHERICAL: {
        mk_vec3 n = NONE;
        float angle;
        if (!(r->flags & ROW_LIMIT) || !cone_row(r, m, &n, &angle))
            n = NONE;
        push(r, v, ra, rb, r->linear, mk_v3_scale(n, -r->upper));
        return;
    }
    case SIM_JOINT_WELD:
        push(r, v, ra, rb, r->linear, r->angular);
        return;
    case SIM_JOINT_PRISMATIC: {
        slide s = slide_of(r, m);
        axis_row along = slide_row(r, &s, 0), y = slide_row(r, &s, 1), z = slide_row(r, &s, 2);
        row_apply(r, v, &along, axis_impulse(r));
        row_apply(r, v, &y, r->linear.x);
        row_apply(r, v, &z, r->linear.y);
        push(r, v, NONE, NONE, NONE, r->angular);
        return;
    }
    case SIM_JOINT_DISTANCE:
        sim_joint_distance_warm3(r, v, m);
        return;
    default:
        return;
    }
}

void sim_joint_pass_range3(void *arg, size_t begin, size_t end)
{
    joint_pass(arg, begin, end, warm, solve);
}
