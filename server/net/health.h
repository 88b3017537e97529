/* The server's health as probes ask for it (health.c): whether the clock keeps time (/livez)
 * and whether the server takes players (/readyz). */
#ifndef MINK_NET_HEALTH_H
#define MINK_NET_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct net_server net_server;

/* A tick ran steps at `now` (ns); the first call starts the watch. */
void net_health_stepped(net_server *srv, uint64_t now);
/* /livez: the world stepped within --stall-seconds, and no gap between steps longer than that
 * ended within the last --stall-seconds (the HTTP port runs on the loop it watches, so it can
 * only answer once a stall is over, and must remember it). `why` gets the reason when false. */
bool net_health_live(const net_server *srv, uint64_t now, char *why, size_t cap);
/* /readyz: not stopping and not full. */
bool net_health_ready(const net_server *srv, char *why, size_t cap);
/* Clients that said hello. */
uint32_t net_health_players(const net_server *srv);

#endif
