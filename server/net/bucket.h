/* A token bucket (the leaky-bucket rate limit of traffic shaping): refills at `rate` tokens a
 * second up to `burst`; starts full. The message rate's backpressure (intake.c) and the spawn
 * rate (handlers.c) each keep one per session. */
#ifndef MINK_NET_BUCKET_H
#define MINK_NET_BUCKET_H

#include <stdbool.h>
#include <stdint.h>

typedef struct net_bucket {
    double tokens;
    uint64_t last_ns;
} net_bucket;

/* Takes one token when there is one, at `now_ns`. */
static inline bool net_bucket_take(net_bucket *b, double rate, double burst, uint64_t now_ns)
{
    if (b->last_ns == 0) {
        b->tokens = burst;
    } else {
        b->tokens += rate * (double)(now_ns - b->last_ns) * 1e-9;
        if (b->tokens > burst)
            b->tokens = burst;
    }
    b->last_ns = now_ns;
    if (b->tokens < 1.0)
        return false;
    b->tokens -= 1.0;
    return true;
}

#endif
