/* The stateless `query`: do two shapes of the world's dimension overlap, by how much and where.
 * It never touches a world: the shapes are placed as the message says and collided with the
 * same exact narrowphase as the step (col_collide2, col_collide3). */
#include <stdio.h>
#include <string.h>

#include "world_io_internal.h"

/* A manifold's answer, either dimension's, in the protocol's form: its normal (a -> b; apart,
 * the direction of the shortest gap), and the gap when apart, else the depth and the points.
 * Vectors come as three floats, z 0 in 2D. */
static void fill_result(proto_result *out, int count, const float normal[3], float distance,
                        float depth, float (*points)[3])
{
    memset(out, 0, sizeof *out);
    out->hit = count > 0;
    for (int k = 0; k < 3; k++)
        out->normal[k] = normal[k];
    if (!out->hit) {
        out->distance = distance;
        return;
    }
    out->depth = depth;
    out->npoints = count;
    for (int i = 0; i < count; i++)
        for (int k = 0; k < 3; k++)
            out->points[i][k] = points[i][k];
}

/* Each shape as the world collides it; an error names the shape (a. or b.). */
static int shapes2(const proto_placed_shape *a, const proto_placed_shape *b, col_shape2 s[2],
                   col_polygon p[2], mk_error *err)
{
    const proto_placed_shape *in[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        if (wio_shape2_from_proto(&in[i]->shape, &s[i], &p[i], err) != 0) {
            mk_error_prefix(err, "%c.", "ab"[i]);
            return -1;
        }
    }
    return 0;
}

static int query2(const proto_placed_shape *a, const proto_placed_shape *b, proto_result *out,
                  mk_error *err)
{
    col_shape2 s[2];
    col_polygon p[2];
    if (shapes2(a, b, s, p, err) != 0)
        return -1;
    col_xf2 xa = {mk_v2((float)a->pos[0], (float)a->pos[1]), (float)a->rot[0]};
    col_xf2 xb = {mk_v2((float)b->pos[0], (float)b->pos[1]), (float)b->rot[0]};
    col_manifold2 m = col_collide2(&s[0], xa, &s[1], xb);
    float normal[3] = {m.normal.x, m.normal.y, 0.0f}, points[COL_MAX_POINTS2][3];
    for (int i = 0; i < m.count; i++) {
        points[i][0] = m.points[i].point.x;
        points[i][1] = m.points[i].point.y;
        points[i][2] = 0.0f;
    }
    fill_result(out, m.count, normal, m.distance, m.depth, points);
    return 0;
}

/* A placement from the message; false for a zero quaternion. */
static bool xf3_of(const proto_placed_shape *in, col_xf3 *xf)
{
    xf->p = mk_v3((float)in->pos[0], (float)in->pos[1], (float)in->pos[2]);
    return mk_quat_normalize_checked((mk_quat){(float)in->rot[0], (float)in->rot[1],
                                               (float)in->rot[2], (float)in->rot[3]},
                                     &xf->q);
}

static int query3(const proto_placed_shape *a, const proto_placed_shape *b, proto_result *out,
                  mk_error *err)
{
    col_hull3 hulls[2]; /* 15 KB each */
    const proto_placed_shape *in[2] = {a, b};
    col_shape3 s[2];
    for (int i = 0; i < 2; i++) {
        if (wio_shape3_from_proto(&in[i]->shape, &s[i], &hulls[i], err) != 0) {
            mk_error_prefix(err, "%c.", "ab"[i]);
            return -1;
        }
    }
    col_xf3 xa, xb;
    if (!xf3_of(a, &xa) || !xf3_of(b, &xb)) {
        mk_fail(err, MK_ERR_INVALID, "rot: a zero quaternion is not a rotation");
        return -1;
    }
    col_manifold3 m = col_collide3(&s[0], xa, &s[1], xb);
    float normal[3] = {m.normal.x, m.normal.y, m.normal.z}, points[COL_MAX_POINTS3][3];
    for (int i = 0; i < m.count; i++) {
        points[i][0] = m.points[i].point.x;
        points[i][1] = m.points[i].point.y;
        points[i][2] = m.points[i].point.z;
    }
    fill_result(out, m.count, normal, m.distance, m.depth, points);
    return 0;
}

int wio_query(int dim, const proto_placed_shape *a, const proto_placed_shape *b,
              proto_result *out, mk_error *err)
{
    return dim == 3 ? query3(a, b, out, err) : query2(a, b, out, err);
}
