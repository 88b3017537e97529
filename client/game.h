/* What a game's rules tell this client and the e key's action for them (game.c): the ball of
 * examples/ball, kicked toward; the targets of examples/range, fired at as they are drawn.
 * No libuv and no terminal here. */
#ifndef MINK_CLI_GAME_H
#define MINK_CLI_GAME_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "interp.h"

#define CLI_GAME_TARGETS 16

typedef struct cli_game {
    uint64_t ball;                       /* a message's data.ball: the body a kick goes to */
    uint64_t targets[CLI_GAME_TARGETS];  /* a message's data.targets: what a shot aims at */
    int ntargets;
} cli_game;

/* Takes what the data of a game's message (`event {name, data}`) names: `ball` (a body id)
 * and `targets` (an array of body ids, the first CLI_GAME_TARGETS). */
void cli_game_note(cli_game *g, const cJSON *data);

/* The e key's `action` line (with its newline) into out, as the picture shows the world at
 * render tick t: with a ball, `kick {dir}` from the avatar toward it; with targets, `fire
 * {tick, from, dir}` from 0.5 m over the avatar toward the target nearest the way it faces
 * (`facing`, a direction; 0 for -z in 3D, +x in 2D), at tick floor(t). Returns the line's
 * length, or 0 when the game named neither or the bodies are not drawn. */
size_t cli_game_action(const cli_game *g, const cli_interp *ip, double t, int dim,
                       uint64_t avatar, const double facing[3], char *out, size_t cap);

#endif
