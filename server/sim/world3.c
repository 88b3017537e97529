/* A 3D world's bodies: their shapes, placements and mass properties, beside the common part of
 * each body (sim_body) at the same slot. */
#include <stdlib.h>
#include <string.h>

#include "world_internal.h"

bool sim_place_body3(sim_world *w, const sim_body_def *def, uint32_t slot)
{
    const sim_body_def3 *d = &def->d3;
    col_hull3 *hull = NULL;
    if (d->shape.type == COL_SHAPE3_HULL) {
        if ((hull = malloc(sizeof *hull)) == NULL)
            return false;
        *hull = d->hull;
    }
    sim_body3 *b3 = sim_part3(w, slot);
    memset(b3, 0, sizeof *b3);
    b3->shape = d->shape;
    b3->shape.hull = hull;
    b3->hull = hull;
    b3->pos = d->pos;
    b3->vel = def->kind == SIM_STATIC ? mk_v3(0.0f, 0.0f, 0.0f) : d->vel;
    b3->rot = d->rot;
    return true;
}

col_aabb3 sim_body_bounds3(const sim_body3 *b3)
{
    return col_shape3_bounds(&b3->shape, (col_xf3){b3->pos, b3->rot});
}
