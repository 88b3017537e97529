/* The narrowphase of a step: every broadphase pair is collided once, and each touching pair
 * becomes a constraint of the solver (warm-started from the contact cache by feature id), a
 * push-out pair of a character, or, between sleeping bodies, is left as it was.
 *
 * A pair that has hardly moved since last step keeps last step's manifold (Jolt's body pair
 * cache). In 2D every pair may keep it; in 3D the pairs of polytopes (boxes, hulls) get a
 * one-shot manifold, kept the same way, while a pair with a curved shape gets one point per
 * step from the narrowphase and keeps a persistent manifold of up to four in its cache entry,
 * the arbiter of "Collision Detection Using Minkowski Difference" (col_contact_cache3_update),
 * so that a cylinder standing on its end or a capsule lying down rests on several points. */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "body_rules.h"
#include "broadphase.h"
#include "dim.h"
#include "solver.h"

#define SIM_MATCH_DISTANCE 0.05f /* m: a new point continues an old one this close (match) */
#define SIM_TOUCHING 0.001f   /* m: a pair this close counts as touching (wakes, grounds) */
#define SIM_KEEP_MOVE 1e-3f   /* m: see kept_manifold */

static int match(const dcache_entry *old, uint32_t id, dvec local);

#if MK_DIM == 2
/* B shifted toward A is collided for its whole manifold, however far it reaches. */
#define SHIFTED_MARGIN FLT_MAX

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
    return b->shape.type == COL_SHAPE_AABB ? mk_v2(1.0f, 0.0f) : sim_body_rot2(b);
}

/* The farthest point of the shape from its body's origin is at most this far, m. */
static float reach(const col_shape2 *s)
{
    col_aabb box = col_shape_bounds_q(s, (col_xf2){mk_v2(0.0f, 0.0f), 0.0f}, mk_v2(1.0f, 0.0f));
    return mk_v2_len(box.center) + mk_v2_len(box.half);
}

/* Whether last step's manifold of the pair still holds because no point of B has moved more
 * than SIM_KEEP_MOVE in A's frame since it was computed (Jolt's body pair cache, with Box2D
 * v3's measure of the motion: the shift plus the largest extent times the sine of the turn):
 * a resting pile is not collided again every step. The kept points ride on the bodies:
 * manifold_of measures their depths anew. */
static bool kept_manifold(const sim_world *w, const sim_cache_entry *e, const sim_body *a,
                          const sim_body *b)
{
    if (!e || e->head.stamp + 1 != w->tick)
        return false;
    mk_vec2 p, q;
    relative_pose(a, shape_rot(a), b, shape_rot(b), &p, &q);
    float turn = mk_v2_cross(e->rel_q, q); /* the sine of the turn since */
    return mk_v2_dot(q, e->rel_q) > 0.0f &&
           mk_v2_len(mk_v2_sub(p, e->rel_p)) + e->reach * fabsf(turn) <= SIM_KEEP_MOVE;
}

/* A body's frame: its position and the turn of its shape (shape_rot). */
typedef struct frame {
    mk_vec2 pos, q;
} frame;
static frame frame_of(const sim_body *b) { return (frame){b->pos, shape_rot(b)}; }
static mk_vec2 frame_apply(frame f, mk_vec2 p) { return to_world(f.pos, f.q, p); }

/* A cache entry's points. */
typedef col_contact_point2 dcontact_point;
typedef sim_cached_point cached_point;
static int entry_count(const sim_cache_entry *e) { return e->count; }
static const sim_cached_point *entry_points(const sim_cache_entry *e) { return e->points; }
static uint32_t cached_id(const sim_cached_point *p) { return p->id; }
/* A kept manifold's normal: the entry's, carried by A. */
static mk_vec2 kept_normal(sim_cache_entry *e, frame fa)
{
    return to_world(mk_v2(0.0f, 0.0f), fa.q, e->local_normal);
}

/* The 2D narrowphase collides every pair in full. */
static bool surely_apart(const sim_body *a, const sim_body *b)
{
    (void)a;
    (void)b;
    return false;
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

/* The constraint's normal and points at the manifold m, warm-started from the pair's entry
 * `next`, which takes this step's points (a kept manifold's points are the entry's, one for
 * one, and so are their impulses); false when it has none to solve. Each point is placed at
 * the manifold's own point, and the entry keeps no more than this step's manifold: the 3D
 * fill_points places points from the cache's surface points, other arithmetic. */
static bool fill_points(sim_world *w, sim_constraint *c, sim_cache_entry *next, const sim_body *a,
                        const sim_body *b, const col_manifold2 *m, bool kept)
{
    const sim_solver_info *si = w->solver_info.data;
    c->ia = si[c->a].inv_inertia;
    c->ib = si[c->b].inv_inertia;
    c->normal = m->normal;
    c->count = m->count;
    mk_vec2 ca = sim_body_center2(a), cb = sim_body_center2(b);
    if (kept) {
        for (int i = 0; i < m->count; i++) {
            sim_constraint_point *p = &c->points[i];
            place_point(p, &m->points[i], ca, cb, c->normal);
            p->jn = next->points[i].jn;
            p->jt = next->points[i].jt;
        }
        return true;
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
        int k = old ? match(old, mp->id, local_a) : -1;
        const sim_cached_point *prev = k >= 0 ? &old->points[k] : NULL;
        p->jn = prev ? prev->jn : 0.0f;
        p->jt = prev ? prev->jt : 0.0f;
        next->points[i] = (sim_cached_point){mp->id, p->jn, p->jt, local_a, local_b};
    }
    return true;
}

static void clear_constraints(sim_world *w)
{
    w->constraints.len = 0;
    w->constraints_bounce = false;
}

/* Room for n constraints and their ends for the wide solver's coloring. */
static bool reserve_constraints(sim_world *w, size_t n)
{
    return mk_vec_reserve(&w->constraints, n) && mk_vec_reserve(&w->wide_ends, 2 * n);
}

/* Prepares constraint k of the list: its masses and its movable ends for the wide solver's
 * coloring, while it is at hand. Writes only its own. */
static void finish_constraint(sim_world *w, sim_constraint *c, size_t k)
{
    sim_prepare_constraint2(w->solver_bodies.data, c);
    uint32_t *ends = (uint32_t *)w->wide_ends.data + 2 * k;
    ends[0] = c->ma > 0.0f || c->ia > 0.0f ? c->a : 0;
    ends[1] = c->mb > 0.0f || c->ib > 0.0f ? c->b : 0;
}

/* Whether a constraint bounces: one that does makes the 2D solver run its restitution pass. */
static bool bounces(const sim_constraint *c) { return c->restitution != 0.0f; }

static void note_bounce(sim_world *w, const sim_constraint *c)
{
    w->constraints_bounce |= bounces(c);
}

/* Moves a finished constraint from k to `to` (< k) in the list, with its ends. */
static void move_constraint(sim_world *w, size_t k, size_t to)
{
    sim_constraint *cs = w->constraints.data;
    uint32_t *ends = w->wide_ends.data;
    cs[to] = cs[k];
    ends[2 * to] = ends[2 * k];
    ends[2 * to + 1] = ends[2 * k + 1];
}

/* A solved point's impulses, into its cache entry for the next step. */
static void store_point(sim_cache_entry *e, int i, const sim_constraint_point *p)
{
    e->points[i].jn = p->jn;
    e->points[i].jt = p->jt;
}

#else /* MK_DIM == 3 */
/* B shifted toward A needs only the points within the speculative reach. */
#define SHIFTED_MARGIN SIM_SPECULATIVE
#define SIM_ARBITER_THRESHOLD 0.02f /* m: a cached point this far off is dropped (Bullet's) */
#define SIM_APART_SLACK 1e-5f     /* of the sizes: float rounding in boxes_apart, with room */
/* Jolt's body pair cache's turn: 2 degrees, as the cosine of half the angle. */
#define SIM_KEEP_COS_HALF 0.99984770f

mk_vec3 sim_body_center3(const sim_body3 *b3)
{
    if (b3->local_center.x == 0.0f && b3->local_center.y == 0.0f && b3->local_center.z == 0.0f)
        return b3->pos;
    return mk_v3_add(b3->pos, mk_quat_rotate(b3->rot, b3->local_center));
}

static col_xf3 xf_of(const sim_body3 *b3) { return (col_xf3){b3->pos, b3->rot}; }

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

/* Two boxes that boxes_apart finds farther apart than the speculative reach:
 * speculative_collide would find nothing. */
static bool surely_apart(const sim_body3 *a, const sim_body3 *b)
{
    return a->shape.type == COL_SHAPE3_BOX && b->shape.type == COL_SHAPE3_BOX &&
           boxes_apart(a, b, SIM_SPECULATIVE);
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

/* Whether a touching polytope pair's one-shot manifold of last step still holds, because B
 * has moved less than SIM_KEEP_MOVE and turned less than 2 degrees in A's frame since it was
 * computed (Jolt's body pair cache defaults): a resting pile is not collided again every
 * step. The kept points ride on the bodies: fill_points measures their depths anew. */
static bool kept_manifold(const sim_world *w, const sim_cache_entry3 *e, const sim_body3 *a3,
                          const sim_body3 *b3)
{
    if (!polytope(&a3->shape) || !polytope(&b3->shape))
        return false;
    if (!e || !e->one_shot || e->head.stamp + 1 != w->tick)
        return false;
    mk_vec3 p;
    mk_quat q;
    relative_pose(a3, b3, &p, &q);
    mk_vec3 d = mk_v3_sub(p, e->rel_p);
    float dot = q.x * e->rel_q.x + q.y * e->rel_q.y + q.z * e->rel_q.z + q.w * e->rel_q.w;
    return !(mk_v3_dot(d, d) > SIM_KEEP_MOVE * SIM_KEEP_MOVE || fabsf(dot) < SIM_KEEP_COS_HALF);
}

typedef col_xf3 frame;
static frame frame_of(const sim_body3 *b3) { return xf_of(b3); }
static mk_vec3 frame_apply(frame f, mk_vec3 p) { return col_xf3_apply(f, p); }

typedef col_contact_point3 dcontact_point;
typedef col_cached_point3 cached_point;
static int entry_count(const sim_cache_entry3 *e) { return e->manifold.count; }
static const col_cached_point3 *entry_points(const sim_cache_entry3 *e)
{
    return e->manifold.points;
}
static uint32_t cached_id(const col_cached_point3 *p) { return p->c.id; }
/* A kept manifold's normal: the entry's, carried by A, and the entry's manifold takes it
 * (fill_points reads the normal there). */
static mk_vec3 kept_normal(sim_cache_entry3 *e, frame fa)
{
    e->manifold.normal = mk_quat_rotate(fa.q, e->local_normal);
    return e->manifold.normal;
}

/* The constraint's normal, tangents and points from the pair's entry, which takes this step's
 * manifold (a kept entry has it, point for point, with its impulses); false when the entry
 * has no point to solve. Unlike the 2D points, each point is placed from its two surface
 * points carried by the bodies, since a point of the persistent manifold may have come apart
 * (the arbiter reports it at depth 0): that is other arithmetic, so this stays per dimension. */
static bool fill_points(sim_world *w, sim_constraint3 *c, sim_cache_entry3 *entry,
                        const sim_body3 *a3, const sim_body3 *b3, const col_manifold3 *m,
                        bool kept)
{
    (void)w;
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
    const col_contact_cache3 *pm = &entry->manifold;
    if (pm->count == 0)
        return false;
    c->normal = pm->normal;
    tangents(c->normal, c->tangent);
    c->count = pm->count;
    mk_vec3 ca = sim_body_center3(a3), cb = sim_body_center3(b3);
    col_xf3 xa = xf_of(a3), xb = xf_of(b3);
    for (int i = 0; i < pm->count; i++) {
        sim_constraint_point3 *p = &c->points[i];
        const col_cached_point3 *cp = &pm->points[i];
        /* The signed gap of the point's two surface points: a cached point that has come
         * apart is a speculative one (the arbiter reports it at depth 0). */
        mk_vec3 wa = col_xf3_apply(xa, cp->local_a), wb = col_xf3_apply(xb, cp->local_b);
        float depth = mk_v3_dot(mk_v3_sub(wa, wb), c->normal);
        mk_vec3 point = mk_v3_scale(mk_v3_add(wa, wb), 0.5f);
        p->ra = mk_v3_sub(point, ca);
        p->rb = mk_v3_sub(point, cb);
        p->base_sep = -depth - mk_v3_dot(mk_v3_sub(p->rb, p->ra), c->normal);
        int k = kept ? i : old->manifold.count > 0 ? match(old, cp->c.id, cp->local_a) : -1;
        p->jn = k >= 0 ? old->jn[k] : 0.0f;
        p->jt[0] = k >= 0 ? old->jt[k][0] : 0.0f;
        p->jt[1] = k >= 0 ? old->jt[k][1] : 0.0f;
        entry->jn[i] = p->jn;
        entry->jt[i][0] = p->jt[0];
        entry->jt[i][1] = p->jt[1];
    }
    return true;
}

static void clear_constraints(sim_world *w) { w->constraints3.len = 0; }

static bool reserve_constraints(sim_world *w, size_t n)
{
    return mk_vec_reserve(&w->constraints3, n);
}

/* The 3D solver prepares its constraints itself (solver.c), and bounces group by group. */
static void finish_constraint(sim_world *w, sim_constraint3 *c, size_t k)
{
    (void)w;
    (void)c;
    (void)k;
}

/* The 3D solver runs restitution for every constraint that has it. */
static bool bounces(const sim_constraint3 *c)
{
    (void)c;
    return false;
}

static void note_bounce(sim_world *w, const sim_constraint3 *c)
{
    (void)w;
    (void)c;
}

static void move_constraint(sim_world *w, size_t k, size_t to)
{
    sim_constraint3 *cs = w->constraints3.data;
    cs[to] = cs[k];
}

static void store_point(sim_cache_entry3 *e, int i, const sim_constraint_point3 *p)
{
    e->jn[i] = p->jn;
    e->jt[i][0] = p->jt[0];
    e->jt[i][1] = p->jt[1];
}
#endif

/* A body that wakes a sleeping one it touches: anything awake that moves. */
static bool active(const sim_world *w, const sim_body *b)
{
    if (b->sleeping || b->kind == SIM_STATIC)
        return false;
    return b->kind != SIM_KINEMATIC || !dv_is_zero(dim_part(w, (uint32_t)(b - w->bodies))->vel);
}

/* The manifold of a pair, with speculative points when they are apart by less than
 * SIM_SPECULATIVE (Box2D v3's speculative contacts): B moved that far toward A is collided
 * and the depths taken back by as much, so a point's depth is negative while apart. The solver
 * then lets them close the gap and no more, so resting bodies keep their contact from step to
 * step instead of losing it whenever they stand a hair apart. */
static dmanifold speculative_collide(const dpart *a, const dpart *b)
{
    dmanifold m = dim_collide_within(a, b, b->pos, SIM_SPECULATIVE);
    if (m.count > 0 || !(m.distance < SIM_SPECULATIVE))
        return m;
    dvec shift = dv_scale(m.normal, -SIM_SPECULATIVE);
    dmanifold s = dim_collide_within(a, b, dv_add(b->pos, shift), SHIFTED_MARGIN);
    if (s.count == 0)
        return m;
    for (int i = 0; i < s.count; i++) {
        s.points[i].depth -= SIM_SPECULATIVE;
        s.points[i].point = dv_mad(s.points[i].point, -0.5f, shift);
    }
    s.depth -= SIM_SPECULATIVE;
    return s;
}

void DIM_NAME(sim_wake_touched)(sim_world *w)
{
    if (!dim_pairs_may_sleep(w))
        return; /* no pair has a sleeper to wake */
    const sim_pair *pairs = w->pairs.data;
    for (size_t i = 0; i < w->pairs.len; i++) {
        sim_body *a = &w->bodies[pairs[i].a], *b = &w->bodies[pairs[i].b];
        if (a->sleeping == b->sleeping)
            continue;
        sim_body *sleeper = a->sleeping ? a : b, *other = a->sleeping ? b : a;
        if (active(w, other) && dim_tight_overlap(w, pairs[i].a, pairs[i].b) &&
            dim_touching(dim_part(w, pairs[i].a), dim_part(w, pairs[i].b)))
            sim_wake(w, sleeper);
    }
}

void DIM_NAME(sim_build_solver_bodies)(sim_world *w)
{
    mk_vec *v = dim_solver_bodies(w), *info = dim_solver_info(w);
    v->len = info->len = 0;
    const mk_vec *movers = dim_movers(w);
    /* Room for the body at rest was reserved with the world (place_body); with room for every
     * body the arrays are written in place. Out of memory, no body moves this step. */
    bool room = mk_vec_reserve(v, movers->len + 1) && mk_vec_reserve(info, movers->len + 1);
    dsolver_body *vb = v->data;
    dsolver_info *vi = info->data;
    vb[0] = dim_solver_rest();
    vi[0] = dim_solver_info_rest();
    size_t n = 1;
    const uint32_t *slots = movers->data;
    for (size_t i = 0; i < movers->len; i++) {
        uint32_t s = slots[i];
        const sim_body *b = &w->bodies[s];
        if (!room || b->kind == SIM_STATIC || b->sleeping) {
            w->solver_index[s] = 0;
            continue;
        }
        const dpart *p = dim_part(w, s);
        dsolver_body sb = dim_solver_rest();
        sb.v = p->vel;
        sb.w = p->w;
        sb.gravity_scale = b->kind == SIM_KINEMATIC ? 0.0f : 1.0f;
        w->solver_index[s] = (uint32_t)n;
        vb[n] = sb;
        vi[n++] = (dsolver_info){b->inv_mass, dim_solver_inv_inertia(b, p), s};
    }
    v->len = info->len = n;
}

/* The point of last step's manifold that a new point continues: the one with its feature id,
 * or else the nearest within SIM_MATCH_DISTANCE (in A's frame); -1 when none. Feature ids
 * change when the reference face passes from one shape to the other (two boxes nearly aligned
 * do that at every tilt); the points themselves barely move, and their impulses are still the
 * best start. */
static int match(const dcache_entry *old, uint32_t id, dvec local)
{
    const cached_point *points = entry_points(old);
    int best = -1;
    float best_d = SIM_MATCH_DISTANCE;
    for (int k = 0; k < entry_count(old); k++) {
        if (cached_id(&points[k]) == id)
            return k;
        float d = dv_len(dv_sub(points[k].local_a, local));
        if (d < best_d) {
            best_d = d;
            best = k;
        }
    }
    return best;
}

/* The manifold a kept entry stands for now: each point midway between its two surface points
 * carried by their bodies, its depth their gap along the normal carried by A. */
static dmanifold manifold_of(dcache_entry *e, const dpart *a, const dpart *b)
{
    dmanifold m;
    memset(&m, 0, sizeof m);
    frame fa = frame_of(a), fb = frame_of(b);
    m.normal = kept_normal(e, fa);
    m.count = entry_count(e);
    m.depth = -INFINITY;
    const cached_point *points = entry_points(e);
    for (int i = 0; i < m.count; i++) {
        const cached_point *cp = &points[i];
        dvec wa = frame_apply(fa, cp->local_a), wb = frame_apply(fb, cp->local_b);
        float depth = dv_dot(dv_sub(wa, wb), m.normal);
        m.points[i] = (dcontact_point){dv_scale(dv_add(wa, wb), 0.5f), depth, cached_id(cp)};
        m.depth = mk_maxf(m.depth, depth);
    }
    return m;
}

/* A constraint whose points are filled on the workers (fill_range): its pair, whose
 * narrow_item holds the manifold, and whether fill_points found points to solve. */
typedef struct fill_item {
    uint32_t pair;
    bool ok;
    bool bounce; /* the constraint has restitution (note_bounce), known when it was placed */
} fill_item;

/* found: the pair's cache entry (UINT32_MAX: none yet); kept: m is that entry's kept manifold
 * (kept_manifold). With `fills`, the constraint is only placed in the list and its points are
 * left to fill_range; pair i's narrow_item then holds m. */
static void add_constraint(sim_world *w, sim_pair *pair, const sim_body *a, const sim_body *b,
                           const dmanifold *m, uint32_t found, bool kept, fill_item *fills,
                           uint32_t i)
{
    mk_vec *cv = dim_constraints(w);
    /* Built in place: sim_collide reserved one constraint a pair. */
    assert(cv->len < cv->cap);
    dconstraint *c = (dconstraint *)cv->data + cv->len;
    uint32_t sa = sim_id_slot(a->id), sb = sim_id_slot(b->id);
    c->a = w->solver_index[sa];
    c->b = w->solver_index[sb];
    c->friction = sim_pair_friction(a, b);
    c->restitution = sim_pair_restitution(a, b);
    const dsolver_info *si = dim_solver_info(w)->data;
    c->ma = si[c->a].inv_mass;
    c->mb = si[c->b].inv_mass;
    if (c->ma == 0.0f && c->mb == 0.0f)
        return; /* a kinematic body against a sleeping one: nothing to solve */
    c->fixed = c->ma == 0.0f || c->mb == 0.0f;
    sim_cache *cache = &w->cache;
    c->cache_entry = found;
    if (found == UINT32_MAX) {
        c->cache_entry = sim_cache_add(cache, a->id, b->id);
        pair->entry = c->cache_entry + 1;
    }
    dcache_entry *e = (dcache_entry *)sim_cache_at(cache, c->cache_entry);
    e->head.stamp = w->tick;
    /* sim_collide made room for every pair. */
    assert(w->solved.len < w->solved.cap);
    ((uint32_t *)w->solved.data)[w->solved.len++] = c->cache_entry;
    if (fills) {
        fills[cv->len++] = (fill_item){i, false, bounces(c)};
        return;
    }
    if (fill_points(w, c, e, dim_part(w, sa), dim_part(w, sb), m, kept)) {
        finish_constraint(w, c, cv->len);
        note_bounce(w, c);
        cv->len++;
    }
}

/* A pair's collision, the part of the narrowphase that reads the bodies and the pair's own
 * cache entry alone: the pair's entry (UINT32_MAX: none yet), whether it keeps last step's
 * manifold (kept_manifold), and the manifold. */
typedef struct narrow_item {
    dmanifold m;
    uint32_t found;
    uint8_t state; /* NARROW_* */
    bool kept;
} narrow_item;

enum {
    NARROW_SKIP,    /* nothing to collide: apart, or resolved by push-out */
    NARROW_DONE,    /* m, found and kept hold the pair's collision */
    NARROW_RESTING, /* both resting when collided: a wake later in the pass may change it */
};

size_t DIM_NAME(sim_narrow_item_size)(void) { return sizeof(narrow_item); }
size_t DIM_NAME(sim_narrow_fill_size)(void) { return sizeof(fill_item); }

/* A pair's bodies in one order per pair, so that its normal and feature ids persist. */
static void pair_bodies(sim_world *w, const sim_pair *pair, sim_body **a, sim_body **b)
{
    *a = &w->bodies[pair->a];
    *b = &w->bodies[pair->b];
    if ((*a)->id > (*b)->id) {
        sim_body *t = *a;
        *a = *b;
        *b = t;
    }
}

static void collide_pair(sim_world *w, sim_pair *pair, narrow_item *it)
{
    sim_body *a, *b;
    pair_bodies(w, pair, &a, &b);
    it->state = NARROW_SKIP;
    if (sim_body_resting(a) && sim_body_resting(b)) {
        it->state = NARROW_RESTING; /* a sleeping pair keeps its cache entry untouched */
        return;
    }
    uint32_t sa = sim_id_slot(a->id), sb = sim_id_slot(b->id);
    if (sim_is_push_pair(a, b) || !dim_tight_overlap(w, sa, sb))
        return;
    const dpart *pa = dim_part(w, sa), *pb = dim_part(w, sb);
    if (surely_apart(pa, pb))
        return;
    it->found = UINT32_MAX;
    dcache_entry *e =
        (dcache_entry *)sim_cache_find_hinted(&w->cache, &pair->entry, a->id, b->id, &it->found);
    it->kept = kept_manifold(w, e, pa, pb);
    it->m = it->kept ? manifold_of(e, pa, pb) : speculative_collide(pa, pb);
    it->state = NARROW_DONE;
}

typedef struct narrow_job {
    sim_world *w;
    narrow_item *items;
} narrow_job;

static void collide_range(void *arg, size_t begin, size_t end)
{
    const narrow_job *job = arg;
    sim_pair *pairs = job->w->pairs.data;
    for (size_t i = begin; i < end; i++)
        collide_pair(job->w, &pairs[i], &job->items[i]);
}

#define SIM_NARROW_GRAIN 64 /* pairs a worker takes at least at once */

typedef struct fill_job {
    sim_world *w;
    const narrow_item *items;
    fill_item *fills;
} fill_job;

/* The points of constraints placed by add_constraint, on the workers: each reads the bodies
 * and writes only its constraint and its pair's cache entry. */
static void fill_range(void *arg, size_t begin, size_t end)
{
    const fill_job *job = arg;
    sim_world *w = job->w;
    dconstraint *cs = dim_constraints(w)->data;
    const sim_pair *pairs = w->pairs.data;
    for (size_t k = begin; k < end; k++) {
        dconstraint *c = &cs[k];
        const narrow_item *it = &job->items[job->fills[k].pair];
        const sim_pair *pair = &pairs[job->fills[k].pair];
        sim_body *a, *b;
        pair_bodies(w, pair, &a, &b);
        dcache_entry *e = (dcache_entry *)sim_cache_at(&w->cache, c->cache_entry);
        job->fills[k].ok = fill_points(w, c, e, dim_part(w, sim_id_slot(a->id)),
                                       dim_part(w, sim_id_slot(b->id)), &it->m, it->kept);
        if (job->fills[k].ok)
            finish_constraint(w, c, k);
    }
}

/* Fills the placed constraints on the workers, then drops those without points, keeping the
 * others' order: the list comes out as the one-by-one pass makes it. */
static void fill_constraints(sim_world *w, const narrow_item *items, fill_item *fills)
{
    mk_vec *cv = dim_constraints(w);
    fill_job job = {w, items, fills};
    sim_pool_for(w->pool, cv->len, SIM_NARROW_GRAIN, fill_range, &job);
    size_t n = 0;
    for (size_t k = 0; k < cv->len; k++) {
        if (!fills[k].ok)
            continue;
        if (n != k)
            move_constraint(w, k, n);
        /* From the fill item, not the constraint, which another core may have written. */
        w->constraints_bounce |= fills[k].bounce;
        n++;
    }
    cv->len = n;
}

/* With more than one worker, every pair is collided on the workers first (collide_pair writes
 * only the pair, its item and its own cache entry); the pass in the pairs' order then turns
 * the collisions into contacts, wakes, cache entries and places in the constraint list one by
 * one, as the pass alone does: a pair found resting by the workers that a wake in this pass
 * reached is collided there, as it would have been. The constraints' points are then filled
 * on the workers again (fill_constraints). So the constraints, their order and the cache come
 * out the same with any number of workers. */
void DIM_NAME(sim_collide)(sim_world *w, dvec up)
{
    mk_vec *contacts = dim_contacts(w);
    clear_constraints(w);
    w->push_pairs.len = 0;
    contacts->len = 0;
    if (!sim_cache_reserve_step(w, w->pairs.len) ||
        !mk_vec_reserve(&w->solved, w->solved.len + w->pairs.len) ||
        !reserve_constraints(w, w->pairs.len) ||
        !mk_vec_reserve(&w->push_pairs, w->pairs.len) ||
        !mk_vec_reserve(contacts, w->pairs.len))
        return; /* out of memory: this step has no contacts */

    narrow_item *items = NULL;
    fill_item *fills = NULL;
    if (sim_pool_workers(w->pool) > 1 && w->pairs.len > SIM_NARROW_GRAIN &&
        mk_vec_reserve(&w->narrow, w->pairs.len) &&
        mk_vec_reserve(&w->narrow_fills, w->pairs.len)) {
        items = w->narrow.data;
        fills = w->narrow_fills.data;
        narrow_job job = {w, items};
        sim_pool_for(w->pool, w->pairs.len, SIM_NARROW_GRAIN, collide_range, &job);
    }
    size_t first_solved = w->solved.len;
    sim_pair *pairs = w->pairs.data;
    for (size_t i = 0; i < w->pairs.len; i++) {
        sim_body *a, *b;
        pair_bodies(w, &pairs[i], &a, &b);
        if (sim_body_resting(a) && sim_body_resting(b))
            continue; /* a sleeping pair keeps its cache entry untouched */
        uint32_t sa = sim_id_slot(a->id), sb = sim_id_slot(b->id);
        if (sim_is_push_pair(a, b)) {
            sim_pair p = {sa, sb, 0.0f, 0};
            mk_vec_push(&w->push_pairs, &p);
            continue; /* resolved after the solver, with fresh manifolds */
        }
        narrow_item here;
        narrow_item *it = items ? &items[i] : &here;
        if (!items || it->state == NARROW_RESTING)
            collide_pair(w, &pairs[i], it); /* a wake in this pass reached it */
        if (it->state != NARROW_DONE || it->m.count == 0)
            continue;
        const dmanifold m = it->m;
        bool touching = m.depth >= -SIM_TOUCHING;
        if (touching) {
            dcontact *contact = (dcontact *)contacts->data + contacts->len++;
            *contact = (dcontact){a->id, b->id, m};
            for (int k = 0; k < m.count; k++)
                contact->m.points[k].depth = mk_maxf(m.points[k].depth, 0.0f);
            contact->m.depth = mk_maxf(m.depth, 0.0f);
            /* Touching a sleeping body that the wake pass did not reach (it was woken later
             * in that pass): it takes this step as if static and wakes for the next. */
            if (a->sleeping && active(w, b))
                sim_wake(w, a);
            if (b->sleeping && active(w, a))
                sim_wake(w, b);
            b->grounded |= dim_is_ground(b, m.normal, up);
            a->grounded |= dim_is_ground(a, dv_neg(m.normal), up);
        }
        add_constraint(w, &pairs[i], a, b, &m, it->found, it->kept, fills, (uint32_t)i);
    }
    if (fills)
        fill_constraints(w, items, fills);
    sim_cache_end_pairs(w, first_solved);
}

/* Stores the solved impulses of the constraints only[0..n) (all n when only is NULL) in the
 * contact cache, for the next step's warm start. */
static void store_impulses(sim_world *w, const uint32_t *only, size_t n)
{
    const dconstraint *cs = dim_constraints(w)->data;
    for (size_t k = 0; k < n; k++) {
        const dconstraint *c = &cs[only ? only[k] : k];
        dcache_entry *e = (dcache_entry *)sim_cache_at(&w->cache, c->cache_entry);
        for (int i = 0; i < c->count; i++)
            store_point(e, i, &c->points[i]);
    }
}

#if MK_DIM == 2
void sim_store_impulses2(sim_world *w, const uint32_t *only, size_t n)
{
    store_impulses(w, only, n);
}
#else
void sim_store_impulses3(sim_world *w) { store_impulses(w, NULL, w->constraints3.len); }
#endif
