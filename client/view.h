/* The terminal view on ncurses (view.c). */
#ifndef MINK_CLI_VIEW_H
#define MINK_CLI_VIEW_H

#include "app.h"

/* ncurses on the terminal; each key read goes to on_key (a terminal that goes away is the quit
 * key). 0 or a uv error. */
int cli_view_start(cli_app *app, cli_app_key_cb on_key);
void cli_view_restore(cli_app *app); /* safe to call more than once */
void cli_view_draw(cli_app *app, double now_ms); /* one frame, from cli_frame_compose */

#endif
