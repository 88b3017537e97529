/* A 3D shape seen from above: the outline it covers on the x-z plane and its extent in y, what
 * the top-down view of a 3D world fills.
 *
 * The projection of a convex shape is convex, and its outline is made of the shape's extreme
 * points in the horizontal directions. A box or a hull has finitely many: the projection of
 * its corners, wrapped by Andrew's monotone chain ("Another efficient algorithm for convex
 * hulls in two dimensions", 1979). A round shape has infinitely many: it is sampled through its
 * support function (the extreme point in a direction, as GJK uses it; see ../shared/seeds/004)
 * in CLI_FOOTPRINT_SAMPLES directions, which gives a polygon inscribed in the true outline. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "footprint.h"

#define TWO_PI 6.283185307179586 /* C11 has no M_PI */

void cli_quat_rotate(const double q[4], const double v[3], double out[3])
{
    /* v' = v + 2w (u x v) + 2 u x (u x v), u the vector part: two cross products instead of a
     * matrix. */
    double tx = 2 * (q[1] * v[2] - q[2] * v[1]);
    double ty = 2 * (q[2] * v[0] - q[0] * v[2]);
    double tz = 2 * (q[0] * v[1] - q[1] * v[0]);
    out[0] = v[0] + q[3] * tx + (q[1] * tz - q[2] * ty);
    out[1] = v[1] + q[3] * ty + (q[2] * tx - q[0] * tz);
    out[2] = v[2] + q[3] * tz + (q[0] * ty - q[1] * tx);
}

/* The point of a round shape farthest along d (body coordinates, d not zero). */
static void support_round(const cli_solid *s, const double d[3], double out[3])
{
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double side = sqrt(d[0] * d[0] + d[2] * d[2]); /* d's part across the axis */
    double h = s->half_height, r = s->radius;
    switch (s->type) {
    case CLI_SOLID_ELLIPSOID: {
        /* The ellipsoid is the unit sphere scaled by the radii a: its extreme point along d is
         * a^2 d / |a d|. */
        double ad[3], a2d[3], n = 0;
        for (int i = 0; i < 3; i++) {
            ad[i] = s->half[i] * d[i];
            a2d[i] = s->half[i] * ad[i];
            n += ad[i] * ad[i];
        }
        n = sqrt(n);
        for (int i = 0; i < 3; i++)
            out[i] = n > 0 ? a2d[i] / n : 0;
        return;
    }
    case CLI_SOLID_CAPSULE:
        /* The segment's end on d's side, pushed out by the radius. */
        out[0] = r * d[0] / len;
        out[1] = (d[1] >= 0 ? h : -h) + r * d[1] / len;
        out[2] = r * d[2] / len;
        return;
    case CLI_SOLID_CYLINDER:
        /* A point of the rim of the cap on d's side. */
        out[0] = side > 0 ? r * d[0] / side : 0;
        out[1] = d[1] >= 0 ? h : -h;
        out[2] = side > 0 ? r * d[2] / side : 0;
        return;
    case CLI_SOLID_CONE: {
        /* The apex or a point of the base's rim, whichever lies farther along d. */
        double rim[3] = {side > 0 ? r * d[0] / side : 0, -h, side > 0 ? r * d[2] / side : 0};
        bool apex = h * d[1] >= rim[0] * d[0] + rim[1] * d[1] + rim[2] * d[2];
        out[0] = apex ? 0 : rim[0];
        out[1] = apex ? h : rim[1];
        out[2] = apex ? 0 : rim[2];
        return;
    }
    case CLI_SOLID_SPHERE:
    default:
        for (int i = 0; i < 3; i++)
            out[i] = r * d[i] / len;
        return;
    }
}

static bool is_round(const cli_solid *s)
{
    return s->type != CLI_SOLID_BOX && s->type != CLI_SOLID_HULL;
}

static int by_x_then_z(const void *a, const void *b)
{
    const double *p = a, *q = b;
    if (p[0] != q[0])
        return p[0] < q[0] ? -1 : 1;
    return (p[1] > q[1]) - (p[1] < q[1]);
}

/* > 0 when o -> a -> b turns counter-clockwise (x right, z up). */
static double turn(const double o[2], const double a[2], const double b[2])
{
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/* Andrew's monotone chain: the convex hull of pts (sorted here) into out, counter-clockwise,
 * without repeated or collinear corners. Returns the number of corners; fewer than 3 when the
 * points have no area. chain has room for 2 n points.
 *
 * The chain needs the points in exact x-then-z order, and the points of one edge exactly in
 * line: a rotation leaves them a few ulps apart (the eight corners of a box turned about z, the
 * rim of a tipped cone), which could order a vertical edge's ends back and forth and keep a
 * corner that is not one. So the points are first snapped to a 1 nm grid, far below a terminal
 * cell, where the same point is the same number. */
static int hull2(double (*pts)[2], int n, double (*chain)[2], double (*out)[2])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 2; j++)
            pts[i][j] = round(pts[i][j] * 1e9) / 1e9;
    qsort(pts, (size_t)n, sizeof pts[0], by_x_then_z);
    int k = 0;
    for (int i = 0; i < n; i++) { /* the lower chain, left to right */
        while (k >= 2 && turn(chain[k - 2], chain[k - 1], pts[i]) <= 0)
            k--;
        memcpy(chain[k++], pts[i], sizeof pts[i]);
    }
    for (int i = n - 2, lower = k + 1; i >= 0; i--) { /* the upper chain, right to left */
        while (k >= lower && turn(chain[k - 2], chain[k - 1], pts[i]) <= 0)
            k--;
        memcpy(chain[k++], pts[i], sizeof pts[i]);
    }
    int m = k > 1 ? k - 1 : k; /* the last point repeats the first */
    memcpy(out, chain, (size_t)m * sizeof chain[0]);
    return m;
}

void cli_footprint_make(const cli_solid *s, const double pos[3], const double q[4],
                        cli_footprint *out)
{
    static const double up[3] = {0, 1, 0};
    const double inv[4] = {-q[0], -q[1], -q[2], q[3]}; /* world -> body */
    double pts[CLI_MAX_FOOTPRINT][2], chain[2 * CLI_MAX_FOOTPRINT][2];
    int n = 0;
    out->bottom = INFINITY;
    out->top = -INFINITY;
    if (is_round(s)) {
        /* The world's vertical extent comes from the extreme points along -y and +y. */
        double d[3], p[3], w[3];
        cli_quat_rotate(inv, up, d);
        support_round(s, d, p);
        cli_quat_rotate(q, p, w);
        out->top = pos[1] + w[1];
        for (int i = 0; i < 3; i++)
            d[i] = -d[i];
        support_round(s, d, p);
        cli_quat_rotate(q, p, w);
        out->bottom = pos[1] + w[1];
        for (int k = 0; k < CLI_FOOTPRINT_SAMPLES; k++) {
            double a = TWO_PI * k / CLI_FOOTPRINT_SAMPLES;
            double dir[3] = {cos(a), 0, sin(a)};
            cli_quat_rotate(inv, dir, d);
            support_round(s, d, p);
            cli_quat_rotate(q, p, w);
            pts[n][0] = w[0];
            pts[n][1] = w[2];
            n++;
        }
    } else {
        int corners = s->type == CLI_SOLID_BOX ? 8 : s->npoints;
        if (corners > CLI_MAX_FOOTPRINT)
            corners = CLI_MAX_FOOTPRINT;
        for (int k = 0; k < corners; k++) {
            double p[3], w[3];
            if (s->type == CLI_SOLID_BOX) {
                for (int i = 0; i < 3; i++)
                    p[i] = (k >> i & 1) ? s->half[i] : -s->half[i];
            } else {
                memcpy(p, s->points[k], sizeof p);
            }
            cli_quat_rotate(q, p, w);
            out->bottom = fmin(out->bottom, pos[1] + w[1]);
            out->top = fmax(out->top, pos[1] + w[1]);
            pts[n][0] = w[0];
            pts[n][1] = w[2];
            n++;
        }
    }
    /* The hull is wrapped around the body's centre, where the numbers are small and the
     * turns exact to rounding, then moved to the body's place. */
    const double at[2] = {pos[0], pos[2]};
    out->lo[0] = out->lo[1] = INFINITY;
    out->hi[0] = out->hi[1] = -INFINITY;
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < 2; i++) {
            out->lo[i] = fmin(out->lo[i], at[i] + pts[k][i]);
            out->hi[i] = fmax(out->hi[i], at[i] + pts[k][i]);
        }
    }
    out->n = n > 0 ? hull2(pts, n, chain, out->pts) : 0;
    for (int k = 0; k < out->n; k++)
        for (int i = 0; i < 2; i++)
            out->pts[k][i] += at[i];
}

bool cli_footprint_contains(const cli_footprint *f, double x, double z)
{
    if (f->n < 3)
        return false;
    /* Inside a counter-clockwise convex polygon: on the left of every edge, or on it. */
    const double p[2] = {x, z};
    for (int i = 0; i < f->n; i++)
        if (turn(f->pts[i], f->pts[(i + 1) % f->n], p) < 0)
            return false;
    return true;
}
