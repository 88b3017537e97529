/* Typed fields of a parsed message: each checks presence, JSON type, finiteness and range, and
 * names the field's path in the error (PROTOCOL.md, "Errors"). */
#include "parse_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ---- */

proto_error_code proto_fail(proto_error *err, proto_error_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->code = code;
    return code;
}
/* ---- fields ---- */

static bool is_integer(double v)
{
    return isfinite(v) && floor(v) == v;
}

proto_error_code proto_get_number(const cJSON *obj, const char *key, const char *path,
                                  bool required, double lo, double hi, double *out,
                                  proto_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (required)
            return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: missing", path, key);
        return PROTO_OK;
    }
    if (!cJSON_IsNumber(v))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: must be a number", path, key);
    if (!isfinite(v->valuedouble))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: must be a finite number", path, key);
    if (v->valuedouble < lo || v->valuedouble > hi)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: must be in [%g, %g]", path, key, lo,
                          hi);
    *out = v->valuedouble;
    return PROTO_OK;
}

proto_error_code proto_get_id(const cJSON *obj, const char *key, bool required, bool *present,
                              uint64_t *out, proto_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (present)
        *present = v != NULL;
    if (!v) {
        if (required)
            return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: missing", key);
        return PROTO_OK;
    }
    if (!cJSON_IsNumber(v) || !is_integer(v->valuedouble) || v->valuedouble < 0 ||
        v->valuedouble > PROTO_MAX_ID)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: must be an integer in [0, 2^53]", key);
    *out = (uint64_t)v->valuedouble;
    return PROTO_OK;
}

proto_error_code proto_get_bool(const cJSON *obj, const char *key, bool *present, bool *out,
                                proto_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (present)
        *present = v != NULL;
    if (!v)
        return PROTO_OK;
    if (!cJSON_IsBool(v))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: must be true or false", key);
    *out = cJSON_IsTrue(v);
    return PROTO_OK;
}

/* Copies a string field of at most max bytes (UTF-8 was checked for the whole line). */
proto_error_code proto_get_string(const cJSON *obj, const char *key, const char *path, size_t max,
                                  char *out, proto_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return PROTO_OK;
    if (!cJSON_IsString(v))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: must be a string", path, key);
    size_t n = strlen(v->valuestring);
    if (n > max)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: longer than %zu bytes", path, key,
                          max);
    memcpy(out, v->valuestring, n + 1);
    return PROTO_OK;
}

proto_error_code proto_parse_vector(const cJSON *json, int dim, double max_abs, const char *path,
                                    double *out, proto_error *err)
{
    if (!cJSON_IsArray(json) || cJSON_GetArraySize(json) != dim)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: must be an array of %d numbers", path,
                          dim);
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, json)
    {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
            return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s[%d]: must be a finite number", path,
                              i);
        if (fabs(v->valuedouble) > max_abs)
            return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s[%d]: must be in [%g, %g]", path, i,
                              -max_abs, max_abs);
        out[i++] = v->valuedouble;
    }
    return PROTO_OK;
}

/* A vector of sizes, each in [PROTO_MIN_SIZE, PROTO_MAX_SIZE]. */
proto_error_code proto_get_sizes(const cJSON *obj, const char *key, const char *path, int n,
                                 double *out, proto_error *err)
{
    char p[128];
    snprintf(p, sizeof p, "%s%s", path, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: missing", p);
    proto_error_code rc = proto_parse_vector(v, n, INFINITY, p, out, err);
    if (rc)
        return rc;
    for (int i = 0; i < n; i++)
        if (out[i] < PROTO_MIN_SIZE || out[i] > PROTO_MAX_SIZE)
            return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s[%d]: must be in [%g, %g]", p, i,
                              PROTO_MIN_SIZE, PROTO_MAX_SIZE);
    return PROTO_OK;
}

proto_error_code proto_get_points(const cJSON *obj, const char *path, int dim, int min_points,
                                  proto_shape *shape, proto_error *err)
{
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(obj, "points");
    if (!pts)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%spoints: missing", path);
    int n = cJSON_IsArray(pts) ? cJSON_GetArraySize(pts) : -1;
    if (n < min_points || n > PROTO_MAX_POINTS)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                          "%spoints: must be an array of %d to %d points", path, min_points,
                          PROTO_MAX_POINTS);
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, pts)
    {
        char p[128];
        snprintf(p, sizeof p, "%spoints[%d]", path, i);
        proto_error_code rc = proto_parse_vector(v, dim, PROTO_MAX_COORD, p, shape->points[i], err);
        if (rc)
            return rc;
        i++;
    }
    shape->npoints = n;
    return PROTO_OK;
}
