/* Joints: bodies held together (Box2D v3's joint.c, Jolt's constraints). The store is the body
 * pool's design (world.c): slots addressed by ids with a generation, a removed joint's slot
 * given out again only after sim_world_clear_removed, so that a stale id from the network
 * never reaches another joint. Each joint is an edge of two doubly linked lists, one per body
 * (Box2D's joint edges), so that a body's joints are found without a search: to remove them
 * with it, to keep the pairs they hold apart out of the broadphase, to wake the body held.
 *
 * In the step, joints are solved with the contacts (solver.c calls sim_joints_prepare, then
 * sim_joints_pass in each stage before the contacts', as Box2D v3's solver.c stages joints
 * before contacts, then sim_joints_finish): the joints with a body that moves get a row each
 * (joint_rows.c), are colored as the contacts are (graph_color.c's greedy coloring, into
 * arrays of their own) and each color's rows run on the workers; rows with no color follow
 * one by one. Bodies held by a joint are one island (sleep.c), so they sleep and wake
 * together. */
#include <math.h>
#include <string.h>

#include "joint.h"
#include "world_internal.h"

#define SIM_JOINT_GRAIN 64 /* rows a worker takes at least at once */
#define SIM_NO_SLOT UINT32_MAX
#define SIM_GENERATIONS (1u << 29) /* as bodies': ids stay below 2^53 */

static const char *const type_names[SIM_JOINT_TYPE_COUNT] = {
    [SIM_JOINT_REVOLUTE] = "revolute",   [SIM_JOINT_HINGE] = "hinge",
    [SIM_JOINT_PRISMATIC] = "prismatic", [SIM_JOINT_DISTANCE] = "distance",
    [SIM_JOINT_WELD] = "weld",           [SIM_JOINT_SPHERICAL] = "spherical",
    [SIM_JOINT_WHEEL] = "wheel",
};

bool sim_joint_type_in(sim_joint_type type, int dim)
{
    switch (type) {
    case SIM_JOINT_REVOLUTE:
    case SIM_JOINT_WHEEL:
        return dim == 2;
    case SIM_JOINT_HINGE:
    case SIM_JOINT_SPHERICAL:
        return dim == 3;
    case SIM_JOINT_PRISMATIC:
    case SIM_JOINT_DISTANCE:
    case SIM_JOINT_WELD:
        return true;
    default:
        return false;
    }
}

/* Types whose free axis is a turn (its limits are angles) and types with an axis. */
static bool turns(sim_joint_type t)
{
    return t == SIM_JOINT_REVOLUTE || t == SIM_JOINT_HINGE;
}
static bool has_axis(const sim_joint_def *d)
{
    return d->type == SIM_JOINT_HINGE || d->type == SIM_JOINT_PRISMATIC ||
           d->type == SIM_JOINT_WHEEL || (d->type == SIM_JOINT_SPHERICAL && d->cone > 0.0f);
}

/* ---- checking a definition ---- */

static bool finite3(mk_vec3 v)
{
    return mk_v3_finite(v);
}

static int check_spring(float hz, float damping, const char *name, mk_error *err)
{
    if (!(isfinite(hz) && hz >= 0.0f) || !(isfinite(damping) && damping >= 0.0f))
        return mk_fail(err, MK_ERR_INVALID, "%s: hz and damping must be finite and not negative",
                       name);
    return 0;
}

/* Every field the type reads, named as the protocol names it. */
static int check_def(const sim_world *w, const sim_joint_def *d, mk_error *err)
{
    int dim = w->cfg.dim;
    if ((unsigned)d->type >= SIM_JOINT_TYPE_COUNT)
        return mk_fail(err, MK_ERR_INVALID, "type: not a joint type");
    if (!sim_joint_type_in(d->type, dim))
        return mk_fail(err, MK_ERR_INVALID, "type: a %dD world has no %s joints (%s)", dim,
                       type_names[d->type],
                       dim == 2 ? "revolute, prismatic, distance, weld, wheel"
                                : "hinge, prismatic, distance, weld, spherical");
    const sim_body *a = sim_world_get(w, d->a), *b = d->b ? sim_world_get(w, d->b) : NULL;
    if (!a)
        return mk_fail(err, MK_ERR_INVALID, "a: no body %llu", (unsigned long long)d->a);
    if (d->b && !b)
        return mk_fail(err, MK_ERR_INVALID, "b: no body %llu", (unsigned long long)d->b);
    if (d->b == d->a)
        return mk_fail(err, MK_ERR_INVALID, "b: the same body as a (%llu)",
                       (unsigned long long)d->a);
    bool two = d->type == SIM_JOINT_DISTANCE;
    if (!d->framed && !finite3(d->anchor_a))
        return mk_fail(err, MK_ERR_INVALID, "%s: must be finite", two ? "anchor_a" : "anchor");
    if (!d->framed && two && !finite3(d->anchor_b))
        return mk_fail(err, MK_ERR_INVALID, "anchor_b: must be finite");
    mk_vec3 axis = dim == 2 ? mk_v3(d->axis.x, d->axis.y, 0.0f) : d->axis;
    if (!d->framed && has_axis(d) && !(finite3(axis) && mk_v3_len(axis) > 1e-6f))
        return mk_fail(err, MK_ERR_INVALID, "axis: must be a finite vector that is not zero");
    if (d->framed) {
        mk_quat q;
        if (!finite3(d->local_a) || !finite3(d->local_b) ||
            !mk_quat_normalize_checked(d->frame_a, &q) ||
            !mk_quat_normalize_checked(d->frame_b, &q))
            return mk_fail(err, MK_ERR_INVALID, "frame: anchors and frames must be finite");
    }
    if (d->limit) {
        if (!isfinite(d->lower) || !isfinite(d->upper))
            return mk_fail(err, MK_ERR_INVALID, "limits: must be finite");
        if (d->lower > d->upper)
            return mk_fail(err, MK_ERR_INVALID, "limits: the lower (%g) is above the upper (%g)",
                           (double)d->lower, (double)d->upper);
        if (turns(d->type) && (d->lower < -3.14159265f || d->upper > 3.14159265f))
            return mk_fail(err, MK_ERR_INVALID, "limits: angles lie in [-pi, pi] rad");
    }
    if (d->motor &&
        (!isfinite(d->motor_speed) || !(isfinite(d->max_motor) && d->max_motor >= 0.0f)))
        return mk_fail(err, MK_ERR_INVALID,
                       "motor: the speed must be finite and the most force or torque finite "
                       "and not negative");
    if (check_spring(d->spring_hz, d->spring_damping, "spring", err) ||
        check_spring(d->linear_hz, d->linear_damping, "linear_spring", err))
        return -1;
    if (two) {
        if (!(isfinite(d->length) && d->length >= 0.0f))
            return mk_fail(err, MK_ERR_INVALID, "length: must be finite and not negative");
        if (!(isfinite(d->min_length) && d->min_length >= 0.0f))
            return mk_fail(err, MK_ERR_INVALID, "min_length: must be finite and not negative");
        if (!(isfinite(d->max_length) && d->max_length >= d->min_length))
            return mk_fail(err, MK_ERR_INVALID,
                           "max_length: must be finite and not below min_length");
    }
    if (d->type == SIM_JOINT_SPHERICAL && !(d->cone >= 0.0f && d->cone <= 3.14159265f))
        return mk_fail(err, MK_ERR_INVALID, "cone: must be in [0, pi] rad");
    if (!(d->break_force >= 0.0f))
        return mk_fail(err, MK_ERR_INVALID, "break_force: must not be negative");
    return 0;
}

/* ---- the joint's frames from a world definition ---- */

/* The rotation that takes x to the unit vector a (the shortest arc). */
static mk_quat arc_from_x(mk_vec3 a)
{
    if (a.x < -0.999999f)
        return (mk_quat){0.0f, 1.0f, 0.0f, 0.0f}; /* half a turn about y */
    mk_quat q = {0.0f, -a.z, a.y, 1.0f + a.x}, out;
    return mk_quat_normalize_checked(q, &out) ? out : mk_quat_identity();
}

/* A body's placement (the world's: the origin, unturned), as a 3D rotation. */
static void placement(const sim_world *w, sim_id id, mk_vec3 *pos, mk_quat *rot)
{
    const sim_body *b = id ? sim_world_get(w, id) : NULL;
    *pos = mk_v3(0.0f, 0.0f, 0.0f);
    *rot = mk_quat_identity();
    if (!b)
        return;
    if (w->cfg.dim == 3) {
        const sim_body3 *b3 = sim_body3_of(w, b);
        *pos = b3->pos;
        *rot = b3->rot;
        return;
    }
    *pos = mk_v3(b->pos.x, b->pos.y, 0.0f);
    *rot = mk_quat_axis_angle(mk_v3(0.0f, 0.0f, 1.0f), b->angle);
}

/* A 2D frame as the joint keeps it: (cos, sin) of its turn about z in x and y. */
static mk_quat frame2_of(mk_quat q)
{
    float angle = 2.0f * atan2f(q.z, q.w);
    return (mk_quat){cosf(angle), sinf(angle), 0.0f, 0.0f};
}

static void set_frames(const sim_world *w, const sim_joint_def *d, sim_joint *j)
{
    bool is2 = w->cfg.dim == 2;
    if (d->framed) {
        mk_quat fa, fb;
        mk_quat_normalize_checked(d->frame_a, &fa);
        mk_quat_normalize_checked(d->frame_b, &fb);
        j->local_a = d->local_a;
        j->local_b = d->local_b;
        j->frame_a = is2 ? frame2_of(fa) : fa;
        j->frame_b = is2 ? frame2_of(fb) : fb;
    } else {
        mk_vec3 pa, pb;
        mk_quat qa, qb;
        placement(w, d->a, &pa, &qa);
        placement(w, d->b, &pb, &qb);
        mk_vec3 anchor_b = d->type == SIM_JOINT_DISTANCE ? d->anchor_b : d->anchor_a;
        mk_vec3 axis = is2 ? mk_v3(d->axis.x, d->axis.y, 0.0f) : d->axis;
        mk_quat f = has_axis(d) ? arc_from_x(mk_v3_norm(axis)) : mk_quat_identity();
        j->local_a = mk_quat_unrotate(qa, mk_v3_sub(d->anchor_a, pa));
        j->local_b = mk_quat_unrotate(qb, mk_v3_sub(anchor_b, pb));
        mk_quat fa = mk_quat_mul(mk_quat_conj(qa), f), fb = mk_quat_mul(mk_quat_conj(qb), f);
        j->frame_a = is2 ? frame2_of(fa) : fa;
        j->frame_b = is2 ? frame2_of(fb) : fb;
    }
    if (is2) {
        j->local_a.z = 0.0f;
        j->local_b.z = 0.0f;
    }
}

static void set_params(const sim_joint_def *d, sim_joint *j)
{
    j->type = d->type;
    j->collide = d->collide;
    j->limit = d->limit;
    j->motor = d->motor;
    j->lower = d->limit ? d->lower : 0.0f;
    j->upper = d->limit ? d->upper : 0.0f;
    j->motor_speed = d->motor ? d->motor_speed : 0.0f;
    j->max_motor = d->motor ? d->max_motor : 0.0f;
    j->spring_hz = d->spring_hz;
    j->spring_damping = d->spring_damping;
    j->linear_hz = d->linear_hz;
    j->linear_damping = d->linear_damping;
    j->cone = d->type == SIM_JOINT_SPHERICAL ? d->cone : 0.0f;
    j->break_force = d->break_force > 0.0f ? d->break_force : INFINITY;
    if (d->type == SIM_JOINT_DISTANCE) {
        /* Rigid without a spring and a range; otherwise a spring toward `length` within the
         * range, its ends the free axis's limits (the axis counts from the length). */
        j->min_length = d->min_length;
        j->max_length = d->max_length;
        j->rigid = d->spring_hz == 0.0f && d->min_length == d->max_length;
        j->length = j->rigid ? d->min_length : mk_clampf(d->length, d->min_length, d->max_length);
        j->limit = !j->rigid;
        j->lower = d->min_length - j->length;
        j->upper = d->max_length - j->length;
    }
    if (j->type == SIM_JOINT_SPHERICAL)
        j->limit = j->cone > 0.0f;
}

/* ---- the store ---- */

/* Puts edge `key` (2 * joint slot + side) at the head of body slot `body`'s list. */
static void link_edge(sim_joints *js, uint32_t body, uint32_t key, uint32_t other, bool apart)
{
    uint32_t head = js->body_head.at[body];
    js->edges.at[key] = (sim_joint_edge){head, 0, other, apart};
    if (head)
        js->edges.at[head - 1].prev = key + 1;
    js->body_head.at[body] = key + 1;
}

static void unlink_edge(sim_joints *js, uint32_t body, uint32_t key)
{
    const sim_joint_edge *e = &js->edges.at[key];
    if (e->prev)
        js->edges.at[e->prev - 1].next = e->next;
    else
        js->body_head.at[body] = e->next;
    if (e->next)
        js->edges.at[e->next - 1].prev = e->prev;
}

static bool joins_islands(const sim_body *b)
{
    return b && (b->kind == SIM_DYNAMIC || b->kind == SIM_CHARACTER);
}

static void count(sim_joints *js, const sim_joint *j, int by)
{
    js->live = (size_t)((long long)js->live + by);
    if (j->kinds & JOINT_KINEMATIC)
        js->kinematic = (uint32_t)((int)js->kinematic + by);
    if (j->kinds & JOINT_BREAKS)
        js->breaking = (uint32_t)((int)js->breaking + by);
}

/* Fills free slot `slot` (its generation set) from a checked definition. */
static sim_id place(sim_world *w, const sim_joint_def *d, uint32_t owner, uint32_t slot)
{
    sim_joints *js = &w->joints;
    sim_joint *j = &js->items.at[slot];
    uint32_t generation = j->generation;
    memset(j, 0, sizeof *j);
    j->generation = generation;
    j->id = ((sim_id)generation << SIM_SLOT_BITS) | (sim_id)(slot + 1);
    j->owner = owner;
    j->a = d->a;
    j->b = d->b;
    const sim_body *a = sim_world_get(w, d->a), *b = d->b ? sim_world_get(w, d->b) : NULL;
    j->slot_a = sim_id_slot(d->a);
    j->slot_b = b ? sim_id_slot(d->b) : SIM_NO_SLOT;
    set_params(d, j);
    set_frames(w, d, j);
    j->kinds = (uint8_t)((joins_islands(a) && joins_islands(b) ? JOINT_ISLAND : 0) |
                         (a->kind == SIM_KINEMATIC || (b && b->kind == SIM_KINEMATIC)
                              ? JOINT_KINEMATIC
                              : 0) |
                         (isfinite(j->break_force) ? JOINT_BREAKS : 0));
    link_edge(js, j->slot_a, 2 * slot, j->slot_b, !j->collide);
    if (b)
        link_edge(js, j->slot_b, 2 * slot + 1, j->slot_a, !j->collide);
    count(js, j, 1);
    /* The pairs it holds apart leave the broadphase's list (and those it lets go come). */
    w->broad.pairs_dirty = true;
    return j->id;
}

/* Grows the joint slots to n, the new ones free (generation 0); false when memory ran out. */
static bool grow(sim_joints *js, size_t n)
{
    size_t old = js->items.v.len;
    if (n <= old)
        return true;
    if (!mk_vec_reserve(&js->items.v, n) || !mk_vec_reserve(&js->free.v, n) ||
        !mk_vec_reserve(&js->edges.v, 2 * n))
        return false;
    memset(js->items.at + old, 0, (n - old) * sizeof *js->items.at);
    memset(js->edges.at + 2 * old, 0, 2 * (n - old) * sizeof *js->edges.at);
    js->items.v.len = n;
    js->edges.v.len = 2 * n;
    for (size_t s = n; s-- > old;)
        js->free.at[js->free.v.len++] = (uint32_t)s;
    return true;
}

/* Room for every removal until the next sim_world_clear_removed (each live joint's and one
 * more), so that a removal never fails half way. */
static bool reserve_removals(sim_joints *js)
{
    size_t n = js->removed.v.len + js->live + 1;
    return mk_vec_reserve(&js->removed.v, n) && mk_vec_reserve(&js->pending.v, n);
}

/* The free slot of a new joint (with id: that id's, its generation set); SIM_NO_SLOT with
 * `err`. */
static uint32_t take_slot(sim_joints *js, sim_id id, mk_error *err)
{
    if (js->live >= SIM_MAX_JOINTS) {
        mk_fail(err, MK_ERR_INVALID, "the world holds %zu joints, the most it can", js->live);
        return SIM_NO_SLOT;
    }
    uint32_t slot = id ? sim_id_slot(id) : 0;
    uint64_t generation = id >> SIM_SLOT_BITS;
    if (id &&
        ((id & SIM_MAX_BODIES) == 0 || slot >= SIM_MAX_JOINTS || generation >= SIM_GENERATIONS)) {
        mk_fail(err, MK_ERR_INVALID, "id: %llu is not a joint id", (unsigned long long)id);
        return SIM_NO_SLOT;
    }
    size_t want = id ? (size_t)slot + 1 : js->items.v.len + (js->free.v.len == 0);
    if (!grow(js, want) || !reserve_removals(js)) {
        mk_fail(err, MK_ERR_IO, "out of memory");
        return SIM_NO_SLOT;
    }
    if (!id)
        return js->free.at[--js->free.v.len];
    size_t i = 0;
    while (i < js->free.v.len && js->free.at[i] != slot)
        i++;
    if (i == js->free.v.len) {
        mk_fail(err, MK_ERR_INVALID, "id: the slot of joint %llu is taken",
                (unsigned long long)id);
        return SIM_NO_SLOT;
    }
    js->free.at[i] = js->free.at[--js->free.v.len];
    js->items.at[slot].generation = (uint32_t)generation;
    return slot;
}

static sim_id add(sim_world *w, const sim_joint_def *d, uint32_t owner, sim_id id, mk_error *err)
{
    if (check_def(w, d, err) != 0)
        return 0;
    uint32_t slot = take_slot(&w->joints, id, err);
    return slot == SIM_NO_SLOT ? 0 : place(w, d, owner, slot);
}

sim_id sim_world_add_joint(sim_world *w, const sim_joint_def *def, uint32_t owner, mk_error *err)
{
    sim_id id = add(w, def, owner, 0, err);
    if (id == 0)
        return 0;
    /* Both bodies wake, and what sleeps with them: they are to move together from now. */
    sim_wake(w, sim_body_of(w, def->a));
    if (def->b)
        sim_wake(w, sim_body_of(w, def->b));
    if (w->on_change) {
        sim_change c = {.kind = SIM_CHANGE_JOINED, .owner = owner, .joint = id, .joint_def = def};
        w->on_change(w->change_ctx, w, &c);
    }
    return id;
}

sim_id sim_world_add_joint_with_id(sim_world *w, const sim_joint_def *def, uint32_t owner,
                                   sim_id id, mk_error *err)
{
    if (id == 0) {
        mk_fail(err, MK_ERR_INVALID, "id: 0 is not a joint id");
        return 0;
    }
    return add(w, def, owner, id, err);
}

/* Takes the joint in `slot` out: off its bodies' lists, its id to the removed list, its slot
 * to wait for sim_world_clear_removed (room reserved when it was placed). */
static void drop(sim_world *w, uint32_t slot)
{
    sim_joints *js = &w->joints;
    sim_joint *j = &js->items.at[slot];
    unlink_edge(js, j->slot_a, 2 * slot);
    if (j->slot_b != SIM_NO_SLOT)
        unlink_edge(js, j->slot_b, 2 * slot + 1);
    count(js, j, -1);
    MK_VEC_PUSH(&js->removed, j->id);
    MK_VEC_PUSH(&js->pending, slot);
    j->id = 0;
    j->generation++;
    w->broad.pairs_dirty = true;
}

/* Wakes the bodies of a joint (the world is no body). */
static void wake_ends(sim_world *w, sim_id a, sim_id b)
{
    sim_body *ba = a ? sim_body_of(w, a) : NULL, *bb = b ? sim_body_of(w, b) : NULL;
    if (ba)
        sim_wake(w, ba);
    if (bb)
        sim_wake(w, bb);
}

const sim_joint *sim_world_get_joint(const sim_world *w, sim_id id)
{
    if (id == 0 || (id & SIM_MAX_BODIES) == 0)
        return NULL;
    uint32_t slot = sim_id_slot(id);
    if (slot >= w->joints.items.v.len || w->joints.items.at[slot].id != id)
        return NULL;
    return &w->joints.items.at[slot];
}

bool sim_world_remove_joint(sim_world *w, sim_id id)
{
    const sim_joint *j = sim_world_get_joint(w, id);
    if (!j)
        return false;
    sim_id a = j->a, b = j->b;
    if (w->on_change) {
        sim_change c = {.kind = SIM_CHANGE_UNJOINED, .owner = j->owner, .joint = id};
        w->on_change(w->change_ctx, w, &c);
    }
    drop(w, sim_id_slot(id));
    wake_ends(w, a, b);
    return true;
}

void sim_joints_remove_body(sim_world *w, uint32_t slot)
{
    sim_joints *js = &w->joints;
    while (js->body_head.at[slot]) {
        uint32_t key = js->body_head.at[slot] - 1;
        const sim_joint *j = &js->items.at[key >> 1];
        sim_id other = key & 1 ? j->a : j->b;
        drop(w, key >> 1);
        wake_ends(w, other, 0);
    }
}

bool sim_joints_clear_removed(sim_world *w)
{
    sim_joints *js = &w->joints;
    bool any = js->pending.v.len > 0;
    for (size_t i = 0; i < js->pending.v.len; i++) {
        uint32_t slot = js->pending.at[i];
        if (js->items.at[slot].generation < SIM_GENERATIONS)
            js->free.at[js->free.v.len++] = slot; /* room: every slot fits in the free list */
    }
    js->pending.v.len = 0;
    js->removed.v.len = 0;
    return any;
}

bool sim_world_set_joint_slot_generation(sim_world *w, uint32_t slot, uint32_t generation)
{
    sim_joints *js = &w->joints;
    if (slot >= SIM_MAX_JOINTS || generation > SIM_GENERATIONS || !grow(js, (size_t)slot + 1))
        return false;
    size_t i = 0;
    while (i < js->free.v.len && js->free.at[i] != slot)
        i++;
    if (i == js->free.v.len)
        return false;
    js->items.at[slot].generation = generation;
    if (generation == SIM_GENERATIONS) /* used up: retired */
        js->free.at[i] = js->free.at[--js->free.v.len];
    return true;
}

const sim_joint *sim_world_joint_slots(const sim_world *w, size_t *slot_count)
{
    *slot_count = w->joints.items.v.len;
    return w->joints.items.at;
}

size_t sim_world_joint_count(const sim_world *w)
{
    return w->joints.live;
}

size_t sim_world_count_joints_owned(const sim_world *w, uint32_t owner)
{
    size_t n = 0;
    for (size_t i = 0; i < w->joints.items.v.len; i++)
        n += w->joints.items.at[i].id != 0 && w->joints.items.at[i].owner == owner;
    return n;
}

const sim_id *sim_world_removed_joints(const sim_world *w, size_t *n)
{
    *n = w->joints.removed.v.len;
    return w->joints.removed.at;
}

/* A 2D frame as a definition gives it: the turn about z of the joint's (cos, sin). */
static mk_quat frame2_to_quat(mk_quat cs)
{
    return mk_quat_axis_angle(mk_v3(0.0f, 0.0f, 1.0f), atan2f(cs.y, cs.x));
}

sim_joint_def sim_joint_def_of(const sim_world *w, const sim_joint *j)
{
    sim_joint_def d;
    memset(&d, 0, sizeof d);
    d.type = j->type;
    d.a = j->a;
    d.b = j->b;
    d.limit = j->limit && j->type != SIM_JOINT_DISTANCE && j->type != SIM_JOINT_SPHERICAL;
    d.lower = d.limit ? j->lower : 0.0f;
    d.upper = d.limit ? j->upper : 0.0f;
    d.motor = j->motor;
    d.motor_speed = j->motor_speed;
    d.max_motor = j->max_motor;
    d.spring_hz = j->spring_hz;
    d.spring_damping = j->spring_damping;
    d.linear_hz = j->linear_hz;
    d.linear_damping = j->linear_damping;
    d.length = j->length;
    d.min_length = j->min_length;
    d.max_length = j->max_length;
    d.cone = j->cone;
    d.break_force = isfinite(j->break_force) ? j->break_force : 0.0f;
    d.collide = j->collide;
    d.framed = true;
    d.local_a = j->local_a;
    d.local_b = j->local_b;
    d.frame_a = w->cfg.dim == 2 ? frame2_to_quat(j->frame_a) : j->frame_a;
    d.frame_b = w->cfg.dim == 2 ? frame2_to_quat(j->frame_b) : j->frame_b;
    return d;
}

/* ---- what the rest of the world asks of the joints ---- */

/* Awake and moving: a body that wakes a sleeping one it holds (contacts.c's `active`). */
static bool moving(const sim_world *w, const sim_body *b)
{
    if (!b || b->sleeping || b->kind == SIM_STATIC)
        return false;
    if (b->kind != SIM_KINEMATIC)
        return true;
    if (w->cfg.dim == 3) {
        mk_vec3 v = sim_body3_of(w, b)->vel;
        return v.x != 0.0f || v.y != 0.0f || v.z != 0.0f;
    }
    return b->vel.x != 0.0f || b->vel.y != 0.0f;
}

void sim_joints_wake(sim_world *w)
{
    sim_joints *js = &w->joints;
    if (js->kinematic == 0)
        return;
    for (size_t i = 0; i < js->items.v.len; i++) {
        const sim_joint *j = &js->items.at[i];
        if (j->id == 0 || !(j->kinds & JOINT_KINEMATIC))
            continue;
        sim_body *a = sim_body_of(w, j->a), *b = j->b ? sim_body_of(w, j->b) : NULL;
        if (a && a->sleeping && moving(w, b))
            sim_wake(w, a);
        else if (b && b->sleeping && moving(w, a))
            sim_wake(w, b);
    }
}

void sim_joints_islands(sim_world *w, void (*join)(sim_world *w, uint32_t sa, uint32_t sb))
{
    const sim_joints *js = &w->joints;
    for (size_t i = 0; i < js->active.v.len; i++) {
        const sim_joint *j = &js->items.at[js->active.at[i]];
        if (j->id != 0 && (j->kinds & JOINT_ISLAND))
            join(w, j->slot_a, j->slot_b);
    }
}

uint64_t sim_joints_hash(const sim_world *w, uint64_t h,
                         uint64_t (*mix)(uint64_t, const void *, size_t))
{
    const sim_joints *js = &w->joints;
    if (js->live == 0)
        return h;
    for (size_t i = 0; i < js->items.v.len; i++) {
        const sim_joint *j = &js->items.at[i];
        if (j->id == 0)
            continue;
        float state[10] = {j->linear.x,      j->linear.y,     j->linear.z, j->angular.x,
                           j->angular.y,     j->angular.z,    j->spring,   j->motor_impulse,
                           j->lower_impulse, j->upper_impulse};
        h = mix(h, &j->id, sizeof j->id);
        h = mix(h, state, sizeof state);
    }
    return h;
}

/* ---- the world's image ---- */

static bool body_ok(const sim_world *w, uint32_t slot, sim_id id)
{
    return slot < sim_slot_count(w) && id != 0 && w->slots.bodies.at[slot].id == id;
}

static bool joint_ok(const sim_world *w, const sim_joint *j, size_t slot)
{
    const float f[] = {j->local_a.x, j->local_a.y,     j->local_a.z,     j->local_b.x,
                       j->local_b.y, j->local_b.z,     j->frame_a.x,     j->frame_a.y,
                       j->frame_a.z, j->frame_a.w,     j->frame_b.x,     j->frame_b.y,
                       j->frame_b.z, j->frame_b.w,     j->linear.x,      j->linear.y,
                       j->linear.z,  j->angular.x,     j->angular.y,     j->angular.z,
                       j->spring,    j->motor_impulse, j->lower_impulse, j->upper_impulse};
    for (size_t k = 0; k < sizeof f / sizeof *f; k++)
        if (!isfinite(f[k]))
            return false;
    return sim_id_slot(j->id) == slot && (j->id >> SIM_SLOT_BITS) == j->generation &&
           sim_joint_type_in(j->type, w->cfg.dim) && body_ok(w, j->slot_a, j->a) &&
           (j->slot_b == SIM_NO_SLOT ? j->b == 0 : body_ok(w, j->slot_b, j->b));
}

/* Body slot s's list: edges of live joints that name it on their side and the other body on
 * the other, each linked back to the one before, ending within `edges` steps in all;
 * *walked counts them. */
static bool list_ok(const sim_joints *js, uint32_t s, size_t edges, size_t *walked)
{
    size_t keys = js->edges.v.len;
    uint32_t prev = 0;
    for (uint32_t e = js->body_head.at[s]; e; prev = e, e = js->edges.at[e - 1].next) {
        if (e > keys || ++*walked > edges)
            return false;
        const sim_joint *j = &js->items.at[(e - 1) >> 1];
        const sim_joint_edge *d = &js->edges.at[e - 1];
        bool side_b = (e - 1) & 1;
        if (j->id == 0 || (side_b ? j->slot_b : j->slot_a) != s || d->prev != prev ||
            d->other != (side_b ? j->slot_a : j->slot_b) || d->apart != !j->collide)
            return false;
    }
    return true;
}

bool sim_joints_image_ok(sim_world *w, mk_error *err)
{
    sim_joints *js = &w->joints;
    size_t n = js->items.v.len, edges = 0, walked = 0;
    js->live = 0;
    js->kinematic = js->breaking = 0;
    if (js->edges.v.len != 2 * n) {
        mk_fail(err, MK_ERR_INVALID, "the joints' edges do not match their slots");
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        const sim_joint *j = &js->items.at[i];
        if (j->generation > SIM_GENERATIONS) {
            mk_fail(err, MK_ERR_INVALID, "joint slot %zu: generation out of range", i);
            return false;
        }
        if (j->id == 0)
            continue;
        if (!joint_ok(w, j, i)) {
            mk_fail(err, MK_ERR_INVALID,
                    "joint %llu: its slot, type, bodies or state are out of range",
                    (unsigned long long)j->id);
            return false;
        }
        count(js, j, 1);
        edges += j->slot_b == SIM_NO_SLOT ? 1 : 2;
    }
    const mk_vec *lists[] = {&js->free.v, &js->pending.v};
    for (size_t l = 0; l < 2; l++)
        for (size_t i = 0; i < lists[l]->len; i++)
            if (((const uint32_t *)lists[l]->data)[i] >= n) {
                mk_fail(err, MK_ERR_INVALID, "a free joint slot is out of range");
                return false;
            }
    for (size_t s = 0; s < js->body_head.v.len; s++)
        if (!list_ok(js, (uint32_t)s, edges, &walked)) {
            mk_fail(err, MK_ERR_INVALID, "body slot %zu: its joint list is broken", s);
            return false;
        }
    if (walked != edges) {
        mk_fail(err, MK_ERR_INVALID, "the joints' lists miss %zu edges", edges - walked);
        return false;
    }
    /* The room the store counts on (grow, reserve_removals), whatever the image's was. */
    if (!mk_vec_reserve(&js->free.v, n) || !reserve_removals(js)) {
        mk_fail(err, MK_ERR_IO, "out of memory");
        return false;
    }
    return true;
}

/* ---- the solver's passes ---- */

static sim_joint_ctx ctx_of(sim_world *w, float h, int pass)
{
    float hertz = mk_minf(SIM_JOINT_HERTZ, 0.25f / h);
    return (sim_joint_ctx){w, h, 1.0f / h, sim_make_soft(hertz, SIM_JOINT_DAMPING, h), pass};
}

/* Lays the rows out by color: rank[k] is the joint (in `active`) of row k, the colored ones by
 * color and then those with no color, and row_of its inverse; kept from the last step when its
 * colors are (sim_color_into). Out of memory for the colors, no row has one (they run in
 * order, one by one). */
static bool rank_rows(sim_world *w, size_t n, size_t bodies)
{
    sim_joints *js = &w->joints;
    if (!mk_vec_reserve(&js->rank.v, n) || !mk_vec_reserve(&js->row_of.v, n))
        return false;
    sim_color_out out = {&js->color_bits.v, &js->color_order.v, &js->color_overflow.v,
                         &js->colors.v, &js->made_from.v};
    bool kept;
    if (sim_color_into(w->pool, out, js->ends.at, n, bodies, js->color_start, &kept)) {
        if (kept && js->rank.v.len == n)
            return true; /* the last step's rows */
        size_t colored = js->color_start[SIM_WIDE_COLORS];
        memcpy(js->rank.at, js->color_order.at, colored * sizeof *js->rank.at);
        memcpy(js->rank.at + colored, js->color_overflow.at,
               js->color_overflow.v.len * sizeof *js->rank.at);
    } else {
        memset(js->color_start, 0, sizeof js->color_start);
        for (size_t i = 0; i < n; i++)
            js->rank.at[i] = (uint32_t)i;
    }
    for (size_t k = 0; k < n; k++)
        js->row_of.at[js->rank.at[k]] = (uint32_t)k;
    js->rank.v.len = js->row_of.v.len = n;
    return true;
}

/* Whether joint j is solved this step: it is in the world and one of its bodies is awake. */
static bool joint_solved(const sim_world *w, const sim_joint *j)
{
    const uint32_t *index = w->solver.index.at;
    return j->id != 0 &&
           (index[j->slot_a] != 0 || (j->slot_b != SIM_NO_SLOT && index[j->slot_b] != 0));
}

/* Joint slots [begin, end): whether each is solved this step, into `solved`. */
static void solved_range(void *ctx, size_t begin, size_t end)
{
    sim_world *w = ctx;
    for (size_t i = begin; i < end; i++)
        w->joints.solved.at[i] = joint_solved(w, &w->joints.items.at[i]);
}

void sim_joints_prepare(sim_world *w, float h)
{
    sim_joints *js = &w->joints;
    bool is3 = w->cfg.dim == 3;
    js->active.v.len = 0;
    js->rows.len = 0;
    size_t n = js->items.v.len;
    if (js->live == 0 || !mk_vec_reserve(&js->active.v, n) || !mk_vec_reserve(&js->rows, n) ||
        !mk_vec_reserve(&js->ends.v, 2 * n)) {
        memset(js->color_start, 0, sizeof js->color_start);
        return; /* no joints, or out of memory: no joint holds this step */
    }
    if (mk_vec_resize(&js->solved.v, n)) {
        sim_pool_for(w->pool, n, SIM_JOINT_GRAIN, solved_range, w);
        for (size_t i = 0; i < n; i++)
            if (js->solved.at[i])
                js->active.at[js->active.v.len++] = (uint32_t)i;
    } else { /* out of memory for the flags: here alone */
        for (size_t i = 0; i < n; i++)
            if (joint_solved(w, &js->items.at[i]))
                js->active.at[js->active.v.len++] = (uint32_t)i;
    }
    size_t rows = js->active.v.len;
    sim_joint_ctx c = ctx_of(w, h, JOINT_WARM);
    sim_pool_for(w->pool, rows, SIM_JOINT_GRAIN,
                 is3 ? sim_joint_ends_range3 : sim_joint_ends_range2, &c);
    size_t bodies = is3 ? w->d3.solver_bodies.v.len : w->d2.solver_bodies.v.len;
    if (!rank_rows(w, rows, bodies)) {
        js->active.v.len = 0;
        return;
    }
    js->rows.len = rows;
    sim_pool_for(w->pool, rows, SIM_JOINT_GRAIN,
                 is3 ? sim_joint_prepare_range3 : sim_joint_prepare_range2, &c);
}

void sim_joints_pass(sim_world *w, int pass, float h)
{
    sim_joints *js = &w->joints;
    size_t rows = js->active.v.len;
    if (rows == 0)
        return;
    sim_task_fn *fn = w->cfg.dim == 3 ? sim_joint_pass_range3 : sim_joint_pass_range2;
    sim_joint_ctx c = ctx_of(w, h, pass);
    sim_for_colors(w->pool, js->color_start, SIM_JOINT_GRAIN, fn, &c);
    fn(&c, js->color_start[SIM_WIDE_COLORS], rows); /* those with no color, one by one */
}

void sim_joints_finish(sim_world *w, float h)
{
    sim_joints *js = &w->joints;
    size_t rows = js->active.v.len;
    if (rows == 0)
        return;
    bool is3 = w->cfg.dim == 3;
    sim_joint_ctx c = ctx_of(w, h, JOINT_WARM);
    sim_pool_for(w->pool, rows, SIM_JOINT_GRAIN,
                 is3 ? sim_joint_store_range3 : sim_joint_store_range2, &c);
    if (js->breaking == 0)
        return;
    /* A joint whose force passed its break force breaks, in slot order (not the rows', which
     * the count of workers lays out). */
    for (size_t i = 0; i < rows; i++) {
        uint32_t slot = js->active.at[i];
        const sim_joint *j = &js->items.at[slot];
        if (!(j->kinds & JOINT_BREAKS) || j->id == 0)
            continue;
        size_t row = js->row_of.at[i];
        float force = is3 ? sim_joint_row_force3(w, row, c.inv_h)
                          : sim_joint_row_force2(w, row, c.inv_h);
        if (!(force > j->break_force))
            continue;
        /* Kept, as every event, only by a world that keeps events (sim_world_set_events): the
         * step's events are sorted after it (events.c), a break's after the contacts'. */
        sim_event e = {.type = SIM_EVENT_JOINT_BREAK, .tick = w->tick + 1, .a = j->id};
        if (w->cfg.events)
            sim_emit_event(w, &e);
        drop(w, slot);
    }
}
