/* Every call into a script: Lua's allocator with the memory cap, the count hook that keeps
 * the instruction budget (and the work C functions and long strings charge to it), each call
 * made in protected mode with a traceback, failures counted per hook, reported, and a hook
 * that keeps failing disabled. The lowest file of the rules: the API files charge their work
 * here and the runtime (runtime.c) makes its states with this allocator. */
#include <lauxlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules_internal.h"

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
void *rul_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
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

