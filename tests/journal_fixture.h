/* Replaying the journals the world suites write (test_durable.c, test_joint_io.c,
 * test_motion.c): every line of a journal held as text, through wio_journal_apply, and the
 * check that it comes to the recorded world's end. */
#ifndef MINK_TEST_JOURNAL_FIXTURE_H
#define MINK_TEST_JOURNAL_FIXTURE_H

#include <check.h>
#include <stddef.h>
#include <string.h>

#include "mink_world_io.h"

/* Applies `lines` (a journal's text, each line ending in '\n') to `w` up to its end line, the
 * first line refused or the end of the text, with on_step and ctx as wio_journal_apply takes
 * them. Returns the last line's code (1: the end line was reached, -1: refused, with `err`)
 * and, in *marks when not NULL, how many mark lines were met. */
static inline int fixture_replay_journal(sim_world *w, const char *lines, wio_step_fn on_step,
                                         void *ctx, int *marks, mk_error *err)
{
    int rc = 0, n = 0;
    for (const char *p = lines; *p && rc >= 0 && rc != 1;) {
        const char *nl = strchr(p, '\n');
        rc = wio_journal_apply(w, p, (size_t)(nl - p + 1), on_step, ctx, err);
        n += rc == 2;
        p = nl + 1;
    }
    if (marks)
        *marks = n;
    return rc;
}

/* Each of the n `texts` stands somewhere in the journal `lines`. */
static inline void fixture_expect_in_journal(const char *lines, const char *const *texts,
                                             size_t n)
{
    for (size_t k = 0; k < n; k++)
        ck_assert_msg(strstr(lines, texts[k]) != NULL, "no %s in the journal", texts[k]);
}

/* `lines`, the journal of world `w`, replayed into `replayed` (which began where w began)
 * reaches its end line and the hash w ended with. Returns how many mark lines it met. */
static inline int fixture_expect_replay(sim_world *replayed, const sim_world *w,
                                        const char *lines, wio_step_fn on_step, void *ctx)
{
    int marks;
    mk_error err = {0};
    int rc = fixture_replay_journal(replayed, lines, on_step, ctx, &marks, &err);
    ck_assert_msg(rc == 1, "%s", err.message);
    ck_assert_uint_eq(sim_world_hash(replayed), sim_world_hash(w));
    return marks;
}

#endif
