/* --record and --replay: the server writes every change made to the world from outside the
 * step into a file as it is applied (see server/world_io/journal.c for the lines), and replays such
 * a file offline on the same scene, checking the ids and the final world hash. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
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

typedef struct replaying {
    uint64_t hash_every;
    rul_runtime *rules;
} replaying;

/* As the server's tick: the rules after the step, then the hash (server/net/server.c). */
static void on_step(void *ctx, const sim_world *w)
{
    const replaying *r = ctx;
    if (r->rules)
        rul_after_step(r->rules);
    net_log_world_hash(w, r->hash_every);
}

static int rules_line(void *ctx, uint32_t client, const char *type, const struct cJSON *msg,
                      mk_error *err)
{
    const replaying *r = ctx;
    return r->rules ? mink_game_replay_line(r->rules, client, type, msg, err) : 0;
}

int mink_replay(sim_world *w, const char *path, uint64_t hash_every, rul_runtime *rules)
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
    replaying how = {hash_every, rules};
    wio_replay r = {.on_step = on_step, .ctx = &how, .rerun = rules != NULL,
                    .rules = rules_line};
    while ((rc == 0 || rc == 2) && (n = getline(&line, &cap, f)) > 0) {
        number++;
        if ((size_t)n > RECORD_MAX_LINE) {
            mk_fail(&err, MK_ERR_INVALID, "longer than %u bytes", RECORD_MAX_LINE);
            rc = -1;
            break;
        }
        rc = wio_journal_replay(w, line, (size_t)n, &r, &err);
        if (number == 1 && rc == 0 && rules)
            rul_start(rules); /* as the server starts a new game once the recording has */
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
