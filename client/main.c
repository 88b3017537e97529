/* mink-client: connects to a Mink server, joins with an avatar, sends inputs at 30 Hz and shows
 * the world in the terminal; without a terminal (or with --bot) it plays by itself and prints a
 * summary; with --ping it checks that a server answers (the Docker health check). This file
 * wires the parts: the server's messages, the timers, the keys and the signals. */
#include <assert.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "args.h"
#include "bot.h"
#include "bots.h"
#include "clock.h"
#include "conn.h"
#include "drop.h"
#include "frame.h"
#include "interp.h"
#include "keys.h"
#include "lag.h"
#include "predict.h"
#include "quit.h"
#include "render.h"
#include "replay.h"
#include "send.h"
#include "view.h"
#include "world.h"

#define INPUT_MS 33          /* ~30 inputs a second */
#define PING_MS 1000         /* one ping a second */
#define HOLD_MS 500.0        /* a direction counts as held this long after its last key repeat */
#define JUMP_MS 100.0        /* a jump is asked for in the inputs of this long, so none is lost */
#define WELCOME_TIMEOUT_MS 5000 /* connect and be welcomed within this */
#define PONG_TIMEOUT_MS 3000    /* --ping: connect and get the pong within this */

/* ---- ending ---- */

static void finish_bot(cli_app *app, int code)
{
    cli_bot_summary(app, stdout);
    fflush(stdout);
    cli_quit(app, code);
}

/* ---- timers ---- */

static void on_input_timer(uv_timer_t *t)
{
    cli_app *app = t->data;
    double now = cli_now_ms();
    if (app->mode == CLI_MODE_BOT) {
        cli_bot_controls(app, now);
    } else {
        if (now > app->held_x_until)
            app->move_x = 0;
        if (now > app->held_y_until)
            app->move_y = 0;
    }
    if (app->has_avatar)
        cli_send_input(app, now < app->jump_until);
}

/* The last second's traffic, for the status bar. */
static void roll_window(cli_app *app, double now)
{
    cli_stats *s = &app->stats;
    double span = now - s->window_start_ms;
    if (span < 1000.0)
        return;
    s->kb_per_s = (double)s->window_bytes / span; /* bytes per ms = kB/s */
    s->states_per_s = (double)s->window_states * 1000.0 / span;
    s->window_bytes = s->window_states = 0;
    s->window_start_ms = now;
}

static void on_frame_timer(uv_timer_t *t)
{
    cli_app *app = t->data;
    double now = cli_now_ms();
    roll_window(app, now);
    if (app->mode == CLI_MODE_INTERACTIVE)
        cli_view_draw(app, now);
    else
        cli_frame_compose(app, now);
}

static void on_ping_timer(uv_timer_t *t)
{
    cli_send_ping(t->data);
}

static void on_deadline(uv_timer_t *t)
{
    cli_app *app = t->data;
    if (app->mode == CLI_MODE_PING) {
        fprintf(stderr, "mink-client: no pong from %s:%d within %d ms\n", app->host, app->port,
                PONG_TIMEOUT_MS);
        cli_quit(app, 1);
    } else if (!app->welcomed) {
        fprintf(stderr, "mink-client: no welcome from %s:%d within %d ms\n", app->host,
                app->port, WELCOME_TIMEOUT_MS);
        cli_quit(app, 1);
    } else {
        finish_bot(app, 0); /* the bot's time is up */
    }
}

/* ---- messages from the server ---- */

static void on_key(cli_app *app, cli_key key);

static void on_welcome(cli_app *app, const cJSON *msg)
{
    if (app->welcomed)
        return;
    const cJSON *protocol = cJSON_GetObjectItemCaseSensitive(msg, "protocol");
    if (cJSON_IsNumber(protocol) && protocol->valuedouble != PROTO_VERSION) {
        fprintf(stderr, "mink-client: the server speaks protocol %g, this client %d\n",
                protocol->valuedouble, PROTO_VERSION);
        cli_quit(app, 1);
        return;
    }
    const cJSON *dim = cJSON_GetObjectItemCaseSensitive(msg, "dim");
    if (app->replaying && cJSON_IsNumber(dim) && (dim->valuedouble == 2 || dim->valuedouble == 3))
        app->dim = (int)dim->valuedouble; /* a record shows the world it was made in */
    if (!cJSON_IsNumber(dim) || dim->valuedouble != app->dim) {
        /* A server that took our avatar has our dim; one that says otherwise cannot be drawn
         * or steered with what this client assumed. */
        if (cJSON_IsNumber(dim) && (dim->valuedouble == 2 || dim->valuedouble == 3))
            fprintf(stderr, "mink-client: the server's world is %gD, this client joined as %dD; "
                            "run with --dim %g\n",
                    dim->valuedouble, app->dim, dim->valuedouble);
        else if (cJSON_IsNumber(dim))
            fprintf(stderr, "mink-client: the server's world has dim %g; this client shows 2D "
                            "and 3D worlds\n",
                    dim->valuedouble);
        else
            fprintf(stderr, "mink-client: the server's welcome has no dim\n");
        cli_quit(app, 1);
        return;
    }
    app->world.dim = app->dim;
    const cJSON *hz = cJSON_GetObjectItemCaseSensitive(msg, "tick_hz");
    app->tick_hz = cJSON_IsNumber(hz) && hz->valuedouble >= 1 && hz->valuedouble <= 10000
                       ? hz->valuedouble
                       : 60.0;
    app->world.tick_hz = (uint32_t)app->tick_hz;
    cli_interp_free(&app->interp);
    cli_interp_init(&app->interp, app->tick_hz);
    double gravity[3] = {0, -10, 0};
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(msg, "gravity");
    for (int i = 0; i < app->dim && cJSON_IsArray(g); i++) {
        const cJSON *c = cJSON_GetArrayItem(g, i);
        if (cJSON_IsNumber(c) && isfinite(c->valuedouble) && fabs(c->valuedouble) <= 1e4)
            gravity[i] = c->valuedouble;
    }
    cli_predict_init(&app->predict, app->dim, app->tick_hz, gravity, app->kinematic);
    if (app->hello_ms > 0) /* the server answers a hello at once: the round trip, before pongs */
        cli_predict_rtt(&app->predict, cli_now_ms() - app->hello_ms);
    uint64_t client = 0, avatar = 0;
    cli_json_uint(cJSON_GetObjectItemCaseSensitive(msg, "client"), &client);
    app->welcomed = true;
    app->client_id = (uint32_t)client;
    app->has_avatar = cli_json_uint(cJSON_GetObjectItemCaseSensitive(msg, "avatar"), &avatar);
    app->avatar = avatar;
    app->started_ms = cli_now_ms();
    uv_timer_stop(&app->deadline_timer);
    if (app->mode == CLI_MODE_BOT)
        uv_timer_start(&app->deadline_timer, on_deadline, (uint64_t)(app->bot_seconds * 1000), 0);
    /* The world's events, for the status bar and the bot's summary. */
    static const char events[] = "{\"type\":\"subscribe\",\"events\":true}\n";
    cli_send(app, events, sizeof events - 1);
    if (app->compact_states) {
        static const char compact[] = "{\"type\":\"subscribe\",\"compact\":true}\n";
        cli_send(app, compact, sizeof compact - 1);
    } else if (!app->full_states) {
        static const char delta[] = "{\"type\":\"subscribe\",\"delta\":true}\n";
        cli_send(app, delta, sizeof delta - 1);
    }
    cli_bot_start(app);
    if (!app->replaying) {
        uv_timer_start(&app->input_timer, on_input_timer, 0, INPUT_MS);
        uv_timer_start(&app->ping_timer, on_ping_timer, 0, PING_MS);
    }
    uv_timer_start(&app->frame_timer, on_frame_timer, 0, (uint64_t)CLI_FRAME_MS);
    if (app->mode == CLI_MODE_INTERACTIVE) {
        int rc = cli_view_start(app, on_key);
        if (rc != 0) {
            cli_quit(app, 1);
            fprintf(stderr, "mink-client: cannot use the terminal: %s\n", uv_strerror(rc));
        }
    }
}

/* A state's events: counted, the last one kept as "type a b" (a sensor's: sensor and body). */
static void take_events(cli_stats *s, const cJSON *msg)
{
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(msg, "events"), *e;
    const cJSON *dropped = cJSON_GetObjectItemCaseSensitive(msg, "dropped");
    if (cJSON_IsNumber(dropped) && dropped->valuedouble > 0)
        s->events_dropped += (uint64_t)dropped->valuedouble;
    cJSON_ArrayForEach(e, events)
    {
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(e, "type");
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(e, "a");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(e, "b");
        if (!a)
            a = cJSON_GetObjectItemCaseSensitive(e, "sensor");
        if (!b)
            b = cJSON_GetObjectItemCaseSensitive(e, "body");
        s->events++;
        snprintf(s->last_event, sizeof s->last_event, "%.16s %.0f %.0f",
                 cJSON_IsString(type) ? type->valuestring : "?",
                 cJSON_IsNumber(a) ? a->valuedouble : 0, cJSON_IsNumber(b) ? b->valuedouble : 0);
    }
}

static void on_state(cli_app *app, const cJSON *msg)
{
    cli_stats *s = &app->stats;
    take_events(s, msg);
    if (!cli_world_apply(&app->world, msg)) {
        s->errors++;
        snprintf(s->last_error, sizeof s->last_error, "client: a malformed state");
    }
    if (s->states++ == 0)
        s->first_tick = app->world.tick;
    s->last_tick = app->world.tick;
    s->window_states++;
    if (app->has_avatar) {
        double err = cli_predict_state(&app->predict, &app->world, app->avatar, cli_now_ms());
        s->pred_error = err;
        if (!app->no_predict && err >= CLI_PRED_COUNTED) { /* only what the screen shows */
            s->corrections++;
            s->largest_correction = fmax(s->largest_correction, err);
        }
    }
    if (cli_interp_push(&app->interp, &app->world, cli_now_ms()) != 0) {
        s->errors++;
        snprintf(s->last_error, sizeof s->last_error, "client: out of memory");
    }
    const cli_body *me = app->has_avatar ? cli_world_find(&app->world, app->avatar) : NULL;
    if (me) {
        if (!s->seen_avatar) {
            s->seen_avatar = true;
            memcpy(s->start_pos, me->pos, sizeof s->start_pos);
        } else {
            double d[3];
            for (int i = 0; i < 3; i++)
                d[i] = me->pos[i] - s->last_pos[i];
            s->distance += sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        }
        memcpy(s->last_pos, me->pos, sizeof s->last_pos);
    }
}

static void on_pong(cli_app *app, const cJSON *msg)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(msg, "t");
    double now = cli_now_ms();
    /* t went out rounded to 1 us: 1 ms of slack either side. */
    if (!cJSON_IsNumber(t) || app->first_ping_ms == 0 ||
        !(t->valuedouble >= app->first_ping_ms - 1 && t->valuedouble <= now + 1))
        return; /* not the echo of one of our pings */
    double rtt = fmax(now - t->valuedouble, 0.0);
    cli_stats *s = &app->stats;
    s->last_rtt = rtt;
    cli_predict_rtt(&app->predict, rtt);
    if (s->nrtts < CLI_MAX_RTTS)
        s->rtts[s->nrtts++] = rtt;
    if (app->mode == CLI_MODE_PING) {
        uint64_t tick = 0;
        cli_json_uint(cJSON_GetObjectItemCaseSensitive(msg, "tick"), &tick);
        printf("pong from %s:%d in %.1f ms (tick %llu)\n", app->host, app->port, rtt,
               (unsigned long long)tick);
        fflush(stdout);
        cli_quit(app, 0);
    }
}

static void on_error_msg(cli_app *app, const cJSON *msg)
{
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(msg, "code");
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(msg, "message");
    cli_stats *s = &app->stats;
    s->errors++;
    snprintf(s->last_error, sizeof s->last_error, "%s: %s",
             cJSON_IsString(code) ? code->valuestring : "?",
             cJSON_IsString(text) ? text->valuestring : "");
    /* The server's words go to a terminal: no control characters that could steer it. */
    for (char *p = s->last_error; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    if (!app->welcomed) {
        /* Before the welcome, an error answers the hello (or the ping): nothing will follow. */
        cli_view_restore(app);
        /* The usual cause of a refused hello: an avatar of the wrong dim (--dim). */
        const char *hint = "";
        if (cJSON_IsString(code) && strcmp(code->valuestring, "bad_request") == 0)
            hint = app->dim == 3 ? " (this client joined as 3D; a 2D world needs --dim 2)"
                                 : " (this client joined as 2D; a 3D world needs --dim 3)";
        fprintf(stderr, "mink-client: %s:%d refused: %s%s\n", app->host, app->port,
                s->last_error, hint);
        cli_quit(app, 1);
        return;
    }
    if (app->mode != CLI_MODE_INTERACTIVE)
        fprintf(stderr, "mink-client: server error %s\n", s->last_error);
}

/* A game's message (its rules' `event {name, data}`): a score line when its data has `score`
 * (an object of sides and their numbers) or `points`. */
static void on_game_event(cli_app *app, const cJSON *msg)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(msg, "name");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(msg, "data");
    const cJSON *score = cJSON_GetObjectItemCaseSensitive(data, "score");
    const cJSON *points = cJSON_GetObjectItemCaseSensitive(data, "points");
    char *out = app->stats.score;
    size_t cap = sizeof app->stats.score, n = 0;
    cli_game_note(&app->game, data);
    if (!cJSON_IsString(name) || (!cJSON_IsObject(score) && !cJSON_IsNumber(points)))
        return;
    n += (size_t)snprintf(out, cap, "%.24s:", name->valuestring);
    const cJSON *side;
    if (cJSON_IsObject(score)) {
        cJSON_ArrayForEach(side, score)
        {
            if (cJSON_IsNumber(side) && n < cap)
                n += (size_t)snprintf(out + n, cap - n, " %.16s %g", side->string,
                                      side->valuedouble);
        }
    } else if (n < cap) {
        snprintf(out + n, cap - n, " points %g", points->valuedouble);
    }
}

/* One line from the server (or from a record being replayed). */
static void handle_line(cli_app *app, const char *line, size_t len)
{
    app->stats.bytes_in += len + 1;
    app->stats.window_bytes += len + 1;
    cJSON *msg = proto_utf8_valid(line, len) ? cJSON_ParseWithLength(line, len) : NULL;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(msg, "type");
    if (!cJSON_IsObject(msg) || !cJSON_IsString(type)) {
        app->stats.errors++;
        snprintf(app->stats.last_error, sizeof app->stats.last_error,
                 "client: a line from the server is not a message");
    } else if (strcmp(type->valuestring, "state") == 0) {
        on_state(app, msg);
    } else if (strcmp(type->valuestring, "welcome") == 0) {
        on_welcome(app, msg);
    } else if (strcmp(type->valuestring, "pong") == 0) {
        on_pong(app, msg);
    } else if (strcmp(type->valuestring, "error") == 0) {
        on_error_msg(app, msg);
    } else if (strcmp(type->valuestring, "spawned") == 0) {
        cli_bot_spawned(app, msg);
    } else if (strcmp(type->valuestring, "event") == 0) {
        on_game_event(app, msg);
    }
    /* spawned, despawned, result: this client asks for none of them; types added to the
     * protocol later are ignored too. */
    cJSON_Delete(msg);
}

static void deliver_in(void *ud, const char *line, size_t len)
{
    cli_app *app = ud;
    if (!app->quitting)
        handle_line(app, line, len);
}

static void on_line(cli_conn *c, const char *line, size_t len)
{
    cli_app *app = c->ud;
    if (app->record)
        cli_record_line(app, line, len);
    if (app->lagged)
        cli_lag_push(&app->lag, &app->lag.in, line, len);
    else
        handle_line(app, line, len);
}

static void on_closed(cli_conn *c, const char *why)
{
    cli_app *app = c->ud;
    if (app->quitting)
        return;
    cli_view_restore(app);
    if (app->mode == CLI_MODE_BOT && app->stats.states > 0) {
        cli_bot_summary(app, stdout);
        fflush(stdout);
    }
    fprintf(stderr, "mink-client: %s:%d: %s%s%s\n", app->host, app->port, why,
            app->stats.last_error[0] ? "; last error " : "", app->stats.last_error);
    cli_quit(app, 1);
}

static void on_connect(cli_conn *c, int status)
{
    cli_app *app = c->ud;
    if (status != 0) {
        cli_view_restore(app);
        fprintf(stderr, "mink-client: cannot connect to %s:%d: %s\n", app->host, app->port,
                uv_strerror(status));
        cli_quit(app, 1);
    } else if (app->mode == CLI_MODE_PING) {
        cli_send_ping(app);
    } else {
        cli_send_hello(app);
    }
}

/* ---- keyboard and signals ---- */

/* The e key: the game's action (game.c) as the picture shows the world now. */
static void act(cli_app *app, double now)
{
    if (app->replaying || !app->has_avatar)
        return;
    char line[512];
    double facing[3] = {app->facing_x, 0, app->facing_z};
    size_t n = cli_game_action(&app->game, &app->interp, cli_interp_render_tick(&app->interp, now),
                               app->dim, app->avatar, facing, line, sizeof line);
    if (n > 0)
        cli_send(app, line, n);
    else
        snprintf(app->stats.last_error, sizeof app->stats.last_error,
                 "client: the game named nothing to act on (a ball, targets)");
}

/* A key the view read. */
static void on_key(cli_app *app, cli_key key)
{
    double now = cli_now_ms();
    switch (key) {
    case CLI_KEY_LEFT:
    case CLI_KEY_RIGHT:
        /* The newest direction wins: pressing the opposite one replaces a held one. */
        app->move_x = key == CLI_KEY_LEFT ? -1 : 1;
        app->held_x_until = now + HOLD_MS;
        app->facing_x = app->move_x;
        app->facing_z = 0;
        break;
    case CLI_KEY_UP:
    case CLI_KEY_DOWN:
        /* In 2D up jumps (or flies up); in 3D up and down walk across the screen. */
        if (app->kinematic || app->dim == 3) {
            app->move_y = key == CLI_KEY_UP ? 1 : -1;
            app->held_y_until = now + HOLD_MS;
            app->facing_z = -app->move_y;
            app->facing_x = 0;
        } else if (key == CLI_KEY_UP) {
            app->jump_until = now + JUMP_MS;
        }
        break;
    case CLI_KEY_JUMP:
        app->jump_until = now + JUMP_MS;
        break;
    case CLI_KEY_QUIT:
        cli_quit(app, 0);
        return;
    case CLI_KEY_ZOOM_IN:
        app->zoom = fmax(app->zoom / 2, CLI_ZOOM_MIN);
        break;
    case CLI_KEY_ZOOM_OUT:
        app->zoom = fmin(app->zoom * 2, CLI_ZOOM_MAX);
        break;
    case CLI_KEY_SPAWN:
        cli_drop(app);
        break;
    case CLI_KEY_ACT:
        act(app, now);
        break;
    case CLI_KEY_PAUSE:
    case CLI_KEY_FASTER:
    case CLI_KEY_SLOWER:
    case CLI_KEY_STEP:
        cli_replay_key(app, key);
        break;
    case CLI_KEY_NONE:
        break;
    }
    /* A key that starts a move shows at once when the avatar is predicted: the input goes
     * out now instead of at the next input tick. */
    if ((key == CLI_KEY_LEFT || key == CLI_KEY_RIGHT || key == CLI_KEY_UP ||
         key == CLI_KEY_DOWN || key == CLI_KEY_JUMP) &&
        app->has_avatar && !app->replaying) {
        cli_send_input(app, now < app->jump_until);
    }
}

static void on_signal(uv_signal_t *h, int signum)
{
    cli_app *app = h->data;
    (void)signum;
    if (app->mode == CLI_MODE_BOT && app->welcomed)
        finish_bot(app, 0);
    else
        cli_quit(app, app->mode == CLI_MODE_PING ? 1 : 0);
}

/* ---- wiring ---- */

/* The latency simulator's outgoing side ends at the socket. */
static void deliver_out(void *ud, const char *data, size_t len)
{
    cli_app *app = ud;
    cli_conn_send(&app->conn, data, len);
}

static void start(cli_app *app)
{
    uv_timer_t *timers[] = {&app->input_timer, &app->ping_timer, &app->deadline_timer,
                            &app->frame_timer};
    for (size_t i = 0; i < sizeof timers / sizeof timers[0]; i++) {
        uv_timer_init(app->loop, timers[i]);
        timers[i]->data = app;
    }
    uv_signal_t *sigs[] = {&app->sigint, &app->sigterm};
    const int signums[] = {SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        uv_signal_init(app->loop, sigs[i]);
        sigs[i]->data = app;
        uv_signal_start(sigs[i], on_signal, signums[i]);
    }
    /* Connecting counts against the deadline too: a host that never answers is an error. */
    uv_timer_start(&app->deadline_timer, on_deadline,
                   app->mode == CLI_MODE_PING ? PONG_TIMEOUT_MS : WELCOME_TIMEOUT_MS, 0);

    if (app->latency_ms > 0 || app->jitter_ms > 0) {
        app->lagged = true;
        app->lag.latency_ms = app->latency_ms;
        app->lag.jitter_ms = app->jitter_ms;
        app->lag.rng = uv_hrtime() | 1;
        cli_lag_dir_init(&app->lag.out, app->loop, deliver_out, app);
        cli_lag_dir_init(&app->lag.in, app->loop, deliver_in, app);
    }
    if (app->record_path[0]) {
        app->record = fopen(app->record_path, "w");
        if (!app->record) {
            fprintf(stderr, "mink-client: --record: cannot write %s\n", app->record_path);
            cli_quit(app, 2);
            return;
        }
    }
    if (app->replaying) {
        if (cli_replay_start(app, handle_line) != 0)
            cli_quit(app, 1);
        return;
    }

    app->conn.on_connect = on_connect;
    app->conn.on_line = on_line;
    app->conn.on_closed = on_closed;
    app->conn.ud = app;
    int rc = cli_conn_start(&app->conn, app->loop, app->host, app->port);
    if (rc != 0) {
        fprintf(stderr, "mink-client: cannot resolve %s: %s\n", app->host, uv_strerror(rc));
        cli_quit(app, 1);
    }
}

int main(int argc, char **argv)
{
    static cli_app app; /* large (the rtt samples): not on the stack */
    cli_bots_opts bots = {0};
    cli_parse_args(&app, &bots, argc, argv);
    if (app.mode == CLI_MODE_BOTS) {
        signal(SIGPIPE, SIG_IGN); /* a server that goes away is an error to count, not a kill */
        int code = cli_bots_run(uv_default_loop(), &bots);
        uv_loop_close(uv_default_loop());
        return code;
    }
    app.stats.last_rtt = NAN;
    app.zoom = 1.0;
    app.drawn.v = mk_vec_make(sizeof(cli_body));
    app.loop = uv_default_loop();
    cli_world_init(&app.world);
    cli_interp_init(&app.interp, 0); /* at the server's rate once the welcome tells it */

    start(&app);
    uv_run(app.loop, UV_RUN_DEFAULT);

    cli_view_restore(&app);
    cli_conn_free(&app.conn);
    cli_world_free(&app.world);
    cli_interp_free(&app.interp);
    cli_canvas_free(&app.canvas);
    mk_vec_free(&app.drawn.v);
    cli_replay_free(&app);
    int rc = uv_loop_close(app.loop);
    assert(rc == 0 && "every handle is closed when the loop ends");
    (void)rc;
    return app.exit_code;
}
