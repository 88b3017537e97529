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
 * Each helper does exactly the arithmetic the dimension's own code did, so that a world steps
 * bit for bit as before. */
#ifndef MINK_SIM_DIM_H
#define MINK_SIM_DIM_H

#include "world_internal.h"

#if !defined(MK_DIM) || (MK_DIM != 2 && MK_DIM != 3)
#error "dim.h: compile with MK_DIM=2 or MK_DIM=3"
#endif

#if MK_DIM == 2
#define DIM_NAME(f) f##2
typedef mk_vec2 dvec;
typedef col_aabb daabb;
typedef col_shape2 dshape;
typedef col_xf2 dxf;
typedef col_manifold2 dmanifold;
typedef sim_body dpart;
#define dv_add mk_v2_add
#define dv_sub mk_v2_sub
#define dv_scale mk_v2_scale
#define dv_neg mk_v2_neg
#define dv_dot mk_v2_dot
#define dv_len mk_v2_len
#define dv_mad mk_v2_mad
#define dv_norm mk_v2_norm

static inline dpart *dim_part(const sim_world *w, uint32_t slot) { return &w->bodies[slot]; }
static inline dpart *dim_part_of(const sim_world *w, const sim_body *b)
{
    (void)w;
    return (dpart *)b;
}
/* The placement of a body's part at position p. */
static inline dxf dim_xf_at(const dpart *p, dvec pos) { return (col_xf2){pos, p->angle}; }
static inline dmanifold dim_collide(const dshape *a, dxf xa, const dshape *b, dxf xb)
{
    return col_collide2(a, xa, b, xb);
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

#else /* MK_DIM == 3 */
#define DIM_NAME(f) f##3
typedef mk_vec3 dvec;
typedef col_aabb3 daabb;
typedef col_shape3 dshape;
typedef col_xf3 dxf;
typedef col_manifold3 dmanifold;
typedef sim_body3 dpart;
#define dv_add mk_v3_add
#define dv_sub mk_v3_sub
#define dv_scale mk_v3_scale
#define dv_neg mk_v3_neg
#define dv_dot mk_v3_dot
#define dv_len mk_v3_len
#define dv_mad mk_v3_mad
#define dv_norm mk_v3_norm

static inline dpart *dim_part(const sim_world *w, uint32_t slot) { return &w->bodies3[slot]; }
static inline dpart *dim_part_of(const sim_world *w, const sim_body *b)
{
    return sim_body3_of(w, b);
}
static inline dxf dim_xf_at(const dpart *p, dvec pos) { return (col_xf3){pos, p->rot}; }
static inline dmanifold dim_collide(const dshape *a, dxf xa, const dshape *b, dxf xb)
{
    return col_collide3(a, xa, b, xb);
}
static inline daabb dim_shape_bounds(const dpart *p) { return sim_body3_bounds(p); }
static inline dvec dim_half_abs(dvec v)
{
    return mk_v3(0.5f * fabsf(v.x), 0.5f * fabsf(v.y), 0.5f * fabsf(v.z));
}
static inline col_aabb3 dim_aabb3(daabb b) { return b; }
#endif

/* The contact solver's view of the dimension (solver.h):
 *   dang                     an angular velocity: a number in 2D, a vector in 3D
 *   drot                     a rotation: (cos, sin) in 2D, a unit quaternion in 3D
 *   dsolver_body, dconstraint, dconstraint_point   sim_solver_body, sim_constraint, ... or
 *                                                  their 3D forms */
#include "solver.h"

#if MK_DIM == 2
typedef float dang;
typedef mk_vec2 drot;
typedef sim_solver_body dsolver_body;
typedef sim_constraint dconstraint;
typedef sim_constraint_point dconstraint_point;
static inline sim_vec *dim_solver_bodies(sim_world *w) { return &w->solver_bodies; }
static inline sim_vec *dim_constraints(sim_world *w) { return &w->constraints; }
static inline dvec dim_gravity(const sim_world *w) { return w->cfg.gravity; }
/* v turned by q = (cos, sin). */
static inline dvec dim_rotate(drot q, dvec v)
{
    return mk_v2(q.x * v.x - q.y * v.y, q.y * v.x + q.x * v.y);
}
#else
typedef mk_vec3 dang;
typedef mk_quat drot;
typedef sim_solver_body3 dsolver_body;
typedef sim_constraint3 dconstraint;
typedef sim_constraint_point3 dconstraint_point;
static inline sim_vec *dim_solver_bodies(sim_world *w) { return &w->solver_bodies3; }
static inline sim_vec *dim_constraints(sim_world *w) { return &w->constraints3; }
static inline dvec dim_gravity(const sim_world *w) { return w->cfg.gravity3; }
static inline dvec dim_rotate(drot q, dvec v) { return mk_quat_rotate(q, v); }
#endif

#endif
