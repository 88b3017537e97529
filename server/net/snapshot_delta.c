/* `subscribe {delta}`: each body a client has seen is sent relative to the last state of it
 * written to that client's socket (proto/delta.c: quantised, predicted along its velocity,
 * only the fields that differ). TCP delivers in order and a state is never dropped once
 * queued (a slow reader skips whole states, which then never were its baseline), so the
 * server knows each client's baseline without acknowledgements.
 *
 * What is shared is done once per snapshot: each sent body's state is quantised once into
 * d->q (net_delta_begin). What is the client's own is its baseline per slot (the quantised
 * state and the tick it is from). A body whose quantised state is its baseline and does not
 * move is not sent. Clients whose baseline of a body is from the same tick have the same
 * baseline (the body's state at that tick), and so the same entry but for the id's step: the
 * entry is encoded once, for the first of them, into the snapshot's shared buffer, and every
 * client whose entry before it is the same body's gets those bytes as they are, as compact
 * and object clients get theirs; the others get the id's step and a copy of the rest in their
 * own bytes (d->memo). Clients in the same phase that see the same bodies move along the
 * same baselines, so that after their first states one encoding serves them all. */
#include <string.h>

#include "snapshot_delta.h"

void net_delta_init(net_delta *d)
{
    memset(d, 0, sizeof *d);
    d->q.v = mk_vec_make(sizeof(int64_t));
    d->memo.v = mk_vec_make(sizeof(net_delta_memo));
}

void net_delta_free(net_delta *d)
{
    mk_vec_free(&d->q.v);
    mk_vec_free(&d->memo.v);
}

bool net_delta_reserve(net_delta *d, int dim, size_t slots)
{
    size_t need = (slots + 1) * (size_t)proto_q_count(dim), memos = d->memo.v.len;
    if (need > d->q.v.len && !mk_vec_resize(&d->q.v, need))
        return false;
    if (slots + 1 > memos) {
        if (!mk_vec_resize(&d->memo.v, slots + 1))
            return false;
        /* A memo stamped with round 0 is of no snapshot: new slots have none. */
        memset(d->memo.at + memos, 0, (slots + 1 - memos) * sizeof *d->memo.at);
    }
    return true;
}

bool net_delta_reserve_base(net_view *v, int dim, size_t slots)
{
    size_t need = slots * ((size_t)proto_q_count(dim) + 1);
    return need <= v->base.v.len || mk_vec_resize(&v->base.v, need);
}

void net_delta_begin(net_delta *d, const sim_world *w, uint32_t tick_hz, const bool *sent,
                     const sim_body *bodies, size_t slots, proto_buf *shared, proto_buf *own,
                     uint64_t tick)
{
    int dim = sim_world_dim(w);
    size_t stride = (size_t)proto_q_count(dim);
    d->dim = dim;
    d->tick_hz = tick_hz;
    d->tick = tick;
    d->shared = shared;
    d->own = own;
    d->round++; /* every memo of the last snapshot is stale */
    proto_body_state st;
    for (size_t i = 0; i < slots; i++) {
        if (!sent[i])
            continue; /* not sent this snapshot */
        wio_body_state(w, &bodies[i], &st);
        proto_quantise(dim, &st, &d->q.at[i * stride]);
    }
}

void net_delta_first(net_delta *d, net_view *v, const sim_world *w, const sim_body *body,
                     uint32_t slot)
{
    /* The first sighting's object carries the same numbers at the same precision: it is the
     * baseline. */
    size_t stride = (size_t)proto_q_count(d->dim);
    proto_body_state st;
    wio_body_state(w, body, &st);
    int64_t *base = &v->base.at[(size_t)slot * (stride + 1)];
    proto_quantise(d->dim, &st, base);
    base[stride] = (int64_t)d->tick;
    v->delta_prev_id = body->id;
}

/* The entry of a body from its memo for a client whose entry before it is another: the id's
 * step, then the tail as encoded, into the client's own bytes. */
static bool copy_entry(net_delta *d, const net_delta_memo *m, int64_t id_delta, bool first)
{
    proto_buf *own = d->own;
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
    memcpy(p, d->shared->data + m->off + m->tail, n);
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

net_delta_out net_delta_body(net_delta *d, net_view *v, const sim_body *body, uint32_t slot,
                             size_t *off, size_t *len)
{
    int dim = d->dim;
    size_t stride = dim == 3 ? 13 : 6;
    int64_t *base = &v->base.at[slot * (stride + 1)];
    uint64_t base_tick = (uint64_t)base[stride];
    const int64_t *q = &d->q.at[slot * stride];
    uint64_t tick = d->tick;
    int64_t id_delta = (int64_t)(body->id - v->delta_prev_id);
    net_delta_memo *m = &d->memo.at[slot];
    net_delta_out out = NET_DELTA_SHARED;
    if (m->round == d->round && m->base_tick == base_tick) {
        if (m->len == 0)
            return NET_DELTA_NONE;
        if (m->prev_id != v->delta_prev_id) {
            if (!copy_entry(d, m, id_delta, v->delta_prev_id == 0))
                return NET_DELTA_NONE;
            out = NET_DELTA_OWN;
        }
    } else {
        int64_t pred[PROTO_Q_MAX];
        proto_delta_predict(dim, base, tick - base_tick, d->tick_hz, q, pred);
        m->round = d->round;
        m->base_tick = base_tick;
        m->prev_id = v->delta_prev_id;
        m->len = 0;
        if (q_same(dim, q, base) && q_same(dim, pred, base))
            return NET_DELTA_NONE; /* at rest where the client has it */
        proto_buf *b = d->shared;
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
    v->delta_prev_id = body->id;
    return out;
}
