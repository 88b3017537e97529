/* mink_rules: loading a script (its errors name the file and line), the hooks (start, ticks,
 * players joining, refused, leaving, actions, the step's events) and the API over the world
 * (spawning from body specs, reading bodies, velocities, impulses against the momentum
 * formulas, explosions, rays), each against known answers. */
#include <math.h>

#include "check_main.h"
#include "mink_world_io.h"
#include "rules_fixture.h"

/* on_start spawns N boxes: the world holds N bodies, each with the spec's tag and place. */
START_TEST(spawns_on_start)
{
    rules_box b;
    rules_box_must(&b, "N = 25\n"
                       "function on_start(game)\n"
                       "  game.state.ids = {}\n"
                       "  for i = 1, N do\n"
                       "    local id = assert(mink.spawn({shape = {type = 'box', half = {0.5, "
                       "0.5}}, pos = {i * 2, 3}, tag = 'crate'}))\n"
                       "    game.state.ids[i] = id\n"
                       "  end\n"
                       "end\n",
                   false, NULL);
    ck_assert_uint_eq(sim_world_body_count(b.w), 0);
    rul_start(b.rt);
    ck_assert_uint_eq(sim_world_body_count(b.w), 25);
    cJSON *j = rules_box_save(&b);
    const cJSON *ids = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "state"), "ids");
    ck_assert_int_eq(cJSON_GetArraySize(ids), 25);
    for (int i = 0; i < 25; i++) {
        const sim_body *body = sim_world_get(b.w, (sim_id)cJSON_GetArrayItem(ids, i)->valuedouble);
        ck_assert_ptr_nonnull(body);
        ck_assert_str_eq(body->tag, "crate");
        ck_assert_float_eq(body->pos.x, 2.0f * (float)(i + 1));
        ck_assert_float_eq(body->pos.y, 3.0f);
        ck_assert_float_eq(body->shape.half.x, 0.5f);
    }
    cJSON_Delete(j);
    rules_box_close(&b);
}
END_TEST

/* A spec the protocol refuses comes back as nil and the protocol's message. */
START_TEST(spawn_refused_with_the_protocols_message)
{
    rules_box b;
    rules_box_start(&b, "function on_start(game)\n"
                        "  local id, e = mink.spawn({shape = {type = 'box', half = {0.5, -1}}, "
                        "pos = {0, 0}})\n"
                        "  game.state.e = e\n"
                        "  game.state.none = id == nil\n"
                        "end\n",
                    true, NULL);
    char e[256];
    ck_assert_str_eq(rules_box_string(&b, "e", e, sizeof e),
                     "spec.shape.half[1]: must be in [0.001, 10000]");
    rules_box_close(&b);
}
END_TEST

/* on_tick runs after each step with the step's tick. */
START_TEST(tick_counts)
{
    rules_box b;
    rules_box_must(&b, "function on_tick(game, tick)\n"
                       "  game.state.n = (game.state.n or 0) + 1\n"
                       "  game.state.last = tick\n"
                       "  game.state.clock = mink.clock()\n"
                       "end\n",
                   true, NULL);
    rules_box_step(&b, 30);
    ck_assert_double_eq(rules_box_number(&b, "n"), 30);
    ck_assert_double_eq(rules_box_number(&b, "last"), 30);
    ck_assert_double_eq_tol(rules_box_number(&b, "clock"), 0.5, 1e-6);
    ck_assert_uint_eq(rules_box_hook(&b, RUL_HOOK_TICK).calls, 30);
    ck_assert_uint_eq(rules_box_hook(&b, RUL_HOOK_TICK).errors, 0);
    rules_box_close(&b);
}
END_TEST

START_TEST(missing_file_named)
{
    rules_box b;
    rul_config cfg = {.script = "/nonexistent/game.lua"};
    mk_error err = {0};
    ck_assert_ptr_null(rules_box_open(&b, NULL, true, &cfg, &err));
    ck_assert_str_eq(err.message, "/nonexistent/game.lua: No such file or directory");
    sim_world_free(b.w);
}
END_TEST

START_TEST(syntax_error_names_file_and_line)
{
    rules_box_refused("function on_tick(game)\n  x = = 1\nend\n",
                      "test.lua:2: unexpected symbol near '='");
    rules_box_refused("local a = 1\nlocal b = nil + a\n",
                      "test.lua:2: attempt to perform arithmetic on a nil value");
}
END_TEST

/* What changes the world or the game may not run at the top level, which runs again at every
 * reload. */
START_TEST(top_level_changes_refused)
{
    rules_box_refused("mink.spawn({shape = {type = 'circle', radius = 1}, pos = {0, 0}})\n",
                      "mink.spawn: not at the script's top level");
    rules_box_refused("x = math.random()\n", "math.random: not at the script's top level");
    rules_box_refused("mink.after(1, 'print')\n", "mink.after: not at the script's top level");
}
END_TEST

/* Players: joined with their fields and a data table, refused with the script's reason, sent
 * to, leaving; actions answered or refused. */
START_TEST(players_and_actions)
{
    rules_box b;
    rules_box_must(&b, "function on_join(game, p)\n"
                       "  if p.name == 'mallory' then return false, 'no cheaters' end\n"
                       "  p.data.hp = 100\n"
                       "  game.send(p, 'welcome', {id = p.id, role = p.role})\n"
                       "end\n"
                       "function on_action(game, p, name, data)\n"
                       "  if name == 'taunt' then return 'not now' end\n"
                       "  if name ~= 'hit' then return nil, 'unknown action ' .. name end\n"
                       "  p.data.hp = p.data.hp - data.damage\n"
                       "  if p.data.hp < 0 then return false, 'already down' end\n"
                       "end\n"
                       "function on_leave(game, p)\n"
                       "  game.state.left = p.name .. ' with ' .. p.data.hp\n"
                       "  game.state.count = #game.players()\n"
                       "end\n",
                   true, NULL);
    mk_error err;
    rul_player ann = {.id = 3, .name = "ann", .user = "u-ann", .role = "admin"};
    rul_player mal = {.id = 4, .name = "mallory"};
    ck_assert_int_eq(rul_join(b.rt, &ann, &err), 0);
    ck_assert_int_eq(b.sent, 1);
    ck_assert_str_eq(b.last_sent, "3 welcome {\"id\":3,\"role\":\"admin\"}");
    ck_assert_int_eq(rul_join(b.rt, &mal, &err), -1);
    ck_assert_str_eq(err.message, "no cheaters");
    ck_assert_int_eq(rul_join(b.rt, &ann, &err), -1);
    ck_assert_int_eq(rul_action(b.rt, 3, "hit", "{\"damage\":30}", 13, &err), 0);
    ck_assert_int_eq(rul_action(b.rt, 3, "heal", NULL, 0, &err), -1);
    ck_assert_str_eq(err.message, "unknown action heal");
    ck_assert_int_eq(rul_action(b.rt, 3, "taunt", "{}", 2, &err), -1);
    ck_assert_str_eq(err.message, "not now");
    ck_assert_int_eq(rul_action(b.rt, 4, "hit", "{\"damage\":1}", 12, &err), -1);
    ck_assert_str_eq(err.message, "not a player of this game");
    ck_assert_int_eq(rul_action(b.rt, 3, "hit", "{\"damage\":80}", 13, &err), -1);
    ck_assert_str_eq(err.message, "already down");
    rul_leave(b.rt, 3);
    char s[64];
    ck_assert_str_eq(rules_box_string(&b, "left", s, sizeof s), "ann with -10");
    ck_assert_double_eq(rules_box_number(&b, "count"), 1); /* on_leave runs before it goes */
    rul_stats st = rules_box_stats(&b);
    ck_assert_uint_eq(st.players, 0);
    rules_box_close(&b);
}
END_TEST

/* While a hook runs the runtime is busy (the world changes made then are the rules'), and a
 * host callback that calls back in is refused, not run inside the hook. */
START_TEST(host_callbacks_cannot_reenter)
{
    rules_box b;
    rules_box_must(&b, "function on_action(game, p) game.send(p, 'pong') end\n"
                       "function on_tick(game) game.state.ticks = (game.state.ticks or 0) + 1 "
                       "end\n",
                   true, NULL);
    rul_player p = {.id = 2, .name = "al"};
    mk_error err;
    ck_assert_int_eq(rul_join(b.rt, &p, &err), 0);
    ck_assert(!rul_busy(b.rt));
    b.reenter = true;
    ck_assert_int_eq(rul_action(b.rt, 2, "ping", "", 0, &err), 0);
    ck_assert(b.busy_in_send);
    ck_assert(!rul_busy(b.rt));
    ck_assert_str_eq(b.last_sent, "2 pong ");
    ck_assert_ptr_nonnull(strstr(b.log, "rul_tick called from inside a hook is refused"));
    ck_assert_uint_eq(rules_box_hook(&b, RUL_HOOK_TICK).calls, 0);
    rules_box_close(&b);
}
END_TEST

/* The step's events reach on_event as tables with the protocol's names and fields: a hit's
 * point, normal and speed, a sensor's sensor and body. */
START_TEST(events_reach_on_event)
{
    rules_box b;
    rules_box_must(&b, "function on_event(game, ev)\n"
                       "  local p = ev.point and string.format(' %g %g %g', ev.point[1], "
                       "ev.normal[2], ev.speed) or ''\n"
                       "  game.state.seen = (game.state.seen or '') .. string.format('%s %d %d "
                       "%d %d %d', ev.type, ev.a, ev.b or 0, ev.sensor or 0, ev.body or 0, "
                       "ev.tick) .. p .. ';'\n"
                       "end\n",
                   true, NULL);
    sim_event ev = {.type = SIM_EVENT_HIT, .tick = 12, .a = 5, .b = 9, .point = {1.5f, 2, 0},
                    .normal = {0, 1, 0}, .speed = 3.25f};
    rul_event(b.rt, &ev);
    ev.type = SIM_EVENT_SENSOR_BEGIN;
    rul_event(b.rt, &ev);
    ev.type = SIM_EVENT_CONTACT_END;
    rul_event(b.rt, &ev);
    char s[160];
    ck_assert_str_eq(rules_box_string(&b, "seen", s, sizeof s),
                     "hit 5 9 0 0 12 1.5 1 3.25;sensor_begin 5 9 5 9 12;contact_end 5 9 0 0 12;");
    rules_box_close(&b);
}
END_TEST

/* A script's event_types gives on_event those types alone; a reload with another list
 * gives it those; a list that is not one of names is refused at load, naming the entry. */
START_TEST(event_types_choose_the_events)
{
    rules_box b;
    const char *counter = "function on_event(game, ev)\n"
                          "  game.state.seen = (game.state.seen or '') .. ev.type .. ';'\n"
                          "end\n";
    char src[512];
    snprintf(src, sizeof src, "event_types = {'sensor_begin', 'joint_break'}\n%s", counter);
    rules_box_must(&b, src, true, NULL);
    sim_event ev = {.tick = 3, .a = 1, .b = 2};
    for (int t = 0; t < SIM_EVENT_COUNT; t++) {
        ev.type = (sim_event_type)t;
        rul_event(b.rt, &ev);
    }
    char s[160];
    ck_assert_str_eq(rules_box_string(&b, "seen", s, sizeof s), "sensor_begin;joint_break;");
    /* Reloaded without the list: every event again. */
    mk_error err = {0};
    ck_assert_int_eq(rul_reload(b.rt, counter, strlen(counter), &err), 0);
    for (int t = 0; t < SIM_EVENT_COUNT; t++) {
        ev.type = (sim_event_type)t;
        rul_event(b.rt, &ev);
    }
    ck_assert_str_eq(rules_box_string(&b, "seen", s, sizeof s),
                     "sensor_begin;joint_break;contact_begin;contact_end;hit;sensor_begin;"
                     "sensor_end;joint_break;");
    /* A bad list is refused by a reload, and the old script goes on. */
    const char *bad = "event_types = {'sensor_begin', 'goal'}\n";
    ck_assert_int_eq(rul_reload(b.rt, bad, strlen(bad), &err), -1);
    ck_assert_str_eq(err.message, "test.lua: event_types[2]: not an event type (contact_begin, "
                                  "contact_end, hit, sensor_begin, sensor_end or joint_break)");
    rules_box_close(&b);
    rules_box_refused("event_types = 'hit'\n",
                      "test.lua: event_types: an array of event type names, not a string");
    rules_box_refused("event_types = {'hit', 7}\n",
                      "test.lua: event_types[2]: not an event type (contact_begin, contact_end, "
                      "hit, sensor_begin, sensor_end or joint_break)");
}
END_TEST

/* body() reads what the world holds; set() gives a new velocity and spin, and moves a body (a
 * static one too); push() changes them by J/m and I^-1 (r x J): a 1 m box of density 1 has
 * m = 1 kg and I = m (w^2 + h^2) / 12 = 1/6 kg m^2, so J = (2, 0) N s at r = (0, 0.5) gives
 * v = (2, 0) m/s and w = -0.5 * 2 * 6 = -6 rad/s. */
START_TEST(velocities_and_impulses)
{
    rules_box b;
    rules_box_start(&b, "function on_start(game)\n"
                        "  local id = mink.spawn({shape = {type = 'box', half = {0.5, 0.5}}, "
                        "pos = {1, 2}})\n"
                        "  local wall = mink.spawn({shape = {type = 'box', half = {1, 1}}, "
                        "pos = {9, 9}, kind = 'static'})\n"
                        "  game.state.id = id\n"
                        "  assert(mink.push(id, {2, 0}, {1, 2.5}))\n"
                        "  local b = mink.body(id)\n"
                        "  game.state.v = b.vel[1]\n"
                        "  game.state.w = b.w\n"
                        "  game.state.kind = b.kind .. '/' .. mink.body(wall).kind\n"
                        "  local ok, e = mink.set(wall, {vel = {1, 0}})\n"
                        "  game.state.static = e\n"
                        "  assert(mink.set(id, {vel = {0, 3}, w = 0.5}))\n"
                        "  assert(mink.set(id, {pos = {4, 5}, angle = 0.25}))\n"
                        "  game.state.teleport = mink.body(id).angle\n"
                        "  assert(mink.set(wall, {pos = {9, 12}}))\n"
                        "  game.state.wall = mink.body(wall).pos[2]\n"
                        "  local ok3, e3 = mink.push(wall, {1, 0})\n"
                        "  game.state.push_static = e3\n"
                        "  local x, y = mink.pos(id)\n"
                        "  local vx, vy = mink.vel(id)\n"
                        "  game.state.pv = x .. ' ' .. y .. ' ' .. vx .. ' ' .. vy .. ' ' .. "
                        "select('#', mink.pos(999))\n"
                        "end\n",
                    true, NULL);
    ck_assert_double_eq_tol(rules_box_number(&b, "v"), 2.0, 1e-6);
    ck_assert_double_eq_tol(rules_box_number(&b, "w"), -6.0, 1e-5);
    char s[256];
    ck_assert_str_eq(rules_box_string(&b, "kind", s, sizeof s), "dynamic/static");
    ck_assert_str_eq(rules_box_string(&b, "static", s, sizeof s), "mink.set: body 2 is static");
    ck_assert_double_eq_tol(rules_box_number(&b, "teleport"), 0.25, 1e-7);
    ck_assert_double_eq(rules_box_number(&b, "wall"), 12);
    ck_assert_ptr_nonnull(strstr(rules_box_string(&b, "push_static", s, sizeof s), "static"));
    ck_assert_str_eq(rules_box_string(&b, "pv", s, sizeof s), "4.0 5.0 0.0 3.0 0");
    const sim_body *body = sim_world_get(b.w, (sim_id)rules_box_number(&b, "id"));
    ck_assert_float_eq(body->vel.x, 0.0f);
    ck_assert_float_eq(body->vel.y, 3.0f);
    ck_assert_float_eq(body->w, 0.5f);
    /* The step moves it as it moves any body at that velocity: 3 m/s for 1/60 s. */
    rules_box_step(&b, 1);
    ck_assert_float_eq_tol(body->pos.y, 5.0f + 3.0f / 60.0f, 1e-6f);
    rules_box_close(&b);
}
END_TEST

/* An explosion of 6 N s over 4 m: a 1 kg body 1 m away gets 6 (1 - 1/4) = 4.5 N s, one 3 m
 * away 6 (1 - 3/4) = 1.5, away from the centre; a static body and one beyond are not moved;
 * a second one that ignores the near body pushes the far one alone, one for characters none,
 * one for category 2 none. */
START_TEST(explosion_falls_off)
{
    rules_box b;
    rules_box_start(&b, "function on_start(game)\n"
                        "  local box = {type = 'box', half = {0.5, 0.5}}\n"
                        "  local near = mink.spawn({shape = box, pos = {1, 0}})\n"
                        "  local far = mink.spawn({shape = box, pos = {0, -3}})\n"
                        "  local out = mink.spawn({shape = box, pos = {20, 0}})\n"
                        "  mink.spawn({shape = box, pos = {-1, 0}, kind = 'static'})\n"
                        "  game.state.pushed = mink.explode({0, 0}, 4, 6)\n"

                        "  game.state.near = mink.body(near).vel[1]\n"
                        "  game.state.far = mink.body(far).vel[2]\n"
                        "  game.state.out = mink.body(out).vel[1]\n"
                        "  game.state.others = mink.explode({0, 0}, 4, 6, {ignore = {near}})\n"
                        "  game.state.none = mink.explode({0, 0}, 4, 6, {kinds = {'character'}})\n"
                        "  game.state.masked = mink.explode({0, 0}, 4, 6, {mask = 2})\n"
                        "  game.state.far2 = mink.body(far).vel[2]\n"
                        "end\n",
                    true, NULL);
    ck_assert_double_eq(rules_box_number(&b, "pushed"), 2);
    ck_assert_double_eq(rules_box_number(&b, "others"), 1); /* the far one only */
    ck_assert_double_eq(rules_box_number(&b, "none"), 0);
    ck_assert_double_eq(rules_box_number(&b, "masked"), 0); /* all of category 1 */
    ck_assert_double_eq_tol(rules_box_number(&b, "far2"), -3.0, 1e-5);
    ck_assert_double_eq_tol(rules_box_number(&b, "near"), 4.5, 1e-5);
    ck_assert_double_eq_tol(rules_box_number(&b, "far"), -1.5, 1e-5);
    ck_assert_double_eq(rules_box_number(&b, "out"), 0);
    rules_box_close(&b);
}
END_TEST

/* A ray down onto a box whose top is at y = 1 hits it at 1, a fraction (10 - 1) / 20 of the
 * way; a shape cast and an overlap find it too; bodies() lists by filter. */
START_TEST(queries)
{
    rules_box b;
    rules_box_start(&b, "function on_start(game)\n"
                        "  local id = mink.spawn({shape = {type = 'box', half = {2, 1}}, pos = "
                        "{0, 0}, kind = 'static', tag = 'floor'})\n"
                        "  mink.spawn({shape = {type = 'circle', radius = 0.5}, pos = {30, 0}, "
                        "tag = 'ball'})\n"
                        "  local hits = mink.raycast({0, 10}, {0, -10})\n"
                        "  game.state.n = #hits\n"
                        "  game.state.y = hits[1].point[2]\n"
                        "  game.state.f = hits[1].fraction\n"
                        "  game.state.same = hits[1].id == id\n"
                        "  local c = mink.cast({shape = {type = 'circle', radius = 0.5}, pos = "
                        "{0, 5}}, {0, -5})\n"
                        "  game.state.cast = c.point[2]\n"
                        "  game.state.over = #mink.overlap({shape = {type = 'circle', radius = "
                        "1}, pos = {1.5, 1.5}})\n"
                        "  game.state.none = #mink.raycast({0, 10}, {0, -10}, {ignore = {id}})\n"
                        "  game.state.balls = #mink.bodies({tag = 'ball'})\n"
                        "  game.state.all = #mink.bodies()\n"
                        "  local ok, e = mink.raycast({0, 1}, {0, 2}, {at_tick = 5})\n"
                        "  game.state.future = e\n"
                        "end\n",
                    true, NULL);
    ck_assert_double_eq(rules_box_number(&b, "n"), 1);
    ck_assert_double_eq_tol(rules_box_number(&b, "y"), 1.0, 1e-6);
    ck_assert_double_eq_tol(rules_box_number(&b, "f"), 9.0 / 20.0, 1e-6);
    ck_assert_double_eq_tol(rules_box_number(&b, "cast"), 1.0, 1e-3);
    ck_assert_double_eq(rules_box_number(&b, "over"), 1);
    ck_assert_double_eq(rules_box_number(&b, "none"), 0);
    ck_assert_double_eq(rules_box_number(&b, "balls"), 1);
    ck_assert_double_eq(rules_box_number(&b, "all"), 2);
    char s[128];
    ck_assert_str_eq(rules_box_string(&b, "future", s, sizeof s),
                     "at_tick: 5 is outside the history (ticks 0 to 0)");
    rules_box_close(&b);
}
END_TEST

/* pairs walks keys sorted (numbers, then strings by bytes, then booleans) whatever the order
 * they came in; next follows the same order; table.sort keeps equal elements in order. */
START_TEST(deterministic_iteration)
{
    rules_box b;
    rules_box_start(&b, "function on_start(game)\n"
                        "  local t = {zeta = 1, alpha = 2, [10] = 3, [2] = 4, [true] = 5, "
                        "[-1.5] = 6, Beta = 7}\n"
                        "  local keys = {}\n"
                        "  for k, v in pairs(t) do keys[#keys + 1] = tostring(k) end\n"
                        "  game.state.pairs = table.concat(keys, ',')\n"
                        "  local k, n = next(t), {}\n"
                        "  while k ~= nil do n[#n + 1] = tostring(k) k = next(t, k) end\n"
                        "  game.state.next = table.concat(n, ',')\n"
                        "  local r = {}\n"
                        "  for i = 1, 300 do r[i] = {score = i % 3, id = i} end\n"
                        "  table.sort(r, function(a, b) return a.score < b.score end)\n"
                        "  local stable = true\n"
                        "  for i = 2, 300 do\n"
                        "    if r[i].score == r[i - 1].score and r[i].id < r[i - 1].id then "
                        "stable = false end\n"
                        "  end\n"
                        "  game.state.stable = stable and r[1].id == 3 and r[300].id == 299\n"
                        "  local s = {5, 3, 9, 1}\n"
                        "  table.sort(s)\n"
                        "  game.state.sorted = table.concat(s, ' ')\n"
                        "  local ok, e = pcall(pairs, {[{}] = 1})\n"
                        "  game.state.tablekey = e\n"
                        "end\n",
                    true, NULL);
    char s[256];
    ck_assert_str_eq(rules_box_string(&b, "pairs", s, sizeof s),
                     "-1.5,2,10,Beta,alpha,zeta,true");
    ck_assert_str_eq(rules_box_string(&b, "next", s, sizeof s),
                     "-1.5,2,10,Beta,alpha,zeta,true");
    ck_assert_str_eq(rules_box_string(&b, "sorted", s, sizeof s), "1 3 5 9");
    cJSON *j = rules_box_save(&b);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "state"), "stable")));
    cJSON_Delete(j);
    ck_assert_ptr_nonnull(strstr(rules_box_string(&b, "tablekey", s, sizeof s),
                                 "a key that is a table has no order"));
    rules_box_close(&b);
}
END_TEST

/* Timers fire at the tick they name, with a copy of their data; every repeats; cancel stops. */
START_TEST(timers)
{
    rules_box b;
    rules_box_start(&b, "function on_start(game)\n"
                        "  local data = {n = 1}\n"
                        "  mink.after(3, 'once', data)\n"
                        "  data.n = 99\n"
                        "  game.state.rep = mink.every(2, 'again')\n"
                        "  game.state.log = ''\n"
                        "end\n"
                        "function once(game, data, id)\n"
                        "  game.state.log = game.state.log .. 'once' .. data.n .. '@' .. "
                        "mink.tick() .. ' '\n"
                        "end\n"
                        "function again(game, data, id)\n"
                        "  game.state.log = game.state.log .. 'again@' .. mink.tick() .. ' '\n"
                        "  if mink.tick() >= 6 then mink.cancel(id) end\n"
                        "end\n",
                    true, NULL);
    rules_box_step(&b, 10);
    char s[128];
    ck_assert_str_eq(rules_box_string(&b, "log", s, sizeof s),
                     "again@2 once1@3 again@4 again@6 ");
    rul_stats st = rules_box_stats(&b);
    ck_assert_uint_eq(st.timers, 0);
    ck_assert_uint_eq(st.hooks[RUL_HOOK_TIMER].calls, 4);
    rules_box_close(&b);
}
END_TEST

/* The example game of docs/RULES.md runs: it spawns its 20 crates and its pit, takes a player,
 * and a "fire" straight down onto the first crate (x = -13.5, its top at y = 10.5) hits it. */
START_TEST(docs_example_runs)
{
    mk_error err;
    size_t len;
    char *doc = wio_read_file(MINK_SOURCE_DIR "/docs/RULES.md", &len, &err);
    ck_assert_ptr_nonnull(doc);
    char *start = strstr(doc, "```lua\n");
    ck_assert_ptr_nonnull(start);
    start += 7;
    char *end = strstr(start, "```");
    ck_assert_ptr_nonnull(end);
    *end = '\0';
    rules_box b;
    rul_config cfg = {.script = "RULES.md"};
    rules_box_must(&b, start, false, &cfg);
    free(doc);
    rul_start(b.rt);
    ck_assert_uint_eq(sim_world_body_count(b.w), 21);
    rul_player p = {.id = 5, .name = "ann"};
    ck_assert_int_eq(rul_join(b.rt, &p, &err), 0);
    ck_assert_str_eq(b.last_sent, "5 welcome {\"round\":1}");
    const char *fire = "{\"from\":[-13.5,20],\"to\":[-13.5,0]}";
    ck_assert_int_eq(rul_action(b.rt, 5, "fire", fire, strlen(fire), &err), 0);
    ck_assert_int_eq(rul_action(b.rt, 5, "jump", NULL, 0, &err), -1);
    ck_assert_str_eq(err.message, "unknown action");
    cJSON *j = rules_box_save(&b);
    cJSON *hit = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "state"), "last_hit");
    /* {[1] = 5}: the first crate, hit by player 5 (keys 1..n make an array). */
    ck_assert(cJSON_IsArray(hit));
    ck_assert_int_eq(cJSON_GetArraySize(hit), 1);
    ck_assert_int_eq(cJSON_GetArrayItem(hit, 0)->valueint, 5);
    cJSON_Delete(j);
    rules_box_step(&b, 10);
    for (int h = 0; h < RUL_HOOK_COUNT; h++)
        ck_assert_uint_eq(rules_box_hook(&b, h).errors, 0);
    rules_box_close(&b);
}
END_TEST

MINK_CHECK_TESTS("rules", 60, docs_example_runs, spawns_on_start,
                 spawn_refused_with_the_protocols_message, tick_counts, missing_file_named,
                 host_callbacks_cannot_reenter, syntax_error_names_file_and_line,
                 top_level_changes_refused, players_and_actions, events_reach_on_event,
                 event_types_choose_the_events, velocities_and_impulses, explosion_falls_off,
                 queries, deterministic_iteration, timers)
