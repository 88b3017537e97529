/* Bodies between the protocol and the world: a validated body spec as a body definition, and
 * a body's shape and state as `state` sends them, in either world. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "world_io_internal.h"

void wio_put3(double out[3], mk_vec3 v)
{
    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
}

sim_kind wio_kind_from_proto(proto_body_kind k)
{
    switch (k) {
    case PROTO_KIND_STATIC:
        return SIM_STATIC;
    case PROTO_KIND_KINEMATIC:
        return SIM_KINEMATIC;
    case PROTO_KIND_CHARACTER:
        return SIM_CHARACTER;
    case PROTO_KIND_DYNAMIC:
        break;
    }
    return SIM_DYNAMIC;
}

proto_body_kind wio_kind_to_proto(sim_kind k)
{
    switch (k) {
    case SIM_STATIC:
        return PROTO_KIND_STATIC;
    case SIM_KINEMATIC:
        return PROTO_KIND_KINEMATIC;
    case SIM_CHARACTER:
        return PROTO_KIND_CHARACTER;
    case SIM_DYNAMIC:
        break;
    }
    return PROTO_KIND_DYNAMIC;
}

/* The 3D part of a body definition. */
static int body_def3_from_spec(const proto_body_spec *spec, sim_body_def3 *out, mk_error *err)
{
    if (wio_shape3_from_proto(&spec->shape, &out->shape, &out->hull, err) != 0)
        return -1;
    out->pos = mk_v3((float)spec->pos[0], (float)spec->pos[1], (float)spec->pos[2]);
    out->vel = mk_v3((float)spec->vel[0], (float)spec->vel[1], (float)spec->vel[2]);
    /* The parser normalised it in double; in float it is normalised again. */
    mk_quat q = {(float)spec->rot[0], (float)spec->rot[1], (float)spec->rot[2],
                 (float)spec->rot[3]};
    if (!mk_quat_normalize_checked(q, &out->rot)) {
        mk_fail(err, MK_ERR_INVALID, "rot: a zero quaternion is not a rotation");
        return -1;
    }
    return 0;
}

int wio_body_def_from_spec(const proto_body_spec *spec, int dim, sim_body_def *out, mk_error *err)
{
    return wio_body_def_from_spec_in(spec, dim, NULL, out, err);
}

int wio_body_def_from_spec_in(const proto_body_spec *spec, int dim, const char *dir,
                              sim_body_def *out, mk_error *err)
{
    memset(out, 0, offsetof(sim_body_def, d3));
    if (proto_shape_is_level(spec->shape.type)) {
        memset(&out->d3, 0, offsetof(sim_body_def3, hull));
        out->d3.pos = mk_v3((float)spec->pos[0], (float)spec->pos[1], (float)spec->pos[2]);
        out->d3.vel = mk_v3((float)spec->vel[0], (float)spec->vel[1], (float)spec->vel[2]);
        mk_quat q = {(float)spec->rot[0], (float)spec->rot[1], (float)spec->rot[2],
                     (float)spec->rot[3]};
        if (dim == 3 && !mk_quat_normalize_checked(q, &out->d3.rot)) {
            mk_fail(err, MK_ERR_INVALID, "rot: a zero quaternion is not a rotation");
            return -1;
        }
        if (!(out->level = wio_level_of_shape(&spec->shape, dim, dir, err))) {
            mk_error_prefix(err, "shape.");
            return -1;
        }
    } else if (dim == 3) {
        memset(&out->d3, 0, offsetof(sim_body_def3, hull));
        if (body_def3_from_spec(spec, &out->d3, err) != 0)
            return -1;
    } else if (wio_shape2_from_proto(&spec->shape, &out->shape, &out->polygon, err) != 0) {
        return -1;
    }
    out->pos = mk_v2((float)spec->pos[0], (float)spec->pos[1]);
    out->vel = mk_v2((float)spec->vel[0], (float)spec->vel[1]);
    out->angle = (float)spec->rot[0];
    out->kind = wio_kind_from_proto(spec->kind);
    out->density = (float)spec->density;
    out->friction = (float)spec->friction;
    out->restitution = (float)spec->restitution;
    out->max_speed = (float)spec->max_speed;
    out->jump_height = (float)spec->jump_height;
    out->max_slope = (float)spec->max_slope;
    memcpy(out->tag, spec->tag, sizeof out->tag);
    out->has_filter = true;
    out->filter = (sim_filter){spec->filter.category, spec->filter.mask, spec->filter.group};
    out->sensor = spec->sensor;
    return 0;
}

void wio_body_filter(const sim_world *w, const sim_body *b, proto_filter *out, bool *sensor)
{
    sim_filter f = sim_body_filter(w, b);
    *out = (proto_filter){f.category, f.mask, f.group};
    *sensor = sim_body_is_sensor(w, b);
}

void wio_event_to_proto(int dim, const sim_event *e, proto_event *out)
{
    /* The two enumerations list the same events in the same order. */
    out->type = (proto_event_type)e->type;
    out->tick = e->tick;
    out->a = e->a;
    out->b = e->b;
    wio_put3(out->point, e->point);
    wio_put3(out->normal, e->normal);
    if (dim == 2)
        out->point[2] = out->normal[2] = 0;
    out->speed = e->speed;
}

void wio_body_shape_to_proto(const sim_world *w, const sim_body *b, proto_shape *out)
{
    if (b->level) {
        wio_level_to_proto(b->level, WIO_LEVEL_INLINE, out);
        return;
    }
    const sim_body3 *b3 = sim_body3_of(w, b);
    if (b3)
        wio_shape3_to_proto(&b3->shape, out);
    else
        wio_shape2_to_proto(&b->shape, out);
}

void wio_body_state(const sim_world *w, const sim_body *b, proto_body_state *st)
{
    const sim_body3 *b3 = sim_body3_of(w, b);
    memset(st, 0, sizeof *st);
    st->id = b->id;
    if (!b3) {
        st->pos[0] = b->pos.x;
        st->pos[1] = b->pos.y;
        st->rot[0] = b->angle;
        st->vel[0] = b->vel.x;
        st->vel[1] = b->vel.y;
        st->w[0] = b->w;
        return;
    }
    wio_put3(st->pos, b3->pos);
    wio_put3(st->rot, mk_v3(b3->rot.x, b3->rot.y, b3->rot.z));
    st->rot[3] = b3->rot.w;
    wio_put3(st->vel, b3->vel);
    wio_put3(st->w, b3->w);
}
