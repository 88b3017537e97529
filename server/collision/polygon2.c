/* Convex polygons from point sets: the gift wrapping of "Minkowski Collisions - I Want My Game
 * To Have Slopes!" (the seed builds the Minkowski polygon of two shapes this way; Mink builds
 * every polygon shape with it). */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "collide2_internal.h"

/* The distance under which two points are one and a vertex counts as lying on the line of its
 * neighbours: relative to the polygon's extent, plus a few rounding steps of its largest
 * coordinate. */
static float weld_tolerance(const mk_vec2 *p, int n)
{
    mk_vec2 lo = p[0], hi = p[0];
    float big = 0.0f;
    for (int i = 0; i < n; i++) {
        lo = mk_v2_min(lo, p[i]);
        hi = mk_v2_max(hi, p[i]);
        big = mk_maxf(big, mk_maxf(fabsf(p[i].x), fabsf(p[i].y)));
    }
    float extent = mk_maxf(hi.x - lo.x, hi.y - lo.y);
    return 1e-6f * extent + 8.0f * FLT_EPSILON * big;
}

/* Gift wrapping: from a point known to be on the hull, the next vertex is the point q such that
 * the line p -> q leaves no point on its right (the seed's "line that does not subdivide the
 * points"); of collinear candidates the farthest is taken, so points along an edge are
 * skipped. Writes the hull's indices counter-clockwise; returns their count, or -1 when the
 * wrap does not close (only possible with non-convex rounding, which the caller reports). */
static int gift_wrap(const mk_vec2 *p, int n, int start, int *hull, int max_hull)
{
    int count = 0, cur = start;
    do {
        if (count == max_hull)
            return -1;
        hull[count++] = cur;
        int next = cur == 0 ? 1 : 0;
        for (int r = 0; r < n; r++) {
            if (r == cur)
                continue;
            mk_vec2 e = mk_v2_sub(p[next], p[cur]), f = mk_v2_sub(p[r], p[cur]);
            float c = mk_v2_cross(e, f);
            if (c < 0.0f || (c == 0.0f && mk_v2_dot(f, f) > mk_v2_dot(e, e)))
                next = r;
        }
        cur = next;
    } while (cur != start);
    return count;
}

/* Drops vertices that lie within tol of the line through their neighbours, until none does. */
static int remove_collinear(mk_vec2 *v, int count, float tol)
{
    bool removed = true;
    while (removed && count >= 3) {
        removed = false;
        for (int i = 0; i < count; i++) {
            mk_vec2 a = v[(i + count - 1) % count], b = v[i], c = v[(i + 1) % count];
            mk_vec2 ac = mk_v2_sub(c, a);
            float len = mk_v2_len(ac);
            if (len > 0.0f && fabsf(mk_v2_cross(ac, mk_v2_sub(b, a))) / len > tol)
                continue;
            for (int j = i; j + 1 < count; j++)
                v[j] = v[j + 1];
            count--;
            removed = true;
            break;
        }
    }
    return count;
}

int col_polygon_make(const mk_vec2 *points, int n, col_polygon *out, mk_error *err)
{
    if (col_check_point_count(n, 3, COL_MAX_HULL_INPUT, "polygon", err) != 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (!mk_v2_finite(points[i]))
            return mk_fail(err, MK_ERR_INVALID, "point %d is not finite", i);

    /* Duplicates (within the weld tolerance) are dropped; the start is the highest point,
     * the leftmost of the highest, as the seed chooses it. */
    float tol = weld_tolerance(points, n);
    mk_vec2 p[COL_MAX_HULL_INPUT];
    int m = 0, start = 0;
    for (int i = 0; i < n; i++) {
        bool dup = false;
        for (int j = 0; j < m && !dup; j++)
            dup = fabsf(p[j].x - points[i].x) <= tol && fabsf(p[j].y - points[i].y) <= tol;
        if (dup)
            continue;
        p[m] = points[i];
        if (p[m].y > p[start].y || (p[m].y == p[start].y && p[m].x < p[start].x))
            start = m;
        m++;
    }
    if (m < 3)
        return mk_fail(err, MK_ERR_INVALID, "fewer than 3 distinct points");

    int hull[COL_MAX_HULL_INPUT];
    int count = gift_wrap(p, m, start, hull, COL_MAX_HULL_INPUT);
    if (count < 0)
        return mk_fail(err, MK_ERR_INVALID, "the points could not be wrapped into a convex hull");
    mk_vec2 v[COL_MAX_HULL_INPUT];
    for (int i = 0; i < count; i++)
        v[i] = p[hull[i]];
    count = remove_collinear(v, count, tol);
    if (count < 3)
        return mk_fail(err, MK_ERR_INVALID, "all points lie on one line (collinear): zero area");
    if (count > COL_MAX_POLYGON)
        return mk_fail(err, MK_ERR_INVALID, "the convex hull has %d vertices; at most %d", count,
                      COL_MAX_POLYGON);

    out->count = count;
    mk_vec2 lo = v[0], hi = v[0];
    for (int i = 0; i < count; i++) {
        out->verts[i] = v[i];
        /* Outward: the edge turned clockwise, for a counter-clockwise polygon. */
        mk_vec2 e = mk_v2_sub(v[(i + 1) % count], v[i]);
        out->normals[i] = mk_v2_norm(mk_v2(e.y, -e.x));
        lo = mk_v2_min(lo, v[i]);
        hi = mk_v2_max(hi, v[i]);
    }

    /* Area and centroid by triangles fanned from the first vertex (relative to it, so that
     * a polygon far from its frame's origin keeps its precision). */
    float area = 0.0f;
    mk_vec2 c = mk_v2(0.0f, 0.0f);
    for (int i = 1; i + 1 < count; i++) {
        mk_vec2 e1 = mk_v2_sub(v[i], v[0]), e2 = mk_v2_sub(v[i + 1], v[0]);
        float a = 0.5f * mk_v2_cross(e1, e2);
        area += a;
        c = mk_v2_mad(c, a / 3.0f, mk_v2_add(e1, e2));
    }
    if (!(area > 0.0f))
        return mk_fail(err, MK_ERR_INVALID, "the polygon has zero area");
    out->area = area;
    out->centroid = mk_v2_mad(v[0], 1.0f / area, c);

    /* Sizes: the thinnest width (across the edge it is measured from) and the extent. */
    float thinnest = INFINITY;
    for (int i = 0; i < count; i++) {
        float width = 0.0f;
        for (int j = 0; j < count; j++)
            width = mk_maxf(width, -mk_v2_dot(out->normals[i], mk_v2_sub(v[j], v[i])));
        thinnest = mk_minf(thinnest, width);
    }
    if (0.5f * thinnest < COL_MIN_HALF)
        return mk_fail(err, MK_ERR_INVALID, "the polygon is thinner than %g m (half width %g m)",
                      2.0 * COL_MIN_HALF, 0.5 * thinnest);
    if (0.5f * (hi.x - lo.x) > COL_MAX_HALF || 0.5f * (hi.y - lo.y) > COL_MAX_HALF)
        return mk_fail(err, MK_ERR_INVALID, "the polygon is larger than %g m across",
                      2.0 * COL_MAX_HALF);
    return 0;
}
