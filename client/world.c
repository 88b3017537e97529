/* The client's copy of the world, kept from `state` messages: a body's shape, kind and owner
 * arrive the first time the client sees it; later states carry only what moved (static and
 * sleeping bodies keep their last state), and `removed` lists what went (PROTOCOL.md, "Server
 * to client"). The server is trusted for meaning, not for form: anything malformed is skipped
 * and reported, never allowed to crash the client or to put a non-finite number in the world. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_UINT 9007199254740992.0 /* 2^53: ids, ticks and seqs are integers up to this */

void cli_world_init(cli_world *w)
{
    memset(w, 0, sizeof *w);
}

void cli_world_free(cli_world *w)
{
    for (size_t i = 0; i < w->count; i++)
        free(w->bodies[i].points);
    free(w->bodies);
    free(w->index);
    memset(w, 0, sizeof *w);
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

static bool read_vec2(const cJSON *v, double out[2])
{
    double xy[2];
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2 ||
        !read_number(cJSON_GetArrayItem(v, 0), &xy[0]) ||
        !read_number(cJSON_GetArrayItem(v, 1), &xy[1]))
        return false;
    out[0] = xy[0];
    out[1] = xy[1];
    return true;
}

/* The body-local bounds the view draws, from any 2D shape (PROTOCOL.md, "Shapes"). */
static bool read_shape(cli_body *b, const cJSON *shape)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(shape, "type");
    if (!cJSON_IsString(type))
        return false;
    const char *t = type->valuestring;
    if (strcmp(t, "aabb") == 0 || strcmp(t, "box") == 0) {
        double half[2];
        if (!read_vec2(cJSON_GetObjectItemCaseSensitive(shape, "half"), half) ||
            half[0] < 0 || half[1] < 0)
            return false;
        b->lo[0] = -half[0];
        b->lo[1] = -half[1];
        b->hi[0] = half[0];
        b->hi[1] = half[1];
        b->turns = t[0] == 'b';
        b->shape = CLI_SHAPE_BOX;
    } else if (strcmp(t, "circle") == 0) {
        double r;
        if (!read_number(cJSON_GetObjectItemCaseSensitive(shape, "radius"), &r) || r < 0)
            return false;
        b->lo[0] = b->lo[1] = -r;
        b->hi[0] = b->hi[1] = r;
        b->turns = false;
        b->shape = CLI_SHAPE_CIRCLE;
        b->radius = r;
    } else if (strcmp(t, "polygon") == 0) {
        const cJSON *points = cJSON_GetObjectItemCaseSensitive(shape, "points");
        int n = cJSON_GetArraySize(points);
        if (!cJSON_IsArray(points) || n < 3 || n > CLI_MAX_POLYGON)
            return false;
        double(*pts)[2] = malloc((size_t)n * sizeof *pts);
        if (!pts)
            return false;
        double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        int k = 0;
        const cJSON *p;
        cJSON_ArrayForEach(p, points)
        {
            if (!read_vec2(p, pts[k])) {
                free(pts);
                return false;
            }
            for (int i = 0; i < 2; i++) {
                lo[i] = fmin(lo[i], pts[k][i]);
                hi[i] = fmax(hi[i], pts[k][i]);
            }
            k++;
        }
        memcpy(b->lo, lo, sizeof lo);
        memcpy(b->hi, hi, sizeof hi);
        b->turns = true;
        free(b->points);
        b->points = pts;
        b->npoints = n;
        b->shape = CLI_SHAPE_POLYGON;
    } else {
        return false; /* a 3D shape: this client draws 2D worlds */
    }
    b->has_shape = true;
    return true;
}

static bool read_kind(cli_body *b, const cJSON *kind)
{
    static const char *const names[] = {"dynamic", "static", "kinematic", "character"};
    static const proto_body_kind kinds[] = {PROTO_KIND_DYNAMIC, PROTO_KIND_STATIC,
                                            PROTO_KIND_KINEMATIC, PROTO_KIND_CHARACTER};
    if (!cJSON_IsString(kind))
        return false;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (strcmp(kind->valuestring, names[i]) == 0) {
            b->kind = kinds[i];
            return true;
        }
    }
    return false;
}

/* One entry of `bodies`; false when some of it could not be read. */
static bool apply_body(cli_world *w, const cJSON *e, bool *no_memory)
{
    uint64_t id;
    if (!cli_json_uint(cJSON_GetObjectItemCaseSensitive(e, "id"), &id))
        return false;
    cli_body *b = cli_world_find(w, id);
    if (!b && !(b = add_body(w, id))) {
        *no_memory = true;
        return false;
    }
    bool ok = read_vec2(cJSON_GetObjectItemCaseSensitive(e, "pos"), b->pos);
    const cJSON *vel = cJSON_GetObjectItemCaseSensitive(e, "vel");
    if (vel && !read_vec2(vel, b->vel))
        ok = false;
    const cJSON *rot = cJSON_GetObjectItemCaseSensitive(e, "rot");
    if (rot && !read_number(rot, &b->rot))
        ok = false;
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
    if (shape && !read_shape(b, shape))
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

    /* `removed` names bodies gone since the last state; a body listed in `bodies` is current,
     * so removals are applied first. */
    const cJSON *removed = cJSON_GetObjectItemCaseSensitive(state, "removed");
    if (removed && (!cJSON_IsArray(removed) || !remove_bodies(w, removed)))
        ok = false;

    const cJSON *e;
    cJSON_ArrayForEach(e, bodies)
    {
        bool no_memory = false;
        if (!apply_body(w, e, &no_memory))
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
