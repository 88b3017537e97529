/* The step's limits, and the rules of bodies and pairs that every pass of the step shares. */
#ifndef MINK_SIM_BODY_RULES_H
#define MINK_SIM_BODY_RULES_H

#include <math.h>

#include "mink_character.h"
#include "mink_sim.h"

/* The step's limits and rules (step.c). */
/* m/s: no body moves faster; keeps a runaway body finite and inside float precision. */
#define SIM_MAX_SPEED 1000.0f
/* rad/s: no body spins faster (a quarter turn per step at 60 Hz), as Box2D bounds rotation. */
#define SIM_MAX_SPIN 94.0f
/* The input's ramp, the jump and the push-out are mink_character's (CHR_*). */
/* Ground snapping: a character follows slopes down to this steepness (a steeper max_slope
 * still lets it stand there, but it runs off such a slope into the air), and steps down
 * this much without falling. */
#define SIM_SNAP_MAX_SLOPE 1.3f /* rad, about 75 degrees */
#define SIM_SNAP_STEP 0.05f     /* m */
/* m: pushes smaller than this count as converged and end the passes early. */
#define SIM_CONVERGED 1e-6f

/* Contacts (solver.c) and swept impacts (sweep.c). */
#define SIM_PUSH_SPEED 3.0f /* m/s: the fastest an overlap is pushed apart */
#define SIM_SUBSTEPS 4       /* substeps of the soft step (solver.c) */
#define SIM_BOUNCE_SPEED 1.0f /* m/s: slower approaches do not bounce */
#define SIM_SLOP 0.0005f    /* m: overlap left to resting contacts, so they do not flicker */

#define SIM_SPECULATIVE 0.02f /* m: pairs this close get contact points before they touch */
/* m: a pair this close counts as touching (wakes, grounds, is a contact and its events) */
#define SIM_TOUCHING 0.001f
/* A body (not a character: step.c's needs_sweep) that moves farther than this in a step is swept
 * (sweep.c) against static and kinematic bodies: a gap wider than SIM_SPECULATIVE at
 * the start of the step has no contact point in the solver, so a body moving farther could close
 * it and sink into what it lands on (by up to its motion less this distance). */
#define SIM_SWEEP_MIN SIM_SPECULATIVE /* m */

/* (cos, sin) of the body's angle: the kept pair when it is for this angle, else worked out. */
static inline mk_vec2 sim_body_rot2(const sim_body *b)
{
    if (b->rot_angle == b->angle && (b->rot.x != 0.0f || b->rot.y != 0.0f))
        return b->rot;
    return mk_v2(cosf(b->angle), sinf(b->angle));
}
/* The centre of mass in world space, m. */
static inline mk_vec2 sim_body_center2(const sim_body *b)
{
    if (b->local_center.x == 0.0f && b->local_center.y == 0.0f)
        return b->pos;
    mk_vec2 q = sim_body_rot2(b), r = b->local_center;
    return mk_v2_add(b->pos, mk_v2(q.x * r.x - q.y * r.y, q.y * r.x + q.x * r.y));
}

/* A swept impact on a fixed body, resolved as an impulse through the moving body's centre of
 * mass: its approach speed vn (> 0) along the normal is taken out, or turned back by the pair's
 * restitution above SIM_BOUNCE_SPEED as the solver's restitution does, and Coulomb friction
 * takes at most `friction` times that change off its sliding speed vt (>= 0). Resolving it
 * here, not in the next step's solver, matters for a body that lands fast and flat: sequential
 * impulses meeting a large approach at two or four points at once leave it hopping and turning.
 * Through the centre, a flat landing stays flat; the spin a corner landing or a ball's friction
 * would start comes from the contacts of the steps that follow. */
typedef struct sim_impact {
    float dvn, dvt; /* m/s: the changes of normal and sliding speed, both >= 0 */
} sim_impact;

static inline sim_impact sim_impact_of(float vn, float vt, float restitution, float friction)
{
    float dvn = vn > SIM_BOUNCE_SPEED ? (1.0f + restitution) * vn : vn;
    return (sim_impact){dvn, mk_minf(vt, friction * dvn)};
}

/* Friction and restitution of a pair, for its contacts (contacts.c) and a swept
 * impact alike, combined as in Box2D: friction by geometric mean, none for a character (it
 * steers itself), restitution by maximum. */
static inline float sim_pair_friction(const sim_body *a, const sim_body *b)
{
    if (a->kind == SIM_CHARACTER || b->kind == SIM_CHARACTER)
        return 0.0f;
    return sqrtf(a->friction * b->friction);
}

static inline float sim_pair_restitution(const sim_body *a, const sim_body *b)
{
    return mk_maxf(a->restitution, b->restitution);
}

/* Static or asleep: a pair of two such bodies has nothing to do this step. */
static inline bool sim_body_resting(const sim_body *b)
{
    return b->sleeping || b->kind == SIM_STATIC;
}

/* A contact is ground for a character when the direction it is pushed out along is within
 * its max_slope of up. */
static inline bool sim_is_ground2(const sim_body *b, mk_vec2 push_dir, mk_vec2 up)
{
    return b->kind == SIM_CHARACTER && chr_is_ground2(push_dir, up, b->max_slope);
}
static inline bool sim_is_ground3(const sim_body *b, mk_vec3 push_dir, mk_vec3 up)
{
    return b->kind == SIM_CHARACTER && chr_is_ground3(push_dir, up, b->max_slope);
}

/* Static and kinematic bodies: contacts never move them. */
static inline bool sim_kind_fixed(sim_kind k) { return k == SIM_STATIC || k == SIM_KINEMATIC; }

/* A pair resolved by the characters' push-out rather than the solver: a character against a
 * static or kinematic body or another character. */
static inline bool sim_is_push_pair(const sim_body *a, const sim_body *b)
{
    bool ca = a->kind == SIM_CHARACTER, cb = b->kind == SIM_CHARACTER;
    return (ca && (cb || sim_kind_fixed(b->kind))) || (cb && sim_kind_fixed(a->kind));
}

#endif
