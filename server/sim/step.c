/* The fixed step: inputs and gravity, integration, then contacts resolved by the Minkowski
 * push-out of "2D Collisions with Minkowski Differences": the penetration vector (the closest
 * point of the Minkowski difference's boundary to the origin) moves the pair apart, and the
 * velocity into the contact is removed. A static or kinematic body does not move; two movable
 * bodies share the push in proportion to their inverse masses. The pairs are relaxed in a few
 * Gauss-Seidel passes so that stacks settle. */
#include <math.h>
#include <stdlib.h>

#include "world_internal.h"

/* m/s: no body moves faster; keeps a runaway body finite and inside float precision. */
#define SIM_MAX_SPEED 1000.0f
/* How fast an input brings a body to its target velocity: it gets there in this many seconds
 * from rest (a short ramp that feels immediate at 60 Hz but never teleports). */
#define SIM_RAMP_TIME_GROUND 0.08f /* s */
#define SIM_RAMP_TIME_AIR 0.25f    /* s */
/* Ground snapping: a character follows slopes down to this steepness (a steeper max_slope
 * still lets it stand there, but it runs off such a slope into the air), and steps down
 * this much without falling. */
#define SIM_SNAP_MAX_SLOPE 1.3f /* rad, about 75 degrees */
#define SIM_SNAP_STEP 0.05f     /* m */
/* m: pushes smaller than this count as converged and end the passes early. */
#define SIM_CONVERGED 1e-6f

static mk_vec2 up_of(mk_vec2 gravity)
{
    return mk_v2_neg(mk_v2_norm(gravity));
}

/* Moves `vel` toward `target` by at most `max_dv`. */
static mk_vec2 approach(mk_vec2 vel, mk_vec2 target, float max_dv)
{
    mk_vec2 dv = mk_v2_sub(target, vel);
    float len = mk_v2_len(dv);
    if (len > max_dv && len > 0.0f)
        dv = mk_v2_scale(dv, max_dv / len);
    return mk_v2_add(vel, dv);
}

/* The part of `v` across `up` (all of it when there is no up: a world without gravity). */
static mk_vec2 horizontal(mk_vec2 v, mk_vec2 up)
{
    return mk_v2_mad(v, -mk_v2_dot(v, up), up);
}

static void apply_controls(sim_body *b, const sim_config *cfg, mk_vec2 up)
{
    float dt = cfg->dt;
    switch (b->kind) {
    case SIM_STATIC:
        return;
    case SIM_KINEMATIC:
        if (b->has_input)
            b->vel = mk_v2_scale(b->move, b->max_speed);
        return;
    case SIM_CHARACTER:
    case SIM_DYNAMIC: {
        if (b->has_input && b->max_speed > 0.0f) {
            /* The input sets the target velocity across gravity; along gravity the body falls. */
            mk_vec2 target = mk_v2_scale(horizontal(b->move, up), b->max_speed);
            mk_vec2 vel_h = horizontal(b->vel, up);
            float ramp = b->grounded || (up.x == 0.0f && up.y == 0.0f) ? SIM_RAMP_TIME_GROUND
                                                                       : SIM_RAMP_TIME_AIR;
            mk_vec2 new_h = approach(vel_h, target, b->max_speed * dt / ramp);
            b->vel = mk_v2_add(b->vel, mk_v2_sub(new_h, vel_h));
        }
        if (b->kind == SIM_CHARACTER && b->jump && b->grounded) {
            /* v = sqrt(2 g h) rises h metres against gravity g. */
            float g = mk_v2_len(cfg->gravity);
            float v_up = sqrtf(2.0f * g * b->jump_height);
            b->vel = mk_v2_mad(horizontal(b->vel, up), v_up, up);
        }
        b->jump = false;
        b->vel = mk_v2_mad(b->vel, dt, cfg->gravity);
        return;
    }
    }
}

static void integrate(sim_world *w, sim_body *b, float dt)
{
    if (b->kind == SIM_STATIC)
        return;
    float speed = mk_v2_len(b->vel);
    if (speed > SIM_MAX_SPEED)
        b->vel = mk_v2_scale(b->vel, SIM_MAX_SPEED / speed);
    /* A body that would move farther than half its size this step is swept first, so that it
     * stops at the first static or kinematic body in its way instead of passing through. */
    if (!sim_sweep(w, b, dt))
        b->pos = mk_v2_mad(b->pos, dt, b->vel);
}

/* A contact is ground for a character when the direction it is pushed out along is within
 * its max_slope of up. */
static bool is_ground(const sim_body *b, mk_vec2 push_dir, mk_vec2 up)
{
    return b->kind == SIM_CHARACTER && mk_v2_dot(push_dir, up) >= cosf(b->max_slope);
}

/* Below this cosine (about 72 degrees) a vertical exit would be longer than 3 depths: the
 * character is pushed out along the normal instead. */
#define SIM_STAND_MIN_COS 0.3f

/* A character on walkable ground that it alone is pushed out of. The exit vector of "2D
 * Collisions with Minkowski Differences" for a body moving along a slope is the velocity
 * projected onto the hit edge; for a character the useful exit is straight up by
 * depth / cos(slope), which takes it out of a planar slope exactly and keeps its horizontal
 * run. It walks up and down slopes at its running speed and does not slide down them (or
 * jitter) while standing. The relative velocity into the ground along up is removed, so it
 * rides what it stands on. */
static float stand(sim_body *c, const sim_body *ground, mk_vec2 push_dir, float depth, mk_vec2 up)
{
    float cos_slope = mk_v2_dot(push_dir, up);
    c->pos = mk_v2_mad(c->pos, depth / cos_slope, up);
    float v_up = mk_v2_dot(mk_v2_sub(c->vel, ground->vel), up);
    if (v_up < 0.0f)
        c->vel = mk_v2_mad(c->vel, -v_up, up);
    return depth;
}

/* Resolves one touching pair: normal n from a to b, moving b by n * depth separates them.
 * `wa` and `wb` are the inverse masses the push uses (see sim_world_step for why they may
 * differ from the bodies'). Returns the push applied, m. */
static float resolve(sim_body *a, sim_body *b, float wa, float wb, const col_manifold2 *m,
                     mk_vec2 up)
{
    float wsum = wa + wb;
    bool a_ground = is_ground(a, mk_v2_neg(m->normal), up);
    bool b_ground = is_ground(b, m->normal, up);
    a->grounded |= a_ground;
    b->grounded |= b_ground;
    if (wsum <= 0.0f)
        return 0.0f;
    mk_vec2 n = m->normal;
    float depth = m->depth;
    if (b_ground && wa == 0.0f && mk_v2_dot(n, up) >= SIM_STAND_MIN_COS)
        return stand(b, a, n, depth, up);
    if (a_ground && wb == 0.0f && -mk_v2_dot(n, up) >= SIM_STAND_MIN_COS)
        return stand(a, b, mk_v2_neg(n), depth, up);
    a->pos = mk_v2_mad(a->pos, -depth * wa / wsum, n);
    b->pos = mk_v2_mad(b->pos, depth * wb / wsum, n);

    /* Remove the velocity into the contact (a perfectly inelastic normal impulse), then Coulomb
     * friction bounded by that impulse. Characters steer themselves, so no friction slows
     * them. */
    mk_vec2 rel = mk_v2_sub(b->vel, a->vel);
    float vn = mk_v2_dot(rel, n);
    if (vn < 0.0f) {
        float jn = -vn / wsum;
        a->vel = mk_v2_mad(a->vel, -jn * wa, n);
        b->vel = mk_v2_mad(b->vel, jn * wb, n);
        if (a->kind != SIM_CHARACTER && b->kind != SIM_CHARACTER) {
            mk_vec2 t = mk_v2(-n.y, n.x);
            float vt = mk_v2_dot(mk_v2_sub(b->vel, a->vel), t);
            float mu = sqrtf(a->friction * b->friction);
            float jt = mk_clampf(-vt / wsum, -mu * jn, mu * jn);
            a->vel = mk_v2_mad(a->vel, -jt * wa, t);
            b->vel = mk_v2_mad(b->vel, jt * wb, t);
        }
    }
    return depth;
}

static int by_height(const void *pa, const void *pb)
{
    float a = ((const sim_pair *)pa)->height, b = ((const sim_pair *)pb)->height;
    return (a > b) - (a < b);
}

/* Orders the pairs from the bottom up, so that a Gauss-Seidel pass carries a push from the
 * ground to the top of a stack instead of one level per pass. qsort gives the same order for
 * the same input, so the same world steps the same way. */
static void sort_pairs(sim_world *w, mk_vec2 up)
{
    sim_pair *pairs = w->pairs.data;
    for (size_t i = 0; i < w->pairs.len; i++) {
        float ha = mk_v2_dot(w->bodies[pairs[i].a].pos, up);
        float hb = mk_v2_dot(w->bodies[pairs[i].b].pos, up);
        pairs[i].height = mk_minf(ha, hb);
    }
    if (w->pairs.len > 1)
        qsort(pairs, w->pairs.len, sizeof *pairs, by_height);
}

static bool out_of_bounds(const sim_body *b, float bounds)
{
    return !(fabsf(b->pos.x) <= bounds && fabsf(b->pos.y) <= bounds);
}

void sim_world_step(sim_world *w)
{
    const sim_config *cfg = &w->cfg;
    mk_vec2 up = up_of(cfg->gravity);
    sim_body *bodies = w->bodies;
    const uint32_t *order = w->order.data;

    float fastest = 0.0f;
    for (size_t i = 0; i < w->order.len; i++) {
        sim_body *b = &bodies[order[i]];
        apply_controls(b, cfg, up);
        integrate(w, b, cfg->dt);
        b->was_grounded = b->grounded;
        b->grounded = false;
        fastest = mk_maxf(fastest, mk_v2_len(b->vel));
    }

    /* Bounds are fattened by what a pass can still move a body, so that pairs the pushes bring
     * together are in the list too. */
    sim_broadphase(w, 0.05f + 0.5f * fastest * cfg->dt);

    sort_pairs(w, up);

    /* Passes of Gauss-Seidel relaxation; the last one uses shock propagation (Guendelman,
     * Bridson and Fedkiw, "Nonconvex Rigid Bodies with Stacking", 2003): of two movable bodies
     * the lower one counts as immovable, so the bottom-up pass lifts a whole stack out of the
     * ground at once instead of letting the weight above squeeze it back in. */
    w->contacts.len = 0;
    const sim_pair *pairs = w->pairs.data;
    for (int pass = 0; pass < cfg->iterations; pass++) {
        bool shock = pass > 0 && pass == cfg->iterations - 1;
        float largest = 0.0f;
        for (size_t i = 0; i < w->pairs.len; i++) {
            sim_body *a = &bodies[pairs[i].a], *b = &bodies[pairs[i].b];
            col_manifold2 m = col_collide2(&a->shape, (col_xf2){a->pos, a->angle}, &b->shape,
                                           (col_xf2){b->pos, b->angle});
            if (m.count == 0)
                continue;
            if (pass == 0) {
                sim_contact c = {a->id, b->id, m};
                sim_vec_push(&w->contacts, &c);
            }
            float wa = a->inv_mass, wb = b->inv_mass;
            /* Only for pairs that rest on each other (normal within 60 degrees of up); side
             * by side, two bodies keep sharing the push. */
            if (shock && wa > 0.0f && wb > 0.0f && fabsf(mk_v2_dot(m.normal, up)) > 0.5f) {
                if (mk_v2_dot(a->pos, up) < mk_v2_dot(b->pos, up))
                    wa = 0.0f;
                else
                    wb = 0.0f;
            }
            largest = mk_maxf(largest, resolve(a, b, wa, wb, &m, up));
        }
        if (largest < SIM_CONVERGED && pass < cfg->iterations - 2)
            pass = cfg->iterations - 2; /* converged: go on to the shock pass */
    }

    /* A character that stood on the ground and runs down a slope would leave it: its run
     * carries it over the surface faster than gravity pulls it down, and it would bounce
     * down in hops, unable to jump between them. One that did not jump is kept on walkable
     * ground within the drop its run can make on its steepest slope (and a few centimetres
     * for steps). */
    for (size_t i = 0; i < w->order.len; i++) {
        sim_body *b = &bodies[order[i]];
        if (b->kind != SIM_CHARACTER || !b->was_grounded || b->grounded ||
            mk_v2_dot(b->vel, up) > 0.0f)
            continue;
        float run = mk_v2_len(horizontal(b->vel, up)) * cfg->dt;
        float reach = run * tanf(mk_minf(b->max_slope, SIM_SNAP_MAX_SLOPE)) + SIM_SNAP_STEP;
        b->grounded = sim_snap_to_ground(w, b, up, reach);
    }

    /* A body that left the world is removed: it would fall forever. */
    for (size_t i = 0; i < w->order.len;) {
        sim_body *b = &bodies[order[i]];
        /* A successful remove compacts `order`: index i then holds the next body. */
        if (!(b->kind != SIM_STATIC && out_of_bounds(b, cfg->bounds) &&
              sim_world_remove(w, b->id)))
            i++;
    }
    w->tick++;
}
