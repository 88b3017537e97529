/* A box's or a polygon's vertices and normals as the separating-axis tests read them, in its
 * own frame or in another's, and a manifold found in a frame turned back into the world: the
 * views that the 2D pair functions (sat2.c, circle2.c, segment2.c, ray2.c) share. */
#include <assert.h>

#include "collide2_internal.h"

void col_view_local(const col_shape2 *s, col_poly_view *out)
{
    if (s->type == COL_SHAPE_POLYGON) {
        out->count = s->polygon->count;
        out->v = s->polygon->verts;
        out->n = s->polygon->normals;
        return;
    }
    assert(s->type == COL_SHAPE_AABB || s->type == COL_SHAPE_BOX);
    float hx = s->half.x, hy = s->half.y;
    /* Counter-clockwise from the lower left; edge i runs from corner i to corner i + 1. */
    out->own_v[0] = mk_v2(-hx, -hy);
    out->own_v[1] = mk_v2(hx, -hy);
    out->own_v[2] = mk_v2(hx, hy);
    out->own_v[3] = mk_v2(-hx, hy);
    out->own_n[0] = mk_v2(0.0f, -1.0f);
    out->own_n[1] = mk_v2(1.0f, 0.0f);
    out->own_n[2] = mk_v2(0.0f, 1.0f);
    out->own_n[3] = mk_v2(-1.0f, 0.0f);
    out->count = 4;
    out->v = out->own_v;
    out->n = out->own_n;
}

void col_view_in_frame(const col_shape2 *s, col_xf2 xf, col_rot2 rot, col_xf2 frame,
                       col_rot2 frame_rot, col_poly_view *out)
{
    col_poly_view local;
    col_view_local(s, &local);
    /* The rotation and offset of the shape relative to the frame. */
    col_rot2 rel = {frame_rot.c * rot.c + frame_rot.s * rot.s,
                    frame_rot.c * rot.s - frame_rot.s * rot.c};
    mk_vec2 off = col_unrotate(frame_rot, mk_v2_sub(xf.p, frame.p));
    out->count = local.count;
    for (int i = 0; i < local.count; i++) {
        out->own_v[i] = mk_v2_add(off, col_rotate(rel, local.v[i]));
        out->own_n[i] = col_rotate(rel, local.n[i]);
    }
    out->v = out->own_v;
    out->n = out->own_n;
}

void col_manifold_to_world(col_manifold2 *m, mk_vec2 origin, col_rot2 rot)
{
    m->normal = col_rotate(rot, m->normal);
    for (int i = 0; i < m->count; i++)
        m->points[i].point = mk_v2_add(origin, col_rotate(rot, m->points[i].point));
}
