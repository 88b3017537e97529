/* The world queries' wire form: `raycast`, `cast` and `overlap` turned into the world's
 * queries (sim_world_raycast, sim_world_cast, sim_world_overlap) and their `hits` written.
 * A query never changes the world. */
#include <stdio.h>
#include <string.h>

#include "world_io_internal.h"

/* The answer's room: a ray with `all` reports the nearest WIO_MAX_HITS bodies. */
#define WIO_MAX_HITS 256

/* A query's own shape (a hull is 15 KB): the net loop answers one message at a time. */
static col_polygon query_polygon;
static col_hull3 query_hull;
static sim_hit sim_hits[WIO_MAX_HITS];
static proto_hit wire_hits[WIO_MAX_HITS];

static int shape_of(int dim, const proto_placed_shape *in, sim_query_shape *out, mk_error *err)
{
    memset(out, 0, sizeof *out);
    if (dim == 2) {
        if (wio_shape2_from_proto(&in->shape, &out->shape2, &query_polygon, err) != 0) {
            mk_error_prefix(err, "shape.");
            return -1;
        }
        out->xf2 = (col_xf2){mk_v2((float)in->pos[0], (float)in->pos[1]), (float)in->rot[0]};
        return 0;
    }
    if (wio_shape3_from_proto(&in->shape, &out->shape3, &query_hull, err) != 0) {
        mk_error_prefix(err, "shape.");
        return -1;
    }
    out->xf3.p = mk_v3((float)in->pos[0], (float)in->pos[1], (float)in->pos[2]);
    if (!mk_quat_normalize_checked((mk_quat){(float)in->rot[0], (float)in->rot[1],
                                             (float)in->rot[2], (float)in->rot[3]},
                                   &out->xf3.q))
        return mk_fail(err, MK_ERR_INVALID, "rot: a zero quaternion is not a rotation");
    return 0;
}

static mk_vec3 v3_of(const double *v)
{
    return mk_v3((float)v[0], (float)v[1], (float)v[2]);
}

static void to_wire(const sim_hit *h, proto_hit *out)
{
    memset(out, 0, sizeof *out);
    out->id = h->id;
    out->fraction = h->fraction;
    wio_put3(out->point, h->point);
    wio_put3(out->normal, h->normal);
    out->depth = h->depth;
    out->npoints = h->npoints;
    for (int p = 0; p < h->npoints; p++) {
        out->points[p][0] = h->points[p].x;
        out->points[p][1] = h->points[p].y;
        out->points[p][2] = h->points[p].z;
    }
}

int wio_world_query(sim_world *w, proto_msg_type type, const proto_world_query *q,
                    const char *req, proto_buf *out, mk_error *err)
{
    int dim = sim_world_dim(w);
    uint64_t now = sim_world_tick(w), tick = q->has_at_tick ? q->at_tick : now;
    uint64_t oldest = sim_world_history_oldest(w);
    if (tick > now || tick < oldest) {
        if (oldest == now)
            return mk_fail(err, MK_ERR_INVALID,
                           "at_tick: %llu is not the current tick %llu (this server keeps no "
                           "history)",
                           (unsigned long long)tick, (unsigned long long)now);
        return mk_fail(err, MK_ERR_INVALID, "at_tick: %llu is outside the history (ticks %llu to "
                                            "%llu)",
                       (unsigned long long)tick, (unsigned long long)oldest,
                       (unsigned long long)now);
    }
    sim_id ignore[PROTO_MAX_IGNORE];
    for (int i = 0; i < q->nignore; i++)
        ignore[i] = q->ignore[i];
    sim_query_filter f = {ignore, (size_t)q->nignore, 0, q->mask};
    for (int k = PROTO_KIND_DYNAMIC; k <= PROTO_KIND_CHARACTER; k++)
        if (q->kinds & (1u << k))
            f.kinds |= 1u << wio_kind_from_proto((proto_body_kind)k);

    int n;
    size_t total = 0;
    if (type == PROTO_MSG_RAYCAST) {
        n = sim_world_raycast(w, tick, v3_of(q->from), v3_of(q->to), &f, q->all, sim_hits,
                              WIO_MAX_HITS, &total);
    } else {
        sim_query_shape s;
        if (shape_of(dim, &q->shape, &s, err) != 0)
            return -1;
        if (type == PROTO_MSG_CAST)
            n = sim_world_cast(w, tick, &s, mk_v3_sub(v3_of(q->to), v3_of(q->shape.pos)), &f,
                               sim_hits);
        else
            n = sim_world_overlap(w, tick, &s, &f, sim_hits, WIO_MAX_HITS, &total);
    }
    if (n == SIM_QUERY_NO_HISTORY)
        return mk_fail(err, MK_ERR_INVALID, "at_tick: %llu is outside the history",
                       (unsigned long long)tick);
    if (n < 0)
        return mk_fail(err, MK_ERR_INVALID, "the server is out of memory for this query");
    for (int i = 0; i < n; i++)
        to_wire(&sim_hits[i], &wire_hits[i]);
    proto_write_hits(out, req, dim, tick, type == PROTO_MSG_OVERLAP, wire_hits, (size_t)n);
    return 0;
}
