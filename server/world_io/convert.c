/* Between the protocol's validated specs and the world's bodies and shapes. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "world_io_internal.h"

/* A protocol shape as the world collides it. A polygon becomes its convex hull, written into
 * `polygon`, which the shape then points to. */
static int shape_from_proto(const proto_shape *in, col_shape2 *out, col_polygon *polygon,
                            char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    switch (in->type) {
    case PROTO_SHAPE_AABB:
    case PROTO_SHAPE_BOX:
        out->type = in->type == PROTO_SHAPE_AABB ? COL_SHAPE_AABB : COL_SHAPE_BOX;
        out->half = mk_v2((float)in->half[0], (float)in->half[1]);
        return 0;
    case PROTO_SHAPE_CIRCLE:
        out->type = COL_SHAPE_CIRCLE;
        out->radius = (float)in->radius;
        return 0;
    case PROTO_SHAPE_POLYGON: {
        mk_vec2 points[PROTO_MAX_POINTS];
        for (int i = 0; i < in->npoints; i++)
            points[i] = mk_v2((float)in->points[i][0], (float)in->points[i][1]);
        char why[128];
        if (col_polygon_make(points, in->npoints, polygon, why, sizeof why) != 0) {
            snprintf(err, errlen, "shape.points: %s", why);
            return -1;
        }
        out->type = COL_SHAPE_POLYGON;
        out->polygon = polygon;
        return 0;
    }
    default:
        snprintf(err, errlen, "shape.type: '%s' is a 3D shape; this world is 2D",
                 proto_shape_name(in->type));
        return -1;
    }
}

static sim_kind kind_from_proto(proto_body_kind k)
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

int wio_body_def_from_spec(const proto_body_spec *spec, int dim, sim_body_def *out, char *err,
                           size_t errlen)
{
    memset(out, 0, offsetof(sim_body_def, d3));
    if (dim == 3) {
        memset(&out->d3, 0, offsetof(sim_body_def3, hull));
        if (wio_body_def3_from_spec(spec, &out->d3, err, errlen) != 0)
            return -1;
    } else if (shape_from_proto(&spec->shape, &out->shape, &out->polygon, err, errlen) != 0) {
        return -1;
    }
    out->pos = mk_v2((float)spec->pos[0], (float)spec->pos[1]);
    out->vel = mk_v2((float)spec->vel[0], (float)spec->vel[1]);
    out->angle = (float)spec->rot[0];
    out->kind = kind_from_proto(spec->kind);
    out->density = (float)spec->density;
    out->friction = (float)spec->friction;
    out->restitution = (float)spec->restitution;
    out->max_speed = (float)spec->max_speed;
    out->jump_height = (float)spec->jump_height;
    out->max_slope = (float)spec->max_slope;
    memcpy(out->tag, spec->tag, sizeof out->tag);
    return 0;
}

void wio_shape2_to_proto(const col_shape2 *s, proto_shape *out)
{
    memset(out, 0, offsetof(proto_shape, points));
    switch (s->type) {
    case COL_SHAPE_AABB:
    case COL_SHAPE_BOX:
        out->type = s->type == COL_SHAPE_AABB ? PROTO_SHAPE_AABB : PROTO_SHAPE_BOX;
        out->half[0] = s->half.x;
        out->half[1] = s->half.y;
        return;
    case COL_SHAPE_CIRCLE:
        out->type = PROTO_SHAPE_CIRCLE;
        out->radius = s->radius;
        return;
    case COL_SHAPE_POLYGON:
        /* The hull's vertices: what the world collides, not the points as sent. */
        out->type = PROTO_SHAPE_POLYGON;
        out->npoints = s->polygon->count;
        for (int i = 0; i < s->polygon->count; i++) {
            out->points[i][0] = s->polygon->verts[i].x;
            out->points[i][1] = s->polygon->verts[i].y;
            out->points[i][2] = 0;
        }
        return;
    case COL_SHAPE_COUNT:
        break;
    }
}

int wio_query(int dim, const proto_placed_shape *a, const proto_placed_shape *b,
              proto_result *out, char *err, size_t errlen)
{
    if (dim == 3)
        return wio_query3(a, b, out, err, errlen);
    col_shape2 sa, sb;
    col_polygon pa, pb;
    char why[160];
    if (shape_from_proto(&a->shape, &sa, &pa, why, sizeof why) != 0) {
        snprintf(err, errlen, "a.%s", why);
        return -1;
    }
    if (shape_from_proto(&b->shape, &sb, &pb, why, sizeof why) != 0) {
        snprintf(err, errlen, "b.%s", why);
        return -1;
    }
    col_xf2 xa = {mk_v2((float)a->pos[0], (float)a->pos[1]), (float)a->rot[0]};
    col_xf2 xb = {mk_v2((float)b->pos[0], (float)b->pos[1]), (float)b->rot[0]};
    col_manifold2 m = col_collide2(&sa, xa, &sb, xb);
    memset(out, 0, sizeof *out);
    out->hit = m.count > 0;
    /* Apart, the normal is the direction of the shortest gap, a -> b. */
    out->normal[0] = m.normal.x;
    out->normal[1] = m.normal.y;
    if (!out->hit) {
        out->distance = m.distance;
        return 0;
    }
    out->depth = m.depth;
    out->npoints = m.count;
    for (int i = 0; i < m.count; i++) {
        out->points[i][0] = m.points[i].point.x;
        out->points[i][1] = m.points[i].point.y;
    }
    return 0;
}
