/* The 3D contact solver four constraints at a time: solver_wide.c's design (Box2D v3's graph
 * coloring and wide contact solver, contact_solver.c) with solver.c's 3D arithmetic lane by
 * lane. The constraints of one color share no movable body (graph_color.c), so each group of
 * four is solved at once in SSE lanes; those that find no color are solved one by one by
 * solver.c after the colors. Colors and groups follow the constraints' order: the same world
 * solves the same way. Where the processor has AVX, the warm start and the solve take two
 * groups of a color at once in eight lanes (f8.h): the lane arithmetic is written once for
 * both widths (solver3_lanes.h) and gives the same bits at either. With one thread the groups
 * are laid out block by block instead (solver3_blocks.c), each block's packed as solver.c
 * comes to solve it.
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
#include <math.h>
#include <stddef.h>

#include "f4.h"
#include "solver.h"
#include "wide_soft.h"
#include "world_internal.h"

/* The body loads read sim_solver_body3 as floats: v, w, dp, dq, gravity_scale in order. */
_Static_assert(offsetof(sim_solver_body3, v) == 0 && offsetof(sim_solver_body3, w) == 12 &&
                   offsetof(sim_solver_body3, dp) == 24 && offsetof(sim_solver_body3, dq) == 36 &&
                   sizeof(sim_solver_body3) == 56,
               "sim_solver_body3 is 14 floats");

/* Three-vectors in lanes, one vector a lane. */
typedef struct lv3 {
    f4 x, y, z;
} lv3;

typedef struct wide_point3 {
    lv3 ra, rb;    /* anchors from each centre of mass at the start of the step, m */
    f4 base_sep;  /* m */
    lv3 ja, jb, ka, kb; /* the normal row's angular terms: r x n and I^-1 (r x n) */
    f4 normal_mass, tangent_mass[2];
    f4 jn, jt[2], max_jn; /* N s */
    f4 approach;  /* m/s */
} wide_point3;

struct sim_wide_group3 {
    uint32_t a[4], b[4];    /* solver bodies; 0 in an empty lane */
    uint32_t constraint[4]; /* UINT32_MAX in an empty lane */
    int count;              /* the most points of any lane */
    bool bounce;            /* some lane has restitution */
    lv3 n, t[2];
    f4 friction, restitution, ma, mb;
    f4 ia[6], ib[6]; /* world inverse inertia: xx, yy, zz, xy, xz, yz */
    f4 bias_rate, mass_scale, impulse_scale;
    wide_point3 p[COL_MAX_POINTS3];
};

size_t sim_wide_group_size3(void) { return sizeof(sim_wide_group3); }

/* The lane arithmetic at four lanes: one group. */
#define GF(g, f) ((g)->f)
#define GS(g, f, v) ((g)->f = (v))
#include "solver3_lanes.h"
#undef GF
#undef GS

/* ---- building the groups ---- */

static bool movable(const sim_solver_info3 *i)
{
    const mk_mat3 *m = &i->inv_inertia;
    return i->inv_mass > 0.0f || m->c0.x > 0.0f || m->c1.y > 0.0f || m->c2.z > 0.0f;
}

/* The effective mass of a row with angular terms ja = ra x d, jb = rb x d and ka, kb those
 * through each inverse inertia (solver.c's make_row), lane by lane. */
static f4 row_mass_of(const sim_wide_group3 *g, lv3 ja, lv3 jb, lv3 ka, lv3 kb)
{
    f4 k = f4_add(f4_add(f4_add(g->ma, g->mb), lv3_dot(ja, ka)), lv3_dot(jb, kb));
    f4 zero = f4_set1(0.0f);
    return f4_select(f4_gt(k, zero), f4_div(f4_set1(1.0f), k), zero);
}

/* The effective mass along d at anchors ra, rb. */
static f4 row_mass(const sim_wide_group3 *g, lv3 ra, lv3 rb, lv3 d)
{
    lv3 ja = lv3_cross(ra, d), jb = lv3_cross(rb, d);
    return row_mass_of(g, ja, jb, sym_mul(g->ia, ja), sym_mul(g->ib, jb));
}

/* Packing reads the constraints and the bodies' solver info as floats, four lanes at once by
 * 4x4 transposes: a constraint's normal, tangents, friction and restitution in order; a
 * point's anchors, base separation and impulses; an info's inverse mass and inertia. */
_Static_assert(offsetof(sim_constraint3, tangent) == offsetof(sim_constraint3, normal) + 12 &&
                   offsetof(sim_constraint3, friction) ==
                       offsetof(sim_constraint3, normal) + 36 &&
                   offsetof(sim_constraint3, restitution) ==
                       offsetof(sim_constraint3, normal) + 40 &&
                   offsetof(sim_constraint3, fixed) == offsetof(sim_constraint3, normal) + 44,
               "a constraint's directions, friction and restitution are 11 floats in a row");
_Static_assert(offsetof(sim_constraint_point3, rb) == 12 &&
                   offsetof(sim_constraint_point3, base_sep) == 24 &&
                   offsetof(sim_constraint_point3, jn) == 28 &&
                   offsetof(sim_constraint_point3, jt) == 32 &&
                   sizeof(sim_constraint_point3) == 48,
               "a constraint point's anchors, base separation and impulses lead its 12 floats");
_Static_assert(offsetof(sim_solver_info3, inv_inertia) == 4 && sizeof(mk_mat3) == 36 &&
                   sizeof(sim_solver_info3) == 44,
               "a solver info is the inverse mass, then the inertia's columns");

/* An empty lane's constraint and info: no mass, no point. */
static const sim_constraint3 no_constraint;
static const sim_solver_info3 no_info;

/* Floats [at, at + 4) of the four rows, one row a lane: out[f] holds float at + f. */
static inline void lanes_at(const float *const rows[4], int at, f4 out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = f4_rows(rows, k, at);
    f4_transpose(&out[0], &out[1], &out[2], &out[3]);
}

/* A side's inverse mass and the world inverse inertia's six numbers (xx, yy, zz, xy, xz,
 * yz: columns c0.x, c1.y, c2.z, c1.x, c2.x, c2.y) in lanes, from infos that are 11 floats
 * each (the rows at 0, 4 and 7: none reads past an info). */
static void mass_lanes(const float *const rows[4], f4 *m, f4 *inertia)
{
    f4 r0[4], r4[4], r7[4];
    lanes_at(rows, 0, r0);
    lanes_at(rows, 4, r4);
    lanes_at(rows, 7, r7);
    *m = r0[0];
    inertia[0] = r0[1];
    inertia[1] = r4[1];
    inertia[2] = r7[2];
    inertia[3] = r4[0];
    inertia[4] = r4[3];
    inertia[5] = r7[1];
}

/* Fills a group from up to four constraints (ci[k] == UINT32_MAX for an empty lane): a missing
 * constraint or point has no mass, so it takes and gives no impulse. */
static void pack(sim_wide_group3 *g, const sim_solver_body3 *bodies,
                 const sim_solver_info3 *info, const sim_constraint3 *cs, const uint32_t *ci,
                 softness_set s)
{
    const sim_constraint3 *c[4];
    const float *dirs[4], *mass_a[4], *mass_b[4];
    float soft[3][4];
    g->count = 0;
    g->bounce = false;
    for (int k = 0; k < 4; k++) {
        c[k] = ci[k] == UINT32_MAX ? NULL : &cs[ci[k]];
        g->constraint[k] = ci[k];
        g->a[k] = c[k] ? c[k]->a : 0;
        g->b[k] = c[k] ? c[k]->b : 0;
        const sim_constraint3 *ck = c[k] ? c[k] : &no_constraint;
        const sim_solver_info3 *ia = c[k] ? &info[c[k]->a] : &no_info;
        const sim_solver_info3 *ib = c[k] ? &info[c[k]->b] : &no_info;
        dirs[k] = &ck->normal.x;
        mass_a[k] = &ia->inv_mass;
        mass_b[k] = &ib->inv_mass;
        const sim_softness *lane_soft = c[k] && c[k]->fixed ? &s.fixed : &s.movable;
        soft[0][k] = c[k] ? lane_soft->bias_rate : 0.0f;
        soft[1][k] = c[k] ? lane_soft->mass_scale : 0.0f;
        soft[2][k] = c[k] ? lane_soft->impulse_scale : 0.0f;
        if (!c[k])
            continue;
        if (g->a[k] && !movable(ia))
            g->a[k] |= SIM_WIDE_STILL;
        if (g->b[k] && !movable(ib))
            g->b[k] |= SIM_WIDE_STILL;
        g->count = c[k]->count > g->count ? c[k]->count : g->count;
        g->bounce |= c[k]->restitution != 0.0f;
    }
    f4 d[12];
    lanes_at(dirs, 0, d);
    lanes_at(dirs, 4, d + 4);
    lanes_at(dirs, 8, d + 8);
    g->n = (lv3){d[0], d[1], d[2]};
    g->t[0] = (lv3){d[3], d[4], d[5]};
    g->t[1] = (lv3){d[6], d[7], d[8]};
    g->friction = d[9];
    g->restitution = d[10];
    mass_lanes(mass_a, &g->ma, g->ia);
    mass_lanes(mass_b, &g->mb, g->ib);
    g->bias_rate = f4_load(soft[0]);
    g->mass_scale = f4_load(soft[1]);
    g->impulse_scale = f4_load(soft[2]);

    /* The masses and approach speeds lane by lane, from the packed anchors. */
    lanes3 va, vb;
    const uint32_t *ea[1] = {g->a}, *eb[1] = {g->b};
    gather_vel(bodies, ea, &va);
    gather_vel(bodies, eb, &vb);
    f4 zero = f4_set1(0.0f);
    for (int i = 0; i < COL_MAX_POINTS3; i++) {
        const float *pts[4];
        float on[4];
        for (int k = 0; k < 4; k++) {
            bool here = c[k] && i < c[k]->count;
            pts[k] = here ? &c[k]->points[i].ra.x : &no_constraint.points[0].ra.x;
            on[k] = here ? 1.0f : 0.0f;
        }
        f4 q[12];
        lanes_at(pts, 0, q);
        lanes_at(pts, 4, q + 4);
        lanes_at(pts, 8, q + 8);
        wide_point3 *p = &g->p[i];
        p->ra = (lv3){q[0], q[1], q[2]};
        p->rb = (lv3){q[3], q[4], q[5]};
        p->base_sep = q[6];
        p->jn = q[7];
        p->jt[0] = q[8];
        p->jt[1] = q[9];
        f4 present = f4_gt(f4_load(on), zero);
        p->ja = lv3_cross(p->ra, g->n);
        p->jb = lv3_cross(p->rb, g->n);
        p->ka = sym_mul(g->ia, p->ja);
        p->kb = sym_mul(g->ib, p->jb);
        p->normal_mass = f4_select(present, row_mass_of(g, p->ja, p->jb, p->ka, p->kb), zero);
        p->tangent_mass[0] = f4_select(present, row_mass(g, p->ra, p->rb, g->t[0]), zero);
        p->tangent_mass[1] = f4_select(present, row_mass(g, p->ra, p->rb, g->t[1]), zero);
        p->max_jn = zero;
        p->approach = lv3_dot(relative(&va, &vb, p->ra, p->rb), g->n);
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
        !mk_vec_reserve(&w->solver.wide_points.v, nc) ||
        !mk_vec_reserve(&w->d3.wide_groups.v, nc / 4 + SIM_WIDE_COLORS + 1))
        return false;
    uint32_t *ends = w->solver.wide_ends.at;
    uint8_t *points = w->solver.wide_points.at;
    for (size_t i = 0; i < nc; i++) {
        ends[2 * i] = movable(&info[cs[i].a]) ? cs[i].a : 0;
        ends[2 * i + 1] = movable(&info[cs[i].b]) ? cs[i].b : 0;
        points[i] = (uint8_t)(cs[i].count < COL_MAX_POINTS3 ? cs[i].count : COL_MAX_POINTS3);
    }
    /* Packed block by block as solver.c solves them, where it takes blocks. */
    if (sim_wide_blocks3(w, ends, points, &ng)) {
        w->d3.wide_groups.v.len = ng;
        return true;
    }
    pack_ctx ctx = {w->d3.wide_groups.at, w->d3.solver_bodies.at, info, cs, s};
    if (!sim_wide_groups(w, ends, points, nc, w->d3.solver_bodies.v.len, pack_group, &ctx,
                         &ng))
        return false;
    w->d3.wide_groups.v.len = ng;
    return true;
}

void sim_wide_pack_block3(sim_world *w, const sim_wide_block3 *b, softness_set s)
{
    const uint32_t *order = w->d3.block_order.at;
    for (int k = 0; k < SIM_WIDE_COLORS; k++)
        for (uint32_t g = b->first[k], i = b->at[k]; g < b->first[k + 1]; g++, i += 4) {
            uint32_t ci[4];
            for (uint32_t lane = 0; lane < 4; lane++)
                ci[lane] = i + lane < b->at[k + 1] ? order[i + lane] : UINT32_MAX;
            pack(&w->d3.wide_groups.at[g], w->d3.solver_bodies.at, w->d3.solver_info.at,
                 w->d3.constraints.at, ci, s);
        }
}

/* ---- solving ---- */

#if SIM_F8
/* The lane arithmetic at eight lanes: two groups of one color at once. */
#pragma GCC push_options
#pragma GCC target("avx")
#undef WIDE_LANES
#define WIDE_LANES 8
typedef struct lv38 {
    f8 x, y, z;
} lv38;
#define GF(g, f) f8_pair(&(g)[0].f, &(g)[1].f)
#define GS(g, f, v) f8_unpair(&(g)[0].f, &(g)[1].f, (v))
#include "wide_soft.h"
#include "solver3_lanes.h"
#undef GF
#undef GS

/* The groups [begin, end) of one color two at a time where they have as many points (a lane
 * past its constraint's points is solved as a point of no mass, which may turn a velocity's
 * -0 into +0: only groups that would run those points at four lanes do); returns the first
 * group not solved. */
static size_t warm_pairs(sim_solver_body3 *bodies, const sim_wide_group3 *groups, size_t begin,
                         size_t end)
{
    size_t gi = begin;
    for (; gi + 1 < end && groups[gi].count == groups[gi + 1].count; gi += 2)
        warm_groups8(bodies, &groups[gi], groups[gi].count);
    return gi;
}

static size_t solve_pairs(sim_solver_body3 *bodies, sim_wide_group3 *groups,
                          const sim_wide_pass *job, size_t begin, size_t end)
{
    wide_pass_lanes8 pass = wide_pass_lanes_of8(job);
    size_t gi = begin;
    for (; gi + 1 < end && groups[gi].count == groups[gi + 1].count; gi += 2)
        solve_groups8(bodies, &groups[gi], &pass, groups[gi].count);
    return gi;
}
#pragma GCC pop_options
#undef WIDE_LANES
#define WIDE_LANES 4
#include "wide_lanes.h"
#endif

void sim_wide_warm_range3(void *arg, size_t begin, size_t end)
{
    const sim_world *w = ((const sim_wide_pass *)arg)->w;
    sim_solver_body3 *bodies = w->d3.solver_bodies.at;
    const sim_wide_group3 *groups = w->d3.wide_groups.at;
    while (begin < end) {
#if SIM_F8
        if (sim_eight_lanes())
            begin = warm_pairs(bodies, groups, begin, end);
        if (begin == end)
            break;
#endif
        warm_groups(bodies, &groups[begin], groups[begin].count);
        begin++;
    }
}

void sim_wide_solve_range3(void *arg, size_t begin, size_t end)
{
    const sim_wide_pass *job = arg;
    wide_pass_lanes pass = wide_pass_lanes_of(job);
    sim_solver_body3 *bodies = job->w->d3.solver_bodies.at;
    sim_wide_group3 *groups = job->w->d3.wide_groups.at;
    while (begin < end) {
#if SIM_F8
        if (sim_eight_lanes())
            begin = solve_pairs(bodies, groups, job, begin, end);
        if (begin == end)
            break;
#endif
        solve_groups(bodies, &groups[begin], &pass, groups[begin].count);
        begin++;
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
        const uint32_t *ea[1] = {g->a}, *eb[1] = {g->b};
        group_lanes gl;
        group_load(g, &gl);
        lanes3 a, b;
        gather_vel(bodies, ea, &a);
        gather_vel(bodies, eb, &b);
        f4 bouncy = f4_gt(g->restitution, zero);
        for (int i = 0; i < g->count; i++) {
            wide_point3 *p = &g->p[i];
            /* Points that approached fast enough and were pushed (solver.c's restitution). */
            f4 on = f4_and_not(f4_and_not(bouncy, f4_gt(p->approach, slow)),
                               f4_eq(p->max_jn, zero));
            f4 vn = normal_speed(&a, &b, p->ja, p->jb, g->n);
            f4 j = f4_mul(f4_sub(zero, p->normal_mass),
                          f4_add(vn, f4_mul(g->restitution, p->approach)));
            j = f4_select(on, j, zero);
            f4 jn = f4_max(f4_add(p->jn, j), zero);
            j = f4_sub(jn, p->jn);
            p->jn = jn;
            apply_normal(&a, &b, &gl, p->ka, p->kb, j);
        }
        scatter(bodies, ea, &a);
        scatter(bodies, eb, &b);
    }
}

/* ---- integration ---- */

/* q turned further by the rotation vector h w (small), renormalised: the first-order
 * quaternion integration q + h/2 (0, w) q that Jolt and Bullet use. */
static mk_quat integrate_rotation(mk_quat q, mk_vec3 w, float h)
{
    mk_vec3 hw = mk_v3_scale(w, h);
    mk_quat dq = {0.5f * hw.x, 0.5f * hw.y, 0.5f * hw.z, 0.0f};
    mk_quat r = mk_quat_mul(dq, q);
    r = (mk_quat){q.x + r.x, q.y + r.y, q.z + r.z, q.w + r.w};
    mk_quat out;
    return mk_quat_normalize_checked(r, &out) ? out : q;
}

#if SIM_F8
#pragma GCC push_options
#pragma GCC target("avx")
/* Lanes whose float is finite: |x| < infinity (NaN is not). */
static inline __m128 finite4(__m128 x)
{
    __m128 magnitude = _mm_andnot_ps(_mm_set1_ps(-0.0f), x);
    return _mm_cmplt_ps(magnitude, _mm_set1_ps(INFINITY));
}

/* Four bodies from b on, lane k body k: integrate_rotation's arithmetic, operation by
 * operation (mk_quat_mul with dq.w = 0 as its products are written, then
 * mk_quat_normalize_checked's sum, root and quotients in double). */
static void integrate4(sim_solver_body3 *b, float h)
{
    float *f[4] = {&b[0].v.x, &b[1].v.x, &b[2].v.x, &b[3].v.x};
    f4 vx = f4_load(f[0]), vy = f4_load(f[1]), vz = f4_load(f[2]), wx = f4_load(f[3]);
    f4_transpose(&vx, &vy, &vz, &wx);
    f4 wy = f4_load(f[0] + 4), wz = f4_load(f[1] + 4), px = f4_load(f[2] + 4),
       py = f4_load(f[3] + 4);
    f4_transpose(&wy, &wz, &px, &py);
    f4 pz = f4_load(f[0] + 8), qx = f4_load(f[1] + 8), qy = f4_load(f[2] + 8),
       qz = f4_load(f[3] + 8);
    f4_transpose(&pz, &qx, &qy, &qz);
    f4 t0 = f4_load(f[0] + 10), t1 = f4_load(f[1] + 10), qw = f4_load(f[2] + 10),
       gs = f4_load(f[3] + 10);
    f4_transpose(&t0, &t1, &qw, &gs);
    f4 hh = f4_set1(h), half = f4_set1(0.5f), zero = f4_set1(0.0f);
    px = f4_add(px, f4_mul(hh, vx));
    py = f4_add(py, f4_mul(hh, vy));
    pz = f4_add(pz, f4_mul(hh, vz));
    f4 dx = f4_mul(half, f4_mul(wx, hh)), dy = f4_mul(half, f4_mul(wy, hh)),
       dz = f4_mul(half, f4_mul(wz, hh));
    f4 rx = f4_sub(f4_add(f4_add(f4_mul(zero, qx), f4_mul(dx, qw)), f4_mul(dy, qz)),
                   f4_mul(dz, qy));
    f4 ry = f4_add(f4_add(f4_sub(f4_mul(zero, qy), f4_mul(dx, qz)), f4_mul(dy, qw)),
                   f4_mul(dz, qx));
    f4 rz = f4_add(f4_sub(f4_add(f4_mul(zero, qz), f4_mul(dx, qy)), f4_mul(dy, qx)),
                   f4_mul(dz, qw));
    f4 rw = f4_sub(f4_sub(f4_sub(f4_mul(zero, qw), f4_mul(dx, qx)), f4_mul(dy, qy)),
                   f4_mul(dz, qz));
    rx = f4_add(qx, rx);
    ry = f4_add(qy, ry);
    rz = f4_add(qz, rz);
    rw = f4_add(qw, rw);
    __m256d ex = _mm256_cvtps_pd(rx), ey = _mm256_cvtps_pd(ry), ez = _mm256_cvtps_pd(rz),
            ew = _mm256_cvtps_pd(rw);
    __m256d l = _mm256_sqrt_pd(_mm256_add_pd(
        _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(ex, ex), _mm256_mul_pd(ey, ey)),
                      _mm256_mul_pd(ez, ez)),
        _mm256_mul_pd(ew, ew)));
    __m256d sane = _mm256_and_pd(_mm256_cmp_pd(l, _mm256_set1_pd(1e-6), _CMP_GE_OQ),
                                 _mm256_cmp_pd(l, _mm256_set1_pd(INFINITY), _CMP_LT_OQ));
    int ok = _mm256_movemask_pd(sane) &
             _mm_movemask_ps(_mm_and_ps(_mm_and_ps(finite4(rx), finite4(ry)),
                                        _mm_and_ps(finite4(rz), finite4(rw))));
    __m128i bit = _mm_setr_epi32(1, 2, 4, 8);
    f4 keep = _mm_castsi128_ps(
        _mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32(ok), bit), bit)); /* the new rotation */
    qx = f4_select(keep, _mm256_cvtpd_ps(_mm256_div_pd(ex, l)), qx);
    qy = f4_select(keep, _mm256_cvtpd_ps(_mm256_div_pd(ey, l)), qy);
    qz = f4_select(keep, _mm256_cvtpd_ps(_mm256_div_pd(ez, l)), qz);
    qw = f4_select(keep, _mm256_cvtpd_ps(_mm256_div_pd(ew, l)), qw);
    t0 = qy; /* floats 10 and 11 are qy and qz */
    t1 = qz;
    f4_transpose(&wy, &wz, &px, &py);
    f4_transpose(&pz, &qx, &qy, &qz);
    f4 r[4][2] = {{wy, pz}, {wz, qx}, {px, qy}, {py, qz}};
    for (int k = 0; k < 4; k++) {
        f4_store(f[k] + 4, r[k][0]);
        f4_store(f[k] + 8, r[k][1]);
    }
    f4_transpose(&t0, &t1, &qw, &gs);
    f4 last[4] = {t0, t1, qw, gs};
    for (int k = 0; k < 4; k++)
        f4_store(f[k] + 10, last[k]);
}
#pragma GCC pop_options
#endif

void sim_integrate3(sim_solver_body3 *bodies, size_t begin, size_t end, float h)
{
    size_t i = begin;
#if SIM_F8
    if (sim_eight_lanes())
        for (; i + 4 <= end; i += 4)
            integrate4(&bodies[i], h);
#endif
    for (; i < end; i++) {
        bodies[i].dp = mk_v3_mad(bodies[i].dp, h, bodies[i].v);
        bodies[i].dq = integrate_rotation(bodies[i].dq, bodies[i].w, h);
    }
}

void sim_wide_unpack3(sim_world *w) { sim_wide_unpack_range3(w, 0, w->d3.wide_groups.v.len); }

void sim_wide_unpack_range3(sim_world *w, size_t begin, size_t end)
{
    sim_constraint3 *cs = w->d3.constraints.at;
    const sim_wide_group3 *groups = w->d3.wide_groups.at;
    for (size_t gi = begin; gi < end; gi++) {
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
