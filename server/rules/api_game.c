/* The script's view of its game: the `game` table (state, players, messages to them), the
 * clock in ticks, timers that name a function and carry data (so that they can be saved), and
 * the random generator, xoshiro256** as Lua 5.4's own math.random, its state the rules'. */
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_internal.h"

static rul_runtime *rt_of(lua_State *L) { return rul_state_of(L)->rt; }

/* ---- the random generator: xoshiro256** (Blackman and Vigna), seeded as Lua 5.4 seeds its
 * own (math.randomseed: n1, 0xff, n2, 0, then 16 draws discarded), so that a script draws
 * the numbers it would draw in a plain Lua 5.4 after the same seed ---- */

static uint64_t rotl(uint64_t x, int n) { return (x << n) | (x >> (64 - n)); }

uint64_t rul_random_next(uint64_t s[4])
{
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

static void seed2(uint64_t s[4], uint64_t n1, uint64_t n2)
{
    s[0] = n1;
    s[1] = 0xff; /* never a zero state */
    s[2] = n2;
    s[3] = 0;
    for (int i = 0; i < 16; i++)
        rul_random_next(s);
}

void rul_random_seed(uint64_t s[4], uint64_t seed) { seed2(s, seed, 0); }

/* A draw in [0, n], unbiased: the draw masked to the smallest 2^b - 1 not below n, drawn again
 * while past n (Lua 5.4's `project`). */
static uint64_t project(uint64_t ran, uint64_t n, uint64_t s[4])
{
    if ((n & (n + 1)) == 0)
        return ran & n;
    uint64_t lim = n;
    for (int k = 1; k < 64; k *= 2)
        lim |= lim >> k;
    while ((ran &= lim) > n)
        ran = rul_random_next(s);
    return ran;
}

/* math.random() in [0, 1), math.random(m) in [1, m], math.random(m, n) in [m, n],
 * math.random(0) a whole 64-bit integer. */
static int random_draw(lua_State *L)
{
    rul_need_hook(L, "math.random");
    uint64_t *s = rt_of(L)->rng;
    uint64_t r = rul_random_next(s);
    lua_Integer low, up;
    switch (lua_gettop(L)) {
    case 0:
        lua_pushnumber(L, (lua_Number)(r >> 11) * 0x1.0p-53);
        return 1;
    case 1:
        low = 1;
        up = luaL_checkinteger(L, 1);
        if (up == 0) {
            lua_pushinteger(L, (lua_Integer)r);
            return 1;
        }
        break;
    case 2:
        low = luaL_checkinteger(L, 1);
        up = luaL_checkinteger(L, 2);
        break;
    default:
        return luaL_error(L, "wrong number of arguments");
    }
    luaL_argcheck(L, low <= up, 1, "interval is empty");
    uint64_t d = project(r, (uint64_t)up - (uint64_t)low, s);
    lua_pushinteger(L, (lua_Integer)(d + (uint64_t)low));
    return 1;
}

/* math.randomseed(n1, n2?): the same seed as Lua's; without one it is refused (a seed from
 * the time would not replay). */
static int random_seed(lua_State *L)
{
    rul_need_hook(L, "math.randomseed");
    lua_Integer n1 = luaL_checkinteger(L, 1), n2 = luaL_optinteger(L, 2, 0);
    seed2(rt_of(L)->rng, (uint64_t)n1, (uint64_t)n2);
    return 0;
}

/* ---- the clock ---- */

static int tick_now(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)sim_world_tick(rt_of(L)->world));
    return 1;
}

/* Seconds of the world's time: ticks times the fixed step (os.clock's stand-in). */
static int world_clock(lua_State *L)
{
    const sim_world *w = rt_of(L)->world;
    lua_pushnumber(L, (lua_Number)sim_world_tick(w) * (lua_Number)sim_world_config(w)->dt);
    return 1;
}

static int log_line(lua_State *L)
{
    const char *s = luaL_checkstring(L, 1);
    rul_log(rt_of(L), RUL_LOG_INFO, "script: %s", s);
    return 0;
}

/* ---- players ---- */

/* bsearch's order of the players: by id. */
static int player_cmp(const void *key, const void *rec)
{
    uint32_t a = *(const uint32_t *)key, b = ((const rul_player_rec *)rec)->id;
    return (a > b) - (a < b);
}

rul_player_rec *rul_player_find(rul_runtime *rt, uint32_t id)
{
    return rt->players.v.len ? bsearch(&id, rt->players.at, rt->players.v.len,
                                       sizeof *rt->players.at, player_cmp)
                             : NULL;
}

void rul_player_table(lua_State *L, const rul_player_rec *p)
{
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, p->id);
    lua_setfield(L, -2, "id");
    lua_pushstring(L, p->name);
    lua_setfield(L, -2, "name");
    if (p->user[0]) {
        lua_pushstring(L, p->user);
        lua_setfield(L, -2, "user");
    }
    if (p->role[0]) {
        lua_pushstring(L, p->role);
        lua_setfield(L, -2, "role");
    }
    if (p->avatar) {
        lua_pushinteger(L, (lua_Integer)p->avatar);
        lua_setfield(L, -2, "avatar");
    }
    lua_newtable(L);
    lua_setfield(L, -2, "data");
}

void rul_push_player(lua_State *L, uint32_t id)
{
    lua_getfield(L, LUA_REGISTRYINDEX, RUL_REG_PLAYERS);
    lua_rawgeti(L, -1, id);
    lua_remove(L, -2);
}

/* The player named by the argument at idx: a player table or its id. */
static uint32_t player_arg(lua_State *L, int idx)
{
    lua_Integer id;
    if (lua_type(L, idx) == LUA_TTABLE) {
        lua_getfield(L, idx, "id");
        id = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : -1;
        lua_pop(L, 1);
    } else {
        id = luaL_checkinteger(L, idx);
    }
    return id > 0 && id <= UINT32_MAX ? (uint32_t)id : 0;
}

static int game_player(lua_State *L)
{
    uint32_t id = player_arg(L, 1);
    if (!rul_player_find(rt_of(L), id)) {
        lua_pushnil(L);
        return 1;
    }
    rul_push_player(L, id);
    return 1;
}

static int game_players(lua_State *L)
{
    rul_runtime *rt = rt_of(L);
    size_t n = rt->players.v.len;
    rul_charge(L, n);
    lua_createtable(L, (int)n, 0);
    lua_getfield(L, LUA_REGISTRYINDEX, RUL_REG_PLAYERS);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, -1, rt->players.at[i].id);
        lua_rawseti(L, -3, (lua_Integer)i + 1);
    }
    lua_pop(L, 1);
    return 1;
}

/* A message's name: 1 to RUL_MAX_NAME bytes. */
static const char *name_arg(lua_State *L, int idx, const char *fn)
{
    size_t len;
    const char *name = luaL_checklstring(L, idx, &len);
    if (len == 0 || len > RUL_MAX_NAME || !proto_utf8_valid(name, len))
        luaL_error(L, "%s: a name is 1 to %d bytes of UTF-8", fn, RUL_MAX_NAME);
    return name;
}

/* The JSON of the optional data at idx in rt->text (len 0: none). */
static void data_arg(lua_State *L, int idx)
{
    if (lua_isnoneornil(L, idx))
        proto_buf_clear(&rt_of(L)->text);
    else
        rul_json_text(L, idx, "data");
}

static int game_send(lua_State *L)
{
    rul_need_hook(L, "game.send");
    rul_runtime *rt = rt_of(L);
    uint32_t id = player_arg(L, 1);
    const char *name = name_arg(L, 2, "game.send");
    data_arg(L, 3);
    if (!rul_player_find(rt, id)) {
        lua_pushnil(L);
        lua_pushstring(L, "game.send: not a player of this game");
        return 2;
    }
    if (rt->host.send)
        rt->host.send(rt->host.ctx, id, name, rt->text.len ? rt->text.data : NULL, rt->text.len);
    lua_pushboolean(L, 1);
    return 1;
}

static int game_broadcast(lua_State *L)
{
    rul_need_hook(L, "game.broadcast");
    rul_runtime *rt = rt_of(L);
    const char *name = name_arg(L, 1, "game.broadcast");
    data_arg(L, 2);
    if (rt->host.broadcast)
        rt->host.broadcast(rt->host.ctx, name, rt->text.len ? rt->text.data : NULL,
                           rt->text.len);
    lua_pushboolean(L, 1);
    return 1;
}

static int game_kick(lua_State *L)
{
    rul_need_hook(L, "game.kick");
    rul_runtime *rt = rt_of(L);
    uint32_t id = player_arg(L, 1);
    const char *reason = luaL_optstring(L, 2, "removed by the game's rules");
    if (!rul_player_find(rt, id)) {
        lua_pushnil(L);
        lua_pushstring(L, "game.kick: not a player of this game");
        return 2;
    }
    if (rt->host.kick)
        rt->host.kick(rt->host.ctx, id, reason);
    lua_pushboolean(L, 1);
    return 1;
}

/* ---- timers ---- */

bool rul_timer_insert(rul_runtime *rt, const rul_timer *t)
{
    if (!mk_vec_reserve(&rt->timers.v, rt->timers.v.len + 1))
        return false;
    size_t lo = 0, hi = rt->timers.v.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const rul_timer *m = &rt->timers.at[mid];
        if (m->due < t->due || (m->due == t->due && m->id < t->id))
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(&rt->timers.at[lo + 1], &rt->timers.at[lo],
            (rt->timers.v.len - lo) * sizeof *rt->timers.at);
    rt->timers.at[lo] = *t;
    rt->timers.v.len++;
    return true;
}

void rul_timer_free(rul_runtime *rt, rul_timer *t)
{
    rt->timer_bytes -= t->len + sizeof *t;
    free(t->data);
    t->data = NULL;
}

void rul_timer_remove(rul_runtime *rt, size_t i, bool free_data)
{
    if (free_data)
        rul_timer_free(rt, &rt->timers.at[i]);
    memmove(&rt->timers.at[i], &rt->timers.at[i + 1],
            (rt->timers.v.len - i - 1) * sizeof *rt->timers.at);
    rt->timers.v.len--;
}

static int add_timer(lua_State *L, bool every)
{
    const char *fn = every ? "mink.every" : "mink.after";
    rul_need_hook(L, fn);
    rul_runtime *rt = rt_of(L);
    rul_state *s = rul_state_of(L);
    lua_Integer ticks = luaL_checkinteger(L, 1);
    if (ticks < 1 || ticks > RUL_MAX_TICKS)
        return luaL_error(L, "%s: ticks must be in [1, %d]", fn, RUL_MAX_TICKS);
    const char *name = name_arg(L, 2, fn);
    if (lua_getglobal(L, name) != LUA_TFUNCTION)
        return luaL_error(L, "%s: no global function named '%s'", fn, name);
    lua_pop(L, 1);
    if (rt->timers.v.len >= RUL_MAX_TIMERS)
        return luaL_error(L, "%s: %d timers are waiting already", fn, RUL_MAX_TIMERS);
    rul_timer t = {.id = rt->next_timer, .every = every ? (uint64_t)ticks : 0};
    t.due = sim_world_tick(rt->world) + (uint64_t)ticks;
    snprintf(t.name, sizeof t.name, "%s", name);
    if (!lua_isnoneornil(L, 3)) {
        proto_buf_clear(&rt->text);
        mk_error err;
        if (rul_json_write(L, 3, RUL_JSON_SAVE, "data", &rt->text, &err) != 0)
            return luaL_error(L, "%s: %s", fn, err.message);
        t.len = rt->text.len;
    }
    if (s->used + rt->timer_bytes + t.len + sizeof t > s->limit)
        return luaL_error(L, "%s: the script's memory is at its cap (--script-memory)", fn);
    if (t.len && !(t.data = malloc(t.len)))
        return luaL_error(L, "%s: out of memory", fn);
    if (t.len)
        memcpy(t.data, rt->text.data, t.len);
    if (!rul_timer_insert(rt, &t)) {
        free(t.data);
        return luaL_error(L, "%s: out of memory", fn);
    }
    rt->timer_bytes += t.len + sizeof t;
    rt->next_timer++;
    lua_pushinteger(L, (lua_Integer)t.id);
    return 1;
}

static int timer_after(lua_State *L) { return add_timer(L, false); }
static int timer_every(lua_State *L) { return add_timer(L, true); }

static int timer_cancel(lua_State *L)
{
    rul_need_hook(L, "mink.cancel");
    rul_runtime *rt = rt_of(L);
    lua_Integer id = luaL_checkinteger(L, 1);
    for (size_t i = 0; i < rt->timers.v.len; i++) {
        if ((lua_Integer)rt->timers.at[i].id != id)
            continue;
        rul_timer_remove(rt, i, true);
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    return 1;
}

static void set_functions(lua_State *L, const luaL_Reg *fns)
{
    for (; fns->name; fns++) {
        lua_pushcfunction(L, fns->func);
        lua_setfield(L, -2, fns->name);
    }
}

void rul_api_open(lua_State *L)
{
    static const luaL_Reg game_fns[] = {
        {"player", game_player}, {"players", game_players}, {"send", game_send},
        {"broadcast", game_broadcast}, {"kick", game_kick}, {NULL, NULL},
    };
    lua_newtable(L);
    set_functions(L, game_fns);
    lua_newtable(L);
    lua_setfield(L, -2, "state");
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, RUL_REG_GAME);
    lua_setglobal(L, "game");
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, RUL_REG_PLAYERS);

    static const luaL_Reg mink_fns[] = {
        {"tick", tick_now},       {"clock", world_clock},   {"log", log_line},
        {"after", timer_after},   {"every", timer_every},   {"cancel", timer_cancel},
        {"random", random_draw},  {"randomseed", random_seed}, {"send", game_send},
        {"broadcast", game_broadcast}, {NULL, NULL},
    };
    const sim_world *w = rt_of(L)->world;
    lua_newtable(L);
    set_functions(L, mink_fns);
    lua_pushinteger(L, sim_world_dim(w));
    lua_setfield(L, -2, "dim");
    lua_pushnumber(L, (lua_Number)sim_world_config(w)->dt);
    lua_setfield(L, -2, "dt");
    lua_setglobal(L, "mink");

    lua_newtable(L);
    lua_pushcfunction(L, world_clock);
    lua_setfield(L, -2, "clock");
    lua_setglobal(L, "os");

    lua_getglobal(L, LUA_MATHLIBNAME);
    lua_pushcfunction(L, random_draw);
    lua_setfield(L, -2, "random");
    lua_pushcfunction(L, random_seed);
    lua_setfield(L, -2, "randomseed");
    lua_pop(L, 1);
}
