/* The game's rules in the server (--script FILE.lua): mink_rules' runtime wired to the tick and
 * the sessions.
 *
 * Fixed points: after each step, on_event for each of the step's events in the world's order
 * (events a hook causes, a body it removes, are handed on in the same pass), then the timers
 * due and on_tick; between steps, on_join when a session says hello, on_leave when it closes,
 * on_action for a client's `action`. The script's messages (mink.send, game.broadcast) are
 * `event {name, data}` lines written to the sessions as they are sent, so they reach a client
 * in order with its states. A hook runs inside a pass over the sessions (net_walk_begin): a
 * session that a message would close is closed after the hook, never inside it, and a kick the
 * script asks for is made after the hook that asked.
 *
 * Journals: the changes the rules make are written with "rules":true (wio_journal_by_rules);
 * joins, leaves and actions are written as rules_ lines to a --record journal, so a replay that
 * runs the script again skips the first and feeds it the second; the rules' saved state is a
 * rules_state line of the --save journal at each flush point, so a restore (which does not run
 * the script) brings back the world with the rules' changes and the state at the same tick. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mk_vec.h"
#include "mink_rules.h"
#include "net_server.h"
#include "players.h"
#include "rules.h"
#include "session.h"

#define KICK_REASON 128 /* bytes of a kick's reason kept */

typedef struct net_kick {
    uint32_t player;
    char reason[KICK_REASON];
} net_kick;

typedef struct net_rules {
    net_server *srv;
    rul_runtime *rt;
    proto_buf line;       /* an event line for the sessions */
    proto_buf fields;     /* a journal line's fields */
    proto_buf state;      /* the state just saved */
    proto_buf last_state; /* the state last written to the --save journal */
    MK_VEC(net_kick) kicks;
    uint64_t actions, actions_refused, events_sent;
} net_rules;

/* ---- the host's callbacks: inside a hook ---- */

static void host_log(void *ctx, rul_log_level level, const char *line)
{
    (void)ctx;
    if (level == RUL_LOG_INFO)
        LOG_INFO("%s", line);
    else if (level == RUL_LOG_WARN)
        LOG_WARN("%s", line);
    else
        LOG_ERROR("%s", line);
}

/* The sessions that hear a game's messages to player `player` (0: to every player): those in
 * the game, and the `game` connections, which hear everything. */
static bool hears(const net_session *s, uint32_t player)
{
    if (s->closing || !s->joined)
        return false;
    if (net_session_is_game(s))
        return true;
    return s->in_game && (player == 0 || s->owner == player);
}

static void deliver(net_rules *r, uint32_t player, const char *name, const char *data,
                    size_t len)
{
    proto_buf_clear(&r->line);
    proto_write_game_event(&r->line, name, data, len);
    for (net_session *s = r->srv->sessions; s; s = s->next)
        if (hears(s, player)) {
            net_session_send_buf(s, &r->line);
            r->events_sent++;
        }
}

static void host_send(void *ctx, uint32_t player, const char *name, const char *data,
                      size_t len)
{
    if (player != 0)
        deliver(ctx, player, name, data, len);
}

static void host_broadcast(void *ctx, const char *name, const char *data, size_t len)
{
    deliver(ctx, 0, name, data, len);
}

static void host_kick(void *ctx, uint32_t player, const char *reason)
{
    net_rules *r = ctx;
    net_kick k = {.player = player};
    snprintf(k.reason, sizeof k.reason, "%s", reason && reason[0] ? reason : "kicked by the game");
    if (!MK_VEC_PUSH(&r->kicks, k))
        LOG_ERROR("rules: out of memory for a kick of player %u", player);
}

static bool rules_busy(void *ctx) { return rul_busy(ctx); }

/* ---- around the hooks ---- */

/* Every hook runs inside a pass over the sessions: a close a message causes waits for the
 * hook's end. */
static void hook_begin(net_rules *r) { net_walk_begin(r->srv); }

static void kicks_made(net_rules *r)
{
    for (size_t i = 0; i < r->kicks.v.len; i++) {
        const net_kick *k = &r->kicks.at[i];
        for (net_session *s = r->srv->sessions; s; s = s->next)
            if (s->in_game && s->owner == k->player && !s->closing) {
                net_session_error(s, PROTO_ERR_UNAUTHORIZED, k->reason, NULL);
                net_session_close_after_flush(s, "kicked by the game");
            }
    }
    r->kicks.v.len = 0;
}

static void hook_end(net_rules *r)
{
    net_walk_end(r->srv);
    if (r->kicks.v.len > 0) {
        net_walk_begin(r->srv);
        kicks_made(r);
        net_walk_end(r->srv);
    }
}

/* A line of the rules' inputs for the --record journal (a replay feeds it to the script). */
static void journal_input(net_rules *r, uint32_t client, const char *type)
{
    wio_journal *j = r->srv->cfg.record;
    if (j && !r->fields.failed)
        wio_journal_rules_line(j, client, type, r->fields.data, r->fields.len);
    proto_buf_clear(&r->fields);
}

static void field_str(proto_buf *b, const char *key, const char *value)
{
    proto_buf_append_str(b, ",\"");
    proto_buf_append_str(b, key);
    proto_buf_append_str(b, "\":");
    proto_buf_append_json_string(b, value);
}

/* ---- the server's calls ---- */

bool net_session_is_game(const net_session *s)
{
    return s->player && strcmp(net_player_role(s->player), "game") == 0;
}

uint32_t net_session_maker(const net_session *s)
{
    return net_session_is_game(s) ? 0 : s->owner;
}

int net_rules_start(net_server *srv)
{
    rul_runtime *rt = srv->cfg.rules;
    if (!rt)
        return 0;
    net_rules *r = calloc(1, sizeof *r);
    if (!r)
        return UV_ENOMEM;
    r->srv = srv;
    r->rt = rt;
    r->kicks.v = mk_vec_make(sizeof(net_kick));
    proto_buf_init(&r->line);
    proto_buf_init(&r->fields);
    proto_buf_init(&r->state);
    proto_buf_init(&r->last_state);
    srv->rules = r;
    rul_host host = {.ctx = r, .log = host_log, .send = host_send, .broadcast = host_broadcast,
                     .kick = host_kick};
    rul_set_host(rt, &host);
    if (srv->cfg.record)
        wio_journal_by_rules(srv->cfg.record, rules_busy, rt);
    if (!sim_world_config(srv->world)->events)
        LOG_WARN("--script with --no-events: on_event is never called");
    return 0;
}

void net_rules_free(net_server *srv)
{
    net_rules *r = srv->rules;
    if (!r)
        return;
    rul_set_host(r->rt, NULL);
    mk_vec_free(&r->kicks.v);
    proto_buf_free(&r->line);
    proto_buf_free(&r->fields);
    proto_buf_free(&r->state);
    proto_buf_free(&r->last_state);
    free(r);
    srv->rules = NULL;
}

void net_rules_after_step(net_server *srv)
{
    net_rules *r = srv->rules;
    if (!r)
        return;
    hook_begin(r);
    rul_after_step(r->rt);
    hook_end(r);
}

int net_rules_join(net_session *s, mk_error *why)
{
    net_rules *r = s->srv->rules;
    if (!r || net_session_is_game(s))
        return 0;
    const char *user = s->player ? net_player_user(s->player) : NULL;
    const char *role = s->player ? net_player_role(s->player) : NULL;
    rul_player p = {.id = s->owner, .name = s->name, .user = user && user[0] ? user : NULL,
                    .role = role && role[0] ? role : NULL, .avatar = s->avatar};
    field_str(&r->fields, "name", s->name);
    if (p.user)
        field_str(&r->fields, "user", p.user);
    if (p.role)
        field_str(&r->fields, "role", p.role);
    if (p.avatar) {
        proto_buf_append_str(&r->fields, ",\"avatar\":");
        proto_buf_append_u64(&r->fields, p.avatar);
    }
    journal_input(r, s->owner, "rules_join");
    s->in_game = true; /* on_join may send to the player */
    s->game_id = s->owner;
    hook_begin(r);
    int rc = rul_join(r->rt, &p, why);
    hook_end(r);
    s->in_game = rc == 0;
    if (rc != 0)
        LOG_INFO("client %u (%s): the game refused the player: %s", s->client, s->peer,
                 why->message);
    return rc;
}

void net_rules_leave(net_session *s)
{
    net_rules *r = s->srv->rules;
    if (!r || !s->in_game)
        return;
    s->in_game = false;
    journal_input(r, s->game_id, "rules_leave");
    hook_begin(r);
    rul_leave(r->rt, s->game_id);
    hook_end(r);
}

static void answer_done(net_session *s, const proto_msg *m)
{
    proto_buf *b = &s->srv->out;
    proto_buf_clear(b);
    proto_write_done(b, m->has_req ? m->req : NULL);
    net_session_send_buf(s, b);
}

void net_rules_action(net_session *s, proto_msg *m)
{
    net_server *srv = s->srv;
    net_rules *r = srv->rules;
    const char *req = m->has_req ? m->req : NULL;
    const proto_action *a = &m->u.action;
    if (!r) {
        net_session_error(s, PROTO_ERR_BAD_REQUEST, "action: this server runs no game rules",
                          req);
        return;
    }
    if (!s->in_game) {
        net_session_error(s, PROTO_ERR_BAD_REQUEST, "action: this connection is not a player",
                          req);
        return;
    }
    if (!net_bucket_take(&s->actions, srv->cfg.action_rate, 2.0 * srv->cfg.action_rate,
                         uv_hrtime())) {
        char msg[64];
        snprintf(msg, sizeof msg, "over %g actions a second", srv->cfg.action_rate);
        net_session_error(s, PROTO_ERR_RATE_LIMITED, msg, req);
        return;
    }
    field_str(&r->fields, "name", a->name);
    if (a->data_len) {
        proto_buf_append_str(&r->fields, ",\"data\":");
        proto_buf_append(&r->fields, a->data, a->data_len);
    }
    journal_input(r, s->owner, "rules_action");
    r->actions++;
    mk_error why = {0};
    hook_begin(r);
    int rc = rul_action(r->rt, s->owner, a->name, a->data, a->data_len, &why);
    hook_end(r);
    if (rc != 0) {
        r->actions_refused++;
        net_session_error(s, PROTO_ERR_BAD_REQUEST, why.message, req);
        return;
    }
    answer_done(s, m);
}

void net_rules_emit(net_session *s, proto_msg *m)
{
    net_server *srv = s->srv;
    const char *req = m->has_req ? m->req : NULL;
    const proto_action *a = &m->u.action;
    if (!net_session_is_game(s)) {
        net_session_error(s, PROTO_ERR_UNAUTHORIZED, "emit: only a `game` connection may",
                          req);
        return;
    }
    net_rules rules = {.srv = srv};
    net_rules *r = srv->rules ? srv->rules : &rules;
    if (!srv->rules)
        proto_buf_init(&rules.line);
    net_walk_begin(srv);
    deliver(r, a->has_to ? a->to : 0, a->name, a->data, a->data_len);
    net_walk_end(srv);
    if (!srv->rules)
        proto_buf_free(&rules.line);
    answer_done(s, m);
}

void net_rules_reload(net_server *srv)
{
    net_rules *r = srv->rules;
    if (!r)
        return;
    mk_error err = {0};
    if (rul_reload(r->rt, NULL, 0, &err) != 0)
        LOG_ERROR("SIGHUP: the script was not reloaded, the old one runs on: %s", err.message);
    else
        LOG_INFO("SIGHUP: the script reloaded");
}

void net_rules_journal_state(net_server *srv, wio_journal *j, bool fresh)
{
    net_rules *r = srv->rules;
    if (!r || !j->world)
        return;
    wio_journal_by_rules(j, rules_busy, r->rt);
    proto_buf_clear(&r->state);
    mk_error err = {0};
    if (rul_save(r->rt, &r->state, &err) != 0 || r->state.failed) {
        LOG_ERROR("--save: the rules' state was not written: %s",
                  r->state.failed ? "out of memory" : err.message);
        return;
    }
    if (!fresh && r->state.len == r->last_state.len &&
        memcmp(r->state.data, r->last_state.data, r->state.len) == 0)
        return;
    proto_buf_clear(&r->last_state);
    proto_buf_append(&r->last_state, r->state.data, r->state.len);
    proto_buf_append_char(&r->state, '\0'); /* the state has no NUL: JSON escapes it */
    proto_buf_clear(&r->fields);
    proto_buf_append_str(&r->fields, ",\"state\":");
    proto_buf_append_json_string(&r->fields, r->state.data);
    if (!r->fields.failed)
        wio_journal_rules_line(j, 0, "rules_state", r->fields.data, r->fields.len);
    proto_buf_clear(&r->fields);
    if (fresh)
        wio_journal_mark(j);
}

/* ---- /metrics ---- */

static void metric(proto_buf *b, const char *name, const char *type, const char *help)
{
    char line[256];
    snprintf(line, sizeof line, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
    proto_buf_append_str(b, line);
}

static void per_hook(proto_buf *b, const rul_stats *st, const char *name, size_t offset)
{
    char line[160];
    for (int h = 0; h < RUL_HOOK_COUNT; h++) {
        uint64_t v = *(const uint64_t *)((const char *)&st->hooks[h] + offset);
        snprintf(line, sizeof line, "%s{hook=\"%s\"} %llu\n", name, rul_hook_name((rul_hook)h),
                 (unsigned long long)v);
        proto_buf_append_str(b, line);
    }
}

static void one(proto_buf *b, const char *name, uint64_t v)
{
    char line[160];
    snprintf(line, sizeof line, "%s %llu\n", name, (unsigned long long)v);
    proto_buf_append_str(b, line);
}

void net_rules_metrics(net_server *srv, proto_buf *b)
{
    net_rules *r = srv->rules;
    if (!r)
        return;
    rul_stats st;
    rul_stats_get(r->rt, &st);
    static const struct {
        const char *name, *help;
        size_t offset;
    } hooks[] = {
        {"mink_script_hook_calls_total", "Calls of the script's hooks.",
         offsetof(rul_hook_stats, calls)},
        {"mink_script_hook_errors_total", "Hook calls that failed (stops included).",
         offsetof(rul_hook_stats, errors)},
        {"mink_script_budget_stops_total", "Hook calls stopped at the instruction budget.",
         offsetof(rul_hook_stats, budget_stops)},
        {"mink_script_memory_stops_total", "Hook calls stopped at the memory cap.",
         offsetof(rul_hook_stats, memory_stops)},
    };
    for (size_t i = 0; i < sizeof hooks / sizeof hooks[0]; i++) {
        metric(b, hooks[i].name, "counter", hooks[i].help);
        per_hook(b, &st, hooks[i].name, hooks[i].offset);
    }
    metric(b, "mink_script_hook_seconds_total", "counter", "Wall time inside the hooks.");
    char line[160];
    for (int h = 0; h < RUL_HOOK_COUNT; h++) {
        snprintf(line, sizeof line, "mink_script_hook_seconds_total{hook=\"%s\"} %.9f\n",
                 rul_hook_name((rul_hook)h), (double)st.hooks[h].nanoseconds / 1e9);
        proto_buf_append_str(b, line);
    }
    metric(b, "mink_script_hooks_disabled", "gauge", "Hooks switched off after failing.");
    uint64_t disabled = 0;
    for (int h = 0; h < RUL_HOOK_COUNT; h++)
        disabled += st.hooks[h].disabled;
    one(b, "mink_script_hooks_disabled", disabled);
    metric(b, "mink_script_memory_bytes", "gauge", "Bytes the script's state holds.");
    one(b, "mink_script_memory_bytes", st.memory);
    metric(b, "mink_script_memory_limit_bytes", "gauge", "The script's memory cap.");
    one(b, "mink_script_memory_limit_bytes", st.memory_limit);
    metric(b, "mink_script_reloads_total", "counter", "Reloads of the script (SIGHUP).");
    one(b, "mink_script_reloads_total", st.reloads);
    metric(b, "mink_script_reload_failures_total", "counter", "Reloads refused.");
    one(b, "mink_script_reload_failures_total", st.reload_failures);
    metric(b, "mink_script_actions_total", "counter", "Actions handed to the script.");
    one(b, "mink_script_actions_total", r->actions);
    metric(b, "mink_script_actions_refused_total", "counter", "Actions the script refused.");
    one(b, "mink_script_actions_refused_total", r->actions_refused);
    metric(b, "mink_script_events_sent_total", "counter", "Game event lines sent to clients.");
    one(b, "mink_script_events_sent_total", r->events_sent);
    metric(b, "mink_script_timers", "gauge", "The script's timers waiting.");
    one(b, "mink_script_timers", st.timers);
}
