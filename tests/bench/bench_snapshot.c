/* Snapshot scenes: a `state` line of a 2D world written with the proto_state_* writer into a
 * reused buffer, against the same line built as a cJSON tree and printed, the way the writer
 * avoids. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "mink_proto.h"

#define SNAP_BODIES 1000
#define SNAP_REPS 2000
#define SNAP_REPS_CJSON 200 /* cJSON is slower: fewer lines give as steady a figure */
#define QUICK_REPS 50
#define QUICK_REPS_CJSON 10
#define SNAP_TICK 123456u
#define SNAP_ACK 4321u
#define POS_RANGE 500.0 /* m */
#define VEL_RANGE 10.0  /* m/s */

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

static proto_shape crate_shape(void)
{
    proto_shape shape;
    memset(&shape, 0, sizeof shape);
    shape.type = PROTO_SHAPE_AABB;
    shape.half[0] = shape.half[1] = 0.5;
    return shape;
}

static void encode_writer(proto_buf *b, const proto_body_state *s, size_t n, bool first,
                          const proto_shape *shape)
{
    proto_buf_clear(b);
    proto_state_begin(b, SNAP_TICK, SNAP_ACK);
    for (size_t i = 0; i < n; i++) {
        proto_state_body(b, 2, &s[i], i == 0);
        if (first)
            proto_state_body_first(b, 2, shape, PROTO_KIND_DYNAMIC, 0, "crate");
        proto_state_body_end(b);
    }
    proto_state_bodies_end(b);
    proto_state_end(b);
}

static double round_to(double v, int decimals)
{
    double scale = pow(10.0, decimals);
    return round(v * scale) / scale;
}

static void add_vec2(cJSON *o, const char *key, const double *v, int decimals)
{
    double r[2] = {round_to(v[0], decimals), round_to(v[1], decimals)};
    cJSON_AddItemToObject(o, key, cJSON_CreateDoubleArray(r, 2));
}

/* The same line as a cJSON tree, printed unformatted: returns its length with the '\n' a JSON
 * Lines writer adds. Values are rounded to the writer's precision first, so both lines carry
 * the same digits. */
static size_t encode_cjson(const proto_body_state *s, size_t n, bool first,
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
        add_vec2(o, "pos", s[i].pos, DEC_POS);
        cJSON_AddNumberToObject(o, "rot", round_to(s[i].rot[0], DEC_ROT));
        add_vec2(o, "vel", s[i].vel, DEC_VEL);
        cJSON_AddNumberToObject(o, "w", round_to(s[i].w[0], DEC_W));
        if (first) {
            cJSON *sh = cJSON_AddObjectToObject(o, "shape");
            cJSON_AddStringToObject(sh, "type", proto_shape_name(shape->type));
            add_vec2(sh, "half", shape->half, 6);
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

/* Reads the writer's line back with cJSON: every body there, the first one's values right to
 * the writer's precision. NULL when it is, else what is wrong. */
static const char *check_line(const proto_buf *b, const proto_body_state *s, size_t n)
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
    const cJSON *x = cJSON_GetArrayItem(pos, 0), *y = cJSON_GetArrayItem(pos, 1);
    if (!cJSON_IsArray(bodies) || (size_t)cJSON_GetArraySize(bodies) != n)
        bad = "bodies are missing";
    else if (!cJSON_IsNumber(id) || id->valuedouble != (double)s[0].id)
        bad = "the first id is wrong";
    else if (!cJSON_IsNumber(x) || !cJSON_IsNumber(y) ||
             fabs(x->valuedouble - s[0].pos[0]) > 0.5e-4 ||
             fabs(y->valuedouble - s[0].pos[1]) > 0.5e-4)
        bad = "the first position is wrong";
    cJSON_Delete(root);
    return bad;
}

static void snapshot_row(const bench_opts *o, bool first)
{
    bench_row r;
    bench_row_init(&r, first ? "snapshot 2d first" : "snapshot 2d");
    r.bodies = SNAP_BODIES;
    proto_body_state *s = malloc(SNAP_BODIES * sizeof *s);
    if (!s)
        die("out of memory");
    make_states(s, SNAP_BODIES);
    proto_shape shape = crate_shape();
    int reps = o->quick ? QUICK_REPS : SNAP_REPS;
    int reps_cjson = o->quick ? QUICK_REPS_CJSON : SNAP_REPS_CJSON;

    proto_buf b;
    proto_buf_init(&b);
    encode_writer(&b, s, SNAP_BODIES, first, &shape); /* grows the buffer once */
    uint64_t t = bench_now_ns();
    for (int k = 0; k < reps; k++)
        encode_writer(&b, s, SNAP_BODIES, first, &shape);
    r.ns_op = (double)(bench_now_ns() - t) / ((double)reps * SNAP_BODIES);
    r.bytes_op = (double)b.len / SNAP_BODIES;
    const char *bad = check_line(&b, s, SNAP_BODIES);
    bench_note(&r, "%d lines of %zu bytes into a reused proto_buf; %s", reps, b.len,
               bad ? bad : "reads back with cJSON");
    proto_buf_free(&b);

    size_t len = encode_cjson(s, SNAP_BODIES, first, &shape);
    t = bench_now_ns();
    for (int k = 0; k < reps_cjson; k++)
        len = encode_cjson(s, SNAP_BODIES, first, &shape);
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
    snapshot_row(o, false);
    snapshot_row(o, true);
    bench_scene_snapshot_clients(o);
}
