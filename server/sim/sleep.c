/* Sleeping, by islands as Box2D does it: bodies joined by contacts or joints (static and
 * kinematic ones do not join) form an island, and an island falls asleep when every body in it has been
 * nearly still for SIM_TIME_TO_SLEEP. Islands are found anew each step by union-find over the
 * step's contacts (Tarjan's disjoint sets, path halving). A sleeping body is not stepped, its
 * pairs with other sleeping or static bodies are not collided, and `state` leaves it out. The
 * bodies that fell asleep together are linked in a ring, so that waking one wakes them all:
 * their contacts were holding each other up. */
#include <math.h>

#include "history.h"
#include "sleep.h"
#include "world_internal.h"

#define SIM_TIME_TO_SLEEP 0.5f    /* s */
#define SIM_SLEEP_SPEED 0.05f     /* m/s: the fastest a point of a resting body may move */
/* m: how far from where they were when its rest began a resting body's points may be, however
 * fast they move meanwhile: no farther than a body creeping at the sleep speed goes before it
 * sleeps (Jolt's sleep test spheres). A box rocking by millimetres on a ridge between two
 * triangles, its points faster than the sleep speed now and then, rests. */
#define SIM_SLEEP_DRIFT (SIM_SLEEP_SPEED * SIM_TIME_TO_SLEEP)
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
    w->broad.pairs_dirty = true; /* its pairs with its island come back */
    do {
        sim_body *o = &w->slots.bodies.at[s];
        uint32_t next = o->sleep_next;
        if (o->id == w->islands.loaded_ring)
            w->islands.loaded_ring = 0; /* the saved world's sleepers are awake */
        o->sleeping = false;
        o->sleep_time = 0.0f;
        o->sleep_next = s;
        sim_history_note_woken(w, o);
        sim_events_note_woken(w, s);
        s = next;
    } while (s != start);
}

static bool joins_islands(const sim_body *b)
{
    return b->kind == SIM_DYNAMIC || b->kind == SIM_CHARACTER;
}

/* The fastest any point of the body moves: its speed plus its spin times the largest
 * distance of the shape's points from its centre of mass (bounded by its box); and in *drift,
 * the farthest any point of it is from where it was when its rest began: its origin's move
 * plus the chord of its turn at the largest distance of its points from the origin (a ball
 * rolling 1 cm moves its points 2 cm at most). */
static float point_speed(const sim_world *w, const sim_body *b, float *drift)
{
    if (w->cfg.dim == 3) {
        const sim_body3 *b3 = sim_part3(w, sim_id_slot(b->id));
        col_aabb3 box = col_shape3_bounds(&b3->shape, (col_xf3){mk_v3(0, 0, 0), b3->rot});
        float extent = mk_v3_len(box.half) + mk_v3_len(b3->local_center);
        float q = b3->rot.x * b3->rest_rot.x + b3->rot.y * b3->rest_rot.y +
                  b3->rot.z * b3->rest_rot.z + b3->rot.w * b3->rest_rot.w;
        float half_sin = sqrtf(mk_maxf(1.0f - q * q, 0.0f)); /* sin of half the turn */
        *drift = mk_v3_len(mk_v3_sub(b3->pos, b3->rest_pos)) +
                 2.0f * half_sin * (float)col_shape3_reach(&b3->shape);
        return mk_v3_len(b3->vel) + extent * mk_v3_len(b3->w);
    }
    col_aabb box =
        col_shape_bounds_q(&b->shape, (col_xf2){mk_v2(0.0f, 0.0f), 0.0f}, mk_v2(1.0f, 0.0f));
    float extent = mk_v2_len(box.half) + mk_v2_len(b->local_center);
    *drift = mk_v2_len(mk_v2_sub(b->pos, b->rest_pos)) +
             2.0f * fabsf(sinf(0.5f * (b->angle - b->rest_angle))) *
                 (mk_v2_len(box.half) + mk_v2_len(box.center));
    return mk_v2_len(b->vel) + extent * fabsf(b->w);
}

/* The body's rest begins where it is. */
static void note_rest(sim_world *w, sim_body *b)
{
    if (w->cfg.dim == 3) {
        sim_body3 *b3 = sim_part3(w, sim_id_slot(b->id));
        b3->rest_pos = b3->pos;
        b3->rest_rot = b3->rot;
    }
    b->rest_pos = b->pos;
    b->rest_angle = b->angle;
}

static void stop(sim_world *w, sim_body *b)
{
    if (w->cfg.dim == 3) {
        sim_body3 *b3 = sim_part3(w, sim_id_slot(b->id));
        b3->vel = mk_v3(0.0f, 0.0f, 0.0f);
        b3->w = mk_v3(0.0f, 0.0f, 0.0f);
    }
    b->vel = mk_v2(0.0f, 0.0f);
    b->w = 0.0f;
}

/* The slots of the two bodies of the step's i-th constraint (0 for a static or sleeping
 * one's solver body); false past the last. */
static bool constraint_slots(const sim_world *w, size_t i, uint32_t *a, uint32_t *b)
{
    if (w->cfg.dim == 3) {
        if (i >= w->d3.constraints.v.len)
            return false;
        const sim_constraint3 *c = &w->d3.constraints.at[i];
        const sim_solver_info3 *si = w->d3.solver_info.at;
        *a = c->a ? si[c->a].slot : UINT32_MAX;
        *b = c->b ? si[c->b].slot : UINT32_MAX;
        return true;
    }
    if (i >= w->d2.constraints.v.len)
        return false;
    const sim_constraint *c = &w->d2.constraints.at[i];
    const sim_solver_info *si = w->d2.solver_info.at;
    *a = c->a ? si[c->a].slot : UINT32_MAX;
    *b = c->b ? si[c->b].slot : UINT32_MAX;
    return true;
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

/* The bodies of a joint solved this step are one island (both awake: a joint's bodies sleep
 * and wake together). */
static void join_jointed(sim_world *w, uint32_t a, uint32_t b)
{
    if (!w->slots.bodies.at[a].sleeping && !w->slots.bodies.at[b].sleeping)
        join(w->islands.parent.at, w->islands.sleep.at, a, b);
}

void sim_sleep_islands(sim_world *w, float dt)
{
    uint32_t *parent = w->islands.parent.at, *ring = w->islands.ring.at;
    float *island_sleep = w->islands.sleep.at;
    const uint32_t *order = w->broad.order.at;
    size_t n = w->broad.order.v.len;

    for (size_t i = 0; i < n; i++) {
        uint32_t s = order[i];
        sim_body *b = &w->slots.bodies.at[s];
        parent[s] = s;
        ring[s] = SIM_NO_RING;
        if (b->sleeping || !joins_islands(b))
            continue;
        float drift, speed = point_speed(w, b, &drift);
        bool resting = speed <= SIM_SLEEP_SPEED ||
                       (b->sleep_time > 0.0f && drift <= SIM_SLEEP_DRIFT);
        if (resting && b->sleep_time == 0.0f)
            note_rest(w, b);
        b->sleep_time = resting ? b->sleep_time + dt : 0.0f;
        island_sleep[s] = b->sleep_time;
    }
    uint32_t sa, sb;
    for (size_t i = 0; constraint_slots(w, i, &sa, &sb); i++) {
        if (sa != UINT32_MAX && sb != UINT32_MAX && joins_islands(&w->slots.bodies.at[sa]) &&
            joins_islands(&w->slots.bodies.at[sb]))
            join(parent, island_sleep, sa, sb);
    }
    sim_joints_islands(w, join_jointed);
    for (size_t i = 0; i < n; i++) {
        uint32_t s = order[i];
        sim_body *b = &w->slots.bodies.at[s];
        if (b->sleeping || !joins_islands(b))
            continue;
        uint32_t root = find(parent, s);
        if (island_sleep[root] < SIM_TIME_TO_SLEEP)
            continue;
        b->sleeping = true;
        b->slept_at = w->tick;
        stop(w, b);
        w->broad.pairs_dirty = true; /* its pairs with its island leave the list */
        if (ring[root] == SIM_NO_RING) {
            ring[root] = s;
            b->sleep_next = s;
        } else {
            sim_body *head = &w->slots.bodies.at[ring[root]];
            b->sleep_next = head->sleep_next;
            head->sleep_next = s;
        }
    }
}

bool sim_world_put_to_sleep(sim_world *w, sim_id id)
{
    sim_body *b = sim_body_of(w, id);
    if (!b)
        return false;
    if (b->sleeping || !joins_islands(b))
        return true;
    uint32_t s = sim_id_slot(b->id);
    w->broad.pairs_dirty = true;
    b->sleeping = true;
    b->slept_at = w->tick;
    stop(w, b);
    sim_body *head = w->islands.loaded_ring ? sim_body_of(w, w->islands.loaded_ring) : NULL;
    if (!head || !head->sleeping) {
        w->islands.loaded_ring = b->id;
        b->sleep_next = s;
        return true;
    }
    b->sleep_next = head->sleep_next;
    head->sleep_next = s;
    return true;
}
