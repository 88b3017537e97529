/* mink-client internals: the connection, the client's copy of the world, the terminal view,
 * the keyboard and the bot. One libuv loop drives all of it. */
#ifndef MINK_CLI_H
#define MINK_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <uv.h>

#include "mink_proto.h"
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

/* ---- keys.c: raw terminal bytes -> key events ---- */

typedef enum cli_key {
    CLI_KEY_NONE,
    CLI_KEY_LEFT,
    CLI_KEY_RIGHT,
    CLI_KEY_UP,
    CLI_KEY_DOWN,
    CLI_KEY_JUMP,
    CLI_KEY_QUIT,
} cli_key;

typedef struct cli_keys {
    unsigned char pending[8]; /* the start of an escape sequence a read cut off */
    size_t npending;
} cli_keys;

/* Decodes bytes into keys; returns how many were written to out (at most max). */
size_t cli_keys_decode(cli_keys *k, const char *data, size_t n, cli_key *out, size_t max);

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
    bool kinematic;
    bool full_states; /* no `subscribe {compact}`: every body as an object */
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

    /* controls: a direction stays held until its hold time runs out (terminals send no key
     * release); a jump is asked for over a few inputs. move_x is right (+x), move_y up the
     * screen: +y in 2D (a kinematic avatar flies up), -z in 3D (the view looks down from +y
     * with z growing down the screen). */
    int move_x, move_y;
    double held_x_until, held_y_until, jump_until; /* ms */
    int bot_jumps;

    uv_timer_t input_timer, ping_timer, deadline_timer, draw_timer;
    uv_signal_t sigint, sigterm, sigwinch;

    /* the terminal (view.c) */
    uv_tty_t tty_in, tty_out;
    bool tty_raw;
    int cols, rows;
    bool clear_screen; /* the next frame starts from a blank screen (after a resize) */
    bool draw_pending;
    double last_draw_ms;
    proto_buf frame;
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

/* view.c */
int cli_view_start(cli_app *app);    /* raw mode, alternate screen; 0 or a uv error */
void cli_view_restore(cli_app *app); /* safe to call more than once */
void cli_view_resized(cli_app *app); /* SIGWINCH: re-reads the size, redraws */
void cli_view_request_draw(cli_app *app); /* draws soon, at most ~30 frames a second */

/* msgs.c: the lines this client sends, '\n' included */
/* hello with an avatar for a world of dim 2 or 3 at pos (dim components read) */
void cli_write_hello(proto_buf *b, const char *name, bool kinematic, int dim,
                     const double pos[3]);
void cli_write_ping(proto_buf *b, double now_ms);
/* input with a move of dim components, each in [-1, 1] */
void cli_write_input(proto_buf *b, uint64_t seq, int dim, const double move[3], bool jump);

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
    bool json;          /* the summary as one JSON object */
} cli_bots_opts;
/* Runs the players on `loop` until the duration ends or SIGINT/SIGTERM; prints a progress
 * line a second to stderr and the summary to stdout. Returns the exit code: 0 when every
 * player was welcomed and received states without an error. */
int cli_bots_run(uv_loop_t *loop, const cli_bots_opts *opts);

/* bot.c */
void cli_bot_controls(cli_app *app, double now_ms);
void cli_bot_summary(const cli_app *app, FILE *out);

#endif
