/* The load generator (`mink-client --bots N`, bots.c): many players on one loop. */
#ifndef MINK_CLI_BOTS_H
#define MINK_CLI_BOTS_H

#include <stdbool.h>
#include <uv.h>

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

#endif
