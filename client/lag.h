/* mink-client's latency simulator (--latency, --jitter): what is sent and received, held back
 * (lag.c). */
#ifndef MINK_CLI_LAG_H
#define MINK_CLI_LAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

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

#endif
