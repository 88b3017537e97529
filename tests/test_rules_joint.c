/* mink_rules' joints: `mink.joint` makes a pendulum whose bob keeps its length from the pivot
 * and swings to the other side in a quarter of the pendulum's period (the exact formula for a
 * 90° swing); a spec the protocol refuses comes back naming the field; `mink.unjoint` removes
 * the joint and the bob falls freely; a joint pulled past its break_force reaches on_event. */
#include <math.h>

#include "check_main.h"
#include "rules_fixture.h"

/* A bob at (2, 0) on a revolute joint at the origin, released at rest under g = 9.81 m/s²
 * (sim_config_default's gravity). */
#define PENDULUM                                                                             \
    "function on_start(game)\n"                                                              \
    "  game.state.bob = assert(mink.spawn({shape = {type = 'circle', radius = 0.1}, "        \
    "pos = {2, 0}}))\n"                                                                      \
    "  game.state.joint = assert(mink.joint({type = 'revolute', a = game.state.bob, "        \
    "anchor = {0, 0}}))\n"                                                                   \
    "end\n"                                                                                  \
    "function on_tick(game, tick)\n"                                                         \
    "  if CUT and tick == 1 then\n"                                                          \
    "    game.state.cut = mink.unjoint(game.state.joint)\n"                                  \
    "    game.state.again = mink.unjoint(game.state.joint)\n"                                \
    "  end\n"                                                                                \
    "end\n"

/* The pendulum swings: the bob stays 2 m from the pivot within 1%, and first crosses below
 * the pivot after a quarter period T/4 = sqrt(L/g) K(sin 45°) = 0.4515 s × 1.8541 = 0.837 s
 * (the complete elliptic integral of the first kind for a 90° amplitude), 50.2 steps of
 * 1/60 s; within 3 steps. */
START_TEST(pendulum_swings)
{
    rules_box b;
    rules_box_start(&b, PENDULUM, false, NULL);
    sim_id bob = (sim_id)rules_box_number(&b, "bob");
    ck_assert_uint_eq(sim_world_joint_count(b.w), 1);
    int crossed = 0;
    float min_x = 2.0f;
    for (int i = 1; i <= 240; i++) {
        rules_box_step(&b, 1);
        const sim_body *body = sim_world_get(b.w, bob);
        float r = sqrtf(body->pos.x * body->pos.x + body->pos.y * body->pos.y);
        ck_assert_msg(fabsf(r - 2.0f) < 0.02f, "step %d: the bob is %f m from the pivot", i,
                      (double)r);
        if (!crossed && body->pos.x < 0.0f)
            crossed = i;
        min_x = fminf(min_x, body->pos.x);
    }
    ck_assert_int_ge(crossed, 47);
    ck_assert_int_le(crossed, 53);
    ck_assert_float_lt(min_x, -1.5f); /* it swung up the other side */
    rules_box_close(&b);
}
END_TEST

/* Each bad field is refused with the protocol's message, naming it after `spec.`. */
START_TEST(bad_specs_named)
{
    rules_box b;
    rules_box_start(&b,
                    "function on_start(game)\n"
                    "  local bob = assert(mink.spawn({shape = {type = 'circle', radius = 0.1}, "
                    "pos = {2, 0}}))\n"
                    "  local function why(spec) local id, e = mink.joint(spec) "
                    "assert(id == nil) return e end\n"
                    "  game.state.type = why({type = 'hinge', a = bob})\n"
                    "  game.state.a = why({type = 'revolute', a = 999})\n"
                    "  game.state.anchor = why({type = 'revolute', a = bob, anchor = {0}})\n"
                    "  game.state.limits = why({type = 'revolute', a = bob, limits = {1, -1}})\n"
                    "  game.state.break_force = why({type = 'revolute', a = bob, "
                    "break_force = -1})\n"
                    "  game.state.count = #mink.bodies()\n"
                    "end\n",
                    true, NULL);
    static const char *const fields[] = {"type", "a", "anchor", "limits", "break_force"};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        char e[256], want[64];
        rules_box_string(&b, fields[i], e, sizeof e);
        snprintf(want, sizeof want, "spec.%s", fields[i]);
        ck_assert_msg(strncmp(e, want, strlen(want)) == 0, "\"%s\" does not name %s", e, want);
    }
    ck_assert_uint_eq(sim_world_joint_count(b.w), 0);
    rules_box_close(&b);
}
END_TEST

/* mink.unjoint after the first step removes the joint (true), a second time finds none
 * (false); the bob, released at rest level with the pivot, has felt no pull from the joint (the
 * rod's tension is m v²/L, 0 at rest) and falls freely: x stays 2 m, y = -g t²/2 within the
 * first-order integrator's error, g dt t / 2 = 0.042 m after t = 31/60 s. */
START_TEST(unjoint_removes)
{
    rules_box b;
    rules_box_start(&b, "CUT = true\n" PENDULUM, false, NULL);
    sim_id bob = (sim_id)rules_box_number(&b, "bob");
    rules_box_step(&b, 1);
    cJSON *j = rules_box_save(&b);
    const cJSON *st = cJSON_GetObjectItem(j, "state");
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(st, "cut")));
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(st, "again")));
    cJSON_Delete(j);
    ck_assert_uint_eq(sim_world_joint_count(b.w), 0);
    rules_box_step(&b, 30);
    const sim_body *body = sim_world_get(b.w, bob);
    const float t = 31.0f / 60.0f;
    ck_assert_float_eq_tol(body->pos.x, 2.0f, 1e-3f);
    ck_assert_float_eq_tol(body->pos.y, -0.5f * 9.81f * t * t, 0.05f);
    rules_box_close(&b);
}
END_TEST

/* Two bobs of 1 kg (a 0.1 m circle of density 100/π kg/m²) hang at rest 1 m under their pivots:
 * each rod holds m g = 9.81 N. The one that breaks past 4.9 N breaks at the first step and
 * reaches on_event as {type = "joint_break", joint, tick = 1}; the one that breaks past 19.6 N
 * holds. */
START_TEST(break_reaches_on_event)
{
    rules_box b;
    rules_box_must(&b,
                   "local function hang(x, force)\n"
                   "  local bob = assert(mink.spawn({shape = {type = 'circle', radius = 0.1}, "
                   "pos = {x, -1}, density = 100 / math.pi}))\n"
                   "  return assert(mink.joint({type = 'revolute', a = bob, anchor = {x, 0}, "
                   "break_force = force}))\n"
                   "end\n"
                   "function on_start(game)\n"
                   "  game.state.weak = hang(0, 4.9)\n"
                   "  game.state.strong = hang(3, 19.6)\n"
                   "  game.state.breaks = 0\n"
                   "end\n"
                   "function on_event(game, ev)\n"
                   "  if ev.type ~= 'joint_break' then return end\n"
                   "  game.state.breaks = game.state.breaks + 1\n"
                   "  game.state.broke, game.state.tick = ev.joint, ev.tick\n"
                   "  game.state.gone = not mink.unjoint(ev.joint)\n"
                   "end\n",
                   false, NULL);
    sim_world_set_events(b.w, true, 1.0f);
    rul_start(b.rt);
    for (int i = 0; i < 60; i++) { /* as the server: the step, its events, then on_tick */
        sim_world_step(b.w);
        size_t n;
        const sim_event *ev = sim_world_events(b.w, &n);
        for (size_t k = 0; k < n; k++)
            rul_event(b.rt, &ev[k]);
        sim_world_clear_events(b.w);
        rul_tick(b.rt);
    }
    ck_assert_double_eq(rules_box_number(&b, "breaks"), 1);
    ck_assert_double_eq(rules_box_number(&b, "broke"), rules_box_number(&b, "weak"));
    ck_assert_double_eq(rules_box_number(&b, "tick"), 1);
    cJSON *j = rules_box_save(&b);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "state"), "gone")));
    cJSON_Delete(j);
    ck_assert_uint_eq(sim_world_joint_count(b.w), 1);
    ck_assert_ptr_nonnull(sim_world_get_joint(b.w, (sim_id)rules_box_number(&b, "strong")));
    rules_box_close(&b);
}
END_TEST

MINK_CHECK_TESTS("rules_joint", 60, pendulum_swings, bad_specs_named, unjoint_removes,
                 break_reaches_on_event)
