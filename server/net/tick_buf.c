/* The tick buffers: a pool, reference counted by the writes that point into them, so that a
 * snapshot's bodies are encoded once however many clients it is written to. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "tick_buf.h"

#define TICK_POOL_MAX 4 /* tick buffers kept for reuse; more only while slow writes hold them */

net_tick_buf *net_tick_get(net_tick_pool *p)
{
    net_tick_buf *t = p->free;
    if (t) {
        p->free = t->next;
        p->len--;
    } else {
        t = calloc(1, sizeof *t);
        if (!t)
            return NULL;
        proto_buf_init(&t->data);
        t->pool = p;
    }
    proto_buf_clear(&t->data);
    t->refs = 1;
    t->next = NULL;
    return t;
}

void net_tick_release(net_tick_buf *t)
{
    assert(t->refs > 0);
    if (--t->refs > 0)
        return;
    net_tick_pool *p = t->pool;
    if (p->len < TICK_POOL_MAX) {
        t->next = p->free;
        p->free = t;
        p->len++;
        return;
    }
    proto_buf_free(&t->data);
    free(t);
}

void net_tick_pool_free(net_tick_pool *p)
{
    while (p->free) {
        net_tick_buf *t = p->free;
        p->free = t->next;
        proto_buf_free(&t->data);
        free(t);
    }
    p->len = 0;
}

void net_state_bufs(const net_state *st, const char *own, uv_buf_t *bufs)
{
    for (size_t i = 0; i < st->n; i++) {
        const net_range *r = &st->ranges[i];
        const char *base = r->own ? own : st->tick->data.data;
        bufs[i] = uv_buf_init((char *)(base + r->off), (unsigned)r->len);
    }
}

size_t net_state_len(const net_state *st)
{
    size_t len = 0;
    for (size_t i = 0; i < st->n; i++)
        len += st->ranges[i].len;
    return len;
}

void net_state_copy(const net_state *st, char *out)
{
    for (size_t i = 0; i < st->n; i++) {
        const net_range *r = &st->ranges[i];
        memcpy(out, (r->own ? st->own : st->tick->data.data) + r->off, r->len);
        out += r->len;
    }
}
