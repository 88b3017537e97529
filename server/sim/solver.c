/* The contact solver: sequential impulses on the step's manifolds with the "soft step" of
 * Box2D v3 (Erin Catto, "Solver2D", 2024): the step is cut into substeps; in each, gravity,
 * warm starting from the last impulses, one pass of soft contact constraints that push
 * overlapping bodies apart at a bounded speed, integration of positions, and one relax pass
 * without that push. The push is a spring-damper (soft constraint) rather than a position
 * projection, and the relax pass removes the velocity it added, so position correction never
 * adds energy to a stack; substepping makes the soft contacts stiff enough for tall stacks
 * without many iterations. Restitution is applied once at the end, from the approach speed
 * measured before the solve, as Box2D does.
 *
 * Contacts keep their anchors fixed to the bodies: the separation is updated from each
 * body's motion since the step began (dp, dq) instead of running the narrowphase again. */
#include <math.h>

#include "solver.h"
#include "world_internal.h"

#define SIM_CONTACT_HERTZ 30.0f  /* stiffness of a contact between two movable bodies */
#define SIM_CONTACT_DAMPING 10.0f /* damping ratio: heavily overdamped, no bounce from the push */

typedef sim_softness softness;

/* A spring of `hertz` with damping ratio `zeta`, integrated implicitly over h (Box2D v3's
 * b2MakeSoft). */
static softness make_soft(float hertz, float zeta, float h)
{
    float omega = 2.0f * 3.14159265f * hertz;
    float a1 = 2.0f * zeta + h * omega;
    float a2 = h * omega * a1;
    float a3 = 1.0f / (1.0f + a2);
    return (softness){omega / a1, a2 * a3, a3};
}

static mk_vec2 rotate(mk_vec2 q, mk_vec2 v)
{
    return mk_v2(q.x * v.x - q.y * v.y, q.y * v.x + q.x * v.y);
}

/* w x r */
static mk_vec2 cross_sv(float w, mk_vec2 r) { return mk_v2(-w * r.y, w * r.x); }

/* The velocities of a constraint's two bodies, held in locals while its points are solved
 * (the bodies may not be the same memory, and the compiler must know it to keep them in
 * registers). */
typedef struct pair_vel {
    mk_vec2 va, vb;
    float wa, wb;
} pair_vel;

static void push(const sim_constraint *c, pair_vel *pv, mk_vec2 ra, mk_vec2 rb, mk_vec2 p)
{
    pv->va = mk_v2_mad(pv->va, -c->ma, p);
    pv->wa -= c->ia * mk_v2_cross(ra, p);
    pv->vb = mk_v2_mad(pv->vb, c->mb, p);
    pv->wb += c->ib * mk_v2_cross(rb, p);
}

/* Relative velocity of b's anchor to a's: (vb + wb x rb) - (va + wa x ra). */
static mk_vec2 pair_relative(const pair_vel *pv, mk_vec2 ra, mk_vec2 rb)
{
    return mk_v2_sub(mk_v2_add(pv->vb, cross_sv(pv->wb, rb)),
                     mk_v2_add(pv->va, cross_sv(pv->wa, ra)));
}

static pair_vel pair_load(const sim_solver_body *bodies, const sim_constraint *c)
{
    const sim_solver_body *a = &bodies[c->a], *b = &bodies[c->b];
    return (pair_vel){a->v, b->v, a->w, b->w};
}

static void pair_store(sim_solver_body *bodies, const sim_constraint *c, const pair_vel *pv)
{
    bodies[c->a].v = pv->va;
    bodies[c->a].w = pv->wa;
    bodies[c->b].v = pv->vb;
    bodies[c->b].w = pv->wb;
}

static void warm_start(sim_solver_body *bodies, const sim_constraint *c)
{
    pair_vel pv = pair_load(bodies, c);
    mk_vec2 t = mk_v2(c->normal.y, -c->normal.x);
    for (int i = 0; i < c->count; i++) {
        const sim_constraint_point *p = &c->points[i];
        mk_vec2 P = mk_v2_add(mk_v2_scale(c->normal, p->jn), mk_v2_scale(t, p->jt));
        push(c, &pv, p->ra, p->rb, P);
    }
    pair_store(bodies, c, &pv);
}

static void solve_contact(sim_solver_body *bodies, sim_constraint *c, softness soft,
                          float inv_h, bool use_bias)
{
    const sim_solver_body *a = &bodies[c->a], *b = &bodies[c->b];
    pair_vel pv = pair_load(bodies, c);
    mk_vec2 n = c->normal, t = mk_v2(n.y, -n.x);
    mk_vec2 dp = mk_v2_sub(b->dp, a->dp), qa = a->dq, qb = b->dq;
    for (int i = 0; i < c->count; i++) {
        sim_constraint_point *p = &c->points[i];
        /* The separation now, from the motion of both anchors since the step began. */
        mk_vec2 d = mk_v2_add(dp, mk_v2_sub(rotate(qb, p->rb), rotate(qa, p->ra)));
        float s = mk_v2_dot(d, n) + p->base_sep;
        float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
        if (s > 0.0f) {
            bias = s * inv_h; /* apart: let them close the gap this substep, no more */
        } else if (use_bias) {
            bias = mk_maxf(soft.bias_rate * mk_minf(s + SIM_SLOP, 0.0f), -SIM_PUSH_SPEED);
            mass_scale = soft.mass_scale;
            impulse_scale = soft.impulse_scale;
        }
        float vn = mk_v2_dot(pair_relative(&pv, p->ra, p->rb), n);
        float j = -p->normal_mass * mass_scale * (vn + bias) - impulse_scale * p->jn;
        float jn = mk_maxf(p->jn + j, 0.0f);
        j = jn - p->jn;
        p->jn = jn;
        p->max_jn = mk_maxf(p->max_jn, j);
        push(c, &pv, p->ra, p->rb, mk_v2_scale(n, j));
    }
    /* Coulomb friction, bounded by each point's normal impulse. */
    for (int i = 0; i < c->count; i++) {
        sim_constraint_point *p = &c->points[i];
        float vt = mk_v2_dot(pair_relative(&pv, p->ra, p->rb), t);
        float limit = c->friction * p->jn;
        float jt = mk_clampf(p->jt - p->tangent_mass * vt, -limit, limit);
        float j = jt - p->jt;
        p->jt = jt;
        push(c, &pv, p->ra, p->rb, mk_v2_scale(t, j));
    }
    pair_store(bodies, c, &pv);
}

static void restitution(sim_solver_body *bodies, sim_constraint *c)
{
    if (c->restitution == 0.0f)
        return;
    pair_vel pv = pair_load(bodies, c);
    for (int i = 0; i < c->count; i++) {
        sim_constraint_point *p = &c->points[i];
        if (p->approach > -SIM_BOUNCE_SPEED || p->max_jn == 0.0f)
            continue;
        float vn = mk_v2_dot(pair_relative(&pv, p->ra, p->rb), c->normal);
        float j = -p->normal_mass * (vn + c->restitution * p->approach);
        float jn = mk_maxf(p->jn + j, 0.0f);
        j = jn - p->jn;
        p->jn = jn;
        push(c, &pv, p->ra, p->rb, mk_v2_scale(c->normal, j));
    }
    pair_store(bodies, c, &pv);
}

/* The rotation q turned further by `angle` (small), renormalised: Box2D's
 * b2IntegrateRotation. */
static mk_vec2 integrate_rotation(mk_vec2 q, float angle)
{
    mk_vec2 r = mk_v2(q.x - angle * q.y, q.y + angle * q.x);
    float len = mk_v2_len(r);
    return len > 0.0f ? mk_v2_scale(r, 1.0f / len) : mk_v2(1.0f, 0.0f);
}

void sim_prepare_constraint(const sim_solver_body *bodies, sim_constraint *c)
{
    pair_vel pv = pair_load(bodies, c);
    mk_vec2 n = c->normal, t = mk_v2(n.y, -n.x);
    for (int i = 0; i < c->count; i++) {
        sim_constraint_point *p = &c->points[i];
        float rna = mk_v2_cross(p->ra, n), rnb = mk_v2_cross(p->rb, n);
        float kn = c->ma + c->mb + c->ia * rna * rna + c->ib * rnb * rnb;
        float rta = mk_v2_cross(p->ra, t), rtb = mk_v2_cross(p->rb, t);
        float kt = c->ma + c->mb + c->ia * rta * rta + c->ib * rtb * rtb;
        p->normal_mass = kn > 0.0f ? 1.0f / kn : 0.0f;
        p->tangent_mass = kt > 0.0f ? 1.0f / kt : 0.0f;
        p->max_jn = 0.0f;
        p->approach = mk_v2_dot(pair_relative(&pv, p->ra, p->rb), n);
    }
}

softness_set sim_softness_of(float h)
{
    /* A contact against an immovable body is made twice as stiff: only one side gives. */
    float hertz = mk_minf(SIM_CONTACT_HERTZ, 0.25f / h);
    return (softness_set){make_soft(hertz, SIM_CONTACT_DAMPING, h),
                          make_soft(2.0f * hertz, SIM_CONTACT_DAMPING, h)};
}

void sim_solve(sim_world *w, float dt)
{
    sim_solver_body *bodies = w->solver_bodies.data;
    sim_constraint *cs = w->constraints.data;
    size_t nb = w->solver_bodies.len, nc = w->constraints.len;
    float h = dt / SIM_SUBSTEPS, inv_h = 1.0f / h;
    softness_set set = sim_softness_of(h);
    softness soft = set.movable, soft_fixed = set.fixed;
    mk_vec2 g = w->cfg.gravity;

    /* Four at a time where the constraints allow (solver_wide.c); the rest one by one. */
    bool wide = sim_wide_build(w);
    const uint32_t *one = wide ? w->wide_overflow.data : NULL;
    size_t n_one = wide ? w->wide_overflow.len : nc;
#define EACH_SINGLE(body)                                                                      \
    for (size_t k = 0; k < n_one; k++) {                                                       \
        sim_constraint *c = &cs[one ? one[k] : k];                                             \
        body;                                                                                  \
    }
    for (int sub = 0; sub < SIM_SUBSTEPS; sub++) {
        for (size_t i = 1; i < nb; i++)
            bodies[i].v = mk_v2_mad(bodies[i].v, h * bodies[i].gravity_scale, g);
        if (wide)
            sim_wide_warm_start(w);
        EACH_SINGLE(warm_start(bodies, c));
        if (wide)
            sim_wide_solve(w, set, inv_h, true);
        EACH_SINGLE(solve_contact(bodies, c, c->fixed ? soft_fixed : soft, inv_h, true));
        for (size_t i = 1; i < nb; i++) {
            sim_solver_body *b = &bodies[i];
            b->dp = mk_v2_mad(b->dp, h, b->v);
            b->dq = integrate_rotation(b->dq, h * b->w);
        }
        if (wide)
            sim_wide_solve(w, set, inv_h, false);
        EACH_SINGLE(solve_contact(bodies, c, soft, inv_h, false));
    }
#undef EACH_SINGLE
    if (wide)
        sim_wide_unpack(w);
    for (size_t i = 0; i < nc && w->constraints_bounce; i++)
        restitution(bodies, &cs[i]);
    /* Without restitution the colored constraints' impulses went from their groups into the
     * cache: the ones solved one by one follow. */
    if (wide && !w->constraints_bounce)
        sim_store_impulses2(w, one, n_one);
    else
        sim_store_impulses2(w, NULL, nc);
}
