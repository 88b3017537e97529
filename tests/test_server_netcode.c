/* The real server and client for the netcode extensions: `subscribe {delta}` states read by
 * mink-client's world give the same bodies as compact states at the same ticks;
 * `subscribe {hash}` puts the world hash in the state every N ticks, the same for every
 * client; mink-client under a simulated 100 ms link, in tmux, moves its avatar on screen
 * before the server can have heard of the key; its f key drops a box, --record keeps what it
 * received and --replay shows it again without a server. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server_fixture.h"
#include "world.h"

/* Reads states into a client world until one of tick >= `tick` has been applied (none when
 * the world is there already); returns its tick (0 on a timeout). */
static uint64_t read_until(h_conn *c, cli_world *w, uint64_t tick)
{
    if (tick > 0 && w->tick >= tick)
        return w->tick;
    long long end = h_now_ms() + 5000;
    while (h_now_ms() < end) {
        cJSON *s = h_recv_type(c, "state", 2000);
        if (!s)
            return 0;
        if (!cli_world_apply(w, s)) {
            char *text = cJSON_PrintUnformatted(s);
            ck_abort_msg("a state the client cannot read: %s", text);
        }
        cJSON_Delete(s);
        if (w->tick >= tick)
            return w->tick;
    }
    return 0;
}

START_TEST(delta_states_match_compact_states)
{
    /* Every tick a state (60 Hz), so that both clients get the same ticks. */
    const char *args[] = {"--snapshot-hz", "60", NULL};
    start(args);
    h_conn a, b, c, d;
    join_kinematic(&a, 0.5, 0.5, 30, 5);
    join_kinematic(&b, 0.5, 0.5, 40, 5);
    join_kinematic(&c, 0.5, 0.5, 50, 5);
    join_kinematic(&d, 0.5, 0.5, 60, 5);
    ck_assert(h_send_line(&a, "{\"type\":\"subscribe\",\"delta\":true}"));
    ck_assert(h_send_line(&b, "{\"type\":\"subscribe\",\"compact\":true}"));
    ck_assert(h_send_line(&d, "{\"type\":\"subscribe\",\"compact\":true}"));
    /* Crates falling, sliding and turning on the ground, spawned by a third client (waiting
     * for `spawned` skips states, which a and b must all read). */
    for (int i = 0; i < 6; i++) {
        char body[160];
        snprintf(body, sizeof body,
                 "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.4]},\"pos\":[%d,%d],"
                 "\"vel\":[%d,0],\"rot\":0.3}",
                 i * 2 - 5, 3 + i, i % 3 - 1);
        spawn_ok(&c, i + 1, body);
    }
    /* d asks for delta states later than a (below): its baselines are its own at first, then
     * from the same ticks as a's, when the server copies the entries it encoded for a. */
    cli_world wa, wb, wc;
    cli_world_init(&wa);
    cli_world_init(&wb);
    cli_world_init(&wc);
    wa.tick_hz = wb.tick_hz = wc.tick_hz = 60;
    int compared = 0;
    uint64_t tick = read_until(&a, &wa, 0);
    for (int k = 0; k < 60 && tick; k++) {
        uint64_t ta = read_until(&a, &wa, tick + 1);
        uint64_t tb = read_until(&b, &wb, ta);
        uint64_t tc = read_until(&d, &wc, ta);
        if (k == 10)
            ck_assert(h_send_line(&d, "{\"type\":\"subscribe\",\"delta\":true}"));
        ck_assert_msg(ta && tb && tc, "no states");
        tick = ta > tb ? ta : tb;
        tick = tick > tc ? tick : tc;
        if (ta != tb || ta != tc) {
            tick--; /* a state dropped for one of them: they meet again at the latest */
            continue;
        }
        ck_assert_uint_eq(wa.count, wb.count);
        ck_assert_uint_eq(wc.count, wb.count);
        for (size_t i = 0; i < 2 * wb.count; i++) {
            const cli_body *y = &wb.bodies[i % wb.count];
            const cli_body *x = cli_world_find(i < wb.count ? &wa : &wc, y->id);
            ck_assert_ptr_nonnull(x);
            for (int j = 0; j < 2; j++) {
                ck_assert_msg(fabs(x->pos[j] - y->pos[j]) < 1e-9,
                              "tick %llu body %llu (kind %d): delta (%g, %g) compact (%g, %g)",
                              (unsigned long long)ta, (unsigned long long)y->id, (int)y->kind,
                              x->pos[0], x->pos[1], y->pos[0], y->pos[1]);
                ck_assert_double_eq_tol(x->vel[j], y->vel[j], 1e-9);
            }
            ck_assert_double_eq_tol(x->rot, y->rot, 1e-9);
        }
        compared++;
    }
    ck_assert_int_gt(compared, 40);
    cli_world_free(&wa);
    cli_world_free(&wb);
    cli_world_free(&wc);
    h_close(&a);
    h_close(&b);
    h_close(&c);
    h_close(&d);
    stop();
}
END_TEST

/* The x of body id in a state (objects), or NAN when it is not there. */
static double x_of(const cJSON *state, double id)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(state, "bodies"))
    {
        if (h_num(e, "id") == id)
            return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e, "pos"), 0)->valuedouble;
    }
    return NAN;
}

/* `ack_tick` says which step first applied the acknowledged input: a kinematic avatar at
 * 5 m/s has gone 5 m/s times the steps since then, exactly where the state shows it. */
/* A server stepping a state every tick, and a client with a kinematic avatar at 5 m/s that
 * has its first state (the caller's to free). */
static cJSON *join_runner(h_conn *a, double *avatar)
{
    const char *args[] = {"--snapshot-hz", "60", NULL};
    start(args);
    *avatar = join_kinematic(a, 0.5, 0.5, 30, 5);
    cJSON *s = h_recv_type(a, "state", 2000);
    ck_assert_ptr_nonnull(s);
    return s;
}

START_TEST(ack_tick_names_the_first_step_of_an_input)
{
    h_conn a;
    double avatar;
    cJSON *s = join_runner(&a, &avatar);
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(s, "ack_tick")); /* no input yet */
    cJSON_Delete(s);
    ck_assert(h_send_line(&a, "{\"type\":\"input\",\"seq\":1,\"move\":[1,0]}"));
    int checked = 0;
    for (int k = 0; k < 120 && checked < 20; k++) {
        s = h_recv_type(&a, "state", 2000);
        ck_assert_ptr_nonnull(s);
        if (h_num(s, "ack") == 1) {
            double tick = h_num(s, "tick"), first = h_num(s, "ack_tick");
            ck_assert(first >= 1 && first <= tick);
            ck_assert_double_eq_tol(x_of(s, avatar), 5.0 * (tick - first + 1) / 60.0, 1e-3);
            checked++;
        }
        cJSON_Delete(s);
    }
    ck_assert_int_eq(checked, 20);
    h_close(&a);
    stop();
}
END_TEST

/* An input stamped with a later tick waits for it: the step of that tick is the first to
 * apply it, so a kinematic avatar at 5 m/s stands exactly where the stamp says in every state.
 * An input without a tick sent while a stamped one waits is applied after it, in order; a
 * tick more than a second ahead is refused and applies nothing. */
START_TEST(a_stamped_input_waits_for_its_tick)
{
    h_conn a;
    double avatar;
    cJSON *s = join_runner(&a, &avatar);
    double now = h_num(s, "tick"), x0 = x_of(s, avatar);
    cJSON_Delete(s);
    char line[160];
    /* 61 ticks past the next step: more than a second of 60 Hz ticks. */
    snprintf(line, sizeof line, "{\"type\":\"input\",\"seq\":1,\"tick\":%.0f,\"move\":[1,0]}",
             now + 200);
    ck_assert(h_send_line(&a, line));
    expect_error(&a, "bad_request");
    double stamp = now + 30; /* half a second on */
    snprintf(line, sizeof line, "{\"type\":\"input\",\"seq\":2,\"tick\":%.0f,\"move\":[1,0]}",
             stamp);
    ck_assert(h_send_line(&a, line));
    ck_assert(h_send_line(&a, "{\"type\":\"input\",\"seq\":3,\"move\":[-1,0]}"));
    int before = 0, with = 0;
    for (int k = 0; k < 120 && with < 10; k++) {
        s = h_recv_type(&a, "state", 2000);
        ck_assert_ptr_nonnull(s);
        double tick = h_num(s, "tick"), ack = h_num(s, "ack");
        if (tick < stamp) { /* not moved yet, and nothing acknowledged */
            ck_assert_double_eq_tol(x_of(s, avatar), x0, 1e-9);
            ck_assert_double_eq(ack, 0);
            before++;
        } else {
            /* 2 and 3 were due at the same step: 3 is the newer, and goes the other way. */
            ck_assert_double_eq(ack, 3);
            ck_assert_double_eq(h_num(s, "ack_tick"), stamp);
            ck_assert_double_eq_tol(x_of(s, avatar), x0 - 5.0 * (tick - stamp + 1) / 60.0, 1e-3);
            with++;
        }
        cJSON_Delete(s);
    }
    ck_assert_int_gt(before, 10);
    ck_assert_int_eq(with, 10);
    /* A tick already past is applied by the next step, as without one. */
    ck_assert(h_send_line(&a, "{\"type\":\"input\",\"seq\":4,\"tick\":1,\"move\":[0,0]}"));
    for (int k = 0; k < 30; k++) {
        s = h_recv_type(&a, "state", 2000);
        ck_assert_ptr_nonnull(s);
        bool done = h_num(s, "ack") == 4;
        if (done)
            ck_assert(h_num(s, "ack_tick") > stamp);
        cJSON_Delete(s);
        if (done)
            break;
        ck_assert_int_lt(k, 29);
    }
    h_close(&a);
    stop();
}
END_TEST

START_TEST(subscribe_hash_every_n_ticks)
{
    const char *args[] = {"--snapshot-hz", "60", NULL}; /* both clients get every tick */
    start(args);
    h_conn a, b;
    cJSON_Delete(join(&a, HELLO));
    cJSON_Delete(join(&b, HELLO));
    ck_assert(h_send_line(&a, "{\"type\":\"subscribe\",\"hash\":1.5}"));
    expect_error(&a, "bad_request");
    ck_assert(h_send_line(&a, "{\"type\":\"subscribe\",\"hash\":-1}"));
    expect_error(&a, "bad_request");
    ck_assert(h_send_line(&a, "{\"type\":\"subscribe\",\"delta\":1}"));
    expect_error(&a, "bad_request");
    ck_assert(h_send_line(&a, "{\"type\":\"subscribe\",\"hash\":30}"));
    ck_assert(h_send_line(&b, "{\"type\":\"subscribe\",\"hash\":30}"));
    /* A state every tick: the hash comes on each multiple of 30. */
    uint64_t last = 0, hashed = 0;
    char first_hash[17] = "";
    uint64_t first_tick = 0;
    for (int i = 0; i < 200; i++) {
        cJSON *s = h_recv_type(&a, "state", 2000);
        ck_assert_ptr_nonnull(s);
        uint64_t tick = (uint64_t)h_num(s, "tick");
        const char *hash = h_str(s, "hash");
        if (hash) {
            ck_assert_uint_eq(strlen(hash), 16);
            ck_assert_uint_eq(strspn(hash, "0123456789abcdef"), 16);
            ck_assert_msg(last == 0 || tick / 30 > last / 30, "two hashes at %llu and %llu",
                          (unsigned long long)last, (unsigned long long)tick);
            ck_assert_msg(last == 0 || tick % 30 == 0, "a hash at %llu", (unsigned long long)tick);
            if (!first_tick && last != 0) {
                first_tick = tick;
                snprintf(first_hash, sizeof first_hash, "%s", hash);
            }
            last = tick;
            hashed++;
        } else if (last != 0) {
            ck_assert_msg(tick / 30 == last / 30, "no hash at %llu past a multiple of 30",
                          (unsigned long long)tick);
        }
        cJSON_Delete(s);
    }
    ck_assert_uint_ge(hashed, 5);
    ck_assert_uint_gt(first_tick, 0);
    /* The other client got the same hash for the same tick. */
    bool same_tick = false;
    for (int i = 0; i < 400; i++) {
        cJSON *s = h_recv_type(&b, "state", 2000);
        ck_assert_ptr_nonnull(s);
        uint64_t tick = (uint64_t)h_num(s, "tick");
        if (tick == first_tick && h_str(s, "hash")) {
            ck_assert_str_eq(h_str(s, "hash"), first_hash);
            same_tick = true;
        }
        cJSON_Delete(s);
        if (tick >= first_tick)
            break;
    }
    ck_assert_msg(same_tick, "the other client had no hash at tick %llu",
                  (unsigned long long)first_tick);
    h_close(&a);
    h_close(&b);
    stop();
}
END_TEST

/* ---- mink-client in tmux ---- */

static char tmux_socket[64];

static void tmux(const char *args, char *out, size_t cap)
{
    char cmd[1200]; /* the socket name, the arguments (callers keep them under 1 kB) */
    snprintf(cmd, sizeof cmd, "tmux -L %s %s 2>&1", tmux_socket, args);
    char scratch[256];
    run_command(cmd, out ? out : scratch, out ? cap : sizeof scratch);
}

/* The view without its last two lines (the status bar and the help), which change anyway. */
static void screen(char *out, size_t cap)
{
    tmux("capture-pane -p -t mk", out, cap);
    char *end = out + strlen(out);
    for (int n = 0; n < 3 && end > out; end--)
        if (end[-1] == '\n' && ++n == 3)
            break;
    *end = '\0';
}

/* A flat ground with posts 2 m apart: a view that changes only when the avatar moves. */
static void write_scene(const char *path)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "{\"dim\":2,\"bodies\":[{\"shape\":{\"type\":\"aabb\",\"half\":[60,0.5]},"
               "\"pos\":[0,-0.5],\"kind\":\"static\"}");
    for (int x = -20; x <= 20; x += 2)
        fprintf(f, ",{\"shape\":{\"type\":\"aabb\",\"half\":[0.25,0.5]},\"pos\":[%d,0.5],"
                   "\"kind\":\"static\"}",
                x);
    fprintf(f, "]}\n");
    fclose(f);
}

/* Starts `client_args` (the client's flags) in the pane "mk", its stderr kept in client_err. A
 * new session that tmux refuses fails the test with tmux's words. */
static char client_err[64];

static void start_client_pane(const char *client_args)
{
    char cmd[1024], out[512];
    snprintf(cmd, sizeof cmd, "new-session -d -s mk -x 80 -y 24 '%s %s 2>%s; sleep 5'",
             MINK_CLIENT_PATH, client_args, client_err);
    tmux(cmd, out, sizeof out);
    ck_assert_msg(out[0] == '\0', "tmux new-session: %s", out);
}

/* Starts the client in a tmux pane against the server, waits until its view is still (the
 * avatar has landed), presses `right` a few times and says whether the view changed within
 * `window_ms`. With a 1 s latency each way the server cannot have heard of the key within
 * 2 s: what moves before is the prediction alone. */
static bool view_moves_after_key(const char *flags, int window_ms)
{
    char args[512], before[8192], now[8192];
    snprintf(args, sizeof args, "--port %d %s", srv.port, flags);
    start_client_pane(args);
    /* Still: two captures 400 ms apart alike, with the avatar on screen. */
    bool still = false;
    for (int i = 0; i < 40 && !still; i++) {
        screen(before, sizeof before);
        h_sleep_ms(400);
        screen(now, sizeof now);
        still = strchr(now, '@') && strcmp(before, now) == 0;
    }
    if (!still) {
        char pane[8192];
        tmux("capture-pane -p -t mk", pane, sizeof pane);
        char *err = h_read_file(client_err, NULL);
        ck_assert_msg(still, "the client (%s) never settled; its pane:\n%s\nits stderr:\n%s", flags,
                      pane, err ? err : "(none)");
    }
    long long end = h_now_ms() + window_ms;
    bool moved = false;
    for (int k = 0; h_now_ms() < end && !moved; k++) {
        if (k % 5 == 0)
            tmux("send-keys -t mk Right", NULL, 0);
        h_sleep_ms(20);
        screen(now, sizeof now);
        moved = strcmp(before, now) != 0;
    }
    tmux("send-keys -t mk q", NULL, 0);
    h_sleep_ms(200);
    tmux("kill-session -t mk", NULL, 0);
    return moved;
}

/* tmux there (the test fails, saying so, when it is not), a tmux socket of this test's own with a
 * session that keeps its server up between clients (a server that exits with its last session
 * can refuse the next new-session), and the server started on the posts' scene, written to
 * `scene` (cap bytes). */
static void start_with_tmux(char *scene, size_t cap)
{
    char out[256];
    ck_assert_msg(run_command("tmux -V", out, sizeof out) == 0,
                  "tmux is not installed (Debian package tmux, `make deps`)");
    snprintf(tmux_socket, sizeof tmux_socket, "mink-test-%d", (int)getpid());
    snprintf(client_err, sizeof client_err, "/tmp/mink-client-%d.err", (int)getpid());
    tmux("new-session -d -s keep 'sleep 300'", out, sizeof out);
    ck_assert_msg(out[0] == '\0', "tmux new-session: %s", out);
    snprintf(scene, cap, "/tmp/mink-posts-%d.json", (int)getpid());
    write_scene(scene);
    const char *args[] = {"--scene", scene, NULL};
    start(args);
}

START_TEST(client_in_tmux_moves_at_once_under_latency)
{
    char scene[64];
    start_with_tmux(scene, sizeof scene);
    /* The feel at 100 ms with jitter: the avatar moves on the first frames after the key. */
    ck_assert(view_moves_after_key("--latency 100 --jitter 10", 1000));
    /* The cause: 1 s each way, and still it moves within 1.5 s... */
    ck_assert(view_moves_after_key("--latency 1000", 1500));
    /* ...which without prediction it cannot. */
    ck_assert(!view_moves_after_key("--latency 1000 --no-predict", 1500));
    tmux("kill-server", NULL, 0);
    unlink(scene);
    unlink(client_err);
    stop();
}
END_TEST

/* Waits up to `ms` for the view (without its two last lines) to hold `text`. */
static bool screen_shows(const char *text, int ms, char *now, size_t cap)
{
    long long end = h_now_ms() + ms;
    do {
        screen(now, cap);
        if (strstr(now, text))
            return true;
        h_sleep_ms(50);
    } while (h_now_ms() < end);
    return false;
}

START_TEST(client_drops_shapes_records_and_replays)
{
    char out[8192];
    char scene[64], record[64];
    start_with_tmux(scene, sizeof scene);
    snprintf(record, sizeof record, "/tmp/mink-record-%d.txt", (int)getpid());
    /* The f key drops a box (the posts' scene has no dynamic body: an `o` is the box). */
    char args[512];
    snprintf(args, sizeof args, "--port %d --record %s", srv.port, record);
    start_client_pane(args);
    ck_assert_msg(screen_shows("@", 5000, out, sizeof out), "no avatar:\n%s", out);
    ck_assert_msg(!strchr(out, 'o'), "a dynamic body before any was dropped:\n%s", out);
    tmux("send-keys -t mk f", NULL, 0);
    ck_assert_msg(screen_shows("o", 5000, out, sizeof out), "no dropped box:\n%s", out);
    h_sleep_ms(1500); /* it falls and lands */
    tmux("send-keys -t mk q", NULL, 0);
    h_sleep_ms(300);
    tmux("kill-session -t mk", NULL, 0);
    stop();
    /* The record: the welcome first, then states, each line after its arrival time. */
    ck_assert(file_has(record, "\t{\"type\":\"welcome\""));
    ck_assert(file_has(record, "\t{\"type\":\"state\""));
    ck_assert(file_has(record, "\"type\":\"spawned\""));
    /* Replayed without a server: the same world, the box included, and the REPLAY mark. */
    snprintf(args, sizeof args, "--replay %s", record);
    start_client_pane(args);
    ck_assert_msg(screen_shows("@", 5000, out, sizeof out), "replay: no avatar:\n%s", out);
    ck_assert_msg(screen_shows("o", 5000, out, sizeof out), "replay: no box:\n%s", out);
    tmux("capture-pane -p -t mk", out, sizeof out);
    ck_assert_msg(strstr(out, "REPLAY"), "replay: no REPLAY in the status bar:\n%s", out);
    tmux("send-keys -t mk q", NULL, 0);
    h_sleep_ms(300);
    tmux("kill-server", NULL, 0);
    unlink(scene);
    unlink(record);
    unlink(client_err);
}
END_TEST

void server_netcode_tests(TCase *tc)
{
    tcase_add_test(tc, delta_states_match_compact_states);
    tcase_add_test(tc, a_stamped_input_waits_for_its_tick);
    tcase_add_test(tc, ack_tick_names_the_first_step_of_an_input);
    tcase_add_test(tc, subscribe_hash_every_n_ticks);
    tcase_add_test(tc, client_in_tmux_moves_at_once_under_latency);
    tcase_add_test(tc, client_drops_shapes_records_and_replays);
}
