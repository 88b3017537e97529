/* Convex hulls in 3D from point sets, for hull shapes. Incremental construction (the
 * beneath-beyond method; quickhull's step, Barber, Dobkin, Huhdanpaa, "The quickhull
 * algorithm for convex hulls", 1996): from a first tetrahedron, each point further out than
 * the tolerance from some face deletes the faces it sees and closes the hole with a cone of
 * triangles from itself to their horizon; points are taken furthest first, as quickhull does,
 * so that most later ones fall inside. Then the triangles are merged into planar faces, and
 * the hull's vertices are the points on three or more face planes (a point inside a face is
 * on one, inside an edge on two): coplanar and collinear input points drop out exactly as
 * col_polygon_make drops collinear ones in 2D. In double, with the 2D builder's tolerance. */
#include <float.h>
#include <string.h>

#include "collide2_internal.h"
#include "collide3_internal.h"

#define TRI_MAX 1024

typedef struct tri {
    int v[3];
    col_d3 n;
    double d;
} tri;

/* The plane of p[i], p[j], p[k] (counter-clockwise seen from outside); `fallback` when they
 * are (nearly) on one line and the cross product has no direction. */
static tri make_tri(const col_d3 *p, int i, int j, int k, col_d3 fallback)
{
    col_d3 n = d3_cross(d3_sub(p[j], p[i]), d3_sub(p[k], p[i]));
    double l = d3_len(n);
    n = l > 1e-300 ? d3_scale(n, 1.0 / l) : fallback;
    return (tri){{i, j, k}, n, d3_dot(n, p[i])};
}

static double dist_to_line(col_d3 p, col_d3 a, col_d3 b)
{
    col_d3 ab = d3_sub(b, a);
    return d3_len(d3_cross(ab, d3_sub(p, a))) / d3_len(ab);
}

/* The first tetrahedron: the two furthest apart of the extreme points along the axes, the
 * point furthest from their line, the point furthest from their plane. Returns 0 or a
 * refusal. */
static int first_tetra(const col_d3 *p, int m, double tol, int out[4], mk_error *err)
{
    int ext[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 1; i < m; i++) {
        double c[3] = {p[i].x, p[i].y, p[i].z};
        for (int k = 0; k < 3; k++) {
            double lo[3] = {p[ext[2 * k]].x, p[ext[2 * k]].y, p[ext[2 * k]].z};
            double hi[3] = {p[ext[2 * k + 1]].x, p[ext[2 * k + 1]].y, p[ext[2 * k + 1]].z};
            if (c[k] < lo[k])
                ext[2 * k] = i;
            if (c[k] > hi[k])
                ext[2 * k + 1] = i;
        }
    }
    double far = -1.0;
    out[0] = ext[0];
    out[1] = ext[1];
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++) {
            double d = d3_len(d3_sub(p[ext[i]], p[ext[j]]));
            if (d > far) {
                far = d;
                out[0] = ext[i];
                out[1] = ext[j];
            }
        }
    far = -1.0;
    for (int i = 0; i < m; i++) {
        double d = dist_to_line(p[i], p[out[0]], p[out[1]]);
        if (d > far) {
            far = d;
            out[2] = i;
        }
    }
    if (far <= tol)
        return mk_fail(err, MK_ERR_INVALID, "all points lie on one line (collinear): zero volume");
    col_d3 n = d3_norm(d3_cross(d3_sub(p[out[1]], p[out[0]]), d3_sub(p[out[2]], p[out[0]])));
    far = -1.0;
    for (int i = 0; i < m; i++) {
        double d = fabs(d3_dot(n, d3_sub(p[i], p[out[0]])));
        if (d > far) {
            far = d;
            out[3] = i;
        }
    }
    if (far <= tol)
        return mk_fail(err, MK_ERR_INVALID, "all points lie in one plane (coplanar): zero volume");
    return 0;
}

/* Adds point k to the hull `t` (count *nt): false when there is no room. */
static bool add_point(const col_d3 *p, int k, double tol, tri *t, int *nt)
{
    int edges[3 * TRI_MAX][3]; /* from, to, the seen triangle it came from */
    int ne = 0;
    bool seen[TRI_MAX];
    bool any = false;
    for (int f = 0; f < *nt; f++) {
        seen[f] = d3_dot(t[f].n, p[k]) - t[f].d > tol;
        any = any || seen[f];
    }
    if (!any)
        return true; /* inside, or within tolerance of a face */
    for (int f = 0; f < *nt; f++) {
        if (!seen[f])
            continue;
        for (int e = 0; e < 3; e++) {
            int a = t[f].v[e], b = t[f].v[(e + 1) % 3];
            int q = 0;
            while (q < ne && !(edges[q][0] == b && edges[q][1] == a))
                q++;
            if (q < ne) {
                memcpy(edges[q], edges[--ne], sizeof edges[q]);
            } else {
                edges[ne][0] = a;
                edges[ne][1] = b;
                edges[ne++][2] = f;
            }
        }
    }
    int out = 0;
    tri kept[TRI_MAX];
    for (int f = 0; f < *nt; f++)
        if (!seen[f])
            kept[out++] = t[f];
    if (out + ne > TRI_MAX)
        return false;
    for (int q = 0; q < ne; q++)
        kept[out++] = make_tri(p, edges[q][0], edges[q][1], k, t[edges[q][2]].n);
    memcpy(t, kept, (size_t)out * sizeof *t);
    *nt = out;
    return true;
}

static double tri_area2(const col_d3 *p, const tri *t)
{
    return d3_len(d3_cross(d3_sub(p[t->v[1]], p[t->v[0]]), d3_sub(p[t->v[2]], p[t->v[0]])));
}

/* Sorts idx[0..n) by key, descending (insertion sort: n <= 256). */
static void sort_desc(int *idx, const double *key, int n)
{
    for (int i = 1; i < n; i++) {
        int x = idx[i], j = i;
        while (j > 0 && key[idx[j - 1]] < key[x]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = x;
    }
}

typedef struct plane {
    col_d3 n;
    double d;
} plane;

int col_hull3_make(const mk_vec3 *points, int n, col_hull3 *out, mk_error *err)
{
    if (col_check_point_count(n, 4, COL_MAX_HULL3_INPUT, "hull", err) != 0)
        return -1;
    double big = 0.0;
    col_d3 lo = d3_of(points[0]), hi = lo;
    for (int i = 0; i < n; i++) {
        if (!mk_v3_finite(points[i]))
            return mk_fail(err, MK_ERR_INVALID, "point %d is not finite", i);
        col_d3 q = d3_of(points[i]);
        lo = d3(fmin(lo.x, q.x), fmin(lo.y, q.y), fmin(lo.z, q.z));
        hi = d3(fmax(hi.x, q.x), fmax(hi.y, q.y), fmax(hi.z, q.z));
        big = fmax(big, fmax(fabs(q.x), fmax(fabs(q.y), fabs(q.z))));
    }
    /* The 2D builder's tolerance: relative to the extent, plus rounding of the coordinates. */
    double extent = fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
    double tol = 1e-6 * extent + 8.0 * FLT_EPSILON * big;
    if (0.5 * (hi.x - lo.x) > COL_MAX_HALF || 0.5 * (hi.y - lo.y) > COL_MAX_HALF ||
        0.5 * (hi.z - lo.z) > COL_MAX_HALF)
        return mk_fail(err, MK_ERR_INVALID,
                       "the hull is larger than %g m across", 2.0 * COL_MAX_HALF);

    col_d3 p[COL_MAX_HULL3_INPUT];
    int src[COL_MAX_HULL3_INPUT]; /* the input index of each distinct point */
    int m = 0;
    for (int i = 0; i < n; i++) {
        col_d3 q = d3_of(points[i]);
        bool dup = false;
        for (int j = 0; j < m && !dup; j++)
            dup = fabs(p[j].x - q.x) <= tol && fabs(p[j].y - q.y) <= tol &&
                  fabs(p[j].z - q.z) <= tol;
        if (!dup) {
            src[m] = i;
            p[m++] = q;
        }
    }
    if (m < 4)
        return mk_fail(err, MK_ERR_INVALID, "fewer than 4 distinct points (got %d)", m);

    int t0[4];
    if (first_tetra(p, m, tol, t0, err) < 0)
        return -1;
    tri t[TRI_MAX];
    int nt = 0;
    col_d3 inner = d3_scale(d3_add(d3_add(p[t0[0]], p[t0[1]]), d3_add(p[t0[2]], p[t0[3]])), 0.25);
    static const int faces4[4][3] = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
    for (int f = 0; f < 4; f++) {
        int i = t0[faces4[f][0]], j = t0[faces4[f][1]], k = t0[faces4[f][2]];
        tri x = make_tri(p, i, j, k, d3(1, 0, 0));
        if (d3_dot(x.n, inner) > x.d) /* facing in: turn it over */
            x = make_tri(p, i, k, j, d3(1, 0, 0));
        t[nt++] = x;
    }
    /* The other points, furthest from the tetrahedron's centre first. */
    int order[COL_MAX_HULL3_INPUT], no = 0;
    double key[COL_MAX_HULL3_INPUT];
    for (int i = 0; i < m; i++) {
        key[i] = d3_len(d3_sub(p[i], inner));
        if (i != t0[0] && i != t0[1] && i != t0[2] && i != t0[3])
            order[no++] = i;
    }
    sort_desc(order, key, no);
    for (int i = 0; i < no; i++)
        if (!add_point(p, order[i], tol, t, &nt))
            return mk_fail(err, MK_ERR_INVALID, "the hull needs more than %d triangles", TRI_MAX);

    /* Planar faces: triangles, largest first, join the first face whose plane holds all three
     * of their corners (within tol) and faces the same way. */
    int tidx[TRI_MAX];
    double tarea[TRI_MAX] = {0}; /* sort_desc reads the first nt alone, which GCC cannot see */
    for (int f = 0; f < nt; f++) {
        tidx[f] = f;
        tarea[f] = tri_area2(p, &t[f]);
    }
    sort_desc(tidx, tarea, nt);
    plane pl[TRI_MAX];
    int np = 0;
    bool used[COL_MAX_HULL3_INPUT] = {false};
    for (int q = 0; q < nt; q++) {
        const tri *x = &t[tidx[q]];
        for (int k = 0; k < 3; k++)
            used[x->v[k]] = true;
        bool joined = false;
        for (int c = 0; c < np && !joined; c++) {
            if (d3_dot(pl[c].n, x->n) < 0.9)
                continue;
            joined = true;
            for (int k = 0; k < 3; k++)
                joined = joined && fabs(d3_dot(pl[c].n, p[x->v[k]]) - pl[c].d) <= tol;
        }
        if (!joined)
            pl[np++] = (plane){x->n, x->d};
    }
    if (np > COL_MAX_HULL3_FACES)
        return mk_fail(err, MK_ERR_INVALID,
                       "the hull has %d faces; at most %d", np, COL_MAX_HULL3_FACES);

    /* Vertices: the points on three or more face planes. */
    int nplanes[COL_MAX_HULL3_INPUT] = {0}, vid[COL_MAX_HULL3_INPUT], nv = 0;
    for (int i = 0; i < m; i++) {
        vid[i] = -1;
        if (!used[i])
            continue;
        for (int c = 0; c < np; c++)
            nplanes[i] += fabs(d3_dot(pl[c].n, p[i]) - pl[c].d) <= tol;
        if (nplanes[i] >= 3) {
            vid[i] = nv;
            out->verts[nv++] = points[src[i]];
        }
    }
    out->vert_count = nv;

    /* Each face: its vertices counter-clockwise about the outward normal. */
    int ni = 0, edges2 = 0;
    out->face_count = 0;
    for (int c = 0; c < np; c++) {
        int fv[COL_MAX_HULL3_VERTS], k = 0;
        col_d3 centre = d3(0.0, 0.0, 0.0);
        for (int i = 0; i < m; i++)
            if (vid[i] >= 0 && fabs(d3_dot(pl[c].n, p[i]) - pl[c].d) <= tol) {
                fv[k++] = i;
                centre = d3_add(centre, p[i]);
            }
        if (k < 3)
            return mk_fail(err, MK_ERR_INVALID, "the points are too near degenerate for a hull");
        centre = d3_scale(centre, 1.0 / k);
        col_d3 u = d3_norm(d3_sub(p[fv[0]], centre)), w = d3_cross(pl[c].n, u);
        double ang[COL_MAX_HULL3_INPUT];
        for (int j = 0; j < k; j++) {
            col_d3 r = d3_sub(p[fv[j]], centre);
            ang[fv[j]] = -atan2(d3_dot(r, w), d3_dot(r, u)); /* sort_desc: negate */
        }
        sort_desc(fv, ang, k);
        if (ni + k > COL_MAX_HULL3_INDICES)
            return mk_fail(err, MK_ERR_INVALID, "the points are too near degenerate for a hull");
        col_hull3_face *face = &out->faces[out->face_count++];
        double off = 0.0;
        for (int j = 0; j < k; j++) {
            out->indices[ni + j] = (uint8_t)vid[fv[j]];
            off += d3_dot(pl[c].n, p[fv[j]]);
        }
        *face = (col_hull3_face){d3_to_f(pl[c].n), (float)(off / k), (uint16_t)ni, (uint16_t)k};
        ni += k;
        edges2 += k;
    }
    /* Euler's formula for a convex polyhedron: V - E + F = 2. */
    if (nv - edges2 / 2 + out->face_count != 2 || edges2 % 2)
        return mk_fail(err, MK_ERR_INVALID,
                       "the points are too near degenerate for a consistent hull");

    /* The thinnest width, across each face (the 2D builder's measure). */
    double thinnest = INFINITY;
    for (int f = 0; f < out->face_count; f++) {
        double width = 0.0;
        col_d3 fn = d3_of(out->faces[f].normal);
        for (int i = 0; i < nv; i++)
            width = fmax(width, out->faces[f].offset - d3_dot(fn, d3_of(out->verts[i])));
        thinnest = fmin(thinnest, width);
    }
    if (0.5 * thinnest < COL_MIN_HALF)
        return mk_fail(err, MK_ERR_INVALID, "the hull is thinner than %g m (half width %g m)",
                      2.0 * COL_MIN_HALF, 0.5 * thinnest);

    col_mass3 mp = col_hull3_mass_props(out);
    if (!(mp.volume > 0.0f))
        return mk_fail(err, MK_ERR_INVALID, "the hull has zero volume");
    out->volume = mp.volume;
    out->centroid = mp.centroid;
    double reach = 0.0;
    for (int i = 0; i < nv; i++)
        reach = fmax(reach, d3_len(d3_of(out->verts[i])));
    out->reach = (float)reach;
    return 0;
}
