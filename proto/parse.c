/* Client messages: JSON line -> validated C struct (PROTOCOL.md, "Client to server").
 *
 * Everything here comes from the network or a file and is untrusted. The order of the checks is
 * fixed so that each kind of bad input gets one well-defined error code: bytes (UTF-8), then
 * syntax and nesting (bad_json), then the envelope (an object with a string `type`), the type
 * (unknown_type), and last the fields (bad_request, the message naming the field's path). */
#include "parse_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ---- */

static const char *const error_names[] = {
    [PROTO_OK] = "ok",                         [PROTO_ERR_BAD_JSON] = "bad_json",
    [PROTO_ERR_BAD_REQUEST] = "bad_request",   [PROTO_ERR_UNKNOWN_TYPE] = "unknown_type",
    [PROTO_ERR_NOT_JOINED] = "not_joined",     [PROTO_ERR_NOT_OWNER] = "not_owner",
    [PROTO_ERR_NOT_FOUND] = "not_found",       [PROTO_ERR_QUOTA] = "quota",
    [PROTO_ERR_RATE_LIMITED] = "rate_limited", [PROTO_ERR_LINE_TOO_LONG] = "line_too_long",
    [PROTO_ERR_SERVER_FULL] = "server_full",   [PROTO_ERR_SHUTDOWN] = "shutdown",
    [PROTO_ERR_UNAUTHORIZED] = "unauthorized",
};

const char *proto_error_name(proto_error_code code)
{
    return PROTO_NAME_AT(error_names, code, "bad_request");
}

/* ---- messages ---- */

static const char *const msg_names[] = {
    [PROTO_MSG_HELLO] = "hello", [PROTO_MSG_SPAWN] = "spawn", [PROTO_MSG_DESPAWN] = "despawn",
    [PROTO_MSG_INPUT] = "input", [PROTO_MSG_QUERY] = "query", [PROTO_MSG_SUBSCRIBE] = "subscribe",
    [PROTO_MSG_PING] = "ping",   [PROTO_MSG_BYE] = "bye",
    [PROTO_MSG_RAYCAST] = "raycast", [PROTO_MSG_CAST] = "cast", [PROTO_MSG_OVERLAP] = "overlap",
    [PROTO_MSG_PUSH] = "push", [PROTO_MSG_SET] = "set", [PROTO_MSG_EXPLODE] = "explode",
    [PROTO_MSG_ACTION] = "action", [PROTO_MSG_EMIT] = "emit",
    [PROTO_MSG_JOINT] = "joint",     [PROTO_MSG_UNJOINT] = "unjoint",
};

/* The member `key` of root into *out; bad_request "KEY: missing" when root has none. */
static proto_error_code required(const cJSON *root, const char *key, const cJSON **out,
                                 proto_error *err)
{
    *out = cJSON_GetObjectItemCaseSensitive(root, key);
    return *out ? PROTO_OK : proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: missing", key);
}

static proto_error_code parse_hello(const cJSON *root, int dim, proto_msg *out, proto_error *err)
{
    double protocol = 0;
    proto_error_code rc =
        proto_get_number(root, "protocol", "", true, -PROTO_MAX_ID, PROTO_MAX_ID, &protocol, err);
    if (rc)
        return rc;
    if (protocol != PROTO_VERSION)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "protocol: this server speaks protocol %d",
                          PROTO_VERSION);
    out->u.hello.protocol = PROTO_VERSION;
    out->u.hello.name[0] = '\0';
    if ((rc = proto_get_string(root, "name", "", PROTO_MAX_NAME, out->u.hello.name, err)))
        return rc;
    out->u.hello.token[0] = '\0';
    if ((rc = proto_get_string(root, "token", "", PROTO_MAX_TOKEN, out->u.hello.token, err)))
        return rc;
    const cJSON *avatar = cJSON_GetObjectItemCaseSensitive(root, "avatar");
    out->u.hello.has_avatar = avatar != NULL;
    if (!avatar)
        return PROTO_OK;
    rc = proto_parse_spec(avatar, dim, "avatar.", &out->u.hello.avatar, err);
    if (rc == PROTO_OK && proto_shape_is_level(out->u.hello.avatar.shape.type)) {
        proto_shape_free(&out->u.hello.avatar.shape);
        return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                          "avatar.shape.type: level geometry is no avatar's shape");
    }
    return rc;
}

static proto_error_code parse_input(const cJSON *root, int dim, proto_msg *out, proto_error *err)
{
    proto_error_code rc = proto_get_id(root, "seq", true, NULL, &out->u.input.seq, err);
    if (rc)
        return rc;
    if ((rc = proto_get_id(root, "id", false, &out->u.input.has_id, &out->u.input.id, err)))
        return rc;
    if ((rc = proto_get_id(root, "tick", false, &out->u.input.has_tick, &out->u.input.tick, err)))
        return rc;
    const cJSON *move;
    if ((rc = required(root, "move", &move, err)))
        return rc;
    out->u.input.move[2] = 0;
    if ((rc = proto_parse_vector(move, dim, 1.0, "move", out->u.input.move, err)))
        return rc;
    out->u.input.jump = false;
    return proto_get_bool(root, "jump", NULL, &out->u.input.jump, err);
}

static proto_error_code parse_query(const cJSON *root, int dim, proto_msg *out, proto_error *err)
{
    proto_placed_shape *sides[2] = {&out->u.query.a, &out->u.query.b};
    const char *names[2] = {"a", "b"};
    for (int i = 0; i < 2; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, names[i]);
        if (!cJSON_IsObject(v))
            return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                              "%s: must be an object {shape, pos, rot?}", names[i]);
        char path[8];
        snprintf(path, sizeof path, "%s.", names[i]);
        proto_error_code rc =
            proto_parse_placed(v, dim, path, sides[i]->pos, sides[i]->rot, &sides[i]->shape, false,
                               err);
        if (rc)
            return rc;
    }
    return PROTO_OK;
}

/* An optional number in [0, max] (0 when absent); *has says whether the message had it. */
static proto_error_code get_optional_number(const cJSON *root, const char *key, double max,
                                            bool *has, double *value, proto_error *err)
{
    *has = cJSON_GetObjectItemCaseSensitive(root, key) != NULL;
    *value = 0;
    return proto_get_number(root, key, "", false, 0, max, value, err);
}

static proto_error_code parse_subscribe(const cJSON *root, proto_msg *out, proto_error *err)
{
    out->u.subscribe.contacts = false;
    proto_error_code rc = proto_get_bool(root, "contacts", &out->u.subscribe.has_contacts,
                                         &out->u.subscribe.contacts, err);
    if (rc)
        return rc;
    if ((rc = get_optional_number(root, "radius", PROTO_MAX_RADIUS, &out->u.subscribe.has_radius,
                                  &out->u.subscribe.radius, err)))
        return rc;
    if (out->u.subscribe.has_radius && !(out->u.subscribe.radius > 0))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "radius: must be greater than 0");
    out->u.subscribe.compact = false;
    if ((rc = proto_get_bool(root, "compact", &out->u.subscribe.has_compact,
                             &out->u.subscribe.compact, err)))
        return rc;
    out->u.subscribe.delta = false;
    if ((rc = proto_get_bool(root, "delta", &out->u.subscribe.has_delta, &out->u.subscribe.delta,
                             err)))
        return rc;
    if ((rc = get_optional_number(root, "hash", PROTO_MAX_HASH_EVERY, &out->u.subscribe.has_hash,
                                  &out->u.subscribe.hash, err)))
        return rc;
    if (out->u.subscribe.hash != floor(out->u.subscribe.hash))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "hash: must be a whole number of ticks");
    out->u.subscribe.events = false;
    return proto_get_bool(root, "events", &out->u.subscribe.has_events, &out->u.subscribe.events,
                          err);
}

/* A message's body spec names no file and carries no level file: those are read from scene
 * files and journals alone. */
static proto_error_code no_files(proto_error_code rc, proto_body_spec *spec, const char *path,
                                 proto_error *err)
{
    if (rc == PROTO_OK && spec->shape.level &&
        (spec->shape.level->file || spec->shape.level->data)) {
        proto_shape_free(&spec->shape);
        return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                          "%sshape: a level's file (file, data) is read from scene files and "
                          "journals alone; send its geometry", path);
    }
    return rc;
}

void proto_msg_free(proto_msg *m)
{
    if (m->type == PROTO_MSG_HELLO && m->u.hello.has_avatar)
        proto_shape_free(&m->u.hello.avatar.shape);
    else if (m->type == PROTO_MSG_SPAWN)
        proto_shape_free(&m->u.spawn.body.shape);
}

static proto_error_code parse_fields(const char *line, size_t len, const cJSON *root, int dim,
                                     proto_msg *out, proto_error *err)
{
    const cJSON *v;
    proto_error_code rc;
    switch (out->type) {
    case PROTO_MSG_HELLO:
        return parse_hello(root, dim, out, err);
    case PROTO_MSG_SPAWN:
        if ((rc = required(root, "body", &v, err)))
            return rc;
        return no_files(proto_parse_spec(v, dim, "body.", &out->u.spawn.body, err),
                        &out->u.spawn.body, "body.", err);
    case PROTO_MSG_DESPAWN:
        return proto_get_id(root, "id", true, NULL, &out->u.despawn.id, err);
    case PROTO_MSG_INPUT:
        return parse_input(root, dim, out, err);
    case PROTO_MSG_QUERY:
        return parse_query(root, dim, out, err);
    case PROTO_MSG_SUBSCRIBE:
        return parse_subscribe(root, out, err);
    case PROTO_MSG_PING:
        if ((rc = required(root, "t", &v, err)))
            return rc;
        return proto_get_echo(line, len, v, "t", out->u.ping.t, err);
    case PROTO_MSG_BYE:
        return PROTO_OK;
    case PROTO_MSG_RAYCAST:
    case PROTO_MSG_CAST:
    case PROTO_MSG_OVERLAP:
        return proto_parse_world_query(root, dim, out->type, &out->u.wq, err);
    case PROTO_MSG_PUSH:
    case PROTO_MSG_SET:
    case PROTO_MSG_EXPLODE:
        return proto_parse_motion(root, dim, out, err);
    case PROTO_MSG_ACTION:
    case PROTO_MSG_EMIT:
        return proto_parse_action(root, out, err);
    case PROTO_MSG_JOINT:
        if ((rc = required(root, "joint", &v, err)))
            return rc;
        return proto_parse_joint_spec(v, dim, "joint.", &out->u.joint, err);
    case PROTO_MSG_UNJOINT:
        return proto_get_id(root, "id", true, NULL, &out->u.unjoint.id, err);
    }
    return PROTO_OK;
}

proto_error_code proto_parse(const char *line, size_t len, int dim, proto_msg *out,
                             proto_error *err)
{
    err->code = PROTO_OK;
    err->message[0] = '\0';
    out->has_req = false;
    out->req[0] = '\0';

    if (!proto_utf8_valid(line, len))
        return proto_fail(err, PROTO_ERR_BAD_JSON, "not valid UTF-8");
    const char *bad = proto_json_precheck(line, len, PROTO_MAX_DEPTH);
    if (bad)
        return proto_fail(err, PROTO_ERR_BAD_JSON, "not valid JSON: %s", bad);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(line, len, &end, false);
    if (!root)
        return proto_fail(err, PROTO_ERR_BAD_JSON, "not valid JSON (at byte %zu)",
                          end && end >= line ? (size_t)(end - line) : (size_t)0);
    /* One value per line: anything but whitespace after it is a syntax error. */
    for (const char *p = end; p && p < line + len; p++) {
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
            cJSON_Delete(root);
            return proto_fail(err, PROTO_ERR_BAD_JSON,
                              "not valid JSON (text after the object at byte %zu)",
                              (size_t)(p - line));
        }
    }

    proto_error_code rc = PROTO_OK;
    if (!cJSON_IsObject(root)) {
        rc = proto_fail(err, PROTO_ERR_BAD_REQUEST, "a message must be a JSON object");
        goto done;
    }
    /* `req` first, so that every later error can echo it. */
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(root, "req");
    if (req) {
        if ((rc = proto_get_echo(line, len, req, "req", out->req, err)))
            goto done;
        out->has_req = true;
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    if (!type) {
        rc = proto_fail(err, PROTO_ERR_BAD_REQUEST, "type: missing");
        goto done;
    }
    if (!cJSON_IsString(type)) {
        rc = proto_fail(err, PROTO_ERR_BAD_REQUEST, "type: must be a string");
        goto done;
    }
    int t = 0, nt = (int)(sizeof msg_names / sizeof msg_names[0]);
    while (t < nt && strcmp(msg_names[t], type->valuestring) != 0)
        t++;
    if (t == nt) {
        rc = proto_fail(err, PROTO_ERR_UNKNOWN_TYPE, "unknown message type '%.64s'",
                        type->valuestring);
        goto done;
    }
    out->type = (proto_msg_type)t;
    rc = parse_fields(line, len, root, dim, out, err);
done:
    cJSON_Delete(root);
    return rc;
}
