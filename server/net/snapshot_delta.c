/* `subscribe {delta}`: each body a client has seen is sent relative to the last state of it
 * written to that client's socket (proto/delta.c: quantised, predicted along its velocity,
 * only the fields that differ). TCP delivers in order and a state is never dropped once
 * queued (a slow reader skips whole states, which then never were its baseline), so the
 * server knows each client's baseline without acknowledgements.
 *
 * What is shared is done once per snapshot: each sent body's state is quantised once into
 * srv->q (net_delta_encode). What is the client's own is its baseline per slot (the quantised
 * state and the tick it is from). A body whose quantised state is its baseline and does not
 * move is not sent. Clients whose baseline of a body is from the same tick have the same
 * baseline (the body's state at that tick), and so the same entry but for the id's step: the
 * entry is encoded once, for the first of them, into the snapshot's shared buffer, and every
 * client whose entry before it is the same body's gets those bytes as they are, as compact
 * and object clients get theirs; the others get the id's step and a copy of the rest in their
 * own bytes (srv->memo). Clients in the same phase that see the same bodies move along the
 * same baselines, so that after their first states one encoding serves them all. */
#include <stdlib.h>
#include <string.h>

#include "net_internal.h"
#include "session.h"

static size_t q_stride(const net_server *srv)
{
    return (size_t)proto_q_count(sim_world_dim(srv->world));
}

bool net_delta_reserve_server(net_server *srv, size_t slots)
{
    size_t need = (slots + 1) * q_stride(srv);
    if (need <= srv->q_cap && slots + 1 <= srv->memo_cap)
        return true;
    size_t cap = need + need / 2 + 64;
    int64_t *q = realloc(srv->q, cap * sizeof *q);
    if (!q)
        return false;
    srv->q = q;
    srv->q_cap = cap;
    if (slots + 1 > srv->memo_cap) {
        size_t n = cap / q_stride(srv);
        net_delta_memo *memo = realloc(srv->memo, n * sizeof *memo);
        if (!memo)
            return false;
        memset(memo + srv->memo_cap, 0, (n - srv->memo_cap) * sizeof *memo);
        srv->memo = memo;
        srv->memo_cap = n;
    }
    return true;
}

/* A client's baseline of a slot: the quantised state, then its tick. */
static int64_t *base_of(const net_server *srv, const net_session *s, uint32_t slot)
{
    return &s->base[(size_t)slot * (q_stride(srv) + 1)];
}

bool net_delta_reserve(net_server *srv, net_session *s, size_t slots)
{
    if (slots <= s->base_slots)
        return true;
    size_t n = slots + slots / 2 + 64, stride = q_stride(srv) + 1;
    int64_t *base = realloc(s->base, n * stride * sizeof *base);
    if (!base)
        return false;
    s->base = base;
    s->base_slots = n;
    return true;
}

void net_delta_encode(net_server *srv, const sim_body *bodies, size_t slots)
{
    size_t stride = q_stride(srv);
    int dim = sim_world_dim(srv->world);
    srv->delta_dim = dim;
    proto_body_state st;
    srv->delta_round++; /* every memo of the last snapshot is stale */
    for (size_t i = 0; i < slots; i++) {
        if (!srv->sent[i])
            continue; /* not sent this snapshot */
        wio_body_state(srv->world, &bodies[i], &st);
        proto_quantise(dim, &st, &srv->q[i * stride]);
    }
}

void net_delta_first(net_server *srv, net_session *s, const sim_body *body, uint32_t slot)
{
    /* The first sighting's object carries the same numbers at the same precision: it is the
     * baseline. */
    proto_body_state st;
    wio_body_state(srv->world, body, &st);
    int64_t *base = base_of(srv, s, slot);
    proto_quantise(sim_world_dim(srv->world), &st, base);
    base[q_stride(srv)] = (int64_t)srv->tick->tick;
    s->delta_prev_id = body->id;
}

/* The entry of a body from its memo for a client whose entry before it is another: the id's
 * step, then the tail as encoded, into the client's own bytes. */
static bool copy_entry(net_server *srv, const net_delta_memo *m, int64_t id_delta, bool first)
{
    proto_buf *own = &srv->own;
    size_t n = m->len - m->tail;
    if (!proto_buf_reserve(own, n + 24))
        return false;
    char *p = own->data + own->len;
    if (!first)
        *p++ = ',';
    *p++ = '[';
    if (id_delta < 0)
        *p++ = '-';
    p = proto_put_u64(p, id_delta < 0 ? (uint64_t)0 - (uint64_t)id_delta : (uint64_t)id_delta);
    memcpy(p, srv->tick->data.data + m->off + m->tail, n);
    own->len = (size_t)(p + n - own->data);
    return true;
}

/* A quantised state copied or compared with its length a constant of each dimension: a few
 * moves inlined, where a length known only at run time costs a library call per body and
 * client. */
static inline void q_copy(int dim, int64_t *to, const int64_t *from)
{
    if (dim == 3)
        memcpy(to, from, 13 * sizeof *to);
    else
        memcpy(to, from, 6 * sizeof *to);
}

static inline bool q_same(int dim, const int64_t *a, const int64_t *b)
{
    return dim == 3 ? memcmp(a, b, 13 * sizeof *a) == 0 : memcmp(a, b, 6 * sizeof *a) == 0;
}

net_delta_out net_delta_body(net_server *srv, net_session *s, const sim_body *body,
                             uint32_t slot, size_t *off, size_t *len)
{
    int dim = srv->delta_dim;
    size_t stride = dim == 3 ? 13 : 6;
    int64_t *base = &s->base[slot * (stride + 1)];
    uint64_t base_tick = (uint64_t)base[stride];
    const int64_t *q = &srv->q[slot * stride];
    uint64_t tick = srv->tick->tick;
    int64_t id_delta = (int64_t)(body->id - s->delta_prev_id);
    net_delta_memo *m = &srv->memo[slot];
    net_delta_out out = NET_DELTA_SHARED;
    if (m->round == srv->delta_round && m->base_tick == base_tick) {
        if (m->len == 0)
            return NET_DELTA_NONE;
        if (m->prev_id != s->delta_prev_id) {
            if (!copy_entry(srv, m, id_delta, s->delta_prev_id == 0))
                return NET_DELTA_NONE;
            out = NET_DELTA_OWN;
        }
    } else {
        int64_t pred[PROTO_Q_MAX];
        proto_delta_predict(dim, base, tick - base_tick, srv->world_tick_hz, q, pred);
        m->round = srv->delta_round;
        m->base_tick = base_tick;
        m->prev_id = s->delta_prev_id;
        m->len = 0;
        if (q_same(dim, q, base) && q_same(dim, pred, base))
            return NET_DELTA_NONE; /* at rest where the client has it */
        proto_buf *b = &srv->tick->data;
        size_t mark = b->len;
        size_t tail = proto_state_body_delta(b, dim, id_delta, pred, q, false);
        if (b->len == mark)
            return NET_DELTA_NONE; /* out of memory: nothing written, the baseline stays */
        m->off = mark;
        m->len = b->len - mark;
        m->tail = tail - mark;
    }
    *off = m->off;
    *len = m->len;
    q_copy(dim, base, q);
    base[stride] = (int64_t)tick;
    s->delta_prev_id = body->id;
    return out;
}
