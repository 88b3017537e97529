/* Convex polygons from point sets by Andrew's monotone chain (A. M. Andrew, "Another efficient
 * algorithm for convex hulls in two dimensions", 1979): the points sorted by x then y, the
 * lower and the upper chain each kept turning left. It replaces the seed's gift wrapping
 * ("Minkowski Collisions - I Want My Game To Have Slopes!"), whose float turn test could lose
 * its way around a repeated or nearly collinear point and refuse a fine polygon or close on
 * the wrong one. Orientation is decided in double, where the cross product of float
 * differences is exact to the last bit of the inputs, so the hull is the textbook one for
 * any order of the points, with duplicates and interior points. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "collide2_internal.h"

typedef struct hull_pt {
    double x, y;
} hull_pt;

/* The weld distance: COL_WELD_DISTANCE, or the float rounding of the largest coordinate where
 * that is coarser (8 ulps: a polygon 10 km from its origin rounds its points to ~1 mm). */
static double weld_distance(const mk_vec2 *p, int n)
{
    float big = 0.0f;
    for (int i = 0; i < n; i++)
        big = mk_maxf(big, mk_maxf(fabsf(p[i].x), fabsf(p[i].y)));
    return fmax(COL_WELD_DISTANCE, 8.0 * FLT_EPSILON * big);
}

static int by_x_then_y(const void *a, const void *b)
{
    const hull_pt *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return p->y < q->y ? -1 : p->y > q->y;
}

static double cross3(hull_pt o, hull_pt a, hull_pt b)
{
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/* Andrew's monotone chain over m sorted distinct points: the hull counter-clockwise from the
 * lowest of the leftmost points, collinear points dropped (a turn that is not strictly left
 * pops). hull has room for 2 m. */
static int monotone_chain(const hull_pt *p, int m, hull_pt *hull)
{
    int k = 0;
    for (int i = 0; i < m; i++) {
        while (k >= 2 && cross3(hull[k - 2], hull[k - 1], p[i]) <= 0.0)
            k--;
        hull[k++] = p[i];
    }
    for (int i = m - 2, lower = k + 1; i >= 0; i--) {
        while (k >= lower && cross3(hull[k - 2], hull[k - 1], p[i]) <= 0.0)
            k--;
        hull[k++] = p[i];
    }
    return k - 1; /* the last point is the first again */
}

/* Drops hull vertices closer than `weld` to the line through their neighbours, until none is:
 * such a corner is a bend the welding cannot see. */
static int remove_collinear(hull_pt *v, int count, double weld)
{
    bool removed = true;
    while (removed && count >= 3) {
        removed = false;
        for (int i = 0; i < count; i++) {
            hull_pt a = v[(i + count - 1) % count], b = v[i], c = v[(i + 1) % count];
            double len = hypot(c.x - a.x, c.y - a.y);
            if (len > 0.0 && fabs(cross3(a, c, b)) / len > weld)
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

    /* Sorted first, then welded: a point closer than the weld distance (on both axes) to one
     * kept before it is that point, and the sort makes which one is kept independent of the
     * order the points came in. */
    double weld = weld_distance(points, n);
    hull_pt sorted[COL_MAX_HULL_INPUT], p[COL_MAX_HULL_INPUT];
    for (int i = 0; i < n; i++)
        sorted[i] = (hull_pt){points[i].x, points[i].y};
    qsort(sorted, (size_t)n, sizeof sorted[0], by_x_then_y);
    int m = 0;
    for (int i = 0; i < n; i++) {
        bool dup = false;
        for (int j = m - 1; j >= 0 && !dup && sorted[i].x - p[j].x <= weld; j--)
            dup = fabs(p[j].y - sorted[i].y) <= weld;
        if (!dup)
            p[m++] = sorted[i];
    }
    if (m < 3)
        return mk_fail(err, MK_ERR_INVALID, "fewer than 3 distinct points (points closer than "
                                            "%g m are one)", weld);

    hull_pt h[2 * COL_MAX_HULL_INPUT];
    int count = remove_collinear(h, monotone_chain(p, m, h), weld);
    if (count < 3)
        return mk_fail(err, MK_ERR_INVALID, "all points lie on one line (collinear): zero area");
    if (count > COL_MAX_POLYGON)
        return mk_fail(err, MK_ERR_INVALID, "the convex hull has %d vertices; at most %d", count,
                      COL_MAX_POLYGON);

    /* The first vertex is the highest, the leftmost of the highest: the order Mink's hulls
     * have always had, so a polygon keeps its vertex (and feature) numbering. */
    int start = 0;
    for (int i = 1; i < count; i++)
        if (h[i].y > h[start].y || (h[i].y == h[start].y && h[i].x < h[start].x))
            start = i;
    mk_vec2 v[COL_MAX_POLYGON];
    for (int i = 0; i < count; i++) {
        hull_pt q = h[(start + i) % count];
        v[i] = mk_v2((float)q.x, (float)q.y);
    }

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

    /* Any hull with area is accepted, however thin (Box2D takes a 10 mm x 2 mm triangle); only
     * its extent is limited. */
    if (0.5f * (hi.x - lo.x) > COL_MAX_HALF || 0.5f * (hi.y - lo.y) > COL_MAX_HALF)
        return mk_fail(err, MK_ERR_INVALID, "the polygon is larger than %g m across",
                      2.0 * COL_MAX_HALF);
    return 0;
}
