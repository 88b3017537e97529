/* The server's metrics in the Prometheus text exposition format, version 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/), named as the Prometheus
 * naming guide asks: a `mink_` prefix, base units (seconds, bytes), `_total` on counters.
 * No label names a client: the label values are bounded sets (error codes, disconnect reasons,
 * body states), so a busy server does not grow a scraper's series.
 *
 * Counting costs a few additions on the tick and in the sessions (counters.c); everything else
 * is worked out here when a scraper asks. */
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "metrics.h"
#include "net_server.h"
#include "rules.h"

#ifndef MINK_VERSION
#define MINK_VERSION "unknown"
#endif

static const char *const reason_labels[NET_DISCONNECT_REASONS] = {
    [NET_DISC_CLOSED] = "closed",
    [NET_DISC_NO_HELLO] = "no_hello",
    [NET_DISC_SLOW_READER] = "slow_reader",
    [NET_DISC_UNAUTHORIZED] = "unauthorized",
    [NET_DISC_LINE_TOO_LONG] = "line_too_long",
    [NET_DISC_SERVER_FULL] = "server_full",
    [NET_DISC_SHUTDOWN] = "shutdown",
    [NET_DISC_OUT_OF_MEMORY] = "out_of_memory",
    [NET_DISC_IO_ERROR] = "io_error",
};

static void head(proto_buf *b, const char *name, const char *type, const char *help)
{
    proto_buf_append_str(b, "# HELP ");
    proto_buf_append_str(b, name);
    proto_buf_append_char(b, ' ');
    proto_buf_append_str(b, help);
    proto_buf_append_str(b, "\n# TYPE ");
    proto_buf_append_str(b, name);
    proto_buf_append_char(b, ' ');
    proto_buf_append_str(b, type);
    proto_buf_append_char(b, '\n');
}

/* One sample: name{label="value"} v (label NULL: none). */
static void sample(proto_buf *b, const char *name, const char *label, const char *value,
                   uint64_t v)
{
    proto_buf_append_str(b, name);
    if (label) {
        proto_buf_append_char(b, '{');
        proto_buf_append_str(b, label);
        proto_buf_append_str(b, "=\"");
        proto_buf_append_str(b, value);
        proto_buf_append_str(b, "\"}");
    }
    proto_buf_append_char(b, ' ');
    proto_buf_append_u64(b, v);
    proto_buf_append_char(b, '\n');
}

static void sample_seconds(proto_buf *b, const char *name, uint64_t ns)
{
    proto_buf_append_str(b, name);
    proto_buf_append_char(b, ' ');
    proto_buf_append_fixed(b, (double)ns / 1e9, 9);
    proto_buf_append_char(b, '\n');
}

static void counter(proto_buf *b, const char *name, const char *help, uint64_t v)
{
    head(b, name, "counter", help);
    sample(b, name, NULL, NULL, v);
}

static void gauge(proto_buf *b, const char *name, const char *help, uint64_t v)
{
    head(b, name, "gauge", help);
    sample(b, name, NULL, NULL, v);
}

/* A summary without quantiles: _sum in seconds and _count. */
static void summary(proto_buf *b, const char *name, const char *help, uint64_t ns,
                    uint64_t count)
{
    char n[96];
    head(b, name, "summary", help);
    snprintf(n, sizeof n, "%s_sum", name);
    sample_seconds(b, n, ns);
    snprintf(n, sizeof n, "%s_count", name);
    sample(b, n, NULL, NULL, count);
}

static void tick_histogram(proto_buf *b, const net_counters *c)
{
    static const char *const le[NET_TICK_BUCKETS + 1] = {
        "0.0005", "0.001", "0.002", "0.004", "0.008", "0.016", "0.032", "0.064", "0.128", "+Inf",
    };
    head(b, "mink_tick_duration_seconds", "histogram",
         "Time a tick of the clock took: its world steps and its states.");
    uint64_t cumulative = 0;
    for (int i = 0; i <= NET_TICK_BUCKETS; i++) {
        cumulative += c->tick_buckets[i];
        sample(b, "mink_tick_duration_seconds_bucket", "le", le[i], cumulative);
    }
    sample_seconds(b, "mink_tick_duration_seconds_sum", c->tick_ns);
    sample(b, "mink_tick_duration_seconds_count", NULL, NULL, c->ticks_timed);
}

/* Bodies by state, counted over the world's slots when a scraper asks. */
static void bodies(proto_buf *b, sim_world *w)
{
    size_t slots, awake = 0, asleep = 0, fixed = 0;
    const sim_body *body = sim_world_slots(w, &slots);
    for (size_t i = 0; i < slots; i++) {
        if (body[i].id == 0)
            continue;
        if (body[i].kind == SIM_STATIC)
            fixed++;
        else if (body[i].sleeping)
            asleep++;
        else
            awake++;
    }
    head(b, "mink_bodies", "gauge", "Bodies in the world by state.");
    sample(b, "mink_bodies", "state", "awake", awake);
    sample(b, "mink_bodies", "state", "asleep", asleep);
    sample(b, "mink_bodies", "state", "static", fixed);
}

void net_metrics_write(net_server *srv, proto_buf *b)
{
    const net_stats *st = &srv->stats;
    const net_counters *c = &st->c;
    head(b, "mink_build_info", "gauge", "Always 1: the version and the world's dimensions.");
    proto_buf_append_str(b, "mink_build_info{version=\"" MINK_VERSION "\",dim=\"");
    proto_buf_append_u64(b, (uint64_t)sim_world_dim(srv->world));
    proto_buf_append_str(b, "\"} 1\n");
    gauge(b, "mink_tick_rate_hertz", "World steps a second the clock runs at.",
          (uint64_t)srv->cfg.tick_hz);
    counter(b, "mink_ticks_total", "World steps run.", st->steps);
    counter(b, "mink_ticks_late_total", "Steps run late, to catch up after a stalled tick.",
            st->late);
    counter(b, "mink_ticks_dropped_total",
            "Steps never run: the clock fell behind by more than it may catch up.", st->dropped);
    tick_histogram(b, c);
    summary(b, "mink_step_duration_seconds", "Time in the world's step.", st->step_ns,
            st->steps);
    summary(b, "mink_snapshot_encode_duration_seconds",
            "Time encoding the bodies and writing the states of a tick.", st->snap_ns,
            st->snapshots);
    bodies(b, srv->world);
    gauge(b, "mink_clients_connected", "Clients connected to the game port.",
          srv->session_count);
    gauge(b, "mink_clients_max", "Clients the game port takes (--max-clients).",
          srv->cfg.max_clients);
    counter(b, "mink_connections_accepted_total", "Connections accepted on the game port.",
            c->accepted);
    counter(b, "mink_received_bytes_total", "Bytes received from clients.", c->bytes_in);
    counter(b, "mink_sent_bytes_total", "Bytes handed to the sockets of clients.",
            c->bytes_out);
    counter(b, "mink_received_messages_total", "Lines received from clients.", c->msgs_in);
    counter(b, "mink_sent_messages_total", "Messages sent to clients, states included.",
            c->msgs_out);
    counter(b, "mink_states_sent_total", "State messages sent.", st->states);
    counter(b, "mink_inputs_stamped_total", "Inputs that named the tick of their step.",
            c->inputs_stamped);
    counter(b, "mink_inputs_late_total",
            "Stamped inputs that arrived after their tick's step: applied by the next.",
            c->inputs_late);
    counter(b, "mink_states_not_sent_total",
            "States not sent to a client still writing its previous one (a slow reader).",
            st->states_dropped);
    head(b, "mink_errors_sent_total", "counter", "Error messages sent, by protocol code.");
    for (int code = PROTO_OK + 1; code <= PROTO_ERR_LAST; code++)
        sample(b, "mink_errors_sent_total", "code", proto_error_name((proto_error_code)code),
               c->errors[code]);
    head(b, "mink_disconnects_total", "counter", "Clients that left, by reason.");
    for (int r = 0; r < NET_DISCONNECT_REASONS; r++)
        sample(b, "mink_disconnects_total", "reason", reason_labels[r], c->disconnects[r]);
    gauge(b, "mink_draining", "1 while the server is stopping.", srv->stopping ? 1 : 0);
    net_rules_metrics(srv, b);
}
