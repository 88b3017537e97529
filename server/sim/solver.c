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
 * body's motion since the step began (dp, dq) instead of running the narrowphase again.
 *
 * In 3D each contact point has a normal row and two friction rows along tangents of the
 * normal; friction is bounded by a circle of radius friction * normal impulse (the Coulomb
 * cone), not by a box, so a sliding body slows the same in every direction. Inverse inertia
 * tensors are taken to world axes once per step; within a step of 1/60 s the rotation is too
 * small to matter.
 *
 * One source for both dimensions (dim.h): sim_solve2 and sim_solve3. The friction, the warm
 * start and the effective masses differ in their arithmetic and are written per dimension
 * below; the normal impulse, restitution and the substep loop are one. */
#include <math.h>

#include "dim.h"
#include "solver.h"
#include "world_internal.h"

#define SIM_CONTACT_HERTZ 30.0f  /* stiffness of a contact between two movable bodies */
#define SIM_CONTACT_DAMPING 10.0f /* damping ratio: heavily overdamped, no bounce from the push */

/* The softness of the soft step for a substep of h seconds. */
static softness_set softness_of(float h)
{
    /* A contact against an immovable body is made twice as stiff: only one side gives. */
    float hertz = mk_minf(SIM_CONTACT_HERTZ, 0.25f / h);
    return (softness_set){sim_make_soft(hertz, SIM_CONTACT_DAMPING, h),
                          sim_make_soft(2.0f * hertz, SIM_CONTACT_DAMPING, h)};
}

/* The velocities of a constraint's two bodies, held in locals while its points are solved
 * (the bodies may not be the same memory, and the compiler must know it to keep them in
 * registers). */
typedef struct pair_vel {
    dvec va, vb;
    dang wa, wb;
} pair_vel;

static inline pair_vel pair_load(const dsolver_body *bodies, const dconstraint *c)
{
    const dsolver_body *a = &bodies[c->a], *b = &bodies[c->b];
    return (pair_vel){a->v, b->v, a->w, b->w};
}

static inline void pair_store(dsolver_body *bodies, const dconstraint *c, const pair_vel *pv)
{
    bodies[c->a].v = pv->va;
    bodies[c->a].w = pv->wa;
    bodies[c->b].v = pv->vb;
    bodies[c->b].w = pv->wb;
}

#if MK_DIM == 2
/* A 2D point needs no rows beside it: it holds its effective masses, and its angular terms
 * are cross products of two numbers, made on the way. The point is its own row. */
typedef sim_constraint_point drow;
typedef struct no_rows drows; /* never made: 2D constraints have no rows */

static inline const drow *row_of(const dconstraint *c, const drows *rw, int i)
{
    (void)rw;
    return &c->points[i];
}
static inline drows *rows_at(drows *rows, size_t k)
{
    (void)rows;
    (void)k;
    return NULL;
}

/* w x r */
static mk_vec2 cross_sv(float w, mk_vec2 r) { return mk_v2(-w * r.y, w * r.x); }

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

/* The normal speed of b's anchor from a's, the normal's effective mass, and an impulse j
 * along the normal. */
static float normal_speed(const pair_vel *pv, const dconstraint *c, const drow *r)
{
    return mk_v2_dot(pair_relative(pv, r->ra, r->rb), c->normal);
}
static float normal_mass(const drow *r) { return r->normal_mass; }
static void apply_normal(const dconstraint *c, pair_vel *pv, const drow *r, float j)
{
    push(c, pv, r->ra, r->rb, mk_v2_scale(c->normal, j));
}

/* The last step's impulses of one point, normal and tangent as one vector. */
static void warm_point(const dconstraint *c, pair_vel *pv, const dconstraint_point *p,
                       const drow *r)
{
    (void)r;
    mk_vec2 t = mk_v2(c->normal.y, -c->normal.x);
    mk_vec2 P = mk_v2_add(mk_v2_scale(c->normal, p->jn), mk_v2_scale(t, p->jt));
    push(c, pv, p->ra, p->rb, P);
}

/* Coulomb friction, bounded by each point's normal impulse. */
static void solve_friction(dconstraint *c, pair_vel *pv, const drows *rw)
{
    (void)rw;
    mk_vec2 n = c->normal, t = mk_v2(n.y, -n.x);
    for (int i = 0; i < c->count; i++) {
        sim_constraint_point *p = &c->points[i];
        float vt = mk_v2_dot(pair_relative(pv, p->ra, p->rb), t);
        float limit = c->friction * p->jn;
        float jt = mk_clampf(p->jt - p->tangent_mass * vt, -limit, limit);
        float j = jt - p->jt;
        p->jt = jt;
        push(c, pv, p->ra, p->rb, mk_v2_scale(t, j));
    }
}

/* The rotation q turned further by `angle` = h w (small), renormalised: Box2D's
 * b2IntegrateRotation. */
static mk_vec2 integrate_rotation(mk_vec2 q, float w, float h)
{
    float angle = h * w;
    mk_vec2 r = mk_v2(q.x - angle * q.y, q.y + angle * q.x);
    float len = mk_v2_len(r);
    return len > 0.0f ? mk_v2_scale(r, 1.0f / len) : mk_v2(1.0f, 0.0f);
}

/* A 2D constraint's effective masses and approach speeds, from its own masses and inertias
 * and the solver bodies' velocities at the start of the step. */
static inline void prepare_constraint(const sim_solver_body *bodies, sim_constraint *c)
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
        p->approach = normal_speed(&pv, c, p);
    }
}

/* The 2D constraints are prepared in passes before the solve, on the workers: each is its
 * own, and the solver bodies' velocities are those the narrowphase saw (nothing moves them
 * before gravity). With restitution every constraint is prepared before the packing, which
 * copies their masses, and restitution reads their approach speeds; without, the packing
 * makes the colored ones' masses four at a time (solver_wide.c) and only the constraints
 * left for one by one (only[0..n), or all n when only is NULL) are prepared here. */
#define SIM_PREPARE_GRAIN 128
typedef struct prepare_job {
    const sim_solver_body *bodies;
    sim_constraint *cs;
    const uint32_t *only;
} prepare_job;

static void prepare_range(void *arg, size_t begin, size_t end)
{
    const prepare_job *j = arg;
    for (size_t k = begin; k < end; k++)
        prepare_constraint(j->bodies, &j->cs[j->only ? j->only[k] : k]);
}

static void prepare_some(sim_world *w, const uint32_t *only, size_t n)
{
    prepare_job job = {w->d2.solver_bodies.at, w->d2.constraints.at, only};
    sim_pool_for(w->pool, n, SIM_PREPARE_GRAIN, prepare_range, &job);
}

/* No rows to make in 2D. */
static inline drows *single_rows(sim_world *w, size_t *n_one)
{
    (void)w;
    (void)n_one;
    return NULL;
}

#else /* MK_DIM == 3 */
/* A 3D point's rows (normal, two tangents) sit beside its constraint in a sim_rows3. */
typedef sim_row3 drow;
typedef sim_rows3 drows;

static inline const drow *row_of(const dconstraint *c, const drows *rw, int i)
{
    (void)c;
    return rw->r[i];
}
static inline drows *rows_at(drows *rows, size_t k) { return &rows[k]; }

/* Applies impulse j along row r (direction d) to both bodies. */
static inline void apply(const sim_constraint3 *c, pair_vel *pv, const sim_row3 *r, mk_vec3 d,
                         float j)
{
    pv->va = mk_v3_mad(pv->va, -c->ma * j, d);
    pv->wa = mk_v3_mad(pv->wa, -j, r->ka);
    pv->vb = mk_v3_mad(pv->vb, c->mb * j, d);
    pv->wb = mk_v3_mad(pv->wb, j, r->kb);
}

/* The relative velocity of b's anchor to a's along row r (direction d). */
static inline float speed_along(const pair_vel *pv, const sim_row3 *r, mk_vec3 d)
{
    return mk_v3_dot(mk_v3_sub(pv->vb, pv->va), d) + mk_v3_dot(pv->wb, r->jb) -
           mk_v3_dot(pv->wa, r->ja);
}

static float normal_speed(const pair_vel *pv, const dconstraint *c, const drow *r)
{
    return speed_along(pv, &r[0], c->normal);
}
static float normal_mass(const drow *r) { return r[0].mass; }
static void apply_normal(const dconstraint *c, pair_vel *pv, const drow *r, float j)
{
    apply(c, pv, &r[0], c->normal, j);
}

/* The last step's impulses of one point, row by row. */
static void warm_point(const dconstraint *c, pair_vel *pv, const dconstraint_point *p,
                       const drow *r)
{
    apply(c, pv, &r[0], c->normal, p->jn);
    apply(c, pv, &r[1], c->tangent[0], p->jt[0]);
    apply(c, pv, &r[2], c->tangent[1], p->jt[1]);
}

/* Friction on both tangents at once, bounded by the Coulomb circle. */
static void solve_friction(dconstraint *c, pair_vel *pv, const drows *rw)
{
    if (!(c->friction > 0.0f))
        return; /* no friction (nor a NaN one): the tangent impulses stay as they are */
    for (int i = 0; i < c->count; i++) {
        sim_constraint_point3 *p = &c->points[i];
        const sim_row3 *rows = rw->r[i];
        float t0 = p->jt[0] - rows[1].mass * speed_along(pv, &rows[1], c->tangent[0]);
        float t1 = p->jt[1] - rows[2].mass * speed_along(pv, &rows[2], c->tangent[1]);
        float limit = c->friction * p->jn, len2 = t0 * t0 + t1 * t1;
        if (len2 > limit * limit) {
            float k = len2 > 0.0f ? limit / sqrtf(len2) : 0.0f;
            t0 *= k;
            t1 *= k;
        }
        apply(c, pv, &rows[1], c->tangent[0], t0 - p->jt[0]);
        apply(c, pv, &rows[2], c->tangent[1], t1 - p->jt[1]);
        p->jt[0] = t0;
        p->jt[1] = t1;
    }
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

/* 3D constraints solved one by one are prepared here, their rows from the solver bodies'
 * world inverse inertias. */
static void prepare(const sim_solver_body3 *bodies, const sim_solver_info3 *info,
                    sim_constraint3 *c, sim_rows3 *rw)
{
    const sim_solver_info3 *ia = &info[c->a], *ib = &info[c->b];
    c->ma = ia->inv_mass;
    c->mb = ib->inv_mass;
    pair_vel pv = pair_load(bodies, c);
    for (int i = 0; i < c->count; i++) {
        sim_constraint_point3 *p = &c->points[i];
        sim_row3 *rows = rw->r[i];
        rows[0] = make_row(ia, ib, p->ra, p->rb, c->normal);
        rows[1] = make_row(ia, ib, p->ra, p->rb, c->tangent[0]);
        rows[2] = make_row(ia, ib, p->ra, p->rb, c->tangent[1]);
        p->max_jn = 0.0f;
        p->approach = normal_speed(&pv, c, rows);
    }
}

/* The rows of the n_one constraints solved one by one (none at all if memory runs out for
 * them: n_one becomes 0). */
static inline drows *single_rows(sim_world *w, size_t *n_one)
{
    if (!mk_vec_reserve(&w->d3.rows.v, *n_one))
        *n_one = 0;
    return w->d3.rows.at;
}
#endif

static void warm_start(dsolver_body *bodies, const dconstraint *c, const drows *rw)
{
    pair_vel pv = pair_load(bodies, c);
    for (int i = 0; i < c->count; i++)
        warm_point(c, &pv, &c->points[i], row_of(c, rw, i));
    pair_store(bodies, c, &pv);
}

static void solve_contact(dsolver_body *bodies, dconstraint *c, const drows *rw,
                          sim_softness soft, float inv_h, bool use_bias)
{
    const dsolver_body *a = &bodies[c->a], *b = &bodies[c->b];
    pair_vel pv = pair_load(bodies, c);
    dvec n = c->normal;
    dvec dp = dv_sub(b->dp, a->dp);
    drot qa = a->dq, qb = b->dq;
    for (int i = 0; i < c->count; i++) {
        dconstraint_point *p = &c->points[i];
        const drow *r = row_of(c, rw, i);
        /* The separation now, from the motion of both anchors since the step began. */
        dvec d = dv_add(dp, dv_sub(dim_rotate(qb, p->rb), dim_rotate(qa, p->ra)));
        float s = dv_dot(d, n) + p->base_sep;
        float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
        if (s > 0.0f) {
            bias = s * inv_h; /* apart: let them close the gap this substep, no more */
        } else if (use_bias) {
            bias = mk_maxf(soft.bias_rate * mk_minf(s + SIM_SLOP, 0.0f), -SIM_PUSH_SPEED);
            mass_scale = soft.mass_scale;
            impulse_scale = soft.impulse_scale;
        }
        float vn = normal_speed(&pv, c, r);
        float j = -normal_mass(r) * mass_scale * (vn + bias) - impulse_scale * p->jn;
        float jn = mk_maxf(p->jn + j, 0.0f);
        j = jn - p->jn;
        p->jn = jn;
        p->max_jn = mk_maxf(p->max_jn, j);
        apply_normal(c, &pv, r, j);
    }
    solve_friction(c, &pv, rw);
    pair_store(bodies, c, &pv);
}

static void restitution(dsolver_body *bodies, dconstraint *c, const drows *rw)
{
    if (c->restitution == 0.0f)
        return;
    pair_vel pv = pair_load(bodies, c);
    for (int i = 0; i < c->count; i++) {
        dconstraint_point *p = &c->points[i];
        const drow *r = row_of(c, rw, i);
        if (p->approach > -SIM_BOUNCE_SPEED || p->max_jn == 0.0f)
            continue;
        float vn = normal_speed(&pv, c, r);
        float j = -normal_mass(r) * (vn + c->restitution * p->approach);
        float jn = mk_maxf(p->jn + j, 0.0f);
        j = jn - p->jn;
        p->jn = jn;
        apply_normal(c, &pv, r, j);
    }
    pair_store(bodies, c, &pv);
}

/* The passes over the solver bodies, on the workers: each body is its own (index 0, the body
 * at rest, is never moved). */
#define SIM_BODY_GRAIN 256
typedef struct body_job {
    dsolver_body *bodies;
    dvec g;
    float h;
} body_job;

static void gravity_range(void *arg, size_t begin, size_t end)
{
    const body_job *j = arg;
    for (size_t i = begin + 1; i < end + 1; i++)
        j->bodies[i].v = dv_mad(j->bodies[i].v, j->h * j->bodies[i].gravity_scale, j->g);
}

static void integrate_range(void *arg, size_t begin, size_t end)
{
    const body_job *j = arg;
#if MK_DIM == 3
    sim_integrate3(j->bodies, begin + 1, end + 1, j->h); /* four at a time (solver3_wide.c) */
#else
    for (size_t i = begin + 1; i < end + 1; i++) {
        dsolver_body *b = &j->bodies[i];
        b->dp = dv_mad(b->dp, j->h, b->v);
        b->dq = integrate_rotation(b->dq, b->w, j->h);
    }
#endif
}

#if MK_DIM == 3
/* The step's solve with one thread, block by block (solver3_blocks.c): each block packed,
 * taken through every substep, its bounces made and its impulses given back to its
 * constraints and stored in the contact cache before the next, in
 * the stages and colors' order of the pass over the whole world below. The constraints solved
 * one by one are the solver's block_one, n_one of them with rows. */
static void solve_blocks(sim_world *w, body_job *job, softness_set soft, float inv_h,
                         sim_rows3 *rows, size_t n_one)
{
    sim_solver_body3 *bodies = w->d3.solver_bodies.at;
    sim_constraint3 *cs = w->d3.constraints.at;
    const uint32_t *one = w->d3.block_one.at;
    sim_wide_pass push = {w, soft, inv_h, true}, relax = {w, soft, inv_h, false};
#define EACH_SINGLE_OF(bl, body)                                                               \
    for (size_t k = (bl)->one_begin; k < (bl)->one_end && k < n_one; k++) {                    \
        sim_constraint3 *c = &cs[one[k]];                                                      \
        sim_rows3 *rw = &rows[k];                                                              \
        body;                                                                                  \
    }
    for (size_t i = 0; i < w->d3.blocks.v.len; i++) {
        const sim_wide_block3 *bl = &w->d3.blocks.at[i];
        /* gravity_range and integrate_range take bodies [begin + 1, end + 1) */
        size_t first = bl->body_begin - 1, last = bl->body_end - 1;
        sim_wide_pack_block3(w, bl, soft);
        for (int sub = 0; sub < SIM_SUBSTEPS; sub++) {
            gravity_range(job, first, last);
            sim_wide_block_pass3(bl, sim_wide_warm_range3, &push);
            EACH_SINGLE_OF(bl, warm_start(bodies, c, rw));
            sim_wide_block_pass3(bl, sim_wide_solve_range3, &push);
            EACH_SINGLE_OF(bl, solve_contact(bodies, c, rw, c->fixed ? soft.fixed : soft.movable,
                                             inv_h, true));
            integrate_range(job, first, last);
            sim_wide_block_pass3(bl, sim_wide_solve_range3, &relax);
            EACH_SINGLE_OF(bl, solve_contact(bodies, c, rw, soft.movable, inv_h, false));
        }
        sim_wide_restitution_range3(&relax, bl->first[0], bl->first[SIM_WIDE_COLORS]);
        sim_wide_unpack_range3(w, bl->first[0], bl->first[SIM_WIDE_COLORS]);
        EACH_SINGLE_OF(bl, restitution(bodies, c, rw));
        /* each constraint stores its own cache entry: by block, while they are in the cache
         * (a list that is empty may have no array: no place is taken in it) */
        if (bl->at[SIM_WIDE_COLORS] > bl->at[0])
            sim_store_impulses3(w, w->d3.block_order.at + bl->at[0],
                                bl->at[SIM_WIDE_COLORS] - bl->at[0]);
        if (bl->one_end > bl->one_begin)
            sim_store_impulses3(w, one + bl->one_begin, bl->one_end - bl->one_begin);
    }
#undef EACH_SINGLE_OF
}
#endif

void DIM_NAME(sim_solve)(sim_world *w, float dt)
{
    ddim *d = dim_of(w);
    dsolver_body *bodies = d->solver_bodies.at;
    dconstraint *cs = d->constraints.at;
    size_t nb = d->solver_bodies.v.len, nc = d->constraints.v.len;
    float h = dt / SIM_SUBSTEPS, inv_h = 1.0f / h;
    softness_set soft = softness_of(h);
    dvec g = dim_gravity(w);

    body_job job = {bodies, g, h};
#if MK_DIM == 2
    if (w->solver.bounce)
        prepare_some(w, NULL, nc);
#endif
    /* Four at a time where the constraints allow (solver_wide.c, solver3_wide.c); the rest one
     * by one, in 3D with their rows beside them. */
    bool wide = DIM_NAME(sim_wide_build)(w, soft);
    sim_wide_pass push = {w, soft, inv_h, true}, relax = {w, soft, inv_h, false};
    const uint32_t *one = wide ? w->solver.wide_overflow.at : NULL;
    size_t n_one = wide ? w->solver.wide_overflow.v.len : nc;
#if MK_DIM == 3
    size_t n_blocks = wide ? w->d3.blocks.v.len : 0;
    if (n_blocks > 0) /* the same constraints, by block (solver3_blocks.c) */
        one = w->d3.block_one.at;
#endif
#if MK_DIM == 2
    if (!w->solver.bounce)
        prepare_some(w, one, n_one);
#endif
    drows *rows = single_rows(w, &n_one);
    /* The joints run before the contacts in each stage, as Box2D v3's solver stages them. */
    sim_joints_prepare(w, h);
#define EACH_SINGLE(body)                                                                      \
    for (size_t k = 0; k < n_one; k++) {                                                       \
        dconstraint *c = &cs[one ? one[k] : k];                                                \
        drows *rw = rows_at(rows, k);                                                          \
        body;                                                                                  \
    }
#if MK_DIM == 3
    EACH_SINGLE(prepare(bodies, w->d3.solver_info.at, c, rw));
    if (n_blocks > 0) {
        solve_blocks(w, &job, soft, inv_h, rows, n_one);
        sim_joints_finish(w, h);
        return;
    }
#endif
    for (int sub = 0; sub < SIM_SUBSTEPS; sub++) {
        sim_pool_for(w->pool, nb > 0 ? nb - 1 : 0, SIM_BODY_GRAIN, gravity_range, &job);
        sim_joints_pass(w, JOINT_WARM, h);
        if (wide)
            sim_wide_for_colors(w, DIM_NAME(sim_wide_warm_range), &push);
        EACH_SINGLE(warm_start(bodies, c, rw));
        sim_joints_pass(w, JOINT_SOLVE, h);
        if (wide)
            sim_wide_for_colors(w, DIM_NAME(sim_wide_solve_range), &push);
        EACH_SINGLE(solve_contact(bodies, c, rw, c->fixed ? soft.fixed : soft.movable, inv_h,
                                  true));
        sim_pool_for(w->pool, nb > 0 ? nb - 1 : 0, SIM_BODY_GRAIN, integrate_range, &job);
        sim_joints_pass(w, JOINT_RELAX, h);
        if (wide)
            sim_wide_for_colors(w, DIM_NAME(sim_wide_solve_range), &relax);
        EACH_SINGLE(solve_contact(bodies, c, rw, soft.movable, inv_h, false));
    }
#if MK_DIM == 2
    /* 2D: restitution one by one over all constraints in their order, after the colored
     * ones' impulses came back to them, and the impulses stored here. Without restitution the
     * colored constraints' impulses went from their groups into the cache: the ones solved
     * one by one follow. Not the 3D order (colored groups first, four at a time): unifying
     * the two would change the order of the impulses and so the worlds' steps. */
    if (wide)
        sim_wide_unpack2(w);
    for (size_t i = 0; i < nc && w->solver.bounce; i++)
        restitution(bodies, &cs[i], NULL);
    if (wide && !w->solver.bounce)
        sim_store_impulses2(w, one, n_one);
    else
        sim_store_impulses2(w, NULL, nc);
#else
    /* 3D: restitution for the colored groups four at a time, then for the rest one by one;
     * then the impulses go to the contact cache (sim_store_impulses3). */
    if (wide) {
        sim_wide_for_colors(w, sim_wide_restitution_range3, &relax);
        sim_wide_unpack3(w);
    }
    EACH_SINGLE(restitution(bodies, c, rw));
#endif
#undef EACH_SINGLE
    sim_joints_finish(w, h);
#if MK_DIM == 3
    sim_store_impulses3(w, NULL, nc);
#endif
}
