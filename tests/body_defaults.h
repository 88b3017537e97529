/* The settings a scene's body gets when it names none (density 1, friction 0.6, a 5 m/s run,
 * a 1.5 m jump, the default slope), for the test suites and mink-bench alike: no Check here. */
#ifndef MINK_TEST_BODY_DEFAULTS_H
#define MINK_TEST_BODY_DEFAULTS_H

#include "mink_sim.h"

static inline void fixture_defaults(sim_body_def *d, sim_kind kind)
{
    d->kind = kind;
    d->density = 1.0f;
    d->friction = 0.6f;
    d->max_speed = 5.0f;
    d->jump_height = 1.5f;
    d->max_slope = SIM_DEFAULT_MAX_SLOPE;
}

#endif
