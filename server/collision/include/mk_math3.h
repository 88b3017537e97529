/* mk_math3: 3D value types for the simulation, in float like mk_math.h's: vectors, unit
 * quaternions (x, y, z, w) for rotations, and 3x3 matrices (columns) for inertia tensors and
 * rotation matrices. Header-only so that every layer inlines them; built with
 * -ffp-contract=off like mk_math.h, so each operation rounds the same way on every build. */
#ifndef MK_MATH3_H
#define MK_MATH3_H

#include <math.h>
#include <stdbool.h>

typedef struct mk_vec3 {
    float x, y, z;
} mk_vec3;

/* A rotation as a unit quaternion: v' = q v q*. */
typedef struct mk_quat {
    float x, y, z, w;
} mk_quat;

/* A 3x3 matrix by columns: M v = c0 v.x + c1 v.y + c2 v.z. */
typedef struct mk_mat3 {
    mk_vec3 c0, c1, c2;
} mk_mat3;

static inline mk_vec3 mk_v3(float x, float y, float z) { return (mk_vec3){x, y, z}; }
static inline mk_vec3 mk_v3_add(mk_vec3 a, mk_vec3 b) { return mk_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline mk_vec3 mk_v3_sub(mk_vec3 a, mk_vec3 b) { return mk_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline mk_vec3 mk_v3_scale(mk_vec3 a, float s) { return mk_v3(a.x * s, a.y * s, a.z * s); }
static inline mk_vec3 mk_v3_neg(mk_vec3 a) { return mk_v3(-a.x, -a.y, -a.z); }
static inline float mk_v3_dot(mk_vec3 a, mk_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline mk_vec3 mk_v3_cross(mk_vec3 a, mk_vec3 b)
{
    return mk_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline float mk_v3_len(mk_vec3 a) { return sqrtf(mk_v3_dot(a, a)); }
/* a + s * b */
static inline mk_vec3 mk_v3_mad(mk_vec3 a, float s, mk_vec3 b)
{
    return mk_v3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}
static inline mk_vec3 mk_v3_min(mk_vec3 a, mk_vec3 b)
{
    return mk_v3(a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z);
}
static inline mk_vec3 mk_v3_max(mk_vec3 a, mk_vec3 b)
{
    return mk_v3(a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z);
}
/* The unit vector along a, or (0, 0, 0) for a zero vector. */
static inline mk_vec3 mk_v3_norm(mk_vec3 a)
{
    float l = mk_v3_len(a);
    return l > 0.0f ? mk_v3_scale(a, 1.0f / l) : mk_v3(0.0f, 0.0f, 0.0f);
}
static inline bool mk_v3_finite(mk_vec3 a)
{
    return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}

/* ---- quaternions ---- */

static inline mk_quat mk_quat_identity(void) { return (mk_quat){0.0f, 0.0f, 0.0f, 1.0f}; }

/* The rotation by `angle` rad about the unit vector `axis`. */
static inline mk_quat mk_quat_axis_angle(mk_vec3 axis, float angle)
{
    float s = sinf(0.5f * angle);
    return (mk_quat){axis.x * s, axis.y * s, axis.z * s, cosf(0.5f * angle)};
}

/* a then b applied after it: (b * a) v = b (a v). */
static inline mk_quat mk_quat_mul(mk_quat b, mk_quat a)
{
    return (mk_quat){b.w * a.x + b.x * a.w + b.y * a.z - b.z * a.y,
                     b.w * a.y - b.x * a.z + b.y * a.w + b.z * a.x,
                     b.w * a.z + b.x * a.y - b.y * a.x + b.z * a.w,
                     b.w * a.w - b.x * a.x - b.y * a.y - b.z * a.z};
}
static inline mk_quat mk_quat_conj(mk_quat q) { return (mk_quat){-q.x, -q.y, -q.z, q.w}; }

/* q v q* for a unit q, as v + 2 w (u x v) + 2 u x (u x v) with u the vector part. */
static inline mk_vec3 mk_quat_rotate(mk_quat q, mk_vec3 v)
{
    mk_vec3 u = mk_v3(q.x, q.y, q.z);
    mk_vec3 t = mk_v3_scale(mk_v3_cross(u, v), 2.0f);
    return mk_v3_add(mk_v3_mad(v, q.w, t), mk_v3_cross(u, t));
}
static inline mk_vec3 mk_quat_unrotate(mk_quat q, mk_vec3 v)
{
    return mk_quat_rotate(mk_quat_conj(q), v);
}

/* A quaternion from a client made a rotation: scaled to unit length. Refuses (returns false,
 * *out untouched) a non-finite one, and one too short to have a direction (|q| < 1e-6), which
 * no client means as a rotation. Scales in double so that a tiny or huge |q| does not
 * underflow or overflow on the way. */
static inline bool mk_quat_normalize_checked(mk_quat q, mk_quat *out)
{
    if (!(isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w)))
        return false;
    double l = sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z +
                    (double)q.w * q.w);
    if (!(l >= 1e-6) || !isfinite(l))
        return false;
    *out = (mk_quat){(float)(q.x / l), (float)(q.y / l), (float)(q.z / l), (float)(q.w / l)};
    return true;
}

/* ---- 3x3 matrices ---- */

static inline mk_vec3 mk_m3_mul_v(mk_mat3 m, mk_vec3 v)
{
    return mk_v3_add(mk_v3_add(mk_v3_scale(m.c0, v.x), mk_v3_scale(m.c1, v.y)),
                     mk_v3_scale(m.c2, v.z));
}
static inline mk_mat3 mk_m3_transpose(mk_mat3 m)
{
    return (mk_mat3){mk_v3(m.c0.x, m.c1.x, m.c2.x), mk_v3(m.c0.y, m.c1.y, m.c2.y),
                     mk_v3(m.c0.z, m.c1.z, m.c2.z)};
}
static inline mk_mat3 mk_m3_mul(mk_mat3 a, mk_mat3 b)
{
    return (mk_mat3){mk_m3_mul_v(a, b.c0), mk_m3_mul_v(a, b.c1), mk_m3_mul_v(a, b.c2)};
}
static inline mk_mat3 mk_m3_diag(float x, float y, float z)
{
    return (mk_mat3){mk_v3(x, 0.0f, 0.0f), mk_v3(0.0f, y, 0.0f), mk_v3(0.0f, 0.0f, z)};
}
static inline mk_mat3 mk_m3_add(mk_mat3 a, mk_mat3 b)
{
    return (mk_mat3){mk_v3_add(a.c0, b.c0), mk_v3_add(a.c1, b.c1), mk_v3_add(a.c2, b.c2)};
}
/* The inverse by the adjugate; the zero matrix for a singular one. */
static inline mk_mat3 mk_m3_inverse(mk_mat3 m)
{
    mk_vec3 r0 = mk_v3_cross(m.c1, m.c2), r1 = mk_v3_cross(m.c2, m.c0),
            r2 = mk_v3_cross(m.c0, m.c1);
    float det = mk_v3_dot(m.c0, r0);
    if (det == 0.0f || !isfinite(det))
        return (mk_mat3){mk_v3(0, 0, 0), mk_v3(0, 0, 0), mk_v3(0, 0, 0)};
    float inv = 1.0f / det;
    /* The rows of the inverse are the cross products: transpose them into columns. */
    return mk_m3_transpose(
        (mk_mat3){mk_v3_scale(r0, inv), mk_v3_scale(r1, inv), mk_v3_scale(r2, inv)});
}
/* The rotation matrix of a unit quaternion. */
static inline mk_mat3 mk_m3_from_quat(mk_quat q)
{
    float x2 = q.x + q.x, y2 = q.y + q.y, z2 = q.z + q.z;
    float xx = q.x * x2, yy = q.y * y2, zz = q.z * z2;
    float xy = q.x * y2, xz = q.x * z2, yz = q.y * z2;
    float wx = q.w * x2, wy = q.w * y2, wz = q.w * z2;
    return (mk_mat3){mk_v3(1.0f - yy - zz, xy + wz, xz - wy),
                     mk_v3(xy - wz, 1.0f - xx - zz, yz + wx),
                     mk_v3(xz + wy, yz - wx, 1.0f - xx - yy)};
}

#endif
