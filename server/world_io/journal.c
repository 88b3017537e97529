/* Recording and replay. Every change made to the world from outside the step (a body added
 * or removed, a client's bodies removed when it leaves, an input, an impulse, a teleport or a
 * new velocity, an explosion) is written as one JSON line with the tick it was made at and the
 * client it came from, in the protocol's own message form:
 *   {"tick":T,"client":C,"msg":{"type":"spawn","body":{...}},"id":ID}
 *   {"tick":T,"client":C,"msg":{"type":"despawn","id":ID}}
 *   {"tick":T,"client":C,"msg":{"type":"bye"}}
 *   {"tick":T,"client":C,"msg":{"type":"input","id":ID,"move":[x,y],"jump":false}}
 *   {"tick":T,"client":0,"msg":{"type":"reuse"}}  (the removed bodies' slots may be reused)
 *   {"tick":T,"client":C,"msg":{"type":"joint","joint":{...}},"id":ID}
 *   {"tick":T,"client":C,"msg":{"type":"unjoint","id":ID}}
 *   {"tick":T,"client":C,"msg":{"type":"push","id":ID,"impulse":[x,y],"point":[x,y]}}
 *   {"tick":T,"client":C,"msg":{"type":"set","id":ID,"pos":[x,y],"rot":A,"vel":[x,y],"w":W}}
 *     (what was set: pos and rot, vel, w; as the body has them afterwards)
 *   {"tick":T,"client":C,"msg":{"type":"explode","pos":[x,y],"radius":R,"impulse":I,
 *     "mask":M,"kinds":K,"ignore":[...],"owned":true}}  (C the owner when owned; K the
 *     world's kinds' bits)
 * A change made by the game's rules has "rules":true after its client; the rules' own lines
 * (wio_journal_rules_line) have types that begin with "rules_":
 *   {"tick":T,"client":C,"msg":{"type":"rules_join","name":N,"user":U,"role":R,"avatar":ID}}
 *   {"tick":T,"client":C,"msg":{"type":"rules_leave"}}
 *   {"tick":T,"client":C,"msg":{"type":"rules_action","name":N,"data":D}}
 *   {"tick":T,"client":0,"msg":{"type":"rules_state","state":"JSON as a string"}}
 * framed by {"tick":T,"start":"HASH"} and {"tick":T,"end":"HASH"} with the world hash there
 * (a start adds "events":true,"hit_speed":V when the world keeps events, which are hashed),
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
    if (j->by_rules && j->by_rules(j->rules_ctx))
        proto_buf_append_str(b, ",\"rules\":true");
    proto_buf_append_str(b, ",\"msg\":{\"type\":\"");
    proto_buf_append_str(b, type);
    proto_buf_append_char(b, '"');
    return b;
}

/* Starts a line of a message about one body or joint: {..."msg":{"type":"TYPE","id":ID */
static proto_buf *begin_on(wio_journal *j, uint32_t client, const char *type, uint64_t id)
{
    proto_buf *b = begin(j, client, type);
    proto_buf_append_str(b, ",\"id\":");
    proto_buf_append_u64(b, id);
    return b;
}

static void finish(wio_journal *j, proto_buf *b)
{
    proto_buf_append_str(b, "}\n");
    if (!b->failed)
        j->fn(j->ctx, b->data, b->len);
}

/* A start or end line: {"tick":T,"start":"HASH"}; a start says too whether the world keeps
 * events (they are in its hash), and its hit speed: {...,"events":true,"hit_speed":V}. */
static void write_mark(wio_journal *j, const char *what)
{
    char line[160];
    const sim_config *cfg = sim_world_config(j->world);
    int n = snprintf(line, sizeof line, "{\"tick\":%" PRIu64 ",\"%s\":\"%016" PRIx64 "\"",
                     sim_world_tick(j->world), what, sim_world_hash(j->world));
    if (strcmp(what, "start") == 0 && cfg->events)
        n += snprintf(line + n, sizeof line - (size_t)n, ",\"events\":true,\"hit_speed\":%.9g",
                      (double)cfg->hit_speed);
    n += snprintf(line + n, sizeof line - (size_t)n, "}\n");
    j->fn(j->ctx, line, (size_t)n);
}

/* `,"key":[x,y]` or `[x,y,z]` (or a number, `one` in 2D: an angle, a spin). */
static void put_vec(proto_buf *b, const char *key, int dim, mk_vec3 v, bool one)
{
    char nums[112];
    if (dim == 2 && one)
        snprintf(nums, sizeof nums, ",\"%s\":%.9g", key, (double)v.z);
    else if (dim == 2)
        snprintf(nums, sizeof nums, ",\"%s\":[%.9g,%.9g]", key, (double)v.x, (double)v.y);
    else
        snprintf(nums, sizeof nums, ",\"%s\":[%.9g,%.9g,%.9g]", key, (double)v.x, (double)v.y,
                 (double)v.z);
    proto_buf_append_str(b, nums);
}

/* What a SIM_CHANGE_SET set, as the body has it now. */
static void put_set(proto_buf *b, const sim_world *w, const sim_body *o, unsigned set)
{
    const sim_body3 *o3 = sim_body3_of(w, o);
    int dim = o3 ? 3 : 2;
    char nums[112];
    if (set & SIM_SET_POS)
        put_vec(b, "pos", dim, o3 ? o3->pos : mk_v3(o->pos.x, o->pos.y, 0), false);
    if ((set & SIM_SET_ROT) && o3) {
        snprintf(nums, sizeof nums, ",\"rot\":[%.9g,%.9g,%.9g,%.9g]", (double)o3->rot.x,
                 (double)o3->rot.y, (double)o3->rot.z, (double)o3->rot.w);
        proto_buf_append_str(b, nums);
    } else if (set & SIM_SET_ROT) {
        put_vec(b, "rot", 2, mk_v3(0, 0, o->angle), true);
    }
    if (set & SIM_SET_VEL)
        put_vec(b, "vel", dim, o3 ? o3->vel : mk_v3(o->vel.x, o->vel.y, 0), false);
    if (set & SIM_SET_SPIN)
        put_vec(b, "w", dim, o3 ? o3->w : mk_v3(0, 0, o->w), true);
}

static void put_explosion(proto_buf *b, int dim, const sim_explosion *e)
{
    char nums[96];
    put_vec(b, "pos", dim, e->pos, false);
    snprintf(nums, sizeof nums, ",\"radius\":%.9g,\"impulse\":%.9g", (double)e->radius,
             (double)e->impulse);
    proto_buf_append_str(b, nums);
    proto_buf_append_str(b, ",\"mask\":");
    proto_buf_append_u64(b, e->filter.mask);
    proto_buf_append_str(b, ",\"kinds\":");
    proto_buf_append_u64(b, e->filter.kinds);
    proto_buf_append_str(b, ",\"ignore\":[");
    for (size_t i = 0; i < e->filter.ignore_count; i++) {
        if (i)
            proto_buf_append_char(b, ',');
        proto_buf_append_u64(b, e->filter.ignore[i]);
    }
    proto_buf_append_str(b, e->owned ? "],\"owned\":true}" : "]}");
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
        b = begin_on(j, c->body->owner, "despawn", c->body->id);
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
    case SIM_CHANGE_JOINED:
        b = begin(j, c->owner, "joint");
        proto_buf_append_str(b, ",\"joint\":{");
        wio_write_joint_fields(w, c->joint_def, b);
        proto_buf_append_str(b, ",\"a\":");
        proto_buf_append_u64(b, c->joint_def->a);
        proto_buf_append_str(b, ",\"b\":");
        proto_buf_append_u64(b, c->joint_def->b);
        proto_buf_append_str(b, "}},\"id\":");
        proto_buf_append_u64(b, c->joint);
        break;
    case SIM_CHANGE_UNJOINED:
        b = begin_on(j, c->owner, "unjoint", c->joint);
        proto_buf_append_char(b, '}');
        break;
    case SIM_CHANGE_INPUT:
        b = begin_on(j, c->body->owner, "input", c->body->id);
        if (sim_world_dim(w) == 3)
            snprintf(nums, sizeof nums, ",\"move\":[%.9g,%.9g,%.9g],\"jump\":%s}",
                     (double)c->move.x, (double)c->move.y, (double)c->move.z,
                     c->jump ? "true" : "false");
        else
            snprintf(nums, sizeof nums, ",\"move\":[%.9g,%.9g],\"jump\":%s}",
                     (double)c->move.x, (double)c->move.y, c->jump ? "true" : "false");
        proto_buf_append_str(b, nums);
        break;
    case SIM_CHANGE_IMPULSE:
        b = begin_on(j, c->body->owner, "push", c->body->id);
        put_vec(b, "impulse", sim_world_dim(w), c->impulse, false);
        if (c->at)
            put_vec(b, "point", sim_world_dim(w), c->point, false);
        proto_buf_append_char(b, '}');
        break;
    case SIM_CHANGE_SET:
        b = begin_on(j, c->body->owner, "set", c->body->id);
        put_set(b, w, c->body, c->set);
        proto_buf_append_char(b, '}');
        break;
    case SIM_CHANGE_EXPLODE:
        b = begin(j, c->explosion->owned ? c->explosion->owner : 0, "explode");
        put_explosion(b, sim_world_dim(w), c->explosion);
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
    j->by_rules = NULL;
    j->rules_ctx = NULL;
    proto_buf_init(&j->buf);
    write_mark(j, "start");
    sim_world_on_change(w, on_change, j);
}

void wio_journal_by_rules(wio_journal *j, bool (*fn)(void *ctx), void *ctx)
{
    j->by_rules = fn;
    j->rules_ctx = ctx;
}

void wio_journal_rules_line(wio_journal *j, uint32_t client, const char *type,
                            const char *fields, size_t len)
{
    if (!j->world)
        return;
    bool (*by_rules)(void *) = j->by_rules;
    j->by_rules = NULL; /* the line is the rules', not a change they made */
    proto_buf *b = begin(j, client, type);
    j->by_rules = by_rules;
    proto_buf_append(b, fields, len);
    proto_buf_append_char(b, '}');
    finish(j, b);
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

/* A joint made (`joint`, its id checked against the recording's) or removed (`unjoint`). */
static int apply_joint(sim_world *w, const cJSON *msg, uint32_t client, const cJSON *root,
                       bool make, mk_error *err)
{
    if (!make) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
        const sim_joint *j = wio_json_whole_in(id, 0, PROTO_MAX_ID)
                                 ? sim_world_get_joint(w, (sim_id)id->valuedouble)
                                 : NULL;
        if (!j || j->owner != client) {
            mk_fail(err, MK_ERR_INVALID,
                    "tick %" PRIu64 ": no joint %.0f of client %u to remove",
                    sim_world_tick(w), cJSON_IsNumber(id) ? id->valuedouble : 0.0, client);
            return -1;
        }
        sim_world_remove_joint(w, j->id);
        return 0;
    }
    proto_joint_spec spec;
    sim_joint_def def;
    if (proto_parse_joint_spec(cJSON_GetObjectItemCaseSensitive(msg, "joint"),
                               sim_world_dim(w), "msg.joint.", &spec, err) != PROTO_OK ||
        wio_joint_def_from_spec(w, &spec, &def, err) != 0) {
        mk_error_prefix(err, "tick %" PRIu64 ": ", sim_world_tick(w));
        return -1;
    }
    sim_id id = sim_world_add_joint(w, &def, client, err);
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(root, "id");
    if (id == 0 || !cJSON_IsNumber(want) || (double)id != want->valuedouble) {
        mk_fail(err, MK_ERR_INVALID, "tick %" PRIu64 ": the joint gave id %llu, the recording %.0f",
                sim_world_tick(w), (unsigned long long)id,
                cJSON_IsNumber(want) ? want->valuedouble : 0.0);
        return -1;
    }
    return 0;
}

/* A recorded vector of msg.key: dim numbers (a number in 2D when `one`, as z); false when it
 * is not there or not that. */
static bool read_vec(const cJSON *msg, const char *key, int dim, bool one, mk_vec3 *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, key);
    *out = mk_v3(0, 0, 0);
    if (dim == 2 && one) {
        out->z = cJSON_IsNumber(v) ? (float)v->valuedouble : 0.0f;
        return cJSON_IsNumber(v);
    }
    float f[3] = {0, 0, 0};
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != dim)
        return false;
    for (int i = 0; i < dim; i++) {
        const cJSON *x = cJSON_GetArrayItem(v, i);
        if (!cJSON_IsNumber(x))
            return false;
        f[i] = (float)x->valuedouble;
    }
    *out = mk_v3(f[0], f[1], f[2]);
    return true;
}

static int bad_record(const sim_world *w, const char *what, mk_error *err)
{
    return mk_fail(err, MK_ERR_INVALID, "tick %" PRIu64 ": %s", sim_world_tick(w), what);
}

static int apply_push(sim_world *w, const cJSON *msg, const sim_body *b, mk_error *err)
{
    int dim = sim_world_dim(w);
    mk_vec3 j, p;
    bool at = cJSON_GetObjectItemCaseSensitive(msg, "point") != NULL;
    if (!read_vec(msg, "impulse", dim, false, &j) || (at && !read_vec(msg, "point", dim, false, &p)))
        return bad_record(w, "a push needs an impulse (and a point)", err);
    bool ok = dim == 3 ? sim_body_apply_impulse3(w, b->id, j, at ? &p : NULL)
                       : sim_body_apply_impulse2(w, b->id, mk_v2(j.x, j.y),
                                                 at ? &(mk_vec2){p.x, p.y} : NULL);
    return ok ? 0 : bad_record(w, "the push moved nothing", err);
}

static int apply_set(sim_world *w, const cJSON *msg, const sim_body *b, mk_error *err)
{
    int dim = sim_world_dim(w);
    mk_vec3 pos, rot, vel, spin;
    bool ok = true;
    if (cJSON_GetObjectItemCaseSensitive(msg, "pos")) {
        ok = read_vec(msg, "pos", dim, false, &pos);
        if (ok && dim == 3) {
            const cJSON *q = cJSON_GetObjectItemCaseSensitive(msg, "rot");
            float f[4];
            for (int i = 0; ok && i < 4; i++) {
                const cJSON *x = cJSON_GetArrayItem(q, i);
                ok = cJSON_GetArraySize(q) == 4 && cJSON_IsNumber(x);
                f[i] = ok ? (float)x->valuedouble : 0.0f;
            }
            ok = ok && sim_body_set_transform3(w, b->id, pos, (mk_quat){f[0], f[1], f[2], f[3]});
        } else if (ok) {
            ok = read_vec(msg, "rot", 2, true, &rot) &&
                 sim_body_set_transform2(w, b->id, mk_v2(pos.x, pos.y), rot.z);
        }
    }
    if (ok && cJSON_GetObjectItemCaseSensitive(msg, "vel"))
        ok = read_vec(msg, "vel", dim, false, &vel) &&
             (dim == 3 ? sim_body_set_velocity3(w, b->id, vel)
                       : sim_body_set_velocity2(w, b->id, mk_v2(vel.x, vel.y)));
    if (ok && cJSON_GetObjectItemCaseSensitive(msg, "w"))
        ok = read_vec(msg, "w", dim, true, &spin) &&
             (dim == 3 ? sim_body_set_spin3(w, b->id, spin) : sim_body_set_spin2(w, b->id, spin.z));
    return ok ? 0 : bad_record(w, "a set that the body does not take", err);
}

static int apply_explode(sim_world *w, const cJSON *msg, uint32_t client, mk_error *err)
{
    sim_explosion e = {.owner = client};
    sim_id ignore[PROTO_MAX_IGNORE];
    const cJSON *radius = cJSON_GetObjectItemCaseSensitive(msg, "radius");
    const cJSON *impulse = cJSON_GetObjectItemCaseSensitive(msg, "impulse");
    const cJSON *mask = cJSON_GetObjectItemCaseSensitive(msg, "mask");
    const cJSON *kinds = cJSON_GetObjectItemCaseSensitive(msg, "kinds");
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(msg, "ignore");
    int n = cJSON_GetArraySize(ids);
    if (!read_vec(msg, "pos", sim_world_dim(w), false, &e.pos) || !cJSON_IsNumber(radius) ||
        !cJSON_IsNumber(impulse) || !wio_json_whole_in(mask, 0, PROTO_MAX_ID) ||
        !wio_json_whole_in(kinds, 0, 15) || !cJSON_IsArray(ids) || n > PROTO_MAX_IGNORE)
        return bad_record(w, "an explosion needs pos, radius, impulse, mask, kinds, ignore", err);
    for (int i = 0; i < n; i++) {
        const cJSON *id = cJSON_GetArrayItem(ids, i);
        if (!wio_json_whole_in(id, 0, PROTO_MAX_ID))
            return bad_record(w, "an explosion's ignore holds ids", err);
        ignore[i] = (sim_id)id->valuedouble;
    }
    e.radius = (float)radius->valuedouble;
    e.impulse = (float)impulse->valuedouble;
    e.filter = (sim_query_filter){ignore, (size_t)n, (unsigned)kinds->valuedouble,
                                  (uint64_t)mask->valuedouble};
    e.owned = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(msg, "owned"));
    sim_world_explode(w, &e, NULL);
    return 0;
}

static int apply_msg(sim_world *w, const cJSON *msg, uint32_t client, const cJSON *root,
                     const wio_replay *r, mk_error *err)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(msg, "type");
    const char *t = cJSON_IsString(type) ? type->valuestring : "";
    if (strncmp(t, "rules_", 6) == 0)
        return r->rules ? r->rules(r->ctx, client, t, msg, err) : 0;
    if (r->rerun && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "rules")))
        return 0;
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
    if (strcmp(t, "push") == 0 || strcmp(t, "set") == 0) {
        const sim_body *b = body_of(w, msg, client, err);
        if (!b)
            return -1;
        return t[0] == 'p' ? apply_push(w, msg, b, err) : apply_set(w, msg, b, err);
    }
    if (strcmp(t, "explode") == 0)
        return apply_explode(w, msg, client, err);
    if (strcmp(t, "joint") == 0 || strcmp(t, "unjoint") == 0)
        return apply_joint(w, msg, client, root, t[0] == 'j', err);
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
    wio_replay r = {on_step, ctx, false, NULL};
    return wio_journal_replay(w, line, len, &r, err);
}

int wio_journal_replay(sim_world *w, const char *line, size_t len, const wio_replay *r,
                       mk_error *err)
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
        /* Events as the recorded world kept them: an older recording's kept none. */
        const cJSON *hit = cJSON_GetObjectItemCaseSensitive(root, "hit_speed");
        bool events = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "events"));
        sim_world_set_events(w, events && cJSON_IsNumber(hit),
                             cJSON_IsNumber(hit) ? (float)hit->valuedouble
                                                 : sim_world_config(w)->hit_speed);
        rc = t == sim_world_tick(w) ? check_hash(w, start, "start", err) : -1;
        if (t != sim_world_tick(w))
            mk_fail(err, MK_ERR_INVALID,
                    "the recording starts at tick %" PRIu64 ", the scene at %" PRIu64,
                    t, sim_world_tick(w));
        goto done;
    }
    while (sim_world_tick(w) < t) {
        sim_world_step(w);
        if (r->on_step)
            r->on_step(r->ctx, w);
        sim_world_clear_events(w); /* as the server does once it has handed them out */
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
    rc = apply_msg(w, msg, (uint32_t)client->valuedouble, root, r, err);
done:
    cJSON_Delete(root);
    return rc;
}
