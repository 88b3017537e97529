/* Snapshot scenes: a `state` line of a 2D world and of a 3D world written with the
 * proto_state_* writer into a reused buffer, against the same line built as a cJSON tree and
 * printed, the way the writer avoids. The 3D bodies are those of the pile3d:1000 scene half a
 * second into its fall, as the server reads them (wio_body_state); a third row turns them
 * every way, so that every quaternion and angular velocity component has all its digits. The
 * compact rows write the same bodies as arrays (`subscribe {compact}`); the delta rows write
 * them as `subscribe {delta}` entries against the same bodies one snapshot period (3 ticks at
 * 60 Hz) earlier: the 2D bodies falling freely for those 50 ms, the pile3d cubes as the world
 * stepped them. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "mink_proto.h"
#include "mink_world_io.h"

#define SNAP_BODIES 1000
#define SNAP_REPS 2000
#define SNAP_REPS_CJSON 200 /* cJSON is slower: fewer lines give as steady a figure */
#define QUICK_REPS 50
#define QUICK_REPS_CJSON 10
#define SNAP_TICK 123456u
#define SNAP_ACK 4321u
#define POS_RANGE 500.0 /* m */
#define VEL_RANGE 10.0  /* m/s */
#define SPIN_RANGE 5.0  /* rad/s */
#define PILE3_STEPS 30  /* the pile3d scene falls for half a second: every cube moving */
#define TWO_PI 6.283185307179586

/* The precision of PROTOCOL.md's state line, as the writer rounds: positions 4 decimals,
 * rotations 4, velocities 3, angular velocities 4. */
#define DEC_POS 4
#define DEC_ROT 4
#define DEC_VEL 3
#define DEC_W 4

static void die(const char *what)
{
    fprintf(stderr, "mink-bench: %s\n", what);
    exit(1);
}

/* Bodies as a world of this size sends them: small ids (slot + 1, generation 0), positions
 * anywhere within 500 m, walking-speed velocities, no rotation (AABBs). */
static void make_states(proto_body_state *s, size_t n)
{
    bench_rng rng = {0x5DEECE66DULL};
    memset(s, 0, n * sizeof *s);
    for (size_t i = 0; i < n; i++) {
        s[i].id = i + 1;
        s[i].pos[0] = bench_rng_range(&rng, -POS_RANGE, POS_RANGE);
        s[i].pos[1] = bench_rng_range(&rng, -POS_RANGE, POS_RANGE);
        s[i].vel[0] = bench_rng_range(&rng, -VEL_RANGE, VEL_RANGE);
        s[i].vel[1] = bench_rng_range(&rng, -VEL_RANGE, VEL_RANGE);
    }
}

/* The dynamic bodies of the pile3d scene of n cubes after `steps` steps, as the server
 * encodes them. */
static void pile3_at(proto_body_state *s, size_t n, int steps)
{
    sim_config cfg = sim_config_default();
    mk_error err = {0};
    sim_world *w = wio_scene_pile3((int)n, &cfg, &err);
    if (!w)
        die(err.message);
    for (int i = 0; i < steps; i++)
        sim_world_step(w);
    size_t slots, k = 0;
    const sim_body *bodies = sim_world_slots(w, &slots);
    for (size_t i = 0; i < slots && k < n; i++)
        if (bodies[i].id != 0 && bodies[i].kind == SIM_DYNAMIC)
            wio_body_state(w, &bodies[i], &s[k++]);
    sim_world_free(w);
    if (k != n)
        die("pile3d: fewer cubes than asked for");
}

/* Half a second into the fall. */
static void make_states3(proto_body_state *s, size_t n)
{
    pile3_at(s, n, PILE3_STEPS);
}

/* The same bodies turned every way: a uniform random unit quaternion (Shoemake, "Uniform
 * random rotations", Graphics Gems III) and a random angular velocity each. */
static void spin_states3(proto_body_state *s, size_t n)
{
    bench_rng rng = {0x9E3779B97F4A7C15ULL};
    for (size_t i = 0; i < n; i++) {
        double u1 = bench_rng_range(&rng, 0, 1), u2 = bench_rng_range(&rng, 0, TWO_PI),
               u3 = bench_rng_range(&rng, 0, TWO_PI);
        double a = sqrt(1 - u1), b = sqrt(u1);
        s[i].rot[0] = a * sin(u2);
        s[i].rot[1] = a * cos(u2);
        s[i].rot[2] = b * sin(u3);
        s[i].rot[3] = b * cos(u3);
        for (int k = 0; k < 3; k++)
            s[i].w[k] = bench_rng_range(&rng, -SPIN_RANGE, SPIN_RANGE);
    }
}

/* A 1 m crate: an AABB in 2D, a box in 3D. */
static proto_shape crate_shape(int dim)
{
    proto_shape shape;
    memset(&shape, 0, sizeof shape);
    shape.type = dim == 2 ? PROTO_SHAPE_AABB : PROTO_SHAPE_BOX;
    shape.half[0] = shape.half[1] = shape.half[2] = 0.5;
    return shape;
}

static void encode_writer(proto_buf *b, int dim, const proto_body_state *s, size_t n,
                          bool first, const proto_shape *shape)
{
    proto_buf_clear(b);
    proto_state_begin(b, SNAP_TICK, SNAP_ACK);
    for (size_t i = 0; i < n; i++) {
        proto_state_body(b, dim, &s[i], i == 0);
        if (first)
            proto_state_body_first(b, dim, shape, PROTO_KIND_DYNAMIC, 0, "crate");
        proto_state_body_end(b);
    }
    proto_state_bodies_end(b);
    proto_state_end(b);
}

/* The same bodies as compact entries (`subscribe {compact}`), all of them seen before. */
static void encode_compact(proto_buf *b, int dim, const proto_body_state *s, size_t n)
{
    proto_buf_clear(b);
    proto_state_begin(b, SNAP_TICK, SNAP_ACK);
    for (size_t i = 0; i < n; i++)
        proto_state_body_compact(b, dim, &s[i]);
    proto_state_bodies_end(b);
    proto_state_end(b);
}

/* NULL when a compact line reads back: n arrays of 7 or 14 numbers, each the body's id and
 * position to the writer's precision. proto_state_body_compact puts a comma before every
 * entry, the first too, so the line is read from its second entry's comma on. */
static const char *check_compact(const proto_buf *b, int dim, const proto_body_state *s,
                                 size_t n)
{
    const char *start = memchr(b->data, '[', b->len);
    if (!start || start[1] != ',')
        return "no leading comma to skip";
    size_t skip = (size_t)(start + 1 - b->data);
    char *text = malloc(b->len + 1);
    if (!text)
        return "out of memory";
    memcpy(text, b->data, skip);
    memcpy(text + skip, b->data + skip + 1, b->len - skip - 1);
    text[b->len - 1] = '\0';
    cJSON *root = cJSON_Parse(text);
    free(text);
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(root, "bodies");
    const char *bad = NULL;
    if (!cJSON_IsArray(bodies) || (size_t)cJSON_GetArraySize(bodies) != n)
        bad = "the line does not read back";
    for (size_t i = 0; !bad && i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(bodies, (int)i);
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != (dim == 2 ? 7 : 14) ||
            cJSON_GetArrayItem(e, 0)->valuedouble != (double)s[i].id)
            bad = "an entry is wrong";
        for (int k = 0; !bad && k < dim; k++)
            if (fabs(cJSON_GetArrayItem(e, 1 + k)->valuedouble - s[i].pos[k]) > 0.5e-4 + 1e-9)
                bad = "a position is wrong";
    }
    cJSON_Delete(root);
    return bad;
}

/* A row named `name` of SNAP_BODIES bodies from make() (turned every way with `spin`); the
 * states are the caller's to free. */
static proto_body_state *row_states(bench_row *r, const char *name,
                                    void (*make)(proto_body_state *, size_t), bool spin)
{
    bench_row_init(r, name);
    r->bodies = SNAP_BODIES;
    proto_body_state *s = malloc(SNAP_BODIES * sizeof *s);
    if (!s)
        die("out of memory");
    make(s, SNAP_BODIES);
    if (spin)
        spin_states3(s, SNAP_BODIES);
    return s;
}

/* One row of compact entries, against the object form by the same writer in the same run. */
static void compact_row(const bench_opts *o, const char *name, int dim,
                        void (*make)(proto_body_state *, size_t))
{
    bench_row r;
    proto_body_state *s = row_states(&r, name, make, false);
    proto_shape shape = crate_shape(dim);
    int reps = o->quick ? QUICK_REPS : SNAP_REPS;
    proto_buf b, objects;
    proto_buf_init(&b);
    proto_buf_init(&objects);
    encode_compact(&b, dim, s, SNAP_BODIES);
    uint64_t t = bench_now_ns();
    for (int k = 0; k < reps; k++)
        encode_compact(&b, dim, s, SNAP_BODIES);
    r.ns_op = (double)(bench_now_ns() - t) / ((double)reps * SNAP_BODIES);
    r.bytes_op = (double)b.len / SNAP_BODIES;
    encode_writer(&objects, dim, s, SNAP_BODIES, false, &shape);
    t = bench_now_ns();
    for (int k = 0; k < reps; k++)
        encode_writer(&objects, dim, s, SNAP_BODIES, false, &shape);
    double ns_objects = (double)(bench_now_ns() - t) / ((double)reps * SNAP_BODIES);
    const char *bad = check_compact(&b, dim, s, SNAP_BODIES);
    snprintf(r.peer, sizeof r.peer, "objects");
    snprintf(r.peer_time, sizeof r.peer_time, "%.1f ns", ns_objects);
    r.ratio = r.ns_op / ns_objects;
    bench_note(&r, "%d lines of %zu bytes; %s; the object form of the same bodies: %.1f "
               "bytes/body", reps, b.len, bad ? bad : "reads back with cJSON",
               (double)objects.len / SNAP_BODIES);
    proto_buf_free(&b);
    proto_buf_free(&objects);
    free(s);
    bench_row_print(&r);
}

/* ---- delta rows ---- */

#define DELTA_TICKS 3 /* one snapshot period: 60 Hz ticks, 20 states a second */
#define DELTA_HZ 60

/* make_states one snapshot period later: falling freely under gravity of 10 m/s^2. */
static void make_states_later(proto_body_state *s, size_t n)
{
    make_states(s, n);
    double dt = (double)DELTA_TICKS / DELTA_HZ, g = -10.0;
    for (size_t i = 0; i < n; i++) {
        s[i].pos[0] += s[i].vel[0] * dt;
        s[i].pos[1] += s[i].vel[1] * dt + 0.5 * g * dt * dt;
        s[i].vel[1] += g * dt;
    }
}

static void make_states3_earlier(proto_body_state *s, size_t n)
{
    pile3_at(s, n, PILE3_STEPS - DELTA_TICKS);
}

/* A state of delta entries: each body quantised, its baseline moved along its velocity, the
 * fields that differ written; as the server does for one client (net_delta_body), the shared
 * quantisation included. */
static void encode_delta(proto_buf *b, int dim, const proto_body_state *s, const int64_t *base,
                         size_t n)
{
    int k = proto_q_count(dim);
    proto_buf_clear(b);
    proto_state_begin_ext(b, SNAP_TICK, SNAP_ACK, 0, true, false, 0);
    uint64_t prev = 0;
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        int64_t q[PROTO_Q_MAX], pred[PROTO_Q_MAX];
        proto_quantise(dim, &s[i], q);
        proto_delta_predict(dim, &base[i * (size_t)k], DELTA_TICKS, DELTA_HZ, q, pred);
        if (memcmp(q, &base[i * (size_t)k], (size_t)k * sizeof *q) == 0 &&
            memcmp(pred, q, (size_t)k * sizeof *q) == 0)
            continue;
        proto_state_body_delta(b, dim, (int64_t)(s[i].id - prev), pred, q, first);
        first = false;
        prev = s[i].id;
    }
    proto_state_bodies_end(b);
    proto_state_end(b);
}

/* NULL when the line reads back with cJSON and every entry, applied to its baseline, gives the
 * body's quantised state. */
static const char *check_delta(const proto_buf *b, int dim, const proto_body_state *s,
                               const int64_t *base, size_t n)
{
    const char *bad = NULL;
    int k = proto_q_count(dim);
    cJSON *root = cJSON_ParseWithLength(b->data, b->len);
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(root, "bodies");
    if (!cJSON_IsArray(bodies) || (size_t)cJSON_GetArraySize(bodies) != n)
        bad = "delta line: not every body, or does not parse";
    uint64_t prev = 0;
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, bodies)
    {
        if (bad)
            break;
        int m = cJSON_GetArraySize(e);
        int64_t v[2 + PROTO_Q_MAX], q[PROTO_Q_MAX], want[PROTO_Q_MAX];
        for (int j = 0; j < m && j < 2 + PROTO_Q_MAX; j++)
            v[j] = (int64_t)cJSON_GetArrayItem(e, j)->valuedouble;
        uint64_t id = prev + (uint64_t)v[0];
        prev = id;
        proto_quantise(dim, &s[i], want);
        if (id != s[i].id || m > 2 + PROTO_Q_MAX ||
            !proto_delta_apply(dim, &base[i * (size_t)k], DELTA_TICKS, DELTA_HZ, v + 1, m - 1, q) ||
            memcmp(q, want, (size_t)k * sizeof *q) != 0)
            bad = "delta line: an entry does not give its body's state";
        i++;
    }
    cJSON_Delete(root);
    return bad;
}

/* One row of delta entries against the compact entries of the same bodies, in the same run. */
static void delta_row(const bench_opts *o, const char *name, int dim,
                      void (*make_base)(proto_body_state *, size_t),
                      void (*make_now)(proto_body_state *, size_t))
{
    bench_row r;
    proto_body_state *s = row_states(&r, name, make_now, false);
    proto_body_state *before = malloc(SNAP_BODIES * sizeof *before);
    int k = proto_q_count(dim);
    int64_t *base = malloc(SNAP_BODIES * (size_t)k * sizeof *base);
    if (!before || !base)
        die("out of memory");
    make_base(before, SNAP_BODIES);
    for (size_t i = 0; i < SNAP_BODIES; i++)
        proto_quantise(dim, &before[i], &base[i * (size_t)k]);
    int reps = o->quick ? QUICK_REPS : SNAP_REPS;
    proto_buf b, compact;
    proto_buf_init(&b);
    proto_buf_init(&compact);
    /* The two encoders take turns in rounds, and each keeps its fastest round: on a machine
     * shared with other work, a burst of load then lands on both or is left out of both. */
    encode_delta(&b, dim, s, base, SNAP_BODIES);
    encode_compact(&compact, dim, s, SNAP_BODIES);
    int rounds = 10, per = reps / rounds > 0 ? reps / rounds : 1;
    double best = 0, best_compact = 0;
    for (int round = 0; round < rounds; round++) {
        uint64_t t = bench_now_ns();
        for (int j = 0; j < per; j++)
            encode_delta(&b, dim, s, base, SNAP_BODIES);
        double d = (double)(bench_now_ns() - t) / ((double)per * SNAP_BODIES);
        t = bench_now_ns();
        for (int j = 0; j < per; j++)
            encode_compact(&compact, dim, s, SNAP_BODIES);
        double c = (double)(bench_now_ns() - t) / ((double)per * SNAP_BODIES);
        best = round == 0 || d < best ? d : best;
        best_compact = round == 0 || c < best_compact ? c : best_compact;
    }
    r.ns_op = best;
    r.bytes_op = (double)b.len / SNAP_BODIES;
    double ns_compact = best_compact;
    const char *bad = check_delta(&b, dim, s, base, SNAP_BODIES);
    snprintf(r.peer, sizeof r.peer, "compact");
    snprintf(r.peer_time, sizeof r.peer_time, "%.1f ns", ns_compact);
    r.ratio = r.ns_op / ns_compact;
    bench_note(&r, "%d lines of %zu bytes (the fastest of %d rounds, taking turns with "
               "compact); %s; the compact form of the same bodies: %.1f "
               "bytes/body", reps, b.len, rounds, bad ? bad : "reads back onto the baselines",
               (double)compact.len / SNAP_BODIES);
    proto_buf_free(&b);
    proto_buf_free(&compact);
    free(base);
    free(before);
    free(s);
    bench_row_print(&r);
}

static double round_to(double v, int decimals)
{
    double scale = pow(10.0, decimals);
    return round(v * scale) / scale;
}

static void add_vec(cJSON *o, const char *key, const double *v, int n, int decimals)
{
    double r[4];
    for (int i = 0; i < n; i++)
        r[i] = round_to(v[i], decimals);
    cJSON_AddItemToObject(o, key, cJSON_CreateDoubleArray(r, n));
}

/* The same line as a cJSON tree, printed unformatted: returns its length with the '\n' a JSON
 * Lines writer adds. Values are rounded to the writer's precision first, so both lines carry
 * the same digits. */
static size_t encode_cjson(int dim, const proto_body_state *s, size_t n, bool first,
                           const proto_shape *shape)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        die("out of memory");
    cJSON_AddStringToObject(root, "type", "state");
    cJSON_AddNumberToObject(root, "tick", SNAP_TICK);
    cJSON_AddNumberToObject(root, "ack", SNAP_ACK);
    cJSON *bodies = cJSON_AddArrayToObject(root, "bodies");
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "id", (double)s[i].id);
        add_vec(o, "pos", s[i].pos, dim, DEC_POS);
        if (dim == 2)
            cJSON_AddNumberToObject(o, "rot", round_to(s[i].rot[0], DEC_ROT));
        else
            add_vec(o, "rot", s[i].rot, 4, DEC_ROT);
        add_vec(o, "vel", s[i].vel, dim, DEC_VEL);
        if (dim == 2)
            cJSON_AddNumberToObject(o, "w", round_to(s[i].w[0], DEC_W));
        else
            add_vec(o, "w", s[i].w, 3, DEC_W);
        if (first) {
            cJSON *sh = cJSON_AddObjectToObject(o, "shape");
            cJSON_AddStringToObject(sh, "type", proto_shape_name(shape->type));
            add_vec(sh, "half", shape->half, dim, 6);
            cJSON_AddStringToObject(o, "kind", proto_kind_name(PROTO_KIND_DYNAMIC));
            cJSON_AddNumberToObject(o, "owner", 0);
            cJSON_AddStringToObject(o, "tag", "crate");
        }
        cJSON_AddItemToArray(bodies, o);
    }
    char *text = cJSON_PrintUnformatted(root);
    if (!text)
        die("out of memory");
    size_t len = strlen(text) + 1;
    cJSON_free(text);
    cJSON_Delete(root);
    return len;
}

/* Reads the writer's line back with cJSON: every body there, the first one's position and
 * rotation right to the writer's precision. NULL when it is, else what is wrong. */
static const char *check_line(const proto_buf *b, int dim, const proto_body_state *s, size_t n)
{
    if (b->failed || b->len == 0 || b->data[b->len - 1] != '\n')
        return "the line is not finished";
    cJSON *root = cJSON_ParseWithLength(b->data, b->len - 1);
    if (!root)
        return "the line is not JSON";
    const char *bad = NULL;
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(root, "bodies");
    const cJSON *body = cJSON_GetArrayItem(bodies, 0);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(body, "id");
    const cJSON *pos = cJSON_GetObjectItemCaseSensitive(body, "pos");
    const cJSON *rot = cJSON_GetObjectItemCaseSensitive(body, "rot");
    if (!cJSON_IsArray(bodies) || (size_t)cJSON_GetArraySize(bodies) != n)
        bad = "bodies are missing";
    else if (!cJSON_IsNumber(id) || id->valuedouble != (double)s[0].id)
        bad = "the first id is wrong";
    else if (!cJSON_IsArray(pos) || cJSON_GetArraySize(pos) != dim)
        bad = "the first position is not a vector of the world's dim";
    else if (dim == 3 && (!cJSON_IsArray(rot) || cJSON_GetArraySize(rot) != 4))
        bad = "the first rotation is not a quaternion";
    for (int k = 0; !bad && k < dim; k++) {
        const cJSON *v = cJSON_GetArrayItem(pos, k);
        if (!cJSON_IsNumber(v) || fabs(v->valuedouble - s[0].pos[k]) > 0.5e-4)
            bad = "the first position is wrong";
    }
    for (int k = 0; !bad && dim == 3 && k < 4; k++) {
        const cJSON *v = cJSON_GetArrayItem(rot, k);
        if (!cJSON_IsNumber(v) || fabs(v->valuedouble - s[0].rot[k]) > 0.5e-4)
            bad = "the first rotation is wrong";
    }
    cJSON_Delete(root);
    return bad;
}

/* One row: SNAP_BODIES bodies of `dim` from make(), encoded by the writer and by cJSON. */
static void snapshot_row(const bench_opts *o, const char *name, int dim,
                         void (*make)(proto_body_state *, size_t), bool spin, bool first)
{
    bench_row r;
    proto_body_state *s = row_states(&r, name, make, spin);
    proto_shape shape = crate_shape(dim);
    int reps = o->quick ? QUICK_REPS : SNAP_REPS;
    int reps_cjson = o->quick ? QUICK_REPS_CJSON : SNAP_REPS_CJSON;

    proto_buf b;
    proto_buf_init(&b);
    encode_writer(&b, dim, s, SNAP_BODIES, first, &shape); /* grows the buffer once */
    uint64_t t = bench_now_ns();
    for (int k = 0; k < reps; k++)
        encode_writer(&b, dim, s, SNAP_BODIES, first, &shape);
    r.ns_op = (double)(bench_now_ns() - t) / ((double)reps * SNAP_BODIES);
    r.bytes_op = (double)b.len / SNAP_BODIES;
    const char *bad = check_line(&b, dim, s, SNAP_BODIES);
    bench_note(&r, "%d lines of %zu bytes into a reused proto_buf; %s", reps, b.len,
               bad ? bad : "reads back with cJSON");
    proto_buf_free(&b);

    size_t len = encode_cjson(dim, s, SNAP_BODIES, first, &shape);
    t = bench_now_ns();
    for (int k = 0; k < reps_cjson; k++)
        len = encode_cjson(dim, s, SNAP_BODIES, first, &shape);
    double ns_cjson = (double)(bench_now_ns() - t) / ((double)reps_cjson * SNAP_BODIES);
    snprintf(r.peer, sizeof r.peer, "cJSON");
    snprintf(r.peer_time, sizeof r.peer_time, "%.1f ns", ns_cjson);
    r.ratio = r.ns_op / ns_cjson;
    bench_note(&r, "; cJSON %s: tree + PrintUnformatted + Delete, %d lines, %.1f bytes/body "
               "(same digits)", cJSON_Version(), reps_cjson, (double)len / SNAP_BODIES);
    bench_row_print(&r);
    free(s);
}

void bench_scene_snapshot(const bench_opts *o)
{
    snapshot_row(o, "snapshot 2d", 2, make_states, false, false);
    snapshot_row(o, "snapshot 2d first", 2, make_states, false, true);
    snapshot_row(o, "snapshot 3d", 3, make_states3, false, false);
    snapshot_row(o, "snapshot 3d first", 3, make_states3, false, true);
    snapshot_row(o, "snapshot 3d turned", 3, make_states3, true, false);
    compact_row(o, "snapshot 2d compact", 2, make_states);
    compact_row(o, "snapshot 3d compact", 3, make_states3);
    delta_row(o, "snapshot 2d delta", 2, make_states, make_states_later);
    delta_row(o, "snapshot 3d delta", 3, make_states3_earlier, make_states3);
    bench_scene_snapshot_clients(o);
}
