/* mink-client's picture of the world as characters: what the terminal shows, rendered into a
 * buffer of cells (a character and a colour class each) that ncurses then draws, so that the
 * picture can be checked without a terminal. No libuv and no ncurses here. */
#ifndef MINK_CLI_RENDER_H
#define MINK_CLI_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "world.h"

/* The colour class of a cell; the view maps each to an ncurses colour pair. */
typedef enum cli_paint {
    CLI_PAINT_EMPTY,
    CLI_PAINT_STATIC,
    CLI_PAINT_DYNAMIC,    /* a body of the server or of another player */
    CLI_PAINT_MINE,       /* a dynamic body this client spawned */
    CLI_PAINT_KINEMATIC,
    CLI_PAINT_PLAYER,     /* another player's character */
    CLI_PAINT_AVATAR,     /* this client's avatar: highlighted */
    CLI_PAINT_BAR,        /* the status and help lines */
    CLI_PAINT_COUNT
} cli_paint;

typedef struct cli_canvas {
    int cols, rows;
    char *ch;      /* cols * rows characters, row by row */
    uint8_t *paint; /* cols * rows cli_paint values */
} cli_canvas;

/* 0 or -1 when out of memory; the canvas is blank (spaces, CLI_PAINT_EMPTY). */
int cli_canvas_init(cli_canvas *cv, int cols, int rows);
void cli_canvas_free(cli_canvas *cv);
void cli_canvas_clear(cli_canvas *cv);
/* Writes text at (col, row), cut at the right edge; control bytes and non-ASCII become '?'. */
void cli_canvas_text(cli_canvas *cv, int col, int row, const char *text, cli_paint paint);
/* Row r as a string without its trailing spaces (out holds cols + 1 bytes). */
void cli_canvas_row(const cli_canvas *cv, int r, char *out);

/* At zoom 1 a column is 0.25 m and a row 0.5 m (a terminal cell is about twice as tall as
 * wide); zoom z shows z times as much. */
#define CLI_CELL_W 0.25
#define CLI_CELL_H 0.5
#define CLI_ZOOM_MIN 0.25
#define CLI_ZOOM_MAX 16.0

typedef struct cli_scene {
    int dim;
    const cli_body *bodies; /* where to draw them: interpolated or predicted positions */
    size_t count;
    bool has_avatar;
    uint64_t avatar;
    uint32_t client; /* this client's id: the owner of what it spawned */
    double centre[3]; /* m: the camera's centre (the avatar, usually) */
    double zoom;
    const cli_joint *joints; /* drawn between their bodies (when both are drawn) */
    size_t njoints;
} cli_scene;

/* Draws the bodies into rows [0, rows) of the canvas, and each joint as dots from each body's
 * centre to its anchor, the anchor a '+'. 2D: seen from the side, y up the
 * screen. 3D: seen from above (x right, z down the screen), each body's cells a digit, the
 * height of its top above the avatar's feet in whole metres. */
void cli_render(cli_canvas *cv, int rows, const cli_scene *sc);

#endif
