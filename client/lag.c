/* The latency simulator (--latency, --jitter): what the client sends and what it receives is
 * held back by latency +- jitter ms each way, so that 100 ms can be felt and measured on
 * loopback. Each direction is a queue in order of sending (TCP delivers in order: a line is
 * never released before the one sent ahead of it, so jitter bunches lines up as it does on a
 * real link); one timer per direction fires when the head is due. The delay of each line is
 * drawn uniformly from [latency - jitter, latency + jitter] by a small xorshift generator
 * (Marsaglia, "Xorshift RNGs"), seeded from the clock. */
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "lag.h"

typedef struct lag_item {
    struct lag_item *next;
    double due_ms;
    size_t len;
    char data[];
} lag_item;

static double draw_delay(cli_lag *lag)
{
    uint64_t x = lag->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    lag->rng = x;
    double u = (double)(x >> 11) / 9007199254740992.0; /* [0, 1) */
    double d = lag->latency_ms + lag->jitter_ms * (2.0 * u - 1.0);
    return d > 0 ? d : 0;
}

static void arm(cli_lag_dir *q);

static void on_due(uv_timer_t *t)
{
    cli_lag_dir *q = t->data;
    double now = cli_now_ms();
    while (q->head && q->head->due_ms <= now + 0.5) {
        lag_item *it = q->head;
        q->head = it->next;
        if (!q->head)
            q->tail = NULL;
        q->bytes -= it->len;
        q->deliver(q->ud, it->data, it->len);
        free(it);
        if (!q->open)
            return; /* delivering ended the run */
    }
    arm(q);
}

static void arm(cli_lag_dir *q)
{
    if (!q->open || !q->head)
        return;
    double wait = q->head->due_ms - cli_now_ms();
    uv_timer_start(&q->timer, on_due, wait > 0 ? (uint64_t)(wait + 0.5) : 0, 0);
}

void cli_lag_dir_init(cli_lag_dir *q, uv_loop_t *loop, cli_lag_deliver deliver, void *ud)
{
    memset(q, 0, sizeof *q);
    uv_timer_init(loop, &q->timer);
    q->timer.data = q;
    q->deliver = deliver;
    q->ud = ud;
    q->open = true;
}

int cli_lag_push(cli_lag *lag, cli_lag_dir *q, const char *data, size_t len)
{
    if (q->bytes + len > CLI_LAG_MAX_BYTES)
        return -1;
    lag_item *it = malloc(sizeof *it + len);
    if (!it)
        return -1;
    double now = cli_now_ms(), due = now + draw_delay(lag);
    if (q->tail && due < q->tail->due_ms)
        due = q->tail->due_ms; /* in order, as TCP delivers */
    it->next = NULL;
    it->due_ms = due;
    it->len = len;
    memcpy(it->data, data, len);
    if (q->tail)
        q->tail->next = it;
    else
        q->head = it;
    q->tail = it;
    q->bytes += len;
    if (q->head == it)
        arm(q);
    return 0;
}

void cli_lag_dir_drop(cli_lag_dir *q)
{
    q->open = false;
    while (q->head) {
        lag_item *it = q->head;
        q->head = it->next;
        free(it);
    }
    q->tail = NULL;
    q->bytes = 0;
}
