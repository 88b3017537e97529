/* The main of every Check suite: builds the suite, runs it (each test forked, so that a crash
 * fails one test only) and exits non-zero when a test failed. */
#ifndef MINK_TEST_CHECK_MAIN_H
#define MINK_TEST_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

static inline int mink_check_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* Adds a test case of these tests to the suite, each given `timeout` seconds (Check's default
 * when 0). */
static inline void mink_tcase(Suite *s, const char *name, double timeout,
                              const TTest *const *tests, size_t n)
{
    TCase *tc = tcase_create(name);
    if (timeout > 0)
        tcase_set_timeout(tc, timeout);
    for (size_t i = 0; i < n; i++)
        tcase_add_test(tc, tests[i]);
    suite_add_tcase(s, tc);
}

#define MINK_TCASE(s, name, timeout, ...)                                                      \
    do {                                                                                       \
        const TTest *tests_[] = {__VA_ARGS__};                                                 \
        mink_tcase(s, name, timeout, tests_, sizeof tests_ / sizeof *tests_);                 \
    } while (0)

/* A suite of one test case, each test given `timeout` seconds. */
static inline Suite *mink_suite(const char *name, double timeout, const TTest *const *tests,
                                size_t n)
{
    Suite *s = suite_create(name);
    mink_tcase(s, name, timeout, tests, n);
    return s;
}

/* The main of a suite of one test case: MINK_CHECK_TESTS("name", timeout, test, test, ...). */
#define MINK_CHECK_TESTS(name, timeout, ...)                                                   \
    int main(void)                                                                             \
    {                                                                                          \
        const TTest *tests[] = {__VA_ARGS__};                                                  \
        return mink_check_run(mink_suite(name, timeout, tests, sizeof tests / sizeof *tests)); \
    }

#define MINK_CHECK_MAIN(make_suite)                                                            \
    int main(void) { return mink_check_run(make_suite()); }

/* The main of a suite of several test cases, which the block after it adds to `s`:
 *     MINK_CHECK_SUITE("name", s)
 *     {
 *         MINK_TCASE(s, "case", timeout, test, test, ...);
 *     }
 */
#define MINK_CHECK_SUITE(name, s)                                                              \
    static void mink_suite_cases(Suite *s);                                                    \
    int main(void)                                                                             \
    {                                                                                          \
        Suite *suite_ = suite_create(name);                                                    \
        mink_suite_cases(suite_);                                                              \
        return mink_check_run(suite_);                                                         \
    }                                                                                          \
    static void mink_suite_cases(Suite *s)

#endif
