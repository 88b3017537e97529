/* A client's view of the world across its states: the bitset of the slots it has seen, what
 * it is to be told is gone, and when its states are due. */
#include <math.h>
#include <string.h>

#include "view.h"

void net_view_init(net_view *v)
{
    memset(v, 0, sizeof *v);
    v->seen.v = mk_vec_make(sizeof(uint8_t));
    v->removed.v = mk_vec_make(sizeof(sim_id));
    v->near.v = mk_vec_make(sizeof(uint32_t));
    v->base.v = mk_vec_make(sizeof(int64_t));
    v->joints_seen.v = mk_vec_make(sizeof(uint8_t));
    v->removed_joints.v = mk_vec_make(sizeof(sim_id));
}

void net_view_free(net_view *v)
{
    mk_vec_free(&v->seen.v);
    mk_vec_free(&v->removed.v);
    mk_vec_free(&v->near.v);
    mk_vec_free(&v->base.v);
    mk_vec_free(&v->joints_seen.v);
    mk_vec_free(&v->removed_joints.v);
}

bool net_view_reserve(net_view *v, size_t slots)
{
    size_t old = v->seen.v.len, bytes = (slots + 7) / 8;
    if (bytes <= old)
        return true;
    if (!mk_vec_resize(&v->seen.v, bytes))
        return false;
    memset(v->seen.at + old, 0, bytes - old);
    return true;
}

bool net_view_forget(net_view *v, const sim_id *ids, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t slot = sim_id_slot(ids[i]);
        if (!net_view_seen(v, slot))
            continue;
        net_view_unsee(v, slot);
        if (!MK_VEC_PUSH(&v->removed, ids[i]))
            return false;
    }
    return true;
}

uint32_t net_view_phases(const net_config *cfg)
{
    return (uint32_t)ceil(cfg->tick_hz / cfg->snapshot_hz);
}

/* Whether a snapshot period of a client of this phase ended in the steps from tick `since` to
 * `tick`: true when floor((t + phase) * snapshot_hz / tick_hz) changed in between, which
 * spreads the snapshots evenly even when the rates do not divide. Clients get phases 0, 1, ...
 * in turn, so that at 60 Hz ticks and 20 Hz states a third of them is written each tick: the
 * work of a snapshot (most of it the kernel copying the bytes) is spread over the ticks, and
 * no single tick carries all of it. */
bool net_view_due(const net_view *v, const net_config *cfg, uint64_t since, uint64_t tick)
{
    double per = cfg->snapshot_hz / cfg->tick_hz;
    return (uint64_t)((double)(tick + v->phase) * per) !=
           (uint64_t)((double)(since + v->phase) * per);
}
