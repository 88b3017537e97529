/* Integration: the HTTP port of the real mink-server, asked with real HTTP requests: the
 * Prometheus metrics, the health endpoints, the drain, and bad input on the HTTP port while the
 * game port goes on ticking. The Agones tests are in test_ops_agones.c. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "ops_fixture.h"

int http_port;

void start_http(const char *const *extra)
{
    const char *args[32];
    char port[16];
    http_port = http_free_port();
    ck_assert_int_gt(http_port, 0);
    snprintf(port, sizeof port, "%d", http_port);
    int n = 0;
    args[n++] = "--http-port";
    args[n++] = port;
    for (int i = 0; extra && extra[i] && n < 30; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    start(args);
    /* The HTTP port is opened just after the game port's "listening on" line. */
    long long end = h_now_ms() + 5000;
    while (!h_server_log_has(&srv, "http on 127.0.0.1:") && h_now_ms() < end)
        h_sleep_ms(10);
    ck_assert(h_server_log_has(&srv, "http on 127.0.0.1:"));
}

int wait_exit(int timeout_ms)
{
    long long end = h_now_ms() + timeout_ms;
    int status = 0;
    pid_t got = 0;
    while (h_now_ms() < end && (got = waitpid(srv.pid, &status, WNOHANG)) == 0)
        h_sleep_ms(10);
    if (got != srv.pid) {
        h_server_stop(&srv, SIGKILL, 1000);
        unlink(srv.log_path);
        return -1;
    }
    srv.pid = 0;
    unlink(srv.log_path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -2;
}

char *get_ok(const char *path, int status)
{
    http_resp r;
    ck_assert_msg(http_get(http_port, path, &r), "no answer to GET %s", path);
    ck_assert_msg(r.status == status, "GET %s: %d, not %d: %s", path, r.status, status, r.body);
    return r.body;
}

double scrape(const char *series)
{
    char *body = get_ok("/metrics", 200);
    double v = http_metric(body, series);
    free(body);
    return v;
}

tick_mark tick_mark_now(void)
{
    tick_mark m = {scrape("mink_ticks_total"), scrape("mink_ticks_dropped_total"), 0};
    m.t0 = h_now_ms();
    return m;
}

void expect_ticks_kept(tick_mark m)
{
    double ticks = scrape("mink_ticks_total") - m.ticks;
    double seconds = (double)(h_now_ms() - m.t0) / 1000.0;
    ck_assert_msg(ticks >= 30.0 * seconds, "%g ticks in %.2f s", ticks, seconds);
    double dropped = scrape("mink_ticks_dropped_total") - m.dropped;
    ck_assert_msg(dropped <= 0.1 * ticks, "%g ticks dropped, %g run", dropped, ticks);
}

/* ---- metrics ---- */

START_TEST(metrics_count_what_happened)
{
    /* pile:5: five 1 m boxes on a static ground (docs/OPERATING.md, "Load testing"), none
     * asleep with --no-sleep. */
    const char *args[] = {"--scene", "pile:5", "--no-sleep", NULL};
    start_http(args);
    http_resp r;
    ck_assert(http_get(http_port, "/metrics", &r));
    ck_assert_int_eq(r.status, 200);
    char type[128];
    ck_assert(http_header(&r, "content-type", type, sizeof type));
    ck_assert_msg(strncmp(type, "text/plain; version=0.0.4", 25) == 0, "%s", type);
    ck_assert_double_eq(http_metric(r.body, "mink_clients_connected"), 0);
    ck_assert_double_eq(http_metric(r.body, "mink_bodies{state=\"awake\"}"), 5);
    ck_assert_double_eq(http_metric(r.body, "mink_bodies{state=\"asleep\"}"), 0);
    ck_assert_double_eq(http_metric(r.body, "mink_bodies{state=\"static\"}"), 1);
    ck_assert_double_eq(http_metric(r.body, "mink_build_info{version=\"0.1.0\",dim=\"2\"}"), 1);
    ck_assert_double_eq(http_metric(r.body, "mink_received_bytes_total"), 0);
    ck_assert_ptr_nonnull(strstr(r.body, "# TYPE mink_tick_duration_seconds histogram\n"));
    ck_assert_ptr_nonnull(strstr(r.body, "# TYPE mink_ticks_total counter\n"));
    http_resp_free(&r);

    /* One client: a hello, a line that is not JSON, a ping: three lines, bytes counted. */
    h_conn c;
    const char bad[] = "this is not json";
    cJSON *w = join(&c, HELLO);
    ck_assert(h_send_line(&c, bad));
    expect_error(&c, "bad_json");
    expect_alive(&c);
    const char ping[] = "{\"type\":\"ping\",\"t\":\"alive\"}"; /* what expect_alive sends */
    double sent = (double)(strlen(HELLO) + 1 + sizeof bad + sizeof ping);
    char *body = get_ok("/metrics", 200);
    ck_assert_double_eq(http_metric(body, "mink_clients_connected"), 1);
    ck_assert_double_eq(http_metric(body, "mink_received_bytes_total"), sent);
    ck_assert_double_eq(http_metric(body, "mink_received_messages_total"), 3);
    ck_assert_double_eq(http_metric(body, "mink_errors_sent_total{code=\"bad_json\"}"), 1);
    ck_assert_double_eq(http_metric(body, "mink_errors_sent_total{code=\"quota\"}"), 0);
    ck_assert_double_eq(http_metric(body, "mink_connections_accepted_total"), 1);
    /* A hello without an avatar adds no body. */
    ck_assert(isnan(h_num(w, "avatar")));
    ck_assert_double_eq(http_metric(body, "mink_bodies{state=\"awake\"}"), 5);
    /* The histogram: cumulative buckets, +Inf is the count, no more ticks timed than run. */
    double prev = 0, ticks = http_metric(body, "mink_ticks_total");
    const char *le[] = {"0.0005", "0.001", "0.002", "0.004", "0.008", "0.016", "0.032", "0.064",
                        "0.128", "+Inf"};
    for (int i = 0; i < 10; i++) {
        char series[96];
        snprintf(series, sizeof series, "mink_tick_duration_seconds_bucket{le=\"%s\"}", le[i]);
        double v = http_metric(body, series);
        ck_assert_msg(v >= prev, "%s: %g after %g", series, v, prev);
        prev = v;
    }
    ck_assert_double_eq(prev, http_metric(body, "mink_tick_duration_seconds_count"));
    ck_assert(prev > 0 && prev <= ticks);
    ck_assert(http_metric(body, "mink_step_duration_seconds_count") == ticks);
    /* welcome, error, pong and a state at least */
    ck_assert(http_metric(body, "mink_sent_messages_total") >= 4);
    ck_assert(http_metric(body, "mink_sent_bytes_total") > 0);
    free(body);
    cJSON_Delete(w);

    /* Leaving is counted by reason. */
    ck_assert(h_send_line(&c, "{\"type\":\"bye\"}"));
    ck_assert(h_wait_closed(&c, 3000));
    h_close(&c);
    long long end = h_now_ms() + 3000;
    while (scrape("mink_clients_connected") != 0 && h_now_ms() < end)
        h_sleep_ms(20);
    ck_assert_double_eq(scrape("mink_disconnects_total{reason=\"closed\"}"), 1);
    ck_assert_double_eq(scrape("mink_disconnects_total{reason=\"unauthorized\"}"), 0);
    ck_assert_double_eq(scrape("mink_bodies{state=\"awake\"}"), 5);
    stop();
}
END_TEST

/* ---- health ---- */

START_TEST(health_answers)
{
    const char *args[] = {"--max-clients", "1", NULL};
    start_http(args);
    static const struct {
        const char *path;
        int status;
    } answers[] = {{"/livez", 200}, {"/healthz", 200}, {"/", 200}, {"/nothing-here", 404}};
    for (size_t i = 0; i < sizeof answers / sizeof answers[0]; i++)
        free(get_ok(answers[i].path, answers[i].status));
    char *b = get_ok("/readyz", 200);
    ck_assert_str_eq(b, "ready\n");
    free(b);
    /* Full: the one client the server takes is there. */
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    b = get_ok("/readyz", 503);
    ck_assert_msg(strncmp(b, "full", 4) == 0, "%s", b);
    free(b);
    free(get_ok("/livez", 200));
    h_close(&c);
    long long end = h_now_ms() + 3000;
    http_resp r = {0};
    do {
        http_resp_free(&r);
        ck_assert(http_get(http_port, "/readyz", &r));
    } while (r.status != 200 && h_now_ms() < end);
    ck_assert_int_eq(r.status, 200);
    http_resp_free(&r);
    /* Only GET. */
    const char post[] = "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                        "Connection: close\r\n\r\n";
    ck_assert(http_raw(http_port, post, sizeof post - 1, &r, 3000));
    ck_assert_int_eq(r.status, 405);
    http_resp_free(&r);
    stop();
}
END_TEST

/* A loop that does not step is not live: the process is stopped for longer than
 * --stall-seconds; the request sent meanwhile is answered when it runs again. */
START_TEST(livez_reports_a_stall)
{
    const char *args[] = {"--stall-seconds", "1", NULL};
    start_http(args);
    free(get_ok("/livez", 200));
    kill(srv.pid, SIGSTOP);
    h_sleep_ms(1500);
    kill(srv.pid, SIGCONT);
    char *b = get_ok("/livez", 503);
    ck_assert_msg(strncmp(b, "stalled", 7) == 0, "%s", b);
    free(b);
    free(get_ok("/healthz", 503));
    /* Stepping again for longer than --stall-seconds: live again. */
    h_sleep_ms(1300);
    free(get_ok("/livez", 200));
    stop();
}
END_TEST

/* ---- drain ---- */

START_TEST(sigterm_drains)
{
    char save[64];
    snprintf(save, sizeof save, "/tmp/mink-ops-save-%d", (int)getpid());
    const char *args[] = {"--save", save, "--drain-seconds", "2", NULL};
    start_http(args);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    kill(srv.pid, SIGTERM);
    expect_error(&c, "shutdown");
    ck_assert(h_wait_closed(&c, 3000));
    h_close(&c);
    /* Exit 0, the world saved. */
    ck_assert_int_eq(wait_exit(3000), 0);
    ck_assert(file_has(save, "MINKSNAP"));
    h_remove_save(save);
}
END_TEST

/* ---- bad input ---- */

/* Connections to the HTTP port that say nothing. */
static int open_many(int *fds, int n)
{
    int opened = 0;
    for (int i = 0; i < n; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)http_port)};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fds[i] >= 0 && connect(fds[i], (struct sockaddr *)&a, sizeof a) == 0)
            opened++;
    }
    return opened;
}

/* Those the server has closed (end of stream or reset). */
static int count_closed(const int *fds, int n)
{
    int closed = 0;
    for (int i = 0; i < n; i++) {
        char b;
        ssize_t got = recv(fds[i], &b, 1, MSG_DONTWAIT | MSG_PEEK);
        closed += got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
    }
    return closed;
}

START_TEST(bad_requests_get_400_or_a_close)
{
    start_http(NULL);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    tick_mark mark = tick_mark_now();

    /* Garbage. */
    http_resp r;
    const char junk[] = "\x16\x03\x01 this is not HTTP at all\r\n\r\n";
    ck_assert(http_raw(http_port, junk, sizeof junk - 1, &r, 3000));
    ck_assert_msg(r.status == 0 || (r.status >= 400 && r.status < 500), "%d", r.status);
    http_resp_free(&r);
    /* A 1 MB header. */
    size_t big = 1 << 20;
    char *req = malloc(big + 128);
    int n = snprintf(req, big + 128, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ");
    memset(req + n, 'a', big);
    memcpy(req + n + big, "\r\n\r\n", 5);
    ck_assert(http_raw(http_port, req, (size_t)n + big + 4, &r, 5000));
    /* libwebsockets refuses headers over its limit (403) or closes. */
    ck_assert_msg(r.status == 0 || (r.status >= 400 && r.status < 500), "%d", r.status);
    http_resp_free(&r);
    free(req);
    /* Each was answered alone: the port still serves. */
    free(get_ok("/livez", 200));
    expect_alive(&c);

    /* A slow loris: a header a byte every 200 ms is closed by the request timeout (5 s). */
    {
        h_conn slow;
        ck_assert(h_connect(&slow, http_port));
        const char part[] = "GET /metrics HTTP/1.1\r\nX-Slow: ";
        ck_assert(h_send_raw(&slow, part, sizeof part - 1));
        bool closed = false;
        long long end = h_now_ms() + 9000;
        while (!closed && h_now_ms() < end) {
            closed = !h_send_raw(&slow, "a", 1) || h_wait_closed(&slow, 200);
        }
        ck_assert_msg(closed, "a slow loris kept its connection");
        h_close(&slow);
    }

    /* 1000 connections at once: the first 64 are held, the rest closed at accept; the game
     * port and the HTTP port go on. */
    enum { MANY = 1000 };
    static int many[MANY];
    int opened = open_many(many, MANY);
    ck_assert_int_eq(opened, MANY);
    int closed = 0;
    long long end = h_now_ms() + 4000;
    while ((closed = count_closed(many, MANY)) < MANY - 64 && h_now_ms() < end)
        h_sleep_ms(50);
    ck_assert_msg(closed >= MANY - 64, "%d of %d closed", closed, MANY);
    for (int i = 0; i < MANY; i++)
        close(many[i]);
    free(get_ok("/livez", 200));
    expect_alive(&c);

    /* The game port kept its tick rate throughout: none of the above blocked its loop. */
    expect_ticks_kept(mark);
    h_close(&c);
    stop();
}
END_TEST

/* The HTTP port in use: the server says which and does not start. */
START_TEST(http_port_in_use_is_an_error)
{
    start_http(NULL);
    h_server other;
    char port[16];
    snprintf(port, sizeof port, "%d", http_port);
    const char *args[] = {"--http-port", port, NULL};
    h_server_start(&other, args); /* the game port may come up first */
    h_server keep = srv;
    srv = other;
    ck_assert(other.pid == 0 || wait_exit(5000) == 1);
    srv = keep;
    free(get_ok("/livez", 200));
    stop();
}
END_TEST

/* Inputs that name their step's tick are counted, and those that came after it as late. */
START_TEST(metrics_count_stamped_and_late_inputs)
{
    start_http(NULL);
    h_conn c;
    join_kinematic(&c, 0.5, 0.5, 10, 3);
    cJSON *st = h_recv_type(&c, "state", 2000);
    ck_assert_ptr_nonnull(st);
    double tick = h_num(st, "tick");
    cJSON_Delete(st);
    char line[160];
    /* Half a second ahead, twice: they wait, on time. Then one for tick 1, long past: late,
     * and applied after them (inputs keep their order). Then one without a tick. */
    for (int i = 1; i <= 2; i++) {
        snprintf(line, sizeof line,
                 "{\"type\":\"input\",\"seq\":%d,\"tick\":%.0f,\"move\":[1,0]}", i,
                 tick + 29 + i);
        ck_assert(h_send_line(&c, line));
    }
    ck_assert(h_send_line(&c, "{\"type\":\"input\",\"seq\":3,\"tick\":1,\"move\":[0,0]}"));
    ck_assert(h_send_line(&c, "{\"type\":\"input\",\"seq\":4,\"move\":[0,0]}"));
    expect_alive(&c); /* every line before the ping has been read */
    char *body = get_ok("/metrics", 200);
    ck_assert_double_eq(http_metric(body, "mink_inputs_stamped_total"), 3);
    ck_assert_double_eq(http_metric(body, "mink_inputs_late_total"), 1);
    ck_assert_ptr_nonnull(strstr(body, "# TYPE mink_inputs_late_total counter\n"));
    free(body);
    h_close(&c);
    stop();
}
END_TEST

MINK_CHECK_SUITE("ops", s)
{
    MINK_TCASE(s, "http", 60, metrics_count_what_happened, metrics_count_stamped_and_late_inputs,
               health_answers, livez_reports_a_stall, sigterm_drains,
               bad_requests_get_400_or_a_close, http_port_in_use_is_an_error);
    ops_agones_tests(s);
    ops_ws_tests(s);
}
