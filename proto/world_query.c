/* The world queries' messages (an extension): `raycast`, `cast` and `overlap` parsed and
 * validated, and their answer, `hits`, written. */
#include <string.h>

#include "parse_internal.h"

#define LIT(b, s) proto_buf_append((b), (s), sizeof(s) - 1)
#define DEC_HIT 6 /* decimals: 1 micrometre, the queries' own accuracy is about that */

static proto_error_code parse_vec(const cJSON *root, const char *key, int dim, double *out,
                                  proto_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!v)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: missing", key);
    out[2] = 0;
    return proto_parse_vector(v, dim, PROTO_MAX_COORD, key, out, err);
}

static bool same_point(const double *a, const double *b)
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* `ignore`: at most PROTO_MAX_IGNORE ids; `kinds`: body kinds by name, at least one. */
static proto_error_code parse_filter(const cJSON *root, proto_world_query *out, proto_error *err)
{
    out->nignore = 0;
    out->kinds = 0;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "ignore");
    if (v) {
        if (!cJSON_IsArray(v))
            return proto_fail(err, PROTO_ERR_BAD_REQUEST, "ignore: must be an array of ids");
        int n = cJSON_GetArraySize(v);
        if (n > PROTO_MAX_IGNORE)
            return proto_fail(err, PROTO_ERR_BAD_REQUEST, "ignore: at most %d ids (got %d)",
                              PROTO_MAX_IGNORE, n);
        int i = 0;
        for (const cJSON *e = v->child; e; e = e->next, i++) {
            if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble > PROTO_MAX_ID ||
                e->valuedouble != (double)(uint64_t)e->valuedouble)
                return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                                  "ignore[%d]: must be an integer in [0, 2^53]", i);
            out->ignore[out->nignore++] = (uint64_t)e->valuedouble;
        }
    }
    v = cJSON_GetObjectItemCaseSensitive(root, "kinds");
    if (v) {
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0)
            return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                              "kinds: must be a non-empty array of body kinds");
        int i = 0;
        for (const cJSON *e = v->child; e; e = e->next, i++) {
            int k = cJSON_IsString(e) ? proto_kind_of(e->valuestring) : -1;
            if (k < 0)
                return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                                  "kinds[%d]: must be one of dynamic, static, kinematic, character",
                                  i);
            out->kinds |= 1u << k;
        }
    }
    return PROTO_OK;
}

proto_error_code proto_parse_world_query(const cJSON *root, int dim, proto_msg_type type,
                                         proto_world_query *out, proto_error *err)
{
    memset(out->from, 0, sizeof out->from);
    memset(out->to, 0, sizeof out->to);
    out->all = false;
    proto_error_code rc;
    if (type == PROTO_MSG_RAYCAST) {
        if ((rc = parse_vec(root, "from", dim, out->from, err)) ||
            (rc = parse_vec(root, "to", dim, out->to, err)))
            return rc;
        if (same_point(out->from, out->to))
            return proto_fail(err, PROTO_ERR_BAD_REQUEST, "to: the ray has zero length");
        if ((rc = proto_get_bool(root, "all", NULL, &out->all, err)))
            return rc;
    } else {
        if ((rc = proto_parse_placed(root, dim, "", out->shape.pos, out->shape.rot,
                                     &out->shape.shape, false, err)))
            return rc;
        if (type == PROTO_MSG_CAST) {
            if ((rc = parse_vec(root, "to", dim, out->to, err)))
                return rc;
            if (same_point(out->shape.pos, out->to))
                return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                                  "to: the cast has zero length (to equals pos)");
        }
    }
    if ((rc = proto_get_id(root, "at_tick", false, &out->has_at_tick, &out->at_tick, err)) ||
        (rc = proto_get_mask(root, &out->mask, err)))
        return rc;
    return parse_filter(root, out, err);
}

proto_error_code proto_get_mask(const cJSON *root, uint64_t *out, proto_error *err)
{
    *out = 0;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "mask");
    if (!v)
        return PROTO_OK;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 1 && v->valuedouble <= PROTO_MAX_ID) ||
        v->valuedouble != (double)(uint64_t)v->valuedouble)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                          "mask: must be a whole number in [1, 2^53] (categories' bits)");
    *out = (uint64_t)v->valuedouble;
    return PROTO_OK;
}

void proto_write_point_normal(proto_buf *b, const double *point, int point_decimals,
                              const double *normal, int normal_decimals, int dim)
{
    LIT(b, ",\"point\":");
    proto_buf_append_fixed_array(b, point, dim, point_decimals);
    LIT(b, ",\"normal\":");
    proto_buf_append_fixed_array(b, normal, dim, normal_decimals);
}

void proto_write_hits(proto_buf *b, const char *req, int dim, uint64_t tick, bool overlap,
                      const proto_hit *hits, size_t n)
{
    LIT(b, "{\"type\":\"hits\"");
    if (req) {
        LIT(b, ",\"req\":");
        proto_buf_append_str(b, req);
    }
    LIT(b, ",\"tick\":");
    proto_buf_append_u64(b, tick);
    LIT(b, ",\"hits\":[");
    for (size_t i = 0; i < n; i++) {
        const proto_hit *h = &hits[i];
        if (i)
            proto_buf_append_char(b, ',');
        LIT(b, "{\"id\":");
        proto_buf_append_u64(b, h->id);
        if (overlap) {
            LIT(b, ",\"depth\":");
            proto_buf_append_fixed(b, h->depth, DEC_HIT);
            LIT(b, ",\"normal\":");
            proto_buf_append_fixed_array(b, h->normal, dim, DEC_HIT);
            LIT(b, ",\"points\":");
            proto_buf_append_fixed_points(b, h->points, h->npoints, dim, DEC_HIT);
            proto_buf_append_char(b, '}');
            continue;
        }
        proto_write_point_normal(b, h->point, DEC_HIT, h->normal, DEC_HIT, dim);
        LIT(b, ",\"fraction\":");
        proto_buf_append_fixed(b, h->fraction, 7);
        proto_buf_append_char(b, '}');
    }
    LIT(b, "]}\n");
}
