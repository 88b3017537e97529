/* The game port's transport: a TCP connection carrying JSON Lines (libuv streams). The session
 * code reaches it only through tcp_transport; this file owns the connection (the handle and
 * the framing of lines), the reads and the writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intake.h"
#include "net_server.h"
#include "session.h"
#include "tcp.h"
#include "tick_buf.h"

/* libuv reads into one buffer for the whole server: read callbacks run one at a time and the
 * framer copies what it keeps, so no session needs a read buffer of its own. */
static char read_buf[64 * 1024];

/* A session's connection. libuv's rule: the handle's memory lives until its close callback
 * (on_close), which frees the connection and the session together. The handle's data is the
 * session: the stop's last pass (server.c) closes what is left of a session by its handle. */
typedef struct tcp_conn {
    uv_tcp_t handle; /* first: libuv hands back the handle, and it is the connection */
    proto_framer framer; /* the stream cut into lines */
} tcp_conn;

static uv_stream_t *stream_of(const net_session *s) { return (uv_stream_t *)s->conn; }

typedef struct write_req {
    uv_write_t req;
    net_session *s;
    char data[]; /* the bytes libuv writes */
} write_req;

/* A state's write: its buffers point into the tick buffer, which it keeps alive, and into its
 * copy of the session's own bytes. */
typedef struct state_write {
    uv_write_t req;
    net_session *s;
    net_tick_buf *tick;
    char own[];
} state_write;

static void on_close(uv_handle_t *h)
{
    tcp_conn *c = (tcp_conn *)h;
    net_session *s = h->data;
    proto_framer_free(&c->framer);
    free(c);
    net_session_free(s);
}

static void on_write(uv_write_t *req, int status)
{
    write_req *w = (write_req *)req;
    net_session *s = w->s;
    free(w);
    if (status < 0 && status != UV_ECANCELED)
        net_session_close(s, uv_strerror(status));
}

static void tcp_send(net_session *s, const char *data, size_t len)
{
    /* Try to write at once (libuv refuses while earlier bytes wait, so the order holds), and
     * copy only what the socket did not take. */
    uv_buf_t b = uv_buf_init((char *)data, (unsigned)len);
    int n = uv_try_write(stream_of(s), &b, 1);
    if (n == (int)len)
        return;
    if (n > 0) {
        data += n;
        len -= (size_t)n;
    } else if (n != UV_EAGAIN) {
        net_session_close(s, uv_strerror(n));
        return;
    }
    if (net_session_check_hard_limit(s, len))
        return;
    write_req *w = malloc(sizeof *w + len);
    if (!w) {
        net_session_close(s, "out of memory");
        return;
    }
    w->s = s;
    memcpy(w->data, data, len);
    b = uv_buf_init(w->data, (unsigned)len);
    int rc = uv_write(&w->req, stream_of(s), &b, 1, on_write);
    if (rc != 0) {
        free(w);
        net_session_close(s, uv_strerror(rc));
    }
}

static void on_state_written(uv_write_t *req, int status)
{
    state_write *w = (state_write *)req;
    net_session *s = w->s;
    s->state_in_flight = false;
    net_tick_release(w->tick);
    free(w);
    if (status < 0 && status != UV_ECANCELED)
        net_session_close(s, uv_strerror(status));
}

static int tcp_write_state(net_session *s, const net_state *st)
{
    uv_buf_t small[8];
    uv_buf_t *bufs = st->n <= 8 ? small : malloc(st->n * sizeof *bufs);
    state_write *w = malloc(sizeof *w + st->own_len);
    if (!bufs || !w) {
        if (bufs != small)
            free(bufs);
        free(w);
        return UV_ENOMEM;
    }
    memcpy(w->own, st->own, st->own_len);
    net_state_bufs(st, w->own, bufs);
    w->s = s;
    w->tick = st->tick;
    st->tick->refs++;
    /* libuv copies the buffer list and writes what the socket takes at once; the rest waits
     * in its queue, pointing into the tick buffer, which this write keeps alive. */
    int rc = uv_write(&w->req, stream_of(s), bufs, (unsigned)st->n, on_state_written);
    if (bufs != small)
        free(bufs);
    if (rc != 0) {
        st->tick->refs--;
        free(w);
        return rc;
    }
    s->state_in_flight = true;
    return 0;
}

static size_t tcp_queued(const net_session *s)
{
    return uv_stream_get_write_queue_size(stream_of(s));
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    (void)suggested;
    *buf = uv_buf_init(read_buf, sizeof read_buf);
}

static int on_line(void *ud, const char *line, size_t len)
{
    return net_session_message(ud, line, len) ? 1 : 0;
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    net_session *s = stream->data;
    tcp_conn *c = (tcp_conn *)stream;
    if (nread < 0) {
        net_session_close(s, nread == UV_EOF ? "connection closed" : uv_strerror((int)nread));
        return;
    }
    s->srv->stats.c.bytes_in += (uint64_t)nread;
    int rc = proto_framer_feed(&c->framer, buf->base, (size_t)nread, on_line, s);
    if (rc == PROTO_ERR_LINE_TOO_LONG)
        net_session_too_long(s);
    else if (rc < 0)
        net_session_close(s, "out of memory");
}

static void tcp_read_pause(net_session *s) { uv_read_stop(stream_of(s)); }

static void tcp_read_resume(net_session *s)
{
    uv_read_start(stream_of(s), on_alloc, on_read);
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    (void)status;
    uv_handle_t *h = (uv_handle_t *)req->handle;
    free(req);
    if (!uv_is_closing(h))
        uv_close(h, on_close);
}

static void tcp_close(net_session *s, bool flush)
{
    uv_handle_t *h = s->conn;
    if (uv_is_closing(h))
        return;
    /* The shutdown completes once the queued writes are done. */
    uv_shutdown_t *req = flush ? malloc(sizeof *req) : NULL;
    if (!req || uv_shutdown(req, stream_of(s), on_shutdown) != 0) {
        free(req);
        uv_close(h, on_close);
    }
}

static const net_transport tcp_transport = {
    .name = "tcp",
    .send = tcp_send,
    .write_state = tcp_write_state,
    .queued = tcp_queued,
    .read_pause = tcp_read_pause,
    .read_resume = tcp_read_resume,
    .close = tcp_close,
};

static void format_peer(uv_tcp_t *tcp, char *out, size_t outlen)
{
    struct sockaddr_storage ss;
    int len = sizeof ss;
    char ip[48] = "?";
    int port = 0;
    if (uv_tcp_getpeername(tcp, (struct sockaddr *)&ss, &len) == 0) {
        if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
            uv_ip6_name(a, ip, sizeof ip);
            port = ntohs(a->sin6_port);
        } else {
            struct sockaddr_in *a = (struct sockaddr_in *)&ss;
            uv_ip4_name(a, ip, sizeof ip);
            port = ntohs(a->sin_port);
        }
    }
    snprintf(out, outlen, "%s:%d", ip, port);
}

void net_on_connection(uv_stream_t *listener, int status)
{
    net_server *srv = listener->data;
    if (status < 0) {
        LOG_WARN("accept: %s", uv_strerror(status));
        return;
    }
    net_session *s = net_session_new(srv, &tcp_transport);
    tcp_conn *c = s ? calloc(1, sizeof *c) : NULL;
    if (!c || uv_tcp_init(srv->loop, &c->handle) != 0) {
        free(c);
        if (s)
            net_session_free(s);
        LOG_ERROR("accept: out of memory");
        return;
    }
    proto_framer_init(&c->framer, srv->cfg.max_line);
    c->handle.data = s;
    s->conn = c;
    if (uv_accept(listener, (uv_stream_t *)&c->handle) != 0) {
        uv_close((uv_handle_t *)&c->handle, on_close);
        return;
    }
    char peer[64];
    format_peer(&c->handle, peer, sizeof peer);
    if (!net_session_open(s, peer))
        return;
    uv_tcp_nodelay(&c->handle, 1);
    tcp_read_resume(s);
}
