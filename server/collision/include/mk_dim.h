/* The dimension's vector arithmetic, for a source written once and compiled twice (MK_DIM=2
 * and MK_DIM=3), the way parry builds parry2d and parry3d from one source and Box2D and Jolt
 * pick their number type with one macro. DIM_PICK(two, three) chooses between the two
 * dimensions' forms side by side; DIM_NAME(f) gives each compilation's functions their
 * dimension's suffix (f2, f3). The world adds its own names in server/sim/dim.h. */
#ifndef MK_DIM_H
#define MK_DIM_H

#include "mk_math.h"
#include "mk_math3.h"

#if !defined(MK_DIM) || (MK_DIM != 2 && MK_DIM != 3)
#error "mk_dim.h: compile with MK_DIM=2 or MK_DIM=3"
#endif

#if MK_DIM == 2
#define DIM_PICK(two, three) two
#define DIM_NAME(f) f##2
#else
#define DIM_PICK(two, three) three
#define DIM_NAME(f) f##3
#endif

typedef DIM_PICK(mk_vec2, mk_vec3) dvec;

#define dv_add DIM_PICK(mk_v2_add, mk_v3_add)
#define dv_sub DIM_PICK(mk_v2_sub, mk_v3_sub)
#define dv_scale DIM_PICK(mk_v2_scale, mk_v3_scale)
#define dv_neg DIM_PICK(mk_v2_neg, mk_v3_neg)
#define dv_dot DIM_PICK(mk_v2_dot, mk_v3_dot)
#define dv_len DIM_PICK(mk_v2_len, mk_v3_len)
#define dv_mad DIM_PICK(mk_v2_mad, mk_v3_mad)
#define dv_norm DIM_PICK(mk_v2_norm, mk_v3_norm)

/* Whether every component of v is zero. */
static inline bool dv_is_zero(dvec v)
{
    return DIM_PICK(v.x == 0.0f && v.y == 0.0f, v.x == 0.0f && v.y == 0.0f && v.z == 0.0f);
}

#endif
