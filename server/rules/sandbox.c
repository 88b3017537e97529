/* The sandbox: what a script's state has. Only the base functions, string, table, math and
 * utf8 (no io, os, package, require, debug, coroutine, dofile, loadfile, string.dump); load
 * only of text; no finalizers; and everything whose answer would differ between a run and
 * its replay replaced by a deterministic form: pairs and next walk keys in sorted order (a
 * table's internal order follows string hashes that Lua seeds from the time and addresses,
 * luai_makeseed), table.sort is a stable merge sort (Lua's quicksort picks random pivots,
 * l_randomizePivot), tostring and string.format show no addresses, math.random draws from the
 * rules' own saved generator. The C loops a script can make as long as it likes
 * (table.insert, remove and move under a __len, string.rep of an empty string) and the
 * string functions that read long strings whole are charged to the instruction budget. */
#include <lauxlib.h>
#include <limits.h>
#include <lualib.h>
#include <stdlib.h>
#include <string.h>

#include "rules_internal.h"

static void no_order(lua_State *L, const char *fn, int type)
{
    luaL_error(L, "%s: a key that is a %s has no order that a replay keeps (keys are walked "
                  "in sorted order: numbers, strings, booleans)", fn, lua_typename(L, type));
}

/* pairs' iterator: upvalues the keys (a sequence), their records (sorted) and the position. */
static int sorted_next(lua_State *L)
{
    const rul_key *keys = lua_touserdata(L, lua_upvalueindex(2));
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(3));
    size_t count = (size_t)lua_tointeger(L, lua_upvalueindex(4));
    while ((size_t)i < count) {
        lua_rawgeti(L, lua_upvalueindex(1), keys[i].slot);
        i++;
        lua_pushvalue(L, -1);
        if (lua_rawget(L, 1) != LUA_TNIL) { /* a key removed while walking is skipped */
            lua_pushinteger(L, i);
            lua_replace(L, lua_upvalueindex(3));
            return 2;
        }
        lua_pop(L, 2);
    }
    lua_pushinteger(L, i);
    lua_replace(L, lua_upvalueindex(3));
    lua_pushnil(L);
    return 1;
}

/* pairs(t): the keys as they are when it is called, in sorted order; a __pairs metamethod is
 * honoured, as Lua's own. */
static int sorted_pairs(lua_State *L)
{
    luaL_checkany(L, 1);
    if (luaL_getmetafield(L, 1, "__pairs") != LUA_TNIL) {
        lua_pushvalue(L, 1);
        lua_call(L, 1, 3);
        return 3;
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    size_t n;
    rul_key *keys = rul_keys(L, 1, &n);
    if (n > 0 && keys[n - 1].kind == RUL_KEY_OTHER) {
        lua_rawgeti(L, -2, keys[n - 1].slot);
        no_order(L, "pairs", lua_type(L, -1));
    }
    lua_pushinteger(L, 0);
    lua_pushinteger(L, (lua_Integer)n);
    lua_pushcclosure(L, sorted_next, 4);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

/* next(t, k): the key after k in sorted order, found by looking at every key (O(n) a call:
 * pairs is the way to walk; next(t) == nil tests for an empty table). */
static int sorted_next_key(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 3); /* 3: the best key so far (keeps its string alive) */
    rul_key after, best, k;
    bool from_start = lua_isnil(L, 2), found = false;
    if (!from_start) {
        rul_key_of(L, 2, &after);
        if (after.kind == RUL_KEY_OTHER)
            no_order(L, "next", lua_type(L, 2));
    }
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        n++;
        lua_pop(L, 1);
        rul_key_of(L, -1, &k);
        if (k.kind == RUL_KEY_OTHER)
            no_order(L, "next", lua_type(L, -1));
        if ((from_start || rul_key_cmp(&k, &after) > 0) && (!found || rul_key_cmp(&k, &best) < 0)) {
            best = k;
            found = true;
            lua_pushvalue(L, -1);
            lua_replace(L, 3);
        }
    }
    rul_charge(L, n);
    if (!found) {
        lua_pushnil(L);
        return 1;
    }
    lua_settop(L, 3);
    lua_pushvalue(L, 3);
    lua_rawget(L, 1);
    return 2;
}

/* ---- table functions whose loops a script could make endless ---- */

static bool less_than(lua_State *L, int a, int b)
{
    if (lua_isnil(L, 2))
        return lua_compare(L, a, b, LUA_OPLT);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, a > 0 ? a : a - 1);
    lua_pushvalue(L, b > 0 ? b : b - 2);
    lua_call(L, 2, 1);
    bool r = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return r;
}

/* table.sort(t, comp?): a stable bottom-up merge sort, the same order in every run (equal
 * elements keep their order). n log n comparisons, each charged. */
static int stable_sort(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 1);
    if (!lua_isnoneornil(L, 2))
        luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_settop(L, 2);
    if (n < 2)
        return 0;
    rul_charge(L, (uint64_t)n);
    luaL_argcheck(L, n < INT_MAX, 1, "array too big");
    lua_createtable(L, (int)n, 0); /* 3: the elements, then each pass's source */
    lua_createtable(L, (int)n, 0); /* 4: each pass's destination */
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, 1, i);
        lua_rawseti(L, 3, i);
    }
    int src = 3, dst = 4;
    for (lua_Integer width = 1; width < n; width *= 2) {
        rul_charge(L, (uint64_t)n);
        for (lua_Integer lo = 1; lo <= n; lo += 2 * width) {
            lua_Integer mid = lo + width <= n + 1 ? lo + width : n + 1;
            lua_Integer hi = lo + 2 * width <= n + 1 ? lo + 2 * width : n + 1;
            lua_Integer i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                lua_rawgeti(L, src, i);
                lua_rawgeti(L, src, j);
                if (less_than(L, -1, -2)) { /* only a strictly smaller right goes first */
                    lua_rawseti(L, dst, k++);
                    lua_pop(L, 1);
                    j++;
                } else {
                    lua_pop(L, 1);
                    lua_rawseti(L, dst, k++);
                    i++;
                }
            }
            for (; i < mid; i++, k++) {
                lua_rawgeti(L, src, i);
                lua_rawseti(L, dst, k);
            }
            for (; j < hi; j++, k++) {
                lua_rawgeti(L, src, j);
                lua_rawseti(L, dst, k);
            }
        }
        int t = src;
        src = dst;
        dst = t;
    }
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, src, i);
        lua_seti(L, 1, i);
    }
    return 0;
}

/* table.insert(t, [pos,] v), as Lua's, with the shift charged. */
static int table_insert(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer e = luaL_len(L, 1);
    luaL_argcheck(L, e < LUA_MAXINTEGER, 1, "table too long");
    e++;
    lua_Integer pos = e;
    switch (lua_gettop(L)) {
    case 2:
        break;
    case 3:
        pos = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2, "position out of bounds");
        rul_charge(L, (uint64_t)(e - pos));
        for (lua_Integer i = e; i > pos; i--) {
            lua_geti(L, 1, i - 1);
            lua_seti(L, 1, i);
        }
        break;
    default:
        return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, pos);
    return 0;
}

/* table.remove(t, pos?), as Lua's, with the shift charged. */
static int table_remove(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer size = luaL_len(L, 1);
    lua_Integer pos = luaL_optinteger(L, 2, size);
    if (pos != size)
        luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 2,
                      "position out of bounds");
    lua_geti(L, 1, pos);
    if (size > pos)
        rul_charge(L, (uint64_t)(size - pos));
    for (; pos < size; pos++) {
        lua_geti(L, 1, pos + 1);
        lua_seti(L, 1, pos);
    }
    lua_pushnil(L);
    lua_seti(L, 1, pos);
    return 1;
}

/* table.move(a1, f, e, t, a2?), as Lua's, with the elements charged. */
static int table_move(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
    lua_Integer t = luaL_checkinteger(L, 4);
    int tt = lua_isnoneornil(L, 5) ? 1 : 5;
    luaL_checktype(L, tt, LUA_TTABLE);
    if (e >= f) {
        luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
        lua_Integer n = e - f + 1;
        luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
        rul_charge(L, (uint64_t)n);
        if (t > e || t <= f || (tt != 1 && !lua_compare(L, 1, tt, LUA_OPEQ))) {
            for (lua_Integer i = 0; i < n; i++) {
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
            }
        } else {
            for (lua_Integer i = n - 1; i >= 0; i--) {
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
            }
        }
    }
    lua_pushvalue(L, tt);
    return 1;
}

/* ---- what shows no address, loads no bytecode, keeps no finalizer ---- */

/* Pushes the text of the value at idx: its __tostring's, or for a table, a function or
 * userdata without one, its type's name (luaL_tolstring would show its address). */
static const char *push_text(lua_State *L, int idx)
{
    int t = lua_type(L, idx);
    bool object = t == LUA_TTABLE || t == LUA_TFUNCTION || t == LUA_TUSERDATA ||
                  t == LUA_TTHREAD || t == LUA_TLIGHTUSERDATA;
    if (object) {
        if (luaL_getmetafield(L, idx, "__tostring") == LUA_TNIL)
            return lua_pushstring(L, lua_typename(L, t));
        lua_pop(L, 1);
    }
    return luaL_tolstring(L, idx, NULL);
}

static int safe_tostring(lua_State *L)
{
    luaL_checkany(L, 1);
    push_text(L, 1);
    return 1;
}

/* print(...): to the server's log, as the script's. */
static int safe_print(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1)
            luaL_addchar(&b, '\t');
        push_text(L, i);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    rul_log(rul_state_of(L)->rt, RUL_LOG_INFO, "script: %s", lua_tostring(L, -1));
    return 0;
}

/* string.format: %p (an address) refused; tables and functions shown as by tostring. */
static int safe_format(lua_State *L)
{
    size_t len;
    const char *f = luaL_checklstring(L, 1, &len);
    for (size_t i = 0; i + 1 < len; i++) {
        if (f[i] != '%')
            continue;
        size_t j = i + 1;
        while (j < len && strchr("-+ #0123456789.", f[j]))
            j++;
        if (j < len && f[j] == 'p')
            return luaL_error(L, "string.format: %%p shows an address, which a replay does not "
                                 "share");
        i = j;
    }
    int n = lua_gettop(L);
    for (int i = 2; i <= n; i++) {
        int t = lua_type(L, i);
        if (t != LUA_TNUMBER && t != LUA_TSTRING && t != LUA_TNIL && t != LUA_TBOOLEAN) {
            push_text(L, i);
            lua_replace(L, i);
        }
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, 1);
    return 1;
}

/* string.rep: an empty result at once (Lua's loops n times to make it). */
static int safe_rep(lua_State *L)
{
    size_t l, lsep;
    luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &lsep);
    if (n <= 0 || l + lsep == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* A string function that reads its strings whole (find, match, gmatch, gsub): charged by
 * their bytes before the original (the upvalue) runs. A pattern's backtracking is not: see
 * docs/RULES.md. */
static int charged_by_length(lua_State *L)
{
    uint64_t bytes = 0;
    for (int i = 1, n = lua_gettop(L); i <= n; i++)
        if (lua_type(L, i) == LUA_TSTRING)
            bytes += lua_rawlen(L, i);
    rul_charge(L, bytes / RUL_BYTES_A_UNIT);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* load(chunk, name?, mode?, env?): text only. */
static int safe_load(lua_State *L)
{
    bool env = lua_gettop(L) >= 4;
    const char *mode = luaL_optstring(L, 3, "t");
    if (strcmp(mode, "t") != 0)
        return luaL_error(L, "load: only text (mode \"t\"); a precompiled chunk is refused");
    lua_settop(L, env ? 4 : 3);
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, env ? 4 : 3, 2);
    return 2;
}

/* setmetatable(t, mt): as Lua's, but no __gc (a finalizer runs when the collector decides,
 * which a replay does not share) and no __mode (weak entries vanish likewise). */
static int safe_setmetatable(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int t = lua_type(L, 2);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (t == LUA_TTABLE) {
        static const char *const refused[] = {"__gc", "__mode"};
        for (int i = 0; i < 2; i++) {
            lua_pushstring(L, refused[i]);
            if (lua_rawget(L, 2) != LUA_TNIL)
                return luaL_error(L, "setmetatable: %s is refused: the collector runs when "
                                     "memory says, which a replay does not share",
                                  refused[i]);
            lua_pop(L, 1);
        }
    }
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
        return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

/* collectgarbage("collect"): a full collection; nothing else (the counts differ between a run
 * and its replay). */
static int safe_collect(lua_State *L)
{
    const char *opt = luaL_optstring(L, 1, "collect");
    if (strcmp(opt, "collect") != 0)
        return luaL_error(L, "collectgarbage: only \"collect\" is allowed");
    lua_gc(L, LUA_GCCOLLECT);
    lua_pushinteger(L, 0);
    return 1;
}

/* Replaces field `name` of the table on top with f, with the old value as its upvalue. */
static void wrap(lua_State *L, const char *name, lua_CFunction f)
{
    lua_getfield(L, -1, name);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, -2, name);
}

static void set_fn(lua_State *L, const char *name, lua_CFunction f)
{
    lua_pushcfunction(L, f);
    lua_setfield(L, -2, name);
}

static void remove_field(lua_State *L, const char *name)
{
    lua_pushnil(L);
    lua_setfield(L, -2, name);
}

void rul_sandbox_open(lua_State *L)
{
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},        {LUA_STRLIBNAME, luaopen_string},
        {LUA_TABLIBNAME, luaopen_table},  {LUA_MATHLIBNAME, luaopen_math},
        {LUA_UTF8LIBNAME, luaopen_utf8},
    };
    for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
        luaL_requiref(L, libs[i].name, libs[i].func, 1);
        lua_pop(L, 1);
    }
    lua_pushglobaltable(L);
    static const char *const gone[] = {"dofile", "loadfile", "warn", "require", "module"};
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++)
        remove_field(L, gone[i]);
    wrap(L, "load", safe_load);
    set_fn(L, "collectgarbage", safe_collect);
    set_fn(L, "setmetatable", safe_setmetatable);
    set_fn(L, "tostring", safe_tostring);
    set_fn(L, "print", safe_print);
    set_fn(L, "pairs", sorted_pairs);
    set_fn(L, "next", sorted_next_key);

    lua_getfield(L, -1, LUA_STRLIBNAME);
    remove_field(L, "dump");
    wrap(L, "format", safe_format);
    wrap(L, "rep", safe_rep);
    static const char *const reading[] = {"find", "match", "gmatch", "gsub"};
    for (size_t i = 0; i < sizeof reading / sizeof *reading; i++)
        wrap(L, reading[i], charged_by_length);
    lua_pop(L, 1);
    lua_getfield(L, -1, LUA_TABLIBNAME);
    set_fn(L, "sort", stable_sort);
    set_fn(L, "insert", table_insert);
    set_fn(L, "remove", table_remove);
    set_fn(L, "move", table_move);
    lua_pop(L, 2);

    /* The strings' metatable (its __index is the string table) cannot be reached: getmetatable
     * of a string gives false. */
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 2);
}
