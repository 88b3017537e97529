/* The stress scenes `pile:N` and `pile3d:N`: N dynamic 1 m boxes (cubes in 3D) stacked in
 * columns of ten on a static ground, built without a scene file, so that a load test can ask
 * for any size of world. The 2D columns stand in a row along x; the 3D ones on a square grid
 * in x and z. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "world_io_internal.h"

#define PILE_HALF 0.5f      /* m: 1 m boxes */
#define PILE_ROWS 10        /* boxes per column; the last column takes what is left */
#define PILE_SPACING 1.05f  /* m between column centres and between row centres */
#define PILE_FIRST_Y 0.55f  /* m: the lowest row's centres, 5 cm above the ground */
#define PILE_GROUND_MARGIN 5.0f /* m of ground beyond the outer columns, for boxes that slide */
#define PILE_GROUND_HALF_H 0.5f /* m: the ground is 1 m thick, its top at y = 0 */

/* A box with the body spec's defaults (PROTOCOL.md, "Body spec"): an aabb in 2D (z of half
 * and pos unused), a box in 3D. The definition is reused for every body, so only the part
 * before the 3D hull's room (15 KB) is cleared; a 2D world reads no 3D field. */
static void box_def(sim_body_def *d, int dim, mk_vec3 half, mk_vec3 pos, sim_kind kind,
                    const char *tag)
{
    memset(d, 0, offsetof(sim_body_def, d3) + offsetof(sim_body_def3, hull));
    if (dim == 3) {
        d->d3.shape.type = COL_SHAPE3_BOX;
        d->d3.shape.half = half;
        d->d3.pos = pos;
        d->d3.vel = mk_v3(0.0f, 0.0f, 0.0f);
        d->d3.rot = mk_quat_identity();
    } else {
        d->shape.type = COL_SHAPE_AABB;
        d->shape.half = mk_v2(half.x, half.y);
        d->pos = mk_v2(pos.x, pos.y);
    }
    d->kind = kind;
    d->density = (float)PROTO_DEFAULT_DENSITY;
    d->friction = (float)PROTO_DEFAULT_FRICTION;
    d->restitution = (float)PROTO_DEFAULT_RESTITUTION;
    d->max_speed = (float)PROTO_DEFAULT_MAX_SPEED;
    d->jump_height = (float)PROTO_DEFAULT_JUMP_HEIGHT;
    d->max_slope = SIM_DEFAULT_MAX_SLOPE;
    snprintf(d->tag, sizeof d->tag, "%s", tag);
}

static sim_world *pile(int dim, int n, const sim_config *cfg, mk_error *err)
{
    long max = (long)cfg->max_bodies - 1; /* the ground is a body too */
    if (n < 1 || n > max) {
        mk_fail(err, MK_ERR_INVALID,
                "N must be a whole number in [1, %ld] (--max-bodies %u, one of "
                              "them the ground)", max < 1 ? 1 : max, cfg->max_bodies);
        return NULL;
    }
    sim_config c = *cfg;
    c.dim = dim;
    sim_world *w = sim_world_new(&c);
    if (!w) {
        mk_fail(err, MK_ERR_INVALID, "out of memory");
        return NULL;
    }
    int columns = (n + PILE_ROWS - 1) / PILE_ROWS;
    /* Columns per row: all of them in 2D, a square grid's side in 3D. */
    int side = dim == 3 ? (int)ceil(sqrt((double)columns)) : columns;
    float c0 = -0.5f * PILE_SPACING * (float)(side - 1); /* centred on x = 0 (and z = 0) */
    float ground_half = -c0 + PILE_HALF + PILE_GROUND_MARGIN;
    sim_body_def def;
    box_def(&def, dim, mk_v3(ground_half, PILE_GROUND_HALF_H, ground_half),
            mk_v3(0.0f, -PILE_GROUND_HALF_H, 0.0f), SIM_STATIC, "ground");
    bool ok = sim_world_add(w, &def, 0) != 0;
    for (int i = 0; ok && i < n; i++) {
        int column = i / PILE_ROWS, row = i % PILE_ROWS;
        mk_vec3 pos = mk_v3(c0 + PILE_SPACING * (float)(column % side),
                            PILE_FIRST_Y + PILE_SPACING * (float)row,
                            c0 + PILE_SPACING * (float)(column / side));
        box_def(&def, dim, mk_v3(PILE_HALF, PILE_HALF, PILE_HALF), pos, SIM_DYNAMIC, "box");
        ok = sim_world_add(w, &def, 0) != 0;
    }
    if (!ok) {
        mk_fail(err, MK_ERR_INVALID, "out of memory adding %d boxes", n);
        sim_world_free(w);
        return NULL;
    }
    return w;
}

sim_world *wio_scene_pile2(int n, const sim_config *cfg, mk_error *err)
{
    return pile(2, n, cfg, err);
}

sim_world *wio_scene_pile3(int n, const sim_config *cfg, mk_error *err)
{
    return pile(3, n, cfg, err);
}
