/* The narrowphase of a step: every broadphase pair is collided once, and each touching pair
 * becomes a constraint of the solver (warm-started from the contact cache by feature id), a
 * push-out pair of a character, or, between sleeping bodies, is left as it was. */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "body_rules.h"
#include "broadphase.h"
#include "solver.h"
#include "world_internal.h"

#define SIM_MATCH_DISTANCE 0.05f /* m: see match() */
#define SIM_TOUCHING 0.001f   /* m: a pair this close counts as touching (wakes, grounds) */
/* A pair keeps last step's manifold while no point of B has moved more than this in A's frame
 * since the manifold was computed (Jolt's body pair cache, with Box2D v3's measure of the
 * motion: the shift plus the largest extent times the sine of the turn). */
#define SIM_KEEP_MOVE 1e-3f /* m */

/* A body that wakes a sleeping one it touches: anything awake that moves. */
static bool active(const sim_body *b)
{
    if (b->sleeping || b->kind == SIM_STATIC)
        return false;
    return b->kind != SIM_KINEMATIC || b->vel.x != 0.0f || b->vel.y != 0.0f;
}

/* Whether a and b touch (a pair apart needs no exact gap). */
static bool touch(const sim_body *a, const sim_body *b)
{
    return col_collide2_near_q(&a->shape, (col_xf2){a->pos, a->angle}, sim_body_rot(a), &b->shape,
                               (col_xf2){b->pos, b->angle}, sim_body_rot(b), 0.0f)
               .count > 0;
}

/* The manifold of a pair, with speculative points when they are apart by less than
 * SIM_SPECULATIVE (Box2D v3's speculative contacts): B moved that far toward A is collided
 * and the depths taken back by as much, so a point's depth is negative while apart. The solver
 * then lets them close the gap and no more, so resting bodies keep their contact from step to
 * step instead of losing it whenever they stand a hair apart. */
static col_manifold2 speculative_collide(const sim_body *a, const sim_body *b)
{
    mk_vec2 qa = sim_body_rot(a), qb = sim_body_rot(b);
    col_manifold2 m = col_collide2_near_q(&a->shape, (col_xf2){a->pos, a->angle}, qa, &b->shape,
                                          (col_xf2){b->pos, b->angle}, qb, SIM_SPECULATIVE);
    if (m.count > 0 || !(m.distance < SIM_SPECULATIVE))
        return m;
    mk_vec2 shift = mk_v2_scale(m.normal, -SIM_SPECULATIVE);
    col_manifold2 s = col_collide2_near_q(&a->shape, (col_xf2){a->pos, a->angle}, qa, &b->shape,
                                          (col_xf2){mk_v2_add(b->pos, shift), b->angle}, qb,
                                          FLT_MAX);
    if (s.count == 0)
        return m;
    for (int i = 0; i < s.count; i++) {
        s.points[i].depth -= SIM_SPECULATIVE;
        s.points[i].point = mk_v2_mad(s.points[i].point, -0.5f, shift);
    }
    s.depth -= SIM_SPECULATIVE;
    return s;
}

void sim_wake_touched(sim_world *w)
{
    if (!w->pairs_sleeper)
        return; /* no pair has a sleeper to wake */
    const sim_pair *pairs = w->pairs.data;
    for (size_t i = 0; i < w->pairs.len; i++) {
        sim_body *a = &w->bodies[pairs[i].a], *b = &w->bodies[pairs[i].b];
        if (a->sleeping == b->sleeping)
            continue;
        sim_body *sleeper = a->sleeping ? a : b, *other = a->sleeping ? b : a;
        if (active(other) && sim_tight_overlap(w, pairs[i].a, pairs[i].b) &&
            touch(a, b))
            sim_wake(w, sleeper);
    }
}

void sim_build_solver_bodies(sim_world *w)
{
    sim_vec *v = &w->solver_bodies, *info = &w->solver_info;
    v->len = info->len = 0;
    sim_solver_body rest = {.dq = {1.0f, 0.0f}};
    sim_solver_info fixed_info = {0.0f, 0.0f, 0};
    /* Room for the body at rest was reserved with the world (place_body); with room for every
     * body the arrays are written in place. Out of memory, no body moves this step. */
    bool room = sim_vec_reserve(v, w->movers.len + 1) && sim_vec_reserve(info, w->movers.len + 1);
    sim_solver_body *vb = v->data;
    sim_solver_info *vi = info->data;
    vb[0] = rest;
    vi[0] = fixed_info;
    size_t n = 1;
    const uint32_t *movers = w->movers.data;
    for (size_t i = 0; i < w->movers.len; i++) {
        if (!room) {
            w->solver_index[movers[i]] = 0;
            continue;
        }
        uint32_t s = movers[i];
        const sim_body *b = &w->bodies[s];
        if (b->kind == SIM_STATIC || b->sleeping) {
            w->solver_index[s] = 0;
            continue;
        }
        sim_solver_body sb = {
            .v = b->vel,
            .w = b->w,
            .gravity_scale = b->kind == SIM_KINEMATIC ? 0.0f : 1.0f,
            .dq = {1.0f, 0.0f},
        };
        w->solver_index[s] = (uint32_t)n;
        vb[n] = sb;
        vi[n++] = (sim_solver_info){b->inv_mass, b->inv_inertia, s};
    }
    v->len = info->len = n;
}

/* A world point in the frame of a body at `pos` turned by (cos, sin) = q. */
static mk_vec2 to_local(mk_vec2 pos, mk_vec2 q, mk_vec2 p)
{
    mk_vec2 d = mk_v2_sub(p, pos);
    return mk_v2(q.x * d.x + q.y * d.y, -q.y * d.x + q.x * d.y);
}

/* A point of the frame of a body at `pos` turned by q, in the world. */
static mk_vec2 to_world(mk_vec2 pos, mk_vec2 q, mk_vec2 p)
{
    return mk_v2(pos.x + q.x * p.x - q.y * p.y, pos.y + q.y * p.x + q.x * p.y);
}

/* B's placement in A's frame: its position, and the cosine and sine of its angle. */
static void relative_pose(const sim_body *a, mk_vec2 qa, const sim_body *b, mk_vec2 qb,
                          mk_vec2 *p, mk_vec2 *q)
{
    *p = to_local(a->pos, qa, b->pos);
    *q = mk_v2(qa.x * qb.x + qa.y * qb.y, qa.x * qb.y - qa.y * qb.x);
}

/* (cos, sin) of the angle the shape is turned by: an AABB never turns, whatever its body's
 * angle (col_collide2_near_q). */
static mk_vec2 shape_rot(const sim_body *b)
{
    return b->shape.type == COL_SHAPE_AABB ? mk_v2(1.0f, 0.0f) : sim_body_rot(b);
}

/* The farthest point of the shape from its body's origin is at most this far, m. */
static float reach(const col_shape2 *s)
{
    col_aabb box = col_shape_bounds_q(s, (col_xf2){mk_v2(0.0f, 0.0f), 0.0f}, mk_v2(1.0f, 0.0f));
    return mk_v2_len(box.center) + mk_v2_len(box.half);
}

/* Whether last step's manifold of the pair still holds because B has hardly moved in A's
 * frame since it was computed (Jolt's body pair cache: a resting pile is not collided again
 * every step). The kept points ride on the bodies: manifold_of measures their depths anew. */
static bool kept_manifold(const sim_world *w, const sim_cache_entry *e, const sim_body *a,
                          mk_vec2 qa, const sim_body *b, mk_vec2 qb)
{
    if (!e || e->head.stamp + 1 != w->tick)
        return false;
    mk_vec2 p, q;
    relative_pose(a, qa, b, qb, &p, &q);
    float turn = mk_v2_cross(e->rel_q, q); /* the sine of the turn since */
    return mk_v2_dot(q, e->rel_q) > 0.0f &&
           mk_v2_len(mk_v2_sub(p, e->rel_p)) + e->reach * fabsf(turn) <= SIM_KEEP_MOVE;
}

/* The manifold a kept entry stands for now: each point midway between its two surface points
 * carried by their bodies, its depth their gap along the normal carried by A. */
static col_manifold2 manifold_of(const sim_cache_entry *e, const sim_body *a, mk_vec2 qa,
                                 const sim_body *b, mk_vec2 qb)
{
    col_manifold2 m;
    m.normal = to_world(mk_v2(0.0f, 0.0f), qa, e->local_normal);
    m.count = e->count;
    m.depth = -INFINITY;
    m.distance = 0.0f;
    for (int i = 0; i < m.count; i++) {
        const sim_cached_point *cp = &e->points[i];
        mk_vec2 wa = to_world(a->pos, qa, cp->local_a), wb = to_world(b->pos, qb, cp->local_b);
        float depth = mk_v2_dot(mk_v2_sub(wa, wb), m.normal);
        m.points[i] = (col_contact_point2){mk_v2_scale(mk_v2_add(wa, wb), 0.5f), depth, cp->id};
        m.depth = mk_maxf(m.depth, depth);
    }
    return m;
}

/* The point of last step's manifold that a new point continues: the one with its feature id,
 * or else the nearest within SIM_MATCH_DISTANCE. Feature ids change when the reference face
 * passes from one shape to the other (two boxes nearly aligned do that at every tilt); the
 * points themselves barely move, and their impulses are still the best start. */
static const sim_cached_point *match(const sim_cache_entry *old, uint32_t id, mk_vec2 local)
{
    const sim_cached_point *best = NULL;
    float best_d = SIM_MATCH_DISTANCE;
    for (int k = 0; k < old->count; k++) {
        if (old->points[k].id == id)
            return &old->points[k];
        float d = mk_v2_len(mk_v2_sub(old->points[k].local_a, local));
        if (d < best_d) {
            best_d = d;
            best = &old->points[k];
        }
    }
    return best;
}

/* A constraint point at the manifold point mp, with its arms from the centres of mass ca, cb
 * and the separation it starts the step with (impulses are the caller's). */
static void place_point(sim_constraint_point *p, const col_contact_point2 *mp, mk_vec2 ca,
                        mk_vec2 cb, mk_vec2 normal)
{
    p->ra = mk_v2_sub(mp->point, ca);
    p->rb = mk_v2_sub(mp->point, cb);
    p->base_sep = -mp->depth - mk_v2_dot(mk_v2_sub(p->rb, p->ra), normal);
}

/* Prepares a constraint built at the end of the list and adds it: its masses, its movable
 * ends for the wide solver's coloring, and whether it bounces, while it is at hand. */
static void finish_constraint(sim_world *w, sim_constraint *c)
{
    sim_prepare_constraint2(w->solver_bodies.data, c);
    uint32_t *ends = (uint32_t *)w->wide_ends.data + 2 * w->constraints.len;
    ends[0] = c->ma > 0.0f || c->ia > 0.0f ? c->a : 0;
    ends[1] = c->mb > 0.0f || c->ib > 0.0f ? c->b : 0;
    w->constraints_bounce |= c->restitution != 0.0f;
    w->constraints.len++;
}

/* found: the pair's cache entry (UINT32_MAX: none yet); kept: m is that entry's kept manifold
 * (kept_manifold). */
static void add_constraint(sim_world *w, sim_pair *pair, const sim_body *a, const sim_body *b,
                           const col_manifold2 *m, uint32_t found, bool kept)
{
    /* Built in place: sim_collide reserved one constraint a pair. */
    assert(w->constraints.len < w->constraints.cap);
    sim_constraint *c = (sim_constraint *)w->constraints.data + w->constraints.len;
    c->a = w->solver_index[sim_id_slot(a->id)];
    c->b = w->solver_index[sim_id_slot(b->id)];
    c->normal = m->normal;
    c->friction = sim_pair_friction(a, b);
    c->restitution = sim_pair_restitution(a, b);
    const sim_solver_info *si = w->solver_info.data;
    c->ma = si[c->a].inv_mass;
    c->mb = si[c->b].inv_mass;
    c->ia = si[c->a].inv_inertia;
    c->ib = si[c->b].inv_inertia;
    if (c->ma == 0.0f && c->mb == 0.0f)
        return; /* a kinematic body against a sleeping one: nothing to solve */
    c->fixed = c->ma == 0.0f || c->mb == 0.0f;
    c->count = m->count;
    mk_vec2 ca = sim_body_center(a), cb = sim_body_center(b);
    sim_cache *cache = &w->cache;
    c->cache_entry = found;
    if (found == UINT32_MAX) {
        c->cache_entry = sim_cache_add(cache, a->id, b->id);
        pair->entry = c->cache_entry + 1;
    }
    sim_cache_entry *next = (sim_cache_entry *)sim_cache_at(cache, c->cache_entry);
    next->head.stamp = w->tick;
    /* sim_collide made room for every pair. */
    assert(w->solved.len < w->solved.cap);
    ((uint32_t *)w->solved.data)[w->solved.len++] = c->cache_entry;
    if (kept) { /* its points are the entry's, one for one, and so are their impulses */
        for (int i = 0; i < m->count; i++) {
            sim_constraint_point *p = &c->points[i];
            place_point(p, &m->points[i], ca, cb, c->normal);
            p->jn = next->points[i].jn;
            p->jt = next->points[i].jt;
        }
        finish_constraint(w, c);
        return;
    }
    /* The last step's points, read before this step's overwrite them. */
    sim_cache_entry old_copy = *next, *old = next->count > 0 ? &old_copy : NULL;
    mk_vec2 qa = shape_rot(a), qb = shape_rot(b);
    next->count = m->count;
    next->reach = mk_maxf(reach(&a->shape), reach(&b->shape));
    relative_pose(a, qa, b, qb, &next->rel_p, &next->rel_q);
    next->local_normal = to_local(mk_v2(0.0f, 0.0f), qa, m->normal);
    for (int i = 0; i < m->count; i++) {
        sim_constraint_point *p = &c->points[i];
        const col_contact_point2 *mp = &m->points[i];
        place_point(p, mp, ca, cb, c->normal);
        /* Its surface points, half the depth each side of it along the normal. */
        mk_vec2 half = mk_v2_scale(m->normal, 0.5f * mp->depth);
        mk_vec2 local_a = to_local(a->pos, qa, mk_v2_add(mp->point, half));
        mk_vec2 local_b = to_local(b->pos, qb, mk_v2_sub(mp->point, half));
        const sim_cached_point *prev = old ? match(old, mp->id, local_a) : NULL;
        p->jn = prev ? prev->jn : 0.0f;
        p->jt = prev ? prev->jt : 0.0f;
        next->points[i] = (sim_cached_point){mp->id, p->jn, p->jt, local_a, local_b};
    }
    finish_constraint(w, c);
}

void sim_collide(sim_world *w, mk_vec2 up)
{
    w->constraints.len = 0;
    w->constraints_bounce = false;
    w->push_pairs.len = 0;
    w->contacts.len = 0;
    if (!sim_cache_reserve_step(w, w->pairs.len) ||
        !sim_vec_reserve(&w->solved, w->solved.len + w->pairs.len) ||
        !sim_vec_reserve(&w->constraints, w->pairs.len) ||
        !sim_vec_reserve(&w->wide_ends, 2 * w->pairs.len) ||
        !sim_vec_reserve(&w->push_pairs, w->pairs.len) ||
        !sim_vec_reserve(&w->contacts, w->pairs.len))
        return; /* out of memory: this step has no contacts */

    size_t first_solved = w->solved.len;
    sim_pair *pairs = w->pairs.data;
    for (size_t i = 0; i < w->pairs.len; i++) {
        sim_body *a = &w->bodies[pairs[i].a], *b = &w->bodies[pairs[i].b];
        if (a->id > b->id) { /* one order per pair, so its normal and feature ids persist */
            sim_body *t = a;
            a = b;
            b = t;
        }
        if (sim_body_resting(a) && sim_body_resting(b))
            continue; /* a sleeping pair keeps its cache entry untouched */
        if (sim_is_push_pair(a, b)) {
            sim_pair p = {(uint32_t)sim_id_slot(a->id), (uint32_t)sim_id_slot(b->id), 0.0f, 0};
            sim_vec_push(&w->push_pairs, &p);
            continue; /* resolved after the solver, with fresh manifolds */
        }
        if (!sim_tight_overlap(w, sim_id_slot(a->id), sim_id_slot(b->id)))
            continue;
        uint32_t found = UINT32_MAX;
        const sim_cache_entry *e = (const sim_cache_entry *)sim_cache_find_hinted(
            &w->cache, &pairs[i].entry, a->id, b->id, &found);
        mk_vec2 qa = shape_rot(a), qb = shape_rot(b);
        bool kept = kept_manifold(w, e, a, qa, b, qb);
        col_manifold2 m = kept ? manifold_of(e, a, qa, b, qb) : speculative_collide(a, b);
        if (m.count == 0)
            continue;
        bool touching = m.depth >= -SIM_TOUCHING;
        if (touching) {
            sim_contact2 *contact = (sim_contact2 *)w->contacts.data + w->contacts.len++;
            *contact = (sim_contact2){a->id, b->id, m};
            for (int k = 0; k < m.count; k++)
                contact->m.points[k].depth = mk_maxf(m.points[k].depth, 0.0f);
            contact->m.depth = mk_maxf(m.depth, 0.0f);
        }
        /* Touching a sleeping body that the wake pass did not reach (it was woken later in
         * that pass): it takes this step as if static and wakes for the next. */
        if (touching && a->sleeping && active(b))
            sim_wake(w, a);
        if (touching && b->sleeping && active(a))
            sim_wake(w, b);
        if (touching) {
            b->grounded |= sim_is_ground(b, m.normal, up);
            a->grounded |= sim_is_ground(a, mk_v2_neg(m.normal), up);
        }
        add_constraint(w, &pairs[i], a, b, &m, found, kept);
    }
    sim_cache_end_pairs(w, first_solved);
}

void sim_store_impulses(sim_world *w, const uint32_t *only, size_t n)
{
    const sim_constraint *cs = w->constraints.data;
    for (size_t k = 0; k < n; k++) {
        const sim_constraint *c = &cs[only ? only[k] : k];
        sim_cache_entry *e = (sim_cache_entry *)sim_cache_at(&w->cache, c->cache_entry);
        for (int i = 0; i < c->count; i++) {
            e->points[i].jn = c->points[i].jn;
            e->points[i].jt = c->points[i].jt;
        }
    }
}
