/* mk_math: small value types for the simulation, in float: the world's data and the collision
 * library's inputs and results are float (GJK and EPA compute in double inside, and
 * collide3_internal.h says why). Header-only so that every layer inlines them; the library
 * builds with -ffp-contract=off, so each operation rounds the same way on every build. */
#ifndef MK_MATH_H
#define MK_MATH_H

#include <math.h>
#include <stdbool.h>

typedef struct mk_vec2 {
    float x, y;
} mk_vec2;

static inline mk_vec2 mk_v2(float x, float y) { return (mk_vec2){x, y}; }
static inline mk_vec2 mk_v2_add(mk_vec2 a, mk_vec2 b) { return mk_v2(a.x + b.x, a.y + b.y); }
static inline mk_vec2 mk_v2_sub(mk_vec2 a, mk_vec2 b) { return mk_v2(a.x - b.x, a.y - b.y); }
static inline mk_vec2 mk_v2_scale(mk_vec2 a, float s) { return mk_v2(a.x * s, a.y * s); }
static inline mk_vec2 mk_v2_neg(mk_vec2 a) { return mk_v2(-a.x, -a.y); }
static inline float mk_v2_dot(mk_vec2 a, mk_vec2 b) { return a.x * b.x + a.y * b.y; }
static inline float mk_v2_cross(mk_vec2 a, mk_vec2 b) { return a.x * b.y - a.y * b.x; }
static inline float mk_v2_len(mk_vec2 a) { return sqrtf(a.x * a.x + a.y * a.y); }
static inline mk_vec2 mk_v2_min(mk_vec2 a, mk_vec2 b)
{
    return mk_v2(a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y);
}
static inline mk_vec2 mk_v2_max(mk_vec2 a, mk_vec2 b)
{
    return mk_v2(a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y);
}
/* a + s * b */
static inline mk_vec2 mk_v2_mad(mk_vec2 a, float s, mk_vec2 b)
{
    return mk_v2(a.x + s * b.x, a.y + s * b.y);
}
/* The unit vector along a, or (0, 0) for a zero vector. */
static inline mk_vec2 mk_v2_norm(mk_vec2 a)
{
    float l = mk_v2_len(a);
    return l > 0.0f ? mk_v2_scale(a, 1.0f / l) : mk_v2(0.0f, 0.0f);
}
static inline bool mk_v2_finite(mk_vec2 a) { return isfinite(a.x) && isfinite(a.y); }

static inline float mk_clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline float mk_minf(float a, float b) { return a < b ? a : b; }
static inline float mk_maxf(float a, float b) { return a > b ? a : b; }

#endif
