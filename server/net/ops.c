/* The operator's side of the server started and drained: the HTTP port (http.c) and the Agones
 * SDK client (agones.c). A stop (SIGTERM, which is also how Kubernetes and Agones end a game
 * server) turns /readyz to 503 at once (health.c) and keeps the HTTP port answering until the
 * SDK has heard of the shutdown or --drain-seconds has passed. */
#include <stdlib.h>

#include "agones.h"
#include "health.h"
#include "http.h"
#include "net_server.h"
#include "ops.h"

int net_ops_start(net_server *srv)
{
    net_health_stepped(srv, uv_hrtime()); /* the watch on the clock starts now */
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
