/* Writing the `state`s of a snapshot (snapshot.c builds them): each client's ranges go to its
 * transport (a TCP session's as one uv_write whose buffers point into the shared tick buffer,
 * which the write keeps alive), and the sessions whose state could not be built or written
 * are closed. */
#include "net_server.h"
#include "session.h"
#include "snapshot.h"
#include "snapshot_write.h"

bool net_snapshot_due(const net_server *srv, uint64_t since)
{
    uint64_t tick = sim_world_tick(srv->world);
    for (const net_session *s = srv->sessions; s; s = s->next)
        if (s->joined && net_view_due(&s->view, &srv->cfg, since, tick))
            return true;
    return false;
}

static void write_state(net_server *srv, net_session *s)
{
    net_state st = net_snapshot_state(srv->snap, &s->view);
    int rc = s->tr->write_state(s, &st);
    if (rc != 0) {
        net_session_close(s, rc == UV_ENOMEM ? "out of memory writing a state" : uv_strerror(rc));
        return;
    }
    srv->stats.states++;
    srv->stats.c.msgs_out++;
    for (size_t i = 0; i < st.n; i++)
        srv->stats.c.bytes_out += st.ranges[i].len;
    /* What the socket did not take counts against the client's output limit. */
    net_session_check_hard_limit(s, 0);
}

void net_snapshot_send(net_server *srv, uint64_t since)
{
    int ready = net_snapshot_build(srv, since);
    net_walk_begin(srv); /* the closes are made when the pass ends */
    for (net_session *s = srv->sessions; s; s = s->next)
        if (s->view.failed)
            net_session_close(s, "out of memory building a state");
    net_walk_end(srv);
    if (ready > 0) {
        net_walk_begin(srv); /* a failed write closes s when the pass ends */
        for (net_session *s = srv->sessions; s; s = s->next) {
            if (s->view.ready && !s->closing && !s->close_reason)
                write_state(srv, s);
            s->view.ready = false;
        }
        net_walk_end(srv);
    }
    net_snapshot_discard(srv);
}
