/* The body pool: slots addressed by ids with a generation counter (Box2D's id scheme), so a
 * stale id from the network never reaches another body. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "body_rules.h"
#include "broadphase.h"
#include "history.h"
#include "level.h"
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
        .hit_speed = 1.0f,
    };
}

/* Every growable array of the world with the size of its items and its SIM_VEC_* flags: one
 * list that sim_world_new, sim_world_free, slots_resize and the world's image all walk, so
 * that none is left unsized, unfreed, ungrown or unsaved. The per-slot arrays are flagged
 * SIM_VEC_SLOT for the world's own dimension only: the other dimension's stay empty. */
size_t sim_world_vecs(sim_world *w, world_vec out[WORLD_VECS])
{
    unsigned slot2 = w->cfg.dim == 2 ? SIM_VEC_SLOT : 0, slot3 = w->cfg.dim == 3 ? SIM_VEC_SLOT : 0;
    const unsigned slot = SIM_VEC_SLOT, scratch = SIM_VEC_SCRATCH, rebuilt = SIM_VEC_REBUILT;
#define V(field, flags) {&w->field.v, sizeof *w->field.at, flags}
#define OPAQUE(field, size, flags) {&w->field.v, size, flags}
    const world_vec list[] = {
        /* The bodies first: the image reads their items at the first array's place. */
        V(slots.bodies, slot), V(slots.generation, slot), V(slots.free, 0),
        V(slots.pending, 0), V(slots.removed, 0),
        V(broad.order, 0), V(broad.movers, 0), V(broad.statics, 0),
        V(broad.tree.nodes, rebuilt), V(broad.tree.items, rebuilt), V(broad.shape_box, slot),
        V(broad.hits, 0), V(broad.near_bits, scratch), V(broad.pairs, 0),
        V(broad.pairs_prev, 0), V(broad.sweep, 0), V(broad.moved, 0),
        V(broad.moved_mark, slot | scratch), V(broad.found, rebuilt),
        V(broad.found_count, rebuilt), V(broad.parted, rebuilt), V(broad.pair_set, rebuilt),
        V(solver.solved, 0), V(solver.index, slot | scratch), V(solver.push_pairs, 0),
        V(solver.step_flags, rebuilt), V(solver.body_blocks, rebuilt),
        V(solver.wide_bits, 0), V(solver.wide_order, 0), V(solver.wide_overflow, 0),
        V(solver.wide_colors, 0), V(solver.wide_ends, 0),
        V(solver.wide_made_from, rebuilt), V(solver.wide_points, scratch),
        V(solver.wide_laid, scratch),
        {&w->solver.narrow, w->cfg.dim == 3 ? sim_narrow_item_size3() : sim_narrow_item_size2(), 0},
        {&w->solver.narrow_fills,
         w->cfg.dim == 3 ? sim_narrow_fill_size3() : sim_narrow_fill_size2(), 0},
        {&w->solver.level_spans, sizeof(sim_level_span), scratch},
        {&w->solver.level_children,
         w->cfg.dim == 3 ? sizeof(col_child_manifold3) : sizeof(col_child_manifold2), scratch},
        V(solver.level_clear, scratch), V(solver.level_near, slot3 | scratch),
        {&w->solver.level_tris, sizeof(col_level3_tri), rebuilt},
        V(islands.parent, slot | scratch), V(islands.sleep, slot | scratch),
        V(islands.ring, slot | scratch),
        V(d2.bounds, slot2), V(d2.tight, slot2), V(d2.contacts, 0), V(d2.constraints, 0),
        V(d2.solver_bodies, 0), V(d2.solver_info, 0),
        OPAQUE(d2.wide_groups, sim_wide_group_size2(), 0),
        OPAQUE(d2.wide_cold, sim_wide_cold_size2(), 0),
        V(d3.bodies, slot3), V(d3.bounds, slot3), V(d3.tight, slot3), V(d3.contacts, 0),
        V(d3.constraints, 0), V(d3.rows, 0), V(d3.solver_bodies, 0), V(d3.solver_info, 0),
        OPAQUE(d3.wide_groups, sim_wide_group_size3(), 0),
        V(d3.blocks, scratch), V(d3.block_order, scratch), V(d3.block_one, scratch),
        V(d3.block_of, scratch),
        V(events, 0),
        V(filter.slots, slot), V(ev.touching, 0), V(ev.sensed, 0), V(ev.sensors, 0),
        V(ev.next, scratch), V(ev.sorted, scratch), V(ev.merged, scratch), V(ev.counts, scratch),
        V(ev.hits, scratch), V(ev.woken, scratch),
        V(joints.items, 0), V(joints.edges, 0), V(joints.free, 0), V(joints.pending, 0),
        V(joints.removed, 0), V(joints.body_head, slot), V(joints.active, scratch),
        V(joints.ends, scratch),
        {&w->joints.rows, w->cfg.dim == 3 ? sim_joint_row_size3() : sim_joint_row_size2(),
         scratch},
        V(joints.rank, scratch), V(joints.row_of, scratch), V(joints.color_bits, scratch),
        V(joints.color_order, scratch), V(joints.color_overflow, scratch),
        V(joints.colors, scratch), V(joints.made_from, rebuilt),
        V(joints.solved, rebuilt),
    };
#undef V
#undef OPAQUE
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
    w->solver.cache.entries.item =
        cfg->dim == 3 ? sizeof(sim_cache_entry3) : sizeof(sim_cache_entry);
    w->pool = sim_pool_new(cfg->workers);
    return w;
}

void sim_world_free(sim_world *w)
{
    if (!w)
        return;
    /* A free slot's polygon, hull and level are NULL. */
    for (size_t i = 0; i < w->slots.bodies.v.len; i++) {
        free(w->slots.bodies.at[i].polygon);
        sim_level_release(w->slots.bodies.at[i].level);
    }
    for (size_t i = 0; i < w->d3.bodies.v.len; i++)
        free(w->d3.bodies.at[i].hull);
    world_vec vecs[WORLD_VECS];
    for (size_t i = 0, n = sim_world_vecs(w, vecs); i < n; i++)
        mk_vec_free(vecs[i].v);
    sim_cache_free(&w->solver.cache);
    sim_history_free(w->history);
    sim_pool_free(w->pool);
    free(w);
}

const sim_config *sim_world_config(const sim_world *w) { return &w->cfg; }
int sim_world_dim(const sim_world *w) { return w->cfg.dim; }

const sim_body3 *sim_body3_of(const sim_world *w, const sim_body *b)
{
    return w->cfg.dim == 3 ? sim_part3(w, (uint32_t)(b - w->slots.bodies.at)) : NULL;
}
uint64_t sim_world_tick(const sim_world *w) { return w->tick; }
size_t sim_world_body_count(const sim_world *w) { return w->slots.live; }

const sim_body *sim_world_slots(const sim_world *w, size_t *slot_count)
{
    *slot_count = sim_slot_count(w);
    return w->slots.bodies.at;
}

/* Grows every per-slot array to n slots, the new ones free (all zeros: id 0, generation 0, no
 * polygon or hull); false, with nothing changed, when memory runs out. */
static bool slots_resize(sim_world *w, size_t n)
{
    if (n > SIM_MAX_BODIES)
        return false;
    world_vec vecs[WORLD_VECS];
    size_t count = sim_world_vecs(w, vecs), old = sim_slot_count(w);
    for (size_t i = 0; i < count; i++)
        if ((vecs[i].flags & SIM_VEC_SLOT) && !mk_vec_reserve(vecs[i].v, n))
            return false;
    for (size_t i = 0; i < count; i++) {
        mk_vec *v = vecs[i].v;
        if (!(vecs[i].flags & SIM_VEC_SLOT))
            continue;
        memset((char *)v->data + old * v->item, 0, (n - old) * v->item);
        v->len = n;
    }
    return true;
}

/* Puts a moving body's slot into the broadphase's movers, which stay in slot order (room
 * reserved). A new world's slots come in increasing order: then it is appended. */
static void movers_insert(sim_world *w, uint32_t slot)
{
    sim_slots_insert(w->broad.movers.at, &w->broad.movers.v.len, slot);
}

/* Fills the free slot `slot` with a body of the given generation; returns its id, or 0 (the
 * slot then goes back to the free list) when memory runs out. */
static sim_id place_body(sim_world *w, const sim_body_def *def, uint32_t owner, uint32_t slot)
{
    /* Reserve the per-body arrays now so the step never fails to grow them (the per-slot ones
     * have the slot already). A polygon's hull is the body's own: the definition it came from
     * may be gone after this call. */
    bool is3 = w->cfg.dim == 3;
    col_polygon *polygon = NULL;
    bool need_polygon = !is3 && !def->level && def->shape.type == COL_SHAPE_POLYGON;
    if (need_polygon && (polygon = malloc(sizeof *polygon)) != NULL)
        *polygon = def->polygon;
    /* A level is a fixed body's shape, of the world's dimension, and never a sensor's. */
    bool bad_level = def->level && (!sim_kind_fixed(def->kind) || def->sensor ||
                                    sim_level_dim(def->level) != w->cfg.dim);
    size_t live = w->slots.live;
    if (bad_level ||
        !mk_vec_reserve(def->kind == SIM_STATIC ? &w->broad.statics.v : &w->broad.order.v,
                        live + 1) ||
        (def->kind != SIM_STATIC && !mk_vec_reserve(&w->broad.movers.v, live + 1)) ||
        !mk_vec_reserve(is3 ? &w->d3.solver_bodies.v : &w->d2.solver_bodies.v, live + 2) ||
        !mk_vec_reserve(is3 ? &w->d3.solver_info.v : &w->d2.solver_info.v, live + 2) ||
        (def->sensor && !mk_vec_reserve(&w->ev.sensors.v, w->ev.sensors.v.len + 1)) ||
        (need_polygon && !polygon) || (is3 && !sim_place_body3(w, def, slot))) {
        free(polygon);
        MK_VEC_PUSH(&w->slots.free, slot);
        return 0;
    }
    sim_body *b = &w->slots.bodies.at[slot];
    memset(b, 0, sizeof *b);
    b->polygon = polygon;
    b->id = ((sim_id)w->slots.generation.at[slot] << SIM_SLOT_BITS) | (sim_id)(slot + 1);
    b->owner = owner;
    b->kind = def->kind;
    b->shape = def->shape;
    b->shape.polygon = polygon;
    if (def->level) {
        sim_level_retain(def->level);
        b->level = def->level;
        w->slots.levels++;
        b->shape = SIM_LEVEL_PLACEHOLDER2;
        if (is3) {
            sim_body3 *b3 = sim_part3(w, slot);
            free(b3->hull); /* a level body keeps no hull (the image reads none) */
            b3->hull = NULL;
            b3->shape = SIM_LEVEL_PLACEHOLDER3;
        }
    }
    b->pos = def->pos;
    b->vel = def->kind == SIM_STATIC ? mk_v2(0.0f, 0.0f) : def->vel;
    b->angle = def->angle;
    if (is3) {
        b->inv_mass = sim_mass3_of(&w->d3.bodies.at[slot], def->density, def->kind);
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
    sim_filter_place(w, slot, def);
    if (def->sensor)
        sim_events_body_added(w, slot); /* room reserved */
    /* Its bounds now, so that queries find it before it first steps; its pairs are found at
     * the next step. A static body's bounds are its shape's, for good. */
    col_aabb3 box = sim_shape_bounds_now(w, slot);
    w->broad.shape_box.at[slot] = box;
    w->solver.index.at[slot] = 0;
    if (b->kind == SIM_STATIC) {
        sim_set_fat_box(w, slot, box, 0.0f);
        w->broad.statics.at[w->broad.statics.v.len++] = slot;
        w->broad.statics_dirty = true;
    } else {
        sim_set_fat_box(w, slot, box, SIM_FAT_MARGIN);
        w->broad.order.at[w->broad.order.v.len++] = slot;
        w->broad.order_unsorted = true;
        movers_insert(w, slot);
    }
    w->broad.pairs_dirty = true;
    w->slots.live++;
    w->slots.characters += b->kind == SIM_CHARACTER;
    sim_history_note_added(w, slot);
    return b->id;
}

sim_id sim_world_add(sim_world *w, const sim_body_def *def, uint32_t owner)
{
    if (w->slots.live >= w->cfg.max_bodies)
        return 0;
    uint32_t slot;
    if (w->slots.free.v.len > 0) {
        slot = w->slots.free.at[--w->slots.free.v.len];
    } else {
        slot = (uint32_t)sim_slot_count(w);
        if (!slots_resize(w, (size_t)slot + 1))
            return 0;
    }
    sim_id id = place_body(w, def, owner, slot);
    if (id != 0)
        sim_report_change(w, SIM_CHANGE_ADDED, &w->slots.bodies.at[slot], owner, mk_v3(0, 0, 0),
                          false);
    return id;
}

/* Takes `slot` out of the free list, growing the slot array to it first (the slots skipped on
 * the way become free, with generation 0). False when it is not free or memory runs out. */
static bool take_free_slot(sim_world *w, uint32_t slot)
{
    size_t old = sim_slot_count(w);
    size_t skipped = slot >= old ? slot + 1 - old : 0;
    if (!mk_vec_reserve(&w->slots.free.v, w->slots.free.v.len + skipped + 1) ||
        (skipped > 0 && !slots_resize(w, (size_t)slot + 1)))
        return false;
    for (size_t s = old; s < old + skipped; s++)
        MK_VEC_PUSH(&w->slots.free, (uint32_t)s); /* room reserved */
    /* It must be free (and not waiting for sim_world_clear_removed). */
    uint32_t *free_list = w->slots.free.at;
    size_t i = 0;
    while (i < w->slots.free.v.len && free_list[i] != slot)
        i++;
    if (i == w->slots.free.v.len)
        return false;
    free_list[i] = free_list[--w->slots.free.v.len];
    return true;
}

sim_id sim_world_add_with_id(sim_world *w, const sim_body_def *def, uint32_t owner, sim_id id)
{
    uint32_t slot = sim_id_slot(id);
    uint64_t generation = id >> SIM_SLOT_BITS;
    /* A world of max_bodies never gave out a slot past it; a larger one would only make an
     * untrusted file allocate a huge slot array. */
    if (id == 0 || slot >= w->cfg.max_bodies || generation >= (1u << 29) ||
        w->slots.live >= w->cfg.max_bodies)
        return 0;
    if (!take_free_slot(w, slot))
        return 0;
    w->slots.generation.at[slot] = (uint32_t)generation;
    return place_body(w, def, owner, slot);
}

bool sim_world_set_slot_generation(sim_world *w, uint32_t slot, uint32_t generation)
{
    if (slot >= w->cfg.max_bodies || generation > (1u << 29) || !take_free_slot(w, slot))
        return false;
    w->slots.generation.at[slot] = generation;
    /* Free again, unless its generations are used up (then it stays retired). */
    if (generation < (1u << 29))
        MK_VEC_PUSH(&w->slots.free, slot);
    return true;
}

void sim_world_set_tick(sim_world *w, uint64_t tick) { w->tick = tick; }

sim_body *sim_body_of(sim_world *w, sim_id id)
{
    return (sim_body *)sim_world_get(w, id);
}

const sim_body *sim_world_get(const sim_world *w, sim_id id)
{
    if (id == 0 || (id & SIM_MAX_BODIES) == 0)
        return NULL;
    uint32_t slot = sim_id_slot(id);
    if (slot >= sim_slot_count(w) || w->slots.bodies.at[slot].id != id)
        return NULL;
    return &w->slots.bodies.at[slot];
}

/* Drops freed slots from a list of slots, keeping its order. */
static bool slots_compact(sim_world *w, mk_vec *list)
{
    uint32_t *slots = list->data;
    size_t n = 0;
    for (size_t i = 0; i < list->len; i++) {
        if (w->slots.bodies.at[slots[i]].id != 0)
            slots[n++] = slots[i];
    }
    bool changed = n != list->len;
    list->len = n;
    return changed;
}

/* Drops freed slots from the broadphase's lists (the order stays sorted). */
static void order_compact(sim_world *w)
{
    slots_compact(w, &w->broad.order.v);
    slots_compact(w, &w->broad.movers.v);
    if (slots_compact(w, &w->broad.statics.v))
        w->broad.statics_dirty = true;
}

/* Wakes what may rest on `b`, which is going or moving: every sleeping body whose bounds come
 * within the speculative distance of b's, with the island it sleeps in. By place rather than by
 * the contact cache, so that sleepers with no contact on record wake too: characters (held up
 * by push-out) and a saved world's bodies. The cache's entries of b go in its periodic sweep. */
void sim_wake_near(sim_world *w, sim_body *b)
{
    sim_wake(w, b);
    col_aabb3 near = sim_shape_bounds_now(w, sim_id_slot(b->id));
    near.half = mk_v3_add(near.half, mk_v3(SIM_SPECULATIVE, SIM_SPECULATIVE,
                                           w->cfg.dim == 3 ? SIM_SPECULATIVE : 0.0f));
    if (!sim_query_box(w, &near, false)) {
        /* Out of memory for the query: every sleeper wakes, which is never wrong. */
        const uint32_t *order = w->broad.order.at;
        for (size_t i = 0; i < w->broad.order.v.len; i++)
            if (w->slots.bodies.at[order[i]].sleeping)
                sim_wake(w, &w->slots.bodies.at[order[i]]);
        return;
    }
    const uint32_t *hits = w->broad.hits.at;
    const col_aabb3 *shape_box = w->broad.shape_box.at;
    for (size_t i = 0; i < w->broad.hits.v.len; i++) {
        sim_body *o = &w->slots.bodies.at[hits[i]];
        if (o->sleeping && sim_aabb3_overlap(&near, &shape_box[hits[i]]))
            sim_wake(w, o);
    }
}

static bool remove_body(sim_world *w, sim_id id)
{
    sim_body *b = sim_body_of(w, id);
    if (!b)
        return false;
    sim_history_note_removed(w, b);
    sim_wake_near(w, b);
    uint32_t slot = sim_id_slot(id);
    /* The removal must be recorded even when memory is short; reserving first keeps both lists
     * consistent. */
    if (!mk_vec_reserve(&w->slots.removed.v, w->slots.removed.v.len + 1) ||
        !mk_vec_reserve(&w->slots.pending.v, w->slots.pending.v.len + 1))
        return false;
    sim_events_body_removed(w, b);
    MK_VEC_PUSH(&w->slots.removed, id);
    MK_VEC_PUSH(&w->slots.pending, slot);
    sim_joints_remove_body(w, slot);
    free(b->polygon);
    b->polygon = NULL;
    b->shape.polygon = NULL;
    w->slots.levels -= b->level != NULL;
    sim_level_release(b->level);
    b->level = NULL;
    if (w->cfg.dim == 3) {
        sim_body3 *b3 = sim_part3(w, slot);
        free(b3->hull);
        b3->hull = NULL;
        b3->shape.hull = NULL;
    }
    sim_filter_clear(w, slot);
    b->id = 0;
    w->slots.live--;
    w->slots.characters -= b->kind == SIM_CHARACTER;
    w->broad.pairs_dirty = true;
    /* Generations stay below 2^29 so ids stay below 2^53; a slot that wrapped that far is
     * retired instead (it is not given back to the free list in sim_world_clear_removed). */
    w->slots.generation.at[slot]++;
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
    const sim_body *b = sim_world_get(w, id);
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
    for (size_t i = 0; i < sim_slot_count(w); i++) {
        sim_body *b = &w->slots.bodies.at[i];
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
    for (size_t i = 0; i < sim_slot_count(w); i++)
        n += w->slots.bodies.at[i].id != 0 && w->slots.bodies.at[i].owner == owner;
    return n;
}

const sim_id *sim_world_removed(const sim_world *w, size_t *n)
{
    *n = w->slots.removed.v.len;
    return w->slots.removed.at;
}

void sim_world_clear_removed(sim_world *w)
{
    if (w->slots.pending.v.len > 0 || w->joints.pending.v.len > 0)
        sim_report_change(w, SIM_CHANGE_REUSE, NULL, 0, mk_v3(0, 0, 0), false);
    sim_joints_clear_removed(w);
    const uint32_t *slots = w->slots.pending.at;
    for (size_t i = 0; i < w->slots.pending.v.len; i++) {
        if (w->slots.generation.at[slots[i]] < (1u << 29))
            MK_VEC_PUSH(&w->slots.free, slots[i]);
    }
    w->slots.pending.v.len = 0;
    w->slots.removed.v.len = 0;
}

static int by_address(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (const sim_level *const *)a;
    uintptr_t y = (uintptr_t) * (const sim_level *const *)b;
    return (x > y) - (x < y);
}

bool sim_world_levels(const sim_world *w, const sim_level ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t count = 0;
    for (size_t i = 0; i < sim_slot_count(w); i++)
        count += w->slots.bodies.at[i].id != 0 && w->slots.bodies.at[i].level;
    if (count == 0)
        return true;
    const sim_level **all = malloc(count * sizeof *all);
    if (!all)
        return false;
    count = 0;
    for (size_t i = 0; i < sim_slot_count(w); i++)
        if (w->slots.bodies.at[i].id != 0 && w->slots.bodies.at[i].level)
            all[count++] = w->slots.bodies.at[i].level;
    qsort(all, count, sizeof *all, by_address);
    size_t kept = 0;
    for (size_t i = 0; i < count; i++)
        if (kept == 0 || all[kept - 1] != all[i])
            all[kept++] = all[i];
    *out = all;
    *n = kept;
    return true;
}

const sim_contact2 *sim_world_contacts2(const sim_world *w, size_t *n)
{
    *n = w->d2.contacts.v.len;
    return w->d2.contacts.at;
}

const sim_contact3 *sim_world_contacts3(const sim_world *w, size_t *n)
{
    *n = w->d3.contacts.v.len;
    return w->d3.contacts.at;
}

/* The body of `id` in a world of `dim` dimensions, woken with its island; NULL when there is
 * none (then nothing wakes). */
static sim_body *wake_body(sim_world *w, sim_id id, int dim)
{
    sim_body *b = sim_body_of(w, id);
    if (!b || w->cfg.dim != dim)
        return NULL;
    sim_wake(w, b);
    return b;
}

/* An input's move is set: it is reported, and a jump is kept until the step takes it. */
static bool take_input(sim_world *w, sim_body *b, mk_vec3 move, bool jump)
{
    sim_report_change(w, SIM_CHANGE_INPUT, b, b->owner, move, jump);
    b->jump = b->jump || jump;
    b->has_input = true;
    return true;
}

bool sim_body_set_input2(sim_world *w, sim_id id, mk_vec2 move, bool jump)
{
    /* Taken in a world of either dimension: a 3D world's step reads the 3D move alone. */
    sim_body *b = wake_body(w, id, w->cfg.dim);
    if (!b)
        return false;
    b->move = mk_v2(mk_clampf(move.x, -1.0f, 1.0f), mk_clampf(move.y, -1.0f, 1.0f));
    return take_input(w, b, mk_v3(b->move.x, b->move.y, 0), jump);
}

bool sim_body_set_input3(sim_world *w, sim_id id, mk_vec3 move, bool jump)
{
    sim_body *b = wake_body(w, id, 3);
    if (!b)
        return false;
    sim_body3 *b3 = sim_part3(w, sim_id_slot(id));
    b3->move = mk_v3(mk_clampf(move.x, -1.0f, 1.0f), mk_clampf(move.y, -1.0f, 1.0f),
                     mk_clampf(move.z, -1.0f, 1.0f));
    return take_input(w, b, b3->move, jump);
}

/* Whether the body of `id` turns: its inverse inertia is not zero (in 3D the world tensor is
 * zero or positive definite, a dynamic body's). */
static bool turns(const sim_world *w, sim_id id)
{
    const sim_body *b = sim_world_get(w, id);
    if (!b)
        return false;
    if (w->cfg.dim == 3)
        return sim_part3(w, sim_id_slot(id))->inv_inertia.c0.x > 0.0f;
    return b->inv_inertia > 0.0f;
}

/* A setting made: reported with what it set (SIM_SET_*). */
static bool report_set(sim_world *w, const sim_body *b, unsigned set)
{
    sim_change c = {.kind = SIM_CHANGE_SET, .body = b, .owner = b->owner, .set = set};
    sim_report(w, &c);
    return true;
}

/* Whether the body of `id` is in the world and moves (not static). */
static bool moves(const sim_world *w, sim_id id)
{
    const sim_body *b = sim_world_get(w, id);
    return b && b->kind != SIM_STATIC;
}

/* Sets the spin or the velocity of the body of `id` in a world of `dim` dimensions, woken with
 * its island, when the body moves and, for a spin, turns; false when it does not (or is not
 * there). The value comes as a 3D vector: a 2D body takes a velocity's x and y and a spin's z
 * (the axis out of its plane). */
static bool set_motion(sim_world *w, sim_id id, int dim, bool spin, mk_vec3 v)
{
    bool ok = mk_v3_finite(v) && (spin ? turns(w, id) : moves(w, id));
    sim_body *b = ok ? wake_body(w, id, dim) : NULL;
    if (!b)
        return false;
    if (dim == 3) {
        sim_body3 *p = sim_part3(w, sim_id_slot(id));
        if (spin)
            p->w = v;
        else
            p->vel = v;
    } else if (spin) {
        b->w = v.z;
    } else {
        b->vel = mk_v2(v.x, v.y);
    }
    return report_set(w, b, spin ? SIM_SET_SPIN : SIM_SET_VEL);
}

bool sim_body_set_spin2(sim_world *w, sim_id id, float spin)
{
    return set_motion(w, id, 2, true, mk_v3(0, 0, spin));
}

bool sim_body_set_spin3(sim_world *w, sim_id id, mk_vec3 spin)
{
    return set_motion(w, id, 3, true, spin);
}

bool sim_body_set_velocity2(sim_world *w, sim_id id, mk_vec2 vel)
{
    return set_motion(w, id, 2, false, mk_v3(vel.x, vel.y, 0));
}

bool sim_body_set_velocity3(sim_world *w, sim_id id, mk_vec3 vel)
{
    return set_motion(w, id, 3, false, vel);
}

bool sim_body_set_owner(sim_world *w, sim_id id, uint32_t owner)
{
    sim_body *b = sim_body_of(w, id);
    if (!b)
        return false;
    b->owner = owner;
    return true;
}

void sim_world_on_change(sim_world *w, sim_change_fn fn, void *ctx)
{
    w->on_change = fn;
    w->change_ctx = ctx;
}

void sim_report_change(sim_world *w, sim_change_kind kind, const sim_body *body, uint32_t owner,
                       mk_vec3 move, bool jump)
{
    sim_change c = {.kind = kind, .body = body, .owner = owner, .move = move, .jump = jump};
    sim_report(w, &c);
}

void sim_report(sim_world *w, const sim_change *c)
{
    if (w->on_change)
        w->on_change(w->change_ctx, w, c);
}

void sim_world_step_order(const sim_world *w, const uint32_t **movers, size_t *mover_count,
                          const uint32_t **statics, size_t *static_count)
{
    *movers = w->broad.order.at;
    *mover_count = w->broad.order.v.len;
    *statics = w->broad.statics.at;
    *static_count = w->broad.statics.v.len;
}

uint32_t sim_world_slot_generation(const sim_world *w, uint32_t slot)
{
    return slot < sim_slot_count(w) ? w->slots.generation.at[slot] : 0;
}

void sim_world_step(sim_world *w)
{
    sim_history_before_step(w);
    sim_events_before_step(w);
    w->step(w);
    sim_events_after_step(w);
}
