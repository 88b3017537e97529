/* The terminal view on ncurses. Each frame is rendered into a character buffer (render.c,
 * cli_frame_compose) and copied to the screen with a colour pair per cell class; ncurses sends
 * only what changed. The frame timer (main.c) calls cli_view_draw at about 30 frames a second,
 * whatever the rate of states. Keys are read with getch in no-delay mode when libuv says
 * fd 0 is readable and handed to the key handler the view was started with; a resize comes as
 * KEY_RESIZE. endwin restores the terminal on every way out (cli_quit). */
#include <curses.h>
#include <string.h>

#include "frame.h"
#include "keys.h"
#include "render.h"
#include "view.h"

#define MAX_COLS 1000
#define MAX_ROWS 500

/* Colour pairs by cli_paint: foreground on the terminal's own background. */
static void init_colours(void)
{
    if (!has_colors())
        return;
    start_color();
    use_default_colors();
    init_pair(CLI_PAINT_STATIC, COLOR_WHITE, -1);
    init_pair(CLI_PAINT_DYNAMIC, COLOR_YELLOW, -1);
    init_pair(CLI_PAINT_MINE, COLOR_CYAN, -1);
    init_pair(CLI_PAINT_KINEMATIC, COLOR_MAGENTA, -1);
    init_pair(CLI_PAINT_PLAYER, COLOR_GREEN, -1);
    init_pair(CLI_PAINT_AVATAR, COLOR_BLACK, COLOR_GREEN);
    init_pair(CLI_PAINT_BAR, COLOR_BLACK, COLOR_WHITE);
}

static attr_t attr_of(int paint)
{
    attr_t a = has_colors() && paint != CLI_PAINT_EMPTY ? COLOR_PAIR(paint) : A_NORMAL;
    if (paint == CLI_PAINT_AVATAR)
        a |= A_BOLD | (has_colors() ? 0 : A_REVERSE);
    if (paint == CLI_PAINT_BAR)
        a |= has_colors() ? 0 : A_REVERSE;
    if (paint == CLI_PAINT_STATIC)
        a |= A_DIM;
    return a;
}

static cli_key key_of(int ch)
{
    switch (ch) {
    case KEY_LEFT: return CLI_KEY_LEFT;
    case KEY_RIGHT: return CLI_KEY_RIGHT;
    case KEY_UP: return CLI_KEY_UP;
    case KEY_DOWN: return CLI_KEY_DOWN;
    default: break;
    }
    if (ch < 0 || ch > 255)
        return CLI_KEY_NONE;
    char c = (char)ch;
    cli_keys k = {0};
    cli_key out = CLI_KEY_NONE;
    cli_keys_decode(&k, &c, 1, &out, 1);
    return out;
}

static void read_keys(cli_app *app)
{
    int ch;
    while (app->tty_raw && !app->quitting && (ch = getch()) != ERR) {
        if (ch == KEY_RESIZE) {
            clear(); /* what the old size left outside the new lines goes */
            continue;
        }
        cli_key k = key_of(ch);
        if (k != CLI_KEY_NONE)
            app->on_key(app, k);
    }
}

static void on_key_poll(uv_poll_t *h, int status, int events)
{
    cli_app *app = h->data;
    (void)events;
    if (status < 0) {
        app->on_key(app, CLI_KEY_QUIT); /* the terminal went away */
        return;
    }
    read_keys(app);
}

int cli_view_start(cli_app *app, cli_app_key_cb on_key)
{
    app->on_key = on_key;
    if (!initscr())
        return UV_ENOTTY;
    app->tty_raw = true;
    cbreak();
    noecho();
    nonl();
    nodelay(stdscr, TRUE);
    keypad(stdscr, TRUE);
    curs_set(0);
    init_colours();
    int rc = uv_poll_init(app->loop, &app->key_poll, 0);
    if (rc != 0)
        return rc;
    app->key_poll_open = true;
    app->key_poll.data = app;
    return uv_poll_start(&app->key_poll, UV_READABLE, on_key_poll);
}

void cli_view_restore(cli_app *app)
{
    if (!app->tty_raw)
        return;
    app->tty_raw = false;
    endwin();
}

void cli_view_draw(cli_app *app, double now_ms)
{
    if (!app->tty_raw)
        return;
    read_keys(app); /* a resize is seen here even when no key comes */
    if (!app->tty_raw)
        return;
    int rows = LINES < 1 ? 1 : LINES > MAX_ROWS ? MAX_ROWS : LINES;
    int cols = COLS < 1 ? 1 : COLS > MAX_COLS ? MAX_COLS : COLS;
    if (cols != app->canvas.cols || rows != app->canvas.rows || !app->canvas.ch) {
        cli_canvas_free(&app->canvas);
        if (cli_canvas_init(&app->canvas, cols, rows) != 0)
            return;
    }
    cli_frame_compose(app, now_ms);
    cli_canvas *cv = &app->canvas;
    cli_canvas_clear(cv);
    int view_rows = rows - 2; /* the status bar and the help line */
    cli_scene sc = {
        .dim = app->world.dim,
        .bodies = app->drawn.at,
        .count = app->drawn.v.len,
        .has_avatar = app->has_avatar,
        .avatar = app->avatar,
        .client = app->client_id,
        .zoom = app->zoom,
        .joints = app->world.joints,
        .njoints = app->world.njoints,
    };
    for (size_t i = 0; i < app->drawn.v.len; i++)
        if (app->has_avatar && app->drawn.at[i].id == app->avatar)
            memcpy(sc.centre, app->drawn.at[i].pos, sizeof sc.centre);
    cli_render(cv, view_rows, &sc);
    char text[MAX_COLS + 1];
    cli_frame_status(app, text, sizeof text);
    if (rows >= 2) {
        for (int c = 0; c < cols; c++)
            cli_canvas_text(cv, c, rows - 2, " ", CLI_PAINT_BAR);
        cli_canvas_text(cv, 0, rows - 2, text, CLI_PAINT_BAR);
    }
    cli_canvas_text(cv, 0, rows - 1, cli_frame_help(app), CLI_PAINT_EMPTY);
    for (int r = 0; r < rows; r++) {
        move(r, 0);
        const char *line = cv->ch + (size_t)r * (size_t)cols;
        const uint8_t *paint = cv->paint + (size_t)r * (size_t)cols;
        /* The last cell of the last row is left: writing it would scroll some terminals. */
        int n = r == rows - 1 ? cols - 1 : cols;
        for (int c = 0; c < n; c++)
            addch((chtype)(unsigned char)line[c] | attr_of(paint[c]));
    }
    refresh();
}
