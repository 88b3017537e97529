/* A level's file: the built level (its points, vertices, triangles, active edges, heights and
 * its hierarchy) laid out field by field in this build's byte order, after the magic
 * "MINKLVL1" and the kind. A save keeps each level once in this form and a restart reads it
 * back instead of building it again, so that the level's triangles come back in the same
 * order with the same active edges: the contact cache's keys (a triangle's index) and the
 * next steps are the same. docs/PROTOCOL.md ("Level files") gives the layout, which clients
 * read to draw a level.
 *
 * A file is outside data: the reader checks every count against what is left, every index
 * against what it indexes, every number for being finite, and walks the hierarchy once
 * (every child after its parent, no node reached twice, leaves within the pieces, no path
 * deeper than the walks' stacks) before any query can follow it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "level.h"

#define LEVEL_MAGIC "MINKLVL1"
#define LEVEL_MAX_DEPTH (COL_BVH_MAX_DEPTH - 4) /* a walk's stack holds a path and a sibling */

/* ---- writing ---- */

typedef struct out {
    sim_put_fn put;
    void *ctx;
} out;

static void put(out *o, const void *p, size_t n)
{
    if (n > 0)
        o->put(o->ctx, p, n);
}

static void put_u32(out *o, uint32_t v) { put(o, &v, sizeof v); }
static void put_f32(out *o, float v) { put(o, &v, sizeof v); }

/* Zeros up to the next multiple of 4 after n bytes of bytes: the arrays after it stay aligned
 * for a reader that maps them (a browser's Float32Array). */
static void pad4(out *o, size_t n)
{
    static const uint8_t zeros[4] = {0, 0, 0, 0};
    put(o, zeros, (4 - n % 4) % 4);
}

static void put_bvh(out *o, const col_bvh *t)
{
    put_u32(o, t->node_count);
    put_u32(o, t->depth);
    put(o, t->lo, sizeof t->lo);
    put(o, t->hi, sizeof t->hi);
    put(o, t->step, sizeof t->step);
    for (uint32_t i = 0; i < t->node_count; i++) {
        const col_bvh_node *nd = &t->nodes[i];
        put(o, nd->lo, sizeof nd->lo);
        put(o, nd->hi, sizeof nd->hi);
        put_u32(o, nd->data);
    }
}

static void put_aabb3(out *o, col_aabb3 b)
{
    const float f[6] = {b.center.x, b.center.y, b.center.z, b.half.x, b.half.y, b.half.z};
    put(o, f, sizeof f);
}

void sim_level_write(const sim_level *l, sim_put_fn fn, void *ctx)
{
    out o = {fn, ctx};
    put(&o, LEVEL_MAGIC, 8);
    put_u32(&o, (uint32_t)l->kind);
    put_u32(&o, 0);
    switch (l->kind) {
    case SIM_LEVEL_SEGMENT: {
        const float f[4] = {l->segment.a.x, l->segment.a.y, l->segment.b.x, l->segment.b.y};
        put(&o, f, sizeof f);
        return;
    }
    case SIM_LEVEL_CHAIN: {
        const col_chain2 *c = &l->chain;
        put_u32(&o, c->point_count);
        put_u32(&o, c->loop ? 1u : 0u);
        put_u32(&o, c->segment_count);
        put_u32(&o, c->welded);
        const float b[4] = {c->bounds.center.x, c->bounds.center.y, c->bounds.half.x,
                            c->bounds.half.y};
        put(&o, b, sizeof b);
        put(&o, c->points, (size_t)c->point_count * sizeof *c->points);
        put(&o, c->order, (size_t)c->segment_count * sizeof *c->order);
        put_bvh(&o, &c->bvh);
        return;
    }
    case SIM_LEVEL_MESH: {
        const col_mesh3 *m = &l->mesh;
        put_u32(&o, m->vert_count);
        put_u32(&o, m->tri_count);
        put_u32(&o, m->dropped);
        put_u32(&o, 0);
        put_aabb3(&o, m->bounds);
        put(&o, m->verts, (size_t)m->vert_count * sizeof *m->verts);
        put(&o, m->tris, (size_t)m->tri_count * sizeof *m->tris);
        put(&o, m->source, (size_t)m->tri_count * sizeof *m->source);
        put(&o, m->active, m->tri_count);
        pad4(&o, m->tri_count);
        put_bvh(&o, &m->bvh);
        return;
    }
    case SIM_LEVEL_HEIGHTFIELD: {
        const col_heightfield3 *h = &l->hf;
        size_t cells = (size_t)(h->cols - 1) * (h->rows - 1);
        put_u32(&o, h->cols);
        put_u32(&o, h->rows);
        put_u32(&o, h->tri_count);
        put_u32(&o, 0);
        put_f32(&o, h->scale.x);
        put_f32(&o, h->scale.y);
        put_f32(&o, h->scale.z);
        put_f32(&o, h->min_y);
        put_f32(&o, h->max_y);
        put_aabb3(&o, h->bounds);
        put(&o, h->y, (size_t)h->cols * h->rows * sizeof *h->y);
        put(&o, h->cells, cells);
        pad4(&o, cells);
        return;
    }
    }
}

/* ---- reading ---- */

typedef struct in {
    const uint8_t *data;
    size_t len, at;
    mk_error *err;
} in;

static bool fail_at(in *r, size_t at, const char *what)
{
    mk_fail(r->err, MK_ERR_INVALID, "byte %zu: %s", at, what);
    return false;
}

static bool take(in *r, void *p, size_t n, const char *what)
{
    if (n > r->len - r->at)
        return fail_at(r, r->at, what);
    if (n > 0)
        memcpy(p, r->data + r->at, n);
    r->at += n;
    return true;
}

static bool take_u32(in *r, uint32_t *v, const char *what) { return take(r, v, sizeof *v, what); }

/* n items of `size` bytes into a new array (n fits in what is left before anything is
 * allocated; at least one byte so that NULL means no memory). */
static void *take_array(in *r, size_t n, size_t size, const char *what)
{
    if (n > (r->len - r->at) / size) {
        fail_at(r, r->at, what);
        return NULL;
    }
    void *p = malloc(n ? n * size : 1);
    if (!p) {
        mk_fail(r->err, MK_ERR_IO, "byte %zu: %s: out of memory", r->at, what);
        return NULL;
    }
    take(r, p, n * size, what);
    return p;
}

static bool skip_pad4(in *r, size_t n)
{
    size_t pad = (4 - n % 4) % 4;
    if (pad > r->len - r->at)
        return fail_at(r, r->at, "the padding runs past the end");
    r->at += pad;
    return true;
}

static bool finite_floats(const float *f, size_t n, float bound)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(f[i]) || fabsf(f[i]) > bound)
            return false;
    return true;
}

/* n points of `dim` floats (a chain's points, a mesh's vertices) into a new array of items
 * of `size` bytes, every coordinate finite and within COL_LEVEL_MAX_COORD; NULL when not
 * (the array freed, `bad` saying what is wrong) or when the bytes run out. */
static void *take_points(in *r, uint32_t n, size_t size, int dim, const char *what,
                         const char *bad)
{
    size_t at = r->at;
    float *p = take_array(r, n, size, what);
    if (p && !finite_floats(p, (size_t)dim * n, COL_LEVEL_MAX_COORD)) {
        free(p);
        fail_at(r, at, bad);
        return NULL;
    }
    return p;
}

/* n items of `per_item` indices (uint32) into a new array, every index below `limit`; NULL
 * when one is not (the array freed, `bad` saying what is wrong) or the bytes run out. */
static void *take_indices(in *r, uint32_t n, int per_item, uint32_t limit, const char *what,
                          const char *bad)
{
    size_t at = r->at;
    uint32_t *p = take_array(r, n, (size_t)per_item * sizeof *p, what);
    for (size_t i = 0; p && i < (size_t)per_item * n; i++)
        if (p[i] >= limit) {
            free(p);
            fail_at(r, at, bad);
            return NULL;
        }
    return p;
}

static bool take_aabb3(in *r, col_aabb3 *b)
{
    size_t at = r->at;
    float f[6];
    if (!take(r, f, sizeof f, "the bounds run past the end"))
        return false;
    if (!finite_floats(f, 6, 4.0f * COL_LEVEL_MAX_COORD))
        return fail_at(r, at, "the bounds are not finite");
    *b = (col_aabb3){mk_v3(f[0], f[1], f[2]), mk_v3(f[3], f[4], f[5])};
    return true;
}

/* Walks the hierarchy from its root once: each inner node's first child follows it and its
 * second comes after that, no node is reached twice, every leaf's pieces are within
 * `pieces`, no path is deeper than the walks' stacks hold. */
static bool bvh_ok(in *r, size_t at, const col_bvh *t, uint32_t pieces)
{
    uint8_t *seen = calloc(t->node_count, 1);
    uint32_t stack[2 * COL_BVH_MAX_DEPTH], depth_of[2 * COL_BVH_MAX_DEPTH];
    int sp = 0;
    bool ok = seen != NULL;
    if (!seen)
        mk_fail(r->err, MK_ERR_IO, "byte %zu: the hierarchy: out of memory", at);
    if (ok) {
        stack[sp] = 0;
        depth_of[sp++] = 0;
    }
    while (ok && sp > 0) {
        uint32_t i = stack[--sp], depth = depth_of[sp];
        if (i >= t->node_count || seen[i] || depth > LEVEL_MAX_DEPTH) {
            ok = fail_at(r, at, "the hierarchy is not a tree the walks can follow");
            break;
        }
        seen[i] = 1;
        uint32_t data = t->nodes[i].data;
        if (data & 0x80000000u) {
            uint32_t first = data & 0x07FFFFFFu, count = ((data >> 27) & 0xFu) + 1u;
            if (first > pieces || count > pieces - first)
                ok = fail_at(r, at, "a leaf of the hierarchy is past the pieces");
            continue;
        }
        if (data <= i + 1 || data >= t->node_count) {
            ok = fail_at(r, at, "an inner node's children are out of order");
            break;
        }
        stack[sp] = data;
        depth_of[sp++] = depth + 1;
        stack[sp] = i + 1;
        depth_of[sp++] = depth + 1;
    }
    free(seen);
    return ok;
}

static bool take_bvh(in *r, col_bvh *t, uint32_t pieces)
{
    size_t at = r->at;
    if (!take_u32(r, &t->node_count, "the hierarchy runs past the end") ||
        !take_u32(r, &t->depth, "the hierarchy runs past the end") ||
        !take(r, t->lo, sizeof t->lo, "the hierarchy runs past the end") ||
        !take(r, t->hi, sizeof t->hi, "the hierarchy runs past the end") ||
        !take(r, t->step, sizeof t->step, "the hierarchy runs past the end"))
        return false;
    if (t->node_count == 0 || t->node_count > 2u * pieces || t->depth > LEVEL_MAX_DEPTH)
        return fail_at(r, at, "the hierarchy's size is out of range");
    if (!finite_floats(t->lo, 3, 4.0f * COL_LEVEL_MAX_COORD) ||
        !finite_floats(t->hi, 3, 4.0f * COL_LEVEL_MAX_COORD))
        return fail_at(r, at, "the hierarchy's box is not finite");
    for (int k = 0; k < 3; k++)
        if (!(t->step[k] > 0.0 && t->step[k] < 1e30))
            return fail_at(r, at, "the hierarchy's steps are out of range");
    size_t at_nodes = r->at;
    if (t->node_count > (r->len - r->at) / 16) {
        t->node_count = 0;
        return fail_at(r, at_nodes, "the hierarchy's nodes run past the end");
    }
    t->nodes = malloc((size_t)t->node_count * sizeof *t->nodes);
    if (!t->nodes) {
        t->node_count = 0;
        mk_fail(r->err, MK_ERR_IO, "byte %zu: the hierarchy: out of memory", at_nodes);
        return false;
    }
    for (uint32_t i = 0; i < t->node_count; i++) {
        col_bvh_node *nd = &t->nodes[i];
        take(r, nd->lo, sizeof nd->lo, "a node");
        take(r, nd->hi, sizeof nd->hi, "a node");
        take_u32(r, &nd->data, "a node");
    }
    return bvh_ok(r, at_nodes, t, pieces);
}

static bool read_chain(in *r, col_chain2 *c)
{
    size_t at = r->at;
    uint32_t loop;
    float b[4];
    if (!take_u32(r, &c->point_count, "the chain runs past the end") ||
        !take_u32(r, &loop, "the chain runs past the end") ||
        !take_u32(r, &c->segment_count, "the chain runs past the end") ||
        !take_u32(r, &c->welded, "the chain runs past the end") ||
        !take(r, b, sizeof b, "the chain runs past the end"))
        return false;
    c->loop = loop != 0;
    uint32_t need = c->loop ? 3 : 4;
    if (loop > 1 || c->point_count < need || c->point_count > COL_LEVEL_MAX_PIECES ||
        c->segment_count != (c->loop ? c->point_count : c->point_count - 3))
        return fail_at(r, at, "the chain's counts do not agree");
    if (!finite_floats(b, 4, 4.0f * COL_LEVEL_MAX_COORD))
        return fail_at(r, at, "the chain's bounds are not finite");
    c->bounds = (col_aabb){mk_v2(b[0], b[1]), mk_v2(b[2], b[3])};
    if (!(c->points = take_points(r, c->point_count, sizeof *c->points, 2, "the chain's points",
                                  "a chain point is not finite or out of range")))
        return false;
    if (!(c->order = take_indices(r, c->segment_count, 1, c->segment_count, "the chain's order",
                                  "a leaf slot names no segment")))
        return false;
    return take_bvh(r, &c->bvh, c->segment_count);
}

static bool read_mesh(in *r, col_mesh3 *m)
{
    size_t at = r->at;
    uint32_t pad;
    if (!take_u32(r, &m->vert_count, "the mesh runs past the end") ||
        !take_u32(r, &m->tri_count, "the mesh runs past the end") ||
        !take_u32(r, &m->dropped, "the mesh runs past the end") ||
        !take_u32(r, &pad, "the mesh runs past the end") || !take_aabb3(r, &m->bounds))
        return false;
    if (m->vert_count < 3 || m->tri_count == 0 || m->tri_count > COL_LEVEL_MAX_PIECES)
        return fail_at(r, at, "the mesh's counts are out of range");
    if (!(m->verts = take_points(r, m->vert_count, sizeof *m->verts, 3, "the mesh's vertices",
                                 "a vertex is not finite or out of range")))
        return false;
    if (!(m->tris = take_indices(r, m->tri_count, 3, m->vert_count, "the mesh's triangles",
                                 "a triangle's vertex index is out of range")))
        return false;
    if (!(m->source = take_array(r, m->tri_count, sizeof *m->source, "the mesh's sources")) ||
        !(m->active = take_array(r, m->tri_count, 1, "the mesh's active edges")) ||
        !skip_pad4(r, m->tri_count))
        return false;
    return take_bvh(r, &m->bvh, m->tri_count);
}

static bool read_heightfield(in *r, col_heightfield3 *h)
{
    size_t at = r->at;
    uint32_t pad;
    float f[5];
    if (!take_u32(r, &h->cols, "the heightfield runs past the end") ||
        !take_u32(r, &h->rows, "the heightfield runs past the end") ||
        !take_u32(r, &h->tri_count, "the heightfield runs past the end") ||
        !take_u32(r, &pad, "the heightfield runs past the end") ||
        !take(r, f, sizeof f, "the heightfield runs past the end") || !take_aabb3(r, &h->bounds))
        return false;
    if (h->cols < 2 || h->rows < 2 ||
        (uint64_t)2 * (h->cols - 1) * (h->rows - 1) > COL_LEVEL_MAX_PIECES ||
        h->tri_count != 2 * (h->cols - 1) * (h->rows - 1))
        return fail_at(r, at, "the heightfield's size is out of range");
    h->scale = mk_v3(f[0], f[1], f[2]);
    h->min_y = f[3];
    h->max_y = f[4];
    for (int k = 0; k < 3; k++)
        if (!(f[k] >= COL_MIN_HALF && f[k] <= COL_MAX_HALF))
            return fail_at(r, at, "the heightfield's scale is out of range");
    if (!finite_floats(f + 3, 2, COL_LEVEL_MAX_COORD))
        return fail_at(r, at, "the heightfield's heights are out of range");
    size_t at_y = r->at, cells = (size_t)(h->cols - 1) * (h->rows - 1);
    if (!(h->y = take_array(r, (size_t)h->cols * h->rows, sizeof *h->y, "the heights")))
        return false;
    if (!finite_floats(h->y, (size_t)h->cols * h->rows, COL_LEVEL_MAX_COORD))
        return fail_at(r, at_y, "a height is not finite or out of range");
    if (!(h->cells = take_array(r, cells, 1, "the cells")))
        return false;
    return skip_pad4(r, cells);
}

sim_level *sim_level_read(const void *data, size_t len, mk_error *err)
{
    in r = {data, len, 0, err};
    char magic[8];
    uint32_t kind, reserved;
    if (!take(&r, magic, sizeof magic, "not a level file") ||
        memcmp(magic, LEVEL_MAGIC, 8) != 0) {
        mk_fail(err, MK_ERR_INVALID, "byte 0: not a level file");
        return NULL;
    }
    if (!take_u32(&r, &kind, "the kind runs past the end") ||
        !take_u32(&r, &reserved, "the kind runs past the end"))
        return NULL;
    if (kind > SIM_LEVEL_HEIGHTFIELD || reserved != 0) {
        fail_at(&r, 8, "the level's kind is out of range");
        return NULL;
    }
    sim_level *l = calloc(1, sizeof *l);
    if (!l) {
        mk_fail(err, MK_ERR_IO, "out of memory for a level");
        return NULL;
    }
    l->refs = 1;
    l->kind = (sim_level_kind)kind;
    bool ok = false;
    switch (l->kind) {
    case SIM_LEVEL_SEGMENT: {
        float f[4];
        size_t at = r.at;
        ok = take(&r, f, sizeof f, "the segment runs past the end");
        if (ok && !finite_floats(f, 4, COL_LEVEL_MAX_COORD))
            ok = fail_at(&r, at, "the segment's ends are not finite or out of range");
        l->segment = (col_segment2){mk_v2(f[0], f[1]), mk_v2(f[2], f[3])};
        break;
    }
    case SIM_LEVEL_CHAIN:
        ok = read_chain(&r, &l->chain);
        break;
    case SIM_LEVEL_MESH:
        ok = read_mesh(&r, &l->mesh);
        break;
    case SIM_LEVEL_HEIGHTFIELD:
        ok = read_heightfield(&r, &l->hf);
        break;
    }
    if (ok && r.at != r.len)
        ok = fail_at(&r, r.at, "bytes after the level");
    if (!ok) {
        sim_level_release(l);
        return NULL;
    }
    return l;
}
