/* The answers to `joint` and `unjoint` (an extension of v1, PROTOCOL.md "Joints"): a client
 * joins bodies it owns, to each other or to the world (b 0), and removes joints it made; a
 * `game` connection joins any bodies, its joints are the world's, and it removes any. The
 * message is validated by mink_proto; what needs the world (the bodies exist, whose they are,
 * the anchors' defaults) is checked here, and a refused joint leaves the world unchanged. */
#include <stdio.h>

#include "handlers.h"
#include "net_server.h"
#include "rules.h"
#include "session.h"

static const char *req_of(const proto_msg *m) { return m->has_req ? m->req : NULL; }

/* Whether body field `key` (id `id`) names a body this client may join (its own; any, for a
 * game connection); otherwise answers. */
static bool owns(net_session *s, const char *key, uint64_t id, const char *req)
{
    char msg[PROTO_MAX_MESSAGE];
    const sim_body *body = sim_world_get(s->srv->world, id);
    if (!body) {
        snprintf(msg, sizeof msg, "joint.%s: no body %llu", key, (unsigned long long)id);
        net_session_error(s, PROTO_ERR_NOT_FOUND, msg, req);
        return false;
    }
    if (body->owner != s->owner && !net_session_is_game(s)) {
        snprintf(msg, sizeof msg, "joint.%s: body %llu belongs to %s", key,
                 (unsigned long long)id, body->owner ? "another client" : "the server");
        net_session_error(s, PROTO_ERR_NOT_OWNER, msg, req);
        return false;
    }
    return true;
}

void net_handle_joint(net_session *s, proto_msg *m)
{
    net_server *srv = s->srv;
    const proto_joint_spec *spec = &m->u.joint;
    const char *req = req_of(m);
    if (!owns(s, "a", spec->a, req) || (spec->b && !owns(s, "b", spec->b, req)))
        return;
    char msg[PROTO_MAX_MESSAGE];
    uint32_t owner = net_session_maker(s);
    size_t owned = owner ? sim_world_count_joints_owned(srv->world, owner) : 0;
    if (owner && owned >= srv->cfg.bodies_per_client) {
        snprintf(msg, sizeof msg, "this client has %zu joints, the limit is %u", owned,
                 srv->cfg.bodies_per_client);
        net_session_error(s, PROTO_ERR_QUOTA, msg, req);
        return;
    }
    sim_joint_def def;
    mk_error err;
    sim_id id = 0;
    if (wio_joint_def_from_spec(srv->world, spec, &def, &err) == 0)
        id = sim_world_add_joint(srv->world, &def, owner, &err);
    if (id == 0) {
        mk_error_prefix(&err, "joint.");
        net_session_error(s, PROTO_ERR_BAD_REQUEST, err.message, req);
        return;
    }
    proto_buf *b = &srv->out;
    proto_buf_clear(b);
    proto_write_joined(b, req, id);
    net_session_send_buf(s, b);
}

void net_handle_unjoint(net_session *s, proto_msg *m)
{
    net_server *srv = s->srv;
    uint64_t id = m->u.unjoint.id;
    char msg[PROTO_MAX_MESSAGE];
    const sim_joint *j = sim_world_get_joint(srv->world, id);
    if (!j) {
        snprintf(msg, sizeof msg, "id: no joint %llu", (unsigned long long)id);
        net_session_error(s, PROTO_ERR_NOT_FOUND, msg, req_of(m));
        return;
    }
    if (j->owner != s->owner && !net_session_is_game(s)) {
        snprintf(msg, sizeof msg, "id: joint %llu belongs to %s", (unsigned long long)id,
                 j->owner ? "another client" : "the server");
        net_session_error(s, PROTO_ERR_NOT_OWNER, msg, req_of(m));
        return;
    }
    sim_world_remove_joint(srv->world, id);
    proto_buf *b = &srv->out;
    proto_buf_clear(b);
    proto_write_unjoined(b, req_of(m), id);
    net_session_send_buf(s, b);
}
