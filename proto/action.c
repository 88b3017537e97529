/* A game's messages (an extension): `action {req?, name, data?}`, a player's command for the
 * game's rules, and `emit {req?, to?, name, data?}`, a `game` connection's message to players,
 * parsed and bounded; their answer `done` and the `event {name, data}` lines that carry a
 * game's messages to clients, written. */
#include <stdlib.h>
#include <string.h>

#include "parse_internal.h"

#define LIT(b, s) proto_buf_append((b), (s), sizeof(s) - 1)

proto_error_code proto_parse_action(const cJSON *root, proto_msg *out, proto_error *err)
{
    proto_action *a = &out->u.action;
    proto_error_code rc;
    a->name[0] = '\0';
    a->data[0] = '\0';
    a->data_len = 0;
    a->has_to = false;
    a->to = 0;
    if (!cJSON_GetObjectItemCaseSensitive(root, "name"))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "name: missing");
    if ((rc = proto_get_string(root, "name", "", PROTO_MAX_ACTION_NAME, a->name, err)))
        return rc;
    if (a->name[0] == '\0')
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "name: must not be empty");
    if (out->type == PROTO_MSG_EMIT) {
        uint64_t to = 0;
        if ((rc = proto_get_id(root, "to", false, &a->has_to, &to, err)))
            return rc;
        if (a->has_to && (to == 0 || to > UINT32_MAX))
            return proto_fail(err, PROTO_ERR_BAD_REQUEST, "to: a client id in [1, %u]",
                              UINT32_MAX);
        a->to = (uint32_t)to;
    }
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(root, "data");
    if (!data || cJSON_IsNull(data))
        return PROTO_OK;
    char *text = cJSON_PrintUnformatted(data);
    if (!text)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "data: cannot be read");
    size_t n = strlen(text);
    if (n > PROTO_MAX_ACTION_DATA) {
        free(text);
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "data: longer than %d bytes as JSON",
                          PROTO_MAX_ACTION_DATA);
    }
    memcpy(a->data, text, n + 1);
    a->data_len = n;
    free(text);
    return PROTO_OK;
}

void proto_write_done(proto_buf *b, const char *req)
{
    LIT(b, "{\"type\":\"done\"");
    if (req) {
        LIT(b, ",\"req\":");
        proto_buf_append_str(b, req);
    }
    LIT(b, "}\n");
}

void proto_write_game_event(proto_buf *b, const char *name, const char *data, size_t len)
{
    LIT(b, "{\"type\":\"event\",\"name\":");
    proto_buf_append_json_string(b, name);
    if (len > 0) {
        LIT(b, ",\"data\":");
        proto_buf_append(b, data, len);
    }
    LIT(b, "}\n");
}
