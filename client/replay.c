/* --record FILE keeps every line received with its arrival time; --replay FILE plays such a
 * file in the view without a server. A record is text, one line per message received:
 * the milliseconds since the recording started (three decimals), a tab, the line as it came.
 * Replay hands each line to the client's handler at its time (times speed), as if it had just
 * come from the server: pause, faster, slower and one line at a time while paused. A record is outside
 * data like any other: a line without a time or out of order ends the replay with an error,
 * and the file is read at most CLI_REPLAY_MAX bytes. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "quit.h"
#include "replay.h"

#define CLI_REPLAY_MAX ((size_t)1 << 30) /* 1 GiB: about an hour of a busy 2D world */
#define SPEED_MIN 0.125
#define SPEED_MAX 8.0

void cli_record_line(cli_app *app, const char *line, size_t len)
{
    double now = cli_now_ms();
    if (app->record_start_ms == 0)
        app->record_start_ms = now;
    if (fprintf(app->record, "%.3f\t", now - app->record_start_ms) < 0 ||
        fwrite(line, 1, len, app->record) != len || fputc('\n', app->record) == EOF) {
        fprintf(stderr, "mink-client: --record: cannot write %s: %s\n", app->record_path,
                strerror(errno));
        fclose(app->record);
        app->record = NULL;
    }
}

/* The next record line: its time and text (cut at its '\n'). False at the end of the file. */
static bool next_entry(cli_app *app, double *at, const char **line, size_t *len, bool *bad)
{
    cli_replay *r = &app->replay;
    *bad = false;
    if (r->pos >= r->text.v.len)
        return false;
    size_t left = r->text.v.len - r->pos;
    char *start = r->text.at + r->pos;
    char *nl = memchr(start, '\n', left);
    size_t n = nl ? (size_t)(nl - start) : left;
    char *tab = memchr(start, '\t', n);
    char *end = NULL;
    double t = tab ? strtod(start, &end) : NAN;
    if (!tab || end != tab || !(t >= r->last_at) || !isfinite(t)) {
        *bad = true;
        return false;
    }
    *at = t;
    *line = tab + 1;
    *len = n - (size_t)(tab + 1 - start);
    r->pos += n + (nl ? 1 : 0);
    r->last_at = t;
    return true;
}

static void arm(cli_app *app);

/* Plays every line due by now; with `one`, exactly one line. */
static void play(cli_app *app, bool one)
{
    cli_replay *r = &app->replay;
    double now = cli_now_ms();
    for (;;) {
        size_t keep = r->pos;
        double keep_at = r->last_at, at;
        const char *line;
        size_t len;
        bool bad;
        if (!next_entry(app, &at, &line, &len, &bad)) {
            if (bad) {
                cli_quit(app, 1); /* the terminal restored first, so that this is seen */
                fprintf(stderr, "mink-client: --replay %s: line at byte %zu is not "
                                "'milliseconds<TAB>message' in order\n",
                        app->replay_path, r->pos);
            } else {
                r->ended = true;
            }
            return;
        }
        if (!one && r->start_ms + (at - r->first_at) / r->speed > now) {
            r->pos = keep; /* not yet */
            r->last_at = keep_at;
            break;
        }
        r->on_line(app, line, len);
        if (app->quitting)
            return;
        if (one) {
            /* The clock moves to this line, so that running again goes on from it. */
            r->start_ms = now - (at - r->first_at) / r->speed;
            break;
        }
    }
    arm(app);
}

static void on_replay_timer(uv_timer_t *t)
{
    play(t->data, false);
}

static void arm(cli_app *app)
{
    cli_replay *r = &app->replay;
    if (r->paused || r->ended || app->quitting)
        return;
    /* The next line's time, without consuming it. */
    size_t keep = r->pos;
    double keep_at = r->last_at, at;
    const char *line;
    size_t len;
    bool bad;
    bool more = next_entry(app, &at, &line, &len, &bad);
    r->pos = keep;
    r->last_at = keep_at;
    if (!more && !bad) {
        r->ended = true;
        return;
    }
    double wait = bad ? 0 : r->start_ms + (at - r->first_at) / r->speed - cli_now_ms();
    uv_timer_start(&app->replay_timer, on_replay_timer, wait > 0 ? (uint64_t)wait : 0, 0);
}

int cli_replay_start(cli_app *app, cli_app_line_cb on_line)
{
    cli_replay *r = &app->replay;
    r->on_line = on_line;
    FILE *f = fopen(app->replay_path, "rb");
    if (!f) {
        fprintf(stderr, "mink-client: --replay: cannot read %s: %s\n", app->replay_path,
                strerror(errno));
        return -1;
    }
    /* Read whole, in room that doubles from 64 KiB, up to CLI_REPLAY_MAX bytes. */
    mk_vec *text = &r->text.v;
    *text = mk_vec_make(sizeof(char));
    bool no_memory = false;
    while (text->len < CLI_REPLAY_MAX) {
        if (text->len == text->cap &&
            !mk_vec_reserve(text, text->cap ? text->cap * 2 : (size_t)1 << 16)) {
            no_memory = true;
            break;
        }
        size_t got = fread(r->text.at + text->len, 1, text->cap - text->len, f);
        text->len += got;
        if (got == 0)
            break;
    }
    bool err = ferror(f) || no_memory;
    fclose(f);
    if (err || text->len == 0) {
        fprintf(stderr, "mink-client: --replay: %s is %s\n", app->replay_path,
                err ? "unreadable" : "empty");
        return -1;
    }
    r->speed = 1.0;
    r->start_ms = cli_now_ms();
    /* The first line's time is the replay's zero. */
    double at;
    const char *line;
    size_t len;
    bool bad;
    if (!next_entry(app, &at, &line, &len, &bad)) {
        fprintf(stderr, "mink-client: --replay: %s is not a record\n", app->replay_path);
        return -1;
    }
    r->first_at = at;
    r->pos = 0;
    r->last_at = 0;
    uv_timer_init(app->loop, &app->replay_timer);
    app->replay_timer.data = app;
    arm(app);
    return 0;
}

void cli_replay_key(cli_app *app, cli_key key)
{
    cli_replay *r = &app->replay;
    if (!app->replaying)
        return;
    double now = cli_now_ms();
    /* Where in the record the replay stands, so that a change of speed keeps it there. */
    double at = r->paused ? r->paused_at : r->first_at + (now - r->start_ms) * r->speed;
    switch (key) {
    case CLI_KEY_PAUSE:
        r->paused = !r->paused;
        if (r->paused) {
            r->paused_at = at;
            uv_timer_stop(&app->replay_timer);
        }
        break;
    case CLI_KEY_FASTER:
        r->speed = fmin(r->speed * 2, SPEED_MAX);
        break;
    case CLI_KEY_SLOWER:
        r->speed = fmax(r->speed / 2, SPEED_MIN);
        break;
    case CLI_KEY_STEP:
        if (r->paused) {
            play(app, true);
            r->paused_at = r->first_at + (cli_now_ms() - r->start_ms) * r->speed;
            return;
        }
        break;
    default:
        return;
    }
    r->start_ms = now - (at - r->first_at) / r->speed;
    if (!r->paused)
        arm(app);
}

void cli_replay_free(cli_app *app)
{
    mk_vec_free(&app->replay.text.v);
}
