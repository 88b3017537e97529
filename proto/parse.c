/* Client messages: JSON line -> validated C struct (PROTOCOL.md, "Client to server").
 *
 * Everything here comes from the network or a file and is untrusted. The order of the checks is
 * fixed so that each kind of bad input gets one well-defined error code: bytes (UTF-8), then
 * syntax and nesting (bad_json), then the envelope (an object with a string `type`), the type
 * (unknown_type), and last the fields (bad_request, the message naming the field's path). */
#include "mink_proto.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HALF_PI 1.5707963267948966 /* rad: the steepest max_slope, a wall */

/* ---- names ---- */

static const char *const error_names[] = {
    [PROTO_OK] = "ok",
    [PROTO_ERR_BAD_JSON] = "bad_json",
    [PROTO_ERR_BAD_REQUEST] = "bad_request",
    [PROTO_ERR_UNKNOWN_TYPE] = "unknown_type",
    [PROTO_ERR_NOT_JOINED] = "not_joined",
    [PROTO_ERR_NOT_OWNER] = "not_owner",
    [PROTO_ERR_NOT_FOUND] = "not_found",
    [PROTO_ERR_QUOTA] = "quota",
    [PROTO_ERR_RATE_LIMITED] = "rate_limited",
    [PROTO_ERR_LINE_TOO_LONG] = "line_too_long",
    [PROTO_ERR_SERVER_FULL] = "server_full",
    [PROTO_ERR_SHUTDOWN] = "shutdown",
};

const char *proto_error_name(proto_error_code code)
{
    if ((unsigned)code >= sizeof error_names / sizeof error_names[0])
        return "bad_request";
    return error_names[code];
}

static const char *const shape_names[PROTO_SHAPE_COUNT] = {
    [PROTO_SHAPE_AABB] = "aabb",         [PROTO_SHAPE_BOX] = "box",
    [PROTO_SHAPE_CIRCLE] = "circle",     [PROTO_SHAPE_POLYGON] = "polygon",
    [PROTO_SHAPE_SPHERE] = "sphere",     [PROTO_SHAPE_ELLIPSOID] = "ellipsoid",
    [PROTO_SHAPE_CAPSULE] = "capsule",   [PROTO_SHAPE_CYLINDER] = "cylinder",
    [PROTO_SHAPE_CONE] = "cone",         [PROTO_SHAPE_HULL] = "hull",
};

const char *proto_shape_name(proto_shape_type type)
{
    if ((unsigned)type >= PROTO_SHAPE_COUNT)
        return "?";
    return shape_names[type];
}

static const char *const kind_names[] = {
    [PROTO_KIND_DYNAMIC] = "dynamic",
    [PROTO_KIND_STATIC] = "static",
    [PROTO_KIND_KINEMATIC] = "kinematic",
    [PROTO_KIND_CHARACTER] = "character",
};

const char *proto_kind_name(proto_body_kind kind)
{
    if ((unsigned)kind >= sizeof kind_names / sizeof kind_names[0])
        return "?";
    return kind_names[kind];
}

/* ---- errors ---- */

static proto_error_code fail(proto_error *err, proto_error_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->code = code;
    return code;
}

/* ---- bytes ---- */

bool proto_utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        unsigned c = *p;
        if (c < 0x80) {
            p++;
            continue;
        }
        size_t need;
        unsigned cp, min;
        if (c >= 0xc2 && c <= 0xdf) {
            need = 1, cp = c & 0x1f, min = 0x80;
        } else if (c >= 0xe0 && c <= 0xef) {
            need = 2, cp = c & 0x0f, min = 0x800;
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3, cp = c & 0x07, min = 0x10000;
        } else {
            return false; /* continuation byte, overlong lead (c0, c1) or past U+10FFFF */
        }
        if ((size_t)(end - p) <= need)
            return false;
        for (size_t i = 1; i <= need; i++) {
            if ((p[i] & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (p[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        p += need + 1;
    }
    return true;
}

/* Checks what cJSON lets through: nesting deeper than `limit` (refused before cJSON recurses
 * into it) and raw control characters inside strings (JSON requires them escaped). Returns
 * NULL or the reason. */
#define MINK_STR2(x) #x
#define MINK_STR(x) MINK_STR2(x)

static const char *prescan(const char *s, size_t n, int limit)
{
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (in_string) {
            if (c < 0x20)
                return "a control character inside a string must be escaped";
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c < 0x20 && c != '\t' && c != '\r' && c != '\n') {
            return "a control character is not whitespace";
        } else if (c == '[' || c == '{') {
            if (++depth > limit)
                return "nested deeper than " MINK_STR(PROTO_MAX_DEPTH) " levels";
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return NULL;
}

static size_t skip_ws(const char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        i++;
    return i;
}

/* The end of the string that starts at s[i] (a quote), past its closing quote. */
static size_t skip_string(const char *s, size_t n, size_t i)
{
    for (i++; i < n && s[i] != '"'; i++)
        if (s[i] == '\\')
            i++;
    return i + 1;
}

static size_t skip_value(const char *s, size_t n, size_t i)
{
    if (s[i] == '"')
        return skip_string(s, n, i);
    if (s[i] == '{' || s[i] == '[') {
        int depth = 0;
        while (i < n) {
            if (s[i] == '"') {
                i = skip_string(s, n, i);
                continue;
            }
            if (s[i] == '{' || s[i] == '[')
                depth++;
            else if ((s[i] == '}' || s[i] == ']') && --depth == 0)
                return i + 1;
            i++;
        }
        return n;
    }
    while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\t' &&
           s[i] != '\r' && s[i] != '\n')
        i++;
    return i;
}

/* The text of the first top-level member `key` of a JSON object that cJSON has accepted, so
 * that `req` and `t` are echoed as sent: cJSON keeps numbers as doubles, and an id like
 * 1700000000123456789 would come back rounded. Returns false when the key is not there as
 * plain text (an escaped key name: the caller then prints cJSON's value). */
static bool raw_member(const char *s, size_t n, const char *key, size_t *start, size_t *end)
{
    size_t klen = strlen(key);
    size_t i = skip_ws(s, n, 0);
    if (i >= n || s[i] != '{')
        return false;
    i = skip_ws(s, n, i + 1);
    while (i < n && s[i] == '"') {
        size_t kend = skip_string(s, n, i);
        bool match = kend - i - 2 == klen && memcmp(s + i + 1, key, klen) == 0;
        i = skip_ws(s, n, kend);
        if (i >= n || s[i] != ':')
            return false;
        i = skip_ws(s, n, i + 1);
        if (i >= n)
            return false;
        size_t vend = skip_value(s, n, i);
        if (match) {
            *start = i;
            *end = vend;
            return true;
        }
        i = skip_ws(s, n, vend);
        if (i >= n || s[i] != ',')
            return false;
        i = skip_ws(s, n, i + 1);
    }
    return false;
}

/* ---- fields ---- */

static bool is_integer(double v)
{
    return isfinite(v) && floor(v) == v;
}

static proto_error_code get_number(const cJSON *obj, const char *key, const char *path,
                                   bool required, double lo, double hi, double *out,
                                   proto_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (required)
            return fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: missing", path, key);
        return PROTO_OK;
    }
    if (!cJSON_IsNumber(v))
        return fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: must be a number", path, key);
    if (!isfinite(v->valuedouble))
        return fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: must be a finite number", path, key);
    if (v->valuedouble < lo || v->valuedouble > hi)
        return fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: must be in [%g, %g]", path, key, lo, hi);
    *out = v->valuedouble;
    return PROTO_OK;
}

static proto_error_code get_id(const cJSON *obj, const char *key, bool required, bool *present,
                               uint64_t *out, proto_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (present)
        *present = v != NULL;
    if (!v) {
        if (required)
            return fail(err, PROTO_ERR_BAD_REQUEST, "%s: missing", key);
        return PROTO_OK;
    }
    if (!cJSON_IsNumber(v) || !is_integer(v->valuedouble) || v->valuedouble < 0 ||
        v->valuedouble > PROTO_MAX_ID)
        return fail(err, PROTO_ERR_BAD_REQUEST, "%s: must be an integer in [0, 2^53]", key);
    *out = (uint64_t)v->valuedouble;
    return PROTO_OK;
}

static proto_error_code get_bool(const cJSON *obj, const char *key, bool *present, bool *out,
                                 proto_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (present)
        *present = v != NULL;
    if (!v)
        return PROTO_OK;
    if (!cJSON_IsBool(v))
        return fail(err, PROTO_ERR_BAD_REQUEST, "%s: must be true or false", key);
    *out = cJSON_IsTrue(v);
    return PROTO_OK;
}

/* Copies a string field of at most max bytes (UTF-8 was checked for the whole line). */
static proto_error_code get_string(const cJSON *obj, const char *key, const char *path,
                                   size_t max, char *out, proto_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return PROTO_OK;
    if (!cJSON_IsString(v))
        return fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: must be a string", path, key);
    size_t n = strlen(v->valuestring);
    if (n > max)
        return fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: longer than %zu bytes", path, key, max);
    memcpy(out, v->valuestring, n + 1);
    return PROTO_OK;
}

/* Compact JSON of a member, for `req` and `t`: the client's own text without the whitespace
 * outside strings, refused past PROTO_MAX_ECHO bytes. */
static proto_error_code get_echo(const char *line, size_t len, const cJSON *v, const char *key,
                                 char *out, proto_error *err)
{
    size_t start, end, n = 0;
    if (raw_member(line, len, key, &start, &end)) {
        bool in_string = false;
        for (size_t i = start; i < end; i++) {
            char c = line[i];
            if (!in_string && (c == ' ' || c == '\t' || c == '\r' || c == '\n'))
                continue;
            if (n == PROTO_MAX_ECHO)
                return fail(err, PROTO_ERR_BAD_REQUEST, "%s: longer than %d bytes as JSON", key,
                            PROTO_MAX_ECHO);
            out[n++] = c;
            if (in_string && c == '\\' && i + 1 < end) {
                if (n == PROTO_MAX_ECHO)
                    return fail(err, PROTO_ERR_BAD_REQUEST, "%s: longer than %d bytes as JSON",
                                key, PROTO_MAX_ECHO);
                out[n++] = line[++i];
            } else if (c == '"') {
                in_string = !in_string;
            }
        }
        out[n] = '\0';
        return PROTO_OK;
    }
    char *text = cJSON_PrintUnformatted(v);
    if (!text)
        return fail(err, PROTO_ERR_BAD_REQUEST, "%s: cannot be echoed", key);
    n = strlen(text);
    if (n > PROTO_MAX_ECHO) {
        free(text);
        return fail(err, PROTO_ERR_BAD_REQUEST, "%s: longer than %d bytes as JSON", key,
                    PROTO_MAX_ECHO);
    }
    memcpy(out, text, n + 1);
    free(text);
    return PROTO_OK;
}

proto_error_code proto_parse_vector(const cJSON *json, int dim, double max_abs, const char *path,
                                    double *out, proto_error *err)
{
    if (!cJSON_IsArray(json) || cJSON_GetArraySize(json) != dim)
        return fail(err, PROTO_ERR_BAD_REQUEST, "%s: must be an array of %d numbers", path, dim);
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, json)
    {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
            return fail(err, PROTO_ERR_BAD_REQUEST, "%s[%d]: must be a finite number", path, i);
        if (fabs(v->valuedouble) > max_abs)
            return fail(err, PROTO_ERR_BAD_REQUEST, "%s[%d]: must be in [%g, %g]", path, i,
                        -max_abs, max_abs);
        out[i++] = v->valuedouble;
    }
    return PROTO_OK;
}

/* A vector of sizes, each in [PROTO_MIN_SIZE, PROTO_MAX_SIZE]. */
static proto_error_code get_sizes(const cJSON *obj, const char *key, const char *path, int n,
                                  double *out, proto_error *err)
{
    char p[128];
    snprintf(p, sizeof p, "%s%s", path, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return fail(err, PROTO_ERR_BAD_REQUEST, "%s: missing", p);
    proto_error_code rc = proto_parse_vector(v, n, INFINITY, p, out, err);
    if (rc)
        return rc;
    for (int i = 0; i < n; i++)
        if (out[i] < PROTO_MIN_SIZE || out[i] > PROTO_MAX_SIZE)
            return fail(err, PROTO_ERR_BAD_REQUEST, "%s[%d]: must be in [%g, %g]", p, i,
                        PROTO_MIN_SIZE, PROTO_MAX_SIZE);
    return PROTO_OK;
}

static proto_error_code get_points(const cJSON *obj, const char *path, int dim, int min_points,
                                   proto_shape *shape, proto_error *err)
{
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(obj, "points");
    if (!pts)
        return fail(err, PROTO_ERR_BAD_REQUEST, "%spoints: missing", path);
    int n = cJSON_IsArray(pts) ? cJSON_GetArraySize(pts) : -1;
    if (n < min_points || n > PROTO_MAX_POINTS)
        return fail(err, PROTO_ERR_BAD_REQUEST, "%spoints: must be an array of %d to %d points",
                    path, min_points, PROTO_MAX_POINTS);
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

static bool shape_in_dim(proto_shape_type t, int dim)
{
    switch (t) {
    case PROTO_SHAPE_BOX:
        return true;
    case PROTO_SHAPE_AABB:
    case PROTO_SHAPE_CIRCLE:
    case PROTO_SHAPE_POLYGON:
        return dim == 2;
    default:
        return dim == 3;
    }
}

/* path ends in "shape." so that fields read "body.shape.half". */
static proto_error_code parse_shape(const cJSON *json, int dim, const char *path,
                                    proto_shape *out, proto_error *err)
{
    memset(out, 0, sizeof *out - sizeof out->points);
    if (!cJSON_IsObject(json))
        return fail(err, PROTO_ERR_BAD_REQUEST, "%.*s: must be an object", (int)strlen(path) - 1,
                    path);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(json, "type");
    if (!cJSON_IsString(type))
        return fail(err, PROTO_ERR_BAD_REQUEST, "%stype: must be a shape name", path);
    int t = 0;
    while (t < PROTO_SHAPE_COUNT && strcmp(shape_names[t], type->valuestring) != 0)
        t++;
    if (t == PROTO_SHAPE_COUNT)
        return fail(err, PROTO_ERR_BAD_REQUEST, "%stype: unknown shape '%.32s'", path,
                    type->valuestring);
    if (!shape_in_dim((proto_shape_type)t, dim))
        return fail(err, PROTO_ERR_BAD_REQUEST, "%stype: '%s' is a %dD shape; this world is %dD",
                    path, shape_names[t], dim == 2 ? 3 : 2, dim);
    out->type = (proto_shape_type)t;
    double r[1];
    proto_error_code rc = PROTO_OK;
    switch (out->type) {
    case PROTO_SHAPE_AABB:
    case PROTO_SHAPE_BOX:
        return get_sizes(json, "half", path, dim, out->half, err);
    case PROTO_SHAPE_CIRCLE:
    case PROTO_SHAPE_SPHERE:
        rc = get_number(json, "radius", path, true, PROTO_MIN_SIZE, PROTO_MAX_SIZE, r, err);
        out->radius = r[0];
        return rc;
    case PROTO_SHAPE_ELLIPSOID:
        return get_sizes(json, "radii", path, 3, out->radii, err);
    case PROTO_SHAPE_CAPSULE:
    case PROTO_SHAPE_CYLINDER:
    case PROTO_SHAPE_CONE:
        rc = get_number(json, "radius", path, true, PROTO_MIN_SIZE, PROTO_MAX_SIZE, r, err);
        out->radius = r[0];
        if (rc)
            return rc;
        rc = get_number(json, "half_height", path, true, PROTO_MIN_SIZE, PROTO_MAX_SIZE, r, err);
        out->half_height = r[0];
        return rc;
    case PROTO_SHAPE_POLYGON:
        return get_points(json, path, 2, 3, out, err);
    case PROTO_SHAPE_HULL:
        return get_points(json, path, 3, 4, out, err);
    case PROTO_SHAPE_COUNT:
        break;
    }
    return rc;
}

/* `rot`: an angle in 2D; in 3D a quaternion [x, y, z, w], normalised, a zero one refused. */
static proto_error_code parse_rot(const cJSON *obj, int dim, const char *path, double *rot,
                                  proto_error *err)
{
    rot[0] = rot[1] = rot[2] = 0;
    rot[3] = dim == 3 ? 1 : 0;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "rot");
    if (!v)
        return PROTO_OK;
    char p[96];
    snprintf(p, sizeof p, "%srot", path);
    if (dim == 2) {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
            return fail(err, PROTO_ERR_BAD_REQUEST, "%s: must be an angle in radians", p);
        if (fabs(v->valuedouble) > PROTO_MAX_ANGLE)
            return fail(err, PROTO_ERR_BAD_REQUEST, "%s: must be in [%g, %g]", p,
                        -PROTO_MAX_ANGLE, PROTO_MAX_ANGLE);
        rot[0] = v->valuedouble;
        return PROTO_OK;
    }
    proto_error_code rc = proto_parse_vector(v, 4, PROTO_MAX_COORD, p, rot, err);
    if (rc)
        return rc;
    double n = sqrt(rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2] + rot[3] * rot[3]);
    if (!(n > 1e-9))
        return fail(err, PROTO_ERR_BAD_REQUEST, "%s: a zero quaternion is not a rotation", p);
    for (int i = 0; i < 4; i++)
        rot[i] /= n;
    return PROTO_OK;
}

static proto_error_code parse_placed(const cJSON *json, int dim, const char *path, double *pos,
                                     double *rot, proto_shape *shape, proto_error *err)
{
    char p[96];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, "shape");
    if (!v)
        return fail(err, PROTO_ERR_BAD_REQUEST, "%sshape: missing", path);
    snprintf(p, sizeof p, "%sshape.", path);
    proto_error_code rc = parse_shape(v, dim, p, shape, err);
    if (rc)
        return rc;
    snprintf(p, sizeof p, "%spos", path);
    v = cJSON_GetObjectItemCaseSensitive(json, "pos");
    if (!v)
        return fail(err, PROTO_ERR_BAD_REQUEST, "%s: missing", p);
    pos[2] = 0;
    rc = proto_parse_vector(v, dim, PROTO_MAX_COORD, p, pos, err);
    if (rc)
        return rc;
    return parse_rot(json, dim, path, rot, err);
}

static proto_error_code parse_spec(const cJSON *json, int dim, const char *path,
                                   proto_body_spec *out, proto_error *err)
{
    /* `path` is the prefix of the fields ("body." or "" ...); without its dot it names the
     * spec itself. */
    if (!cJSON_IsObject(json))
        return fail(err, PROTO_ERR_BAD_REQUEST, "%.*s: must be a body spec object",
                    (int)strlen(path) - 1, path);
    proto_error_code rc = parse_placed(json, dim, path, out->pos, out->rot, &out->shape, err);
    if (rc)
        return rc;
    char p[96];
    out->vel[0] = out->vel[1] = out->vel[2] = 0;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, "vel");
    if (v) {
        snprintf(p, sizeof p, "%svel", path);
        if ((rc = proto_parse_vector(v, dim, PROTO_MAX_VEL, p, out->vel, err)))
            return rc;
    }
    out->kind = PROTO_KIND_DYNAMIC;
    v = cJSON_GetObjectItemCaseSensitive(json, "kind");
    if (v) {
        int k = 0, nk = (int)(sizeof kind_names / sizeof kind_names[0]);
        while (cJSON_IsString(v) && k < nk && strcmp(kind_names[k], v->valuestring) != 0)
            k++;
        if (!cJSON_IsString(v) || k == nk)
            return fail(err, PROTO_ERR_BAD_REQUEST,
                        "%skind: must be one of dynamic, static, kinematic, character", path);
        out->kind = (proto_body_kind)k;
    }
    out->density = PROTO_DEFAULT_DENSITY;
    out->friction = PROTO_DEFAULT_FRICTION;
    out->restitution = PROTO_DEFAULT_RESTITUTION;
    out->max_speed = PROTO_DEFAULT_MAX_SPEED;
    out->jump_height = PROTO_DEFAULT_JUMP_HEIGHT;
    out->max_slope = PROTO_DEFAULT_MAX_SLOPE;
    if ((rc = get_number(json, "density", path, false, 0, PROTO_MAX_DENSITY, &out->density, err)))
        return rc;
    if (!(out->density > 0))
        return fail(err, PROTO_ERR_BAD_REQUEST, "%sdensity: must be greater than 0", path);
    if ((rc = get_number(json, "friction", path, false, 0, PROTO_MAX_FRICTION, &out->friction,
                         err)) ||
        (rc = get_number(json, "restitution", path, false, 0, 1, &out->restitution, err)) ||
        (rc = get_number(json, "max_speed", path, false, 0, PROTO_MAX_SPEED, &out->max_speed,
                         err)) ||
        (rc = get_number(json, "jump_height", path, false, 0, PROTO_MAX_JUMP, &out->jump_height,
                         err)) ||
        (rc = get_number(json, "max_slope", path, false, 0, HALF_PI, &out->max_slope, err)))
        return rc;
    out->tag[0] = '\0';
    return get_string(json, "tag", path, PROTO_MAX_TAG, out->tag, err);
}

proto_error_code proto_parse_body_spec(const cJSON *json, int dim, const char *path,
                                       proto_body_spec *out, proto_error *err)
{
    char prefix[80];
    snprintf(prefix, sizeof prefix, "%s.", path);
    err->has_req = false;
    return parse_spec(json, dim, prefix, out, err);
}

/* ---- messages ---- */

static const char *const msg_names[] = {
    [PROTO_MSG_HELLO] = "hello",         [PROTO_MSG_SPAWN] = "spawn",
    [PROTO_MSG_DESPAWN] = "despawn",     [PROTO_MSG_INPUT] = "input",
    [PROTO_MSG_QUERY] = "query",         [PROTO_MSG_SUBSCRIBE] = "subscribe",
    [PROTO_MSG_PING] = "ping",           [PROTO_MSG_BYE] = "bye",
};

static proto_error_code parse_hello(const cJSON *root, int dim, proto_msg *out,
                                    proto_error *err)
{
    double protocol = 0;
    proto_error_code rc = get_number(root, "protocol", "", true, -PROTO_MAX_ID, PROTO_MAX_ID,
                                     &protocol, err);
    if (rc)
        return rc;
    if (protocol != PROTO_VERSION)
        return fail(err, PROTO_ERR_BAD_REQUEST, "protocol: this server speaks protocol %d",
                    PROTO_VERSION);
    out->u.hello.protocol = PROTO_VERSION;
    out->u.hello.name[0] = '\0';
    if ((rc = get_string(root, "name", "", PROTO_MAX_NAME, out->u.hello.name, err)))
        return rc;
    const cJSON *avatar = cJSON_GetObjectItemCaseSensitive(root, "avatar");
    out->u.hello.has_avatar = avatar != NULL;
    if (avatar)
        return parse_spec(avatar, dim, "avatar.", &out->u.hello.avatar, err);
    return PROTO_OK;
}

static proto_error_code parse_input(const cJSON *root, int dim, proto_msg *out,
                                    proto_error *err)
{
    proto_error_code rc = get_id(root, "seq", true, NULL, &out->u.input.seq, err);
    if (rc)
        return rc;
    if ((rc = get_id(root, "id", false, &out->u.input.has_id, &out->u.input.id, err)))
        return rc;
    const cJSON *move = cJSON_GetObjectItemCaseSensitive(root, "move");
    if (!move)
        return fail(err, PROTO_ERR_BAD_REQUEST, "move: missing");
    out->u.input.move[2] = 0;
    if ((rc = proto_parse_vector(move, dim, 1.0, "move", out->u.input.move, err)))
        return rc;
    out->u.input.jump = false;
    return get_bool(root, "jump", NULL, &out->u.input.jump, err);
}

static proto_error_code parse_query(const cJSON *root, int dim, proto_msg *out,
                                    proto_error *err)
{
    proto_placed_shape *sides[2] = {&out->u.query.a, &out->u.query.b};
    const char *names[2] = {"a", "b"};
    for (int i = 0; i < 2; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, names[i]);
        if (!cJSON_IsObject(v))
            return fail(err, PROTO_ERR_BAD_REQUEST, "%s: must be an object {shape, pos, rot?}",
                        names[i]);
        char path[8];
        snprintf(path, sizeof path, "%s.", names[i]);
        proto_error_code rc =
            parse_placed(v, dim, path, sides[i]->pos, sides[i]->rot, &sides[i]->shape, err);
        if (rc)
            return rc;
    }
    return PROTO_OK;
}

static proto_error_code parse_subscribe(const cJSON *root, proto_msg *out, proto_error *err)
{
    out->u.subscribe.contacts = false;
    proto_error_code rc =
        get_bool(root, "contacts", &out->u.subscribe.has_contacts, &out->u.subscribe.contacts, err);
    if (rc)
        return rc;
    out->u.subscribe.has_radius = cJSON_GetObjectItemCaseSensitive(root, "radius") != NULL;
    out->u.subscribe.radius = 0;
    if ((rc = get_number(root, "radius", "", false, 0, PROTO_MAX_RADIUS, &out->u.subscribe.radius,
                         err)))
        return rc;
    if (out->u.subscribe.has_radius && !(out->u.subscribe.radius > 0))
        return fail(err, PROTO_ERR_BAD_REQUEST, "radius: must be greater than 0");
    out->u.subscribe.compact = false;
    return get_bool(root, "compact", &out->u.subscribe.has_compact, &out->u.subscribe.compact,
                    err);
}

static proto_error_code parse_fields(const char *line, size_t len, const cJSON *root, int dim,
                                     proto_msg *out, proto_error *err)
{
    const cJSON *v;
    switch (out->type) {
    case PROTO_MSG_HELLO:
        return parse_hello(root, dim, out, err);
    case PROTO_MSG_SPAWN:
        v = cJSON_GetObjectItemCaseSensitive(root, "body");
        if (!v)
            return fail(err, PROTO_ERR_BAD_REQUEST, "body: missing");
        return parse_spec(v, dim, "body.", &out->u.spawn.body, err);
    case PROTO_MSG_DESPAWN:
        return get_id(root, "id", true, NULL, &out->u.despawn.id, err);
    case PROTO_MSG_INPUT:
        return parse_input(root, dim, out, err);
    case PROTO_MSG_QUERY:
        return parse_query(root, dim, out, err);
    case PROTO_MSG_SUBSCRIBE:
        return parse_subscribe(root, out, err);
    case PROTO_MSG_PING:
        v = cJSON_GetObjectItemCaseSensitive(root, "t");
        if (!v)
            return fail(err, PROTO_ERR_BAD_REQUEST, "t: missing");
        return get_echo(line, len, v, "t", out->u.ping.t, err);
    case PROTO_MSG_BYE:
        return PROTO_OK;
    }
    return PROTO_OK;
}

proto_error_code proto_parse(const char *line, size_t len, int dim, proto_msg *out,
                             proto_error *err)
{
    err->code = PROTO_OK;
    err->message[0] = '\0';
    err->has_req = false;
    err->req[0] = '\0';
    out->has_req = false;
    out->req[0] = '\0';

    if (!proto_utf8_valid(line, len))
        return fail(err, PROTO_ERR_BAD_JSON, "not valid UTF-8");
    const char *bad = prescan(line, len, PROTO_MAX_DEPTH);
    if (bad)
        return fail(err, PROTO_ERR_BAD_JSON, "not valid JSON: %s", bad);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(line, len, &end, false);
    if (!root)
        return fail(err, PROTO_ERR_BAD_JSON, "not valid JSON (at byte %zu)",
                    end && end >= line ? (size_t)(end - line) : (size_t)0);
    /* One value per line: anything but whitespace after it is a syntax error. */
    for (const char *p = end; p && p < line + len; p++) {
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
            cJSON_Delete(root);
            return fail(err, PROTO_ERR_BAD_JSON, "not valid JSON (text after the object at byte %zu)",
                        (size_t)(p - line));
        }
    }

    proto_error_code rc = PROTO_OK;
    if (!cJSON_IsObject(root)) {
        rc = fail(err, PROTO_ERR_BAD_REQUEST, "a message must be a JSON object");
        goto done;
    }
    /* `req` first, so that every later error can echo it. */
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(root, "req");
    if (req) {
        if ((rc = get_echo(line, len, req, "req", out->req, err)))
            goto done;
        out->has_req = true;
        err->has_req = true;
        memcpy(err->req, out->req, sizeof err->req);
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    if (!type) {
        rc = fail(err, PROTO_ERR_BAD_REQUEST, "type: missing");
        goto done;
    }
    if (!cJSON_IsString(type)) {
        rc = fail(err, PROTO_ERR_BAD_REQUEST, "type: must be a string");
        goto done;
    }
    int t = 0, nt = (int)(sizeof msg_names / sizeof msg_names[0]);
    while (t < nt && strcmp(msg_names[t], type->valuestring) != 0)
        t++;
    if (t == nt) {
        rc = fail(err, PROTO_ERR_UNKNOWN_TYPE, "unknown message type '%.64s'", type->valuestring);
        goto done;
    }
    out->type = (proto_msg_type)t;
    rc = parse_fields(line, len, root, dim, out, err);
done:
    cJSON_Delete(root);
    return rc;
}
