/* A client's view of the world's joints: the first sighting of each joint in `state`
 * (`joints: [{id, type, a, b, local_a, local_b}]`, once) and `removed_joints` when it is gone,
 * as bodies are seen and removed (view.c). Every joint is sent, whatever the interest radius:
 * a client draws one when it knows both of its bodies. */
#include <string.h>

#include "view.h"

static bool joint_seen(const net_view *v, uint32_t slot)
{
    return (slot >> 3) < v->joints_seen.v.len && (v->joints_seen.at[slot >> 3] >> (slot & 7)) & 1u;
}

bool net_view_forget_joints(net_view *v, const sim_id *ids, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t slot = sim_id_slot(ids[i]);
        if (!joint_seen(v, slot))
            continue;
        v->joints_seen.at[slot >> 3] &= (uint8_t) ~(1u << (slot & 7));
        if (!MK_VEC_PUSH(&v->removed_joints, ids[i]))
            return false;
    }
    return true;
}

bool net_view_write_joints(net_view *v, const sim_world *w, proto_buf *out)
{
    size_t slots;
    const sim_joint *j = sim_world_joint_slots(w, &slots);
    size_t old = v->joints_seen.v.len, bytes = (slots + 7) / 8;
    if (bytes > old) {
        if (!mk_vec_resize(&v->joints_seen.v, bytes))
            return false;
        memset(v->joints_seen.at + old, 0, bytes - old);
    }
    int dim = sim_world_dim(w);
    bool first = true;
    for (size_t s = 0; s < slots; s++) {
        if (j[s].id == 0 || joint_seen(v, (uint32_t)s))
            continue;
        if (first)
            proto_state_joints_begin(out);
        proto_joint_state st;
        wio_joint_state(w, &j[s], &st);
        proto_state_joint(out, dim, &st, first);
        first = false;
        v->joints_seen.at[s >> 3] |= (uint8_t)(1u << (s & 7));
    }
    if (!first)
        proto_state_joints_end(out);
    proto_state_removed_joints(out, v->removed_joints.at, v->removed_joints.v.len);
    v->removed_joints.v.len = 0;
    return !out->failed;
}
