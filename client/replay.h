/* --record FILE and --replay FILE (replay.c). */
#ifndef MINK_CLI_REPLAY_H
#define MINK_CLI_REPLAY_H

#include <stddef.h>

#include "app.h"

/* Keeps a line received, with its arrival time, in the record. */
void cli_record_line(cli_app *app, const char *line, size_t len);
/* Plays app->replay_path: each line goes to on_line at its time. 0 or -1 (said on stderr). */
int cli_replay_start(cli_app *app, cli_app_line_cb on_line);
void cli_replay_key(cli_app *app, cli_key key); /* pause, faster, slower, one line on */
void cli_replay_free(cli_app *app);

#endif
