/* The 3D contact solver four constraints at a time: solver_wide.c's design (Box2D v3's graph
 * coloring and wide contact solver, contact_solver.c) with solver.c's 3D arithmetic lane by
 * lane. The constraints of one color share no movable body (graph_color.c), so each group of
 * four is solved at once in SSE lanes; those that find no color are solved one by one by
 * solver.c after the colors. Colors and groups follow the constraints' order: the same world
 * solves the same way.
 *
 * A group is structure-of-arrays and leaner than the constraints solved one by one (560 bytes
 * a constraint against their 888 with rows), because the solver reads every constraint a
 * dozen times a step: per point the anchors, the base separation, the normal row's angular
 * terms (r x n and I^-1 (r x n), with which the normal is solved as in solver.c), three
 * effective masses and the impulses; per constraint the normal, the tangents and each body's
 * inverse inertia (six numbers of the symmetric world tensor). The friction rows' angular
 * terms are computed from those on the way, as Box2D v3 does: storing them too would add
 * half again to the group for a few multiplications. Body state is loaded with 4x4
 * transposes of each body's first floats. */
#include <stddef.h>
#include <string.h>

#include "f4.h"
#include "solver.h"
#include "wide_soft.h"
#include "world_internal.h"

/* The body loads read sim_solver_body3 as floats: v, w, dp, dq, gravity_scale in order. */
_Static_assert(offsetof(sim_solver_body3, v) == 0 && offsetof(sim_solver_body3, w) == 12 &&
                   offsetof(sim_solver_body3, dp) == 24 && offsetof(sim_solver_body3, dq) == 36 &&
                   sizeof(sim_solver_body3) == 56,
               "sim_solver_body3 is 14 floats");

typedef struct v4 {
    f4 x, y, z;
} v4;

typedef struct wide_point3 {
    v4 ra, rb;    /* anchors from each centre of mass at the start of the step, m */
    f4 base_sep;  /* m */
    v4 ja, jb, ka, kb; /* the normal row's angular terms: r x n and I^-1 (r x n) */
    f4 normal_mass, tangent_mass[2];
    f4 jn, jt[2], max_jn; /* N s */
    f4 approach;  /* m/s */
} wide_point3;

struct sim_wide_group3 {
    uint32_t a[4], b[4];    /* solver bodies; 0 in an empty lane */
    uint32_t constraint[4]; /* UINT32_MAX in an empty lane */
    int count;              /* the most points of any lane */
    bool bounce;            /* some lane has restitution */
    v4 n, t[2];
    f4 friction, restitution, ma, mb;
    f4 ia[6], ib[6]; /* world inverse inertia: xx, yy, zz, xy, xz, yz */
    f4 bias_rate, mass_scale, impulse_scale;
    wide_point3 p[COL_MAX_POINTS3];
};

size_t sim_wide_group_size3(void) { return sizeof(sim_wide_group3); }

static inline v4 v4_add(v4 a, v4 b)
{
    return (v4){f4_add(a.x, b.x), f4_add(a.y, b.y), f4_add(a.z, b.z)};
}
static inline v4 v4_sub(v4 a, v4 b)
{
    return (v4){f4_sub(a.x, b.x), f4_sub(a.y, b.y), f4_sub(a.z, b.z)};
}
static inline v4 v4_scale(v4 a, f4 s)
{
    return (v4){f4_mul(a.x, s), f4_mul(a.y, s), f4_mul(a.z, s)};
}
static inline f4 v4_dot(v4 a, v4 b)
{
    return f4_add(f4_add(f4_mul(a.x, b.x), f4_mul(a.y, b.y)), f4_mul(a.z, b.z));
}
static inline v4 v4_cross(v4 a, v4 b)
{
    return (v4){f4_sub(f4_mul(a.y, b.z), f4_mul(a.z, b.y)),
                f4_sub(f4_mul(a.z, b.x), f4_mul(a.x, b.z)),
                f4_sub(f4_mul(a.x, b.y), f4_mul(a.y, b.x))};
}
/* The symmetric matrix m (xx, yy, zz, xy, xz, yz) times v. */
static inline v4 sym_mul(const f4 *m, v4 v)
{
    return (v4){f4_add(f4_add(f4_mul(m[0], v.x), f4_mul(m[3], v.y)), f4_mul(m[4], v.z)),
                f4_add(f4_add(f4_mul(m[3], v.x), f4_mul(m[1], v.y)), f4_mul(m[5], v.z)),
                f4_add(f4_add(f4_mul(m[4], v.x), f4_mul(m[5], v.y)), f4_mul(m[2], v.z))};
}

/* Four bodies' velocities and motion, one body a lane. */
typedef struct lanes3 {
    v4 v, w, dp;
    f4 qx, qy, qz, qw;
} lanes3;

static inline const float *body_floats(const sim_solver_body3 *bodies, uint32_t i)
{
    return &bodies[i & ~SIM_WIDE_STILL].v.x;
}

/* v and w (and dp.x, dp.y, which share their floats). */
static inline void gather_vel(const sim_solver_body3 *bodies, const uint32_t *idx, lanes3 *l)
{
    const float *b0 = body_floats(bodies, idx[0]), *b1 = body_floats(bodies, idx[1]),
                *b2 = body_floats(bodies, idx[2]), *b3 = body_floats(bodies, idx[3]);
    f4 r0 = f4_load(b0), r1 = f4_load(b1), r2 = f4_load(b2), r3 = f4_load(b3);
    f4_transpose(&r0, &r1, &r2, &r3);
    l->v = (v4){r0, r1, r2};
    l->w.x = r3;
    r0 = f4_load(b0 + 4), r1 = f4_load(b1 + 4), r2 = f4_load(b2 + 4), r3 = f4_load(b3 + 4);
    f4_transpose(&r0, &r1, &r2, &r3);
    l->w.y = r0;
    l->w.z = r1;
    l->dp.x = r2;
    l->dp.y = r3;
}

/* And the rest of dp and dq, for the separation. */
static inline void gather_all(const sim_solver_body3 *bodies, const uint32_t *idx, lanes3 *l)
{
    gather_vel(bodies, idx, l);
    const float *b0 = body_floats(bodies, idx[0]), *b1 = body_floats(bodies, idx[1]),
                *b2 = body_floats(bodies, idx[2]), *b3 = body_floats(bodies, idx[3]);
    f4 r0 = f4_load(b0 + 8), r1 = f4_load(b1 + 8), r2 = f4_load(b2 + 8), r3 = f4_load(b3 + 8);
    f4_transpose(&r0, &r1, &r2, &r3);
    l->dp.z = r0;
    l->qx = r1;
    l->qy = r2;
    l->qz = r3;
    /* floats 10..13 (qy, qz, qw, gravity_scale): the last four inside the body */
    r0 = f4_load(b0 + 10), r1 = f4_load(b1 + 10), r2 = f4_load(b2 + 10), r3 = f4_load(b3 + 10);
    f4_transpose(&r0, &r1, &r2, &r3);
    l->qw = r2;
}

/* Writes v and w back (dp.x, dp.y unchanged beside them); the body at rest stays at rest. */
static inline void scatter(sim_solver_body3 *bodies, const uint32_t *idx, const lanes3 *l)
{
    f4 r0 = l->v.x, r1 = l->v.y, r2 = l->v.z, r3 = l->w.x;
    f4_transpose(&r0, &r1, &r2, &r3);
    f4 s0 = l->w.y, s1 = l->w.z, s2 = l->dp.x, s3 = l->dp.y;
    f4_transpose(&s0, &s1, &s2, &s3);
    f4 lo[4] = {r0, r1, r2, r3}, hi[4] = {s0, s1, s2, s3};
    for (int k = 0; k < 4; k++) {
        if (idx[k] == 0 || (idx[k] & SIM_WIDE_STILL))
            continue; /* the body at rest stays at rest, a still one as it is */
        float *f = &bodies[idx[k]].v.x;
        f4_store(f, lo[k]);
        f4_store(f + 4, hi[k]);
    }
}

/* An impulse p at the anchors ra, rb: -p on a, +p on b. */
static inline void apply(lanes3 *a, lanes3 *b, const sim_wide_group3 *g, v4 ra, v4 rb, v4 p)
{
    a->v = v4_sub(a->v, v4_scale(p, g->ma));
    a->w = v4_sub(a->w, sym_mul(g->ia, v4_cross(ra, p)));
    b->v = v4_add(b->v, v4_scale(p, g->mb));
    b->w = v4_add(b->w, sym_mul(g->ib, v4_cross(rb, p)));
}

/* Relative velocity of b's anchor to a's: (vb + wb x rb) - (va + wa x ra). */
static inline v4 relative(const lanes3 *a, const lanes3 *b, v4 ra, v4 rb)
{
    return v4_sub(v4_add(b->v, v4_cross(b->w, rb)), v4_add(a->v, v4_cross(a->w, ra)));
}

/* The normal speed of b's anchor from a's: (vb - va) . n + wb . (rb x n) - wa . (ra x n)
 * (solver.c's 3D speed_along). */
static inline f4 normal_speed(const lanes3 *a, const lanes3 *b, const wide_point3 *p, v4 n)
{
    return f4_sub(f4_add(v4_dot(v4_sub(b->v, a->v), n), v4_dot(b->w, p->jb)),
                  v4_dot(a->w, p->ja));
}

/* An impulse j along the normal (solver.c's 3D apply). */
static inline void apply_normal(lanes3 *a, lanes3 *b, const sim_wide_group3 *g,
                                const wide_point3 *p, f4 j)
{
    a->v = v4_sub(a->v, v4_scale(g->n, f4_mul(g->ma, j)));
    a->w = v4_sub(a->w, v4_scale(p->ka, j));
    b->v = v4_add(b->v, v4_scale(g->n, f4_mul(g->mb, j)));
    b->w = v4_add(b->w, v4_scale(p->kb, j));
}

/* v turned back by the body's rotation since the step began: by the conjugate quaternion
 * (-u, qw), as mk_quat_rotate turns: v + qw t + (-u) x t with t = 2 (-u) x v. */
static inline v4 unrotate(const lanes3 *l, v4 v)
{
    f4 zero = f4_set1(0.0f);
    v4 u = {f4_sub(zero, l->qx), f4_sub(zero, l->qy), f4_sub(zero, l->qz)};
    v4 t = v4_scale(v4_cross(u, v), f4_set1(2.0f));
    return v4_add(v4_add(v, v4_scale(t, l->qw)), v4_cross(u, t));
}

/* ---- building the groups ---- */

static bool movable(const sim_solver_info3 *i)
{
    const mk_mat3 *m = &i->inv_inertia;
    return i->inv_mass > 0.0f || m->c0.x > 0.0f || m->c1.y > 0.0f || m->c2.z > 0.0f;
}

/* The effective mass along d at anchors ra, rb (solver.c's make_row), lane by lane. */
static f4 row_mass(const sim_wide_group3 *g, v4 ra, v4 rb, v4 d)
{
    v4 ja = v4_cross(ra, d), jb = v4_cross(rb, d);
    f4 k = f4_add(f4_add(f4_add(g->ma, g->mb), v4_dot(ja, sym_mul(g->ia, ja))),
                  v4_dot(jb, sym_mul(g->ib, jb)));
    f4 zero = f4_set1(0.0f);
    return f4_select(f4_gt(k, zero), f4_div(f4_set1(1.0f), k), zero);
}

/* Fills a group from up to four constraints (ci[k] == UINT32_MAX for an empty lane): a missing
 * constraint or point has no mass, so it takes and gives no impulse. */
static void pack(sim_wide_group3 *g, const sim_solver_body3 *bodies,
                 const sim_solver_info3 *info, const sim_constraint3 *cs, const uint32_t *ci,
                 softness_set s)
{
    const sim_constraint3 *c[4];
    float lane[32][4];
    memset(lane, 0, sizeof lane);
    g->count = 0;
    g->bounce = false;
    for (int k = 0; k < 4; k++) {
        c[k] = ci[k] == UINT32_MAX ? NULL : &cs[ci[k]];
        g->constraint[k] = ci[k];
        g->a[k] = c[k] ? c[k]->a : 0;
        g->b[k] = c[k] ? c[k]->b : 0;
        if (!c[k])
            continue;
        const sim_solver_info3 *ia = &info[c[k]->a], *ib = &info[c[k]->b];
        if (g->a[k] && !movable(ia))
            g->a[k] |= SIM_WIDE_STILL;
        if (g->b[k] && !movable(ib))
            g->b[k] |= SIM_WIDE_STILL;
        const mk_vec3 *d[3] = {&c[k]->normal, &c[k]->tangent[0], &c[k]->tangent[1]};
        for (int r = 0; r < 3; r++) {
            lane[3 * r][k] = d[r]->x;
            lane[3 * r + 1][k] = d[r]->y;
            lane[3 * r + 2][k] = d[r]->z;
        }
        lane[9][k] = c[k]->friction;
        lane[10][k] = c[k]->restitution;
        lane[11][k] = ia->inv_mass;
        lane[12][k] = ib->inv_mass;
        const mk_mat3 *m[2] = {&ia->inv_inertia, &ib->inv_inertia};
        for (int side = 0; side < 2; side++) {
            float e[6] = {m[side]->c0.x, m[side]->c1.y, m[side]->c2.z,
                          m[side]->c1.x, m[side]->c2.x, m[side]->c2.y};
            for (int f = 0; f < 6; f++)
                lane[13 + 6 * side + f][k] = e[f];
        }
        const sim_softness *soft = c[k]->fixed ? &s.fixed : &s.movable;
        lane[25][k] = soft->bias_rate;
        lane[26][k] = soft->mass_scale;
        lane[27][k] = soft->impulse_scale;
        g->count = c[k]->count > g->count ? c[k]->count : g->count;
        g->bounce |= c[k]->restitution != 0.0f;
    }
    f4 *dst[28] = {&g->n.x,    &g->n.y,       &g->n.z,         &g->t[0].x, &g->t[0].y,
                   &g->t[0].z, &g->t[1].x,    &g->t[1].y,      &g->t[1].z, &g->friction,
                   &g->restitution, &g->ma,   &g->mb};
    for (int e = 0; e < 6; e++) {
        dst[13 + e] = &g->ia[e];
        dst[19 + e] = &g->ib[e];
    }
    dst[25] = &g->bias_rate;
    dst[26] = &g->mass_scale;
    dst[27] = &g->impulse_scale;
    for (int f = 0; f < 28; f++)
        *dst[f] = f4_load(lane[f]);

    /* The masses and approach speeds lane by lane, from the packed anchors. */
    lanes3 va, vb;
    gather_vel(bodies, g->a, &va);
    gather_vel(bodies, g->b, &vb);
    f4 zero = f4_set1(0.0f);
    for (int i = 0; i < COL_MAX_POINTS3; i++) {
        memset(lane, 0, sizeof lane);
        for (int k = 0; k < 4; k++) {
            if (!c[k] || i >= c[k]->count)
                continue;
            const sim_constraint_point3 *q = &c[k]->points[i];
            float v[11] = {q->ra.x, q->ra.y, q->ra.z, q->rb.x,  q->rb.y,  q->rb.z,
                           q->base_sep, q->jn, q->jt[0], q->jt[1], 1.0f};
            for (int f = 0; f < 11; f++)
                lane[f][k] = v[f];
        }
        wide_point3 *p = &g->p[i];
        f4 *pd[10] = {&p->ra.x, &p->ra.y,    &p->ra.z, &p->rb.x,  &p->rb.y,
                      &p->rb.z, &p->base_sep, &p->jn,  &p->jt[0], &p->jt[1]};
        for (int f = 0; f < 10; f++)
            *pd[f] = f4_load(lane[f]);
        f4 present = f4_gt(f4_load(lane[10]), zero);
        p->ja = v4_cross(p->ra, g->n);
        p->jb = v4_cross(p->rb, g->n);
        p->ka = sym_mul(g->ia, p->ja);
        p->kb = sym_mul(g->ib, p->jb);
        p->normal_mass = f4_select(present, row_mass(g, p->ra, p->rb, g->n), zero);
        p->tangent_mass[0] = f4_select(present, row_mass(g, p->ra, p->rb, g->t[0]), zero);
        p->tangent_mass[1] = f4_select(present, row_mass(g, p->ra, p->rb, g->t[1]), zero);
        p->max_jn = zero;
        p->approach = v4_dot(relative(&va, &vb, p->ra, p->rb), g->n);
    }
}

typedef struct pack_ctx {
    sim_wide_group3 *groups;
    const sim_solver_body3 *bodies;
    const sim_solver_info3 *info;
    const sim_constraint3 *cs;
    softness_set s;
} pack_ctx;

static void pack_group(void *ctx, size_t i, const uint32_t ci[4])
{
    const pack_ctx *p = ctx;
    pack(&p->groups[i], p->bodies, p->info, p->cs, ci, p->s);
}

bool sim_wide_build3(sim_world *w, softness_set s)
{
    const sim_constraint3 *cs = w->d3.constraints.at;
    const sim_solver_info3 *info = w->d3.solver_info.at;
    size_t nc = w->d3.constraints.v.len, ng;
    if (!mk_vec_reserve(&w->solver.wide_ends.v, 2 * nc) ||
        !mk_vec_reserve(&w->d3.wide_groups.v, nc / 4 + SIM_WIDE_COLORS + 1))
        return false;
    uint32_t *ends = w->solver.wide_ends.at;
    for (size_t i = 0; i < nc; i++) {
        ends[2 * i] = movable(&info[cs[i].a]) ? cs[i].a : 0;
        ends[2 * i + 1] = movable(&info[cs[i].b]) ? cs[i].b : 0;
    }
    pack_ctx ctx = {w->d3.wide_groups.at, w->d3.solver_bodies.at, info, cs, s};
    if (!sim_wide_groups(w, ends, nc, w->d3.solver_bodies.v.len, pack_group, &ctx, &ng))
        return false;
    w->d3.wide_groups.v.len = ng;
    return true;
}

/* ---- solving ---- */

void sim_wide_warm_range3(void *arg, size_t begin, size_t end)
{
    const sim_world *w = ((const sim_wide_pass *)arg)->w;
    sim_solver_body3 *bodies = w->d3.solver_bodies.at;
    sim_wide_group3 *groups = w->d3.wide_groups.at;
    for (size_t gi = begin; gi < end; gi++) {
        const sim_wide_group3 *g = &groups[gi];
        lanes3 a, b;
        gather_vel(bodies, g->a, &a);
        gather_vel(bodies, g->b, &b);
        for (int i = 0; i < g->count; i++) {
            const wide_point3 *p = &g->p[i];
            v4 P = v4_add(v4_add(v4_scale(g->n, p->jn), v4_scale(g->t[0], p->jt[0])),
                          v4_scale(g->t[1], p->jt[1]));
            apply(&a, &b, g, p->ra, p->rb, P);
        }
        scatter(bodies, g->a, &a);
        scatter(bodies, g->b, &b);
    }
}

/* Each lane's softness was packed at build: the pass's is not read again. */
void sim_wide_solve_range3(void *arg, size_t begin, size_t end)
{
    wide_pass_lanes pass = wide_pass_lanes_of(arg);
    const sim_world *w = ((const sim_wide_pass *)arg)->w;
    sim_solver_body3 *bodies = w->d3.solver_bodies.at;
    sim_wide_group3 *groups = w->d3.wide_groups.at;
    f4 zero = f4_set1(0.0f);
    for (size_t gi = begin; gi < end; gi++) {
        sim_wide_group3 *g = &groups[gi];
        wide_softness soft = {g->bias_rate, g->mass_scale, g->impulse_scale};
        lanes3 a, b;
        gather_all(bodies, g->a, &a);
        gather_all(bodies, g->b, &b);
        /* The separation now, from the motion of both anchors since the step began:
         * (dp + qb rb - qa ra) . n. Since (q r) . n = r . (q^-1 n), the normal is turned back
         * into each body's frame at the start of the step once per group, rather than every
         * anchor forward. */
        f4 dpn = v4_dot(v4_sub(b.dp, a.dp), g->n);
        v4 na = unrotate(&a, g->n), nb = unrotate(&b, g->n);
        for (int i = 0; i < g->count; i++) {
            wide_point3 *p = &g->p[i];
            f4 s = f4_add(f4_add(dpn, f4_sub(v4_dot(p->rb, nb), v4_dot(p->ra, na))),
                          p->base_sep);
            f4 vn = normal_speed(&a, &b, p, g->n);
            f4 j = wide_normal_impulse(&pass, soft, s, vn, p->normal_mass, &p->jn);
            p->max_jn = f4_max(p->max_jn, j);
            apply_normal(&a, &b, g, p, j);
        }
        /* Friction bounded by the Coulomb circle of radius friction * jn (solver.c). */
        f4 rough = f4_gt(g->friction, zero);
        for (int i = 0; i < g->count; i++) {
            wide_point3 *p = &g->p[i];
            v4 dv = relative(&a, &b, p->ra, p->rb);
            f4 t0 = f4_sub(p->jt[0], f4_mul(p->tangent_mass[0], v4_dot(dv, g->t[0])));
            f4 t1 = f4_sub(p->jt[1], f4_mul(p->tangent_mass[1], v4_dot(dv, g->t[1])));
            f4 limit = f4_mul(g->friction, p->jn);
            f4 len2 = f4_add(f4_mul(t0, t0), f4_mul(t1, t1));
            f4 k = f4_select(f4_gt(len2, zero), f4_div(limit, f4_sqrt(len2)), zero);
            f4 over = f4_gt(len2, f4_mul(limit, limit));
            t0 = f4_select(over, f4_mul(t0, k), t0);
            t1 = f4_select(over, f4_mul(t1, k), t1);
            /* no friction: the impulses stay as they are */
            t0 = f4_select(rough, t0, p->jt[0]);
            t1 = f4_select(rough, t1, p->jt[1]);
            v4 P = v4_add(v4_scale(g->t[0], f4_sub(t0, p->jt[0])),
                          v4_scale(g->t[1], f4_sub(t1, p->jt[1])));
            p->jt[0] = t0;
            p->jt[1] = t1;
            apply(&a, &b, g, p->ra, p->rb, P);
        }
        scatter(bodies, g->a, &a);
        scatter(bodies, g->b, &b);
    }
}

void sim_wide_restitution_range3(void *arg, size_t begin, size_t end)
{
    const sim_world *w = ((const sim_wide_pass *)arg)->w;
    sim_solver_body3 *bodies = w->d3.solver_bodies.at;
    sim_wide_group3 *groups = w->d3.wide_groups.at;
    f4 zero = f4_set1(0.0f), slow = f4_set1(-SIM_BOUNCE_SPEED);
    for (size_t gi = begin; gi < end; gi++) {
        sim_wide_group3 *g = &groups[gi];
        if (!g->bounce)
            continue;
        lanes3 a, b;
        gather_vel(bodies, g->a, &a);
        gather_vel(bodies, g->b, &b);
        f4 bouncy = f4_gt(g->restitution, zero);
        for (int i = 0; i < g->count; i++) {
            wide_point3 *p = &g->p[i];
            /* Points that approached fast enough and were pushed (solver.c's restitution). */
            f4 on = f4_and_not(f4_and_not(bouncy, f4_gt(p->approach, slow)),
                               f4_eq(p->max_jn, zero));
            f4 vn = normal_speed(&a, &b, p, g->n);
            f4 j = f4_mul(f4_sub(zero, p->normal_mass),
                          f4_add(vn, f4_mul(g->restitution, p->approach)));
            j = f4_select(on, j, zero);
            f4 jn = f4_max(f4_add(p->jn, j), zero);
            j = f4_sub(jn, p->jn);
            p->jn = jn;
            apply_normal(&a, &b, g, p, j);
        }
        scatter(bodies, g->a, &a);
        scatter(bodies, g->b, &b);
    }
}

void sim_wide_unpack3(sim_world *w)
{
    sim_constraint3 *cs = w->d3.constraints.at;
    const sim_wide_group3 *groups = w->d3.wide_groups.at;
    for (size_t gi = 0; gi < w->d3.wide_groups.v.len; gi++) {
        const sim_wide_group3 *g = &groups[gi];
        for (int i = 0; i < g->count; i++) {
            float jn[4], t0[4], t1[4];
            f4_store(jn, g->p[i].jn);
            f4_store(t0, g->p[i].jt[0]);
            f4_store(t1, g->p[i].jt[1]);
            for (int k = 0; k < 4; k++) {
                if (g->constraint[k] == UINT32_MAX || i >= cs[g->constraint[k]].count)
                    continue;
                sim_constraint_point3 *q = &cs[g->constraint[k]].points[i];
                q->jn = jn[k];
                q->jt[0] = t0[k];
                q->jt[1] = t1[k];
            }
        }
    }
}
