/* What a frame shows, without a terminal (frame.c): the bodies where they are drawn, the
 * status bar and the help line. */
#ifndef MINK_CLI_FRAME_H
#define MINK_CLI_FRAME_H

#include <stddef.h>

#include "app.h"

#define CLI_FRAME_MS 33.0 /* ~30 frames a second */

/* Places every body where this frame draws it (app->drawn): interpolated, predicted or as
 * last received, and measures the feel figures. */
void cli_frame_compose(cli_app *app, double now_ms);
/* The status bar and the help line. */
void cli_frame_status(const cli_app *app, char *out, size_t size);
const char *cli_frame_help(const cli_app *app);

#endif
