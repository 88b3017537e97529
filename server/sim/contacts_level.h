/* Level bodies in the step (contacts_level.c, compiled for both dimensions with dim.h): a
 * shape against the pieces of a level (triangles, segments) near it, the narrowphase's pass
 * over the pairs with a level body, and the one manifold the sweeps and the characters' ground
 * snap ask for. */
#ifndef MINK_SIM_CONTACTS_LEVEL_H
#define MINK_SIM_CONTACTS_LEVEL_H

#include "dim.h"
#include "level.h"

typedef DIM_PICK(col_child_manifold2, col_child_manifold3) dchild;

/* The placement of a body's level (its body's). */
static inline dxf dim_level_xf(const sim_world *w, const sim_body *lb)
{
    return dim_xf_at(dim_part_of(w, lb), dim_part_of(w, lb)->pos);
}

/* Shape s placed at xs against the pieces of level body lb near it: the manifolds (normal
 * from the level toward the shape) of the pieces that touch or are within `margin`, the first
 * cap written to out; returns how many there are. `motion`: the shape's velocity relative to
 * the level (3D: Jolt's active-edge rule; any scale); `back`: which side of a triangle
 * collides (3D; a 2D chain is one-sided, a segment two-sided). */
uint32_t DIM_NAME(sim_level_collide)(const sim_world *w, const sim_body *lb, const dshape *s,
                                     dxf xs, dvec motion, col_back_face back, float margin,
                                     dchild *out, uint32_t cap);

/* The deepest of those manifolds (count 0 with the smallest gap when none touches), normal
 * from the shape toward the level: the manifold col_collide2/3 of the shape and a convex body
 * would give. */
dmanifold DIM_NAME(sim_level_deepest)(const sim_world *w, const sim_body *lb, const dshape *s,
                                      dxf xs, dvec motion, col_back_face back, float margin);

/* The narrowphase's first pass: collides every pair of the broadphase's pairs that has a
 * level body, is not resting, is not the characters' and whose tight bounds overlap; their
 * manifolds (normal from the pair's lower id to the higher, speculative points within
 * SIM_SPECULATIVE, in 3D those of one pair with normals within SIM_LEVEL_MERGE_COS merged as
 * Jolt reduces a body pair's manifolds) go to solver.level_children and their spans, in the
 * pairs' order, to solver.level_spans. Returns the manifolds' count; false in *ok when memory
 * ran out (the pairs after it get none). */
size_t DIM_NAME(sim_level_pairs)(sim_world *w, bool *ok);

#define sim_level_collide_dim DIM_NAME(sim_level_collide)
#define sim_level_deepest_dim DIM_NAME(sim_level_deepest)

#endif
