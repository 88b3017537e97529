/* The HTTP port: the web viewer at / (web.h), WebSocket players at /ws (ws.c), GET /metrics,
 * /livez, /healthz and /readyz, served by libwebsockets on the
 * server's own libuv loop (a "foreign loop", LWS_SERVER_OPTION_LIBUV with
 * lws_context_creation_info.foreign_loops), so a request reads the world and the counters
 * between two ticks without a lock. libwebsockets parses HTTP/1.1, answers a request it cannot
 * parse (or whose headers are over the limit) with its own 403 and closes, and gives WebSocket
 * and TLS on the same port.
 *
 * Limits, as on the game port: a request's headers fit in http_max_header bytes (longer is
 * refused by the parser), at most http_max_connections connections at once (more are closed at
 * accept), and a connection that has not sent its request within http_timeout seconds is
 * closed (a slow loris holds nothing for long). Only GET is served. */
#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"
#include "http.h"
#include "levels.h"
#include "metrics.h"
#include "net_server.h"
#include "web.h"
#include "ws.h"

struct net_http {
    net_server *srv;
    struct lws_context *ctx; /* NULL once libwebsockets has destroyed it (info.pcontext) */
    uint32_t wsi_live;       /* connections and listeners libwebsockets holds */
    uint32_t wsi_base;       /* of those, the listeners and the context's own */
    uint32_t ws_live;        /* of those, WebSocket players (counted against max_clients) */
    uint64_t refused;        /* connections closed at accept */
    bool closing;
    proto_buf body; /* scratch for building an answer */
};

/* An answer being written: its body, after LWS_PRE bytes libwebsockets may use for framing. */
#define HTTP_CHUNK 4096 /* bytes of an answer written a callback */

typedef struct http_conn {
    unsigned char *out;
    size_t len, sent;
    net_session *ws; /* after an upgrade on /ws: its session (ws.c) */
} http_conn;

static void on_lws_log(int level, const char *line)
{
    size_t n = strlen(line);
    while (n > 0 && line[n - 1] == '\n')
        n--;
    if (level & LLL_ERR)
        LOG_ERROR("http: %.*s", (int)n, line);
    else
        LOG_WARN("http: %.*s", (int)n, line);
}

static void text(proto_buf *b, const char *s)
{
    proto_buf_append_str(b, s);
    proto_buf_append_char(b, '\n');
}

/* Builds the answer to GET `path` in h->body; returns the status and sets the content type. */
static int route(net_http *h, const char *path, const char **type)
{
    net_server *srv = h->srv;
    proto_buf *b = &h->body;
    char why[160];
    *type = "text/plain; charset=utf-8";
    if (strcmp(path, "/metrics") == 0) {
        *type = "text/plain; version=0.0.4; charset=utf-8";
        net_metrics_write(srv, b);
        return 200;
    }
    if (strcmp(path, "/livez") == 0 || strcmp(path, "/healthz") == 0) {
        bool live = net_health_live(srv, uv_hrtime(), why, sizeof why);
        text(b, live ? "ok" : why);
        return live ? 200 : 503;
    }
    if (strcmp(path, "/readyz") == 0) {
        bool ready = net_health_ready(srv, why, sizeof why);
        text(b, ready ? "ready" : why);
        return ready ? 200 : 503;
    }
    int status = net_levels_http(srv, path, b, type);
    if (status != 0)
        return status;
    /* The web viewer: its page at /, its modules beside it. */
    const char *file = strcmp(path, "/") == 0 ? "/index.html" : path;
    for (const net_web_file *f = net_web_files; f->path; f++) {
        if (strcmp(file, f->path) == 0) {
            *type = f->type;
            proto_buf_append(b, (const char *)f->data, f->len);
            return 200;
        }
    }
    text(b, "not found: GET / (the web viewer), /ws (WebSocket), /metrics, /livez, /healthz, "
            "/readyz or /levels/KEY");
    return 404;
}

/* Sends the status line and headers now and the body when the socket is writable. */
static int answer(struct lws *wsi, net_http *h, http_conn *c, const char *path, bool get)
{
    const char *type = "text/plain; charset=utf-8";
    int status;
    proto_buf_clear(&h->body);
    if (get) {
        status = route(h, path, &type);
    } else {
        text(&h->body, "only GET is served here");
        status = 405;
    }
    if (h->body.failed)
        return -1;
    free(c->out);
    c->len = h->body.len;
    c->sent = 0;
    c->out = malloc(LWS_PRE + c->len);
    if (!c->out)
        return -1;
    memcpy(c->out + LWS_PRE, h->body.data, c->len);

    unsigned char head[LWS_PRE + 512], *start = head + LWS_PRE, *p = start,
                  *end = head + sizeof head - 1;
    if (lws_add_http_common_headers(wsi, (unsigned)status, type, (lws_filepos_t)c->len, &p,
                                    end))
        return -1;
    if (status == 405 &&
        lws_add_http_header_by_name(wsi, (const unsigned char *)"allow:",
                                    (const unsigned char *)"GET", 3, &p, end))
        return -1;
    if (lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                    (const unsigned char *)"no-store", 8, &p, end))
        return -1;
    if (lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    lws_callback_on_writable(wsi);
    return 0;
}

static int on_http(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                   size_t len)
{
    struct lws_context *ctx = lws_get_context(wsi);
    net_http *h = ctx ? lws_context_user(ctx) : NULL;
    http_conn *c = user;
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
    case LWS_CALLBACK_ESTABLISHED:
    case LWS_CALLBACK_RECEIVE:
    case LWS_CALLBACK_SERVER_WRITEABLE:
    case LWS_CALLBACK_CLOSED: {
        if (!h || !c)
            return -1;
        bool was = c->ws != NULL;
        int rc = net_ws_callback(h->srv, wsi, (int)reason, &c->ws, in, len);
        if (c->ws && !was)
            h->ws_live++;
        else if (!c->ws && was)
            h->ws_live--;
        return rc;
    }
    case LWS_CALLBACK_WSI_CREATE:
        if (h)
            h->wsi_live++;
        break;
    case LWS_CALLBACK_WSI_DESTROY:
        if (h && h->wsi_live > 0)
            h->wsi_live--;
        break;
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
        /* The new connection has no wsi yet: those counted are the ones already open. */
        /* WebSocket players are counted against max_clients with the game port's (ws.c), not
         * here: the limit holds the requests and the handshakes under way. */
        if (h && (h->closing ||
                  h->wsi_live - h->wsi_base - h->ws_live >= h->srv->cfg.http_max_connections)) {
            /* Logged at the 1st, 2nd, 4th, 8th... refusal: a flood does not flood the log. */
            h->refused++;
            if ((h->refused & (h->refused - 1)) == 0)
                LOG_WARN("http: %u connections open, the limit: closed at accept (%llu so far)",
                         h->wsi_live - h->wsi_base - h->ws_live, (unsigned long long)h->refused);
            return 1;
        }
        break;
    case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
        if (h)
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, h->srv->cfg.http_timeout);
        break;
    case LWS_CALLBACK_HTTP: {
        bool get = lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0;
        char path[128];
        snprintf(path, sizeof path, "%.*s", (int)(len < sizeof path ? len : sizeof path - 1),
                 in ? (const char *)in : "");
        if (!h || !c || answer(wsi, h, c, path, get) != 0)
            return -1;
        return 0;
    }
    case LWS_CALLBACK_HTTP_WRITEABLE: {
        if (!c || !c->out)
            break;
        /* A chunk a callback: libwebsockets takes at most its service buffer at a time
         * over TLS, and keeps what the socket does not take for its next writeable. */
        size_t left = c->len - c->sent, chunk = left < HTTP_CHUNK ? left : HTTP_CHUNK;
        bool last = chunk == left;
        int n = lws_write(wsi, c->out + LWS_PRE + c->sent, chunk,
                          last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP);
        if (n < 0)
            return -1;
        c->sent += chunk;
        if (!last) {
            lws_callback_on_writable(wsi);
            return 0;
        }
        free(c->out);
        c->out = NULL;
        /* Keep-alive: the connection waits for its next request (or its timeout). */
        if (lws_http_transaction_completed(wsi))
            return -1;
        return 0;
    }
    case LWS_CALLBACK_CLOSED_HTTP:
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        if (c) {
            free(c->out);
            c->out = NULL;
        }
        break;
    default:
        break;
    }
    return 0;
}

/* tx_packet_size: the most one send() is given. libwebsockets' default is its 4096-byte service
 * buffer, which would hand a 70 kB state to the kernel in 4 kB pieces, one a loop iteration;
 * the kernel takes what fits and libwebsockets keeps the rest. */
#define HTTP_TX_PACKET (256u << 10)

static const struct lws_protocols protocols[] = {
    {"mink-http", on_http, sizeof(http_conn), 0, 0, NULL, HTTP_TX_PACKET},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

int net_http_start(net_server *srv, net_http **out)
{
    net_http *h = calloc(1, sizeof *h);
    *out = NULL;
    if (!h) {
        LOG_ERROR("http: out of memory");
        return UV_ENOMEM;
    }
    h->srv = srv;
    proto_buf_init(&h->body);
    lws_set_log_level(LLL_ERR | LLL_WARN, on_lws_log);

    void *loops[1] = {srv->loop};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = srv->cfg.http_port;
    info.iface = srv->cfg.host;
    info.protocols = protocols;
    /* An explicit vhost: libwebsockets' default one would leave a context without a
     * listener when the port cannot be bound; lws_create_vhost says so instead. */
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN |
                   LWS_SERVER_OPTION_EXPLICIT_VHOSTS | LWS_SERVER_OPTION_VALIDATE_UTF8;
    info.foreign_loops = loops;
    info.user = h;
    info.pcontext = &h->ctx;
    info.max_http_header_data = (unsigned short)srv->cfg.http_max_header;
    info.max_http_header_pool = (unsigned short)srv->cfg.http_max_connections;
    /* A request's headers must be complete, and a kept-alive connection must ask again,
     * within the timeout (libwebsockets' timeout_secs_ah_idle, keepalive_timeout); a
     * connection that sends nothing at all gets the same (LWS_CALLBACK_SERVER_NEW_CLIENT_
     * INSTANTIATED below). */
    info.timeout_secs = (unsigned)srv->cfg.http_timeout;
    info.timeout_secs_ah_idle = (unsigned)srv->cfg.http_timeout;
    info.keepalive_timeout = srv->cfg.http_timeout;
    info.server_string = "mink";
    /* TLS through libwebsockets' OpenSSL: the vhost takes the certificate and key. */
    bool tls = srv->cfg.tls_cert != NULL;
    if (tls) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = srv->cfg.tls_cert;
        info.ssl_private_key_filepath = srv->cfg.tls_key;
        /* HTTP/1.1 only: a browser would otherwise open /ws as a WebSocket over HTTP/2
         * (RFC 8441), which the upgrade on /ws here is not. */
        info.alpn = "http/1.1";
    }
    h->ctx = lws_create_context(&info);
    if (!h->ctx) {
        LOG_ERROR("http: cannot start libwebsockets");
        proto_buf_free(&h->body);
        free(h);
        return UV_ENOMEM;
    }
    /* From here the context lives on the loop: on failure too it is closed through it. */
    *out = h;
    if (!lws_create_vhost(h->ctx, &info)) {
        if (tls)
            LOG_ERROR("cannot serve HTTPS on %s:%d (is the port in use, or are --tls-cert and "
                      "--tls-key not a PEM certificate and its key?)",
                      srv->cfg.host, srv->cfg.http_port);
        else
            LOG_ERROR("cannot serve HTTP on %s:%d (is the port in use? --http-port 0 turns it "
                      "off)", srv->cfg.host, srv->cfg.http_port);
        return UV_EADDRINUSE;
    }
    h->wsi_base = h->wsi_live;
    /* The URL an operator can paste: a wildcard address is reached on loopback. */
    const char *host = srv->cfg.host;
    bool v6 = strchr(host, ':') != NULL;
    if (strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0) {
        host = "localhost";
        v6 = false;
    }
    LOG_INFO("http on %s:%d: open %s://%s%s%s:%d/ to watch and play (WebSocket on /ws; "
             "/metrics, /livez, /healthz, /readyz)",
             srv->cfg.host, srv->cfg.http_port, tls ? "https" : "http", v6 ? "[" : "", host,
             v6 ? "]" : "",
             srv->cfg.http_port);
    return 0;
}

void net_http_close(net_http *h)
{
    if (h->closing)
        return;
    h->closing = true;
    /* On a foreign loop the destroy closes every connection and then the context's own
     * handles through the loop; the context is freed, and h->ctx set to NULL, in the last of
     * their close callbacks. */
    if (h->ctx)
        lws_context_destroy(h->ctx);
}

static void find_idle(uv_handle_t *handle, void *arg)
{
    if (handle->type == UV_IDLE)
        *(bool *)arg = true;
}

/* libwebsockets 4.1 on a foreign libuv loop ends in two calls: the first closes every
 * connection and then the context's own handles (its uv_idle_t and uv_timer_t) through the
 * loop; once their close callbacks have run, a second lws_context_destroy frees the context
 * (lws_context_destroy2/3 in lib/core/context.c). The server has no idle handle of its own, so
 * the idle handle's leaving the loop tells that the first part is over (both go in one close
 * pass). */
bool net_http_done(net_http *h)
{
    if (!h->ctx)
        return true;
    if (!h->closing)
        return false;
    bool idle = false;
    uv_walk(h->srv->loop, find_idle, &idle);
    if (idle)
        return false;
    lws_context_destroy(h->ctx);
    return h->ctx == NULL;
}

void net_http_free(net_http *h)
{
    if (!h)
        return;
    proto_buf_free(&h->body);
    free(h);
}
