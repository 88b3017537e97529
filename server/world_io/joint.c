/* Joints between the protocol and the world: a validated joint spec as a joint definition (the
 * defaults that need the world: the anchors at the bodies, the length between them), a joint
 * definition written back as the protocol's spec (the journal, saves), and a joint as `state`
 * shows it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "world_io_internal.h"

_Static_assert((int)PROTO_JOINT_REVOLUTE == (int)SIM_JOINT_REVOLUTE &&
                   (int)PROTO_JOINT_HINGE == (int)SIM_JOINT_HINGE &&
                   (int)PROTO_JOINT_PRISMATIC == (int)SIM_JOINT_PRISMATIC &&
                   (int)PROTO_JOINT_DISTANCE == (int)SIM_JOINT_DISTANCE &&
                   (int)PROTO_JOINT_WELD == (int)SIM_JOINT_WELD &&
                   (int)PROTO_JOINT_SPHERICAL == (int)SIM_JOINT_SPHERICAL &&
                   (int)PROTO_JOINT_WHEEL == (int)SIM_JOINT_WHEEL &&
                   (int)PROTO_JOINT_COUNT == (int)SIM_JOINT_TYPE_COUNT,
               "the protocol's joint types are the world's, in the same order");

/* Where body `id` is (the world's origin for 0), m. */
static mk_vec3 body_pos(const sim_world *w, sim_id id)
{
    const sim_body *b = id ? sim_world_get(w, id) : NULL;
    if (!b)
        return mk_v3(0.0f, 0.0f, 0.0f);
    const sim_body3 *b3 = sim_body3_of(w, b);
    return b3 ? b3->pos : mk_v3(b->pos.x, b->pos.y, 0.0f);
}

static mk_vec3 vec_of(const double v[3])
{
    return mk_v3((float)v[0], (float)v[1], (float)v[2]);
}

/* The axis a type takes when none is given: a 3D hinge turns about z as a 2D pin does, a
 * slider slides along x, a wheel's suspension is along y (up), a cone opens downward. */
static mk_vec3 default_axis(proto_joint_type t)
{
    switch (t) {
    case PROTO_JOINT_PRISMATIC:
        return mk_v3(1.0f, 0.0f, 0.0f);
    case PROTO_JOINT_WHEEL:
        return mk_v3(0.0f, 1.0f, 0.0f);
    case PROTO_JOINT_SPHERICAL:
        return mk_v3(0.0f, -1.0f, 0.0f);
    default:
        return mk_v3(0.0f, 0.0f, 1.0f);
    }
}

int wio_joint_def_from_spec(const sim_world *w, const proto_joint_spec *s, sim_joint_def *out,
                            mk_error *err)
{
    memset(out, 0, sizeof *out);
    out->type = (sim_joint_type)s->type;
    out->a = s->a;
    out->b = s->b;
    if (!sim_world_get(w, s->a))
        return mk_fail(err, MK_ERR_INVALID, "a: no body %llu", (unsigned long long)s->a);
    if (s->b && !sim_world_get(w, s->b))
        return mk_fail(err, MK_ERR_INVALID, "b: no body %llu", (unsigned long long)s->b);
    out->anchor_a = s->has_anchor ? vec_of(s->anchor) : body_pos(w, s->a);
    out->anchor_b = s->has_anchor_b ? vec_of(s->anchor_b) : body_pos(w, s->b);
    out->axis = s->has_axis ? vec_of(s->axis) : default_axis(s->type);
    out->limit = s->has_limits;
    out->lower = (float)s->limits[0];
    out->upper = (float)s->limits[1];
    out->motor = s->has_motor;
    out->motor_speed = (float)s->motor_speed;
    out->max_motor = (float)s->max_motor;
    out->spring_hz = (float)s->spring_hz;
    out->spring_damping = (float)s->spring_damping;
    out->linear_hz = (float)s->linear_hz;
    out->linear_damping = (float)s->linear_damping;
    out->cone = (float)s->cone;
    out->break_force = (float)s->break_force;
    out->collide = s->collide;
    if (s->type == PROTO_JOINT_DISTANCE) {
        /* Held at the distance between the anchors unless told otherwise; a range of only
         * max_length is a rope (from 0), of only min_length a strut (to any length), and a
         * spring alone moves freely about its length. */
        float apart = mk_v3_len(mk_v3_sub(out->anchor_b, out->anchor_a));
        out->length = s->has_length ? (float)s->length : apart;
        bool free = s->has_spring && !s->has_min_length && !s->has_max_length;
        out->min_length = s->has_min_length ? (float)s->min_length
                          : s->has_max_length || free ? 0.0f
                                                      : out->length;
        out->max_length = s->has_max_length ? (float)s->max_length
                          : s->has_min_length || free ? (float)PROTO_MAX_COORD
                                                      : out->length;
        if (out->min_length > out->max_length)
            return mk_fail(err, MK_ERR_INVALID,
                           "max_length: %g is below min_length %g (the length between the "
                           "anchors when not given)",
                           (double)out->max_length, (double)out->min_length);
    }
    return 0;
}

/* Text, then a number with 9 significant digits (every float back exactly). */
static void put_num(proto_buf *b, const char *text, float v)
{
    char num[32];
    int n = snprintf(num, sizeof num, "%.9g", (double)v);
    proto_buf_append_str(b, text);
    proto_buf_append(b, num, (size_t)n);
}

/* `,"key":[x,y(,z)]`. */
static void put_vec(proto_buf *b, const char *key, mk_vec3 v, int dim)
{
    proto_buf_append_str(b, ",\"");
    proto_buf_append_str(b, key);
    put_num(b, "\":[", v.x);
    put_num(b, ",", v.y);
    if (dim == 3)
        put_num(b, ",", v.z);
    proto_buf_append_char(b, ']');
}

/* `,"key":{"hz":..,"damping":..}`. */
static void put_spring(proto_buf *b, const char *key, float hz, float damping)
{
    proto_buf_append_str(b, ",\"");
    proto_buf_append_str(b, key);
    put_num(b, "\":{\"hz\":", hz);
    put_num(b, ",\"damping\":", damping);
    proto_buf_append_char(b, '}');
}

void wio_write_joint_fields(const sim_world *w, const sim_joint_def *d, proto_buf *b)
{
    int dim = sim_world_dim(w);
    proto_joint_type t = (proto_joint_type)d->type;
    bool distance = t == PROTO_JOINT_DISTANCE;
    bool turns = t == PROTO_JOINT_REVOLUTE || t == PROTO_JOINT_HINGE || t == PROTO_JOINT_WHEEL;
    proto_buf_append_str(b, "\"type\":\"");
    proto_buf_append_str(b, proto_joint_name(t));
    proto_buf_append_char(b, '"');
    if (!d->framed) {
        put_vec(b, distance ? "anchor_a" : "anchor", d->anchor_a, dim);
        if (distance)
            put_vec(b, "anchor_b", d->anchor_b, dim);
        if (t == PROTO_JOINT_HINGE || t == PROTO_JOINT_PRISMATIC || t == PROTO_JOINT_WHEEL ||
            (t == PROTO_JOINT_SPHERICAL && d->cone > 0.0f))
            put_vec(b, "axis", d->axis, dim);
    }
    if (d->limit) {
        put_num(b, ",\"limits\":[", d->lower);
        put_num(b, ",", d->upper);
        proto_buf_append_char(b, ']');
    }
    if (d->motor) {
        put_num(b, ",\"motor\":{\"speed\":", d->motor_speed);
        put_num(b, turns ? ",\"max_torque\":" : ",\"max_force\":", d->max_motor);
        proto_buf_append_char(b, '}');
    }
    if (d->spring_hz > 0.0f)
        put_spring(b, "spring", d->spring_hz, d->spring_damping);
    if (d->linear_hz > 0.0f)
        put_spring(b, "linear_spring", d->linear_hz, d->linear_damping);
    if (distance) {
        put_num(b, ",\"length\":", d->length);
        put_num(b, ",\"min_length\":", d->min_length);
        put_num(b, ",\"max_length\":", d->max_length);
    }
    if (d->cone > 0.0f)
        put_num(b, ",\"cone\":", d->cone);
    if (d->break_force > 0.0f)
        put_num(b, ",\"break_force\":", d->break_force);
    if (d->collide)
        proto_buf_append_str(b, ",\"collide\":true");
}

void wio_joint_state(const sim_world *w, const sim_joint *j, proto_joint_state *out)
{
    (void)w;
    out->id = j->id;
    out->type = (proto_joint_type)j->type;
    out->a = j->a;
    out->b = j->b;
    wio_put3(out->local_a, j->local_a);
    wio_put3(out->local_b, j->local_b);
}

/* ---- scenes: `joints: [...]`, their bodies by index in `bodies` ---- */

/* A saved joint's frames: `frame: {a, b, qa, qb}`, the anchors in a's and b's frames and the
 * joint's frame in each (2D: a turn in rad; 3D: a quaternion [x, y, z, w]). */
static int read_frame(const cJSON *frame, int dim, const char *path, sim_joint_def *d,
                      mk_error *err)
{
    char p[64];
    double a[3] = {0, 0, 0}, b[3] = {0, 0, 0}, q[2][4] = {{0, 0, 0, 1}, {0, 0, 0, 1}};
    snprintf(p, sizeof p, "%sframe.", path);
    if (!cJSON_IsObject(frame))
        return mk_fail(err, MK_ERR_INVALID, "%sframe: must be an object {a, b, qa, qb}", path);
    const char *keys[2] = {"qa", "qb"};
    if (proto_parse_vector(cJSON_GetObjectItemCaseSensitive(frame, "a"), dim, PROTO_MAX_COORD,
                           "a", a, err) ||
        proto_parse_vector(cJSON_GetObjectItemCaseSensitive(frame, "b"), dim, PROTO_MAX_COORD,
                           "b", b, err))
        return mk_error_prefix(err, "%s", p);
    for (int k = 0; k < 2; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(frame, keys[k]);
        if (dim == 2 && cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
            q[k][2] = sin(0.5 * v->valuedouble);
            q[k][3] = cos(0.5 * v->valuedouble);
        } else if (dim == 2 || proto_parse_vector(v, 4, 1.0, keys[k], q[k], err)) {
            return mk_fail(err, MK_ERR_INVALID, "%s%s: must be %s", p, keys[k],
                           dim == 2 ? "a turn in rad" : "a unit quaternion [x, y, z, w]");
        }
    }
    d->framed = true;
    d->local_a = vec_of(a);
    d->local_b = vec_of(b);
    d->frame_a = (mk_quat){(float)q[0][0], (float)q[0][1], (float)q[0][2], (float)q[0][3]};
    d->frame_b = (mk_quat){(float)q[1][0], (float)q[1][1], (float)q[1][2], (float)q[1][3]};
    return 0;
}

/* The body of index field `key` of a scene joint (`b` may be absent: the world). */
static int body_at(const cJSON *item, const char *key, const sim_id *ids, int n, bool required,
                   const char *path, sim_id *out, mk_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, key);
    *out = 0;
    if (!v && !required)
        return 0;
    if (!wio_json_whole_in(v, 0, n - 1.0))
        return mk_fail(err, MK_ERR_INVALID, "%s%s: must be the index of a body in bodies "
                                            "(0 to %d)",
                       path, key, n - 1);
    *out = ids[(int)v->valuedouble];
    return 0;
}

/* One joint of a scene; `id` its saved id or NULL. */
static int add_scene_joint(sim_world *w, const cJSON *item, const cJSON *id, const sim_id *ids,
                           int n, const char *path, mk_error *err)
{
    sim_id a, b;
    if (!cJSON_IsObject(item))
        return mk_fail(err, MK_ERR_INVALID, "%.*s: must be a joint object", (int)strlen(path) - 1,
                       path);
    if (body_at(item, "a", ids, n, true, path, &a, err) ||
        body_at(item, "b", ids, n, false, path, &b, err))
        return -1;
    /* The protocol's spec names bodies by id: a copy of the joint with the ids read. */
    cJSON *copy = cJSON_Duplicate(item, true);
    if (!copy || !cJSON_ReplaceItemInObjectCaseSensitive(copy, "a", cJSON_CreateNumber((double)a)))
        goto nomem;
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "b");
    if (b && !cJSON_AddNumberToObject(copy, "b", (double)b))
        goto nomem;
    proto_joint_spec spec;
    sim_joint_def def;
    int dim = sim_world_dim(w);
    const cJSON *frame = cJSON_GetObjectItemCaseSensitive(item, "frame");
    int rc = proto_parse_joint_spec(copy, dim, path, &spec, err) != PROTO_OK ? -1 : 0;
    if (rc == 0 && wio_joint_def_from_spec(w, &spec, &def, err) != 0)
        rc = mk_error_prefix(err, "%s", path);
    if (rc == 0 && frame)
        rc = read_frame(frame, dim, path, &def, err);
    cJSON_Delete(copy);
    if (rc != 0)
        return -1;
    sim_id made = id ? sim_world_add_joint_with_id(w, &def, 0, (sim_id)id->valuedouble, err)
                     : sim_world_add_joint(w, &def, 0, err);
    return made ? 0 : mk_error_prefix(err, "%s", path);
nomem:
    cJSON_Delete(copy);
    return mk_fail(err, MK_ERR_IO, "%s: out of memory", path);
}

int wio_scene_joints(sim_world *w, const cJSON *root, const sim_id *ids, int n, mk_error *err)
{
    const cJSON *joints = cJSON_GetObjectItemCaseSensitive(root, "joints");
    const cJSON *free_slots = cJSON_GetObjectItemCaseSensitive(root, "free_joints");
    if (joints && !cJSON_IsArray(joints))
        return mk_fail(err, MK_ERR_INVALID, "joints: expected an array of joints");
    if (free_slots && !cJSON_IsArray(free_slots))
        return mk_fail(err, MK_ERR_INVALID, "free_joints: expected an array of [slot, "
                                            "generation]");
    /* A saved world's joints with ids first, then its free joint slots' generations, then the
     * joints without ids (as the bodies: none takes a saved one's slot). */
    for (int pass = 0; pass < 3; pass++) {
        int index = 0;
        const cJSON *item, *list = pass == 1 ? free_slots : joints;
        cJSON_ArrayForEach(item, list)
        {
            char path[32];
            snprintf(path, sizeof path, "%s[%d].", pass == 1 ? "free_joints" : "joints", index++);
            if (pass == 1) {
                const cJSON *slot = cJSON_GetArrayItem(item, 0), *gen = cJSON_GetArrayItem(item, 1);
                if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 2 ||
                    !wio_json_whole_in(slot, 0, SIM_MAX_JOINTS - 1.0) ||
                    !wio_json_whole_in(gen, 0, 536870912.0) ||
                    !sim_world_set_joint_slot_generation(w, (uint32_t)slot->valuedouble,
                                                         (uint32_t)gen->valuedouble))
                    return mk_fail(err, MK_ERR_INVALID, "%.*s: must be [slot, generation] for a "
                                                        "free joint slot",
                                   (int)strlen(path) - 1, path);
                continue;
            }
            const cJSON *id =
                cJSON_IsObject(item) ? cJSON_GetObjectItemCaseSensitive(item, "id") : NULL;
            if ((id != NULL) != (pass == 0))
                continue;
            if (id && !wio_json_whole_in(id, 1, PROTO_MAX_ID))
                return mk_fail(err, MK_ERR_INVALID, "%sid: must be a whole number in [1, 2^53]",
                               path);
            if (add_scene_joint(w, item, id, ids, n, path, err) != 0)
                return -1;
        }
    }
    return 0;
}

void wio_write_scene_joints(const sim_world *w, proto_buf *b)
{
    size_t slots, joints, movers, fixed;
    sim_world_slots(w, &slots);
    const sim_joint *j = sim_world_joint_slots(w, &joints);
    if (joints == 0)
        return;
    /* Each body slot's index in the saved list: the moving bodies in the broadphase's order,
     * then the static ones (wio_world_write). */
    const uint32_t *order, *statics;
    sim_world_step_order(w, &order, &movers, &statics, &fixed);
    uint32_t *index = calloc(slots ? slots : 1, sizeof *index);
    if (!index) {
        b->failed = true;
        return;
    }
    for (size_t i = 0; i < movers + fixed; i++)
        index[i < movers ? order[i] : statics[i - movers]] = (uint32_t)i;
    int dim = sim_world_dim(w);
    proto_buf_append_str(b, ",\"joints\":[");
    bool first = true;
    for (size_t s = 0; s < joints; s++) {
        if (j[s].id == 0)
            continue;
        sim_joint_def d = sim_joint_def_of(w, &j[s]);
        proto_buf_append_str(b, first ? "\n{\"id\":" : ",\n{\"id\":");
        first = false;
        proto_buf_append_u64(b, j[s].id);
        proto_buf_append_str(b, ",\"a\":");
        proto_buf_append_u64(b, index[j[s].slot_a]);
        if (j[s].b) {
            proto_buf_append_str(b, ",\"b\":");
            proto_buf_append_u64(b, index[j[s].slot_b]);
        }
        proto_buf_append_char(b, ',');
        wio_write_joint_fields(w, &d, b);
        put_vec(b, "frame\":{\"a", d.local_a, dim);
        put_vec(b, "b", d.local_b, dim);
        if (dim == 2) {
            put_num(b, ",\"qa\":", 2.0f * atan2f(d.frame_a.z, d.frame_a.w));
            put_num(b, ",\"qb\":", 2.0f * atan2f(d.frame_b.z, d.frame_b.w));
        } else {
            const mk_quat *q[2] = {&d.frame_a, &d.frame_b};
            for (int k = 0; k < 2; k++) {
                put_num(b, k ? ",\"qb\":[" : ",\"qa\":[", q[k]->x);
                put_num(b, ",", q[k]->y);
                put_num(b, ",", q[k]->z);
                put_num(b, ",", q[k]->w);
                proto_buf_append_char(b, ']');
            }
        }
        proto_buf_append_str(b, "}}");
    }
    proto_buf_append_str(b, "\n],\"free_joints\":[");
    first = true;
    for (size_t s = 0; s < joints; s++) {
        if (j[s].id != 0 || j[s].generation == 0)
            continue;
        proto_buf_append_str(b, first ? "[" : ",[");
        first = false;
        proto_buf_append_u64(b, s);
        proto_buf_append_char(b, ',');
        proto_buf_append_u64(b, j[s].generation);
        proto_buf_append_char(b, ']');
    }
    proto_buf_append_char(b, ']');
    free(index);
}
