/* The end of a mink-client run (quit.h): the terminal restored, what is held back dropped, the
 * record closed, bye said to a server that welcomed us, every handle closed so that the loop
 * ends. */
#include <stdio.h>

#include "conn.h"
#include "lag.h"
#include "quit.h"
#include "view.h"

static void close_handle(uv_handle_t *h, void *arg)
{
    cli_app *app = arg;
    if (!uv_is_closing(h) && !cli_conn_owns(&app->conn, h))
        uv_close(h, NULL);
}

void cli_quit(cli_app *app, int code)
{
    if (app->quitting)
        return;
    app->quitting = true;
    app->exit_code = code;
    cli_view_restore(app);
    /* A joined client says bye and closes gracefully; before the welcome there is no one to
     * say it to (the server would answer not_joined). */
    if (app->lagged) {
        cli_lag_dir_drop(&app->lag.out);
        cli_lag_dir_drop(&app->lag.in);
    }
    if (app->record) {
        fclose(app->record);
        app->record = NULL;
    }
    if (app->welcomed && app->conn.connected) {
        static const char bye[] = "{\"type\":\"bye\"}\n";
        cli_conn_send(&app->conn, bye, sizeof bye - 1);
    }
    cli_conn_close(&app->conn, app->welcomed);
    uv_walk(app->loop, close_handle, app);
}
