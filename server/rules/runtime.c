/* The runtime: a script's lua_State made with the counting allocator (call.c), its
 * libraries opened, and loading, reloading and freeing the script. */
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "mink_world_io.h"
#include "rules_internal.h"

#define RUL_MIN_MEMORY ((size_t)256 << 10) /* bytes: less cannot even open the libraries */

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
    s->event_types = (1u << SIM_EVENT_COUNT) - 1;
    s->L = lua_newstate(rul_alloc, s);
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

/* The events the script's `on_event` is given, from its global `event_types` as the top
 * level left it: an array of event type names, or absent for all of them. Read raw (no
 * metamethod runs), so that a bad table is a load error naming it. */
static void read_event_types(lua_State *L, const char *script)
{
    rul_state *s = rul_state_of(L);
    s->event_types = (1u << SIM_EVENT_COUNT) - 1;
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
    lua_pushliteral(L, "event_types");
    int type = lua_rawget(L, -2);
    if (type == LUA_TNIL) {
        lua_pop(L, 2);
        return;
    }
    if (type != LUA_TTABLE)
        luaL_error(L, "%s: event_types: an array of event type names, not a %s", script,
                   lua_typename(L, type));
    lua_Unsigned n = lua_rawlen(L, -1);
    if (n > 64)
        luaL_error(L, "%s: event_types: at most 64 names", script);
    s->event_types = 0;
    for (lua_Integer i = 1; i <= (lua_Integer)n; i++) {
        const char *name = lua_rawgeti(L, -1, i) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        int t = 0;
        while (name && t < SIM_EVENT_COUNT && strcmp(name, rul_event_name((sim_event_type)t)))
            t++;
        if (!name || t == SIM_EVENT_COUNT)
            luaL_error(L, "%s: event_types[%d]: not an event type (contact_begin, contact_end, "
                          "hit, sensor_begin, sensor_end or joint_break)", script, (int)i);
        s->event_types |= 1u << t;
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
}

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
    read_event_types(L, c->name);
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
