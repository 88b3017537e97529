/* Health of the server as Kubernetes probes and the Agones SDK ask for it.
 *
 * Liveness is about the clock: a world that has not stepped for --stall-seconds is stalled.
 * The probes are answered on the loop they watch, so a loop stuck in one long callback cannot
 * answer at all while it is stuck; the gap is measured when the steps resume and reported for
 * --stall-seconds after, so that a probe that waited sees it.
 *
 * Readiness is about players: a stopping or full server takes none. */
#include <stdio.h>

#include "health.h"
#include "net_server.h"
#include "session.h"

void net_health_stepped(net_server *srv, uint64_t now)
{
    net_health *h = &srv->health;
    if (h->last_step_ns != 0 && now - h->last_step_ns > srv->cfg.stall_seconds * 1e9) {
        h->stall_ns = now - h->last_step_ns;
        h->stall_end_ns = now;
    }
    h->last_step_ns = now;
}

bool net_health_live(const net_server *srv, uint64_t now, char *why, size_t cap)
{
    const net_health *h = &srv->health;
    double limit = srv->cfg.stall_seconds * 1e9;
    if (h->last_step_ns != 0 && (double)(now - h->last_step_ns) > limit) {
        snprintf(why, cap, "stalled: no step for %.3f s", (double)(now - h->last_step_ns) / 1e9);
        return false;
    }
    if (h->stall_end_ns != 0 && (double)(now - h->stall_end_ns) <= limit) {
        snprintf(why, cap, "stalled: no step for %.3f s, %.3f s ago", (double)h->stall_ns / 1e9,
                 (double)(now - h->stall_end_ns) / 1e9);
        return false;
    }
    return true;
}

uint32_t net_health_players(const net_server *srv)
{
    uint32_t n = 0;
    for (const net_session *s = srv->sessions; s; s = s->next)
        n += s->joined;
    return n;
}

bool net_health_ready(const net_server *srv, char *why, size_t cap)
{
    if (srv->stopping) {
        snprintf(why, cap, "draining: the server is stopping");
        return false;
    }
    if (srv->session_count >= srv->cfg.max_clients) {
        snprintf(why, cap, "full: %u clients, the limit", srv->session_count);
        return false;
    }
    return true;
}
