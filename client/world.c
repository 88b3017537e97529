/* The client's copy of the world, kept from `state` messages: a body's shape, kind and owner
 * arrive the first time the client sees it; later states carry only what moved, and
 * `removed` lists what went (PROTOCOL.md, "Server to client"). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_world_init(cli_world *w)
{
    memset(w, 0, sizeof *w);
}

void cli_world_free(cli_world *w)
{
    free(w->bodies);
    free(w->index);
    memset(w, 0, sizeof *w);
}

static size_t hash_id(uint64_t id, size_t cap)
{
    /* Fibonacci hashing: ids are small consecutive numbers; this spreads them. */
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
    if (w->count == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        cli_body *b = realloc(w->bodies, cap * sizeof *b);
        if (!b)
            return NULL;
        w->bodies = b;
        w->cap = cap;
    }
    /* The index stays at most half full. */
    if ((w->count + 1) * 2 > w->index_cap &&
        !rebuild_index(w, w->index_cap ? w->index_cap * 2 : 128))
        return NULL;
    cli_body *b = &w->bodies[w->count];
    memset(b, 0, sizeof *b);
    b->id = id;
    size_t h = hash_id(id, w->index_cap);
    while (w->index[h])
        h = (h + 1) & (w->index_cap - 1);
    w->index[h] = (uint32_t)(++w->count);
    return b;
}

static void remove_bodies(cli_world *w, const cJSON *removed)
{
    const cJSON *id;
    cJSON_ArrayForEach(id, removed)
    {
        if (!cJSON_IsNumber(id))
            continue;
        cli_body *b = cli_world_find(w, (uint64_t)id->valuedouble);
        if (!b)
            continue;
        *b = w->bodies[--w->count]; /* the last body takes the gap */
        /* Removals are rare next to updates: rebuilding the index keeps probing simple. */
        rebuild_index(w, w->index_cap);
    }
}

static bool read_vec2(const cJSON *obj, const char *key, double out[2])
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 2)
        return false;
    for (int i = 0; i < 2; i++) {
        const cJSON *x = cJSON_GetArrayItem(v, i);
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
            return false;
        out[i] = x->valuedouble;
    }
    return true;
}

/* The bounds the view draws, from any 2D shape. */
static void read_shape(cli_body *b, const cJSON *shape)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(shape, "type");
    if (!cJSON_IsString(type))
        return;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(shape, "radius");
    const cJSON *points = cJSON_GetObjectItemCaseSensitive(shape, "points");
    if (read_vec2(shape, "half", b->half)) {
        b->has_shape = true;
    } else if (cJSON_IsNumber(r)) {
        b->half[0] = b->half[1] = r->valuedouble;
        b->has_shape = true;
    } else if (cJSON_IsArray(points)) {
        double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        const cJSON *p;
        cJSON_ArrayForEach(p, points)
        {
            double xy[2];
            if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) < 2)
                continue;
            for (int i = 0; i < 2; i++) {
                const cJSON *x = cJSON_GetArrayItem(p, i);
                xy[i] = cJSON_IsNumber(x) ? x->valuedouble : 0.0;
                lo[i] = fmin(lo[i], xy[i]);
                hi[i] = fmax(hi[i], xy[i]);
            }
        }
        if (lo[0] <= hi[0]) {
            /* Polygon points are body-local: draw the box around them, centred. */
            b->half[0] = fmax(fabs(lo[0]), fabs(hi[0]));
            b->half[1] = fmax(fabs(lo[1]), fabs(hi[1]));
            b->has_shape = true;
        }
    }
}

static void read_kind(cli_body *b, const cJSON *kind)
{
    static const char *const names[] = {"dynamic", "static", "kinematic", "character"};
    if (!cJSON_IsString(kind))
        return;
    for (int i = 0; i < 4; i++)
        if (strcmp(kind->valuestring, names[i]) == 0)
            b->kind = (proto_body_kind)i;
}

bool cli_world_apply(cli_world *w, const cJSON *state)
{
    const cJSON *tick = cJSON_GetObjectItemCaseSensitive(state, "tick");
    const cJSON *ack = cJSON_GetObjectItemCaseSensitive(state, "ack");
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(state, "bodies");
    if (!cJSON_IsNumber(tick) || !cJSON_IsArray(bodies))
        return false;
    w->tick = (uint64_t)tick->valuedouble;
    if (cJSON_IsNumber(ack))
        w->ack = (uint64_t)ack->valuedouble;

    const cJSON *removed = cJSON_GetObjectItemCaseSensitive(state, "removed");
    if (cJSON_IsArray(removed))
        remove_bodies(w, removed);

    bool ok = true;
    const cJSON *e;
    cJSON_ArrayForEach(e, bodies)
    {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
        if (!cJSON_IsNumber(id)) {
            ok = false;
            continue;
        }
        cli_body *b = cli_world_find(w, (uint64_t)id->valuedouble);
        if (!b && !(b = add_body(w, (uint64_t)id->valuedouble)))
            return false;
        if (!read_vec2(e, "pos", b->pos))
            ok = false;
        read_vec2(e, "vel", b->vel);
        const cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
        if (shape)
            read_shape(b, shape);
        read_kind(b, cJSON_GetObjectItemCaseSensitive(e, "kind"));
        const cJSON *owner = cJSON_GetObjectItemCaseSensitive(e, "owner");
        if (cJSON_IsNumber(owner))
            b->owner = (uint32_t)owner->valuedouble;
    }
    return ok;
}
