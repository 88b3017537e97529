/* The rules' state as one JSON document, for saves beside the world's journal and snapshots,
 * and for carrying the state into a reloaded script:
 *
 *   {"rules":1,"tick":T,"random":["<16 hex>" x4],"next_timer":N,
 *    "timers":[{"id","due","every","fn","data"?}...],
 *    "players":[{"id","name","user"?,"role"?,"avatar"?,"data"}...],
 *    "state":{...}}
 *
 * Fields in this order, players by id, timers by (due, id), data with sorted keys (data.c):
 * the same state gives the same bytes. The random generator's words are hex strings (JSON
 * carries integers exactly only to 2^53). */
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_internal.h"

#define SAVE_VERSION 1

/* ---- saving ---- */

typedef struct save_call {
    rul_runtime *rt;
    proto_buf *out;
    mk_error *err;
    int rc;
} save_call;

static void put_field(proto_buf *b, const char *name, uint64_t v)
{
    proto_buf_append_char(b, '"');
    proto_buf_append_str(b, name);
    proto_buf_append_str(b, "\":");
    proto_buf_append_u64(b, v);
}

/* Opens the i-th object of an array (a timer, a player) with its id. */
static void open_item(proto_buf *b, size_t i, uint64_t id)
{
    proto_buf_append_str(b, i ? ",{" : "{");
    put_field(b, "id", id);
}

static int save_body(lua_State *L, void *ud)
{
    save_call *c = ud;
    rul_runtime *rt = c->rt;
    proto_buf *b = c->out;
    proto_buf_append_str(b, "{\"rules\":1,");
    put_field(b, "tick", sim_world_tick(rt->world));
    proto_buf_append_str(b, ",\"random\":[");
    for (int k = 0; k < 4; k++) {
        char hex[20];
        snprintf(hex, sizeof hex, "\"%016llx\"", (unsigned long long)rt->rng[k]);
        proto_buf_append_str(b, k ? "," : "");
        proto_buf_append_str(b, hex);
    }
    proto_buf_append_str(b, "],");
    put_field(b, "next_timer", rt->next_timer);
    proto_buf_append_str(b, ",\"timers\":[");
    for (size_t i = 0; i < rt->timers.v.len; i++) {
        const rul_timer *t = &rt->timers.at[i];
        open_item(b, i, t->id);
        proto_buf_append_char(b, ',');
        put_field(b, "due", t->due);
        proto_buf_append_char(b, ',');
        put_field(b, "every", t->every);
        proto_buf_append_str(b, ",\"fn\":");
        proto_buf_append_json_string(b, t->name);
        if (t->data) {
            proto_buf_append_str(b, ",\"data\":");
            proto_buf_append(b, t->data, t->len);
        }
        proto_buf_append_char(b, '}');
    }
    proto_buf_append_str(b, "],\"players\":[");
    for (size_t i = 0; i < rt->players.v.len; i++) {
        const rul_player_rec *p = &rt->players.at[i];
        open_item(b, i, p->id);
        proto_buf_append_str(b, ",\"name\":");
        proto_buf_append_json_string(b, p->name);
        const char *opt[2][2] = {{"user", p->user}, {"role", p->role}};
        for (int k = 0; k < 2; k++) {
            if (!opt[k][1][0])
                continue;
            proto_buf_append_str(b, k ? ",\"role\":" : ",\"user\":");
            proto_buf_append_json_string(b, opt[k][1]);
        }
        if (p->avatar) {
            proto_buf_append_char(b, ',');
            put_field(b, "avatar", p->avatar);
        }
        proto_buf_append_str(b, ",\"data\":");
        rul_push_player(L, p->id);
        lua_getfield(L, -1, "data");
        char root[40];
        snprintf(root, sizeof root, "game.player(%u).data", p->id);
        if (rul_json_write(L, -1, RUL_JSON_SAVE, root, b, c->err) != 0) {
            c->rc = -1;
            return 0;
        }
        lua_pop(L, 2);
        proto_buf_append_char(b, '}');
    }
    proto_buf_append_str(b, "],\"state\":");
    lua_getfield(L, LUA_REGISTRYINDEX, RUL_REG_GAME);
    if (lua_getfield(L, -1, "state") != LUA_TTABLE) {
        c->rc = mk_fail(c->err, MK_ERR_INVALID, "game.state: a table expected, not a %s",
                        luaL_typename(L, -1));
        return 0;
    }
    c->rc = rul_json_write(L, -1, RUL_JSON_SAVE, "game.state", b, c->err);
    proto_buf_append_str(b, "}\n");
    return 0;
}

static int save_in(rul_runtime *rt, rul_state *s, proto_buf *out, mk_error *err)
{
    size_t start = out->len;
    save_call c = {rt, out, err, 0};
    if (rul_call(rt, s, RUL_HOOK_LOAD, save_body, &c, false, err) != 0)
        c.rc = -1;
    else if (c.rc == 0 && out->failed)
        c.rc = mk_fail(err, MK_ERR_INVALID, "rules: out of memory for the save");
    if (c.rc != 0)
        out->len = start;
    return c.rc;
}

int rul_save(rul_runtime *rt, proto_buf *out, mk_error *err)
{
    if (rt->busy)
        return mk_fail(err, MK_ERR_INVALID, "rules: a save inside a hook is refused");
    return save_in(rt, rt->s, out, err);
}

/* ---- loading ---- */

typedef struct load_call {
    rul_runtime *rt;
    const char *data;
    size_t len;
    uint64_t rng[4], next_timer;
    MK_VEC(rul_timer) timers;
    MK_VEC(rul_player_rec) players;
} load_call;

/* Field `key` of the table at idx as an integer in [min, max]; `need` false: absent gives def. */
static lua_Integer get_int(lua_State *L, int idx, const char *path, const char *key,
                           lua_Integer min, lua_Integer max, bool need, lua_Integer def)
{
    int t = lua_getfield(L, idx, key);
    lua_Integer v = def;
    if (t != LUA_TNIL || need) {
        if (!lua_isinteger(L, -1) || (v = lua_tointeger(L, -1)) < min || v > max)
            luaL_error(L, "%s.%s: an integer in [%I, %I] expected", path, key, min, max);
    }
    lua_pop(L, 1);
    return v;
}

/* Field `key` of the table at idx, a string of at most cap - 1 bytes, into out ("" absent). */
static void get_str(lua_State *L, int idx, const char *path, const char *key, char *out,
                    size_t cap, bool need)
{
    int t = lua_getfield(L, idx, key);
    size_t len = 0;
    const char *s = t == LUA_TSTRING ? lua_tolstring(L, -1, &len) : "";
    if ((t != LUA_TNIL || need) && (t != LUA_TSTRING || len >= cap))
        luaL_error(L, "%s.%s: a string of at most %d bytes expected", path, key, (int)cap - 1);
    memcpy(out, s, len);
    out[len] = '\0';
    lua_pop(L, 1);
}

/* The array field `key` of the document (at 1): its length; the array on top. */
static lua_Integer get_array(lua_State *L, const char *key)
{
    if (lua_getfield(L, 1, key) != LUA_TTABLE)
        luaL_error(L, "%s: an array expected", key);
    return (lua_Integer)lua_rawlen(L, -1);
}

static void load_random(lua_State *L, load_call *c)
{
    if (get_array(L, "random") != 4)
        luaL_error(L, "random: four words expected");
    for (int k = 0; k < 4; k++) {
        lua_rawgeti(L, -1, k + 1);
        size_t len = 0;
        const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : "";
        char *end;
        c->rng[k] = strtoull(s, &end, 16);
        if (len != 16 || end != s + 16)
            luaL_error(L, "random[%d]: 16 hex digits expected", k + 1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* Item i of the array at arr, an object pushed; its path ("timers[2]") in path. */
static int get_item(lua_State *L, int arr, const char *key, lua_Integer i, char *path, size_t cap)
{
    snprintf(path, cap, "%s[%lld]", key, (long long)i);
    if (lua_rawgeti(L, arr, i) != LUA_TTABLE)
        luaL_error(L, "%s: an object expected", path);
    return lua_gettop(L);
}

static void load_timers(lua_State *L, load_call *c)
{
    rul_runtime *rt = c->rt;
    lua_Integer n = get_array(L, "timers");
    int arr = lua_gettop(L);
    for (lua_Integer i = 1; i <= n; i++) {
        char path[32];
        int t = get_item(L, arr, "timers", i, path, sizeof path);
        rul_timer tm = {0};
        tm.id = (uint64_t)get_int(L, t, path, "id", 1, (lua_Integer)c->next_timer - 1, true, 0);
        tm.due = (uint64_t)get_int(L, t, path, "due", 0, LUA_MAXINTEGER, true, 0);
        tm.every = (uint64_t)get_int(L, t, path, "every", 0, RUL_MAX_TICKS, true, 0);
        get_str(L, t, path, "fn", tm.name, sizeof tm.name, true);
        if (!tm.name[0])
            luaL_error(L, "%s.fn: a function's name expected", path);
        if (lua_getfield(L, t, "data") != LUA_TNIL) {
            proto_buf_clear(&rt->text);
            mk_error err;
            if (rul_json_write(L, -1, RUL_JSON_SAVE, path, &rt->text, &err) != 0)
                luaL_error(L, "%s", err.message);
            tm.len = rt->text.len;
        }
        if (!MK_VEC_PUSH(&c->timers, tm))
            luaL_error(L, "rules: out of memory");
        rul_timer *kept = &c->timers.at[c->timers.v.len - 1]; /* freed by load_in on failure */
        if (tm.len && !(kept->data = malloc(tm.len)))
            luaL_error(L, "rules: out of memory");
        if (tm.len)
            memcpy(kept->data, rt->text.data, tm.len);
        lua_settop(L, arr);
    }
    lua_pop(L, 1);
}

/* The players (ids increasing) and their tables, into a new players table left on top. */
static void load_players(lua_State *L, load_call *c)
{
    lua_Integer n = get_array(L, "players");
    int arr = lua_gettop(L);
    lua_createtable(L, 0, (int)n);
    int table = lua_gettop(L);
    for (lua_Integer i = 1; i <= n; i++) {
        char path[32];
        int t = get_item(L, arr, "players", i, path, sizeof path);
        rul_player_rec p = {0};
        lua_Integer last = c->players.v.len ? c->players.at[c->players.v.len - 1].id : 0;
        p.id = (uint32_t)get_int(L, t, path, "id", last + 1, UINT32_MAX, true, 0);
        get_str(L, t, path, "name", p.name, sizeof p.name, true);
        get_str(L, t, path, "user", p.user, sizeof p.user, false);
        get_str(L, t, path, "role", p.role, sizeof p.role, false);
        p.avatar = (sim_id)get_int(L, t, path, "avatar", 0, (lua_Integer)1 << 53, false, 0);
        if (!MK_VEC_PUSH(&c->players, p))
            luaL_error(L, "rules: out of memory");
        rul_player_table(L, &p);
        int type = lua_getfield(L, t, "data");
        if (type != LUA_TNIL && type != LUA_TTABLE)
            luaL_error(L, "%s.data: a table expected", path);
        if (type == LUA_TTABLE)
            lua_setfield(L, -2, "data");
        else
            lua_pop(L, 1);
        lua_rawseti(L, table, p.id);
        lua_settop(L, table);
    }
    lua_remove(L, arr);
}

static int by_id(const void *pa, const void *pb)
{
    const rul_timer *a = pa, *b = pb;
    return (a->id > b->id) - (a->id < b->id);
}

static int by_due(const void *pa, const void *pb)
{
    const rul_timer *a = pa, *b = pb;
    if (a->due != b->due)
        return (a->due > b->due) - (a->due < b->due);
    return (a->id > b->id) - (a->id < b->id);
}

static int load_body(lua_State *L, void *ud)
{
    load_call *c = ud;
    rul_json_read(L, c->data, c->len, RUL_JSON_SAVE);
    if (!lua_istable(L, 1))
        return luaL_error(L, "a rules save is an object");
    get_int(L, 1, "save", "rules", SAVE_VERSION, SAVE_VERSION, true, 0);
    c->next_timer = (uint64_t)get_int(L, 1, "save", "next_timer", 1, LUA_MAXINTEGER, true, 0);
    load_random(L, c);
    load_timers(L, c);
    if (c->timers.v.len > 1) {
        qsort(c->timers.at, c->timers.v.len, sizeof *c->timers.at, by_id);
        for (size_t i = 1; i < c->timers.v.len; i++)
            if (c->timers.at[i].id == c->timers.at[i - 1].id)
                return luaL_error(L, "timers: id %I twice", (lua_Integer)c->timers.at[i].id);
        qsort(c->timers.at, c->timers.v.len, sizeof *c->timers.at, by_due);
    }
    load_players(L, c);
    if (lua_getfield(L, 1, "state") != LUA_TTABLE)
        return luaL_error(L, "state: a table expected");
    /* Everything read: the state and the players' tables replace the script's. */
    lua_getfield(L, LUA_REGISTRYINDEX, RUL_REG_GAME);
    lua_insert(L, -2);
    lua_setfield(L, -2, "state");
    lua_pop(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, RUL_REG_PLAYERS);
    return 0;
}

static void free_timers(mk_vec *v)
{
    for (size_t i = 0; i < v->len; i++)
        free(((rul_timer *)v->data)[i].data);
    mk_vec_free(v);
}

static int load_in(rul_runtime *rt, rul_state *s, const char *data, size_t len, mk_error *err)
{
    load_call c = {.rt = rt, .data = data, .len = len};
    c.timers.v = mk_vec_make(sizeof(rul_timer));
    c.players.v = mk_vec_make(sizeof(rul_player_rec));
    if (rul_call(rt, s, RUL_HOOK_LOAD, load_body, &c, false, err) != 0) {
        free_timers(&c.timers.v);
        mk_vec_free(&c.players.v);
        mk_error_prefix(err, "rules save: ");
        return -1;
    }
    free_timers(&rt->timers.v);
    rt->timers.v = c.timers.v;
    rt->timer_bytes = 0;
    for (size_t i = 0; i < rt->timers.v.len; i++)
        rt->timer_bytes += rt->timers.at[i].len + sizeof(rul_timer);
    mk_vec_free(&rt->players.v);
    rt->players.v = c.players.v;
    memcpy(rt->rng, c.rng, sizeof rt->rng);
    rt->next_timer = c.next_timer;
    return 0;
}

int rul_load(rul_runtime *rt, const char *data, size_t len, mk_error *err)
{
    if (rt->busy)
        return mk_fail(err, MK_ERR_INVALID, "rules: a load inside a hook is refused");
    return load_in(rt, rt->s, data, len, err);
}

int rul_carry(rul_runtime *rt, rul_state *from, rul_state *to, mk_error *err)
{
    proto_buf b;
    proto_buf_init(&b);
    int rc = save_in(rt, from, &b, err);
    if (rc == 0)
        rc = load_in(rt, to, b.data, b.len, err);
    proto_buf_free(&b);
    return rc;
}
