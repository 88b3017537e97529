/* Keys in an order every run shares: numbers ascending, then strings by their bytes, then
 * false and true. A table's own order (lua_next) follows hashes that Lua seeds from the time
 * and addresses (luai_makeseed) and the table's history, so pairs, next and the plain-data
 * writer walk keys in this order instead. */
#include <limits.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>

#include "rules_internal.h"

int rul_key_cmp(const rul_key *a, const rul_key *b)
{
    if (a->kind != b->kind)
        return a->kind - b->kind;
    switch (a->kind) {
    case RUL_KEY_NUMBER:
        if (a->is_int && b->is_int)
            return (a->i > b->i) - (a->i < b->i);
        if (a->n != b->n)
            return (a->n > b->n) - (a->n < b->n);
        return (int)b->is_int - (int)a->is_int; /* equal as doubles: the integer first */
    case RUL_KEY_STRING: {
        size_t n = a->len < b->len ? a->len : b->len;
        int c = memcmp(a->s, b->s, n);
        return c ? c : (a->len > b->len) - (a->len < b->len);
    }
    case RUL_KEY_BOOLEAN:
        return (int)a->i - (int)b->i;
    default:
        return 0;
    }
}

void rul_key_of(lua_State *L, int idx, rul_key *k)
{
    memset(k, 0, sizeof *k);
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        k->kind = RUL_KEY_NUMBER;
        k->is_int = lua_isinteger(L, idx);
        k->i = k->is_int ? lua_tointeger(L, idx) : 0;
        k->n = lua_tonumber(L, idx);
        break;
    case LUA_TSTRING:
        k->kind = RUL_KEY_STRING;
        k->s = lua_tolstring(L, idx, &k->len);
        break;
    case LUA_TBOOLEAN:
        k->kind = RUL_KEY_BOOLEAN;
        k->i = lua_toboolean(L, idx);
        break;
    default:
        k->kind = RUL_KEY_OTHER;
    }
}

static int cmp_sorted(const void *a, const void *b) { return rul_key_cmp(a, b); }

rul_key *rul_keys(lua_State *L, int idx, size_t *count)
{
    idx = lua_absindex(L, idx);
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        n++;
    }
    rul_charge(L, 2 * n);
    lua_createtable(L, n > INT_MAX ? INT_MAX : (int)n, 0);
    rul_key *keys = lua_newuserdatauv(L, (n ? n : 1) * sizeof *keys, 0);
    int tk = lua_absindex(L, -2);
    size_t i = 0;
    lua_pushnil(L);
    while (lua_next(L, idx) && i < n) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_rawseti(L, tk, (lua_Integer)i + 1);
        rul_key_of(L, -1, &keys[i]);
        keys[i].slot = (lua_Integer)i + 1;
        i++;
    }
    qsort(keys, i, sizeof *keys, cmp_sorted);
    *count = i;
    return keys;
}
