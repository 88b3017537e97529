/* Shapes and body specs (PROTOCOL.md, "Shapes" and "Body spec"): `spawn`'s body, `hello`'s
 * avatar, `query`'s placed shapes and the scene files all read bodies through here. */
#include "parse_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HALF_PI 1.5707963267948966 /* rad: the steepest max_slope, a wall */

/* ---- names ---- */

static const char *const shape_names[PROTO_SHAPE_COUNT] = {
    [PROTO_SHAPE_AABB] = "aabb",       [PROTO_SHAPE_BOX] = "box",
    [PROTO_SHAPE_CIRCLE] = "circle",   [PROTO_SHAPE_POLYGON] = "polygon",
    [PROTO_SHAPE_SPHERE] = "sphere",   [PROTO_SHAPE_ELLIPSOID] = "ellipsoid",
    [PROTO_SHAPE_CAPSULE] = "capsule", [PROTO_SHAPE_CYLINDER] = "cylinder",
    [PROTO_SHAPE_CONE] = "cone",       [PROTO_SHAPE_HULL] = "hull",
    [PROTO_SHAPE_SEGMENT] = "segment", [PROTO_SHAPE_CHAIN] = "chain",
    [PROTO_SHAPE_MESH] = "mesh",       [PROTO_SHAPE_HEIGHTFIELD] = "heightfield",
};

const char *proto_shape_name(proto_shape_type type)
{
    return PROTO_NAME_AT(shape_names, type, "?");
}

static const char *const kind_names[] = {
    [PROTO_KIND_DYNAMIC] = "dynamic",     [PROTO_KIND_STATIC] = "static",
    [PROTO_KIND_KINEMATIC] = "kinematic", [PROTO_KIND_CHARACTER] = "character",
};

const char *proto_kind_name(proto_body_kind kind)
{
    return PROTO_NAME_AT(kind_names, kind, "?");
}

/* ---- shapes and specs ---- */

static bool shape_in_dim(proto_shape_type t, int dim)
{
    switch (t) {
    case PROTO_SHAPE_BOX:
        return true;
    case PROTO_SHAPE_AABB:
    case PROTO_SHAPE_CIRCLE:
    case PROTO_SHAPE_POLYGON:
    case PROTO_SHAPE_SEGMENT:
    case PROTO_SHAPE_CHAIN:
        return dim == 2;
    default:
        return dim == 3;
    }
}

/* path ends in "shape." so that fields read "body.shape.half". */
proto_error_code proto_parse_shape(const cJSON *json, int dim, const char *path, proto_shape *out,
                                   proto_error *err)
{
    memset(out, 0, sizeof *out - sizeof out->points);
    if (!cJSON_IsObject(json))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%.*s: must be an object",
                          (int)strlen(path) - 1, path);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(json, "type");
    if (!cJSON_IsString(type))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%stype: must be a shape name", path);
    int t = 0;
    while (t < PROTO_SHAPE_COUNT && strcmp(shape_names[t], type->valuestring) != 0)
        t++;
    if (t == PROTO_SHAPE_COUNT)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%stype: unknown shape '%.32s'", path,
                          type->valuestring);
    if (!shape_in_dim((proto_shape_type)t, dim))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                          "%stype: '%s' is a %dD shape; this world is %dD", path, shape_names[t],
                          dim == 2 ? 3 : 2, dim);
    out->type = (proto_shape_type)t;
    double r[1];
    proto_error_code rc = PROTO_OK;
    switch (out->type) {
    case PROTO_SHAPE_AABB:
    case PROTO_SHAPE_BOX:
        return proto_get_sizes(json, "half", path, dim, out->half, err);
    case PROTO_SHAPE_CIRCLE:
    case PROTO_SHAPE_SPHERE:
        rc = proto_get_number(json, "radius", path, true, PROTO_MIN_SIZE, PROTO_MAX_SIZE, r, err);
        out->radius = r[0];
        return rc;
    case PROTO_SHAPE_ELLIPSOID:
        return proto_get_sizes(json, "radii", path, 3, out->radii, err);
    case PROTO_SHAPE_CAPSULE:
    case PROTO_SHAPE_CYLINDER:
    case PROTO_SHAPE_CONE:
        rc = proto_get_number(json, "radius", path, true, PROTO_MIN_SIZE, PROTO_MAX_SIZE, r, err);
        out->radius = r[0];
        if (rc)
            return rc;
        rc = proto_get_number(json, "half_height", path, true, PROTO_MIN_SIZE, PROTO_MAX_SIZE, r,
                              err);
        out->half_height = r[0];
        return rc;
    case PROTO_SHAPE_POLYGON:
        return proto_get_points(json, path, 2, 3, out, err);
    case PROTO_SHAPE_HULL:
        return proto_get_points(json, path, 3, 4, out, err);
    case PROTO_SHAPE_SEGMENT:
    case PROTO_SHAPE_CHAIN:
    case PROTO_SHAPE_MESH:
    case PROTO_SHAPE_HEIGHTFIELD:
        return proto_parse_level(json, dim, path, out, err);
    case PROTO_SHAPE_COUNT:
        break;
    }
    return rc;
}

/* `rot`: an angle in 2D; in 3D a quaternion [x, y, z, w], normalised, a zero one refused. */
proto_error_code proto_parse_rot(const cJSON *obj, int dim, const char *path, double *rot,
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
            return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: must be an angle in radians", p);
        if (fabs(v->valuedouble) > PROTO_MAX_ANGLE)
            return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: must be in [%g, %g]", p,
                              -PROTO_MAX_ANGLE, PROTO_MAX_ANGLE);
        rot[0] = v->valuedouble;
        return PROTO_OK;
    }
    proto_error_code rc = proto_parse_vector(v, 4, PROTO_MAX_COORD, p, rot, err);
    if (rc)
        return rc;
    double n = sqrt(rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2] + rot[3] * rot[3]);
    if (!(n > 1e-9))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: a zero quaternion is not a rotation", p);
    for (int i = 0; i < 4; i++)
        rot[i] /= n;
    return PROTO_OK;
}

proto_error_code proto_parse_placed(const cJSON *json, int dim, const char *path, double *pos,
                                    double *rot, proto_shape *shape, bool levels,
                                    proto_error *err)
{
    char p[96];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, "shape");
    if (!v)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%sshape: missing", path);
    snprintf(p, sizeof p, "%sshape.", path);
    proto_error_code rc = proto_parse_shape(v, dim, p, shape, err);
    if (rc)
        return rc;
    if (!levels && proto_shape_is_level(shape->type)) {
        proto_shape_free(shape);
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%stype: a %s is a body's shape, not a "
                          "query's", p, shape_names[shape->type]);
    }
    snprintf(p, sizeof p, "%spos", path);
    v = cJSON_GetObjectItemCaseSensitive(json, "pos");
    pos[2] = 0;
    rc = v ? proto_parse_vector(v, dim, PROTO_MAX_COORD, p, pos, err)
           : proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: missing", p);
    if (!rc)
        rc = proto_parse_rot(json, dim, path, rot, err);
    if (rc)
        proto_shape_free(shape);
    return rc;
}

/* A whole number in [lo, hi] at obj.key (absent: *out unchanged). */
static proto_error_code get_whole(const cJSON *obj, const char *key, const char *path, double lo,
                                  double hi, double *out, proto_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return PROTO_OK;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi) ||
        v->valuedouble != floor(v->valuedouble))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: must be a whole number in [%.0f, %.0f]",
                          path, key, lo, hi);
    *out = v->valuedouble;
    return PROTO_OK;
}

/* `filter: {category?, mask?, group?}`, the defaults for what it leaves out (or all of it). */
static proto_error_code parse_filter(const cJSON *json, const char *path, proto_filter *out,
                                     proto_error *err)
{
    *out = (proto_filter){1u, PROTO_MASK_ALL, 0};
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, "filter");
    if (!v)
        return PROTO_OK;
    char p[96];
    snprintf(p, sizeof p, "%sfilter.", path);
    if (!cJSON_IsObject(v))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                          "%sfilter: must be an object {category?, mask?, group?}", path);
    double category = 1, mask = -1, group = 0;
    proto_error_code rc;
    if ((rc = get_whole(v, "category", p, 0, PROTO_MAX_ID, &category, err)) ||
        (rc = get_whole(v, "mask", p, 0, PROTO_MAX_ID, &mask, err)) ||
        (rc = get_whole(v, "group", p, -PROTO_MAX_GROUP - 1, PROTO_MAX_GROUP, &group, err)))
        return rc;
    out->category = (uint64_t)category;
    out->mask = mask < 0 ? PROTO_MASK_ALL : (uint64_t)mask;
    out->group = (int32_t)group;
    return PROTO_OK;
}

int proto_kind_of(const char *name)
{
    for (int k = 0; k < (int)(sizeof kind_names / sizeof kind_names[0]); k++)
        if (strcmp(kind_names[k], name) == 0)
            return k;
    return -1;
}

static proto_error_code parse_spec_fields(const cJSON *json, int dim, const char *path,
                                          proto_body_spec *out, proto_error *err);

proto_error_code proto_parse_spec(const cJSON *json, int dim, const char *path,
                                  proto_body_spec *out, proto_error *err)
{
    /* `path` is the prefix of the fields ("body." or "" ...); without its dot it names the
     * spec itself. */
    if (!cJSON_IsObject(json))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%.*s: must be a body spec object",
                          (int)strlen(path) - 1, path);
    proto_error_code rc =
        proto_parse_placed(json, dim, path, out->pos, out->rot, &out->shape, true, err);
    if (rc)
        return rc;
    rc = parse_spec_fields(json, dim, path, out, err);
    if (rc)
        proto_shape_free(&out->shape);
    return rc;
}

/* The spec's fields after its shape and placement. */
static proto_error_code parse_spec_fields(const cJSON *json, int dim, const char *path,
                                          proto_body_spec *out, proto_error *err)
{
    proto_error_code rc;
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
            return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                              "%skind: must be one of dynamic, static, kinematic, character", path);
        out->kind = (proto_body_kind)k;
    }
    if (proto_shape_is_level(out->shape.type) &&
        (out->kind == PROTO_KIND_DYNAMIC || out->kind == PROTO_KIND_CHARACTER))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                          "%skind: a %s is the shape of a static or kinematic body", path,
                          shape_names[out->shape.type]);
    out->density = PROTO_DEFAULT_DENSITY;
    out->friction = PROTO_DEFAULT_FRICTION;
    out->restitution = PROTO_DEFAULT_RESTITUTION;
    out->max_speed = PROTO_DEFAULT_MAX_SPEED;
    out->jump_height = PROTO_DEFAULT_JUMP_HEIGHT;
    out->max_slope = PROTO_DEFAULT_MAX_SLOPE;
    if ((rc = proto_get_number(json, "density", path, false, 0, PROTO_MAX_DENSITY, &out->density,
                               err)))
        return rc;
    if (!(out->density > 0))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%sdensity: must be greater than 0", path);
    if ((rc = proto_get_number(json, "friction", path, false, 0, PROTO_MAX_FRICTION, &out->friction,
                               err)) ||
        (rc = proto_get_number(json, "restitution", path, false, 0, 1, &out->restitution, err)) ||
        (rc = proto_get_number(json, "max_speed", path, false, 0, PROTO_MAX_SPEED, &out->max_speed,
                               err)) ||
        (rc = proto_get_number(json, "jump_height", path, false, 0, PROTO_MAX_JUMP,
                               &out->jump_height, err)) ||
        (rc = proto_get_number(json, "max_slope", path, false, 0, HALF_PI, &out->max_slope, err)))
        return rc;
    out->tag[0] = '\0';
    if ((rc = proto_get_string(json, "tag", path, PROTO_MAX_TAG, out->tag, err)))
        return rc;
    out->sensor = false;
    const cJSON *sensor = cJSON_GetObjectItemCaseSensitive(json, "sensor");
    if (sensor && !cJSON_IsBool(sensor))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%ssensor: must be true or false", path);
    out->sensor = cJSON_IsTrue(sensor);
    /* A sensor is tested against what overlaps it as one convex shape; a level is not one. */
    if (out->sensor && proto_shape_is_level(out->shape.type))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%ssensor: a %s cannot be a sensor", path,
                          shape_names[out->shape.type]);
    return parse_filter(json, path, &out->filter, err);
}

proto_error_code proto_parse_body_spec(const cJSON *json, int dim, const char *path,
                                       proto_body_spec *out, proto_error *err)
{
    char prefix[80];
    snprintf(prefix, sizeof prefix, "%s.", path);
    return proto_parse_spec(json, dim, prefix, out, err);
}
