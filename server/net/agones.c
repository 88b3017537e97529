/* The Agones SDK client: the game server's side of the conversation with the SDK sidecar over
 * its local REST API (https://agones.dev/site/docs/guides/client-sdks/rest/), on
 * 127.0.0.1:$AGONES_SDK_HTTP_PORT:
 *
 *   POST /ready            once the game port listens (retried while the sidecar starts)
 *   POST /health           every HEALTH_SECONDS while the clock keeps time (/livez)
 *   PUT  /metadata/label   {"key":"players","value":"N"} when the number of players changes
 *   POST /allocate         with --agones-allocate, when the first player joins
 *   POST /shutdown         when the server stops
 *
 * libcurl's multi interface does the HTTP, driven by the server's libuv loop (the
 * curl_multi_socket_action pattern of libcurl's multi-uv.c example): a uv_poll_t per socket
 * libcurl opens and a uv_timer_t for its timeouts, so a slow or absent sidecar costs a tick
 * nothing. One call is in flight at a time, so they reach the sidecar in the order they were
 * made (ready first, shutdown last); a call that fails is made again on a later beat. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agones.h"
#include "health.h"
#include "net_server.h"

#define BEAT_MS 1000       /* how often the client looks at what it has to say */
#define HEALTH_SECONDS 2.0 /* Agones' default health check allows 5 s between pings */
#define CALL_TIMEOUT_MS 2000L
#define CONNECT_TIMEOUT_MS 1000L

typedef enum call_kind {
    CALL_READY,
    CALL_ALLOCATE,
    CALL_LABEL,
    CALL_HEALTH,
    CALL_SHUTDOWN,
    CALLS
} call_kind;

/* The SDK's method and path of each call; every call sends a JSON body. */
static const struct {
    const char *method, *path;
} calls[CALLS] = {
    [CALL_READY] = {"POST", "/ready"},
    [CALL_ALLOCATE] = {"POST", "/allocate"},
    [CALL_LABEL] = {"PUT", "/metadata/label"},
    [CALL_HEALTH] = {"POST", "/health"},
    [CALL_SHUTDOWN] = {"POST", "/shutdown"},
};

struct net_agones {
    net_server *srv;
    int port;
    CURLM *multi;
    uv_timer_t curl_timer; /* libcurl's timeout */
    uv_timer_t beat;
    struct agones_socket *sockets; /* being watched: one call at a time opens one or two */
    unsigned open_handles; /* uv handles not yet closed: the struct goes with the last */
    bool closing;

    CURL *easy; /* the call in flight, or NULL */
    call_kind in_flight;
    bool pending[CALLS];
    bool ready, allocated, stopping;
    uint32_t label_sent, label_value; /* UINT32_MAX: none sent yet */
    uint64_t last_health_ns;
    unsigned failures[CALLS]; /* in a row, to log the first of a run only */

    struct curl_slist *headers;
    char url[96];
    char body[96];
    char error[CURL_ERROR_SIZE];
};

static void on_handle_closed(uv_handle_t *h);

/* A socket libcurl asked to watch. */
typedef struct agones_socket {
    uv_poll_t poll;
    curl_socket_t fd;
    net_agones *a;
    struct agones_socket *next;
} agones_socket;

static void unwatch(net_agones *a, agones_socket *s)
{
    agones_socket **p = &a->sockets;
    while (*p != s)
        p = &(*p)->next;
    *p = s->next;
    uv_poll_stop(&s->poll);
    uv_close((uv_handle_t *)&s->poll, on_handle_closed);
}

static void start_next(net_agones *a);

static void on_handle_closed(uv_handle_t *h)
{
    net_agones *a = h->data;
    if (h->type == UV_POLL)
        free(h);
    if (--a->open_handles == 0) {
        curl_slist_free_all(a->headers);
        free(a);
        curl_global_cleanup();
    }
}

static size_t discard(char *data, size_t size, size_t n, void *ud)
{
    (void)data;
    (void)ud;
    return size * n; /* the answers carry nothing the server needs */
}

static void finished(net_agones *a, CURLcode result)
{
    long status = 0;
    curl_easy_getinfo(a->easy, CURLINFO_RESPONSE_CODE, &status);
    call_kind k = a->in_flight;
    curl_multi_remove_handle(a->multi, a->easy);
    curl_easy_cleanup(a->easy);
    a->easy = NULL;
    bool ok = result == CURLE_OK && status >= 200 && status < 300;
    if (ok) {
        if (k == CALL_READY) {
            a->ready = true;
            LOG_INFO("agones: the GameServer is Ready");
        } else if (k == CALL_ALLOCATE) {
            a->allocated = true;
            LOG_INFO("agones: the GameServer is Allocated");
        } else if (k == CALL_LABEL) {
            a->label_sent = a->label_value;
        } else if (k == CALL_SHUTDOWN) {
            LOG_INFO("agones: shutdown acknowledged");
        }
        a->failures[k] = 0;
    } else {
        if (a->failures[k]++ == 0) {
            if (result != CURLE_OK)
                LOG_WARN("agones: %s: %s (made again until the SDK answers)", calls[k].path,
                         a->error[0] ? a->error : curl_easy_strerror(result));
            else
                LOG_WARN("agones: %s: HTTP %ld (made again until the SDK answers)",
                         calls[k].path, status);
        }
        /* Ready, allocate and shutdown must get through; a label is worked out again on the
         * next beat and a health ping is due again anyway. */
        if (k == CALL_READY || k == CALL_ALLOCATE || k == CALL_SHUTDOWN)
            a->pending[k] = true;
    }
    /* A failure waits for the next beat (the sidecar may be starting); a success goes on. */
    if (ok)
        start_next(a);
}

static void check_done(net_agones *a)
{
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(a->multi, &left)))
        if (m->msg == CURLMSG_DONE && m->easy_handle == a->easy)
            finished(a, m->data.result);
}

static void on_poll(uv_poll_t *p, int status, int events)
{
    agones_socket *s = (agones_socket *)p;
    net_agones *a = s->a;
    int flags = 0, running;
    if (status < 0)
        flags = CURL_CSELECT_ERR;
    if (events & UV_READABLE)
        flags |= CURL_CSELECT_IN;
    if (events & UV_WRITABLE)
        flags |= CURL_CSELECT_OUT;
    curl_multi_socket_action(a->multi, s->fd, flags, &running);
    check_done(a);
}

static int on_socket(CURL *easy, curl_socket_t fd, int what, void *ud, void *socket_ud)
{
    (void)easy;
    net_agones *a = ud;
    agones_socket *s = socket_ud;
    if (what == CURL_POLL_REMOVE) {
        if (s) {
            unwatch(a, s);
            curl_multi_assign(a->multi, fd, NULL);
        }
        return 0;
    }
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s || uv_poll_init_socket(a->srv->loop, &s->poll, fd) != 0) {
            free(s);
            return -1;
        }
        s->fd = fd;
        s->a = a;
        s->poll.data = a;
        s->next = a->sockets;
        a->sockets = s;
        a->open_handles++;
        curl_multi_assign(a->multi, fd, s);
    }
    int events =
        (what & CURL_POLL_IN ? UV_READABLE : 0) | (what & CURL_POLL_OUT ? UV_WRITABLE : 0);
    uv_poll_start(&s->poll, events, on_poll);
    return 0;
}

static void on_curl_timeout(uv_timer_t *t)
{
    net_agones *a = t->data;
    int running;
    curl_multi_socket_action(a->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    check_done(a);
}

static int on_timer(CURLM *multi, long timeout_ms, void *ud)
{
    (void)multi;
    net_agones *a = ud;
    if (a->closing)
        return 0;
    if (timeout_ms < 0)
        uv_timer_stop(&a->curl_timer);
    else
        uv_timer_start(&a->curl_timer, on_curl_timeout, (uint64_t)timeout_ms, 0);
    return 0;
}

/* Makes the first pending call, in the order of call_kind. */
static void start_next(net_agones *a)
{
    if (a->easy || a->closing)
        return;
    int k = 0;
    while (k < CALLS && !a->pending[k])
        k++;
    if (k == CALLS)
        return;
    CURL *e = curl_easy_init();
    if (!e)
        return; /* out of memory: tried again on the next beat */
    a->pending[k] = false;
    a->in_flight = (call_kind)k;
    a->error[0] = '\0';
    snprintf(a->url, sizeof a->url, "http://127.0.0.1:%d%s", a->port, calls[k].path);
    if (k == CALL_LABEL)
        snprintf(a->body, sizeof a->body, "{\"key\":\"players\",\"value\":\"%u\"}",
                 a->label_value);
    else
        snprintf(a->body, sizeof a->body, "{}");
    curl_easy_setopt(e, CURLOPT_URL, a->url);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, a->body);
    if (strcmp(calls[k].method, "POST") != 0)
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, calls[k].method);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, a->headers);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, a->error);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, CALL_TIMEOUT_MS);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http");
    a->easy = e;
    if (curl_multi_add_handle(a->multi, e) != CURLM_OK) {
        curl_easy_cleanup(e);
        a->easy = NULL;
        a->pending[k] = true;
    }
}

/* What the SDK should hear now: health while the clock keeps time, the players, the
 * allocation. Calls that failed are made again from here. */
static void on_beat(uv_timer_t *t)
{
    net_agones *a = t->data;
    net_server *srv = a->srv;
    uint64_t now = uv_hrtime();
    char why[160];
    if (!a->stopping) {
        if ((double)(now - a->last_health_ns) >= HEALTH_SECONDS * 1e9 &&
            net_health_live(srv, now, why, sizeof why)) {
            a->pending[CALL_HEALTH] = true;
            a->last_health_ns = now;
        }
        uint32_t players = net_health_players(srv);
        if (players != a->label_sent && !(a->easy && a->in_flight == CALL_LABEL)) {
            a->label_value = players;
            a->pending[CALL_LABEL] = true;
        }
        if (srv->cfg.agones_allocate && players > 0 && !a->allocated &&
            !(a->easy && a->in_flight == CALL_ALLOCATE))
            a->pending[CALL_ALLOCATE] = true;
    }
    start_next(a);
}

net_agones *net_agones_start(net_server *srv, int port)
{
    net_agones *a = calloc(1, sizeof *a);
    if (!a || curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        free(a);
        LOG_ERROR("agones: cannot start libcurl");
        return NULL;
    }
    a->srv = srv;
    a->port = port;
    a->label_sent = UINT32_MAX;
    a->multi = curl_multi_init();
    a->headers = curl_slist_append(NULL, "Content-Type: application/json");
    if (!a->multi || !a->headers) {
        if (a->multi)
            curl_multi_cleanup(a->multi);
        curl_slist_free_all(a->headers);
        free(a);
        curl_global_cleanup();
        LOG_ERROR("agones: out of memory");
        return NULL;
    }
    curl_multi_setopt(a->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(a->multi, CURLMOPT_SOCKETDATA, a);
    curl_multi_setopt(a->multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(a->multi, CURLMOPT_TIMERDATA, a);
    uv_timer_init(srv->loop, &a->curl_timer);
    uv_timer_init(srv->loop, &a->beat);
    a->curl_timer.data = a->beat.data = a;
    a->open_handles = 2;
    a->pending[CALL_READY] = true;
    a->last_health_ns = uv_hrtime();
    uv_timer_start(&a->beat, on_beat, BEAT_MS, BEAT_MS);
    LOG_INFO("agones: SDK at 127.0.0.1:%d", port);
    start_next(a);
    return a;
}

void net_agones_shutdown(net_agones *a)
{
    a->stopping = true;
    a->pending[CALL_HEALTH] = a->pending[CALL_LABEL] = a->pending[CALL_ALLOCATE] = false;
    a->pending[CALL_SHUTDOWN] = true;
    /* A call in flight to a slow sidecar would hold the shutdown back: it gives way. */
    if (a->easy && a->in_flight != CALL_SHUTDOWN) {
        curl_multi_remove_handle(a->multi, a->easy);
        curl_easy_cleanup(a->easy);
        a->easy = NULL;
    }
    start_next(a);
}

bool net_agones_idle(const net_agones *a)
{
    if (a->easy)
        return false;
    for (int k = 0; k < CALLS; k++)
        if (a->pending[k])
            return false;
    return true;
}

void net_agones_close(net_agones *a)
{
    if (a->easy) {
        curl_multi_remove_handle(a->multi, a->easy);
        curl_easy_cleanup(a->easy);
        a->easy = NULL;
    }
    /* The cleanup closes libcurl's cached connections, which removes their polls. */
    curl_multi_cleanup(a->multi);
    a->multi = NULL;
    a->closing = true;
    while (a->sockets)
        unwatch(a, a->sockets);
    uv_close((uv_handle_t *)&a->curl_timer, on_handle_closed);
    uv_close((uv_handle_t *)&a->beat, on_handle_closed);
}
