/* The hooks: where the host calls into the script. Each looks its function up by name in the
 * script's globals at the call (a script may define it late, a reload replaces it), calls it
 * under the runtime's protection (runtime.c) and reads its answer: on_join and on_action
 * refuse with `return why`, `return false, why` or `return nil, why`. After each step: the
 * step's events, the timers due, then on_tick. */
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "rules_internal.h"

static const char *const event_names[SIM_EVENT_COUNT] = {
    [SIM_EVENT_CONTACT_BEGIN] = "contact_begin", [SIM_EVENT_CONTACT_END] = "contact_end",
    [SIM_EVENT_HIT] = "hit",                     [SIM_EVENT_SENSOR_BEGIN] = "sensor_begin",
    [SIM_EVENT_SENSOR_END] = "sensor_end",       [SIM_EVENT_JOINT_BREAK] = "joint_break",
};

const char *rul_event_name(sim_event_type t)
{
    return (unsigned)t < SIM_EVENT_COUNT ? event_names[t] : "?";
}

/* False (and logged) when the host calls in while a hook runs: a host callback must not. */
static bool enter(rul_runtime *rt, const char *what)
{
    if (!rt->busy)
        return true;
    rul_log(rt, RUL_LOG_WARN, "rules: %s called from inside a hook is refused", what);
    return false;
}

/* Pushes the global function `name` and the game table; false (nothing pushed) when the
 * script has no such function. */
static bool push_hook(lua_State *L, const char *name)
{
    if (lua_getglobal(L, name) != LUA_TFUNCTION) {
        lua_pop(L, 1);
        return false;
    }
    lua_getfield(L, LUA_REGISTRYINDEX, RUL_REG_GAME);
    return true;
}

/* A hook's refusal from its two results: a reason (a string), or false (or nil) and the
 * reason. Nothing, true or anything else accepts. */
static bool refused(lua_State *L, char *why, size_t cap)
{
    int first = lua_type(L, -2);
    bool reason = lua_type(L, -1) == LUA_TSTRING;
    if (first == LUA_TSTRING) {
        snprintf(why, cap, "%s", lua_tostring(L, -2));
        return true;
    }
    if ((first == LUA_TBOOLEAN && !lua_toboolean(L, -2)) || (first == LUA_TNIL && reason)) {
        snprintf(why, cap, "%s", reason ? lua_tostring(L, -1) : "refused");
        return true;
    }
    return false;
}

static int start_body(lua_State *L, void *ud)
{
    (void)ud;
    if (!push_hook(L, "on_start"))
        return 0;
    lua_call(L, 1, 0);
    return 1;
}

void rul_start(rul_runtime *rt)
{
    if (enter(rt, "rul_start") && !rt->stats[RUL_HOOK_START].disabled)
        rul_call(rt, rt->s, RUL_HOOK_START, start_body, NULL, true, NULL);
}

/* ---- players ---- */

typedef struct player_call {
    const rul_player_rec *p;
    const char *name, *data; /* on_action's */
    size_t len;
    char why[MK_ERROR_MESSAGE];
    bool no;
} player_call;

/* Runs a hook that may refuse: 0, or -1 with err (the script's reason, or `failed` when the
 * hook failed, with why: a stop at the budget or the memory cap, or an error, whose details
 * are the log's, not the player's). */
static int ask(rul_runtime *rt, rul_hook h, rul_body body, player_call *c, const char *failed,
               mk_error *err)
{
    uint64_t budget = rt->stats[h].budget_stops, memory = rt->stats[h].memory_stops;
    if (rul_call(rt, rt->s, h, body, c, true, NULL) != 0)
        return mk_fail(err, MK_ERR_INVALID, "%s: %s", failed,
                       rt->stats[h].budget_stops != budget
                           ? "stopped at its instruction budget (--script-budget)"
                       : rt->stats[h].memory_stops != memory
                           ? "stopped at its memory cap (--script-memory)"
                           : "the script raised an error");
    return c->no ? mk_fail(err, MK_ERR_INVALID, "%s", c->why) : 0;
}

static int join_body(lua_State *L, void *ud)
{
    player_call *c = ud;
    lua_getfield(L, LUA_REGISTRYINDEX, RUL_REG_PLAYERS);
    rul_player_table(L, c->p);
    lua_rawseti(L, -2, c->p->id);
    lua_pop(L, 1);
    if (!push_hook(L, "on_join"))
        return 0;
    rul_push_player(L, c->p->id);
    lua_call(L, 2, 2);
    c->no = refused(L, c->why, sizeof c->why);
    return 1;
}

static int forget_body(lua_State *L, void *ud)
{
    lua_getfield(L, LUA_REGISTRYINDEX, RUL_REG_PLAYERS);
    lua_pushnil(L);
    lua_rawseti(L, -2, *(const uint32_t *)ud);
    return 0;
}

/* Takes player id out of the script's table and the runtime's list. */
static void forget(rul_runtime *rt, uint32_t id)
{
    rul_call(rt, rt->s, RUL_HOOK_LEAVE, forget_body, &id, false, NULL);
    rul_player_rec *p = rul_player_find(rt, id);
    if (!p)
        return;
    size_t i = (size_t)(p - rt->players.at);
    memmove(p, p + 1, (rt->players.v.len - i - 1) * sizeof *p);
    rt->players.v.len--;
}

static int copy_field(char *dst, size_t cap, const char *src, const char *what, mk_error *err)
{
    if (src && strlen(src) >= cap)
        return mk_fail(err, MK_ERR_INVALID, "%s: at most %zu bytes", what, cap - 1);
    snprintf(dst, cap, "%s", src ? src : "");
    return 0;
}

int rul_join(rul_runtime *rt, const rul_player *p, mk_error *err)
{
    if (!enter(rt, "rul_join"))
        return mk_fail(err, MK_ERR_INVALID, "the game's rules are busy");
    if (p->id == 0 || rul_player_find(rt, p->id))
        return mk_fail(err, MK_ERR_INVALID, "player %u is already in the game", p->id);
    rul_player_rec rec = {.id = p->id, .avatar = p->avatar};
    if (copy_field(rec.name, sizeof rec.name, p->name, "name", err) != 0 ||
        copy_field(rec.user, sizeof rec.user, p->user, "user", err) != 0 ||
        copy_field(rec.role, sizeof rec.role, p->role, "role", err) != 0)
        return -1;
    /* In the list (by id) before on_join runs, so that the hook can send to the player. */
    if (!mk_vec_reserve(&rt->players.v, rt->players.v.len + 1))
        return mk_fail(err, MK_ERR_INVALID, "out of memory");
    size_t at = 0;
    while (at < rt->players.v.len && rt->players.at[at].id < p->id)
        at++;
    memmove(&rt->players.at[at + 1], &rt->players.at[at],
            (rt->players.v.len - at) * sizeof rec);
    rt->players.at[at] = rec;
    rt->players.v.len++;
    player_call c = {.p = &rt->players.at[at]};
    int rc = ask(rt, RUL_HOOK_JOIN, join_body, &c, "the game's rules failed to take the player in",
                 err);
    if (rc != 0)
        forget(rt, p->id);
    return rc;
}

static int leave_body(lua_State *L, void *ud)
{
    const player_call *c = ud;
    if (!push_hook(L, "on_leave"))
        return 0;
    rul_push_player(L, c->p->id);
    lua_call(L, 2, 0);
    return 1;
}

size_t rul_player_ids(const rul_runtime *rt, uint32_t *ids, size_t cap)
{
    size_t n = rt->players.v.len;
    for (size_t i = 0; i < n && i < cap; i++)
        ids[i] = rt->players.at[i].id;
    return n;
}

void rul_leave(rul_runtime *rt, uint32_t player)
{
    rul_player_rec *p = rul_player_find(rt, player);
    if (!p || !enter(rt, "rul_leave"))
        return;
    player_call c = {.p = p};
    rul_call(rt, rt->s, RUL_HOOK_LEAVE, leave_body, &c, true, NULL);
    forget(rt, player);
}

static int action_body(lua_State *L, void *ud)
{
    player_call *c = ud;
    if (!push_hook(L, "on_action")) {
        c->no = true;
        snprintf(c->why, sizeof c->why, "this game takes no actions");
        return 0;
    }
    rul_push_player(L, c->p->id);
    lua_pushstring(L, c->name);
    if (c->data && c->len)
        rul_json_read(L, c->data, c->len, RUL_JSON_PLAIN);
    else
        lua_pushnil(L);
    lua_call(L, 4, 2);
    c->no = refused(L, c->why, sizeof c->why);
    return 1;
}

int rul_action(rul_runtime *rt, uint32_t player, const char *name, const char *data, size_t len,
               mk_error *err)
{
    if (!enter(rt, "rul_action"))
        return mk_fail(err, MK_ERR_INVALID, "the game's rules are busy");
    rul_player_rec *p = rul_player_find(rt, player);
    if (!p)
        return mk_fail(err, MK_ERR_INVALID, "not a player of this game");
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > RUL_MAX_NAME || !proto_utf8_valid(name, n))
        return mk_fail(err, MK_ERR_INVALID, "name: 1 to %d bytes of UTF-8", RUL_MAX_NAME);
    player_call c = {.p = p, .name = name, .data = data, .len = len};
    return ask(rt, RUL_HOOK_ACTION, action_body, &c, "the game's rules failed on this action", err);
}

/* ---- after each step ---- */

/* An event as the protocol's `events` show it: a sensor's as {sensor, body}, a joint's as
 * {joint}, a pair's as {a, b}, a hit's with its point, normal and speed; and a and b on every
 * one, so that a script may read any event the same way. */
static int event_body(lua_State *L, void *ud)
{
    const sim_event *ev = ud;
    if (!push_hook(L, "on_event"))
        return 0;
    int dim = sim_world_dim(rul_state_of(L)->rt->world);
    lua_createtable(L, 0, 8);
    lua_pushstring(L, rul_event_name(ev->type));
    lua_setfield(L, -2, "type");
    lua_pushinteger(L, (lua_Integer)ev->a);
    lua_setfield(L, -2, "a");
    if (ev->b) {
        lua_pushinteger(L, (lua_Integer)ev->b);
        lua_setfield(L, -2, "b");
    }
    if (ev->type == SIM_EVENT_SENSOR_BEGIN || ev->type == SIM_EVENT_SENSOR_END) {
        lua_pushinteger(L, (lua_Integer)ev->a);
        lua_setfield(L, -2, "sensor");
        lua_pushinteger(L, (lua_Integer)ev->b);
        lua_setfield(L, -2, "body");
    } else if (ev->type == SIM_EVENT_JOINT_BREAK) {
        lua_pushinteger(L, (lua_Integer)ev->a);
        lua_setfield(L, -2, "joint");
    } else if (ev->type == SIM_EVENT_HIT) {
        rul_push_vec(L, ev->point, dim);
        lua_setfield(L, -2, "point");
        rul_push_vec(L, ev->normal, dim);
        lua_setfield(L, -2, "normal");
        lua_pushnumber(L, ev->speed);
        lua_setfield(L, -2, "speed");
    }
    lua_pushinteger(L, (lua_Integer)ev->tick);
    lua_setfield(L, -2, "tick");
    lua_call(L, 2, 0);
    return 1;
}

void rul_event(rul_runtime *rt, const sim_event *ev)
{
    if (!(rt->s->event_types & (1u << ev->type)))
        return; /* not among the script's event_types */
    if (enter(rt, "rul_event") && !rt->stats[RUL_HOOK_EVENT].disabled)
        rul_call(rt, rt->s, RUL_HOOK_EVENT, event_body, (void *)ev, true, NULL);
}

static int timer_body(lua_State *L, void *ud)
{
    const rul_timer *t = ud;
    if (lua_getglobal(L, t->name) != LUA_TFUNCTION)
        return luaL_error(L, "timer %I: no global function named '%s'", (lua_Integer)t->id,
                          t->name);
    lua_getfield(L, LUA_REGISTRYINDEX, RUL_REG_GAME);
    if (t->data)
        rul_json_read(L, t->data, t->len, RUL_JSON_SAVE);
    else
        lua_pushnil(L);
    lua_pushinteger(L, (lua_Integer)t->id);
    lua_call(L, 3, 0);
    return 1;
}

static rul_timer *timer_find(rul_runtime *rt, uint64_t id)
{
    for (size_t i = 0; i < rt->timers.v.len; i++)
        if (rt->timers.at[i].id == id)
            return &rt->timers.at[i];
    return NULL;
}

/* The timers due at `tick`, in the order they fall due (then by id). A repeating one is put
 * back at its next tick before its function runs, so that the function may cancel it; one
 * that fails max_failures times in a row is cancelled. */
static void fire_timers(rul_runtime *rt, uint64_t tick)
{
    while (rt->timers.v.len > 0 && rt->timers.at[0].due <= tick) {
        rul_timer t = rt->timers.at[0];
        rul_timer_remove(rt, 0, false);
        bool repeat = t.every != 0;
        if (repeat) {
            rul_timer next = t;
            next.due = t.due + t.every > tick ? t.due + t.every : tick + t.every;
            if (!rul_timer_insert(rt, &next)) {
                rul_log(rt, RUL_LOG_ERROR, "rules: timer %llu (%s) dropped: out of memory",
                        (unsigned long long)t.id, t.name);
                rul_timer_free(rt, &t);
                continue;
            }
        }
        int rc = rul_call(rt, rt->s, RUL_HOOK_TIMER, timer_body, &t, true, NULL);
        if (!repeat) {
            rul_timer_free(rt, &t);
            continue;
        }
        rul_timer *kept = timer_find(rt, t.id);
        if (!kept)
            continue;
        kept->failing = rc == 0 ? 0 : kept->failing + 1;
        if (kept->failing >= rt->max_failures) {
            rul_log(rt, RUL_LOG_ERROR, "rules: timer %llu (%s) cancelled after %u failures in "
                                       "a row", (unsigned long long)t.id, t.name, kept->failing);
            rul_timer_remove(rt, (size_t)(kept - rt->timers.at), true);
        }
    }
}

static int tick_body(lua_State *L, void *ud)
{
    if (!push_hook(L, "on_tick"))
        return 0;
    lua_pushinteger(L, (lua_Integer)*(const uint64_t *)ud);
    lua_call(L, 2, 0);
    return 1;
}

void rul_after_step(rul_runtime *rt)
{
    for (size_t i = 0;; i++) {
        size_t n;
        const sim_event *events = sim_world_events(rt->world, &n);
        if (i >= n)
            break;
        sim_event ev = events[i]; /* a copy: the hook may add events, and the list move */
        rul_event(rt, &ev);
    }
    rul_tick(rt);
}

void rul_tick(rul_runtime *rt)
{
    if (!enter(rt, "rul_tick"))
        return;
    uint64_t tick = sim_world_tick(rt->world);
    fire_timers(rt, tick);
    if (!rt->stats[RUL_HOOK_TICK].disabled)
        rul_call(rt, rt->s, RUL_HOOK_TICK, tick_body, &tick, true, NULL);
}
