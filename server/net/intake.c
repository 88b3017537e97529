/* A client's lines in: the framing of its bytes and the message rate's backpressure. Every line
 * counts against --max-msg-rate; when the client's bucket is empty its socket is not read
 * (net_session_read_pause) until the bucket has refilled, and the line that found it empty
 * waits with the rest of its read: the kernel's buffers then push back on the sender, a flood
 * costs the server nothing, and every line read is answered, in order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net_internal.h"

/* What on_line returns: go on, stop (the session is closing), or the line waits for the
 * bucket to refill (it is in `stopped`). */
enum { LINE_NEXT = 0, LINE_STOP = 1, LINE_HELD = -2 };
/* The line that found the bucket empty: read callbacks and the read timer run one at a time. */
static struct {
    const char *line;
    size_t len;
} stopped;

/* Every line counts, valid or not; over the rate the line is not dropped but held. */
static int on_line(void *ud, const char *line, size_t len)
{
    net_session *s = ud;
    const net_config *cfg = &s->srv->cfg;
    if (!net_bucket_take(&s->lines, cfg->msg_rate, 2.0 * cfg->msg_rate, uv_hrtime())) {
        stopped.line = line;
        stopped.len = len;
        return LINE_HELD;
    }
    s->srv->stats.c.msgs_in++;
    net_session_handle_line(s, line, len);
    return s->closing || s->close_reason ? LINE_STOP : LINE_NEXT;
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
    double wait_s = (want - s->lines.tokens) / rate;
    s->read_paused = true;
    s->resume_ns = s->lines.last_ns + (uint64_t)(wait_s > 0 ? wait_s * 1e9 : 0);
    net_session_read_pause(s);
    uint64_t now = uv_hrtime();
    uint64_t ms = s->resume_ns > now ? (s->resume_ns - now + 999999) / 1000000 : 0;
    if (!uv_is_active((uv_handle_t *)&srv->read_timer) ||
        uv_timer_get_due_in(&srv->read_timer) > ms)
        uv_timer_start(&srv->read_timer, on_read_timer, ms, 0);
}

/* Frames and answers the bytes; when the bucket runs dry, keeps the line that found it empty
 * and the bytes after it (a copy: `data` may be the shared read buffer or the old `held`) and
 * pauses reading. */
void net_session_feed(net_session *s, const char *data, size_t n)
{
    size_t used;
    int rc = proto_framer_feed_used(&s->framer, data, n, on_line, s, &used);
    if (rc == LINE_HELD) {
        size_t len = stopped.len + 1 + (n - used);
        char *h = malloc(len);
        if (!h) {
            net_session_close(s, "out of memory");
            return;
        }
        memcpy(h, stopped.line, stopped.len);
        h[stopped.len] = '\n';
        memcpy(h + stopped.len + 1, data + used, n - used);
        free(s->held);
        s->held = h;
        s->held_len = len;
        pause_reading(s);
    } else if (rc == PROTO_ERR_LINE_TOO_LONG) {
        char msg[96];
        snprintf(msg, sizeof msg, "a line is longer than %zu bytes", s->srv->cfg.max_line);
        net_session_error(s, PROTO_ERR_LINE_TOO_LONG, msg, NULL);
        net_session_close_after_flush(s, "line too long");
    } else if (rc < 0) {
        net_session_close(s, "out of memory");
    }
}

/* The bucket has refilled: the held lines first, then the socket again unless they emptied
 * it once more. */
static void read_held(net_session *s)
{
    char *h = s->held;
    size_t n = s->held_len;
    s->held = NULL;
    s->held_len = 0;
    s->read_paused = false;
    net_session_feed(s, h, n);
    free(h);
    if (!s->read_paused && !s->closing && !s->close_reason)
        net_session_read_resume(s);
}

static void on_read_timer(uv_timer_t *t)
{
    net_server *srv = t->data;
    uint64_t now = uv_hrtime(), next = UINT64_MAX;
    net_walk_begin(srv);
    for (net_session *s = srv->sessions; s; s = s->next) {
        if (s->read_paused && !s->close_reason && s->resume_ns <= now)
            read_held(s);
        if (s->read_paused && s->resume_ns < next)
            next = s->resume_ns;
    }
    net_walk_end(srv);
    if (next != UINT64_MAX)
        uv_timer_start(t, on_read_timer, next > now ? (next - now + 999999) / 1000000 : 0, 0);
}
