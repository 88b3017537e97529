/* Integration: the real mink-server on an ephemeral loopback port, spoken to over TCP. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define HELLO "{\"type\":\"hello\",\"protocol\":1,\"name\":\"test\"}"

static h_server srv;

static void start(const char *const *args)
{
    ck_assert_msg(h_server_start(&srv, args), "mink-server did not start");
}

static void stop(void)
{
    int status = h_server_stop(&srv, SIGTERM, 3000);
    ck_assert_int_eq(status, 0);
    unlink(srv.log_path);
}

/* Connects and joins; returns the welcome (caller deletes). */
static cJSON *join(h_conn *c, const char *hello)
{
    ck_assert(h_connect(c, srv.port));
    ck_assert(h_send_line(c, hello));
    cJSON *w = h_recv_type(c, "welcome", 3000);
    ck_assert_msg(w != NULL, "no welcome");
    return w;
}

/* Joins with a kinematic avatar (half extents hx, hy) at (0, y); returns the avatar's id. */
static double join_kinematic(h_conn *c, double hx, double hy, double y, double max_speed)
{
    char hello[256];
    snprintf(hello, sizeof hello,
             "{\"type\":\"hello\",\"protocol\":1,\"avatar\":{\"shape\":{\"type\":\"aabb\","
             "\"half\":[%g,%g]},\"pos\":[0,%g],\"kind\":\"kinematic\",\"max_speed\":%g}}",
             hx, hy, y, max_speed);
    cJSON *w = join(c, hello);
    double avatar = h_num(w, "avatar");
    cJSON_Delete(w);
    return avatar;
}

static void expect_error(h_conn *c, const char *code)
{
    cJSON *e = h_recv_type(c, "error", 3000);
    ck_assert_msg(e != NULL, "no error %s", code);
    ck_assert_str_eq(h_str(e, "code"), code);
    ck_assert_ptr_nonnull(h_str(e, "message"));
    cJSON_Delete(e);
}

/* A ping answered proves the connection still works. */
static void expect_alive(h_conn *c)
{
    ck_assert(h_send_line(c, "{\"type\":\"ping\",\"t\":\"alive\"}"));
    cJSON *p = h_recv_type(c, "pong", 3000);
    ck_assert_msg(p != NULL, "no pong");
    ck_assert_str_eq(h_str(p, "t"), "alive");
    cJSON_Delete(p);
}

START_TEST(hello_gets_welcome)
{
    start(NULL);
    h_conn c;
    cJSON *w = join(&c, "{\"type\":\"hello\",\"protocol\":1,\"avatar\":{\"shape\":{\"type\":"
                        "\"aabb\",\"half\":[0.4,0.9]},\"pos\":[0,4],\"kind\":\"character\"}}");
    ck_assert_double_eq(h_num(w, "protocol"), 1);
    ck_assert_double_ge(h_num(w, "client"), 1);
    ck_assert_double_eq(h_num(w, "dim"), 2);
    ck_assert_double_eq(h_num(w, "tick_hz"), 60);
    ck_assert_double_eq(h_num(w, "snapshot_hz"), 20);
    ck_assert_double_eq(h_vec(w, "gravity", 0), 0);
    ck_assert_double_eq(h_vec(w, "gravity", 1), -10);
    double avatar = h_num(w, "avatar");
    ck_assert_double_ge(avatar, 1);
    /* The first state shows the avatar with its first-sighting fields and the scene. */
    cJSON *s = h_recv_type(&c, "state", 3000);
    ck_assert_ptr_nonnull(s);
    const cJSON *b = h_state_body(s, avatar);
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(h_str(b, "kind"), "character");
    ck_assert_double_eq(h_num(b, "owner"), h_num(w, "client"));
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(b, "shape");
    ck_assert_str_eq(h_str(shape, "type"), "aabb");
    ck_assert_double_eq_tol(h_vec(shape, "half", 1), 0.9, 1e-9);
    /* The demo's 20 bodies (9 of them static) and the avatar. */
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "bodies")), 21);
    cJSON_Delete(s);
    /* Later states leave out the static bodies already seen and drop first-sighting fields. */
    s = h_recv_type(&c, "state", 3000);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "bodies")), 12);
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(h_state_body(s, avatar), "shape"));
    cJSON_Delete(s);
    cJSON_Delete(w);
    h_close(&c);
    stop();
}
END_TEST

START_TEST(spawned_box_rests_on_ground)
{
    start(NULL);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    ck_assert(h_send_line(&c, "{\"type\":\"spawn\",\"req\":7,\"body\":{\"shape\":{\"type\":"
                              "\"aabb\",\"half\":[0.5,0.5]},\"pos\":[-2,4],\"tag\":\"mine\"}}"));
    cJSON *sp = h_recv_type(&c, "spawned", 3000);
    ck_assert_ptr_nonnull(sp);
    ck_assert_double_eq(h_num(sp, "req"), 7);
    double id = h_num(sp, "id");
    cJSON_Delete(sp);
    /* It falls 3.5 m (0.84 s); after 2.5 s of states it has rested on the ground's top. Once
     * asleep and sent at rest, it leaves the states (until something moves it). */
    long long end = h_now_ms() + 2500;
    double y = NAN, vy = NAN;
    bool first = true;
    while (h_now_ms() < end) {
        cJSON *s = h_recv_type(&c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        const cJSON *b = h_state_body(s, id);
        ck_assert(b != NULL || !first);
        if (!b) {
            cJSON_Delete(s);
            continue;
        }
        if (first) {
            ck_assert_str_eq(h_str(b, "tag"), "mine");
            ck_assert_str_eq(h_str(b, "kind"), "dynamic");
            first = false;
        }
        y = h_vec(b, "pos", 1);
        vy = h_vec(b, "vel", 1);
        cJSON_Delete(s);
    }
    ck_assert_double_eq_tol(y, 0.5, 1e-3);
    ck_assert_double_eq_tol(vy, 0.0, 1e-3);
    h_close(&c);
    stop();
}
END_TEST

START_TEST(input_moves_kinematic_avatar)
{
    start(NULL);
    h_conn c;
    double avatar = join_kinematic(&c, 0.5, 0.5, 10, 3);
    char line[128];
    int seq;
    for (seq = 1; seq <= 30; seq++) {
        snprintf(line, sizeof line, "{\"type\":\"input\",\"seq\":%d,\"move\":[1,0]}", seq);
        ck_assert(h_send_line(&c, line));
        h_sleep_ms(33);
    }
    /* States sent while the inputs went out are still queued: skip to the first one that
     * acknowledges the last input, then it moves at exactly max_speed. */
    double ack = 0;
    long long deadline = h_now_ms() + 3000;
    while (ack < 30 && h_now_ms() < deadline) {
        cJSON *s = h_recv_type(&c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        ack = h_num(s, "ack");
        cJSON_Delete(s);
    }
    double x0 = NAN, t0 = NAN;
    for (int i = 0; i < 4; i++) {
        cJSON *s = h_recv_type(&c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        const cJSON *b = h_state_body(s, avatar);
        ck_assert_ptr_nonnull(b);
        ck_assert_double_eq_tol(h_vec(b, "vel", 0), 3.0, 1e-3);
        ck_assert_double_eq_tol(h_vec(b, "pos", 1), 10.0, 1e-4);
        double x = h_vec(b, "pos", 0), t = h_num(s, "tick");
        if (!isnan(x0))
            ck_assert_double_eq_tol(x - x0, 3.0 * (t - t0) / 60.0, 2e-3);
        x0 = x;
        t0 = t;
        ack = h_num(s, "ack");
        cJSON_Delete(s);
    }
    ck_assert_double_eq(ack, 30);
    ck_assert_double_gt(x0, 2.0);
    h_close(&c);
    stop();
}
END_TEST

START_TEST(bad_json_keeps_connection)
{
    start(NULL);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    ck_assert(h_send_line(&c, "{not json"));
    expect_error(&c, "bad_json");
    ck_assert(h_send_line(&c, "{\"type\":\"spawn\",\"req\":\"r1\",\"body\":{\"shape\":{\"type\":"
                              "\"aabb\",\"half\":[0.5,0.5]},\"pos\":[0,NaN]}}"));
    expect_error(&c, "bad_json");
    ck_assert(h_send_line(&c, "{\"type\":\"spawn\",\"req\":\"r2\",\"body\":{\"shape\":{\"type\":"
                              "\"aabb\",\"half\":[0.5,0.5]},\"pos\":[0,1e999]}}"));
    cJSON *e = h_recv_type(&c, "error", 3000);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(h_str(e, "code"), "bad_request");
    ck_assert_str_eq(h_str(e, "req"), "r2");
    cJSON_Delete(e);
    ck_assert(h_send_line(&c, "{\"type\":\"teleport\"}"));
    expect_error(&c, "unknown_type");
    expect_alive(&c);
    h_close(&c);
    stop();
}
END_TEST

START_TEST(long_line_refused_others_served)
{
    start(NULL);
    h_conn bad, good;
    cJSON_Delete(join(&bad, HELLO));
    cJSON_Delete(join(&good, HELLO));
    size_t n = 70 * 1024;
    char *junk = malloc(n);
    memset(junk, 'a', n);
    ck_assert(h_send_raw(&bad, junk, n));
    free(junk);
    expect_error(&bad, "line_too_long");
    ck_assert(h_wait_closed(&bad, 3000));
    h_close(&bad);
    /* The other client goes on receiving states with advancing ticks, and pings work. */
    cJSON *s1 = h_recv_type(&good, "state", 2000);
    cJSON *s2 = h_recv_type(&good, "state", 2000);
    ck_assert_ptr_nonnull(s1);
    ck_assert_ptr_nonnull(s2);
    ck_assert_double_gt(h_num(s2, "tick"), h_num(s1, "tick"));
    cJSON_Delete(s1);
    cJSON_Delete(s2);
    expect_alive(&good);
    h_close(&good);
    stop();
}
END_TEST

START_TEST(order_and_ownership_errors)
{
    start(NULL);
    h_conn a, b;
    ck_assert(h_connect(&a, srv.port));
    ck_assert(h_send_line(&a, "{\"type\":\"spawn\",\"req\":1,\"body\":{\"shape\":{\"type\":"
                              "\"aabb\",\"half\":[0.5,0.5]},\"pos\":[0,4]}}"));
    expect_error(&a, "not_joined");
    expect_alive(&a); /* ping is allowed before hello */
    ck_assert(h_send_line(&a, HELLO));
    cJSON_Delete(h_recv_type(&a, "welcome", 3000));
    ck_assert(h_send_line(&a, HELLO));
    expect_error(&a, "bad_request"); /* already joined */
    ck_assert(h_send_line(&a, "{\"type\":\"spawn\",\"body\":{\"shape\":{\"type\":\"aabb\","
                              "\"half\":[0.5,0.5]},\"pos\":[3,4]}}"));
    cJSON *sp = h_recv_type(&a, "spawned", 3000);
    ck_assert_ptr_nonnull(sp);
    double id = h_num(sp, "id");
    cJSON_Delete(sp);

    cJSON_Delete(join(&b, HELLO));
    char line[160];
    snprintf(line, sizeof line, "{\"type\":\"despawn\",\"req\":2,\"id\":%.0f}", id);
    ck_assert(h_send_line(&b, line));
    expect_error(&b, "not_owner");
    ck_assert(h_send_line(&b, "{\"type\":\"despawn\",\"id\":1}")); /* the scene's ground */
    expect_error(&b, "not_owner");
    ck_assert(h_send_line(&b, "{\"type\":\"despawn\",\"id\":99999}"));
    expect_error(&b, "not_found");
    ck_assert(h_send_line(&b, "{\"type\":\"input\",\"seq\":1,\"move\":[1,0]}"));
    expect_error(&b, "not_found"); /* b has no avatar */

    ck_assert(h_send_line(&a, line));
    cJSON *d = h_recv_type(&a, "despawned", 3000);
    ck_assert_ptr_nonnull(d);
    ck_assert_double_eq(h_num(d, "id"), id);
    ck_assert_double_eq(h_num(d, "req"), 2);
    cJSON_Delete(d);
    /* b had seen the body: its next state lists it in `removed`. */
    bool removed = false;
    for (int i = 0; i < 4 && !removed; i++) {
        cJSON *s = h_recv_type(&b, "state", 2000);
        ck_assert_ptr_nonnull(s);
        removed = h_state_removed(s, id);
        cJSON_Delete(s);
    }
    ck_assert(removed);
    h_close(&a);
    h_close(&b);
    stop();
}
END_TEST

START_TEST(leaving_client_bodies_removed)
{
    start(NULL);
    h_conn a, b;
    cJSON *w = join(&a, "{\"type\":\"hello\",\"protocol\":1,\"avatar\":{\"shape\":{\"type\":"
                        "\"aabb\",\"half\":[0.4,0.9]},\"pos\":[2,4],\"kind\":\"character\"}}");
    double avatar = h_num(w, "avatar");
    cJSON_Delete(w);
    cJSON_Delete(join(&b, HELLO));
    cJSON *s = h_recv_type(&b, "state", 2000);
    ck_assert_ptr_nonnull(h_state_body(s, avatar));
    cJSON_Delete(s);
    ck_assert(h_send_line(&a, "{\"type\":\"bye\"}"));
    ck_assert(h_wait_closed(&a, 3000));
    h_close(&a);
    bool removed = false;
    for (int i = 0; i < 4 && !removed; i++) {
        s = h_recv_type(&b, "state", 2000);
        ck_assert_ptr_nonnull(s);
        removed = h_state_removed(s, avatar);
        cJSON_Delete(s);
    }
    ck_assert(removed);
    h_close(&b);
    stop();
}
END_TEST

START_TEST(quota_and_server_full)
{
    const char *args[] = {"--max-bodies-per-client", "2", "--max-clients", "1", NULL};
    start(args);
    h_conn a, b;
    cJSON_Delete(join(&a, HELLO));
    const char *spawn = "{\"type\":\"spawn\",\"req\":3,\"body\":{\"shape\":{\"type\":\"aabb\","
                        "\"half\":[0.2,0.2]},\"pos\":[0,6]}}";
    for (int i = 0; i < 2; i++) {
        ck_assert(h_send_line(&a, spawn));
        cJSON_Delete(h_recv_type(&a, "spawned", 3000));
    }
    ck_assert(h_send_line(&a, spawn));
    cJSON *e = h_recv_type(&a, "error", 3000);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(h_str(e, "code"), "quota");
    ck_assert_double_eq(h_num(e, "req"), 3);
    cJSON_Delete(e);

    ck_assert(h_connect(&b, srv.port));
    expect_error(&b, "server_full");
    ck_assert(h_wait_closed(&b, 3000));
    h_close(&b);
    expect_alive(&a);
    h_close(&a);
    stop();
}
END_TEST

START_TEST(query_over_the_wire)
{
    start(NULL);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    ck_assert(h_send_line(&c, "{\"type\":\"query\",\"req\":\"q\",\"a\":{\"shape\":{\"type\":"
                              "\"aabb\",\"half\":[1,1]},\"pos\":[0,0]},\"b\":{\"shape\":{"
                              "\"type\":\"aabb\",\"half\":[0.5,0.5]},\"pos\":[0.25,1.25]}}"));
    cJSON *r = h_recv_type(&c, "result", 3000);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(h_str(r, "req"), "q");
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "hit")));
    ck_assert_double_eq_tol(h_num(r, "depth"), 0.25, 1e-6);
    ck_assert_double_eq_tol(h_vec(r, "normal", 1), 1.0, 1e-6);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "points")), 2);
    cJSON_Delete(r);
    ck_assert(h_send_line(&c, "{\"type\":\"query\",\"a\":{\"shape\":{\"type\":\"aabb\",\"half\":"
                              "[1,1]},\"pos\":[0,0]},\"b\":{\"shape\":{\"type\":\"aabb\","
                              "\"half\":[1,1]},\"pos\":[5,0]}}"));
    r = h_recv_type(&c, "result", 3000);
    ck_assert_ptr_nonnull(r);
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r, "hit")));
    ck_assert_double_eq_tol(h_num(r, "distance"), 3.0, 1e-6);
    cJSON_Delete(r);
    h_close(&c);
    stop();
}
END_TEST

START_TEST(subscribe_contacts)
{
    start(NULL);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"contacts\":true}"));
    /* The demo's crates rest on the ground (id 1): contacts carry its normal pointing up. */
    bool found = false;
    for (int i = 0; i < 6 && !found; i++) {
        cJSON *s = h_recv_type(&c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        const cJSON *k;
        cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(s, "contacts"))
        {
            if (h_num(k, "a") == 1 && h_vec(k, "normal", 1) == 1.0) {
                const cJSON *pts = cJSON_GetObjectItemCaseSensitive(k, "points");
                ck_assert_int_eq(cJSON_GetArraySize(pts), 2);
                ck_assert_double_ge(h_num(cJSON_GetArrayItem(pts, 0), "depth"), 0);
                /* Each point names the features that made it: two corners, two ids. */
                ck_assert_double_ne(h_num(cJSON_GetArrayItem(pts, 0), "id"),
                                    h_num(cJSON_GetArrayItem(pts, 1), "id"));
                found = true;
            }
        }
        cJSON_Delete(s);
    }
    ck_assert(found);
    h_close(&c);
    stop();
}
END_TEST

START_TEST(sigterm_stops_cleanly)
{
    start(NULL);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    long long t0 = h_now_ms();
    ck_assert_int_eq(h_server_stop(&srv, SIGTERM, 1000), 0);
    ck_assert_int_lt(h_now_ms() - t0, 1000);
    expect_error(&c, "shutdown");
    ck_assert(h_wait_closed(&c, 1000));
    h_close(&c);
    ck_assert(h_server_log_has(&srv, "stopping (SIGTERM)"));
    unlink(srv.log_path);
}
END_TEST

/* Runs a shell command; its stdout goes to `out` (cut to fit); returns its wait status. */
static int run_command(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    return pclose(p);
}

START_TEST(client_bot_mode)
{
    start(NULL);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --port %d --bot 2 < /dev/null", MINK_CLIENT_PATH, srv.port);
    char out[4096];
    int status = run_command(cmd, out, sizeof out);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "bot exit %d: %s", status, out);
    ck_assert_ptr_nonnull(strstr(out, "states received"));
    /* About 20 states a second for 2 s. */
    const char *at = strstr(out, "states received: ");
    ck_assert_ptr_nonnull(at);
    int states = atoi(at + strlen("states received: "));
    ck_assert_int_ge(states, 30);
    stop();
}
END_TEST

START_TEST(bad_flags_and_scenes_exit_cleanly)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --port 99999 2>/dev/null", MINK_SERVER_PATH);
    int status = system(cmd);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 2);
    snprintf(cmd, sizeof cmd, "%s --frobnicate 2>/dev/null", MINK_SERVER_PATH);
    status = system(cmd);
    ck_assert_int_eq(WEXITSTATUS(status), 2);
    snprintf(cmd, sizeof cmd, "%s --scene /nonexistent.json 2>/dev/null", MINK_SERVER_PATH);
    status = system(cmd);
    ck_assert_int_eq(WEXITSTATUS(status), 1);
    /* A port in use: the second server cannot listen and says so. */
    start(NULL);
    snprintf(cmd, sizeof cmd, "%s --host 127.0.0.1 --port %d 2>/dev/null", MINK_SERVER_PATH,
             srv.port);
    status = system(cmd);
    ck_assert_int_eq(WEXITSTATUS(status), 1);
    stop();
}
END_TEST

/* n pings in one write. */
static void send_pings(h_conn *c, size_t n)
{
    const char *ping = "{\"type\":\"ping\",\"t\":1}\n";
    size_t plen = strlen(ping);
    char *batch = malloc(plen * n);
    ck_assert_ptr_nonnull(batch);
    for (size_t i = 0; i < n; i++)
        memcpy(batch + i * plen, ping, plen);
    ck_assert(h_send_raw(c, batch, plen * n));
    free(batch);
}

START_TEST(messages_over_the_rate_are_dropped)
{
    start(NULL);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    /* 450 pings at once: a burst is 2 s at 200 a second, 400 messages, the hello among them.
     * The rest are dropped; the first dropped one is answered with rate_limited. */
    send_pings(&c, 450);
    int pongs = 0, limited = 0;
    cJSON *m;
    long long end = h_now_ms() + 1500; /* states go on arriving: read for a while */
    while (h_now_ms() < end && (m = h_recv(&c, 500)) != NULL) {
        const char *type = h_str(m, "type");
        if (strcmp(type, "pong") == 0)
            pongs++;
        else if (strcmp(type, "error") == 0 && strcmp(h_str(m, "code"), "rate_limited") == 0)
            limited++;
        cJSON_Delete(m);
    }
    /* 399 tokens left after the hello, plus what refilled while the batch was read. */
    ck_assert_msg(pongs >= 399 && pongs <= 410, "%d pongs", pongs);
    /* One rate_limited a run of drops: one run, and one more for each refilled token that let
     * a ping through between two reads of the batch (a loaded machine reads it in pieces). */
    ck_assert_msg(limited >= 1 && limited <= 1 + (pongs - 399), "%d rate_limited for %d pongs",
                  limited, pongs);
    /* Not a flood: the connection stays, and the bucket has refilled meanwhile. */
    expect_alive(&c);
    h_close(&c);
    stop();
}
END_TEST

START_TEST(message_flood_is_cut_off)
{
    start(NULL);
    h_conn c, other;
    cJSON_Delete(join(&c, HELLO));
    cJSON_Delete(join(&other, HELLO));
    /* Ten thousand pings in one write: past a burst of drops the client is cut off (its
     * unread bytes make the close a reset, so it may not see all its answers). */
    send_pings(&c, 10000);
    int pongs = 0;
    cJSON *m;
    long long end = h_now_ms() + 5000;
    while (h_now_ms() < end && (m = h_recv(&c, 3000)) != NULL) {
        pongs += strcmp(h_str(m, "type"), "pong") == 0;
        cJSON_Delete(m);
    }
    ck_assert_int_le(pongs, 410);
    ck_assert(h_wait_closed(&c, 1000));
    h_close(&c);
    ck_assert(h_server_log_has(&srv, "flooding"));
    /* Everyone else is served as before. */
    expect_alive(&other);
    h_close(&other);
    stop();
}
END_TEST

START_TEST(spawns_are_rate_limited)
{
    static const char *const args[] = {"--max-spawn-rate", "5", NULL};
    start(args);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    /* Fifteen spawns at once: a burst of 10 at 5 a second, then rate_limited with each req. */
    char batch[4096] = "";
    for (int i = 1; i <= 15; i++) {
        char line[256];
        snprintf(line, sizeof line,
                 "{\"type\":\"spawn\",\"req\":%d,\"body\":{\"shape\":{\"type\":\"circle\","
                 "\"radius\":0.2},\"pos\":[%d,10]}}\n",
                 i, i);
        strcat(batch, line);
    }
    ck_assert(h_send_raw(&c, batch, strlen(batch)));
    int spawned = 0, limited = 0;
    for (int i = 0; i < 15; i++) {
        cJSON *m = h_recv(&c, 3000);
        ck_assert_ptr_nonnull(m);
        if (strcmp(h_str(m, "type"), "state") == 0) {
            i--;
        } else if (strcmp(h_str(m, "type"), "spawned") == 0) {
            ck_assert_double_eq(h_num(m, "req"), spawned + 1);
            spawned++;
        } else {
            ck_assert_str_eq(h_str(m, "code"), "rate_limited");
            ck_assert_double_eq(h_num(m, "req"), 11 + limited);
            limited++;
        }
        cJSON_Delete(m);
    }
    ck_assert_int_eq(spawned, 10);
    ck_assert_int_eq(limited, 5);
    expect_alive(&c);
    h_close(&c);
    stop();
}
END_TEST

START_TEST(silent_connection_is_closed_after_hello_timeout)
{
    static const char *const args[] = {"--hello-timeout", "0.3", NULL};
    start(args);
    h_conn c;
    ck_assert(h_connect(&c, srv.port));
    long long t0 = h_now_ms();
    ck_assert(h_wait_closed(&c, 3000));
    long long waited = h_now_ms() - t0;
    ck_assert_msg(waited >= 250 && waited < 2000, "closed after %lld ms", waited);
    h_close(&c);
    stop();
}
END_TEST

/* The bodies of a saved world file, as JSON (the caller deletes it). */
static cJSON *read_save(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    cJSON *j = cJSON_Parse(text);
    ck_assert_msg(j != NULL, "the save is not JSON");
    return j;
}

static const cJSON *body_by_id(const cJSON *bodies, double id)
{
    const cJSON *b;
    cJSON_ArrayForEach(b, bodies)
    {
        if (h_num(b, "id") == id)
            return b;
    }
    return NULL;
}

/* True when `path` holds `text`. */
static bool file_has(const char *path, const char *text)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, text) != NULL;
}

/* Fifteen inputs 33 ms apart, five of each of three moves (`move` and what follows it). */
static void send_moves(h_conn *c, const char *const moves[3])
{
    for (int i = 0; i < 15; i++) {
        char line[128];
        snprintf(line, sizeof line, "{\"type\":\"input\",\"seq\":%d,\"move\":%s}", i + 1,
                 moves[i / 5]);
        ck_assert(h_send_line(c, line));
        h_sleep_ms(33);
    }
}

START_TEST(a_recorded_session_replays_to_the_same_hash)
{
    char path[] = "/tmp/mink-record-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    const char *const args[] = {"--record", path, "--hash-every", "30", NULL};
    start(args);
    h_conn c;
    /* Next to the demo's stack of crates (x = 5), which the avatar then pushes: the client's
     * bodies leave with it, the crates keep what it did to them. */
    cJSON *w = join(&c, "{\"type\":\"hello\",\"protocol\":1,\"avatar\":{\"shape\":{\"type\":"
                        "\"aabb\",\"half\":[0.4,0.9]},\"pos\":[3.6,1],\"kind\":\"character\"}}");
    cJSON_Delete(w);
    ck_assert(h_send_line(&c, "{\"type\":\"spawn\",\"req\":1,\"body\":{\"shape\":{\"type\":"
                              "\"box\",\"half\":[0.3,0.3]},\"pos\":[1,5],\"rot\":0.4}}"));
    cJSON *sp = h_recv_type(&c, "spawned", 3000);
    ck_assert_ptr_nonnull(sp);
    cJSON_Delete(sp);
    /* Inputs over half a second: run right, jump, run left. */
    const char *moves[] = {"[1,0],\"jump\":false", "[1,0],\"jump\":true", "[-1,0],\"jump\":false"};
    send_moves(&c, moves);
    h_close(&c);
    h_sleep_ms(100);
    ck_assert_int_eq(h_server_stop(&srv, SIGTERM, 3000), 0);
    unlink(srv.log_path);
    ck_assert(file_has(path, "\"type\":\"spawn\""));
    ck_assert(file_has(path, "\"type\":\"input\""));
    ck_assert(file_has(path, "\"type\":\"bye\""));
    ck_assert(file_has(path, "\"end\":"));

    /* Offline, on the same scene: the same ids and the same final hash. */
    char log[] = "/tmp/mink-replay-XXXXXX";
    fd = mkstemp(log);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --replay %s --hash-every 30 2> %s", MINK_SERVER_PATH, path, log);
    int status = system(cmd);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
    ck_assert(file_has(log, "as recorded"));

    /* A recording with a line changed no longer replays: the hash tells. */
    snprintf(cmd, sizeof cmd, "sed -i 's/\"move\":\\[1,0\\]/\"move\":[0.5,0]/' %s", path);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s --replay %s 2> %s", MINK_SERVER_PATH, path, log);
    status = system(cmd);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 1);
    ck_assert(file_has(log, "the end hash is"));
    unlink(log);
    unlink(path);
}
END_TEST

START_TEST(save_on_stop_and_restart_from_it)
{
    char path[] = "/tmp/mink-world-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    const char *const args[] = {"--save", path, NULL};
    start(args);
    h_conn c;
    cJSON *w = join(&c, "{\"type\":\"hello\",\"protocol\":1,\"avatar\":{\"shape\":{\"type\":"
                        "\"aabb\",\"half\":[0.4,0.9]},\"pos\":[0,1],\"kind\":\"character\"}}");
    double avatar = h_num(w, "avatar");
    cJSON_Delete(w);
    ck_assert(h_send_line(&c, "{\"type\":\"spawn\",\"req\":1,\"body\":{\"shape\":{\"type\":"
                              "\"polygon\",\"points\":[[0,0],[1,0],[0.5,0.8]]},\"pos\":[-4,3],"
                              "\"tag\":\"gem\"}}"));
    cJSON *sp = h_recv_type(&c, "spawned", 3000);
    ck_assert_ptr_nonnull(sp);
    double gem = h_num(sp, "id");
    cJSON_Delete(sp);
    h_sleep_ms(300);

    /* SIGHUP writes the world and the server goes on. */
    kill(srv.pid, SIGHUP);
    h_sleep_ms(300);
    ck_assert(h_server_log_has(&srv, "SIGHUP: saved 22 bodies"));
    expect_alive(&c);

    /* SIGTERM: saved with the client's bodies still in it, then a clean exit. */
    int status = h_server_stop(&srv, SIGTERM, 3000);
    ck_assert_int_eq(status, 0);
    ck_assert(h_server_log_has(&srv, "SIGTERM: saved 22 bodies"));
    unlink(srv.log_path);
    h_close(&c);
    cJSON *saved = read_save(path);
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(saved, "bodies");
    ck_assert_int_eq(cJSON_GetArraySize(bodies), 22);
    ck_assert_ptr_nonnull(body_by_id(bodies, avatar));
    ck_assert_ptr_nonnull(body_by_id(bodies, gem));

    /* Restarted from the save: the same bodies, ids and places; nobody owns them now. */
    const char *const again[] = {"--scene", path, NULL};
    start(again);
    cJSON_Delete(join(&c, HELLO));
    cJSON *s = h_recv_type(&c, "state", 3000);
    ck_assert_ptr_nonnull(s);
    const cJSON *now = cJSON_GetObjectItemCaseSensitive(s, "bodies");
    ck_assert_int_eq(cJSON_GetArraySize(now), 22);
    const cJSON *b;
    cJSON_ArrayForEach(b, bodies)
    {
        const cJSON *n = body_by_id(now, h_num(b, "id"));
        ck_assert_msg(n != NULL, "body %.0f is missing", h_num(b, "id"));
        ck_assert_double_eq(h_num(n, "owner"), 0);
        ck_assert_str_eq(h_str(n, "kind"), h_str(b, "kind"));
        if (strcmp(h_str(b, "kind"), "static") == 0)
            ck_assert_double_eq_tol(h_vec(n, "pos", 1), h_vec(b, "pos", 1), 1e-4);
    }
    const cJSON *g = body_by_id(now, gem);
    ck_assert_str_eq(h_str(g, "tag"), "gem");
    ck_assert_str_eq(h_str(cJSON_GetObjectItemCaseSensitive(g, "shape"), "type"), "polygon");
    ck_assert_double_eq_tol(h_vec(g, "pos", 0), h_vec(body_by_id(bodies, gem), "pos", 0), 0.05);
    cJSON_Delete(s);
    cJSON_Delete(saved);
    h_close(&c);
    stop();
    unlink(path);
}
END_TEST

START_TEST(max_line_flag_lowers_the_limit)
{
    static const char *const args[] = {"--max-line", "1000", NULL};
    start(args);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    /* A ping padded to 999 bytes passes; one of 1001 bytes ends the connection. */
    char line[1100];
    int n = snprintf(line, sizeof line, "{\"type\":\"ping\",\"t\":\"");
    memset(line + n, 'x', 999 - (size_t)n - 2);
    memcpy(line + 999 - 2, "\"}", 3);
    ck_assert_int_eq(strlen(line), 999);
    ck_assert(h_send_line(&c, line));
    cJSON *p = h_recv_type(&c, "pong", 3000);
    ck_assert_ptr_nonnull(p);
    cJSON_Delete(p);
    memset(line, 'y', 1001);
    line[1001] = '\0';
    ck_assert(h_send_line(&c, line));
    cJSON *e = h_recv_type(&c, "error", 3000);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(h_str(e, "code"), "line_too_long");
    ck_assert_ptr_nonnull(strstr(h_str(e, "message"), "1000 bytes"));
    cJSON_Delete(e);
    ck_assert(h_wait_closed(&c, 3000));
    h_close(&c);
    stop();
}
END_TEST

START_TEST(one_byte_writes_make_whole_messages)
{
    start(NULL);
    h_conn c;
    ck_assert(h_connect(&c, srv.port));
    const char *text = HELLO "\n{\"type\":\"ping\",\"t\":[1,2]}\n";
    for (const char *p = text; *p; p++) {
        ck_assert(h_send_raw(&c, p, 1));
        if ((p - text) % 8 == 0)
            h_sleep_ms(1); /* so that the bytes arrive in separate reads */
    }
    cJSON *w = h_recv_type(&c, "welcome", 3000);
    ck_assert_ptr_nonnull(w);
    cJSON_Delete(w);
    cJSON *p = h_recv_type(&c, "pong", 3000);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "t")), 2);
    cJSON_Delete(p);
    h_close(&c);
    stop();
}
END_TEST

START_TEST(limit_flags_and_save_path_are_checked)
{
    /* Each bad value exits 2 at once, before serving, saying why on stderr. */
    const char *const cases[][2] = {
        {"--max-msg-rate", "0"},
        {"--max-spawn-rate", "x"},
        {"--hello-timeout", "-1"},
        {"--max-line", "70000"}, /* past the protocol's 65536 */
        {"--out-soft-limit", "9000000"}, /* above the 4 MiB hard limit */
        {"--save", "/nonexistent/dir/world.json"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "%s %s %s 2>/dev/null", MINK_SERVER_PATH, cases[i][0],
                 cases[i][1]);
        int status = system(cmd);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2, "mink-server %s %s: %d",
                      cases[i][0], cases[i][1], status);
    }
}
END_TEST

/* ---- the stress scene, interest radius, backpressure ---- */

START_TEST(sleeping_bodies_leave_the_states_at_rest)
{
    const char *args[] = {"--scene", "pile:25", NULL};
    start(args);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    /* The 25 boxes settle and fall asleep within a couple of seconds; each is in the states
     * until every client has seen it at rest, then no more. */
    double last_speed[27];
    int seen_in[27] = {0};
    int with_boxes = 0, states = 0;
    long long until = h_now_ms() + 5000;
    while (h_now_ms() < until) {
        cJSON *st = h_recv_type(&c, "state", 1000);
        ck_assert_ptr_nonnull(st);
        states++;
        const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(st, "bodies"), *b;
        int boxes = 0;
        cJSON_ArrayForEach(b, bodies)
        {
            int id = (int)h_num(b, "id");
            if (id < 2 || id > 26)
                continue;
            boxes++;
            seen_in[id]++;
            last_speed[id] = hypot(h_vec(b, "vel", 0), h_vec(b, "vel", 1)) + fabs(h_num(b, "w"));
        }
        with_boxes += boxes > 0;
        cJSON_Delete(st);
    }
    ck_assert_int_ge(states, 80);
    ck_assert_int_lt(with_boxes, states - 20); /* the last second or more: no box at all */
    for (int id = 2; id <= 26; id++) {
        ck_assert_int_gt(seen_in[id], 1);
        ck_assert_msg(last_speed[id] == 0.0, "box %d last sent moving at %g", id,
                      last_speed[id]);
    }
    expect_alive(&c);
    h_close(&c);
    stop();
}
END_TEST

START_TEST(pile_scene_is_served)
{
    const char *args[] = {"--scene", "pile:25", NULL};
    start(args);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    cJSON *s = h_recv_type(&c, "state", 3000);
    ck_assert_ptr_nonnull(s);
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(s, "bodies");
    ck_assert_int_eq(cJSON_GetArraySize(bodies), 26);
    /* The ground first, then the boxes of the first column. */
    const cJSON *ground = h_state_body(s, 1), *box = h_state_body(s, 2);
    ck_assert_ptr_nonnull(ground);
    ck_assert_ptr_nonnull(box);
    ck_assert_str_eq(h_str(ground, "kind"), "static");
    ck_assert_str_eq(h_str(box, "kind"), "dynamic");
    ck_assert_double_eq_tol(h_vec(cJSON_GetObjectItemCaseSensitive(box, "shape"), "half", 0), 0.5,
                            1e-9);
    ck_assert_double_eq_tol(h_vec(box, "pos", 0), -1.05, 1e-3);
    cJSON_Delete(s);
    h_close(&c);
    stop();

    /* A bad N is a bad flag: exit 2, the flag named. */
    const char *bad[] = {"pile:0", "pile:x", "pile:", "pile:2.5", "pile:100000"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "%s --scene %s 2>&1", MINK_SERVER_PATH, bad[i]);
        char out[1024];
        int status = run_command(cmd, out, sizeof out);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2, "--scene %s: %d", bad[i],
                      status);
        ck_assert_msg(strstr(out, "--scene pile:N") != NULL, "--scene %s: %s", bad[i], out);
    }
}
END_TEST

/* Spawns two static 1 m boxes at (x0, y) and (x1, y) in one write, so that no state can come
 * between their answers, and returns their ids. */
static void spawn_statics(h_conn *c, double x0, double x1, double y, double ids[2])
{
    char lines[512];
    const char *fmt = "{\"type\":\"spawn\",\"req\":%d,\"body\":{\"shape\":{\"type\":\"aabb\","
                      "\"half\":[0.5,0.5]},\"pos\":[%g,%g],\"kind\":\"static\"}}\n";
    int n = snprintf(lines, sizeof lines, fmt, 0, x0, y);
    n += snprintf(lines + n, sizeof lines - (size_t)n, fmt, 1, x1, y);
    ck_assert(h_send_raw(c, lines, (size_t)n));
    for (int i = 0; i < 2; i++) {
        cJSON *sp = h_recv_type(c, "spawned", 3000);
        ck_assert_ptr_nonnull(sp);
        ck_assert_double_eq(h_num(sp, "req"), i);
        ids[i] = h_num(sp, "id");
        cJSON_Delete(sp);
    }
}

START_TEST(radius_limits_the_state_to_nearby_bodies)
{
    start(NULL);
    h_conn c;
    /* A kinematic avatar high above the demo scene (whose bodies are all below y = 20), with a
     * radius of 20 m: none of the demo's bodies is near it. */
    double avatar = join_kinematic(&c, 0.4, 0.9, 100, 50);
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"radius\":-1}"));
    expect_error(&c, "bad_request");
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"radius\":2e6}"));
    expect_error(&c, "bad_request");
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"radius\":20}"));
    double ids[2];
    spawn_statics(&c, 5, 60, 100, ids);
    double near = ids[0], far = ids[1];
    /* The next state: the near box with its first-sighting fields, and the avatar. */
    cJSON *s = h_recv_type(&c, "state", 2000);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "bodies")), 2);
    ck_assert_str_eq(h_str(h_state_body(s, near), "kind"), "static");
    ck_assert_ptr_nonnull(h_state_body(s, avatar));
    ck_assert_ptr_null(h_state_body(s, far));
    ck_assert_ptr_null(h_state_body(s, 1)); /* the demo's ground */
    cJSON_Delete(s);
    /* The next state: the avatar only (the near box is static and seen). */
    s = h_recv_type(&c, "state", 2000);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "bodies")), 1);
    ck_assert_ptr_nonnull(h_state_body(s, avatar));
    cJSON_Delete(s);

    /* Flying right at 50 m/s: the near box leaves the radius (listed in removed, the body is
     * still in the world), the far one enters with its first-sighting fields. */
    ck_assert(h_send_line(&c, "{\"type\":\"input\",\"seq\":1,\"move\":[1,0]}"));
    bool left = false, entered = false;
    for (int i = 0; i < 60 && !(left && entered); i++) {
        s = h_recv_type(&c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        if (h_state_removed(s, near)) {
            ck_assert_double_gt(h_vec(h_state_body(s, avatar), "pos", 0), 25.5 - 3.0);
            left = true;
        }
        const cJSON *b = h_state_body(s, far);
        if (b) {
            ck_assert_str_eq(h_str(b, "kind"), "static");
            ck_assert_double_eq(h_vec(b, "pos", 0), 60);
            ck_assert_double_gt(h_vec(h_state_body(s, avatar), "pos", 0), 39.5 - 3.0);
            entered = true;
        }
        cJSON_Delete(s);
    }
    ck_assert(left);
    ck_assert(entered);
    ck_assert(h_send_line(&c, "{\"type\":\"input\",\"seq\":2,\"move\":[0,0]}"));
    expect_alive(&c);
    h_close(&c);
    stop();
}
END_TEST

/* The server's resident memory, kB (VmRSS of /proc/<pid>/status). */
static long server_rss_kb(void)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)srv.pid);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = atol(line + 6);
    fclose(f);
    ck_assert_int_gt(kb, 0);
    return kb;
}

/* States a reading client receives in `ms`: how many, the ticks of the first and the last,
 * and their bytes. */
typedef struct state_count {
    int states;
    double first_tick, last_tick, bytes;
} state_count;

static state_count count_states_for(h_conn *c, int ms)
{
    state_count n = {0, 0, 0, 0};
    long long end = h_now_ms() + ms;
    while (h_now_ms() < end) {
        cJSON *s = h_recv_type(c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        n.last_tick = h_num(s, "tick");
        if (n.states++ == 0)
            n.first_tick = n.last_tick;
        n.bytes += (double)c->last_len;
        cJSON_Delete(s);
    }
    return n;
}

static int count_states(h_conn *c, int ms, double *last_tick)
{
    state_count n = count_states_for(c, ms);
    *last_tick = n.last_tick;
    return n.states;
}

/* A slow reader whose socket takes little (a 4 kB receive buffer) fills it in a second or two
 * of a 1,000-box world's states (about 57 kB each). From then on at most one state waits for
 * it (older ones are dropped), so the server's memory stays flat, a reading client keeps its
 * 20 states a second, and when the slow one reads again it gets the newest state, not a
 * backlog. */
START_TEST(slow_reader_does_not_grow_memory_or_slow_others)
{
    const char *args[] = {"--scene", "pile:1000", "--no-sleep", NULL};
    start(args);
    h_conn slow, fast;
    ck_assert(h_connect_rcvbuf(&slow, srv.port, 4096));
    ck_assert(h_send_line(&slow, HELLO));
    cJSON_Delete(join(&fast, HELLO));
    double tick = 0;
    count_states(&fast, 3000, &tick); /* the slow reader's socket fills meanwhile */
    long rss0 = server_rss_kb();
    state_count n = count_states_for(&fast, 4000);
    long rss1 = server_rss_kb();
    /* A state every 3 ticks for the reading client. On a busy test machine the server may run
     * fewer ticks, and the test itself may read late (then the server drops a state for it
     * too): most states still come. A server held up by the slow reader would send few. */
    ck_assert_int_ge(n.states, 20);
    ck_assert_double_ge(n.states, 0.6 * ((n.last_tick - n.first_tick) / 3.0 + 1.0));
#if !defined(__SANITIZE_ADDRESS__)
    /* Queueing every state for the slow reader would hold as many bytes as the fast one got
     * (about 4.5 MB); a tick buffer pinned by its one waiting state is 60 kB. (Not under
     * AddressSanitizer: its quarantine keeps freed memory from reuse, so the RSS of any
     * process that allocates grows.) */
    ck_assert_msg((double)(rss1 - rss0) * 1024 < n.bytes / 4, "server RSS grew from %ld to %ld "
                  "kB while %.0f bytes of states went out", rss0, rss1, n.bytes);
#else
    (void)rss0;
    (void)rss1;
#endif
    ck_assert(!h_server_log_has(&srv, "cut off"));

    /* The slow reader reads again: what its socket held, then the newest states. */
    cJSON *w = h_recv_type(&slow, "welcome", 3000);
    ck_assert_ptr_nonnull(w);
    cJSON_Delete(w);
    double prev = -1, max_gap = 0, last = 0;
    long long end = h_now_ms() + 1500;
    while (h_now_ms() < end) {
        cJSON *s = h_recv_type(&slow, "state", 2000);
        ck_assert_ptr_nonnull(s);
        last = h_num(s, "tick");
        if (prev >= 0 && last - prev > max_gap)
            max_gap = last - prev;
        prev = last;
        cJSON_Delete(s);
    }
    /* 3 ticks between states normally; the ones it could not take were dropped. */
    ck_assert_double_gt(max_gap, 30);
    /* Reading along now, it is up to date: its newest state is at most two periods old. */
    ck_assert(h_send_line(&slow, "{\"type\":\"ping\",\"t\":0}"));
    for (;;) {
        cJSON *m = h_recv(&slow, 2000);
        ck_assert_ptr_nonnull(m);
        bool pong = strcmp(h_str(m, "type"), "pong") == 0;
        if (pong)
            ck_assert_double_le(h_num(m, "tick") - last, 6);
        else
            last = h_num(m, "tick");
        cJSON_Delete(m);
        if (pong)
            break;
    }
    h_close(&slow);
    h_close(&fast);
    stop();
}
END_TEST

/* A reader that stalls: its socket (a 4 kB receive buffer) fills with a 1,000-box world's
 * states, and from then on the pongs to its pings (1 kB each, under the message rate) wait in
 * the server. It is cut off once they stay over the soft limit for --out-soft-seconds, or at
 * once past the hard limit; the log says which, and the other client is still served. */
static void stalled_reader_is_cut_off(const char *const *args, const char *log)
{
    start(args);
    h_conn slow, fast;
    ck_assert(h_connect_rcvbuf(&slow, srv.port, 4096));
    ck_assert(h_send_line(&slow, HELLO));
    cJSON_Delete(join(&fast, HELLO));
    char t[1001];
    memset(t, 'x', sizeof t - 1);
    t[sizeof t - 1] = '\0';
    char ping[1100];
    snprintf(ping, sizeof ping, "{\"type\":\"ping\",\"t\":\"%s\"}", t);
    double tick;
    long long end = h_now_ms() + 15000;
    while (!h_server_log_has(&srv, log) && h_now_ms() < end) {
        /* 40 in 250 ms: under the 200 a second. A send fails once the server has cut it off. */
        for (int i = 0; i < 40 && h_send_line(&slow, ping); i++)
            continue;
        count_states(&fast, 250, &tick);
    }
    ck_assert_msg(h_server_log_has(&srv, log), "no '%s' in the log", log);
    ck_assert(h_server_log_has(&srv, "cut off"));
    ck_assert_int_ge(count_states(&fast, 2000, &tick), 10);
    h_close(&slow);
    h_close(&fast);
    stop();
}

START_TEST(stalled_reader_is_cut_off_by_the_soft_limit)
{
    static const char *const args[] = {"--scene",          "pile:1000", "--no-sleep",
                                       "--out-soft-limit", "65536",     "--out-soft-seconds",
                                       "1",                NULL};
    stalled_reader_is_cut_off(args, "over the soft limit");
}
END_TEST

START_TEST(stalled_reader_is_cut_off_by_the_hard_limit)
{
    static const char *const args[] = {"--scene",          "pile:1000", "--no-sleep",
                                       "--out-soft-limit", "65536",     "--out-hard-limit",
                                       "131072",           NULL};
    stalled_reader_is_cut_off(args, "over the hard limit");
}
END_TEST

START_TEST(load_generator_runs_players)
{
    start(NULL);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --port %d --bots 8 --duration 2 --spawn 2 --json 2>/dev/null",
             MINK_CLIENT_PATH, srv.port);
    char out[4096];
    int status = run_command(cmd, out, sizeof out);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "bots exit %d: %s", status, out);
    cJSON *j = cJSON_Parse(out);
    ck_assert_msg(j != NULL, "not one JSON object: %s", out);
    ck_assert_double_eq(h_num(j, "players"), 8);
    ck_assert_double_eq(h_num(j, "connected"), 8);
    ck_assert_double_eq(h_num(j, "errors"), 0);
    /* About 20 states a second each, and a ping a second each. */
    ck_assert_double_ge(h_num(j, "states_per_s_min"), 12);
    ck_assert_double_le(h_num(j, "states_per_s_median"), 25);
    ck_assert_double_ge(h_num(j, "pongs"), 8);
    ck_assert_double_gt(h_num(j, "rtt_ms_p99"), 0);
    ck_assert_double_ge(h_num(j, "rtt_ms_p99"), h_num(j, "rtt_ms_p50"));
    ck_assert_double_gt(h_num(j, "bytes_per_s"), 1000);
    cJSON_Delete(j);
    /* Each player joined with an avatar and spawned its two bodies. */
    ck_assert(h_server_log_has(&srv, "joined as 'bot7' with an avatar"));
    stop();
}
END_TEST

/* ---- 3D worlds: the server started with --dim 3 (the embedded demo3d scene) ---- */

static const char *const DIM3[] = {"--dim", "3", NULL};

/* The length of a state body's `rot` quaternion. */
static double quat_norm(const cJSON *body)
{
    double x = h_vec(body, "rot", 0), y = h_vec(body, "rot", 1), z = h_vec(body, "rot", 2),
           w = h_vec(body, "rot", 3);
    return sqrt(x * x + y * y + z * z + w * w);
}

static int array_size(const cJSON *obj, const char *key)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
}

/* Spawns `body` (a body spec) with req `req`; returns its id. */
static double spawn_ok(h_conn *c, int req, const char *body)
{
    char line[1024];
    snprintf(line, sizeof line, "{\"type\":\"spawn\",\"req\":%d,\"body\":%s}", req, body);
    ck_assert(h_send_line(c, line));
    cJSON *sp = h_recv_type(c, "spawned", 3000);
    ck_assert_msg(sp != NULL, "no spawned for %s", body);
    ck_assert_double_eq(h_num(sp, "req"), req);
    double id = h_num(sp, "id");
    cJSON_Delete(sp);
    return id;
}

/* The error answering a message; its message must contain `text`. */
static void expect_error_saying(h_conn *c, const char *code, const char *text)
{
    cJSON *e = h_recv_type(c, "error", 3000);
    ck_assert_msg(e != NULL, "no error %s", code);
    ck_assert_str_eq(h_str(e, "code"), code);
    ck_assert_msg(strstr(h_str(e, "message"), text) != NULL, "'%s' does not say '%s'",
                  h_str(e, "message"), text);
    cJSON_Delete(e);
}

/* The next state that has body `id`, skipping the others; NULL after timeout_ms. */
static cJSON *state_with(h_conn *c, double id, int timeout_ms)
{
    long long end = h_now_ms() + timeout_ms;
    while (h_now_ms() < end) {
        cJSON *s = h_recv_type(c, "state", 2000);
        if (!s)
            return NULL;
        if (h_state_body(s, id))
            return s;
        cJSON_Delete(s);
    }
    return NULL;
}

/* A capsule character of radius 0.4 and half height 0.5 stands with its centre 0.9 m above
 * the demo3d floor (whose top is y = 0); (12, -15) is open floor, away from the scene. */
#define CAPSULE_AVATAR                                                                         \
    "{\"type\":\"hello\",\"protocol\":1,\"name\":\"c3\",\"avatar\":{\"shape\":{\"type\":"    \
    "\"capsule\",\"radius\":0.4,\"half_height\":0.5},\"pos\":[12,0.9,-15],\"kind\":"       \
    "\"character\",\"max_speed\":3}}"

START_TEST(dim3_welcome_and_states_are_3d)
{
    start(DIM3);
    h_conn c;
    cJSON *w = join(&c, CAPSULE_AVATAR);
    ck_assert_double_eq(h_num(w, "dim"), 3);
    ck_assert_int_eq(array_size(w, "gravity"), 3);
    ck_assert_double_eq(h_vec(w, "gravity", 0), 0);
    ck_assert_double_eq(h_vec(w, "gravity", 1), -10);
    ck_assert_double_eq(h_vec(w, "gravity", 2), 0);
    double avatar = h_num(w, "avatar");
    ck_assert_double_ge(avatar, 1);
    cJSON *s = h_recv_type(&c, "state", 3000);
    ck_assert_ptr_nonnull(s);
    /* The demo3d scene's 25 bodies and the avatar, every one with 3D vectors and a unit
     * quaternion. */
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(s, "bodies"), *b;
    ck_assert_int_eq(cJSON_GetArraySize(bodies), 26);
    cJSON_ArrayForEach(b, bodies)
    {
        ck_assert_int_eq(array_size(b, "pos"), 3);
        ck_assert_int_eq(array_size(b, "vel"), 3);
        ck_assert_int_eq(array_size(b, "w"), 3);
        ck_assert_int_eq(array_size(b, "rot"), 4);
        ck_assert_double_eq_tol(quat_norm(b), 1.0, 2e-4); /* 4 decimals a component */
    }
    const cJSON *a = h_state_body(s, avatar);
    ck_assert_ptr_nonnull(a);
    ck_assert_str_eq(h_str(a, "kind"), "character");
    ck_assert_double_eq(h_num(a, "owner"), h_num(w, "client"));
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(a, "shape");
    ck_assert_str_eq(h_str(shape, "type"), "capsule");
    ck_assert_double_eq_tol(h_num(shape, "radius"), 0.4, 1e-6);
    ck_assert_double_eq_tol(h_num(shape, "half_height"), 0.5, 1e-6);
    ck_assert_double_eq_tol(h_vec(a, "pos", 0), 12, 1e-3);
    ck_assert_double_eq_tol(h_vec(a, "pos", 2), -15, 1e-3);
    /* The floor: static, a 40 x 1 x 40 m box. */
    const cJSON *floor = h_state_body(s, 1);
    ck_assert_ptr_nonnull(floor);
    ck_assert_str_eq(h_str(floor, "kind"), "static");
    shape = cJSON_GetObjectItemCaseSensitive(floor, "shape");
    ck_assert_str_eq(h_str(shape, "type"), "box");
    ck_assert_double_eq_tol(h_vec(shape, "half", 0), 20, 1e-6);
    ck_assert_double_eq_tol(h_vec(shape, "half", 1), 0.5, 1e-6);
    ck_assert_double_eq_tol(h_vec(shape, "half", 2), 20, 1e-6);
    cJSON_Delete(s);
    cJSON_Delete(w);
    h_close(&c);
    stop();
}
END_TEST

START_TEST(dim3_spawns_and_refusals)
{
    start(DIM3);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    /* Shapes and vectors of the other dim, and a zero quaternion, are refused. */
    ck_assert(h_send_line(&c, "{\"type\":\"spawn\",\"req\":5,\"body\":{\"shape\":{\"type\":"
                              "\"aabb\",\"half\":[1,1]},\"pos\":[0,5,0]}}"));
    expect_error_saying(&c, "bad_request", "2D shape");
    ck_assert(h_send_line(&c, "{\"type\":\"spawn\",\"req\":6,\"body\":{\"shape\":{\"type\":"
                              "\"circle\",\"radius\":1},\"pos\":[0,5,0]}}"));
    expect_error_saying(&c, "bad_request", "2D shape");
    ck_assert(h_send_line(&c, "{\"type\":\"spawn\",\"req\":7,\"body\":{\"shape\":{\"type\":"
                              "\"sphere\",\"radius\":1},\"pos\":[0,5]}}"));
    expect_error_saying(&c, "bad_request", "3 numbers");
    ck_assert(h_send_line(&c, "{\"type\":\"spawn\",\"req\":8,\"body\":{\"shape\":{\"type\":"
                              "\"sphere\",\"radius\":1},\"pos\":[0,5,0],\"rot\":[0,0,0,0]}}"));
    expect_error_saying(&c, "bad_request", "zero quaternion");
    ck_assert(h_send_line(&c, "{\"type\":\"spawn\",\"req\":9,\"body\":{\"shape\":{\"type\":"
                              "\"hull\",\"points\":[[0,0,0],[1,0,0],[0,1,0],[2,2,0]]},"
                              "\"pos\":[0,5,0]}}"));
    expect_error(&c, "bad_request"); /* flat: no volume */

    /* Four static bodies (what the state shows is what was spawned) in one write, so that
     * no state comes between the answers and their first sightings are in the next one.
     * [0, 2, 0, 2] is [0, sin 45, 0, cos 45] scaled: 90 degrees about y. */
    const char *specs[4] = {
        "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.25,1]},\"pos\":[12,3,-12],"
        "\"kind\":\"static\",\"tag\":\"b\"}",
        "{\"shape\":{\"type\":\"sphere\",\"radius\":0.3},\"pos\":[14,3,-12],"
        "\"kind\":\"static\"}",
        "{\"shape\":{\"type\":\"hull\",\"points\":[[0,0,0],[1,0,0],[0,1,0],[0,0,1],"
        "[0.1,0.1,0.1]]},\"pos\":[16,3,-12],\"kind\":\"static\"}",
        "{\"shape\":{\"type\":\"box\",\"half\":[1,0.5,0.5]},\"pos\":[12,3,-16],"
        "\"rot\":[0,2,0,2],\"kind\":\"static\"}",
    };
    char lines[2048];
    size_t n = 0;
    for (int i = 0; i < 4; i++)
        n += (size_t)snprintf(lines + n, sizeof lines - n,
                              "{\"type\":\"spawn\",\"req\":%d,\"body\":%s}\n", i, specs[i]);
    ck_assert(h_send_raw(&c, lines, n));
    double ids[4];
    for (int i = 0; i < 4; i++) {
        cJSON *sp = h_recv_type(&c, "spawned", 3000);
        ck_assert_ptr_nonnull(sp);
        ck_assert_double_eq(h_num(sp, "req"), i);
        ids[i] = h_num(sp, "id");
        cJSON_Delete(sp);
    }
    double box = ids[0], ball = ids[1], hull = ids[2], turned = ids[3];

    /* The four bodies' first sightings. */
    cJSON *s = state_with(&c, turned, 3000);
    ck_assert_ptr_nonnull(s);
    const cJSON *b = h_state_body(s, box);
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(h_str(b, "tag"), "b");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(b, "shape");
    ck_assert_str_eq(h_str(shape, "type"), "box");
    ck_assert_double_eq_tol(h_vec(shape, "half", 0), 0.5, 1e-6);
    ck_assert_double_eq_tol(h_vec(shape, "half", 1), 0.25, 1e-6);
    ck_assert_double_eq_tol(h_vec(shape, "half", 2), 1, 1e-6);
    ck_assert_double_eq_tol(h_vec(b, "pos", 0), 12, 1e-4);
    ck_assert_double_eq_tol(h_vec(b, "pos", 1), 3, 1e-4);
    ck_assert_double_eq_tol(h_vec(b, "pos", 2), -12, 1e-4);

    b = h_state_body(s, ball);
    ck_assert_ptr_nonnull(b);
    shape = cJSON_GetObjectItemCaseSensitive(b, "shape");
    ck_assert_str_eq(h_str(shape, "type"), "sphere");
    ck_assert_double_eq_tol(h_num(shape, "radius"), 0.3, 1e-6);

    /* The hull lists its vertices: the tetrahedron's four corners, not the point inside. */
    b = h_state_body(s, hull);
    ck_assert_ptr_nonnull(b);
    shape = cJSON_GetObjectItemCaseSensitive(b, "shape");
    ck_assert_str_eq(h_str(shape, "type"), "hull");
    const cJSON *points = cJSON_GetObjectItemCaseSensitive(shape, "points"), *p;
    ck_assert_int_eq(cJSON_GetArraySize(points), 4);
    static const double corners[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    int found = 0;
    cJSON_ArrayForEach(p, points)
    {
        ck_assert_int_eq(cJSON_GetArraySize(p), 3);
        double v[3];
        for (int k = 0; k < 3; k++)
            v[k] = cJSON_GetArrayItem(p, k)->valuedouble;
        for (int i = 0; i < 4; i++)
            found += fabs(v[0] - corners[i][0]) < 1e-6 && fabs(v[1] - corners[i][1]) < 1e-6 &&
                     fabs(v[2] - corners[i][2]) < 1e-6;
    }
    ck_assert_int_eq(found, 4);

    /* The non-unit quaternion was normalised: [0, sqrt(1/2), 0, sqrt(1/2)]. */
    b = h_state_body(s, turned);
    ck_assert_double_eq_tol(quat_norm(b), 1.0, 2e-4);
    ck_assert_double_eq_tol(h_vec(b, "rot", 0), 0, 1e-4);
    ck_assert_double_eq_tol(h_vec(b, "rot", 1), 0.70710678, 1e-4);
    ck_assert_double_eq_tol(h_vec(b, "rot", 2), 0, 1e-4);
    ck_assert_double_eq_tol(h_vec(b, "rot", 3), 0.70710678, 1e-4);
    cJSON_Delete(s);
    expect_alive(&c);
    h_close(&c);
    stop();
}
END_TEST

START_TEST(dim3_input_walks_the_character_on_the_floor)
{
    start(DIM3);
    h_conn c;
    cJSON *w = join(&c, CAPSULE_AVATAR);
    double avatar = h_num(w, "avatar");
    cJSON_Delete(w);
    /* A 2D move is refused in a 3D world. */
    ck_assert(h_send_line(&c, "{\"type\":\"input\",\"seq\":1,\"move\":[1,0]}"));
    expect_error_saying(&c, "bad_request", "3 numbers");
    char line[128];
    for (int seq = 1; seq <= 30; seq++) {
        snprintf(line, sizeof line, "{\"type\":\"input\",\"seq\":%d,\"move\":[1,0,0]}", seq);
        ck_assert(h_send_line(&c, line));
        h_sleep_ms(33);
    }
    /* Skip to the states after the last input: it runs at max_speed (3 m/s) along +x, on the
     * floor (its centre 0.9 m up), not drifting in z. */
    double ack = 0;
    long long deadline = h_now_ms() + 3000;
    while (ack < 30 && h_now_ms() < deadline) {
        cJSON *s = h_recv_type(&c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        ack = h_num(s, "ack");
        cJSON_Delete(s);
    }
    ck_assert_double_eq(ack, 30);
    double x0 = NAN, t0 = NAN;
    for (int i = 0; i < 4; i++) {
        cJSON *s = h_recv_type(&c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        const cJSON *b = h_state_body(s, avatar);
        ck_assert_ptr_nonnull(b);
        ck_assert_double_eq_tol(h_vec(b, "vel", 0), 3.0, 1e-2);
        ck_assert_double_eq_tol(h_vec(b, "vel", 2), 0.0, 1e-3);
        ck_assert_double_eq_tol(h_vec(b, "pos", 1), 0.9, 0.03);
        ck_assert_double_eq_tol(h_vec(b, "pos", 2), -15.0, 1e-3);
        double x = h_vec(b, "pos", 0), t = h_num(s, "tick");
        if (!isnan(x0))
            ck_assert_double_eq_tol(x - x0, 3.0 * (t - t0) / 60.0, 2e-2);
        x0 = x;
        t0 = t;
        cJSON_Delete(s);
    }
    /* 30 inputs 33 ms apart: about a second at up to 3 m/s. */
    ck_assert_double_gt(x0, 12.0 + 2.0);
    h_close(&c);
    stop();
}
END_TEST

START_TEST(dim3_dropped_sphere_rests_then_sleeps)
{
    start(DIM3);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"contacts\":true}"));
    double ball = spawn_ok(&c, 1, "{\"shape\":{\"type\":\"sphere\",\"radius\":0.5},"
                                  "\"pos\":[14,3,-14]}");
    /* It falls 2.5 m (0.7 s) and rests with its centre one radius over the floor's top; once
     * asleep and sent at rest it leaves the states. Its contact with the floor (id 1) has
     * the normal straight up from the floor to the ball; at rest (the landing at 7 m/s
     * sinks it a few cm for a few steps) its point is on the floor's top below the centre. */
    double y = NAN, speed = NAN, point[3] = {NAN, NAN, NAN};
    long long last_seen = 0, start_ms = h_now_ms();
    bool contact = false;
    while (h_now_ms() < start_ms + 6000) {
        cJSON *s = h_recv_type(&c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        const cJSON *b = h_state_body(s, ball);
        if (b) {
            last_seen = h_now_ms();
            y = h_vec(b, "pos", 1);
            speed = fabs(h_vec(b, "vel", 0)) + fabs(h_vec(b, "vel", 1)) +
                    fabs(h_vec(b, "vel", 2));
            ck_assert_double_eq_tol(h_vec(b, "pos", 0), 14, 1e-3);
            ck_assert_double_eq_tol(h_vec(b, "pos", 2), -14, 1e-3);
        }
        const cJSON *cs = cJSON_GetObjectItemCaseSensitive(s, "contacts"), *k;
        cJSON_ArrayForEach(k, cs)
        {
            bool ab = h_num(k, "a") == 1 && h_num(k, "b") == ball;
            bool ba = h_num(k, "a") == ball && h_num(k, "b") == 1;
            if (!ab && !ba)
                continue;
            contact = true;
            ck_assert_int_eq(array_size(k, "normal"), 3);
            ck_assert_double_eq_tol(h_vec(k, "normal", 0), 0, 1e-3);
            ck_assert_double_eq_tol(h_vec(k, "normal", 1), ab ? 1 : -1, 1e-3);
            ck_assert_double_eq_tol(h_vec(k, "normal", 2), 0, 1e-3);
            const cJSON *pt = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(k, "points"), 0);
            ck_assert_ptr_nonnull(pt);
            for (int i = 0; i < 3; i++)
                point[i] = h_vec(pt, "pos", i);
        }
        cJSON_Delete(s);
    }
    ck_assert(contact);
    ck_assert_double_eq_tol(point[0], 14, 1e-3);
    ck_assert_double_eq_tol(point[1], 0, 1e-2);
    ck_assert_double_eq_tol(point[2], -14, 1e-3);
    ck_assert_double_eq_tol(y, 0.5, 0.01);
    ck_assert_double_eq(speed, 0.0);
    /* Out of the states for the last second at least. */
    ck_assert_int_lt(last_seen, h_now_ms() - 1000);
    h_close(&c);
    stop();
}
END_TEST

START_TEST(dim3_query_over_the_wire)
{
    start(DIM3);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    /* Two unit spheres 1.5 m apart overlap by 0.5 m along +x; the contact point is midway
     * between the surfaces (x = 1 of a, x = 0.5 of b): x = 0.75. */
    ck_assert(h_send_line(&c, "{\"type\":\"query\",\"req\":\"q1\",\"a\":{\"shape\":{\"type\":"
                              "\"sphere\",\"radius\":1},\"pos\":[0,0,0]},\"b\":{\"shape\":{"
                              "\"type\":\"sphere\",\"radius\":1},\"pos\":[1.5,0,0]}}"));
    cJSON *r = h_recv_type(&c, "result", 3000);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(h_str(r, "req"), "q1");
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "hit")));
    ck_assert_double_eq_tol(h_num(r, "depth"), 0.5, 1e-4);
    ck_assert_int_eq(array_size(r, "normal"), 3);
    ck_assert_double_eq_tol(h_vec(r, "normal", 0), 1, 1e-4);
    ck_assert_double_eq_tol(h_vec(r, "normal", 1), 0, 1e-4);
    ck_assert_double_eq_tol(h_vec(r, "normal", 2), 0, 1e-4);
    const cJSON *pt = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "points"), 0);
    ck_assert_int_eq(cJSON_GetArraySize(pt), 3);
    ck_assert_double_eq_tol(cJSON_GetArrayItem(pt, 0)->valuedouble, 0.75, 1e-4);
    cJSON_Delete(r);
    /* Apart: 3 m between centres, 1 m between surfaces. Then along z: the half-metre cube at
     * the origin reaches z = 0.5, the unit sphere at z = 2.5 down to z = 1.5: a 1 m gap. */
    ck_assert(h_send_line(&c, "{\"type\":\"query\",\"req\":2,\"a\":{\"shape\":{\"type\":"
                              "\"sphere\",\"radius\":1},\"pos\":[0,0,0]},\"b\":{\"shape\":{"
                              "\"type\":\"sphere\",\"radius\":1},\"pos\":[3,0,0]}}"));
    r = h_recv_type(&c, "result", 3000);
    ck_assert_ptr_nonnull(r);
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r, "hit")));
    ck_assert_double_eq_tol(h_num(r, "distance"), 1.0, 1e-4);
    cJSON_Delete(r);
    ck_assert(h_send_line(&c, "{\"type\":\"query\",\"req\":3,\"a\":{\"shape\":{\"type\":"
                              "\"box\",\"half\":[0.5,0.5,0.5]},\"pos\":[0,0,0]},\"b\":{\"shape\":{"
                              "\"type\":\"sphere\",\"radius\":1},\"pos\":[0,0,2.5]}}"));
    r = h_recv_type(&c, "result", 3000);
    ck_assert_ptr_nonnull(r);
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r, "hit")));
    ck_assert_double_eq_tol(h_num(r, "distance"), 1.0, 1e-3);
    cJSON_Delete(r);
    /* A 2D shape is refused, the connection stays. */
    ck_assert(h_send_line(&c, "{\"type\":\"query\",\"req\":4,\"a\":{\"shape\":{\"type\":"
                              "\"circle\",\"radius\":1},\"pos\":[0,0]},\"b\":{\"shape\":{"
                              "\"type\":\"circle\",\"radius\":1},\"pos\":[1,0]}}"));
    expect_error_saying(&c, "bad_request", "2D shape");
    expect_alive(&c);
    h_close(&c);
    stop();
}
END_TEST

/* A body's compact entry ([id, ...]) in a state's bodies, or NULL. */
static const cJSON *compact_entry(const cJSON *state, double id)
{
    const cJSON *b;
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(state, "bodies"))
    {
        const cJSON *first = cJSON_IsArray(b) ? cJSON_GetArrayItem(b, 0) : NULL;
        if (cJSON_IsNumber(first) && first->valuedouble == id)
            return b;
    }
    return NULL;
}

static double item(const cJSON *array, int i)
{
    const cJSON *v = cJSON_GetArrayItem(array, i);
    ck_assert_msg(cJSON_IsNumber(v), "item %d is not a number", i);
    return v->valuedouble;
}

START_TEST(compact_states_send_seen_bodies_as_arrays)
{
    start(NULL);
    h_conn c, v1;
    /* A kinematic avatar flying right at 4 m/s, and a second client that reads the same
     * world as every version 1 client does, without `compact`. */
    double avatar = join_kinematic(&c, 0.4, 0.9, 50, 4);
    cJSON *w = join(&v1, HELLO);
    cJSON_Delete(w);
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"compact\":\"yes\"}"));
    expect_error(&c, "bad_request");
    ck_assert(h_send_line(&c, "{\"type\":\"input\",\"seq\":1,\"move\":[1,0]}"));
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"compact\":true}"));
    const cJSON *e = NULL;
    cJSON *s = NULL;
    for (int i = 0; i < 20 && !e; i++) {
        cJSON_Delete(s);
        s = h_recv_type(&c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        e = compact_entry(s, avatar);
    }
    ck_assert_ptr_nonnull(e);
    /* [id, x, y, rot, vx, vy, w] */
    ck_assert_int_eq(cJSON_GetArraySize(e), 7);
    ck_assert_double_eq(item(e, 0), avatar);
    ck_assert_double_eq_tol(item(e, 2), 50, 1e-4);
    ck_assert_double_eq(item(e, 3), 0);
    ck_assert_double_eq_tol(item(e, 4), 4, 1e-3);
    ck_assert_double_eq(item(e, 5), 0);
    ck_assert_ptr_null(h_state_body(s, avatar)); /* not also as an object */
    /* The other client's states have it as an object, at the same speed and where that speed
     * takes it between the two ticks (each client's states go out on a tick of its own). */
    double tick = h_num(s, "tick"), x = item(e, 1);
    cJSON_Delete(s);
    bool compared = false;
    for (int i = 0; i < 40 && !compared; i++) {
        s = h_recv_type(&v1, "state", 2000);
        ck_assert_ptr_nonnull(s);
        const cJSON *o = h_state_body(s, avatar);
        ck_assert_ptr_null(compact_entry(s, avatar));
        if (o && h_num(s, "tick") > tick) {
            ck_assert_double_eq(h_vec(o, "vel", 0), 4);
            ck_assert_double_eq_tol(h_vec(o, "pos", 0), x + 4.0 * (h_num(s, "tick") - tick) / 60,
                                    2e-4);
            compared = true;
        }
        cJSON_Delete(s);
    }
    ck_assert(compared);
    /* A body it sees for the first time comes as an object with its shape, as always. */
    double box = spawn_ok(&c, 1, "{\"shape\":{\"type\":\"aabb\",\"half\":[0.5,0.5]},"
                                 "\"pos\":[3,52],\"kind\":\"static\"}");
    s = state_with(&c, box, 3000);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(h_str(h_state_body(s, box), "kind"), "static");
    cJSON_Delete(s);
    /* compact:false: objects again. */
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"compact\":false}"));
    s = NULL;
    for (int i = 0; i < 20; i++) {
        cJSON_Delete(s);
        s = h_recv_type(&c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        if (h_state_body(s, avatar))
            break;
    }
    ck_assert_ptr_nonnull(h_state_body(s, avatar));
    ck_assert_ptr_null(compact_entry(s, avatar));
    cJSON_Delete(s);
    h_close(&c);
    h_close(&v1);
    stop();
}
END_TEST

START_TEST(dim3_radius_counts_z)
{
    start(DIM3);
    h_conn c;
    /* A kinematic avatar high above the scene, a static box 5 m from it along x and one 15 m
     * from it along z: with a 10 m radius only the first is near. (In x and y alone both
     * would be.) */
    cJSON *w = join(&c, "{\"type\":\"hello\",\"protocol\":1,\"avatar\":{\"shape\":{\"type\":"
                        "\"box\",\"half\":[0.5,0.5,0.5]},\"pos\":[0,100,0],\"kind\":"
                        "\"kinematic\"}}");
    double avatar = h_num(w, "avatar");
    cJSON_Delete(w);
    ck_assert(h_send_line(&c, "{\"type\":\"subscribe\",\"radius\":10}"));
    /* The near one last: a static body is sent once, and a state that came while waiting for
     * the other's `spawned` would be passed over. */
    double far = spawn_ok(&c, 2, "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},"
                                 "\"pos\":[0,100,15],\"kind\":\"static\"}");
    double near = spawn_ok(&c, 1, "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},"
                                  "\"pos\":[5,100,0],\"kind\":\"static\"}");
    cJSON *s = state_with(&c, near, 3000);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "bodies")), 2);
    ck_assert_ptr_nonnull(h_state_body(s, avatar));
    ck_assert_ptr_null(h_state_body(s, far));
    cJSON_Delete(s);
    h_close(&c);
    stop();
}
END_TEST

START_TEST(dim3_pile_scene_and_dim_flags)
{
    const char *args[] = {"--scene", "pile3d:50", NULL};
    start(args);
    h_conn c;
    cJSON *w = join(&c, HELLO);
    ck_assert_double_eq(h_num(w, "dim"), 3);
    cJSON_Delete(w);
    cJSON *s = h_recv_type(&c, "state", 3000);
    ck_assert_ptr_nonnull(s);
    /* The ground and 50 cubes. */
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "bodies")), 51);
    const cJSON *ground = h_state_body(s, 1), *cube = h_state_body(s, 2);
    ck_assert_ptr_nonnull(ground);
    ck_assert_ptr_nonnull(cube);
    ck_assert_str_eq(h_str(ground, "kind"), "static");
    ck_assert_str_eq(h_str(cube, "kind"), "dynamic");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(cube, "shape");
    ck_assert_str_eq(h_str(shape, "type"), "box");
    for (int k = 0; k < 3; k++)
        ck_assert_double_eq_tol(h_vec(shape, "half", k), 0.5, 1e-9);
    /* The first row rests 0.05 m above the ground's top, and a cube falls that far in
     * 0.1 s: by the first state it is between y = 0.5 and 0.55. */
    ck_assert_double_ge(h_vec(cube, "pos", 1), 0.5 - 1e-3);
    ck_assert_double_le(h_vec(cube, "pos", 1), 0.55 + 1e-4);
    cJSON_Delete(s);
    expect_alive(&c);
    h_close(&c);
    stop();

    /* A --dim that contradicts the scene, and a bad N, exit 2 saying why. */
    char scene[] = "/tmp/mink-scene3-XXXXXX";
    int fd = mkstemp(scene);
    ck_assert_int_ge(fd, 0);
    const char *json = "{\"dim\":3,\"bodies\":[{\"shape\":{\"type\":\"sphere\",\"radius\":1},"
                       "\"pos\":[0,0,0],\"kind\":\"static\"}]}";
    ck_assert_int_eq(write(fd, json, strlen(json)), (ssize_t)strlen(json));
    close(fd);
    const char *cases[][2] = {
        {"--dim 3 --scene pile:5", "2D world"},  {"--dim 2 --scene pile3d:5", "3D world"},
        {"--dim 2 --scene demo3d", "3D world"},  {"--dim 4", "--dim"},
        {"--scene pile3d:0", "--scene pile3d:N"}, {"--scene pile3d:x", "--scene pile3d:N"},
        {"--dim 2 --scene", "3D world"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[512], out[1024];
        bool file = i == sizeof cases / sizeof cases[0] - 1;
        snprintf(cmd, sizeof cmd, "%s %s%s%s --port 0 2>&1", MINK_SERVER_PATH, cases[i][0],
                 file ? " " : "", file ? scene : "");
        int status = run_command(cmd, out, sizeof out);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2, "%s: %d", cases[i][0],
                      status);
        ck_assert_msg(strstr(out, cases[i][1]) != NULL, "%s: %s", cases[i][0], out);
    }
    /* Without --dim the file's dim decides. */
    const char *from_file[] = {"--scene", scene, NULL};
    start(from_file);
    w = join(&c, HELLO);
    ck_assert_double_eq(h_num(w, "dim"), 3);
    cJSON_Delete(w);
    h_close(&c);
    stop();
    unlink(scene);
}
END_TEST

START_TEST(dim3_recorded_session_replays)
{
    char path[] = "/tmp/mink-record3-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    const char *const args[] = {"--dim", "3", "--record", path, "--hash-every", "30", NULL};
    start(args);
    h_conn c;
    /* Next to the demo3d's tower of crates (x = 4, z = 4), which the avatar runs into. */
    cJSON_Delete(join(&c, "{\"type\":\"hello\",\"protocol\":1,\"avatar\":{\"shape\":{\"type\":"
                          "\"capsule\",\"radius\":0.4,\"half_height\":0.5},\"pos\":[2,1,4],"
                          "\"kind\":\"character\"}}"));
    spawn_ok(&c, 1, "{\"shape\":{\"type\":\"box\",\"half\":[0.3,0.3,0.3]},\"pos\":[1,5,2],"
                    "\"rot\":[0.1,0.2,0.3,0.9]}");
    const char *moves[] = {"[1,0,0],\"jump\":false", "[1,0,0.5],\"jump\":true",
                           "[-1,0,-1],\"jump\":false"};
    send_moves(&c, moves);
    h_close(&c);
    h_sleep_ms(100);
    ck_assert_int_eq(h_server_stop(&srv, SIGTERM, 3000), 0);
    unlink(srv.log_path);
    ck_assert(file_has(path, "\"type\":\"input\""));
    ck_assert(file_has(path, "\"end\":"));

    char log[] = "/tmp/mink-replay3-XXXXXX";
    fd = mkstemp(log);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --dim 3 --replay %s --hash-every 30 2> %s", MINK_SERVER_PATH,
             path, log);
    int status = system(cmd);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
    ck_assert(file_has(log, "as recorded"));
    /* On the 2D demo it does not replay. */
    snprintf(cmd, sizeof cmd, "%s --replay %s 2> %s", MINK_SERVER_PATH, path, log);
    status = system(cmd);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 1);
    unlink(path);
    unlink(log);
}
END_TEST

START_TEST(dim3_2d_clients_get_errors_and_the_server_stays)
{
    start(DIM3);
    /* The bots join with 2D avatars: each hello is refused with bad_request (they may say
     * hello again), and the server goes on serving a 3D client. */
    char cmd[512], out[8192];
    snprintf(cmd, sizeof cmd, "%s --port %d --bots 5 --duration 2 2>/dev/null",
             MINK_CLIENT_PATH, srv.port);
    run_command(cmd, out, sizeof out);
    h_conn c;
    cJSON *w = join(&c, CAPSULE_AVATAR);
    ck_assert_double_eq(h_num(w, "dim"), 3);
    cJSON_Delete(w);
    expect_alive(&c);
    h_close(&c);
    ck_assert(h_server_log_has(&srv, "listening"));
    stop();
}
END_TEST

static Suite *server_suite(void)
{
    Suite *s = suite_create("server");
    TCase *tc = tcase_create("wire");
    tcase_add_test(tc, hello_gets_welcome);
    tcase_add_test(tc, spawned_box_rests_on_ground);
    tcase_add_test(tc, input_moves_kinematic_avatar);
    tcase_add_test(tc, bad_json_keeps_connection);
    tcase_add_test(tc, long_line_refused_others_served);
    tcase_add_test(tc, order_and_ownership_errors);
    tcase_add_test(tc, leaving_client_bodies_removed);
    tcase_add_test(tc, quota_and_server_full);
    tcase_add_test(tc, query_over_the_wire);
    tcase_add_test(tc, subscribe_contacts);
    tcase_add_test(tc, messages_over_the_rate_are_dropped);
    tcase_add_test(tc, message_flood_is_cut_off);
    tcase_add_test(tc, spawns_are_rate_limited);
    tcase_add_test(tc, silent_connection_is_closed_after_hello_timeout);
    tcase_add_test(tc, save_on_stop_and_restart_from_it);
    tcase_add_test(tc, a_recorded_session_replays_to_the_same_hash);
    tcase_add_test(tc, limit_flags_and_save_path_are_checked);
    tcase_add_test(tc, max_line_flag_lowers_the_limit);
    tcase_add_test(tc, one_byte_writes_make_whole_messages);
    tcase_add_test(tc, sigterm_stops_cleanly);
    tcase_add_test(tc, client_bot_mode);
    tcase_add_test(tc, bad_flags_and_scenes_exit_cleanly);
    tcase_add_test(tc, pile_scene_is_served);
    tcase_add_test(tc, sleeping_bodies_leave_the_states_at_rest);
    tcase_add_test(tc, radius_limits_the_state_to_nearby_bodies);
    tcase_add_test(tc, compact_states_send_seen_bodies_as_arrays);
    tcase_add_test(tc, slow_reader_does_not_grow_memory_or_slow_others);
    tcase_add_test(tc, stalled_reader_is_cut_off_by_the_soft_limit);
    tcase_add_test(tc, stalled_reader_is_cut_off_by_the_hard_limit);
    tcase_add_test(tc, load_generator_runs_players);
    tcase_set_timeout(tc, 30);
    suite_add_tcase(s, tc);

    TCase *tc3 = tcase_create("3d");
    tcase_add_test(tc3, dim3_welcome_and_states_are_3d);
    tcase_add_test(tc3, dim3_spawns_and_refusals);
    tcase_add_test(tc3, dim3_input_walks_the_character_on_the_floor);
    tcase_add_test(tc3, dim3_dropped_sphere_rests_then_sleeps);
    tcase_add_test(tc3, dim3_query_over_the_wire);
    tcase_add_test(tc3, dim3_radius_counts_z);
    tcase_add_test(tc3, dim3_pile_scene_and_dim_flags);
    tcase_add_test(tc3, dim3_recorded_session_replays);
    tcase_add_test(tc3, dim3_2d_clients_get_errors_and_the_server_stays);
    tcase_set_timeout(tc3, 30);
    suite_add_tcase(s, tc3);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(server_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
