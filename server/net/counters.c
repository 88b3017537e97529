/* The server's counters: a few additions on the tick (net_metrics_observe_tick) and when a
 * client leaves, everything else worked out when a scraper asks (metrics.c). */
#include <string.h>

#include "counters.h"

static const uint64_t tick_bounds_ns[NET_TICK_BUCKETS] = {
    500000, 1000000, 2000000, 4000000, 8000000, 16000000, 32000000, 64000000, 128000000,
};

void net_metrics_observe_tick(net_counters *c, uint64_t ns)
{
    int i = 0;
    while (i < NET_TICK_BUCKETS && ns > tick_bounds_ns[i])
        i++;
    c->tick_buckets[i]++;
    c->tick_ns += ns;
    c->ticks_timed++;
}

/* The reasons are the literals session.c and server.c close with; what is left is libuv's
 * text of a socket error. */
net_disconnect_reason net_metrics_reason(const char *reason)
{
    static const struct {
        const char *text;
        net_disconnect_reason label;
    } known[] = {
        {"connection closed", NET_DISC_CLOSED},
        {"said bye", NET_DISC_CLOSED},
        {"no hello in time", NET_DISC_NO_HELLO},
        {"too slow a reader", NET_DISC_SLOW_READER},
        {"output over the hard limit", NET_DISC_SLOW_READER},
        {"unauthorized", NET_DISC_UNAUTHORIZED},
        {"signed in again", NET_DISC_UNAUTHORIZED},
        {"line too long", NET_DISC_LINE_TOO_LONG},
        {"server full", NET_DISC_SERVER_FULL},
        {"server stopping", NET_DISC_SHUTDOWN},
        {"server stopped", NET_DISC_SHUTDOWN},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(reason, known[i].text) == 0)
            return known[i].label;
    if (strncmp(reason, "out of memory", 13) == 0)
        return NET_DISC_OUT_OF_MEMORY;
    return NET_DISC_IO_ERROR;
}

void net_metrics_count_disconnect(net_counters *c, const char *reason)
{
    c->disconnects[net_metrics_reason(reason)]++;
}
