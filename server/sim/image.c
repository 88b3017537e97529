/* The world's image: its whole state as one block of bytes, for a snapshot that a restarted
 * server steps on from exactly where this one was. A scene file (world_io's save.c) keeps what
 * a user placed; the step also reads what it learnt on the way (each touching pair's impulses
 * in the contact cache, the broadphase's order and fat bounds, the sleep timers, the pairs it
 * keeps from one step to the next), and a world that has forgotten them steps another way.
 * So the image is the world's own memory, laid out as this build lays it out: the scalars, the
 * slots, every growable array (sim_world_vecs, the list that new and free walk too), the
 * bodies' polygons and hulls and the contact cache's map. Copying it is mostly memcpy, cheap
 * enough to do between two steps; checksumming and writing it is the caller's, off the loop
 * (Redis's BGSAVE has the kernel copy the pages for it; a copy of the arrays is the portable
 * way to the same point-in-time state).
 *
 * A file is outside data: the reader checks the layout (the sizes of this build's structs),
 * every length against what is left, and every slot, id and index the step follows before it
 * follows one, and names the byte offset of the first thing wrong. What the step rebuilds
 * from the rest (the statics' tree, the per-step island and solver maps) is not kept. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "broadphase.h"
#include "level.h"
#include "solver.h"
#include "world_internal.h"

#define IMAGE_MAGIC "MINKWLD1"
#define SIM_NO_ENTRY_HINT SIM_CACHE_NO_ENTRY

/* Where the bytes go: counting (data NULL) or copying. */
typedef struct out {
    unsigned char *data;
    size_t len;
} out;

static void put(out *o, const void *p, size_t n)
{
    if (o->data && n > 0)
        memcpy(o->data + o->len, p, n);
    o->len += n;
}

static void put_u64(out *o, uint64_t v) { put(o, &v, sizeof v); }

/* A fingerprint of this build's layout: an image is only read by a build that lays the world
 * out the same way. FNV-1a over the sizes of everything the image copies whole. */
static uint64_t layout_of(sim_world *w)
{
    size_t sizes[WORLD_VECS + 8] = {sizeof(sim_world), sizeof(sim_body), sizeof(sim_body3),
                                    sizeof(col_polygon), sizeof(col_hull3), sizeof(sim_config),
                                    sizeof(sim_cache_entry), sizeof(sim_cache_entry3)};
    world_vec vecs[WORLD_VECS];
    size_t n = sim_world_vecs(w, vecs);
    for (size_t i = 0; i < n; i++)
        sizes[8 + i] = vecs[i].item;
    uint64_t h = 0xcbf29ce484222325ull;
    const unsigned char *c = (const unsigned char *)sizes;
    for (size_t i = 0; i < (8 + n) * sizeof *sizes; i++) {
        h ^= c[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The items of an array an image holds: those up to its length, none of a scratch array's
 * (past its length an array is scratch too). A scratch array comes back zeroed: the region
 * queries' bitset is all clear between queries, and the step fills the per-slot maps of
 * solver bodies and islands before it reads them. The statics' tree (SIM_VEC_REBUILT) is not
 * in the image at all: it is built again from the statics and their bounds, the same tree. */
static size_t items_kept(const world_vec *v)
{
    return v->flags & SIM_VEC_SCRATCH ? 0 : v->v->len;
}

static void write_image(sim_world *w, out *o)
{
    size_t slots = sim_slot_count(w);
    put(o, IMAGE_MAGIC, 8);
    put_u64(o, layout_of(w));
    put(o, &w->cfg, sizeof w->cfg);
    put_u64(o, w->tick);
    put_u64(o, slots);
    put_u64(o, w->slots.live);
    unsigned char flags[5] = {w->broad.order_unsorted, w->broad.statics_dirty,
                              w->broad.pairs_dirty, w->broad.pairs_sleeper, w->solver.bounce};
    put(o, flags, sizeof flags);
    put(o, &w->broad.fat_half_max, sizeof w->broad.fat_half_max);
    put_u64(o, w->islands.loaded_ring);
    /* Each array's length and capacity, so that it comes back with the same room, and its
     * items: the slots (bodies, generations and the other per-slot tables) among them. */
    world_vec vecs[WORLD_VECS];
    for (size_t i = 0, n = sim_world_vecs(w, vecs); i < n; i++) {
        const mk_vec *v = vecs[i].v;
        if (vecs[i].flags & SIM_VEC_REBUILT)
            continue;
        put_u64(o, v->len);
        put_u64(o, v->cap);
        put(o, v->data, items_kept(&vecs[i]) * v->item);
    }
    /* The bodies' polygons and hulls, in slot order. */
    for (size_t i = 0; i < slots; i++) {
        const sim_body *b = &w->slots.bodies.at[i];
        if (b->id == 0)
            continue;
        if (b->polygon)
            put(o, b->polygon, sizeof(col_polygon));
        if (w->cfg.dim == 3 && sim_part3(w, (uint32_t)i)->hull)
            put(o, sim_part3(w, (uint32_t)i)->hull, sizeof(col_hull3));
    }
    /* The level bodies' levels by their keys, in slot order: a level is immutable and may be
     * large, so the image names it and the caller keeps it once (sim_world_levels). */
    for (size_t i = 0; i < slots; i++) {
        const sim_body *b = &w->slots.bodies.at[i];
        if (b->id != 0 && b->level)
            put(o, sim_level_key(b->level), SIM_LEVEL_KEY);
    }
    const sim_cache *c = &w->solver.cache;
    put_u64(o, c->entries.len);
    put(o, c->entries.data, c->entries.len * c->entries.item);
    put_u64(o, c->table_cap);
    put_u64(o, c->used);
    put_u64(o, c->dead);
    put(o, c->table, c->table_cap * sizeof *c->table);
}

size_t sim_world_image_size(const sim_world *w)
{
    out count = {NULL, 0};
    write_image((sim_world *)w, &count); /* sim_world_vecs hands out pointers; none written */
    return count.len;
}

void sim_world_image_copy(const sim_world *w, void *dst)
{
    out o = {dst, 0};
    write_image((sim_world *)w, &o);
}

/* ---- reading ---- */

typedef struct in {
    const unsigned char *data;
    size_t len, at;
    mk_error *err;
} in;

static bool take(in *r, void *p, size_t n, const char *what)
{
    if (n > r->len - r->at) {
        mk_fail(r->err, MK_ERR_INVALID, "byte %zu: %s runs past the end (%zu bytes)", r->at,
                what, r->len);
        return false;
    }
    if (n > 0)
        memcpy(p, r->data + r->at, n);
    r->at += n;
    return true;
}

static bool take_u64(in *r, uint64_t *v, const char *what) { return take(r, v, sizeof *v, what); }

/* Allocates n items of `size` bytes (at least one, so that a NULL always means no memory) and
 * reads them; an n that cannot fit in what is left fails before anything is allocated. */
static void *take_array(in *r, uint64_t n, size_t size, const char *what)
{
    if (n > (r->len - r->at) / (size ? size : 1)) {
        mk_fail(r->err, MK_ERR_INVALID, "byte %zu: %s (%llu of %zu bytes) runs past the end",
                r->at, what, (unsigned long long)n, size);
        return NULL;
    }
    void *p = calloc(n ? (size_t)n : 1, size);
    if (!p) {
        mk_fail(r->err, MK_ERR_IO, "byte %zu: %s: out of memory", r->at, what);
        return NULL;
    }
    take(r, p, (size_t)n * size, what);
    return p;
}

static bool bad(in *r, size_t at, const char *what, unsigned long long value)
{
    mk_fail(r->err, MK_ERR_INVALID, "byte %zu: %s (%llu) is out of range", at, what, value);
    return false;
}

static bool finite_body(const sim_body *b, const sim_body3 *b3)
{
    float f[] = {b->pos.x, b->pos.y, b->vel.x, b->vel.y, b->angle, b->w, b->move.x, b->move.y,
                 b->inv_mass, b->inv_inertia, b->sleep_time};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        if (!isfinite(f[i]))
            return false;
    if (!b3)
        return true;
    float g[] = {b3->pos.x, b3->pos.y, b3->pos.z, b3->vel.x, b3->vel.y, b3->vel.z, b3->w.x,
                 b3->w.y, b3->w.z, b3->rot.x, b3->rot.y, b3->rot.z, b3->rot.w};
    for (size_t i = 0; i < sizeof g / sizeof *g; i++)
        if (!isfinite(g[i]))
            return false;
    return true;
}

/* The pointers in the bodies' bytes are the writer's: none may be followed or freed. Which
 * bodies had a level is noted in `levels` (one byte a slot), for read_levels. */
static void clear_pointers(sim_world *w, uint8_t *levels)
{
    for (size_t i = 0; i < w->slots.bodies.v.len; i++) {
        if (levels)
            levels[i] = w->slots.bodies.at[i].level != NULL;
        w->slots.bodies.at[i].level = NULL;
        w->slots.bodies.at[i].polygon = NULL;
        w->slots.bodies.at[i].shape.polygon = NULL;
    }
    for (size_t i = 0; i < w->d3.bodies.v.len; i++) {
        w->d3.bodies.at[i].hull = NULL;
        w->d3.bodies.at[i].shape.hull = NULL;
    }
}

/* The slots: each body's id names its slot and generation, its kind and shape are known ones,
 * its numbers finite, its polygon or hull follows in the image (pointers are set to them).
 * at_bodies: where the bodies' items are in the image. */
static bool read_bodies(sim_world *w, in *r, size_t at_bodies)
{
    size_t live = 0, slots = sim_slot_count(w);
    for (size_t i = 0; i < slots; i++) {
        sim_body *b = &w->slots.bodies.at[i];
        sim_body3 *b3 = w->cfg.dim == 3 ? sim_part3(w, (uint32_t)i) : NULL;
        size_t at = at_bodies + i * sizeof *b;
        if (b->id == 0)
            continue;
        live++;
        w->slots.characters += b->kind == SIM_CHARACTER;
        if (sim_id_slot(b->id) != i || (b->id >> SIM_SLOT_BITS) != w->slots.generation.at[i])
            return bad(r, at, "a body's id", b->id);
        if ((unsigned)b->kind > SIM_CHARACTER || b->sleep_next >= slots)
            return bad(r, at, "a body's kind or sleep ring", (unsigned long long)b->kind);
        if (!finite_body(b, b3))
            return bad(r, at, "a body's state (not finite)", b->id);
        if (!b3 && (unsigned)b->shape.type >= COL_SHAPE_COUNT)
            return bad(r, at, "a body's shape", (unsigned long long)b->shape.type);
        if (b3 && (unsigned)b3->shape.type >= COL_SHAPE3_COUNT)
            return bad(r, at, "a body's shape", (unsigned long long)b3->shape.type);
        if (!b3 && b->shape.type == COL_SHAPE_POLYGON) {
            size_t at_p = r->at;
            if (!(b->polygon = take_array(r, 1, sizeof(col_polygon), "a polygon")))
                return false;
            b->shape.polygon = b->polygon;
            if (b->polygon->count < 3 || b->polygon->count > COL_MAX_POLYGON)
                return bad(r, at_p, "a polygon's vertex count", (unsigned)b->polygon->count);
        }
        if (b3 && b3->shape.type == COL_SHAPE3_HULL) {
            size_t at_h = r->at;
            if (!(b3->hull = take_array(r, 1, sizeof(col_hull3), "a hull")))
                return false;
            b3->shape.hull = b3->hull;
            const col_hull3 *h = b3->hull;
            bool ok = h->vert_count >= 4 && h->vert_count <= COL_MAX_HULL3_VERTS &&
                      h->face_count >= 4 && h->face_count <= COL_MAX_HULL3_FACES;
            for (int f = 0; ok && f < h->face_count; f++) {
                const col_hull3_face *face = &h->faces[f];
                ok = face->count >= 3 && face->first + face->count <= COL_MAX_HULL3_INDICES;
                for (int k = 0; ok && k < face->count; k++)
                    ok = h->indices[face->first + k] < h->vert_count;
            }
            if (!ok)
                return bad(r, at_h, "a hull's vertices or faces", (unsigned)h->vert_count);
        }
    }
    if (live != w->slots.live)
        return bad(r, at_bodies, "the body count", w->slots.live);
    return true;
}

/* Every item of a slot list names a slot of the world. */
static bool slots_ok(sim_world *w, in *r, size_t at, const mk_vec *v, const char *what)
{
    const uint32_t *s = v->data;
    for (size_t i = 0; i < v->len; i++)
        if (s[i] >= sim_slot_count(w))
            return bad(r, at, what, s[i]);
    return true;
}

static bool pairs_ok(sim_world *w, in *r, size_t at, const mk_vec *v)
{
    const sim_pair *p = v->data;
    for (size_t i = 0; i < v->len; i++) {
        if (p[i].a >= sim_slot_count(w) || p[i].b >= sim_slot_count(w))
            return bad(r, at, "a pair's slot", p[i].a);
        if (p[i].entry != SIM_NO_ENTRY_HINT && p[i].entry > w->solver.cache.entries.len)
            return bad(r, at, "a pair's cache entry", p[i].entry);
    }
    return true;
}

static bool read_vecs(sim_world *w, in *r, size_t at_vecs[WORLD_VECS])
{
    world_vec vecs[WORLD_VECS];
    for (size_t i = 0, n = sim_world_vecs(w, vecs); i < n; i++) {
        mk_vec *v = vecs[i].v;
        if (vecs[i].flags & SIM_VEC_REBUILT)
            continue;
        uint64_t len, cap;
        at_vecs[i] = r->at;
        if (!take_u64(r, &len, "an array's length") || !take_u64(r, &cap, "an array's size"))
            return false;
        /* Room beyond what is stored is allocated, not read: bounded by the image's size, so
         * that a file cannot ask for memory out of all proportion to itself. */
        if (len > cap || cap > (16 * (uint64_t)r->len + (16u << 20)) / v->item)
            return bad(r, at_vecs[i], "an array's length", len);
        uint64_t stored = vecs[i].flags & SIM_VEC_SCRATCH ? 0 : len;
        if (stored > (r->len - r->at) / v->item)
            return bad(r, at_vecs[i], "an array's length", stored);
        if (!(v->data = calloc(cap ? (size_t)cap : 1, v->item))) {
            mk_fail(r->err, MK_ERR_IO, "byte %zu: out of memory", at_vecs[i]);
            return false;
        }
        v->len = (size_t)len;
        v->cap = (size_t)cap;
        take(r, v->data, (size_t)stored * v->item, "an array");
    }
    return true;
}

/* Every per-slot table of the world's dimension has the slot count for its length (those of
 * the other dimension none), before anything is looked up by slot. */
static bool slot_tables_ok(sim_world *w, in *r, const size_t at_vecs[WORLD_VECS], size_t slots)
{
    world_vec vecs[WORLD_VECS];
    for (size_t i = 0, n = sim_world_vecs(w, vecs); i < n; i++) {
        bool own = vecs[i].flags & SIM_VEC_SLOT;
        bool other = vecs[i].v == &w->d2.bounds.v || vecs[i].v == &w->d2.tight.v ||
                     vecs[i].v == &w->d3.bodies.v || vecs[i].v == &w->d3.bounds.v ||
                     vecs[i].v == &w->d3.tight.v;
        if ((own && vecs[i].v->len != slots) || (!own && other && vecs[i].v->len != 0))
            return bad(r, at_vecs[i], "a per-slot table's length", vecs[i].v->len);
    }
    return true;
}

/* The lists the step follows from one step to the next: slots, pairs, the entries solved. */
static bool check_vecs(sim_world *w, in *r, const size_t at_vecs[WORLD_VECS])
{
    world_vec vecs[WORLD_VECS];
    size_t n = sim_world_vecs(w, vecs);
    for (size_t i = 0; i < n; i++) {
        const mk_vec *v = vecs[i].v;
        size_t at = at_vecs[i];
        bool ok = true;
        if (v == &w->slots.free.v || v == &w->slots.pending.v || v == &w->broad.order.v ||
            v == &w->broad.movers.v || v == &w->broad.statics.v || v == &w->broad.moved.v)
            ok = slots_ok(w, r, at, v, "a slot");
        else if (v == &w->broad.pairs.v || v == &w->solver.push_pairs.v)
            ok = pairs_ok(w, r, at, v);
        else if (v == &w->solver.solved.v)
            for (size_t k = 0; ok && k < v->len; k++)
                if (w->solver.solved.at[k] >= w->solver.cache.entries.len)
                    ok = bad(r, at, "a solved cache entry", w->solver.solved.at[k]);
        if (!ok)
            return false;
    }
    return true;
}

/* The index of the joints' array in sim_world_vecs. */
static size_t joints_vec(sim_world *w)
{
    world_vec vecs[WORLD_VECS];
    size_t n = sim_world_vecs(w, vecs), i = 0;
    while (i < n && vecs[i].v != &w->joints.items.v)
        i++;
    return i;
}

/* The level bodies' levels, by their keys, from `resolve`: each a level of the world's dim. */
static bool read_levels(sim_world *w, in *r, const uint8_t *levels, sim_level_resolve_fn resolve,
                        void *ctx)
{
    for (size_t i = 0; i < sim_slot_count(w); i++) {
        sim_body *b = &w->slots.bodies.at[i];
        if (b->id == 0 || !levels[i])
            continue;
        size_t at = r->at;
        uint8_t key[SIM_LEVEL_KEY];
        if (!take(r, key, sizeof key, "a level's key"))
            return false;
        if (!resolve) {
            mk_fail(r->err, MK_ERR_INVALID, "byte %zu: a level body's level cannot be found "
                                            "(no store of levels was given)", at);
            return false;
        }
        const sim_level *l = resolve(ctx, key, r->err);
        if (!l) {
            mk_error_prefix(r->err, "byte %zu: ", at);
            return false;
        }
        if (sim_level_dim(l) != w->cfg.dim || !sim_kind_fixed(b->kind)) {
            sim_level_release(l);
            return bad(r, at, "a level body's level or kind", b->id);
        }
        b->level = l;
        w->slots.levels++;
    }
    return true;
}

/* The filters' count made again, and the events' lists checked (sim_events_check): each names
 * bodies of the world. */
static bool check_events(sim_world *w, in *r, const size_t at_vecs[WORLD_VECS])
{
    sim_filters_recount(w);
    const char *what = sim_events_check(w);
    if (!what)
        return true;
    world_vec vecs[WORLD_VECS];
    size_t at = 0;
    for (size_t i = 0, n = sim_world_vecs(w, vecs); i < n; i++)
        if (vecs[i].v == &w->ev.touching.v)
            at = at_vecs[i];
    return bad(r, at, what, 0);
}

static bool read_cache(sim_world *w, in *r)
{
    sim_cache *c = &w->solver.cache;
    uint64_t len, cap, used, dead;
    size_t at = r->at;
    if (!take_u64(r, &len, "the contact cache"))
        return false;
    if (!(c->entries.data = take_array(r, len, c->entries.item, "the contact cache")))
        return false;
    c->entries.len = c->entries.cap = (size_t)len;
    at = r->at;
    if (!take_u64(r, &cap, "the cache's map") || !take_u64(r, &used, "the cache's map") ||
        !take_u64(r, &dead, "the cache's map"))
        return false;
    if ((cap & (cap - 1)) != 0 || used > cap || dead > len || (cap == 0 && len > 0))
        return bad(r, at, "the cache's map size", cap);
    if (!(c->table = take_array(r, cap, sizeof *c->table, "the cache's map")))
        return false;
    c->table_cap = (size_t)cap;
    c->used = (size_t)used;
    c->dead = (size_t)dead;
    for (size_t i = 0; i < c->table_cap; i++)
        if (c->table[i] > 1 && c->table[i] - 2 >= len)
            return bad(r, at, "a cache map entry", c->table[i]);
    return true;
}

sim_world *sim_world_from_image(const void *data, size_t len, mk_error *err)
{
    return sim_world_from_image_levels(data, len, NULL, NULL, err);
}

sim_world *sim_world_from_image_levels(const void *data, size_t len,
                                       sim_level_resolve_fn resolve, void *ctx, mk_error *err)
{
    in r = {data, len, 0, err};
    char magic[8];
    if (!take(&r, magic, sizeof magic, "the header") || memcmp(magic, IMAGE_MAGIC, 8) != 0) {
        mk_fail(err, MK_ERR_INVALID, "byte 0: not a world image");
        return NULL;
    }
    uint64_t layout;
    sim_config cfg;
    if (!take_u64(&r, &layout, "the header") || !take(&r, &cfg, sizeof cfg, "the config"))
        return NULL;
    if ((cfg.dim != 2 && cfg.dim != 3) || !(cfg.dt > 0.0f) || cfg.iterations <= 0 ||
        cfg.max_bodies == 0 || cfg.max_bodies > SIM_MAX_BODIES || !isfinite(cfg.dt)) {
        bad(&r, 16, "the world's config", (unsigned long long)cfg.dim);
        return NULL;
    }
    sim_world *w = sim_world_new(&cfg);
    if (!w) {
        mk_fail(err, MK_ERR_IO, "out of memory");
        return NULL;
    }
    if (layout != layout_of(w)) {
        mk_fail(err, MK_ERR_INVALID, "byte 8: the image was written by a build that lays the "
                                     "world out another way");
        sim_world_free(w);
        return NULL;
    }
    uint64_t slots, bodies, ring;
    unsigned char flags[5];
    size_t at = r.at;
    bool ok = take_u64(&r, &w->tick, "the tick") && take_u64(&r, &slots, "the slots") &&
              take_u64(&r, &bodies, "the bodies") && take(&r, flags, sizeof flags, "flags") &&
              take(&r, &w->broad.fat_half_max, sizeof w->broad.fat_half_max, "flags") &&
              take_u64(&r, &ring, "flags");
    if (ok && (slots > cfg.max_bodies || bodies > slots))
        ok = bad(&r, at, "the slot count", slots);
    if (ok) {
        w->slots.live = (size_t)bodies;
        w->broad.order_unsorted = flags[0];
        w->broad.statics_dirty = true; /* the tree is built anew */
        w->broad.pairs_dirty = flags[2];
        w->broad.pairs_sleeper = flags[3];
        w->solver.bounce = flags[4];
        w->islands.loaded_ring = ring;
    }
    size_t at_vecs[WORLD_VECS] = {0};
    ok = ok && read_vecs(w, &r, at_vecs);
    uint8_t *levels = calloc(w->slots.bodies.v.len + 1, 1);
    if (ok && !levels) {
        mk_fail(err, MK_ERR_IO, "out of memory");
        ok = false;
    }
    clear_pointers(w, levels); /* before anything can fail and free the world */
    /* The bodies' items follow their array's length and capacity. */
    ok = ok && slot_tables_ok(w, &r, at_vecs, (size_t)slots) &&
         read_bodies(w, &r, at_vecs[0] + 2 * sizeof(uint64_t)) &&
         read_levels(w, &r, levels, resolve, ctx) && read_cache(w, &r) &&
         check_vecs(w, &r, at_vecs) && check_events(w, &r, at_vecs);
    free(levels);
    if (ok && w->islands.loaded_ring != 0 && !sim_world_get(w, w->islands.loaded_ring))
        ok = bad(&r, at, "the loaded sleepers' ring", w->islands.loaded_ring);
    if (ok && !sim_joints_image_ok(w, err)) {
        mk_error_prefix(err, "byte %zu: ", at_vecs[joints_vec(w)]);
        ok = false;
    }
    if (ok && r.at != r.len)
        ok = bad(&r, r.at, "bytes after the image", r.len - r.at);
    if (!ok) {
        sim_world_free(w);
        return NULL;
    }
    return w;
}
