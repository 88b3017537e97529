/* What mink-client sends to the server (send.c): every line goes through cli_send. */
#ifndef MINK_CLI_SEND_H
#define MINK_CLI_SEND_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"

/* Sends bytes to the server (through the latency simulator when it runs; nothing while a
 * record is replayed). */
void cli_send(cli_app *app, const char *data, size_t len);
/* The hello with this client's avatar, a ping, an input from the controls. */
void cli_send_hello(cli_app *app);
void cli_send_ping(cli_app *app);
void cli_send_input(cli_app *app, bool jump);
/* A spawn of `body` (a body spec's JSON) with `req`. */
void cli_send_spawn(cli_app *app, const char *req, const char *body);

#endif
