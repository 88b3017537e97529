/* Continuous collision and ground snapping in a 3D world: the conservative advancement of
 * sweep.c (Mirtich 1996; sweep.c says why it never passes the first touch) with the exact
 * distance of col_collide3. */
#include <math.h>

#include "body_rules.h"
#include "broadphase.h"
#include "world_internal.h"

#define SWEEP_SLOP3 0.005f /* m: the gap at which the sweep counts as touching */
#define SWEEP_MAX_ITERATIONS3 32

static col_xf3 xf_at(const sim_body3 *b, float t, mk_vec3 d)
{
    return (col_xf3){mk_v3_mad(b->pos, t, d), b->rot};
}

/* The fraction of d at which b, moving by d relative to o, first comes within the slop of
 * it; > 1 when it does not. */
static float time_of_impact(const sim_body3 *b, mk_vec3 d, const sim_body3 *o)
{
    float len = mk_v3_len(d);
    col_xf3 xo = {o->pos, o->rot};
    float t = 0.0f;
    for (int i = 0; i < SWEEP_MAX_ITERATIONS3; i++) {
        col_manifold3 m = col_collide3(&b->shape, xf_at(b, t, d), &o->shape, xo);
        if (m.count > 0)
            return t == 0.0f ? 2.0f : t; /* overlapping at the start: the solver's job */
        if (m.distance < SWEEP_SLOP3) {
            if (t > 0.0f)
                return t;
            /* Within the slop from the start: a hit only when the motion goes into it. */
            col_manifold3 probe = col_collide3(&b->shape, xf_at(b, 2.0f * SWEEP_SLOP3 / len, d),
                                               &o->shape, xo);
            return probe.count > 0 && probe.depth > 0.5f * SWEEP_SLOP3 ? 0.0f : 2.0f;
        }
        t += (m.distance - 0.5f * SWEEP_SLOP3) / len;
        if (t > 1.0f)
            return 2.0f;
    }
    return t;
}

/* The first body that b, moved by d over dt seconds, comes to touch, and the fraction of d
 * at which it does; with `fixed_only` only static and kinematic bodies count. */
static const sim_body *first_impact(sim_world *w, const sim_body *b, mk_vec3 d, float dt,
                                    bool fixed_only, float *t)
{
    const sim_body3 *b3 = sim_body3_of(w, b);
    col_aabb3 start = sim_body3_bounds(b3);
    col_aabb3 swept = {mk_v3_mad(start.center, 0.5f, d),
                       mk_v3_add(start.half, mk_v3(0.5f * fabsf(d.x), 0.5f * fabsf(d.y),
                                                   0.5f * fabsf(d.z)))};
    float best = 2.0f;
    const sim_body *hit = NULL;
    if (!sim_query_box(w, &swept, true)) {
        *t = best;
        return NULL; /* out of memory: the body moves as the solver left it */
    }
    const uint32_t *hits = w->hits.data;
    for (size_t i = 0; i < w->hits.len; i++) {
        const sim_body *o = &w->bodies[hits[i]];
        const sim_body3 *o3 = &w->bodies3[hits[i]];
        if (o == b || (fixed_only && !sim_kind_fixed(o->kind)))
            continue;
        col_aabb3 other = sim_body3_bounds(o3);
        if (!sim_aabb3_overlap(&swept, &other))
            continue;
        mk_vec3 rel = mk_v3_sub(d, mk_v3_scale(o3->vel, dt));
        if (!(mk_v3_len(rel) > 0.0f))
            continue;
        float ti = time_of_impact(b3, rel, o3);
        if (ti < best) {
            best = ti;
            hit = o;
        }
    }
    *t = best;
    return hit;
}

bool sim_sweep3(sim_world *w, sim_body *b, mk_vec3 d, float dt)
{
    if (!(mk_v3_len(d) > 0.0f))
        return false;
    float best;
    const sim_body *hit = first_impact(w, b, d, dt, true, &best);
    if (!hit)
        return false;
    sim_body3 *b3 = sim_body3_of(w, b);
    const sim_body3 *h3 = sim_body3_of(w, hit);
    b3->pos = mk_v3_mad(b3->pos, best, d);
    /* The normal of the closest features, as in sweep.c. */
    col_manifold3 m = col_collide3(&b3->shape, (col_xf3){b3->pos, b3->rot}, &h3->shape,
                                   (col_xf3){h3->pos, h3->rot});
    mk_vec3 n = mk_v3_dot(m.normal, m.normal) > 0.5f ? m.normal : mk_v3_norm(d); /* b to hit */
    mk_vec3 rel = mk_v3_sub(b3->vel, h3->vel);
    float vn = mk_v3_dot(rel, n);
    if (vn > 0.0f) {
        mk_vec3 slide = mk_v3_mad(rel, -vn, n);
        float vt = mk_v3_len(slide);
        sim_impact im =
            sim_impact_of(vn, vt, sim_pair_restitution(b, hit), sim_pair_friction(b, hit));
        b3->vel = mk_v3_mad(b3->vel, -im.dvn, n);
        if (vt > 0.0f)
            b3->vel = mk_v3_mad(b3->vel, -im.dvt / vt, slide);
    }
    return true;
}

bool sim_snap_to_ground3(sim_world *w, sim_body *b, mk_vec3 up, float reach)
{
    mk_vec3 d = mk_v3_scale(up, -reach);
    float best;
    const sim_body *ground = first_impact(w, b, d, 0.0f, false, &best);
    if (!ground)
        return false;
    sim_body3 *b3 = sim_body3_of(w, b);
    const sim_body3 *g3 = sim_body3_of(w, ground);
    /* Just into the ground below the time of impact, then lifted straight out of it. */
    mk_vec3 probe = mk_v3_mad(mk_v3_mad(b3->pos, best, d), -2.0f * SWEEP_SLOP3, up);
    col_manifold3 m = col_collide3(&b3->shape, (col_xf3){probe, b3->rot}, &g3->shape,
                                   (col_xf3){g3->pos, g3->rot});
    if (m.count == 0)
        return false;
    float cos_slope = -mk_v3_dot(m.normal, up); /* m.normal points from b into the ground */
    if (cos_slope < cosf(b->max_slope) || cos_slope <= 0.0f)
        return false;
    b3->pos = mk_v3_mad(probe, m.depth / cos_slope, up);
    float v_up = mk_v3_dot(mk_v3_sub(b3->vel, g3->vel), up);
    if (v_up < 0.0f)
        b3->vel = mk_v3_mad(b3->vel, -v_up, up);
    return true;
}
