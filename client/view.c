/* The terminal view: the world around the avatar drawn in characters, one frame per write.
 *
 * One column is 0.25 m and one row 0.5 m (a terminal cell is about twice as tall as wide), so a
 * 1 m box is 4 x 2 cells. A 2D world is seen from the side: y goes up the screen. A 3D world is
 * seen from above (looking down from +y): x goes right and z down the screen, which keeps the
 * picture right-handed; each body fills its footprint with a digit, the height of its top above
 * the avatar's feet, so that a box on the floor (1) and one stacked on it (2) differ. The frame
 * is redrawn in place (cursor home, each line overwritten and cleared to its end) on the
 * alternate screen; the alternate screen is left and the terminal's mode restored on every way
 * out (cli_quit). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CELL_W 0.25  /* m per column */
#define CELL_H 0.5   /* m per row */
#define FRAME_MS 33.0 /* at most ~30 frames a second */
#define MAX_COLS 1000
#define MAX_ROWS 500

static const char key_help[] = "arrows/WASD move, space jump, q quit";
static const char legend3[] = " seen from above: x right, z down | 0-9: top, m above your feet, "
                              "- below | . ground | @ you | P players";

/* Writes everything. The output terminal is in blocking mode (cli_view_start), so a frame
 * never goes out half-written, and nothing is left queued when the terminal is restored. */
static void write_all(cli_app *app, const char *data, size_t len)
{
    while (len > 0) {
        uv_buf_t buf = uv_buf_init((char *)data, (unsigned)len);
        int n = uv_try_write((uv_stream_t *)&app->tty_out, &buf, 1);
        if (n <= 0)
            return; /* the terminal is gone or full: this frame is lost, the next replaces it */
        data += n;
        len -= (size_t)n;
    }
}

static void read_size(cli_app *app)
{
    int cols, rows;
    if (uv_tty_get_winsize(&app->tty_out, &cols, &rows) != 0) {
        cols = 80;
        rows = 24;
    }
    app->cols = cols < 1 ? 1 : cols > MAX_COLS ? MAX_COLS : cols;
    app->rows = rows < 1 ? 1 : rows > MAX_ROWS ? MAX_ROWS : rows;
}

int cli_view_start(cli_app *app)
{
    int rc = uv_tty_init(app->loop, &app->tty_out, 1, 0);
    if (rc != 0)
        return rc;
    app->tty_out.data = app;
    /* libuv reopens a terminal so that its non-blocking mode is ours alone; on such a private
     * descriptor, blocking writes are safe. On the shared one (fd 1 itself) stdin's mode would
     * change too, and libuv writes that descriptor blocking already. */
    uv_os_fd_t fd;
    if (uv_fileno((uv_handle_t *)&app->tty_out, &fd) == 0 && fd != 1)
        uv_stream_set_blocking((uv_stream_t *)&app->tty_out, 1);
    read_size(app);
    rc = uv_tty_set_mode(&app->tty_in, UV_TTY_MODE_RAW);
    if (rc != 0)
        return rc;
    app->tty_raw = true;
    app->clear_screen = true;
    static const char enter[] = "\x1b[?1049h\x1b[?25l"; /* alternate screen, cursor hidden */
    write_all(app, enter, sizeof enter - 1);
    return 0;
}

void cli_view_restore(cli_app *app)
{
    if (!app->tty_raw)
        return;
    app->tty_raw = false;
    static const char leave[] = "\x1b[0m\x1b[?25h\x1b[?1049l"; /* cursor shown, main screen */
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

/* Whether the shape covers some of a cell: its centre, or a point a third of a row above or
 * below it (so that a thin tilted plank leaves no gaps). */
static bool covers_cell(const cli_body *b, double x, double y)
{
    return cli_body_contains(b, x, y) || cli_body_contains(b, x, y + CELL_H / 3) ||
           cli_body_contains(b, x, y - CELL_H / 3);
}

/* Fills the cells a body covers, so that a ramp shows its slope and a ball its roundness. An
 * aabb fills its bounds; a body smaller than the cells' sample points still gets its bounds'
 * cells, so that nothing on screen is invisible. */
static void fill(char *grid, int cols, int rows, double left, double top, const cli_body *b,
                 char ch)
{
    const double eps = 1e-6; /* an edge on a cell border does not spill into the next cell */
    double lo[2], hi[2];
    cli_body_bounds(b, lo, hi);
    double c0 = floor((lo[0] - left) / CELL_W + eps), c1 = ceil((hi[0] - left) / CELL_W - eps) - 1;
    double r0 = floor((top - hi[1]) / CELL_H + eps), r1 = ceil((top - lo[1]) / CELL_H - eps) - 1;
    if (c1 < c0)
        c1 = c0;
    if (r1 < r0)
        r1 = r0;
    if (!(c1 >= 0 && r1 >= 0 && c0 < cols && r0 < rows))
        return;
    int ca = (int)fmax(c0, 0), cb = (int)fmin(c1, cols - 1);
    int ra = (int)fmax(r0, 0), rb = (int)fmin(r1, rows - 1);
    bool tiny = c1 - c0 < 2 && r1 - r0 < 2;
    if (!tiny && (b->shape != CLI_SHAPE_BOX || (b->turns && b->rot != 0))) {
        for (int r = ra; r <= rb; r++)
            for (int c = ca; c <= cb; c++)
                if (covers_cell(b, left + (c + 0.5) * CELL_W, top - (r + 0.5) * CELL_H))
                    grid[(size_t)r * (size_t)cols + (size_t)c] = ch;
        return;
    }
    for (int r = ra; r <= rb; r++)
        memset(grid + (size_t)r * (size_t)cols + (size_t)ca, ch, (size_t)(cb - ca + 1));
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
static char top_char(const cli_app *app, const cli_body *b, double top, double feet)
{
    if (app->has_avatar && b->id == app->avatar)
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
static bool covers_ground_cell(const cli_footprint *f, double x, double z)
{
    return cli_footprint_contains(f, x, z) || cli_footprint_contains(f, x, z + CELL_H / 3) ||
           cli_footprint_contains(f, x, z - CELL_H / 3) ||
           cli_footprint_contains(f, x + CELL_W / 3, z) ||
           cli_footprint_contains(f, x - CELL_W / 3, z);
}

/* Fills a footprint's cells; near is the z of the first row's upper edge. As in 2D, a body
 * smaller than the sample points still gets its bounds' cells. */
static void fill_footprint(char *grid, int cols, int rows, double left, double near,
                           const cli_footprint *f, char ch)
{
    const double eps = 1e-6; /* an edge on a cell border does not spill into the next cell */
    double c0 = floor((f->lo[0] - left) / CELL_W + eps);
    double c1 = ceil((f->hi[0] - left) / CELL_W - eps) - 1;
    double r0 = floor((f->lo[1] - near) / CELL_H + eps);
    double r1 = ceil((f->hi[1] - near) / CELL_H - eps) - 1;
    if (c1 < c0)
        c1 = c0;
    if (r1 < r0)
        r1 = r0;
    if (!(c1 >= 0 && r1 >= 0 && c0 < cols && r0 < rows))
        return;
    int ca = (int)fmax(c0, 0), cb = (int)fmin(c1, cols - 1);
    int ra = (int)fmax(r0, 0), rb = (int)fmin(r1, rows - 1);
    bool tiny = (c1 - c0 < 2 && r1 - r0 < 2) || f->n < 3;
    for (int r = ra; r <= rb; r++)
        for (int c = ca; c <= cb; c++)
            if (tiny ||
                covers_ground_cell(f, left + (c + 0.5) * CELL_W, near + (r + 0.5) * CELL_H))
                grid[(size_t)r * (size_t)cols + (size_t)c] = ch;
}

static void fill_from_above(cli_app *app, const cli_body *me, char *grid, int cols, int rows)
{
    cli_footprint *f = malloc(sizeof *f); /* 4 kB: not on the stack of a libuv callback */
    drawn *order = malloc((app->world.count ? app->world.count : 1) * sizeof *order);
    if (!f || !order) {
        free(f);
        free(order);
        return;
    }
    double cx = 0, cz = 0, feet = 0;
    if (me) {
        cx = me->pos[0];
        cz = me->pos[2];
        feet = me->pos[1];
        if (me->has_shape) {
            cli_body_footprint(me, f);
            feet = f->bottom;
        }
    }
    /* The camera snaps to whole cells, as in 2D. */
    double left = floor((cx - cols * CELL_W / 2) / CELL_W) * CELL_W;
    double near = floor((cz - rows * CELL_H / 2) / CELL_H) * CELL_H;
    size_t n = 0;
    for (size_t i = 0; i < app->world.count; i++) {
        const cli_body *b = &app->world.bodies[i];
        if (!b->has_shape)
            continue;
        cli_body_footprint(b, f);
        /* The avatar is drawn last, over whatever it stands in front of. */
        order[n++] = (drawn){b, b == me ? INFINITY : f->top};
    }
    qsort(order, n, sizeof *order, by_top);
    for (size_t i = 0; i < n; i++) {
        cli_body_footprint(order[i].b, f);
        fill_footprint(grid, cols, rows, left, near, f, top_char(app, order[i].b, f->top, feet));
    }
    free(order);
    free(f);
}

/* A line of text padded to the full width in reverse video. Text from the server (the last
 * error) is cut to printable ASCII, so that it can neither steer the terminal nor misalign
 * the line. */
static void reverse_line(cli_app *app, char *text, size_t size, int n, proto_buf *f)
{
    /* n is what snprintf wanted to write into text's size bytes */
    size_t len = n < 0 ? 0 : (size_t)n >= size ? size - 1 : (size_t)n;
    for (size_t i = 0; i < len; i++)
        if (text[i] < 0x20 || text[i] > 0x7e)
            text[i] = '?';
    if (len > (size_t)app->cols)
        len = (size_t)app->cols;
    proto_buf_append_str(f, "\x1b[7m"); /* reverse video, padded to the full width */
    proto_buf_append(f, text, len);
    for (size_t i = len; i < (size_t)app->cols; i++)
        proto_buf_append_char(f, ' ');
    proto_buf_append_str(f, "\x1b[0m");
}

/* The status line: what the player needs at a glance. */
static void status_line(cli_app *app, const cli_body *me, proto_buf *f)
{
    bool three = app->world.dim == 3;
    char ping[32] = "- ms";
    if (!isnan(app->stats.last_rtt))
        snprintf(ping, sizeof ping, "%.0f ms", app->stats.last_rtt);
    char pos[96] = "(-, -)";
    if (three)
        snprintf(pos, sizeof pos, "(-, -, -)");
    if (me && three)
        snprintf(pos, sizeof pos, "(%.2f, %.2f, %.2f)", me->pos[0], me->pos[1], me->pos[2]);
    else if (me)
        snprintf(pos, sizeof pos, "(%.2f, %.2f)", me->pos[0], me->pos[1]);
    char text[MAX_COLS + 1];
    int n = snprintf(text, sizeof text,
                     "%s tick %llu | ping %s | bodies %zu | ack %llu | pos %s | %s%s%s",
                     three ? " dim 3 |" : "", (unsigned long long)app->world.tick, ping,
                     app->world.count, (unsigned long long)app->world.ack, pos, key_help,
                     app->stats.last_error[0] ? " | error " : "", app->stats.last_error);
    reverse_line(app, text, sizeof text, n, f);
}

/* A 2D world, from the side. */
static void fill_from_side(cli_app *app, const cli_body *me, char *grid, int cols,
                           int view_rows)
{
    double cx = 0, cy = 0;
    if (me) {
        cx = me->pos[0];
        cy = me->pos[1];
    }
    /* The camera snaps to whole cells, so that an edge at a whole number of metres (the top of
     * the ground) falls between rows instead of sharing one with what stands on it. */
    double left = floor((cx - cols * CELL_W / 2) / CELL_W) * CELL_W;
    double top = ceil((cy + view_rows * CELL_H / 2) / CELL_H) * CELL_H;
    for (int l = 0; l <= 4; l++) {
        for (size_t i = 0; i < app->world.count; i++) {
            const cli_body *b = &app->world.bodies[i];
            if (b->has_shape && layer(app, b) == l)
                fill(grid, cols, view_rows, left, top, b, body_char(app, b));
        }
    }
}

static void draw(cli_app *app)
{
    bool three = app->world.dim == 3;
    /* The last line is the status line; in 3D the legend is above it. */
    int cols = app->cols, view_rows = app->rows - (three ? 2 : 1);
    const cli_body *me = app->has_avatar ? cli_world_find(&app->world, app->avatar) : NULL;
    char *grid = malloc((size_t)cols * (size_t)(view_rows > 0 ? view_rows : 1));
    if (!grid)
        return;
    memset(grid, ' ', (size_t)cols * (size_t)(view_rows > 0 ? view_rows : 1));
    if (three)
        fill_from_above(app, me, grid, cols, view_rows);
    else
        fill_from_side(app, me, grid, cols, view_rows);

    proto_buf *f = &app->frame;
    proto_buf_clear(f);
    proto_buf_append_str(f, app->clear_screen ? "\x1b[H\x1b[2J" : "\x1b[H");
    app->clear_screen = false;
    for (int r = 0; r < view_rows; r++) {
        const char *line = grid + (size_t)r * (size_t)cols;
        size_t len = (size_t)cols;
        while (len > 0 && line[len - 1] == ' ')
            len--;
        proto_buf_append(f, line, len);
        /* A full line leaves the cursor on its last cell, which clearing would erase. */
        if (len < (size_t)cols)
            proto_buf_append_str(f, "\x1b[K");
        proto_buf_append_str(f, "\r\n");
    }
    free(grid);
    if (three && app->rows >= 2) {
        char text[sizeof legend3];
        memcpy(text, legend3, sizeof legend3);
        reverse_line(app, text, sizeof text, (int)sizeof legend3 - 1, f);
        proto_buf_append_str(f, "\r\n");
    }
    status_line(app, me, f);
    if (!f->failed)
        write_all(app, f->data, f->len);
}

static void on_draw_timer(uv_timer_t *t)
{
    cli_app *app = t->data;
    app->draw_pending = false;
    app->last_draw_ms = cli_now_ms();
    if (app->tty_raw)
        draw(app);
}

void cli_view_request_draw(cli_app *app)
{
    if (!app->tty_raw || app->draw_pending || app->quitting)
        return;
    double wait = app->last_draw_ms + FRAME_MS - cli_now_ms();
    app->draw_pending = true;
    uv_timer_start(&app->draw_timer, on_draw_timer, wait > 0 ? (uint64_t)wait : 0, 0);
}

void cli_view_resized(cli_app *app)
{
    if (!app->tty_raw)
        return;
    read_size(app);
    app->clear_screen = true; /* what the old size left outside the new lines goes */
    cli_view_request_draw(app);
}
