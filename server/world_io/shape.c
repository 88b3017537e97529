/* Shapes between the protocol and the collision library, 2D and 3D: a protocol shape as the
 * world collides it, and the protocol's view of a collision shape. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "world_io_internal.h"

/* A protocol shape as the world collides it. A polygon becomes its convex hull, written into
 * `polygon`, which the shape then points to. */
int wio_shape2_from_proto(const proto_shape *in, col_shape2 *out, col_polygon *polygon,
                          mk_error *err)
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
        if (col_polygon_make(points, in->npoints, polygon, err) != 0) {
            mk_error_prefix(err, "shape.points: ");
            return -1;
        }
        out->type = COL_SHAPE_POLYGON;
        out->polygon = polygon;
        return 0;
    }
    default:
        mk_fail(err, MK_ERR_INVALID, "shape.type: '%s' is a 3D shape; this world is 2D",
                proto_shape_name(in->type));
        return -1;
    }
}

int wio_shape3_from_proto(const proto_shape *in, col_shape3 *out, col_hull3 *hull, mk_error *err)
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
        if (col_hull3_make(points, in->npoints, hull, err) != 0) {
            mk_error_prefix(err, "shape.points: ");
            return -1;
        }
        out->type = COL_SHAPE3_HULL;
        out->hull = hull;
        break;
    }
    default:
        mk_fail(err, MK_ERR_INVALID, "shape.type: '%s' is a 2D shape; this world is 3D",
                proto_shape_name(in->type));
        return -1;
    }
    if (col_shape3_check(out, err) != 0) {
        mk_error_prefix(err, "shape: ");
        return -1;
    }
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

void wio_shape3_to_proto(const col_shape3 *s, proto_shape *out)
{
    static const proto_shape_type types[COL_SHAPE3_COUNT] = {
        [COL_SHAPE3_SPHERE] = PROTO_SHAPE_SPHERE,     [COL_SHAPE3_BOX] = PROTO_SHAPE_BOX,
        [COL_SHAPE3_ELLIPSOID] = PROTO_SHAPE_ELLIPSOID, [COL_SHAPE3_CAPSULE] = PROTO_SHAPE_CAPSULE,
        [COL_SHAPE3_CYLINDER] = PROTO_SHAPE_CYLINDER, [COL_SHAPE3_CONE] = PROTO_SHAPE_CONE,
        [COL_SHAPE3_HULL] = PROTO_SHAPE_HULL,
    };
    memset(out, 0, offsetof(proto_shape, points));
    out->type = types[s->type];
    out->radius = s->radius;
    out->half_height = s->half_height;
    /* A box's half extents and an ellipsoid's radii are the shape's `half`. */
    double *half = s->type == COL_SHAPE3_BOX ? out->half : out->radii;
    if (s->type == COL_SHAPE3_BOX || s->type == COL_SHAPE3_ELLIPSOID) {
        half[0] = s->half.x;
        half[1] = s->half.y;
        half[2] = s->half.z;
    }
    if (s->type == COL_SHAPE3_HULL) {
        /* The hull's vertices: what the world collides, not the points as sent. */
        out->npoints = s->hull->vert_count;
        for (int i = 0; i < s->hull->vert_count; i++) {
            out->points[i][0] = s->hull->verts[i].x;
            out->points[i][1] = s->hull->verts[i].y;
            out->points[i][2] = s->hull->verts[i].z;
        }
    }
}
