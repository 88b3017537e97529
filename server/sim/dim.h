/* One source for both dimensions. A file that does the same job in 2D and 3D is written once
 * against the names below and compiled twice, with MK_DIM=2 and MK_DIM=3 (CMake's
 * mink_sim_dim2 and mink_sim_dim3 object libraries), the way parry builds parry2d and parry3d
 * from one source and Box2D and Jolt pick their number type with one macro. DIM_NAME(f) gives
 * each compilation's functions their dimension's suffix: sim_sweep2 and sim_sweep3.
 *
 * The names:
 *   dvec, daabb, dshape, dxf, dmanifold   the dimension's vector, box, shape, placement and
 *                                         contact manifold (col_*2 or col_*3)
 *   dpart                                 the part of a body that holds its placement: the
 *                                         body itself in 2D, its sim_body3 in 3D
 *   dv_*                                  vector arithmetic (mk_v2_* or mk_v3_*)
 *   dcontact, dcache_entry, dconstraint,  the narrowphase's reported contact, contact cache
 *   dsolver_body, dsolver_info            entry, solver constraint and solver body (the 2D
 *                                         sim_* types or their sim_*3 twins)
 *   dang, drot, dconstraint_point         an angular velocity (a number in 2D, a vector in 3D),
 *                                         a rotation ((cos, sin) or a unit quaternion), a
 *                                         solver constraint's point
 *   ddim, dim_of(w)                       the world's arrays of the dimension (sim_dim2 or
 *                                         sim_dim3: bounds, contacts, constraints, solver
 *                                         bodies, under the same names)
 * DIM_PICK(two, three) (mk_dim.h, with dvec and dv_*) chooses between the two dimensions'
 * forms; #if blocks remain only where a helper's arithmetic differs. Each helper does exactly
 * the arithmetic the dimension's own code did, so that a world steps bit for bit as before. */
#ifndef MINK_SIM_DIM_H
#define MINK_SIM_DIM_H

#include "broadphase.h"
#include "mk_dim.h"
#include "solver.h"
#include "world_internal.h"

/* Geometry and bodies. */
typedef DIM_PICK(col_aabb, col_aabb3) daabb;
typedef DIM_PICK(col_shape2, col_shape3) dshape;
typedef DIM_PICK(col_xf2, col_xf3) dxf;
typedef DIM_PICK(col_manifold2, col_manifold3) dmanifold;
typedef DIM_PICK(sim_body, sim_body3) dpart;
#define dim_collide DIM_PICK(col_collide2, col_collide3)
#define dim_is_ground DIM_PICK(sim_is_ground2, sim_is_ground3)

/* The narrowphase's contacts and cache entries, the solver's constraints and bodies. */
typedef DIM_PICK(sim_contact2, sim_contact3) dcontact;
typedef DIM_PICK(sim_cache_entry, sim_cache_entry3) dcache_entry;
typedef DIM_PICK(sim_constraint, sim_constraint3) dconstraint;
typedef DIM_PICK(sim_constraint_point, sim_constraint_point3) dconstraint_point;
typedef DIM_PICK(sim_solver_body, sim_solver_body3) dsolver_body;
typedef DIM_PICK(sim_solver_info, sim_solver_info3) dsolver_info;
/* An angular velocity (a number in 2D, a vector in 3D) and a rotation ((cos, sin) in 2D). */
typedef DIM_PICK(float, mk_vec3) dang;
typedef DIM_PICK(mk_vec2, mk_quat) drot;

/* The world's arrays of the dimension (sim_dim2 or sim_dim3: the same names, the items of
 * the dimension), and the parts of the bodies: the body itself in 2D, its sim_body3 in 3D. */
typedef DIM_PICK(sim_dim2, sim_dim3) ddim;
static inline ddim *dim_of(sim_world *w) { return &DIM_PICK(w->d2, w->d3); }
static inline dpart *dim_part(const sim_world *w, uint32_t slot)
{
    return &DIM_PICK(w->slots.bodies.at, w->d3.bodies.at)[slot];
}
/* The moving bodies in the order each dimension's passes walk them: slot order in 2D, by
 * bounds min x in 3D; *n gets how many. */
static inline const uint32_t *dim_movers(const sim_world *w, size_t *n)
{
    *n = DIM_PICK(w->broad.movers, w->broad.order).v.len;
    return DIM_PICK(w->broad.movers, w->broad.order).at;
}
static inline dvec dim_gravity(const sim_world *w)
{
    return DIM_PICK(w->cfg.gravity, w->cfg.gravity3);
}

/* The placement of a body's part at position p. */
static inline dxf dim_xf_at(const dpart *p, dvec pos)
{
    return (dxf){pos, DIM_PICK(p->angle, p->rot)};
}

/* Whether a listed pair may have a sleeping body: the broadphase notes it in both dimensions
 * as it lists the pairs (broadphase.c), and lists them anew whenever a body sleeps or wakes. */
static inline bool dim_pairs_may_sleep(const sim_world *w) { return w->broad.pairs_sleeper; }

#if MK_DIM == 2
static inline dpart *dim_part_of(const sim_world *w, const sim_body *b)
{
    (void)w;
    return (dpart *)b;
}
static inline daabb dim_shape_bounds(const dpart *p)
{
    return col_shape_bounds(&p->shape, dim_xf_at(p, p->pos));
}
/* The half extents |v| / 2 of a motion v. */
static inline dvec dim_half_abs(dvec v) { return mk_v2(0.5f * fabsf(v.x), 0.5f * fabsf(v.y)); }
/* A box in the world's 3D form: z = 0, no depth. */
static inline col_aabb3 dim_aabb3(daabb b)
{
    return (col_aabb3){mk_v3(b.center.x, b.center.y, 0.0f), mk_v3(b.half.x, b.half.y, 0.0f)};
}
/* A box of the world's 3D form (region.c) in the dimension's own. */
static inline daabb dim_aabb_of3(col_aabb3 b)
{
    return (col_aabb){mk_v2(b.center.x, b.center.y), mk_v2(b.half.x, b.half.y)};
}
static inline dvec dim_splat(float s) { return mk_v2(s, s); }
/* Whether box `inner` lies within box `outer` (touching counts). */
static inline bool dim_aabb_contains(const daabb *outer, const daabb *inner)
{
    return fabsf(inner->center.x - outer->center.x) + inner->half.x <= outer->half.x &&
           fabsf(inner->center.y - outer->center.y) + inner->half.y <= outer->half.y;
}
/* Writes a box's low and high edge on each axis at index i of lo[axis] and hi[axis]. */
static inline void dim_aabb_edges(const daabb *b, float *lo[2], float *hi[2], size_t i)
{
    lo[0][i] = b->center.x - b->half.x;
    hi[0][i] = b->center.x + b->half.x;
    lo[1][i] = b->center.y - b->half.y;
    hi[1][i] = b->center.y + b->half.y;
}
/* Whether the tight bounds of two slots overlap (the narrowphase's first test). */
static inline bool dim_tight_overlap(const sim_world *w, uint32_t a, uint32_t b)
{
    const col_aabb *t = w->d2.tight.at;
    return fabsf(t[a].center.x - t[b].center.x) <= t[a].half.x + t[b].half.x &&
           fabsf(t[a].center.y - t[b].center.y) <= t[a].half.y + t[b].half.y;
}
/* The solver's body at rest, and the rest of it (no mass, no inertia). */
static inline dsolver_body dim_solver_rest(void) { return (sim_solver_body){.dq = {1.0f, 0.0f}}; }
static inline dsolver_info dim_solver_info_rest(void) { return (sim_solver_info){0.0f, 0.0f, 0}; }
/* A moving body's inverse inertia as the solver takes it. */
static inline float dim_solver_inv_inertia(const sim_body *b, const dpart *p)
{
    (void)p;
    return b->inv_inertia;
}
/* The manifold of a and b with b placed at bpos, whose points and depth are exact only for
 * shapes closer than `margin` (col_collide2_near_q). */
static inline dmanifold dim_collide_within(const dpart *a, const dpart *b, dvec bpos,
                                           float margin)
{
    return col_collide2_near_q(&a->shape, (col_xf2){a->pos, a->angle}, sim_body_rot2(a),
                               &b->shape, (col_xf2){bpos, b->angle}, sim_body_rot2(b), margin);
}
/* Whether a and b touch (a pair apart needs no exact gap). */
static inline bool dim_touching(const dpart *a, const dpart *b)
{
    return dim_collide_within(a, b, b->pos, 0.0f).count > 0;
}
/* Whether a position lies within `bounds` m of the origin on every axis. */
static inline bool dim_within(dvec p, float bounds)
{
    return fabsf(p.x) <= bounds && fabsf(p.y) <= bounds;
}
/* v turned by q = (cos, sin). */
static inline dvec dim_rotate(drot q, dvec v)
{
    return mk_v2(q.x * v.x - q.y * v.y, q.y * v.x + q.x * v.y);
}

#else /* MK_DIM == 3 */
static inline dpart *dim_part_of(const sim_world *w, const sim_body *b)
{
    return sim_part3(w, (uint32_t)(b - w->slots.bodies.at));
}
static inline daabb dim_shape_bounds(const dpart *p) { return sim_body_bounds3(p); }
static inline dvec dim_half_abs(dvec v)
{
    return mk_v3(0.5f * fabsf(v.x), 0.5f * fabsf(v.y), 0.5f * fabsf(v.z));
}
static inline col_aabb3 dim_aabb3(daabb b) { return b; }
static inline daabb dim_aabb_of3(col_aabb3 b) { return b; }
static inline dvec dim_splat(float s) { return mk_v3(s, s, s); }
static inline bool dim_aabb_contains(const daabb *outer, const daabb *inner)
{
    return sim_aabb3_contains(outer, inner);
}
static inline void dim_aabb_edges(const daabb *b, float *lo[3], float *hi[3], size_t i)
{
    for (int k = 0; k < 3; k++) {
        float c = k == 0 ? b->center.x : k == 1 ? b->center.y : b->center.z;
        float h = k == 0 ? b->half.x : k == 1 ? b->half.y : b->half.z;
        lo[k][i] = c - h;
        hi[k][i] = c + h;
    }
}
static inline bool dim_tight_overlap(const sim_world *w, uint32_t a, uint32_t b)
{
    const col_aabb3 *t = w->d3.tight.at;
    return sim_aabb3_overlap(&t[a], &t[b]);
}
static inline dsolver_body dim_solver_rest(void)
{
    return (sim_solver_body3){.dq = mk_quat_identity()};
}
static inline dsolver_info dim_solver_info_rest(void)
{
    return (sim_solver_info3){0.0f, mk_m3_diag(0.0f, 0.0f, 0.0f), 0};
}
/* I_world^-1 = R I_body^-1 R^T */
static inline mk_mat3 dim_solver_inv_inertia(const sim_body *b, const dpart *p)
{
    (void)b;
    mk_mat3 r = mk_m3_from_quat(p->rot);
    return mk_m3_mul(mk_m3_mul(r, p->inv_inertia), mk_m3_transpose(r));
}
#define SIM_FACE_BIAS 0.005f /* m: see col_collide3_within */
static inline dmanifold dim_collide_within(const dpart *a, const dpart *b, dvec bpos,
                                           float margin)
{
    return col_collide3_within(&a->shape, dim_xf_at(a, a->pos), &b->shape, dim_xf_at(b, bpos),
                               margin, SIM_FACE_BIAS);
}
static inline bool dim_touching(const dpart *a, const dpart *b)
{
    return dim_collide(&a->shape, dim_xf_at(a, a->pos), &b->shape, dim_xf_at(b, b->pos)).count >
           0;
}
static inline bool dim_within(dvec p, float bounds)
{
    return fabsf(p.x) <= bounds && fabsf(p.y) <= bounds && fabsf(p.z) <= bounds;
}
static inline dvec dim_rotate(drot q, dvec v) { return mk_quat_rotate(q, v); }
#endif

#endif
