/* Level bodies inside the world (level.c, level_file.c, contacts_level.c): the level handle's
 * layout, and what the step, the sweeps and the queries ask of a level body. */
#ifndef MINK_SIM_LEVEL_H
#define MINK_SIM_LEVEL_H

#include "mink_sim.h"

struct sim_level {
    int refs;
    sim_level_kind kind;
    uint8_t key[SIM_LEVEL_KEY];
    col_segment2 segment;
    col_chain2 chain;
    col_mesh3 mesh;
    col_heightfield3 hf;
};

/* A 3D level as the collision library's queries take it. */
static inline col_level3 sim_level_3d(const sim_level *l)
{
    return (col_level3){l->kind == SIM_LEVEL_MESH ? &l->mesh : NULL,
                        l->kind == SIM_LEVEL_HEIGHTFIELD ? &l->hf : NULL};
}

/* The level's bounds placed at x2 (2D, in 3D form with z = 0) or x3 (3D). */
col_aabb3 sim_level_bounds(const sim_level *l, col_xf2 x2, col_xf3 x3);

/* The placeholder shape of a level body (sim_body.level): 1 mm, never collided. In 3D a box,
 * so that the narrowphase's manifold rules take a level's triangle as a polytope's face. */
#define SIM_LEVEL_PLACEHOLDER2 ((col_shape2){.type = COL_SHAPE_AABB, .half = {COL_MIN_HALF, COL_MIN_HALF}})
#define SIM_LEVEL_PLACEHOLDER3                                                                 \
    ((col_shape3){.type = COL_SHAPE3_BOX, .half = {COL_MIN_HALF, COL_MIN_HALF, COL_MIN_HALF}})

/* Jolt's contact normal tolerance for merging the manifolds of one body pair's triangles
 * (cos 2 degrees, PhysicsSettings::mContactNormalCosMaxDeltaRotation). */
#define SIM_LEVEL_MERGE_COS 0.99939083f
/* m/s: a body slower than this against a level is still to the active-edge rule
 * (contacts_level.c). */
#define SIM_LEVEL_STILL_SPEED 0.1f
/* Child manifolds of one body pair against a level kept at most (after merging in 3D): a body
 * lying across more pieces than this keeps the first ones found. */
#define SIM_LEVEL_MAX_CHILDREN 64

/* Whether body b's shape overlaps a piece of level body lb, or is at most `within` m from one,
 * where both are now (contacts_level.c, one per dimension): what a sensor sees of a level. */
bool sim_level_overlaps2(const sim_world *w, const sim_body *lb, const sim_body *b, float within);
bool sim_level_overlaps3(const sim_world *w, const sim_body *lb, const sim_body *b, float within);

#endif
