/* The 3D contact solver: the soft step of solver.c (Box2D v3's, which its header comment
 * explains) with 3D bodies. Each contact point has a normal row and two friction rows along
 * tangents of the normal; friction is bounded by a circle of radius friction * normal
 * impulse (the Coulomb cone), not by a box, so a sliding body slows the same in every
 * direction. Anchors stay fixed to the bodies during the step and the separation follows
 * each body's motion since the step began (dp, dq). Inverse inertia tensors are taken to
 * world axes once per step; within a step of 1/60 s the rotation is too small to matter. */
#include <math.h>

#include "solver.h"
#include "world_internal.h"

/* The velocities of a constraint's two bodies, in locals while its points are solved. */
typedef struct pair_vel3 {
    mk_vec3 va, wa, vb, wb;
} pair_vel3;

static inline pair_vel3 load(const sim_solver_body3 *bodies, const sim_constraint3 *c)
{
    return (pair_vel3){bodies[c->a].v, bodies[c->a].w, bodies[c->b].v, bodies[c->b].w};
}

static inline void store(sim_solver_body3 *bodies, const sim_constraint3 *c, const pair_vel3 *pv)
{
    bodies[c->a].v = pv->va;
    bodies[c->a].w = pv->wa;
    bodies[c->b].v = pv->vb;
    bodies[c->b].w = pv->wb;
}

/* Applies impulse j along row r (direction d) to both bodies. */
static inline void apply(const sim_constraint3 *c, pair_vel3 *pv, const sim_row3 *r, mk_vec3 d,
                         float j)
{
    pv->va = mk_v3_mad(pv->va, -c->ma * j, d);
    pv->wa = mk_v3_mad(pv->wa, -j, r->ka);
    pv->vb = mk_v3_mad(pv->vb, c->mb * j, d);
    pv->wb = mk_v3_mad(pv->wb, j, r->kb);
}

/* The relative velocity of b's anchor to a's along row r (direction d). */
static inline float speed_along(const pair_vel3 *pv, const sim_row3 *r, mk_vec3 d)
{
    return mk_v3_dot(mk_v3_sub(pv->vb, pv->va), d) + mk_v3_dot(pv->wb, r->jb) -
           mk_v3_dot(pv->wa, r->ja);
}

static sim_row3 make_row(const sim_solver_info3 *ia, const sim_solver_info3 *ib, mk_vec3 ra,
                         mk_vec3 rb, mk_vec3 d)
{
    sim_row3 r;
    r.ja = mk_v3_cross(ra, d);
    r.jb = mk_v3_cross(rb, d);
    r.ka = mk_m3_mul_v(ia->inv_inertia, r.ja);
    r.kb = mk_m3_mul_v(ib->inv_inertia, r.jb);
    float k = ia->inv_mass + ib->inv_mass + mk_v3_dot(r.ja, r.ka) + mk_v3_dot(r.jb, r.kb);
    r.mass = k > 0.0f ? 1.0f / k : 0.0f;
    return r;
}

static void prepare(const sim_solver_body3 *bodies, const sim_solver_info3 *info,
                    sim_constraint3 *c, sim_rows3 *rw)
{
    const sim_solver_info3 *ia = &info[c->a], *ib = &info[c->b];
    c->ma = ia->inv_mass;
    c->mb = ib->inv_mass;
    pair_vel3 pv = load(bodies, c);
    for (int i = 0; i < c->count; i++) {
        sim_constraint_point3 *p = &c->points[i];
        sim_row3 *rows = rw->r[i];
        rows[0] = make_row(ia, ib, p->ra, p->rb, c->normal);
        rows[1] = make_row(ia, ib, p->ra, p->rb, c->tangent[0]);
        rows[2] = make_row(ia, ib, p->ra, p->rb, c->tangent[1]);
        p->max_jn = 0.0f;
        p->approach = speed_along(&pv, &rows[0], c->normal);
    }
}

static void warm_start(sim_solver_body3 *bodies, const sim_constraint3 *c,
                       const sim_rows3 *rw)
{
    pair_vel3 pv = load(bodies, c);
    for (int i = 0; i < c->count; i++) {
        const sim_constraint_point3 *p = &c->points[i];
        const sim_row3 *rows = rw->r[i];
        apply(c, &pv, &rows[0], c->normal, p->jn);
        apply(c, &pv, &rows[1], c->tangent[0], p->jt[0]);
        apply(c, &pv, &rows[2], c->tangent[1], p->jt[1]);
    }
    store(bodies, c, &pv);
}

static void solve_contact(sim_solver_body3 *bodies, sim_constraint3 *c, const sim_rows3 *rw,
                          sim_softness soft, float inv_h, bool use_bias)
{
    const sim_solver_body3 *a = &bodies[c->a], *b = &bodies[c->b];
    mk_vec3 dp = mk_v3_sub(b->dp, a->dp);
    mk_quat qa = a->dq, qb = b->dq;
    pair_vel3 pv = load(bodies, c);
    mk_vec3 n = c->normal;
    for (int i = 0; i < c->count; i++) {
        sim_constraint_point3 *p = &c->points[i];
        const sim_row3 *rows = rw->r[i];
        /* The separation now, from the motion of both anchors since the step began. */
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
        float vn = speed_along(&pv, &rows[0], n);
        float j = -rows[0].mass * mass_scale * (vn + bias) - impulse_scale * p->jn;
        float jn = mk_maxf(p->jn + j, 0.0f);
        j = jn - p->jn;
        p->jn = jn;
        p->max_jn = mk_maxf(p->max_jn, j);
        apply(c, &pv, &rows[0], n, j);
    }
    if (c->friction > 0.0f) {
        for (int i = 0; i < c->count; i++) {
            sim_constraint_point3 *p = &c->points[i];
            const sim_row3 *rows = rw->r[i];
            float t0 = p->jt[0] - rows[1].mass * speed_along(&pv, &rows[1], c->tangent[0]);
            float t1 = p->jt[1] - rows[2].mass * speed_along(&pv, &rows[2], c->tangent[1]);
            float limit = c->friction * p->jn, len2 = t0 * t0 + t1 * t1;
            if (len2 > limit * limit) {
                float k = len2 > 0.0f ? limit / sqrtf(len2) : 0.0f;
                t0 *= k;
                t1 *= k;
            }
            apply(c, &pv, &rows[1], c->tangent[0], t0 - p->jt[0]);
            apply(c, &pv, &rows[2], c->tangent[1], t1 - p->jt[1]);
            p->jt[0] = t0;
            p->jt[1] = t1;
        }
    }
    store(bodies, c, &pv);
}

static void restitution(sim_solver_body3 *bodies, sim_constraint3 *c, const sim_rows3 *rw)
{
    if (c->restitution == 0.0f)
        return;
    pair_vel3 pv = load(bodies, c);
    for (int i = 0; i < c->count; i++) {
        sim_constraint_point3 *p = &c->points[i];
        const sim_row3 *rows = rw->r[i];
        if (p->approach > -SIM_BOUNCE_SPEED || p->max_jn == 0.0f)
            continue;
        float vn = speed_along(&pv, &rows[0], c->normal);
        float j = -rows[0].mass * (vn + c->restitution * p->approach);
        float jn = mk_maxf(p->jn + j, 0.0f);
        j = jn - p->jn;
        p->jn = jn;
        apply(c, &pv, &rows[0], c->normal, j);
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

    /* Four at a time where the constraints allow (solver3_wide.c); the rest one by one, with
     * their rows beside them (none at all if memory runs out for those). */
    bool wide = sim_wide3_build(w, soft);
    const uint32_t *one = wide ? w->wide_overflow.data : NULL;
    size_t n_one = wide ? w->wide_overflow.len : nc;
    if (!sim_vec_reserve(&w->rows3, n_one))
        n_one = 0;
    sim_rows3 *rows = w->rows3.data;
#define EACH_SINGLE(body)                                                                      \
    for (size_t k = 0; k < n_one; k++) {                                                       \
        sim_constraint3 *c = &cs[one ? one[k] : k];                                            \
        sim_rows3 *rw = &rows[k];                                                              \
        body;                                                                                  \
    }
    EACH_SINGLE(prepare(bodies, info, c, rw));
    for (int sub = 0; sub < SIM_SUBSTEPS; sub++) {
        for (size_t i = 1; i < nb; i++)
            bodies[i].v = mk_v3_mad(bodies[i].v, h * bodies[i].gravity_scale, g);
        if (wide)
            sim_wide3_warm_start(w);
        EACH_SINGLE(warm_start(bodies, c, rw));
        if (wide)
            sim_wide3_solve(w, inv_h, true);
        EACH_SINGLE(solve_contact(bodies, c, rw, c->fixed ? soft.fixed : soft.movable, inv_h,
                                  true));
        for (size_t i = 1; i < nb; i++) {
            sim_solver_body3 *b = &bodies[i];
            b->dp = mk_v3_mad(b->dp, h, b->v);
            b->dq = integrate_rotation(b->dq, mk_v3_scale(b->w, h));
        }
        if (wide)
            sim_wide3_solve(w, inv_h, false);
        EACH_SINGLE(solve_contact(bodies, c, rw, soft.movable, inv_h, false));
    }
    if (wide) {
        sim_wide3_restitution(w);
        sim_wide3_unpack(w);
    }
    EACH_SINGLE(restitution(bodies, c, rw));
#undef EACH_SINGLE
}
