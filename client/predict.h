/* Client-side prediction and server reconciliation of the avatar (Valve, "Source Multiplayer
 * Networking"; Gambetta, "Fast-Paced Multiplayer"; Overwatch's stamped commands, Ford, GDC
 * 2017): the prediction runs ahead of the server by the round trip and a margin, stepping
 * the avatar at the server's tick with the character rules the server uses (mink_character)
 * against the bodies around it (collided by mink_collision). Each input is stamped with the
 * tick the prediction applies it from (`input.tick`), and the server applies it by that very
 * step; when a state comes, the prediction restarts from the server's avatar and replays
 * every tick since by the inputs stamped for it. What differs is a correction: a small one is
 * smoothed away over a few frames, a large one snaps. An input that reached the server after
 * its tick widens the margin. No libuv and no terminal here; the client never links the
 * world. */
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
#define CLI_PRED_MARGIN 1.0     /* ticks ahead of the input's arrival, at the least */
#define CLI_PRED_CATCH_UP 30    /* ticks stepped at most in one call; past it, skipped */
#define CLI_PRED_PASSES 4       /* push-out passes a tick, as the server's iterations */
/* The avatar's body spec as mink-client sends it (msgs.c) and the protocol's defaults for
 * what it leaves out (PROTOCOL.md, extensions). */
#define CLI_PRED_MAX_SPEED 6.0f
#define CLI_PRED_JUMP_HEIGHT 1.5f
#define CLI_PRED_MAX_SLOPE 0.8727f

typedef struct cli_pred_input {
    uint64_t seq;
    uint64_t tick; /* the step it is applied from (0: as soon as it arrives) */
    float move[3];
    bool jump;
    bool timed; /* stamped knowing the round trip: its lateness widens the margin */
    double sent_ms; /* when it was sent */
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
    size_t n; /* in[0] is the input the server applies at the last state's tick + 1, or older */
    uint64_t tick; /* the tick pos and vel are the avatar after */
    /* The server's tick at local time t is about clock + t * ticks_per_ms + the one-way
     * delay: clock is the largest tick - arrival * ticks_per_ms of the states (the least
     * delayed), let down slowly to follow a server that falls behind. */
    bool clocked;
    double clock, ticks_per_ms;
    double rtt_ms;  /* the round trip, from the pongs (0: not known yet) */
    double margin;  /* ticks: added to the round trip, widened by inputs that came late */
    uint64_t late;  /* inputs the server applied after their tick */
    double offset[3]; /* m: what is left to smooth of the last corrections */
    double offset_ms; /* when offset was last decayed */
    cli_obstacle obs[CLI_PRED_OBSTACLES];
    col_polygon polys[CLI_PRED_OBSTACLES];
    size_t nobs;
} cli_predict;

void cli_predict_init(cli_predict *p, int dim, double tick_hz, const double gravity[3],
                      bool kinematic);
/* An input about to be sent: returns the tick to stamp it with (`input.tick`; 0 before the
 * first state, when the prediction has no clock yet: then it is sent without one). */
uint64_t cli_predict_input(cli_predict *p, uint64_t seq, const double move[3], bool jump,
                           double now_ms);
/* A measured round trip (a pong), ms. */
void cli_predict_rtt(cli_predict *p, double rtt_ms);
/* A state was applied to the world: reconcile. Returns the correction, m (0 when none, or
 * when the avatar is not in the world). */
double cli_predict_state(cli_predict *p, const cli_world *w, uint64_t avatar, double now_ms);
bool cli_predict_active(const cli_predict *p);
/* Ticks the prediction stands ahead of the server's tick now: the round trip and the
 * margin. */
double cli_predict_lead(const cli_predict *p);
/* Steps the prediction up to now and writes the avatar's drawn position into out. */
void cli_predict_drawn(cli_predict *p, double now_ms, cli_body *out);

#endif
