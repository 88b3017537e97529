/* The contact solver four constraints at a time (Box2D v3's graph coloring and wide
 * constraints): constraints are given colors so that no two of one color share a movable body
 * (graph_color.c); the constraints of a color are then independent and are solved in groups
 * of four lanes. Constraints that find no free color are solved one by one after the colors.
 * The colors and groups follow from the constraints' order, so the same world solves the same
 * way. The arithmetic is solver.c's, lane by lane. Where the processor has AVX, the warm start
 * and the solve take two consecutive groups of a color at once in eight lanes (f8.h), an odd
 * last group of a color alone at four: the lane arithmetic is written once for both widths
 * (solver_lanes.h) and gives the same bits at either. */
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

/* The lane arithmetic reads a solver body as two rows of four floats. */
_Static_assert(sizeof(sim_solver_body) == 8 * sizeof(float) &&
                   offsetof(sim_solver_body, v) == 0 && offsetof(sim_solver_body, w) == 8 &&
                   offsetof(sim_solver_body, gravity_scale) == 12 &&
                   offsetof(sim_solver_body, dp) == 16 && offsetof(sim_solver_body, dq) == 24,
               "gather and scatter read a solver body as two rows of four floats");

/* The lane arithmetic at four lanes: one group. */
#define GF(g, f) ((g)->f)
#define GS(g, f, v) ((g)->f = (v))
#include "solver_lanes.h"
#undef GF
#undef GS

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
    if (!sim_wide_groups(w, w->solver.wide_ends.at, NULL, nc, w->d2.solver_bodies.v.len, pack_group,
                         &ctx, &ng))
        return false;
    w->d2.wide_groups.v.len = w->d2.wide_cold.v.len = ng;
    return true;
}

#if SIM_F8
/* The lane arithmetic at eight lanes: two consecutive groups of one color at once. */
#pragma GCC push_options
#pragma GCC target("avx")
#undef WIDE_LANES
#define WIDE_LANES 8
#define GF(g, f) f8_pair(&(g)[0].f, &(g)[1].f)
#define GS(g, f, v) f8_unpair(&(g)[0].f, &(g)[1].f, (v))
#include "wide_soft.h"
#include "solver_lanes.h"
#undef GF
#undef GS

#pragma GCC pop_options
#undef WIDE_LANES
#define WIDE_LANES 4
#include "wide_lanes.h"
#endif

/* Two groups at once while a color has two left, where the processor has AVX; then one. */
void sim_wide_warm_range2(void *arg, size_t begin, size_t end)
{
    const sim_world *w = ((const sim_wide_pass *)arg)->w;
    sim_solver_body *bodies = w->d2.solver_bodies.at;
    const sim_wide_group *groups = w->d2.wide_groups.at;
#if SIM_F8
    if (sim_eight_lanes())
        begin = warm_range8(bodies, groups, begin, end);
#endif
    warm_range(bodies, groups, begin, end);
}

void sim_wide_solve_range2(void *arg, size_t begin, size_t end)
{
    const sim_wide_pass *job = arg;
#if SIM_F8
    if (sim_eight_lanes())
        begin = solve_range8(job, begin, end);
#endif
    if (begin < end)
        solve_range(job, begin, end);
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
