/* mink-client's command line (args.c). */
#ifndef MINK_CLI_ARGS_H
#define MINK_CLI_ARGS_H

#include "app.h"
#include "bots.h"

/* Fills app (host, port, mode...) and, for --bots, the load generator's options from the
 * command line; exits with 2 on a bad flag, 0 after --help. */
void cli_parse_args(cli_app *app, cli_bots_opts *bots, int argc, char **argv);

#endif
