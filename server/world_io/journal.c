/* Recording and replay. Every change made to the world from outside the step (a body added
 * or removed, a client's bodies removed when it leaves, an input) is written as one JSON line
 * with the tick it was made at and the client it came from, in the protocol's own message
 * form:
 *   {"tick":T,"client":C,"msg":{"type":"spawn","body":{...}},"id":ID}
 *   {"tick":T,"client":C,"msg":{"type":"despawn","id":ID}}
 *   {"tick":T,"client":C,"msg":{"type":"bye"}}
 *   {"tick":T,"client":C,"msg":{"type":"input","id":ID,"move":[x,y],"jump":false}}
 *   {"tick":T,"client":0,"msg":{"type":"reuse"}}  (the removed bodies' slots may be reused)
 * framed by {"tick":T,"start":"HASH"} and {"tick":T,"end":"HASH"} with the world hash there,
 * and with {"tick":T,"hash":"HASH"} between them where the writer marks a point it flushed
 * (a durable save's journal: the world comes back to the last such mark).
 * The step is deterministic, so the same scene with the same lines applied at the same ticks
 * gives the same world bit for bit: replay checks the ids and the hashes as it goes. Numbers
 * carry 9 significant digits, which give every float back exactly. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "world_io_internal.h"

/* Starts a line: {"tick":T,"client":C,"msg":{"type":"TYPE" */
static proto_buf *begin(wio_journal *j, uint32_t client, const char *type)
{
    proto_buf *b = &j->buf;
    proto_buf_clear(b);
    proto_buf_append_str(b, "{\"tick\":");
    proto_buf_append_u64(b, sim_world_tick(j->world));
    proto_buf_append_str(b, ",\"client\":");
    proto_buf_append_u64(b, client);
    proto_buf_append_str(b, ",\"msg\":{\"type\":\"");
    proto_buf_append_str(b, type);
    proto_buf_append_char(b, '"');
    return b;
}

static void finish(wio_journal *j, proto_buf *b)
{
    proto_buf_append_str(b, "}\n");
    if (!b->failed)
        j->fn(j->ctx, b->data, b->len);
}

/* A start or end line: {"tick":T,"start":"HASH"} */
static void write_mark(wio_journal *j, const char *what)
{
    char line[96];
    int n = snprintf(line, sizeof line, "{\"tick\":%" PRIu64 ",\"%s\":\"%016" PRIx64 "\"}\n",
                     sim_world_tick(j->world), what, sim_world_hash(j->world));
    j->fn(j->ctx, line, (size_t)n);
}

static void on_change(void *ctx, const sim_world *w, const sim_change *c)
{
    wio_journal *j = ctx;
    proto_buf *b;
    char nums[96];
    switch (c->kind) {
    case SIM_CHANGE_ADDED:
        b = begin(j, c->body->owner, "spawn");
        proto_buf_append_str(b, ",\"body\":{");
        wio_write_body_fields(w, c->body, b);
        proto_buf_append_str(b, "}},\"id\":");
        proto_buf_append_u64(b, c->body->id);
        break;
    case SIM_CHANGE_REMOVED:
        b = begin(j, c->body->owner, "despawn");
        proto_buf_append_str(b, ",\"id\":");
        proto_buf_append_u64(b, c->body->id);
        proto_buf_append_char(b, '}');
        break;
    case SIM_CHANGE_LEFT:
        b = begin(j, c->owner, "bye");
        proto_buf_append_char(b, '}');
        break;
    case SIM_CHANGE_REUSE:
        b = begin(j, 0, "reuse");
        proto_buf_append_char(b, '}');
        break;
    case SIM_CHANGE_INPUT:
        b = begin(j, c->body->owner, "input");
        proto_buf_append_str(b, ",\"id\":");
        proto_buf_append_u64(b, c->body->id);
        if (sim_world_dim(w) == 3)
            snprintf(nums, sizeof nums, ",\"move\":[%.9g,%.9g,%.9g],\"jump\":%s}",
                     (double)c->move.x, (double)c->move.y, (double)c->move.z,
                     c->jump ? "true" : "false");
        else
            snprintf(nums, sizeof nums, ",\"move\":[%.9g,%.9g],\"jump\":%s}",
                     (double)c->move.x, (double)c->move.y, c->jump ? "true" : "false");
        proto_buf_append_str(b, nums);
        break;
    default:
        return;
    }
    finish(j, b);
}

void wio_journal_start(wio_journal *j, sim_world *w, wio_line_fn fn, void *ctx)
{
    j->world = w;
    j->fn = fn;
    j->ctx = ctx;
    proto_buf_init(&j->buf);
    write_mark(j, "start");
    sim_world_on_change(w, on_change, j);
}

uint64_t wio_journal_mark(wio_journal *j)
{
    write_mark(j, "hash");
    return sim_world_hash(j->world);
}

void wio_journal_stop(wio_journal *j)
{
    if (!j->world)
        return;
    write_mark(j, "end");
    sim_world_on_change(j->world, NULL, NULL);
    proto_buf_free(&j->buf);
    j->world = NULL;
}

/* ---- replay ---- */

/* Checks a "start" or "end" hash against the world's. */
static int check_hash(const sim_world *w, const cJSON *hash, const char *what, mk_error *err)
{
    char mine[17];
    snprintf(mine, sizeof mine, "%016" PRIx64, sim_world_hash(w));
    if (!cJSON_IsString(hash) || strcmp(hash->valuestring, mine) != 0) {
        mk_fail(err, MK_ERR_INVALID,
                "tick %" PRIu64 ": the %s hash is %s here, %s in the recording",
                sim_world_tick(w), what, mine,
                cJSON_IsString(hash) ? hash->valuestring : "missing");
        return -1;
    }
    return what[0] == 'e' ? 1 : what[0] == 'h' ? 2 : 0;
}

static const sim_body *body_of(sim_world *w, const cJSON *msg, uint32_t client, mk_error *err)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const sim_body *b = wio_json_whole_in(id, 0, PROTO_MAX_ID)
                            ? sim_world_get(w, (sim_id)id->valuedouble)
                            : NULL;
    if (!b || b->owner != client) {
        mk_fail(err, MK_ERR_INVALID, "tick %" PRIu64 ": no body %.0f of client %u to replay on",
                sim_world_tick(w), cJSON_IsNumber(id) ? id->valuedouble : 0.0, client);
        return NULL;
    }
    return b;
}

static int apply_msg(sim_world *w, const cJSON *msg, uint32_t client, const cJSON *root,
                     mk_error *err)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(msg, "type");
    const char *t = cJSON_IsString(type) ? type->valuestring : "";
    if (strcmp(t, "spawn") == 0) {
        proto_body_spec spec;
        sim_body_def def;
        if (proto_parse_body_spec(cJSON_GetObjectItemCaseSensitive(msg, "body"), sim_world_dim(w),
                                  "msg.body",
                                  &spec, err) != PROTO_OK) {
            mk_error_prefix(err, "tick %" PRIu64 ": ", sim_world_tick(w));
            return -1;
        }
        int rc = wio_body_def_from_spec(&spec, sim_world_dim(w), &def, err);
        proto_shape_free(&spec.shape);
        if (rc != 0) {
            mk_error_prefix(err, "tick %" PRIu64 ": msg.body.", sim_world_tick(w));
            return -1;
        }
        sim_id id = sim_world_add(w, &def, client);
        sim_level_release(def.level);
        const cJSON *want = cJSON_GetObjectItemCaseSensitive(root, "id");
        if (id == 0 || !cJSON_IsNumber(want) || (double)id != want->valuedouble) {
            mk_fail(err, MK_ERR_INVALID,
                    "tick %" PRIu64 ": the spawn gave id %llu, the recording %.0f",
                    sim_world_tick(w), (unsigned long long)id,
                    cJSON_IsNumber(want) ? want->valuedouble : 0.0);
            return -1;
        }
        return 0;
    }
    if (strcmp(t, "despawn") == 0) {
        const sim_body *b = body_of(w, msg, client, err);
        return b && sim_world_remove(w, b->id) ? 0 : -1;
    }
    if (strcmp(t, "bye") == 0) {
        sim_world_remove_owned(w, client);
        return 0;
    }
    if (strcmp(t, "reuse") == 0) {
        sim_world_clear_removed(w);
        return 0;
    }
    if (strcmp(t, "input") == 0) {
        const sim_body *b = body_of(w, msg, client, err);
        const cJSON *move = cJSON_GetObjectItemCaseSensitive(msg, "move");
        const cJSON *mx = cJSON_GetArrayItem(move, 0), *my = cJSON_GetArrayItem(move, 1);
        const cJSON *mz = cJSON_GetArrayItem(move, 2);
        const cJSON *jump = cJSON_GetObjectItemCaseSensitive(msg, "jump");
        bool is3 = sim_world_dim(w) == 3;
        if (!b)
            return -1;
        if (!cJSON_IsNumber(mx) || !cJSON_IsNumber(my) || (is3 && !cJSON_IsNumber(mz)) ||
            !cJSON_IsBool(jump)) {
            mk_fail(err, MK_ERR_INVALID, "tick %" PRIu64 ": an input needs move [%s] and jump",
                    sim_world_tick(w), is3 ? "x, y, z" : "x, y");
            return -1;
        }
        if (is3)
            sim_body_set_input3(w, b->id,
                                mk_v3((float)mx->valuedouble, (float)my->valuedouble,
                                      (float)mz->valuedouble),
                                cJSON_IsTrue(jump));
        else
            sim_body_set_input2(w, b->id, mk_v2((float)mx->valuedouble, (float)my->valuedouble),
                               cJSON_IsTrue(jump));
        return 0;
    }
    mk_fail(err, MK_ERR_INVALID,
            "tick %" PRIu64 ": unknown message type '%s'", sim_world_tick(w), t);
    return -1;
}

int wio_journal_apply(sim_world *w, const char *line, size_t len, wio_step_fn on_step,
                      void *ctx, mk_error *err)
{
    cJSON *root = cJSON_ParseWithLength(line, len);
    int rc = -1;
    const cJSON *tick = cJSON_GetObjectItemCaseSensitive(root, "tick");
    if (!cJSON_IsObject(root) || !wio_json_whole_in(tick, 0, PROTO_MAX_ID)) {
        mk_fail(err, MK_ERR_INVALID, "not a recording line (an object with a whole tick)");
        goto done;
    }
    uint64_t t = (uint64_t)tick->valuedouble;
    if (t < sim_world_tick(w)) {
        mk_fail(err, MK_ERR_INVALID,
                "tick %" PRIu64 " comes after tick %" PRIu64, t, sim_world_tick(w));
        goto done;
    }
    const cJSON *start = cJSON_GetObjectItemCaseSensitive(root, "start");
    if (start) {
        rc = t == sim_world_tick(w) ? check_hash(w, start, "start", err) : -1;
        if (t != sim_world_tick(w))
            mk_fail(err, MK_ERR_INVALID,
                    "the recording starts at tick %" PRIu64 ", the scene at %" PRIu64,
                    t, sim_world_tick(w));
        goto done;
    }
    while (sim_world_tick(w) < t) {
        sim_world_step(w);
        if (on_step)
            on_step(ctx, w);
    }
    const cJSON *end = cJSON_GetObjectItemCaseSensitive(root, "end");
    if (end) {
        rc = check_hash(w, end, "end", err);
        goto done;
    }
    const cJSON *mark = cJSON_GetObjectItemCaseSensitive(root, "hash");
    if (mark) {
        rc = check_hash(w, mark, "hash", err);
        goto done;
    }
    const cJSON *client = cJSON_GetObjectItemCaseSensitive(root, "client");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(root, "msg");
    if (!wio_json_whole_in(client, 0, UINT32_MAX) || !cJSON_IsObject(msg)) {
        mk_fail(err, MK_ERR_INVALID,
                "tick %" PRIu64 ": a line needs client and msg", sim_world_tick(w));
        goto done;
    }
    rc = apply_msg(w, msg, (uint32_t)client->valuedouble, root, err);
done:
    cJSON_Delete(root);
    return rc;
}
