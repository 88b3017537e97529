/* The body pool: slots addressed by ids with a generation counter (Box2D's id scheme), so a
 * stale id from the network never reaches another body. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "body_rules.h"
#include "broadphase.h"
#include "history.h"
#include "mass.h"
#include "solver.h"
#include "static_tree.h"
#include "world_internal.h"

sim_config sim_config_default(void)
{
    return (sim_config){
        .dim = 2,
        .gravity = {0.0f, -10.0f},
        .gravity3 = {0.0f, -10.0f, 0.0f},
        .dt = 1.0f / 60.0f,
        .iterations = 8,
        .max_bodies = 100000,
        .bounds = 1000.0f,
        .sleep = true,
        .workers = 1,
    };
}

/* Every growable array of the world with the size of its items: one list that sim_world_new
 * and sim_world_free both walk, so that none is left unsized or unfreed. */
size_t sim_world_vecs(sim_world *w, world_vec out[WORLD_VECS])
{
#define V(field, size) {&w->field, size}
    const world_vec list[] = {
        V(free_slots, sizeof(uint32_t)), V(pending_slots, sizeof(uint32_t)),
        V(removed, sizeof(sim_id)), V(order, sizeof(uint32_t)), V(movers, sizeof(uint32_t)),
        V(statics, sizeof(uint32_t)), V(tree.nodes, sizeof(sim_tree_node)),
        V(tree.items, sizeof(uint32_t)), V(shape_box, sizeof(col_aabb3)), V(hits, sizeof(uint32_t)),
        V(near_bits, sizeof(uint64_t)), V(bounds, sizeof(col_aabb)), V(pairs, sizeof(sim_pair)), V(pairs_prev, sizeof(sim_pair)),
        V(sweep, sizeof(float)), V(tight, sizeof(col_aabb)), V(contacts, sizeof(sim_contact2)),
        V(solver_bodies, sizeof(sim_solver_body)), V(solver_info, sizeof(sim_solver_info)),
        V(wide_groups, sim_wide_group_size2()), V(wide_cold, sim_wide_cold_size2()),
        V(wide_bits, sizeof(uint64_t)), V(wide_order, sizeof(uint32_t)),
        V(wide_overflow, sizeof(uint32_t)), V(wide_colors, sizeof(uint8_t)),
        V(wide_ends, sizeof(uint32_t)), V(wide_groups3, sim_wide_group_size3()),
        V(constraints, sizeof(sim_constraint)), V(push_pairs, sizeof(sim_pair)),
        V(solved, sizeof(uint32_t)), V(bounds3, sizeof(col_aabb3)), V(tight3, sizeof(col_aabb3)),
        V(contacts3, sizeof(sim_contact3)), V(constraints3, sizeof(sim_constraint3)),
        V(rows3, sizeof(sim_rows3)), V(solver_bodies3, sizeof(sim_solver_body3)),
        V(solver_info3, sizeof(sim_solver_info3)), V(narrow, 1), V(narrow_fills, 1),
    };
#undef V
    _Static_assert(sizeof list / sizeof *list <= WORLD_VECS, "room for every array");
    memcpy(out, list, sizeof list);
    return sizeof list / sizeof *list;
}

sim_world *sim_world_new(const sim_config *cfg)
{
    assert(cfg->dt > 0.0f && cfg->iterations > 0);
    assert(cfg->dim == 2 || cfg->dim == 3);
    assert(cfg->max_bodies > 0 && cfg->max_bodies <= SIM_MAX_BODIES);
    sim_world *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->cfg = *cfg;
    w->step = cfg->dim == 3 ? sim_world_step3 : sim_world_step2;
    world_vec vecs[WORLD_VECS];
    for (size_t i = 0, n = sim_world_vecs(w, vecs); i < n; i++)
        vecs[i].v->item = vecs[i].item;
    w->cache.entries.item = cfg->dim == 3 ? sizeof(sim_cache_entry3) : sizeof(sim_cache_entry);
    w->narrow.item = cfg->dim == 3 ? sim_narrow_item_size3() : sim_narrow_item_size2();
    w->narrow_fills.item = cfg->dim == 3 ? sim_narrow_fill_size3() : sim_narrow_fill_size2();
    w->pool = sim_pool_new(cfg->workers);
    return w;
}

void sim_world_free(sim_world *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->slot_count; i++) {
        if (w->bodies[i].id == 0)
            continue;
        free(w->bodies[i].polygon);
        if (w->bodies3)
            free(w->bodies3[i].hull);
    }
    free(w->bodies3);
    free(w->bodies);
    free(w->generation);
    world_vec vecs[WORLD_VECS];
    for (size_t i = 0, n = sim_world_vecs(w, vecs); i < n; i++)
        mk_vec_free(vecs[i].v);
    sim_cache_free(&w->cache);
    sim_history_free(w->history);
    free(w->solver_index);
    free(w->island);
    free(w->island_sleep);
    free(w->ring);
    sim_pool_free(w->pool);
    free(w);
}

const sim_config *sim_world_config(const sim_world *w) { return &w->cfg; }
int sim_world_dim(const sim_world *w) { return w->cfg.dim; }

sim_body3 *sim_body3_of(const sim_world *w, const sim_body *b)
{
    return w->cfg.dim == 3 ? &w->bodies3[b - w->bodies] : NULL;
}
uint64_t sim_world_tick(const sim_world *w) { return w->tick; }
size_t sim_world_body_count(const sim_world *w) { return w->body_count; }

sim_body *sim_world_slots(sim_world *w, size_t *slot_count)
{
    *slot_count = w->slot_count;
    return w->bodies;
}

/* Grows a per-slot array to `cap` items of `size` bytes. */
static bool grow_array(void **p, size_t cap, size_t size)
{
    void *q = realloc(*p, cap * size);
    if (!q)
        return false;
    *p = q;
    return true;
}

static bool grow_slots(sim_world *w)
{
    size_t cap = w->slot_cap ? w->slot_cap * 2 : 64;
    if (cap > SIM_MAX_BODIES)
        cap = SIM_MAX_BODIES;
    if (cap <= w->slot_cap)
        return false;
    if (!grow_array((void **)&w->bodies, cap, sizeof *w->bodies) ||
        !grow_array((void **)&w->generation, cap, sizeof *w->generation) ||
        !grow_array((void **)&w->solver_index, cap, sizeof *w->solver_index) ||
        !grow_array((void **)&w->island, cap, sizeof *w->island) ||
        !grow_array((void **)&w->island_sleep, cap, sizeof *w->island_sleep) ||
        !grow_array((void **)&w->ring, cap, sizeof *w->ring) ||
        (w->cfg.dim == 3 && !grow_array((void **)&w->bodies3, cap, sizeof *w->bodies3)))
        return false;
    w->slot_cap = cap;
    return true;
}

/* Fills the free slot `slot` with a body of the given generation; returns its id, or 0 (the
 * slot then goes back to the free list) when memory runs out. */
/* Puts a moving body's slot into w->movers, which stays in slot order (room reserved). A new
 * world's slots come in increasing order: then it is appended. */
static void movers_insert(sim_world *w, uint32_t slot)
{
    uint32_t *m = w->movers.data;
    size_t lo = 0, hi = w->movers.len;
    if (hi > 0 && m[hi - 1] > slot) {
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (m[mid] < slot)
                lo = mid + 1;
            else
                hi = mid;
        }
        memmove(m + lo + 1, m + lo, (w->movers.len - lo) * sizeof *m);
    } else {
        lo = w->movers.len;
    }
    m[lo] = slot;
    w->movers.len++;
}

static sim_id place_body(sim_world *w, const sim_body_def *def, uint32_t owner, uint32_t slot)
{
    /* Reserve the per-body arrays now so the step never fails to grow them. A polygon's hull
     * is the body's own: the definition it came from may be gone after this call. */
    bool is3 = w->cfg.dim == 3;
    col_polygon *polygon = NULL;
    if (!is3 && def->shape.type == COL_SHAPE_POLYGON && (polygon = malloc(sizeof *polygon)) != NULL)
        *polygon = def->polygon;
    bool need_polygon = !is3 && def->shape.type == COL_SHAPE_POLYGON;
    if (!mk_vec_reserve(def->kind == SIM_STATIC ? &w->statics : &w->order, w->body_count + 1) ||
        (def->kind != SIM_STATIC && !mk_vec_reserve(&w->movers, w->body_count + 1)) ||
        !mk_vec_reserve(&w->shape_box, w->slot_count) ||
        !mk_vec_reserve(is3 ? &w->bounds3 : &w->bounds, w->slot_count) ||
        !mk_vec_reserve(is3 ? &w->tight3 : &w->tight, w->slot_count) ||
        !mk_vec_reserve(is3 ? &w->solver_bodies3 : &w->solver_bodies, w->body_count + 2) ||
        !mk_vec_reserve(is3 ? &w->solver_info3 : &w->solver_info, w->body_count + 2) ||
        (need_polygon && !polygon) || (is3 && !sim_place_body3(w, def, slot))) {
        free(polygon);
        uint32_t s = slot;
        mk_vec_push(&w->free_slots, &s);
        return 0;
    }
    sim_body *b = &w->bodies[slot];
    memset(b, 0, sizeof *b);
    b->polygon = polygon;
    b->id = ((sim_id)w->generation[slot] << SIM_SLOT_BITS) | (sim_id)(slot + 1);
    b->owner = owner;
    b->kind = def->kind;
    b->shape = def->shape;
    b->shape.polygon = polygon;
    b->pos = def->pos;
    b->vel = def->kind == SIM_STATIC ? mk_v2(0.0f, 0.0f) : def->vel;
    b->angle = def->angle;
    if (is3) {
        b->inv_mass = sim_mass3_of(&w->bodies3[slot], def->density, def->kind);
    } else {
        sim_mass mass = sim_mass2_of(&b->shape, def->density, def->kind);
        b->inv_mass = mass.inv_mass;
        b->inv_inertia = mass.inv_inertia;
        b->local_center = mass.center;
    }
    b->sleep_next = slot;
    b->density = def->density;
    b->friction = def->friction;
    b->restitution = def->restitution;
    b->max_speed = def->max_speed;
    b->jump_height = def->jump_height;
    b->max_slope = def->max_slope;
    memcpy(b->tag, def->tag, sizeof b->tag);
    b->tag[SIM_MAX_TAG] = '\0';
    /* Its bounds now, so that queries find it before it first steps; its pairs are found at
     * the next step. A static body's bounds are its shape's, for good. */
    col_aabb3 box = sim_shape_bounds_now(w, slot);
    ((col_aabb3 *)w->shape_box.data)[slot] = box;
    w->solver_index[slot] = 0;
    if (b->kind == SIM_STATIC) {
        sim_set_fat_box(w, slot, box, 0.0f);
        ((uint32_t *)w->statics.data)[w->statics.len++] = slot;
        w->statics_dirty = true;
    } else {
        sim_set_fat_box(w, slot, box, SIM_FAT_MARGIN);
        ((uint32_t *)w->order.data)[w->order.len++] = slot;
        w->order_unsorted = true;
        movers_insert(w, slot);
    }
    w->pairs_dirty = true;
    w->body_count++;
    sim_history_note_added(w, slot);
    return b->id;
}

sim_id sim_world_add(sim_world *w, const sim_body_def *def, uint32_t owner)
{
    if (w->body_count >= w->cfg.max_bodies)
        return 0;
    uint32_t slot;
    if (w->free_slots.len > 0) {
        slot = ((uint32_t *)w->free_slots.data)[--w->free_slots.len];
    } else {
        if (w->slot_count == w->slot_cap && !grow_slots(w))
            return 0;
        slot = (uint32_t)w->slot_count++;
        w->generation[slot] = 0;
    }
    sim_id id = place_body(w, def, owner, slot);
    if (id != 0)
        sim_report_change(w, SIM_CHANGE_ADDED, &w->bodies[slot], owner, mk_v3(0, 0, 0), false);
    return id;
}

/* Takes `slot` out of the free list, growing the slot array to it first (the slots skipped on
 * the way become free, with generation 0). False when it is not free or memory runs out. */
static bool take_free_slot(sim_world *w, uint32_t slot)
{
    while (slot >= w->slot_cap)
        if (!grow_slots(w))
            return false;
    size_t skipped = slot >= w->slot_count ? slot + 1 - w->slot_count : 0;
    if (!mk_vec_reserve(&w->free_slots, w->free_slots.len + skipped + 1))
        return false;
    while (w->slot_count <= slot) {
        uint32_t s = (uint32_t)w->slot_count++;
        w->generation[s] = 0;
        w->bodies[s].id = 0;
        mk_vec_push(&w->free_slots, &s);
    }
    /* It must be free (and not waiting for sim_world_clear_removed). */
    uint32_t *free_list = w->free_slots.data;
    size_t i = 0;
    while (i < w->free_slots.len && free_list[i] != slot)
        i++;
    if (i == w->free_slots.len)
        return false;
    free_list[i] = free_list[--w->free_slots.len];
    return true;
}

sim_id sim_world_add_with_id(sim_world *w, const sim_body_def *def, uint32_t owner, sim_id id)
{
    uint32_t slot = sim_id_slot(id);
    uint64_t generation = id >> SIM_SLOT_BITS;
    /* A world of max_bodies never gave out a slot past it; a larger one would only make an
     * untrusted file allocate a huge slot array. */
    if (id == 0 || slot >= w->cfg.max_bodies || generation >= (1u << 29) ||
        w->body_count >= w->cfg.max_bodies)
        return 0;
    if (!take_free_slot(w, slot))
        return 0;
    w->generation[slot] = (uint32_t)generation;
    return place_body(w, def, owner, slot);
}

bool sim_world_set_slot_generation(sim_world *w, uint32_t slot, uint32_t generation)
{
    if (slot >= w->cfg.max_bodies || generation > (1u << 29) || !take_free_slot(w, slot))
        return false;
    w->generation[slot] = generation;
    /* Free again, unless its generations are used up (then it stays retired). */
    if (generation < (1u << 29))
        mk_vec_push(&w->free_slots, &slot);
    return true;
}

void sim_world_set_tick(sim_world *w, uint64_t tick) { w->tick = tick; }

sim_body *sim_world_get(sim_world *w, sim_id id)
{
    if (id == 0 || (id & SIM_MAX_BODIES) == 0)
        return NULL;
    uint32_t slot = sim_id_slot(id);
    if (slot >= w->slot_count || w->bodies[slot].id != id)
        return NULL;
    return &w->bodies[slot];
}

/* Drops freed slots from a list of slots, keeping its order. */
static bool slots_compact(sim_world *w, mk_vec *list)
{
    uint32_t *slots = list->data;
    size_t n = 0;
    for (size_t i = 0; i < list->len; i++) {
        if (w->bodies[slots[i]].id != 0)
            slots[n++] = slots[i];
    }
    bool changed = n != list->len;
    list->len = n;
    return changed;
}

/* Drops freed slots from the broadphase's lists (the order stays sorted). */
static void order_compact(sim_world *w)
{
    slots_compact(w, &w->order);
    slots_compact(w, &w->movers);
    if (slots_compact(w, &w->statics))
        w->statics_dirty = true;
}

/* Wakes what may rest on `b`, which is going: every sleeping body whose bounds come within the
 * speculative distance of b's, with the island it sleeps in. By place rather than by the
 * contact cache, so that sleepers with no contact on record wake too: characters (held up by
 * push-out) and a saved world's bodies. The cache's entries of b go in its periodic sweep. */
static void wake_neighbours(sim_world *w, sim_body *b)
{
    sim_wake(w, b);
    col_aabb3 near = sim_shape_bounds_now(w, sim_id_slot(b->id));
    near.half = mk_v3_add(near.half, mk_v3(SIM_SPECULATIVE, SIM_SPECULATIVE,
                                           w->bodies3 ? SIM_SPECULATIVE : 0.0f));
    if (!sim_query_box(w, &near, false)) {
        /* Out of memory for the query: every sleeper wakes, which is never wrong. */
        const uint32_t *order = w->order.data;
        for (size_t i = 0; i < w->order.len; i++)
            if (w->bodies[order[i]].sleeping)
                sim_wake(w, &w->bodies[order[i]]);
        return;
    }
    const uint32_t *hits = w->hits.data;
    const col_aabb3 *shape_box = w->shape_box.data;
    for (size_t i = 0; i < w->hits.len; i++) {
        sim_body *o = &w->bodies[hits[i]];
        if (o->sleeping && sim_aabb3_overlap(&near, &shape_box[hits[i]]))
            sim_wake(w, o);
    }
}

static bool remove_body(sim_world *w, sim_id id)
{
    sim_body *b = sim_world_get(w, id);
    if (!b)
        return false;
    sim_history_note_removed(w, b);
    wake_neighbours(w, b);
    uint32_t slot = sim_id_slot(id);
    /* The removal must be recorded even when memory is short; reserving first keeps both lists
     * consistent. */
    if (!mk_vec_reserve(&w->removed, w->removed.len + 1) ||
        !mk_vec_reserve(&w->pending_slots, w->pending_slots.len + 1))
        return false;
    mk_vec_push(&w->removed, &id);
    mk_vec_push(&w->pending_slots, &slot);
    free(b->polygon);
    b->polygon = NULL;
    b->shape.polygon = NULL;
    if (w->bodies3) {
        free(w->bodies3[slot].hull);
        w->bodies3[slot].hull = NULL;
        w->bodies3[slot].shape.hull = NULL;
    }
    b->id = 0;
    w->body_count--;
    w->pairs_dirty = true;
    /* Generations stay below 2^29 so ids stay below 2^53; a slot that wrapped that far is
     * retired instead (it is not given back to the free list in sim_world_clear_removed). */
    w->generation[slot]++;
    return true;
}

bool sim_remove(sim_world *w, sim_id id)
{
    if (!remove_body(w, id))
        return false;
    order_compact(w);
    return true;
}

bool sim_world_remove(sim_world *w, sim_id id)
{
    sim_body *b = sim_world_get(w, id);
    if (b)
        sim_report_change(w, SIM_CHANGE_REMOVED, b, b->owner, mk_v3(0, 0, 0), false);
    if (!remove_body(w, id))
        return false;
    order_compact(w);
    return true;
}

size_t sim_world_remove_owned(sim_world *w, uint32_t owner)
{
    sim_report_change(w, SIM_CHANGE_LEFT, NULL, owner, mk_v3(0, 0, 0), false);
    size_t n = 0;
    for (size_t i = 0; i < w->slot_count; i++) {
        sim_body *b = &w->bodies[i];
        if (b->id != 0 && b->owner == owner && remove_body(w, b->id))
            n++;
    }
    if (n > 0)
        order_compact(w);
    return n;
}

size_t sim_world_count_owned(const sim_world *w, uint32_t owner)
{
    size_t n = 0;
    for (size_t i = 0; i < w->slot_count; i++)
        n += w->bodies[i].id != 0 && w->bodies[i].owner == owner;
    return n;
}

const sim_id *sim_world_removed(const sim_world *w, size_t *n)
{
    *n = w->removed.len;
    return w->removed.data;
}

void sim_world_clear_removed(sim_world *w)
{
    if (w->pending_slots.len > 0)
        sim_report_change(w, SIM_CHANGE_REUSE, NULL, 0, mk_v3(0, 0, 0), false);
    const uint32_t *slots = w->pending_slots.data;
    for (size_t i = 0; i < w->pending_slots.len; i++) {
        if (w->generation[slots[i]] < (1u << 29))
            mk_vec_push(&w->free_slots, &slots[i]);
    }
    w->pending_slots.len = 0;
    w->removed.len = 0;
}

const sim_contact2 *sim_world_contacts2(const sim_world *w, size_t *n)
{
    *n = w->contacts.len;
    return w->contacts.data;
}

const sim_contact3 *sim_world_contacts3(const sim_world *w, size_t *n)
{
    *n = w->contacts3.len;
    return w->contacts3.data;
}

void sim_body_set_input2(sim_world *w, sim_body *b, mk_vec2 move, bool jump)
{
    sim_wake(w, b);
    b->move = mk_v2(mk_clampf(move.x, -1.0f, 1.0f), mk_clampf(move.y, -1.0f, 1.0f));
    sim_report_change(w, SIM_CHANGE_INPUT, b, b->owner, mk_v3(b->move.x, b->move.y, 0), jump);
    b->jump = b->jump || jump;
    b->has_input = true;
}

void sim_body_set_input3(sim_world *w, sim_body *b, mk_vec3 move, bool jump)
{
    sim_body3 *b3 = sim_body3_of(w, b);
    if (!b3)
        return;
    sim_wake(w, b);
    b3->move = mk_v3(mk_clampf(move.x, -1.0f, 1.0f), mk_clampf(move.y, -1.0f, 1.0f),
                     mk_clampf(move.z, -1.0f, 1.0f));
    sim_report_change(w, SIM_CHANGE_INPUT, b, b->owner, b3->move, jump);
    b->jump = b->jump || jump;
    b->has_input = true;
}

void sim_world_on_change(sim_world *w, sim_change_fn fn, void *ctx)
{
    w->on_change = fn;
    w->change_ctx = ctx;
}

void sim_report_change(sim_world *w, sim_change_kind kind, const sim_body *body, uint32_t owner,
                       mk_vec3 move, bool jump)
{
    if (!w->on_change)
        return;
    sim_change c = {kind, body, owner, move, jump};
    w->on_change(w->change_ctx, w, &c);
}

void sim_world_step_order(const sim_world *w, const uint32_t **movers, size_t *mover_count,
                          const uint32_t **statics, size_t *static_count)
{
    *movers = w->order.data;
    *mover_count = w->order.len;
    *statics = w->statics.data;
    *static_count = w->statics.len;
}

uint32_t sim_world_slot_generation(const sim_world *w, uint32_t slot)
{
    return slot < w->slot_count ? w->generation[slot] : 0;
}

void sim_world_step(sim_world *w)
{
    sim_history_before_step(w);
    w->step(w);
}
