/* Bot mode (bot.c): the avatar plays by itself and the client prints what it saw. */
#ifndef MINK_CLI_BOT_H
#define MINK_CLI_BOT_H

#include <stdio.h>

#include "app.h"

struct cJSON;

void cli_bot_controls(cli_app *app, double now_ms);
void cli_bot_summary(const cli_app *app, FILE *out);
void cli_bot_start(cli_app *app);                            /* the probe of --bot */
void cli_bot_spawned(cli_app *app, const struct cJSON *msg); /* a `spawned` answer */

#endif
