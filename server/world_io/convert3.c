/* Between the protocol's validated specs and a 3D world's bodies and shapes, and the
 * protocol's view of a body in either world. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "world_io_internal.h"

int wio_shape3_from_proto(const proto_shape *in, col_shape3 *out, col_hull3 *hull, char *err,
                          size_t errlen)
{
    memset(out, 0, sizeof *out);
    switch (in->type) {
    case PROTO_SHAPE_SPHERE:
        out->type = COL_SHAPE3_SPHERE;
        out->radius = (float)in->radius;
        break;
    case PROTO_SHAPE_BOX:
        out->type = COL_SHAPE3_BOX;
        out->half = mk_v3((float)in->half[0], (float)in->half[1], (float)in->half[2]);
        break;
    case PROTO_SHAPE_ELLIPSOID:
        out->type = COL_SHAPE3_ELLIPSOID;
        out->half = mk_v3((float)in->radii[0], (float)in->radii[1], (float)in->radii[2]);
        break;
    case PROTO_SHAPE_CAPSULE:
    case PROTO_SHAPE_CYLINDER:
    case PROTO_SHAPE_CONE:
        out->type = in->type == PROTO_SHAPE_CAPSULE    ? COL_SHAPE3_CAPSULE
                    : in->type == PROTO_SHAPE_CYLINDER ? COL_SHAPE3_CYLINDER
                                                       : COL_SHAPE3_CONE;
        out->radius = (float)in->radius;
        out->half_height = (float)in->half_height;
        break;
    case PROTO_SHAPE_HULL: {
        mk_vec3 points[PROTO_MAX_POINTS];
        for (int i = 0; i < in->npoints; i++)
            points[i] = mk_v3((float)in->points[i][0], (float)in->points[i][1],
                              (float)in->points[i][2]);
        char why[128];
        if (col_hull3_make(points, in->npoints, hull, why, sizeof why) != 0) {
            snprintf(err, errlen, "shape.points: %s", why);
            return -1;
        }
        out->type = COL_SHAPE3_HULL;
        out->hull = hull;
        break;
    }
    default:
        snprintf(err, errlen, "shape.type: '%s' is a 2D shape; this world is 3D",
                 proto_shape_name(in->type));
        return -1;
    }
    char why[128];
    if (col_shape3_check(out, why, sizeof why) != 0) {
        snprintf(err, errlen, "shape: %s", why);
        return -1;
    }
    return 0;
}

int wio_body_def3_from_spec(const proto_body_spec *spec, sim_body_def3 *out, char *err,
                            size_t errlen)
{
    if (wio_shape3_from_proto(&spec->shape, &out->shape, &out->hull, err, errlen) != 0)
        return -1;
    out->pos = mk_v3((float)spec->pos[0], (float)spec->pos[1], (float)spec->pos[2]);
    out->vel = mk_v3((float)spec->vel[0], (float)spec->vel[1], (float)spec->vel[2]);
    /* The parser normalised it in double; in float it is normalised again. */
    mk_quat q = {(float)spec->rot[0], (float)spec->rot[1], (float)spec->rot[2],
                 (float)spec->rot[3]};
    if (!mk_quat_normalize_checked(q, &out->rot)) {
        snprintf(err, errlen, "rot: a zero quaternion is not a rotation");
        return -1;
    }
    return 0;
}

void wio_shape3_to_proto(const col_shape3 *s, proto_shape *out)
{
    memset(out, 0, offsetof(proto_shape, points));
    out->radius = s->radius;
    out->half_height = s->half_height;
    switch (s->type) {
    case COL_SHAPE3_SPHERE:
        out->type = PROTO_SHAPE_SPHERE;
        return;
    case COL_SHAPE3_BOX:
        out->type = PROTO_SHAPE_BOX;
        out->half[0] = s->half.x;
        out->half[1] = s->half.y;
        out->half[2] = s->half.z;
        return;
    case COL_SHAPE3_ELLIPSOID:
        out->type = PROTO_SHAPE_ELLIPSOID;
        out->radii[0] = s->half.x;
        out->radii[1] = s->half.y;
        out->radii[2] = s->half.z;
        return;
    case COL_SHAPE3_CAPSULE:
        out->type = PROTO_SHAPE_CAPSULE;
        return;
    case COL_SHAPE3_CYLINDER:
        out->type = PROTO_SHAPE_CYLINDER;
        return;
    case COL_SHAPE3_CONE:
        out->type = PROTO_SHAPE_CONE;
        return;
    case COL_SHAPE3_HULL:
        /* The hull's vertices: what the world collides, not the points as sent. */
        out->type = PROTO_SHAPE_HULL;
        out->npoints = s->hull->vert_count;
        for (int i = 0; i < s->hull->vert_count; i++) {
            out->points[i][0] = s->hull->verts[i].x;
            out->points[i][1] = s->hull->verts[i].y;
            out->points[i][2] = s->hull->verts[i].z;
        }
        return;
    case COL_SHAPE3_COUNT:
        break;
    }
}

void wio_body_shape_to_proto(const sim_world *w, const sim_body *b, proto_shape *out)
{
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
    st->pos[0] = b3->pos.x;
    st->pos[1] = b3->pos.y;
    st->pos[2] = b3->pos.z;
    st->rot[0] = b3->rot.x;
    st->rot[1] = b3->rot.y;
    st->rot[2] = b3->rot.z;
    st->rot[3] = b3->rot.w;
    st->vel[0] = b3->vel.x;
    st->vel[1] = b3->vel.y;
    st->vel[2] = b3->vel.z;
    st->w[0] = b3->w.x;
    st->w[1] = b3->w.y;
    st->w[2] = b3->w.z;
}

int wio_query3(const proto_placed_shape *a, const proto_placed_shape *b, proto_result *out,
               char *err, size_t errlen)
{
    col_hull3 ha, hb; /* 15 KB each */
    col_shape3 sa, sb;
    char why[160];
    if (wio_shape3_from_proto(&a->shape, &sa, &ha, why, sizeof why) != 0) {
        snprintf(err, errlen, "a.%s", why);
        return -1;
    }
    if (wio_shape3_from_proto(&b->shape, &sb, &hb, why, sizeof why) != 0) {
        snprintf(err, errlen, "b.%s", why);
        return -1;
    }
    col_xf3 xa, xb;
    xa.p = mk_v3((float)a->pos[0], (float)a->pos[1], (float)a->pos[2]);
    xb.p = mk_v3((float)b->pos[0], (float)b->pos[1], (float)b->pos[2]);
    if (!mk_quat_normalize_checked((mk_quat){(float)a->rot[0], (float)a->rot[1],
                                             (float)a->rot[2], (float)a->rot[3]},
                                   &xa.q) ||
        !mk_quat_normalize_checked((mk_quat){(float)b->rot[0], (float)b->rot[1],
                                             (float)b->rot[2], (float)b->rot[3]},
                                   &xb.q)) {
        snprintf(err, errlen, "rot: a zero quaternion is not a rotation");
        return -1;
    }
    col_manifold3 m = col_collide3(&sa, xa, &sb, xb);
    memset(out, 0, sizeof *out);
    out->hit = m.count > 0;
    out->normal[0] = m.normal.x;
    out->normal[1] = m.normal.y;
    out->normal[2] = m.normal.z;
    if (!out->hit) {
        out->distance = m.distance;
        return 0;
    }
    out->depth = m.depth;
    out->npoints = m.count;
    for (int i = 0; i < m.count; i++) {
        out->points[i][0] = m.points[i].point.x;
        out->points[i][1] = m.points[i].point.y;
        out->points[i][2] = m.points[i].point.z;
    }
    return 0;
}
