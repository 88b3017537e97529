/* The history of placements, for queries at a past tick (lag compensation: the server answers
 * a shot as the shooter saw the world, Valve's "Source Multiplayer Networking", for every
 * body and its exact shape rather than for hitboxes of players).
 *
 * Before each step from tick t, the placement at t of every body that is about to move (not
 * static, not asleep) is appended to frame t, and a body removed at t gets a record there
 * too, its shape kept aside. A body absent from the frames at and after a tick t did not
 * move from t on: it was where it is now (or where it was when removed). So a body's
 * placement at t is its earliest record at or after t, else its placement now; a sleeping
 * pile has no records at all. Frames older than the window are dropped as new ones start:
 * the records are one ring, frames consecutive ranges of it. */
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "level.h"

typedef struct frame {
    uint64_t tick;
    uint64_t first; /* the sequence number of its first record */
    size_t count;
} frame;

/* A removed body kept while its removal is within the window. */
typedef struct gone_body {
    sim_id id;
    sim_kind kind;
    uint64_t category;
    bool sensor;
    bool placed; /* a static body moved away: its pose is its own, not a record's */
    uint64_t born, removed; /* it existed at ticks in [born, removed] */
    col_shape2 s2;
    col_shape3 s3; /* a polygon's or hull's copy is owned here */
    const sim_level *level; /* a level body's, a reference held here */
    float pose[7];
    uint32_t mark;
} gone_body;

struct sim_history {
    uint32_t ticks;  /* the window; 0: no history is kept */
    uint64_t since;  /* the tick the window started at */
    int floats;      /* per record: 3 in 2D (x, y, angle), 7 in 3D (position, quaternion) */
    frame *frames;   /* a ring of ticks + 1 */
    uint32_t frame_head, frame_count;
    /* The records: a ring of rec_cap, sequence numbers rec_first.. (record s at s % rec_cap):
     * ids, `floats` numbers of pose a record, the body's bounds there (as the broadphase took
     * them: shape_box), and whether each is open (see record). */
    MK_VEC(sim_id) ids;
    MK_VEC(float) poses;
    MK_VEC(col_aabb3) boxes;
    MK_VEC(uint8_t) opens;
    size_t rec_cap;
    uint64_t rec_first, rec_end;
    float widest; /* the largest half extent of any record's bounds so far */
    /* Per slot (their length, a power of two from 1024, covers every slot held): */
    MK_VEC(uint64_t) born; /* the first tick its body existed at */
    MK_VEC(uint64_t) last; /* 1 + the tick of its body's last record, 0 for none */
    MK_VEC(gone_body) gone;
    /* Per slot, for sim_history_bodies_at: the mark of the query that found its placement. */
    MK_VEC(uint32_t) slot_mark;
    uint32_t mark;
    MK_VEC(sim_qbody) candidates;
    MK_VEC(sim_sort_key) keys;
};

/* The history's growable arrays with the sizes of their items: one list that making and
 * freeing it both walk. */
#define HISTORY_VECS 10
static void history_vecs(sim_history *h, world_vec out[HISTORY_VECS])
{
#define V(field) {&h->field.v, sizeof *h->field.at, 0}
    const world_vec list[] = {
        V(ids), V(poses), V(boxes), V(opens), V(born), V(last), V(gone), V(slot_mark), V(keys),
        V(candidates),
    };
#undef V
    _Static_assert(sizeof list / sizeof *list == HISTORY_VECS, "every array, once");
    memcpy(out, list, sizeof list);
}

sim_history *sim_history_of(sim_world *w)
{
    if (!w->history) {
        sim_history *h = calloc(1, sizeof *h);
        if (!h)
            return NULL;
        h->floats = w->cfg.dim == 3 ? 7 : 3;
        world_vec vecs[HISTORY_VECS];
        history_vecs(h, vecs);
        for (size_t i = 0; i < HISTORY_VECS; i++)
            vecs[i].v->item = vecs[i].item;
        w->history = h;
    }
    return w->history;
}

mk_vec *sim_history_candidates(sim_history *h) { return &h->candidates.v; }
mk_vec *sim_history_keys(sim_history *h) { return &h->keys.v; }

static void free_gone(gone_body *g)
{
    sim_level_release(g->level);
    if (g->s2.type == COL_SHAPE_POLYGON)
        free((void *)g->s2.polygon);
    if (g->s3.type == COL_SHAPE3_HULL)
        free((void *)g->s3.hull);
}

void sim_history_free(sim_history *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->gone.v.len; i++)
        free_gone(&h->gone.at[i]);
    free(h->frames);
    world_vec vecs[HISTORY_VECS];
    history_vecs(h, vecs);
    for (size_t i = 0; i < HISTORY_VECS; i++)
        mk_vec_free(vecs[i].v);
    free(h);
}

/* Grows the per-slot arrays to hold `slot`; new slots: a body there existed all along. */
static bool hold_slot(sim_history *h, size_t slot)
{
    size_t held = h->born.v.len;
    if (slot < held)
        return true;
    size_t n = held ? held : 1024;
    while (n <= slot)
        n *= 2;
    if (!mk_vec_reserve(&h->born.v, n) || !mk_vec_reserve(&h->last.v, n))
        return false;
    memset(h->born.at + held, 0, (n - held) * sizeof *h->born.at);
    memset(h->last.at + held, 0, (n - held) * sizeof *h->last.at);
    h->born.v.len = h->last.v.len = n;
    return true;
}

bool sim_world_set_history(sim_world *w, uint32_t ticks)
{
    sim_history *h = sim_history_of(w);
    if (!h)
        return false;
    frame *frames = calloc((size_t)ticks + 1, sizeof *frames);
    if (!frames || (sim_slot_count(w) > 0 && !hold_slot(h, sim_slot_count(w) - 1))) {
        free(frames);
        return false;
    }
    free(h->frames);
    h->frames = frames;
    h->frame_head = h->frame_count = 0;
    h->rec_first = h->rec_end = 0;
    h->ticks = ticks;
    h->since = w->tick;
    return true;
}

uint64_t sim_world_history_oldest(const sim_world *w)
{
    const sim_history *h = w->history;
    if (!h || h->ticks == 0)
        return w->tick;
    uint64_t window = w->tick > h->ticks ? w->tick - h->ticks : 0;
    return window > h->since ? window : h->since;
}

size_t sim_world_history_bytes(const sim_world *w)
{
    const sim_history *h = w->history;
    if (!h)
        return 0;
    size_t bytes = h->rec_cap * (sizeof(sim_id) + (size_t)h->floats * sizeof(float) +
                                 sizeof(col_aabb3) + 1) +
                   (h->ticks + 1u) * sizeof(frame) + 2 * h->born.v.len * sizeof(uint64_t) +
                   h->gone.v.cap * sizeof(gone_body);
    for (size_t i = 0; i < h->gone.v.len; i++) {
        const gone_body *g = &h->gone.at[i];
        bytes += g->s2.type == COL_SHAPE_POLYGON && h->floats == 3 ? sizeof(col_polygon)
                 : g->s3.type == COL_SHAPE3_HULL && h->floats == 7 ? sizeof(col_hull3)
                                                                    : 0;
    }
    return bytes;
}

/* Doubles the records' ring. Record s moves from s % rec_cap to s % (2 rec_cap): the same
 * place, or as far again into the new half, which held nothing. */
static bool grow_records(sim_history *h)
{
    size_t old = h->rec_cap, cap = old ? 2 * old : 1024, f = (size_t)h->floats;
    if (!mk_vec_reserve(&h->ids.v, cap) || !mk_vec_reserve(&h->opens.v, cap) ||
        !mk_vec_reserve(&h->boxes.v, cap) || !mk_vec_reserve(&h->poses.v, cap * f))
        return false;
    for (uint64_t s = h->rec_first; s < h->rec_end; s++) {
        size_t from = (size_t)(s % old), to = (size_t)(s % cap);
        if (to == from)
            continue;
        h->ids.at[to] = h->ids.at[from];
        h->opens.at[to] = h->opens.at[from];
        h->boxes.at[to] = h->boxes.at[from];
        memcpy(&h->poses.at[to * f], &h->poses.at[from * f], f * sizeof(float));
    }
    h->rec_cap = cap;
    return true;
}

static frame *frame_at(sim_history *h, uint32_t i)
{
    return &h->frames[(h->frame_head + i) % (h->ticks + 1u)];
}

/* The frame of tick t, started when it is not the newest; older frames than the window are
 * dropped, and removed bodies with them. */
static frame *open_frame(sim_world *w, sim_history *h, uint64_t t)
{
    if (h->frame_count > 0 && frame_at(h, h->frame_count - 1)->tick == t)
        return frame_at(h, h->frame_count - 1);
    while (h->frame_count > 0 &&
           (h->frame_count == h->ticks + 1u || frame_at(h, 0)->tick + h->ticks < t)) {
        frame *old = frame_at(h, 0);
        h->rec_first += old->count;
        h->frame_head = (h->frame_head + 1) % (h->ticks + 1u);
        h->frame_count--;
    }
    uint64_t oldest = sim_world_history_oldest(w);
    size_t kept = 0;
    for (size_t i = 0; i < h->gone.v.len; i++) {
        if (h->gone.at[i].removed < oldest)
            free_gone(&h->gone.at[i]);
        else
            h->gone.at[kept++] = h->gone.at[i];
    }
    h->gone.v.len = kept;
    frame *f = frame_at(h, h->frame_count++);
    *f = (frame){t, h->rec_end, 0};
    return f;
}

/* Appends a body's placement to the frame of the world's tick, once a tick. A record is
 * `open` when the body has none at the tick before (it was asleep, or new): a query at an
 * earlier tick finds a body that did not move then by its open records alone. */
static bool record(sim_world *w, sim_history *h, const sim_body *b)
{
    uint32_t slot = sim_id_slot(b->id);
    uint64_t last = slot < h->last.v.len ? h->last.at[slot] : 0;
    if (last == w->tick + 1)
        return true; /* recorded at this tick already (woken, then stepped) */
    if (h->rec_end - h->rec_first == h->rec_cap && !grow_records(h))
        return false;
    frame *f = open_frame(w, h, w->tick);
    size_t at = (size_t)(h->rec_end % h->rec_cap);
    h->ids.at[at] = b->id;
    h->opens.at[at] = last != w->tick;
    col_aabb3 box = w->broad.shape_box.at[slot]; /* taken where it is now (region.c) */
    h->boxes.at[at] = box;
    float wide = mk_maxf(box.half.x, mk_maxf(box.half.y, box.half.z));
    h->widest = wide > h->widest ? wide : h->widest;
    if (slot < h->last.v.len)
        h->last.at[slot] = w->tick + 1;
    float *p = &h->poses.at[at * (size_t)h->floats];
    if (h->floats == 3) {
        p[0] = b->pos.x;
        p[1] = b->pos.y;
        p[2] = b->angle;
    } else {
        const sim_body3 *b3 = sim_part3(w, slot);
        float v[7] = {b3->pos.x, b3->pos.y, b3->pos.z, b3->rot.x, b3->rot.y, b3->rot.z, b3->rot.w};
        memcpy(p, v, sizeof v);
    }
    h->rec_end++;
    f->count++;
    return true;
}

void sim_history_note_woken(sim_world *w, const sim_body *b)
{
    sim_history *h = w->history;
    if (h && h->ticks > 0 && b->kind != SIM_STATIC)
        record(w, h, b);
}

void sim_history_before_step(sim_world *w)
{
    sim_history *h = w->history;
    if (!h || h->ticks == 0)
        return;
    const uint32_t *movers = w->broad.movers.at;
    for (size_t i = 0; i < w->broad.movers.v.len; i++) {
        const sim_body *b = &w->slots.bodies.at[movers[i]];
        if (b->id != 0 && !b->sleeping && !record(w, h, b))
            return; /* out of memory: the oldest answers lose this tick's records */
    }
}

void sim_history_note_added(sim_world *w, uint32_t slot)
{
    sim_history *h = w->history;
    if (!h || h->ticks == 0)
        return;
    if (!hold_slot(h, slot))
        return;
    h->last.at[slot] = 0;
    /* Added while the world is at tick t: the state of tick t did not have it. */
    h->born.at[slot] = w->tick + 1;
}

bool sim_history_born_by(const sim_world *w, uint32_t slot, uint64_t t)
{
    const sim_history *h = w->history;
    return !h || slot >= h->born.v.len || h->born.at[slot] <= t;
}

/* A gone body for b as it is now, its shape copied: false when memory ran out. */
static bool gone_of(sim_world *w, sim_history *h, const sim_body *b, gone_body *out)
{
    uint32_t slot = sim_id_slot(b->id);
    sim_slot_filter f = w->filter.slots.at[slot];
    gone_body g = {.id = b->id, .kind = b->kind, .category = f.f.category, .sensor = f.sensor,
                   .removed = w->tick, .born = slot < h->born.v.len ? h->born.at[slot] : 0,
                   .s2 = b->shape};
    if (b->shape.type == COL_SHAPE_POLYGON && b->polygon && w->cfg.dim != 3) {
        col_polygon *copy = malloc(sizeof *copy);
        if (!copy)
            return false;
        *copy = *b->polygon;
        g.s2.polygon = copy;
    }
    if (w->cfg.dim == 3) {
        g.s2.type = COL_SHAPE_AABB; /* unused in 3D */
        g.s3 = sim_part3(w, slot)->shape;
        if (g.s3.type == COL_SHAPE3_HULL) {
            col_hull3 *copy = malloc(sizeof *copy);
            if (!copy)
                return false;
            *copy = *sim_part3(w, slot)->hull;
            g.s3.hull = copy;
        }
    } else {
        g.s3.type = COL_SHAPE3_SPHERE; /* unused in 2D */
    }
    g.level = b->level;
    sim_level_retain(g.level);
    *out = g;
    return true;
}

void sim_history_note_removed(sim_world *w, const sim_body *b)
{
    sim_history *h = w->history;
    if (!h || h->ticks == 0)
        return;
    gone_body g;
    if (!mk_vec_reserve(&h->gone.v, h->gone.v.len + 1) || !gone_of(w, h, b, &g))
        return;
    if (!record(w, h, b)) {
        free_gone(&g);
        return;
    }
    MK_VEC_PUSH(&h->gone, g); /* room reserved */
}

void sim_history_note_moved(sim_world *w, const sim_body *b)
{
    sim_history *h = w->history;
    if (!h || h->ticks == 0)
        return;
    if (b->kind != SIM_STATIC) {
        record(w, h, b);
        return;
    }
    uint32_t slot = sim_id_slot(b->id);
    gone_body g;
    if (!hold_slot(h, slot) || !mk_vec_reserve(&h->gone.v, h->gone.v.len + 1) ||
        !gone_of(w, h, b, &g))
        return;
    g.placed = true;
    if (w->cfg.dim == 3) {
        const sim_body3 *b3 = sim_part3(w, slot);
        float v[7] = {b3->pos.x, b3->pos.y, b3->pos.z, b3->rot.x, b3->rot.y, b3->rot.z, b3->rot.w};
        memcpy(g.pose, v, sizeof v);
    } else {
        g.pose[0] = b->pos.x;
        g.pose[1] = b->pos.y;
        g.pose[2] = b->angle;
    }
    MK_VEC_PUSH(&h->gone, g); /* room reserved */
    h->born.at[slot] = w->tick + 1;
}

static col_aabb3 bounds_of(const sim_qbody *q)
{
    if (q->level)
        return sim_level_bounds(q->level, q->x2, q->x3);
    if (q->s3)
        return col_shape3_bounds(q->s3, q->x3);
    col_aabb b = col_shape_bounds(q->s2, q->x2);
    return (col_aabb3){mk_v3(b.center.x, b.center.y, 0), mk_v3(b.half.x, b.half.y, 0)};
}

/* A body as a query sees it at a pose of the history (p: `floats` numbers), with its bounds
 * there: `box` when the record has them, else taken now from the shape. */
static sim_qbody qbody_of(const sim_history *h, sim_id id, sim_kind kind, uint64_t category,
                          bool sensor, const col_shape2 *s2, const col_shape3 *s3,
                          const sim_level *level, const float *p, const col_aabb3 *box)
{
    /* A query tells the dimension by which shape is given. */
    sim_qbody q = {.id = id, .kind = kind, .category = category, .sensor = sensor,
                   .s2 = h->floats == 3 ? s2 : NULL, .s3 = h->floats == 7 ? s3 : NULL,
                   .level = level};
    if (h->floats == 3)
        q.x2 = (col_xf2){mk_v2(p[0], p[1]), p[2]};
    else
        q.x3 = (col_xf3){mk_v3(p[0], p[1], p[2]), (mk_quat){p[3], p[4], p[5], p[6]}};
    q.box = box ? *box : bounds_of(&q);
    return q;
}

float sim_history_widest(const sim_history *h) { return h ? h->widest : 0.0f; }

bool sim_history_still_since(const sim_world *w, uint32_t slot, uint64_t t)
{
    const sim_history *h = w->history;
    return !h || slot >= h->last.v.len || h->last.at[slot] <= t;
}

/* A new mark for the slots and the removed bodies: the placements one query has found. */
static bool next_mark(sim_world *w, sim_history *h)
{
    size_t slots = sim_slot_count(w), marked = h->slot_mark.v.len;
    if (slots > marked) {
        if (!mk_vec_reserve(&h->slot_mark.v, slots))
            return false;
        memset(h->slot_mark.at + marked, 0, (slots - marked) * sizeof *h->slot_mark.at);
        h->slot_mark.v.len = slots;
    }
    if (++h->mark == 0) { /* wrapped: clear the old marks */
        for (size_t i = 0; i < h->slot_mark.v.len; i++)
            h->slot_mark.at[i] = 0;
        for (size_t i = 0; i < h->gone.v.len; i++)
            h->gone.at[i].mark = 0;
        h->mark = 1;
    }
    return true;
}

/* The record at ring index `at` read as the placement at t of its body, unless an earlier
 * record (this query's mark) gave it: appended to out when its bounds then meet `box`. */
static bool take_record(sim_world *w, sim_history *h, size_t at, uint64_t t,
                        const col_aabb3 *box, mk_vec *out)
{
    sim_id id = h->ids.at[at];
    uint32_t slot = sim_id_slot(id);
    const float *p = &h->poses.at[at * (size_t)h->floats];
    const col_aabb3 *rbox = &h->boxes.at[at];
    if (slot < h->slot_mark.v.len && w->slots.bodies.at[slot].id == id) {
        if (h->slot_mark.at[slot] == h->mark || !sim_history_born_by(w, slot, t))
            return true;
        h->slot_mark.at[slot] = h->mark;
        if (!sim_aabb3_overlap(rbox, box))
            return true;
        const sim_body *b = &w->slots.bodies.at[slot];
        const sim_slot_filter *f = &w->filter.slots.at[slot];
        sim_qbody q = qbody_of(h, id, b->kind, f->f.category, f->sensor, &b->shape,
                               w->cfg.dim == 3 ? &sim_part3(w, slot)->shape : NULL, b->level,
                               p, rbox);
        return mk_vec_push(out, &q);
    }
    for (size_t g = 0; g < h->gone.v.len; g++) {
        gone_body *gb = &h->gone.at[g];
        if (gb->id != id || gb->placed || gb->mark == h->mark)
            continue;
        gb->mark = h->mark;
        if (gb->born > t || gb->removed < t || !sim_aabb3_overlap(rbox, box))
            continue;
        sim_qbody q = qbody_of(h, gb->id, gb->kind, gb->category, gb->sensor, &gb->s2, &gb->s3,
                               gb->level, p, rbox);
        if (!mk_vec_push(out, &q))
            return false;
    }
    return true;
}

bool sim_history_bodies_at(sim_world *w, uint64_t t, const col_aabb3 *box, mk_vec *out)
{
    sim_history *h = w->history;
    if (!next_mark(w, h))
        return false;
    /* The frames from t on, oldest first, so that a body's earliest record at or after t is
     * the one taken: every record of frame t (the bodies that moved then), and the open
     * records of the later frames (bodies asleep at t, or removed, that moved since). */
    uint32_t first = h->frame_count;
    while (first > 0 && frame_at(h, first - 1)->tick >= t)
        first--;
    for (uint32_t i = first; i < h->frame_count; i++) {
        const frame *f = frame_at(h, i);
        size_t at = (size_t)(f->first % h->rec_cap); /* one division a frame, none a record */
        for (size_t k = 0; k < f->count; k++, at = at + 1 == h->rec_cap ? 0 : at + 1) {
            if ((f->tick == t || h->opens.at[at]) && !take_record(w, h, at, t, box, out))
                return false;
        }
    }
    /* Static bodies moved away since t: where they were put, until they moved. */
    for (size_t g = 0; g < h->gone.v.len; g++) {
        const gone_body *gb = &h->gone.at[g];
        if (!gb->placed || gb->born > t || gb->removed < t)
            continue;
        sim_qbody q = qbody_of(h, gb->id, gb->kind, gb->category, gb->sensor, &gb->s2, &gb->s3,
                               gb->level, gb->pose, NULL);
        if (sim_aabb3_overlap(&q.box, box) && !mk_vec_push(out, &q))
            return false;
    }
    return true;
}

static int by_key(const void *a, const void *b)
{
    const sim_sort_key *p = a, *q = b;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
    return p->index < q->index ? -1 : p->index > q->index;
}

void sim_sort_keys(sim_sort_key *keys, size_t n)
{
    if (n > 1) /* none may be no array at all, which qsort must not be given */
        qsort(keys, n, sizeof *keys, by_key);
}
