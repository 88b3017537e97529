/* Plain data between Lua and JSON: the form of the rules' saves, of timers' data and of the
 * messages scripts send and receive. Only trees of numbers, strings, booleans and tables;
 * keys in sorted order, so the same data gives the same bytes in every run whatever a
 * table's internal order; integers kept apart from floats (a float always has a '.' or an
 * exponent), because Lua 5.4 computes with the two differently and a value that came back as
 * the other kind could make a replay go another way. */
#include <errno.h>
#include <lauxlib.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules_internal.h"

#define RUL_MAX_EXACT 9007199254740992LL /* 2^53: JSON readers carry integers exactly this far */
#define RUL_MAX_READ_DEPTH (RUL_MAX_DEPTH + 8) /* a save's own levels above the data's */
#define SMALL_TABLE 32 /* keys of a table whose keys are sorted on the stack */

/* ---- writing ---- */

typedef struct segment {
    bool is_int;
    lua_Integer i;
    const char *s;
    size_t len;
} segment;

typedef struct writer {
    lua_State *L;
    rul_json_mode mode;
    proto_buf *out;
    const char *root;
    mk_error *err;
    int seen; /* stack index of the tables met so far */
    int depth;
    segment path[RUL_MAX_DEPTH + 1];
} writer;

static bool is_alpha(char c) { return c == '_' || ((c | 32) >= 'a' && (c | 32) <= 'z'); }

/* A key Lua writes as .name. */
static bool is_name(const char *s, size_t len)
{
    if (len == 0 || len > 40 || !is_alpha(s[0]))
        return false;
    for (size_t i = 1; i < len; i++)
        if (!is_alpha(s[i]) && !(s[i] >= '0' && s[i] <= '9'))
            return false;
    return true;
}

/* Fills err with "<path>: <message>", the path as Lua would write it (state.scores[7],
 * state["a b"]); returns -1. */
static int fail_at(writer *w, const char *fmt, ...) MK_PRINTF(2, 3);
static int fail_at(writer *w, const char *fmt, ...)
{
    char path[160];
    size_t n = (size_t)snprintf(path, sizeof path, "%s", w->root);
    for (int d = 0; d < w->depth && n < sizeof path; d++) {
        const segment *g = &w->path[d];
        if (g->is_int)
            n += (size_t)snprintf(path + n, sizeof path - n, "[%lld]", (long long)g->i);
        else if (is_name(g->s, g->len))
            n += (size_t)snprintf(path + n, sizeof path - n, ".%.*s", (int)g->len, g->s);
        else
            n += (size_t)snprintf(path + n, sizeof path - n, "[\"%.*s\"]",
                                  (int)(g->len > 24 ? 24 : g->len), g->s);
    }
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return mk_fail(w->err, MK_ERR_INVALID, "%s: %s", path, msg);
}

/* A JSON string of `pre` and the `len` bytes of s (NUL bytes included, as Lua strings may
 * hold them). */
static void put_string(proto_buf *b, const char *pre, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    proto_buf_append_char(b, '"');
    proto_buf_append_str(b, pre);
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        proto_buf_append(b, s + run, i - run);
        run = i + 1;
        const char *short_form = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
                               : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
        if (short_form) {
            proto_buf_append(b, short_form, 2);
        } else {
            char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            proto_buf_append(b, u, sizeof u);
        }
    }
    proto_buf_append(b, s + run, len - run);
    proto_buf_append_char(b, '"');
}

/* The shortest of %.15g, %.16g, %.17g that reads back as v, with ".0" when it would read as
 * an integer. */
static void put_float(proto_buf *b, double v)
{
    if (fabs(v) < 1e15 && v == (double)(long long)v) { /* a whole number: its digits */
        if (signbit(v) && v == 0)
            proto_buf_append_char(b, '-');
        proto_buf_append_i64(b, (long long)v);
        proto_buf_append_str(b, ".0");
        return;
    }
    char s[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(s, sizeof s - 2, "%.*g", prec, v);
        if (strtod(s, NULL) == v)
            break;
    }
    if (!strpbrk(s, ".eE"))
        strcat(s, ".0");
    proto_buf_append_str(b, s);
}

static int write_value(writer *w, int idx);

/* A table whose keys are 1..n (n > 0), found in one pass. */
static bool is_sequence(lua_State *L, int idx, lua_Integer *n)
{
    lua_Integer len = (lua_Integer)lua_rawlen(L, idx), count = 0;
    bool seq = true;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        count++;
        if (seq && (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 ||
                    lua_tointeger(L, -1) > len))
            seq = false;
    }
    rul_charge(L, (uint64_t)count);
    *n = count;
    return seq && count > 0 && count == len;
}

static int write_table(writer *w, int idx)
{
    lua_State *L = w->L;
    if (w->depth >= RUL_MAX_DEPTH)
        return fail_at(w, "nested deeper than %d tables", RUL_MAX_DEPTH);
    luaL_checkstack(L, 8, "plain data");
    lua_pushvalue(L, idx);
    if (lua_rawget(L, w->seen) != LUA_TNIL)
        return fail_at(w, "a table met twice (a cycle, or one table in two places): only "
                          "trees of plain data are kept");
    lua_pop(L, 1);
    lua_pushvalue(L, idx);
    lua_pushboolean(L, 1);
    lua_rawset(L, w->seen);
    if (lua_getmetatable(L, idx))
        return fail_at(w, "a table with a metatable: its behaviour would not be kept");
    lua_Integer n;
    if (is_sequence(L, idx, &n)) {
        proto_buf_append_char(w->out, '[');
        for (lua_Integer i = 1; i <= n; i++) {
            if (i > 1)
                proto_buf_append_char(w->out, ',');
            lua_rawgeti(L, idx, i);
            w->path[w->depth++] = (segment){.is_int = true, .i = i};
            if (write_value(w, lua_gettop(L)) != 0)
                return -1;
            w->depth--;
            lua_pop(L, 1);
        }
        proto_buf_append_char(w->out, ']');
        return 0;
    }
    /* The keys in order: a small table's with its values on the stack (key k at keys[k].slot,
     * its value above it), no allocation; a larger one's through rul_keys. */
    int top = lua_gettop(L), key_seq = 0;
    rul_key small[SMALL_TABLE];
    const rul_key *keys = small;
    size_t count = 0;
    if (n <= SMALL_TABLE) {
        luaL_checkstack(L, 2 * (int)n + 4, "plain data");
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            rul_key_of(L, -2, &small[count]);
            small[count++].slot = lua_gettop(L) - 1;
            lua_pushvalue(L, -2);
        }
        for (size_t i = 1; i < count; i++) /* insertion sort: a few keys */
            for (size_t j = i; j > 0 && rul_key_cmp(&small[j - 1], &small[j]) > 0; j--) {
                rul_key x = small[j];
                small[j] = small[j - 1];
                small[j - 1] = x;
            }
    } else {
        keys = rul_keys(L, idx, &count);
        key_seq = lua_gettop(L) - 1;
    }
    proto_buf_append_char(w->out, '{');
    for (size_t k = 0; k < count; k++) {
        const rul_key *key = &keys[k];
        segment g = {.is_int = key->kind == RUL_KEY_NUMBER, .i = key->i, .s = key->s,
                     .len = key->len};
        if (key->kind == RUL_KEY_NUMBER && !key->is_int)
            return fail_at(w, "a key %.17g: keys are integers or strings", key->n);
        if (key->kind != RUL_KEY_NUMBER && key->kind != RUL_KEY_STRING) {
            if (key_seq)
                lua_rawgeti(L, key_seq, key->slot);
            else
                lua_pushvalue(L, (int)key->slot);
            return fail_at(w, "a key that is a %s: keys are integers or strings",
                           luaL_typename(L, -1));
        }
        if (!g.is_int && !proto_utf8_valid(g.s, g.len))
            return fail_at(w, "a key that is not UTF-8");
        if (k > 0)
            proto_buf_append_char(w->out, ',');
        bool save = w->mode == RUL_JSON_SAVE;
        if (g.is_int) {
            char text[24];
            int len = snprintf(text, sizeof text, "%lld", (long long)g.i);
            put_string(w->out, save ? "#" : "", text, (size_t)len);
        } else {
            put_string(w->out, save && g.len > 0 && g.s[0] == '#' ? "#" : "", g.s, g.len);
        }
        proto_buf_append_char(w->out, ':');
        if (key_seq) {
            lua_rawgeti(L, key_seq, key->slot);
            lua_rawget(L, idx);
        } else {
            lua_pushvalue(L, (int)key->slot + 1);
        }
        w->path[w->depth++] = g;
        if (write_value(w, lua_gettop(L)) != 0)
            return -1;
        w->depth--;
        lua_pop(L, 1);
    }
    lua_settop(L, top);
    proto_buf_append_char(w->out, '}');
    return 0;
}

static int write_value(writer *w, int idx)
{
    lua_State *L = w->L;
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        proto_buf_append_str(w->out, "null");
        return 0;
    case LUA_TBOOLEAN:
        proto_buf_append_str(w->out, lua_toboolean(L, idx) ? "true" : "false");
        return 0;
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) {
            lua_Integer i = lua_tointeger(L, idx);
            if (i > RUL_MAX_EXACT || i < -RUL_MAX_EXACT)
                return fail_at(w, "the integer %lld is past 2^53, as far as JSON carries "
                                  "integers exactly", (long long)i);
            proto_buf_append_i64(w->out, i);
            return 0;
        } else {
            double v = lua_tonumber(L, idx);
            if (!isfinite(v))
                return fail_at(w, "%s is not a finite number", isnan(v) ? "nan" : "inf");
            put_float(w->out, v);
            return 0;
        }
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        if (!proto_utf8_valid(s, len))
            return fail_at(w, "a string that is not UTF-8");
        put_string(w->out, "", s, len);
        return 0;
    }
    case LUA_TTABLE:
        return write_table(w, idx);
    default:
        return fail_at(w, "a %s is not plain data (numbers, strings, booleans and tables of "
                          "them)", luaL_typename(L, idx));
    }
}

int rul_json_write(lua_State *L, int idx, rul_json_mode mode, const char *root, proto_buf *out,
                   mk_error *err)
{
    idx = lua_absindex(L, idx);
    int top = lua_gettop(L);
    writer w = {L, mode, out, root, err, 0, 0, {{0}}};
    lua_newtable(L);
    w.seen = lua_gettop(L);
    int rc = write_value(&w, idx);
    lua_settop(L, top);
    if (rc == 0 && out->failed)
        return mk_fail(err, MK_ERR_INVALID, "%s: out of memory", root);
    return rc;
}

void rul_json_text(lua_State *L, int idx, const char *root)
{
    rul_runtime *rt = rul_state_of(L)->rt;
    proto_buf_clear(&rt->text);
    mk_error err;
    if (rul_json_write(L, idx, RUL_JSON_PLAIN, root, &rt->text, &err) != 0)
        luaL_error(L, "%s", err.message);
}

/* ---- reading ---- */

typedef struct reader {
    lua_State *L;
    const char *start, *p, *end;
    rul_json_mode mode;
    int depth;
} reader;

static int bad(reader *r, const char *what)
{
    return luaL_error(r->L, "JSON at byte %d: %s", (int)(r->p - r->start), what);
}

static void skip_space(reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static bool take(reader *r, char c)
{
    skip_space(r);
    if (r->p < r->end && *r->p == c) {
        r->p++;
        return true;
    }
    return false;
}

static unsigned hex4(reader *r)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++, r->p++) {
        char c = r->p < r->end ? *r->p : 0;
        int lower = c | 32;
        int d = c >= '0' && c <= '9'          ? c - '0'
                : lower >= 'a' && lower <= 'f' ? lower - 'a' + 10
                                               : -1;
        if (d < 0)
            bad(r, "a \\u escape needs four hex digits");
        v = v * 16 + (unsigned)d;
    }
    return v;
}

static void add_utf8(luaL_Buffer *b, unsigned c)
{
    char u[4];
    int n;
    if (c < 0x80) {
        u[0] = (char)c;
        n = 1;
    } else if (c < 0x800) {
        u[0] = (char)(0xC0 | c >> 6);
        u[1] = (char)(0x80 | (c & 0x3F));
        n = 2;
    } else if (c < 0x10000) {
        u[0] = (char)(0xE0 | c >> 12);
        u[1] = (char)(0x80 | (c >> 6 & 0x3F));
        u[2] = (char)(0x80 | (c & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | c >> 18);
        u[1] = (char)(0x80 | (c >> 12 & 0x3F));
        u[2] = (char)(0x80 | (c >> 6 & 0x3F));
        u[3] = (char)(0x80 | (c & 0x3F));
        n = 4;
    }
    luaL_addlstring(b, u, (size_t)n);
}

/* Pushes the string at r->p (its opening quote). */
static void read_string(reader *r)
{
    const char *s = ++r->p;
    while (r->p < r->end && *r->p != '"' && *r->p != '\\' && (unsigned char)*r->p >= 0x20)
        r->p++;
    if (r->p < r->end && *r->p == '"') { /* no escapes: the bytes as they are */
        lua_pushlstring(r->L, s, (size_t)(r->p - s));
        r->p++;
        return;
    }
    luaL_Buffer b;
    luaL_buffinit(r->L, &b);
    luaL_addlstring(&b, s, (size_t)(r->p - s));
    for (;;) {
        if (r->p >= r->end)
            bad(r, "a string without its closing quote");
        unsigned char c = (unsigned char)*r->p++;
        if (c == '"')
            break;
        if (c < 0x20)
            bad(r, "a control character in a string");
        if (c != '\\') {
            luaL_addchar(&b, (char)c);
            continue;
        }
        char e = r->p < r->end ? *r->p++ : 0;
        const char *plain = strchr("\"\\/bfnrt", e);
        if (e && plain) {
            luaL_addchar(&b, "\"\\/\b\f\n\r\t"[plain - "\"\\/bfnrt"]);
        } else if (e == 'u') {
            unsigned u = hex4(r);
            if (u >= 0xD800 && u < 0xDC00) {
                if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
                    bad(r, "a high surrogate without its low one");
                r->p += 2;
                unsigned lo = hex4(r);
                if (lo < 0xDC00 || lo >= 0xE000)
                    bad(r, "a high surrogate without its low one");
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            } else if (u >= 0xDC00 && u < 0xE000) {
                bad(r, "a low surrogate alone");
            }
            add_utf8(&b, u);
        } else {
            bad(r, "an unknown escape");
        }
    }
    luaL_pushresult(&b);
}

static void read_number(reader *r)
{
    const char *s = r->p;
    bool is_float = false;
    if (r->p < r->end && *r->p == '-')
        r->p++;
    const char *digits = r->p;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
        r->p++;
    if (r->p == digits || (*digits == '0' && r->p - digits > 1))
        bad(r, "a malformed number");
    if (r->p < r->end && *r->p == '.') {
        is_float = true;
        const char *f = ++r->p;
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
            r->p++;
        if (r->p == f)
            bad(r, "a malformed number");
    }
    if (r->p < r->end && (*r->p | 32) == 'e') {
        is_float = true;
        r->p++;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
            r->p++;
        const char *x = r->p;
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
            r->p++;
        if (r->p == x)
            bad(r, "a malformed number");
    }
    char text[64];
    if (r->p - s >= (ptrdiff_t)sizeof text)
        bad(r, "a number of more than 63 characters");
    memcpy(text, s, (size_t)(r->p - s));
    text[r->p - s] = '\0';
    if (!is_float) {
        errno = 0;
        long long i = strtoll(text, NULL, 10);
        /* Past 2^53 a whole number is a float, as JSON readers take it: an integer there
         * could not be saved again (rul_save carries integers exactly up to 2^53). */
        if (errno == 0 && i <= RUL_MAX_EXACT && i >= -RUL_MAX_EXACT) {
            lua_pushinteger(r->L, (lua_Integer)i);
            return;
        }
    }
    double v = strtod(text, NULL);
    if (!isfinite(v))
        bad(r, "a number too large for a double");
    lua_pushnumber(r->L, v);
}

/* A save's object key, read from `at`: "#7" is the integer 7, "##x" the string "#x". */
static void save_key(reader *r, const char *at)
{
    size_t len;
    const char *k = lua_tolstring(r->L, -1, &len);
    if (len == 0 || k[0] != '#')
        return;
    if (len > 1 && k[1] == '#') {
        lua_pushlstring(r->L, k + 1, len - 1);
        lua_replace(r->L, -2);
        return;
    }
    char *end;
    errno = 0;
    long long i = strtoll(k + 1, &end, 10);
    if (len < 2 || len > 21 || end != k + len || errno != 0 ||
        (k[1] != '-' && (k[1] < '0' || k[1] > '9'))) {
        r->p = at;
        bad(r, "a key that starts with # is \"#<integer>\" or \"##...\"");
    }
    lua_pushinteger(r->L, (lua_Integer)i);
    lua_replace(r->L, -2);
}

static void read_value(reader *r)
{
    lua_State *L = r->L;
    skip_space(r);
    if (r->p >= r->end)
        bad(r, "a value is missing");
    char c = *r->p;
    if (c == '{' || c == '[') {
        if (++r->depth > RUL_MAX_READ_DEPTH)
            bad(r, "nested too deep");
        luaL_checkstack(L, 4, "JSON");
        r->p++;
        lua_newtable(L);
        char close = c == '{' ? '}' : ']';
        lua_Integer n = 0;
        if (!take(r, close)) {
            do {
                if (c == '{') {
                    skip_space(r);
                    if (r->p >= r->end || *r->p != '"')
                        bad(r, "an object's key must be a string");
                    const char *at = r->p;
                    read_string(r);
                    if (r->mode == RUL_JSON_SAVE)
                        save_key(r, at);
                    if (!take(r, ':'))
                        bad(r, "':' expected");
                    read_value(r);
                    if (lua_isnil(L, -1))
                        lua_pop(L, 2);
                    else
                        lua_rawset(L, -3);
                } else {
                    read_value(r);
                    lua_rawseti(L, -2, ++n); /* null leaves a hole */
                }
                rul_charge(L, 1);
            } while (take(r, ','));
            if (!take(r, close))
                bad(r, c == '{' ? "',' or '}' expected" : "',' or ']' expected");
        }
        r->depth--;
        return;
    }
    if (c == '"') {
        read_string(r);
        return;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        read_number(r);
        return;
    }
    static const char *const words[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t len = strlen(words[i]);
        if ((size_t)(r->end - r->p) >= len && memcmp(r->p, words[i], len) == 0) {
            r->p += len;
            if (i == 2)
                lua_pushnil(L);
            else
                lua_pushboolean(L, i == 0);
            return;
        }
    }
    bad(r, "a value is expected");
}

void rul_json_read(lua_State *L, const char *text, size_t len, rul_json_mode mode)
{
    reader r = {L, text, text, text + len, mode, 0};
    if (!proto_utf8_valid(text, len))
        luaL_error(L, "JSON: not UTF-8");
    read_value(&r);
    skip_space(&r);
    if (r.p != r.end)
        bad(&r, "text after the value");
}
