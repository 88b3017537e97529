/* The world as characters (render.h). The camera snaps to whole cells, so that an edge at a
 * whole number of cells (the top of the ground) falls between rows instead of sharing one with
 * what stands on it. A body fills the cells it covers, so that a ramp shows its slope and a
 * ball its roundness; a body smaller than the cells still gets its bounds' cells, so that
 * nothing on screen is invisible. Joints are dots over empty cells, their anchors '+'. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

int cli_canvas_init(cli_canvas *cv, int cols, int rows)
{
    size_t n = (size_t)(cols > 0 ? cols : 1) * (size_t)(rows > 0 ? rows : 1);
    cv->cols = cols > 0 ? cols : 1;
    cv->rows = rows > 0 ? rows : 1;
    cv->ch = malloc(n);
    cv->paint = malloc(n);
    if (!cv->ch || !cv->paint) {
        cli_canvas_free(cv);
        return -1;
    }
    cli_canvas_clear(cv);
    return 0;
}

void cli_canvas_free(cli_canvas *cv)
{
    free(cv->ch);
    free(cv->paint);
    cv->ch = NULL;
    cv->paint = NULL;
}

void cli_canvas_clear(cli_canvas *cv)
{
    size_t n = (size_t)cv->cols * (size_t)cv->rows;
    memset(cv->ch, ' ', n);
    memset(cv->paint, CLI_PAINT_EMPTY, n);
}

void cli_canvas_text(cli_canvas *cv, int col, int row, const char *text, cli_paint paint)
{
    if (row < 0 || row >= cv->rows)
        return;
    for (int c = col; *text && c < cv->cols; c++, text++) {
        if (c < 0)
            continue;
        unsigned char t = (unsigned char)*text;
        size_t i = (size_t)row * (size_t)cv->cols + (size_t)c;
        cv->ch[i] = t < 0x20 || t > 0x7e ? '?' : (char)t;
        cv->paint[i] = (uint8_t)paint;
    }
}

void cli_canvas_row(const cli_canvas *cv, int r, char *out)
{
    size_t len = (size_t)cv->cols;
    const char *line = cv->ch + (size_t)r * (size_t)cv->cols;
    while (len > 0 && line[len - 1] == ' ')
        len--;
    memcpy(out, line, len);
    out[len] = '\0';
}

typedef struct frame {
    cli_canvas *cv;
    int rows;
    double cw, chh; /* m per column, per row */
} frame;

static void put(const frame *f, int r, int c, char ch, cli_paint p)
{
    size_t i = (size_t)r * (size_t)f->cv->cols + (size_t)c;
    f->cv->ch[i] = ch;
    f->cv->paint[i] = (uint8_t)p;
}

static bool is_avatar(const cli_scene *sc, const cli_body *b)
{
    return sc->has_avatar && b->id == sc->avatar;
}

static cli_paint paint_of(const cli_scene *sc, const cli_body *b)
{
    if (is_avatar(sc, b))
        return CLI_PAINT_AVATAR;
    switch (b->kind) {
    case PROTO_KIND_STATIC: return CLI_PAINT_STATIC;
    case PROTO_KIND_KINEMATIC: return CLI_PAINT_KINEMATIC;
    case PROTO_KIND_CHARACTER: return CLI_PAINT_PLAYER;
    case PROTO_KIND_DYNAMIC: break;
    }
    return sc->client != 0 && b->owner == sc->client ? CLI_PAINT_MINE : CLI_PAINT_DYNAMIC;
}

static char body_char(const cli_scene *sc, const cli_body *b)
{
    if (is_avatar(sc, b))
        return '@';
    switch (b->kind) {
    case PROTO_KIND_STATIC: return '#';
    case PROTO_KIND_KINEMATIC: return '=';
    case PROTO_KIND_CHARACTER: return 'P';
    case PROTO_KIND_DYNAMIC: break;
    }
    return 'o';
}

/* Draw order: what matters most to the player is drawn last, on top. */
static int layer(const cli_scene *sc, const cli_body *b)
{
    if (is_avatar(sc, b))
        return 4;
    switch (b->kind) {
    case PROTO_KIND_STATIC: return 0;
    case PROTO_KIND_DYNAMIC: return 1;
    case PROTO_KIND_KINEMATIC: return 2;
    case PROTO_KIND_CHARACTER: return 3;
    }
    return 1;
}

/* ---- a 2D world, from the side ---- */

/* Whether the shape covers some of a cell: its centre, or a point a third of a row above or
 * below it (so that a thin tilted plank leaves no gaps). */
static bool covers_cell(const cli_body *b, double x, double y, double chh)
{
    return cli_body_contains(b, x, y) || cli_body_contains(b, x, y + chh / 3) ||
           cli_body_contains(b, x, y - chh / 3);
}

/* The cells a box covers, clipped to the frame. The box is given by its offsets from the
 * first column's left edge, [x0, x1], and from the first row's edge, [y0, y1], in metres. An
 * edge within a hundredth of a cell of a cell border (2.5 mm across, 5 mm up at zoom 1) does
 * not spill into the next cell: a predicted or eased position is that far off the state's now
 * and then. `tiny` when it spans fewer than two cells each way. False when it is off the
 * frame. */
typedef struct cell_span {
    int ca, cb, ra, rb;
    bool tiny;
} cell_span;

static bool span_of(const frame *f, double x0, double x1, double y0, double y1, cell_span *s)
{
    const double eps = 0.01;
    int cols = f->cv->cols;
    double c0 = floor(x0 / f->cw + eps), c1 = ceil(x1 / f->cw - eps) - 1;
    double r0 = floor(y0 / f->chh + eps), r1 = ceil(y1 / f->chh - eps) - 1;
    if (c1 < c0)
        c1 = c0;
    if (r1 < r0)
        r1 = r0;
    if (!(c1 >= 0 && r1 >= 0 && c0 < cols && r0 < f->rows))
        return false;
    s->ca = (int)fmax(c0, 0);
    s->cb = (int)fmin(c1, cols - 1);
    s->ra = (int)fmax(r0, 0);
    s->rb = (int)fmin(r1, f->rows - 1);
    s->tiny = c1 - c0 < 2 && r1 - r0 < 2;
    return true;
}

/* Fills a body's cells in the side view; top is the y of the first row's upper edge. */
static void fill(const frame *f, double left, double top, const cli_body *b, char ch,
                 cli_paint p)
{
    double lo[2], hi[2];
    cli_body_bounds(b, lo, hi);
    cell_span s;
    if (!span_of(f, lo[0] - left, hi[0] - left, top - hi[1], top - lo[1], &s))
        return;
    bool exact = !s.tiny && (b->shape != CLI_SHAPE_BOX || (b->turns && b->rot != 0));
    for (int r = s.ra; r <= s.rb; r++)
        for (int c = s.ca; c <= s.cb; c++)
            if (!exact ||
                covers_cell(b, left + (c + 0.5) * f->cw, top - (r + 0.5) * f->chh, f->chh))
                put(f, r, c, ch, p);
}

static void render_side(const frame *f, const cli_scene *sc)
{
    double left = floor((sc->centre[0] - f->cv->cols * f->cw / 2) / f->cw) * f->cw;
    double top = ceil((sc->centre[1] + f->rows * f->chh / 2) / f->chh) * f->chh;
    for (int l = 0; l <= 4; l++)
        for (size_t i = 0; i < sc->count; i++) {
            const cli_body *b = &sc->bodies[i];
            if (b->has_shape && layer(sc, b) == l)
                fill(f, left, top, b, body_char(sc, b), paint_of(sc, b));
        }
}

/* ---- a 3D world, from above ---- */

typedef struct drawn {
    const cli_body *b;
    double top; /* m: the order in which bodies are drawn, the highest last */
} drawn;

static int by_top(const void *a, const void *b)
{
    double x = ((const drawn *)a)->top, y = ((const drawn *)b)->top;
    return (x > y) - (x < y);
}

/* A body's cells: the avatar and other players by who they are, the rest by the height of
 * their top above the avatar's feet, in whole metres (a step up of 1 reads 1). The ground
 * (static, not above the feet) is a faint '.', so that what stands on it stands out. */
static char top_char(const cli_scene *sc, const cli_body *b, double top, double feet)
{
    if (is_avatar(sc, b))
        return '@';
    if (b->kind == PROTO_KIND_CHARACTER)
        return 'P';
    double h = round(top - feet);
    if (b->kind == PROTO_KIND_STATIC && h <= 0)
        return '.';
    if (h < 0)
        return '-';
    return h >= 9 ? '9' : (char)('0' + (int)h);
}

/* Whether the footprint covers some of the cell around (x, z): its centre, or a point a third
 * of the way to a side (so that a thin plank across the cells leaves no gaps). */
static bool covers_ground_cell(const frame *f, const cli_footprint *fp, double x, double z)
{
    return cli_footprint_contains(fp, x, z) || cli_footprint_contains(fp, x, z + f->chh / 3) ||
           cli_footprint_contains(fp, x, z - f->chh / 3) ||
           cli_footprint_contains(fp, x + f->cw / 3, z) ||
           cli_footprint_contains(fp, x - f->cw / 3, z);
}

/* Fills a footprint's cells; near is the z of the first row's upper edge. */
static void fill_footprint(const frame *f, double left, double near, const cli_footprint *fp,
                           char ch, cli_paint p)
{
    cell_span s;
    if (!span_of(f, fp->lo[0] - left, fp->hi[0] - left, fp->lo[1] - near, fp->hi[1] - near, &s))
        return;
    bool tiny = s.tiny || fp->n < 3;
    for (int r = s.ra; r <= s.rb; r++)
        for (int c = s.ca; c <= s.cb; c++)
            if (tiny || covers_ground_cell(f, fp, left + (c + 0.5) * f->cw,
                                           near + (r + 0.5) * f->chh))
                put(f, r, c, ch, p);
}

static void render_above(const frame *f, const cli_scene *sc)
{
    cli_footprint *fp = malloc(sizeof *fp); /* 4 kB: not on the stack of a libuv callback */
    drawn *order = malloc((sc->count ? sc->count : 1) * sizeof *order);
    if (!fp || !order) {
        free(fp);
        free(order);
        return;
    }
    const cli_body *me = NULL;
    for (size_t i = 0; i < sc->count && !me; i++)
        if (is_avatar(sc, &sc->bodies[i]))
            me = &sc->bodies[i];
    double feet = me ? me->pos[1] : sc->centre[1];
    if (me && me->has_shape) {
        cli_body_footprint(me, fp);
        feet = fp->bottom;
    }
    double left = floor((sc->centre[0] - f->cv->cols * f->cw / 2) / f->cw) * f->cw;
    double near = floor((sc->centre[2] - f->rows * f->chh / 2) / f->chh) * f->chh;
    size_t n = 0;
    for (size_t i = 0; i < sc->count; i++) {
        const cli_body *b = &sc->bodies[i];
        if (!b->has_shape)
            continue;
        cli_body_footprint(b, fp);
        /* The avatar is drawn last, over whatever it stands in front of. */
        order[n++] = (drawn){b, b == me ? INFINITY : fp->top};
    }
    qsort(order, n, sizeof *order, by_top);
    for (size_t i = 0; i < n; i++) {
        cli_body_footprint(order[i].b, fp);
        fill_footprint(f, left, near, fp, top_char(sc, order[i].b, fp->top, feet),
                       paint_of(sc, order[i].b));
    }
    free(order);
    free(fp);
}

/* ---- joints ---- */

/* Where a joint's end on body `id` is: its anchor and the body's centre (the world's point,
 * both, for id 0); false when the body is not drawn. */
static bool joint_end(const cli_scene *sc, uint64_t id, const double local[3], double anchor[3],
                      double centre[3])
{
    if (id == 0) {
        memcpy(anchor, local, 3 * sizeof *anchor);
        memcpy(centre, local, 3 * sizeof *centre);
        return true;
    }
    for (size_t i = 0; i < sc->count; i++) {
        const cli_body *b = &sc->bodies[i];
        if (b->id != id)
            continue;
        memcpy(centre, b->pos, 3 * sizeof *centre);
        if (sc->dim == 3) {
            /* v + 2 w (u x v) + 2 u x (u x v), u the quaternion's vector part. */
            const double *q = b->quat;
            double t[3] = {2 * (q[1] * local[2] - q[2] * local[1]),
                           2 * (q[2] * local[0] - q[0] * local[2]),
                           2 * (q[0] * local[1] - q[1] * local[0])};
            anchor[0] = b->pos[0] + local[0] + q[3] * t[0] + (q[1] * t[2] - q[2] * t[1]);
            anchor[1] = b->pos[1] + local[1] + q[3] * t[1] + (q[2] * t[0] - q[0] * t[2]);
            anchor[2] = b->pos[2] + local[2] + q[3] * t[2] + (q[0] * t[1] - q[1] * t[0]);
        } else {
            double c = cos(b->rot), s = sin(b->rot);
            anchor[0] = b->pos[0] + c * local[0] - s * local[1];
            anchor[1] = b->pos[1] + s * local[0] + c * local[1];
            anchor[2] = 0;
        }
        return true;
    }
    return false;
}

/* The cell of a world point: column from x, row from y (2D, down from `top`) or z (3D, down
 * from `near`); false when off the canvas. */
static bool cell_of(const frame *f, const cli_scene *sc, double left, double top,
                    const double p[3], int *r, int *c)
{
    double col = floor((p[0] - left) / f->cw);
    double row = sc->dim == 3 ? floor((p[2] - top) / f->chh) : floor((top - p[1]) / f->chh);
    if (!(col >= 0 && row >= 0 && col < f->cv->cols && row < f->rows))
        return false;
    *c = (int)col;
    *r = (int)row;
    return true;
}

/* Dots from p to q on empty cells, a cell a step. */
static void dots(const frame *f, const cli_scene *sc, double left, double top, const double p[3],
                 const double q[3])
{
    double d = fmax(fabs(q[0] - p[0]) / f->cw,
                    sc->dim == 3 ? fabs(q[2] - p[2]) / f->chh : fabs(q[1] - p[1]) / f->chh);
    int n = d < 4096 ? (int)ceil(d) : 4096;
    for (int k = 1; k < n; k++) {
        double t = (double)k / n, x[3];
        for (int i = 0; i < 3; i++)
            x[i] = p[i] + (q[i] - p[i]) * t;
        int r, c;
        if (cell_of(f, sc, left, top, x, &r, &c) &&
            f->cv->paint[(size_t)r * (size_t)f->cv->cols + (size_t)c] == CLI_PAINT_EMPTY)
            put(f, r, c, '.', CLI_PAINT_STATIC);
    }
}

static void render_joints(const frame *f, const cli_scene *sc)
{
    double left = floor((sc->centre[0] - f->cv->cols * f->cw / 2) / f->cw) * f->cw;
    double top = sc->dim == 3
                     ? floor((sc->centre[2] - f->rows * f->chh / 2) / f->chh) * f->chh
                     : ceil((sc->centre[1] + f->rows * f->chh / 2) / f->chh) * f->chh;
    for (size_t i = 0; i < sc->njoints; i++) {
        const cli_joint *j = &sc->joints[i];
        double aa[3], ca[3], ab[3], cb[3];
        if (!joint_end(sc, j->a, j->local_a, aa, ca) || !joint_end(sc, j->b, j->local_b, ab, cb))
            continue;
        dots(f, sc, left, top, ca, aa);
        dots(f, sc, left, top, aa, ab);
        dots(f, sc, left, top, ab, cb);
        int r, c;
        if (cell_of(f, sc, left, top, aa, &r, &c))
            put(f, r, c, '+', CLI_PAINT_STATIC);
        if (cell_of(f, sc, left, top, ab, &r, &c))
            put(f, r, c, '+', CLI_PAINT_STATIC);
    }
}

void cli_render(cli_canvas *cv, int rows, const cli_scene *sc)
{
    double zoom = sc->zoom > 0 ? sc->zoom : 1.0;
    frame f = {cv, rows < cv->rows ? rows : cv->rows, CLI_CELL_W * zoom, CLI_CELL_H * zoom};
    if (f.rows <= 0)
        return;
    if (sc->dim == 3)
        render_above(&f, sc);
    else
        render_side(&f, sc);
    render_joints(&f, sc);
}
