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

typedef struct frame {
    uint64_t tick;
    uint64_t first; /* the sequence number of its first record */
    size_t count;
} frame;

/* A removed body kept while its removal is within the window. */
typedef struct gone_body {
    sim_id id;
    sim_kind kind;
    uint64_t born, removed; /* it existed at ticks in [born, removed] */
    col_shape2 s2;
    col_shape3 s3; /* a polygon's or hull's copy is owned here */
    float pose[7];
    uint32_t mark;
} gone_body;

/* A body of the past list by its bounds' min x, for the sort. */
typedef struct x_key {
    float x;
    uint32_t index;
} x_key;

struct sim_history {
    uint32_t ticks;  /* the window; 0: no history is kept */
    uint64_t since;  /* the tick the window started at */
    int floats;      /* per record: 3 in 2D (x, y, angle), 7 in 3D (position, quaternion) */
    frame *frames;   /* a ring of ticks + 1 */
    uint32_t frame_head, frame_count;
    sim_id *ids;     /* the records: a ring of rec_cap, sequence numbers rec_first.. */
    float *poses;
    uint8_t *opens;  /* 1: the body's first record after a tick without one (see record) */
    size_t rec_cap;
    uint64_t rec_first, rec_end;
    uint64_t *born; /* per slot: the first tick its body existed at */
    uint64_t *last; /* per slot: 1 + the tick of its body's last record, 0 for none */
    size_t born_cap;
    gone_body *gone;
    size_t gone_len, gone_cap;
    float *slot_pose; /* per slot, for sim_history_bodies_at */
    uint32_t *slot_mark;
    size_t slot_cap;
    uint32_t mark;
    mk_vec candidates, keys;
    /* The bodies at past_t, made at world tick past_now and change count past_changes;
     * `unsorted` and `order` (x_key) the scratch of their sort. */
    mk_vec past, unsorted, order;
    uint64_t past_t, past_now, changes, past_changes;
    float past_widest;
    bool past_valid;
};

sim_history *sim_history_of(sim_world *w)
{
    if (!w->history) {
        w->history = calloc(1, sizeof *w->history);
        if (!w->history)
            return NULL;
        w->history->floats = w->bodies3 || w->cfg.dim == 3 ? 7 : 3;
        w->history->candidates.item = sizeof(sim_qbody);
        w->history->past.item = sizeof(sim_qbody);
        w->history->unsorted.item = sizeof(sim_qbody);
        w->history->order.item = sizeof(x_key);
        w->history->keys.item = sizeof(float) + sizeof(uint32_t);
    }
    return w->history;
}

mk_vec *sim_history_candidates(sim_history *h) { return &h->candidates; }
mk_vec *sim_history_keys(sim_history *h) { return &h->keys; }

static void free_gone(gone_body *g)
{
    if (g->s2.type == COL_SHAPE_POLYGON)
        free((void *)g->s2.polygon);
    if (g->s3.type == COL_SHAPE3_HULL)
        free((void *)g->s3.hull);
}

void sim_history_free(sim_history *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->gone_len; i++)
        free_gone(&h->gone[i]);
    free(h->gone);
    free(h->frames);
    free(h->ids);
    free(h->poses);
    free(h->born);
    free(h->last);
    free(h->opens);
    free(h->slot_pose);
    free(h->slot_mark);
    mk_vec_free(&h->candidates);
    mk_vec_free(&h->past);
    mk_vec_free(&h->unsorted);
    mk_vec_free(&h->order);
    mk_vec_free(&h->keys);
    free(h);
}

/* Grows the per-slot arrays to hold `slot`; new slots: a body there existed all along. */
static bool hold_slot(sim_history *h, size_t slot)
{
    if (slot < h->born_cap)
        return true;
    size_t cap = h->born_cap ? h->born_cap : 1024;
    while (cap <= slot)
        cap *= 2;
    uint64_t *born = realloc(h->born, cap * sizeof *born);
    if (born)
        h->born = born;
    uint64_t *last = realloc(h->last, cap * sizeof *last);
    if (last)
        h->last = last;
    if (!born || !last)
        return false;
    memset(born + h->born_cap, 0, (cap - h->born_cap) * sizeof *born);
    memset(last + h->born_cap, 0, (cap - h->born_cap) * sizeof *last);
    h->born_cap = cap;
    return true;
}

bool sim_world_set_history(sim_world *w, uint32_t ticks)
{
    sim_history *h = sim_history_of(w);
    if (!h)
        return false;
    frame *frames = calloc((size_t)ticks + 1, sizeof *frames);
    if (!frames || (w->slot_count > 0 && !hold_slot(h, w->slot_count - 1))) {
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
    size_t bytes = h->rec_cap * (sizeof(sim_id) + (size_t)h->floats * sizeof(float) + 1) +
                   (h->ticks + 1u) * sizeof(frame) + 2 * h->born_cap * sizeof(uint64_t) +
                   h->gone_cap * sizeof(gone_body);
    for (size_t i = 0; i < h->gone_len; i++)
        bytes += h->gone[i].s2.type == COL_SHAPE_POLYGON && h->floats == 3 ? sizeof(col_polygon)
                 : h->gone[i].s3.type == COL_SHAPE3_HULL && h->floats == 7 ? sizeof(col_hull3)
                                                                             : 0;
    return bytes;
}

static bool grow_records(sim_history *h)
{
    size_t cap = h->rec_cap ? 2 * h->rec_cap : 1024;
    sim_id *ids = malloc(cap * sizeof *ids);
    float *poses = malloc(cap * (size_t)h->floats * sizeof *poses);
    uint8_t *opens = malloc(cap);
    if (!ids || !poses || !opens) {
        free(ids);
        free(poses);
        free(opens);
        return false;
    }
    for (uint64_t s = h->rec_first; s < h->rec_end; s++) {
        size_t from = (size_t)(s % h->rec_cap), to = (size_t)(s % cap);
        ids[to] = h->ids[from];
        opens[to] = h->opens[from];
        memcpy(&poses[to * (size_t)h->floats], &h->poses[from * (size_t)h->floats],
               (size_t)h->floats * sizeof(float));
    }
    free(h->ids);
    free(h->poses);
    free(h->opens);
    h->ids = ids;
    h->poses = poses;
    h->opens = opens;
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
    for (size_t i = 0; i < h->gone_len; i++) {
        if (h->gone[i].removed < oldest)
            free_gone(&h->gone[i]);
        else
            h->gone[kept++] = h->gone[i];
    }
    h->gone_len = kept;
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
    uint64_t last = slot < h->born_cap ? h->last[slot] : 0;
    if (last == w->tick + 1)
        return true; /* recorded at this tick already (woken, then stepped) */
    if (h->rec_end - h->rec_first == h->rec_cap && !grow_records(h))
        return false;
    frame *f = open_frame(w, h, w->tick);
    size_t at = (size_t)(h->rec_end % h->rec_cap);
    h->ids[at] = b->id;
    h->opens[at] = last != w->tick;
    if (slot < h->born_cap)
        h->last[slot] = w->tick + 1;
    float *p = &h->poses[at * (size_t)h->floats];
    if (h->floats == 3) {
        p[0] = b->pos.x;
        p[1] = b->pos.y;
        p[2] = b->angle;
    } else {
        const sim_body3 *b3 = sim_body3_of(w, b);
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
    const uint32_t *movers = w->movers.data;
    for (size_t i = 0; i < w->movers.len; i++) {
        const sim_body *b = &w->bodies[movers[i]];
        if (b->id != 0 && !b->sleeping && !record(w, h, b))
            return; /* out of memory: the oldest answers lose this tick's records */
    }
}

void sim_history_note_added(sim_world *w, uint32_t slot)
{
    sim_history *h = w->history;
    if (!h || h->ticks == 0)
        return;
    h->changes++;
    if (!hold_slot(h, slot))
        return;
    h->last[slot] = 0;
    /* Added while the world is at tick t: the state of tick t did not have it. */
    h->born[slot] = w->tick + 1;
}

bool sim_history_born_by(const sim_world *w, uint32_t slot, uint64_t t)
{
    const sim_history *h = w->history;
    return !h || slot >= h->born_cap || h->born[slot] <= t;
}

void sim_history_note_removed(sim_world *w, const sim_body *b)
{
    sim_history *h = w->history;
    if (!h || h->ticks == 0)
        return;
    h->changes++;
    if (h->gone_len == h->gone_cap) {
        size_t cap = h->gone_cap ? 2 * h->gone_cap : 16;
        gone_body *g = realloc(h->gone, cap * sizeof *g);
        if (!g)
            return;
        h->gone = g;
        h->gone_cap = cap;
    }
    uint32_t slot = sim_id_slot(b->id);
    gone_body g = {.id = b->id, .kind = b->kind, .removed = w->tick,
                   .born = slot < h->born_cap ? h->born[slot] : 0, .s2 = b->shape};
    if (b->shape.type == COL_SHAPE_POLYGON && b->polygon && !w->bodies3) {
        col_polygon *copy = malloc(sizeof *copy);
        if (!copy)
            return;
        *copy = *b->polygon;
        g.s2.polygon = copy;
    }
    if (w->bodies3) {
        g.s2.type = COL_SHAPE_AABB; /* unused in 3D */
        g.s3 = w->bodies3[slot].shape;
        if (g.s3.type == COL_SHAPE3_HULL) {
            col_hull3 *copy = malloc(sizeof *copy);
            if (!copy)
                return;
            *copy = *w->bodies3[slot].hull;
            g.s3.hull = copy;
        }
    } else {
        g.s3.type = COL_SHAPE3_SPHERE; /* unused in 2D */
    }
    if (!record(w, h, b)) {
        free_gone(&g);
        return;
    }
    h->gone[h->gone_len++] = g;
}

static col_aabb3 bounds_of(const sim_qbody *q)
{
    if (q->s3)
        return col_shape3_bounds(q->s3, q->x3);
    col_aabb b = col_shape_bounds(q->s2, q->x2);
    return (col_aabb3){mk_v3(b.center.x, b.center.y, 0), mk_v3(b.half.x, b.half.y, 0)};
}

static sim_qbody qbody_of(const sim_history *h, sim_id id, sim_kind kind, const col_shape2 *s2,
                          const col_shape3 *s3, const float *p)
{
    /* A query tells the dimension by which shape is given. */
    sim_qbody q = {.id = id, .kind = kind, .s2 = h->floats == 3 ? s2 : NULL,
                   .s3 = h->floats == 7 ? s3 : NULL};
    if (h->floats == 3)
        q.x2 = (col_xf2){mk_v2(p[0], p[1]), p[2]};
    else
        q.x3 = (col_xf3){mk_v3(p[0], p[1], p[2]), (mk_quat){p[3], p[4], p[5], p[6]}};
    q.box = bounds_of(&q);
    return q;
}

static int by_min_x(const void *a, const void *b)
{
    const x_key *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return p->index < q->index ? -1 : p->index > q->index;
}

const mk_vec *sim_history_bodies_at(sim_world *w, uint64_t t, float *widest)
{
    sim_history *h = w->history;
    mk_vec *out = &h->past;
    if (h->past_valid && h->past_t == t && h->past_now == w->tick &&
        h->past_changes == h->changes) {
        *widest = h->past_widest;
        return out;
    }
    h->past_valid = false;
    h->past.len = 0;
    out = &h->unsorted;
    out->len = 0;
    if (w->slot_count > h->slot_cap) {
        size_t cap = w->slot_cap;
        float *pose = realloc(h->slot_pose, cap * 7 * sizeof *pose);
        if (pose)
            h->slot_pose = pose;
        uint32_t *mark = realloc(h->slot_mark, cap * sizeof *mark);
        if (mark)
            h->slot_mark = mark;
        if (!pose || !mark)
            return NULL;
        memset(mark + h->slot_cap, 0, (cap - h->slot_cap) * sizeof *mark);
        h->slot_cap = cap;
    }
    if (++h->mark == 0) { /* wrapped: clear the old marks */
        memset(h->slot_mark, 0, h->slot_cap * sizeof *h->slot_mark);
        for (size_t i = 0; i < h->gone_len; i++)
            h->gone[i].mark = 0;
        h->mark = 1;
    }
    /* Newest frame to the oldest at or after t: the earliest record of each body wins. A
     * body with a record at t has it in frame t; one without moved after t only from an open
     * record, so the frames after t are read for their open records only. */
    for (uint32_t i = h->frame_count; i-- > 0;) {
        const frame *f = frame_at(h, i);
        if (f->tick < t)
            break;
        /* One division a frame, none a record. */
        size_t at = (size_t)(f->first % h->rec_cap);
        for (size_t k = 0; k < f->count; k++, at = at + 1 == h->rec_cap ? 0 : at + 1) {
            if (f->tick > t && !h->opens[at])
                continue;
            sim_id id = h->ids[at];
            const float *p = &h->poses[at * (size_t)h->floats];
            uint32_t slot = sim_id_slot(id);
            if (slot < w->slot_count && w->bodies[slot].id == id) {
                memcpy(&h->slot_pose[slot * 7], p, (size_t)h->floats * sizeof(float));
                h->slot_mark[slot] = h->mark;
                continue;
            }
            for (size_t g = 0; g < h->gone_len; g++)
                if (h->gone[g].id == id) {
                    memcpy(h->gone[g].pose, p, (size_t)h->floats * sizeof(float));
                    h->gone[g].mark = h->mark;
                }
        }
    }
    const uint32_t *movers = w->movers.data;
    for (size_t i = 0; i < w->movers.len; i++) {
        uint32_t slot = movers[i];
        const sim_body *b = &w->bodies[slot];
        if (b->id == 0 || !sim_history_born_by(w, slot, t))
            continue;
        sim_qbody q;
        if (h->slot_mark[slot] == h->mark) {
            q = qbody_of(h, b->id, b->kind, &b->shape,
                         w->bodies3 ? &w->bodies3[slot].shape : NULL, &h->slot_pose[slot * 7]);
        } else {
            /* Not moved since t: where it is now, its bounds those after the last step. */
            q = (sim_qbody){b->id, b->kind, NULL, {{0, 0}, 0}, NULL, {{0, 0, 0}, {0, 0, 0, 1}},
                            ((const col_aabb3 *)w->shape_box.data)[slot], 0.0f};
            if (w->bodies3) {
                q.s3 = &w->bodies3[slot].shape;
                q.x3 = (col_xf3){w->bodies3[slot].pos, w->bodies3[slot].rot};
            } else {
                q.s2 = &b->shape;
                q.x2 = (col_xf2){b->pos, b->angle};
            }
        }
        if (!mk_vec_push(out, &q))
            return NULL;
    }
    for (size_t g = 0; g < h->gone_len; g++) {
        const gone_body *gb = &h->gone[g];
        if (gb->born > t || gb->removed < t || gb->mark != h->mark)
            continue;
        sim_qbody q = qbody_of(h, gb->id, gb->kind, &gb->s2, &gb->s3, gb->pose);
        if (!mk_vec_push(out, &q))
            return NULL;
    }
    /* Sorted on x as the broadphase's order is, so that a query reads only the bodies near
     * its box on x: small keys sorted, then the bodies laid out in their order. */
    if (!mk_vec_reserve(&h->order, out->len) || !mk_vec_reserve(&h->past, out->len))
        return NULL;
    const sim_qbody *qs = out->data;
    x_key *keys = h->order.data;
    h->past_widest = 0.0f;
    for (size_t i = 0; i < out->len; i++) {
        keys[i] = (x_key){qs[i].box.center.x - qs[i].box.half.x, (uint32_t)i};
        h->past_widest = qs[i].box.half.x > h->past_widest ? qs[i].box.half.x : h->past_widest;
    }
    qsort(keys, out->len, sizeof *keys, by_min_x);
    sim_qbody *sorted = h->past.data;
    for (size_t i = 0; i < out->len; i++)
        sorted[i] = qs[keys[i].index];
    h->past.len = out->len;
    out = &h->past;
    *widest = h->past_widest;
    h->past_valid = true;
    h->past_t = t;
    h->past_now = w->tick;
    h->past_changes = h->changes;
    return out;
}
