/* mink-client's keys: raw terminal bytes -> key events (keys.c). No terminal here. */
#ifndef MINK_CLI_KEYS_H
#define MINK_CLI_KEYS_H

#include <stddef.h>

typedef enum cli_key {
    CLI_KEY_NONE,
    CLI_KEY_LEFT,
    CLI_KEY_RIGHT,
    CLI_KEY_UP,
    CLI_KEY_DOWN,
    CLI_KEY_JUMP,
    CLI_KEY_QUIT,
    CLI_KEY_ZOOM_IN,  /* + */
    CLI_KEY_ZOOM_OUT, /* - */
    CLI_KEY_SPAWN,    /* f: drop a shape in front of the avatar */
    CLI_KEY_PAUSE,    /* p: replay paused / running */
    CLI_KEY_FASTER,   /* ] */
    CLI_KEY_SLOWER,   /* [ */
    CLI_KEY_STEP,     /* .: one state on, while paused */
    CLI_KEY_ACT,      /* e: the game's action (kick, fire: game.c) */
} cli_key;

typedef struct cli_keys {
    unsigned char pending[8]; /* the start of an escape sequence a read cut off */
    size_t npending;
} cli_keys;

/* Decodes bytes into keys; returns how many were written to out (at most max). */
size_t cli_keys_decode(cli_keys *k, const char *data, size_t n, cli_key *out, size_t max);

#endif
