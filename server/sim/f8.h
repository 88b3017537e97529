/* Eight floats at once in AVX, for the wide contact solvers' pairs of groups (solver_wide.c,
 * solver3_wide.c): the operations of f4.h on 256-bit registers, the same IEEE operation on
 * each lane as SSE2's (no fused multiply-add), so a lane's result does not depend on the
 * width it was computed in. GCC on x86-64 only, with f4.h in SSE2 (SIM_F8 is then 1): its
 * functions are compiled for AVX whatever the build targets, and run only where the
 * processor has it (sim_f8_usable). The eight lanes are two groups' four: the low half the
 * first group's. */
#ifndef MINK_SIM_F8_H
#define MINK_SIM_F8_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__SSE2__)
#define SIM_F8 1
#include <immintrin.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "f4.h"

#pragma GCC push_options
#pragma GCC target("avx")

typedef __m256 f8;
static inline f8 f8_set1(float a) { return _mm256_set1_ps(a); }
static inline f8 f8_add(f8 a, f8 b) { return _mm256_add_ps(a, b); }
static inline f8 f8_sub(f8 a, f8 b) { return _mm256_sub_ps(a, b); }
static inline f8 f8_mul(f8 a, f8 b) { return _mm256_mul_ps(a, b); }
static inline f8 f8_min(f8 a, f8 b) { return _mm256_min_ps(a, b); }
static inline f8 f8_max(f8 a, f8 b) { return _mm256_max_ps(a, b); }
static inline f8 f8_select(f8 mask, f8 a, f8 b)
{
    return _mm256_or_ps(_mm256_and_ps(mask, a), _mm256_andnot_ps(mask, b));
}
/* Ordered and signalling, as SSE's cmpltps behind f4_gt and cmpeqps behind f4_eq. */
static inline f8 f8_gt(f8 a, f8 b) { return _mm256_cmp_ps(a, b, _CMP_GT_OS); }
static inline f8 f8_eq(f8 a, f8 b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
static inline f8 f8_and_not(f8 a, f8 b) { return _mm256_andnot_ps(b, a); }
static inline f8 f8_div(f8 a, f8 b) { return _mm256_div_ps(a, b); }
static inline f8 f8_sqrt(f8 a) { return _mm256_sqrt_ps(a); }
/* Two groups' f4 as one f8: lo in lanes 0-3, hi in 4-7; and back. */
static inline f8 f8_pair(const f4 *lo, const f4 *hi)
{
    return _mm256_loadu2_m128((const float *)hi, (const float *)lo);
}
static inline void f8_unpair(f4 *lo, f4 *hi, f8 a)
{
    _mm256_storeu2_m128((float *)hi, (float *)lo, a);
}
/* Rows to columns in each half: r0..r3 hold four rows in their low halves and four more in
 * their high halves; each becomes the first..fourth floats of its halves' rows. */
static inline void f8_transpose(f8 *r0, f8 *r1, f8 *r2, f8 *r3)
{
    __m256 t0 = _mm256_unpacklo_ps(*r0, *r1), t1 = _mm256_unpacklo_ps(*r2, *r3);
    __m256 t2 = _mm256_unpackhi_ps(*r0, *r1), t3 = _mm256_unpackhi_ps(*r2, *r3);
    *r0 = _mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(1, 0, 1, 0));
    *r1 = _mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(3, 2, 3, 2));
    *r2 = _mm256_shuffle_ps(t2, t3, _MM_SHUFFLE(1, 0, 1, 0));
    *r3 = _mm256_shuffle_ps(t2, t3, _MM_SHUFFLE(3, 2, 3, 2));
}
/* Row k of a gather from eight rows: the four floats from `at` on of rows k (in lanes 0-3)
 * and k + 4 (in lanes 4-7). */
static inline f8 f8_rows(const float *const *rows, int k, int at)
{
    return _mm256_loadu2_m128(rows[k + 4] + at, rows[k] + at);
}
/* The half (0 low, 1 high) of a transposed row that is one body's four floats, to out. */
static inline void f8_store_row(float *out, f8 a, int half)
{
    _mm_storeu_ps(out, half ? _mm256_extractf128_ps(a, 1) : _mm256_castps256_ps128(a));
}

#pragma GCC pop_options

/* Whether this processor runs AVX (and its system saves the registers). */
static inline bool sim_f8_usable(void) { return __builtin_cpu_supports("avx"); }

/* Whether the wide solvers take two groups at once: where the processor has AVX, unless the
 * environment's MINK_SIM_LANES is 4 (the pinned world hashes are checked at both widths on
 * one machine, tests/CMakeLists.txt). Read once in each file that asks; every thread reads
 * the same answer. */
static inline bool sim_eight_lanes(void)
{
    static atomic_int known; /* 0 not yet read, 1 four lanes, 2 eight */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k == 0) {
        const char *lanes = getenv("MINK_SIM_LANES");
        k = sim_f8_usable() && !(lanes && strcmp(lanes, "4") == 0) ? 2 : 1;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k == 2;
}
#else
#define SIM_F8 0
#endif

#endif
