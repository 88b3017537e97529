/* The fixed step, one source for both dimensions (dim.h). Bodies are rigid: contacts found by the
 * narrowphase's Minkowski-difference tests become constraints of the impulse solver (solver.c)
 * with friction, restitution and rotation. Characters are the exception: against static and
 * kinematic bodies and each other they are resolved by the Minkowski push-out of "2D Collisions
 * with Minkowski Differences" (the penetration vector moves the pair apart and the velocity into
 * the contact is removed), with the slope rules below, so that they stand on slopes without
 * sliding and walk at their running speed; against dynamic bodies they take part in the solver and
 * push them. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "body_rules.h"
#include "broadphase.h"
#include "contacts_level.h"
#include "dim.h"
#include "solver.h"

#define SIM_POOL_MIN_MOVERS 256 /* bodies that can move, below which a step wakes no worker */

/* A body's finish, inline in both of its loops (the workers' and the loop thread's in order):
 * GCC keeps it out of line once two loops call it, which cost 30 instructions a body. */
#if defined(__GNUC__)
#define FINISH_INLINE __attribute__((always_inline)) inline
#else
#define FINISH_INLINE inline
#endif

/* The steering and the jump are the character rules of mink_character. */
static void apply_controls(const sim_world *w, sim_body *b, dpart *p, dvec up)
{
    float dt = w->cfg.dt;
    if (b->kind == SIM_STATIC)
        return;
    if (b->kind == SIM_KINEMATIC) {
        if (b->has_input)
            p->vel = dv_scale(p->move, b->max_speed);
        return;
    }
    if (b->has_input && b->max_speed > 0.0f)
        p->vel = DIM_NAME(chr_steer)(p->vel, p->move, b->max_speed, up, b->grounded, dt);
    if (b->kind == SIM_CHARACTER && b->jump && b->grounded)
        p->vel = DIM_NAME(chr_jump)(p->vel, up,
                                    chr_jump_speed(dv_len(dim_gravity(w)), b->jump_height));
    b->jump = false; /* gravity is the solver's, substep by substep */
}

/* Resolves one touching pair of a character by the push-out of mink_character
 * (chr_push_out2/3): normal n from a to b, moving b by n * depth separates them. Returns the
 * push applied, m. */
static float resolve(sim_body *a, dpart *ap, sim_body *b, dpart *bp, const dmanifold *m,
                     dvec up)
{
    bool a_ground = dim_is_ground(a, dv_neg(m->normal), up);
    bool b_ground = dim_is_ground(b, m->normal, up);
    a->grounded |= a_ground;
    b->grounded |= b_ground;
    DIM_NAME(chr_mover) ma = {ap->pos, ap->vel, a->inv_mass}, mb = {bp->pos, bp->vel, b->inv_mass};
    float push = DIM_NAME(chr_push_out)(&ma, &mb, m->normal, m->depth, up, a_ground, b_ground);
    ap->pos = ma.pos;
    ap->vel = ma.vel;
    bp->pos = mb.pos;
    bp->vel = mb.vel;
    return push;
}

/* A character's pair with a level body: its deepest piece is resolved as a convex pair is
 * (each pass takes the deepest again, so a corner of floor and wall is resolved over the
 * passes, and the flat pieces under a character on a seam lift it once, not once each);
 * with `report`, every piece it touches is a contact of the step. Triangles collide from
 * both sides for a character (Jolt's CharacterVirtual's default). Returns the push, m. */
static float push_out_level(sim_world *w, sim_body *a, dpart *ap, sim_body *b, dpart *bp,
                            dvec up, bool report)
{
    bool level_a = a->level != NULL;
    const sim_body *lb = level_a ? a : b;
    dpart *cp = level_a ? bp : ap;
    dvec motion = dv_sub(cp->vel, dim_part_of(w, lb)->vel);
    dxf xc = dim_xf_at(cp, cp->pos);
    if (report) {
        dchild pieces[SIM_LEVEL_MAX_CHILDREN];
        uint32_t n = DIM_NAME(sim_level_collide)(w, lb, &cp->shape, xc, motion,
                                                 COL_BACK_FACES_COLLIDE, 0.0f, pieces,
                                                 SIM_LEVEL_MAX_CHILDREN);
        n = n < SIM_LEVEL_MAX_CHILDREN ? n : SIM_LEVEL_MAX_CHILDREN;
        for (uint32_t k = 0; k < n; k++) {
            if (pieces[k].m.count == 0)
                continue;
            dcontact c = {a->id, b->id, pieces[k].m};
            if (!level_a)
                c.m.normal = dv_neg(c.m.normal);
            mk_vec_push(&dim_of(w)->contacts.v, &c);
            if (w->cfg.events)
                DIM_NAME(sim_hit_check)(w, a, b, &c.m);
            a->grounded |= dim_is_ground(a, dv_neg(c.m.normal), up);
            b->grounded |= dim_is_ground(b, c.m.normal, up);
        }
    }
    dmanifold m = DIM_NAME(sim_level_deepest)(w, lb, &cp->shape, xc, motion,
                                              COL_BACK_FACES_COLLIDE, 0.0f);
    if (m.count == 0)
        return 0.0f;
    if (level_a) /* from the character toward the level: b to a */
        m.normal = dv_neg(m.normal);
    return resolve(a, ap, b, bp, &m, up);
}

static int by_height(const void *pa, const void *pb)
{
    float a = ((const sim_pair *)pa)->height, b = ((const sim_pair *)pb)->height;
    return (a > b) - (a < b);
}

/* Passes of Gauss-Seidel push-out over the characters' pairs, with fresh manifolds each
 * pass; the first pass reports the contacts. The pairs go from the bottom up, so that a pass
 * carries a push from the ground up through characters standing on each other (qsort gives
 * the same order for the same input, so the same world steps the same way). */
static void push_out_characters(sim_world *w, dvec up)
{
    sim_pair *pairs = w->solver.push_pairs.at;
    size_t n = w->solver.push_pairs.v.len;
    for (size_t i = 0; i < n; i++)
        pairs[i].height = mk_minf(dv_dot(dim_part(w, pairs[i].a)->pos, up),
                                  dv_dot(dim_part(w, pairs[i].b)->pos, up));
    if (n > 1)
        qsort(pairs, n, sizeof *pairs, by_height);
    for (int pass = 0; pass < w->cfg.iterations; pass++) {
        float largest = 0.0f;
        for (size_t i = 0; i < n; i++) {
            sim_body *a = &w->slots.bodies.at[pairs[i].a];
            sim_body *b = &w->slots.bodies.at[pairs[i].b];
            dpart *ap = dim_part(w, pairs[i].a), *bp = dim_part(w, pairs[i].b);
            if (a->level || b->level) {
                largest = mk_maxf(largest, push_out_level(w, a, ap, b, bp, up, pass == 0));
                continue;
            }
            dmanifold m = dim_collide(&ap->shape, dim_xf_at(ap, ap->pos), &bp->shape,
                                      dim_xf_at(bp, bp->pos));
            if (m.count == 0)
                continue;
            if (pass == 0) {
                dcontact c = {a->id, b->id, m};
                mk_vec_push(&dim_of(w)->contacts.v, &c);
                if (w->cfg.events)
                    DIM_NAME(sim_hit_check)(w, a, b, &m);
            }
            largest = mk_maxf(largest, resolve(a, ap, b, bp, &m, up));
        }
        if (largest < SIM_CONVERGED)
            break;
    }
}

static dvec clamp_len(dvec v, float max)
{
    float len = dv_len(v);
    return len > max ? dv_scale(v, max / len) : v;
}

#if MK_DIM == 2
/* The smaller half extent of the shape's bounds at angle 0, m: a box's and a circle's read
 * off directly. */
static float min_half(const dpart *b)
{
    if (b->shape.type == COL_SHAPE_BOX || b->shape.type == COL_SHAPE_AABB)
        return mk_minf(b->shape.half.x, b->shape.half.y);
    if (b->shape.type == COL_SHAPE_CIRCLE)
        return b->shape.radius;
    col_aabb box =
        col_shape_bounds_q(&b->shape, (col_xf2){mk_v2(0.0f, 0.0f), 0.0f}, mk_v2(1.0f, 0.0f));
    return mk_minf(box.half.x, box.half.y);
}
#else
/* The smallest half extent of the shape's bounds as it is turned now, m. */
static float min_half(const dpart *b3)
{
    col_aabb3 box = col_shape3_bounds(&b3->shape, (col_xf3){mk_v3(0, 0, 0), b3->rot});
    return mk_minf(box.half.x, mk_minf(box.half.y, box.half.z));
}
#endif

/* Whether a body that moves by d this step is swept first (sim_sweep2/3), so that it stops at
 * the first static or kinematic body in its way instead of sinking into it or passing through:
 * the solver only sees the contacts of the start of the step. A character is pushed out of
 * what it lands on within the step (resolve), so only passing through matters for it: it is
 * swept when it moves farther than half its smallest half extent. */
static bool needs_sweep(const sim_body *b, const dpart *p, dvec d)
{
    if (b->inv_mass <= 0.0f)
        return false;
    float reach = b->kind == SIM_CHARACTER ? 0.5f * min_half(p) : SIM_SWEEP_MIN;
    return dv_dot(d, d) > reach * reach;
}

#if MK_DIM == 2
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

/* Takes solver body i's velocities and motion back into its body, sweeping it when it moves
 * far (needs_sweep); the body's angle turns by the solver's (cos, sin), kept with it. Without
 * `in_order` (on a worker), a kinematic body or one whose sweep may meet something is left
 * alone (false): a sweep stops at static and kinematic bodies as the bodies before it in the
 * solver's order left them, and writes the step's events, so those are finished on the loop's
 * thread in order. A sweep that can meet nothing (sim_sweep_meets_nothing) changes nothing,
 * and is not made. */
static FINISH_INLINE bool finish_body(sim_world *w, size_t i, float dt, bool in_order)
{
    const sim_solver_body *sb = &w->d2.solver_bodies.at[i];
    sim_body *b = &w->slots.bodies.at[w->d2.solver_info.at[i].slot];
    if (!in_order && b->kind == SIM_KINEMATIC)
        return false;
    mk_vec2 center = mk_v2_add(sim_body_center2(b), sb->dp);
    float angle = wrap_angle(b->angle + atan2f(sb->dq.y, sb->dq.x));
    float c = cosf(angle), s = sinf(angle);
    mk_vec2 r = b->local_center;
    mk_vec2 pos = mk_v2_sub(center, mk_v2(c * r.x - s * r.y, s * r.x + c * r.y));
    mk_vec2 vel = clamp_len(sb->v, SIM_MAX_SPEED);
    float spin = mk_clampf(sb->w, -SIM_MAX_SPIN, SIM_MAX_SPIN);
    /* Never a non-finite state: a body the solver could not handle stops where it was. */
    if (!mk_v2_finite(pos) || !mk_v2_finite(vel) || !isfinite(angle) || !isfinite(spin)) {
        b->vel = mk_v2(0.0f, 0.0f);
        b->w = 0.0f;
        return true;
    }
    mk_vec2 d = mk_v2_sub(pos, b->pos);
    bool sweep = needs_sweep(b, b, d);
    if (sweep && !in_order) {
        if (!sim_sweep_meets_nothing2(w, b, d))
            return false;
        sweep = false;
    }
    b->vel = vel;
    b->w = spin;
    b->rot = mk_v2(c, s);
    b->rot_angle = angle;
    if (!(sweep && sim_sweep2(w, b, d, dt)))
        b->pos = pos;
    b->angle = angle;
    return true;
}
#else
/* The same in 3D: the body's rotation turns by the solver's quaternion. */
static FINISH_INLINE bool finish_body(sim_world *w, size_t i, float dt, bool in_order)
{
    const sim_solver_body3 *sb = &w->d3.solver_bodies.at[i];
    uint32_t slot = w->d3.solver_info.at[i].slot;
    sim_body *b = &w->slots.bodies.at[slot];
    if (!in_order && b->kind == SIM_KINEMATIC)
        return false;
    sim_body3 *b3 = sim_part3(w, slot);
    mk_vec3 center = mk_v3_add(sim_body_center3(b3), sb->dp);
    mk_quat rot;
    if (!mk_quat_normalize_checked(mk_quat_mul(sb->dq, b3->rot), &rot))
        rot = b3->rot;
    mk_vec3 pos = mk_v3_sub(center, mk_quat_rotate(rot, b3->local_center));
    mk_vec3 vel = clamp_len(sb->v, SIM_MAX_SPEED);
    mk_vec3 spin = clamp_len(sb->w, SIM_MAX_SPIN);
    if (!mk_v3_finite(pos) || !mk_v3_finite(vel) || !mk_v3_finite(spin)) {
        b3->vel = mk_v3(0.0f, 0.0f, 0.0f);
        b3->w = mk_v3(0.0f, 0.0f, 0.0f);
        return true;
    }
    mk_vec3 d = mk_v3_sub(pos, b3->pos);
    bool sweep = needs_sweep(b, b3, d);
    if (sweep && !in_order) {
        /* Turned as sim_sweep3 sees it: its swept box is that of the new rotation. */
        sim_body3 turned = *b3;
        turned.rot = rot;
        if (!sim_sweep_meets_nothing3(w, &turned, d))
            return false;
        sweep = false;
    }
    b3->vel = vel;
    b3->w = spin;
    b3->rot = rot;
    if (!(sweep && sim_sweep3(w, b, d, dt)))
        b3->pos = pos;
    return true;
}
#endif

#define SIM_FINISH_GRAIN 256 /* solver bodies a block of the workers' finish */

typedef struct finish_job {
    sim_world *w;
    float dt;
    uint8_t *later; /* per solver body: 1 when the loop's thread finishes it */
} finish_job;

static void finish_range(void *ctx, size_t begin, size_t end)
{
    const finish_job *job = ctx;
    for (size_t i = begin + 1; i < end + 1; i++)
        job->later[i] = !finish_body(job->w, i, job->dt, false);
}

/* Finishes every solver body (solver body 0 is the world's): on the workers when `spread`,
 * each body that sweeps or is kinematic then on this thread, in the solver's order, as one
 * thread finishes them all; in order on this thread alone otherwise, or when the flags find
 * no memory. */
static void finish_bodies(sim_world *w, float dt, bool spread)
{
    size_t n = dim_of(w)->solver_bodies.v.len;
    if (n <= 1)
        return;
    mk_vec *later = &w->solver.step_flags.v;
    if (spread && mk_vec_resize(later, n)) {
        finish_job job = {w, dt, later->data};
        sim_pool_for(w->pool, n - 1, SIM_FINISH_GRAIN, finish_range, &job);
        for (size_t i = 1; i < n; i++)
            if (job.later[i])
                finish_body(w, i, dt, true);
        return;
    }
    for (size_t i = 1; i < n; i++)
        finish_body(w, i, dt, true);
}

#define SIM_STEP_GRAIN 512 /* bodies a block of the workers' passes over the moving bodies */

typedef struct controls_job {
    sim_world *w;
    dvec up;
    atomic_bool kinematic; /* some mover is kinematic */
} controls_job;

/* Movers [begin, end): their controls, their speed limit and their ground flags. */
static void controls_range(void *ctx, size_t begin, size_t end)
{
    controls_job *job = ctx;
    sim_world *w = job->w;
    const uint32_t *movers = w->broad.movers.at;
    bool kinematic = false;
    for (size_t i = begin; i < end; i++) {
        sim_body *b = &w->slots.bodies.at[movers[i]];
        kinematic |= b->kind == SIM_KINEMATIC;
        if (b->sleeping || b->kind == SIM_STATIC)
            continue;
        dpart *p = dim_part(w, movers[i]);
        apply_controls(w, b, p, job->up);
        p->vel = clamp_len(p->vel, SIM_MAX_SPEED);
        b->was_grounded = b->grounded;
        b->grounded = false;
    }
    if (kinematic)
        atomic_store_explicit(&job->kinematic, true, memory_order_relaxed);
}

/* Whether the body in `slot` left the world: it would fall forever. */
static bool left_world(const sim_world *w, uint32_t slot)
{
    return w->slots.bodies.at[slot].kind != SIM_STATIC &&
           !dim_within(dim_part(w, slot)->pos, w->cfg.bounds);
}

typedef struct gone_job {
    sim_world *w;
    uint8_t *gone; /* per body of the order: it left the world */
} gone_job;

static void gone_range(void *ctx, size_t begin, size_t end)
{
    const gone_job *job = ctx;
    for (size_t i = begin; i < end; i++)
        job->gone[i] = left_world(job->w, job->w->broad.order.at[i]);
}

/* Removes each body that left the world, in the order's order: found on the workers when
 * `spread`. */
static void remove_the_gone(sim_world *w, bool spread)
{
    size_t n = w->broad.order.v.len;
    mk_vec *gone = &w->solver.step_flags.v;
    if (!spread || !mk_vec_resize(gone, n)) {
        for (size_t i = 0; i < w->broad.order.v.len;) {
            uint32_t slot = w->broad.order.at[i];
            /* A successful remove compacts `order`: index i then holds the next body. */
            if (!(left_world(w, slot) && sim_remove(w, w->slots.bodies.at[slot].id)))
                i++;
        }
        return;
    }
    gone_job job = {w, gone->data};
    sim_pool_for(w->pool, n, SIM_STEP_GRAIN, gone_range, &job);
    /* A remove compacts the order, keeping it: the body flagged at i is then at i less the
     * bodies removed before it. */
    size_t removed = 0;
    for (size_t i = 0; i < n; i++)
        if (job.gone[i] && sim_remove(w, w->slots.bodies.at[w->broad.order.at[i - removed]].id))
            removed++;
}

void DIM_NAME(sim_world_step)(sim_world *w)
{
    const sim_config *cfg = &w->cfg;
    dvec up = DIM_NAME(chr_up)(dim_gravity(w));
    float g = dv_len(dim_gravity(w));
    sim_body *bodies = w->slots.bodies.at;
    const uint32_t *order = w->broad.order.at;
    /* The workers spin for the step's parallel parts; a small world's parts are shorter than
     * waking them, and run on this thread alone (with the same results). */
    bool parallel = w->broad.movers.v.len >= SIM_POOL_MIN_MOVERS;
    if (parallel)
        sim_pool_begin(w->pool);
    /* The passes whose items the loop's thread then takes in order (finish_bodies,
     * remove_the_gone) flag them only where other threads share the work: one thread alone
     * does each item in order at once. */
    bool spread = parallel && sim_pool_workers(w->pool) > 1;

    controls_job controls = {w, up, false};
    sim_pool_for(w->pool, w->broad.movers.v.len, SIM_STEP_GRAIN, controls_range, &controls);
    w->broad.kinematic_movers = atomic_load_explicit(&controls.kinematic, memory_order_relaxed);

    DIM_NAME(sim_broadphase)(w, cfg->dt, g);
    DIM_NAME(sim_wake_touched)(w);
    sim_joints_wake(w);
    if (w->broad.pairs_dirty) /* an island woke: its own pairs join the list now */
        DIM_NAME(sim_broadphase)(w, cfg->dt, g);
    DIM_NAME(sim_build_solver_bodies)(w);
    DIM_NAME(sim_collide)(w, up);
    DIM_NAME(sim_solve)(w, cfg->dt); /* which stores the impulses for the next step */
    finish_bodies(w, cfg->dt, spread);
    push_out_characters(w, up);

    /* A character that stood on the ground and runs down a slope would leave it: its run
     * carries it over the surface faster than gravity pulls it down, and it would bounce
     * down in hops, unable to jump between them. One that did not jump is kept on walkable
     * ground within the drop its run can make on its steepest slope (and a few centimetres
     * for steps). */
    for (size_t i = 0; w->slots.characters > 0 && i < w->broad.order.v.len; i++) {
        sim_body *b = &bodies[order[i]];
        const dpart *p = dim_part(w, order[i]);
        if (b->kind != SIM_CHARACTER || b->sleeping || !b->was_grounded || b->grounded ||
            dv_dot(p->vel, up) > 0.0f)
            continue;
        float run = dv_len(DIM_NAME(chr_horizontal)(p->vel, up)) * cfg->dt;
        float drop = run * tanf(mk_minf(b->max_slope, SIM_SNAP_MAX_SLOPE)) + SIM_SNAP_STEP;
        b->grounded = DIM_NAME(sim_snap_to_ground)(w, b, up, drop);
    }

    if (cfg->sleep)
        sim_sleep_islands(w, cfg->dt);

    remove_the_gone(w, spread);
    sim_bounds_after_step(w);
    if (parallel)
        sim_pool_end(w->pool);
    w->tick++;
}
