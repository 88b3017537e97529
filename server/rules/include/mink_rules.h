/* mink_rules: a game's rules, written in Lua 5.4 and run on the server's loop inside the tick.
 * A script defines hooks (on_start, on_join, on_leave, on_action, on_tick, on_event and the
 * functions its timers name); the runtime calls them at fixed points of the tick, each in a
 * sandbox (a fresh lua_State with only string, table, math, utf8 and the Mink API, a memory
 * cap, an instruction budget per call) and lets them act on the world through mink_sim's API
 * and on players through callbacks the host (mink_net) hands it. The rules' own state
 * (game.state, the players' data, the timers, the random generator) is saved and loaded as
 * deterministic JSON. docs/RULES.md is the script's reference.
 *
 * Every entry point is for the loop's thread, between steps; none may be called from a host
 * callback (a hook is running then: the call is refused and logged). */
#ifndef MINK_RULES_H
#define MINK_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mink_proto.h"
#include "mink_sim.h"

#define RUL_DEFAULT_MEMORY ((size_t)64 << 20) /* bytes a script's state may hold */
#define RUL_DEFAULT_BUDGET 1000000u           /* Lua instructions per hook call */
#define RUL_DEFAULT_MAX_FAILURES 10u          /* failures in a row that disable a hook */
#define RUL_MAX_BUDGET 2000000000u            /* lua_sethook's count is an int */
#define RUL_MAX_NAME 64 /* bytes of an action's, a message's or a timer function's name */

typedef struct rul_runtime rul_runtime;

typedef struct rul_config {
    /* The script's path: read by rul_new (and by rul_reload without a source), and the name
     * its errors and tracebacks give. */
    const char *script;
    /* When not NULL, the script's text (`script` then only names it): a source the host kept
     * (the script a journal was recorded with) or a test's. */
    const char *source;
    size_t source_len;
    size_t memory;         /* bytes; 0: RUL_DEFAULT_MEMORY */
    uint32_t budget;       /* instructions per hook call, at most RUL_MAX_BUDGET; 0: default */
    uint32_t max_failures; /* 0: RUL_DEFAULT_MAX_FAILURES */
    uint64_t seed;         /* the random generator's first seed (the scene's, so a replay of
                            * the same scene draws the same numbers) */
} rul_config;

typedef enum rul_log_level {
    RUL_LOG_INFO,  /* the script's print and mink.log */
    RUL_LOG_WARN,  /* a hook that failed, a reload refused */
    RUL_LOG_ERROR, /* a hook disabled */
} rul_log_level;

/* What the rules reach outside the world, from net. Every callback is optional (NULL: the
 * message goes nowhere, as in a replay); `log` NULL writes to stderr. They are called inside
 * hooks and must not call back into the runtime; a kick is a request, the host closes the
 * session when it is safe. `data` is compact JSON of `len` bytes, not NUL-terminated. */
typedef struct rul_host {
    void *ctx;
    void (*log)(void *ctx, rul_log_level level, const char *line);
    void (*send)(void *ctx, uint32_t player, const char *name, const char *data, size_t len);
    void (*broadcast)(void *ctx, const char *name, const char *data, size_t len);
    void (*kick)(void *ctx, uint32_t player, const char *reason);
} rul_host;

/* The hooks, and the counters of each (rul_stats). RUL_HOOK_LOAD is the script's top level,
 * run by rul_new and rul_reload; RUL_HOOK_TIMER every timer's function. */
typedef enum rul_hook {
    RUL_HOOK_LOAD,
    RUL_HOOK_START,
    RUL_HOOK_JOIN,
    RUL_HOOK_LEAVE,
    RUL_HOOK_ACTION,
    RUL_HOOK_TICK,
    RUL_HOOK_EVENT,
    RUL_HOOK_TIMER,
    RUL_HOOK_COUNT
} rul_hook;

/* "load", "on_start", "on_join", ... "timer". */
const char *rul_hook_name(rul_hook h);

typedef struct rul_hook_stats {
    uint64_t calls;        /* calls of a hook the script defines */
    uint64_t errors;       /* calls that failed, the two stops below included */
    uint64_t budget_stops; /* stopped at the instruction budget */
    uint64_t memory_stops; /* stopped at the memory cap */
    uint64_t nanoseconds;  /* wall time inside the hook */
    uint32_t failing;      /* failures in a row now */
    bool disabled;         /* after max_failures in a row, until the next reload */
} rul_hook_stats;

typedef struct rul_stats {
    rul_hook_stats hooks[RUL_HOOK_COUNT];
    size_t memory, memory_peak, memory_limit; /* bytes of the script's state (timers included) */
    uint64_t reloads, reload_failures;
    size_t players, timers;
} rul_stats;

/* Loads the script into a new sandbox over world `w` and runs its top level (the budget and
 * the cap apply). NULL with `err` for a missing file, a syntax error or a top level that fails
 * (the message names the file and line), or a bad config. The world must outlive the runtime;
 * the host is copied. */
rul_runtime *rul_new(const rul_config *cfg, sim_world *w, const rul_host *host, mk_error *err);
void rul_free(rul_runtime *rt);
/* SIGHUP: the script (the file again, or `source` when not NULL) is loaded into a fresh state
 * with game.state, the players' data, the timers and the random generator carried over, and
 * replaces the running one; disabled hooks run again. On failure (a script that does not load
 * or run, a state that cannot be carried) the old script keeps running and -1 comes back with
 * `err`. */
int rul_reload(rul_runtime *rt, const char *source, size_t len, mk_error *err);

/* on_start(game): once, when a new game begins (not after a restore: rul_load). */
void rul_start(rul_runtime *rt);

/* A player as net knows it. */
typedef struct rul_player {
    uint32_t id;      /* the client id: the owner of its bodies */
    const char *name; /* at most PROTO_MAX_NAME bytes; NULL: "" */
    const char *user; /* a token's user id, NULL when none (at most 64 bytes) */
    const char *role; /* a token's role, NULL when none (at most 32 bytes) */
    sim_id avatar;    /* 0: none */
} rul_player;

/* on_join(game, player). 0: the player is in; -1: refused, `err` gives the reason to send (the
 * script's, or that the rules failed). */
int rul_join(rul_runtime *rt, const rul_player *p, mk_error *err);
/* on_leave(game, player), then the player and its data are gone. */
void rul_leave(rul_runtime *rt, uint32_t player);
/* on_action(game, player, name, data): `data` is the action's JSON (NULL or len 0: none).
 * 0, or -1 with `err` (the script's refusal, an unknown player, or that the rules failed). */
int rul_action(rul_runtime *rt, uint32_t player, const char *name, const char *data, size_t len,
               mk_error *err);

/* "contact_begin", "contact_end", "hit", "sensor_begin", "sensor_end", "joint_break": the
 * protocol's names of the world's events. */
const char *rul_event_name(sim_event_type t);

/* After each step: rul_event for each event of the step, then rul_tick (the timers due at
 * this tick, in the order they fall due, then on_tick(game, tick)). */
void rul_event(rul_runtime *rt, const sim_event *ev);
void rul_tick(rul_runtime *rt);
/* Both, as the server and a replay call them after a step: rul_event for each of the world's
 * events not yet cleared (sim_world_events), read by index so that those a hook causes (a body
 * it removes ends its contacts) are handed on in the same pass, then rul_tick. */
void rul_after_step(rul_runtime *rt);

/* The rules' state as one JSON document (docs/RULES.md, "Durability"): the random generator,
 * the timers, the players and their data, game.state; keys sorted, so the same state gives
 * the same bytes. Appended to `out`. 0, or -1 with `err` naming the path of a value that is
 * not plain data (a function, a cycle or shared table, a non-finite number, an integer past
 * 2^53, a key neither an integer nor a string, a string that is not UTF-8). */
int rul_save(rul_runtime *rt, proto_buf *out, mk_error *err);
/* Replaces the rules' state with a saved one (a restore); 0, or -1 with `err` naming the
 * field, the runtime unchanged. on_start is not called. */
int rul_load(rul_runtime *rt, const char *data, size_t len, mk_error *err);

/* True while a hook runs: the world changes made now are the rules' (a journal that replays
 * the script does not replay them too). */
bool rul_busy(const rul_runtime *rt);

void rul_stats_get(const rul_runtime *rt, rul_stats *out);

/* Replaces the host's callbacks (copied): a runtime made before the server that carries its
 * messages (the script is loaded, and its errors reported, before the network starts). */
void rul_set_host(rul_runtime *rt, const rul_host *host);
/* The ids of the players in the game, ascending, into ids[0..cap); returns how many there
 * are (more than cap: the rest not written). */
size_t rul_player_ids(const rul_runtime *rt, uint32_t *ids, size_t cap);

#endif
