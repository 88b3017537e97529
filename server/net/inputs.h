/* A client's inputs (inputs.c): the newest one set on its body, the ones that wait for the
 * step they name, and the acknowledgement its states carry (`ack`, `ack_tick`). */
#ifndef MINK_NET_INPUTS_H
#define MINK_NET_INPUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "counters.h"
#include "mink_proto.h"
#include "mink_sim.h"

#define NET_INPUTS_WAITING 64 /* inputs that may wait for their steps at once */

/* An input that waits for the step it names. */
typedef struct net_input {
    uint64_t seq, id, tick;
    double move[3];
    bool jump;
} net_input;

/* The newest seq received; the newest set on its body, which the next step applies; the
 * newest a step has applied (`ack`). Inputs that name a later step (`tick`) wait in
 * `waiting`, in the order received. */
typedef struct net_inputs {
    bool has_seq, has_set;
    uint64_t last_seq, set_seq;
    uint64_t ack;
    uint64_t ack_tick; /* the tick whose step first applied the input `ack` names (0: none) */
    net_input waiting[NET_INPUTS_WAITING];
    unsigned waiting_head, waiting_len;
} net_inputs;

/* An `input` message (m) for `body` (id `id`, the client's own, found and checked by the
 * caller): set on the body now, for the next step, or queued for the step it names. 0, or -1
 * with why not in *err (a seq not past the last one, a static body, a tick more than
 * max_ahead ticks past the next step, a full queue): nothing changed then. Counts the stamped
 * and the late ones in *c. */
int net_inputs_add(net_inputs *in, sim_world *w, const sim_body *body, uint64_t id,
                   const proto_msg *m, uint64_t max_ahead, net_counters *c, mk_error *err);
/* After a step: `ack` names the newest input that step applied, and the waiting inputs that
 * the next step is to apply first are set on their bodies (those of `owner`'s bodies still in
 * the world that are not static; the others are acknowledged and go nowhere). */
void net_inputs_apply(net_inputs *in, sim_world *w, uint32_t owner);

#endif
