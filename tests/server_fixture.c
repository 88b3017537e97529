/* The fixture of the server's integration suite: one mink-server at a time on an ephemeral
 * loopback port, and the steps most tests take with it (join, expect an error, ping). */
#include "server_fixture.h"

#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

h_server srv;
const char *const DIM3[] = {"--dim", "3", NULL};

void start(const char *const *args)
{
    ck_assert_msg(h_server_start(&srv, args), "mink-server did not start");
}

void stop(void)
{
    int status = h_server_stop(&srv, SIGTERM, 3000);
    ck_assert_int_eq(status, 0);
    unlink(srv.log_path);
}

/* Connects and joins; returns the welcome (caller deletes). */
cJSON *join(h_conn *c, const char *hello)
{
    ck_assert(h_connect(c, srv.port));
    ck_assert(h_send_line(c, hello));
    cJSON *w = h_recv_type(c, "welcome", 3000);
    ck_assert_msg(w != NULL, "no welcome");
    return w;
}

void start_and_join(h_conn *c, const char *const *args)
{
    start(args);
    cJSON_Delete(join(c, HELLO));
}

void start_and_join_with(h_conn *c, const char *flag, const char *value)
{
    const char *const args[] = {flag, value, NULL};
    start_and_join(c, args);
}

void start_and_join_pair(h_conn *c, h_conn *other)
{
    start_and_join(c, NULL);
    cJSON_Delete(join(other, HELLO));
}

h_conn start_joined(const char *const *args)
{
    h_conn c;
    start_and_join(&c, args);
    return c;
}

/* Joins with a kinematic avatar (half extents hx, hy) at (0, y); returns the avatar's id. */
double join_kinematic(h_conn *c, double hx, double hy, double y, double max_speed)
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

void expect_error(h_conn *c, const char *code)
{
    cJSON *e = h_recv_type(c, "error", 3000);
    ck_assert_msg(e != NULL, "no error %s", code);
    ck_assert_str_eq(h_str(e, "code"), code);
    ck_assert_ptr_nonnull(h_str(e, "message"));
    cJSON_Delete(e);
}

/* A ping answered proves the connection still works. */
void expect_alive(h_conn *c)
{
    ck_assert(h_send_line(c, "{\"type\":\"ping\",\"t\":\"alive\"}"));
    cJSON *p = h_recv_type(c, "pong", 3000);
    ck_assert_msg(p != NULL, "no pong");
    ck_assert_str_eq(h_str(p, "t"), "alive");
    cJSON_Delete(p);
}

/* Runs a shell command; its stdout goes to `out` (cut to fit); returns its wait status. */
int run_command(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    return pclose(p);
}

/* True when `path` holds `text`. */
bool file_has(const char *path, const char *text)
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
void send_moves(h_conn *c, const char *const moves[3])
{
    for (int i = 0; i < 15; i++) {
        char line[128];
        snprintf(line, sizeof line, "{\"type\":\"input\",\"seq\":%d,\"move\":%s}", i + 1,
                 moves[i / 5]);
        ck_assert(h_send_line(c, line));
        h_sleep_ms(33);
    }
}

double send_inputs_to_ack(h_conn *c, const char *move, int n)
{
    for (int seq = 1; seq <= n; seq++) {
        char line[128];
        snprintf(line, sizeof line, "{\"type\":\"input\",\"seq\":%d,\"move\":%s}", seq, move);
        ck_assert(h_send_line(c, line));
        h_sleep_ms(33);
    }
    double ack = 0;
    long long deadline = h_now_ms() + 3000;
    while (ack < n && h_now_ms() < deadline) {
        cJSON *s = h_recv_type(c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        ack = h_num(s, "ack");
        cJSON_Delete(s);
    }
    return ack;
}

double expect_run(h_conn *c, double id, double speed, const field_near *fields, size_t n,
                  double tol, double *ack)
{
    double x0 = NAN, t0 = NAN;
    for (int i = 0; i < 4; i++) {
        cJSON *s = h_recv_type(c, "state", 2000);
        ck_assert_ptr_nonnull(s);
        const cJSON *b = h_state_body(s, id);
        ck_assert_ptr_nonnull(b);
        for (size_t k = 0; k < n; k++)
            ck_assert_msg(fabs(h_vec(b, fields[k].key, fields[k].i) - fields[k].want) <
                              fields[k].tol,
                          "%s[%d] = %.9g, not %.9g within %g", fields[k].key, fields[k].i,
                          h_vec(b, fields[k].key, fields[k].i), fields[k].want, fields[k].tol);
        double x = h_vec(b, "pos", 0), t = h_num(s, "tick");
        if (!isnan(x0))
            ck_assert_double_eq_tol(x - x0, speed * (t - t0) / 60.0, tol);
        x0 = x;
        t0 = t;
        *ack = h_num(s, "ack");
        cJSON_Delete(s);
    }
    return x0;
}

void despawn(h_conn *c, int req, double id, char *line, size_t cap)
{
    snprintf(line, cap, "{\"type\":\"despawn\",\"req\":%d,\"id\":%.0f}", req, id);
    ck_assert(h_send_line(c, line));
}

/* Spawns `body` (a body spec) with req `req`; returns its id. */
double spawn_ok(h_conn *c, int req, const char *body)
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

double spawn_unit_box(h_conn *c, int req, double x, double y, const char *more)
{
    char body[256];
    snprintf(body, sizeof body,
             "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5]},\"pos\":[%g,%g]%s}", x, y, more);
    return spawn_ok(c, req, body);
}

const cJSON *expect_avatar_shape(const cJSON *state, const cJSON *welcome, const char *type)
{
    const cJSON *b = h_state_body(state, h_num(welcome, "avatar"));
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(h_str(b, "kind"), "character");
    ck_assert_double_eq(h_num(b, "owner"), h_num(welcome, "client"));
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(b, "shape");
    ck_assert_str_eq(h_str(shape, "type"), type);
    return shape;
}

cJSON *state_before(h_conn *c, long long end, int wait_ms)
{
    while (h_now_ms() < end) {
        cJSON *s = h_recv_type(c, "state", wait_ms);
        if (s)
            return s;
    }
    return NULL;
}

/* The next state that has body `id`, skipping the others; NULL after timeout_ms. */
cJSON *state_with(h_conn *c, double id, int timeout_ms)
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

cJSON *next_state_with(h_conn *c, double id)
{
    cJSON *s = state_with(c, id, 3000);
    ck_assert_msg(s != NULL, "no state with body %.0f within 3 s", id);
    return s;
}

void next_state_vec(h_conn *c, double id, const char *key, double v[3])
{
    cJSON *s = next_state_with(c, id);
    const cJSON *b = h_state_body(s, id);
    for (int i = 0; i < 3; i++)
        v[i] = h_vec(b, key, i);
    cJSON_Delete(s);
}

void expect_forgotten(h_conn *c, cJSON *welcome, double body)
{
    ck_assert_ptr_null(cJSON_GetObjectItem(welcome, "avatar"));
    cJSON_Delete(welcome);
    char line[128];
    despawn(c, 1, body, line, sizeof line);
    expect_error(c, "not_found");
}

void expect_owner(h_conn *c, double id, double owner)
{
    cJSON *s = next_state_with(c, id);
    ck_assert_double_eq(h_num(h_state_body(s, id), "owner"), owner);
    cJSON_Delete(s);
}

cJSON *request(h_conn *c, const char *line, const char *type)
{
    ck_assert(h_send_line(c, line));
    cJSON *r = h_recv_type(c, type, 3000);
    ck_assert_msg(r != NULL, "no %s for %s", type, line);
    return r;
}

cJSON *expect_hit(h_conn *c, const char *query, const char *req, double depth, double tol)
{
    cJSON *r = request(c, query, "result");
    ck_assert_str_eq(h_str(r, "req"), req);
    ck_assert_msg(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "hit")), "no hit: %s", query);
    ck_assert_double_eq_tol(h_num(r, "depth"), depth, tol);
    return r;
}

void expect_miss(h_conn *c, const char *query, double distance, double tol)
{
    cJSON *r = request(c, query, "result");
    ck_assert_msg(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r, "hit")), "hit: %s", query);
    ck_assert_double_eq_tol(h_num(r, "distance"), distance, tol);
    cJSON_Delete(r);
}

void make_temp_file(char *path_template)
{
    int fd = mkstemp(path_template);
    ck_assert_int_ge(fd, 0);
    close(fd);
}

h_conn start_recording(char *path_template, bool dim3, const char *pos)
{
    make_temp_file(path_template);
    const char *const args[] = {"--record", path_template, "--hash-every", "30", NULL};
    const char *const args3[] = {"--dim", "3", "--record", path_template, "--hash-every", "30",
                                 NULL};
    start(dim3 ? args3 : args);
    char hello[512];
    snprintf(hello, sizeof hello,
             "{\"type\":\"hello\",\"protocol\":1,\"avatar\":{\"shape\":%s,\"pos\":%s,"
             "\"kind\":\"character\"}}",
             dim3 ? "{\"type\":\"capsule\",\"radius\":0.4,\"half_height\":0.5}"
                  : "{\"type\":\"aabb\",\"half\":[0.4,0.9]}",
             pos);
    h_conn c;
    cJSON_Delete(join(&c, hello));
    return c;
}

void expect_refused_naming(h_conn *c, const char *line, const char *code, const char *field)
{
    ck_assert(h_send_line(c, line));
    cJSON *e = h_recv_type(c, "error", 3000);
    ck_assert_msg(e != NULL, "no error for %s", line);
    ck_assert_str_eq(h_str(e, "code"), code);
    ck_assert_msg(strncmp(h_str(e, "message"), field, strlen(field)) == 0,
                  "%s: the message \"%s\" does not name %s", line, h_str(e, "message"), field);
    cJSON_Delete(e);
}

void close_and_stop(h_conn *c)
{
    h_close(c);
    h_sleep_ms(100);
    stop();
}

int server_exit_code(const char *fmt, ...)
{
    char cmd[1024];
    int n = snprintf(cmd, sizeof cmd, "%s ", MINK_SERVER_PATH);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd + n, sizeof cmd - (size_t)n, fmt, ap);
    va_end(ap);
    int status = system(cmd);
    ck_assert_msg(WIFEXITED(status), "%s did not exit", cmd);
    return WEXITSTATUS(status);
}

void stop_and_replay(h_conn *c, const char *path, const char *flags, char *log)
{
    close_and_stop(c);
    ck_assert(file_has(path, "\"type\":\"input\""));
    ck_assert(file_has(path, "\"end\":"));
    make_temp_file(log);
    ck_assert_int_eq(server_exit_code("%s--replay %s --hash-every 30 2> %s", flags, path, log), 0);
    ck_assert(file_has(log, "as recorded"));
}
