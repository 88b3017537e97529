/* Bodies for the world's test suites, with the defaults a scene's body gets (density 1,
 * friction 0.6, a 5 m/s run, a 1.5 m jump, the default slope): a 2D rectangle of a given shape
 * type, or a 3D body of any shape; and the checks both dimensions' worlds pass alike. */
#ifndef MINK_TEST_SIM_FIXTURE_H
#define MINK_TEST_SIM_FIXTURE_H

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body_defaults.h"
#include "mink_sim.h"

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

/* A joint of `type` between bodies a and b (0: the world), both anchors at `anchor`, its axis
 * z (the 2D plane's normal); the rest of its settings zero. */
static inline sim_joint_def fixture_joint(sim_joint_type type, sim_id a, sim_id b,
                                          mk_vec3 anchor)
{
    sim_joint_def j;
    memset(&j, 0, sizeof j);
    j.type = type;
    j.a = a;
    j.b = b;
    j.anchor_a = j.anchor_b = anchor;
    j.axis = mk_v3(0, 0, 1);
    return j;
}

/* A copy of the world made through its image (sim_world_image_copy, sim_world_from_image), as
 * durability and --save restore it. */
static inline sim_world *fixture_image_copy(const sim_world *w)
{
    size_t len = sim_world_image_size(w);
    void *image = malloc(len);
    ck_assert_ptr_nonnull(image);
    sim_world_image_copy(w, image);
    mk_error err = {0};
    sim_world *back = sim_world_from_image(image, len, &err);
    ck_assert_msg(back != NULL, "%s", err.message);
    free(image);
    return back;
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

/* Body `id`, a ball of radius 0.25 and restitution 0.8 dropped from 1 m, meets the ground at
 * 4.47 m/s and leaves at 0.8 of that: it must rise 0.8^2 * 1 = 0.64 m (within 5%) in 120 steps.
 * Prints the height it rose, after `label`. */
static inline void fixture_expect_bounce(sim_world *w, sim_id id, const char *label)
{
    bool bounced = false;
    float peak = 0.0f;
    for (int i = 0; i < 120; i++) {
        sim_world_step(w);
        float y, vy;
        fixture_height(w, id, &y, &vy);
        bounced |= vy > 0.0f;
        if (bounced)
            peak = mk_maxf(peak, y - 0.25f);
    }
    printf("%sbounce height %.4f m (0.64 expected)\n", label, (double)peak);
    ck_assert(bounced);
    ck_assert_float_eq_tol(peak, 0.64f, 0.032f);
}

/* A world with a ground whose top is y = 0. */
typedef sim_world *(*fixture_ground_world)(void);
/* A box (shape 0) or a ball (shape 1) of half size 0.5 about to land on that ground at
 * 1 + k m/s, from a height that puts the ground at another point of the step for each k. */
typedef sim_body_def (*fixture_landing_body)(int shape, int k);

/* The fast landings of `drop`'s bodies on `ground`, k from 0 to 29: each lands within 90 steps
 * and rests at y = 0.5 (within 2 mm), none going deeper than 3 mm below that, and the box
 * rising less than 2 cm above it once landed. Prints the extremes, after `label`; `box` names
 * the box. */
static inline void fixture_expect_fast_landings(fixture_ground_world ground,
                                                fixture_landing_body drop, const char *label,
                                                const char *box)
{
    float deepest = 0.0f, highest = 0.0f;
    for (int shape = 0; shape < 2; shape++) {
        for (int k = 0; k < 30; k++) {
            sim_world *w = ground();
            sim_body_def d = drop(shape, k);
            sim_id id = sim_world_add(w, &d, 0);
            bool landed = false;
            float y, vy;
            for (int i = 0; i < 90; i++) {
                sim_world_step(w);
                fixture_height(w, id, &y, &vy);
                deepest = mk_maxf(deepest, 0.5f - y);
                landed |= y < 0.51f;
                if (landed && shape == 0)
                    highest = mk_maxf(highest, y - 0.5f);
            }
            ck_assert(landed);
            fixture_height(w, id, &y, &vy);
            ck_assert_float_eq_tol(y, 0.5f, 2e-3f);
            sim_world_free(w);
        }
    }
    printf("%sfast landings: deepest %.4f m, %s hop %.4f m\n", label, (double)deepest, box,
           (double)highest);
    ck_assert_float_lt(deepest, 3e-3f);
    ck_assert_float_lt(highest, 2e-2f);
}

/* A body of world a and the body of the same id in world b. */
typedef void (*fixture_pair_check)(sim_world *a, const sim_body *x, sim_world *b,
                                   const sim_body *y);

/* Both worlds hold as many bodies, and each body of a has one of the same id in b, which
 * `check` compares with it. */
static inline void fixture_each_pair(sim_world *a, sim_world *b, fixture_pair_check check)
{
    ck_assert_uint_eq(sim_world_body_count(a), sim_world_body_count(b));
    size_t slots;
    const sim_body *ba = sim_world_slots(a, &slots);
    for (size_t i = 0; i < slots; i++) {
        if (!ba[i].id)
            continue;
        const sim_body *y = sim_world_get(b, ba[i].id);
        ck_assert_msg(y != NULL, "body %llu is missing", (unsigned long long)ba[i].id);
        check(a, &ba[i], b, y);
    }
}

#endif
