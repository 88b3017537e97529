/* Sleeping, by islands as Box2D does it: bodies joined by contacts (static and kinematic ones
 * do not join) form an island, and an island falls asleep when every body in it has been
 * nearly still for SIM_TIME_TO_SLEEP. Islands are found anew each step by union-find over the
 * step's contacts (Tarjan's disjoint sets, path halving). A sleeping body is not stepped, its
 * pairs with other sleeping or static bodies are not collided, and `state` leaves it out. The
 * bodies that fell asleep together are linked in a ring, so that waking one wakes them all:
 * their contacts were holding each other up. */
#include <math.h>

#include "world_internal.h"

#define SIM_TIME_TO_SLEEP 0.5f    /* s */
#define SIM_SLEEP_SPEED 0.05f     /* m/s: the fastest a point of a resting body may move */
#define SIM_NO_RING UINT32_MAX

static uint32_t find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

void sim_wake(sim_world *w, sim_body *b)
{
    if (!b->sleeping) {
        b->sleep_time = 0.0f;
        return;
    }
    uint32_t start = sim_id_slot(b->id), s = start;
    w->pairs_dirty = true; /* its pairs with its island come back */
    do {
        sim_body *o = &w->bodies[s];
        uint32_t next = o->sleep_next;
        if (o->id == w->loaded_ring)
            w->loaded_ring = 0; /* the saved world's sleepers are awake */
        o->sleeping = false;
        o->sleep_time = 0.0f;
        o->sleep_next = s;
        s = next;
    } while (s != start);
}

static bool joins_islands(const sim_body *b)
{
    return b->kind == SIM_DYNAMIC || b->kind == SIM_CHARACTER;
}

/* The largest distance of the shape's points from its centre of mass, m. */
static float extent(const sim_body *b)
{
    col_aabb box = col_shape_bounds(&b->shape, (col_xf2){mk_v2(0.0f, 0.0f), 0.0f});
    return mk_v2_len(box.half) + mk_v2_len(b->local_center);
}

static void join(uint32_t *parent, float *island_sleep, uint32_t a, uint32_t b)
{
    a = find(parent, a);
    b = find(parent, b);
    if (a == b)
        return;
    if (a > b) { /* the lower slot is the root: the same islands whatever the contact order */
        uint32_t t = a;
        a = b;
        b = t;
    }
    parent[b] = a;
    island_sleep[a] = mk_minf(island_sleep[a], island_sleep[b]);
}

void sim_sleep_islands(sim_world *w, float dt)
{
    uint32_t *parent = w->island, *ring = w->ring;
    float *island_sleep = w->island_sleep;
    const uint32_t *order = w->order.data;
    size_t n = w->order.len;

    for (size_t i = 0; i < n; i++) {
        uint32_t s = order[i];
        sim_body *b = &w->bodies[s];
        parent[s] = s;
        ring[s] = SIM_NO_RING;
        if (b->sleeping || !joins_islands(b))
            continue;
        float speed = mk_v2_len(b->vel) + extent(b) * fabsf(b->w);
        b->sleep_time = speed > SIM_SLEEP_SPEED ? 0.0f : b->sleep_time + dt;
        island_sleep[s] = b->sleep_time;
    }
    const sim_constraint *cs = w->constraints.data;
    const sim_solver_info *sb = w->solver_info.data;
    for (size_t i = 0; i < w->constraints.len; i++) {
        uint32_t a = sb[cs[i].a].slot, b = sb[cs[i].b].slot;
        if (cs[i].a != 0 && cs[i].b != 0 && joins_islands(&w->bodies[a]) &&
            joins_islands(&w->bodies[b]))
            join(parent, island_sleep, a, b);
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t s = order[i];
        sim_body *b = &w->bodies[s];
        if (b->sleeping || !joins_islands(b))
            continue;
        uint32_t root = find(parent, s);
        if (island_sleep[root] < SIM_TIME_TO_SLEEP)
            continue;
        b->sleeping = true;
        b->slept_at = w->tick;
        b->vel = mk_v2(0.0f, 0.0f);
        b->w = 0.0f;
        w->pairs_dirty = true; /* its pairs with its island leave the list */
        if (ring[root] == SIM_NO_RING) {
            ring[root] = s;
            b->sleep_next = s;
        } else {
            sim_body *head = &w->bodies[ring[root]];
            b->sleep_next = head->sleep_next;
            head->sleep_next = s;
        }
    }
}

void sim_world_put_to_sleep(sim_world *w, sim_body *b)
{
    if (b->sleeping || !joins_islands(b))
        return;
    uint32_t s = sim_id_slot(b->id);
    w->pairs_dirty = true;
    b->sleeping = true;
    b->slept_at = w->tick;
    b->vel = mk_v2(0.0f, 0.0f);
    b->w = 0.0f;
    sim_body *head = w->loaded_ring ? sim_world_get(w, w->loaded_ring) : NULL;
    if (!head || !head->sleeping) {
        w->loaded_ring = b->id;
        b->sleep_next = s;
        return;
    }
    b->sleep_next = head->sleep_next;
    head->sleep_next = s;
}
