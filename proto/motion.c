/* Acting on bodies (an extension): `push`, `set` and `explode` parsed and validated, and their
 * answers, `pushed`, `updated` and `exploded`, written. Every number is checked finite and in
 * range here, so that the world is asked only what it can do. */
#include <string.h>

#include "parse_internal.h"

#define LIT(b, s) proto_buf_append((b), (s), sizeof(s) - 1)

/* An optional vector at root.key (*has says whether it is there). */
static proto_error_code optional_vec(const cJSON *root, const char *key, int dim, double max_abs,
                                     bool *has, double *out, proto_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    out[0] = out[1] = out[2] = 0;
    *has = v != NULL;
    return v ? proto_parse_vector(v, dim, max_abs, key, out, err) : PROTO_OK;
}

static proto_error_code required_vec(const cJSON *root, const char *key, int dim, double max_abs,
                                     double *out, proto_error *err)
{
    bool has;
    proto_error_code rc = optional_vec(root, key, dim, max_abs, &has, out, err);
    if (rc == PROTO_OK && !has)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: missing", key);
    return rc;
}

static proto_error_code parse_push(const cJSON *root, int dim, proto_push *p, proto_error *err)
{
    proto_error_code rc;
    if ((rc = proto_get_id(root, "id", true, NULL, &p->id, err)) ||
        (rc = required_vec(root, "impulse", dim, PROTO_MAX_IMPULSE, p->impulse, err)))
        return rc;
    return optional_vec(root, "point", dim, PROTO_MAX_COORD, &p->has_point, p->point, err);
}

static proto_error_code parse_set(const cJSON *root, int dim, proto_set *p, proto_error *err)
{
    proto_error_code rc;
    if ((rc = proto_get_id(root, "id", true, NULL, &p->id, err)) ||
        (rc = optional_vec(root, "pos", dim, PROTO_MAX_COORD, &p->has_pos, p->pos, err)) ||
        (rc = optional_vec(root, "vel", dim, PROTO_MAX_VEL, &p->has_vel, p->vel, err)))
        return rc;
    p->has_rot = cJSON_GetObjectItemCaseSensitive(root, "rot") != NULL;
    if ((rc = proto_parse_rot(root, dim, "", p->rot, err)))
        return rc;
    /* The spin: a number in 2D (about z), a vector in 3D. */
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(root, "w");
    p->has_w = w != NULL;
    p->w[0] = p->w[1] = p->w[2] = 0;
    if (w && dim == 3 && (rc = proto_parse_vector(w, 3, PROTO_MAX_VEL, "w", p->w, err)))
        return rc;
    if (w && dim == 2) {
        if ((rc = proto_get_number(root, "w", "", true, -PROTO_MAX_VEL, PROTO_MAX_VEL, &p->w[2],
                                   err)))
            return rc;
    }
    if (!p->has_pos && !p->has_rot && !p->has_vel && !p->has_w)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "set: give at least one of pos, rot, vel, w");
    return PROTO_OK;
}

static proto_error_code parse_explode(const cJSON *root, int dim, proto_explode *p,
                                      proto_error *err)
{
    proto_error_code rc;
    p->pos[2] = 0;
    if ((rc = required_vec(root, "pos", dim, PROTO_MAX_COORD, p->pos, err)) ||
        (rc = proto_get_number(root, "radius", "", true, 0, PROTO_MAX_RADIUS, &p->radius, err)) ||
        (rc = proto_get_number(root, "impulse", "", true, -PROTO_MAX_IMPULSE, PROTO_MAX_IMPULSE,
                               &p->impulse, err)) ||
        (rc = proto_get_mask(root, &p->mask, err)))
        return rc;
    if (!(p->radius > 0))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "radius: must be greater than 0");
    return PROTO_OK;
}

proto_error_code proto_parse_motion(const cJSON *root, int dim, proto_msg *out, proto_error *err)
{
    switch (out->type) {
    case PROTO_MSG_PUSH:
        return parse_push(root, dim, &out->u.push, err);
    case PROTO_MSG_SET:
        return parse_set(root, dim, &out->u.set, err);
    default:
        return parse_explode(root, dim, &out->u.explode, err);
    }
}

static void answer(proto_buf *b, const char *type, const char *req, const char *key, uint64_t v)
{
    LIT(b, "{\"type\":\"");
    proto_buf_append_str(b, type);
    proto_buf_append_char(b, '"');
    if (req) {
        LIT(b, ",\"req\":");
        proto_buf_append_str(b, req);
    }
    proto_buf_append_str(b, key);
    proto_buf_append_u64(b, v);
    LIT(b, "}\n");
}

void proto_write_pushed(proto_buf *b, const char *req, uint64_t id)
{
    answer(b, "pushed", req, ",\"id\":", id);
}

void proto_write_updated(proto_buf *b, const char *req, uint64_t id)
{
    answer(b, "updated", req, ",\"id\":", id);
}

void proto_write_exploded(proto_buf *b, const char *req, uint64_t bodies)
{
    answer(b, "exploded", req, ",\"bodies\":", bodies);
}
