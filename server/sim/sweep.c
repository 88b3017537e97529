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
#include "contacts_level.h"
#include "dim.h"

/* m: the gap at which the sweep counts as touching; the push-out handles the rest. */
#define SWEEP_SLOP 0.005f
#define SWEEP_MAX_ITERATIONS 32

/* The fraction of the step at which `b`, moving by d relative to `o`, first comes within the
 * slop of it; > 1 when it does not. */
static float time_of_impact(const dpart *b, dvec d, const dpart *o)
{
    float len = dv_len(d);
    dxf xo = dim_xf_at(o, o->pos);
    float t = 0.0f;
    for (int i = 0; i < SWEEP_MAX_ITERATIONS; i++) {
        dmanifold m = dim_collide(&b->shape, dim_xf_at(b, dv_mad(b->pos, t, d)), &o->shape, xo);
        if (m.count > 0)
            return t == 0.0f ? 2.0f : t; /* overlapping at the start: the push-out's job */
        if (m.distance < SWEEP_SLOP) {
            if (t > 0.0f)
                return t;
            /* Within the slop from the start (resting on it, or sliding along it): a hit only
             * when the motion goes into it. */
            dxf ahead = dim_xf_at(b, dv_mad(b->pos, 2.0f * SWEEP_SLOP / len, d));
            dmanifold probe = dim_collide(&b->shape, ahead, &o->shape, xo);
            return probe.count > 0 && probe.depth > 0.5f * SWEEP_SLOP ? 0.0f : 2.0f;
        }
        t += (m.distance - 0.5f * SWEEP_SLOP) / len;
        if (t > 1.0f)
            return 2.0f;
    }
    return t;
}

/* Which side of a level's triangles stops a body: both for a character (as its push-out),
 * the front alone for the others (contacts_level.c). */
static col_back_face back_of(const sim_body *b)
{
    return b->kind == SIM_CHARACTER ? COL_BACK_FACES_COLLIDE : COL_BACK_FACES_IGNORE;
}

/* The manifold of b placed at xb against body o (normal from b toward o): a level's deepest
 * piece within `margin`. */
static dmanifold collide_with(const sim_world *w, const sim_body *b, const dpart *bp, dxf xb,
                              const sim_body *o, const dpart *op)
{
    if (o->level)
        return DIM_NAME(sim_level_deepest)(w, o, &bp->shape, xb, dv_sub(bp->vel, op->vel),
                                           back_of(b), SWEEP_SLOP);
    return dim_collide(&bp->shape, xb, &op->shape, dim_xf_at(op, op->pos));
}

#if MK_DIM == 3
/* Body b's kept triangles of level body lb (contacts_level.c) into *copy, pointing into the
 * pool where it is now; NULL when b keeps none of lb's. */
static const col_level3_near *kept_near(const sim_world *w, const sim_body *b,
                                        const sim_body *lb, col_level3_near *copy)
{
    uint32_t slot = sim_id_slot(b->id);
    if (slot >= w->solver.level_near.v.len)
        return NULL;
    const sim_level_near *k = &w->solver.level_near.at[slot];
    if (k->room == 0 || k->body != b->id || k->level != lb->id || !k->near.valid)
        return NULL;
    *copy = k->near;
    copy->tris = (col_level3_tri *)w->solver.level_tris.data + k->first;
    return copy;
}
#endif

/* time_of_impact against a level body lb: the first piece the shape cast meets (the
 * collision library's level casts, which pass what the motion only grazes), backed off by
 * half the slop; touching at the start, the same rules as time_of_impact's. The cast passes
 * the triangles and segments the shape starts within `skin` of: for a body that has contacts
 * with the level, those within SIM_SPECULATIVE had their contact points in this step's solver
 * (contacts_level.c), which already kept it out of them. Stopped by one of them, a body
 * rolling or sliding over a curved surface, whose motion dips a fraction of a millimetre into
 * the next piece, would stop at the start of every step and never move again. */
static float level_time_of_impact(const sim_world *w, const sim_body *b, const dpart *bp,
                                  dvec d, const sim_body *lb, float skin)
{
    float len = dv_len(d);
    dxf xb = dim_xf_at(bp, bp->pos), xl = dim_level_xf(w, lb);
    const sim_level *l = lb->level;
#if MK_DIM == 2
    col_ray_hit2 r = l->kind == SIM_LEVEL_CHAIN
                         ? col_chain2_cast_beyond(&bp->shape, xb, d, &l->chain, xl, skin, NULL)
                         : col_cast_segment2_beyond(&bp->shape, xb, d, l->segment, xl, skin);
#else
    col_level3_near near;
    col_ray_hit3 r = col_level3_cast_near(&bp->shape, xb, d, sim_level_3d(l), xl, back_of(b),
                                          skin, kept_near(w, b, lb, &near), NULL);
#endif
    if (!r.hit)
        return 2.0f;
    if (r.fraction > 0.0f)
        return mk_maxf(r.fraction - 0.5f * SWEEP_SLOP / len, 0.0f);
    if (DIM_NAME(sim_level_deepest)(w, lb, &bp->shape, xb, d, back_of(b), 0.0f).count > 0)
        return 2.0f; /* overlapping at the start: the push-out's job */
    dxf ahead = dim_xf_at(bp, dv_mad(bp->pos, 2.0f * SWEEP_SLOP / len, d));
    dmanifold probe = DIM_NAME(sim_level_deepest)(w, lb, &bp->shape, ahead, d, back_of(b), 0.0f);
    return probe.count > 0 && probe.depth > 0.5f * SWEEP_SLOP ? 0.0f : 2.0f;
}

/* m: how far from a level's pieces a body's clearance must keep it for its sweep to skip
 * them, a hundred times the distance at which a cast counts a touch (COL_CAST_TOLERANCE). */
#define SWEEP_CLEAR_ROOM 1e-3f

/* Whether body `slot` moving by d stays clear of the pieces of level body `level` that have
 * no contact points with it (those that have are the solver's, and the cast passes those
 * within its skin), by the clearance its level pair worked out this step (sim_level_clear):
 * then the cast would find nothing that the solver does not hold, and is not made. */
static bool clear_of(const sim_world *w, uint32_t slot, uint32_t level, dvec d)
{
#if MK_DIM == 3
    uint32_t at = w->solver.index.at[slot];
    if (at == 0 || at >= w->solver.level_clear.v.len)
        return false;
    const sim_level_clear *c = &w->solver.level_clear.at[at];
    return c->level == level && col_level3_clear_moves(&c->c, d, SWEEP_CLEAR_ROOM);
#else
    (void)w, (void)slot, (void)level, (void)d;
    return false;
#endif
}

/* The region a body sweeps through as it moves by d. */
static col_aabb3 swept_region(const dpart *bp, dvec d)
{
    daabb start = dim_shape_bounds(bp);
    daabb swept = {dv_mad(start.center, 0.5f, d), dv_add(start.half, dim_half_abs(d))};
    return dim_aabb3(swept);
}

/* The first body that `b`, moved by d over a step of dt seconds, comes to touch, and the
 * fraction of d at which it does (in *t); NULL when none. With `fixed_only`, only static and
 * kinematic bodies count, each moving at its own velocity meanwhile, and a level's pieces
 * within SIM_SPECULATIVE at the start are the solver's (level_time_of_impact) unless b is a
 * character (whose pairs with fixed bodies are pushed out, not solved); otherwise every body
 * counts, as it stands. */
static const sim_body *first_impact(sim_world *w, const sim_body *b, dvec d, float dt,
                                    bool fixed_only, float *t)
{
    const dpart *bp = dim_part_of(w, b);
    col_aabb3 region = swept_region(bp, d);
    float best = 2.0f;
    const sim_body *hit = NULL;
    /* Only static and kinematic bodies stop a sweep: without a kinematic one, the statics' tree
     * alone is read, not every moving body whose x range the region meets (in a tall pile,
     * its whole column, for each of the many bodies a settling pile sweeps). */
    bool movers = !fixed_only || w->broad.kinematic_movers;
    if (!(movers ? sim_query_box(w, &region, true) : sim_query_statics(w, &region))) {
        *t = best;
        return NULL; /* out of memory: the body moves as the solver left it */
    }
    const uint32_t *hits = w->broad.hits.at;
    uint32_t slot = (uint32_t)(b - w->slots.bodies.at);
    float skin = fixed_only && b->kind != SIM_CHARACTER ? SIM_SPECULATIVE : 0.0f;
    for (size_t i = 0; i < w->broad.hits.v.len; i++) {
        const sim_body *o = &w->slots.bodies.at[hits[i]];
        if (o == b || (fixed_only && !sim_kind_fixed(o->kind)) ||
            !sim_pair_collides(w, slot, hits[i]))
            continue;
        col_aabb3 other = sim_shape_bounds_now(w, hits[i]); /* where it is now */
        if (!sim_aabb3_overlap(&region, &other))
            continue;
        /* Motion relative to the other body: a kinematic body moves during the step too. */
        const dpart *op = dim_part(w, hits[i]);
        dvec rel = dv_sub(d, dv_scale(op->vel, dt));
        if (!(dv_len(rel) > 0.0f))
            continue;
        if (o->level && skin > 0.0f && clear_of(w, slot, hits[i], rel))
            continue;
        float ti = o->level ? level_time_of_impact(w, b, bp, rel, o, skin)
                             : time_of_impact(bp, rel, op);
        if (ti < best) {
            best = ti;
            hit = o;
        }
    }
    *t = best;
    return hit;
}

static bool found_one(void *ctx, uint32_t slot)
{
    (void)ctx, (void)slot;
    return false;
}

bool DIM_NAME(sim_sweep_meets_nothing)(const sim_world *w, const dpart *p, dvec d)
{
    if (w->broad.kinematic_movers || w->broad.statics_dirty)
        return false;
    col_aabb3 region = swept_region(p, d);
    return sim_tree_visit(&w->broad.tree, w->broad.shape_box.at, &region, found_one, NULL);
}

bool DIM_NAME(sim_sweep)(sim_world *w, sim_body *b, dvec d, float dt)
{
    if (!(dv_len(d) > 0.0f))
        return false;
    float best;
    const sim_body *hit = first_impact(w, b, d, dt, true, &best);
    if (!hit)
        return false;
    dpart *bp = dim_part_of(w, b);
    const dpart *hp = dim_part_of(w, hit);
    bp->pos = dv_mad(bp->pos, best, d);
    /* The normal where they meet: that of the closest features, within the slop (a grazing
     * motion along a surface would not reach into it a hair further along). */
    dmanifold m = collide_with(w, b, bp, dim_xf_at(bp, bp->pos), hit, hp);
    dvec n = dv_dot(m.normal, m.normal) > 0.5f ? m.normal : dv_norm(d); /* b to hit */
    dvec rel = dv_sub(bp->vel, hp->vel);
    float vn = dv_dot(rel, n);
    if (w->cfg.events)
        DIM_NAME(sim_hit_swept)(w, b, hit, n, vn);
    if (vn > 0.0f) {
        dvec slide = dv_mad(rel, -vn, n);
        float vt = dv_len(slide);
        sim_impact im =
            sim_impact_of(vn, vt, sim_pair_restitution(b, hit), sim_pair_friction(b, hit));
        bp->vel = dv_mad(bp->vel, -im.dvn, n);
        if (vt > 0.0f)
            bp->vel = dv_mad(bp->vel, -im.dvt / vt, slide);
    }
    return true;
}

bool DIM_NAME(sim_snap_to_ground)(sim_world *w, sim_body *b, dvec up, float reach)
{
    dvec d = dv_scale(up, -reach);
    float best;
    const sim_body *ground = first_impact(w, b, d, 0.0f, false, &best);
    if (!ground)
        return false;
    dpart *bp = dim_part_of(w, b);
    const dpart *gp = dim_part_of(w, ground);
    /* Just into the ground below the time of impact, then lifted straight out of it: the
     * character ends touching the surface, as a standing one does. */
    dvec probe = dv_mad(dv_mad(bp->pos, best, d), -2.0f * SWEEP_SLOP, up);
    dmanifold m = collide_with(w, b, bp, dim_xf_at(bp, probe), ground, gp);
    if (m.count == 0)
        return false;
    float cos_slope = -dv_dot(m.normal, up); /* m.normal points from b into the ground */
    if (cos_slope < cosf(b->max_slope) || cos_slope <= 0.0f)
        return false;
    bp->pos = dv_mad(probe, m.depth / cos_slope, up);
    float v_up = dv_dot(dv_sub(bp->vel, gp->vel), up);
    if (v_up < 0.0f)
        bp->vel = dv_mad(bp->vel, -v_up, up);
    return true;
}
