/* Health of the server as Kubernetes probes and the Agones SDK ask for it, and the start and
 * the drain of the HTTP port and the SDK client.
 *
 * Liveness is about the clock: a world that has not stepped for --stall-seconds is stalled.
 * The probes are answered on the loop they watch, so a loop stuck in one long callback cannot
 * answer at all while it is stuck; the gap is measured when the steps resume and reported for
 * --stall-seconds after, so that a probe that waited sees it.
 *
 * Readiness is about players: a stopping or full server takes none. A stop (SIGTERM, which is
 * also how Kubernetes and Agones end a game server) turns /readyz to 503 at once and keeps the
 * HTTP port answering until the SDK has heard of the shutdown or --drain-seconds has passed. */
#include <stdio.h>
#include <stdlib.h>

#include "ops.h"

void net_health_stepped(net_server *srv, uint64_t now)
{
    if (srv->last_step_ns != 0 && now - srv->last_step_ns > srv->cfg.stall_seconds * 1e9) {
        srv->stall_ns = now - srv->last_step_ns;
        srv->stall_end_ns = now;
    }
    srv->last_step_ns = now;
}

bool net_health_live(const net_server *srv, uint64_t now, char *why, size_t cap)
{
    double limit = srv->cfg.stall_seconds * 1e9;
    if (srv->last_step_ns != 0 && (double)(now - srv->last_step_ns) > limit) {
        snprintf(why, cap, "stalled: no step for %.3f s", (double)(now - srv->last_step_ns) / 1e9);
        return false;
    }
    if (srv->stall_end_ns != 0 && (double)(now - srv->stall_end_ns) <= limit) {
        snprintf(why, cap, "stalled: no step for %.3f s, %.3f s ago", (double)srv->stall_ns / 1e9,
                 (double)(now - srv->stall_end_ns) / 1e9);
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

int net_ops_start(net_server *srv)
{
    srv->last_step_ns = uv_hrtime();
    if (srv->cfg.http_port > 0) {
        int rc = net_http_start(srv, &srv->http);
        if (rc != 0)
            return rc;
    }
    const char *port = getenv("AGONES_SDK_HTTP_PORT");
    if (port && *port) {
        char *end;
        long p = strtol(port, &end, 10);
        if (*end != '\0' || p < 1 || p > 65535) {
            LOG_ERROR("AGONES_SDK_HTTP_PORT '%s' is not a port number", port);
            return UV_EINVAL;
        }
        srv->agones = net_agones_start(srv, (int)p);
        if (!srv->agones)
            return UV_ENOMEM;
    }
    return 0;
}

void net_ops_stopping(net_server *srv)
{
    srv->stop_ns = uv_hrtime();
    if (srv->agones)
        net_agones_shutdown(srv->agones);
}

bool net_ops_closed(net_server *srv)
{
    bool late = (double)(uv_hrtime() - srv->stop_ns) >= srv->cfg.drain_seconds * 1e9;
    if (srv->agones) {
        if (!late && !net_agones_idle(srv->agones))
            return false;
        if (!net_agones_idle(srv->agones))
            LOG_WARN("agones: the SDK did not answer within --drain-seconds %g",
                     srv->cfg.drain_seconds);
        net_agones_close(srv->agones);
        srv->agones = NULL;
    }
    if (srv->http) {
        net_http_close(srv->http);
        if (!net_http_done(srv->http))
            return false;
        net_http_free(srv->http);
        srv->http = NULL;
    }
    return true;
}
