/* Four floats at once, for the wide contact solver: SSE2 where the compiler targets it (every
 * x86-64), four plain floats elsewhere. The same operations in the same order either way, so
 * results do not depend on which is used. */
#ifndef MINK_SIM_F4_H
#define MINK_SIM_F4_H

#if defined(__SSE2__)
#include <emmintrin.h>

typedef __m128 f4;
static inline f4 f4_set1(float a) { return _mm_set1_ps(a); }
static inline f4 f4_set(float a, float b, float c, float d) { return _mm_setr_ps(a, b, c, d); }
static inline f4 f4_add(f4 a, f4 b) { return _mm_add_ps(a, b); }
static inline f4 f4_sub(f4 a, f4 b) { return _mm_sub_ps(a, b); }
static inline f4 f4_mul(f4 a, f4 b) { return _mm_mul_ps(a, b); }
static inline f4 f4_min(f4 a, f4 b) { return _mm_min_ps(a, b); }
static inline f4 f4_max(f4 a, f4 b) { return _mm_max_ps(a, b); }
/* mask ? a : b, for a mask from f4_gt */
static inline f4 f4_select(f4 mask, f4 a, f4 b)
{
    return _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b));
}
static inline f4 f4_gt(f4 a, f4 b) { return _mm_cmpgt_ps(a, b); }
/* -a (the sign flipped, as the unary minus of each float) */
static inline f4 f4_neg(f4 a)
{
    return _mm_xor_ps(a, _mm_set1_ps(-0.0f));
}
static inline f4 f4_eq(f4 a, f4 b) { return _mm_cmpeq_ps(a, b); }
/* a && !b, for masks */
static inline f4 f4_and_not(f4 a, f4 b) { return _mm_andnot_ps(b, a); }
static inline f4 f4_div(f4 a, f4 b) { return _mm_div_ps(a, b); }
static inline f4 f4_sqrt(f4 a) { return _mm_sqrt_ps(a); }
static inline f4 f4_load(const float *p) { return _mm_loadu_ps(p); }
static inline void f4_store(float *out, f4 a) { _mm_storeu_ps(out, a); }
/* Rows to columns: r0..r3 become the first..fourth floats of each (the 4x4 transpose). */
static inline void f4_transpose(f4 *r0, f4 *r1, f4 *r2, f4 *r3)
{
    __m128 t0 = _mm_unpacklo_ps(*r0, *r1), t1 = _mm_unpacklo_ps(*r2, *r3);
    __m128 t2 = _mm_unpackhi_ps(*r0, *r1), t3 = _mm_unpackhi_ps(*r2, *r3);
    *r0 = _mm_movelh_ps(t0, t1);
    *r1 = _mm_movehl_ps(t1, t0);
    *r2 = _mm_movelh_ps(t2, t3);
    *r3 = _mm_movehl_ps(t3, t2);
}
#else
#include <math.h>

typedef struct f4 {
    float v[4];
} f4;
static inline f4 f4_set1(float a) { return (f4){{a, a, a, a}}; }
static inline f4 f4_set(float a, float b, float c, float d) { return (f4){{a, b, c, d}}; }
#define F4_MAP(expr)                                                                           \
    f4 r;                                                                                      \
    for (int i = 0; i < 4; i++)                                                                \
        r.v[i] = (expr);                                                                       \
    return r
static inline f4 f4_add(f4 a, f4 b) { F4_MAP(a.v[i] + b.v[i]); }
static inline f4 f4_sub(f4 a, f4 b) { F4_MAP(a.v[i] - b.v[i]); }
static inline f4 f4_mul(f4 a, f4 b) { F4_MAP(a.v[i] * b.v[i]); }
/* As SSE's minps and maxps: the second operand when the comparison is false. */
static inline f4 f4_min(f4 a, f4 b) { F4_MAP(a.v[i] < b.v[i] ? a.v[i] : b.v[i]); }
static inline f4 f4_max(f4 a, f4 b) { F4_MAP(a.v[i] > b.v[i] ? a.v[i] : b.v[i]); }
static inline f4 f4_gt(f4 a, f4 b) { F4_MAP(a.v[i] > b.v[i] ? 1.0f : 0.0f); }
static inline f4 f4_neg(f4 a)
{
    F4_MAP(-a.v[i]);
}
static inline f4 f4_select(f4 mask, f4 a, f4 b) { F4_MAP(mask.v[i] != 0.0f ? a.v[i] : b.v[i]); }
static inline f4 f4_eq(f4 a, f4 b) { F4_MAP(a.v[i] == b.v[i] ? 1.0f : 0.0f); }
static inline f4 f4_and_not(f4 a, f4 b) { F4_MAP(a.v[i] != 0.0f && b.v[i] == 0.0f ? 1.0f : 0.0f); }
static inline f4 f4_div(f4 a, f4 b) { F4_MAP(a.v[i] / b.v[i]); }
static inline f4 f4_sqrt(f4 a) { F4_MAP(sqrtf(a.v[i])); }
static inline f4 f4_load(const float *p) { F4_MAP(p[i]); }
static inline void f4_store(float *out, f4 a)
{
    for (int i = 0; i < 4; i++)
        out[i] = a.v[i];
}
static inline void f4_transpose(f4 *r0, f4 *r1, f4 *r2, f4 *r3)
{
    f4 *r[4] = {r0, r1, r2, r3}, t[4] = {*r0, *r1, *r2, *r3};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++)
            r[i]->v[k] = t[k].v[i];
}
#undef F4_MAP
#endif

/* Row k of a gather from rows (the k-th row's four floats from `at` on), and a scattered row
 * written back: the one width's forms of f8.h's, for code written for both (wide_lanes.h). */
static inline f4 f4_rows(const float *const *rows, int k, int at) { return f4_load(rows[k] + at); }
static inline void f4_store_row(float *out, f4 a, int half)
{
    (void)half; /* four lanes: the only half */
    f4_store(out, a);
}

#endif
