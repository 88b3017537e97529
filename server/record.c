/* --record and --replay: the server writes every change made to the world from outside the
 * step into a file as it is applied (see server/world_io/journal.c for the lines), and replays such
 * a file offline on the same scene, checking the ids and the final world hash. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

#define RECORD_MAX_LINE (1u << 20) /* bytes: a longer line is not a recording's */

static void write_line(void *ctx, const char *line, size_t len)
{
    FILE *f = ctx;
    if (fwrite(line, 1, len, f) != len)
        LOG_ERROR("--record: write failed: %s", strerror(errno));
}

bool mink_record_start(mink_recording *r, sim_world *w, const char *path)
{
    r->file = fopen(path, "w");
    if (!r->file) {
        LOG_ERROR("--record: cannot write %s: %s", path, strerror(errno));
        return false;
    }
    wio_journal_start(&r->journal, w, write_line, r->file);
    LOG_INFO("recording into %s from tick %llu", path,
             (unsigned long long)sim_world_tick(w));
    return true;
}

int mink_record_stop(mink_recording *r)
{
    wio_journal_stop(&r->journal);
    int rc = fclose(r->file);
    r->file = NULL;
    if (rc != 0) {
        LOG_ERROR("--record: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static void on_step(void *ctx, const sim_world *w)
{
    net_log_world_hash(w, *(const uint64_t *)ctx);
}

int mink_replay(sim_world *w, const char *path, uint64_t hash_every)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        LOG_ERROR("--replay: cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    long number = 0;
    mk_error err = {0};
    while ((rc == 0 || rc == 2) && (n = getline(&line, &cap, f)) > 0) {
        number++;
        if ((size_t)n > RECORD_MAX_LINE) {
            mk_fail(&err, MK_ERR_INVALID, "longer than %u bytes", RECORD_MAX_LINE);
            rc = -1;
            break;
        }
        rc = wio_journal_apply(w, line, (size_t)n, on_step, &hash_every, &err);
    }
    free(line);
    fclose(f);
    if (rc < 0) {
        LOG_ERROR("--replay: %s:%ld: %s", path, number, err.message);
        return -1;
    }
    if (rc == 0 || rc == 2) {
        LOG_ERROR("--replay: %s ends at line %ld without the recording's end line", path,
                  number);
        return -1;
    }
    LOG_INFO("replayed %ld lines to tick %llu: hash %016llx, as recorded", number,
             (unsigned long long)sim_world_tick(w), (unsigned long long)sim_world_hash(w));
    return 0;
}
