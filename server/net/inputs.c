/* A client's inputs: set on its body for the next step, or kept until the step they name.
 *
 * An input is set on its body at once, for the next step, unless it names a later step
 * (`tick`, the Source engine's and Overwatch's stamped commands: a client that runs its
 * prediction ahead of the server by the round trip stamps each input with the step it
 * predicted it for, and the server applies it by that very step, so that the prediction
 * and the server agree however the input travelled). Such an input waits, and so does
 * every input after it: they are applied in the order sent. A tick already past is applied
 * at once; a tick more than a second ahead is refused. */
#include <string.h>

#include "inputs.h"

static void set_input(net_inputs *in, sim_world *w, const sim_body *body, const double move[3],
                      bool jump, uint64_t seq)
{
    if (sim_world_dim(w) == 3)
        sim_body_set_input3(w, body->id, mk_v3((float)move[0], (float)move[1], (float)move[2]),
                            jump);
    else
        sim_body_set_input2(w, body->id, mk_v2((float)move[0], (float)move[1]), jump);
    in->has_set = true;
    in->set_seq = seq;
}

/* The metrics of an accepted input that names its tick: late when that step has begun. */
static void count_stamp(net_counters *c, const proto_msg *m, uint64_t next)
{
    if (!m->u.input.has_tick)
        return;
    c->inputs_stamped++;
    c->inputs_late += m->u.input.tick < next;
}

int net_inputs_add(net_inputs *in, sim_world *w, const sim_body *body, uint64_t id,
                   const proto_msg *m, uint64_t max_ahead, net_counters *c, mk_error *err)
{
    if (in->has_seq && m->u.input.seq <= in->last_seq)
        return mk_fail(err, MK_ERR_INVALID, "seq: %llu is not greater than the last seq %llu",
                       (unsigned long long)m->u.input.seq, (unsigned long long)in->last_seq);
    if (body->kind == SIM_STATIC)
        return mk_fail(err, MK_ERR_INVALID, "id: a static body takes no input");
    uint64_t next = sim_world_tick(w) + 1;
    uint64_t tick = m->u.input.has_tick ? m->u.input.tick : next;
    if (tick > next + max_ahead)
        return mk_fail(err, MK_ERR_INVALID,
                       "tick: %llu is more than a second (%llu ticks) past the next step, %llu",
                       (unsigned long long)tick, (unsigned long long)max_ahead,
                       (unsigned long long)next);
    bool now = in->waiting_len == 0 && tick <= next;
    if (!now && in->waiting_len == NET_INPUTS_WAITING)
        return mk_fail(err, MK_ERR_INVALID, "tick: %d inputs wait for their steps already",
                       NET_INPUTS_WAITING);
    count_stamp(c, m, next);
    in->has_seq = true;
    in->last_seq = m->u.input.seq;
    if (now) {
        set_input(in, w, body, m->u.input.move, m->u.input.jump, m->u.input.seq);
        return 0;
    }
    net_input *q = &in->waiting[(in->waiting_head + in->waiting_len++) % NET_INPUTS_WAITING];
    *q = (net_input){.seq = m->u.input.seq, .id = id, .tick = tick, .jump = m->u.input.jump};
    memcpy(q->move, m->u.input.move, sizeof q->move);
    return 0;
}

void net_inputs_apply(net_inputs *in, sim_world *w, uint32_t owner)
{
    /* Every input received before this step has now been applied; a new one first by this
     * step, which the states say (`ack_tick`) so that a client replays its inputs from
     * where the server took them up. */
    if (in->has_set && (in->ack != in->set_seq || in->ack_tick == 0)) {
        in->ack = in->set_seq;
        in->ack_tick = sim_world_tick(w);
    }
    uint64_t next = sim_world_tick(w) + 1;
    while (in->waiting_len > 0) {
        net_input *q = &in->waiting[in->waiting_head];
        if (q->tick > next)
            break;
        in->waiting_head = (in->waiting_head + 1) % NET_INPUTS_WAITING;
        in->waiting_len--;
        /* The body may have left the world, or this client's hands, since: then the input
         * is acknowledged and goes nowhere. */
        const sim_body *body = sim_world_get(w, q->id);
        if (body && body->owner == owner && body->kind != SIM_STATIC) {
            set_input(in, w, body, q->move, q->jump, q->seq);
        } else {
            in->has_set = true;
            in->set_seq = q->seq;
        }
    }
}
