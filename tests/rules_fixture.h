/* A script's runtime for the rules' suites: a world, a log that keeps what the rules said,
 * the messages they sent, and the rules' saved state read back as cJSON. */
#ifndef MINK_TEST_RULES_FIXTURE_H
#define MINK_TEST_RULES_FIXTURE_H

#include <cJSON.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mink_rules.h"

typedef struct rules_box {
    sim_world *w;
    rul_runtime *rt;
    int warnings, errors;
    char log[1 << 16];
    size_t log_len;
    int sent;
    char last_sent[512];
    bool busy_in_send; /* rul_busy while the rules sent */
    bool reenter;      /* the send callback calls rul_tick, which must be refused */
} rules_box;

static inline void rules_box_log(void *ctx, rul_log_level level, const char *line)
{
    rules_box *b = ctx;
    b->warnings += level == RUL_LOG_WARN;
    b->errors += level == RUL_LOG_ERROR;
    int n = snprintf(b->log + b->log_len, sizeof b->log - b->log_len, "%s\n", line);
    if (n > 0 && b->log_len + (size_t)n < sizeof b->log)
        b->log_len += (size_t)n;
}

static inline void rules_box_send(void *ctx, uint32_t player, const char *name,
                                  const char *data, size_t len)
{
    rules_box *b = ctx;
    b->sent++;
    b->busy_in_send = rul_busy(b->rt);
    if (b->reenter)
        rul_tick(b->rt);
    snprintf(b->last_sent, sizeof b->last_sent, "%u %s %.*s", player, name, (int)len,
             data ? data : "");
}

/* A 2D world with no gravity (g 0 when `still`) and the script `src` over it; the runtime is
 * NULL when it did not load (err says why). */
static inline rul_runtime *rules_box_open(rules_box *b, const char *src, bool still,
                                          const rul_config *base, mk_error *err)
{
    memset(b, 0, sizeof *b);
    sim_config c = sim_config_default();
    if (still)
        c.gravity = mk_v2(0, 0);
    b->w = sim_world_new(&c);
    rul_config cfg = base ? *base : (rul_config){0};
    cfg.script = cfg.script ? cfg.script : "test.lua";
    if (src) {
        cfg.source = src;
        cfg.source_len = strlen(src);
    }
    rul_host host = {.ctx = b, .log = rules_box_log, .send = rules_box_send};
    b->rt = rul_new(&cfg, b->w, &host, err);
    return b->rt;
}

static inline rul_runtime *rules_box_must(rules_box *b, const char *src, bool still,
                                          const rul_config *base)
{
    mk_error err = {0};
    rul_runtime *rt = rules_box_open(b, src, still, base, &err);
    if (!rt)
        ck_abort_msg("the script did not load: %s", err.message);
    return rt;
}

/* rules_box_must, then rul_start. */
static inline void rules_box_start(rules_box *b, const char *src, bool still,
                                   const rul_config *base)
{
    rul_start(rules_box_must(b, src, still, base));
}

static inline void rules_box_close(rules_box *b)
{
    rul_free(b->rt);
    sim_world_free(b->w);
}

/* The runtime's counters now. */
static inline rul_stats rules_box_stats(rules_box *b)
{
    rul_stats st;
    rul_stats_get(b->rt, &st);
    return st;
}

/* The counters of hook h now. */
static inline rul_hook_stats rules_box_hook(rules_box *b, rul_hook h)
{
    return rules_box_stats(b).hooks[h];
}

/* A script that does not load: the message contains `expect`. */
static inline void rules_box_refused(const char *src, const char *expect)
{
    rules_box b;
    mk_error err = {0};
    ck_assert_ptr_null(rules_box_open(&b, src, true, NULL, &err));
    ck_assert_msg(strstr(err.message, expect) != NULL, "\"%s\" not in \"%s\"", expect,
                  err.message);
    sim_world_free(b.w);
}

/* One step of the world and the rules after it. */
static inline void rules_box_step(rules_box *b, int n)
{
    for (int i = 0; i < n; i++) {
        sim_world_step(b->w);
        rul_tick(b->rt);
    }
}

/* The rules' save as cJSON (the caller deletes it). */
static inline cJSON *rules_box_save(rules_box *b)
{
    proto_buf out;
    proto_buf_init(&out);
    mk_error err = {0};
    if (rul_save(b->rt, &out, &err) != 0)
        ck_abort_msg("save failed: %s", err.message);
    cJSON *j = cJSON_ParseWithLength(out.data, out.len);
    proto_buf_free(&out);
    ck_assert_ptr_nonnull(j);
    return j;
}

/* game.state's field `key` as a number (the save's). */
static inline double rules_box_number(rules_box *b, const char *key)
{
    cJSON *j = rules_box_save(b);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(j, "state"), key);
    if (!cJSON_IsNumber(v))
        ck_abort_msg("state.%s is not a number", key);
    double d = v->valuedouble;
    cJSON_Delete(j);
    return d;
}

/* game.state's field `key` as a string, copied into out. */
static inline const char *rules_box_string(rules_box *b, const char *key, char *out, size_t cap)
{
    cJSON *j = rules_box_save(b);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(j, "state"), key);
    if (!cJSON_IsString(v))
        ck_abort_msg("state.%s is not a string", key);
    snprintf(out, cap, "%s", v->valuestring);
    cJSON_Delete(j);
    return out;
}

#endif
