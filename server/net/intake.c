/* A client's messages in, whatever its transport: the message rate's backpressure. Every
 * message counts against --max-msg-rate; when the client's bucket is empty the message that
 * found it empty, and any that follow from the same read, wait in the session, and the
 * transport reads no more (net_session_read_pause: uv_read_stop, or WebSocket flow control)
 * until the bucket has refilled: the kernel's buffers then push back on the sender, a flood
 * costs the server nothing, and every message read is answered, in order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers.h"
#include "intake.h"
#include "net_server.h"
#include "session.h"

/* Messages read while the lines' bucket was empty wait in `held`, each as its length and its
 * bytes, and are answered in order as the bucket refills; meanwhile the transport reads no
 * more (backpressure: the kernel's buffers, or WebSocket flow control, push back on the
 * sender), so what waits is at most what one read brought. */
static bool hold(net_session *s, const char *msg, size_t len)
{
    mk_vec *held = &s->intake.held.v;
    uint32_t n = (uint32_t)len;
    size_t at = held->len;
    if (!mk_vec_resize(held, at + sizeof n + len))
        return false;
    memcpy(s->intake.held.at + at, &n, sizeof n);
    memcpy(s->intake.held.at + at + sizeof n, msg, len);
    return true;
}

static void on_read_timer(uv_timer_t *t);

/* The lines' bucket is empty: stop reading until a twentieth of a second's worth of lines has
 * refilled it (at least one line, at most a burst), so that a client held at the rate is read
 * in a few batches a second rather than line by line. */
static void pause_reading(net_session *s)
{
    net_server *srv = s->srv;
    double rate = srv->cfg.msg_rate, want = rate / 20.0;
    want = want < 1.0 ? 1.0 : want > 2.0 * rate ? 2.0 * rate : want;
    net_intake *in = &s->intake;
    double wait_s = (want - in->lines.tokens) / rate;
    if (!in->read_paused)
        net_session_read_pause(s);
    in->read_paused = true;
    in->resume_ns = in->lines.last_ns + (uint64_t)(wait_s > 0 ? wait_s * 1e9 : 0);
    uint64_t now = uv_hrtime();
    uint64_t ms = in->resume_ns > now ? (in->resume_ns - now + 999999) / 1000000 : 0;
    if (!uv_is_active((uv_handle_t *)&srv->read_timer) ||
        uv_timer_get_due_in(&srv->read_timer) > ms)
        uv_timer_start(&srv->read_timer, on_read_timer, ms, 0);
}

static bool done(const net_session *s)
{
    return s->closing || s->close_reason;
}

/* Every message counts against the message rate, valid or not. Over it, the message is not
 * dropped: it waits, and so does the transport, so every message read is answered, in order.
 * Returns true when the session is closing (the transport reads no further). */
bool net_session_message(net_session *s, const char *msg, size_t len)
{
    if (done(s))
        return true;
    const net_config *cfg = &s->srv->cfg;
    if (s->intake.held.v.len == 0 &&
        net_bucket_take(&s->intake.lines, cfg->msg_rate, 2.0 * cfg->msg_rate, uv_hrtime())) {
        s->srv->stats.c.msgs_in++;
        net_handle_message(s, msg, len);
        return done(s);
    }
    if (!hold(s, msg, len)) {
        net_session_close(s, "out of memory");
        return true;
    }
    pause_reading(s);
    return false;
}

/* The bucket has refilled: the held messages it allows, in order; then the transport reads
 * again once none waits. */
static void read_held(net_session *s)
{
    const net_config *cfg = &s->srv->cfg;
    net_intake *in = &s->intake;
    size_t at = 0;
    while (at < in->held.v.len && !done(s) &&
           net_bucket_take(&in->lines, cfg->msg_rate, 2.0 * cfg->msg_rate, uv_hrtime())) {
        uint32_t n;
        memcpy(&n, in->held.at + at, sizeof n);
        at += sizeof n;
        s->srv->stats.c.msgs_in++;
        net_handle_message(s, in->held.at + at, n);
        at += n;
    }
    memmove(in->held.at, in->held.at + at, in->held.v.len - at);
    in->held.v.len -= at;
    if (done(s))
        return;
    if (in->held.v.len > 0) {
        pause_reading(s);
        return;
    }
    in->read_paused = false;
    net_session_read_resume(s);
}

static void on_read_timer(uv_timer_t *t)
{
    net_server *srv = t->data;
    uint64_t now = uv_hrtime(), next = UINT64_MAX;
    net_walk_begin(srv);
    for (net_session *s = srv->sessions; s; s = s->next) {
        const net_intake *in = &s->intake;
        if (in->read_paused && !s->close_reason && in->resume_ns <= now)
            read_held(s);
        if (in->read_paused && !s->close_reason && in->resume_ns < next)
            next = in->resume_ns;
    }
    net_walk_end(srv);
    if (next != UINT64_MAX)
        uv_timer_start(t, on_read_timer, next > now ? (next - now + 999999) / 1000000 : 0, 0);
}

