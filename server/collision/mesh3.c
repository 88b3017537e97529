/* Triangle meshes: the build from a glTF-like vertex and index list. It validates what it is
 * given (every failure named by its field and index, never an assert: the mesh comes from a
 * user's file), welds vertices at exactly the same position (an exporter splits them where
 * normals or UVs differ, which would make every edge a boundary), drops degenerate triangles
 * and counts them (as Jolt's MeshShapeSettings::Sanitize), marks active edges as Jolt's
 * MeshShape::sFindActiveEdges (edges matched by their two welded vertices; one triangle or
 * three and more on an edge: active; two: ActiveEdges::IsEdgeActive), builds the hierarchy
 * (bvh.c) and stores the triangles in its leaf order. Edges and welds are found by sorting
 * keys (a radix sort), not by hashing into a table. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "level_internal.h"

static uint32_t float_bits(float f)
{
    if (f == 0.0f)
        f = 0.0f; /* -0 and +0 are one position */
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* A 64-bit key of a position (its three bit patterns mixed): equal positions, equal keys. */
static uint64_t position_key(mk_vec3 p)
{
    uint64_t h = float_bits(p.x);
    h = h * 0x9E3779B97F4A7C15ull ^ float_bits(p.y);
    h = h * 0x9E3779B97F4A7C15ull ^ float_bits(p.z);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 29);
}

static bool same_position(mk_vec3 a, mk_vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

static int check_vertices(const mk_vec3 *v, uint32_t n, mk_error *err)
{
    for (uint32_t i = 0; i < n; i++) {
        float c[3] = {v[i].x, v[i].y, v[i].z};
        for (int k = 0; k < 3; k++) {
            if (!isfinite(c[k]))
                return mk_fail(err, MK_ERR_INVALID, "vertices[%u].%c is not finite", i, "xyz"[k]);
            if (fabsf(c[k]) > COL_LEVEL_MAX_COORD)
                return mk_fail(err, MK_ERR_INVALID, "vertices[%u].%c = %g m is past +-%g m", i,
                               "xyz"[k], (double)c[k], (double)COL_LEVEL_MAX_COORD);
        }
    }
    return 0;
}

static int check_desc(const col_mesh3_desc *d, mk_error *err)
{
    if (d->vertex_count == 0 || !d->vertices)
        return mk_fail(err, MK_ERR_INVALID, "vertices: a mesh needs vertices");
    if (d->index_count % 3 != 0)
        return mk_fail(err, MK_ERR_INVALID,
                       "indices: %u indices are not whole triangles (three each)", d->index_count);
    uint32_t tris = d->index_count / 3;
    if (tris == 0 || !d->indices)
        return mk_fail(err, MK_ERR_INVALID, "indices: a mesh needs triangles");
    uint32_t limit = d->max_triangles < COL_LEVEL_MAX_PIECES ? d->max_triangles
                                                             : COL_LEVEL_MAX_PIECES;
    if (tris > limit)
        return mk_fail(err, MK_ERR_INVALID, "indices: %u triangles, more than the limit of %u",
                       tris, limit);
    if (check_vertices(d->vertices, d->vertex_count, err) < 0)
        return -1;
    for (uint32_t i = 0; i < d->index_count; i++)
        if (d->indices[i] >= d->vertex_count)
            return mk_fail(err, MK_ERR_INVALID, "indices[%u] = %u is out of range (%u vertices)",
                           i, d->indices[i], d->vertex_count);
    return 0;
}

/* canon[i]: the lowest index of a vertex at vertex i's position. */
static bool weld(const mk_vec3 *v, uint32_t n, uint32_t *canon)
{
    col_keyed *a = malloc((size_t)n * sizeof *a), *tmp = malloc((size_t)n * sizeof *tmp);
    if (!a || !tmp) {
        free(a);
        free(tmp);
        return false;
    }
    for (uint32_t i = 0; i < n; i++)
        a[i] = (col_keyed){position_key(v[i]), i};
    col_radix_sort(a, tmp, n);
    /* Within a run of one key (the sort is stable: by index), each vertex joins the first
     * earlier one at its position; different positions with one key only cost compares. */
    for (uint32_t s = 0; s < n;) {
        uint32_t e = s + 1;
        while (e < n && a[e].key == a[s].key)
            e++;
        for (uint32_t i = s; i < e; i++) {
            uint32_t vi = a[i].value;
            canon[vi] = vi;
            for (uint32_t j = s; j < i; j++) {
                uint32_t vj = a[j].value;
                if (canon[vj] == vj && same_position(v[vj], v[vi])) {
                    canon[vi] = vj;
                    break;
                }
            }
        }
        s = e;
    }
    free(a);
    free(tmp);
    return true;
}

/* A triangle too thin to have a face: a repeated vertex, or a height over its longest edge
 * below COL_WELD_DISTANCE. */
static bool degenerate(const mk_vec3 *v, const uint32_t t[3])
{
    if (t[0] == t[1] || t[1] == t[2] || t[2] == t[0])
        return true;
    col_d3 a = d3_of(v[t[0]]), b = d3_of(v[t[1]]), c = d3_of(v[t[2]]);
    col_d3 ab = d3_sub(b, a), bc = d3_sub(c, b), ca = d3_sub(a, c);
    double longest = fmax(d3_dot(ab, ab), fmax(d3_dot(bc, bc), d3_dot(ca, ca)));
    double twice_area = d3_len(d3_cross(ab, d3_sub(c, a)));
    return twice_area <= COL_WELD_DISTANCE * sqrt(longest);
}

/* Jolt's sFindActiveEdges over the (welded) triangles. */
static bool mark_active(col_mesh3 *m, float cos_threshold)
{
    uint32_t nt = m->tri_count;
    memset(m->active, 0, nt);
    if (cos_threshold < -1.0f) {
        memset(m->active, 0x7, nt);
        return true;
    }
    size_t ne = (size_t)3 * nt;
    col_keyed *e = malloc(ne * sizeof *e), *tmp = malloc(ne * sizeof *tmp);
    if (!e || !tmp) {
        free(e);
        free(tmp);
        return false;
    }
    for (uint32_t t = 0; t < nt; t++)
        for (uint32_t k = 0; k < 3; k++) {
            uint64_t a = m->tris[t][k], b = m->tris[t][(k + 1) % 3];
            e[3 * t + k] = (col_keyed){a < b ? a << 32 | b : b << 32 | a, 3 * t + k};
        }
    col_radix_sort(e, tmp, ne);
    for (size_t s = 0; s < ne;) {
        size_t x = s + 1;
        while (x < ne && e[x].key == e[s].key)
            x++;
        uint32_t t1 = e[s].value / 3, k1 = e[s].value % 3;
        if (x - s == 2) {
            uint32_t t2 = e[s + 1].value / 3, k2 = e[s + 1].value % 3;
            mk_vec3 a[3], b[3];
            col_mesh3_local(m, t1, a);
            col_mesh3_local(m, t2, b);
            if (col_tri_edge_active(a, (int)k1, b, cos_threshold)) {
                m->active[t1] |= (uint8_t)(1u << k1);
                m->active[t2] |= (uint8_t)(1u << k2);
            }
        } else {
            /* A boundary, or three and more triangles on one edge. */
            for (size_t j = s; j < x; j++)
                m->active[e[j].value / 3] |= (uint8_t)(1u << (e[j].value % 3));
        }
        s = x;
    }
    free(e);
    free(tmp);
    return true;
}

/* A triangle turned to start at its least vertex, its winding kept: the same triangle, the
 * same three numbers. */
static void canonical_turn(const uint32_t t[3], uint32_t out[3])
{
    int k = t[0] < t[1] ? (t[0] < t[2] ? 0 : 2) : (t[1] < t[2] ? 1 : 2);
    for (int i = 0; i < 3; i++)
        out[i] = t[(k + i) % 3];
}

/* Drops the second and later copies of a triangle (the same vertices, the same winding), as
 * Jolt's MeshShapeSettings::Sanitize: a copy would share every edge with its original and
 * make them all inactive. A copy turned back to back is a thin wall, and stays. Keeps the
 * first m->tris[0 .. *kept) in order. */
static bool drop_repeats(col_mesh3 *m, uint32_t *kept)
{
    uint32_t n = *kept;
    if (n < 2)
        return true;
    col_keyed *a = malloc((size_t)n * sizeof *a), *tmp = malloc((size_t)n * sizeof *tmp);
    bool *drop = calloc(n, sizeof *drop);
    if (!a || !tmp || !drop) {
        free(a);
        free(tmp);
        free(drop);
        return false;
    }
    for (uint32_t t = 0; t < n; t++) {
        uint32_t c[3];
        canonical_turn(m->tris[t], c);
        uint64_t h = c[0];
        h = h * 0x9E3779B97F4A7C15ull ^ c[1];
        h = h * 0x9E3779B97F4A7C15ull ^ c[2];
        a[t] = (col_keyed){h ^ (h >> 29), t};
    }
    col_radix_sort(a, tmp, n);
    for (uint32_t s = 0; s < n;) {
        uint32_t e = s + 1;
        while (e < n && a[e].key == a[s].key)
            e++;
        for (uint32_t i = s + 1; i < e; i++) {
            uint32_t ci[3];
            canonical_turn(m->tris[a[i].value], ci);
            for (uint32_t j = s; j < i; j++) {
                uint32_t cj[3];
                canonical_turn(m->tris[a[j].value], cj);
                if (!drop[a[j].value] && memcmp(ci, cj, sizeof ci) == 0) {
                    drop[a[i].value] = true; /* the sort is stable: j is the earlier input */
                    break;
                }
            }
        }
        s = e;
    }
    uint32_t k = 0;
    for (uint32_t t = 0; t < n; t++) {
        if (drop[t])
            continue;
        memmove(m->tris[k], m->tris[t], sizeof m->tris[k]);
        m->source[k++] = m->source[t];
    }
    *kept = k;
    free(a);
    free(tmp);
    free(drop);
    return true;
}

/* Numbers the vertices in the order the (leaf-ordered) triangles first use them, so that a
 * leaf's vertices lie together in memory: a ray or a query reads a few cache lines, not a
 * line per vertex. */
static bool renumber_vertices(col_mesh3 *m)
{
    uint32_t *to = malloc((size_t)m->vert_count * sizeof *to);
    mk_vec3 *verts = malloc((size_t)m->vert_count * sizeof *verts);
    if (!to || !verts) {
        free(to);
        free(verts);
        return false;
    }
    for (uint32_t i = 0; i < m->vert_count; i++)
        to[i] = UINT32_MAX;
    uint32_t next = 0;
    for (uint32_t t = 0; t < m->tri_count; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t v = m->tris[t][k];
            if (to[v] == UINT32_MAX) {
                to[v] = next;
                verts[next++] = m->verts[v];
            }
            m->tris[t][k] = to[v];
        }
    free(m->verts);
    m->verts = verts;
    free(to);
    return true;
}

/* Stores the triangles in the hierarchy's leaf order. */
static bool build_tree(col_mesh3 *m)
{
    uint32_t nt = m->tri_count;
    col_box *boxes = malloc((size_t)nt * sizeof *boxes);
    uint32_t *order = malloc((size_t)nt * sizeof *order);
    uint32_t(*tris)[3] = malloc((size_t)nt * sizeof *tris);
    uint8_t *active = malloc(nt);
    uint32_t *source = malloc((size_t)nt * sizeof *source);
    bool ok = boxes && order && tris && active && source;
    if (ok) {
        for (uint32_t t = 0; t < nt; t++) {
            mk_vec3 v[3];
            col_mesh3_local(m, t, v);
            boxes[t] = col_tri_box(v);
        }
        ok = col_bvh_build(&m->bvh, boxes, nt, order) == 0;
    }
    if (ok) {
        for (uint32_t k = 0; k < nt; k++) {
            memcpy(tris[k], m->tris[order[k]], sizeof tris[k]);
            active[k] = m->active[order[k]];
            source[k] = m->source[order[k]];
        }
        free(m->tris);
        free(m->active);
        free(m->source);
        m->tris = tris;
        m->active = active;
        m->source = source;
        ok = renumber_vertices(m);
    } else {
        free(tris);
        free(active);
        free(source);
    }
    free(boxes);
    free(order);
    return ok;
}

int col_mesh3_build(const col_mesh3_desc *d, col_mesh3 *out, mk_error *err)
{
    memset(out, 0, sizeof *out);
    if (check_desc(d, err) < 0)
        return -1;
    uint32_t nv = d->vertex_count, nt = d->index_count / 3;
    uint32_t *canon = malloc((size_t)nv * sizeof *canon);
    uint32_t *remap = malloc((size_t)nv * sizeof *remap);
    out->tris = malloc((size_t)nt * sizeof *out->tris);
    out->source = malloc((size_t)nt * sizeof *out->source);
    out->active = malloc(nt);
    if (!canon || !remap || !out->tris || !out->source || !out->active ||
        !weld(d->vertices, nv, canon))
        goto oom;
    /* The triangles that have a face, on welded vertices. */
    uint32_t kept = 0;
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t tri[3];
        for (int k = 0; k < 3; k++)
            tri[k] = canon[d->indices[3 * t + k]];
        if (degenerate(d->vertices, tri))
            continue;
        memcpy(out->tris[kept], tri, sizeof tri);
        out->source[kept++] = t;
    }
    if (!drop_repeats(out, &kept))
        goto oom;
    out->dropped = nt - kept;
    if (kept == 0) {
        free(canon);
        free(remap);
        col_mesh3_free(out);
        return mk_fail(err, MK_ERR_INVALID, "indices: every one of the %u triangles is degenerate",
                       nt);
    }
    out->tri_count = kept;
    /* Only the vertices the kept triangles use, renumbered in their first use's order. */
    for (uint32_t i = 0; i < nv; i++)
        remap[i] = UINT32_MAX;
    uint32_t used = 0;
    for (uint32_t t = 0; t < kept; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t v = out->tris[t][k];
            if (remap[v] == UINT32_MAX)
                remap[v] = used++;
            out->tris[t][k] = remap[v];
        }
    out->verts = malloc((size_t)used * sizeof *out->verts);
    if (!out->verts)
        goto oom;
    for (uint32_t i = 0; i < nv; i++)
        if (remap[i] != UINT32_MAX)
            out->verts[remap[i]] = d->vertices[i];
    out->vert_count = used;
    free(canon);
    free(remap);
    canon = remap = NULL;
    if (!mark_active(out, d->active_edge_cos) || !build_tree(out))
        goto oom;
    const col_bvh *b = &out->bvh;
    mk_vec3 lo = mk_v3(b->lo[0], b->lo[1], b->lo[2]), hi = mk_v3(b->hi[0], b->hi[1], b->hi[2]);
    out->bounds = (col_aabb3){mk_v3_scale(mk_v3_add(lo, hi), 0.5f),
                              mk_v3_scale(mk_v3_sub(hi, lo), 0.5f)};
    return 0;
oom:
    free(canon);
    free(remap);
    col_mesh3_free(out);
    return mk_fail(err, MK_ERR_INVALID, "indices: out of memory for %u triangles", nt);
}

void col_mesh3_free(col_mesh3 *m)
{
    free(m->verts);
    free(m->tris);
    free(m->active);
    free(m->source);
    col_bvh_free(&m->bvh);
    memset(m, 0, sizeof *m);
}

size_t col_mesh3_bytes(const col_mesh3 *m)
{
    size_t t = m->tri_count;
    return sizeof *m + (size_t)m->vert_count * sizeof *m->verts +
           t * (sizeof *m->tris + sizeof *m->active + sizeof *m->source) +
           (size_t)m->bvh.node_count * sizeof *m->bvh.nodes;
}

col_triangle3 col_mesh3_triangle(const col_mesh3 *m, col_xf3 xm, uint32_t i)
{
    col_triangle3 t;
    for (int k = 0; k < 3; k++)
        t.v[k] = col_xf3_apply(xm, m->verts[m->tris[i][k]]);
    t.active = m->active[i];
    return t;
}
