/* The terminal view: the world around the avatar drawn in characters, one frame per write.
 *
 * One column is 0.25 m and one row 0.5 m (a terminal cell is about twice as tall as wide), so a
 * 1 m box is 4 x 2 cells. The frame is redrawn in place (cursor home, each line cleared to its
 * end) on the alternate screen, which is left and the terminal's mode restored on every exit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CELL_W 0.25 /* m per column */
#define CELL_H 0.5  /* m per row */

static void on_tty_closed(uv_handle_t *h)
{
    (void)h;
}

static void write_all(cli_app *app, const char *data, size_t len)
{
    uv_buf_t buf = uv_buf_init((char *)data, (unsigned)len);
    /* Terminal output is small and the terminal is local: a frame that cannot be written at
     * once is dropped rather than queued, and the next one replaces it. */
    uv_try_write((uv_stream_t *)&app->tty_out, &buf, 1);
}

int cli_view_start(cli_app *app)
{
    int rc = uv_tty_init(app->loop, &app->tty_out, 1, 0);
    if (rc != 0)
        return rc;
    rc = uv_tty_set_mode(&app->tty_in, UV_TTY_MODE_RAW);
    if (rc != 0) {
        uv_close((uv_handle_t *)&app->tty_out, on_tty_closed);
        return rc;
    }
    app->tty_raw = true;
    /* Alternate screen, cursor hidden, screen cleared. */
    static const char enter[] = "\x1b[?1049h\x1b[?25l\x1b[2J";
    write_all(app, enter, sizeof enter - 1);
    return 0;
}

void cli_view_restore(cli_app *app)
{
    if (!app->tty_raw)
        return;
    app->tty_raw = false;
    static const char leave[] = "\x1b[0m\x1b[?25h\x1b[?1049l";
    write_all(app, leave, sizeof leave - 1);
    uv_tty_reset_mode();
}

static char body_char(const cli_app *app, const cli_body *b)
{
    if (app->has_avatar && b->id == app->avatar)
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
static int layer(const cli_app *app, const cli_body *b)
{
    if (app->has_avatar && b->id == app->avatar)
        return 4;
    switch (b->kind) {
    case PROTO_KIND_STATIC: return 0;
    case PROTO_KIND_DYNAMIC: return 1;
    case PROTO_KIND_KINEMATIC: return 2;
    case PROTO_KIND_CHARACTER: return 3;
    }
    return 1;
}

static void fill(char *grid, int cols, int rows, double left, double top, const cli_body *b,
                 char ch)
{
    /* Cells the body's bounds overlap; a body thinner than a cell still gets one. */
    const double eps = 1e-6;
    double x0 = b->pos[0] - b->half[0], x1 = b->pos[0] + b->half[0];
    double y0 = b->pos[1] - b->half[1], y1 = b->pos[1] + b->half[1];
    double c0 = floor((x0 - left) / CELL_W + eps), c1 = ceil((x1 - left) / CELL_W - eps) - 1;
    double r0 = floor((top - y1) / CELL_H + eps), r1 = ceil((top - y0) / CELL_H - eps) - 1;
    if (c1 < c0)
        c1 = c0;
    if (r1 < r0)
        r1 = r0;
    if (c1 < 0 || r1 < 0 || c0 >= cols || r0 >= rows)
        return;
    int ca = (int)fmax(c0, 0), cb = (int)fmin(c1, cols - 1);
    int ra = (int)fmax(r0, 0), rb = (int)fmin(r1, rows - 1);
    for (int r = ra; r <= rb; r++)
        memset(grid + (size_t)r * (size_t)cols + (size_t)ca, ch, (size_t)(cb - ca + 1));
}

void cli_view_draw(cli_app *app)
{
    int cols = 80, rows = 24;
    if (uv_tty_get_winsize(&app->tty_out, &cols, &rows) != 0 || cols < 20 || rows < 4) {
        cols = cols < 20 ? 20 : cols;
        rows = rows < 4 ? 4 : rows;
    }
    if (cols > 1000)
        cols = 1000;
    if (rows > 500)
        rows = 500;
    int view_rows = rows - 1; /* the last line is the status line */

    double cx = 0, cy = 0;
    const cli_body *me = app->has_avatar ? cli_world_find(&app->world, app->avatar) : NULL;
    if (me) {
        cx = me->pos[0];
        cy = me->pos[1];
    }
    /* The camera snaps to whole cells, so that an edge at a whole number of metres (the top of
     * the ground) falls between rows instead of sharing one with what stands on it. */
    double left = floor((cx - cols * CELL_W / 2) / CELL_W) * CELL_W;
    double top = ceil((cy + view_rows * CELL_H / 2) / CELL_H) * CELL_H;

    char *grid = malloc((size_t)cols * (size_t)view_rows);
    if (!grid)
        return;
    memset(grid, ' ', (size_t)cols * (size_t)view_rows);
    for (int l = 0; l <= 4; l++) {
        for (size_t i = 0; i < app->world.count; i++) {
            const cli_body *b = &app->world.bodies[i];
            if (b->has_shape && layer(app, b) == l)
                fill(grid, cols, view_rows, left, top, b, body_char(app, b));
        }
    }

    proto_buf *f = &app->frame;
    proto_buf_clear(f);
    proto_buf_append_str(f, "\x1b[H");
    for (int r = 0; r < view_rows; r++) {
        proto_buf_append(f, grid + (size_t)r * (size_t)cols, (size_t)cols);
        proto_buf_append_str(f, "\r\n");
    }
    free(grid);

    char ping[32] = "-";
    if (!isnan(app->stats.last_rtt))
        snprintf(ping, sizeof ping, "%.0f ms", app->stats.last_rtt);
    char status[512];
    int n = snprintf(status, sizeof status,
                     " tick %llu  ping %s  bodies %zu  ack %llu  pos (%.2f, %.2f)  %s%s"
                     "| arrows/WASD move, space jump, q quit",
                     (unsigned long long)app->world.tick, ping, app->world.count,
                     (unsigned long long)app->world.ack, me ? me->pos[0] : 0.0,
                     me ? me->pos[1] : 0.0, app->stats.last_error,
                     app->stats.last_error[0] ? "  " : "");
    if (n > cols)
        n = cols;
    proto_buf_append_str(f, "\x1b[7m");
    proto_buf_append(f, status, (size_t)(n > 0 ? n : 0));
    proto_buf_append_str(f, "\x1b[K\x1b[0m");
    if (!f->failed)
        write_all(app, f->data, f->len);
}
