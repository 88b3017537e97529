/* The WebSocket transport: `GET /ws` on the HTTP port (RFC 6455, served by libwebsockets on the
 * server's libuv loop, http.c), one protocol message per text frame, the same session code as
 * the game port's TCP clients (ws_transport is all session.c sees of it).
 *
 * libwebsockets writes only from a connection's writeable callback, one frame each time, so a
 * session's output waits here in a queue of whole messages (each after LWS_PRE bytes of room
 * for the frame header); its size is what the output limits count. A `state` is copied out of
 * the tick buffer into the queue; at most one waits, as on TCP.
 *
 * A message may come in several fragments and reads: it is gathered up to max_line bytes.
 * Each bad input ends with its close code (RFC 6455 section 7.4.1): a binary frame 1003 (after
 * an `error`), a message over max_line 1009 (after `line_too_long`), text that is not UTF-8
 * 1007 and a frame that breaks the framing (a reserved opcode, a continuation of nothing) 1002,
 * both from libwebsockets' parser, which drops a control frame over 125 bytes without a close
 * frame; a close asked for by the server after its answer 1000, while stopping 1001, when full
 * 1013, and a cut-off (hello timeout, output limits) 1008. libwebsockets 4.1's parser does not
 * check that a client masked its frames (RFC 6455 section 5.1 says the server must close): it
 * reads an unmasked frame as it reads a masked one, and its callbacks do not say which. */
#include <assert.h>
#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intake.h"
#include "net_server.h"
#include "session.h"
#include "tick_buf.h"
#include "ws.h"

#define WS_CLOSE_SECONDS 10 /* a close waits this long at most for the queue and the peer */

typedef struct ws_msg {
    struct ws_msg *next;
    size_t len;
    bool state;
    unsigned char buf[]; /* LWS_PRE bytes, then the message */
} ws_msg;

typedef struct net_ws_conn {
    struct lws *wsi; /* NULL once libwebsockets has closed the connection */
    ws_msg *head, *tail;
    size_t queued; /* bytes of the messages in the queue */
    MK_VEC(char) msg; /* the message being received, up to max_line bytes */
    bool close_asked, close_flush;
    int close_code; /* 0: chosen when the close frame is sent */
} net_ws_conn;

/* Writes the first message of the queue: the frame goes to libwebsockets, which keeps what the
 * socket does not take and asks for no more until it has written it. */
static int write_head(net_session *s)
{
    net_ws_conn *c = s->conn;
    ws_msg *m = c->head;
    c->head = m->next;
    if (!c->head)
        c->tail = NULL;
    c->queued -= m->len;
    int n = lws_write(c->wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT);
    if (m->state)
        s->state_in_flight = false;
    free(m);
    return n < 0 ? -1 : 0;
}

/* A message queued behind none is written at once when the socket takes it (as the TCP
 * transport's uv_try_write), so that a WebSocket player's state leaves in the tick that built
 * it, as a TCP player's does, instead of a loop iteration later. */
static void write_soon(net_session *s)
{
    net_ws_conn *c = s->conn;
    if (c->head == c->tail && !lws_send_pipe_choked(c->wsi)) {
        if (write_head(s) != 0)
            net_session_close(s, "write failed");
        return;
    }
    lws_callback_on_writable(c->wsi);
}

static bool enqueue(net_session *s, size_t len, bool state, ws_msg **out)
{
    net_ws_conn *c = s->conn;
    ws_msg *m = malloc(sizeof *m + LWS_PRE + len);
    if (!m)
        return false;
    m->next = NULL;
    m->len = len;
    m->state = state;
    if (c->tail)
        c->tail->next = m;
    else
        c->head = m;
    c->tail = m;
    c->queued += len;
    *out = m;
    return true;
}

static void ws_send(net_session *s, const char *data, size_t len)
{
    net_ws_conn *c = s->conn;
    if (!c->wsi || c->close_asked)
        return;
    /* The frame is the message: its line end stays off the wire. */
    if (len > 0 && data[len - 1] == '\n')
        len--;
    if (net_session_check_hard_limit(s, len))
        return;
    ws_msg *m;
    if (!enqueue(s, len, false, &m)) {
        net_session_close(s, "out of memory");
        return;
    }
    memcpy(m->buf + LWS_PRE, data, len);
    write_soon(s);
}

static int ws_write_state(net_session *s, const net_state *st)
{
    /* The bytes are copied: nothing points into the tick buffer after this call. */
    net_ws_conn *c = s->conn;
    if (!c->wsi || c->close_asked)
        return 0;
    ws_msg *m;
    if (!enqueue(s, net_state_len(st), true, &m))
        return UV_ENOMEM;
    net_state_copy(st, (char *)m->buf + LWS_PRE);
    if (m->len > 0 && m->buf[LWS_PRE + m->len - 1] == '\n') {
        m->len--;
        c->queued--;
    }
    s->state_in_flight = true;
    write_soon(s);
    return 0;
}

static size_t ws_queued(const net_session *s)
{
    const net_ws_conn *c = s->conn;
    return c->queued;
}

/* Stops (0) and restarts (1) reading the client's frames. */
static void flow(net_session *s, int on)
{
    net_ws_conn *c = s->conn;
    if (c->wsi)
        lws_rx_flow_control(c->wsi, on);
}

static void ws_read_pause(net_session *s) { flow(s, 0); }

static void ws_read_resume(net_session *s) { flow(s, 1); }

static void drop_queue(net_session *s)
{
    net_ws_conn *c = s->conn;
    while (c->head) {
        ws_msg *m = c->head;
        c->head = m->next;
        if (m->state)
            s->state_in_flight = false;
        free(m);
    }
    c->tail = NULL;
    c->queued = 0;
}

static void ws_close(net_session *s, bool flush)
{
    net_ws_conn *c = s->conn;
    if (!c->wsi)
        return;
    if (c->close_asked && (!c->close_flush || flush))
        return;
    c->close_asked = true;
    c->close_flush = flush;
    if (!flush)
        drop_queue(s);
    /* The close frame goes out from the writeable callback; a peer that never lets us write
     * is dropped by libwebsockets' timeout. */
    lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, flush ? WS_CLOSE_SECONDS : 1);
    lws_callback_on_writable(c->wsi);
}

static const net_transport ws_transport = {
    .name = "ws",
    .send = ws_send,
    .write_state = ws_write_state,
    .queued = ws_queued,
    .read_pause = ws_read_pause,
    .read_resume = ws_read_resume,
    .close = ws_close,
};

static int on_established(net_server *srv, struct lws *wsi, net_session **user)
{
    net_session *s = net_session_new(srv, &ws_transport);
    net_ws_conn *c = s ? calloc(1, sizeof *c) : NULL;
    if (!c) {
        if (s)
            net_session_free(s);
        LOG_ERROR("ws: out of memory");
        return -1;
    }
    c->wsi = wsi;
    c->msg.v = mk_vec_make(sizeof(char));
    s->conn = c;
    *user = s;
    /* From here the hello timeout watches the connection, as on the game port. */
    lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0);
    char ip[48], peer[64];
    lws_get_peer_simple(wsi, ip, sizeof ip);
    snprintf(peer, sizeof peer, "ws %s", ip);
    if (!net_session_open(s, peer) && !srv->stopping)
        c->close_code = 1013; /* Try Again Later (IANA's registry of close codes) */
    return 0;
}

static int on_receive(net_session *s, struct lws *wsi, const char *in, size_t len)
{
    net_ws_conn *c = s->conn;
    if (s->closing)
        return 0;
    s->srv->stats.c.bytes_in += len;
    if (lws_frame_is_binary(wsi)) {
        c->close_code = LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE;
        net_session_error(s, PROTO_ERR_BAD_REQUEST,
                          "a binary frame: messages are JSON in text frames", NULL);
        net_session_close_after_flush(s, "binary frame");
        return 0;
    }
    size_t max = s->srv->cfg.max_line;
    size_t at = c->msg.v.len;
    if (len > max - at) {
        c->close_code = LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE;
        c->msg.v.len = 0;
        net_session_too_long(s);
        return 0;
    }
    if (!mk_vec_resize(&c->msg.v, at + len)) {
        net_session_close(s, "out of memory");
        return 0;
    }
    memcpy(c->msg.at + at, in, len);
    if (lws_is_final_fragment(wsi)) {
        size_t n = c->msg.v.len;
        c->msg.v.len = 0;
        net_session_message(s, c->msg.at, n);
    }
    return 0;
}

static int on_writeable(net_session *s, struct lws *wsi)
{
    net_ws_conn *c = s->conn;
    ws_msg *m = c->close_asked && !c->close_flush ? NULL : c->head;
    if (!m) {
        if (!c->close_asked)
            return 0;
        int code = c->close_code               ? c->close_code
                   : s->srv->stopping          ? LWS_CLOSE_STATUS_GOINGAWAY
                   : c->close_flush            ? LWS_CLOSE_STATUS_NORMAL
                                               : LWS_CLOSE_STATUS_POLICY_VIOLATION;
        /* The close frame, then the end. lws_close_reason and a -1 would leave the frame to
         * libwebsockets, but its Debian build closes again at once after a -1 ("uv repeat
         * test" in lws_service_fd, built with _DEBUG) and the frame is lost; so it is written
         * here, with the close opcode libwebsockets' own close uses (LWS_WRITE_CLOSE, 4, kept
         * out of its public enum). */
        unsigned char frame[LWS_PRE + 2];
        frame[LWS_PRE] = (unsigned char)(code >> 8);
        frame[LWS_PRE + 1] = (unsigned char)code;
        lws_write(wsi, frame + LWS_PRE, 2, (enum lws_write_protocol)4);
        return -1;
    }
    if (write_head(s) != 0) {
        net_session_close(s, "write failed");
        return -1;
    }
    if (c->head || c->close_asked)
        lws_callback_on_writable(wsi);
    return 0;
}

static void on_closed(net_session *s)
{
    net_ws_conn *c = s->conn;
    c->wsi = NULL;
    /* libwebsockets calls back from its own handles' callbacks, never inside a pass over the
     * sessions, so the close is made now. */
    assert(s->srv->walking == 0);
    if (!s->closing)
        net_session_close(s, "connection closed");
    drop_queue(s);
    mk_vec_free(&c->msg.v);
    free(c);
    s->conn = NULL;
    net_session_free(s);
}

int net_ws_callback(net_server *srv, struct lws *wsi, int reason, net_session **user, void *in,
                    size_t len)
{
    net_session *s = *user;
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
        /* The upgrade is served on /ws only, and in RFC 6455's version 13 only (libwebsockets
         * also takes the drafts' 7 and 8, and a request without a version): anything else is
         * answered 400 (404 on another path) and closed. */
        char uri[8], version[8];
        if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) < 0 || strcmp(uri, "/ws") != 0) {
            lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, "WebSocket is served on /ws");
            return 1;
        }
        if (lws_hdr_copy(wsi, version, sizeof version, WSI_TOKEN_VERSION) < 0 ||
            strcmp(version, "13") != 0) {
            lws_return_http_status(wsi, HTTP_STATUS_BAD_REQUEST,
                                   "Sec-WebSocket-Version must be 13");
            return 1;
        }
        return 0;
    }
    case LWS_CALLBACK_ESTABLISHED:
        return on_established(srv, wsi, user);
    case LWS_CALLBACK_RECEIVE:
        return s ? on_receive(s, wsi, in, len) : -1;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return s ? on_writeable(s, wsi) : -1;
    case LWS_CALLBACK_CLOSED:
        if (s)
            on_closed(s);
        *user = NULL;
        return 0;
    default:
        return 0;
    }
}
