/* Integration: the 2D ball game of examples/ball, played by bots over a real server. A kick is
 * an impulse of 12 N s on a ball of radius 0.5 m and density 1 (m = pi/4 kg): 15.3 m/s along
 * the kick, no gravity, so a kick along +x from the centre crosses the right goal line 20 m away
 * in 1.3 s and scores once for the left; a kick at the centre of the upper right post, at
 * (20, 3.3), meets the post head on 0.8 m before it (the ball's and the post's radii) with the
 * ball's right edge at x = 19.7, short of the goal's sensor (from x = 20.1), and bounces back:
 * no goal. */
#include "check_main.h"
#include "game_fixture.h"

#define AVATAR_HELLO                                                                           \
    "{\"type\":\"hello\",\"protocol\":1,\"name\":\"ann\",\"avatar\":{\"shape\":{\"type\":"    \
    "\"circle\",\"radius\":0.5},\"pos\":[0,-2]}}"

static h_server srv;

static const game_files BALL = {GAME_PATH("ball/arena.json"), GAME_PATH("ball/ball.lua")};

/* Joins a bot and returns the ball's id from the game's welcome (its side in *side). */
static double join_bot(h_conn *c, double *client)
{
    *client = game_join(c, &srv, AVATAR_HELLO);
    cJSON *ev;
    const cJSON *data = game_event_data(c, "welcome", 3000, &ev);
    ck_assert_str_eq(h_str(data, "side"), "left");
    double ball = h_num(data, "ball");
    cJSON_Delete(ev);
    return ball;
}

/* The next state that shows body `id`: its position and velocity. */
static void ball_state(h_conn *c, double id, double pos[2], double vel[2])
{
    long long end = h_now_ms() + 3000;
    while (h_now_ms() < end) {
        cJSON *s = h_recv_type(c, "state", 1000);
        const cJSON *b = s ? h_state_body(s, id) : NULL;
        if (b) {
            pos[0] = h_vec(b, "pos", 0);
            pos[1] = h_vec(b, "pos", 1);
            vel[0] = h_vec(b, "vel", 0);
            vel[1] = h_vec(b, "vel", 1);
            cJSON_Delete(s);
            return;
        }
        cJSON_Delete(s);
    }
    ck_abort_msg("no state showed the ball");
}

/* The game started, a bot joined (its client id in *client) and its first kick, along `dir`;
 * returns the ball's id. */
static double start_and_kick(h_conn *c, double *client, const char *dir)
{
    game_start(&srv, &BALL, NULL, NULL);
    double ball = join_bot(c, client);
    game_action_ok(c, 1, "kick", dir);
    return ball;
}

/* A bot joins and scores a goal. */
static void join_and_score(h_conn *c)
{
    double client;
    join_bot(c, &client);
    game_action_ok(c, 1, "kick", "{\"dir\":[1,0]}");
    cJSON *ev = game_event(c, "goal", 3000);
    ck_assert_ptr_nonnull(ev);
    cJSON_Delete(ev);
}

/* After a restart on the save of join_and_score's game: the game's state was restored, and
 * the next player is told 1 - 0. */
static void score_kept(h_conn *c)
{
    ck_assert(h_server_log_has(&srv, "the game's state restored"));
    game_join(c, &srv, AVATAR_HELLO);
    cJSON *ev;
    const cJSON *data = game_event_data(c, "welcome", 3000, &ev);
    const cJSON *score = cJSON_GetObjectItemCaseSensitive(data, "score");
    ck_assert_double_eq(h_num(score, "left"), 1);
    ck_assert_double_eq(h_num(score, "right"), 0);
    cJSON_Delete(ev);
}

/* A goal, a kick off the post and a refused kick. */
static void play_recorded(h_conn *c)
{
    join_and_score(c);
    game_action_ok(c, 2, "kick", "{\"dir\":[20,3.3]}");
    cJSON_Delete(game_action(c, 3, "kick", NULL));
    h_sleep_ms(200);
}

/* A kick along +x scores once for the left, by the kicker; the ball is back at rest at the
 * centre and no second goal follows. */
START_TEST(goal_counted_once)
{
    h_conn c;
    double client;
    double ball = start_and_kick(&c, &client, "{\"dir\":[1,0]}");
    cJSON *ev;
    const cJSON *goal = game_event_data(&c, "goal", 3000, &ev);
    ck_assert_str_eq(h_str(goal, "side"), "left");
    const cJSON *score = cJSON_GetObjectItemCaseSensitive(goal, "score");
    ck_assert_double_eq(h_num(score, "left"), 1);
    ck_assert_double_eq(h_num(score, "right"), 0);
    ck_assert_double_eq(h_num(goal, "by"), client);
    cJSON_Delete(ev);
    double pos[2], vel[2];
    ball_state(&c, ball, pos, vel);
    ck_assert_double_eq_tol(pos[0], 0, 1e-3);
    ck_assert_double_eq_tol(pos[1], 0, 1e-3);
    ck_assert_double_eq_tol(vel[0], 0, 1e-3);
    ck_assert_ptr_null(game_event(&c, "goal", 2000));
    game_stop(&srv, &c);
}
END_TEST

/* A kick at the post's centre bounces back off it: no goal, and two seconds after the kick
 * the ball moves back towards the centre (vx < 0), short of the goal line. */
START_TEST(no_goal_off_the_post)
{
    h_conn c;
    double client;
    double ball = start_and_kick(&c, &client, "{\"dir\":[20,3.3]}");
    long long kicked = h_now_ms();
    ck_assert_ptr_null(game_event(&c, "goal", 2000));
    double pos[2], vel[2];
    ball_state(&c, ball, pos, vel);
    ck_assert_msg(h_now_ms() - kicked < 2600, "the state came late");
    ck_assert_double_lt(vel[0], -1.0);
    ck_assert_double_lt(pos[0], 19.2);
    ck_assert_double_gt(pos[0], 5.0);
    game_stop(&srv, &c);
}
END_TEST

/* Refusals: a kick from too far, a kick without a direction, an unknown action. */
START_TEST(refused_actions)
{
    game_start(&srv, &BALL, NULL, NULL);
    h_conn c;
    game_join(&c, &srv, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"far\",\"avatar\":{"
                        "\"shape\":{\"type\":\"circle\",\"radius\":0.5},\"pos\":[-10,5]}}");
    const char *cases[][3] = {
        {"kick", "{\"dir\":[1,0]}", "too far from the ball"},
        {"kick", "{\"to\":1}", "kick needs dir = {x, y}"},
        {"dance", NULL, "unknown action dance"},
    };
    for (int i = 0; i < 3; i++) {
        cJSON *m = game_action(&c, i + 1, cases[i][0], cases[i][1]);
        ck_assert_str_eq(h_str(m, "type"), "error");
        ck_assert_str_eq(h_str(m, "message"), cases[i][2]);
        cJSON_Delete(m);
    }
    game_stop(&srv, &c);
}
END_TEST

/* Five goals end the round: round_over with the left's five, then a new round at 0 - 0. */
START_TEST(round_ends_after_five_goals)
{
    game_start(&srv, &BALL, NULL, NULL);
    h_conn c;
    double client;
    join_bot(&c, &client);
    for (int g = 1; g <= 5; g++) {
        game_action_ok(&c, g, "kick", "{\"dir\":[1,0]}");
        cJSON *ev;
        const cJSON *goal = game_event_data(&c, "goal", 3000, &ev);
        ck_assert_double_eq(h_num(cJSON_GetObjectItemCaseSensitive(goal, "score"), "left"), g);
        cJSON_Delete(ev);
    }
    cJSON *ev;
    const cJSON *over = game_event_data(&c, "round_over", 1000, &ev);
    ck_assert_double_eq(h_num(over, "round"), 1);
    ck_assert_double_eq(h_num(cJSON_GetObjectItemCaseSensitive(over, "score"), "left"), 5);
    cJSON_Delete(ev);
    game_action_ok(&c, 6, "kick", "{\"dir\":[1,0]}");
    const cJSON *goal = game_event_data(&c, "goal", 3000, &ev);
    ck_assert_double_eq(h_num(cJSON_GetObjectItemCaseSensitive(goal, "score"), "left"), 1);
    cJSON_Delete(ev);
    game_stop(&srv, &c);
}
END_TEST

/* A kill -9 after a goal has been flushed keeps the score: the restarted game says 1 - 0 to
 * the next player, not 0 - 0 and not 2 - 0. */
START_TEST(kill_keeps_the_score)
{
    char save[] = "/tmp/mink_ball_save_XXXXXX";
    game_kill_and_restart(&srv, &BALL, save, join_and_score, score_kept);
}
END_TEST

/* A recorded game (a goal, a kick off the post, a refused kick) replays to the recorded hash
 * with the script run again, on one worker and on three (--workers changes nothing a script
 * sees), and without it (the rules' changes read from the recording). */
START_TEST(replay_same_hash)
{
    char rec[] = "/tmp/mink_ball_rec_XXXXXX";
    game_record_and_replay(&srv, &BALL, rec, play_recorded);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *s = suite_create("game_ball");
    MINK_TCASE(s, "ball", 60, goal_counted_once, no_goal_off_the_post, refused_actions,
               round_ends_after_five_goals, kill_keeps_the_score, replay_same_hash);
    return s;
}

MINK_CHECK_MAIN(make_suite)
