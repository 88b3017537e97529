/* The 3D stress scene `pile3d:N`: N dynamic 1 m cubes in columns of ten on a square grid, on a
 * static ground, built without a scene file. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "world_io_internal.h"

#define PILE3_HALF 0.5f
#define PILE3_ROWS 10
#define PILE3_SPACING 1.05f
#define PILE3_FIRST_Y 0.55f
#define PILE3_GROUND_MARGIN 5.0f
#define PILE3_GROUND_HALF_H 0.5f

static void cube_def(sim_body_def *d, mk_vec3 half, mk_vec3 pos, sim_kind kind, const char *tag)
{
    memset(d, 0, offsetof(sim_body_def, d3) + offsetof(sim_body_def3, hull));
    d->d3.shape.type = COL_SHAPE3_BOX;
    d->d3.shape.half = half;
    d->d3.pos = pos;
    d->d3.vel = mk_v3(0.0f, 0.0f, 0.0f);
    d->d3.rot = mk_quat_identity();
    d->kind = kind;
    d->density = (float)PROTO_DEFAULT_DENSITY;
    d->friction = (float)PROTO_DEFAULT_FRICTION;
    d->restitution = (float)PROTO_DEFAULT_RESTITUTION;
    d->max_speed = (float)PROTO_DEFAULT_MAX_SPEED;
    d->jump_height = (float)PROTO_DEFAULT_JUMP_HEIGHT;
    d->max_slope = SIM_DEFAULT_MAX_SLOPE;
    snprintf(d->tag, sizeof d->tag, "%s", tag);
}

sim_world *wio_scene_pile3(int n, const sim_config *cfg, char *err, size_t errlen)
{
    long max = (long)cfg->max_bodies - 1;
    if (n < 1 || n > max) {
        snprintf(err, errlen, "N must be a whole number in [1, %ld] (--max-bodies %u, one of "
                              "them the ground)", max < 1 ? 1 : max, cfg->max_bodies);
        return NULL;
    }
    sim_config c = *cfg;
    c.dim = 3;
    sim_world *w = sim_world_new(&c);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    int columns = (n + PILE3_ROWS - 1) / PILE3_ROWS;
    int side = (int)ceil(sqrt((double)columns)); /* columns per row of the grid */
    float c0 = -0.5f * PILE3_SPACING * (float)(side - 1); /* the grid centred on x = z = 0 */
    float ground_half = -c0 + PILE3_HALF + PILE3_GROUND_MARGIN;
    sim_body_def def; /* with a hull's room (15 KB): one, reused for every body */
    cube_def(&def, mk_v3(ground_half, PILE3_GROUND_HALF_H, ground_half),
             mk_v3(0.0f, -PILE3_GROUND_HALF_H, 0.0f), SIM_STATIC, "ground");
    bool ok = sim_world_add(w, &def, 0) != 0;
    for (int i = 0; ok && i < n; i++) {
        int column = i / PILE3_ROWS, row = i % PILE3_ROWS;
        mk_vec3 pos = mk_v3(c0 + PILE3_SPACING * (float)(column % side),
                            PILE3_FIRST_Y + PILE3_SPACING * (float)row,
                            c0 + PILE3_SPACING * (float)(column / side));
        cube_def(&def, mk_v3(PILE3_HALF, PILE3_HALF, PILE3_HALF), pos, SIM_DYNAMIC, "box");
        ok = sim_world_add(w, &def, 0) != 0;
    }
    if (!ok) {
        snprintf(err, errlen, "out of memory adding %d cubes", n);
        sim_world_free(w);
        return NULL;
    }
    return w;
}
