/* Snapshot rows for many clients: the server's own snapshot code (mink_net's
 * net_snapshot_build) laying out one state per client of a 2,000-box pile, against the way
 * states were built before it, each client's line copied together from the encoded bodies;
 * and with an interest radius (in piles of 2,000 and 20,000 boxes), against finding each
 * client's bodies by testing every slot. No socket is written: what is measured is the work
 * per snapshot tick on the server's loop. */
#include <math.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "net_server.h"
#include "session.h"
#include "snapshot.h"

#define CLIENTS_BODIES 2000
#define CLIENTS_BIG 20000 /* the radius row's second pile */
#define CLIENTS_N 200
#define CLIENTS_STEPS 30 /* the pile falls for half a second: every box moving */
#define CLIENTS_REPS 100
#define CLIENTS_QUICK_REPS 5
#define CLIENTS_RADIUS 20.0 /* m */

static void die(const char *what)
{
    fprintf(stderr, "mink-bench: %s\n", what);
    exit(1);
}

typedef struct clients_bench {
    sim_world *world;
    net_server srv;
    net_session *sessions;
} clients_bench;

/* A pile and n joined sessions; with a radius, each has a kinematic avatar over the pile,
 * spread across it. */
static void setup(clients_bench *cb, int n, double radius, int bodies)
{
    sim_config cfg = sim_config_default();
    mk_error err = {0};
    cb->world = wio_scene_pile2(bodies, &cfg, &err);
    if (!cb->world)
        die(err.message);
    for (int i = 0; i < CLIENTS_STEPS; i++)
        sim_world_step(cb->world);
    memset(&cb->srv, 0, sizeof cb->srv);
    cb->srv.world = cb->world;
    cb->srv.cfg = net_config_default();
    cb->srv.snap = net_snapshot_new();
    cb->sessions = calloc((size_t)n, sizeof *cb->sessions);
    if (!cb->sessions || !cb->srv.snap)
        die("out of memory");
    for (int i = 0; i < n; i++) {
        net_session *s = &cb->sessions[i];
        s->srv = &cb->srv;
        s->client = (uint32_t)i + 1;
        s->joined = true;
        s->inputs.ack = 1000u + (uint64_t)i;
        net_view_init(&s->view);
        s->view.radius = radius;
        if (radius > 0) {
            sim_body_def d;
            memset(&d, 0, sizeof d);
            d.shape.type = COL_SHAPE_AABB;
            d.shape.half = mk_v2(0.4f, 0.9f);
            float width = 1.05f * (float)(bodies / 10); /* the pile's columns */
            d.pos = mk_v2(width * ((float)i / (float)n - 0.5f), 5.0f);
            d.kind = SIM_KINEMATIC;
            d.density = 1.0f;
            s->avatar = sim_world_add(cb->world, &d, s->client);
        }
        s->next = i + 1 < n ? &cb->sessions[i + 1] : NULL;
        s->prev = i > 0 ? &cb->sessions[i - 1] : NULL;
    }
    cb->srv.sessions = cb->sessions;
    cb->srv.session_count = (uint32_t)n;
}

static void teardown(clients_bench *cb, int n)
{
    for (int i = 0; i < n; i++)
        net_view_free(&cb->sessions[i].view);
    free(cb->sessions);
    net_snapshot_free(cb->srv.snap);
    sim_world_free(cb->world);
}

/* The bodies of one client's state line, or -1 when it does not read back. */
static int bodies_in(const proto_buf *line)
{
    if (line->len == 0 || line->data[line->len - 1] != '\n')
        return -1;
    cJSON *root = cJSON_ParseWithLength(line->data, line->len - 1);
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(root, "bodies");
    int n = cJSON_IsArray(bodies) ? cJSON_GetArraySize(bodies) : -1;
    cJSON_Delete(root);
    return n;
}

/* The way before: each body encoded once, then every client's line copied together from the
 * pieces (a comma, the piece, the closing brace), as snapshot.c's build_state did. Returns
 * ns per snapshot. */
static double copy_per_client(clients_bench *cb, int n, int reps, size_t *line_len)
{
    size_t slots;
    const sim_body *bodies = sim_world_slots(cb->world, &slots);
    proto_buf pieces, line;
    proto_buf_init(&pieces);
    proto_buf_init(&line);
    size_t *off = malloc((slots + 1) * sizeof *off);
    if (!off)
        die("out of memory");
    uint64_t t0 = bench_now_ns();
    for (int k = 0; k < reps; k++) {
        proto_buf_clear(&pieces);
        for (size_t i = 0; i < slots; i++) {
            off[i] = pieces.len;
            proto_body_state st = {.id = bodies[i].id};
            st.pos[0] = bodies[i].pos.x;
            st.pos[1] = bodies[i].pos.y;
            st.rot[0] = bodies[i].angle;
            st.vel[0] = bodies[i].vel.x;
            st.vel[1] = bodies[i].vel.y;
            st.w[0] = bodies[i].w;
            proto_state_body(&pieces, 2, &st, true);
        }
        off[slots] = pieces.len;
        for (int c = 0; c < n; c++) {
            proto_buf_clear(&line);
            proto_state_begin(&line, sim_world_tick(cb->world), 1000u + (uint64_t)c);
            bool first = true;
            for (size_t i = 0; i < slots; i++) {
                if (bodies[i].kind == SIM_STATIC)
                    continue; /* seen already */
                if (!first)
                    proto_buf_append_char(&line, ',');
                first = false;
                proto_buf_append(&line, pieces.data + off[i], off[i + 1] - off[i]);
                proto_state_body_end(&line);
            }
            proto_state_bodies_end(&line);
            proto_state_end(&line);
        }
    }
    double ns = (double)(bench_now_ns() - t0) / reps;
    *line_len = line.len;
    free(off);
    proto_buf_free(&pieces);
    proto_buf_free(&line);
    return ns;
}

/* The way before the broadphase answered radii: every body's bounds taken once a snapshot,
 * then each client's radius tested against every slot. Returns ns per snapshot; *found is
 * the bodies found for all clients, to be the same as the server's. */
static double scan_per_client(clients_bench *cb, int n, int reps, size_t *found)
{
    size_t slots;
    const sim_body *bodies = sim_world_slots(cb->world, &slots);
    col_aabb *bounds = malloc(slots * sizeof *bounds);
    if (!bounds)
        die("out of memory");
    uint64_t t0 = bench_now_ns();
    for (int k = 0; k < reps; k++) {
        for (size_t i = 0; i < slots; i++)
            bounds[i] = col_shape_bounds(&bodies[i].shape, (col_xf2){bodies[i].pos,
                                                                    bodies[i].angle});
        *found = 0;
        for (int c = 0; c < n; c++) {
            const net_session *s = &cb->sessions[c];
            mk_vec2 p = sim_world_get(cb->world, s->avatar)->pos;
            float r = (float)s->view.radius;
            for (size_t i = 0; i < slots; i++) {
                float dx = fmaxf(fabsf(p.x - bounds[i].center.x) - bounds[i].half.x, 0.0f);
                float dy = fmaxf(fabsf(p.y - bounds[i].center.y) - bounds[i].half.y, 0.0f);
                /* Static bodies it has seen are not sent again, so not counted. */
                *found += bodies[i].id != 0 && bodies[i].kind != SIM_STATIC &&
                          dx * dx + dy * dy <= r * r;
            }
        }
    }
    double ns = (double)(bench_now_ns() - t0) / reps;
    free(bounds);
    return ns;
}

static void clients_row(const bench_opts *o, double radius, int bodies)
{
    int n = CLIENTS_N, reps = o->quick ? CLIENTS_QUICK_REPS : CLIENTS_REPS;
    bench_row r;
    char name[64];
    snprintf(name, sizeof name, "snapshot 2d 200 clients%s%s", radius > 0 ? " r20" : "",
             bodies > CLIENTS_BODIES ? " 20k" : "");
    bench_row_init(&r, name);
    clients_bench cb;
    setup(&cb, n, radius, bodies);
    r.bodies = (long)sim_world_body_count(cb.world);

    /* The first snapshot shows every client every body (first sightings); from then on only
     * what moves, or with a radius what is near. Built as after a whole snapshot period of
     * steps, every client is due a state. */
    uint64_t period_ago = sim_world_tick(cb.world) - net_view_phases(&cb.srv.cfg);
    if (net_snapshot_build(&cb.srv, period_ago) != n)
        die("a state was not built");
    net_snapshot_discard(&cb.srv);
    uint64_t t0 = bench_now_ns();
    for (int k = 0; k < reps; k++) {
        if (net_snapshot_build(&cb.srv, period_ago) != n)
            die("a state was not built");
        if (k + 1 < reps)
            net_snapshot_discard(&cb.srv);
    }
    double ns = (double)(bench_now_ns() - t0) / reps;
    proto_buf line;
    proto_buf_init(&line);
    size_t total = 0, sent = 0;
    for (int c = 0; c < n; c++) {
        net_snapshot_copy(cb.srv.snap, &cb.sessions[c].view, &line);
        int k = bodies_in(&line);
        if (k < 0)
            die("a client's state does not read back");
        total += line.len;
        sent += (size_t)k;
    }
    size_t ranges = cb.srv.snap->ranges.v.len;
    net_snapshot_discard(&cb.srv);
    proto_buf_free(&line);

    /* ns per body of the world per client, and bytes per body sent */
    double per = (double)r.bodies * n;
    r.ns_op = ns / per;
    r.bytes_op = (double)total / (double)(sent > 0 ? sent : 1);
    bench_note(&r, "%.3f ms a snapshot for %d clients; %.0f bytes and %.0f bodies a client, in "
               "%.1f ranges (uv_buf_t into the shared tick buffer)", ns / 1e6, n,
               (double)total / n, (double)sent / n, (double)ranges / n);
    if (radius <= 0) {
        size_t copy_len;
        double ns_copy = copy_per_client(&cb, n, reps, &copy_len);
        snprintf(r.peer, sizeof r.peer, "copy per client");
        snprintf(r.peer_time, sizeof r.peer_time, "%.2f ns", ns_copy / per);
        r.ratio = ns / ns_copy;
        bench_note(&r, "; before: each client's line copied from the pieces, %.3f ms a "
                   "snapshot, %zu bytes a client", ns_copy / 1e6, copy_len);
    }
    if (radius > 0) {
        size_t found;
        double ns_scan = scan_per_client(&cb, n, reps, &found);
        snprintf(r.peer, sizeof r.peer, "scan every slot");
        snprintf(r.peer_time, sizeof r.peer_time, "%.2f ns", ns_scan / per);
        r.ratio = ns / ns_scan;
        bench_note(&r, "; testing every slot for each client instead: %.3f ms (%s bodies)",
                   ns_scan / 1e6, found == sent ? "the same" : "NOT the same");
    }
    bench_row_print(&r);
    teardown(&cb, n);
}

/* One snapshot period of the pile (untimed), then one state for every client (timed): ns. */
static double period_then_build(clients_bench *cb, int n, size_t *bytes)
{
    uint64_t phases = net_view_phases(&cb->srv.cfg);
    for (uint64_t i = 0; i < phases; i++)
        sim_world_step(cb->world);
    uint64_t t = bench_now_ns();
    if (net_snapshot_build(&cb->srv, sim_world_tick(cb->world) - phases) != n)
        die("a state was not built");
    double ns = (double)(bench_now_ns() - t);
    *bytes = 0;
    const net_snapshot *sn = cb->srv.snap;
    for (size_t i = 0; i < sn->ranges.v.len; i++)
        *bytes += sn->ranges.at[i].len;
    net_snapshot_discard(&cb->srv);
    return ns;
}

/* 200 clients with delta states against 200 with compact states, the same pile stepped the
 * same way between states (each world its own copy), taking turns: what the server spends a
 * snapshot, and the bytes it queues. The delta clients share their entries' tails (all are in
 * one phase here, as a third of a server's clients are each tick). */
static void delta_clients_row(const bench_opts *o)
{
    int n = CLIENTS_N, reps = o->quick ? CLIENTS_QUICK_REPS : CLIENTS_REPS / 2;
    bench_row r;
    bench_row_init(&r, "snapshot 2d 200 clients delta");
    clients_bench d, c;
    setup(&d, n, 0, CLIENTS_BODIES);
    setup(&c, n, 0, CLIENTS_BODIES);
    for (int i = 0; i < n; i++) {
        d.sessions[i].view.delta = true;
        c.sessions[i].view.compact = true;
    }
    r.bodies = (long)sim_world_body_count(d.world);
    size_t bytes_d = 0, bytes_c = 0;
    period_then_build(&d, n, &bytes_d); /* first sightings */
    period_then_build(&c, n, &bytes_c);
    double ns_d = 0, ns_c = 0, sum_bd = 0, sum_bc = 0;
    for (int k = 0; k < reps; k++) {
        ns_d += period_then_build(&d, n, &bytes_d);
        ns_c += period_then_build(&c, n, &bytes_c);
        sum_bd += (double)bytes_d;
        sum_bc += (double)bytes_c;
    }
    if (sim_world_hash(d.world) != sim_world_hash(c.world))
        die("the two piles went different ways");
    double per = (double)r.bodies * n;
    r.ns_op = ns_d / reps / per;
    r.bytes_op = sum_bd / reps / per;
    snprintf(r.peer, sizeof r.peer, "compact clients");
    snprintf(r.peer_time, sizeof r.peer_time, "%.2f ns", ns_c / reps / per);
    r.ratio = ns_d / ns_c;
    bench_note(&r, "%.3f ms a snapshot for %d delta clients, %.0f bytes a client; compact "
               "clients: %.3f ms, %.0f bytes a client (%d states each, the pile settling)",
               ns_d / reps / 1e6, n, sum_bd / reps / n, ns_c / reps / 1e6, sum_bc / reps / n,
               reps);
    bench_row_print(&r);
    teardown(&d, n);
    teardown(&c, n);
}

void bench_scene_snapshot_clients(const bench_opts *o)
{
    delta_clients_row(o);
    clients_row(o, 0, CLIENTS_BODIES);
    clients_row(o, CLIENTS_RADIUS, CLIENTS_BODIES);
    clients_row(o, CLIENTS_RADIUS, CLIENTS_BIG);
}
