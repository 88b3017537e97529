/* A durable save, --save FILE (durable.c): when the world's image and the journal are written.
 * All of these do nothing without --save. */
#ifndef MINK_NET_DURABLE_H
#define MINK_NET_DURABLE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct net_server net_server;

/* Writes the first snapshot and opens the journal (0, or a libuv error after logging). */
int net_durable_start(net_server *srv);
/* After each step, at `now` (ns): flushes the journal and takes snapshots when due. */
void net_durable_tick(net_server *srv, uint64_t now);
/* Saves now (SIGHUP, stop: the journal flushed and fsync()ed, a snapshot begun); false
 * without --save. */
bool net_durable_save(net_server *srv, const char *why);
/* Frees it all once the loop has ended. */
void net_durable_free(net_server *srv);

#endif
