/* What a frame shows: every body of the client's world placed where it is drawn at this
 * moment, and the status bar. Other bodies are interpolated between the states around
 * now - delay (interp.c; --no-interp: as last received); the avatar is predicted from the
 * inputs the server has not acknowledged yet (predict.c; --no-predict: as the others). The
 * feel figures of --bot --json are measured here, on what the screen would show. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "frame.h"
#include "interp.h"
#include "predict.h"

#define PROBE_SETTLE_MS 1000.0

/* Feel: the frame-to-frame step of the probe (a body moving at constant speed) against the
 * step its speed makes in the same time; and the first frame on which the avatar has moved
 * the way a new input asked for. */
static void measure(cli_app *app, const cli_body *b, double now_ms)
{
    cli_stats *s = &app->stats;
    if (app->probe_id != 0 && b->id == app->probe_id) {
        if (!app->probe_seen)
            app->probe_first_ms = now_ms;
        /* The first second is the timeline settling (two states to draw between, the
         * delay's measure): not counted. */
        if (app->probe_seen && now_ms - app->probe_first_ms >= PROBE_SETTLE_MS) {
            double dt = (now_ms - app->probe_last_ms) / 1000.0, sq = 0;
            for (int i = 0; i < 3; i++) {
                double e = (b->pos[i] - app->probe_last[i]) - app->probe_vel[i] * dt;
                sq += e * e;
            }
            s->jitter_sq_sum += sq;
            s->jitter_frames++;
        }
        app->probe_seen = true;
        app->probe_last_ms = now_ms;
        memcpy(app->probe_last, b->pos, sizeof app->probe_last);
    }
    if (app->has_avatar && b->id == app->avatar && app->response_pending) {
        double along = 0;
        for (int i = 0; i < 3; i++)
            along += (b->pos[i] - app->response_from[i]) * app->response_dir[i];
        if (along >= 0.001) { /* a millimetre the asked way: moving on screen */
            s->response_sum_ms += now_ms - app->response_ms;
            s->responses++;
            app->response_pending = false;
        }
    }
}

void cli_frame_compose(cli_app *app, double now_ms)
{
    const cli_world *w = &app->world;
    if (!mk_vec_resize(&app->drawn.v, w->count)) {
        app->drawn.v.len = 0;
        return;
    }
    double t = cli_interp_render_tick(&app->interp, now_ms);
    for (size_t i = 0; i < w->count; i++) {
        cli_body *d = &app->drawn.at[i];
        *d = w->bodies[i]; /* the shape is shared with the world: drawn, never freed here */
        bool mine = app->has_avatar && d->id == app->avatar;
        if (mine && !app->no_predict && cli_predict_active(&app->predict))
            cli_predict_drawn(&app->predict, now_ms, d);
        else if (!app->no_interp)
            cli_interp_sample(&app->interp, d->id, t, d);
        measure(app, d, now_ms);
    }
}

void cli_frame_status(const cli_app *app, char *out, size_t size)
{
    const cli_stats *s = &app->stats;
    char ping[32] = "-";
    if (!isnan(s->last_rtt))
        snprintf(ping, sizeof ping, "%.0f", s->last_rtt);
    char pred[32] = "off";
    if (!app->no_predict)
        snprintf(pred, sizeof pred, "%.1f mm", s->pred_error * 1000.0);
    snprintf(out, size,
             " %s%s tick %llu | ping %s ms | bodies %zu | %.1f kB/s in | %.0f states/s | "
             "pred err %s | interp %s | zoom %g | events %llu%s%s%s%s%s%s",
             app->replaying ? "REPLAY " : "", app->dim == 3 ? "3D" : "2D",
             (unsigned long long)app->world.tick, ping, app->drawn.v.len, s->kb_per_s,
             s->states_per_s, pred,
             app->no_interp ? "off" : "on", app->zoom, (unsigned long long)s->events,
             s->last_event[0] ? " (last: " : "", s->last_event, s->last_event[0] ? ")" : "",
             s->score[0] ? " | " : "", s->score, s->last_error[0] ? " | error " : "");
    size_t len = strlen(out);
    if (s->last_error[0] && len < size)
        snprintf(out + len, size - len, "%s", s->last_error);
}

const char *cli_frame_help(const cli_app *app)
{
    if (app->replaying)
        return " p pause | ] faster | [ slower | . step | +/- zoom | q quit";
    if (app->dim == 3)
        return " arrows/WASD walk (x right, z down) | space jump | f drop shape | e act | "
               "+/- zoom | q quit | digits: top in m above your feet";
    return " arrows/AD move | up/W/space jump | f drop shape | e act | +/- zoom | q quit";
}
