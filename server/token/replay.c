/* The replay check: the MACs of the tokens let in, each until its token expires.
 *
 * An open-addressed hash set with linear probing (the MAC's first 8 bytes are its hash: an
 * HMAC's output is uniformly spread) in a table fixed at creation: twice as many slots as
 * tokens it may hold, so probes stay short. An expired entry is reused by an insert on its
 * way; when the live count reaches the limit the table is rebuilt without the expired ones,
 * and if it is still full the token is refused: memory never grows, and a token is never
 * forgotten before it expires (forgetting would let it in twice). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mink_token.h"

typedef struct slot {
    uint8_t key[16]; /* the MAC's first 128 bits */
    int64_t exp;     /* 0: never used */
} slot;

struct tok_replay {
    slot *slots, *spare;
    size_t cap, limit, used; /* used: slots holding an entry, expired or not */
};

tok_replay *tok_replay_new(size_t live)
{
    tok_replay *r = calloc(1, sizeof *r);
    if (!r || live == 0)
        goto fail;
    r->limit = live;
    r->cap = 2 * live;
    r->slots = calloc(r->cap, sizeof *r->slots);
    r->spare = calloc(r->cap, sizeof *r->spare);
    if (!r->slots || !r->spare)
        goto fail;
    return r;
fail:
    tok_replay_free(r);
    return NULL;
}

void tok_replay_free(tok_replay *r)
{
    if (!r)
        return;
    free(r->slots);
    free(r->spare);
    free(r);
}

static size_t home(const tok_replay *r, const uint8_t *key)
{
    uint64_t h;
    memcpy(&h, key, sizeof h);
    return (size_t)(h % r->cap);
}

/* Keeps the unexpired entries only (they go into the spare table, which then takes over). */
static void rebuild(tok_replay *r, int64_t now)
{
    memset(r->spare, 0, r->cap * sizeof *r->spare);
    size_t used = 0;
    for (size_t i = 0; i < r->cap; i++) {
        const slot *e = &r->slots[i];
        if (e->exp == 0 || e->exp <= now)
            continue;
        size_t j = home(r, e->key);
        while (r->spare[j].exp != 0)
            j = (j + 1) % r->cap;
        r->spare[j] = *e;
        used++;
    }
    slot *t = r->slots;
    r->slots = r->spare;
    r->spare = t;
    r->used = used;
}

tok_replay_result tok_replay_check(tok_replay *r, const uint8_t mac[TOK_MAC_BYTES], int64_t exp,
                                   int64_t now)
{
    if (r->used >= r->limit)
        rebuild(r, now);
    /* Look along the probe run for the key; remember the first expired slot to reuse. */
    size_t i = home(r, mac), reuse = SIZE_MAX;
    for (; r->slots[i].exp != 0; i = (i + 1) % r->cap) {
        slot *e = &r->slots[i];
        if (e->exp > now && memcmp(e->key, mac, sizeof e->key) == 0)
            return TOK_REPLAYED;
        if (e->exp <= now && reuse == SIZE_MAX)
            reuse = i;
    }
    if (reuse == SIZE_MAX) {
        if (r->used >= r->limit)
            return TOK_FULL;
        reuse = i;
        r->used++;
    }
    memcpy(r->slots[reuse].key, mac, sizeof r->slots[reuse].key);
    r->slots[reuse].exp = exp;
    return TOK_FIRST;
}

size_t tok_replay_count(const tok_replay *r, int64_t now)
{
    size_t n = 0;
    for (size_t i = 0; i < r->cap; i++)
        n += r->slots[i].exp > now;
    return n;
}
