/* Sending a snapshot's `state`s (snapshot_write.c): whether one is due, then the states built
 * (snapshot.c) handed to the sessions' transports. */
#ifndef MINK_NET_SNAPSHOT_WRITE_H
#define MINK_NET_SNAPSHOT_WRITE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct net_server net_server;

/* Whether a joined session is due a state after the steps from tick `since` to now. */
bool net_snapshot_due(const net_server *srv, uint64_t since);
/* After the steps since tick `since`: builds the states of the sessions due one and hands
 * them to their transports (with backpressure: a session still writing its last state gets
 * none); a session whose state could not be built or written is closed. */
void net_snapshot_send(net_server *srv, uint64_t since);

#endif
