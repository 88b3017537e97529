#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MINK_SERVER_PATH
#error "MINK_SERVER_PATH must name the mink-server binary"
#endif

long long h_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void h_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *s = malloc(cap);
    size_t n;
    while (s && (n = fread(s + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            char *p = realloc(s, cap * 2);
            if (!p) {
                free(s);
                s = NULL;
                break;
            }
            s = p;
            cap *= 2;
        }
    }
    fclose(f);
    if (s)
        s[len] = '\0';
    return s;
}

bool h_server_log_has(const h_server *srv, const char *text)
{
    char *log = read_file(srv->log_path);
    bool found = log && strstr(log, text) != NULL;
    free(log);
    return found;
}

bool h_server_start(h_server *srv, const char *const *args)
{
    memset(srv, 0, sizeof *srv);
    snprintf(srv->log_path, sizeof srv->log_path, "/tmp/mink-test-XXXXXX");
    int log_fd = mkstemp(srv->log_path);
    if (log_fd < 0)
        return false;
    /* No HTTP port unless a test asks for one (its default, 7778, is one port for all). */
    const char *argv[64] = {MINK_SERVER_PATH, "--host", "127.0.0.1", "--port", "0",
                            "--http-port", "0"};
    int argc = 7;
    for (int i = 0; args && args[i] && argc < 62; i++)
        argv[argc++] = args[i];
    argv[argc] = NULL;
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        dup2(log_fd, 2);
        int devnull = open("/dev/null", O_RDWR);
        dup2(devnull, 0);
        dup2(devnull, 1);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(log_fd);
    srv->pid = pid;
    long long deadline = h_now_ms() + 10000;
    while (h_now_ms() < deadline) {
        char *log = read_file(srv->log_path);
        const char *at = log ? strstr(log, "listening on 127.0.0.1:") : NULL;
        if (at) {
            srv->port = atoi(at + strlen("listening on 127.0.0.1:"));
            free(log);
            return srv->port > 0;
        }
        free(log);
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            srv->pid = 0;
            return false;
        }
        h_sleep_ms(10);
    }
    h_server_stop(srv, SIGKILL, 1000);
    return false;
}

int h_server_stop(h_server *srv, int sig, int timeout_ms)
{
    if (srv->pid <= 0)
        return -1;
    kill(srv->pid, sig);
    long long deadline = h_now_ms() + timeout_ms;
    int status = 0;
    int result = -1;
    while (h_now_ms() < deadline) {
        if (waitpid(srv->pid, &status, WNOHANG) == srv->pid) {
            result = WIFEXITED(status) ? WEXITSTATUS(status) : -2;
            srv->pid = 0;
            break;
        }
        h_sleep_ms(5);
    }
    if (srv->pid > 0) {
        kill(srv->pid, SIGKILL);
        waitpid(srv->pid, &status, 0);
        srv->pid = 0;
    }
    return result;
}

char *h_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *data = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0)
        data = malloc((size_t)n + 1);
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    if (data) {
        data[n] = '\0';
        if (len)
            *len = (size_t)n;
    }
    return data;
}

void h_remove_save(const char *path)
{
    static const char *const suffix[] = {"",         ".prev",        ".next",
                                         ".journal", ".journal.new", ".prev.journal"};
    char name[256];
    for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
        snprintf(name, sizeof name, "%s%s", path, suffix[i]);
        unlink(name);
    }
}

bool h_connect(h_conn *c, int port)
{
    return h_connect_rcvbuf(c, port, 0);
}

bool h_connect_rcvbuf(h_conn *c, int port, int rcvbuf)
{
    memset(c, 0, sizeof *c);
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (c->fd < 0)
        return false;
    /* Before connect, so that the window offered to the server is this small too. */
    if (rcvbuf > 0)
        setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(c->fd);
        c->fd = -1;
        return false;
    }
    c->cap = 1 << 16;
    c->buf = malloc(c->cap);
    return c->buf != NULL;
}

void h_close(h_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->buf);
    c->buf = NULL;
    c->len = c->cap = 0;
}

bool h_send_raw(h_conn *c, const void *data, size_t len)
{
    for (size_t done = 0; done < len;) {
        ssize_t n = send(c->fd, (const char *)data + done, len - done, MSG_NOSIGNAL);
        if (n > 0)
            done += (size_t)n;
        else if (n == 0 || errno != EINTR)
            return false;
    }
    return true;
}

bool h_send_line(h_conn *c, const char *line)
{
    return h_send_raw(c, line, strlen(line)) && h_send_raw(c, "\n", 1);
}

ssize_t h_fill(h_conn *c, long long deadline)
{
    if (c->len == c->cap) {
        char *p = realloc(c->buf, c->cap * 2);
        if (!p)
            return 0;
        c->buf = p;
        c->cap *= 2;
    }
    long long left = deadline - h_now_ms();
    if (left <= 0)
        return -1;
    struct pollfd pfd = {c->fd, POLLIN, 0};
    int r = poll(&pfd, 1, (int)left);
    if (r <= 0)
        return -1;
    ssize_t n = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
    if (n < 0)
        return errno == EINTR ? -1 : 0;
    c->len += (size_t)n;
    return n;
}

cJSON *h_recv(h_conn *c, int timeout_ms)
{
    long long deadline = h_now_ms() + timeout_ms;
    for (;;) {
        char *nl = memchr(c->buf, '\n', c->len);
        if (nl) {
            size_t n = (size_t)(nl - c->buf);
            cJSON *j = cJSON_ParseWithLength(c->buf, n);
            c->last_len = n + 1;
            memmove(c->buf, nl + 1, c->len - n - 1);
            c->len -= n + 1;
            return j;
        }
        if (h_fill(c, deadline) <= 0)
            return NULL;
    }
}

cJSON *h_until_field(cJSON *(*next)(void *conn, int timeout_ms), void *conn, const char *key,
                     const char *value, int timeout_ms)
{
    long long deadline = h_now_ms() + timeout_ms;
    for (;;) {
        int left = (int)(deadline - h_now_ms());
        cJSON *j = left > 0 ? next(conn, left) : NULL;
        if (!j)
            return NULL;
        const char *v = h_str(j, key);
        if (v && strcmp(v, value) == 0)
            return j;
        cJSON_Delete(j);
    }
}

static cJSON *next_line(void *c, int timeout_ms)
{
    return h_recv(c, timeout_ms);
}

cJSON *h_recv_type(h_conn *c, const char *type, int timeout_ms)
{
    return h_until_field(next_line, c, "type", type, timeout_ms);
}

bool h_wait_closed(h_conn *c, int timeout_ms)
{
    long long deadline = h_now_ms() + timeout_ms;
    for (;;) {
        c->len = 0; /* pending lines do not matter here */
        ssize_t n = h_fill(c, deadline);
        if (n == 0)
            return true;
        if (n < 0)
            return false;
    }
}

double h_num(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const char *h_str(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

double h_vec(const cJSON *obj, const char *key, int i)
{
    const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(obj, key), i);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const cJSON *h_state_body(const cJSON *state, double id)
{
    const cJSON *b;
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(state, "bodies"))
    {
        if (h_num(b, "id") == id)
            return b;
    }
    return NULL;
}

bool h_state_removed(const cJSON *state, double id)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(state, "removed"))
    {
        if (cJSON_IsNumber(r) && r->valuedouble == id)
            return true;
    }
    return false;
}
