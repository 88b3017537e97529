/* Shared by the shape suites (test_shapes2.c, test_shapes3.c): quiet assertions for the
 * random tests and the fixed-seed generator. */
#ifndef MINK_SHAPES_CHECK_H
#define MINK_SHAPES_CHECK_H

#include <check.h>
#include <math.h>
#include <stdint.h>

/* ck_assert_msg, but silent when it holds: Check's passing assertions each send their
 * location to the runner (a write per assertion), which would dominate the random tests. */
#define EXPECT(cond, ...)                                                                     \
    do {                                                                                      \
        if (!(cond))                                                                          \
            ck_abort_msg(__VA_ARGS__);                                                        \
    } while (0)

/* |got - want| <= tol, with both values in the message. */
#define NEAR(got, want, tol)                                                                  \
    EXPECT(fabs((double)(got) - (double)(want)) <= (double)(tol),                             \
           "%s = %.9g, expected %.9g (tolerance %g)", #got, (double)(got), (double)(want),   \
           (double)(tol))

/* ---- a fixed-seed generator (xorshift64*) ---- */

static uint64_t rng_state;

static inline uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}
static inline double rnd(double lo, double hi)
{
    return lo + (hi - lo) * (double)(rng_next() >> 11) * 0x1.0p-53;
}
static inline int rnd_int(int n) { return (int)(rng_next() % (uint64_t)n); }

#endif
