/* The client's TCP connection (conn.h): resolve, connect, frame the server's lines (or read
 * them from WebSocket frames, ws.c), write messages, and close either at once or gracefully
 * (flush, end of stream, wait for the server's end). */
#include <stdlib.h>
#include <string.h>

#include "conn.h"

static char read_buf[64 * 1024];

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    (void)suggested;
    *buf = uv_buf_init(read_buf, sizeof read_buf);
}

/* Closes what is still open; a graceful close ends here too. */
static void finish(cli_conn *c)
{
    c->connected = false;
    if (c->tcp_open && !uv_is_closing((uv_handle_t *)&c->tcp))
        uv_close((uv_handle_t *)&c->tcp, NULL);
    if (c->linger_open && !uv_is_closing((uv_handle_t *)&c->linger))
        uv_close((uv_handle_t *)&c->linger, NULL);
}

static void lost(cli_conn *c, const char *why)
{
    cli_conn_close(c, false);
    if (c->on_closed)
        c->on_closed(c, why);
}

static int on_framed_line(void *ud, const char *line, size_t len)
{
    cli_conn *c = ud;
    c->on_line(c, line, len);
    return c->closing ? 1 : 0; /* the application quit during this line: drop the rest */
}

/* The WebSocket's ends (ws.h): its bytes go out on the socket, its messages are lines. */
static int write_raw(void *ud, const char *data, size_t len);

static int ws_opened(void *ud)
{
    cli_conn *c = ud;
    c->on_connect(c, 0);
    return c->closing;
}

static int ws_message(void *ud, const char *data, size_t len)
{
    return on_framed_line(ud, data, len);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    cli_conn *c = stream->data;
    if (c->closing) {
        /* A graceful close reads (and drops) until the server's end of stream, so that no
         * unread bytes turn our close into a reset. */
        if (nread < 0)
            finish(c);
        return;
    }
    if (nread < 0) {
        lost(c, nread == UV_EOF ? "the server closed the connection" : uv_strerror((int)nread));
        return;
    }
    if (c->ws) {
        const char *why = NULL;
        bool was_ready = c->wsock.ready;
        if (cli_ws_feed(&c->wsock, buf->base, (size_t)nread, &why) != 0) {
            if (!was_ready && !c->wsock.ready && !c->closing) {
                /* The handshake failed: the connection never was one. */
                cli_conn_close(c, false);
                c->on_connect(c, UV_ECONNREFUSED);
                return;
            }
            lost(c, why);
        }
        return;
    }
    int rc = proto_framer_feed(&c->framer, buf->base, (size_t)nread, on_framed_line, c);
    if (rc == PROTO_ERR_LINE_TOO_LONG)
        lost(c, "a line from the server is longer than 64 MiB");
    else if (rc < 0)
        lost(c, "out of memory");
}

static void on_connect(uv_connect_t *req, int status)
{
    cli_conn *c = req->data;
    if (c->closing)
        return;
    if (status == 0) {
        c->connected = true;
        uv_tcp_nodelay(&c->tcp, 1); /* inputs are small and late ones are useless */
        status = uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
        /* Over WebSocket the connection is made when the handshake is answered. */
        if (status == 0 && c->ws) {
            status = cli_ws_start(&c->wsock, "mink", write_raw, ws_opened, ws_message, c);
            if (status == 0)
                return;
        }
    }
    c->on_connect(c, status);
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
    cli_conn *c = req->data;
    c->resolving = false;
    if (status == 0 && !c->closing) {
        status = uv_tcp_init(c->loop, &c->tcp);
        if (status == 0) {
            c->tcp_open = true;
            c->tcp.data = c;
            c->connect.data = c;
            status = uv_tcp_connect(&c->connect, &c->tcp, res->ai_addr, on_connect);
        }
    }
    uv_freeaddrinfo(res);
    if (status != 0 && !c->closing)
        c->on_connect(c, status);
}

int cli_conn_start(cli_conn *c, uv_loop_t *loop, const char *host, int port)
{
    c->loop = loop;
    c->resolving = c->tcp_open = c->linger_open = c->connected = c->closing = false;
    c->wsock.ready = false;
    proto_framer_init(&c->framer, CLI_MAX_LINE);
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    c->resolve.data = c;
    int rc = uv_getaddrinfo(loop, &c->resolve, on_resolved, host, service, &hints);
    c->resolving = rc == 0;
    return rc;
}

typedef struct write_req {
    uv_write_t req;
    char data[];
} write_req;

static void on_write(uv_write_t *req, int status)
{
    (void)status; /* a failed write shows up as a read error or end of stream */
    free(req);
}

int cli_conn_send(cli_conn *c, const char *data, size_t len)
{
    if (!c->connected || c->closing)
        return UV_ENOTCONN;
    if (c->ws)
        return c->wsock.ready ? cli_ws_send(&c->wsock, data, len) : UV_ENOTCONN;
    return write_raw(c, data, len);
}

/* Writes bytes as they are (a line, the WebSocket's handshake and frames). */
static int write_raw(void *ud, const char *data, size_t len)
{
    cli_conn *c = ud;
    /* Most messages go out at once; uv_try_write refuses (UV_EAGAIN) while earlier bytes wait,
     * so the order holds. */
    uv_buf_t buf = uv_buf_init((char *)data, (unsigned)len);
    int n = uv_try_write((uv_stream_t *)&c->tcp, &buf, 1);
    if (n >= 0 && (size_t)n == len)
        return 0;
    if (n < 0 && n != UV_EAGAIN)
        return n;
    size_t done = n > 0 ? (size_t)n : 0;
    write_req *w = malloc(sizeof *w + (len - done));
    if (!w)
        return UV_ENOMEM;
    memcpy(w->data, data + done, len - done);
    buf = uv_buf_init(w->data, (unsigned)(len - done));
    int rc = uv_write(&w->req, (uv_stream_t *)&c->tcp, &buf, 1, on_write);
    if (rc != 0)
        free(w);
    return rc;
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    cli_conn *c = req->data;
    if (status != 0)
        finish(c); /* otherwise on_read sees the server's end of stream */
}

static void on_linger(uv_timer_t *t)
{
    finish(t->data);
}

void cli_conn_close(cli_conn *c, bool graceful)
{
    if (c->closing)
        return;
    c->closing = true;
    if (c->resolving)
        uv_cancel((uv_req_t *)&c->resolve);
    if (!c->tcp_open)
        return;
    if (graceful && c->connected) {
        c->shutdown.data = c;
        if (uv_shutdown(&c->shutdown, (uv_stream_t *)&c->tcp, on_shutdown) == 0 &&
            uv_timer_init(c->loop, &c->linger) == 0) {
            c->linger_open = true;
            c->linger.data = c;
            uv_timer_start(&c->linger, on_linger, CLI_LINGER_MS, 0);
            return;
        }
    }
    finish(c);
}

bool cli_conn_owns(const cli_conn *c, const uv_handle_t *h)
{
    return (c->tcp_open && h == (const uv_handle_t *)&c->tcp) ||
           (c->linger_open && h == (const uv_handle_t *)&c->linger);
}

void cli_conn_free(cli_conn *c)
{
    proto_framer_free(&c->framer);
    cli_ws_free(&c->wsock);
}
