/* glTF 2.0 (Khronos, "glTF 2.0 Specification") as a level's triangles: a .glb (its JSON chunk
 * and its binary chunk) or a .gltf with its buffers (files beside it, or data: URIs in base64),
 * read with cJSON. The default scene's node hierarchy is walked from its roots, each node's
 * matrix (or translation, rotation and scale) applied on its parent's, and every primitive of
 * triangles (mode 4, indexed by unsigned bytes, shorts or ints, or not at all) of each node's
 * mesh is taken with its POSITION (float VEC3, byteStride honoured). Blender exports +Y up in
 * metres, Mink's own axes: nothing is converted.
 *
 * The file is outside data: every index is checked against what it indexes, every byte range
 * (buffer, view, accessor and its stride) against what holds it, every coordinate for being
 * finite and within the level's limit, and the triangles against the limit, each refusal
 * naming the file, the field and, where it is about bytes, the byte offset. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "world_io_internal.h"

#define GLB_MAGIC 0x46546C67u /* "glTF" */
#define GLB_JSON 0x4E4F534Au
#define GLB_BIN 0x004E4942u
#define GLTF_MAX_DEPTH 64 /* nodes on a path from a root */

typedef struct blob {
    const uint8_t *data;
    size_t len;
    uint8_t *owned; /* decoded or read here, freed with the reader */
    size_t at;      /* where it starts in the file (a .glb's binary chunk), for messages */
} blob;

typedef struct reader {
    const char *name; /* the file, for messages */
    const char *dir;  /* its folder (external buffers), NULL: none may be read */
    const cJSON *root;
    blob *buffers;
    int nbuffers;
    uint32_t max_triangles;
    wio_mesh_data *out;
    uint8_t *on_path; /* per node: on the current path from a root */
    mk_error *err;
} reader;

static int fail(reader *r, const char *fmt, const char *field, long long a, long long b)
{
    char what[256];
    snprintf(what, sizeof what, fmt, a, b);
    return mk_fail(r->err, MK_ERR_INVALID, "%s: %s: %s", r->name, field, what);
}

/* A whole number in [lo, hi], or `dflt` when absent (dflt < 0: required). */
static int get_whole(reader *r, const cJSON *obj, const char *key, const char *path, double lo,
                     double hi, long long dflt, long long *out)
{
    char field[128];
    snprintf(field, sizeof field, "%s.%s", path, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (dflt < 0)
            return mk_fail(r->err, MK_ERR_INVALID, "%s: %s: missing", r->name, field);
        *out = dflt;
        return 0;
    }
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi) ||
        v->valuedouble != floor(v->valuedouble))
        return mk_fail(r->err, MK_ERR_INVALID, "%s: %s: must be a whole number in [%.0f, %.0f]",
                       r->name, field, lo, hi);
    *out = (long long)v->valuedouble;
    return 0;
}

static const cJSON *array_of(const cJSON *root, const char *key, int *n)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    *n = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : 0;
    return cJSON_IsArray(a) ? a : NULL;
}

/* ---- buffers ---- */

static int load_buffer(reader *r, int i, const cJSON *buf, const blob *glb_bin)
{
    char field[64];
    snprintf(field, sizeof field, "buffers[%d]", i);
    long long length;
    if (get_whole(r, buf, "byteLength", field, 1, 4e9, -1, &length) < 0)
        return -1;
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(buf, "uri");
    blob *b = &r->buffers[i];
    if (!uri) {
        if (!glb_bin || i != 0)
            return mk_fail(r->err, MK_ERR_INVALID, "%s: %s.uri: missing (only a .glb's first "
                           "buffer is its binary chunk)", r->name, field);
        *b = *glb_bin;
    } else if (!cJSON_IsString(uri)) {
        return mk_fail(r->err, MK_ERR_INVALID, "%s: %s.uri: must be a string", r->name, field);
    } else if (strncmp(uri->valuestring, "data:", 5) == 0) {
        const char *comma = strstr(uri->valuestring, ";base64,");
        if (!comma || !proto_base64_decode(comma + 8, strlen(comma + 8), &b->owned, &b->len))
            return mk_fail(r->err, MK_ERR_INVALID, "%s: %s.uri: a data: URI must be base64",
                           r->name, field);
        b->data = b->owned;
    } else {
        if (!r->dir)
            return mk_fail(r->err, MK_ERR_INVALID, "%s: %s.uri: no file may be read here",
                           r->name, field);
        char path[4096];
        if (wio_level_path(r->dir, uri->valuestring, path, sizeof path, r->err) < 0 ||
            !(b->owned = (uint8_t *)wio_read_file(path, &b->len, r->err))) {
            mk_error_prefix(r->err, "%s: %s.uri: ", r->name, field);
            return -1;
        }
        b->data = b->owned;
    }
    if ((long long)b->len < length)
        return mk_fail(r->err, MK_ERR_INVALID, "%s: %s.byteLength: %lld bytes, but it has %zu",
                       r->name, field, length, b->len);
    b->len = (size_t)length;
    return 0;
}

/* ---- accessors ---- */

typedef struct view {
    const uint8_t *data; /* the accessor's first element */
    size_t stride, count, file_at;
    int comp;            /* componentType */
} view;

/* Accessor `a` of `ncomp` components of one of the types `types` (a bit each: 1 << (type -
 * 5120)): its bytes checked to lie within its view and its buffer. */
static int accessor(reader *r, long long a, int ncomp, unsigned types, const char *use, view *out)
{
    int n;
    const cJSON *accessors = array_of(r->root, "accessors", &n);
    char field[96];
    snprintf(field, sizeof field, "accessors[%lld]", a);
    if (a < 0 || a >= n)
        return fail(r, "%lld is past the %lld accessors", use, a, n);
    const cJSON *acc = cJSON_GetArrayItem(accessors, (int)a);
    if (cJSON_GetObjectItemCaseSensitive(acc, "sparse"))
        return mk_fail(r->err, MK_ERR_INVALID, "%s: %s.sparse: sparse accessors are not read",
                       r->name, field);
    long long bv = 0, off = 0, comp = 0, count = 0;
    if (get_whole(r, acc, "bufferView", field, 0, 1e9, -1, &bv) < 0 ||
        get_whole(r, acc, "byteOffset", field, 0, 4e9, 0, &off) < 0 ||
        get_whole(r, acc, "componentType", field, 5120, 5126, -1, &comp) < 0 ||
        get_whole(r, acc, "count", field, 1, 4e9, -1, &count) < 0)
        return -1;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(acc, "type");
    const char *want = ncomp == 3 ? "VEC3" : "SCALAR";
    if (!cJSON_IsString(type) || strcmp(type->valuestring, want) != 0)
        return mk_fail(r->err, MK_ERR_INVALID, "%s: %s.type: must be %s for %s", r->name, field,
                       want, use);
    static const int sizes[7] = {1, 1, 2, 2, 0, 4, 4};
    if (!(types & (1u << (comp - 5120))) || sizes[comp - 5120] == 0)
        return mk_fail(r->err, MK_ERR_INVALID, "%s: %s.componentType: %lld is no type of %s",
                       r->name, field, comp, use);
    int nviews;
    const cJSON *views = array_of(r->root, "bufferViews", &nviews);
    if (bv >= nviews)
        return fail(r, "%lld is past the %lld buffer views", field, bv, nviews);
    const cJSON *vw = cJSON_GetArrayItem(views, (int)bv);
    char vfield[64];
    snprintf(vfield, sizeof vfield, "bufferViews[%lld]", bv);
    long long buffer = 0, voff = 0, vlen = 0, stride = 0;
    size_t elem = (size_t)sizes[comp - 5120] * (size_t)ncomp;
    if (get_whole(r, vw, "buffer", vfield, 0, 1e9, -1, &buffer) < 0 ||
        get_whole(r, vw, "byteOffset", vfield, 0, 4e9, 0, &voff) < 0 ||
        get_whole(r, vw, "byteLength", vfield, 1, 4e9, -1, &vlen) < 0 ||
        get_whole(r, vw, "byteStride", vfield, 4, 252, (long long)elem, &stride) < 0)
        return -1;
    if (buffer >= r->nbuffers)
        return fail(r, "%lld is past the %lld buffers", vfield, buffer, r->nbuffers);
    const blob *b = &r->buffers[buffer];
    if ((size_t)voff > b->len || (size_t)vlen > b->len - (size_t)voff)
        return mk_fail(r->err, MK_ERR_INVALID, "%s: %s: bytes %lld to %lld run past buffers[%lld] "
                       "(%zu bytes) at byte %zu", r->name, vfield, voff, voff + vlen, buffer,
                       b->len, b->at + b->len);
    if ((size_t)stride < elem)
        return mk_fail(r->err, MK_ERR_INVALID, "%s: %s.byteStride: %lld is less than an element "
                       "(%zu bytes)", r->name, vfield, stride, elem);
    /* The last element ends within the view. */
    double end = (double)off + (double)stride * (double)(count - 1) + (double)elem;
    if (end > (double)vlen)
        return mk_fail(r->err, MK_ERR_INVALID, "%s: %s: %lld elements of %zu bytes every %lld "
                       "from byte %lld run past %s (%lld bytes) at byte %zu", r->name, field,
                       count, elem, stride, off, vfield, vlen,
                       b->at + (size_t)voff + (size_t)vlen);
    *out = (view){b->data + voff + off, (size_t)stride, (size_t)count,
                  b->at + (size_t)voff + (size_t)off, (int)comp};
    return 0;
}

static uint32_t index_at(const view *v, size_t i)
{
    const uint8_t *p = v->data + i * v->stride;
    if (v->comp == 5121)
        return p[0];
    if (v->comp == 5123) {
        uint16_t x;
        memcpy(&x, p, 2);
        return x;
    }
    uint32_t x;
    memcpy(&x, p, 4);
    return x;
}

/* ---- nodes ---- */

typedef struct mat4 {
    double m[16]; /* column-major, as glTF's `matrix` */
} mat4;

static mat4 mat_mul(const mat4 *a, const mat4 *b)
{
    mat4 c;
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++) {
            double s = 0;
            for (int k = 0; k < 4; k++)
                s += a->m[k * 4 + row] * b->m[col * 4 + k];
            c.m[col * 4 + row] = s;
        }
    return c;
}

static int get_numbers(reader *r, const cJSON *node, const char *key, const char *path, int n,
                       double *out)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(node, key);
    if (!a)
        return 1;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return mk_fail(r->err, MK_ERR_INVALID, "%s: %s.%s: must be %d numbers", r->name, path,
                       key, n);
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
    {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || fabs(v->valuedouble) > 1e12)
            return mk_fail(r->err, MK_ERR_INVALID, "%s: %s.%s[%d]: must be a finite number",
                           r->name, path, key, i);
        out[i++] = v->valuedouble;
    }
    return 0;
}

/* A node's own transform: its matrix, or T R S. */
static int local_of(reader *r, const cJSON *node, const char *path, mat4 *out)
{
    int rc = get_numbers(r, node, "matrix", path, 16, out->m);
    if (rc <= 0)
        return rc;
    double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
    if (get_numbers(r, node, "translation", path, 3, t) < 0 ||
        get_numbers(r, node, "rotation", path, 4, q) < 0 ||
        get_numbers(r, node, "scale", path, 3, s) < 0)
        return -1;
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 1e-9))
        return mk_fail(r->err, MK_ERR_INVALID, "%s: %s.rotation: a zero quaternion", r->name,
                       path);
    double x = q[0] / n, y = q[1] / n, z = q[2] / n, w = q[3] / n;
    const double rot[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                           2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                           2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < 3; row++)
            out->m[c * 4 + row] = rot[c * 3 + row] * s[c];
        out->m[c * 4 + 3] = 0;
    }
    out->m[12] = t[0];
    out->m[13] = t[1];
    out->m[14] = t[2];
    out->m[15] = 1;
    return 0;
}

/* Room for `more` vertices and triangles in the output. */
static int grow(reader *r, size_t nv, size_t nt)
{
    wio_mesh_data *o = r->out;
    if ((uint64_t)o->ntriangles + nt > r->max_triangles)
        return mk_fail(r->err, MK_ERR_INVALID, "%s: more than %u triangles (--max-triangles)",
                       r->name, r->max_triangles);
    if ((uint64_t)o->nvertices + nv > UINT32_MAX / 2)
        return mk_fail(r->err, MK_ERR_INVALID, "%s: too many vertices", r->name);
    float(*v)[3] = realloc(o->vertices, (o->nvertices + nv) * sizeof *v);
    if (v)
        o->vertices = v;
    uint32_t(*t)[3] = realloc(o->triangles, (o->ntriangles + nt + 1) * sizeof *t);
    if (t)
        o->triangles = t;
    if (!v || !t)
        return mk_fail(r->err, MK_ERR_IO, "%s: out of memory", r->name);
    return 0;
}

static int read_primitive(reader *r, const cJSON *prim, const char *path, const mat4 *xf)
{
    long long mode = 0, pos = 0;
    if (get_whole(r, prim, "mode", path, 0, 6, 4, &mode) < 0)
        return -1;
    if (mode != 4)
        return 0; /* points and lines have no surface */
    const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
    char apath[160];
    snprintf(apath, sizeof apath, "%s.attributes", path);
    if (get_whole(r, attrs, "POSITION", apath, 0, 1e9, -1, &pos) < 0)
        return -1;
    view pv, iv;
    char use[200], vuse[200];
    snprintf(vuse, sizeof vuse, "%s.POSITION", apath);
    if (accessor(r, pos, 3, 1u << 6, vuse, &pv) < 0)
        return -1;
    const cJSON *ind = cJSON_GetObjectItemCaseSensitive(prim, "indices");
    long long ia = -1;
    if (ind && get_whole(r, prim, "indices", path, 0, 1e9, -1, &ia) < 0)
        return -1;
    snprintf(use, sizeof use, "%s.indices", path);
    if (ia >= 0 && accessor(r, ia, 1, 1u << 1 | 1u << 3 | 1u << 5, use, &iv) < 0)
        return -1;
    size_t n = ia >= 0 ? iv.count : pv.count;
    if (n % 3 != 0)
        return mk_fail(r->err, MK_ERR_INVALID, "%s: %s: %zu %s, not whole triangles", r->name,
                       use, n, ia >= 0 ? "indices" : "vertices");
    wio_mesh_data *o = r->out;
    if (grow(r, pv.count, n / 3) < 0)
        return -1;
    uint32_t base = o->nvertices;
    for (size_t i = 0; i < pv.count; i++) {
        float f[3];
        memcpy(f, pv.data + i * pv.stride, sizeof f);
        double p[3] = {f[0], f[1], f[2]}, q[3];
        for (int k = 0; k < 3; k++)
            q[k] = xf->m[k] * p[0] + xf->m[4 + k] * p[1] + xf->m[8 + k] * p[2] + xf->m[12 + k];
        for (int k = 0; k < 3; k++)
            if (!isfinite(q[k]) || fabs(q[k]) > COL_LEVEL_MAX_COORD)
                return mk_fail(r->err, MK_ERR_INVALID,
                               "%s: %s: vertex %zu at byte %zu is not finite or past +-%g m "
                               "once placed", r->name, vuse, i, pv.file_at + i * pv.stride,
                               (double)COL_LEVEL_MAX_COORD);
        o->vertices[o->nvertices + i][0] = (float)q[0];
        o->vertices[o->nvertices + i][1] = (float)q[1];
        o->vertices[o->nvertices + i][2] = (float)q[2];
    }
    o->nvertices += (uint32_t)pv.count;
    /* A mirroring transform turns the winding: it is turned back, so that fronts stay fronts. */
    double det = xf->m[0] * (xf->m[5] * xf->m[10] - xf->m[9] * xf->m[6]) -
                 xf->m[4] * (xf->m[1] * xf->m[10] - xf->m[9] * xf->m[2]) +
                 xf->m[8] * (xf->m[1] * xf->m[6] - xf->m[5] * xf->m[2]);
    for (size_t t = 0; t < n / 3; t++) {
        uint32_t v[3];
        for (int k = 0; k < 3; k++) {
            size_t i = 3 * t + (size_t)k;
            v[k] = ia >= 0 ? index_at(&iv, i) : (uint32_t)i;
            if (v[k] >= pv.count)
                return mk_fail(r->err, MK_ERR_INVALID,
                               "%s: %s: index %u at byte %zu is past the %zu vertices", r->name,
                               use, v[k], iv.file_at + i * iv.stride, pv.count);
        }
        uint32_t *dst = o->triangles[o->ntriangles++];
        dst[0] = base + v[0];
        dst[1] = base + (det < 0 ? v[2] : v[1]);
        dst[2] = base + (det < 0 ? v[1] : v[2]);
    }
    return 0;
}

static int walk_node(reader *r, long long i, const mat4 *parent, int depth)
{
    int nnodes;
    const cJSON *nodes = array_of(r->root, "nodes", &nnodes);
    char path[64];
    snprintf(path, sizeof path, "nodes[%lld]", i);
    if (i < 0 || i >= nnodes)
        return fail(r, "node %lld is past the %lld nodes", "nodes", i, nnodes);
    if (r->on_path[i] || depth > GLTF_MAX_DEPTH)
        return mk_fail(r->err, MK_ERR_INVALID, "%s: %s: a node is its own ancestor, or the "
                       "hierarchy is deeper than %d", r->name, path, GLTF_MAX_DEPTH);
    const cJSON *node = cJSON_GetArrayItem(nodes, (int)i);
    mat4 local, world;
    if (local_of(r, node, path, &local) < 0)
        return -1;
    world = mat_mul(parent, &local);
    long long mesh;
    if (cJSON_GetObjectItemCaseSensitive(node, "mesh")) {
        if (get_whole(r, node, "mesh", path, 0, 1e9, -1, &mesh) < 0)
            return -1;
        int nmeshes;
        const cJSON *meshes = array_of(r->root, "meshes", &nmeshes);
        if (mesh >= nmeshes)
            return fail(r, "mesh %lld is past the %lld meshes", path, mesh, nmeshes);
        int nprims;
        const cJSON *prims =
            array_of(cJSON_GetArrayItem(meshes, (int)mesh), "primitives", &nprims);
        for (int p = 0; p < nprims; p++) {
            char ppath[96];
            snprintf(ppath, sizeof ppath, "meshes[%lld].primitives[%d]", mesh, p);
            if (read_primitive(r, cJSON_GetArrayItem(prims, p), ppath, &world) < 0)
                return -1;
        }
    }
    r->on_path[i] = 1;
    int nchildren;
    const cJSON *children = array_of(node, "children", &nchildren);
    const cJSON *c;
    int k = 0;
    cJSON_ArrayForEach(c, children)
    {
        char cpath[96];
        long long child;
        snprintf(cpath, sizeof cpath, "%s.children[%d]", path, k++);
        if (!cJSON_IsNumber(c) || c->valuedouble != floor(c->valuedouble) ||
            !(c->valuedouble >= 0 && c->valuedouble <= 1e9))
            return mk_fail(r->err, MK_ERR_INVALID, "%s: %s: must be a node index", r->name,
                           cpath);
        child = (long long)c->valuedouble;
        if (walk_node(r, child, &world, depth + 1) < 0)
            return -1;
    }
    (void)nchildren;
    r->on_path[i] = 0;
    return 0;
}

/* The default scene's roots: `scene`, else the first scene, else every node no node names as
 * a child. */
static int walk_scene(reader *r)
{
    int nnodes, nscenes;
    const cJSON *nodes = array_of(r->root, "nodes", &nnodes);
    const cJSON *scenes = array_of(r->root, "scenes", &nscenes);
    mat4 id = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    if (!(r->on_path = calloc((size_t)nnodes + 1, 1)))
        return mk_fail(r->err, MK_ERR_IO, "%s: out of memory", r->name);
    long long s = 0;
    if (nscenes > 0) {
        if (get_whole(r, r->root, "scene", "(root)", 0, nscenes - 1.0, 0, &s) < 0)
            return -1;
        int nroots;
        const cJSON *roots = array_of(cJSON_GetArrayItem(scenes, (int)s), "nodes", &nroots);
        const cJSON *n;
        cJSON_ArrayForEach(n, roots)
        {
            if (!cJSON_IsNumber(n) || n->valuedouble != floor(n->valuedouble) ||
                !(n->valuedouble >= 0 && n->valuedouble <= 1e9))
                return mk_fail(r->err, MK_ERR_INVALID, "%s: scenes[%lld].nodes: must be node "
                               "indices", r->name, s);
            if (walk_node(r, (long long)n->valuedouble, &id, 0) < 0)
                return -1;
        }
        return 0;
    }
    uint8_t *child = calloc((size_t)nnodes + 1, 1);
    if (!child)
        return mk_fail(r->err, MK_ERR_IO, "%s: out of memory", r->name);
    const cJSON *node;
    cJSON_ArrayForEach(node, nodes)
    {
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(node, "children"))
        {
            if (cJSON_IsNumber(c) && c->valuedouble >= 0 && c->valuedouble < nnodes)
                child[(int)c->valuedouble] = 1;
        }
    }
    int rc = 0;
    for (int i = 0; i < nnodes && rc == 0; i++)
        if (!child[i])
            rc = walk_node(r, i, &id, 0);
    free(child);
    return rc;
}

/* ---- the file ---- */

static uint32_t u32_at(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int wio_gltf_parse(const void *data, size_t len, const char *name, const char *dir,
                   uint32_t max_triangles, wio_mesh_data *out, mk_error *err)
{
    memset(out, 0, sizeof *out);
    const uint8_t *d = data;
    const char *json = data;
    size_t json_len = len;
    blob bin = {NULL, 0, NULL, 0};
    bool glb = len >= 4 && u32_at(d) == GLB_MAGIC;
    if (glb) {
        if (len < 20 || u32_at(d + 4) != 2 || u32_at(d + 8) > len)
            return mk_fail(err, MK_ERR_INVALID, "%s: header: not a glTF 2.0 .glb, or its length "
                           "(%u) is past the file's end at byte %zu", name,
                           len >= 12 ? u32_at(d + 8) : 0u, len);
        size_t total = u32_at(d + 8), at = 12;
        json = NULL;
        while (at + 8 <= total) {
            size_t clen = u32_at(d + at);
            uint32_t type = u32_at(d + at + 4);
            if (clen > total - at - 8)
                return mk_fail(err, MK_ERR_INVALID, "%s: a chunk of %zu bytes at byte %zu runs "
                               "past the file's %zu", name, clen, at, total);
            if (type == GLB_JSON && !json) {
                json = (const char *)d + at + 8;
                json_len = clen;
            } else if (type == GLB_BIN && !bin.data) {
                bin = (blob){d + at + 8, clen, NULL, at + 8};
            }
            at += 8 + clen;
        }
        if (!json)
            return mk_fail(err, MK_ERR_INVALID, "%s: no JSON chunk", name);
    }
    cJSON *root = cJSON_ParseWithLength(json, json_len);
    if (!root || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return mk_fail(err, MK_ERR_INVALID, "%s: not glTF JSON", name);
    }
    reader r = {name, dir, root, NULL, 0, max_triangles, out, NULL, err};
    int rc = 0;
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(root, "asset");
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(asset, "version");
    if (!cJSON_IsString(ver) || strncmp(ver->valuestring, "2.", 2) != 0)
        rc = mk_fail(err, MK_ERR_INVALID, "%s: asset.version: must be 2.x", name);
    const cJSON *buffers = array_of(root, "buffers", &r.nbuffers);
    if (rc == 0 && r.nbuffers > 0 && !(r.buffers = calloc((size_t)r.nbuffers, sizeof *r.buffers)))
        rc = mk_fail(err, MK_ERR_IO, "%s: out of memory", name);
    for (int i = 0; rc == 0 && i < r.nbuffers; i++)
        rc = load_buffer(&r, i, cJSON_GetArrayItem(buffers, i), glb ? &bin : NULL);
    if (rc == 0)
        rc = walk_scene(&r);
    if (rc == 0 && out->ntriangles == 0)
        rc = mk_fail(err, MK_ERR_INVALID, "%s: no triangles in the default scene", name);
    for (int i = 0; r.buffers && i < r.nbuffers; i++)
        free(r.buffers[i].owned);
    free(r.buffers);
    free(r.on_path);
    cJSON_Delete(root);
    if (rc != 0)
        wio_mesh_data_free(out);
    return rc;
}
