/* The contact solver four constraints at a time (Box2D v3's graph coloring and wide
 * constraints): constraints are given colors so that no two of one color share a movable body
 * (graph_color.c); the constraints of a color are then independent and are solved in groups
 * of four lanes. Constraints that find no free color are solved one by one after the colors.
 * The colors and groups follow from the constraints' order, so the same world solves the same
 * way. The arithmetic is solver.c's, lane by lane. */
#include <stddef.h>
#include <string.h>

#include "f4.h"
#include "solver.h"
#include "wide_soft.h"
#include "world_internal.h"

/* A group holds what every pass reads: the solve streams through all groups twelve times a
 * step, so each byte left out of it is a byte less to bring in from memory (448 bytes, seven
 * cache lines). Its softness is one mask; the rest sits beside it in a sim_wide_cold. */
struct sim_wide_group {
    uint32_t a[4], b[4]; /* solver bodies; 0 in an empty lane */
    f4 nx, ny, friction, ma, mb, ia, ib;
    f4 fixed; /* all bits set in a lane with an immovable side: the stiffer softness */
    f4 rax[2], ray[2], rbx[2], rby[2], base_sep[2], normal_mass[2], tangent_mass[2];
    f4 jn[2], jt[2];
};

/* What only packing, restitution and unpacking read, at the group's index: unpacking into
 * the contact cache reads the lanes' entries here rather than from their scattered
 * constraints. */
struct sim_wide_cold {
    uint32_t constraint[4]; /* UINT32_MAX in an empty lane */
    uint32_t entry[4];      /* the constraints' cache entries */
    int count[4];           /* their points; 0 in an empty lane */
    f4 max_jn[2];           /* kept only in a step that has restitution */
};

size_t sim_wide_group_size2(void) { return sizeof(sim_wide_group); }
size_t sim_wide_cold_size2(void) { return sizeof(sim_wide_cold); }

/* A lane's body velocities and motion, gathered from the four bodies. */
_Static_assert(sizeof(sim_solver_body) == 8 * sizeof(float) &&
                   offsetof(sim_solver_body, v) == 0 && offsetof(sim_solver_body, w) == 8 &&
                   offsetof(sim_solver_body, gravity_scale) == 12 &&
                   offsetof(sim_solver_body, dp) == 16 && offsetof(sim_solver_body, dq) == 24,
               "gather and scatter read a solver body as two rows of four floats");

typedef struct lanes {
    f4 vx, vy, w, gs, dpx, dpy, qc, qs; /* gs: the gravity scales, carried back unchanged */
} lanes;

#if defined(__SSE2__)
/* A solver body is two rows of four floats, (v.x, v.y, w, gravity_scale) and (dp.x, dp.y,
 * dq.x, dq.y): four bodies are turned into lanes by two 4 x 4 transposes of unaligned loads,
 * as Box2D v3's b2GatherBodies does, instead of 28 single-float inserts. */
static inline lanes gather(const sim_solver_body *bodies, const uint32_t *idx)
{
    const float *b0 = (const float *)&bodies[idx[0] & ~SIM_WIDE_STILL],
                *b1 = (const float *)&bodies[idx[1] & ~SIM_WIDE_STILL],
                *b2 = (const float *)&bodies[idx[2] & ~SIM_WIDE_STILL],
                *b3 = (const float *)&bodies[idx[3] & ~SIM_WIDE_STILL];
    __m128 r0 = _mm_loadu_ps(b0), r1 = _mm_loadu_ps(b1), r2 = _mm_loadu_ps(b2),
           r3 = _mm_loadu_ps(b3);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    __m128 s0 = _mm_loadu_ps(b0 + 4), s1 = _mm_loadu_ps(b1 + 4), s2 = _mm_loadu_ps(b2 + 4),
           s3 = _mm_loadu_ps(b3 + 4);
    _MM_TRANSPOSE4_PS(s0, s1, s2, s3);
    return (lanes){r0, r1, r2, r3, s0, s1, s2, s3};
}

/* Velocities back into the bodies: the first row transposed back. */
static inline void scatter(sim_solver_body *bodies, const uint32_t *idx, const lanes *l)
{
    __m128 r0 = l->vx, r1 = l->vy, r2 = l->w, r3 = l->gs;
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    __m128 rows[4] = {r0, r1, r2, r3};
    for (int i = 0; i < 4; i++) {
        if (idx[i] == 0 || (idx[i] & SIM_WIDE_STILL))
            continue; /* the body at rest stays at rest, a still one as it is */
        _mm_storeu_ps((float *)&bodies[idx[i]], rows[i]);
    }
}
#else
static inline lanes gather(const sim_solver_body *bodies, const uint32_t *idx)
{
    const sim_solver_body *b0 = &bodies[idx[0] & ~SIM_WIDE_STILL],
                          *b1 = &bodies[idx[1] & ~SIM_WIDE_STILL],
                          *b2 = &bodies[idx[2] & ~SIM_WIDE_STILL],
                          *b3 = &bodies[idx[3] & ~SIM_WIDE_STILL];
    return (lanes){
        f4_set(b0->v.x, b1->v.x, b2->v.x, b3->v.x),
        f4_set(b0->v.y, b1->v.y, b2->v.y, b3->v.y),
        f4_set(b0->w, b1->w, b2->w, b3->w),
        f4_set1(0.0f), /* unused: scatter writes only the velocities */
        f4_set(b0->dp.x, b1->dp.x, b2->dp.x, b3->dp.x),
        f4_set(b0->dp.y, b1->dp.y, b2->dp.y, b3->dp.y),
        f4_set(b0->dq.x, b1->dq.x, b2->dq.x, b3->dq.x),
        f4_set(b0->dq.y, b1->dq.y, b2->dq.y, b3->dq.y),
    };
}

static inline void scatter(sim_solver_body *bodies, const uint32_t *idx, const lanes *l)
{
    float vx[4], vy[4], w[4];
    f4_store(vx, l->vx);
    f4_store(vy, l->vy);
    f4_store(w, l->w);
    for (int i = 0; i < 4; i++) {
        if (idx[i] == 0 || (idx[i] & SIM_WIDE_STILL))
            continue; /* the body at rest stays at rest, a still one as it is */
        bodies[idx[i]].v = mk_v2(vx[i], vy[i]);
        bodies[idx[i]].w = w[i];
    }
}
#endif

/* Stands in an empty lane, and for a missing second point: no mass, so it takes and gives no
 * impulse. */
static const sim_constraint no_constraint;

/* The effective masses along the normal and the tangent of point p of a group's four lanes
 * (n of them hold the point), from the anchors, normals, masses and inertias packed: the
 * solver's prepare_constraint (solver.c) four lanes at once, in its order of operations, so
 * that each lane's masses are the ones it would have made. A lane without the point (or
 * empty) gets none, as the point of zeros that stands for it in the constraint. */
static void lane_masses(sim_wide_group *g, int p, f4 has)
{
    f4 zero = f4_set1(0.0f), one = f4_set1(1.0f);
    f4 nx = g->nx, ny = g->ny, tx = ny, ty = f4_neg(nx);
    f4 rna = f4_sub(f4_mul(g->rax[p], ny), f4_mul(g->ray[p], nx));
    f4 rnb = f4_sub(f4_mul(g->rbx[p], ny), f4_mul(g->rby[p], nx));
    f4 kn = f4_add(f4_add(f4_add(g->ma, g->mb), f4_mul(f4_mul(g->ia, rna), rna)),
                   f4_mul(f4_mul(g->ib, rnb), rnb));
    f4 rta = f4_sub(f4_mul(g->rax[p], ty), f4_mul(g->ray[p], tx));
    f4 rtb = f4_sub(f4_mul(g->rbx[p], ty), f4_mul(g->rby[p], tx));
    f4 kt = f4_add(f4_add(f4_add(g->ma, g->mb), f4_mul(f4_mul(g->ia, rta), rta)),
                   f4_mul(f4_mul(g->ib, rtb), rtb));
    /* 1 / k where k > 0, else 0; the division by 1 in the other lanes keeps it finite. */
    f4 pos_n = f4_gt(kn, zero), pos_t = f4_gt(kt, zero);
    f4 mn = f4_select(pos_n, f4_div(one, f4_select(pos_n, kn, one)), zero);
    f4 mt = f4_select(pos_t, f4_div(one, f4_select(pos_t, kt, one)), zero);
    g->normal_mass[p] = f4_select(has, mn, zero);
    g->tangent_mass[p] = f4_select(has, mt, zero);
}

/* Fills a group from up to four constraints (ci[k] == UINT32_MAX for an empty lane). Each lane
 * reads a constraint and a point, the empty ones all zeros, so the fields are gathered without
 * a test per field. With `masses`, the points' effective masses are made here, four at a time
 * (lane_masses), and their max_jn is 0: the constraints were not prepared one by one (no
 * restitution follows, which would read them). */
static void pack(sim_wide_group *g, sim_wide_cold *cold, const sim_constraint *cs,
                 const uint32_t *ci, bool masses)
{
    const sim_constraint *c[4];
    for (int k = 0; k < 4; k++) {
        c[k] = ci[k] == UINT32_MAX ? &no_constraint : &cs[ci[k]];
        cold->constraint[k] = ci[k];
        cold->entry[k] = c[k]->cache_entry;
        cold->count[k] = c[k]->count;
        bool still_a = !(c[k]->ma > 0.0f || c[k]->ia > 0.0f);
        bool still_b = !(c[k]->mb > 0.0f || c[k]->ib > 0.0f);
        g->a[k] = c[k]->a | (still_a && c[k]->a ? SIM_WIDE_STILL : 0);
        g->b[k] = c[k]->b | (still_b && c[k]->b ? SIM_WIDE_STILL : 0);
    }
#define LANES(expr) f4_set(c[0]->expr, c[1]->expr, c[2]->expr, c[3]->expr)
    g->nx = LANES(normal.x);
    g->ny = LANES(normal.y);
    g->friction = LANES(friction);
    g->ma = LANES(ma);
    g->mb = LANES(mb);
    g->ia = LANES(ia);
    g->ib = LANES(ib);
#undef LANES
#define FIXED(k) (c[k]->fixed ? 1.0f : 0.0f)
    g->fixed = f4_gt(f4_set(FIXED(0), FIXED(1), FIXED(2), FIXED(3)), f4_set1(0.0f));
#undef FIXED
    for (int p = 0; p < 2; p++) {
        const sim_constraint_point *q[4];
        for (int k = 0; k < 4; k++)
            q[k] = p < c[k]->count ? &c[k]->points[p] : &no_constraint.points[0];
#define LANES(field) f4_set(q[0]->field, q[1]->field, q[2]->field, q[3]->field)
        g->rax[p] = LANES(ra.x);
        g->ray[p] = LANES(ra.y);
        g->rbx[p] = LANES(rb.x);
        g->rby[p] = LANES(rb.y);
        g->base_sep[p] = LANES(base_sep);
        g->jn[p] = LANES(jn);
        g->jt[p] = LANES(jt);
        if (masses) {
#define HAS(k) (p < c[k]->count ? 1.0f : 0.0f)
            lane_masses(g, p, f4_gt(f4_set(HAS(0), HAS(1), HAS(2), HAS(3)), f4_set1(0.0f)));
#undef HAS
            cold->max_jn[p] = f4_set1(0.0f);
            continue;
        }
        g->normal_mass[p] = LANES(normal_mass);
        g->tangent_mass[p] = LANES(tangent_mass);
        cold->max_jn[p] = LANES(max_jn);
#undef LANES
    }
}

typedef struct pack_ctx {
    sim_wide_group *groups;
    sim_wide_cold *cold;
    const sim_constraint *cs;
    bool masses;
} pack_ctx;

static void pack_group(void *ctx, size_t i, const uint32_t ci[4])
{
    const pack_ctx *p = ctx;
    pack(&p->groups[i], &p->cold[i], p->cs, ci, p->masses);
}

/* The softness is chosen at each solve from the group's mask: s is not packed. Without
 * restitution the constraints come unprepared and the groups' masses are made in the packing
 * (the solver prepares those left for one by one, solver.c). */
bool sim_wide_build2(sim_world *w, softness_set s)
{
    (void)s;
    size_t nc = w->d2.constraints.v.len, ng;
    if (!mk_vec_reserve(&w->d2.wide_groups.v, nc / 4 + SIM_WIDE_COLORS + 1) ||
        !mk_vec_reserve(&w->d2.wide_cold.v, nc / 4 + SIM_WIDE_COLORS + 1))
        return false;
    pack_ctx ctx = {w->d2.wide_groups.at, w->d2.wide_cold.at, w->d2.constraints.at,
                    !w->solver.bounce};
    if (!sim_wide_groups(w, w->solver.wide_ends.at, nc, w->d2.solver_bodies.v.len, pack_group,
                         &ctx, &ng))
        return false;
    w->d2.wide_groups.v.len = w->d2.wide_cold.v.len = ng;
    return true;
}

static void apply(lanes *a, lanes *b, const sim_wide_group *g, f4 rax, f4 ray, f4 rbx, f4 rby,
                  f4 px, f4 py)
{
    a->vx = f4_sub(a->vx, f4_mul(g->ma, px));
    a->vy = f4_sub(a->vy, f4_mul(g->ma, py));
    a->w = f4_sub(a->w, f4_mul(g->ia, f4_sub(f4_mul(rax, py), f4_mul(ray, px))));
    b->vx = f4_add(b->vx, f4_mul(g->mb, px));
    b->vy = f4_add(b->vy, f4_mul(g->mb, py));
    b->w = f4_add(b->w, f4_mul(g->ib, f4_sub(f4_mul(rbx, py), f4_mul(rby, px))));
}

/* Relative velocity of b's anchor to a's: (vb + wb x rb) - (va + wa x ra). */
static void relative(const lanes *a, const lanes *b, f4 rax, f4 ray, f4 rbx, f4 rby, f4 *dvx,
                     f4 *dvy)
{
    *dvx = f4_sub(f4_sub(b->vx, f4_mul(b->w, rby)), f4_sub(a->vx, f4_mul(a->w, ray)));
    *dvy = f4_sub(f4_add(b->vy, f4_mul(b->w, rbx)), f4_add(a->vy, f4_mul(a->w, rax)));
}

void sim_wide_warm_range2(void *arg, size_t begin, size_t end)
{
    const sim_world *w = ((const sim_wide_pass *)arg)->w;
    sim_solver_body *bodies = w->d2.solver_bodies.at;
    sim_wide_group *groups = w->d2.wide_groups.at;
    for (size_t i = begin; i < end; i++) {
        sim_wide_group *g = &groups[i];
        lanes a = gather(bodies, g->a), b = gather(bodies, g->b);
        f4 tx = g->ny, ty = f4_sub(f4_set1(0.0f), g->nx);
        for (int p = 0; p < 2; p++) {
            f4 px = f4_add(f4_mul(g->jn[p], g->nx), f4_mul(g->jt[p], tx));
            f4 py = f4_add(f4_mul(g->jn[p], g->ny), f4_mul(g->jt[p], ty));
            apply(&a, &b, g, g->rax[p], g->ray[p], g->rbx[p], g->rby[p], px, py);
        }
        scatter(bodies, g->a, &a);
        scatter(bodies, g->b, &b);
    }
}

void sim_wide_solve_range2(void *arg, size_t begin, size_t end)
{
    const sim_wide_pass *job = arg;
    wide_pass_lanes pass = wide_pass_lanes_of(job);
    softness_set soft = job->soft;
    sim_solver_body *bodies = job->w->d2.solver_bodies.at;
    sim_wide_group *groups = job->w->d2.wide_groups.at;
    sim_wide_cold *cold = job->w->d2.wide_cold.at;
    bool bounce = job->w->solver.bounce;
    f4 zero = f4_set1(0.0f), one = f4_set1(1.0f);
    f4 rate_fixed = f4_set1(soft.fixed.bias_rate), rate_movable = f4_set1(soft.movable.bias_rate);
    f4 mass_fixed = f4_set1(soft.fixed.mass_scale);
    f4 mass_movable = f4_set1(soft.movable.mass_scale);
    f4 impulse_fixed = f4_set1(soft.fixed.impulse_scale);
    f4 impulse_movable = f4_set1(soft.movable.impulse_scale);
    for (size_t i = begin; i < end; i++) {
        sim_wide_group *g = &groups[i];
        lanes a = gather(bodies, g->a), b = gather(bodies, g->b);
        /* The separations now, from the anchors turned by each body's rotation so far: they
         * read the motion of the step alone, which no impulse changes, so both are taken
         * first and the motion is not held across the impulses (it would not fit in the
         * registers beside the velocities). */
        f4 dpx = f4_sub(b.dpx, a.dpx), dpy = f4_sub(b.dpy, a.dpy), sep[2];
        for (int p = 0; p < 2; p++) {
            f4 prax = f4_sub(f4_mul(a.qc, g->rax[p]), f4_mul(a.qs, g->ray[p]));
            f4 pray = f4_add(f4_mul(a.qs, g->rax[p]), f4_mul(a.qc, g->ray[p]));
            f4 prbx = f4_sub(f4_mul(b.qc, g->rbx[p]), f4_mul(b.qs, g->rby[p]));
            f4 prby = f4_add(f4_mul(b.qs, g->rbx[p]), f4_mul(b.qc, g->rby[p]));
            f4 dx = f4_add(dpx, f4_sub(prbx, prax)), dy = f4_add(dpy, f4_sub(prby, pray));
            sep[p] = f4_add(f4_add(f4_mul(dx, g->nx), f4_mul(dy, g->ny)), g->base_sep[p]);
        }
        wide_softness lane_soft = {zero, one, zero};
        if (pass.use_bias) {
            lane_soft.bias_rate = f4_select(g->fixed, rate_fixed, rate_movable);
            lane_soft.mass_scale = f4_select(g->fixed, mass_fixed, mass_movable);
            lane_soft.impulse_scale = f4_select(g->fixed, impulse_fixed, impulse_movable);
        }
        for (int p = 0; p < 2; p++) {
            f4 s = sep[p];
            f4 dvx, dvy;
            relative(&a, &b, g->rax[p], g->ray[p], g->rbx[p], g->rby[p], &dvx, &dvy);
            f4 vn = f4_add(f4_mul(dvx, g->nx), f4_mul(dvy, g->ny));
            f4 j = wide_normal_impulse(&pass, lane_soft, s, vn, g->normal_mass[p], &g->jn[p]);
            if (bounce)
                cold[i].max_jn[p] = f4_max(cold[i].max_jn[p], j);
            apply(&a, &b, g, g->rax[p], g->ray[p], g->rbx[p], g->rby[p], f4_mul(j, g->nx),
                  f4_mul(j, g->ny));
        }
        f4 tx = g->ny, ty = f4_sub(zero, g->nx);
        for (int p = 0; p < 2; p++) {
            f4 dvx, dvy;
            relative(&a, &b, g->rax[p], g->ray[p], g->rbx[p], g->rby[p], &dvx, &dvy);
            f4 vt = f4_add(f4_mul(dvx, tx), f4_mul(dvy, ty));
            f4 limit = f4_mul(g->friction, g->jn[p]);
            f4 jt = f4_sub(g->jt[p], f4_mul(g->tangent_mass[p], vt));
            jt = f4_max(f4_min(jt, limit), f4_sub(zero, limit));
            f4 j = f4_sub(jt, g->jt[p]);
            g->jt[p] = jt;
            apply(&a, &b, g, g->rax[p], g->ray[p], g->rbx[p], g->rby[p], f4_mul(j, tx),
                  f4_mul(j, ty));
        }
        scatter(bodies, g->a, &a);
        scatter(bodies, g->b, &b);
    }
}

/* Groups [begin, end): their impulses back into their constraints' cache entries, or with
 * restitution into the constraints (each constraint's own: the groups run on the workers). */
static void unpack_range(void *ctx, size_t begin, size_t end)
{
    sim_world *w = ctx;
    sim_constraint *cs = w->d2.constraints.at;
    const sim_wide_group *groups = w->d2.wide_groups.at;
    const sim_wide_cold *cold = w->d2.wide_cold.at;
    bool bounce = w->solver.bounce;
    for (size_t i = begin; i < end; i++) {
        const sim_wide_group *g = &groups[i];
        const uint32_t *ci = cold[i].constraint;
        for (int p = 0; p < 2; p++) {
            float jn[4], jt[4], mx[4];
            f4_store(jn, g->jn[p]);
            f4_store(jt, g->jt[p]);
            f4_store(mx, cold[i].max_jn[p]);
            for (int k = 0; k < 4; k++) {
                if (p >= cold[i].count[k])
                    continue;
                if (!bounce) {
                    sim_cache_entry *e =
                        (sim_cache_entry *)sim_cache_at(&w->solver.cache, cold[i].entry[k]);
                    e->points[p].jn = jn[k];
                    e->points[p].jt = jt[k];
                    continue;
                }
                sim_constraint_point *q = &cs[ci[k]].points[p];
                q->jn = jn[k];
                q->jt = jt[k];
                q->max_jn = mx[k];
            }
        }
    }
}

void sim_wide_unpack2(sim_world *w)
{
    sim_wide_for_colors(w, unpack_range, w); /* each worker the groups it solved */
}
