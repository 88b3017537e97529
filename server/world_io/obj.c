/* Wavefront .obj as a level's triangles: its `v x y z [w]` lines and its `f` lines, each face
 * of three or more corners made triangles as a fan from its first corner; a corner is `v`,
 * `v/vt`, `v/vt/vn` or `v//vn`, an index from 1, or from the end when negative (-1: the
 * vertex just before). Every other line (texture coordinates, normals, groups, materials,
 * comments) is skipped. The file is outside data: an index out of range, a number that is not
 * one or not finite, a coordinate past the level's limit or more triangles than the limit are
 * refused, naming the file, the line and its byte offset. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mink_world_io.h"

typedef struct obj_reader {
    const char *name;
    const char *p, *end; /* the line's rest */
    size_t line, at;     /* the line's number from 1, and its first byte */
    mk_error *err;
} obj_reader;

static int obj_fail(obj_reader *r, const char *what)
{
    return mk_fail(r->err, MK_ERR_INVALID, "%s: line %zu (byte %zu): %s", r->name, r->line, r->at,
                   what);
}

static void skip_space(obj_reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\r'))
        r->p++;
}

/* The next word of the line, [*w, *w + *n); false at its end. */
static bool word(obj_reader *r, const char **w, size_t *n)
{
    skip_space(r);
    const char *s = r->p;
    while (r->p < r->end && *r->p != ' ' && *r->p != '\t' && *r->p != '\r')
        r->p++;
    *w = s;
    *n = (size_t)(r->p - s);
    return *n > 0;
}

static int parse_number(obj_reader *r, const char *w, size_t n, double *out)
{
    char tmp[64];
    if (n >= sizeof tmp)
        return obj_fail(r, "v: a number is too long");
    memcpy(tmp, w, n);
    tmp[n] = '\0';
    char *end;
    errno = 0;
    double v = strtod(tmp, &end);
    if (end != tmp + n || !isfinite(v))
        return obj_fail(r, "v: a coordinate is not a finite number");
    *out = v;
    return 0;
}

/* A face corner's vertex index, 0-based, checked against the vertices so far. */
static int corner(obj_reader *r, const char *w, size_t n, uint32_t nv, uint32_t *out)
{
    char tmp[32];
    size_t k = 0;
    while (k < n && w[k] != '/')
        k++;
    if (k == 0 || k >= sizeof tmp)
        return obj_fail(r, "f: a corner must start with a vertex index");
    memcpy(tmp, w, k);
    tmp[k] = '\0';
    char *end;
    errno = 0;
    long long i = strtoll(tmp, &end, 10);
    if (end != tmp + k || errno != 0 || i == 0)
        return obj_fail(r, "f: a vertex index must be a whole number other than 0");
    long long v = i > 0 ? i - 1 : (long long)nv + i;
    if (v < 0 || v >= (long long)nv) {
        char what[96];
        snprintf(what, sizeof what, "f: vertex index %lld is past the %u vertices so far", i, nv);
        return obj_fail(r, what);
    }
    *out = (uint32_t)v;
    return 0;
}

int wio_obj_parse(const void *data, size_t len, const char *name, uint32_t max_triangles,
                  wio_mesh_data *out, mk_error *err)
{
    memset(out, 0, sizeof *out);
    const char *s = data, *end = s + len;
    obj_reader r = {name, s, s, 0, 0, err};
    size_t vcap = 0, tcap = 0;
    int rc = 0;
    while (rc == 0 && s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        r.p = s;
        r.end = le;
        r.line++;
        r.at = (size_t)(s - (const char *)data);
        s = nl ? nl + 1 : end;
        const char *w;
        size_t n;
        if (!word(&r, &w, &n) || w[0] == '#')
            continue;
        if (n == 1 && w[0] == 'v') {
            double c[3];
            for (int k = 0; k < 3 && rc == 0; k++) {
                if (!word(&r, &w, &n))
                    rc = obj_fail(&r, "v: needs x, y and z");
                else
                    rc = parse_number(&r, w, n, &c[k]);
            }
            if (rc)
                break;
            for (int k = 0; k < 3; k++)
                if (fabs(c[k]) > COL_LEVEL_MAX_COORD) {
                    rc = obj_fail(&r, "v: a coordinate is past the level's limit of 1e5 m");
                    break;
                }
            if (rc)
                break;
            if (out->nvertices == vcap) {
                vcap = vcap ? 2 * vcap : 1024;
                float(*v)[3] = vcap > UINT32_MAX / 2 ? NULL : realloc(out->vertices, vcap * sizeof *v);
                if (!v) {
                    rc = mk_fail(err, MK_ERR_IO, "%s: out of memory", name);
                    break;
                }
                out->vertices = v;
            }
            for (int k = 0; k < 3; k++)
                out->vertices[out->nvertices][k] = (float)c[k];
            out->nvertices++;
        } else if (n == 1 && w[0] == 'f') {
            uint32_t first = 0, prev = 0, count = 0;
            while (rc == 0 && word(&r, &w, &n)) {
                uint32_t v = 0;
                if ((rc = corner(&r, w, n, out->nvertices, &v)))
                    break;
                if (count == 0)
                    first = v;
                if (count >= 2) {
                    if (out->ntriangles >= max_triangles) {
                        char what[96];
                        snprintf(what, sizeof what, "f: more than %u triangles (--max-triangles)",
                                 max_triangles);
                        rc = obj_fail(&r, what);
                        break;
                    }
                    if (out->ntriangles == tcap) {
                        tcap = tcap ? 2 * tcap : 1024;
                        uint32_t(*t)[3] = realloc(out->triangles, tcap * sizeof *t);
                        if (!t) {
                            rc = mk_fail(err, MK_ERR_IO, "%s: out of memory", name);
                            break;
                        }
                        out->triangles = t;
                    }
                    uint32_t *t = out->triangles[out->ntriangles++];
                    t[0] = first;
                    t[1] = prev;
                    t[2] = v;
                }
                prev = v;
                count++;
            }
            if (rc == 0 && count < 3)
                rc = obj_fail(&r, "f: a face needs at least 3 corners");
        }
    }
    if (rc == 0 && out->ntriangles == 0)
        rc = mk_fail(err, MK_ERR_INVALID, "%s: no faces", name);
    if (rc != 0)
        wio_mesh_data_free(out);
    return rc;
}
