/* The end of a mink-client run (quit.c). */
#ifndef MINK_CLI_QUIT_H
#define MINK_CLI_QUIT_H

#include "app.h"

/* Ends the run with this exit code: restores the terminal, says bye to the server when
 * joined, closes every handle. Later calls do nothing. */
void cli_quit(cli_app *app, int code);

#endif
