/* The load generator (`mink-client --bots N`): N players in one process on one libuv loop.
 * Each says hello with a character avatar, optionally spawns a few bodies, subscribes to
 * compact states (unless --full-states) and an interest radius, sends inputs at 30 Hz (runs one way, then the other, jumps now and
 * then; in a 3D world, one random direction on the ground after another), pings once a second
 * and reads every state. A progress line goes to stderr once a
 * second; the summary (players connected, states a second per player, ping round trips,
 * bytes received, errors) to stdout, as text or one JSON object.
 *
 * States are counted, not parsed: with hundreds of players and a large world a parse per
 * state would cost the generator more than the server, and measure the generator. Every
 * other message is parsed. */
#include <cjson/cJSON.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bots.h"
#include "clock.h"
#include "conn.h"
#include "mk_vec.h"
#include "msgs.h"

#define BOTS_INPUT_MS 33      /* ~30 inputs a second */
#define BOTS_PING_SLOTS 10    /* pings go out in 10 groups a second: one per player a second */
#define BOTS_CONNECT_MS 5     /* one connection started every 5 ms, not a burst of N */
#define BOTS_SPAWN_MS 100     /* one spawn each 100 ms: under the server's spawn rate */
#define BOTS_JUMP_CHANCE 45   /* one input in 45 (1.5 s at 30 Hz) asks for a jump */
#define BOTS_WELCOME_MS 5000  /* a player not welcomed this long after connecting failed */
#define BOTS_SPREAD 40.0      /* m: avatars start spread over [-20, 20] (in 3D, in x and z) */
#define BOTS_START_Y 12.0     /* m: above the demo's platforms and a pile of ten rows */

static const char STATE_PREFIX[] = "{\"type\":\"state\"";

typedef struct bots bots;

typedef struct bot {
    cli_conn conn;
    bots *run;
    int index;
    bool started, welcomed, done;
    double connect_ms, welcome_ms;
    uint64_t seq, states, bytes;
    double move[3];  /* the direction it runs: +-x in 2D, on the ground (x-z) in 3D */
    double turn_ms;  /* when it turns next */
    int spawned;
    double spawn_ms; /* when the last spawn went out */
} bot;

struct bots {
    uv_loop_t *loop;
    cli_bots_opts o;
    bot *bot;
    int started;
    uint64_t rng;
    double start_ms, end_ms;
    bool finishing;
    int ping_slot;
    uv_timer_t connect_timer, input_timer, ping_timer, progress_timer, end_timer;
    uv_signal_t sigint, sigterm;
    /* round trips in ms: every sample, and where the last progress line's began */
    MK_VEC(double) rtts;
    size_t rtt_mark;
    uint64_t errors;
    char last_error[PROTO_MAX_MESSAGE + 48];
    uint64_t states_mark, bytes_mark; /* totals at the last progress line */
    double mark_ms;
};

/* xorshift64* (Vigna): moves differ from player to player, the same from run to run. */
static double rnd(bots *r)
{
    r->rng ^= r->rng >> 12;
    r->rng ^= r->rng << 25;
    r->rng ^= r->rng >> 27;
    return (double)((r->rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static void fail(bots *r, bot *b, const char *what)
{
    r->errors++;
    /* "player N: " takes at most 20 bytes; the rest is cut to fit */
    snprintf(r->last_error, sizeof r->last_error, "player %d: %.*s", b->index,
             (int)(sizeof r->last_error - 21), what);
    for (char *p = r->last_error; *p; p++) /* the server's words go to a terminal */
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

static void send_line(bot *b, proto_buf *line)
{
    if (!line->failed && b->conn.connected && !b->conn.closing)
        cli_conn_send(&b->conn, line->data, line->len);
    proto_buf_clear(line);
}

/* Where player i of n starts: spread over x in 2D, over a square grid in x and z in 3D. */
static void start_pos(int i, int n, int dim, double pos[3])
{
    pos[1] = BOTS_START_Y;
    if (dim == 2) {
        pos[0] = -BOTS_SPREAD / 2 + BOTS_SPREAD * (i + 0.5) / n;
        pos[2] = 0;
        return;
    }
    int side = (int)ceil(sqrt((double)n));
    pos[0] = -BOTS_SPREAD / 2 + BOTS_SPREAD * (i % side + 0.5) / side;
    pos[2] = -BOTS_SPREAD / 2 + BOTS_SPREAD * (i / side + 0.5) / side;
}

static void spawn_one(bot *b, double now)
{
    proto_buf line;
    proto_buf_init(&line);
    int k = b->spawned++;
    int dim = b->run->o.dim;
    proto_buf_append_str(&line, "{\"type\":\"spawn\",\"req\":");
    proto_buf_append_u64(&line, (uint64_t)k);
    if (dim == 3) {
        /* Boxes and balls in turn, in layers of a 5 x 5 grid above the player's start. */
        static const char *const shapes[2] = {"{\"type\":\"box\",\"half\":[0.25,0.25,0.25]}",
                                              "{\"type\":\"sphere\",\"radius\":0.25}"};
        double pos[3];
        start_pos(b->index, b->run->o.count, 3, pos);
        proto_buf_append_str(&line, ",\"body\":{\"shape\":");
        proto_buf_append_str(&line, shapes[k % 2]);
        proto_buf_append_str(&line, ",\"pos\":[");
        proto_buf_append_fixed(&line, pos[0] + 0.6 * (k % 5) - 1.2, 3);
        proto_buf_append_char(&line, ',');
        proto_buf_append_fixed(&line, BOTS_START_Y + 2 + 0.6 * (k / 25), 3);
        proto_buf_append_char(&line, ',');
        proto_buf_append_fixed(&line, pos[2] + 0.6 * (k / 5 % 5) - 1.2, 3);
    } else {
        double x =
            -BOTS_SPREAD / 2 + BOTS_SPREAD * b->index / b->run->o.count + 0.6 * (k % 5) - 1.2;
        proto_buf_append_str(&line, ",\"body\":{\"shape\":{\"type\":\"aabb\",\"half\":[0.25,0.25]},"
                                    "\"pos\":[");
        proto_buf_append_fixed(&line, x, 3);
        proto_buf_append_char(&line, ',');
        proto_buf_append_fixed(&line, BOTS_START_Y + 2 + 0.6 * (k / 5), 3);
    }
    proto_buf_append_str(&line, "],\"tag\":\"load\"}}\n");
    send_line(b, &line);
    proto_buf_free(&line);
    b->spawn_ms = now;
}

/* A new direction: the other way in 2D, anywhere on the ground in 3D. */
static void turn(bot *b)
{
    bots *r = b->run;
    if (r->o.dim == 3) {
        double a = 6.283185307179586 * rnd(r);
        b->move[0] = cos(a);
        b->move[1] = 0;
        b->move[2] = sin(a);
    } else {
        b->move[0] = -b->move[0];
    }
}

static void on_welcome(bot *b, const cJSON *msg, double now)
{
    bots *r = b->run;
    const cJSON *dim = cJSON_GetObjectItemCaseSensitive(msg, "dim");
    if (!cJSON_IsNumber(dim) || dim->valuedouble != r->o.dim) {
        /* The server took an avatar of our dim, so this should not happen; if it does, the
         * moves would be refused one by one. */
        fail(r, b, r->o.dim == 3 ? "the server's world is not 3D (--dim)"
                                 : "the server's world is not 2D (--dim)");
        b->done = true;
        cli_conn_close(&b->conn, false);
        return;
    }
    proto_buf line;
    proto_buf_init(&line);
    b->welcomed = true;
    b->welcome_ms = now;
    if (r->o.dim == 3)
        turn(b);
    else
        b->move[0] = rnd(r) < 0.5 ? -1 : 1;
    b->turn_ms = now + 1000 + 2000 * rnd(r);
    if (r->o.radius > 0 || !r->o.full_states) {
        proto_buf_append_str(&line, "{\"type\":\"subscribe\"");
        if (r->o.radius > 0) {
            proto_buf_append_str(&line, ",\"radius\":");
            proto_buf_append_fixed(&line, r->o.radius, 3);
        }
        if (r->o.delta)
            proto_buf_append_str(&line, ",\"delta\":true");
        else if (!r->o.full_states)
            proto_buf_append_str(&line, ",\"compact\":true");
        proto_buf_append_str(&line, "}\n");
        send_line(b, &line);
    }
    proto_buf_free(&line);
}

static void on_pong(bot *b, const cJSON *msg, double now)
{
    bots *r = b->run;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(msg, "t");
    /* t went out rounded to 1 us: 1 ms of slack */
    if (!cJSON_IsNumber(t) || !(t->valuedouble >= r->start_ms - 1 && t->valuedouble <= now + 1))
        return;
    (void)MK_VEC_PUSH(&r->rtts, fmax(now - t->valuedouble, 0.0)); /* out of memory: not counted */
}

static void on_line(cli_conn *c, const char *line, size_t len)
{
    bot *b = c->ud;
    b->bytes += len + 1;
    if (len >= sizeof STATE_PREFIX - 1 && memcmp(line, STATE_PREFIX, sizeof STATE_PREFIX - 1) == 0) {
        if (b->welcomed)
            b->states++;
        return;
    }
    double now = cli_now_ms();
    cJSON *msg = proto_utf8_valid(line, len) ? cJSON_ParseWithLength(line, len) : NULL;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(msg, "type");
    if (!cJSON_IsString(type)) {
        fail(b->run, b, "a line from the server is not a message");
    } else if (strcmp(type->valuestring, "welcome") == 0) {
        if (!b->welcomed)
            on_welcome(b, msg, now);
    } else if (strcmp(type->valuestring, "pong") == 0) {
        on_pong(b, msg, now);
    } else if (strcmp(type->valuestring, "error") == 0) {
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(msg, "code");
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(msg, "message");
        char what[PROTO_MAX_MESSAGE + 40];
        snprintf(what, sizeof what, "%s: %s", cJSON_IsString(code) ? code->valuestring : "?",
                 cJSON_IsString(text) ? text->valuestring : "");
        fail(b->run, b, what);
    }
    cJSON_Delete(msg);
}

static void on_closed(cli_conn *c, const char *why)
{
    bot *b = c->ud;
    if (!b->run->finishing)
        fail(b->run, b, why);
    b->done = true;
}

static void on_connect(cli_conn *c, int status)
{
    bot *b = c->ud;
    if (status != 0) {
        char what[96];
        snprintf(what, sizeof what, "cannot connect: %s", uv_strerror(status));
        fail(b->run, b, what);
        b->done = true;
        return;
    }
    proto_buf line;
    proto_buf_init(&line);
    char name[32];
    snprintf(name, sizeof name, "bot%d", b->index);
    double pos[3];
    start_pos(b->index, b->run->o.count, b->run->o.dim, pos);
    cli_write_hello(&line, name, NULL, false, b->run->o.dim, pos);
    send_line(b, &line);
    proto_buf_free(&line);
}

/* ---- timers ---- */

static void on_connect_timer(uv_timer_t *t)
{
    bots *r = t->data;
    if (r->started >= r->o.count || r->finishing) {
        uv_timer_stop(t);
        return;
    }
    bot *b = &r->bot[r->started++];
    b->started = true;
    b->connect_ms = cli_now_ms();
    b->conn.on_connect = on_connect;
    b->conn.on_line = on_line;
    b->conn.on_closed = on_closed;
    b->conn.ud = b;
    b->conn.ws = r->o.ws;
    int rc = cli_conn_start(&b->conn, r->loop, r->o.host, r->o.port);
    if (rc != 0) {
        char what[sizeof r->o.host + 64];
        snprintf(what, sizeof what, "cannot resolve %s: %s", r->o.host, uv_strerror(rc));
        fail(r, b, what);
        b->done = true;
    }
}

static void on_input_timer(uv_timer_t *t)
{
    bots *r = t->data;
    double now = cli_now_ms();
    proto_buf line;
    proto_buf_init(&line);
    for (int i = 0; i < r->started; i++) {
        bot *b = &r->bot[i];
        if (b->done)
            continue;
        if (!b->welcomed) {
            if (now - b->connect_ms > BOTS_WELCOME_MS) {
                fail(r, b, "no welcome in time");
                b->done = true;
                cli_conn_close(&b->conn, false);
            }
            continue;
        }
        if (now >= b->turn_ms) {
            turn(b);
            b->turn_ms = now + 1000 + 2000 * rnd(r);
        }
        cli_write_input(&line, ++b->seq, 0, r->o.dim, b->move, rnd(r) * BOTS_JUMP_CHANCE < 1.0);
        send_line(b, &line);
        if (b->spawned < r->o.spawn && now - b->spawn_ms >= BOTS_SPAWN_MS)
            spawn_one(b, now);
    }
    proto_buf_free(&line);
}

static void on_ping_timer(uv_timer_t *t)
{
    bots *r = t->data;
    proto_buf line;
    proto_buf_init(&line);
    for (int i = r->ping_slot; i < r->started; i += BOTS_PING_SLOTS) {
        bot *b = &r->bot[i];
        if (b->welcomed && !b->done) {
            cli_write_ping(&line, cli_now_ms());
            send_line(b, &line);
        }
    }
    proto_buf_free(&line);
    r->ping_slot = (r->ping_slot + 1) % BOTS_PING_SLOTS;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The nearest-rank percentile q (0..1) of n sorted values; 0 when there are none. */
static double percentile(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0;
    size_t k = (size_t)ceil(q * (double)n);
    return sorted[k ? k - 1 : 0];
}

static int count_welcomed(const bots *r)
{
    int n = 0;
    for (int i = 0; i < r->o.count; i++)
        n += r->bot[i].welcomed;
    return n;
}

static void totals(const bots *r, uint64_t *states, uint64_t *bytes)
{
    *states = *bytes = 0;
    for (int i = 0; i < r->o.count; i++) {
        *states += r->bot[i].states;
        *bytes += r->bot[i].bytes;
    }
}

static void on_progress_timer(uv_timer_t *t)
{
    bots *r = t->data;
    double now = cli_now_ms(), secs = (now - r->mark_ms) / 1000.0;
    uint64_t states, bytes;
    totals(r, &states, &bytes);
    size_t n = r->rtts.v.len - r->rtt_mark;
    double *last = r->rtts.at + r->rtt_mark;
    qsort(last, n, sizeof *last, by_value);
    int welcomed = count_welcomed(r);
    fprintf(stderr, "[%4.0f s] %d/%d players, %.0f states/s (%.1f per player), rtt p50 %.2f ms "
                    "p99 %.2f ms, %.2f MB/s in, %llu errors\n",
            (now - r->start_ms) / 1000.0, welcomed, r->o.count,
            (double)(states - r->states_mark) / secs,
            welcomed ? (double)(states - r->states_mark) / secs / welcomed : 0.0,
            percentile(last, n, 0.5), percentile(last, n, 0.99),
            (double)(bytes - r->bytes_mark) / secs / 1e6, (unsigned long long)r->errors);
    r->states_mark = states;
    r->bytes_mark = bytes;
    r->rtt_mark = r->rtts.v.len;
    r->mark_ms = now;
}

/* ---- the end ---- */

typedef struct summary {
    int connected;
    double secs, rate_min, rate_median, rtt_p50, rtt_p99, bytes_per_s;
} summary;

static summary summarise(bots *r)
{
    summary s = {.connected = count_welcomed(r), .secs = (r->end_ms - r->start_ms) / 1000.0};
    double *rates = malloc((size_t)r->o.count * sizeof *rates);
    uint64_t bytes = 0;
    int n = 0;
    for (int i = 0; i < r->o.count; i++) {
        const bot *b = &r->bot[i];
        bytes += b->bytes;
        double secs = (r->end_ms - b->welcome_ms) / 1000.0;
        if (rates)
            rates[n++] = b->welcomed && secs > 0 ? (double)b->states / secs : 0.0;
    }
    if (rates && n > 0) {
        qsort(rates, (size_t)n, sizeof *rates, by_value);
        s.rate_min = rates[0];
        s.rate_median = n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
    }
    free(rates);
    qsort(r->rtts.at, r->rtts.v.len, sizeof *r->rtts.at, by_value);
    s.rtt_p50 = percentile(r->rtts.at, r->rtts.v.len, 0.5);
    s.rtt_p99 = percentile(r->rtts.at, r->rtts.v.len, 0.99);
    s.bytes_per_s = s.secs > 0 ? (double)bytes / s.secs : 0.0;
    return s;
}

static void print_summary(const bots *r, const summary *s)
{
    if (r->o.json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "players", r->o.count);
        cJSON_AddNumberToObject(o, "connected", s->connected);
        cJSON_AddNumberToObject(o, "seconds", round(s->secs * 1000) / 1000);
        cJSON_AddNumberToObject(o, "states_per_s_min", round(s->rate_min * 100) / 100);
        cJSON_AddNumberToObject(o, "states_per_s_median", round(s->rate_median * 100) / 100);
        cJSON_AddNumberToObject(o, "rtt_ms_p50", round(s->rtt_p50 * 1000) / 1000);
        cJSON_AddNumberToObject(o, "rtt_ms_p99", round(s->rtt_p99 * 1000) / 1000);
        cJSON_AddNumberToObject(o, "pongs", (double)r->rtts.v.len);
        cJSON_AddNumberToObject(o, "bytes_per_s", round(s->bytes_per_s));
        cJSON_AddNumberToObject(o, "errors", (double)r->errors);
        cJSON_AddStringToObject(o, "last_error", r->last_error);
        char *text = o ? cJSON_PrintUnformatted(o) : NULL;
        if (text)
            printf("%s\n", text);
        cJSON_free(text);
        cJSON_Delete(o);
    } else {
        printf("players connected: %d of %d, for %.1f s\n", s->connected, r->o.count, s->secs);
        printf("states per player: %.2f/s min, %.2f/s median\n", s->rate_min, s->rate_median);
        printf("ping rtt: p50 %.3f ms, p99 %.3f ms (%zu pongs)\n", s->rtt_p50, s->rtt_p99,
               r->rtts.v.len);
        printf("received: %.0f bytes/s (%.2f MB/s)\n", s->bytes_per_s, s->bytes_per_s / 1e6);
        printf("errors: %llu%s%s\n", (unsigned long long)r->errors,
               r->last_error[0] ? ", last: " : "", r->last_error);
    }
    fflush(stdout);
}

static void close_timer_or_signal(uv_handle_t *h, void *arg)
{
    bots *r = arg;
    for (int i = 0; i < r->started; i++)
        if (cli_conn_owns(&r->bot[i].conn, h))
            return;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

static int finish(bots *r)
{
    if (r->finishing)
        return 0;
    r->finishing = true;
    r->end_ms = cli_now_ms();
    summary s = summarise(r);
    print_summary(r, &s);
    static const char bye[] = "{\"type\":\"bye\"}\n";
    for (int i = 0; i < r->started; i++) {
        bot *b = &r->bot[i];
        if (b->welcomed && b->conn.connected && !b->conn.closing)
            cli_conn_send(&b->conn, bye, sizeof bye - 1);
        cli_conn_close(&b->conn, b->welcomed);
    }
    uv_walk(r->loop, close_timer_or_signal, r);
    bool ok = s.connected == r->o.count && r->errors == 0 && s.rate_min > 0;
    return ok ? 0 : 1;
}

static int exit_code;

static void on_end_timer(uv_timer_t *t)
{
    exit_code = finish(t->data);
}

static void on_signal(uv_signal_t *h, int signum)
{
    (void)signum;
    exit_code = finish(h->data);
}

int cli_bots_run(uv_loop_t *loop, const cli_bots_opts *opts)
{
    bots *r = calloc(1, sizeof *r);
    bot *all = calloc((size_t)opts->count, sizeof *all);
    if (!r || !all) {
        free(r);
        free(all);
        fprintf(stderr, "mink-client: out of memory for %d players\n", opts->count);
        return 1;
    }
    r->loop = loop;
    r->o = *opts;
    r->bot = all;
    r->rng = 0x9E3779B97F4A7C15ull;
    r->rtts.v = mk_vec_make(sizeof(double));
    for (int i = 0; i < opts->count; i++) {
        all[i].run = r;
        all[i].index = i;
    }
    r->start_ms = r->mark_ms = cli_now_ms();
    uv_timer_t *timers[] = {&r->connect_timer, &r->input_timer, &r->ping_timer,
                            &r->progress_timer, &r->end_timer};
    for (size_t i = 0; i < sizeof timers / sizeof timers[0]; i++) {
        uv_timer_init(loop, timers[i]);
        timers[i]->data = r;
    }
    uv_timer_start(&r->connect_timer, on_connect_timer, 0, BOTS_CONNECT_MS);
    uv_timer_start(&r->input_timer, on_input_timer, BOTS_INPUT_MS, BOTS_INPUT_MS);
    uv_timer_start(&r->ping_timer, on_ping_timer, 1000 / BOTS_PING_SLOTS, 1000 / BOTS_PING_SLOTS);
    uv_timer_start(&r->progress_timer, on_progress_timer, 1000, 1000);
    uv_timer_start(&r->end_timer, on_end_timer, (uint64_t)(opts->duration * 1000), 0);
    uv_signal_init(loop, &r->sigint);
    uv_signal_init(loop, &r->sigterm);
    r->sigint.data = r->sigterm.data = r;
    uv_signal_start(&r->sigint, on_signal, SIGINT);
    uv_signal_start(&r->sigterm, on_signal, SIGTERM);

    uv_run(loop, UV_RUN_DEFAULT);

    for (int i = 0; i < r->started; i++)
        cli_conn_free(&all[i].conn);
    mk_vec_free(&r->rtts.v);
    free(all);
    free(r);
    return exit_code;
}
