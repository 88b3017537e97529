/* Joints on the wire (an extension of v1, PROTOCOL.md "Joints"): a joint spec -> validated C
 * struct, for the `joint` message and a scene's `joints`. Each type reads the fields Box2D v3 and
 * Jolt give it; fields a type does not read are ignored, as unknown fields are. What needs the
 * world (do the bodies exist, whose are they, where are they) is the server's. */
#include "parse_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define PROTO_PI 3.14159265358979323846

static const char *const joint_names[PROTO_JOINT_COUNT] = {
    [PROTO_JOINT_REVOLUTE] = "revolute", [PROTO_JOINT_HINGE] = "hinge",
    [PROTO_JOINT_PRISMATIC] = "prismatic", [PROTO_JOINT_DISTANCE] = "distance",
    [PROTO_JOINT_WELD] = "weld",           [PROTO_JOINT_SPHERICAL] = "spherical",
    [PROTO_JOINT_WHEEL] = "wheel",
};

const char *proto_joint_name(proto_joint_type type)
{
    return PROTO_NAME_AT(joint_names, type, "revolute");
}

int proto_joint_of(const char *name)
{
    for (int t = 0; t < PROTO_JOINT_COUNT; t++)
        if (strcmp(joint_names[t], name) == 0)
            return t;
    return -1;
}

bool proto_joint_in(proto_joint_type type, int dim)
{
    switch (type) {
    case PROTO_JOINT_REVOLUTE:
    case PROTO_JOINT_WHEEL:
        return dim == 2;
    case PROTO_JOINT_HINGE:
    case PROTO_JOINT_SPHERICAL:
        return dim == 3;
    case PROTO_JOINT_PRISMATIC:
    case PROTO_JOINT_DISTANCE:
    case PROTO_JOINT_WELD:
        return true;
    default:
        return false;
    }
}

/* An optional vector of the world's dim; *has says whether it was given. */
static proto_error_code get_vector(const cJSON *json, const char *key, int dim, double max,
                                   bool *has, double out[3], proto_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, key);
    *has = v != NULL;
    out[0] = out[1] = out[2] = 0;
    return v ? proto_parse_vector(v, dim, max, key, out, err) : PROTO_OK;
}

/* `spring: {hz, damping?}` or `linear_spring`: hz > 0, damping 0 unless given. */
static proto_error_code get_spring(const cJSON *json, const char *key, bool *has, double *hz,
                                   double *damping, proto_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, key);
    *has = v != NULL;
    *hz = *damping = 0;
    if (!v)
        return PROTO_OK;
    if (!cJSON_IsObject(v))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: must be an object {hz, damping}",
                          key);
    char path[32];
    snprintf(path, sizeof path, "%s.", key);
    proto_error_code rc = proto_get_number(v, "hz", path, true, 0, PROTO_MAX_HZ, hz, err);
    if (rc)
        return rc;
    if (!(*hz > 0))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%shz: must be greater than 0", path);
    return proto_get_number(v, "damping", path, false, 0, PROTO_MAX_DAMPING, damping, err);
}

/* `motor: {speed, max_torque}` (a turn) or `{speed, max_force}` (a slide). */
static proto_error_code get_motor(const cJSON *json, bool turns, proto_joint_spec *out,
                                  proto_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, "motor");
    out->has_motor = v != NULL;
    out->motor_speed = out->max_motor = 0;
    if (!v)
        return PROTO_OK;
    const char *most = turns ? "max_torque" : "max_force";
    if (!cJSON_IsObject(v))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "motor: must be an object {speed, %s}",
                          most);
    proto_error_code rc = proto_get_number(v, "speed", "motor.", true, -PROTO_MAX_VEL,
                                           PROTO_MAX_VEL, &out->motor_speed, err);
    return rc ? rc
              : proto_get_number(v, most, "motor.", true, 0, PROTO_MAX_MOTOR, &out->max_motor,
                                 err);
}

/* `limits: [lower, upper]`: rad within [-pi, pi] for a turn, m for a slide. */
static proto_error_code get_limits(const cJSON *json, bool turns, proto_joint_spec *out,
                                   proto_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, "limits");
    out->has_limits = v != NULL;
    out->limits[0] = out->limits[1] = 0;
    if (!v)
        return PROTO_OK;
    double max = turns ? PROTO_PI : PROTO_MAX_COORD;
    proto_error_code rc = proto_parse_vector(v, 2, max, "limits", out->limits, err);
    if (rc)
        return rc;
    if (out->limits[0] > out->limits[1])
        return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                          "limits: the lower (%g) is above the upper (%g)", out->limits[0],
                          out->limits[1]);
    return PROTO_OK;
}

/* The fields of each type: anchors, axis, limits, motor, springs, lengths, cone. */
static proto_error_code parse_fields(const cJSON *json, int dim, proto_joint_spec *out,
                                     proto_error *err)
{
    proto_joint_type t = out->type;
    bool distance = t == PROTO_JOINT_DISTANCE;
    bool turns = t == PROTO_JOINT_REVOLUTE || t == PROTO_JOINT_HINGE;
    proto_error_code rc =
        get_vector(json, distance ? "anchor_a" : "anchor", dim, PROTO_MAX_COORD,
                   &out->has_anchor, out->anchor, err);
    if (!rc && distance)
        rc = get_vector(json, "anchor_b", dim, PROTO_MAX_COORD, &out->has_anchor_b,
                        out->anchor_b, err);
    if (rc)
        return rc;
    if (distance && out->b == 0 && !out->has_anchor_b)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                          "anchor_b: missing (a distance joint to the world needs its point)");
    if (t == PROTO_JOINT_HINGE || t == PROTO_JOINT_PRISMATIC || t == PROTO_JOINT_WHEEL ||
        t == PROTO_JOINT_SPHERICAL) {
        if ((rc = get_vector(json, "axis", dim, PROTO_MAX_COORD, &out->has_axis, out->axis,
                             err)))
            return rc;
        if (out->has_axis &&
            !(fabs(out->axis[0]) + fabs(out->axis[1]) + fabs(out->axis[2]) > 1e-6))
            return proto_fail(err, PROTO_ERR_BAD_REQUEST, "axis: must not be zero");
    }
    bool has_limits = turns || t == PROTO_JOINT_PRISMATIC || t == PROTO_JOINT_WHEEL;
    if (has_limits && (rc = get_limits(json, turns, out, err)))
        return rc;
    bool has_motor = has_limits || distance;
    if (has_motor && (rc = get_motor(json, turns || t == PROTO_JOINT_WHEEL, out, err)))
        return rc;
    if (t != PROTO_JOINT_SPHERICAL && (rc = get_spring(json, "spring", &out->has_spring,
                                                       &out->spring_hz, &out->spring_damping,
                                                       err)))
        return rc;
    if (t == PROTO_JOINT_WELD &&
        (rc = get_spring(json, "linear_spring", &out->has_linear_spring, &out->linear_hz,
                         &out->linear_damping, err)))
        return rc;
    if (distance) {
        const char *keys[3] = {"length", "min_length", "max_length"};
        bool *has[3] = {&out->has_length, &out->has_min_length, &out->has_max_length};
        double *val[3] = {&out->length, &out->min_length, &out->max_length};
        for (int k = 0; k < 3; k++) {
            *has[k] = cJSON_GetObjectItemCaseSensitive(json, keys[k]) != NULL;
            *val[k] = 0;
            if ((rc = proto_get_number(json, keys[k], "", false, 0, PROTO_MAX_COORD, val[k],
                                       err)))
                return rc;
        }
        if (out->has_min_length && out->has_max_length && out->min_length > out->max_length)
            return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                              "max_length: must not be below min_length (%g)", out->min_length);
    }
    if (t == PROTO_JOINT_SPHERICAL) {
        if ((rc = proto_get_number(json, "cone", "", false, 0, PROTO_PI, &out->cone, err)))
            return rc;
        if (cJSON_GetObjectItemCaseSensitive(json, "cone") && !(out->cone > 0))
            return proto_fail(err, PROTO_ERR_BAD_REQUEST, "cone: must be greater than 0");
    }
    if ((rc = proto_get_number(json, "break_force", "", false, 0, PROTO_MAX_FORCE,
                               &out->break_force, err)))
        return rc;
    if (cJSON_GetObjectItemCaseSensitive(json, "break_force") && !(out->break_force > 0))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "break_force: must be greater than 0");
    out->collide = false;
    return proto_get_bool(json, "collide", NULL, &out->collide, err);
}

proto_error_code proto_parse_joint_spec(const cJSON *json, int dim, const char *path,
                                        proto_joint_spec *out, proto_error *err)
{
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(json))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%.*s: must be a joint object {type, a, b, ...}",
                          (int)strlen(path) - 1, path);
    /* The fields are read without the path and the error takes it after. */
    proto_error_code rc = PROTO_OK;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(json, "type");
    int t = cJSON_IsString(type) ? proto_joint_of(type->valuestring) : -1;
    if (!type)
        rc = proto_fail(err, PROTO_ERR_BAD_REQUEST, "type: missing");
    else if (t < 0)
        rc = proto_fail(err, PROTO_ERR_BAD_REQUEST,
                        "type: must be one of revolute, hinge, prismatic, distance, weld, "
                        "spherical, wheel");
    else if (!proto_joint_in((proto_joint_type)t, dim))
        rc = proto_fail(err, PROTO_ERR_BAD_REQUEST, "type: a %dD world has no %s joints (%s)",
                        dim, joint_names[t],
                        dim == 2 ? "revolute, prismatic, distance, weld, wheel"
                                 : "hinge, prismatic, distance, weld, spherical");
    bool has_b = false;
    if (!rc) {
        out->type = (proto_joint_type)t;
        rc = proto_get_id(json, "a", true, NULL, &out->a, err);
    }
    if (!rc && out->a == 0)
        rc = proto_fail(err, PROTO_ERR_BAD_REQUEST, "a: must be a body's id (not 0)");
    if (!rc)
        rc = proto_get_id(json, "b", false, &has_b, &out->b, err);
    if (!rc && out->b == out->a)
        rc = proto_fail(err, PROTO_ERR_BAD_REQUEST, "b: the same body as a (%llu)",
                        (unsigned long long)out->a);
    if (!rc)
        rc = parse_fields(json, dim, out, err);
    if (rc)
        mk_error_prefix(err, "%s", path);
    return rc;
}
