/* The narrowphase of a 3D step: every broadphase pair is collided once (col_collide3), and
 * each touching pair becomes a constraint of the solver, a push-out pair of a character, or,
 * between sleeping bodies, is left as it was. Pairs of polytopes (boxes, hulls) get a fresh
 * one-shot manifold each step; a pair with a curved shape gets one point per step from the
 * narrowphase and keeps a persistent manifold of up to four in its cache entry, the arbiter of
 * "Collision Detection Using Minkowski Difference" (col_contact_cache3_update), so that a
 * cylinder standing on its end or a capsule lying down rests on several points. */
#include <math.h>
#include <string.h>

#include "body_rules.h"
#include "broadphase.h"
#include "solver.h"
#include "world_internal.h"

#define SIM_MATCH_DISTANCE3 0.05f /* m: a new point continues an old one this close */
#define SIM_TOUCHING3 0.001f      /* m: a pair this close counts as touching */
#define SIM_FACE_BIAS 0.005f      /* m: see col_collide3_within */
#define SIM_ARBITER_THRESHOLD 0.02f /* m: a cached point this far off is dropped (Bullet's) */
#define SIM_APART_SLACK 1e-5f     /* of the sizes: float rounding in boxes_apart, with room */
/* A polytope pair keeps last step's manifold while B has moved less than this in A's frame
 * since it was computed: Jolt's body pair cache defaults (1 mm, and 2 degrees as the cosine of
 * half the angle). */
#define SIM_KEEP_MOVE 1e-3f        /* m */
#define SIM_KEEP_COS_HALF 0.99984770f

mk_vec3 sim_body3_center(const sim_body3 *b3)
{
    if (b3->local_center.x == 0.0f && b3->local_center.y == 0.0f && b3->local_center.z == 0.0f)
        return b3->pos;
    return mk_v3_add(b3->pos, mk_quat_rotate(b3->rot, b3->local_center));
}

static bool active3(const sim_world *w, const sim_body *b)
{
    if (b->sleeping || b->kind == SIM_STATIC)
        return false;
    mk_vec3 v = w->bodies3[b - w->bodies].vel;
    return b->kind != SIM_KINEMATIC || v.x != 0.0f || v.y != 0.0f || v.z != 0.0f;
}

static col_xf3 xf_of(const sim_body3 *b3) { return (col_xf3){b3->pos, b3->rot}; }

static col_manifold3 collide(const sim_body3 *a, const sim_body3 *b)
{
    return col_collide3(&a->shape, xf_of(a), &b->shape, xf_of(b));
}

static bool polytope(const col_shape3 *s)
{
    return s->type == COL_SHAPE3_BOX || s->type == COL_SHAPE3_HULL;
}

/* Whether two boxes are farther apart than `margin` along a face normal of either: then they
 * are at least that far apart (the separating-axis bound of Gottschalk, Lin and Manocha's
 * OBBTree test), and col_collide3_within would only say so, after its double-precision test
 * of all fifteen axes. The common pair of a pile, neighbours side by side, ends here in float.
 * The slack covers float rounding (1e-7 of the sizes), so the answer is never wrong, only
 * sometimes "don't know" (false). */
static bool boxes_apart(const sim_body3 *a, const sim_body3 *b, float margin)
{
    mk_mat3 ra = mk_m3_from_quat(a->rot), rb = mk_m3_from_quat(b->rot);
    const mk_vec3 ax[3] = {ra.c0, ra.c1, ra.c2}, bx[3] = {rb.c0, rb.c1, rb.c2};
    const float ha[3] = {a->shape.half.x, a->shape.half.y, a->shape.half.z};
    const float hb[3] = {b->shape.half.x, b->shape.half.y, b->shape.half.z};
    mk_vec3 d = mk_v3_sub(b->pos, a->pos);
    float c[3][3]; /* |a_i . b_j| */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            c[i][j] = fabsf(mk_v3_dot(ax[i], bx[j]));
    float size = ha[0] + ha[1] + ha[2] + hb[0] + hb[1] + hb[2] + fabsf(d.x) + fabsf(d.y) +
                 fabsf(d.z);
    float limit = margin + SIM_APART_SLACK * size;
    for (int i = 0; i < 3; i++) {
        if (fabsf(mk_v3_dot(ax[i], d)) - ha[i] -
                (hb[0] * c[i][0] + hb[1] * c[i][1] + hb[2] * c[i][2]) > limit ||
            fabsf(mk_v3_dot(bx[i], d)) - hb[i] -
                (ha[0] * c[0][i] + ha[1] * c[1][i] + ha[2] * c[2][i]) > limit)
            return true;
    }
    return false;
}

/* With speculative points when apart by less than SIM_SPECULATIVE, as the 2D narrowphase
 * (contacts.c) does: B moved that far toward A is collided and the depths taken back. */
static col_manifold3 speculative_collide(const sim_body3 *a, const sim_body3 *b)
{
    col_manifold3 m = col_collide3_within(&a->shape, xf_of(a), &b->shape, xf_of(b),
                                          SIM_SPECULATIVE, SIM_FACE_BIAS);
    if (m.count > 0 || !(m.distance < SIM_SPECULATIVE))
        return m;
    mk_vec3 shift = mk_v3_scale(m.normal, -SIM_SPECULATIVE);
    col_xf3 xb = {mk_v3_add(b->pos, shift), b->rot};
    col_manifold3 s = col_collide3_within(&a->shape, xf_of(a), &b->shape, xb, SIM_SPECULATIVE,
                                          SIM_FACE_BIAS);
    if (s.count == 0)
        return m;
    for (int i = 0; i < s.count; i++) {
        s.points[i].depth -= SIM_SPECULATIVE;
        s.points[i].point = mk_v3_mad(s.points[i].point, -0.5f, shift);
    }
    s.depth -= SIM_SPECULATIVE;
    return s;
}

void sim_wake_touched3(sim_world *w)
{
    sim_pair *pairs = w->pairs.data;
    for (size_t i = 0; i < w->pairs.len; i++) {
        sim_body *a = &w->bodies[pairs[i].a], *b = &w->bodies[pairs[i].b];
        if (a->sleeping == b->sleeping)
            continue;
        sim_body *sleeper = a->sleeping ? a : b, *other = a->sleeping ? b : a;
        if (active3(w, other) && sim_tight_overlap3(w, pairs[i].a, pairs[i].b) &&
            collide(&w->bodies3[pairs[i].a], &w->bodies3[pairs[i].b]).count > 0)
            sim_wake(w, sleeper);
    }
}

void sim_build_solver_bodies3(sim_world *w)
{
    sim_vec *v = &w->solver_bodies3, *info = &w->solver_info3;
    v->len = info->len = 0;
    sim_solver_body3 rest = {.dq = mk_quat_identity()};
    sim_solver_info3 fixed_info = {0.0f, mk_m3_diag(0.0f, 0.0f, 0.0f), 0};
    sim_vec_push(v, &rest); /* reserved with the world: see place_body */
    sim_vec_push(info, &fixed_info);
    const uint32_t *order = w->order.data;
    for (size_t i = 0; i < w->order.len; i++) {
        uint32_t s = order[i];
        const sim_body *b = &w->bodies[s];
        const sim_body3 *b3 = &w->bodies3[s];
        if (b->kind == SIM_STATIC || b->sleeping) {
            w->solver_index[s] = 0;
            continue;
        }
        sim_solver_body3 sb = {
            .v = b3->vel,
            .w = b3->w,
            .dq = mk_quat_identity(),
            .gravity_scale = b->kind == SIM_KINEMATIC ? 0.0f : 1.0f,
        };
        /* I_world^-1 = R I_body^-1 R^T */
        mk_mat3 r = mk_m3_from_quat(b3->rot);
        sim_solver_info3 si = {b->inv_mass,
                               mk_m3_mul(mk_m3_mul(r, b3->inv_inertia), mk_m3_transpose(r)), s};
        w->solver_index[s] = (uint32_t)v->len;
        sim_vec_push(v, &sb);
        sim_vec_push(info, &si);
    }
}

/* Two unit tangents of n, from whichever axis is least along it (Erin Catto's
 * b2ComputeBasis in Box2D's 3D prototypes). */
static void tangents(mk_vec3 n, mk_vec3 t[2])
{
    if (fabsf(n.x) >= 0.57735027f)
        t[0] = mk_v3_norm(mk_v3(n.y, -n.x, 0.0f));
    else
        t[0] = mk_v3_norm(mk_v3(0.0f, n.z, -n.y));
    t[1] = mk_v3_cross(n, t[0]);
}

/* The cached point a new point continues: the one with its feature id, or else the nearest
 * within SIM_MATCH_DISTANCE3 (in a's frame). */
static int match(const sim_cache_entry3 *old, uint32_t id, mk_vec3 local)
{
    int best = -1;
    float best_d = SIM_MATCH_DISTANCE3;
    for (int k = 0; k < old->manifold.count; k++) {
        if (old->manifold.points[k].c.id == id)
            return k;
        float d = mk_v3_len(mk_v3_sub(old->manifold.points[k].local_a, local));
        if (d < best_d) {
            best_d = d;
            best = k;
        }
    }
    return best;
}

/* Shapes that rest on a flat face or a line (cylinders, cones, capsules), where one point a
 * step is a poor support until the persistent manifold has gathered more. */
static bool rests_on_many(const col_shape3 *s)
{
    return s->type == COL_SHAPE3_CYLINDER || s->type == COL_SHAPE3_CONE ||
           s->type == COL_SHAPE3_CAPSULE;
}

#define SIM_PERTURB_DIRECTIONS 3
#define SIM_PERTURB_MAX_ANGLE 0.125f /* rad (Bullet's bound) */

/* Bullet's perturbation (btConvexConvexAlgorithm): a curved shape that has just come to rest
 * on something gives one contact point; tilting it by a small angle about axes across the
 * normal and colliding again finds the other points of its support (the rim of a cylinder on
 * its end), which, carried back to the untilted shape, fill the manifold at once rather than
 * after it has rocked. Adds up to SIM_PERTURB_DIRECTIONS points to `m` (room for them). */
static void perturb(const sim_body3 *a, const sim_body3 *b, col_manifold3 *m)
{
    bool tilt_a = rests_on_many(&a->shape);
    const sim_body3 *t = tilt_a ? a : b;
    col_aabb3 box = col_shape3_bounds(&t->shape, (col_xf3){mk_v3(0, 0, 0), mk_quat_identity()});
    float radius = mk_v3_len(box.half);
    float angle = mk_minf(SIM_ARBITER_THRESHOLD / radius, SIM_PERTURB_MAX_ANGLE);
    mk_vec3 n = m->normal, tan[2];
    tangents(n, tan);
    /* Standing on its end, the shape's support is a disc: tilts about three axes 120 degrees
     * apart find points all round its rim. Lying on its side, the support is a segment along
     * the shape's axis: tilts about the axis across it find both ends (a tilt about the
     * shape's own axis would only roll it, and give a point off the segment). */
    mk_vec3 shape_axis = mk_quat_rotate(t->rot, mk_v3(0.0f, 1.0f, 0.0f));
    bool on_end = fabsf(mk_v3_dot(shape_axis, n)) > 0.7f;
    mk_vec3 across = mk_v3_norm(mk_v3_cross(n, shape_axis));
    int directions = on_end ? SIM_PERTURB_DIRECTIONS : 2;
    col_xf3 xa = xf_of(a), xb = xf_of(b);
    for (int k = 0; k < directions && m->count < COL_MAX_POINTS3; k++) {
        float phi = 2.0943951f * (float)k; /* 120 degrees apart */
        mk_vec3 axis = on_end ? mk_v3_add(mk_v3_scale(tan[0], cosf(phi)),
                                          mk_v3_scale(tan[1], sinf(phi)))
                              : mk_v3_scale(across, k == 0 ? 1.0f : -1.0f);
        mk_quat tilt = mk_quat_axis_angle(axis, angle);
        col_xf3 pa = xa, pb = xb;
        if (tilt_a)
            pa.q = mk_quat_mul(tilt, xa.q);
        else
            pb.q = mk_quat_mul(tilt, xb.q);
        col_manifold3 q = col_collide3(&a->shape, pa, &b->shape, pb);
        if (q.count == 0)
            continue;
        /* The two surface points, each carried back to its untilted body. */
        const col_contact_point3 *c = &q.points[0];
        mk_vec3 sa = mk_v3_mad(c->point, 0.5f * c->depth, q.normal);
        mk_vec3 sb = mk_v3_mad(c->point, -0.5f * c->depth, q.normal);
        sa = col_xf3_apply(xa, col_xf3_apply_inv(pa, sa));
        sb = col_xf3_apply(xb, col_xf3_apply_inv(pb, sb));
        float depth = mk_v3_dot(mk_v3_sub(sa, sb), n);
        if (depth < -SIM_ARBITER_THRESHOLD)
            continue;
        m->points[m->count++] = (col_contact_point3){mk_v3_scale(mk_v3_add(sa, sb), 0.5f),
                                                     depth, c->id + 1u + (uint32_t)k};
    }
}

/* The manifold of a pair this step, kept in its cache entry: fresh for polytopes, through the
 * arbiter for curved shapes. */
static col_contact_cache3 pair_manifold(const sim_body3 *a, const sim_body3 *b,
                                        const sim_cache_entry3 *old, const col_manifold3 *m)
{
    col_xf3 xa = xf_of(a), xb = xf_of(b);
    if (!polytope(&a->shape) || !polytope(&b->shape)) {
        col_manifold3 fresh = *m;
        if (old->manifold.count < 3 && m->count == 1 &&
            (rests_on_many(&a->shape) || rests_on_many(&b->shape)))
            perturb(a, b, &fresh);
        return col_contact_cache3_update(&old->manifold, xa, xb, &fresh, SIM_ARBITER_THRESHOLD);
    }
    col_contact_cache3 fresh;
    memset(&fresh, 0, sizeof fresh);
    fresh.normal = m->normal;
    fresh.count = m->count;
    for (int i = 0; i < m->count; i++) {
        fresh.points[i].c = m->points[i];
        /* Its surface points, half the depth each side of it along the normal. */
        mk_vec3 half = mk_v3_scale(m->normal, 0.5f * m->points[i].depth);
        fresh.points[i].local_a = col_xf3_apply_inv(xa, mk_v3_add(m->points[i].point, half));
        fresh.points[i].local_b = col_xf3_apply_inv(xb, mk_v3_sub(m->points[i].point, half));
    }
    return fresh;
}

/* B's placement in A's frame. */
static void relative_pose(const sim_body3 *a, const sim_body3 *b, mk_vec3 *p, mk_quat *q)
{
    *p = mk_quat_unrotate(a->rot, mk_v3_sub(b->pos, a->pos));
    *q = mk_quat_mul(mk_quat_conj(a->rot), b->rot);
}

/* The cache entry of a touching polytope pair whose one-shot manifold of last step still
 * holds, because B has hardly moved in A's frame since it was computed (Jolt's body pair
 * cache: a resting pile is not collided again every step); NULL when it must be computed.
 * The kept points ride on the bodies: add_constraint measures their depths anew. */
static sim_cache_entry3 *kept_manifold(const sim_world *w, sim_cache_entry3 *e,
                                       const sim_body3 *a3, const sim_body3 *b3)
{
    if (!e || !e->one_shot || e->head.stamp + 1 != w->tick)
        return NULL;
    mk_vec3 p;
    mk_quat q;
    relative_pose(a3, b3, &p, &q);
    mk_vec3 d = mk_v3_sub(p, e->rel_p);
    float dot = q.x * e->rel_q.x + q.y * e->rel_q.y + q.z * e->rel_q.z + q.w * e->rel_q.w;
    if (mk_v3_dot(d, d) > SIM_KEEP_MOVE * SIM_KEEP_MOVE || fabsf(dot) < SIM_KEEP_COS_HALF)
        return NULL;
    return e;
}

/* The manifold a kept entry stands for now: its points carried by both bodies, the normal by
 * A. */
static col_manifold3 manifold_of(sim_cache_entry3 *e, const sim_body3 *a3, const sim_body3 *b3)
{
    col_manifold3 m;
    memset(&m, 0, sizeof m);
    col_xf3 xa = xf_of(a3), xb = xf_of(b3);
    e->manifold.normal = mk_quat_rotate(a3->rot, e->local_normal);
    m.normal = e->manifold.normal;
    m.count = e->manifold.count;
    m.depth = -INFINITY;
    for (int i = 0; i < m.count; i++) {
        const col_cached_point3 *cp = &e->manifold.points[i];
        mk_vec3 wa = col_xf3_apply(xa, cp->local_a), wb = col_xf3_apply(xb, cp->local_b);
        float depth = mk_v3_dot(mk_v3_sub(wa, wb), m.normal);
        m.points[i] = (col_contact_point3){mk_v3_scale(mk_v3_add(wa, wb), 0.5f), depth,
                                           cp->c.id};
        m.depth = mk_maxf(m.depth, depth);
    }
    return m;
}

/* found: the pair's cache entry (UINT32_MAX: none yet); kept: it keeps its manifold
 * (kept_manifold). */
static void add_constraint(sim_world *w, sim_pair *pair, const sim_body *a, const sim_body *b,
                           const col_manifold3 *m, uint32_t found, bool kept)
{
    uint32_t sa = sim_id_slot(a->id), sb = sim_id_slot(b->id);
    const sim_body3 *a3 = &w->bodies3[sa], *b3 = &w->bodies3[sb];
    sim_constraint3 c;
    c.a = w->solver_index[sa];
    c.b = w->solver_index[sb];
    const sim_solver_info3 *si = w->solver_info3.data;
    float ma = si[c.a].inv_mass, mb = si[c.b].inv_mass;
    if (ma == 0.0f && mb == 0.0f)
        return; /* a kinematic body against a sleeping one: nothing to solve */
    c.fixed = ma == 0.0f || mb == 0.0f;
    c.friction = sim_pair_friction(a, b);
    c.restitution = sim_pair_restitution(a, b);

    sim_cache *cache = &w->cache;
    c.cache_entry = found;
    if (found == UINT32_MAX) {
        c.cache_entry = sim_cache_add(cache, a->id, b->id);
        pair->entry = c.cache_entry + 1;
    }
    sim_cache_entry3 *entry = (sim_cache_entry3 *)sim_cache_at(cache, c.cache_entry);
    /* The last step's manifold and impulses: a kept entry's own, point for point; otherwise
     * a copy, read before this step's points overwrite it. */
    sim_cache_entry3 copy;
    const sim_cache_entry3 *old = entry;
    if (!kept) {
        copy = *entry;
        old = &copy;
        entry->manifold = pair_manifold(a3, b3, old, m);
        entry->one_shot =
            polytope(&a3->shape) && polytope(&b3->shape) && entry->manifold.count > 0;
        entry->local_normal = mk_quat_unrotate(a3->rot, m->normal);
        relative_pose(a3, b3, &entry->rel_p, &entry->rel_q);
    }
    entry->head.stamp = w->tick;
    sim_vec_push(&w->solved, &c.cache_entry);
    const col_contact_cache3 *pm = &entry->manifold;
    if (pm->count == 0)
        return;
    c.normal = pm->normal;
    tangents(c.normal, c.tangent);
    c.count = pm->count;
    mk_vec3 ca = sim_body3_center(a3), cb = sim_body3_center(b3);
    col_xf3 xa = xf_of(a3), xb = xf_of(b3);
    for (int i = 0; i < pm->count; i++) {
        sim_constraint_point3 *p = &c.points[i];
        const col_cached_point3 *cp = &pm->points[i];
        /* The signed gap of the point's two surface points: a cached point that has come
         * apart is a speculative one (the arbiter reports it at depth 0). */
        mk_vec3 wa = col_xf3_apply(xa, cp->local_a), wb = col_xf3_apply(xb, cp->local_b);
        float depth = mk_v3_dot(mk_v3_sub(wa, wb), c.normal);
        mk_vec3 point = mk_v3_scale(mk_v3_add(wa, wb), 0.5f);
        p->ra = mk_v3_sub(point, ca);
        p->rb = mk_v3_sub(point, cb);
        p->base_sep = -depth - mk_v3_dot(mk_v3_sub(p->rb, p->ra), c.normal);
        int k = kept ? i : old->manifold.count > 0 ? match(old, cp->c.id, cp->local_a) : -1;
        p->jn = k >= 0 ? old->jn[k] : 0.0f;
        p->jt[0] = k >= 0 ? old->jt[k][0] : 0.0f;
        p->jt[1] = k >= 0 ? old->jt[k][1] : 0.0f;
        entry->jn[i] = p->jn;
        entry->jt[i][0] = p->jt[0];
        entry->jt[i][1] = p->jt[1];
    }
    sim_vec_push(&w->constraints3, &c);
}

void sim_collide3(sim_world *w, mk_vec3 up)
{
    w->constraints3.len = 0;
    w->push_pairs.len = 0;
    w->contacts3.len = 0;
    if (!sim_cache_reserve_step(w, w->pairs.len) ||
        !sim_vec_reserve(&w->constraints3, w->pairs.len) ||
        !sim_vec_reserve(&w->push_pairs, w->pairs.len) ||
        !sim_vec_reserve(&w->contacts3, w->pairs.len))
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
            continue;
        uint32_t sa = sim_id_slot(a->id), sb = sim_id_slot(b->id);
        if (sim_is_push_pair(a, b)) {
            sim_pair p = {sa, sb, 0.0f, 0};
            sim_vec_push(&w->push_pairs, &p);
            continue; /* resolved after the solver, with fresh manifolds */
        }
        if (!sim_tight_overlap3(w, sa, sb))
            continue;
        const sim_body3 *a3 = &w->bodies3[sa], *b3 = &w->bodies3[sb];
        if (a3->shape.type == COL_SHAPE3_BOX && b3->shape.type == COL_SHAPE3_BOX &&
            boxes_apart(a3, b3, SIM_SPECULATIVE))
            continue; /* speculative_collide would find nothing */
        uint32_t found = UINT32_MAX;
        sim_cache_entry3 *entry = (sim_cache_entry3 *)sim_cache_find_hinted(
            &w->cache, &pairs[i].entry, a->id, b->id, &found);
        sim_cache_entry3 *kept = NULL;
        col_manifold3 m;
        if (polytope(&a3->shape) && polytope(&b3->shape) &&
            (kept = kept_manifold(w, entry, a3, b3)) != NULL)
            m = manifold_of(kept, a3, b3);
        else
            m = speculative_collide(a3, b3);
        if (m.count == 0)
            continue;
        bool touching = m.depth >= -SIM_TOUCHING3;
        if (touching) {
            sim_contact3 contact = {a->id, b->id, m};
            for (int k = 0; k < m.count; k++)
                contact.m.points[k].depth = mk_maxf(m.points[k].depth, 0.0f);
            contact.m.depth = mk_maxf(m.depth, 0.0f);
            sim_vec_push(&w->contacts3, &contact);
            if (a->sleeping && active3(w, b))
                sim_wake(w, a);
            if (b->sleeping && active3(w, a))
                sim_wake(w, b);
            b->grounded |= sim_is_ground3(b, m.normal, up);
            a->grounded |= sim_is_ground3(a, mk_v3_neg(m.normal), up);
        }
        add_constraint(w, &pairs[i], a, b, &m, found, kept != NULL);
    }
    sim_cache_end_pairs(w, first_solved);
}

void sim_store_impulses3(sim_world *w)
{
    const sim_constraint3 *cs = w->constraints3.data;
    for (size_t i = 0; i < w->constraints3.len; i++) {
        sim_cache_entry3 *e = (sim_cache_entry3 *)sim_cache_at(&w->cache, cs[i].cache_entry);
        for (int k = 0; k < cs[i].count; k++) {
            e->jn[k] = cs[i].points[k].jn;
            e->jt[k][0] = cs[i].points[k].jt[0];
            e->jt[k][1] = cs[i].points[k].jt[1];
        }
    }
}
