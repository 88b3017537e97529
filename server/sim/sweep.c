/* Continuous collision for fast bodies: a small body moving several times its size per step
 * would otherwise pass through a thin wall between two steps.
 *
 * The swept test of "Swept AABB Collision Detection and Response" and "2D Collisions with
 * Minkowski Differences" casts the motion as a ray against the Minkowski difference of the two
 * shapes. For any pair of convex shapes the same time of impact is found by conservative
 * advancement (Mirtich, "Impulse-based Dynamic Simulation of Rigid Body Systems", 1996): the
 * shapes translate without rotating, so their gap closes by at most |d| over a step of
 * displacement d, and advancing time by gap / |d| never passes the first touch. Each advance
 * uses the exact distance of the narrowphase; a few iterations reach a gap under the slop. */
#include <math.h>

#include "body_rules.h"
#include "broadphase.h"
#include "world_internal.h"

/* m: the gap at which the sweep counts as touching; the push-out handles the rest. */
#define SWEEP_SLOP 0.005f
#define SWEEP_MAX_ITERATIONS 32

/* The fraction of the step at which `b`, moving by d relative to `o`, first comes within the
 * slop of it; > 1 when it does not. */
static float time_of_impact(const sim_body *b, mk_vec2 d, const sim_body *o)
{
    float len = mk_v2_len(d);
    col_xf2 xo = {o->pos, o->angle};
    float t = 0.0f;
    for (int i = 0; i < SWEEP_MAX_ITERATIONS; i++) {
        col_xf2 xb = {mk_v2_mad(b->pos, t, d), b->angle};
        col_manifold2 m = col_collide2(&b->shape, xb, &o->shape, xo);
        if (m.count > 0)
            return t == 0.0f ? 2.0f : t; /* overlapping at the start: the push-out's job */
        if (m.distance < SWEEP_SLOP) {
            if (t > 0.0f)
                return t;
            /* Within the slop from the start (resting on it, or sliding along it): a hit only
             * when the motion goes into it. */
            col_xf2 ahead = {mk_v2_mad(b->pos, 2.0f * SWEEP_SLOP / len, d), b->angle};
            col_manifold2 probe = col_collide2(&b->shape, ahead, &o->shape, xo);
            return probe.count > 0 && probe.depth > 0.5f * SWEEP_SLOP ? 0.0f : 2.0f;
        }
        t += (m.distance - 0.5f * SWEEP_SLOP) / len;
        if (t > 1.0f)
            return 2.0f;
    }
    return t;
}

/* The first body that `b`, moved by d over a step of dt seconds, comes to touch, and the
 * fraction of d at which it does (in *t); NULL when none. With `fixed_only`, only static and
 * kinematic bodies count, each moving at its own velocity meanwhile; otherwise every body
 * counts, as it stands. */
static const sim_body *first_impact(sim_world *w, const sim_body *b, mk_vec2 d, float dt,
                                    bool fixed_only, float *t)
{
    /* The region the body sweeps through. */
    col_aabb start = col_shape_bounds(&b->shape, (col_xf2){b->pos, b->angle});
    col_aabb swept = {mk_v2_mad(start.center, 0.5f, d),
                      mk_v2_add(start.half, mk_v2(0.5f * fabsf(d.x), 0.5f * fabsf(d.y)))};
    float best = 2.0f;
    const sim_body *hit = NULL;
    col_aabb3 region = {mk_v3(swept.center.x, swept.center.y, 0.0f),
                        mk_v3(swept.half.x, swept.half.y, 0.0f)};
    if (!sim_query_box(w, &region, true)) {
        *t = best;
        return NULL; /* out of memory: the body moves as the solver left it */
    }
    const uint32_t *hits = w->hits.data;
    for (size_t i = 0; i < w->hits.len; i++) {
        const sim_body *o = &w->bodies[hits[i]];
        if (o == b || (fixed_only && !sim_kind_fixed(o->kind)))
            continue;
        col_aabb3 other = sim_shape_bounds_now(w, hits[i]); /* where it is now */
        if (!sim_aabb3_overlap(&region, &other))
            continue;
        /* Motion relative to the other body: a kinematic body moves during the step too. */
        mk_vec2 rel = mk_v2_sub(d, mk_v2_scale(o->vel, dt));
        if (mk_v2_len(rel) <= 0.0f)
            continue;
        float ti = time_of_impact(b, rel, o);
        if (ti < best) {
            best = ti;
            hit = o;
        }
    }
    *t = best;
    return hit;
}

bool sim_sweep(sim_world *w, sim_body *b, mk_vec2 d, float dt)
{
    if (!(mk_v2_len(d) > 0.0f))
        return false;
    float best;
    const sim_body *hit = first_impact(w, b, d, dt, true, &best);
    if (!hit)
        return false;
    b->pos = mk_v2_mad(b->pos, best, d);
    /* The normal where they meet: that of the closest features, within the slop (a grazing
     * motion along a surface would not reach into it a hair further along). */
    col_manifold2 m = col_collide2(&b->shape, (col_xf2){b->pos, b->angle}, &hit->shape,
                                   (col_xf2){hit->pos, hit->angle});
    mk_vec2 n = mk_v2_dot(m.normal, m.normal) > 0.5f ? m.normal : mk_v2_norm(d); /* b to hit */
    mk_vec2 rel = mk_v2_sub(b->vel, hit->vel);
    float vn = mk_v2_dot(rel, n);
    if (vn > 0.0f) {
        mk_vec2 slide = mk_v2_mad(rel, -vn, n);
        float vt = mk_v2_len(slide);
        sim_impact im =
            sim_impact_of(vn, vt, sim_pair_restitution(b, hit), sim_pair_friction(b, hit));
        b->vel = mk_v2_mad(b->vel, -im.dvn, n);
        if (vt > 0.0f)
            b->vel = mk_v2_mad(b->vel, -im.dvt / vt, slide);
    }
    return true;
}

bool sim_snap_to_ground(sim_world *w, sim_body *b, mk_vec2 up, float reach)
{
    mk_vec2 d = mk_v2_scale(up, -reach);
    float best;
    const sim_body *ground = first_impact(w, b, d, 0.0f, false, &best);
    if (!ground)
        return false;

    /* Just into the ground below the time of impact, then lifted straight out of it: the
     * character ends touching the surface, as a standing one does. */
    mk_vec2 down = mk_v2_neg(up);
    mk_vec2 probe = mk_v2_mad(mk_v2_mad(b->pos, best, d), 2.0f * SWEEP_SLOP, down);
    col_manifold2 m = col_collide2(&b->shape, (col_xf2){probe, b->angle}, &ground->shape,
                                   (col_xf2){ground->pos, ground->angle});
    if (m.count == 0)
        return false;
    float cos_slope = -mk_v2_dot(m.normal, up); /* m.normal points from b into the ground */
    if (cos_slope < cosf(b->max_slope) || cos_slope <= 0.0f)
        return false;
    b->pos = mk_v2_mad(probe, m.depth / cos_slope, up);
    float v_up = mk_v2_dot(mk_v2_sub(b->vel, ground->vel), up);
    if (v_up < 0.0f)
        b->vel = mk_v2_mad(b->vel, -v_up, up);
    return true;
}
