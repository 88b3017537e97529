/* The game's rules of mink-server (game.c): --script loaded before the server starts, its
 * state brought back with --save, and its part of a --replay. */
#ifndef MINK_GAME_H
#define MINK_GAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mink_rules.h"

struct cJSON;

typedef struct mink_game_opts {
    const char *script; /* --script FILE.lua, or NULL */
    size_t memory;      /* --script-memory, bytes */
    uint32_t budget;    /* --script-budget, instructions a hook call */
} mink_game_opts;

/* Loads the script over `w` and runs its top level: the runtime, or NULL after printing why
 * (the file and line of a syntax error). The random generator's first seed is the world's hash
 * as it is now, so a replay of the same scene draws the same numbers. */
rul_runtime *mink_game_load(const mink_game_opts *o, sim_world *w);
/* rul_busy for wio_journal_by_rules: the changes a hook makes are the rules'. */
bool mink_game_busy(void *rt);
/* A restored game: the state a save kept (rul_load), then every player in it leaves (their
 * connections did not survive the restart). 0, or -1 after logging. */
int mink_game_restore(rul_runtime *rt, const char *state);
/* A replay's rules_ line (wio_replay.rules): a player joining or leaving, an action, fed to the
 * script as the server fed it; a refusal is the game's and replays as one. */
int mink_game_replay_line(void *rt, uint32_t client, const char *type, const struct cJSON *msg,
                          mk_error *err);

#endif
