/* Entity interpolation: other bodies are drawn between the two states around `now - delay`
 * (Valve, "Source Multiplayer Networking", entity interpolation; Fiedler, "Snapshot
 * Interpolation", Gaffer on Games). States are placed on a smoothed timeline (the local time
 * of a tick: the mean of arrival - tick * tick_ms, so that jitter in arrivals does not shake
 * the picture) and the delay adapts to the measured snapshot interval and its jitter, about
 * two intervals. Past the newest state a body is extrapolated along its velocity for at most
 * CLI_EXTRAPOLATE_MS, then held. No libuv and no terminal here. */
#ifndef MINK_CLI_INTERP_H
#define MINK_CLI_INTERP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mk_vec.h"
#include "world.h"

#define CLI_INTERP_STATES 16     /* states kept: 0.8 s at 20 states a second */
#define CLI_EXTRAPOLATE_MS 100.0 /* how far past the newest state a body keeps moving */
#define CLI_DELAY_MAX_MS 500.0   /* the delay never grows past this, whatever the jitter */

typedef struct cli_snap_body {
    uint64_t id;
    double pos[3], vel[3];
    double rot;     /* 2D */
    double quat[4]; /* 3D */
} cli_snap_body;

typedef struct cli_snap {
    uint64_t tick;
    MK_VEC(cli_snap_body) bodies; /* every body the world held after this state, by id */
} cli_snap;

typedef struct cli_interp {
    cli_snap ring[CLI_INTERP_STATES];
    unsigned head, len; /* ring[head] is the oldest */
    double tick_ms;
    bool has_timeline;
    double offset_ms;   /* local time of tick 0, ms (smoothed) */
    double interval_ms; /* mean time between states, ms */
    double jitter_ms;   /* mean deviation of an arrival from the timeline, ms */
    uint64_t last_tick;
} cli_interp;

void cli_interp_init(cli_interp *ip, double tick_hz);
void cli_interp_free(cli_interp *ip);
/* Records the world as it stands after a state that arrived at arrival_ms. -1 when out of
 * memory (the state is then not kept). A state not newer than the last is ignored. */
int cli_interp_push(cli_interp *ip, const cli_world *w, double arrival_ms);
/* The delay behind the newest information at which bodies are drawn, ms. */
double cli_interp_delay(const cli_interp *ip);
/* The tick (with a fraction) drawn at local time now_ms. */
double cli_interp_render_tick(const cli_interp *ip, double now_ms);
/* Writes the body's drawn position and orientation at render tick t into out (its other
 * fields are left). False when no state holds the body. */
bool cli_interp_sample(const cli_interp *ip, uint64_t id, double t, cli_body *out);

#endif
