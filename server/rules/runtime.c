/* The runtime: a script's lua_State made with a counting allocator (the memory cap), every
 * call into it made in protected mode with a count hook (the instruction budget) and a
 * traceback, failures counted per hook and reported, hooks that keep failing disabled; and
 * loading, reloading and freeing the script. */
#include <lauxlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mink_world_io.h"
#include "rules_internal.h"

#define RUL_MIN_MEMORY ((size_t)256 << 10) /* bytes: less cannot even open the libraries */
#define RUL_LOG_EVERY 1000 /* a player-driven hook failing in a row logs one failure in this */
#define RUL_HOOK_PERIOD 10000  /* instructions between two looks at the budget, at most */
#define RUL_CHARGED_STRING 256 /* bytes of a new string past which it is charged */

static const char *const hook_names[RUL_HOOK_COUNT] = {
    "load", "on_start", "on_join", "on_leave", "on_action", "on_tick", "on_event", "timer",
};

const char *rul_hook_name(rul_hook h) { return h < RUL_HOOK_COUNT ? hook_names[h] : "?"; }

void rul_log(rul_runtime *rt, rul_log_level level, const char *fmt, ...)
{
    char line[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (rt->host.log)
        rt->host.log(rt->host.ctx, level, line);
    else
        fprintf(stderr, "%s\n", line);
}

static void count_hook(lua_State *L, lua_Debug *ar);

/* Lua's allocator (lua_Alloc) with a cap: growing past `limit` (the timers' data counted in)
 * is refused, which Lua turns into a full collection and, if that is not enough, a memory
 * error (LUA_ERRMEM) that ends the running call. Shrinking and freeing never fail. */
static void *alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    rul_state *s = ud;
    size_t old = ptr ? osize : 0; /* without a block, osize is the kind of object */
    if (nsize == 0) {
        free(ptr);
        s->used -= old;
        return NULL;
    }
    /* A new long string is charged to the budget by its size: the work of the operator or
     * function that made it (a concatenation copies it in one instruction). Long strings are
     * never shared (only short ones, 40 bytes at most, are interned), so the charge is the
     * same in every run. */
    if (!ptr && osize == LUA_TSTRING && nsize > RUL_CHARGED_STRING) {
        s->work += nsize / RUL_BYTES_A_UNIT;
        /* Past the budget: the count hook fires at the next instruction (lua_sethook may be
         * called at any time, as lua.c's signal handler does). */
        if (s->counting && s->period != 1 && s->instructions + s->work >= s->rt->budget) {
            s->period = 1;
            lua_sethook(s->L, count_hook, LUA_MASKCOUNT, 1);
        }
    }
    if (nsize > old && s->used - old + nsize + s->rt->timer_bytes > s->limit) {
        s->refused = true;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (!p) {
        s->refused = true;
        return NULL;
    }
    s->used = s->used - old + nsize;
    if (s->used > s->peak)
        s->peak = s->used;
    return p;
}

/* Stops the running call at the budget, the error naming where the script was: the running
 * function's line (`level` 0, from the count hook) or the line that called a C function (1,
 * from rul_charge). From now on every instruction fails too (a count hook of 1), so that a
 * script's own pcall cannot catch the stop and go on: each level it unwinds to fails again
 * at its next instruction. */
static int stop_at_budget(lua_State *L, rul_state *s, int level)
{
    s->budget_hit = true;
    s->period = 1;
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    luaL_where(L, level);
    lua_pushfstring(L, "the instruction budget of %I ran out (--script-budget)",
                    (lua_Integer)s->rt->budget);
    lua_concat(L, 2);
    return lua_error(L);
}

/* Sets the count hook to fire when the budget would run out with no more C work charged, or
 * after RUL_HOOK_PERIOD instructions, whichever comes first: the work C functions and new
 * long strings charge in between is weighed at each firing. */
static void arm(lua_State *L, rul_state *s)
{
    uint64_t spent = s->instructions + s->work, budget = s->rt->budget;
    uint64_t left = spent < budget ? budget - spent : 1;
    s->period = (int)(left < RUL_HOOK_PERIOD ? left : RUL_HOOK_PERIOD);
    lua_sethook(L, count_hook, LUA_MASKCOUNT, s->period);
}

static void count_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    rul_state *s = rul_state_of(L);
    s->instructions += (uint64_t)s->period;
    if (s->budget_hit || s->instructions + s->work >= s->rt->budget)
        stop_at_budget(L, s, 0);
    arm(L, s);
}

void rul_charge(lua_State *L, uint64_t n)
{
    rul_state *s = rul_state_of(L);
    s->work += n;
    if (s->counting && (s->instructions + s->work > s->rt->budget || s->budget_hit))
        stop_at_budget(L, s, 1);
}

void rul_need_hook(lua_State *L, const char *fn)
{
    if (!rul_state_of(L)->in_hook)
        luaL_error(L, "%s: not at the script's top level, which runs again at every reload: "
                      "call it from a hook", fn);
}

/* The message handler: the error with the script's traceback (luaL_traceback). */
static int traceback(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg)
        msg = lua_pushfstring(L, "(an error object that is a %s)", luaL_typename(L, 1));
    luaL_traceback(L, L, msg, 1);
    return 1;
}

typedef struct frame {
    rul_body body;
    void *ud;
} frame;

static int protected_body(lua_State *L)
{
    frame *f = lua_touserdata(L, 1);
    lua_pop(L, 1);
    lua_pushboolean(L, f->body(L, f->ud) != 0);
    return 1;
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Counts a failure of hook h and says so: every one while it is new, then (a hook that fails
 * every time) it is disabled, or, for the hooks players drive (one player's bad input must not
 * switch the game's rules off), one in RUL_LOG_EVERY is logged. */
static void report_failure(rul_runtime *rt, rul_hook h, const char *kind, const char *msg)
{
    rul_hook_stats *st = &rt->stats[h];
    st->errors++;
    st->failing++;
    bool players = h == RUL_HOOK_JOIN || h == RUL_HOOK_LEAVE || h == RUL_HOOK_ACTION;
    uint64_t tick = sim_world_tick(rt->world);
    if (st->failing <= rt->max_failures || st->failing % RUL_LOG_EVERY == 0)
        rul_log(rt, RUL_LOG_WARN, "rules: %s %s at tick %llu (%u in a row): %s",
                rul_hook_name(h), kind, (unsigned long long)tick, st->failing, msg);
    if (st->failing != rt->max_failures || h == RUL_HOOK_TIMER || h == RUL_HOOK_LOAD)
        return;
    if (players) {
        rul_log(rt, RUL_LOG_ERROR, "rules: %s has failed %u times in a row; it keeps running "
                                   "(players drive it), one failure in %d is logged from now on",
                rul_hook_name(h), st->failing, RUL_LOG_EVERY);
        return;
    }
    st->disabled = true;
    rul_log(rt, RUL_LOG_ERROR, "rules: %s disabled after %u failures in a row; it runs again "
                               "after a reload (SIGHUP)", rul_hook_name(h), st->failing);
}

int rul_call(rul_runtime *rt, rul_state *s, rul_hook h, rul_body body, void *ud, bool counted,
             mk_error *err)
{
    lua_State *L = s->L;
    int base = lua_gettop(L);
    s->refused = s->budget_hit = false;
    s->work = s->instructions = 0;
    s->in_hook = h != RUL_HOOK_LOAD;
    s->counting = counted;
    bool was_busy = rt->busy;
    rt->busy = true;
    if (counted)
        arm(L, s);
    lua_pushcfunction(L, traceback);
    lua_pushcfunction(L, protected_body);
    frame f = {body, ud};
    lua_pushlightuserdata(L, &f);
    uint64_t t0 = now_ns();
    int status = lua_pcall(L, 1, 1, base + 1);
    rul_hook_stats *st = &rt->stats[h];
    st->nanoseconds += now_ns() - t0;
    lua_sethook(L, NULL, 0, 0);
    rt->busy = was_busy;
    s->in_hook = s->counting = false;
    if (status == LUA_OK) {
        bool ran = lua_toboolean(L, -1);
        lua_settop(L, base);
        if (counted && ran) {
            st->calls++;
            st->failing = 0;
        }
        return 0;
    }
    /* The message up to its traceback for err; the whole of it for the log. */
    const char *full = lua_tostring(L, -1);
    if (!full)
        full = "(an error object that is not a string)";
    const char *kind = "failed";
    if (s->budget_hit) {
        kind = "stopped";
        st->budget_stops += counted;
    } else if (status == LUA_ERRMEM || (s->refused && status == LUA_ERRERR)) {
        kind = "stopped";
        full = "the script's memory reached its cap (--script-memory)";
        st->memory_stops += counted;
        /* What the stopped call held is garbage now: collected at once, so that the next
         * hook has its room back (a full collection raises no error: no finalizers). */
        lua_gc(L, LUA_GCCOLLECT);
    }
    const char *tb = strstr(full, "\nstack traceback:");
    int first = tb ? (int)(tb - full) : (int)strlen(full);
    mk_fail(err, MK_ERR_INVALID, "%.*s", first, full);
    if (counted) {
        st->calls++;
        report_failure(rt, h, kind, full);
    }
    lua_settop(L, base);
    return -1;
}

static int open_body(lua_State *L, void *ud)
{
    (void)ud;
    rul_sandbox_open(L);
    rul_api_open(L);
    rul_world_open(L);
    return 0;
}

rul_state *rul_state_new(rul_runtime *rt)
{
    rul_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->rt = rt;
    s->limit = rt->memory;
    s->L = lua_newstate(alloc, s);
    if (!s->L) {
        free(s);
        return NULL;
    }
    *(rul_state **)lua_getextraspace(s->L) = s;
    if (rul_call(rt, s, RUL_HOOK_LOAD, open_body, NULL, false, NULL) != 0) {
        rul_state_free(s);
        return NULL;
    }
    return s;
}

void rul_state_free(rul_state *s)
{
    if (!s)
        return;
    lua_close(s->L);
    free(s);
}

typedef struct chunk {
    const char *src, *name;
    size_t len;
} chunk;

/* The script's top level: loaded as text only (a precompiled chunk is refused), run under the
 * budget and the cap. */
static int run_chunk(lua_State *L, void *ud)
{
    const chunk *c = ud;
    lua_pushfstring(L, "@%s", c->name);
    int rc = luaL_loadbufferx(L, c->src, c->len, lua_tostring(L, -1), "t");
    if (rc != LUA_OK)
        return lua_error(L);
    lua_call(L, 0, 0);
    return 1;
}

/* A state running the script `src`, with the state of `carry` carried over when not NULL. */
static rul_state *load_state(rul_runtime *rt, const char *src, size_t len, rul_state *carry,
                             mk_error *err)
{
    rul_state *s = rul_state_new(rt);
    if (!s) {
        mk_fail(err, MK_ERR_INVALID, "%s: out of memory for a script state", rt->script);
        return NULL;
    }
    if (carry && rul_carry(rt, carry, s, err) != 0) {
        rul_state_free(s);
        return NULL;
    }
    chunk c = {src, rt->script, len};
    if (rul_call(rt, s, RUL_HOOK_LOAD, run_chunk, &c, true, err) != 0) {
        rul_state_free(s);
        return NULL;
    }
    return s;
}

rul_runtime *rul_new(const rul_config *cfg, sim_world *w, const rul_host *host, mk_error *err)
{
    if (!cfg->script || !*cfg->script) {
        mk_fail(err, MK_ERR_INVALID, "--script: no file named");
        return NULL;
    }
    if (cfg->budget > RUL_MAX_BUDGET) {
        mk_fail(err, MK_ERR_INVALID, "--script-budget: at most %u instructions",
                RUL_MAX_BUDGET);
        return NULL;
    }
    if (cfg->memory != 0 && cfg->memory < RUL_MIN_MEMORY) {
        mk_fail(err, MK_ERR_INVALID, "--script-memory: at least %zu KiB",
                RUL_MIN_MEMORY >> 10);
        return NULL;
    }
    rul_runtime *rt = calloc(1, sizeof *rt);
    if (!rt || !(rt->script = strdup(cfg->script)) || !(rt->def = malloc(sizeof *rt->def))) {
        mk_fail(err, MK_ERR_INVALID, "%s: out of memory", cfg->script);
        rul_free(rt);
        return NULL;
    }
    rt->memory = cfg->memory ? cfg->memory : RUL_DEFAULT_MEMORY;
    rt->budget = cfg->budget ? cfg->budget : RUL_DEFAULT_BUDGET;
    rt->max_failures = cfg->max_failures ? cfg->max_failures : RUL_DEFAULT_MAX_FAILURES;
    rt->world = w;
    if (host)
        rt->host = *host;
    rt->timers.v = mk_vec_make(sizeof(rul_timer));
    rt->players.v = mk_vec_make(sizeof(rul_player_rec));
    rt->next_timer = 1;
    proto_buf_init(&rt->text);
    rul_random_seed(rt->rng, cfg->seed);
    char *file = NULL;
    const char *src = cfg->source;
    size_t len = cfg->source_len;
    if (!src && !(src = file = wio_read_file(cfg->script, &len, err))) {
        rul_free(rt);
        return NULL;
    }
    rt->s = load_state(rt, src, len, NULL, err);
    free(file);
    if (!rt->s) {
        rul_free(rt);
        return NULL;
    }
    return rt;
}

void rul_set_host(rul_runtime *rt, const rul_host *host)
{
    rt->host = host ? *host : (rul_host){0};
}

void rul_free(rul_runtime *rt)
{
    if (!rt)
        return;
    rul_state_free(rt->s);
    for (size_t i = 0; i < rt->timers.v.len; i++)
        free(rt->timers.at[i].data);
    mk_vec_free(&rt->timers.v);
    mk_vec_free(&rt->players.v);
    proto_buf_free(&rt->text);
    free(rt->def);
    free(rt->script);
    free(rt);
}

int rul_reload(rul_runtime *rt, const char *source, size_t len, mk_error *err)
{
    if (rt->busy) {
        rul_log(rt, RUL_LOG_WARN, "rules: a reload asked for inside a hook is refused");
        return mk_fail(err, MK_ERR_INVALID, "rules: a reload inside a hook is refused");
    }
    char *file = NULL;
    if (!source && !(source = file = wio_read_file(rt->script, &len, err))) {
        rt->reload_failures++;
        rul_log(rt, RUL_LOG_WARN, "rules: reload refused, the old script keeps running: %s",
                err ? err->message : "");
        return -1;
    }
    mk_error e = {0};
    rul_state *s = load_state(rt, source, len, rt->s, &e);
    free(file);
    if (!s) {
        rt->reload_failures++;
        rul_log(rt, RUL_LOG_WARN, "rules: reload refused, the old script keeps running: %s",
                e.message);
        if (err)
            *err = e;
        return -1;
    }
    rul_state_free(rt->s);
    rt->s = s;
    rt->reloads++;
    for (int h = 0; h < RUL_HOOK_COUNT; h++) {
        rt->stats[h].disabled = false;
        rt->stats[h].failing = 0;
    }
    rul_log(rt, RUL_LOG_INFO, "rules: %s reloaded at tick %llu", rt->script,
            (unsigned long long)sim_world_tick(rt->world));
    return 0;
}

bool rul_busy(const rul_runtime *rt) { return rt->busy; }

void rul_stats_get(const rul_runtime *rt, rul_stats *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out->hooks, rt->stats, sizeof out->hooks);
    out->memory = rt->s->used + rt->timer_bytes;
    out->memory_peak = rt->s->peak + rt->timer_bytes;
    out->memory_limit = rt->memory;
    out->reloads = rt->reloads;
    out->reload_failures = rt->reload_failures;
    out->players = rt->players.v.len;
    out->timers = rt->timers.v.len;
}
