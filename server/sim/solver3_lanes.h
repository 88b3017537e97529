/* The 3D wide contact solver's lane arithmetic (solver3_wide.c), written once for both lane
 * widths (wide_lanes.h): included at WIDE_LANES 4 to solve one group of four constraints in SSE2,
 * and at WIDE_LANES 8 inside AVX code to solve two groups of one color at once, the first group in
 * the low four lanes. The two groups share no movable body, so solving them together is
 * solving them one after the other; every lane does the same operations in the same order at
 * either width, so the width changes no result. The includer defines LN(lv3), a 3-vector of
 * lane vectors (x, y, z), GF(g, f), the field f of the WIDE_LANES / 4 groups from g on as one
 * lane vector, and GS(g, f, v), which stores it back. */
#include "wide_lanes.h"

static inline LN(lv3) LN(lv3_add)(LN(lv3) a, LN(lv3) b)
{
    return (LN(lv3)){FW(add)(a.x, b.x), FW(add)(a.y, b.y), FW(add)(a.z, b.z)};
}
static inline LN(lv3) LN(lv3_sub)(LN(lv3) a, LN(lv3) b)
{
    return (LN(lv3)){FW(sub)(a.x, b.x), FW(sub)(a.y, b.y), FW(sub)(a.z, b.z)};
}
static inline LN(lv3) LN(lv3_scale)(LN(lv3) a, LF s)
{
    return (LN(lv3)){FW(mul)(a.x, s), FW(mul)(a.y, s), FW(mul)(a.z, s)};
}
static inline LF LN(lv3_dot)(LN(lv3) a, LN(lv3) b)
{
    return FW(add)(FW(add)(FW(mul)(a.x, b.x), FW(mul)(a.y, b.y)), FW(mul)(a.z, b.z));
}
static inline LN(lv3) LN(lv3_cross)(LN(lv3) a, LN(lv3) b)
{
    return (LN(lv3)){FW(sub)(FW(mul)(a.y, b.z), FW(mul)(a.z, b.y)),
                     FW(sub)(FW(mul)(a.z, b.x), FW(mul)(a.x, b.z)),
                     FW(sub)(FW(mul)(a.x, b.y), FW(mul)(a.y, b.x))};
}
/* The symmetric matrix m (xx, yy, zz, xy, xz, yz) times v. */
static inline LN(lv3) LN(sym_mul)(const LF *m, LN(lv3) v)
{
    return (LN(lv3)){FW(add)(FW(add)(FW(mul)(m[0], v.x), FW(mul)(m[3], v.y)), FW(mul)(m[4], v.z)),
                     FW(add)(FW(add)(FW(mul)(m[3], v.x), FW(mul)(m[1], v.y)), FW(mul)(m[5], v.z)),
                     FW(add)(FW(add)(FW(mul)(m[4], v.x), FW(mul)(m[5], v.y)),
                             FW(mul)(m[2], v.z))};
}

/* Bodies' velocities and motion, one body a lane. */
typedef struct LN(lanes3) {
    LN(lv3) v, w, dp;
    LF qx, qy, qz, qw;
} LN(lanes3);

/* The lanes' bodies: idx[h][k] is lane 4 h + k's. */
static inline void LN(body_rows)(const sim_solver_body3 *bodies, const uint32_t *const *idx,
                                 const float **rows)
{
    for (int k = 0; k < WIDE_LANES; k++)
        rows[k] = &bodies[idx[k / 4][k % 4] & ~SIM_WIDE_STILL].v.x;
}

/* v and w (and dp.x, dp.y, which share their floats), by 4x4 transposes of the bodies'
 * floats from `at` on. */
static inline void LN(gather_vel)(const sim_solver_body3 *bodies, const uint32_t *const *idx,
                                  LN(lanes3) *l)
{
    const float *b[WIDE_LANES];
    LN(body_rows)(bodies, idx, b);
    LF r0 = FW(rows)(b, 0, 0), r1 = FW(rows)(b, 1, 0), r2 = FW(rows)(b, 2, 0),
       r3 = FW(rows)(b, 3, 0);
    FW(transpose)(&r0, &r1, &r2, &r3);
    l->v = (LN(lv3)){r0, r1, r2};
    l->w.x = r3;
    r0 = FW(rows)(b, 0, 4), r1 = FW(rows)(b, 1, 4), r2 = FW(rows)(b, 2, 4), r3 = FW(rows)(b, 3, 4);
    FW(transpose)(&r0, &r1, &r2, &r3);
    l->w.y = r0;
    l->w.z = r1;
    l->dp.x = r2;
    l->dp.y = r3;
}

/* And the rest of dp and dq, for the separation. */
static inline void LN(gather_all)(const sim_solver_body3 *bodies, const uint32_t *const *idx,
                                  LN(lanes3) *l)
{
    LN(gather_vel)(bodies, idx, l);
    const float *b[WIDE_LANES];
    LN(body_rows)(bodies, idx, b);
    LF r0 = FW(rows)(b, 0, 8), r1 = FW(rows)(b, 1, 8), r2 = FW(rows)(b, 2, 8),
       r3 = FW(rows)(b, 3, 8);
    FW(transpose)(&r0, &r1, &r2, &r3);
    l->dp.z = r0;
    l->qx = r1;
    l->qy = r2;
    l->qz = r3;
    /* floats 10..13 (qy, qz, qw, gravity_scale): the last four inside the body */
    r0 = FW(rows)(b, 0, 10), r1 = FW(rows)(b, 1, 10), r2 = FW(rows)(b, 2, 10),
    r3 = FW(rows)(b, 3, 10);
    FW(transpose)(&r0, &r1, &r2, &r3);
    l->qw = r2;
}

/* Writes v and w back (dp.x, dp.y unchanged beside them); the body at rest stays at rest. */
static inline void LN(scatter)(sim_solver_body3 *bodies, const uint32_t *const *idx,
                               const LN(lanes3) *l)
{
    LF lo[4] = {l->v.x, l->v.y, l->v.z, l->w.x}, hi[4] = {l->w.y, l->w.z, l->dp.x, l->dp.y};
    FW(transpose)(&lo[0], &lo[1], &lo[2], &lo[3]);
    FW(transpose)(&hi[0], &hi[1], &hi[2], &hi[3]);
    for (int k = 0; k < WIDE_LANES; k++) {
        uint32_t i = idx[k / 4][k % 4];
        if (i == 0 || (i & SIM_WIDE_STILL))
            continue; /* the body at rest stays at rest, a still one as it is */
        float *f = &bodies[i].v.x;
        FW(store_row)(f, lo[k % 4], k / 4);
        FW(store_row)(f + 4, hi[k % 4], k / 4);
    }
}

/* What every point of the lanes' constraints reads: the directions, inverse masses and
 * world inverse inertias. */
typedef struct LN(group_lanes) {
    LN(lv3) n, t[2];
    LF ma, mb, ia[6], ib[6];
} LN(group_lanes);

#define GV(g, f) ((LN(lv3)){GF(g, f.x), GF(g, f.y), GF(g, f.z)})

static inline void LN(group_load)(const sim_wide_group3 *g, LN(group_lanes) *l)
{
    l->n = GV(g, n);
    l->t[0] = GV(g, t[0]);
    l->t[1] = GV(g, t[1]);
    l->ma = GF(g, ma);
    l->mb = GF(g, mb);
    for (int e = 0; e < 6; e++) {
        l->ia[e] = GF(g, ia[e]);
        l->ib[e] = GF(g, ib[e]);
    }
}

/* An impulse p at the anchors ra, rb: -p on a, +p on b. */
static inline void LN(apply)(LN(lanes3) *a, LN(lanes3) *b, const LN(group_lanes) *g, LN(lv3) ra,
                             LN(lv3) rb, LN(lv3) p)
{
    a->v = LN(lv3_sub)(a->v, LN(lv3_scale)(p, g->ma));
    a->w = LN(lv3_sub)(a->w, LN(sym_mul)(g->ia, LN(lv3_cross)(ra, p)));
    b->v = LN(lv3_add)(b->v, LN(lv3_scale)(p, g->mb));
    b->w = LN(lv3_add)(b->w, LN(sym_mul)(g->ib, LN(lv3_cross)(rb, p)));
}

/* Relative velocity of b's anchor to a's: (vb + wb x rb) - (va + wa x ra). */
static inline LN(lv3) LN(relative)(const LN(lanes3) *a, const LN(lanes3) *b, LN(lv3) ra,
                                   LN(lv3) rb)
{
    return LN(lv3_sub)(LN(lv3_add)(b->v, LN(lv3_cross)(b->w, rb)),
                       LN(lv3_add)(a->v, LN(lv3_cross)(a->w, ra)));
}

/* The normal speed of b's anchor from a's: (vb - va) . n + wb . (rb x n) - wa . (ra x n)
 * (solver.c's 3D speed_along), with ja = ra x n and jb = rb x n. */
static inline LF LN(normal_speed)(const LN(lanes3) *a, const LN(lanes3) *b, LN(lv3) ja,
                                  LN(lv3) jb, LN(lv3) n)
{
    return FW(sub)(FW(add)(LN(lv3_dot)(LN(lv3_sub)(b->v, a->v), n), LN(lv3_dot)(b->w, jb)),
                   LN(lv3_dot)(a->w, ja));
}

/* An impulse j along the normal (solver.c's 3D apply), with ka, kb the normal row's angular
 * terms through each inverse inertia. */
static inline void LN(apply_normal)(LN(lanes3) *a, LN(lanes3) *b, const LN(group_lanes) *g,
                                    LN(lv3) ka, LN(lv3) kb, LF j)
{
    a->v = LN(lv3_sub)(a->v, LN(lv3_scale)(g->n, FW(mul)(g->ma, j)));
    a->w = LN(lv3_sub)(a->w, LN(lv3_scale)(ka, j));
    b->v = LN(lv3_add)(b->v, LN(lv3_scale)(g->n, FW(mul)(g->mb, j)));
    b->w = LN(lv3_add)(b->w, LN(lv3_scale)(kb, j));
}

/* v turned back by the body's rotation since the step began: by the conjugate quaternion
 * (-u, qw), as mk_quat_rotate turns: v + qw t + (-u) x t with t = 2 (-u) x v. */
static inline LN(lv3) LN(unrotate)(const LN(lanes3) *l, LN(lv3) v)
{
    LF zero = FW(set1)(0.0f);
    LN(lv3) u = {FW(sub)(zero, l->qx), FW(sub)(zero, l->qy), FW(sub)(zero, l->qz)};
    LN(lv3) t = LN(lv3_scale)(LN(lv3_cross)(u, v), FW(set1)(2.0f));
    return LN(lv3_add)(LN(lv3_add)(v, LN(lv3_scale)(t, l->qw)), LN(lv3_cross)(u, t));
}

/* The lanes' movable bodies: a's in ia, b's in ib. */
#define LANE_ENDS(g, ia, ib)                                                                   \
    const uint32_t *ia[WIDE_LANES / 4], *ib[WIDE_LANES / 4];                                   \
    for (int h_ = 0; h_ < WIDE_LANES / 4; h_++) {                                              \
        ia[h_] = (g)[h_].a;                                                                    \
        ib[h_] = (g)[h_].b;                                                                    \
    }

/* The warm start of the groups from g on, with points [0, count): last step's impulses
 * applied again. */
static inline void LN(warm_groups)(sim_solver_body3 *bodies, const sim_wide_group3 *g,
                                   int count)
{
    LANE_ENDS(g, ea, eb)
    LN(group_lanes) gl;
    LN(group_load)(g, &gl);
    LN(lanes3) a, b;
    LN(gather_vel)(bodies, ea, &a);
    LN(gather_vel)(bodies, eb, &b);
    for (int i = 0; i < count; i++) {
        LN(lv3) P = LN(lv3_add)(LN(lv3_add)(LN(lv3_scale)(gl.n, GF(g, p[i].jn)),
                                            LN(lv3_scale)(gl.t[0], GF(g, p[i].jt[0]))),
                                LN(lv3_scale)(gl.t[1], GF(g, p[i].jt[1])));
        LN(apply)(&a, &b, &gl, GV(g, p[i].ra), GV(g, p[i].rb), P);
    }
    LN(scatter)(bodies, ea, &a);
    LN(scatter)(bodies, eb, &b);
}

/* One solve of the groups from g on, with points [0, count): the soft normal impulses, then
 * friction. Each lane's softness was packed at build: the pass's is not read again. */
static inline void LN(solve_groups)(sim_solver_body3 *bodies, sim_wide_group3 *g,
                                    const LN(wide_pass_lanes) *pass, int count)
{
    LF zero = FW(set1)(0.0f);
    LANE_ENDS(g, ea, eb)
    LN(group_lanes) gl;
    LN(group_load)(g, &gl);
    LN(wide_softness) soft = {GF(g, bias_rate), GF(g, mass_scale), GF(g, impulse_scale)};
    LN(lanes3) a, b;
    LN(gather_all)(bodies, ea, &a);
    LN(gather_all)(bodies, eb, &b);
    /* The separation now, from the motion of both anchors since the step began:
     * (dp + qb rb - qa ra) . n. Since (q r) . n = r . (q^-1 n), the normal is turned back
     * into each body's frame at the start of the step once per group, rather than every
     * anchor forward. */
    /* The largest impulse of each point is restitution's alone (sim_wide_restitution_range3
     * reads it in groups that bounce). */
    bool bounce = false;
    for (int h = 0; h < WIDE_LANES / 4; h++)
        bounce |= g[h].bounce;
    LF dpn = LN(lv3_dot)(LN(lv3_sub)(b.dp, a.dp), gl.n);
    LN(lv3) na = LN(unrotate)(&a, gl.n), nb = LN(unrotate)(&b, gl.n);
    for (int i = 0; i < count; i++) {
        LN(lv3) ra = GV(g, p[i].ra), rb = GV(g, p[i].rb);
        LF s = FW(add)(FW(add)(dpn, FW(sub)(LN(lv3_dot)(rb, nb), LN(lv3_dot)(ra, na))),
                       GF(g, p[i].base_sep));
        LF vn = LN(normal_speed)(&a, &b, GV(g, p[i].ja), GV(g, p[i].jb), gl.n);
        LF jn = GF(g, p[i].jn);
        LF j = LN(wide_normal_impulse)(pass, soft, s, vn, GF(g, p[i].normal_mass), &jn);
        GS(g, p[i].jn, jn);
        if (bounce)
            GS(g, p[i].max_jn, FW(max)(GF(g, p[i].max_jn), j));
        LN(apply_normal)(&a, &b, &gl, GV(g, p[i].ka), GV(g, p[i].kb), j);
    }
    /* Friction bounded by the Coulomb circle of radius friction * jn (solver.c). */
    LF friction = GF(g, friction);
    LF rough = FW(gt)(friction, zero);
    for (int i = 0; i < count; i++) {
        LN(lv3) ra = GV(g, p[i].ra), rb = GV(g, p[i].rb);
        LF jt0 = GF(g, p[i].jt[0]), jt1 = GF(g, p[i].jt[1]);
        LN(lv3) dv = LN(relative)(&a, &b, ra, rb);
        LF t0 = FW(sub)(jt0, FW(mul)(GF(g, p[i].tangent_mass[0]), LN(lv3_dot)(dv, gl.t[0])));
        LF t1 = FW(sub)(jt1, FW(mul)(GF(g, p[i].tangent_mass[1]), LN(lv3_dot)(dv, gl.t[1])));
        LF limit = FW(mul)(friction, GF(g, p[i].jn));
        LF len2 = FW(add)(FW(mul)(t0, t0), FW(mul)(t1, t1));
        LF k = FW(select)(FW(gt)(len2, zero), FW(div)(limit, FW(sqrt)(len2)), zero);
        LF over = FW(gt)(len2, FW(mul)(limit, limit));
        t0 = FW(select)(over, FW(mul)(t0, k), t0);
        t1 = FW(select)(over, FW(mul)(t1, k), t1);
        /* no friction: the impulses stay as they are */
        t0 = FW(select)(rough, t0, jt0);
        t1 = FW(select)(rough, t1, jt1);
        LN(lv3) P = LN(lv3_add)(LN(lv3_scale)(gl.t[0], FW(sub)(t0, jt0)),
                                LN(lv3_scale)(gl.t[1], FW(sub)(t1, jt1)));
        GS(g, p[i].jt[0], t0);
        GS(g, p[i].jt[1], t1);
        LN(apply)(&a, &b, &gl, ra, rb, P);
    }
    LN(scatter)(bodies, ea, &a);
    LN(scatter)(bodies, eb, &b);
}

#undef GV
#undef LANE_ENDS
