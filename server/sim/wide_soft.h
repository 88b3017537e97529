/* The soft normal impulse of contact points in lanes, which the 2D (solver_wide.c) and 3D
 * (solver3_wide.c) wide solvers share: Box2D v3's soft step (contact_solver.c,
 * b2SolveContactsTask). Apart points are held to close their gap in one substep; with bias
 * an overlap is pushed apart at the contact's soft rate past the slop, no faster than
 * SIM_PUSH_SPEED; without bias (the relax pass) only the speed is solved. Each dimension
 * computes the separation and the normal speed from its own anchors; the arithmetic after
 * that is this one, in this order, so both solve as solver.c does one point at a time.
 * Included once per lane width (wide_lanes.h: WIDE_LANES 4, or 8 inside AVX code), each
 * width's names guarded apart. */
#include <stdbool.h>

#include "solver.h"
#include "wide_lanes.h"

#if WIDE_LANES == 8 && !defined(MINK_SIM_WIDE_SOFT8_H)
#define MINK_SIM_WIDE_SOFT8_H
#define WIDE_SOFT_NOW
#elif WIDE_LANES != 8 && !defined(MINK_SIM_WIDE_SOFT_H)
#define MINK_SIM_WIDE_SOFT_H
#define WIDE_SOFT_NOW
#endif

#ifdef WIDE_SOFT_NOW
#undef WIDE_SOFT_NOW
/* One pass's numbers in lanes, splatted once before its groups. */
typedef struct LN(wide_pass_lanes) {
    LF inv_h; /* 1/s of the substep */
    LF slop;  /* m, SIM_SLOP */
    LF push;  /* m/s, -SIM_PUSH_SPEED */
    bool use_bias;
} LN(wide_pass_lanes);

static inline LN(wide_pass_lanes) LN(wide_pass_lanes_of)(const sim_wide_pass *job)
{
    return (LN(wide_pass_lanes)){.inv_h = FW(set1)(job->inv_h),
                                 .slop = FW(set1)(SIM_SLOP),
                                 .push = FW(set1)(-SIM_PUSH_SPEED),
                                 .use_bias = job->use_bias};
}

/* A contact's softness in lanes: bias rate (1/s), mass and impulse scales (softness_set). */
typedef struct LN(wide_softness) {
    LF bias_rate, mass_scale, impulse_scale;
} LN(wide_softness);

/* The normal impulse of the lanes' points at separation s (m) closing at vn (m/s), with their
 * effective normal mass: accumulates into *jn (N s, kept >= 0) and returns its change. */
static inline LF LN(wide_normal_impulse)(const LN(wide_pass_lanes) *k, LN(wide_softness) soft,
                                         LF s, LF vn, LF normal_mass, LF *jn)
{
    LF zero = FW(set1)(0.0f), one = FW(set1)(1.0f);
    LF apart = FW(gt)(s, zero);
    LF bias = zero, mass_scale = one, impulse_scale = zero;
    if (k->use_bias) {
        bias = FW(max)(FW(mul)(soft.bias_rate, FW(min)(FW(add)(s, k->slop), zero)), k->push);
        mass_scale = soft.mass_scale;
        impulse_scale = soft.impulse_scale;
    }
    bias = FW(select)(apart, FW(mul)(s, k->inv_h), bias);
    mass_scale = FW(select)(apart, one, mass_scale);
    impulse_scale = FW(select)(apart, zero, impulse_scale);
    LF j = FW(sub)(FW(mul)(FW(sub)(zero, FW(mul)(normal_mass, mass_scale)), FW(add)(vn, bias)),
                  FW(mul)(impulse_scale, *jn));
    LF total = FW(max)(FW(add)(*jn, j), zero);
    j = FW(sub)(total, *jn);
    *jn = total;
    return j;
}

#endif
