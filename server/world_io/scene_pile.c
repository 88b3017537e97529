/* The stress scene `pile:N`: N dynamic 1 m boxes stacked in columns of ten on a static ground,
 * built without a scene file, so that a load test can ask for any size of world. */
#include <stdio.h>
#include <string.h>

#include "world_io_internal.h"

#define PILE_HALF 0.5f      /* m: 1 x 1 m boxes */
#define PILE_ROWS 10        /* boxes per column; the last column takes what is left */
#define PILE_SPACING 1.05f  /* m between column centres and between row centres */
#define PILE_FIRST_Y 0.55f  /* m: the lowest row's centres, 5 cm above the ground */
#define PILE_GROUND_MARGIN 5.0f /* m of ground beyond the outer columns, for boxes that slide */
#define PILE_GROUND_HALF_H 0.5f /* m: the ground is 1 m thick, its top at y = 0 */

/* A body definition with the body spec's defaults (PROTOCOL.md, "Body spec"). */
static sim_body_def box_def(mk_vec2 half, mk_vec2 pos, sim_kind kind, const char *tag)
{
    sim_body_def d;
    memset(&d, 0, sizeof d);
    d.shape.type = COL_SHAPE_AABB;
    d.shape.half = half;
    d.pos = pos;
    d.kind = kind;
    d.density = (float)PROTO_DEFAULT_DENSITY;
    d.friction = (float)PROTO_DEFAULT_FRICTION;
    d.restitution = (float)PROTO_DEFAULT_RESTITUTION;
    d.max_speed = (float)PROTO_DEFAULT_MAX_SPEED;
    d.jump_height = (float)PROTO_DEFAULT_JUMP_HEIGHT;
    d.max_slope = SIM_DEFAULT_MAX_SLOPE;
    snprintf(d.tag, sizeof d.tag, "%s", tag);
    return d;
}

sim_world *wio_scene_pile2(int n, const sim_config *cfg, char *err, size_t errlen)
{
    /* The ground is a body too. */
    long max = (long)cfg->max_bodies - 1;
    if (n < 1 || n > max) {
        snprintf(err, errlen, "N must be a whole number in [1, %ld] (--max-bodies %u, one of "
                              "them the ground)", max < 1 ? 1 : max, cfg->max_bodies);
        return NULL;
    }
    sim_world *w = sim_world_new(cfg);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    int columns = (n + PILE_ROWS - 1) / PILE_ROWS;
    float x0 = -0.5f * PILE_SPACING * (float)(columns - 1); /* columns centred on x = 0 */
    float ground_half = -x0 + PILE_HALF + PILE_GROUND_MARGIN;
    sim_body_def ground = box_def(mk_v2(ground_half, PILE_GROUND_HALF_H),
                                  mk_v2(0.0f, -PILE_GROUND_HALF_H), SIM_STATIC, "ground");
    bool ok = sim_world_add(w, &ground, 0) != 0;
    for (int i = 0; ok && i < n; i++) {
        int column = i / PILE_ROWS, row = i % PILE_ROWS;
        mk_vec2 pos = mk_v2(x0 + PILE_SPACING * (float)column,
                            PILE_FIRST_Y + PILE_SPACING * (float)row);
        sim_body_def box = box_def(mk_v2(PILE_HALF, PILE_HALF), pos, SIM_DYNAMIC, "box");
        ok = sim_world_add(w, &box, 0) != 0;
    }
    if (!ok) {
        snprintf(err, errlen, "out of memory adding %d boxes", n);
        sim_world_free(w);
        return NULL;
    }
    return w;
}
