/* The fixed step. Bodies are rigid: contacts found by the narrowphase's Minkowski-difference
 * tests become constraints of the impulse solver (solver.c) with friction, restitution and
 * rotation. Characters are the exception: against static and kinematic bodies and each other
 * they are resolved by the Minkowski push-out of "2D Collisions with Minkowski Differences"
 * (the penetration vector moves the pair apart and the velocity into the contact is removed),
 * with the slope rules below, so that they stand on slopes without sliding and walk at their
 * running speed; against dynamic bodies they take part in the solver and push them. */
#include <math.h>
#include <stdlib.h>

#include "body_rules.h"
#include "broadphase.h"
#include "solver.h"
#include "world_internal.h"

static mk_vec2 up_of(mk_vec2 gravity)
{
    return chr_up2(gravity);
}

/* The part of `v` across `up` (all of it when there is no up: a world without gravity). */
static mk_vec2 horizontal(mk_vec2 v, mk_vec2 up)
{
    return chr_horizontal2(v, up);
}

/* The steering and the jump are the character rules of mink_character. */
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
        if (b->has_input && b->max_speed > 0.0f)
            b->vel = chr_steer2(b->vel, b->move, b->max_speed, up, b->grounded, dt);
        if (b->kind == SIM_CHARACTER && b->jump && b->grounded)
            b->vel = chr_jump2(b->vel, up, chr_jump_speed(mk_v2_len(cfg->gravity), b->jump_height));
        b->jump = false; /* gravity is the solver's, substep by substep */
        return;
    }
    }
}

/* Resolves one touching pair of a character by the push-out of mink_character
 * (chr_push_out2): normal n from a to b, moving b by n * depth separates them. Returns the
 * push applied, m. */
static float resolve(sim_body *a, sim_body *b, const col_manifold2 *m, mk_vec2 up)
{
    bool a_ground = sim_is_ground(a, mk_v2_neg(m->normal), up);
    bool b_ground = sim_is_ground(b, m->normal, up);
    a->grounded |= a_ground;
    b->grounded |= b_ground;
    chr_mover2 ma = {a->pos, a->vel, a->inv_mass}, mb = {b->pos, b->vel, b->inv_mass};
    float push = chr_push_out2(&ma, &mb, m->normal, m->depth, up, a_ground, b_ground);
    a->pos = ma.pos;
    a->vel = ma.vel;
    b->pos = mb.pos;
    b->vel = mb.vel;
    return push;
}

static int by_height(const void *pa, const void *pb)
{
    float a = ((const sim_pair *)pa)->height, b = ((const sim_pair *)pb)->height;
    return (a > b) - (a < b);
}

/* Orders the characters' pairs from the bottom up, so that a pass carries a push from the
 * ground up through characters standing on each other. qsort gives the same order for the
 * same input, so the same world steps the same way. */
static void sort_push_pairs(sim_world *w, mk_vec2 up)
{
    sim_pair *pairs = w->push_pairs.data;
    for (size_t i = 0; i < w->push_pairs.len; i++) {
        float ha = mk_v2_dot(w->bodies[pairs[i].a].pos, up);
        float hb = mk_v2_dot(w->bodies[pairs[i].b].pos, up);
        pairs[i].height = mk_minf(ha, hb);
    }
    if (w->push_pairs.len > 1)
        qsort(pairs, w->push_pairs.len, sizeof *pairs, by_height);
}

/* Passes of Gauss-Seidel push-out over the characters' pairs, with fresh manifolds each
 * pass; the first pass reports the contacts. */
static void push_out_characters(sim_world *w, mk_vec2 up)
{
    sort_push_pairs(w, up);
    const sim_pair *pairs = w->push_pairs.data;
    for (int pass = 0; pass < w->cfg.iterations; pass++) {
        float largest = 0.0f;
        for (size_t i = 0; i < w->push_pairs.len; i++) {
            sim_body *a = &w->bodies[pairs[i].a], *b = &w->bodies[pairs[i].b];
            col_manifold2 m = col_collide2(&a->shape, (col_xf2){a->pos, a->angle}, &b->shape,
                                           (col_xf2){b->pos, b->angle});
            if (m.count == 0)
                continue;
            if (pass == 0) {
                sim_contact2 c = {a->id, b->id, m};
                sim_vec_push(&w->contacts, &c);
            }
            largest = mk_maxf(largest, resolve(a, b, &m, up));
        }
        if (largest < SIM_CONVERGED)
            break;
    }
}

static mk_vec2 clamp_speed(mk_vec2 v)
{
    float speed = mk_v2_len(v);
    return speed > SIM_MAX_SPEED ? mk_v2_scale(v, SIM_MAX_SPEED / speed) : v;
}

/* The smaller half extent of the shape's bounds at angle 0, m: a box's and a circle's read
 * off directly. */
static float min_half(const sim_body *b)
{
    if (b->shape.type == COL_SHAPE_BOX || b->shape.type == COL_SHAPE_AABB)
        return mk_minf(b->shape.half.x, b->shape.half.y);
    if (b->shape.type == COL_SHAPE_CIRCLE)
        return b->shape.radius;
    col_aabb box =
        col_shape_bounds_q(&b->shape, (col_xf2){mk_v2(0.0f, 0.0f), 0.0f}, mk_v2(1.0f, 0.0f));
    return mk_minf(box.half.x, box.half.y);
}

/* remainderf(x, 2 pi), the angle in [-pi, pi], without the library call for an angle within
 * a turn of 0 (every step's: the last angle plus a turn of at most pi). There x -+ 2 pi is
 * exact (Sterbenz's lemma: |x| is within a factor of two of 2 pi), so the result is
 * remainderf's bit for bit, ties and signed zeros included. */
static float wrap_angle(float x)
{
    const float turn = 2.0f * 3.14159265f, half = 3.14159265f;
    if (x >= -half && x <= half)
        return x;
    if (x > half && x <= turn)
        return x - turn;
    if (x < -half && x > -turn)
        return x + turn;
    return remainderf(x, turn);
}

/* Whether a body that moves by d this step is swept first (sim_sweep2), so that it stops at
 * the first static or kinematic body in its way instead of sinking into it or passing through:
 * the solver only sees the contacts of the start of the step. A character is pushed out of
 * what it lands on within the step (resolve), so only passing through matters for it. */
static bool needs_sweep(const sim_body *b, mk_vec2 d)
{
    if (b->inv_mass <= 0.0f)
        return false;
    float reach = b->kind == SIM_CHARACTER ? 0.5f * min_half(b) : SIM_SWEEP_MIN;
    return mk_v2_dot(d, d) > reach * reach;
}

/* Takes the solver's velocities and motion back into the bodies, sweeping those that move
 * far (needs_sweep). */
static void finish_bodies(sim_world *w, float dt)
{
    const sim_solver_body *sb = w->solver_bodies.data;
    const sim_solver_info *info = w->solver_info.data;
    for (size_t i = 1; i < w->solver_bodies.len; i++) {
        sim_body *b = &w->bodies[info[i].slot];
        mk_vec2 center = mk_v2_add(sim_body_center(b), sb[i].dp);
        float angle = wrap_angle(b->angle + atan2f(sb[i].dq.y, sb[i].dq.x));
        float c = cosf(angle), s = sinf(angle);
        mk_vec2 r = b->local_center;
        mk_vec2 pos = mk_v2_sub(center, mk_v2(c * r.x - s * r.y, s * r.x + c * r.y));
        mk_vec2 vel = clamp_speed(sb[i].v);
        float spin = mk_clampf(sb[i].w, -SIM_MAX_SPIN, SIM_MAX_SPIN);
        /* Never a non-finite state: a body the solver could not handle stops where it was. */
        if (!mk_v2_finite(pos) || !mk_v2_finite(vel) || !isfinite(angle) || !isfinite(spin)) {
            b->vel = mk_v2(0.0f, 0.0f);
            b->w = 0.0f;
            continue;
        }
        b->vel = vel;
        b->w = spin;
        mk_vec2 d = mk_v2_sub(pos, b->pos);
        b->rot = mk_v2(c, s);
        b->rot_angle = angle;
        if (needs_sweep(b, d) && sim_sweep2(w, b, d, dt)) {
            b->angle = angle;
            continue;
        }
        b->pos = pos;
        b->angle = angle;
    }
}

static bool out_of_bounds(const sim_body *b, float bounds)
{
    return !(fabsf(b->pos.x) <= bounds && fabsf(b->pos.y) <= bounds);
}

void sim_world_step(sim_world *w)
{
    if (w->cfg.dim == 3) {
        sim_world_step3(w);
        return;
    }
    const sim_config *cfg = &w->cfg;
    mk_vec2 up = up_of(cfg->gravity);
    sim_body *bodies = w->bodies;
    const uint32_t *order = w->order.data, *movers = w->movers.data;

    for (size_t i = 0; i < w->movers.len; i++) {
        sim_body *b = &bodies[movers[i]];
        if (b->sleeping || b->kind == SIM_STATIC)
            continue;
        apply_controls(b, cfg, up);
        b->vel = clamp_speed(b->vel);
        b->was_grounded = b->grounded;
        b->grounded = false;
    }

    sim_broadphase2(w, cfg->dt, mk_v2_len(cfg->gravity));
    sim_wake_touched2(w);
    if (w->pairs_dirty) /* an island woke: its own pairs join the list now */
        sim_broadphase2(w, cfg->dt, mk_v2_len(cfg->gravity));
    sim_build_solver_bodies2(w);
    sim_collide2(w, up);
    sim_solve2(w, cfg->dt);
    finish_bodies(w, cfg->dt);
    push_out_characters(w, up);

    /* A character that stood on the ground and runs down a slope would leave it: its run
     * carries it over the surface faster than gravity pulls it down, and it would bounce
     * down in hops, unable to jump between them. One that did not jump is kept on walkable
     * ground within the drop its run can make on its steepest slope (and a few centimetres
     * for steps). */
    for (size_t i = 0; i < w->order.len; i++) {
        sim_body *b = &bodies[order[i]];
        if (b->kind != SIM_CHARACTER || b->sleeping || !b->was_grounded || b->grounded ||
            mk_v2_dot(b->vel, up) > 0.0f)
            continue;
        float run = mk_v2_len(horizontal(b->vel, up)) * cfg->dt;
        float drop = run * tanf(mk_minf(b->max_slope, SIM_SNAP_MAX_SLOPE)) + SIM_SNAP_STEP;
        b->grounded = sim_snap_to_ground2(w, b, up, drop);
    }

    if (cfg->sleep)
        sim_sleep_islands(w, cfg->dt);

    /* A body that left the world is removed: it would fall forever. */
    for (size_t i = 0; i < w->order.len;) {
        sim_body *b = &bodies[order[i]];
        /* A successful remove compacts `order`: index i then holds the next body. */
        if (!(b->kind != SIM_STATIC && out_of_bounds(b, cfg->bounds) && sim_remove(w, b->id)))
            i++;
    }
    sim_bounds_after_step(w);
    w->tick++;
}
