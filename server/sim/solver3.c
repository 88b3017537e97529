/* The 3D contact solver: the soft step of solver.c (Box2D v3's, which its header comment
 * explains) with 3D bodies. Each contact point has a normal row and two friction rows along
 * tangents of the normal; friction is bounded by a circle of radius friction * normal
 * impulse (the Coulomb cone), not by a box, so a sliding body slows the same in every
 * direction. Anchors stay fixed to the bodies during the step and the separation follows
 * each body's motion since the step began (dp, dq). Inverse inertia tensors are taken to
 * world axes once per step; within a step of 1/60 s the rotation is too small to matter. */
#include <math.h>

#include "world_internal.h"

/* The velocities of a constraint's two bodies, in locals while its points are solved. */
typedef struct pair_vel3 {
    mk_vec3 va, wa, vb, wb;
} pair_vel3;

typedef struct pair_mass3 {
    float ma, mb;
    mk_mat3 ia, ib;
} pair_mass3;

static pair_vel3 load(const sim_solver_body3 *bodies, const sim_constraint3 *c)
{
    return (pair_vel3){bodies[c->a].v, bodies[c->a].w, bodies[c->b].v, bodies[c->b].w};
}

static void store(sim_solver_body3 *bodies, const sim_constraint3 *c, const pair_vel3 *pv)
{
    bodies[c->a].v = pv->va;
    bodies[c->a].w = pv->wa;
    bodies[c->b].v = pv->vb;
    bodies[c->b].w = pv->wb;
}

static pair_mass3 masses(const sim_solver_info3 *info, const sim_constraint3 *c)
{
    return (pair_mass3){info[c->a].inv_mass, info[c->b].inv_mass, info[c->a].inv_inertia,
                        info[c->b].inv_inertia};
}

/* Applies impulse p at anchors ra (on a, negated) and rb (on b). */
static void push(const pair_mass3 *m, pair_vel3 *pv, mk_vec3 ra, mk_vec3 rb, mk_vec3 p)
{
    pv->va = mk_v3_mad(pv->va, -m->ma, p);
    pv->wa = mk_v3_sub(pv->wa, mk_m3_mul_v(m->ia, mk_v3_cross(ra, p)));
    pv->vb = mk_v3_mad(pv->vb, m->mb, p);
    pv->wb = mk_v3_add(pv->wb, mk_m3_mul_v(m->ib, mk_v3_cross(rb, p)));
}

/* (vb + wb x rb) - (va + wa x ra) */
static mk_vec3 relative(const pair_vel3 *pv, mk_vec3 ra, mk_vec3 rb)
{
    return mk_v3_sub(mk_v3_add(pv->vb, mk_v3_cross(pv->wb, rb)),
                     mk_v3_add(pv->va, mk_v3_cross(pv->wa, ra)));
}

/* 1 / (ma + mb + (ra x d) . Ia (ra x d) + (rb x d) . Ib (rb x d)), the mass along d. */
static float effective_mass(const pair_mass3 *m, mk_vec3 ra, mk_vec3 rb, mk_vec3 d)
{
    mk_vec3 rda = mk_v3_cross(ra, d), rdb = mk_v3_cross(rb, d);
    float k = m->ma + m->mb + mk_v3_dot(rda, mk_m3_mul_v(m->ia, rda)) +
              mk_v3_dot(rdb, mk_m3_mul_v(m->ib, rdb));
    return k > 0.0f ? 1.0f / k : 0.0f;
}

static void prepare(const sim_solver_body3 *bodies, const sim_solver_info3 *info,
                    sim_constraint3 *c)
{
    pair_mass3 m = masses(info, c);
    pair_vel3 pv = load(bodies, c);
    for (int i = 0; i < c->count; i++) {
        sim_constraint_point3 *p = &c->points[i];
        p->normal_mass = effective_mass(&m, p->ra, p->rb, c->normal);
        p->tangent_mass[0] = effective_mass(&m, p->ra, p->rb, c->tangent[0]);
        p->tangent_mass[1] = effective_mass(&m, p->ra, p->rb, c->tangent[1]);
        p->max_jn = 0.0f;
        p->approach = mk_v3_dot(relative(&pv, p->ra, p->rb), c->normal);
    }
}

static void warm_start(sim_solver_body3 *bodies, const sim_solver_info3 *info,
                       const sim_constraint3 *c)
{
    pair_mass3 m = masses(info, c);
    pair_vel3 pv = load(bodies, c);
    for (int i = 0; i < c->count; i++) {
        const sim_constraint_point3 *p = &c->points[i];
        mk_vec3 P = mk_v3_scale(c->normal, p->jn);
        P = mk_v3_mad(P, p->jt[0], c->tangent[0]);
        P = mk_v3_mad(P, p->jt[1], c->tangent[1]);
        push(&m, &pv, p->ra, p->rb, P);
    }
    store(bodies, c, &pv);
}

static void solve_contact(sim_solver_body3 *bodies, const sim_solver_info3 *info,
                          sim_constraint3 *c, sim_softness soft, float inv_h, bool use_bias)
{
    pair_mass3 m = masses(info, c);
    const sim_solver_body3 *a = &bodies[c->a], *b = &bodies[c->b];
    mk_vec3 dp = mk_v3_sub(b->dp, a->dp);
    mk_quat qa = a->dq, qb = b->dq;
    pair_vel3 pv = load(bodies, c);
    mk_vec3 n = c->normal;
    for (int i = 0; i < c->count; i++) {
        sim_constraint_point3 *p = &c->points[i];
        mk_vec3 d = mk_v3_add(dp, mk_v3_sub(mk_quat_rotate(qb, p->rb), mk_quat_rotate(qa, p->ra)));
        float s = mk_v3_dot(d, n) + p->base_sep;
        float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
        if (s > 0.0f) {
            bias = s * inv_h; /* apart: let them close the gap this substep, no more */
        } else if (use_bias) {
            bias = mk_maxf(soft.bias_rate * mk_minf(s + SIM_SLOP, 0.0f), -SIM_PUSH_SPEED);
            mass_scale = soft.mass_scale;
            impulse_scale = soft.impulse_scale;
        }
        float vn = mk_v3_dot(relative(&pv, p->ra, p->rb), n);
        float j = -p->normal_mass * mass_scale * (vn + bias) - impulse_scale * p->jn;
        float jn = mk_maxf(p->jn + j, 0.0f);
        j = jn - p->jn;
        p->jn = jn;
        p->max_jn = mk_maxf(p->max_jn, j);
        push(&m, &pv, p->ra, p->rb, mk_v3_scale(n, j));
    }
    for (int i = 0; i < c->count; i++) {
        sim_constraint_point3 *p = &c->points[i];
        mk_vec3 vr = relative(&pv, p->ra, p->rb);
        float t0 = p->jt[0] - p->tangent_mass[0] * mk_v3_dot(vr, c->tangent[0]);
        float t1 = p->jt[1] - p->tangent_mass[1] * mk_v3_dot(vr, c->tangent[1]);
        float limit = c->friction * p->jn, len2 = t0 * t0 + t1 * t1;
        if (len2 > limit * limit) {
            float k = len2 > 0.0f ? limit / sqrtf(len2) : 0.0f;
            t0 *= k;
            t1 *= k;
        }
        mk_vec3 P = mk_v3_scale(c->tangent[0], t0 - p->jt[0]);
        P = mk_v3_mad(P, t1 - p->jt[1], c->tangent[1]);
        p->jt[0] = t0;
        p->jt[1] = t1;
        push(&m, &pv, p->ra, p->rb, P);
    }
    store(bodies, c, &pv);
}

static void restitution(sim_solver_body3 *bodies, const sim_solver_info3 *info,
                        sim_constraint3 *c)
{
    if (c->restitution == 0.0f)
        return;
    pair_mass3 m = masses(info, c);
    pair_vel3 pv = load(bodies, c);
    for (int i = 0; i < c->count; i++) {
        sim_constraint_point3 *p = &c->points[i];
        if (p->approach > -SIM_BOUNCE_SPEED || p->max_jn == 0.0f)
            continue;
        float vn = mk_v3_dot(relative(&pv, p->ra, p->rb), c->normal);
        float j = -p->normal_mass * (vn + c->restitution * p->approach);
        float jn = mk_maxf(p->jn + j, 0.0f);
        j = jn - p->jn;
        p->jn = jn;
        push(&m, &pv, p->ra, p->rb, mk_v3_scale(c->normal, j));
    }
    store(bodies, c, &pv);
}

/* q turned further by the rotation vector h w (small), renormalised: the first-order
 * quaternion integration q + h/2 (0, w) q that Jolt and Bullet use. */
static mk_quat integrate_rotation(mk_quat q, mk_vec3 hw)
{
    mk_quat dq = {0.5f * hw.x, 0.5f * hw.y, 0.5f * hw.z, 0.0f};
    mk_quat r = mk_quat_mul(dq, q);
    r = (mk_quat){q.x + r.x, q.y + r.y, q.z + r.z, q.w + r.w};
    mk_quat out;
    return mk_quat_normalize_checked(r, &out) ? out : q;
}

void sim_solve3(sim_world *w, float dt)
{
    sim_solver_body3 *bodies = w->solver_bodies3.data;
    const sim_solver_info3 *info = w->solver_info3.data;
    sim_constraint3 *cs = w->constraints3.data;
    size_t nb = w->solver_bodies3.len, nc = w->constraints3.len;
    float h = dt / SIM_SUBSTEPS, inv_h = 1.0f / h;
    softness_set soft = sim_softness_of(h);
    mk_vec3 g = w->cfg.gravity3;

    for (size_t i = 0; i < nc; i++)
        prepare(bodies, info, &cs[i]);
    for (int sub = 0; sub < SIM_SUBSTEPS; sub++) {
        for (size_t i = 1; i < nb; i++)
            bodies[i].v = mk_v3_mad(bodies[i].v, h * bodies[i].gravity_scale, g);
        for (size_t i = 0; i < nc; i++)
            warm_start(bodies, info, &cs[i]);
        for (size_t i = 0; i < nc; i++)
            solve_contact(bodies, info, &cs[i], cs[i].fixed ? soft.fixed : soft.movable, inv_h,
                          true);
        for (size_t i = 1; i < nb; i++) {
            sim_solver_body3 *b = &bodies[i];
            b->dp = mk_v3_mad(b->dp, h, b->v);
            b->dq = integrate_rotation(b->dq, mk_v3_scale(b->w, h));
        }
        for (size_t i = 0; i < nc; i++)
            solve_contact(bodies, info, &cs[i], soft.movable, inv_h, false);
    }
    for (size_t i = 0; i < nc; i++)
        restitution(bodies, info, &cs[i]);
}
