/* The client's copy of the world, kept from `state` messages: a body's shape, kind and owner
 * arrive the first time the client sees it; later states carry only what moved (static and
 * sleeping bodies keep their last state), and `removed` lists what went (PROTOCOL.md, "Server
 * to client"); joints come once, in `joints`, and go in `removed_joints`. The server is trusted for meaning, not for form: anything malformed is skipped
 * and reported, never allowed to crash the client or to put a non-finite number in the world.
 * The world's dim (from the welcome) says how a state reads: vectors of 2 or 3 numbers, `rot` an
 * angle or a quaternion, the 2D or the 3D shapes. A shape is read by the protocol's own reader
 * (proto_parse_shape), the one `spawn` takes, so it is held to the same limits. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "world.h"

#define MAX_UINT 9007199254740992.0 /* 2^53: ids, ticks and seqs are integers up to this */

void cli_world_init(cli_world *w)
{
    memset(w, 0, sizeof *w);
    w->dim = 2;
}

void cli_world_free(cli_world *w)
{
    for (size_t i = 0; i < w->count; i++) {
        free(w->bodies[i].points);
        free(w->bodies[i].solid.points);
    }
    free(w->bodies);
    free(w->index);
    free(w->joints);
    int dim = w->dim;
    memset(w, 0, sizeof *w);
    w->dim = dim;
}

bool cli_json_uint(const cJSON *j, uint64_t *out)
{
    if (!cJSON_IsNumber(j))
        return false;
    double v = j->valuedouble;
    if (!(v >= 0 && v <= MAX_UINT) || v != floor(v))
        return false;
    *out = (uint64_t)v;
    return true;
}

static size_t hash_id(uint64_t id, size_t cap)
{
    /* Fibonacci hashing (Knuth, TAOCP vol. 3, 6.4): ids are small consecutive numbers and the
     * multiply spreads them over the table. */
    return (size_t)((id * 11400714819323198485ull) >> 20) & (cap - 1);
}

static bool rebuild_index(cli_world *w, size_t cap)
{
    uint32_t *index = calloc(cap, sizeof *index);
    if (!index)
        return false;
    for (size_t i = 0; i < w->count; i++) {
        size_t h = hash_id(w->bodies[i].id, cap);
        while (index[h])
            h = (h + 1) & (cap - 1);
        index[h] = (uint32_t)(i + 1);
    }
    free(w->index);
    w->index = index;
    w->index_cap = cap;
    return true;
}

cli_body *cli_world_find(cli_world *w, uint64_t id)
{
    if (!w->index_cap)
        return NULL;
    size_t h = hash_id(id, w->index_cap);
    while (w->index[h]) {
        cli_body *b = &w->bodies[w->index[h] - 1];
        if (b->id == id)
            return b;
        h = (h + 1) & (w->index_cap - 1);
    }
    return NULL;
}

static cli_body *add_body(cli_world *w, uint64_t id)
{
    if (w->count >= UINT32_MAX - 1)
        return NULL;
    if (w->count == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        cli_body *b = realloc(w->bodies, cap * sizeof *b);
        if (!b)
            return NULL;
        w->bodies = b;
        w->cap = cap;
    }
    /* The index stays at most half full, so probes stay short. */
    if ((w->count + 1) * 2 > w->index_cap &&
        !rebuild_index(w, w->index_cap ? w->index_cap * 2 : 128))
        return NULL;
    cli_body *b = &w->bodies[w->count];
    memset(b, 0, sizeof *b);
    b->id = id;
    b->kind = PROTO_KIND_DYNAMIC;
    b->quat[3] = 1; /* unturned until a state says otherwise */
    size_t h = hash_id(id, w->index_cap);
    while (w->index[h])
        h = (h + 1) & (w->index_cap - 1);
    w->index[h] = (uint32_t)(++w->count);
    return b;
}

static bool remove_bodies(cli_world *w, const cJSON *removed)
{
    bool ok = true;
    const cJSON *e;
    cJSON_ArrayForEach(e, removed)
    {
        uint64_t id;
        if (!cli_json_uint(e, &id)) {
            ok = false;
            continue;
        }
        cli_body *b = cli_world_find(w, id);
        if (!b)
            continue;
        free(b->points);
        free(b->solid.points);
        *b = w->bodies[--w->count]; /* the last body takes the gap */
        /* The index must forget the removed id before the next lookup. */
        if (!rebuild_index(w, w->index_cap))
            return false;
    }
    return ok;
}

static bool read_number(const cJSON *j, double *out)
{
    if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble))
        return false;
    *out = j->valuedouble;
    return true;
}

/* An array of exactly n finite numbers; out is left alone unless all of them are. */
static bool read_vec(const cJSON *v, int n, double *out)
{
    double xyz[4];
    if (n > 4 || !cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
        return false;
    for (int i = 0; i < n; i++)
        if (!read_number(cJSON_GetArrayItem(v, i), &xyz[i]))
            return false;
    memcpy(out, xyz, (size_t)n * sizeof xyz[0]);
    return true;
}

/* A 2D shape as the view draws it: its body-local bounds, and the outline the view fills. */
static bool set_shape2(cli_body *b, const proto_shape *s)
{
    switch (s->type) {
    case PROTO_SHAPE_AABB:
    case PROTO_SHAPE_BOX:
        for (int i = 0; i < 2; i++) {
            b->lo[i] = -s->half[i];
            b->hi[i] = s->half[i];
        }
        b->turns = s->type == PROTO_SHAPE_BOX;
        b->shape = CLI_SHAPE_BOX;
        return true;
    case PROTO_SHAPE_CIRCLE:
        b->lo[0] = b->lo[1] = -s->radius;
        b->hi[0] = b->hi[1] = s->radius;
        b->turns = false;
        b->shape = CLI_SHAPE_CIRCLE;
        b->radius = s->radius;
        return true;
    case PROTO_SHAPE_POLYGON: {
        /* The server sends a polygon's hull, at most CLI_MAX_POLYGON vertices (PROTOCOL.md). */
        int n = s->npoints;
        if (n > CLI_MAX_POLYGON)
            return false;
        double(*pts)[2] = malloc((size_t)n * sizeof *pts);
        if (!pts)
            return false;
        double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        for (int k = 0; k < n; k++)
            for (int i = 0; i < 2; i++) {
                pts[k][i] = s->points[k][i];
                lo[i] = fmin(lo[i], pts[k][i]);
                hi[i] = fmax(hi[i], pts[k][i]);
            }
        memcpy(b->lo, lo, sizeof lo);
        memcpy(b->hi, hi, sizeof hi);
        b->turns = true;
        free(b->points);
        b->points = pts;
        b->npoints = n;
        b->shape = CLI_SHAPE_POLYGON;
        return true;
    }
    case PROTO_SHAPE_SEGMENT:
    case PROTO_SHAPE_CHAIN:
        return cli_level_shape2(b, s);
    default:
        return false; /* proto_parse_shape gives a 2D world only 2D shapes */
    }
}

/* A 3D shape as the view and the prediction take it: the fields of its type, 0 in the others
 * (proto_parse_shape clears them). */
_Static_assert(CLI_MAX_HULL >= PROTO_MAX_POINTS, "every hull the protocol takes has a footprint");
static bool set_shape3(cli_body *b, const proto_shape *s)
{
    /* proto_parse_shape gives a 3D world only 3D shapes. */
    if (proto_shape_is_level(s->type))
        return cli_level_shape3(b, s);
    static const cli_solid_type types[PROTO_SHAPE_COUNT] = {
        [PROTO_SHAPE_SPHERE] = CLI_SOLID_SPHERE,     [PROTO_SHAPE_BOX] = CLI_SOLID_BOX,
        [PROTO_SHAPE_ELLIPSOID] = CLI_SOLID_ELLIPSOID, [PROTO_SHAPE_CAPSULE] = CLI_SOLID_CAPSULE,
        [PROTO_SHAPE_CYLINDER] = CLI_SOLID_CYLINDER, [PROTO_SHAPE_CONE] = CLI_SOLID_CONE,
        [PROTO_SHAPE_HULL] = CLI_SOLID_HULL,
    };
    double(*pts)[3] = NULL;
    if (s->type == PROTO_SHAPE_HULL) {
        pts = malloc((size_t)s->npoints * sizeof *pts);
        if (!pts)
            return false;
        memcpy(pts, s->points, (size_t)s->npoints * sizeof *pts);
    }
    cli_solid *o = &b->solid;
    free(o->points);
    o->points = pts;
    o->npoints = pts ? s->npoints : 0;
    o->type = types[s->type];
    o->radius = s->radius;
    o->half_height = s->half_height;
    memcpy(o->half, s->type == PROTO_SHAPE_ELLIPSOID ? s->radii : s->half, sizeof o->half);
    return true;
}

/* A body's shape from its first sighting, read by the protocol's reader (the form `spawn`
 * takes); b keeps its old shape when this one cannot be read. */
static bool read_shape(cli_body *b, const cJSON *json, int dim)
{
    proto_shape s; /* 6 kB (256 points): on the loop thread's stack, a few calls deep */
    proto_error err;
    if (proto_parse_shape(json, dim, "shape.", &s, &err) != PROTO_OK)
        return false;
    bool ok = dim == 3 ? set_shape3(b, &s) : set_shape2(b, &s);
    proto_shape_free(&s);
    if (!ok)
        return false;
    b->has_shape = true;
    return true;
}

/* A 3D rot: a quaternion [x, y, z, w], normalised here (the server rounds its components). A
 * zero one is no rotation and is refused. */
static bool read_quat(const cJSON *j, double q[4])
{
    double v[4];
    if (!read_vec(j, 4, v))
        return false;
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    if (!(n > 1e-9) || !isfinite(n))
        return false;
    for (int i = 0; i < 4; i++)
        q[i] = v[i] / n;
    return true;
}

static bool read_kind(cli_body *b, const cJSON *kind)
{
    int k = cJSON_IsString(kind) ? proto_kind_of(kind->valuestring) : -1;
    if (k < 0)
        return false;
    b->kind = (proto_body_kind)k;
    return true;
}

/* The body's state as the server quantised it (the numbers came at its precision); raw_quat
 * is the quaternion as sent, before the client normalised it. */
static void set_baseline(const cli_world *w, cli_body *b, const double raw_quat[4],
                         uint64_t tick)
{
    proto_body_state st;
    memset(&st, 0, sizeof st);
    memcpy(st.pos, b->pos, sizeof st.pos);
    memcpy(st.vel, b->vel, sizeof st.vel);
    memcpy(st.w, b->spin, sizeof st.w);
    if (w->dim == 3)
        memcpy(st.rot, raw_quat, sizeof st.rot);
    else
        st.rot[0] = b->rot;
    proto_quantise(w->dim, &st, b->q);
    b->q_tick = tick;
    b->has_q = true;
}

/* A whole number within +-2^53 (a delta entry's items). */
static bool read_int(const cJSON *j, int64_t *out)
{
    const double limit = 9007199254740992.0;
    if (!cJSON_IsNumber(j) || !(fabs(j->valuedouble) <= limit) ||
        j->valuedouble != floor(j->valuedouble))
        return false;
    *out = (int64_t)j->valuedouble;
    return true;
}

/* A delta entry (`subscribe {delta}`): [d] or [d, keep, values...] against the body's
 * baseline moved along its velocity (proto_delta_apply). Nothing changes unless all of it
 * reads and the body is one this client has a baseline of. */
static bool apply_delta(cli_world *w, const cJSON *e, uint64_t tick, uint64_t *prev)
{
    int n = cJSON_GetArraySize(e), dim = w->dim;
    int64_t v[2 + PROTO_Q_MAX];
    if (n < 1 || n > 2 + proto_q_count(dim))
        return false;
    for (int i = 0; i < n; i++)
        if (!read_int(cJSON_GetArrayItem(e, i), &v[i]))
            return false;
    int64_t id = (int64_t)*prev + v[0];
    if (id < 1 || id > ((int64_t)1 << 53))
        return false;
    cli_body *b = cli_world_find(w, (uint64_t)id);
    if (!b || !b->has_q || tick < b->q_tick)
        return false;
    int64_t q[PROTO_Q_MAX];
    if (!proto_delta_apply(dim, b->q, tick - b->q_tick, w->tick_hz, v + 1, n - 1, q))
        return false;
    proto_body_state st;
    proto_dequantise(dim, q, &st);
    if (dim == 3) {
        double qn = sqrt(st.rot[0] * st.rot[0] + st.rot[1] * st.rot[1] +
                         st.rot[2] * st.rot[2] + st.rot[3] * st.rot[3]);
        if (!(qn > 1e-9))
            return false;
        for (int i = 0; i < 4; i++)
            b->quat[i] = st.rot[i] / qn;
    } else {
        b->rot = st.rot[0];
    }
    memcpy(b->pos, st.pos, sizeof b->pos);
    memcpy(b->vel, st.vel, sizeof b->vel);
    memcpy(b->spin, st.w, sizeof b->spin);
    memcpy(b->q, q, sizeof q);
    b->q_tick = tick;
    *prev = (uint64_t)id;
    return true;
}

/* A compact entry (`subscribe {compact}`): [id, pos, rot, vel, w] flattened, 7 numbers in 2D
 * and 14 in 3D, for a body already seen. Nothing changes unless all of them read. */
static bool apply_compact(cli_world *w, const cJSON *e, uint64_t tick, uint64_t *prev,
                          bool *no_memory)
{
    int dim = w->dim, n = dim == 3 ? 14 : 7;
    double v[14];
    if (cJSON_GetArraySize(e) != n)
        return false;
    for (int i = 0; i < n; i++)
        if (!read_number(cJSON_GetArrayItem(e, i), &v[i]))
            return false;
    uint64_t id;
    if (!cli_json_uint(cJSON_GetArrayItem(e, 0), &id))
        return false;
    double q[4] = {v[1 + dim], v[2 + dim], v[3 + dim], v[4 + dim]};
    double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (dim == 3 && !(qn > 1e-9))
        return false;
    cli_body *b = cli_world_find(w, id);
    if (!b && !(b = add_body(w, id))) {
        *no_memory = true;
        return false;
    }
    memcpy(b->pos, &v[1], (size_t)dim * sizeof v[0]);
    if (dim == 3) {
        for (int i = 0; i < 4; i++)
            b->quat[i] = q[i] / qn;
        memcpy(b->vel, &v[8], 3 * sizeof v[0]);
        memcpy(b->spin, &v[11], 3 * sizeof v[0]);
    } else {
        b->rot = v[3];
        memcpy(b->vel, &v[4], 2 * sizeof v[0]);
        b->spin[0] = v[6];
    }
    set_baseline(w, b, q, tick);
    *prev = id;
    return true;
}

/* One entry of `bodies`; false when some of it could not be read. */
static bool apply_body(cli_world *w, const cJSON *e, bool delta, uint64_t tick, uint64_t *prev,
                       bool *no_memory)
{
    if (cJSON_IsArray(e))
        return delta ? apply_delta(w, e, tick, prev) : apply_compact(w, e, tick, prev, no_memory);
    uint64_t id;
    if (!cli_json_uint(cJSON_GetObjectItemCaseSensitive(e, "id"), &id))
        return false;
    cli_body *b = cli_world_find(w, id);
    if (!b && !(b = add_body(w, id))) {
        *no_memory = true;
        return false;
    }
    int dim = w->dim;
    bool ok = read_vec(cJSON_GetObjectItemCaseSensitive(e, "pos"), dim, b->pos);
    const cJSON *vel = cJSON_GetObjectItemCaseSensitive(e, "vel");
    if (vel && !read_vec(vel, dim, b->vel))
        ok = false;
    const cJSON *rot = cJSON_GetObjectItemCaseSensitive(e, "rot");
    if (rot && !(dim == 3 ? read_quat(rot, b->quat) : read_number(rot, &b->rot)))
        ok = false;
    /* w: a number in 2D, a vector in 3D. */
    const cJSON *spin = cJSON_GetObjectItemCaseSensitive(e, "w");
    if (spin && !(dim == 3 ? read_vec(spin, 3, b->spin) : read_number(spin, &b->spin[0])))
        ok = false;
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
    if (shape && !read_shape(b, shape, dim))
        ok = false;
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(e, "kind");
    if (kind && !read_kind(b, kind))
        ok = false;
    const cJSON *owner = cJSON_GetObjectItemCaseSensitive(e, "owner");
    uint64_t o;
    if (owner) {
        if (cli_json_uint(owner, &o) && o <= UINT32_MAX)
            b->owner = (uint32_t)o;
        else
            ok = false;
    }
    /* A baseline for delta entries only from a whole state. */
    double raw[4] = {0, 0, 0, 1};
    if (ok && vel && rot && spin && (dim == 2 || read_vec(rot, 4, raw)))
        set_baseline(w, b, raw, tick);
    else
        b->has_q = false;
    *prev = id;
    return ok;
}

/* `removed_joints` and then `joints` (first sightings); false when malformed (what could be
 * read is kept) or out of memory (*no_memory). */
static bool apply_joints(cli_world *w, const cJSON *state, bool *no_memory)
{
    bool ok = true;
    const cJSON *e, *gone = cJSON_GetObjectItemCaseSensitive(state, "removed_joints");
    cJSON_ArrayForEach(e, gone)
    {
        uint64_t id;
        if (!cli_json_uint(e, &id)) {
            ok = false;
            continue;
        }
        for (size_t i = 0; i < w->njoints; i++)
            if (w->joints[i].id == id)
                w->joints[i--] = w->joints[--w->njoints];
    }
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(state, "joints"))
    {
        cli_joint j = {0};
        int n = w->dim == 3 ? 3 : 2;
        if (!cli_json_uint(cJSON_GetObjectItemCaseSensitive(e, "id"), &j.id) ||
            !cli_json_uint(cJSON_GetObjectItemCaseSensitive(e, "a"), &j.a) ||
            !cli_json_uint(cJSON_GetObjectItemCaseSensitive(e, "b"), &j.b) ||
            !read_vec(cJSON_GetObjectItemCaseSensitive(e, "local_a"), n, j.local_a) ||
            !read_vec(cJSON_GetObjectItemCaseSensitive(e, "local_b"), n, j.local_b)) {
            ok = false;
            continue;
        }
        if (w->njoints == w->joints_cap) {
            size_t cap = w->joints_cap ? 2 * w->joints_cap : 16;
            cli_joint *grown = realloc(w->joints, cap * sizeof *grown);
            if (!grown) {
                *no_memory = true;
                return false;
            }
            w->joints = grown;
            w->joints_cap = cap;
        }
        w->joints[w->njoints++] = j;
    }
    return ok;
}

bool cli_world_apply(cli_world *w, const cJSON *state)
{
    uint64_t tick, ack;
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(state, "bodies");
    if (!cli_json_uint(cJSON_GetObjectItemCaseSensitive(state, "tick"), &tick) ||
        !cJSON_IsArray(bodies))
        return false;
    w->tick = tick;
    bool ok = true;
    if (cli_json_uint(cJSON_GetObjectItemCaseSensitive(state, "ack"), &ack))
        w->ack = ack;
    else
        ok = false;
    /* `ack_tick` (an extension): the tick whose step first applied input `ack`; 0 without. */
    uint64_t ack_tick;
    bool has_ack_tick =
        cli_json_uint(cJSON_GetObjectItemCaseSensitive(state, "ack_tick"), &ack_tick);
    w->ack_tick = has_ack_tick && ack_tick <= tick ? ack_tick : 0;

    /* `removed` names bodies gone since the last state; a body listed in `bodies` is current,
     * so removals are applied first. */
    const cJSON *removed = cJSON_GetObjectItemCaseSensitive(state, "removed");
    if (removed && (!cJSON_IsArray(removed) || !remove_bodies(w, removed)))
        ok = false;

    bool joints_oom = false;
    if (!apply_joints(w, state, &joints_oom))
        ok = false;
    if (joints_oom)
        return false;

    bool delta = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(state, "delta"));
    uint64_t prev = 0; /* a delta entry's id is relative to the entry before it */
    const cJSON *e;
    cJSON_ArrayForEach(e, bodies)
    {
        bool no_memory = false;
        if (!apply_body(w, e, delta, tick, &prev, &no_memory))
            ok = false;
        if (no_memory)
            return false;
    }
    return ok;
}

bool cli_body_contains(const cli_body *b, double x, double y)
{
    /* Into the body's frame: unturned for an aabb or a circle. */
    double dx = x - b->pos[0], dy = y - b->pos[1];
    if (b->turns && b->rot != 0) {
        double c = cos(b->rot), s = sin(b->rot);
        double lx = c * dx + s * dy, ly = -s * dx + c * dy;
        dx = lx;
        dy = ly;
    }
    switch (b->shape) {
    case CLI_SHAPE_CIRCLE:
        return dx * dx + dy * dy <= b->radius * b->radius;
    case CLI_SHAPE_POLYGON:
        /* Inside a counter-clockwise convex polygon: on the left of every edge. */
        for (int i = 0; i < b->npoints; i++) {
            const double *p = b->points[i], *q = b->points[(i + 1) % b->npoints];
            if ((q[0] - p[0]) * (dy - p[1]) - (q[1] - p[1]) * (dx - p[0]) < 0)
                return false;
        }
        return b->npoints > 0;
    case CLI_SHAPE_LINES:
        return cli_lines_contain(b, dx, dy);
    case CLI_SHAPE_BOX:
        break;
    }
    return dx >= b->lo[0] && dx <= b->hi[0] && dy >= b->lo[1] && dy <= b->hi[1];
}

void cli_body_bounds(const cli_body *b, double lo[2], double hi[2])
{
    if (!b->turns || b->rot == 0) {
        for (int i = 0; i < 2; i++) {
            lo[i] = b->pos[i] + b->lo[i];
            hi[i] = b->pos[i] + b->hi[i];
        }
        return;
    }
    /* The box around the turned corners of the local bounds: never smaller than the shape. */
    double c = cos(b->rot), s = sin(b->rot);
    lo[0] = lo[1] = INFINITY;
    hi[0] = hi[1] = -INFINITY;
    for (int k = 0; k < 4; k++) {
        double x = (k & 1) ? b->hi[0] : b->lo[0];
        double y = (k & 2) ? b->hi[1] : b->lo[1];
        double wx = b->pos[0] + c * x - s * y, wy = b->pos[1] + s * x + c * y;
        lo[0] = fmin(lo[0], wx);
        lo[1] = fmin(lo[1], wy);
        hi[0] = fmax(hi[0], wx);
        hi[1] = fmax(hi[1], wy);
    }
}

void cli_body_footprint(const cli_body *b, cli_footprint *out)
{
    cli_footprint_make(&b->solid, b->pos, b->quat, out);
}
