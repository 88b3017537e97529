/* Levels between the protocol, files and the world: a level shape as sent built into the
 * world's level (sim_level), a scene's mesh read from its glTF or OBJ file (a path that may
 * not leave the scene's folder), each level named by the SHA-256 of its level file (OpenSSL's
 * libcrypto), the process's table of levels read from files (what `welcome` names and the
 * HTTP port serves), and a save's levels kept once each as KEY.level beside it. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mk_vec.h"
#include "world_io_internal.h"

#define LEVEL_FILE_MAX_BYTES (1ull << 31) /* a mesh file larger than this is refused */

static uint32_t max_triangles = WIO_MAX_TRIANGLES_DEFAULT;
static MK_VEC(wio_level_file) table = MK_VEC_INIT(wio_level_file);

void wio_levels_set_max_triangles(uint32_t n) { max_triangles = n; }
uint32_t wio_levels_max_triangles(void) { return max_triangles; }

void wio_mesh_data_free(wio_mesh_data *m)
{
    free(m->vertices);
    free(m->triangles);
    memset(m, 0, sizeof *m);
}

/* ---- keys ---- */

static void digest_put(void *ctx, const void *data, size_t len)
{
    EVP_DigestUpdate(ctx, data, len);
}

void wio_level_key(const sim_level *l, uint8_t key[SIM_LEVEL_KEY])
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned n = 0;
    if (ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
        sim_level_write(l, digest_put, ctx);
        EVP_DigestFinal_ex(ctx, key, &n);
    }
    if (n != SIM_LEVEL_KEY)
        memset(key, 0, SIM_LEVEL_KEY); /* out of memory: no key, which no file hashes to */
    EVP_MD_CTX_free(ctx);
}

static void sha256(const void *data, size_t len, uint8_t out[SIM_LEVEL_KEY])
{
    unsigned n = 0;
    if (!EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) || n != SIM_LEVEL_KEY)
        memset(out, 0, SIM_LEVEL_KEY);
}

void wio_key_hex(const uint8_t key[SIM_LEVEL_KEY], char hex[2 * SIM_LEVEL_KEY + 1])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < SIM_LEVEL_KEY; i++) {
        hex[2 * i] = digits[key[i] >> 4];
        hex[2 * i + 1] = digits[key[i] & 15];
    }
    hex[2 * SIM_LEVEL_KEY] = '\0';
}

/* A level's file gathered in memory. */
typedef struct grow_buf {
    proto_buf b;
} grow_buf;

/* ---- paths ---- */

int wio_level_path(const char *dir, const char *rel, char *out, size_t cap, mk_error *err)
{
    if (rel[0] == '\0' || rel[0] == '/')
        return mk_fail(err, MK_ERR_INVALID, "%s: a level's file is named relative to the "
                       "scene's folder", rel[0] ? rel : "(empty)");
    for (const char *p = rel; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return mk_fail(err, MK_ERR_INVALID, "%s: a level's file may not leave the scene's "
                           "folder (..)", rel);
        p += n + (p[n] == '/');
    }
    char joined[PATH_MAX], real_dir[PATH_MAX], real_file[PATH_MAX];
    if (snprintf(joined, sizeof joined, "%s/%s", dir, rel) >= (int)sizeof joined)
        return mk_fail(err, MK_ERR_INVALID, "%s: the path is too long", rel);
    if (!realpath(dir, real_dir))
        return mk_fail(err, MK_ERR_IO, "%s: %s", dir, strerror(errno));
    if (!realpath(joined, real_file))
        return mk_fail(err, MK_ERR_IO, "%s: %s", joined, strerror(errno));
    size_t n = strlen(real_dir);
    if (strncmp(real_file, real_dir, n) != 0 || (real_file[n] != '/' && n > 1))
        return mk_fail(err, MK_ERR_INVALID, "%s: a level's file may not leave the scene's "
                       "folder (it leads to %s)", rel, real_file);
    if (strlen(real_file) >= cap)
        return mk_fail(err, MK_ERR_INVALID, "%s: the path is too long", rel);
    memcpy(out, real_file, strlen(real_file) + 1);
    return 0;
}

/* ---- building ---- */

static const sim_level *mesh_of(const wio_mesh_data *m, mk_error *err)
{
    col_mesh3_desc d = {(const mk_vec3 *)m->vertices, m->nvertices,
                        &m->triangles[0][0], 3 * m->ntriangles, max_triangles,
                        COL_ACTIVE_EDGE_COS};
    return sim_level_mesh3(&d, err);
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    if (n < k)
        return false;
    for (size_t i = 0; i < k; i++)
        if ((s[n - k + i] | 0x20) != tail[i])
            return false;
    return true;
}

/* The level of a scene's mesh file: the table's when the same bytes were read from there
 * before, else read, built, keyed and kept in the table. */
static const sim_level *mesh_file(const char *dir, const char *rel, mk_error *err)
{
    char path[PATH_MAX];
    if (wio_level_path(dir, rel, path, sizeof path, err) < 0)
        return NULL;
    struct stat st;
    if (stat(path, &st) != 0 || (unsigned long long)st.st_size > LEVEL_FILE_MAX_BYTES) {
        mk_fail(err, MK_ERR_IO, "%s: missing, or larger than %llu bytes", rel,
                LEVEL_FILE_MAX_BYTES);
        return NULL;
    }
    size_t len;
    char *data = wio_read_file(path, &len, err);
    if (!data)
        return NULL;
    uint8_t sum[SIM_LEVEL_KEY];
    char hex[2 * SIM_LEVEL_KEY + 1];
    sha256(data, len, sum);
    wio_key_hex(sum, hex);
    for (size_t i = 0; i < table.v.len; i++)
        if (strcmp(table.at[i].path, path) == 0 && strcmp(table.at[i].sha256, hex) == 0) {
            free(data);
            sim_level_retain(table.at[i].level);
            return table.at[i].level;
        }
    char folder[PATH_MAX];
    snprintf(folder, sizeof folder, "%s", path);
    char *slash = strrchr(folder, '/');
    if (slash)
        *slash = '\0';
    wio_mesh_data m;
    int rc;
    if (ends_with(rel, ".glb") || ends_with(rel, ".gltf"))
        rc = wio_gltf_parse(data, len, rel, folder, max_triangles, &m, err);
    else if (ends_with(rel, ".obj"))
        rc = wio_obj_parse(data, len, rel, max_triangles, &m, err);
    else
        rc = mk_fail(err, MK_ERR_INVALID, "%s: a level's file is .glb, .gltf or .obj", rel);
    free(data);
    if (rc != 0)
        return NULL;
    const sim_level *l = mesh_of(&m, err);
    wio_mesh_data_free(&m);
    if (!l) {
        mk_error_prefix(err, "%s: ", rel);
        return NULL;
    }
    uint8_t key[SIM_LEVEL_KEY];
    wio_level_key(l, key);
    sim_level_set_key(l, key);
    wio_level_file f = {.level = l, .dropped = sim_level_mesh(l)->dropped};
    wio_key_hex(key, f.key);
    snprintf(f.name, sizeof f.name, "%s", rel);
    snprintf(f.path, sizeof f.path, "%s", path);
    memcpy(f.sha256, hex, sizeof hex);
    if (MK_VEC_PUSH(&table, f))
        sim_level_retain(l);
    return l;
}

static const sim_level *build(const proto_shape *s, int dim, const char *dir, mk_error *err)
{
    const proto_level *pl = s->level;
    int want = s->type == PROTO_SHAPE_SEGMENT || s->type == PROTO_SHAPE_CHAIN ? 2 : 3;
    if (want != dim) {
        mk_fail(err, MK_ERR_INVALID, "type: '%s' is a %dD shape; this world is %dD",
                proto_shape_name(s->type), want, dim);
        return NULL;
    }
    if (s->type == PROTO_SHAPE_SEGMENT)
        return sim_level_segment2(mk_v2((float)s->points[0][0], (float)s->points[0][1]),
                                  mk_v2((float)s->points[1][0], (float)s->points[1][1]), err);
    if (pl && pl->data) {
        static const sim_level_kind kinds[PROTO_SHAPE_COUNT] = {
            [PROTO_SHAPE_CHAIN] = SIM_LEVEL_CHAIN, [PROTO_SHAPE_MESH] = SIM_LEVEL_MESH,
            [PROTO_SHAPE_HEIGHTFIELD] = SIM_LEVEL_HEIGHTFIELD};
        sim_level *l = sim_level_read(pl->data, pl->ndata, err);
        if (l && sim_level_kind_of(l) != kinds[s->type]) {
            sim_level_release(l);
            mk_fail(err, MK_ERR_INVALID, "the level file is not a %s's",
                    proto_shape_name(s->type));
            return NULL;
        }
        if (!l)
            mk_error_prefix(err, "data: ");
        return l;
    }
    if (!pl || pl->named) {
        mk_fail(err, MK_ERR_INVALID, "level: a level named by key is the server's to send; "
                                     "a body is given its geometry");
        return NULL;
    }
    switch (s->type) {
    case PROTO_SHAPE_CHAIN: {
        mk_vec2 *p = malloc((size_t)pl->npoints * sizeof *p);
        if (!p) {
            mk_fail(err, MK_ERR_IO, "points: out of memory");
            return NULL;
        }
        for (uint32_t i = 0; i < pl->npoints; i++)
            p[i] = mk_v2(pl->points[i][0], pl->points[i][1]);
        const sim_level *l = sim_level_chain2(p, pl->npoints, pl->loop, max_triangles, err);
        free(p);
        return l;
    }
    case PROTO_SHAPE_MESH: {
        if (pl->file) {
            if (!dir) {
                mk_fail(err, MK_ERR_INVALID, "file: files are read from scene files alone");
                return NULL;
            }
            const sim_level *l = mesh_file(dir, pl->file, err);
            if (!l)
                mk_error_prefix(err, "file: ");
            return l;
        }
        wio_mesh_data m = {pl->vertices, pl->nvertices, pl->triangles, pl->ntriangles};
        return mesh_of(&m, err);
    }
    case PROTO_SHAPE_HEIGHTFIELD: {
        col_heightfield3_desc d = {pl->cols,
                                   pl->rows,
                                   mk_v3((float)pl->scale[0], (float)pl->scale[1],
                                         (float)pl->scale[2]),
                                   pl->heights,
                                   pl->holes,
                                   max_triangles,
                                   COL_ACTIVE_EDGE_COS};
        return sim_level_heightfield3(&d, err);
    }
    default:
        mk_fail(err, MK_ERR_INVALID, "type: '%s' is no level shape", proto_shape_name(s->type));
        return NULL;
    }
}

const sim_level *wio_level_of_shape(const proto_shape *s, int dim, const char *dir,
                                    mk_error *err)
{
    const sim_level *l = build(s, dim, dir, err);
    static const uint8_t none[SIM_LEVEL_KEY];
    if (l && memcmp(sim_level_key(l), none, SIM_LEVEL_KEY) == 0) { /* built here, not kept */
        uint8_t key[SIM_LEVEL_KEY];
        wio_level_key(l, key);
        sim_level_set_key(l, key);
    }
    return l;
}

/* ---- the protocol's view of a level ---- */

static void buf_put(void *ctx, const void *data, size_t len);

static void bounds_of(proto_level *pl, col_aabb3 b)
{
    const float c[3] = {b.center.x, b.center.y, b.center.z}, h[3] = {b.half.x, b.half.y, b.half.z};
    for (int k = 0; k < 3; k++) {
        pl->lo[k] = (double)c[k] - h[k];
        pl->hi[k] = (double)c[k] + h[k];
    }
}

/* A level's geometry as the protocol sends it inline: a chain's points, a mesh's welded
 * vertices and its triangles, a heightfield's samples and holes. */
static bool inline_geometry(const sim_level *l, proto_level *pl)
{
    const col_chain2 *c = sim_level_chain(l);
    const col_mesh3 *m = sim_level_mesh(l);
    const col_heightfield3 *h = sim_level_heightfield(l);
    if (c) {
        pl->npoints = c->point_count;
        pl->loop = c->loop;
        if (!(pl->points = malloc((size_t)c->point_count * sizeof *pl->points)))
            return false;
        for (uint32_t i = 0; i < c->point_count; i++) {
            pl->points[i][0] = c->points[i].x;
            pl->points[i][1] = c->points[i].y;
        }
        return true;
    }
    if (m) {
        pl->nvertices = m->vert_count;
        pl->ntriangles = m->tri_count;
        pl->vertices = malloc((size_t)m->vert_count * sizeof *pl->vertices);
        pl->triangles = malloc((size_t)m->tri_count * sizeof *pl->triangles);
        if (!pl->vertices || !pl->triangles)
            return false;
        for (uint32_t i = 0; i < m->vert_count; i++) {
            pl->vertices[i][0] = m->verts[i].x;
            pl->vertices[i][1] = m->verts[i].y;
            pl->vertices[i][2] = m->verts[i].z;
        }
        memcpy(pl->triangles, m->tris, (size_t)m->tri_count * sizeof *pl->triangles);
        return true;
    }
    size_t samples = (size_t)h->cols * h->rows, cells = (size_t)(h->cols - 1) * (h->rows - 1);
    pl->cols = h->cols;
    pl->rows = h->rows;
    pl->scale[0] = h->scale.x;
    pl->scale[1] = h->scale.y;
    pl->scale[2] = h->scale.z;
    pl->heights = malloc(samples * sizeof *pl->heights);
    pl->holes = malloc(cells);
    if (!pl->heights || !pl->holes)
        return false;
    for (size_t i = 0; i < samples; i++)
        pl->heights[i] = h->y[i] / h->scale.y;
    for (size_t i = 0; i < cells; i++)
        pl->holes[i] = (h->cells[i] & 0x40u) != 0; /* col_heightfield3's hole bit */
    return true;
}

void wio_level_to_proto(const sim_level *l, wio_level_form form, proto_shape *out)
{
    memset(out, 0, offsetof(proto_shape, points));
    static const proto_shape_type types[] = {
        [SIM_LEVEL_SEGMENT] = PROTO_SHAPE_SEGMENT, [SIM_LEVEL_CHAIN] = PROTO_SHAPE_CHAIN,
        [SIM_LEVEL_MESH] = PROTO_SHAPE_MESH, [SIM_LEVEL_HEIGHTFIELD] = PROTO_SHAPE_HEIGHTFIELD};
    out->type = types[sim_level_kind_of(l)];
    const col_segment2 *seg = sim_level_segment(l);
    if (seg) {
        out->npoints = 2;
        out->points[0][0] = seg->a.x;
        out->points[0][1] = seg->a.y;
        out->points[1][0] = seg->b.x;
        out->points[1][1] = seg->b.y;
        out->points[0][2] = out->points[1][2] = 0;
        return;
    }
    proto_level *pl = calloc(1, sizeof *pl);
    if (!pl)
        return; /* out of memory: the shape is its type alone */
    out->level = pl;
    if (form == WIO_LEVEL_INLINE && sim_level_pieces(l) > WIO_LEVEL_INLINE_PIECES)
        form = WIO_LEVEL_NAMED;
    bool ok = true;
    if (form == WIO_LEVEL_FILE) {
        grow_buf g;
        proto_buf_init(&g.b);
        sim_level_write(l, buf_put, &g);
        ok = !g.b.failed;
        pl->data = (uint8_t *)g.b.data;
        pl->ndata = g.b.len;
    } else if (form == WIO_LEVEL_INLINE) {
        ok = inline_geometry(l, pl);
    } else {
        pl->named = true;
        wio_key_hex(sim_level_key(l), pl->key);
        pl->pieces = sim_level_pieces(l);
        const col_chain2 *c = sim_level_chain(l);
        const col_mesh3 *m = sim_level_mesh(l);
        if (c)
            bounds_of(pl, (col_aabb3){mk_v3(c->bounds.center.x, c->bounds.center.y, 0),
                                      mk_v3(c->bounds.half.x, c->bounds.half.y, 0)});
        else
            bounds_of(pl, m ? m->bounds : sim_level_heightfield(l)->bounds);
    }
    if (!ok)
        proto_shape_free(out);
}

/* ---- the table ---- */

size_t wio_level_files(const wio_level_file **out)
{
    *out = table.at;
    return table.v.len;
}

void wio_level_files_clear(void)
{
    for (size_t i = 0; i < table.v.len; i++)
        sim_level_release(table.at[i].level);
    mk_vec_free(&table.v);
}

/* ---- a save's levels ---- */

static void buf_put(void *ctx, const void *data, size_t len)
{
    proto_buf_append(&((grow_buf *)ctx)->b, data, len);
}

static void level_path(const char *dir, const uint8_t key[SIM_LEVEL_KEY], char *out, size_t cap)
{
    char hex[2 * SIM_LEVEL_KEY + 1];
    wio_key_hex(key, hex);
    snprintf(out, cap, "%s/%s.level", dir, hex);
}

int wio_level_store(const sim_level *l, const char *dir, mk_error *err)
{
    char path[PATH_MAX];
    level_path(dir, sim_level_key(l), path, sizeof path);
    struct stat st;
    if (stat(path, &st) == 0)
        return 0; /* a level never changes: the one there is this one */
    grow_buf g;
    proto_buf_init(&g.b);
    sim_level_write(l, buf_put, &g);
    int rc = g.b.failed ? mk_fail(err, MK_ERR_IO, "%s: out of memory", path)
                        : wio_file_replace(path, &(wio_piece){g.b.data, g.b.len}, 1, err);
    proto_buf_free(&g.b);
    return rc;
}

const sim_level *wio_level_resolve(void *ctx, const uint8_t key[SIM_LEVEL_KEY], mk_error *err)
{
    for (size_t i = 0; i < table.v.len; i++)
        if (memcmp(sim_level_key(table.at[i].level), key, SIM_LEVEL_KEY) == 0) {
            sim_level_retain(table.at[i].level);
            return table.at[i].level;
        }
    char path[PATH_MAX];
    if (!ctx) {
        char hex[2 * SIM_LEVEL_KEY + 1];
        wio_key_hex(key, hex);
        mk_fail(err, MK_ERR_INVALID, "level %s: not loaded, and no save's levels to read it from",
                hex);
        return NULL;
    }
    level_path(ctx, key, path, sizeof path);
    size_t len;
    char *data = wio_read_file(path, &len, err);
    if (!data)
        return NULL;
    uint8_t sum[SIM_LEVEL_KEY];
    sha256(data, len, sum);
    sim_level *l = NULL;
    if (memcmp(sum, key, SIM_LEVEL_KEY) != 0)
        mk_fail(err, MK_ERR_INVALID, "%s: its bytes do not hash to its name", path);
    else if (!(l = sim_level_read(data, len, err)))
        mk_error_prefix(err, "%s: ", path);
    free(data);
    if (!l)
        return NULL;
    sim_level_set_key(l, key);
    /* Kept in the table, so that the other bodies of the level find it there. */
    wio_level_file f = {.level = l};
    wio_key_hex(key, f.key);
    snprintf(f.path, sizeof f.path, "%s", path);
    if (MK_VEC_PUSH(&table, f))
        sim_level_retain(l);
    return l;
}
