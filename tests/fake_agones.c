/* A fake Agones SDK sidecar: records the REST calls and answers them (fake_agones.h). */
#include "fake_agones.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"

#define MAX_CONNS 16

typedef struct conn {
    int fd;
    char buf[8192];
    size_t len;
} conn;

static void record(fake_agones *f, const char *method, const char *path, const char *body,
                   size_t body_len)
{
    pthread_mutex_lock(&f->mu);
    if (f->ncalls < FAKE_AGONES_MAX_CALLS)
        snprintf(f->calls[f->ncalls++], FAKE_AGONES_CALL_LEN, "%s %s %.*s", method, path,
                 (int)body_len, body);
    pthread_mutex_unlock(&f->mu);
}

/* Takes every complete request out of c->buf; false when the connection is to be closed. */
static bool serve(fake_agones *f, conn *c)
{
    for (;;) {
        c->buf[c->len] = '\0';
        char *end = strstr(c->buf, "\r\n\r\n");
        if (!end)
            return c->len < sizeof c->buf - 1;
        long clen = 0;
        for (char *p = strchr(c->buf, '\n'); p && p < end; p = strchr(p, '\n')) {
            p++;
            if (strncasecmp(p, "content-length:", 15) == 0)
                clen = strtol(p + 15, NULL, 10);
        }
        size_t head = (size_t)(end + 4 - c->buf);
        if (clen < 0 || head + (size_t)clen > sizeof c->buf - 1)
            return false;
        if (c->len < head + (size_t)clen)
            return true;
        char method[16] = "", path[128] = "";
        sscanf(c->buf, "%15s %127s", method, path);
        record(f, method, path, c->buf + head, (size_t)clen);
        bool answer = f->mode == FAKE_AGONES_ANSWER ||
                      (f->mode == FAKE_AGONES_HOLD_SHUTDOWN && strcmp(path, "/shutdown") != 0);
        if (answer) {
            static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                     "Content-Length: 2\r\n\r\n{}";
            if (send(c->fd, ok, sizeof ok - 1, MSG_NOSIGNAL) != (ssize_t)(sizeof ok - 1))
                return false;
        }
        memmove(c->buf, c->buf + head + clen, c->len - head - (size_t)clen);
        c->len -= head + (size_t)clen;
    }
}

static void *run(void *arg)
{
    fake_agones *f = arg;
    conn conns[MAX_CONNS];
    int n = 0;
    while (!atomic_load(&f->quit)) {
        struct pollfd p[MAX_CONNS + 1];
        p[0] = (struct pollfd){.fd = f->listen_fd, .events = POLLIN};
        for (int i = 0; i < n; i++)
            p[i + 1] = (struct pollfd){.fd = conns[i].fd, .events = POLLIN};
        if (poll(p, (nfds_t)n + 1, 20) <= 0)
            continue;
        for (int i = n - 1; i >= 0; i--) {
            if (!(p[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            conn *c = &conns[i];
            ssize_t got = recv(c->fd, c->buf + c->len, sizeof c->buf - 1 - c->len, 0);
            if (got > 0)
                c->len += (size_t)got;
            if (got <= 0 || !serve(f, c)) {
                close(c->fd);
                conns[i] = conns[--n];
            }
        }
        if ((p[0].revents & POLLIN) && n < MAX_CONNS) {
            int fd = accept(f->listen_fd, NULL, NULL);
            if (fd >= 0) {
                conns[n].fd = fd;
                conns[n].len = 0;
                n++;
            }
        }
    }
    for (int i = 0; i < n; i++)
        close(conns[i].fd);
    return NULL;
}

bool fake_agones_start(fake_agones *f, int port, fake_agones_mode mode)
{
    memset(f, 0, sizeof *f);
    f->mode = mode;
    f->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    if (f->listen_fd < 0)
        return false;
    int one = 1;
    setsockopt(f->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(f->listen_fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(f->listen_fd, 16) != 0 ||
        getsockname(f->listen_fd, (struct sockaddr *)&a, &len) != 0) {
        close(f->listen_fd);
        return false;
    }
    f->port = ntohs(a.sin_port);
    pthread_mutex_init(&f->mu, NULL);
    if (pthread_create(&f->thread, NULL, run, f) != 0) {
        close(f->listen_fd);
        return false;
    }
    return true;
}

void fake_agones_stop(fake_agones *f)
{
    atomic_store(&f->quit, true);
    pthread_join(f->thread, NULL);
    close(f->listen_fd);
    pthread_mutex_destroy(&f->mu);
}

int fake_agones_calls(fake_agones *f, char (*out)[FAKE_AGONES_CALL_LEN], int max)
{
    pthread_mutex_lock(&f->mu);
    int n = f->ncalls < max ? f->ncalls : max;
    memcpy(out, f->calls, (size_t)n * FAKE_AGONES_CALL_LEN);
    pthread_mutex_unlock(&f->mu);
    return n;
}

int fake_agones_wait(fake_agones *f, const char *call, int timeout_ms)
{
    long long end = h_now_ms() + timeout_ms;
    do {
        pthread_mutex_lock(&f->mu);
        for (int i = 0; i < f->ncalls; i++) {
            if (strcmp(f->calls[i], call) == 0) {
                pthread_mutex_unlock(&f->mu);
                return i;
            }
        }
        pthread_mutex_unlock(&f->mu);
        h_sleep_ms(20);
    } while (h_now_ms() < end);
    return -1;
}
