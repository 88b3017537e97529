/* Client-side prediction and server reconciliation of the avatar (Valve, "Source Multiplayer
 * Networking"; Gambetta, "Fast-Paced Multiplayer"): the avatar moves at once by the inputs the
 * server has not acknowledged, stepped at the server's tick with the character rules the
 * server uses (mink_character) against the bodies around it (collided by
 * mink_collision); when a state comes, the prediction restarts from the server's avatar and
 * replays the inputs after its `ack`, each for the ticks it was the newest. The difference is
 * a correction: a small one is smoothed away over a few frames, a large one snaps. No libuv
 * and no terminal here; the client never links the world. */
#ifndef MINK_CLI_PREDICT_H
#define MINK_CLI_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mink_character.h"
#include "mink_collision.h"
#include "mink_collision3.h"
#include "world.h"

#define CLI_PRED_INPUTS 512     /* unacknowledged inputs kept: 17 s at 30 a second */
#define CLI_PRED_OBSTACLES 256  /* bodies around the avatar it is kept out of */
#define CLI_PRED_REACH 12.0     /* m: how far around the avatar they are taken */
#define CLI_PRED_SNAP 1.0       /* m: a correction this large snaps */
#define CLI_PRED_SMOOTH_MS 60.0 /* ms: a smaller one decays with this time constant */
#define CLI_PRED_COUNTED 0.01   /* m: a correction counted in the feel figures */
#define CLI_PRED_PASSES 4       /* push-out passes a tick, as the server's iterations */
/* The avatar's body spec as mink-client sends it (msgs.c) and the protocol's defaults for
 * what it leaves out (PROTOCOL.md, extensions). */
#define CLI_PRED_MAX_SPEED 6.0f
#define CLI_PRED_JUMP_HEIGHT 1.5f
#define CLI_PRED_MAX_SLOPE 0.8727f

typedef struct cli_pred_input {
    uint64_t seq;
    float move[3];
    bool jump;
    int ticks; /* ticks it was the newest input */
} cli_pred_input;

typedef struct cli_obstacle {
    col_shape2 s2;
    col_xf2 x2;
    col_shape3 s3;
    col_xf3 x3;
    float vel[3];
    float inv_mass;
} cli_obstacle;

typedef struct cli_predict {
    int dim;
    bool kinematic;
    float dt;
    float gravity[3];
    bool active; /* the avatar is known, with its shape */
    col_shape2 me2;
    col_shape3 me3;
    float pos[3], vel[3];
    bool grounded;
    cli_pred_input in[CLI_PRED_INPUTS];
    size_t n; /* in[0] may be the newest acknowledged one (seq acked_seq) */
    uint64_t acked_seq, state_tick;
    double acked_start; /* the server tick at which it began to apply acked_seq, about */
    double acc_ms, last_ms;
    double offset[3]; /* m: what is left to smooth of the last corrections */
    double offset_ms; /* when offset was last decayed */
    cli_obstacle obs[CLI_PRED_OBSTACLES];
    col_polygon polys[CLI_PRED_OBSTACLES];
    size_t nobs;
} cli_predict;

void cli_predict_init(cli_predict *p, int dim, double tick_hz, const double gravity[3],
                      bool kinematic);
/* An input just sent (after the ones before it had their ticks up to now). */
void cli_predict_input(cli_predict *p, uint64_t seq, const double move[3], bool jump,
                       double now_ms);
/* A state was applied to the world: reconcile. Returns the correction, m (0 when none, or
 * when the avatar is not in the world). */
double cli_predict_state(cli_predict *p, const cli_world *w, uint64_t avatar, double now_ms);
bool cli_predict_active(const cli_predict *p);
/* Steps the prediction up to now and writes the avatar's drawn position into out. */
void cli_predict_drawn(cli_predict *p, double now_ms, cli_body *out);

#endif
