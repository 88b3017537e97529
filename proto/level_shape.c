/* Level shapes (PROTOCOL.md, "Shapes", the extension's segment, chain, mesh and heightfield):
 * their fields read from JSON into the heap (a mesh of a scene file may have a million
 * triangles; a message's is bounded by --max-line), written back as the protocol spells them,
 * and freed. Each number is checked as it is read, the field named with its index
 * ("body.shape.indices[5][2]: 9 is past the 8 vertices"); what the collision library checks
 * when it builds the level (degenerate triangles, welded points, --max-triangles) is left
 * to it. */
#include "parse_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void proto_shape_free(proto_shape *s)
{
    proto_level *l = s->level;
    if (!l)
        return;
    free(l->points);
    free(l->vertices);
    free(l->triangles);
    free(l->heights);
    free(l->holes);
    free(l->file);
    free(l->data);
    free(l);
    s->level = NULL;
}

static proto_error_code no_memory(const char *path, const char *key, proto_error *err)
{
    return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: out of memory", path, key);
}

/* The array `key` of obj: its item count in *n (at most max). */
static proto_error_code get_array(const cJSON *obj, const char *key, const char *path,
                                  uint32_t min, uint32_t max, const cJSON **out, uint32_t *n,
                                  proto_error *err)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!a)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: missing", path, key);
    if (!cJSON_IsArray(a))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: must be an array", path, key);
    uint32_t count = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
    {
        if (count == max)
            return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: more than %u items", path, key,
                              max);
        count++;
    }
    if (count < min)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s%s: must have at least %u items", path,
                          key, min);
    *out = a;
    *n = count;
    return PROTO_OK;
}

/* n vectors of `dim` coordinates within PROTO_MAX_COORD, as floats. */
static proto_error_code get_vectors(const cJSON *a, const char *path, const char *key, int dim,
                                    float *out, proto_error *err)
{
    uint32_t i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
    {
        char p[160];
        double x[3];
        snprintf(p, sizeof p, "%s%s[%u]", path, key, i);
        proto_error_code rc = proto_parse_vector(v, dim, PROTO_MAX_COORD, p, x, err);
        if (rc)
            return rc;
        for (int k = 0; k < dim; k++)
            out[(size_t)i * (size_t)dim + (size_t)k] = (float)x[k];
        i++;
    }
    return PROTO_OK;
}

#define LEVEL_MAX_ITEMS (1u << 27) /* pieces, vertices and samples of one level, at most */

static proto_error_code parse_chain(const cJSON *json, const char *path, proto_level *l,
                                    proto_error *err)
{
    const cJSON *pts;
    proto_error_code rc = get_array(json, "points", path, 3, LEVEL_MAX_ITEMS, &pts, &l->npoints,
                                    err);
    if (rc)
        return rc;
    const cJSON *loop = cJSON_GetObjectItemCaseSensitive(json, "loop");
    if (loop && !cJSON_IsBool(loop))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%sloop: must be true or false", path);
    l->loop = cJSON_IsTrue(loop);
    if (!l->loop && l->npoints < 4)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                          "%spoints: an open chain needs at least 4 points (its ends are "
                          "ghosts)", path);
    if (!(l->points = malloc((size_t)l->npoints * sizeof *l->points)))
        return no_memory(path, "points", err);
    return get_vectors(pts, path, "points", 2, &l->points[0][0], err);
}

static proto_error_code parse_mesh(const cJSON *json, const char *path, proto_level *l,
                                   proto_error *err)
{
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(json, "file");
    if (file) {
        if (!cJSON_IsString(file) || file->valuestring[0] == '\0' ||
            strlen(file->valuestring) > PROTO_MAX_FILE)
            return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                              "%sfile: must be a path of 1 to %d bytes", path, PROTO_MAX_FILE);
        if (!(l->file = strdup(file->valuestring)))
            return no_memory(path, "file", err);
        return PROTO_OK;
    }
    const cJSON *verts, *idx;
    proto_error_code rc = get_array(json, "vertices", path, 3, LEVEL_MAX_ITEMS, &verts,
                                    &l->nvertices, err);
    if (rc || (rc = get_array(json, "indices", path, 1, LEVEL_MAX_ITEMS, &idx, &l->ntriangles,
                              err)))
        return rc;
    if (!(l->vertices = malloc((size_t)l->nvertices * sizeof *l->vertices)) ||
        !(l->triangles = malloc((size_t)l->ntriangles * sizeof *l->triangles)))
        return no_memory(path, "vertices", err);
    if ((rc = get_vectors(verts, path, "vertices", 3, &l->vertices[0][0], err)))
        return rc;
    uint32_t t = 0;
    const cJSON *tri;
    cJSON_ArrayForEach(tri, idx)
    {
        if (!cJSON_IsArray(tri) || cJSON_GetArraySize(tri) != 3)
            return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                              "%sindices[%u]: must be an array of 3 vertex indices", path, t);
        int k = 0;
        const cJSON *v;
        cJSON_ArrayForEach(v, tri)
        {
            if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) ||
                v->valuedouble != floor(v->valuedouble))
                return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                                  "%sindices[%u][%d]: must be a whole number", path, t, k);
            if (v->valuedouble >= l->nvertices)
                return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                                  "%sindices[%u][%d]: %.0f is past the %u vertices", path, t, k,
                                  v->valuedouble, l->nvertices);
            l->triangles[t][k++] = (uint32_t)v->valuedouble;
        }
        t++;
    }
    return PROTO_OK;
}

static proto_error_code parse_heightfield(const cJSON *json, const char *path, proto_level *l,
                                          proto_error *err)
{
    char p[160];
    double size[2];
    snprintf(p, sizeof p, "%ssize", path);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, "size");
    if (!v)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: missing", p);
    proto_error_code rc = proto_parse_vector(v, 2, (double)LEVEL_MAX_ITEMS, p, size, err);
    if (rc)
        return rc;
    if (size[0] < 2 || size[1] < 2 || size[0] != floor(size[0]) || size[1] != floor(size[1]) ||
        size[0] * size[1] > (double)LEVEL_MAX_ITEMS)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                          "%s: must be [cols, rows], whole numbers of at least 2 samples and "
                          "at most %u in all", p, LEVEL_MAX_ITEMS);
    l->cols = (uint32_t)size[0];
    l->rows = (uint32_t)size[1];
    if ((rc = proto_get_sizes(json, "scale", path, 3, l->scale, err)))
        return rc;
    const cJSON *hs;
    uint32_t n, samples = l->cols * l->rows, cells = (l->cols - 1) * (l->rows - 1);
    if ((rc = get_array(json, "heights", path, samples, samples, &hs, &n, err)))
        return rc;
    if (!(l->heights = malloc((size_t)samples * sizeof *l->heights)))
        return no_memory(path, "heights", err);
    uint32_t i = 0;
    cJSON_ArrayForEach(v, hs)
    {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
            fabs(v->valuedouble) > PROTO_MAX_COORD)
            return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                              "%sheights[%u]: must be a number in [%g, %g]", path, i,
                              -PROTO_MAX_COORD, PROTO_MAX_COORD);
        l->heights[i++] = (float)v->valuedouble;
    }
    if (!cJSON_GetObjectItemCaseSensitive(json, "holes"))
        return PROTO_OK;
    if ((rc = get_array(json, "holes", path, cells, cells, &hs, &n, err)))
        return rc;
    if (!(l->holes = malloc(cells)))
        return no_memory(path, "holes", err);
    i = 0;
    cJSON_ArrayForEach(v, hs)
    {
        bool hole = cJSON_IsTrue(v) || (cJSON_IsNumber(v) && v->valuedouble == 1);
        if (!hole && !cJSON_IsFalse(v) && !(cJSON_IsNumber(v) && v->valuedouble == 0))
            return proto_fail(err, PROTO_ERR_BAD_REQUEST,
                              "%sholes[%u]: must be 0 or 1 (or false or true)", path, i);
        l->holes[i++] = hole;
    }
    return PROTO_OK;
}

/* A journal's or a save's level: `data`, its level file in base64. */
static proto_error_code parse_data(const cJSON *json, const char *path, proto_level *l,
                                   proto_error *err)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(json, "data");
    if (!cJSON_IsString(d) ||
        !proto_base64_decode(d->valuestring, strlen(d->valuestring), &l->data, &l->ndata))
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%sdata: must be a level file in base64",
                          path);
    return PROTO_OK;
}

/* A first sighting's named level: `level` (its key), `bounds` and `pieces`. */
static proto_error_code parse_named(const cJSON *json, const char *path, int dim, proto_level *l,
                                    proto_error *err)
{
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(json, "level");
    size_t n = cJSON_IsString(key) ? strlen(key->valuestring) : 0;
    if (n != PROTO_LEVEL_KEY_HEX || strspn(key->valuestring, "0123456789abcdef") != n)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%slevel: must be %d lowercase hex digits",
                          path, PROTO_LEVEL_KEY_HEX);
    memcpy(l->key, key->valuestring, n + 1);
    l->named = true;
    char p[160];
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(json, "bounds");
    snprintf(p, sizeof p, "%sbounds", path);
    if (!cJSON_IsArray(b) || cJSON_GetArraySize(b) != 2)
        return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: must be [[min], [max]]", p);
    proto_error_code rc = proto_parse_vector(cJSON_GetArrayItem(b, 0), dim, PROTO_MAX_COORD, p,
                                             l->lo, err);
    if (rc || (rc = proto_parse_vector(cJSON_GetArrayItem(b, 1), dim, PROTO_MAX_COORD, p, l->hi,
                                       err)))
        return rc;
    double pieces = 0;
    rc = proto_get_number(json, "pieces", path, false, 0, (double)LEVEL_MAX_ITEMS, &pieces, err);
    l->pieces = (uint32_t)pieces;
    return rc;
}

proto_error_code proto_parse_level(const cJSON *json, int dim, const char *path, proto_shape *out,
                                   proto_error *err)
{
    if (out->type == PROTO_SHAPE_SEGMENT) {
        double a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
        char p[160];
        const char *names[2] = {"a", "b"};
        double *ends[2] = {a, b};
        for (int k = 0; k < 2; k++) {
            snprintf(p, sizeof p, "%s%s", path, names[k]);
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, names[k]);
            if (!v)
                return proto_fail(err, PROTO_ERR_BAD_REQUEST, "%s: missing", p);
            proto_error_code rc = proto_parse_vector(v, 2, PROTO_MAX_COORD, p, ends[k], err);
            if (rc)
                return rc;
            memcpy(out->points[k], ends[k], sizeof a);
        }
        out->npoints = 2;
        return PROTO_OK;
    }
    proto_level *l = calloc(1, sizeof *l);
    if (!l)
        return no_memory(path, "type", err);
    out->level = l;
    proto_error_code rc;
    if (cJSON_GetObjectItemCaseSensitive(json, "level"))
        rc = parse_named(json, path, dim, l, err);
    else if (cJSON_GetObjectItemCaseSensitive(json, "data"))
        rc = parse_data(json, path, l, err);
    else if (out->type == PROTO_SHAPE_CHAIN)
        rc = parse_chain(json, path, l, err);
    else if (out->type == PROTO_SHAPE_MESH)
        rc = parse_mesh(json, path, l, err);
    else
        rc = parse_heightfield(json, path, l, err);
    if (rc)
        proto_shape_free(out);
    return rc;
}

/* ---- base64 (RFC 4648) ---- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void proto_buf_append_base64(proto_buf *b, const void *data, size_t n)
{
    const uint8_t *d = data;
    if (!proto_buf_reserve(b, (n + 2) / 3 * 4))
        return;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) |
                     (i + 2 < n ? d[i + 2] : 0);
        char q[4] = {b64[v >> 18], b64[(v >> 12) & 63], i + 1 < n ? b64[(v >> 6) & 63] : '=',
                     i + 2 < n ? b64[v & 63] : '='};
        proto_buf_append(b, q, 4);
    }
}

bool proto_base64_decode(const char *s, size_t n, uint8_t **out, size_t *len)
{
    uint8_t *d = malloc(n / 4 * 3 + 3);
    if (!d)
        return false;
    size_t k = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n && s[i] != '='; i++) {
        const char *at = s[i] ? strchr(b64, s[i]) : NULL;
        if (!at) {
            free(d);
            return false;
        }
        acc = acc << 6 | (uint32_t)(at - b64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            d[k++] = (uint8_t)(acc >> bits);
        }
    }
    *out = d;
    *len = k;
    return true;
}

/* ---- writing ---- */

/* A float as the shortest text that reads back as the same float (%.9g). */
static void put_float(proto_buf *b, double v)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%.9g", v);
    proto_buf_append(b, tmp, (size_t)n);
}

static void put_vector(proto_buf *b, const double *v, int dim)
{
    proto_buf_append_char(b, '[');
    for (int k = 0; k < dim; k++) {
        if (k)
            proto_buf_append_char(b, ',');
        put_float(b, v[k]);
    }
    proto_buf_append_char(b, ']');
}

static void put_floats(proto_buf *b, const float *f, size_t n, int dim)
{
    proto_buf_append_char(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            proto_buf_append_char(b, ',');
        double v[3];
        for (int k = 0; k < dim; k++)
            v[k] = f[i * (size_t)dim + (size_t)k];
        if (dim == 1)
            put_float(b, v[0]);
        else
            put_vector(b, v, dim);
    }
    proto_buf_append_char(b, ']');
}

void proto_write_level_fields(proto_buf *b, const proto_shape *s)
{
    if (s->type == PROTO_SHAPE_SEGMENT) {
        proto_buf_append_str(b, ",\"a\":");
        put_vector(b, s->points[0], 2);
        proto_buf_append_str(b, ",\"b\":");
        put_vector(b, s->points[1], 2);
        return;
    }
    const proto_level *l = s->level;
    if (!l)
        return;
    if (l->data) {
        proto_buf_append_str(b, ",\"data\":\"");
        proto_buf_append_base64(b, l->data, l->ndata);
        proto_buf_append_char(b, '"');
        return;
    }
    if (l->named) {
        int dim = s->type == PROTO_SHAPE_CHAIN ? 2 : 3;
        proto_buf_append_str(b, ",\"level\":\"");
        proto_buf_append_str(b, l->key);
        proto_buf_append_str(b, "\",\"bounds\":[");
        put_vector(b, l->lo, dim);
        proto_buf_append_char(b, ',');
        put_vector(b, l->hi, dim);
        proto_buf_append_str(b, "],\"pieces\":");
        proto_buf_append_u64(b, l->pieces);
        return;
    }
    switch (s->type) {
    case PROTO_SHAPE_CHAIN:
        proto_buf_append_str(b, ",\"points\":");
        put_floats(b, &l->points[0][0], l->npoints, 2);
        proto_buf_append_str(b, l->loop ? ",\"loop\":true" : ",\"loop\":false");
        return;
    case PROTO_SHAPE_MESH:
        if (l->file) {
            proto_buf_append_str(b, ",\"file\":");
            proto_buf_append_json_string(b, l->file);
            return;
        }
        proto_buf_append_str(b, ",\"vertices\":");
        put_floats(b, &l->vertices[0][0], l->nvertices, 3);
        proto_buf_append_str(b, ",\"indices\":[");
        for (uint32_t t = 0; t < l->ntriangles; t++) {
            proto_buf_append_str(b, t ? ",[" : "[");
            for (int k = 0; k < 3; k++) {
                if (k)
                    proto_buf_append_char(b, ',');
                proto_buf_append_u64(b, l->triangles[t][k]);
            }
            proto_buf_append_char(b, ']');
        }
        proto_buf_append_char(b, ']');
        return;
    case PROTO_SHAPE_HEIGHTFIELD: {
        proto_buf_append_str(b, ",\"size\":[");
        proto_buf_append_u64(b, l->cols);
        proto_buf_append_char(b, ',');
        proto_buf_append_u64(b, l->rows);
        proto_buf_append_str(b, "],\"scale\":");
        put_vector(b, l->scale, 3);
        proto_buf_append_str(b, ",\"heights\":");
        put_floats(b, l->heights, (size_t)l->cols * l->rows, 1);
        if (l->holes) {
            size_t cells = (size_t)(l->cols - 1) * (l->rows - 1);
            proto_buf_append_str(b, ",\"holes\":[");
            for (size_t c = 0; c < cells; c++) {
                if (c)
                    proto_buf_append_char(b, ',');
                proto_buf_append_char(b, l->holes[c] ? '1' : '0');
            }
            proto_buf_append_char(b, ']');
        }
        return;
    }
    default:
        return;
    }
}
