/* The character rules (mink_character.h). The server's world and the predicting client call
 * these same functions, so that a prediction differs from the server only where its picture
 * of the world does. */
#include <math.h>

#include "mink_character.h"

mk_vec2 chr_up2(mk_vec2 gravity)
{
    return mk_v2_neg(mk_v2_norm(gravity));
}

mk_vec3 chr_up3(mk_vec3 gravity)
{
    float len = mk_v3_len(gravity);
    return len > 0.0f ? mk_v3_scale(gravity, -1.0f / len) : mk_v3(0.0f, 0.0f, 0.0f);
}

mk_vec2 chr_horizontal2(mk_vec2 v, mk_vec2 up)
{
    return mk_v2_mad(v, -mk_v2_dot(v, up), up);
}

mk_vec3 chr_horizontal3(mk_vec3 v, mk_vec3 up)
{
    return mk_v3_mad(v, -mk_v3_dot(v, up), up);
}

/* Moves `vel` toward `target` by at most `max_dv`. */
static mk_vec2 approach2(mk_vec2 vel, mk_vec2 target, float max_dv)
{
    mk_vec2 dv = mk_v2_sub(target, vel);
    float len = mk_v2_len(dv);
    if (len > max_dv && len > 0.0f)
        dv = mk_v2_scale(dv, max_dv / len);
    return mk_v2_add(vel, dv);
}

static mk_vec3 approach3(mk_vec3 vel, mk_vec3 target, float max_dv)
{
    mk_vec3 dv = mk_v3_sub(target, vel);
    float len = mk_v3_len(dv);
    if (len > max_dv && len > 0.0f)
        dv = mk_v3_scale(dv, max_dv / len);
    return mk_v3_add(vel, dv);
}

mk_vec2 chr_steer2(mk_vec2 vel, mk_vec2 move, float max_speed, mk_vec2 up, bool grounded,
                   float dt)
{
    mk_vec2 target = mk_v2_scale(chr_horizontal2(move, up), max_speed);
    mk_vec2 vel_h = chr_horizontal2(vel, up);
    float ramp = grounded || (up.x == 0.0f && up.y == 0.0f) ? CHR_RAMP_TIME_GROUND
                                                          : CHR_RAMP_TIME_AIR;
    mk_vec2 new_h = approach2(vel_h, target, max_speed * dt / ramp);
    return mk_v2_add(vel, mk_v2_sub(new_h, vel_h));
}

mk_vec3 chr_steer3(mk_vec3 vel, mk_vec3 move, float max_speed, mk_vec3 up, bool grounded,
                   float dt)
{
    bool weightless = up.x == 0.0f && up.y == 0.0f && up.z == 0.0f;
    mk_vec3 target = mk_v3_scale(chr_horizontal3(move, up), max_speed);
    mk_vec3 vel_h = chr_horizontal3(vel, up);
    float ramp = grounded || weightless ? CHR_RAMP_TIME_GROUND : CHR_RAMP_TIME_AIR;
    mk_vec3 new_h = approach3(vel_h, target, max_speed * dt / ramp);
    return mk_v3_add(vel, mk_v3_sub(new_h, vel_h));
}

float chr_jump_speed(float g, float jump_height)
{
    return sqrtf(2.0f * g * jump_height);
}

mk_vec2 chr_jump2(mk_vec2 vel, mk_vec2 up, float v_up)
{
    return mk_v2_mad(chr_horizontal2(vel, up), v_up, up);
}

mk_vec3 chr_jump3(mk_vec3 vel, mk_vec3 up, float v_up)
{
    return mk_v3_mad(chr_horizontal3(vel, up), v_up, up);
}

bool chr_is_ground2(mk_vec2 push_dir, mk_vec2 up, float max_slope)
{
    return mk_v2_dot(push_dir, up) >= cosf(max_slope);
}

bool chr_is_ground3(mk_vec3 push_dir, mk_vec3 up, float max_slope)
{
    return mk_v3_dot(push_dir, up) >= cosf(max_slope);
}

/* A character on walkable ground that it alone is pushed out of. The exit vector of "2D
 * Collisions with Minkowski Differences" for a body moving along a slope is the velocity
 * projected onto the hit edge; for a character the useful exit is straight up by
 * depth / cos(slope), which takes it out of a planar slope exactly and keeps its horizontal
 * run. It walks up and down slopes at its running speed and does not slide down them (or
 * jitter) while standing. The relative velocity into the ground along up is removed, so it
 * rides what it stands on. */
static float stand2(chr_mover2 *c, const chr_mover2 *ground, mk_vec2 push_dir, float depth,
                    mk_vec2 up)
{
    float cos_slope = mk_v2_dot(push_dir, up);
    c->pos = mk_v2_mad(c->pos, depth / cos_slope, up);
    float v_up = mk_v2_dot(mk_v2_sub(c->vel, ground->vel), up);
    if (v_up < 0.0f)
        c->vel = mk_v2_mad(c->vel, -v_up, up);
    return depth;
}

static float stand3(chr_mover3 *c, const chr_mover3 *ground, mk_vec3 push_dir, float depth,
                    mk_vec3 up)
{
    float cos_slope = mk_v3_dot(push_dir, up);
    c->pos = mk_v3_mad(c->pos, depth / cos_slope, up);
    float v_up = mk_v3_dot(mk_v3_sub(c->vel, ground->vel), up);
    if (v_up < 0.0f)
        c->vel = mk_v3_mad(c->vel, -v_up, up);
    return depth;
}

float chr_push_out2(chr_mover2 *a, chr_mover2 *b, mk_vec2 n, float depth, mk_vec2 up,
                    bool a_ground, bool b_ground)
{
    float wa = a->inv_mass, wb = b->inv_mass;
    float wsum = wa + wb;
    if (wsum <= 0.0f)
        return 0.0f;
    if (b_ground && wa == 0.0f && mk_v2_dot(n, up) >= CHR_STAND_MIN_COS)
        return stand2(b, a, n, depth, up);
    if (a_ground && wb == 0.0f && -mk_v2_dot(n, up) >= CHR_STAND_MIN_COS)
        return stand2(a, b, mk_v2_neg(n), depth, up);
    a->pos = mk_v2_mad(a->pos, -depth * wa / wsum, n);
    b->pos = mk_v2_mad(b->pos, depth * wb / wsum, n);
    mk_vec2 rel = mk_v2_sub(b->vel, a->vel);
    float vn = mk_v2_dot(rel, n);
    if (vn < 0.0f) {
        float jn = -vn / wsum;
        a->vel = mk_v2_mad(a->vel, -jn * wa, n);
        b->vel = mk_v2_mad(b->vel, jn * wb, n);
    }
    return depth;
}

float chr_push_out3(chr_mover3 *a, chr_mover3 *b, mk_vec3 n, float depth, mk_vec3 up,
                    bool a_ground, bool b_ground)
{
    float wa = a->inv_mass, wb = b->inv_mass, wsum = wa + wb;
    if (wsum <= 0.0f)
        return 0.0f;
    if (b_ground && wa == 0.0f && mk_v3_dot(n, up) >= CHR_STAND_MIN_COS)
        return stand3(b, a, n, depth, up);
    if (a_ground && wb == 0.0f && -mk_v3_dot(n, up) >= CHR_STAND_MIN_COS)
        return stand3(a, b, mk_v3_neg(n), depth, up);
    a->pos = mk_v3_mad(a->pos, -depth * wa / wsum, n);
    b->pos = mk_v3_mad(b->pos, depth * wb / wsum, n);
    float vn = mk_v3_dot(mk_v3_sub(b->vel, a->vel), n);
    if (vn < 0.0f) {
        float jn = -vn / wsum;
        a->vel = mk_v3_mad(a->vel, -jn * wa, n);
        b->vel = mk_v3_mad(b->vel, jn * wb, n);
    }
    return depth;
}
