/* Bringing a durable save back on start (durable.c writes it). The snapshots that exist
 * (FILE, FILE.next, FILE.prev) are read and checked, the newest first; a damaged one is
 * refused with the byte offset of what is wrong, and the one before is used. From the
 * snapshot's tick and hash the journals are chained: the one that starts there is replayed up
 * to its last flush point (a mark, or the end line where the next snapshot was taken), then
 * the one that starts where that left off, and so on. Records past the last flush point were
 * not yet flushed when the server stopped (a torn last one fails its checksum and is dropped):
 * the world comes back at that point's tick, and its hash is checked against the one written
 * there, which is the one the server logged. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "mink_net.h"

#define SNAPSHOTS 3
#define JOURNALS 3
static const char *const snapshot_suffix[SNAPSHOTS] = {"", ".next", ".prev"};
static const char *const journal_suffix[JOURNALS] = {".journal", ".journal.new",
                                                     ".prev.journal"};

typedef struct journal_file {
    char path[4200];
    char *data;
    size_t len;
    uint64_t start_tick;
    char start_hash[17];
    bool has_start, used;
} journal_file;

/* {"tick":T,"KEY":"HASH"...} as the journal writes its start, mark and end lines (a start has
 * the world's events after the hash): true with T and HASH when `line` is one with this key. */
static bool hash_line(const char *line, size_t len, const char *key, uint64_t *tick,
                      char hash[17])
{
    char want[64], text[192];
    if (len >= sizeof text)
        return false;
    memcpy(text, line, len);
    text[len] = '\0';
    unsigned long long t;
    char h[17];
    int end = 0;
    snprintf(want, sizeof want, "{\"tick\":%%llu,\"%s\":\"%%16[0-9a-f]\"%%n", key);
    if (sscanf(text, want, &t, h, &end) != 2 || end == 0 || strlen(h) != 16 ||
        (text[end] != '}' && text[end] != ','))
        return false;
    *tick = t;
    memcpy(hash, h, 17);
    return true;
}

static bool first_record(void *ctx, const char *line, size_t len, size_t offset)
{
    journal_file *j = ctx;
    (void)offset;
    j->has_start = hash_line(line, len, "start", &j->start_tick, j->start_hash);
    return false;
}

/* The first pass: where the last flush point ends. */
typedef struct last_mark {
    size_t end;
    uint64_t tick;
} last_mark;

static bool find_mark(void *ctx, const char *line, size_t len, size_t offset)
{
    last_mark *m = ctx;
    char h[17];
    if (hash_line(line, len, "hash", &m->tick, h) || hash_line(line, len, "end", &m->tick, h) ||
        hash_line(line, len, "start", &m->tick, h))
        m->end = offset + 9 + len;
    return true;
}

/* The second pass: every record up to it applied. */
typedef struct replay {
    sim_world *w;
    size_t until;
    size_t records;
    int rc;
    mk_error err;
    char **rules_state; /* the last rules_state line's state, or NULL: not wanted */
} replay;

/* The game rules' lines: the restore does not run the script (the changes it made are in the
 * journal), it keeps the last state written. */
static int rules_line(void *ctx, uint32_t client, const char *type, const cJSON *msg,
                      mk_error *err)
{
    replay *r = ctx;
    (void)client;
    if (!r->rules_state || strcmp(type, "rules_state") != 0)
        return 0;
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(msg, "state");
    if (!cJSON_IsString(state))
        return mk_fail(err, MK_ERR_INVALID, "rules_state: state must be a string");
    char *copy = strdup(state->valuestring);
    if (!copy)
        return mk_fail(err, MK_ERR_INVALID, "rules_state: out of memory");
    free(*r->rules_state);
    *r->rules_state = copy;
    return 0;
}

static bool apply(void *ctx, const char *line, size_t len, size_t offset)
{
    replay *r = ctx;
    if (offset >= r->until)
        return false;
    r->records++;
    wio_replay how = {.ctx = r, .rules = rules_line};
    if (wio_journal_replay(r->w, line, len, &how, &r->err) < 0) {
        mk_error_prefix(&r->err, "byte %zu: ", offset);
        r->rc = -1;
        return false;
    }
    return true;
}

/* Replays one journal onto `w` up to its last flush point; the records replayed in *records.
 * 0, or -1 after logging a record that did not replay. */
static int replay_journal(sim_world *w, journal_file *j, size_t *records, char **rules_state)
{
    last_mark m = {0, 0};
    size_t end;
    mk_error err = {0};
    int scan = wio_record_scan(j->data, j->len, find_mark, &m, &end, &err);
    if (scan == 1)
        LOG_WARN("--save: %s: %s", j->path, err.message);
    else if (scan < 0)
        LOG_ERROR("--save: %s: %s", j->path, err.message);
    if (end > m.end)
        LOG_INFO("--save: %s: %zu bytes after the last flush point (tick %llu) were not "
                 "flushed when the server stopped: not replayed", j->path, j->len - m.end,
                 (unsigned long long)m.tick);
    replay r = {w, m.end, 0, 0, {0}, rules_state};
    wio_record_scan(j->data, j->len, apply, &r, &end, &err);
    *records += r.records;
    if (r.rc != 0) {
        LOG_ERROR("--save: %s: %s", j->path, r.err.message);
        return -1;
    }
    return 0;
}

/* Chains the journals from the world's tick and hash. 0, or -1 after logging. */
static int replay_chain(sim_world *w, journal_file *journals, size_t *records,
                        char **rules_state)
{
    for (int hop = 0; hop < JOURNALS; hop++) {
        char hash[17];
        snprintf(hash, sizeof hash, "%016" PRIx64, sim_world_hash(w));
        journal_file *next = NULL;
        for (int i = 0; i < JOURNALS && !next; i++) {
            journal_file *j = &journals[i];
            if (j->has_start && !j->used && j->start_tick == sim_world_tick(w) &&
                strcmp(j->start_hash, hash) == 0)
                next = j;
        }
        if (!next)
            return 0;
        next->used = true;
        if (replay_journal(w, next, records, rules_state) != 0)
            return -1;
    }
    return 0;
}

typedef struct snapshot_file {
    char path[4200];
    sim_world *w;
    uint64_t tick, hash;
} snapshot_file;

sim_world *net_restore(const char *path, bool keep_owners, bool *found)
{
    return net_restore_game(path, keep_owners, found, NULL);
}

sim_world *net_restore_game(const char *path, bool keep_owners, bool *found,
                            char **rules_state)
{
    if (rules_state)
        *rules_state = NULL;
    snapshot_file snaps[SNAPSHOTS];
    journal_file journals[JOURNALS];
    memset(snaps, 0, sizeof snaps);
    memset(journals, 0, sizeof journals);
    *found = false;
    char levels_dir[4200];
    snprintf(levels_dir, sizeof levels_dir, "%s.levels", path);
    for (int i = 0; i < SNAPSHOTS; i++) {
        snprintf(snaps[i].path, sizeof snaps[i].path, "%s%s", path, snapshot_suffix[i]);
        /* An empty FILE (made beforehand to check that it can be written) is no save yet. */
        struct stat st;
        if (stat(snaps[i].path, &st) != 0 || st.st_size == 0)
            continue;
        *found = true;
        mk_error err = {0};
        snaps[i].w = wio_snapshot_read_levels(snaps[i].path, levels_dir, &snaps[i].tick,
                                              &snaps[i].hash, &err);
        if (!snaps[i].w)
            LOG_ERROR("--save: snapshot refused: %s", err.message);
    }
    if (!*found)
        return NULL;
    for (int i = 0; i < JOURNALS; i++) {
        journal_file *j = &journals[i];
        snprintf(j->path, sizeof j->path, "%s%s", path, journal_suffix[i]);
        mk_error err = {0};
        if (access(j->path, F_OK) != 0 || !(j->data = wio_read_file(j->path, &j->len, &err)))
            continue;
        size_t end;
        wio_record_scan(j->data, j->len, first_record, j, &end, &err);
    }
    sim_world *restored = NULL;
    for (;;) {
        /* The newest snapshot left. */
        snapshot_file *s = NULL;
        for (int i = 0; i < SNAPSHOTS; i++)
            if (snaps[i].w && (!s || snaps[i].tick > s->tick))
                s = &snaps[i];
        if (!s)
            break;
        size_t records = 0;
        for (int i = 0; i < JOURNALS; i++)
            journals[i].used = false;
        if (rules_state) { /* what an older attempt found is not this one's */
            free(*rules_state);
            *rules_state = NULL;
        }
        if (replay_chain(s->w, journals, &records, rules_state) == 0) {
            restored = s->w;
            s->w = NULL;
            LOG_INFO("--save: restored %s (tick %llu) and %zu journal records: tick %llu hash "
                     "%016llx, %zu bodies", s->path, (unsigned long long)s->tick, records,
                     (unsigned long long)sim_world_tick(restored),
                     (unsigned long long)sim_world_hash(restored),
                     sim_world_body_count(restored));
            break;
        }
        LOG_ERROR("--save: %s and its journals did not replay; trying an older snapshot",
                  s->path);
        sim_world_free(s->w);
        s->w = NULL;
    }
    for (int i = 0; i < SNAPSHOTS; i++)
        sim_world_free(snaps[i].w);
    for (int i = 0; i < JOURNALS; i++)
        free(journals[i].data);
    if (!restored) {
        if (rules_state) {
            free(*rules_state);
            *rules_state = NULL;
        }
        LOG_ERROR("--save: no snapshot of %s could be brought back", path);
        return NULL;
    }
    /* The clients are gone; a new one must not find itself owning their bodies. Players'
     * owner numbers outlive their connections: players.c sorts those out. */
    if (keep_owners)
        return restored;
    size_t slots;
    const sim_body *bodies = sim_world_slots(restored, &slots);
    for (size_t i = 0; i < slots; i++)
        if (bodies[i].id != 0)
            sim_body_set_owner(restored, bodies[i].id, 0);
    return restored;
}
