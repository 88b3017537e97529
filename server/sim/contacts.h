/* The narrowphase's parts, for the files compiled with MK_DIM (dim.h): the pass over the pairs
 * is one source for both dimensions (contacts.c); what each dimension's manifolds and cache
 * entries do in their own arithmetic is in contacts2.c and contacts3.c (whether a pair keeps
 * last step's manifold, the constraint's points from the manifold, the 3D persistent manifold
 * and box test). The small picks the pass makes per pair and per point (a cache entry's points,
 * a body's frame, the constraint list's bookkeeping) are inline below, per dimension, so that
 * they cost what they cost in one file. */
#ifndef MINK_SIM_CONTACTS_H
#define MINK_SIM_CONTACTS_H

#include <float.h>

#include "body_rules.h"
#include "broadphase.h"
#include "contact_cache.h"
#include "dim.h"
#include "solver.h"

#define SIM_MATCH_DISTANCE 0.05f /* m: a new point continues an old one this close */
#define SIM_KEEP_MOVE 1e-3f      /* m: see sim_kept_manifold2 and sim_kept_manifold3 */

/* ---- each dimension's own (contacts2.c, contacts3.c) ---- */

/* Whether last step's manifold of the pair, in its cache entry e (NULL: none), still holds
 * because the pair has hardly moved in A's frame since it was computed (Jolt's body pair
 * cache): a resting pile is not collided again every step. */
bool sim_kept_manifold2(const sim_world *w, const sim_cache_entry *e, const sim_body *a,
                        const sim_body *b);
bool sim_kept_manifold3(const sim_world *w, const sim_cache_entry3 *e, const sim_body3 *a,
                        const sim_body3 *b);
/* The constraint's normal and points at the manifold m, warm-started from the pair's cache
 * entry, which takes this step's points (a kept manifold's points are the entry's, one for
 * one, and so are their impulses); false when it has none to solve. */
bool sim_fill_points2(sim_world *w, sim_constraint *c, sim_cache_entry *next, const sim_body *a,
                      const sim_body *b, const col_manifold2 *m, bool kept);
bool sim_fill_points3(sim_world *w, sim_constraint3 *c, sim_cache_entry3 *entry,
                      const sim_body3 *a, const sim_body3 *b, const col_manifold3 *m, bool kept);
/* Whether two boxes are surely farther apart than `margin` (contacts3.c). */
bool sim_boxes_apart3(const sim_body3 *a, const sim_body3 *b, float margin);

#define dim_kept_manifold DIM_NAME(sim_kept_manifold)
#define dim_fill_points DIM_NAME(sim_fill_points)

#if MK_DIM == 2
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

/* Prepares constraint k of the list: its masses and its movable ends for the wide solver's
 * coloring, while it is at hand. Writes only its own. */
static inline void dim_finish_constraint(sim_world *w, sim_constraint *c, size_t k)
{
    sim_prepare_constraint2(w->d2.solver_bodies.at, c);
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
/* B shifted toward A needs only the points within the speculative reach. */
#define DIM_SHIFTED_MARGIN SIM_SPECULATIVE

static inline col_xf3 sim_body_xf3(const sim_body3 *b3) { return (col_xf3){b3->pos, b3->rot}; }

/* Two boxes that sim_boxes_apart3 finds farther apart than the speculative reach:
 * speculative_collide would find nothing. */
static inline bool dim_surely_apart(const sim_body3 *a, const sim_body3 *b)
{
    return a->shape.type == COL_SHAPE3_BOX && b->shape.type == COL_SHAPE3_BOX &&
           sim_boxes_apart3(a, b, SIM_SPECULATIVE);
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

#endif
