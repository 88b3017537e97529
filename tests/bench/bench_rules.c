/* The cost of a game's rules (mink_rules) in the tick, per tick and per call:
 *   rules tick 1k    an on_tick that reads the velocity of 1,000 moving bodies and sets a new
 *                    one on each (mink.vel, mink.set), timed per tick as the server calls it
 *                    (rul_tick after the step; the step itself is not in the time);
 *   rules events 10k an on_event that counts its events by type, at 10,000 events a second
 *                    (167 a tick at 60 Hz), per tick and per event;
 *   rules action     an action's way through the server without its socket: the line parsed
 *                    (proto_parse), on_action run (it reads its data, changes game.state and
 *                    sends one message back), the message and the `done` written;
 *   game ball, game range  the example games (examples/) with 2,000 bodies and 100 players,
 *                    each sending its game's action once a second: the script's share of the
 *                    tick (the step, then the rules' events, timers and on_tick, and the
 *                    actions of the tick). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "mink_rules.h"
#include "mink_world_io.h"

#define RULES_BODIES 1000
#define RULES_EVENTS_PER_TICK 167 /* 10,000 a second at 60 Hz */
#define RULES_ACTIONS 20000

static const char SCRIPT[] =
    "local ids\n"
    "function on_start(game)\n"
    "  ids = mink.bodies({tag = 'crate'})\n"
    "  game.state.hits = {}\n"
    "end\n"
    "function on_tick(game, tick)\n"
    "  for i = 1, #ids do\n"
    "    local id = ids[i]\n"
    "    local vx, vy = mink.vel(id)\n"
    "    mink.set(id, {vel = {vx * 0.5 + 0.1, vy}})\n"
    "  end\n"
    "end\n"
    "function on_event(game, ev)\n"
    "  local h = game.state.hits\n"
    "  h[ev.type] = (h[ev.type] or 0) + 1\n"
    "end\n"
    "function on_action(game, p, name, data)\n"
    "  p.data.shots = (p.data.shots or 0) + 1\n"
    "  game.send(p, 'shot', {n = p.data.shots, at = data.at})\n"
    "end\n";

static proto_buf reply;

static void on_send(void *ctx, uint32_t player, const char *name, const char *data, size_t len)
{
    (void)ctx;
    (void)player;
    proto_write_game_event(&reply, name, data, len);
}

static rul_runtime *make(sim_world **w)
{
    sim_config cfg = sim_config_default();
    cfg.gravity = mk_v2(0, 0);
    *w = sim_world_new(&cfg);
    for (int i = 0; *w && i < RULES_BODIES; i++) {
        sim_body_def d;
        memset(&d, 0, sizeof d);
        d.shape.type = COL_SHAPE_BOX;
        d.shape.half = mk_v2(0.4f, 0.4f);
        d.pos = mk_v2((float)(i % 40) * 2.0f, (float)(i / 40) * 2.0f);
        d.kind = SIM_DYNAMIC;
        d.density = 1.0f;
        snprintf(d.tag, sizeof d.tag, "crate");
        if (sim_world_add(*w, &d, 0) == 0)
            break;
    }
    rul_config rc = {.script = "bench.lua", .source = SCRIPT, .source_len = sizeof SCRIPT - 1};
    rul_host host = {.send = on_send};
    mk_error err = {0};
    rul_runtime *rt = *w ? rul_new(&rc, *w, &host, &err) : NULL;
    if (!rt) {
        fprintf(stderr, "mink-bench: the rules scene did not start: %s\n", err.message);
        exit(1);
    }
    rul_start(rt);
    return rt;
}

static void row_of(bench_row *r, uint64_t *ns, size_t n, double per)
{
    bench_step_stats s = bench_step_stats_of(ns, n);
    r->step_mean_ms = s.mean_ms;
    r->step_p99_ms = s.p99_ms;
    r->ns_op = s.mean_ms * 1e6 / per;
}

/* An example game: its scene and script, `extra` more dynamic bodies scattered over its
 * ground (as balls and players' avatars would be), 100 players with an avatar each. */
#define GAME_PLAYERS 100
#define GAME_BODIES 2000

static void game_row(const bench_opts *o, const char *name, bool three)
{
    char scene[512], script[512];
    snprintf(scene, sizeof scene, "%s/examples/%s/%s.json", MINK_SOURCE_DIR, name,
             three ? "range" : "arena");
    snprintf(script, sizeof script, "%s/examples/%s/%s.lua", MINK_SOURCE_DIR, name, name);
    sim_config cfg = sim_config_default();
    cfg.events = true;
    cfg.sleep = !o->no_sleep;
    cfg.workers = o->workers;
    mk_error err = {0};
    sim_world *w = wio_scene_load_file(scene, &cfg, &err);
    rul_config rc = {.script = script};
    rul_runtime *rt = w && sim_world_set_history(w, 60) ? rul_new(&rc, w, NULL, &err) : NULL;
    if (!rt) {
        fprintf(stderr, "mink-bench: game %s did not start: %s\n", name, err.message);
        exit(1);
    }
    rul_start(rt);
    bench_rng rng = {0x9e3779b97f4a7c15ull};
    sim_id avatars[GAME_PLAYERS];
    for (int i = 0; sim_world_body_count(w) < GAME_BODIES + 20; i++) {
        sim_body_def d;
        memset(&d, 0, sizeof d);
        d.kind = SIM_DYNAMIC;
        d.density = 1.0f;
        d.restitution = 0.5f;
        float x = (float)bench_rng_range(&rng, -18, 18), y = (float)bench_rng_range(&rng, -10, 10);
        if (three) {
            d.d3.shape.type = COL_SHAPE3_SPHERE;
            d.d3.shape.radius = 0.2f;
            d.d3.pos = mk_v3(x, y * 0.5f, -4.0f - (float)bench_rng_range(&rng, 0, 3));
            d.d3.rot = (mk_quat){0, 0, 0, 1};
            d.d3.vel = mk_v3((float)bench_rng_range(&rng, -2, 2), 0, 0);
        } else {
            d.shape.type = COL_SHAPE_CIRCLE;
            d.shape.radius = i < GAME_PLAYERS ? 0.5f : 0.2f;
            d.pos = mk_v2(x, y);
            d.vel = mk_v2((float)bench_rng_range(&rng, -2, 2), (float)bench_rng_range(&rng, -2, 2));
        }
        sim_id id = sim_world_add(w, &d, i < GAME_PLAYERS ? (uint32_t)(i + 1) : 0);
        if (i < GAME_PLAYERS)
            avatars[i] = id;
    }
    for (int i = 0; i < GAME_PLAYERS; i++) {
        char pname[16];
        snprintf(pname, sizeof pname, "bot%d", i);
        rul_player p = {.id = (uint32_t)(i + 1), .name = pname, .avatar = three ? 0 : avatars[i]};
        rul_join(rt, &p, &err);
    }
    int ticks = o->steps;
    uint64_t *step_ns = bench_xcalloc((size_t)ticks, sizeof *step_ns);
    uint64_t *rules_ns = bench_xcalloc((size_t)ticks, sizeof *rules_ns);
    uint64_t actions = 0, refused = 0;
    char data[160];
    for (int t = 0; t < ticks; t++) {
        uint64_t t0 = bench_now_ns();
        sim_world_step(w);
        uint64_t t1 = bench_now_ns();
        rul_after_step(rt);
        sim_world_clear_events(w);
        uint64_t tick = sim_world_tick(w);
        for (int i = t % 60; i < GAME_PLAYERS; i += 60) { /* each player once a second */
            if (three)
                snprintf(data, sizeof data, "{\"tick\":%llu,\"from\":[%d,0,0],\"dir\":[0,0,-1]}",
                         (unsigned long long)(tick > 6 ? tick - 6 : tick), i % 24 - 12);
            else
                snprintf(data, sizeof data, "{\"dir\":[1,%d]}", i % 3 - 1);
            actions++;
            refused += rul_action(rt, (uint32_t)(i + 1), three ? "fire" : "kick", data,
                                  strlen(data), &err) != 0;
        }
        uint64_t t2 = bench_now_ns();
        step_ns[t] = t1 - t0;
        rules_ns[t] = t2 - t1;
    }
    bench_step_stats step = bench_step_stats_of(step_ns, (size_t)ticks);
    bench_step_stats rules = bench_step_stats_of(rules_ns, (size_t)ticks);
    bench_row r;
    bench_row_init(&r, three ? "game range" : "game ball");
    r.bodies = (long)sim_world_body_count(w);
    r.step_mean_ms = step.mean_ms + rules.mean_ms;
    r.step_p99_ms = -1;
    bench_note(&r, "examples/%s with %d players (an avatar each) among %ld bodies, each player's "
               "%s once a second (%llu, %llu refused): the step %.3f ms, the rules %.3f ms "
               "(p99 %.3f): the script's share of the tick %.1f%%", name, GAME_PLAYERS, r.bodies,
               three ? "fire at the tick 100 ms back" : "kick", (unsigned long long)actions,
               (unsigned long long)refused, step.mean_ms, rules.mean_ms, rules.p99_ms,
               100.0 * rules.mean_ms / (step.mean_ms + rules.mean_ms));
    bench_row_print(&r);
    free(step_ns);
    free(rules_ns);
    rul_free(rt);
    sim_world_free(w);
}

void bench_scene_rules(const bench_opts *o)
{
    sim_world *w;
    rul_runtime *rt = make(&w);
    proto_buf_init(&reply);
    int ticks = o->steps;
    uint64_t *ns = bench_xcalloc((size_t)(ticks > RULES_ACTIONS ? ticks : RULES_ACTIONS),
                                 sizeof *ns);
    mk_error err = {0};
    rul_player p = {.id = 1, .name = "bench"};
    rul_join(rt, &p, &err);

    /* on_tick over 1,000 bodies: the step between ticks, outside the time. */
    bench_row r;
    bench_row_init(&r, "rules tick 1k");
    r.bodies = RULES_BODIES;
    for (int i = 0; i < ticks; i++) {
        sim_world_step(w);
        sim_world_clear_events(w);
        uint64_t t = bench_now_ns();
        rul_tick(rt);
        ns[i] = bench_now_ns() - t;
    }
    row_of(&r, ns, (size_t)ticks, RULES_BODIES);
    bench_note(&r, "on_tick: mink.vel and mink.set on each of 1,000 dynamic boxes; ms a tick, "
               "ns/op a body (the step not counted)");
    bench_row_print(&r);

    /* on_event, 167 events a tick. */
    bench_row_init(&r, "rules events 10k/s");
    r.bodies = RULES_BODIES;
    sim_event ev = {.type = SIM_EVENT_CONTACT_BEGIN, .a = 1, .b = 2};
    for (int i = 0; i < ticks; i++) {
        uint64_t t = bench_now_ns();
        for (int k = 0; k < RULES_EVENTS_PER_TICK; k++) {
            ev.type = (sim_event_type)(k % 5);
            ev.tick = (uint64_t)i;
            rul_event(rt, &ev);
        }
        ns[i] = bench_now_ns() - t;
    }
    row_of(&r, ns, (size_t)ticks, RULES_EVENTS_PER_TICK);
    bench_note(&r, "on_event counting by type, %d events a tick (10,000 a second at 60 Hz); ms "
               "a tick, ns/op an event", RULES_EVENTS_PER_TICK);
    bench_row_print(&r);

    /* An action's round trip, without its socket. */
    bench_row_init(&r, "rules action");
    r.bodies = 0;
    static proto_msg msg;
    const char line[] = "{\"type\":\"action\",\"req\":7,\"name\":\"fire\",\"data\":{\"at\":[1.5,"
                        "2,-3],\"tick\":120}}";
    for (int i = 0; i < RULES_ACTIONS; i++) {
        uint64_t t = bench_now_ns();
        proto_error perr;
        proto_buf_clear(&reply);
        if (proto_parse(line, sizeof line - 1, 2, &msg, &perr) == PROTO_OK &&
            rul_action(rt, 1, msg.u.action.name, msg.u.action.data, msg.u.action.data_len,
                       &err) == 0)
            proto_write_done(&reply, msg.req);
        ns[i] = bench_now_ns() - t;
    }
    row_of(&r, ns, RULES_ACTIONS, 1);
    r.step_mean_ms = r.step_p99_ms = -1; /* not a tick's */
    bench_note(&r, "an action line parsed, on_action run (reads its data, counts in p.data, "
               "sends one message), the message and `done` written; ns/op an action, no "
               "socket");
    bench_row_print(&r);
    free(ns);
    proto_buf_free(&reply);
    rul_free(rt);
    sim_world_free(w);
    game_row(o, "ball", false);
    game_row(o, "range", true);
}
