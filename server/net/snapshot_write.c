/* Writing the `state`s of a snapshot (snapshot.c builds them): each client's ranges go to its
 * transport (a TCP session's as one uv_write whose buffers point into the shared tick buffer),
 * which is reference counted and goes back to a small pool when the last write that points
 * into it has completed. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "net_internal.h"
#include "session.h"

#define TICK_POOL_MAX 4 /* tick buffers kept for reuse; more only while slow writes hold them */

/* ---- tick buffers ---- */

net_tick_buf *net_tick_get(net_server *srv)
{
    net_tick_buf *t = srv->tick_pool;
    if (t) {
        srv->tick_pool = t->next;
        srv->tick_pool_len--;
    } else {
        t = calloc(1, sizeof *t);
        if (!t)
            return NULL;
        proto_buf_init(&t->data);
    }
    proto_buf_clear(&t->data);
    t->refs = 1;
    t->next = NULL;
    return t;
}

void net_tick_release(net_server *srv, net_tick_buf *t)
{
    assert(t->refs > 0);
    if (--t->refs > 0)
        return;
    if (srv->tick_pool_len < TICK_POOL_MAX) {
        t->next = srv->tick_pool;
        srv->tick_pool = t;
        srv->tick_pool_len++;
        return;
    }
    proto_buf_free(&t->data);
    free(t);
}


void net_tick_pool_free(net_server *srv)
{
    while (srv->tick_pool) {
        net_tick_buf *t = srv->tick_pool;
        srv->tick_pool = t->next;
        proto_buf_free(&t->data);
        free(t);
    }
    srv->tick_pool_len = 0;
}

/* ---- writing ---- */

void net_state_bufs(const net_server *srv, const net_session *s, const char *own,
                    uv_buf_t *bufs)
{
    for (size_t i = s->range_begin; i < s->range_end; i++) {
        const net_range *r = &srv->ranges[i];
        const char *base = r->own ? own : srv->tick->data.data;
        bufs[i - s->range_begin] = uv_buf_init((char *)(base + r->off), (unsigned)r->len);
    }
}

static void write_state(net_server *srv, net_session *s)
{
    int rc = s->tr->write_state(s, srv->tick);
    if (rc != 0) {
        net_session_close(s, rc == UV_ENOMEM ? "out of memory writing a state" : uv_strerror(rc));
        return;
    }
    srv->stats.states++;
    srv->stats.c.msgs_out++;
    for (size_t i = s->range_begin; i < s->range_end; i++)
        srv->stats.c.bytes_out += srv->ranges[i].len;
    /* What the socket did not take counts against the client's output limit. */
    net_session_check_hard_limit(s, 0);
}

void net_snapshot_write(net_server *srv)
{
    net_walk_begin(srv); /* a failed write closes s when the pass ends */
    for (net_session *s = srv->sessions; s; s = s->next) {
        if (s->state_ready && !s->closing && !s->close_reason)
            write_state(srv, s);
        s->state_ready = false;
    }
    net_walk_end(srv);
    net_snapshot_discard(srv);
}

void net_snapshot_discard(net_server *srv)
{
    for (net_session *s = srv->sessions; s; s = s->next)
        s->state_ready = false;
    if (srv->tick)
        net_tick_release(srv, srv->tick);
    srv->tick = NULL;
}

void net_snapshot_copy(const net_server *srv, const net_session *s, proto_buf *out)
{
    proto_buf_clear(out);
    for (size_t i = s->range_begin; i < s->range_end; i++) {
        const net_range *r = &srv->ranges[i];
        const char *base = r->own ? srv->own.data + s->own_begin : srv->tick->data.data;
        proto_buf_append(out, base + r->off, r->len);
    }
}
