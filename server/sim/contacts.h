/* The narrowphase's parts, for the files compiled with MK_DIM (dim.h): the pass over the pairs
 * is one source for both dimensions (contacts.c); what each dimension does for a touching
 * pair in its own arithmetic is in contacts2.c and contacts3.c (the constraint's points from
 * the manifold, the 3D persistent manifold and its perturbation). What the pass asks of every
 * pair and every point in each dimension's own way (whether the pair keeps last step's
 * manifold or is surely apart, a cache entry's points, a body's frame, the constraint list's
 * bookkeeping) is inline below: as calls, those cost the 2D pile several percent more in the
 * narrowphase (measured with cachegrind), inline they cost what they did in one file. */
#ifndef MINK_SIM_CONTACTS_H
#define MINK_SIM_CONTACTS_H

#include <float.h>
#include <math.h>
#include <string.h>

#include "body_rules.h"
#include "broadphase.h"
#include "contact_cache.h"
#include "dim.h"
#include "solver.h"

#define SIM_MATCH_DISTANCE 0.05f /* m: a new point continues an old one this close */
#define SIM_KEEP_MOVE 1e-3f      /* m: see dim_kept_manifold */

/* ---- each dimension's own (contacts2.c, contacts3.c) ---- */

/* The constraint's normal and points at the manifold m, warm-started from the pair's cache
 * entry, which takes this step's points (a kept manifold's points are the entry's, one for
 * one, and so are their impulses); false when it has none to solve. In 2D a kept manifold's
 * constraint is filled inline (dim_fill_points below) and sim_fill_fresh2 fills the others,
 * from the bodies' centres of mass ca and cb. */
bool sim_fill_fresh2(sim_constraint *c, sim_cache_entry *next, const sim_body *a,
                     const sim_body *b, const col_manifold2 *m, mk_vec2 ca, mk_vec2 cb);
bool sim_fill_points3(sim_world *w, sim_constraint3 *c, sim_cache_entry3 *entry,
                      const sim_body3 *a, const sim_body3 *b, const col_manifold3 *m, bool kept);

#if MK_DIM == 2
/* A constraint point at the manifold point mp, with its arms from the centres of mass ca, cb
 * and the separation it starts the step with (impulses are the caller's). */
static inline void sim_place_point2(sim_constraint_point *p, const col_contact_point2 *mp,
                                    mk_vec2 ca, mk_vec2 cb, mk_vec2 normal)
{
    p->ra = mk_v2_sub(mp->point, ca);
    p->rb = mk_v2_sub(mp->point, cb);
    p->base_sep = -mp->depth - mk_v2_dot(mk_v2_sub(p->rb, p->ra), normal);
}

/* Each point is placed at the manifold's own point, and the entry keeps no more than this
 * step's manifold: the 3D sim_fill_points3 places points from the cache's surface points,
 * other arithmetic. */
static inline bool dim_fill_points(sim_world *w, sim_constraint *c, sim_cache_entry *next,
                                   const sim_body *a, const sim_body *b, const col_manifold2 *m,
                                   bool kept)
{
    const sim_solver_info *si = w->d2.solver_info.at;
    c->ia = si[c->a].inv_inertia;
    c->ib = si[c->b].inv_inertia;
    c->normal = m->normal;
    c->count = m->count;
    mk_vec2 ca = sim_body_center2(a), cb = sim_body_center2(b);
    if (!kept)
        return sim_fill_fresh2(c, next, a, b, m, ca, cb);
    for (int i = 0; i < m->count; i++) {
        sim_constraint_point *p = &c->points[i];
        sim_place_point2(p, &m->points[i], ca, cb, c->normal);
        p->jn = next->points[i].jn;
        p->jt = next->points[i].jt;
    }
    return true;
}

/* B shifted toward A is collided for its whole manifold, however far it reaches. */
#define DIM_SHIFTED_MARGIN FLT_MAX

/* A point of the frame of a body at `pos` turned by (cos, sin) = q, in the world. */
static inline mk_vec2 sim_to_world2(mk_vec2 pos, mk_vec2 q, mk_vec2 p)
{
    return mk_v2(pos.x + q.x * p.x - q.y * p.y, pos.y + q.y * p.x + q.x * p.y);
}

/* (cos, sin) of the angle the shape is turned by: an AABB never turns, whatever its body's
 * angle (col_collide2_near_q). */
static inline mk_vec2 sim_shape_rot2(const sim_body *b)
{
    return b->shape.type == COL_SHAPE_AABB ? mk_v2(1.0f, 0.0f) : sim_body_rot2(b);
}

/* A world point in the frame of a body at `pos` turned by (cos, sin) = q. */
static inline mk_vec2 sim_to_local2(mk_vec2 pos, mk_vec2 q, mk_vec2 p)
{
    mk_vec2 d = mk_v2_sub(p, pos);
    return mk_v2(q.x * d.x + q.y * d.y, -q.y * d.x + q.x * d.y);
}

/* B's placement in A's frame: its position, and the cosine and sine of its angle. */
static inline void sim_relative_pose2(const sim_body *a, mk_vec2 qa, const sim_body *b,
                                      mk_vec2 qb, mk_vec2 *p, mk_vec2 *q)
{
    *p = sim_to_local2(a->pos, qa, b->pos);
    *q = mk_v2(qa.x * qb.x + qa.y * qb.y, qa.x * qb.y - qa.y * qb.x);
}

/* Whether last step's manifold of the pair, in its cache entry e (NULL: none), still holds
 * because no point of B has moved more than SIM_KEEP_MOVE in A's frame since it was computed
 * (Jolt's body pair cache, with Box2D v3's measure of the motion: the shift plus the largest
 * extent times the sine of the turn): a resting pile is not collided again every step. The
 * kept points ride on the bodies: dim_manifold_of measures their depths anew. */
static inline bool dim_kept_manifold(const sim_world *w, const sim_cache_entry *e,
                                     const sim_body *a, const sim_body *b)
{
    if (!e || e->head.stamp + 1 != w->tick)
        return false;
    mk_vec2 p, q;
    sim_relative_pose2(a, sim_shape_rot2(a), b, sim_shape_rot2(b), &p, &q);
    float turn = mk_v2_cross(e->rel_q, q); /* the sine of the turn since */
    return mk_v2_dot(q, e->rel_q) > 0.0f &&
           mk_v2_len(mk_v2_sub(p, e->rel_p)) + e->reach * fabsf(turn) <= SIM_KEEP_MOVE;
}

/* A body's frame: its position and the turn of its shape (sim_shape_rot2). */
typedef struct dframe {
    mk_vec2 pos, q;
} dframe;
static inline dframe dim_frame_of(const sim_body *b)
{
    return (dframe){b->pos, sim_shape_rot2(b)};
}
static inline mk_vec2 dim_frame_apply(dframe f, mk_vec2 p)
{
    return sim_to_world2(f.pos, f.q, p);
}

/* A cache entry's points. */
typedef col_contact_point2 dcontact_point;
typedef sim_cached_point dcached_point;
static inline int dim_entry_count(const sim_cache_entry *e) { return e->count; }
static inline const sim_cached_point *dim_entry_points(const sim_cache_entry *e)
{
    return e->points;
}
static inline uint32_t dim_cached_id(const sim_cached_point *p) { return p->id; }
/* A kept manifold's normal: the entry's, carried by A. */
static inline mk_vec2 dim_kept_normal(sim_cache_entry *e, dframe fa)
{
    return sim_to_world2(mk_v2(0.0f, 0.0f), fa.q, e->local_normal);
}

/* The 2D narrowphase collides every pair in full. */
static inline bool dim_surely_apart(const sim_body *a, const sim_body *b)
{
    (void)a;
    (void)b;
    return false;
}

/* A pair of rectangles (boxes, AABBs) that the narrowphase found apart by a gap G of at least
 * SIM_SPECULATIVE (no contact points) stays so while its second body moves less than
 * G - SIM_SPECULATIVE in the first one's frame: the gap of two shapes shrinks by no more than
 * the farthest any point of one moves against the other, which is at most the shift of its
 * origin plus its reach times |q' - q|, q = (cos, sin) of the turn between them (the chord of
 * the turn). And while the gap G' of two rectangles is at least SIM_SPECULATIVE, the
 * narrowphase gives no points: the best separating axis of two rectangles shows at least
 * G' / sqrt 2 (the closest features are a face, whose normal shows G', or two corners, where
 * one of the four edge normals there lies within 45 degrees of the gap), so it never takes
 * them for overlapping, and the gap it measures otherwise is never below G'. So such a pair
 * is skipped (Box2D v3 recycles a pair's manifold for small relative motion the same way, by
 * the shift plus the extent times the sine of the turn, but approximately; this bound is
 * exact and the step's arithmetic does not change). Polygons are left out: a sharp corner's
 * separating axes may show far less than the gap. The slack covers float rounding, a few
 * dozen roundings at the scale of the pair's coordinates in A's frame, with room. */
#define SIM_APART_SLACK 1e-5f /* of the scale, |p| + both reaches */

static inline bool sim_rect2(const sim_body *b)
{
    return b->shape.type == COL_SHAPE_BOX || b->shape.type == COL_SHAPE_AABB;
}

/* After the pair was collided to manifold m: keeps the proof that it is apart, or none. */
static inline void dim_note_apart(sim_pair *pair, const sim_body *a, const sim_body *b,
                                  const col_manifold2 *m)
{
    pair->apart = 0.0f;
    if (m->count != 0 || !sim_rect2(a) || !sim_rect2(b))
        return;
    mk_vec2 p, q;
    sim_relative_pose2(a, sim_shape_rot2(a), b, sim_shape_rot2(b), &p, &q);
    float scale = mk_v2_len(p) + mk_v2_len(a->shape.half) + mk_v2_len(b->shape.half);
    float room = m->distance - SIM_SPECULATIVE - SIM_APART_SLACK * scale;
    if (!(room > 0.0f))
        return;
    pair->apart = room;
    pair->apart_p = p;
    pair->apart_q = q;
}

/* Whether the pair is still proven apart: it would be collided to no points. */
static inline bool dim_still_apart(const sim_pair *pair, const sim_body *a, const sim_body *b)
{
    if (!(pair->apart > 0.0f))
        return false;
    mk_vec2 p, q;
    sim_relative_pose2(a, sim_shape_rot2(a), b, sim_shape_rot2(b), &p, &q);
    float move = mk_v2_len(mk_v2_sub(p, pair->apart_p)) +
                 mk_v2_len(b->shape.half) * mk_v2_len(mk_v2_sub(q, pair->apart_q));
    return move < pair->apart;
}

static inline void dim_clear_constraints(sim_world *w)
{
    w->d2.constraints.v.len = 0;
    w->solver.bounce = false;
}

/* Room for n constraints and their ends for the wide solver's coloring. */
static inline bool dim_reserve_constraints(sim_world *w, size_t n)
{
    return mk_vec_reserve(&w->d2.constraints.v, n) &&
           mk_vec_reserve(&w->solver.wide_ends.v, 2 * n);
}

/* Notes constraint k's movable ends for the wide solver's coloring, while it is at hand
 * (the solver prepares its masses, solver.c). Writes only its own. */
static inline void dim_finish_constraint(sim_world *w, sim_constraint *c, size_t k)
{
    uint32_t *ends = w->solver.wide_ends.at + 2 * k;
    ends[0] = c->ma > 0.0f || c->ia > 0.0f ? c->a : 0;
    ends[1] = c->mb > 0.0f || c->ib > 0.0f ? c->b : 0;
}

/* Whether a constraint bounces: one that does makes the 2D solver run its restitution pass. */
static inline bool dim_bounces(const sim_constraint *c) { return c->restitution != 0.0f; }

static inline void dim_note_bounce(sim_world *w, const sim_constraint *c)
{
    w->solver.bounce |= dim_bounces(c);
}

/* Moves a finished constraint from k to `to` (< k) in the list, with its ends. */
static inline void dim_move_constraint(sim_world *w, size_t k, size_t to)
{
    sim_constraint *cs = w->d2.constraints.at;
    uint32_t *ends = w->solver.wide_ends.at;
    cs[to] = cs[k];
    ends[2 * to] = ends[2 * k];
    ends[2 * to + 1] = ends[2 * k + 1];
}

/* A solved point's impulses, into its cache entry for the next step. */
static inline void dim_store_point(sim_cache_entry *e, int i, const sim_constraint_point *p)
{
    e->points[i].jn = p->jn;
    e->points[i].jt = p->jt;
}

#else /* MK_DIM == 3 */
#define dim_fill_points sim_fill_points3

/* B shifted toward A needs only the points within the speculative reach. */
#define DIM_SHIFTED_MARGIN SIM_SPECULATIVE

/* Jolt's body pair cache's turn: 2 degrees, as the cosine of half the angle. */
#define SIM_KEEP_COS_HALF 0.99984770f

#define SIM_APART_SLACK 1e-5f /* of the sizes: float rounding in sim_boxes_apart3, with room */

static inline col_xf3 sim_body_xf3(const sim_body3 *b3) { return (col_xf3){b3->pos, b3->rot}; }

/* Whether two boxes are farther apart than `margin` along a face normal of either: then they
 * are at least that far apart (the separating-axis bound of Gottschalk, Lin and Manocha's
 * OBBTree test), and col_collide3_within would only say so, after its double-precision test
 * of all fifteen axes. The common pair of a pile, neighbours side by side, ends here in float.
 * The slack covers float rounding (1e-7 of the sizes), so the answer is never wrong, only
 * sometimes "don't know" (false). */
static inline bool sim_boxes_apart3(const sim_body3 *a, const sim_body3 *b, float margin)
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


static inline bool sim_polytope3(const col_shape3 *s)
{
    return s->type == COL_SHAPE3_BOX || s->type == COL_SHAPE3_HULL;
}

/* B's placement in A's frame. */
static inline void sim_relative_pose3(const sim_body3 *a, const sim_body3 *b, mk_vec3 *p,
                                      mk_quat *q)
{
    *p = mk_quat_unrotate(a->rot, mk_v3_sub(b->pos, a->pos));
    *q = mk_quat_mul(mk_quat_conj(a->rot), b->rot);
}

/* Whether a touching polytope pair's one-shot manifold of last step, in its cache entry e
 * (NULL: none), still holds, because B has moved less than SIM_KEEP_MOVE and turned less than
 * 2 degrees in A's frame since it was computed (Jolt's body pair cache defaults): a resting
 * pile is not collided again every step. The kept points ride on the bodies: sim_fill_points3
 * measures their depths anew. */
static inline bool dim_kept_manifold(const sim_world *w, const sim_cache_entry3 *e,
                                     const sim_body3 *a3, const sim_body3 *b3)
{
    if (!sim_polytope3(&a3->shape) || !sim_polytope3(&b3->shape))
        return false;
    if (!e || !e->one_shot || e->head.stamp + 1 != w->tick)
        return false;
    mk_vec3 p;
    mk_quat q;
    sim_relative_pose3(a3, b3, &p, &q);
    mk_vec3 d = mk_v3_sub(p, e->rel_p);
    float dot = q.x * e->rel_q.x + q.y * e->rel_q.y + q.z * e->rel_q.z + q.w * e->rel_q.w;
    return !(mk_v3_dot(d, d) > SIM_KEEP_MOVE * SIM_KEEP_MOVE || fabsf(dot) < SIM_KEEP_COS_HALF);
}

/* Two boxes that sim_boxes_apart3 finds farther apart than the speculative reach:
 * speculative_collide would find nothing. */
static inline bool dim_surely_apart(const sim_body3 *a, const sim_body3 *b)
{
    return a->shape.type == COL_SHAPE3_BOX && b->shape.type == COL_SHAPE3_BOX &&
           sim_boxes_apart3(a, b, SIM_SPECULATIVE);
}

/* 3D pairs keep no proof that they are apart (the 2D one's, dim_still_apart, is of 2D
 * rectangles); sim_boxes_apart3 does that work each step. */
static inline void dim_note_apart(sim_pair *pair, const sim_body3 *a, const sim_body3 *b,
                                  const col_manifold3 *m)
{
    (void)pair;
    (void)a;
    (void)b;
    (void)m;
}
static inline bool dim_still_apart(const sim_pair *pair, const sim_body3 *a, const sim_body3 *b)
{
    (void)pair;
    (void)a;
    (void)b;
    return false;
}

typedef col_xf3 dframe;
static inline dframe dim_frame_of(const sim_body3 *b3) { return sim_body_xf3(b3); }
static inline mk_vec3 dim_frame_apply(dframe f, mk_vec3 p) { return col_xf3_apply(f, p); }

typedef col_contact_point3 dcontact_point;
typedef col_cached_point3 dcached_point;
static inline int dim_entry_count(const sim_cache_entry3 *e) { return e->manifold.count; }
static inline const col_cached_point3 *dim_entry_points(const sim_cache_entry3 *e)
{
    return e->manifold.points;
}
static inline uint32_t dim_cached_id(const col_cached_point3 *p) { return p->c.id; }
/* A kept manifold's normal: the entry's, carried by A, and the entry's manifold takes it
 * (sim_fill_points3 reads the normal there). */
static inline mk_vec3 dim_kept_normal(sim_cache_entry3 *e, dframe fa)
{
    e->manifold.normal = mk_quat_rotate(fa.q, e->local_normal);
    return e->manifold.normal;
}

static inline void dim_clear_constraints(sim_world *w) { w->d3.constraints.v.len = 0; }

static inline bool dim_reserve_constraints(sim_world *w, size_t n)
{
    return mk_vec_reserve(&w->d3.constraints.v, n);
}

/* The 3D solver prepares its constraints itself (solver.c), and bounces group by group. */
static inline void dim_finish_constraint(sim_world *w, sim_constraint3 *c, size_t k)
{
    (void)w;
    (void)c;
    (void)k;
}

/* The 3D solver runs restitution for every constraint that has it. */
static inline bool dim_bounces(const sim_constraint3 *c)
{
    (void)c;
    return false;
}

static inline void dim_note_bounce(sim_world *w, const sim_constraint3 *c)
{
    (void)w;
    (void)c;
}

static inline void dim_move_constraint(sim_world *w, size_t k, size_t to)
{
    sim_constraint3 *cs = w->d3.constraints.at;
    cs[to] = cs[k];
}

static inline void dim_store_point(sim_cache_entry3 *e, int i, const sim_constraint_point3 *p)
{
    e->jn[i] = p->jn;
    e->jt[i][0] = p->jt[0];
    e->jt[i][1] = p->jt[1];
}
#endif

/* The point of last step's manifold that a new point continues: the one with its feature id,
 * or else the nearest within SIM_MATCH_DISTANCE (in A's frame); -1 when none. Feature ids
 * change when the reference face passes from one shape to the other (two boxes nearly aligned
 * do that at every tilt); the points themselves barely move, and their impulses are still the
 * best start. */
static inline int sim_match_cached(const dcache_entry *old, uint32_t id, dvec local)
{
    const dcached_point *points = dim_entry_points(old);
    int best = -1;
    float best_d = SIM_MATCH_DISTANCE;
    for (int k = 0; k < dim_entry_count(old); k++) {
        if (dim_cached_id(&points[k]) == id)
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
static inline dmanifold dim_manifold_of(dcache_entry *e, const dpart *a, const dpart *b)
{
    dmanifold m;
    memset(&m, 0, sizeof m);
    dframe fa = dim_frame_of(a), fb = dim_frame_of(b);
    m.normal = dim_kept_normal(e, fa);
    m.count = dim_entry_count(e);
    m.depth = -INFINITY;
    const dcached_point *points = dim_entry_points(e);
    for (int i = 0; i < m.count; i++) {
        const dcached_point *cp = &points[i];
        dvec wa = dim_frame_apply(fa, cp->local_a), wb = dim_frame_apply(fb, cp->local_b);
        float depth = dv_dot(dv_sub(wa, wb), m.normal);
        m.points[i] =
            (dcontact_point){dv_scale(dv_add(wa, wb), 0.5f), depth, dim_cached_id(cp)};
        m.depth = mk_maxf(m.depth, depth);
    }
    return m;
}

#endif
