/* Level bodies as mink-client draws them (PROTOCOL.md, "Levels"): a 2D segment or chain as the
 * line it is (the view marks the cells it passes through), a 2D level named by key as the
 * outline of its bounds, and a 3D mesh or heightfield as the footprint of its vertices (a
 * small one sent whole) or of its bounds (a large one, named by key): what it covers seen
 * from above. The client draws; it never collides with a level (the server does). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "world.h"

/* A line's cells: those whose centre is this close to it, m. */
#define CLI_LINE_HALF 0.25

static bool set_points2(cli_body *b, double (*pts)[2], int n, bool loop)
{
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int k = 0; k < n; k++)
        for (int i = 0; i < 2; i++) {
            lo[i] = fmin(lo[i], pts[k][i] - CLI_LINE_HALF);
            hi[i] = fmax(hi[i], pts[k][i] + CLI_LINE_HALF);
        }
    free(b->points);
    b->points = pts;
    b->npoints = n;
    b->loop = loop;
    memcpy(b->lo, lo, sizeof lo);
    memcpy(b->hi, hi, sizeof hi);
    b->turns = true;
    b->shape = CLI_SHAPE_LINES;
    return true;
}

bool cli_level_shape2(cli_body *b, const proto_shape *s)
{
    const proto_level *l = s->level;
    if (s->type == PROTO_SHAPE_SEGMENT) {
        double(*pts)[2] = malloc(2 * sizeof *pts);
        if (!pts)
            return false;
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < 2; i++)
                pts[k][i] = s->points[k][i];
        return set_points2(b, pts, 2, false);
    }
    if (!l)
        return false;
    if (l->named) {
        double(*pts)[2] = malloc(4 * sizeof *pts);
        if (!pts)
            return false;
        const double c[4][2] = {{l->lo[0], l->lo[1]}, {l->hi[0], l->lo[1]}, {l->hi[0], l->hi[1]},
                                {l->lo[0], l->hi[1]}};
        memcpy(pts, c, sizeof c);
        return set_points2(b, pts, 4, true);
    }
    if (l->npoints < 2)
        return false;
    double(*pts)[2] = malloc((size_t)l->npoints * sizeof *pts);
    if (!pts)
        return false;
    for (uint32_t k = 0; k < l->npoints; k++) {
        pts[k][0] = l->points[k][0];
        pts[k][1] = l->points[k][1];
    }
    return set_points2(b, pts, (int)l->npoints, l->loop);
}

bool cli_lines_contain(const cli_body *b, double x, double y)
{
    int segments = b->loop ? b->npoints : b->npoints - 1;
    for (int i = 0; i < segments; i++) {
        const double *p = b->points[i], *q = b->points[(i + 1) % b->npoints];
        double ex = q[0] - p[0], ey = q[1] - p[1], len2 = ex * ex + ey * ey;
        double t = len2 > 0 ? ((x - p[0]) * ex + (y - p[1]) * ey) / len2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double dx = x - (p[0] + t * ex), dy = y - (p[1] + t * ey);
        if (dx * dx + dy * dy <= CLI_LINE_HALF * CLI_LINE_HALF)
            return true;
    }
    return false;
}

/* The 8 corners of the box lo .. hi. */
static void box_corners(const double lo[3], const double hi[3], double (*out)[3])
{
    for (int k = 0; k < 8; k++) {
        out[k][0] = k & 1 ? hi[0] : lo[0];
        out[k][1] = k & 2 ? hi[1] : lo[1];
        out[k][2] = k & 4 ? hi[2] : lo[2];
    }
}

bool cli_level_shape3(cli_body *b, const proto_shape *s)
{
    const proto_level *l = s->level;
    if (!l)
        return false;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    uint32_t n = 0;
    double(*pts)[3] = NULL;
    if (l->named) {
        memcpy(lo, l->lo, sizeof lo);
        memcpy(hi, l->hi, sizeof hi);
    } else if (s->type == PROTO_SHAPE_MESH && l->nvertices <= CLI_MAX_HULL) {
        /* A small mesh: the footprint of its own vertices. */
        n = l->nvertices;
        if (!(pts = malloc((size_t)n * sizeof *pts)))
            return false;
        for (uint32_t k = 0; k < n; k++)
            for (int i = 0; i < 3; i++)
                pts[k][i] = l->vertices[k][i];
    } else if (s->type == PROTO_SHAPE_MESH) {
        for (uint32_t k = 0; k < l->nvertices; k++)
            for (int i = 0; i < 3; i++) {
                lo[i] = fmin(lo[i], l->vertices[k][i]);
                hi[i] = fmax(hi[i], l->vertices[k][i]);
            }
    } else if (s->type == PROTO_SHAPE_HEIGHTFIELD && l->heights) {
        lo[0] = lo[2] = 0;
        hi[0] = (l->cols - 1) * l->scale[0];
        hi[2] = (l->rows - 1) * l->scale[2];
        for (size_t k = 0; k < (size_t)l->cols * l->rows; k++) {
            lo[1] = fmin(lo[1], l->heights[k] * l->scale[1]);
            hi[1] = fmax(hi[1], l->heights[k] * l->scale[1]);
        }
    } else {
        return false;
    }
    if (!pts) {
        n = 8;
        if (!(pts = malloc(8 * sizeof *pts)))
            return false;
        box_corners(lo, hi, pts);
    }
    cli_solid *o = &b->solid;
    free(o->points);
    o->points = pts;
    o->npoints = (int)n;
    o->type = CLI_SOLID_HULL;
    o->radius = o->half_height = 0;
    memset(o->half, 0, sizeof o->half);
    return true;
}
