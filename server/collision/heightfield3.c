/* Heightfields: a grid of heights whose triangles are made on the fly, two per cell on a fixed
 * diagonal (Jolt's HeightFieldShape; its triangles are the same, and so are the rules for
 * their active edges: an edge is tested against the triangle across it, and one on the
 * border or beside a hole is active). What is stored is a height per sample and a byte per
 * cell (the six edge bits and the hole bit), about 2.5 bytes a triangle. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "level_internal.h"

#define CELL_HOLE 0x40u

static int check_scale(float v, char axis, mk_error *err)
{
    if (!isfinite(v) || !(v >= COL_MIN_HALF && v <= COL_MAX_HALF))
        return mk_fail(err, MK_ERR_INVALID, "scale.%c = %g is outside [%g, %g]", axis, (double)v,
                       (double)COL_MIN_HALF, (double)COL_MAX_HALF);
    return 0;
}

static int check_desc(const col_heightfield3_desc *d, mk_error *err)
{
    if (d->cols < 2 || d->rows < 2)
        return mk_fail(err, MK_ERR_INVALID, "size: a heightfield needs at least 2 x 2 samples "
                                            "(got %u x %u)", d->cols, d->rows);
    uint64_t tris = (uint64_t)2 * (d->cols - 1) * (d->rows - 1);
    uint32_t limit = d->max_triangles < COL_LEVEL_MAX_PIECES ? d->max_triangles
                                                             : COL_LEVEL_MAX_PIECES;
    if (tris > limit)
        return mk_fail(err, MK_ERR_INVALID, "size: %u x %u samples make %llu triangles, more "
                                            "than the limit of %u", d->cols, d->rows,
                       (unsigned long long)tris, limit);
    if (check_scale(d->scale.x, 'x', err) < 0 || check_scale(d->scale.y, 'y', err) < 0 ||
        check_scale(d->scale.z, 'z', err) < 0)
        return -1;
    if ((double)(d->cols - 1) * d->scale.x > COL_LEVEL_MAX_COORD ||
        (double)(d->rows - 1) * d->scale.z > COL_LEVEL_MAX_COORD)
        return mk_fail(err, MK_ERR_INVALID, "size: the heightfield reaches past %g m",
                       (double)COL_LEVEL_MAX_COORD);
    if (!d->heights)
        return mk_fail(err, MK_ERR_INVALID, "heights: a heightfield needs its heights");
    size_t n = (size_t)d->cols * d->rows;
    for (size_t k = 0; k < n; k++) {
        float y = d->heights[k] * d->scale.y;
        if (!isfinite(d->heights[k]) || !isfinite(y))
            return mk_fail(err, MK_ERR_INVALID, "heights[%zu] is not finite", k);
        if (fabsf(y) > COL_LEVEL_MAX_COORD)
            return mk_fail(err, MK_ERR_INVALID, "heights[%zu] = %g m is past +-%g m", k,
                           (double)y, (double)COL_LEVEL_MAX_COORD);
    }
    return 0;
}

mk_vec3 col_heightfield3_vertex(const col_heightfield3 *h, uint32_t i, uint32_t j)
{
    return mk_v3((float)i * h->scale.x, h->y[(size_t)j * h->cols + i], (float)j * h->scale.z);
}

/* The samples of cell (i, j), in col_heightfield3_cell_triangle's order. */
static void cell_corners(const col_heightfield3 *h, uint32_t i, uint32_t j, mk_vec3 corner[4])
{
    corner[0] = col_heightfield3_vertex(h, i, j);
    corner[1] = col_heightfield3_vertex(h, i, j + 1);
    corner[2] = col_heightfield3_vertex(h, i + 1, j + 1);
    corner[3] = col_heightfield3_vertex(h, i + 1, j);
}

/* The triangle k (0, 1) of cell (i, j), in the heightfield's frame. */
static void cell_triangle(const col_heightfield3 *h, uint32_t i, uint32_t j, int k, mk_vec3 v[3])
{
    mk_vec3 corner[4];
    uint8_t active;
    cell_corners(h, i, j, corner);
    col_heightfield3_cell_triangle(corner, 0, k, v, &active);
}

static bool is_hole(const col_heightfield3 *h, uint32_t i, uint32_t j)
{
    return (h->cells[(size_t)j * (h->cols - 1) + i] & CELL_HOLE) != 0;
}

/* The triangle across edge e of triangle k of cell (i, j): its cell and index, false on the
 * border or at a hole. Triangle 0 (i,j), (i,j+1), (i+1,j+1): edge 0 is the column x = i (the
 * left cell's triangle 1), edge 1 the row z = j + 1 (the cell above's triangle 1), edge 2
 * the diagonal. Triangle 1 (i,j), (i+1,j+1), (i+1,j): edge 0 the diagonal, edge 1 the column
 * x = i + 1 (the right cell's triangle 0), edge 2 the row z = j (the cell below's 0). */
static bool across(const col_heightfield3 *h, uint32_t i, uint32_t j, int k, int e, uint32_t *ni,
                   uint32_t *nj, int *nk)
{
    long ci = (long)i, cj = (long)j;
    int other = 1 - k;
    if (k == 0 && e == 0)
        ci--;
    else if (k == 0 && e == 1)
        cj++;
    else if (k == 1 && e == 1)
        ci++;
    else if (k == 1 && e == 2)
        cj--;
    if (ci < 0 || cj < 0 || ci >= (long)h->cols - 1 || cj >= (long)h->rows - 1)
        return false;
    if (is_hole(h, (uint32_t)ci, (uint32_t)cj))
        return false;
    *ni = (uint32_t)ci;
    *nj = (uint32_t)cj;
    *nk = other;
    return true;
}

static void mark_active(col_heightfield3 *h, float cos_threshold)
{
    uint32_t cw = h->cols - 1, ch = h->rows - 1;
    for (uint32_t j = 0; j < ch; j++)
        for (uint32_t i = 0; i < cw; i++) {
            uint8_t *cell = &h->cells[(size_t)j * cw + i];
            if (*cell & CELL_HOLE)
                continue;
            for (int k = 0; k < 2; k++) {
                mk_vec3 a[3];
                cell_triangle(h, i, j, k, a);
                for (int e = 0; e < 3; e++) {
                    uint32_t ni, nj;
                    int nk;
                    bool on = true;
                    if (across(h, i, j, k, e, &ni, &nj, &nk)) {
                        mk_vec3 b[3];
                        cell_triangle(h, ni, nj, nk, b);
                        on = col_tri_edge_active(a, e, b, cos_threshold);
                    }
                    if (on)
                        *cell |= (uint8_t)(1u << (3 * k + e));
                }
            }
        }
}

int col_heightfield3_build(const col_heightfield3_desc *d, col_heightfield3 *out, mk_error *err)
{
    memset(out, 0, sizeof *out);
    if (check_desc(d, err) < 0)
        return -1;
    size_t n = (size_t)d->cols * d->rows, cells = (size_t)(d->cols - 1) * (d->rows - 1);
    size_t holes = 0;
    if (d->holes)
        for (size_t c = 0; c < cells; c++)
            holes += d->holes[c] != 0;
    if (holes == cells)
        return mk_fail(err, MK_ERR_INVALID, "holes: every one of the %zu cells is a hole", cells);
    out->y = malloc(n * sizeof *out->y);
    out->cells = calloc(cells, 1);
    if (!out->y || !out->cells) {
        col_heightfield3_free(out);
        return mk_fail(err, MK_ERR_INVALID, "size: out of memory for %zu samples", n);
    }
    out->cols = d->cols;
    out->rows = d->rows;
    out->scale = d->scale;
    out->tri_count = (uint32_t)(2 * cells);
    out->min_y = FLT_MAX;
    out->max_y = -FLT_MAX;
    for (size_t k = 0; k < n; k++) {
        out->y[k] = d->heights[k] * d->scale.y;
        out->min_y = mk_minf(out->min_y, out->y[k]);
        out->max_y = mk_maxf(out->max_y, out->y[k]);
    }
    if (d->holes)
        for (size_t c = 0; c < cells; c++)
            out->cells[c] = d->holes[c] ? CELL_HOLE : 0;
    mark_active(out, d->active_edge_cos);
    mk_vec3 lo = mk_v3(0.0f, out->min_y, 0.0f);
    mk_vec3 hi = col_heightfield3_vertex(out, d->cols - 1, d->rows - 1);
    hi.y = out->max_y;
    out->bounds = (col_aabb3){mk_v3_scale(mk_v3_add(lo, hi), 0.5f),
                              mk_v3_scale(mk_v3_sub(hi, lo), 0.5f)};
    return 0;
}

void col_heightfield3_free(col_heightfield3 *h)
{
    free(h->y);
    free(h->cells);
    memset(h, 0, sizeof *h);
}

size_t col_heightfield3_bytes(const col_heightfield3 *h)
{
    return sizeof *h + (size_t)h->cols * h->rows * sizeof *h->y +
           (size_t)(h->cols - 1) * (h->rows - 1);
}

bool col_heightfield3_local(const col_heightfield3 *h, uint32_t t, mk_vec3 v[3], uint8_t *active)
{
    uint32_t c = t / 2, cw = h->cols - 1;
    if (t >= h->tri_count)
        return false;
    uint32_t i = c % cw, j = c / cw;
    uint8_t cell = h->cells[c];
    if (cell & CELL_HOLE)
        return false;
    mk_vec3 corner[4];
    cell_corners(h, i, j, corner);
    col_heightfield3_cell_triangle(corner, cell, (int)(t % 2), v, active);
    return true;
}

bool col_heightfield3_cell(const col_heightfield3 *h, uint32_t i, uint32_t j, mk_vec3 corner[4],
                           uint8_t *cell)
{
    *cell = h->cells[(size_t)j * (h->cols - 1) + i];
    if (*cell & CELL_HOLE)
        return false;
    cell_corners(h, i, j, corner);
    return true;
}

bool col_heightfield3_triangle(const col_heightfield3 *h, col_xf3 xh, uint32_t i,
                               col_triangle3 *out)
{
    mk_vec3 v[3];
    uint8_t active;
    if (!col_heightfield3_local(h, i, v, &active))
        return false;
    for (int k = 0; k < 3; k++)
        out->v[k] = col_xf3_apply(xh, v[k]);
    out->active = active;
    return true;
}

/* ---- cells ---- */

/* The cell column (or row) holding coordinate x on an axis of n samples spaced s apart,
 * clamped to the grid. */
static uint32_t cell_at(double x, float s, uint32_t n)
{
    double c = floor(x / s);
    if (!(c > 0.0))
        return 0;
    if (c > (double)(n - 2))
        return n - 2;
    return (uint32_t)c;
}

/* How far past a box's side its cells reach, m: a millionth of the coordinate and of the cell,
 * far more than the rounding of a sample's coordinate (i times the spacing, in float: 6e-8 of
 * it) and of x / s, so that a box that only touches a cell's far side, or ends on a border
 * that rounding moves, still takes the cell in; its triangles are then tested exactly. */
static double cell_pad(float x, float s) { return 1e-6 * (fabs((double)x) + (double)s); }

void col_heightfield3_cells(const col_heightfield3 *h, const col_box *box, uint32_t range[4])
{
    float sx = h->scale.x, sz = h->scale.z;
    range[0] = cell_at(box->lo[0] - cell_pad(box->lo[0], sx), sx, h->cols);
    range[1] = cell_at(box->hi[0] + cell_pad(box->hi[0], sx), sx, h->cols);
    range[2] = cell_at(box->lo[2] - cell_pad(box->lo[2], sz), sz, h->rows);
    range[3] = cell_at(box->hi[2] + cell_pad(box->hi[2], sz), sz, h->rows);
}

/* Whether the ray's height while over cell (i, j), t in [t0, t1], reaches the cell's range of
 * heights (a few roundings wider): the cheap test that lets a long ray pass over most cells
 * without testing their triangles. */
static bool ray_meets_cell(const col_heightfield3 *h, const col_ray_pre *r, uint32_t i,
                           uint32_t j, double t0, double t1)
{
    const float *y = h->y + (size_t)j * h->cols + i;
    float lo = mk_minf(mk_minf(y[0], y[1]), mk_minf(y[h->cols], y[h->cols + 1]));
    float hi = mk_maxf(mk_maxf(y[0], y[1]), mk_maxf(y[h->cols], y[h->cols + 1]));
    double y0 = r->o[1] + t0 * r->d[1], y1 = r->o[1] + t1 * r->d[1];
    double slack = 1e-7 * (1.0 + fabs(y0) + fabs(y1) + fabs((double)lo) + fabs((double)hi));
    return fmin(y0, y1) <= hi + slack && fmax(y0, y1) >= lo - slack;
}

/* A grid walk (Amanatides and Woo 1987) of the ray o + t d, t in [0, tmax], over the cells,
 * in the heightfield's frame: the first triangle hit, with the cells after it walked while
 * they begin no later than that hit (a hit on a cell's border may belong to the next cell's
 * triangle too, and rounding may put it there first). Where the ray crosses a grid corner
 * (both borders within 1e-9 of each other), both cells beside the corner are tested. */
bool col_heightfield3_ray(const col_heightfield3 *h, const col_ray_pre *r, col_back_face back,
                          double tmax, uint32_t *best, double *best_t, bool *best_back)
{
    double lo[3] = {0.0, h->min_y, 0.0};
    double hi[3] = {(double)(h->cols - 1) * h->scale.x, h->max_y, (double)(h->rows - 1) * h->scale.z};
    double grow[3] = {1e-9 * (hi[0] + 1.0), 1e-9 * (fabs(hi[1]) + fabs(lo[1]) + 1.0),
                      1e-9 * (hi[2] + 1.0)};
    double t0 = col_box_enter(lo, hi, r->o, r->d, grow, tmax);
    if (!(t0 <= tmax))
        return false;
    const double *o = r->o, *d = r->d;
    uint32_t i = cell_at(o[0] + t0 * d[0], h->scale.x, h->cols);
    uint32_t j = cell_at(o[2] + t0 * d[2], h->scale.z, h->rows);
    int si = d[0] > 0.0 ? 1 : d[0] < 0.0 ? -1 : 0, sj = d[2] > 0.0 ? 1 : d[2] < 0.0 ? -1 : 0;
    *best = UINT32_MAX;
    uint32_t cw = h->cols - 1;
    double enter = t0;
    for (;;) {
        /* The cell (i, j) and, at a corner, its two side neighbours toward the next. */
        double tx = si == 0 ? INFINITY
                            : (((double)i + (si > 0)) * h->scale.x - o[0]) / d[0];
        double tz = sj == 0 ? INFINITY
                            : (((double)j + (sj > 0)) * h->scale.z - o[2]) / d[2];
        bool corner = si != 0 && sj != 0 && fabs(tx - tz) <= 1e-9 * (fabs(tx) + fabs(tz));
        for (int c = 0; c < (corner ? 3 : 1); c++) {
            long ci = (long)i + (c == 1 ? si : 0), cj = (long)j + (c == 2 ? sj : 0);
            if (ci < 0 || cj < 0 || ci >= (long)cw || cj >= (long)h->rows - 1)
                continue;
            uint32_t cell = (uint32_t)cj * cw + (uint32_t)ci;
            if (c == 0 && !ray_meets_cell(h, r, (uint32_t)ci, (uint32_t)cj, enter,
                                          fmin(fmin(tx, tz), tmax)))
                continue;
            for (uint32_t k = 0; k < 2; k++) {
                mk_vec3 v[3];
                uint8_t active;
                if (!col_heightfield3_local(h, 2 * cell + k, v, &active))
                    continue;
                double t;
                bool from_back;
                double limit = *best == UINT32_MAX ? tmax : *best_t;
                if (!col_ray_pre_hit(r, v, back, limit, &t, &from_back))
                    continue;
                if (*best == UINT32_MAX || t < *best_t || 2 * cell + k < *best) {
                    *best = 2 * cell + k;
                    *best_t = t;
                    *best_back = from_back;
                }
            }
        }
        double exit = fmin(tx, tz);
        if (exit > tmax || (*best != UINT32_MAX && *best_t < exit))
            break;
        enter = exit;
        if (tx <= tz) {
            if ((si < 0 && i == 0) || (si > 0 && i + 1 >= cw))
                break;
            i = (uint32_t)((long)i + si);
        }
        if (tz <= tx) {
            if ((sj < 0 && j == 0) || (sj > 0 && j + 2 >= h->rows))
                break;
            j = (uint32_t)((long)j + sj);
        }
    }
    return *best != UINT32_MAX;
}
