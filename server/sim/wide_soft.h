/* The soft normal impulse four contact points at a time, which the 2D (solver_wide.c) and 3D
 * (solver3_wide.c) wide solvers share: Box2D v3's soft step (contact_solver.c,
 * b2SolveContactsTask). Apart points are held to close their gap in one substep; with bias
 * an overlap is pushed apart at the contact's soft rate past the slop, no faster than
 * SIM_PUSH_SPEED; without bias (the relax pass) only the speed is solved. Each dimension
 * computes the separation and the normal speed from its own anchors; the arithmetic after
 * that is this one, in this order, so both solve as solver.c does one point at a time. */
#ifndef MINK_SIM_WIDE_SOFT_H
#define MINK_SIM_WIDE_SOFT_H

#include <stdbool.h>

#include "f4.h"
#include "solver.h"

/* One pass's numbers in lanes, splatted once before its groups. */
typedef struct wide_pass_lanes {
    f4 inv_h; /* 1/s of the substep */
    f4 slop;  /* m, SIM_SLOP */
    f4 push;  /* m/s, -SIM_PUSH_SPEED */
    bool use_bias;
} wide_pass_lanes;

static inline wide_pass_lanes wide_pass_lanes_of(const sim_wide_pass *job)
{
    return (wide_pass_lanes){.inv_h = f4_set1(job->inv_h),
                             .slop = f4_set1(SIM_SLOP),
                             .push = f4_set1(-SIM_PUSH_SPEED),
                             .use_bias = job->use_bias};
}

/* A contact's softness in lanes: bias rate (1/s), mass and impulse scales (softness_set). */
typedef struct wide_softness {
    f4 bias_rate, mass_scale, impulse_scale;
} wide_softness;

/* The normal impulse of four points at separation s (m) closing at vn (m/s), with their
 * effective normal mass: accumulates into *jn (N s, kept >= 0) and returns its change. */
static inline f4 wide_normal_impulse(const wide_pass_lanes *k, wide_softness soft, f4 s, f4 vn,
                                     f4 normal_mass, f4 *jn)
{
    f4 zero = f4_set1(0.0f), one = f4_set1(1.0f);
    f4 apart = f4_gt(s, zero);
    f4 bias = zero, mass_scale = one, impulse_scale = zero;
    if (k->use_bias) {
        bias = f4_max(f4_mul(soft.bias_rate, f4_min(f4_add(s, k->slop), zero)), k->push);
        mass_scale = soft.mass_scale;
        impulse_scale = soft.impulse_scale;
    }
    bias = f4_select(apart, f4_mul(s, k->inv_h), bias);
    mass_scale = f4_select(apart, one, mass_scale);
    impulse_scale = f4_select(apart, zero, impulse_scale);
    f4 j = f4_sub(f4_mul(f4_sub(zero, f4_mul(normal_mass, mass_scale)), f4_add(vn, bias)),
                  f4_mul(impulse_scale, *jn));
    f4 total = f4_max(f4_add(*jn, j), zero);
    j = f4_sub(total, *jn);
    *jn = total;
    return j;
}

#endif
