/* The 2D wide contact solver's lane arithmetic (solver_wide.c), written once for both lane
 * widths (wide_lanes.h): included at WIDE_LANES 4 to solve one group of four constraints in
 * SSE2, and at WIDE_LANES 8 inside AVX code to solve two consecutive groups of one color at
 * once, the first group in the low four lanes. The two groups share no movable body, so
 * solving them together is solving them one after the other; every lane does the same
 * operations in the same order at either width (solver.c's, point by point), so the width
 * changes no result. The includer defines GF(g, f), the field f of the WIDE_LANES / 4 groups
 * (or their sim_wide_cold) from g on as one lane vector, and GS(g, f, v), which stores it
 * back. */
#include "wide_lanes.h"

/* The lanes' body velocities and motion. */
typedef struct LN(lanes) {
    LF vx, vy, w, gs, dpx, dpy, qc, qs; /* gs: the gravity scales, carried back unchanged */
} LN(lanes);

/* The solver bodies of side a (b false) or b of the groups from g on: lane 4 h + k is group
 * g + h's lane k. */
static inline uint32_t LN(lane_body)(const sim_wide_group *g, bool b, int k)
{
    return b ? g[k / 4].b[k % 4] : g[k / 4].a[k % 4];
}

/* A solver body is two rows of four floats, (v.x, v.y, w, gravity_scale) and (dp.x, dp.y,
 * dq.x, dq.y): the bodies are turned into lanes by 4x4 transposes of unaligned loads (two
 * at once in each half at eight lanes), as Box2D v3's b2GatherBodies does. */
static inline LN(lanes) LN(gather)(const sim_solver_body *bodies, const sim_wide_group *g, bool b)
{
    const float *rows[WIDE_LANES];
    for (int k = 0; k < WIDE_LANES; k++)
        rows[k] = (const float *)&bodies[LN(lane_body)(g, b, k) & ~SIM_WIDE_STILL];
    LF r0 = FW(rows)(rows, 0, 0), r1 = FW(rows)(rows, 1, 0), r2 = FW(rows)(rows, 2, 0),
       r3 = FW(rows)(rows, 3, 0);
    FW(transpose)(&r0, &r1, &r2, &r3);
    LF s0 = FW(rows)(rows, 0, 4), s1 = FW(rows)(rows, 1, 4), s2 = FW(rows)(rows, 2, 4),
       s3 = FW(rows)(rows, 3, 4);
    FW(transpose)(&s0, &s1, &s2, &s3);
    return (LN(lanes)){r0, r1, r2, r3, s0, s1, s2, s3};
}

/* Velocities back into the bodies: the first row transposed back. */
static inline void LN(scatter)(sim_solver_body *bodies, const sim_wide_group *g, bool b,
                               const LN(lanes) *l)
{
    LF r[4] = {l->vx, l->vy, l->w, l->gs};
    FW(transpose)(&r[0], &r[1], &r[2], &r[3]);
    for (int k = 0; k < WIDE_LANES; k++) {
        uint32_t i = LN(lane_body)(g, b, k);
        if (i == 0 || (i & SIM_WIDE_STILL))
            continue; /* the body at rest stays at rest, a still one as it is */
        FW(store_row)((float *)&bodies[i], r[k % 4], k / 4);
    }
}

/* What every point of the lanes' constraints reads: the normal, inverse masses and
 * inertias. */
typedef struct LN(group_lanes) {
    LF nx, ny, ma, mb, ia, ib;
} LN(group_lanes);

static inline LN(group_lanes) LN(group_load)(const sim_wide_group *g)
{
    return (LN(group_lanes)){GF(g, nx), GF(g, ny), GF(g, ma), GF(g, mb), GF(g, ia), GF(g, ib)};
}

/* A point's anchors from each centre of mass, m. */
typedef struct LN(anchors) {
    LF rax, ray, rbx, rby;
} LN(anchors);

static inline LN(anchors) LN(anchors_of)(const sim_wide_group *g, int p)
{
    return (LN(anchors)){GF(g, rax[p]), GF(g, ray[p]), GF(g, rbx[p]), GF(g, rby[p])};
}

/* An impulse (px, py) at the anchors r: -p on a, +p on b. */
static inline void LN(apply)(LN(lanes) *a, LN(lanes) *b, const LN(group_lanes) *g,
                             const LN(anchors) *r, LF px, LF py)
{
    a->vx = FW(sub)(a->vx, FW(mul)(g->ma, px));
    a->vy = FW(sub)(a->vy, FW(mul)(g->ma, py));
    a->w = FW(sub)(a->w, FW(mul)(g->ia, FW(sub)(FW(mul)(r->rax, py), FW(mul)(r->ray, px))));
    b->vx = FW(add)(b->vx, FW(mul)(g->mb, px));
    b->vy = FW(add)(b->vy, FW(mul)(g->mb, py));
    b->w = FW(add)(b->w, FW(mul)(g->ib, FW(sub)(FW(mul)(r->rbx, py), FW(mul)(r->rby, px))));
}

/* Relative velocity of b's anchor to a's: (vb + wb x rb) - (va + wa x ra). */
static inline void LN(relative)(const LN(lanes) *a, const LN(lanes) *b, const LN(anchors) *r,
                                LF *dvx, LF *dvy)
{
    *dvx = FW(sub)(FW(sub)(b->vx, FW(mul)(b->w, r->rby)), FW(sub)(a->vx, FW(mul)(a->w, r->ray)));
    *dvy = FW(sub)(FW(add)(b->vy, FW(mul)(b->w, r->rbx)), FW(add)(a->vy, FW(mul)(a->w, r->rax)));
}

/* The warm start of the groups from g on: last step's impulses applied again. */
static inline void LN(warm_groups)(sim_solver_body *bodies, const sim_wide_group *g)
{
    LN(group_lanes) gl = LN(group_load)(g);
    LN(lanes) a = LN(gather)(bodies, g, false), b = LN(gather)(bodies, g, true);
    LF tx = gl.ny, ty = FW(sub)(FW(set1)(0.0f), gl.nx);
    for (int p = 0; p < 2; p++) {
        LF jn = GF(g, jn[p]), jt = GF(g, jt[p]);
        LF px = FW(add)(FW(mul)(jn, gl.nx), FW(mul)(jt, tx));
        LF py = FW(add)(FW(mul)(jn, gl.ny), FW(mul)(jt, ty));
        LN(anchors) r = LN(anchors_of)(g, p);
        LN(apply)(&a, &b, &gl, &r, px, py);
    }
    LN(scatter)(bodies, g, false, &a);
    LN(scatter)(bodies, g, true, &b);
}

/* The pass's two softnesses in lanes (softness_set), splatted once before its groups. */
typedef struct LN(softness_lanes) {
    LN(wide_softness) fixed, movable;
} LN(softness_lanes);

static inline LN(softness_lanes) LN(softness_lanes_of)(softness_set s)
{
    return (LN(softness_lanes)){
        {FW(set1)(s.fixed.bias_rate), FW(set1)(s.fixed.mass_scale),
         FW(set1)(s.fixed.impulse_scale)},
        {FW(set1)(s.movable.bias_rate), FW(set1)(s.movable.mass_scale),
         FW(set1)(s.movable.impulse_scale)}};
}

/* One solve of the groups from g on (cold at their index): the soft normal impulses, then
 * friction; with `bounce` each point's largest normal impulse is kept for restitution. */
static inline void LN(solve_groups)(sim_solver_body *bodies, sim_wide_group *g,
                                    sim_wide_cold *cold, const LN(wide_pass_lanes) *pass,
                                    const LN(softness_lanes) *soft, bool bounce)
{
    LF zero = FW(set1)(0.0f), one = FW(set1)(1.0f);
    LN(group_lanes) gl = LN(group_load)(g);
    LN(lanes) a = LN(gather)(bodies, g, false), b = LN(gather)(bodies, g, true);
    /* The separations now, from the anchors turned by each body's rotation so far: they
     * read the motion of the step alone, which no impulse changes, so both are taken
     * first and the motion is not held across the impulses (it would not fit in the
     * registers beside the velocities). */
    LF dpx = FW(sub)(b.dpx, a.dpx), dpy = FW(sub)(b.dpy, a.dpy), sep[2];
    for (int p = 0; p < 2; p++) {
        LN(anchors) r = LN(anchors_of)(g, p);
        LF prax = FW(sub)(FW(mul)(a.qc, r.rax), FW(mul)(a.qs, r.ray));
        LF pray = FW(add)(FW(mul)(a.qs, r.rax), FW(mul)(a.qc, r.ray));
        LF prbx = FW(sub)(FW(mul)(b.qc, r.rbx), FW(mul)(b.qs, r.rby));
        LF prby = FW(add)(FW(mul)(b.qs, r.rbx), FW(mul)(b.qc, r.rby));
        LF dx = FW(add)(dpx, FW(sub)(prbx, prax)), dy = FW(add)(dpy, FW(sub)(prby, pray));
        sep[p] = FW(add)(FW(add)(FW(mul)(dx, gl.nx), FW(mul)(dy, gl.ny)), GF(g, base_sep[p]));
    }
    LN(wide_softness) lane_soft = {zero, one, zero};
    if (pass->use_bias) {
        LF fixed = GF(g, fixed);
        lane_soft.bias_rate = FW(select)(fixed, soft->fixed.bias_rate, soft->movable.bias_rate);
        lane_soft.mass_scale =
            FW(select)(fixed, soft->fixed.mass_scale, soft->movable.mass_scale);
        lane_soft.impulse_scale =
            FW(select)(fixed, soft->fixed.impulse_scale, soft->movable.impulse_scale);
    }
    LF jn[2];
    for (int p = 0; p < 2; p++) {
        LN(anchors) r = LN(anchors_of)(g, p);
        LF dvx, dvy;
        LN(relative)(&a, &b, &r, &dvx, &dvy);
        LF vn = FW(add)(FW(mul)(dvx, gl.nx), FW(mul)(dvy, gl.ny));
        jn[p] = GF(g, jn[p]);
        LF j = LN(wide_normal_impulse)(pass, lane_soft, sep[p], vn, GF(g, normal_mass[p]),
                                       &jn[p]);
        GS(g, jn[p], jn[p]);
        if (bounce)
            GS(cold, max_jn[p], FW(max)(GF(cold, max_jn[p]), j));
        LN(apply)(&a, &b, &gl, &r, FW(mul)(j, gl.nx), FW(mul)(j, gl.ny));
    }
    LF friction = GF(g, friction);
    LF tx = gl.ny, ty = FW(sub)(zero, gl.nx);
    for (int p = 0; p < 2; p++) {
        LN(anchors) r = LN(anchors_of)(g, p);
        LF dvx, dvy;
        LN(relative)(&a, &b, &r, &dvx, &dvy);
        LF vt = FW(add)(FW(mul)(dvx, tx), FW(mul)(dvy, ty));
        LF limit = FW(mul)(friction, jn[p]);
        LF old = GF(g, jt[p]);
        LF jt = FW(sub)(old, FW(mul)(GF(g, tangent_mass[p]), vt));
        jt = FW(max)(FW(min)(jt, limit), FW(sub)(zero, limit));
        LF j = FW(sub)(jt, old);
        GS(g, jt[p], jt);
        LN(apply)(&a, &b, &gl, &r, FW(mul)(j, tx), FW(mul)(j, ty));
    }
    LN(scatter)(bodies, g, false, &a);
    LN(scatter)(bodies, g, true, &b);
}

/* The warm start of groups [begin, end) of one color WIDE_LANES / 4 at a time; returns the
 * first group not taken (at eight lanes an odd last one, for four). */
static inline size_t LN(warm_range)(sim_solver_body *bodies, const sim_wide_group *groups,
                                    size_t begin, size_t end)
{
    size_t i = begin;
    for (; i + WIDE_LANES / 4 <= end; i += WIDE_LANES / 4)
        LN(warm_groups)(bodies, &groups[i]);
    return i;
}

/* One solve of groups [begin, end) of one color in the same way, with the pass's numbers
 * splatted once. */
static inline size_t LN(solve_range)(const sim_wide_pass *job, size_t begin, size_t end)
{
    const sim_world *w = job->w;
    LN(wide_pass_lanes) pass = LN(wide_pass_lanes_of)(job);
    LN(softness_lanes) soft = LN(softness_lanes_of)(job->soft);
    sim_solver_body *bodies = w->d2.solver_bodies.at;
    sim_wide_group *groups = w->d2.wide_groups.at;
    sim_wide_cold *cold = w->d2.wide_cold.at;
    bool bounce = w->solver.bounce;
    size_t i = begin;
    for (; i + WIDE_LANES / 4 <= end; i += WIDE_LANES / 4)
        LN(solve_groups)(bodies, &groups[i], &cold[i], &pass, &soft, bounce);
    return i;
}
