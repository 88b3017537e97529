/* mink-client internals: the connection, the client's copy of the world, the terminal view,
 * the keyboard and the bot. One libuv loop drives all of it. */
#ifndef MINK_CLI_H
#define MINK_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <uv.h>

#include "interp.h"
#include "mink_proto.h"
#include "predict.h"
#include "render.h"
#include "world.h"

struct cJSON;

/* ---- conn.c: one TCP connection carrying JSON Lines ---- */

/* A server's line can be long (the first state of a large world lists every body with its
 * shape), unlike a client's: 64 MiB bounds the memory a broken server can make us hold. */
#define CLI_MAX_LINE ((size_t)64 * 1024 * 1024)
/* ms a graceful close waits for the last bytes (the `bye`) to reach the kernel. */
#define CLI_LINGER_MS 1000

typedef struct cli_conn cli_conn;
typedef void (*cli_conn_cb)(cli_conn *c, int status); /* connected: 0 or a uv error */
typedef void (*cli_line_cb)(cli_conn *c, const char *line, size_t len);
typedef void (*cli_closed_cb)(cli_conn *c, const char *why); /* the server closed or failed */

struct cli_conn {
    uv_loop_t *loop;
    uv_getaddrinfo_t resolve;
    uv_connect_t connect;
    uv_shutdown_t shutdown;
    uv_tcp_t tcp;
    uv_timer_t linger; /* bounds a graceful close */
    bool resolving, tcp_open, linger_open, connected, closing;
    proto_framer framer;
    /* WebSocket (ws.c): set ws before cli_conn_start to speak to the HTTP port's /ws, one
     * message a text frame; on_connect then waits for the handshake's answer. */
    bool ws, ws_ready;
    char *ws_in;  /* bytes read and not yet framed (the answer's head, then frames) */
    size_t ws_in_len, ws_in_cap;
    char *ws_msg; /* a fragmented message being gathered */
    size_t ws_msg_len, ws_msg_cap;
    uint32_t ws_rng; /* the masking keys' source */
    cli_conn_cb on_connect;
    cli_line_cb on_line;
    cli_closed_cb on_closed;
    void *ud;
};

/* Resolves host (a name or an address), connects and reads lines; on_connect tells how it
 * went. Returns 0 or a uv error (then no callback comes). */
int cli_conn_start(cli_conn *c, uv_loop_t *loop, const char *host, int port);
/* Sends bytes (copied when they cannot be written at once). Returns 0 or a uv error. */
int cli_conn_send(cli_conn *c, const char *data, size_t len);
/* Stops reading and closes. Graceful: what was sent is flushed first (for at most
 * CLI_LINGER_MS) and the server sees an orderly end of stream. No callback follows. */
void cli_conn_close(cli_conn *c, bool graceful);
/* True for the handles the connection closes itself (uv_walk on quitting leaves them). */
bool cli_conn_owns(const cli_conn *c, const uv_handle_t *h);
void cli_conn_free(cli_conn *c);

/* ws.c: the WebSocket client side of a connection (RFC 6455: the handshake, masked text
 * frames out, frames in). conn.c calls these when c->ws is set. */
/* Writes bytes as they are (the handshake, frames). Returns 0 or a uv error. */
int cli_conn_write_raw(cli_conn *c, const char *data, size_t len);
int cli_ws_handshake(cli_conn *c, const char *host);
/* Bytes read: the answer's head, then frames; each text message goes to on_line. Returns 0,
 * or -1 with *why set when the connection must end. */
int cli_ws_feed(cli_conn *c, const char *data, size_t len, const char **why);
/* Sends each line of data ('\n'-separated) as one masked text frame. */
int cli_ws_send(cli_conn *c, const char *data, size_t len);
void cli_ws_free(cli_conn *c);

/* ---- keys.c: raw terminal bytes -> key events ---- */

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
} cli_key;

typedef struct cli_keys {
    unsigned char pending[8]; /* the start of an escape sequence a read cut off */
    size_t npending;
} cli_keys;

/* Decodes bytes into keys; returns how many were written to out (at most max). */
size_t cli_keys_decode(cli_keys *k, const char *data, size_t n, cli_key *out, size_t max);

/* ---- lag.c: the latency simulator ---- */

/* Bytes a direction may hold back: a megabyte is seconds of states of a large world. */
#define CLI_LAG_MAX_BYTES ((size_t)64 * 1024 * 1024)

typedef void (*cli_lag_deliver)(void *ud, const char *data, size_t len);
typedef struct lag_item lag_item;
typedef struct cli_lag_dir {
    uv_timer_t timer;
    lag_item *head, *tail;
    size_t bytes;
    bool open;
    cli_lag_deliver deliver;
    void *ud;
} cli_lag_dir;

typedef struct cli_lag {
    double latency_ms, jitter_ms; /* one way */
    uint64_t rng;
    cli_lag_dir out, in;
} cli_lag;

void cli_lag_dir_init(cli_lag_dir *q, uv_loop_t *loop, cli_lag_deliver deliver, void *ud);
/* Queues a copy of data, delivered after latency +- jitter, in order. -1 when the direction
 * holds too much or memory ran out (the data is dropped). */
int cli_lag_push(cli_lag *lag, cli_lag_dir *q, const char *data, size_t len);
/* Drops what is queued; nothing more is delivered (the timer is closed with the loop). */
void cli_lag_dir_drop(cli_lag_dir *q);

/* ---- replay.c: the state of a --replay ---- */
typedef struct cli_replay {
    char *data; /* the whole record */
    size_t len, pos;
    double first_at, last_at; /* ms in the record: its first line, the last line read */
    double start_ms;          /* local time at which the record's first line plays */
    double speed;
    bool paused, ended;
    double paused_at; /* ms in the record where it was paused */
} cli_replay;

/* ---- the application ---- */

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
} cli_stats;

typedef struct cli_app {
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
    cli_body *drawn; /* this frame's bodies where they are drawn */
    size_t drawn_cap, drawn_count;
    uint64_t spawn_req;
    bool replaying;
    cli_replay replay;
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

    /* the terminal (view.c): ncurses on stdin/stdout, keys read when fd 0 is readable */
    uv_poll_t key_poll;
    bool key_poll_open;
    bool tty_raw;
    int cols, rows;
    cli_canvas canvas;
    cli_keys keys;

    cli_stats stats;
} cli_app;

double cli_now_ms(void);
/* Ends the run with this exit code: restores the terminal, says bye to the server when
 * joined, closes every handle. Later calls do nothing. */
void cli_quit(cli_app *app, int code);

/* args.c: fills app (host, port, mode...) and, for --bots, the load generator's options from
 * the command line; exits with 2 on a bad flag, 0 after --help. */
typedef struct cli_bots_opts cli_bots_opts;
void cli_parse_args(cli_app *app, cli_bots_opts *bots, int argc, char **argv);

/* view.c: ncurses */
int cli_view_start(cli_app *app);    /* ncurses on the terminal; 0 or a uv error */
void cli_view_restore(cli_app *app); /* safe to call more than once */
void cli_view_draw(cli_app *app, double now_ms); /* one frame, from cli_frame_compose */
/* Called for each key read while the view runs (main.c). */
void cli_on_key(cli_app *app, cli_key key);

/* frame.c: what a frame shows, without a terminal */
#define CLI_FRAME_MS 33.0 /* ~30 frames a second */
/* Places every body where this frame draws it (app->drawn): interpolated, predicted or as
 * last received, and measures the feel figures. */
void cli_frame_compose(cli_app *app, double now_ms);
/* The status bar and the help line. */
void cli_frame_status(const cli_app *app, char *out, size_t size);
const char *cli_frame_help(const cli_app *app);

/* msgs.c: the lines this client sends, '\n' included */
/* hello with an avatar for a world of dim 2 or 3 at pos (dim components read) */
void cli_write_hello(proto_buf *b, const char *name, const char *token, bool kinematic, int dim,
                     const double pos[3]);
void cli_write_ping(proto_buf *b, double now_ms);
/* input with a move of dim components, each in [-1, 1], stamped with the tick its step is
 * (input.tick; 0: none) */
void cli_write_input(proto_buf *b, uint64_t seq, uint64_t tick, int dim, const double move[3],
                     bool jump);

/* bots.c: the load generator, many players on one loop */
typedef struct cli_bots_opts {
    char host[256];
    int port;
    int count;          /* players */
    double duration;    /* s */
    int spawn;          /* extra bodies each player spawns */
    int dim;            /* 2 or 3: the world the players join */
    double radius;      /* m: subscribe {radius} when > 0 */
    bool full_states;   /* no `subscribe {compact}` */
    bool delta;         /* `subscribe {delta}` instead of compact */
    bool json;          /* the summary as one JSON object */
    bool ws;            /* players over WebSocket (the HTTP port's /ws) */
} cli_bots_opts;
/* Runs the players on `loop` until the duration ends or SIGINT/SIGTERM; prints a progress
 * line a second to stderr and the summary to stdout. Returns the exit code: 0 when every
 * player was welcomed and received states without an error. */
int cli_bots_run(uv_loop_t *loop, const cli_bots_opts *opts);

/* main.c */
/* Sends bytes to the server (through the latency simulator when it runs). */
void cli_send(cli_app *app, const char *data, size_t len);
/* Handles one line from the server (or from a record being replayed). */
void cli_handle_line(cli_app *app, const char *line, size_t len);

/* bot.c */
void cli_bot_controls(cli_app *app, double now_ms);
void cli_bot_summary(const cli_app *app, FILE *out);
void cli_bot_start(cli_app *app);                      /* the probe of --bot */
void cli_bot_spawned(cli_app *app, const struct cJSON *msg); /* a `spawned` answer */
void cli_spawn_drop(cli_app *app); /* the spawn key: a shape in front of the avatar */
bool cli_spawn_shape_valid(const char *name, int dim);
const char *cli_spawn_shapes(int dim); /* the names, for messages */

/* replay.c */
void cli_record_line(cli_app *app, const char *line, size_t len);
int cli_replay_start(cli_app *app); /* 0 or -1 (said on stderr) */
void cli_replay_key(cli_app *app, cli_key key);
void cli_replay_free(cli_app *app);

#endif
