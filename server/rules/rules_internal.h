/* What the files of mink_rules share: the runtime, one script's state (a lua_State and what
 * its allocator and budget count), the timers and players the runtime keeps in C, and the
 * entries each file gives the others. */
#ifndef MINK_RULES_INTERNAL_H
#define MINK_RULES_INTERNAL_H

#include <lua.h>

#include "mink_rules.h"
#include "mk_vec.h"

#define RUL_MAX_DEPTH 64      /* nesting of a plain-data value (state, data, a message) */
#define RUL_MAX_HITS 256      /* hits a query answers with, as the protocol's */
#define RUL_MAX_USER 64       /* bytes of a player's user id (WIO_PLAYER_USER) */
#define RUL_MAX_ROLE 32       /* bytes of a player's role (WIO_PLAYER_ROLE) */
#define RUL_MAX_TIMERS 100000 /* timers waiting at once */
#define RUL_MAX_TICKS 2147483647 /* ticks a timer may wait (about a year at 60 Hz) */

/* One script's Lua state. The allocator and the count hook find it through the state's extra
 * space (lua_getextraspace), so that a reload's new state counts apart from the old one. */
typedef struct rul_state {
    lua_State *L;
    rul_runtime *rt;
    size_t used, peak; /* bytes allocated by Lua */
    size_t limit;      /* bytes: used plus the timers' data may not pass it */
    bool refused;      /* an allocation was refused during this call */
    bool budget_hit;   /* the instruction budget ran out during this call */
    bool in_hook;      /* a hook runs (not the top level): the world may be changed */
    bool counting;     /* a hook's call runs under the budget (not a save's or a load's) */
    uint64_t instructions; /* Lua instructions this call ran, as of the last count hook */
    uint64_t work;     /* C work charged in this call (rul_charge, new long strings) */
    int period;        /* instructions the count hook is set to fire after */
    uint32_t event_types; /* the events on_event is given: a bit per sim_event_type */
} rul_state;

/* A timer: at tick `due` (then every `every` ticks when not 0) the global function `name` is
 * called with its data, kept as save-form JSON so that it is a copy and can be saved. */
typedef struct rul_timer {
    uint64_t id, due, every;
    uint32_t failing;
    char name[RUL_MAX_NAME + 1];
    char *data; /* NULL: no data */
    size_t len;
} rul_timer;

/* A player the rules admitted: what net told of it. Its Lua table (registry, players) holds
 * these and `data`, the script's own. */
typedef struct rul_player_rec {
    uint32_t id;
    char name[PROTO_MAX_NAME + 1];
    char user[RUL_MAX_USER + 1];
    char role[RUL_MAX_ROLE + 1];
    sim_id avatar;
} rul_player_rec;

struct rul_runtime {
    char *script;
    size_t memory;
    uint32_t budget, max_failures;
    sim_world *world;
    rul_host host;
    rul_state *s;
    uint64_t rng[4];                  /* xoshiro256** */
    MK_VEC(rul_timer) timers;         /* by (due, id) */
    size_t timer_bytes;               /* the timers' data, counted against the memory cap */
    uint64_t next_timer;
    MK_VEC(rul_player_rec) players;   /* by id */
    rul_hook_stats stats[RUL_HOOK_COUNT];
    uint64_t reloads, reload_failures;
    bool busy;
    proto_buf text;                   /* scratch: JSON of messages, specs and timer data */
    sim_body_def *def;                /* scratch: a spec's or a query shape's (15 KB) */
    sim_hit hits[RUL_MAX_HITS];
};

/* Registry fields of a state. */
#define RUL_REG_GAME "mink.game"       /* the game table */
#define RUL_REG_PLAYERS "mink.players" /* player id -> player table */

static inline rul_state *rul_state_of(lua_State *L) { return *(rul_state **)lua_getextraspace(L); }

/* ---- call.c ---- */

/* Lua's allocator (lua_Alloc) for a state `ud`, under its memory cap. */
void *rul_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* Calls `body(L, ud)` in protected mode on state s for hook h, with the budget reset and a
 * traceback on failure; body returns whether a hook of the script ran. Returns 0, or -1 with
 * the failure's message (without its traceback) in err when err is not NULL. `counted`: a
 * hook's call, counted in h's stats and its failures logged; else the runtime's own (a
 * save, a load), under no budget, its failure only in err. */
typedef int (*rul_body)(lua_State *L, void *ud);
int rul_call(rul_runtime *rt, rul_state *s, rul_hook h, rul_body body, void *ud, bool counted,
             mk_error *err);
#define RUL_BYTES_A_UNIT 64 /* bytes a C function reads or writes for one unit of budget */
/* Counts n units of C work (an item looped over, RUL_BYTES_A_UNIT bytes read) in the running
 * call and raises the budget's error past it. */
void rul_charge(lua_State *L, uint64_t n);
/* Raises an error unless a hook runs: what changes the world or the game's state may not run
 * at the script's top level, which runs again at each reload. */
void rul_need_hook(lua_State *L, const char *fn);
void rul_log(rul_runtime *rt, rul_log_level level, const char *fmt, ...) MK_PRINTF(3, 4);

/* ---- runtime.c ---- */

/* A new state with the sandbox and the API, the game table and no players; NULL when memory
 * runs out. */
rul_state *rul_state_new(rul_runtime *rt);
void rul_state_free(rul_state *s);

/* ---- sandbox.c ---- */

/* Opens the allowed libraries and replaces or removes what a script may not have; in
 * protected mode. */
void rul_sandbox_open(lua_State *L);

/* ---- keys.c: keys in order ---- */

/* A table's key, for walking keys in an order every run shares. */
enum { RUL_KEY_NUMBER, RUL_KEY_STRING, RUL_KEY_BOOLEAN, RUL_KEY_OTHER };
typedef struct rul_key {
    int kind;
    bool is_int;
    lua_Integer i; /* an integer's value; a boolean's 0 or 1 */
    lua_Number n;
    const char *s; /* a string's bytes, kept alive by the key sequence */
    size_t len;
    lua_Integer slot; /* where the key is in the key sequence */
} rul_key;
/* The record of the key at stack index idx (a string's bytes stay the key's). */
void rul_key_of(lua_State *L, int idx, rul_key *k);
/* The order of keys: <0, 0 or >0. */
int rul_key_cmp(const rul_key *a, const rul_key *b);
/* The keys of the table at idx: pushes a sequence of them (which keeps their strings alive)
 * and, above it, the userdata array of their records it returns, sorted: numbers, then
 * strings by their bytes, then false and true; keys of no order (tables, functions) last,
 * their kind RUL_KEY_OTHER. The work is charged (rul_charge). */
rul_key *rul_keys(lua_State *L, int idx, size_t *n);

/* ---- data.c: plain data <-> JSON ---- */

typedef enum rul_json_mode {
    RUL_JSON_SAVE,  /* integer keys of objects as "#7", a string key "#x" as "##x" */
    RUL_JSON_PLAIN, /* integer keys as "7": for messages, the other side's JSON */
} rul_json_mode;
/* Appends the value at `idx` as JSON (keys sorted: integers, then strings by bytes; a table
 * whose keys are 1..n is an array). In protected mode (its scratch is Lua's). 0, or -1 with
 * `err` naming the path from `root`. */
int rul_json_write(lua_State *L, int idx, rul_json_mode mode, const char *root, proto_buf *out,
                   mk_error *err);
/* Pushes the value of JSON text; raises an error naming the byte offset of malformed text. */
void rul_json_read(lua_State *L, const char *text, size_t len, rul_json_mode mode);
/* The JSON of the value at `idx` in rt->text, or a Lua error naming the path. */
void rul_json_text(lua_State *L, int idx, const char *root);

/* ---- durable.c ---- */

/* Copies game.state and the players' data of `from` into `to` (a reload): 0, or -1 with err. */
int rul_carry(rul_runtime *rt, rul_state *from, rul_state *to, mk_error *err);

/* ---- api_game.c, api_world.c, api_motion.c, api_joint.c ---- */

/* The vector at idx: an array of `dim` finite numbers, each at most max_abs in size; raises an
 * error naming `what` otherwise. */
mk_vec3 rul_read_vec(lua_State *L, int idx, int dim, double max_abs, const char *what);
/* A body id argument (0 for one no body has). */
sim_id rul_id_arg(lua_State *L, int idx);
/* nil and a message (lua_pushfstring's format): what a call the world cannot make answers. */
int rul_refuse(lua_State *L, const char *fmt, ...);
/* The world's kind of a kind's name ("dynamic", ...), or -1. */
int rul_kind_named(const char *name);

/* A query's options: at_tick (default now), ignore (ids, at most 64), kinds (names), all. */
typedef struct rul_query_opts {
    uint64_t tick;
    sim_id ignore[PROTO_MAX_IGNORE];
    sim_query_filter f;
    bool all;
} rul_query_opts;
void rul_read_opts(lua_State *L, int idx, const char *fn, rul_query_opts *o);

/* mink.set, mink.push, mink.explode (api_motion.c). */
int rul_set(lua_State *L);
int rul_push(lua_State *L);
int rul_explode(lua_State *L);
/* mink.joint, mink.unjoint (api_joint.c). */
int rul_joint(lua_State *L);
int rul_unjoint(lua_State *L);

/* The game table, `mink` and `os.clock` in a new state (protected mode). */
void rul_api_open(lua_State *L);
void rul_world_open(lua_State *L);
/* Pushes v as an array of `dim` numbers. */
void rul_push_vec(lua_State *L, mk_vec3 v, int dim);
/* Pushes a new table for player p: id, name, user, role, avatar and an empty data table. */
void rul_player_table(lua_State *L, const rul_player_rec *p);
/* Pushes player p's table (registry), or nil. */
void rul_push_player(lua_State *L, uint32_t id);
/* The runtime's player record, or NULL. */
rul_player_rec *rul_player_find(rul_runtime *rt, uint32_t id);
/* Puts a timer in its place by (due, id); false when memory runs out. */
bool rul_timer_insert(rul_runtime *rt, const rul_timer *t);
/* Frees a timer's data and uncounts it. */
void rul_timer_free(rul_runtime *rt, rul_timer *t);
/* Takes timer i out of the list, its data freed or (free_data false) now the caller's. */
void rul_timer_remove(rul_runtime *rt, size_t i, bool free_data);
/* xoshiro256** seeded by splitmix64, as Lua 5.4's math.random. */
void rul_random_seed(uint64_t s[4], uint64_t seed);
uint64_t rul_random_next(uint64_t s[4]);

#endif
