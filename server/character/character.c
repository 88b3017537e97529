/* The character rules (mink_character.h), one source for both dimensions (mk_dim.h: compiled
 * with MK_DIM=2 and MK_DIM=3). The server's world and the predicting client call these same
 * functions, so that a prediction differs from the server only where its picture of the world
 * does. */
#include <math.h>

#include "mink_character.h"
#include "mk_dim.h"

typedef DIM_NAME(chr_mover) mover;

#if MK_DIM == 2
mk_vec2 chr_up2(mk_vec2 gravity)
{
    return mk_v2_neg(mk_v2_norm(gravity));
}

float chr_jump_speed(float g, float jump_height)
{
    return sqrtf(2.0f * g * jump_height);
}
#else
mk_vec3 chr_up3(mk_vec3 gravity)
{
    float len = mk_v3_len(gravity);
    return len > 0.0f ? mk_v3_scale(gravity, -1.0f / len) : mk_v3(0.0f, 0.0f, 0.0f);
}
#endif

dvec DIM_NAME(chr_horizontal)(dvec v, dvec up)
{
    return dv_mad(v, -dv_dot(v, up), up);
}

/* Moves `vel` toward `target` by at most `max_dv`. */
static dvec approach(dvec vel, dvec target, float max_dv)
{
    dvec dv = dv_sub(target, vel);
    float len = dv_len(dv);
    if (len > max_dv && len > 0.0f)
        dv = dv_scale(dv, max_dv / len);
    return dv_add(vel, dv);
}

dvec DIM_NAME(chr_steer)(dvec vel, dvec move, float max_speed, dvec up, bool grounded, float dt)
{
    dvec target = dv_scale(DIM_NAME(chr_horizontal)(move, up), max_speed);
    dvec vel_h = DIM_NAME(chr_horizontal)(vel, up);
    float ramp = grounded || dv_is_zero(up) ? CHR_RAMP_TIME_GROUND : CHR_RAMP_TIME_AIR;
    dvec new_h = approach(vel_h, target, max_speed * dt / ramp);
    return dv_add(vel, dv_sub(new_h, vel_h));
}

dvec DIM_NAME(chr_jump)(dvec vel, dvec up, float v_up)
{
    return dv_mad(DIM_NAME(chr_horizontal)(vel, up), v_up, up);
}

bool DIM_NAME(chr_is_ground)(dvec push_dir, dvec up, float max_slope)
{
    return dv_dot(push_dir, up) >= cosf(max_slope);
}

/* A character on walkable ground that it alone is pushed out of. The exit vector of "2D
 * Collisions with Minkowski Differences" for a body moving along a slope is the velocity
 * projected onto the hit edge; for a character the useful exit is straight up by
 * depth / cos(slope), which takes it out of a planar slope exactly and keeps its horizontal
 * run. It walks up and down slopes at its running speed and does not slide down them (or
 * jitter) while standing. The relative velocity into the ground along up is removed, so it
 * rides what it stands on. */
static float stand(mover *c, const mover *ground, dvec push_dir, float depth, dvec up)
{
    float cos_slope = dv_dot(push_dir, up);
    c->pos = dv_mad(c->pos, depth / cos_slope, up);
    float v_up = dv_dot(dv_sub(c->vel, ground->vel), up);
    if (v_up < 0.0f)
        c->vel = dv_mad(c->vel, -v_up, up);
    return depth;
}

float DIM_NAME(chr_push_out)(mover *a, mover *b, dvec n, float depth, dvec up, bool a_ground,
                             bool b_ground)
{
    float wa = a->inv_mass, wb = b->inv_mass, wsum = wa + wb;
    if (wsum <= 0.0f)
        return 0.0f;
    if (b_ground && wa == 0.0f && dv_dot(n, up) >= CHR_STAND_MIN_COS)
        return stand(b, a, n, depth, up);
    if (a_ground && wb == 0.0f && -dv_dot(n, up) >= CHR_STAND_MIN_COS)
        return stand(a, b, dv_neg(n), depth, up);
    a->pos = dv_mad(a->pos, -depth * wa / wsum, n);
    b->pos = dv_mad(b->pos, depth * wb / wsum, n);
    float vn = dv_dot(dv_sub(b->vel, a->vel), n);
    if (vn < 0.0f) {
        float jn = -vn / wsum;
        a->vel = dv_mad(a->vel, -jn * wa, n);
        b->vel = dv_mad(b->vel, jn * wb, n);
    }
    return depth;
}
