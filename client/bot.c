/* Bot mode: the avatar plays by itself (in 2D runs right for 2 s, left for 2 s; in 3D walks a
 * square, 2 s a side: +x, +z, -x, -z; jumps every 1.5 s)
 * and the client prints what it saw, so that a server can be checked without a keyboard. The
 * summary's first lines are a format that scripts and tests read. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"
#include "clock.h"
#include "predict.h"
#include "send.h"
#include "world.h"

#define BOT_RUN_S 2.0   /* s in each direction */
#define BOT_JUMP_S 1.5  /* s between jumps */
#define BOT_JUMP_MS 100 /* ms a jump is asked for: a few inputs, so that none is lost */

/* A run starts from rest after a pause, so that the time from the input to the avatar moving
 * on screen (response_ms) is measured the same way on every run. */
#define BOT_PAUSE_S 0.5

static const cli_body *drawn_avatar(const cli_app *app)
{
    for (size_t i = 0; i < app->drawn.v.len; i++)
        if (app->has_avatar && app->drawn.at[i].id == app->avatar)
            return &app->drawn.at[i];
    return NULL;
}

void cli_bot_controls(cli_app *app, double now_ms)
{
    double t = (now_ms - app->started_ms) / 1000.0;
    int was_x = app->move_x, was_y = app->move_y;
    bool pause = fmod(t, BOT_RUN_S) >= BOT_RUN_S - BOT_PAUSE_S;
    if (app->dim == 3) {
        /* move_y is up the screen, -z (cli_app): the square's +z side is move_y -1. */
        static const int side_x[4] = {1, 0, -1, 0}, side_y[4] = {0, -1, 0, 1};
        int side = (int)fmod(t / BOT_RUN_S, 4);
        app->move_x = pause ? 0 : side_x[side];
        app->move_y = pause ? 0 : side_y[side];
    } else {
        app->move_x = pause ? 0 : fmod(t, 2 * BOT_RUN_S) < BOT_RUN_S ? 1 : -1;
        app->move_y = 0;
    }
    const cli_body *me = drawn_avatar(app);
    if (was_x == 0 && was_y == 0 && (app->move_x || app->move_y) && me) {
        app->response_pending = true;
        app->response_ms = now_ms;
        memcpy(app->response_from, me->pos, sizeof app->response_from);
        app->response_dir[0] = app->move_x;
        app->response_dir[1] = app->dim == 3 ? 0 : app->move_y;
        app->response_dir[2] = app->dim == 3 ? -app->move_y : 0;
    }
    int jumps = (int)(t / BOT_JUMP_S);
    if (jumps > app->bot_jumps) {
        app->bot_jumps = jumps;
        app->jump_until = now_ms + BOT_JUMP_MS;
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cli_bot_summary(const cli_app *app, FILE *out)
{
    const cli_stats *s = &app->stats;
    double secs = app->welcomed ? (cli_now_ms() - app->started_ms) / 1000.0 : 0.0;
    double median = 0, max = 0;
    if (s->nrtts) {
        double *sorted = malloc(s->nrtts * sizeof *sorted);
        if (sorted) {
            for (size_t i = 0; i < s->nrtts; i++)
                sorted[i] = s->rtts[i];
            qsort(sorted, s->nrtts, sizeof sorted[0], by_value);
            median = s->nrtts % 2 ? sorted[s->nrtts / 2]
                                  : (sorted[s->nrtts / 2 - 1] + sorted[s->nrtts / 2]) / 2;
            max = sorted[s->nrtts - 1];
            free(sorted);
        }
    }
    if (app->json) {
        double jitter = s->jitter_frames ? sqrt(s->jitter_sq_sum / (double)s->jitter_frames) : 0;
        fprintf(out,
                "{\"states\":%llu,\"states_per_s\":%.1f,\"inputs\":%llu,\"ack\":%llu,"
                "\"distance_m\":%.2f,\"rtt_median_ms\":%.2f,\"rtt_max_ms\":%.2f,"
                "\"latency_ms\":%g,\"jitter_ms\":%g,\"predict\":%s,\"interp\":%s,"
                "\"response_ms\":%.1f,\"responses\":%llu,\"jitter_mm\":%.2f,"
                "\"jitter_frames\":%llu,\"corrections\":{\"count\":%llu,\"largest_mm\":%.1f},"
                "\"late_inputs\":%llu,\"lead_ticks\":%.1f,\"errors\":%llu,\"events\":%llu,"
                "\"events_dropped\":%llu}\n",
                (unsigned long long)s->states, secs > 0 ? (double)s->states / secs : 0.0,
                (unsigned long long)s->inputs, (unsigned long long)app->world.ack, s->distance,
                median, max, app->latency_ms, app->jitter_ms,
                app->no_predict ? "false" : "true", app->no_interp ? "false" : "true",
                s->responses ? s->response_sum_ms / (double)s->responses : 0.0,
                (unsigned long long)s->responses, jitter * 1000.0,
                (unsigned long long)s->jitter_frames, (unsigned long long)s->corrections,
                s->largest_correction * 1000.0, (unsigned long long)app->predict.late,
                cli_predict_lead(&app->predict), (unsigned long long)s->errors,
                (unsigned long long)s->events, (unsigned long long)s->events_dropped);
        return;
    }
    {
        fprintf(out, "states received: %llu (%.1f/s), ticks %llu..%llu\n",
                (unsigned long long)s->states, secs > 0 ? (double)s->states / secs : 0.0,
                (unsigned long long)s->first_tick, (unsigned long long)s->last_tick);
        fprintf(out, "inputs sent: %llu, last ack: %llu\n", (unsigned long long)s->inputs,
                (unsigned long long)app->world.ack);
        double dx = s->last_pos[0] - s->start_pos[0], dy = s->last_pos[1] - s->start_pos[1];
        double dz = s->last_pos[2] - s->start_pos[2];
        if (app->dim == 3)
            fprintf(out, "avatar moved: %.2f m in total, displacement [%.2f, %.2f, %.2f] m\n",
                    s->distance, dx, dy, dz);
        else
            fprintf(out, "avatar moved: %.2f m in total, displacement [%.2f, %.2f] m\n",
                    s->distance, dx, dy);
    }
    fprintf(out, "ping rtt: median %.2f ms, max %.2f ms (%zu pongs)\n", median, max, s->nrtts);
    fprintf(out, "events: %llu (%llu dropped)%s%s\n", (unsigned long long)s->events,
            (unsigned long long)s->events_dropped, s->last_event[0] ? ", last: " : "",
            s->last_event);
    fprintf(out, "errors: %llu%s%s\n", (unsigned long long)s->errors,
            s->last_error[0] ? ", last: " : "", s->last_error);
}

/* ---- the probe of --bot ---- */

/* The probe: a kinematic crate high above the scene (nothing there to push) moving at a
 * constant 2 m/s along x, whose drawn steps measure how steadily bodies move on screen. */
#define PROBE_SPEED 2.0 /* m/s */
#define PROBE_HEIGHT 40.0 /* m */

void cli_bot_start(cli_app *app)
{
    if (app->mode != CLI_MODE_BOT || app->replaying)
        return;
    char body[256];
    if (app->dim == 3)
        snprintf(body, sizeof body,
                 "{\"shape\":{\"type\":\"box\",\"half\":[0.25,0.25,0.25]},\"pos\":[-20,%g,-20],"
                 "\"vel\":[%g,0,0],\"kind\":\"kinematic\",\"tag\":\"probe\"}",
                 PROBE_HEIGHT, PROBE_SPEED);
    else
        snprintf(body, sizeof body,
                 "{\"shape\":{\"type\":\"aabb\",\"half\":[0.25,0.25]},\"pos\":[-20,%g],"
                 "\"vel\":[%g,0],\"kind\":\"kinematic\",\"tag\":\"probe\"}",
                 PROBE_HEIGHT, PROBE_SPEED);
    app->probe_vel[0] = PROBE_SPEED;
    cli_send_spawn(app, "probe", body);
}

void cli_bot_spawned(cli_app *app, const cJSON *msg)
{
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(msg, "req");
    uint64_t id;
    if (cJSON_IsString(req) && strcmp(req->valuestring, "probe") == 0 &&
        cli_json_uint(cJSON_GetObjectItemCaseSensitive(msg, "id"), &id))
        app->probe_id = id;
}
