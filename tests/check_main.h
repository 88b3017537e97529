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

#define MINK_CHECK_MAIN(make_suite)                                                            \
    int main(void) { return mink_check_run(make_suite()); }

#endif
