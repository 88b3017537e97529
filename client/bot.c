/* Bot mode: the avatar plays by itself (in 2D runs right for 2 s, left for 2 s; in 3D walks a
 * square, 2 s a side: +x, +z, -x, -z; jumps every 1.5 s)
 * and the client prints what it saw, so that a server can be checked without a keyboard. The
 * summary's first lines are a format that scripts and tests read. */
#include <math.h>
#include <stdlib.h>

#include "cli.h"

#define BOT_RUN_S 2.0   /* s in each direction */
#define BOT_JUMP_S 1.5  /* s between jumps */
#define BOT_JUMP_MS 100 /* ms a jump is asked for: a few inputs, so that none is lost */

void cli_bot_controls(cli_app *app, double now_ms)
{
    double t = (now_ms - app->started_ms) / 1000.0;
    if (app->dim == 3) {
        /* move_y is up the screen, -z (cli_app): the square's +z side is move_y -1. */
        static const int side_x[4] = {1, 0, -1, 0}, side_y[4] = {0, -1, 0, 1};
        int side = (int)fmod(t / BOT_RUN_S, 4);
        app->move_x = side_x[side];
        app->move_y = side_y[side];
    } else {
        app->move_x = fmod(t, 2 * BOT_RUN_S) < BOT_RUN_S ? 1 : -1;
        app->move_y = 0;
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
    fprintf(out, "ping rtt: median %.2f ms, max %.2f ms (%zu pongs)\n", median, max, s->nrtts);
    fprintf(out, "errors: %llu%s%s\n", (unsigned long long)s->errors,
            s->last_error[0] ? ", last: " : "", s->last_error);
}
