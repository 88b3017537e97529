/* Events: what happened in the world (contacts beginning and ending, hits, sensors, joints
 * breaking), kept until the caller clears them: the game's rules read them after each step,
 * and the server hands them to the clients that asked for them.
 *
 * Found as Box2D v3 finds its sensor events (sensor.c): each step makes the sorted list of the
 * body pairs that touch (from the narrowphase's contacts) and of the sensors' overlaps (a
 * query and an exact test per sensor), and walks it beside the last step's list: a pair only
 * in the new one began, a pair only in the old one ended. The lists are sorted by the slots of
 * the two bodies (a radix sort: a pile's few thousand contacts cost a few passes over them),
 * and the step's events then by type and ids, so that they come out in the same order
 * whatever the number of workers, whose narrowphase hands over its contacts in the pairs'
 * order. A pair of two bodies at rest is not collided (the narrowphase skips it): it keeps
 * touching as it was until one of them moves, as Box2D keeps a sleeping island's contacts. */
#include <stdlib.h>
#include <string.h>

#include "body_rules.h"
#include "level.h"
#include "world_internal.h"

bool sim_emit_event(sim_world *w, const sim_event *e) { return MK_VEC_PUSH(&w->events, *e); }

const sim_event *sim_world_events(const sim_world *w, size_t *n)
{
    *n = w->events.v.len;
    return w->events.at;
}

void sim_world_clear_events(sim_world *w) { w->events.v.len = 0; }

void sim_world_set_events(sim_world *w, bool on, float hit_speed)
{
    if (!on) {
        w->events.v.len = 0;
        w->ev.touching.v.len = 0;
        w->ev.sensed.v.len = 0;
    }
    w->cfg.events = on;
    w->cfg.hit_speed = hit_speed;
}

#define KEY_LO(k) ((uint32_t)((k) >> 24))
#define KEY_HI(k) ((uint32_t)((k) & SIM_MAX_BODIES))

/* The tick an event made now carries: a step's is the tick it ends at. */
static uint64_t tick_now(const sim_world *w) { return w->ev.stepping ? w->tick + 1 : w->tick; }

static sim_id id_at(const sim_world *w, uint32_t slot) { return w->slots.bodies.at[slot].id; }

/* An event of two bodies, a contact's with the lower id first. Out of memory it is lost. */
static void emit(sim_world *w, sim_event_type type, uint64_t tick, sim_id a, sim_id b)
{
    if ((type == SIM_EVENT_CONTACT_BEGIN || type == SIM_EVENT_CONTACT_END) && a > b) {
        sim_id t = a;
        a = b;
        b = t;
    }
    sim_event e = {.type = type, .tick = tick, .a = a, .b = b};
    sim_emit_event(w, &e);
}

static int by_type_then_ids(const void *pa, const void *pb)
{
    const sim_event *p = pa, *q = pb;
    if (p->type != q->type)
        return p->type < q->type ? -1 : 1;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

/* Sorts the events from `first` on by type, then ids (each pair is there once a type). */
static void sort_events(sim_world *w, size_t first)
{
    if (w->events.v.len > first + 1)
        qsort(w->events.at + first, w->events.v.len - first, sizeof(sim_event), by_type_then_ids);
}

/* ---- sorting keys ---- */

#define RADIX_BITS 12
#define RADIX_PASSES 4 /* 48 bits: two slots of 24 */
#define RADIX_MIN 256  /* fewer keys are sorted by qsort */

static int by_key(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

/* Sorts ev.next into ev.sorted (a least significant digit radix sort, one count of every digit
 * in one pass and then a pass a digit); false when memory ran out. */
static bool sort_next(sim_world *w)
{
    sim_event_state *ev = &w->ev;
    size_t n = ev->next.v.len;
    if (!mk_vec_resize(&ev->sorted.v, n))
        return false;
    if (n == 0)
        return true; /* both lists may be unallocated: memcpy takes no NULL even for 0 bytes */
    if (n < RADIX_MIN) {
        if (n > 0) /* an empty vec's array may be NULL, which memcpy must not get */
            memcpy(ev->sorted.at, ev->next.at, n * sizeof(uint64_t));
        if (n > 1)
            qsort(ev->sorted.at, n, sizeof(uint64_t), by_key);
        return true;
    }
    const size_t buckets = (size_t)1 << RADIX_BITS;
    if (!mk_vec_resize(&ev->counts.v, RADIX_PASSES * buckets))
        return false;
    uint32_t *count = ev->counts.at;
    memset(count, 0, RADIX_PASSES * buckets * sizeof *count);
    for (size_t i = 0; i < n; i++)
        for (int p = 0; p < RADIX_PASSES; p++)
            count[p * buckets + ((ev->next.at[i] >> (p * RADIX_BITS)) & (buckets - 1))]++;
    uint64_t *from = ev->next.at, *to = ev->sorted.at;
    for (int p = 0; p < RADIX_PASSES; p++) {
        uint32_t *c = count + p * buckets, sum = 0;
        for (size_t d = 0; d < buckets; d++) {
            uint32_t k = c[d];
            c[d] = sum;
            sum += k;
        }
        for (size_t i = 0; i < n; i++)
            to[c[(from[i] >> (p * RADIX_BITS)) & (buckets - 1)]++] = from[i];
        uint64_t *t = from;
        from = to;
        to = t;
    }
    /* An even number of passes leaves the keys where they started. */
    memcpy(ev->sorted.at, from, n * sizeof(uint64_t));
    return true;
}

/* ---- contacts ---- */

static bool is_woken(const sim_world *w, uint32_t slot)
{
    size_t n = w->ev.woken.v.len, at = sim_slots_lower_bound(w->ev.woken.at, n, slot);
    return at < n && w->ev.woken.at[at] == slot;
}

/* Whether a body stood still through the step, so that the narrowphase may have left its
 * pairs alone: it is static, or it slept through the step (not fallen asleep in it). *woken:
 * it slept until the narrowphase's pass woke it (it did not move either: it takes that step as
 * if static). */
static bool stood_still(const sim_world *w, uint32_t slot, bool *woken)
{
    const sim_body *b = &w->slots.bodies.at[slot];
    if (b->kind == SIM_STATIC || (b->sleeping && b->slept_at + 1 != w->tick))
        return true;
    *woken = *woken || is_woken(w, slot);
    return is_woken(w, slot);
}

static bool shapes_touch(const sim_world *w, uint32_t a, uint32_t b, float within);

/* Whether an old pair that is not among the step's contacts still touches: both its bodies
 * stood still (the narrowphase skipped a pair of two such, whose touching cannot have
 * changed), and when the pass woke one of them, they touch where they stand. */
static bool still_touching(const sim_world *w, uint64_t key)
{
    bool woken = false;
    if (!stood_still(w, KEY_LO(key), &woken) || !stood_still(w, KEY_HI(key), &woken))
        return false;
    return !woken || shapes_touch(w, KEY_LO(key), KEY_HI(key), SIM_TOUCHING);
}

static int by_slot(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return (a > b) - (a < b);
}

/* The keys of the step's contacts (both dimensions' start with the two ids) into ev.next. */
static bool contact_keys(sim_world *w)
{
    size_t n, size;
    const unsigned char *c;
    if (w->cfg.dim == 3) {
        c = (const unsigned char *)sim_world_contacts3(w, &n);
        size = sizeof(sim_contact3);
    } else {
        c = (const unsigned char *)sim_world_contacts2(w, &n);
        size = sizeof(sim_contact2);
    }
    if (!mk_vec_resize(&w->ev.next.v, n))
        return false;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        sim_id ids[2];
        memcpy(ids, c + i * size, sizeof ids);
        /* A body the step removed (the world's bounds) ended its pairs as it went. */
        if (!sim_world_get(w, ids[0]) || !sim_world_get(w, ids[1]))
            continue;
        uint32_t a = sim_id_slot(ids[0]), b = sim_id_slot(ids[1]);
        w->ev.next.at[k++] = a < b ? SIM_TOUCH_KEY(a, b) : SIM_TOUCH_KEY(b, a);
    }
    w->ev.next.v.len = k;
    return true;
}

/* Walks the sorted new list (ev.sorted) beside the old one into ev.merged: a pair only in the
 * new one began; one only in the old one ended, unless `carry` and both its bodies stood still
 * (then it keeps touching). Then the merge is the list. */
static void merge(sim_world *w, mk_vec *list, sim_event_type begin, sim_event_type end,
                  bool carry)
{
    sim_event_state *ev = &w->ev;
    uint64_t *now = ev->sorted.at;
    size_t n_now = 0;
    for (size_t j = 0; j < ev->sorted.v.len; j++) /* a pair met again: one of its children */
        if (n_now == 0 || now[n_now - 1] != now[j])
            now[n_now++] = now[j];
    const uint64_t *old = list->data;
    size_t n_old = list->len, i = 0, j = 0, k = 0;
    if (!mk_vec_resize(&ev->merged.v, n_old + n_now))
        return; /* out of memory: nothing changes this step */
    uint64_t *out = ev->merged.at;
    while (i < n_old || j < n_now) {
        if (j == n_now || (i < n_old && old[i] < now[j])) {
            uint64_t key = old[i++];
            if (carry && still_touching(w, key))
                out[k++] = key;
            else
                emit(w, end, w->tick, id_at(w, KEY_LO(key)), id_at(w, KEY_HI(key)));
        } else if (i == n_old || now[j] < old[i]) {
            uint64_t key = now[j++];
            out[k++] = key;
            emit(w, begin, w->tick, id_at(w, KEY_LO(key)), id_at(w, KEY_HI(key)));
        } else {
            out[k++] = old[i++];
            j++;
        }
    }
    ev->merged.v.len = k;
    mk_vec t = *list;
    *list = ev->merged.v;
    ev->merged.v = t;
}

static void contacts_after_step(sim_world *w)
{
    if (w->ev.woken.v.len > 1)
        qsort(w->ev.woken.at, w->ev.woken.v.len, sizeof(uint32_t), by_slot);
    if (contact_keys(w) && sort_next(w))
        merge(w, &w->ev.touching.v, SIM_EVENT_CONTACT_BEGIN, SIM_EVENT_CONTACT_END, true);
}

/* ---- hits ---- */

static int by_pair(const void *pa, const void *pb)
{
    const sim_hit_note *p = pa, *q = pb;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

/* The step's hits, the fastest of each pair (a swept impact and a contact of the same pair). */
static void hits_after_step(sim_world *w)
{
    sim_hit_note *h = w->ev.hits.at;
    size_t n = w->ev.hits.v.len;
    if (n > 1)
        qsort(h, n, sizeof *h, by_pair);
    for (size_t i = 0; i < n;) {
        size_t best = i, j = i + 1;
        for (; j < n && h[j].a == h[i].a && h[j].b == h[i].b; j++)
            if (h[j].speed > h[best].speed)
                best = j;
        sim_event e = {SIM_EVENT_HIT,   w->tick,          h[best].a, h[best].b,
                       h[best].point,   h[best].normal,   h[best].speed};
        sim_emit_event(w, &e);
        i = j;
    }
}

/* ---- sensors ---- */

/* Whether the shapes of two slots' bodies overlap or are at most `within` apart, where they
 * are now. */
static bool shapes_touch(const sim_world *w, uint32_t a, uint32_t b, float within)
{
    /* A level is never a sensor (sim_world_add refuses it): its pieces against the sensor. */
    const sim_body *la = &w->slots.bodies.at[a], *lb = &w->slots.bodies.at[b];
    if (la->level || lb->level) {
        const sim_body *level = la->level ? la : lb, *other = la->level ? lb : la;
        return w->cfg.dim == 3 ? sim_level_overlaps3(w, level, other, within)
                               : sim_level_overlaps2(w, level, other, within);
    }
    if (w->cfg.dim == 3) {
        const sim_body3 *pa = sim_part3(w, a), *pb = sim_part3(w, b);
        col_manifold3 m = col_collide3(&pa->shape, (col_xf3){pa->pos, pa->rot}, &pb->shape,
                                       (col_xf3){pb->pos, pb->rot});
        return m.count > 0 || m.distance <= within;
    }
    const sim_body *pa = &w->slots.bodies.at[a], *pb = &w->slots.bodies.at[b];
    col_manifold2 m = col_collide2(&pa->shape, (col_xf2){pa->pos, pa->angle}, &pb->shape,
                                   (col_xf2){pb->pos, pb->angle});
    return m.count > 0 || m.distance <= within;
}

/* Each sensor's overlaps now, by a query of its bounds and an exact test of each body found. */
static bool sensor_keys(sim_world *w)
{
    w->ev.next.v.len = 0;
    const col_aabb3 *shape_box = w->broad.shape_box.at;
    for (size_t i = 0; i < w->ev.sensors.v.len; i++) {
        uint32_t s = w->ev.sensors.at[i];
        col_aabb3 box = shape_box[s];
        if (!sim_query_box(w, &box, true))
            return false;
        for (size_t k = 0; k < w->broad.hits.v.len; k++) {
            uint32_t o = w->broad.hits.at[k];
            if (o == s || !sim_sensor_sees(w, s, o) || !sim_aabb3_overlap(&box, &shape_box[o]) ||
                !shapes_touch(w, s, o, 0.0f))
                continue;
            if (!MK_VEC_PUSH(&w->ev.next, SIM_TOUCH_KEY(s, o)))
                return false;
        }
    }
    return true;
}

static void sensors_after_step(sim_world *w)
{
    if (w->ev.sensors.v.len == 0 && w->ev.sensed.v.len == 0)
        return;
    if (sensor_keys(w) && sort_next(w))
        merge(w, &w->ev.sensed.v, SIM_EVENT_SENSOR_BEGIN, SIM_EVENT_SENSOR_END, false);
}

/* ---- the step ---- */

void sim_events_before_step(sim_world *w)
{
    if (!w->cfg.events)
        return;
    w->ev.step_first = w->events.v.len;
    w->ev.stepping = true;
    w->ev.hits.v.len = 0;
    w->ev.woken.v.len = 0;
}

void sim_events_after_step(sim_world *w)
{
    if (!w->cfg.events)
        return;
    contacts_after_step(w);
    hits_after_step(w);
    sensors_after_step(w);
    sort_events(w, w->ev.step_first);
    w->ev.stepping = false;
}

void sim_events_note_woken(sim_world *w, uint32_t s)
{
    if (w->ev.in_collide)
        MK_VEC_PUSH(&w->ev.woken, s); /* out of memory: its pairs may end and begin again */
}

/* ---- bodies coming and going ---- */

size_t sim_slots_lower_bound(const uint32_t *list, size_t n, uint32_t slot)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (list[mid] < slot)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void sim_slots_insert(uint32_t *list, size_t *n, uint32_t slot)
{
    size_t at = *n > 0 && list[*n - 1] > slot ? sim_slots_lower_bound(list, *n, slot) : *n;
    memmove(list + at + 1, list + at, (*n - at) * sizeof *list);
    list[at] = slot;
    (*n)++;
}

void sim_events_body_added(sim_world *w, uint32_t s)
{
    sim_slots_insert(w->ev.sensors.at, &w->ev.sensors.v.len, s);
}

/* Takes the pairs of slot s out of a list, ending each. */
static void end_pairs_of(sim_world *w, mk_vec *list, uint32_t s, sim_event_type end)
{
    uint64_t *keys = list->data;
    size_t k = 0;
    uint64_t tick = tick_now(w);
    for (size_t i = 0; i < list->len; i++) {
        uint32_t a = KEY_LO(keys[i]), b = KEY_HI(keys[i]);
        if (a == s || b == s)
            emit(w, end, tick, id_at(w, a), id_at(w, b));
        else
            keys[k++] = keys[i];
    }
    list->len = k;
}

void sim_events_body_removed(sim_world *w, const sim_body *b)
{
    uint32_t s = sim_id_slot(b->id);
    if (sim_body_is_sensor(w, b)) {
        uint32_t *list = w->ev.sensors.at;
        size_t n = w->ev.sensors.v.len, k = 0;
        for (size_t i = 0; i < n; i++)
            if (list[i] != s)
                list[k++] = list[i];
        w->ev.sensors.v.len = k;
    }
    if (!w->cfg.events)
        return;
    size_t first = w->events.v.len;
    end_pairs_of(w, &w->ev.touching.v, s, SIM_EVENT_CONTACT_END);
    end_pairs_of(w, &w->ev.sensed.v, s, SIM_EVENT_SENSOR_END);
    /* Within a step the step's own sort orders them with the rest. */
    if (!w->ev.stepping)
        sort_events(w, first);
}

/* ---- an image's lists ---- */

/* Each key names two live bodies (a sensor first in `sensed`), the list increasing. */
static const char *keys_ok(const sim_world *w, const mk_vec *list, bool sensed)
{
    const uint64_t *keys = list->data;
    size_t slots = sim_slot_count(w);
    for (size_t i = 0; i < list->len; i++) {
        uint32_t a = KEY_LO(keys[i]), b = KEY_HI(keys[i]);
        if ((keys[i] >> 48) != 0 || a >= slots || b >= slots || id_at(w, a) == 0 ||
            id_at(w, b) == 0 || a == b || (i > 0 && keys[i - 1] >= keys[i]))
            return sensed ? "a sensor's overlap" : "a touching pair";
        if (sensed ? !w->filter.slots.at[a].sensor : a > b)
            return sensed ? "a sensor's overlap" : "a touching pair";
    }
    return NULL;
}

const char *sim_events_check(const sim_world *w)
{
    const uint32_t *list = w->ev.sensors.at;
    size_t sensors = 0;
    for (size_t i = 0; i < sim_slot_count(w); i++)
        sensors += id_at(w, (uint32_t)i) != 0 && w->filter.slots.at[i].sensor;
    if (sensors != w->ev.sensors.v.len)
        return "the sensors' list";
    for (size_t i = 0; i < w->ev.sensors.v.len; i++)
        if (list[i] >= sim_slot_count(w) || id_at(w, list[i]) == 0 ||
            !w->filter.slots.at[list[i]].sensor || (i > 0 && list[i - 1] >= list[i]))
            return "the sensors' list";
    const char *bad = keys_ok(w, &w->ev.touching.v, false);
    return bad ? bad : keys_ok(w, &w->ev.sensed.v, true);
}
