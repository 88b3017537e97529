/* What mink-client sends (send.h). Everything goes through cli_send: straight to the socket,
 * or held back by the latency simulator first; nothing while a record is replayed. */
#include <stdio.h>

#include "clock.h"
#include "conn.h"
#include "lag.h"
#include "msgs.h"
#include "predict.h"
#include "send.h"

void cli_send(cli_app *app, const char *data, size_t len)
{
    if (app->replaying)
        return;
    if (app->lagged)
        cli_lag_push(&app->lag, &app->lag.out, data, len);
    else
        cli_conn_send(&app->conn, data, len);
}

static void send_buf(cli_app *app, proto_buf *b)
{
    if (!b->failed)
        cli_send(app, b->data, b->len);
    proto_buf_free(b);
}

void cli_send_hello(cli_app *app)
{
    proto_buf b;
    proto_buf_init(&b);
    /* 4 m up in 2D, 2 m in 3D: above the ground, dropped from a small height. */
    const double spawn2[3] = {0.0, 4.0, 0.0}, spawn3[3] = {0.0, 2.0, 0.0};
    cli_write_hello(&b, app->name, app->token, app->kinematic, app->dim, app->dim == 3 ? spawn3 : spawn2);
    app->hello_ms = cli_now_ms();
    send_buf(app, &b);
}

void cli_send_ping(cli_app *app)
{
    proto_buf b;
    proto_buf_init(&b);
    double now = cli_now_ms();
    if (app->first_ping_ms == 0)
        app->first_ping_ms = now;
    cli_write_ping(&b, now);
    send_buf(app, &b);
}

void cli_send_input(cli_app *app, bool jump)
{
    proto_buf b;
    proto_buf_init(&b);
    /* Up the screen is +y in 2D and -z in 3D; a 3D move has no vertical part (a character
     * jumps, a kinematic avatar flies level). */
    double move[3] = {app->move_x, app->move_y, 0};
    if (app->dim == 3) {
        move[1] = 0;
        move[2] = -app->move_y;
    }
    /* Stamped with the tick the prediction applies it from (none with --no-predict: the
     * server applies it on arrival, as the screen then shows). */
    uint64_t tick = cli_predict_input(&app->predict, ++app->seq, move, jump, cli_now_ms());
    cli_write_input(&b, app->seq, app->no_predict ? 0 : tick, app->dim, move, jump);
    app->stats.inputs++;
    send_buf(app, &b);
}

void cli_send_spawn(cli_app *app, const char *req, const char *body)
{
    char line[512];
    int n = snprintf(line, sizeof line, "{\"type\":\"spawn\",\"req\":\"%s\",\"body\":%s}\n", req,
                     body);
    if (n > 0 && (size_t)n < sizeof line)
        cli_send(app, line, (size_t)n);
}
