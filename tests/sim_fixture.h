/* Bodies for the world's test suites, with the defaults a scene's body gets (density 1,
 * friction 0.6, a 5 m/s run, a 1.5 m jump, the default slope): a 2D rectangle of a given shape
 * type, or a 3D body of any shape. */
#ifndef MINK_TEST_SIM_FIXTURE_H
#define MINK_TEST_SIM_FIXTURE_H

#include <stdbool.h>
#include <string.h>

#include "mink_sim.h"

static inline void fixture_defaults(sim_body_def *d, sim_kind kind)
{
    d->kind = kind;
    d->density = 1.0f;
    d->friction = 0.6f;
    d->max_speed = 5.0f;
    d->jump_height = 1.5f;
    d->max_slope = SIM_DEFAULT_MAX_SLOPE;
}

static inline sim_body_def fixture_rect(col_shape_type type, sim_kind kind, float x, float y,
                                        float hx, float hy)
{
    sim_body_def d;
    memset(&d, 0, sizeof d);
    d.shape.type = type;
    d.shape.half = mk_v2(hx, hy);
    d.pos = mk_v2(x, y);
    fixture_defaults(&d, kind);
    return d;
}

/* A 3D body in *d (15 KB with a hull's room: callers keep one and reuse it). */
static inline sim_body_def *fixture_body3(sim_body_def *d, col_shape3 shape, sim_kind kind,
                                          mk_vec3 pos)
{
    memset(d, 0, sizeof *d);
    d->d3.shape = shape;
    d->d3.pos = pos;
    d->d3.rot = mk_quat_identity();
    fixture_defaults(d, kind);
    return d;
}

/* The height of body `id`'s centre and its vertical speed, in either dimension. */
static inline void fixture_height(sim_world *w, sim_id id, float *y, float *vy)
{
    const sim_body *b = sim_world_get(w, id);
    if (sim_world_dim(w) == 3) {
        const sim_body3 *b3 = sim_body3_of(w, b);
        *y = b3->pos.y;
        *vy = b3->vel.y;
    } else {
        *y = b->pos.y;
        *vy = b->vel.y;
    }
}

/* Steps the world `steps` times, following body `id`: true when it moved up at some step, and
 * then *peak is the highest its centre rose, less `radius`. */
static inline bool fixture_bounce(sim_world *w, sim_id id, float radius, int steps, float *peak)
{
    bool bounced = false;
    *peak = 0.0f;
    for (int i = 0; i < steps; i++) {
        sim_world_step(w);
        float y, vy;
        fixture_height(w, id, &y, &vy);
        bounced |= vy > 0.0f;
        if (bounced)
            *peak = mk_maxf(*peak, y - radius);
    }
    return bounced;
}

/* Steps the world `steps` times, following body `id`, whose centre rests at y = 0.5: true when
 * it came within a centimetre of that; *deepest grows to the most it went below it and, when
 * hop is not NULL, *hop to the most it rose above it once landed. */
static inline bool fixture_landing(sim_world *w, sim_id id, int steps, float *deepest, float *hop)
{
    bool landed = false;
    for (int i = 0; i < steps; i++) {
        sim_world_step(w);
        float y, vy;
        fixture_height(w, id, &y, &vy);
        *deepest = mk_maxf(*deepest, 0.5f - y);
        landed |= y < 0.51f;
        if (landed && hop)
            *hop = mk_maxf(*hop, y - 0.5f);
    }
    return landed;
}

#endif
