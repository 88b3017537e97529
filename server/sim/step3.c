/* The fixed step of a 3D world, in the 2D step's design (step.c says why): dynamic bodies go
 * through the soft-step solver (solver.c) on the narrowphase's manifolds (contacts3.c);
 * characters are resolved against static and kinematic bodies and each other by the Minkowski
 * push-out with the same slope rules as in 2D, and push dynamic bodies through the solver. */
#include <math.h>
#include <stdlib.h>

#include "body_rules.h"
#include "broadphase.h"
#include "solver.h"
#include "world_internal.h"

static mk_vec3 up_of3(mk_vec3 gravity)
{
    return chr_up3(gravity);
}

/* The part of v across up (all of it without gravity). */
static mk_vec3 horizontal3(mk_vec3 v, mk_vec3 up)
{
    return chr_horizontal3(v, up);
}

/* The steering and the jump are the character rules of mink_character. */
static void apply_controls3(sim_body *b, sim_body3 *b3, const sim_config *cfg, mk_vec3 up)
{
    float dt = cfg->dt;
    if (b->kind == SIM_STATIC)
        return;
    if (b->kind == SIM_KINEMATIC) {
        if (b->has_input)
            b3->vel = mk_v3_scale(b3->move, b->max_speed);
        return;
    }
    if (b->has_input && b->max_speed > 0.0f)
        b3->vel = chr_steer3(b3->vel, b3->move, b->max_speed, up, b->grounded, dt);
    if (b->kind == SIM_CHARACTER && b->jump && b->grounded)
        b3->vel = chr_jump3(b3->vel, up, chr_jump_speed(mk_v3_len(cfg->gravity3), b->jump_height));
    b->jump = false;
}

/* Resolves one touching pair of a character by the push-out of mink_character
 * (chr_push_out3); returns the push applied, m. */
static float resolve3(sim_body *a, sim_body3 *a3, sim_body *b, sim_body3 *b3,
                      const col_manifold3 *m, mk_vec3 up)
{
    bool a_ground = sim_is_ground3(a, mk_v3_neg(m->normal), up);
    bool b_ground = sim_is_ground3(b, m->normal, up);
    a->grounded |= a_ground;
    b->grounded |= b_ground;
    chr_mover3 ma = {a3->pos, a3->vel, a->inv_mass}, mb = {b3->pos, b3->vel, b->inv_mass};
    float push = chr_push_out3(&ma, &mb, m->normal, m->depth, up, a_ground, b_ground);
    a3->pos = ma.pos;
    a3->vel = ma.vel;
    b3->pos = mb.pos;
    b3->vel = mb.vel;
    return push;
}

static int by_height(const void *pa, const void *pb)
{
    float a = ((const sim_pair *)pa)->height, b = ((const sim_pair *)pb)->height;
    return (a > b) - (a < b);
}

static void push_out_characters3(sim_world *w, mk_vec3 up)
{
    sim_pair *pairs = w->push_pairs.data;
    size_t n = w->push_pairs.len;
    for (size_t i = 0; i < n; i++)
        pairs[i].height = mk_minf(mk_v3_dot(w->bodies3[pairs[i].a].pos, up),
                                  mk_v3_dot(w->bodies3[pairs[i].b].pos, up));
    if (n > 1)
        qsort(pairs, n, sizeof *pairs, by_height);
    for (int pass = 0; pass < w->cfg.iterations; pass++) {
        float largest = 0.0f;
        for (size_t i = 0; i < n; i++) {
            sim_body *a = &w->bodies[pairs[i].a], *b = &w->bodies[pairs[i].b];
            sim_body3 *a3 = &w->bodies3[pairs[i].a], *b3 = &w->bodies3[pairs[i].b];
            col_manifold3 m = col_collide3(&a3->shape, (col_xf3){a3->pos, a3->rot}, &b3->shape,
                                           (col_xf3){b3->pos, b3->rot});
            if (m.count == 0)
                continue;
            if (pass == 0) {
                sim_contact3 c = {a->id, b->id, m};
                sim_vec_push(&w->contacts3, &c);
            }
            largest = mk_maxf(largest, resolve3(a, a3, b, b3, &m, up));
        }
        if (largest < SIM_CONVERGED)
            break;
    }
}

static mk_vec3 clamp_len(mk_vec3 v, float max)
{
    float len = mk_v3_len(v);
    return len > max ? mk_v3_scale(v, max / len) : v;
}

static float min_half3(const sim_body3 *b3)
{
    col_aabb3 box = col_shape3_bounds(&b3->shape, (col_xf3){mk_v3(0, 0, 0), b3->rot});
    return mk_minf(box.half.x, mk_minf(box.half.y, box.half.z));
}

/* Whether a body that moves by d this step is swept first (sim_sweep3): as step.c's
 * needs_sweep, a character only when it moves farther than half its smallest half extent, far
 * enough to pass through something. */
static bool needs_sweep3(const sim_body *b, const sim_body3 *b3, mk_vec3 d)
{
    if (b->inv_mass <= 0.0f)
        return false;
    float reach = b->kind == SIM_CHARACTER ? 0.5f * min_half3(b3) : SIM_SWEEP_MIN;
    return mk_v3_dot(d, d) > reach * reach;
}

/* Takes the solver's velocities and motion back into the bodies, sweeping those that move
 * far (needs_sweep3). */
static void finish_bodies3(sim_world *w, float dt)
{
    const sim_solver_body3 *sb = w->solver_bodies3.data;
    const sim_solver_info3 *info = w->solver_info3.data;
    for (size_t i = 1; i < w->solver_bodies3.len; i++) {
        sim_body *b = &w->bodies[info[i].slot];
        sim_body3 *b3 = &w->bodies3[info[i].slot];
        mk_vec3 center = mk_v3_add(sim_body3_center(b3), sb[i].dp);
        mk_quat rot;
        if (!mk_quat_normalize_checked(mk_quat_mul(sb[i].dq, b3->rot), &rot))
            rot = b3->rot;
        mk_vec3 pos = mk_v3_sub(center, mk_quat_rotate(rot, b3->local_center));
        mk_vec3 vel = clamp_len(sb[i].v, SIM_MAX_SPEED);
        mk_vec3 spin = clamp_len(sb[i].w, SIM_MAX_SPIN);
        /* Never a non-finite state: a body the solver could not handle stops where it was. */
        if (!mk_v3_finite(pos) || !mk_v3_finite(vel) || !mk_v3_finite(spin)) {
            b3->vel = mk_v3(0.0f, 0.0f, 0.0f);
            b3->w = mk_v3(0.0f, 0.0f, 0.0f);
            continue;
        }
        b3->vel = vel;
        b3->w = spin;
        mk_vec3 d = mk_v3_sub(pos, b3->pos);
        b3->rot = rot;
        if (needs_sweep3(b, b3, d) && sim_sweep3(w, b, d, dt))
            continue;
        b3->pos = pos;
    }
}

static bool out_of_bounds3(const sim_body3 *b3, float bounds)
{
    return !(fabsf(b3->pos.x) <= bounds && fabsf(b3->pos.y) <= bounds &&
             fabsf(b3->pos.z) <= bounds);
}

void sim_world_step3(sim_world *w)
{
    const sim_config *cfg = &w->cfg;
    mk_vec3 up = up_of3(cfg->gravity3);
    float g = mk_v3_len(cfg->gravity3);
    const uint32_t *order = w->order.data;

    for (size_t i = 0; i < w->order.len; i++) {
        sim_body *b = &w->bodies[order[i]];
        if (b->sleeping || b->kind == SIM_STATIC)
            continue;
        sim_body3 *b3 = &w->bodies3[order[i]];
        apply_controls3(b, b3, cfg, up);
        b3->vel = clamp_len(b3->vel, SIM_MAX_SPEED);
        b->was_grounded = b->grounded;
        b->grounded = false;
    }

    sim_broadphase3(w, cfg->dt, g);
    sim_wake_touched3(w);
    if (w->pairs_dirty)
        sim_broadphase3(w, cfg->dt, g);
    sim_build_solver_bodies3(w);
    sim_collide3(w, up);
    sim_solve3(w, cfg->dt);
    sim_store_impulses3(w);
    finish_bodies3(w, cfg->dt);
    push_out_characters3(w, up);

    /* Characters running down a slope stay on it (step.c says why). */
    for (size_t i = 0; i < w->order.len; i++) {
        sim_body *b = &w->bodies[order[i]];
        sim_body3 *b3 = &w->bodies3[order[i]];
        if (b->kind != SIM_CHARACTER || b->sleeping || !b->was_grounded || b->grounded ||
            mk_v3_dot(b3->vel, up) > 0.0f)
            continue;
        float run = mk_v3_len(horizontal3(b3->vel, up)) * cfg->dt;
        float drop = run * tanf(mk_minf(b->max_slope, SIM_SNAP_MAX_SLOPE)) + SIM_SNAP_STEP;
        b->grounded = sim_snap_to_ground3(w, b, up, drop);
    }

    if (cfg->sleep)
        sim_sleep_islands(w, cfg->dt);

    for (size_t i = 0; i < w->order.len;) {
        sim_body *b = &w->bodies[order[i]];
        if (!(b->kind != SIM_STATIC && out_of_bounds3(&w->bodies3[order[i]], cfg->bounds) &&
              sim_remove(w, b->id)))
            i++;
    }
    sim_bounds_after_step(w);
    w->tick++;
}
