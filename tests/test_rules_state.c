/* mink_rules: the rules' durable state. A save is deterministic JSON (the text of a known
 * state is written out here in full) that loads back to the same values and kinds (integers
 * to 2^53, floats, -0.0, strings with NUL bytes, nested and sparse tables) and the same bytes;
 * what is not plain data is refused with its path; the random generator draws what Lua 5.4's
 * own does after the same seed (xoshiro256**'s published first outputs, and a plain Lua
 * state's math.random) and goes on after a load as it would have; timers and players' data
 * come back; a reload keeps the state and a broken one keeps the old script. */
#include <lauxlib.h>
#include <lualib.h>
#include <unistd.h>

#include "check_main.h"
#include "rules_fixture.h"

/* The save's text, NUL-terminated, and its length. */
static char *save_text(rules_box *b, size_t *len)
{
    proto_buf out;
    proto_buf_init(&out);
    mk_error err = {0};
    if (rul_save(b->rt, &out, &err) != 0)
        ck_abort_msg("save failed: %s", err.message);
    *len = out.len;
    proto_buf_append_char(&out, '\0');
    ck_assert(!out.failed);
    return out.data;
}

static const char *const KNOWN_STATE =
    "function on_start(game)\n"
    "  game.state = {\n"
    "    big = 1 << 53, neg = -(1 << 53), f = 0.1, half = 3.0, z = -0.0,\n"
    "    s = 'a\"b\\n\\0\\u{e9}', t = true, no = false,\n"
    "    list = {1, 2.5, 'x', {y = 1}},\n"
    "    sparse = {[7] = 'seven', [100] = true},\n"
    "    hash = {['#tag'] = 1, ['1'] = 'string one', [1] = 'int one'},\n"
    "    deep = {a = {b = {c = {}}}},\n"
    "  }\n"
    "end\n"
    "function on_tick(game)\n"
    "  local s = game.state\n"
    "  game.state.kinds = math.type(s.big) .. ' ' .. math.type(s.half) .. ' ' .. "
    "math.type(s.list[2]) .. ' ' .. tostring(1 / s.z) .. ' ' .. #s.s .. ' ' .. s.sparse[7] .. "
    "' ' .. s.hash[1] .. ' ' .. s.hash['1'] .. ' ' .. s.hash['#tag']\n"
    "end\n";

/* The state's text, keys sorted (integers "#n" first, a string "#tag" written "##tag"), a
 * float always with its '.', and the same text again after a load. */
START_TEST(save_load_round_trip)
{
    rules_box a, b;
    rules_box_must(&a, KNOWN_STATE, true, NULL);
    rul_start(a.rt);
    size_t len;
    char *text = save_text(&a, &len);
    const char *state = strstr(text, "\"state\":");
    ck_assert_ptr_nonnull(state);
    ck_assert_str_eq(state,
                     "\"state\":{\"big\":9007199254740992,\"deep\":{\"a\":{\"b\":{\"c\":{}}}},"
                     "\"f\":0.1,\"half\":3.0,\"hash\":{\"#1\":\"int one\",\"##tag\":1,"
                     "\"1\":\"string one\"},\"list\":[1,2.5,\"x\",{\"y\":1}],"
                     "\"neg\":-9007199254740992,\"no\":false,\"s\":\"a\\\"b\\n\\u0000\xc3\xa9\","
                     "\"sparse\":{\"#7\":\"seven\",\"#100\":true},\"t\":true,\"z\":-0.0}}\n");
    ck_assert(strncmp(text, "{\"rules\":1,\"tick\":0,\"random\":[\"", 31) == 0);
    rules_box_must(&b, KNOWN_STATE, true, NULL);
    mk_error err = {0};
    ck_assert_msg(rul_load(b.rt, text, len, &err) == 0, "%s", err.message);
    size_t len2;
    char *again = save_text(&b, &len2);
    ck_assert_uint_eq(len2, len);
    ck_assert_mem_eq(again, text, len);
    rules_box_step(&b, 1);
    char s[128];
    ck_assert_str_eq(rules_box_string(&b, "kinds", s, sizeof s),
                     "integer float float -inf 7 seven int one string one 1");
    free(again);
    free(text);
    rules_box_close(&a);
    rules_box_close(&b);
}
END_TEST

/* What is not plain data is refused, the message naming its path. */
START_TEST(refused_values_named)
{
    static const char *const cases[][2] = {
        {"game.state.f = function() end",
         "game.state.f: a function is not plain data (numbers, strings, booleans and tables of "
         "them)"},
        {"game.state.a = {b = {}} game.state.a.b.c = game.state.a",
         "game.state.a.b.c: a table met twice (a cycle, or one table in two places): only trees "
         "of plain data are kept"},
        {"local x = {} game.state.p = x game.state.q = {x}",
         "game.state.q[1]: a table met twice (a cycle, or one table in two places): only trees "
         "of plain data are kept"},
        {"game.state.x = {0 / 0}", "game.state.x[1]: nan is not a finite number"},
        {"game.state.x = {y = math.huge}", "game.state.x.y: inf is not a finite number"},
        {"game.state.big = (1 << 53) + 1",
         "game.state.big: the integer 9007199254740993 is past 2^53, as far as JSON carries "
         "integers exactly"},
        {"game.state.m = {[1.5] = 1}", "game.state.m: a key 1.5: keys are integers or strings"},
        {"game.state.m = {[true] = 1}",
         "game.state.m: a key that is a boolean: keys are integers or strings"},
        {"game.state.v = setmetatable({}, {})",
         "game.state.v: a table with a metatable: its behaviour would not be kept"},
        {"game.state['odd key'] = {'\\xff'}",
         "game.state[\"odd key\"][1]: a string that is not UTF-8"},
        {"game.state = 5", "game.state: a table expected, not a number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char src[512];
        snprintf(src, sizeof src, "function on_start(game) %s end\n", cases[i][0]);
        rules_box b;
        rules_box_must(&b, src, true, NULL);
        rul_start(b.rt);
        proto_buf out;
        proto_buf_init(&out);
        mk_error err = {0};
        ck_assert_int_eq(rul_save(b.rt, &out, &err), -1);
        ck_assert_str_eq(err.message, cases[i][1]);
        ck_assert_uint_eq(out.len, 0);
        proto_buf_free(&out);
        rules_box_close(&b);
    }
}
END_TEST

/* A save that is not one is refused with where, and the runtime keeps its state. */
START_TEST(bad_saves_refused)
{
    rules_box b;
    rules_box_start(&b, "function on_start(game) game.state.keep = 1 end\n", true, NULL);
    static const char *const cases[][2] = {
        {"{\"rules\":1,", "rules save: JSON at byte 11: an object's key must be a string"},
        {"{\"rules\":2}", "rules save: save.rules: an integer in [1, 1] expected"},
        {"{\"rules\":1,\"next_timer\":1,\"random\":[\"1\",\"2\",\"3\",\"4\"]}",
         "rules save: random[1]: 16 hex digits expected"},
        {"{\"rules\":1,\"next_timer\":1,\"random\":[\"0000000000000001\",\"0000000000000001\","
         "\"0000000000000001\",\"0000000000000001\"],\"timers\":[{\"id\":1}]}",
         "rules save: timers[1].id: an integer in [1, 0] expected"},
        {"{\"rules\":1,\"next_timer\":1,\"random\":[\"0000000000000001\",\"0000000000000001\","
         "\"0000000000000001\",\"0000000000000001\"],\"timers\":[],\"players\":[],\"state\":{\"x\":"
         "{\"#1.5\":0}}}",
         "rules save: JSON at byte 152: a key that starts with # is \"#<integer>\" or \"##...\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mk_error err = {0};
        ck_assert_int_eq(rul_load(b.rt, cases[i][0], strlen(cases[i][0]), &err), -1);
        ck_assert_str_eq(err.message, cases[i][1]);
    }
    ck_assert_double_eq(rules_box_number(&b, "keep"), 1);
    rules_box_close(&b);
}
END_TEST

/* Draws of a plain Lua 5.4 after math.randomseed(seed): the known answers of the rules'
 * generator seeded with the same number. */
static void lua_draws(lua_Integer seed, char *out, size_t cap)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    char src[512];
    snprintf(src, sizeof src,
             "math.randomseed(%lld)\n"
             "local t = {}\n"
             "for i = 1, 5 do t[#t + 1] = math.random(1, 100) end\n"
             "t[#t + 1] = string.format('%%.17g', math.random())\n"
             "t[#t + 1] = math.random(-3, 1 << 40)\n"
             "t[#t + 1] = math.random(0)\n"
             "return table.concat(t, ' ')\n",
             (long long)seed);
    ck_assert_int_eq(luaL_dostring(L, src), 0);
    snprintf(out, cap, "%s", lua_tostring(L, -1));
    lua_close(L);
}

static const char *const DRAWS =
    "local function draws()\n"
    "  local t = {}\n"
    "  for i = 1, 5 do t[#t + 1] = math.random(1, 100) end\n"
    "  t[#t + 1] = string.format('%.17g', math.random())\n"
    "  t[#t + 1] = math.random(-3, 1 << 40)\n"
    "  t[#t + 1] = math.random(0)\n"
    "  return table.concat(t, ' ')\n"
    "end\n"
    "function on_start(game) game.state.a = draws() end\n"
    "function on_tick(game) game.state.b = draws() end\n"
    "function on_action(game, p, name, data) math.randomseed(data.seed) game.state.c = draws() "
    "end\n";

START_TEST(random_is_lua_s_and_saved)
{
    char expect[512], s[512];
    rules_box a, b;
    rul_config cfg = {.seed = 42};
    rules_box_must(&a, DRAWS, true, &cfg);
    rul_start(a.rt);
    lua_draws(42, expect, sizeof expect);
    printf("seed 42 draws: %s\n", expect);
    ck_assert_str_eq(rules_box_string(&a, "a", s, sizeof s), expect);
    /* math.randomseed inside a hook: Lua's seeding too. */
    rul_player p = {.id = 1, .name = "p"};
    mk_error err;
    ck_assert_int_eq(rul_join(a.rt, &p, &err), 0);
    ck_assert_int_eq(rul_action(a.rt, 1, "seed", "{\"seed\":-7}", 11, &err), 0);
    lua_draws(-7, expect, sizeof expect);
    ck_assert_str_eq(rules_box_string(&a, "c", s, sizeof s), expect);
    /* Saved here, the generator goes on in the runtime the save is loaded into as it goes on
     * here. */
    size_t len;
    char *text = save_text(&a, &len);
    rules_box_step(&a, 1);
    rules_box_must(&b, DRAWS, true, NULL);
    ck_assert_int_eq(rul_load(b.rt, text, len, &err), 0);
    rules_box_step(&b, 1);
    char sa[512];
    ck_assert_str_eq(rules_box_string(&b, "b", s, sizeof s),
                     rules_box_string(&a, "b", sa, sizeof sa));
    free(text);
    rules_box_close(&a);
    rules_box_close(&b);
}
END_TEST

/* xoshiro256** from the state {1, 2, 3, 4}: its reference outputs 11520, 0, 1509978240,
 * 1215971899390074240. */
START_TEST(xoshiro_reference)
{
    rules_box b;
    rules_box_must(&b, "function on_tick(game)\n"
                       "  local t = {}\n"
                       "  for i = 1, 4 do t[i] = math.random(0) end\n"
                       "  game.state.r = table.concat(t, ' ')\n"
                       "end\n",
                   true, NULL);
    const char *save = "{\"rules\":1,\"next_timer\":1,\"random\":[\"0000000000000001\","
                       "\"0000000000000002\",\"0000000000000003\",\"0000000000000004\"],"
                       "\"timers\":[],\"players\":[],\"state\":{}}";
    mk_error err;
    ck_assert_int_eq(rul_load(b.rt, save, strlen(save), &err), 0);
    rules_box_step(&b, 1);
    char s[128];
    ck_assert_str_eq(rules_box_string(&b, "r", s, sizeof s),
                     "11520 0 1509978240 1215971899390074240");
    rules_box_close(&b);
}
END_TEST

/* Timers and players' data are in the save: loaded elsewhere, the timer fires at its tick with
 * its data and the player's data is there. */
START_TEST(timers_and_players_saved)
{
    const char *src = "function on_start(game) mink.after(5, 'ring', {x = 1, list = {2, 3}}) end\n"
                      "function on_join(game, p) p.data.score = 5 end\n"
                      "function ring(game, data, id)\n"
                      "  game.state.rang = mink.tick() * 100 + data.x + data.list[2]\n"
                      "  game.state.score = game.player(9).data.score\n"
                      "  game.state.name = game.player(9).name .. '/' .. game.player(9).user\n"
                      "end\n";
    rules_box a, b;
    rules_box_must(&a, src, true, NULL);
    rul_start(a.rt);
    rul_player p = {.id = 9, .name = "bo", .user = "u9"};
    mk_error err;
    ck_assert_int_eq(rul_join(a.rt, &p, &err), 0);
    rules_box_step(&a, 2);
    size_t len;
    char *text = save_text(&a, &len);
    ck_assert_ptr_nonnull(strstr(text, "\"timers\":[{\"id\":1,\"due\":5,\"every\":0,"
                                       "\"fn\":\"ring\",\"data\":{\"list\":[2,3],\"x\":1}}],"
                                       "\"players\":[{\"id\":9,\"name\":\"bo\",\"user\":\"u9\","
                                       "\"data\":{\"score\":5}}]"));
    rules_box_must(&b, src, true, NULL);
    sim_world_set_tick(b.w, 2);
    ck_assert_int_eq(rul_load(b.rt, text, len, &err), 0);
    rules_box_step(&b, 3);
    ck_assert_double_eq(rules_box_number(&b, "rang"), 504);
    ck_assert_double_eq(rules_box_number(&b, "score"), 5);
    char s[32];
    ck_assert_str_eq(rules_box_string(&b, "name", s, sizeof s), "bo/u9");
    free(text);
    rules_box_close(&a);
    rules_box_close(&b);
}
END_TEST

static const char *const V1 = "function on_start(game) mink.every(1, 'beat') end\n"
                              "function on_join(game, p) p.data.score = 5 end\n"
                              "function beat(game) game.state.beats = (game.state.beats or 0) + 1 "
                              "end\n"
                              "function on_tick(game) game.state.n = (game.state.n or 0) + 1 end\n";
static const char *const V2 = "function beat(game) game.state.beats = game.state.beats + 100 end\n"
                              "function on_tick(game)\n"
                              "  game.state.n = game.state.n + 10\n"
                              "  game.state.score = game.player(3).data.score\n"
                              "end\n";

/* A reload keeps game.state, the timers (which now call the new functions) and the players'
 * data; a reload that does not load, fails at its top level or cannot carry the state keeps
 * the old script running. */
START_TEST(reload_keeps_state)
{
    rules_box b;
    rules_box_start(&b, V1, true, NULL);
    rul_player p = {.id = 3, .name = "cy"};
    mk_error err;
    ck_assert_int_eq(rul_join(b.rt, &p, &err), 0);
    rules_box_step(&b, 3);
    ck_assert_int_eq(rul_reload(b.rt, V2, strlen(V2), &err), 0);
    rules_box_step(&b, 2);
    ck_assert_double_eq(rules_box_number(&b, "n"), 3 + 20);
    ck_assert_double_eq(rules_box_number(&b, "beats"), 3 + 200);
    ck_assert_double_eq(rules_box_number(&b, "score"), 5);
    static const char *const broken[][2] = {
        {"function on_tick(game) game.state.n = 0\n", "test.lua:2: 'end' expected (to close "
                                                      "'function' at line 1) near <eof>"},
        {"local x = nil\nx.y = 1\n", "test.lua:2: attempt to index a nil value (local 'x')"},
        {"while true do end\n",
         "test.lua:1: the instruction budget of 1000000 ran out (--script-budget)"},
    };
    for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
        ck_assert_int_eq(rul_reload(b.rt, broken[i][0], strlen(broken[i][0]), &err), -1);
        ck_assert_str_eq(err.message, broken[i][1]);
        ck_assert_ptr_nonnull(strstr(b.log, "reload refused, the old script keeps running"));
    }
    rules_box_step(&b, 1);
    ck_assert_double_eq(rules_box_number(&b, "n"), 33);
    /* A state that cannot be carried: refused with its path. */
    const char *v3 = "function on_tick(game) game.state.f = print end\n";
    ck_assert_int_eq(rul_reload(b.rt, v3, strlen(v3), &err), 0);
    rules_box_step(&b, 1);
    ck_assert_int_eq(rul_reload(b.rt, V2, strlen(V2), &err), -1);
    ck_assert_str_eq(err.message, "game.state.f: a function is not plain data (numbers, "
                                  "strings, booleans and tables of them)");
    rul_stats st = rules_box_stats(&b);
    ck_assert_uint_eq(st.reloads, 2);
    ck_assert_uint_eq(st.reload_failures, 4);
    rules_box_close(&b);
}
END_TEST

/* A reload without a source reads the script's file again. */
START_TEST(reload_reads_the_file)
{
    char path[] = "/tmp/mink_rules_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, V1, strlen(V1)), (ssize_t)strlen(V1));
    close(fd);
    rules_box b;
    rul_config cfg = {.script = path};
    rules_box_must(&b, NULL, true, &cfg);
    rules_box_step(&b, 2);
    FILE *f = fopen(path, "w");
    fputs("function on_tick(game) game.state.n = game.state.n + 10 end\n", f);
    fclose(f);
    mk_error err;
    ck_assert_int_eq(rul_reload(b.rt, NULL, 0, &err), 0);
    rules_box_step(&b, 1);
    ck_assert_double_eq(rules_box_number(&b, "n"), 12);
    unlink(path);
    ck_assert_int_eq(rul_reload(b.rt, NULL, 0, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.message, "No such file or directory"));
    rules_box_close(&b);
}
END_TEST

MINK_CHECK_TESTS("rules_state", 60, save_load_round_trip, refused_values_named,
                 bad_saves_refused, random_is_lua_s_and_saved, xoshiro_reference,
                 timers_and_players_saved, reload_keeps_state, reload_reads_the_file)
