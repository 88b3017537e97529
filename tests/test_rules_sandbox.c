/* mink_rules: the sandbox. Each way out a script might try (a library it must not have,
 * bytecode, the strings' metatable, a finalizer, an address) is tried and refused, one test
 * each; the instruction budget and the memory cap stop what runs away (an endless loop, one
 * that catches its own stop, deep recursion, a memory bomb, the C loops a script can make
 * long) and the game goes on after; a hook that fails every time is disabled. */
#include <lauxlib.h>
#include <lualib.h>
#include <time.h>

#include "check_main.h"
#include "rules_fixture.h"

/* Runs BODY inside pcall in on_start and keeps whether it worked and its error in game.state
 * (ok, e); returns the error text. */
static const char *attempt(rules_box *b, const char *body, char *e, size_t cap)
{
    char src[8192];
    snprintf(src, sizeof src,
             "function on_start(game)\n"
             "  local ok, e = pcall(function()\n%s\n  end)\n"
             "  game.state.ok = ok\n"
             "  game.state.e = tostring(e)\n"
             "end\n",
             body);
    rules_box_must(b, src, true, NULL);
    rul_start(b->rt);
    cJSON *j = rules_box_save(b);
    const cJSON *st = cJSON_GetObjectItem(j, "state");
    ck_assert_msg(cJSON_IsFalse(cJSON_GetObjectItem(st, "ok")), "the attempt worked: %s", body);
    snprintf(e, cap, "%s", cJSON_GetObjectItem(st, "e")->valuestring);
    cJSON_Delete(j);
    return e;
}

#define REFUSED(body, expect)                                                                \
    do {                                                                                     \
        rules_box b;                                                                         \
        char e[512];                                                                         \
        attempt(&b, body, e, sizeof e);                                                      \
        ck_assert_msg(strstr(e, expect) != NULL, "expected \"%s\" in \"%s\"", expect, e);    \
        rules_box_close(&b);                                                                 \
    } while (0)

START_TEST(no_io) { REFUSED("return io.open('/etc/passwd')", "global 'io'"); }
END_TEST

START_TEST(no_os_execute)
{
    REFUSED("return os.execute('touch /tmp/mink_rules_escape')", "field 'execute'");
    REFUSED("return os.getenv('HOME')", "field 'getenv'");
}
END_TEST

START_TEST(no_require) { REFUSED("return require('io')", "global 'require'"); }
END_TEST

START_TEST(no_dofile)
{
    REFUSED("return dofile('/etc/passwd')", "global 'dofile'");
    REFUSED("return loadfile('/etc/passwd')", "global 'loadfile'");
}
END_TEST

START_TEST(no_debug_coroutine_package)
{
    REFUSED("return debug.getinfo(1)", "global 'debug'");
    REFUSED("return coroutine.wrap(function() end)", "global 'coroutine'");
    REFUSED("return package.loadlib('libc.so.6', 'system')", "global 'package'");
}
END_TEST

/* string.dump's output as a Lua string literal of decimal escapes, made in a plain Lua state:
 * real bytecode, which the sandbox's load must refuse. */
static void bytecode_literal(char *out, size_t cap)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    ck_assert_int_eq(luaL_dostring(L, "return string.dump(function() return 42 end)"), 0);
    size_t len;
    const char *code = lua_tolstring(L, -1, &len);
    size_t n = (size_t)snprintf(out, cap, "\"");
    for (size_t i = 0; i < len && n + 8 < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "\\%u", (unsigned char)code[i]);
    snprintf(out + n, cap - n, "\"");
    ck_assert_int_eq(code[0], 27); /* LUA_SIGNATURE: a binary chunk */
    lua_close(L);
}

START_TEST(no_bytecode)
{
    char lit[2048], body[2400];
    bytecode_literal(lit, sizeof lit);
    snprintf(body, sizeof body, "return assert(load(%s))()", lit);
    REFUSED(body, "attempt to load a binary chunk (mode is 't')");
    snprintf(body, sizeof body, "return assert(load(%s, 'x', 'b'))()", lit);
    REFUSED(body, "a precompiled chunk is refused");
    snprintf(body, sizeof body, "return assert(load(%s, 'x', 'bt', {}))()", lit);
    REFUSED(body, "a precompiled chunk is refused");
    REFUSED("return string.dump(function() end)", "field 'dump'");
    /* Text still loads, into the script's globals or a given environment. */
    rules_box b;
    rules_box_start(&b, "function on_start(game)\n"
                        "  game.state.a = load('return 6 * 7')()\n"
                        "  game.state.b = load('return x', 'c', 't', {x = 5})()\n"
                        "end\n",
                    true, NULL);
    ck_assert_double_eq(rules_box_number(&b, "a"), 42);
    ck_assert_double_eq(rules_box_number(&b, "b"), 5);
    rules_box_close(&b);
}
END_TEST

START_TEST(string_metatable_protected)
{
    REFUSED("getmetatable('').__index.upper = function() return 'evil' end",
            "attempt to index a boolean value");
    REFUSED("return setmetatable('', {})", "table expected, got string");
    REFUSED("local mt = getmetatable('') rawset(mt, '__index', {})",
            "table expected, got boolean");
    rules_box b;
    rules_box_start(&b, "function on_start(game)\n"
                        "  pcall(function() getmetatable('').__index = {} end)\n"
                        "  game.state.up = ('abc'):upper()\n"
                        "  game.state.mt = tostring(getmetatable('x'))\n"
                        "end\n",
                    true, NULL);
    char s[32];
    ck_assert_str_eq(rules_box_string(&b, "up", s, sizeof s), "ABC");
    ck_assert_str_eq(rules_box_string(&b, "mt", s, sizeof s), "false");
    rules_box_close(&b);
}
END_TEST

START_TEST(no_finalizers_or_weak_tables)
{
    REFUSED("setmetatable({}, {__gc = function() end})", "__gc is refused");
    REFUSED("setmetatable({}, {__mode = 'k'})", "__mode is refused");
    REFUSED("return collectgarbage('count')", "only \"collect\"");
}
END_TEST

START_TEST(no_addresses)
{
    REFUSED("return string.format('%p', {})", "%p shows an address");
    rules_box b;
    rules_box_start(&b, "function on_start(game)\n"
                        "  game.state.t = tostring({}) .. ' ' .. tostring(print)\n"
                        "  game.state.f = string.format('%s|%5.1f', {}, 2.25)\n"
                        "  game.state.m = tostring(setmetatable({}, {__tostring = function() "
                        "return 'me' end}))\n"
                        "end\n",
                    true, NULL);
    const char *want[][2] = {{"t", "table function"}, {"f", "table|  2.2"}, {"m", "me"}};
    for (int i = 0; i < 3; i++) {
        char s[64];
        ck_assert_str_eq(rules_box_string(&b, want[i][0], s, sizeof s), want[i][1]);
    }
    rules_box_close(&b);
}
END_TEST

/* Runs BODY in on_start and checks that the budget stopped it: a stop is not caught by the
 * script's own pcall. */
static void stopped_at_budget(const char *body)
{
    char src[2048];
    snprintf(src, sizeof src,
             "function on_start(game)\n  pcall(function()\n%s\n  end)\n  game.state.on = 1\n"
             "end\n",
             body);
    rules_box b;
    rules_box_start(&b, src, true, NULL);
    ck_assert_msg(rules_box_hook(&b, RUL_HOOK_START).budget_stops == 1, "not stopped: %s", body);
    ck_assert_msg(strstr(b.log, "the instruction budget of 1000000 ran out"), "%s", b.log);
    cJSON *j = rules_box_save(&b);
    ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "state"), "on"));
    cJSON_Delete(j);
    rules_box_close(&b);
}

/* The C loops a script could make endless: charged to the budget (the error names the line
 * that called), or made at once. */
START_TEST(long_c_loops_charged)
{
    stopped_at_budget("return table.move({}, 1, math.maxinteger, 1)");
    stopped_at_budget("local t = setmetatable({}, {__len = function() return math.maxinteger - 1 "
                      "end}) table.insert(t, 1, 0)");
    stopped_at_budget("local t = setmetatable({}, {__len = function() return 1 << 40 end}) "
                      "table.remove(t, 1)");
    stopped_at_budget("local t = setmetatable({}, {__len = function() return 1 << 40 end}) "
                      "table.sort(t)");
    rules_box b;
    rules_box_start(&b,
                    "function on_start(game)\n"
                    "  game.state.n = #string.rep('', 1 << 50) + #string.rep('', 1 << 50, '')\n"
                    "end\n",
                    true, NULL);
    ck_assert_double_eq(rules_box_number(&b, "n"), 0);
    rules_box_close(&b);
}
END_TEST

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* An endless on_tick is stopped at the budget every tick, each stop counted and logged with
 * the script's traceback; on_start then still runs. */
START_TEST(endless_loop_stopped)
{
    rules_box b;
    rul_config cfg = {.max_failures = 100};
    rules_box_must(&b, "function on_tick(game, tick)\n"
                       "  while true do end\n"
                       "end\n"
                       "function on_start(game) game.state.started = 1 end\n",
                   true, &cfg);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rules_box_step(&b, 3);
    printf("three ticks stopped at the default budget: %.1f ms\n", seconds_since(&t0) * 1e3);
    ck_assert_uint_eq(rules_box_hook(&b, RUL_HOOK_TICK).calls, 3);
    ck_assert_uint_eq(rules_box_hook(&b, RUL_HOOK_TICK).budget_stops, 3);
    ck_assert_uint_eq(rules_box_hook(&b, RUL_HOOK_TICK).errors, 3);
    ck_assert_ptr_nonnull(strstr(b.log, "on_tick stopped at tick 1"));
    ck_assert_ptr_nonnull(strstr(b.log, "instruction budget of 1000000 ran out"));
    ck_assert_ptr_nonnull(strstr(b.log, "stack traceback:"));
    ck_assert_ptr_nonnull(strstr(b.log, "test.lua:2: in function 'on_tick'"));
    rul_start(b.rt);
    ck_assert_double_eq(rules_box_number(&b, "started"), 1);
    rules_box_close(&b);
}
END_TEST

/* Work done in C on long strings is charged by its bytes, one unit of budget for 64: a
 * concatenation that copies 1 MiB (16,384 units) or a plain find through 1 MiB costs as much
 * as 16,384 instructions, so the 1,000,000-instruction budget stops either loop after about
 * 1,000,000 / 16,390 = 61 passes (not the ~100,000 a budget of instructions alone allows,
 * copying 100 GB). */
START_TEST(long_strings_charged)
{
    static const char *const loops[] = {
        "for i = 1, math.maxinteger do local t = s .. 'y' passes = i end",
        "for i = 1, math.maxinteger do s:find('y', 1, true) passes = i end",
        "for i = 1, math.maxinteger do s:gsub('y', 'z') passes = i end",
    };
    for (size_t k = 0; k < sizeof loops / sizeof *loops; k++) {
        char src[512];
        snprintf(src, sizeof src,
                 "local s = string.rep('x', 1 << 20)\n"
                 "function on_start(game) passes = 0 %s end\n"
                 "function on_tick(game) game.state.passes = passes end\n",
                 loops[k]);
        rules_box b;
        rules_box_must(&b, src, true, NULL);
        rul_start(b.rt);
        ck_assert_uint_eq(rules_box_hook(&b, RUL_HOOK_START).budget_stops, 1);
        rules_box_step(&b, 1);
        double passes = rules_box_number(&b, "passes");
        ck_assert_msg(passes >= 55 && passes <= 61, "%s: %g passes", loops[k], passes);
        rules_box_close(&b);
    }
}
END_TEST

/* A loop that catches its own stop with pcall is stopped all the same. */
START_TEST(caught_stop_stopped)
{
    rules_box b;
    rules_box_must(&b, "function on_tick(game, tick)\n"
                       "  while true do\n"
                       "    pcall(function() while true do end end)\n"
                       "    xpcall(function() while true do end end, function(e) while true do "
                       "end end)\n"
                       "  end\n"
                       "end\n",
                   true, NULL);
    rules_box_step(&b, 1);
    ck_assert_uint_eq(rules_box_hook(&b, RUL_HOOK_TICK).budget_stops, 1);
    rules_box_close(&b);
}
END_TEST

/* The budget is in instructions: `x = x + i` in a numeric for is two a pass (ADD, whose
 * MMBIN is skipped, and FORLOOP), so 1,000 passes need about 2,000. */
START_TEST(budget_counts_instructions)
{
    const char *src = "function on_start(game)\n"
                      "  local x = 0\n"
                      "  for i = 1, 1000 do x = x + i end\n"
                      "  game.state.x = x\n"
                      "end\n";
    for (int k = 0; k < 2; k++) {
        rules_box b;
        rul_config cfg = {.budget = k == 0 ? 1900 : 2100};
        rules_box_must(&b, src, true, &cfg);
        rul_start(b.rt);
        ck_assert_uint_eq(rules_box_hook(&b, RUL_HOOK_START).budget_stops, k == 0 ? 1 : 0);
        if (k == 1)
            ck_assert_double_eq(rules_box_number(&b, "x"), 500500);
        rules_box_close(&b);
    }
}
END_TEST

/* The counters once on_start has been stopped at the memory cap `cap` (bytes), which the
 * peak did not pass. */
static rul_stats stopped_by_memory(rules_box *b, size_t cap)
{
    rul_stats st = rules_box_stats(b);
    ck_assert_uint_eq(st.hooks[RUL_HOOK_START].memory_stops, 1);
    ck_assert_uint_le(st.memory_peak, cap);
    return st;
}

/* string.rep's result is allocated at once: past the cap it is refused, the hook stopped as
 * out of memory, and the game goes on. */
START_TEST(memory_bomb_stopped)
{
    rules_box b;
    rul_config cfg = {.memory = 1 << 20};
    rules_box_start(&b, "function on_start(game)\n"
                        "  game.state.small = #string.rep('x', 256 * 1024)\n"
                        "  local bomb = string.rep('x', 1 << 30)\n"
                        "  game.state.big = #bomb\n"
                        "end\n"
                        "function on_tick(game, tick) game.state.after = tick end\n",
                    true, &cfg);
    rul_stats st = stopped_by_memory(&b, (size_t)1 << 20);
    ck_assert_uint_eq(st.hooks[RUL_HOOK_START].errors, 1);
    ck_assert_uint_eq(st.memory_limit, (size_t)1 << 20);
    ck_assert_ptr_nonnull(strstr(b.log, "on_start stopped at tick 0"));
    ck_assert_ptr_nonnull(strstr(b.log, "memory reached its cap"));
    rules_box_step(&b, 2);
    ck_assert_double_eq(rules_box_number(&b, "small"), 256 * 1024);
    ck_assert_double_eq(rules_box_number(&b, "after"), 2);
    rules_box_close(&b);
}
END_TEST

/* A table grown without end under a large budget: the cap stops it, and what it held is
 * collected. */
START_TEST(memory_growth_stopped)
{
    rules_box b;
    rul_config cfg = {.memory = 4 << 20, .budget = RUL_MAX_BUDGET};
    rules_box_start(&b, "function on_start(game)\n"
                        "  local t = {}\n"
                        "  for i = 1, math.maxinteger do t[i] = {i} end\n"
                        "end\n",
                    true, &cfg);
    rul_stats st = stopped_by_memory(&b, (size_t)4 << 20);
    ck_assert_uint_lt(st.memory, (size_t)1 << 20);
    rules_box_close(&b);
}
END_TEST

/* Recursion: Lua calls are stopped by Lua's stack limit (LUAI_MAXSTACK, a million slots),
 * calls through C (a metamethod) by its C-call limit (LUAI_MAXCCALLS, 200); both as errors. */
START_TEST(deep_recursion_stopped)
{
    rules_box b;
    rul_config cfg = {.budget = RUL_MAX_BUDGET, .memory = (size_t)256 << 20};
    rules_box_start(&b, "local function deep(n) return 1 + deep(n + 1) end\n"
                        "function on_start(game) deep(1) end\n"
                        "function on_tick(game)\n"
                        "  local t = setmetatable({}, {__index = function(t, k) return t[k + 1] "
                        "end})\n"
                        "  return t[1]\n"
                        "end\n",
                    true, &cfg);
    ck_assert_ptr_nonnull(strstr(b.log, "stack overflow"));
    ck_assert_uint_eq(rules_box_hook(&b, RUL_HOOK_START).errors, 1);
    rules_box_step(&b, 1);
    ck_assert_uint_eq(rules_box_hook(&b, RUL_HOOK_TICK).errors, 1);
    ck_assert_ptr_nonnull(strstr(b.log, "on_tick failed at tick 1"));
    ck_assert_ptr_nonnull(strstr(strstr(b.log, "on_tick failed"), "stack overflow"));
    rules_box_close(&b);
}
END_TEST

/* A hook that fails every time is disabled after max_failures in a row, with a line that says
 * so; a success in between starts the count again; a reload runs it again. */
START_TEST(failing_hook_disabled)
{
    rules_box b;
    rul_config cfg = {.max_failures = 5};
    const char *src = "function on_tick(game, tick)\n"
                      "  if tick ~= 3 then error('boom at ' .. tick) end\n"
                      "end\n";
    rules_box_must(&b, src, true, &cfg);
    rules_box_step(&b, 12);
    /* Ticks 1, 2 fail, 3 works, 4..8 fail: five in a row, then it runs no more. */
    ck_assert_uint_eq(rules_box_hook(&b, RUL_HOOK_TICK).calls, 8);
    ck_assert_uint_eq(rules_box_hook(&b, RUL_HOOK_TICK).errors, 7);
    ck_assert(rules_box_hook(&b, RUL_HOOK_TICK).disabled);
    ck_assert_int_eq(b.errors, 1);
    ck_assert_ptr_nonnull(strstr(b.log, "test.lua:2: boom at 8"));
    ck_assert_ptr_nonnull(strstr(b.log, "on_tick disabled after 5 failures in a row"));
    ck_assert_ptr_null(strstr(b.log, "boom at 9"));
    mk_error err;
    ck_assert_int_eq(rul_reload(b.rt, src, strlen(src), &err), 0);
    rules_box_step(&b, 1);
    ck_assert(!rules_box_hook(&b, RUL_HOOK_TICK).disabled);
    ck_assert_uint_eq(rules_box_hook(&b, RUL_HOOK_TICK).calls, 9);
    rules_box_close(&b);
}
END_TEST

/* on_action keeps running (a player's bad input must not switch the rules off), its failures
 * logged one in a thousand once they are many. */
START_TEST(failing_action_throttled)
{
    rules_box b;
    rules_box_must(&b, "function on_action(game, p, name, data) return data.x + 1 end\n", true,
                   &(rul_config){.max_failures = 3});
    rul_player p = {.id = 7, .name = "ann"};
    mk_error err;
    ck_assert_int_eq(rul_join(b.rt, &p, &err), 0);
    for (int i = 0; i < 2000; i++)
        ck_assert_int_eq(rul_action(b.rt, 7, "fire", "{}", 2, &err), -1);
    ck_assert_str_eq(err.message,
                     "the game's rules failed on this action: the script raised an error");
    ck_assert_uint_eq(rules_box_hook(&b, RUL_HOOK_ACTION).errors, 2000);
    ck_assert(!rules_box_hook(&b, RUL_HOOK_ACTION).disabled);
    ck_assert_int_eq(b.warnings, 3 + 2); /* the first three, then the 1000th and 2000th */
    ck_assert_int_eq(b.errors, 1);
    ck_assert_int_eq(rul_action(b.rt, 7, "fire", "{\"x\":1}", 7, &err), 0);
    rules_box_close(&b);
}
END_TEST

MINK_CHECK_TESTS("rules_sandbox", 60, no_io, no_os_execute, no_require, no_dofile,
                 no_debug_coroutine_package, no_bytecode, string_metatable_protected,
                 no_finalizers_or_weak_tables, no_addresses, long_c_loops_charged,
                 endless_loop_stopped, long_strings_charged, caught_stop_stopped,
                 budget_counts_instructions,
                 memory_bomb_stopped, memory_growth_stopped, deep_recursion_stopped,
                 failing_hook_disabled, failing_action_throttled)
