/* The state of one mink-client run: the options, the session with the server, the controls,
 * the feel figures and the terminal, shared by the files of the interactive client and the bot
 * (main.c wires them). Types only: each file's functions are declared in its own header. */
#ifndef MINK_CLI_APP_H
#define MINK_CLI_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <uv.h>

#include "conn.h"
#include "game.h"
#include "interp.h"
#include "keys.h"
#include "lag.h"
#include "mink_proto.h"
#include "mk_vec.h"
#include "predict.h"
#include "render.h"
#include "world.h"

typedef struct cli_app cli_app;

/* A line from the server, or from a record being replayed. */
typedef void (*cli_app_line_cb)(cli_app *app, const char *line, size_t len);
/* A key the terminal view read. */
typedef void (*cli_app_key_cb)(cli_app *app, cli_key key);

/* The state of a --replay (replay.c). */
typedef struct cli_replay {
    MK_VEC(char) text; /* the whole record */
    size_t pos;        /* where the next line starts */
    double first_at, last_at; /* ms in the record: its first line, the last line read */
    double start_ms;          /* local time at which the record's first line plays */
    double speed;
    bool paused, ended;
    double paused_at; /* ms in the record where it was paused */
    cli_app_line_cb on_line; /* where each line goes when it plays */
} cli_replay;

typedef enum cli_mode { CLI_MODE_INTERACTIVE, CLI_MODE_BOT, CLI_MODE_PING, CLI_MODE_BOTS } cli_mode;

#define CLI_MAX_RTTS 4096

typedef struct cli_stats {
    uint64_t states, first_tick, last_tick;
    uint64_t inputs;
    double distance; /* m the avatar travelled, summed over states */
    double start_pos[3], last_pos[3]; /* z is 0 in 2D */
    bool seen_avatar;
    double rtts[CLI_MAX_RTTS]; /* ms, the first CLI_MAX_RTTS pongs */
    size_t nrtts;
    double last_rtt; /* ms, NAN before the first pong */
    /* The last second's traffic, for the status bar. */
    uint64_t bytes_in, window_bytes, window_states;
    double window_start_ms, kb_per_s, states_per_s;
    /* Feel (bot.c, --bot --json): how soon an input shows, how steadily a body moving at
     * constant speed is drawn, how often and how far reconciliation corrected the avatar. */
    double response_sum_ms;
    uint64_t responses;
    double jitter_sq_sum; /* m^2 */
    uint64_t jitter_frames;
    uint64_t corrections;
    double largest_correction; /* m */
    double pred_error;         /* m: the last correction, shown in the status bar */
    uint64_t errors;
    char last_error[PROTO_MAX_MESSAGE + 32]; /* "code: message", empty before the first */
    /* The world's events (`subscribe {events}`): how many came, how many the server said it
     * dropped, and the last one ("hit 3 7"), empty before the first. */
    uint64_t events, events_dropped;
    char last_event[64];
    /* A game's score line: from the last `event {name, data}` whose data has `score` (an
     * object of sides: "goal: left 1 right 0") or `points`; empty before the first. */
    char score[96];
} cli_stats;

struct cli_app {
    uv_loop_t *loop;
    cli_conn conn;
    cli_world world;
    cli_mode mode;
    int exit_code;
    bool quitting;

    /* options */
    char host[256];
    int port;
    char name[PROTO_MAX_NAME + 1];
    const char *token; /* --token: the connect token the hello carries, or NULL */
    bool kinematic;
    bool full_states; /* no `subscribe {delta}`: every body as an object */
    bool compact_states; /* `subscribe {compact}` instead of delta */
    double bot_seconds;
    /* The world this client joins, 2 or 3: the avatar in `hello` goes out before the welcome
     * tells the server's dim, so the user says it (--dim) and a mismatch ends the run. */
    int dim;

    /* session */
    bool welcomed;
    uint32_t client_id;
    bool has_avatar;
    uint64_t avatar;
    uint64_t seq;
    double started_ms;    /* when the welcome came */
    double first_ping_ms; /* the t of the first ping: a pong's t is between it and now */
    double hello_ms;      /* when the hello went out: the welcome is a first round trip */

    /* controls: a direction stays held until its hold time runs out (terminals send no key
     * release); a jump is asked for over a few inputs. move_x is right (+x), move_y up the
     * screen: +y in 2D (a kinematic avatar flies up), -z in 3D (the view looks down from +y
     * with z growing down the screen). */
    int move_x, move_y;
    double held_x_until, held_y_until, jump_until; /* ms */
    int bot_jumps;

    /* feel and view options */
    bool no_predict, no_interp;
    double latency_ms, jitter_ms;
    char record_path[1024], replay_path[1024];
    char spawn_shape[16]; /* --spawn SHAPE in interactive mode: box, circle, sphere... */
    double tick_hz;
    cli_lag lag;
    bool lagged;
    FILE *record;
    double zoom;
    cli_interp interp;
    cli_predict predict;
    MK_VEC(cli_body) drawn; /* this frame's bodies where they are drawn (frame.c) */
    bool replaying;
    cli_replay replay;
    cli_game game; /* what the game's messages named: the e key's aim (game.c) */
    uv_timer_t replay_timer;
    double record_start_ms;
    bool json;              /* --bot --json: the summary as one JSON object */
    int facing_x, facing_z; /* the way the avatar last moved: where a dropped shape goes */
    /* feel measurements (frame.c): the probe is a kinematic body the bot spawns to move at
     * a constant velocity; a response is timed from an input that starts the avatar moving */
    uint64_t probe_id;
    double probe_vel[3];
    bool probe_seen;
    double probe_last_ms, probe_last[3], probe_first_ms;
    bool response_pending;
    double response_ms, response_from[3], response_dir[3];

    uv_timer_t input_timer, ping_timer, deadline_timer, frame_timer;
    uv_signal_t sigint, sigterm; /* a resize is ncurses' KEY_RESIZE */

    /* the terminal (view.c): ncurses on stdin/stdout, keys read when fd 0 is readable and
     * handed to on_key */
    uv_poll_t key_poll;
    bool key_poll_open;
    bool tty_raw;
    cli_canvas canvas;
    cli_app_key_cb on_key;

    cli_stats stats;
};

#endif
