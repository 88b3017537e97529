/* Acting on bodies between steps: impulses, teleports and explosions, for the game's rules and
 * for clients on their own bodies. Each wakes what it moves and is reported
 * (sim_world_on_change), so that a journal records it and a replay makes it again bit for
 * bit. An impulse changes the velocity by J / m and the spin by I^-1 (r x J), as Box2D's
 * b2Body_ApplyLinearImpulse; an explosion is b2World_Explode's, its impulse through each
 * body's centre of mass; a teleport moves the body's bounds in the broadphase at once, as
 * b2Body_SetTransform does. */
#include <math.h>
#include <string.h>

#include "body_rules.h"
#include "broadphase.h"
#include "history.h"
#include "world_internal.h"

/* The body of `id` in a world of `dim` dimensions, or NULL. */
static sim_body *body_in(sim_world *w, sim_id id, int dim)
{
    sim_body *b = sim_body_of(w, id);
    return b && w->cfg.dim == dim ? b : NULL;
}

static mk_vec3 in3(mk_vec2 v) { return mk_v3(v.x, v.y, 0.0f); }

/* ---- impulses ---- */

/* The motion an impulse j at `point` (NULL: the centre of mass) gives a 2D body; false, with
 * nothing changed, when it would not be finite. */
static bool push2(sim_body *b, mk_vec2 j, const mk_vec2 *point)
{
    mk_vec2 vel = mk_v2_add(b->vel, mk_v2_scale(j, b->inv_mass));
    float spin = b->w;
    if (point)
        spin += b->inv_inertia * mk_v2_cross(mk_v2_sub(*point, sim_body_center2(b)), j);
    if (!mk_v2_finite(vel) || !isfinite(spin))
        return false;
    b->vel = vel;
    b->w = spin;
    return true;
}

/* The same in 3D: the spin through the world's inverse inertia, R I^-1 R^T. */
static bool push3(sim_body *b, sim_body3 *b3, mk_vec3 j, const mk_vec3 *point)
{
    mk_vec3 vel = mk_v3_add(b3->vel, mk_v3_scale(j, b->inv_mass)), spin = b3->w;
    if (point) {
        mk_vec3 t = mk_v3_cross(mk_v3_sub(*point, sim_body_center3(b3)), j);
        spin = mk_v3_add(spin, mk_quat_rotate(b3->rot, mk_m3_mul_v(b3->inv_inertia,
                                                                  mk_quat_unrotate(b3->rot, t))));
    }
    if (!mk_v3_finite(vel) || !mk_v3_finite(spin))
        return false;
    b3->vel = vel;
    b3->w = spin;
    return true;
}

/* Whether an impulse moves the body: it has mass. */
static bool has_mass(const sim_body *b) { return b && b->inv_mass > 0.0f; }

static void report_impulse(sim_world *w, const sim_body *b, mk_vec3 j, const mk_vec3 *point)
{
    sim_change c = {.kind = SIM_CHANGE_IMPULSE, .body = b, .owner = b->owner, .impulse = j,
                    .point = point ? *point : mk_v3(0, 0, 0), .at = point != NULL};
    sim_report(w, &c);
}

bool sim_body_apply_impulse2(sim_world *w, sim_id id, mk_vec2 impulse, const mk_vec2 *point)
{
    sim_body *b = body_in(w, id, 2);
    if (!has_mass(b) || !mk_v2_finite(impulse) || (point && !mk_v2_finite(*point)) ||
        !push2(b, impulse, point))
        return false;
    sim_wake(w, b);
    mk_vec3 at = point ? in3(*point) : mk_v3(0, 0, 0);
    report_impulse(w, b, in3(impulse), point ? &at : NULL);
    return true;
}

bool sim_body_apply_impulse3(sim_world *w, sim_id id, mk_vec3 impulse, const mk_vec3 *point)
{
    sim_body *b = body_in(w, id, 3);
    if (!has_mass(b) || !mk_v3_finite(impulse) || (point && !mk_v3_finite(*point)) ||
        !push3(b, sim_part3(w, sim_id_slot(id)), impulse, point))
        return false;
    sim_wake(w, b);
    report_impulse(w, b, impulse, point);
    return true;
}

/* ---- teleports ---- */

/* After a body's placement changed: its bounds, its fat box (a static body's tree is built
 * again) and the broadphase's pairs, and what it touches where it is now wakes. */
static void placed(sim_world *w, sim_body *b)
{
    uint32_t slot = sim_id_slot(b->id);
    col_aabb3 box = sim_shape_bounds_now(w, slot);
    w->broad.shape_box.at[slot] = box;
    if (b->kind == SIM_STATIC) {
        sim_set_fat_box(w, slot, box, 0.0f);
        w->broad.statics_dirty = true;
    } else {
        sim_set_fat_box(w, slot, box, SIM_FAT_MARGIN);
        w->broad.order_unsorted = true;
    }
    w->broad.pairs_dirty = true;
    sim_wake_near(w, b);
    sim_change c = {.kind = SIM_CHANGE_SET, .body = b, .owner = b->owner,
                    .set = SIM_SET_POS | SIM_SET_ROT};
    sim_report(w, &c);
}

/* Before a body's placement changes: the history keeps where it was, and what rested on it
 * there wakes (with it). */
static void leaving(sim_world *w, sim_body *b)
{
    sim_history_note_moved(w, b);
    sim_wake_near(w, b);
}

bool sim_body_set_transform2(sim_world *w, sim_id id, mk_vec2 pos, float angle)
{
    sim_body *b = body_in(w, id, 2);
    if (!b || !mk_v2_finite(pos) || !isfinite(angle))
        return false;
    leaving(w, b);
    b->pos = pos;
    b->angle = angle;
    b->rot = mk_v2(cosf(angle), sinf(angle));
    b->rot_angle = angle;
    placed(w, b);
    return true;
}

bool sim_body_set_transform3(sim_world *w, sim_id id, mk_vec3 pos, mk_quat rot)
{
    sim_body *b = body_in(w, id, 3);
    float len2 = rot.x * rot.x + rot.y * rot.y + rot.z * rot.z + rot.w * rot.w;
    if (!b || !mk_v3_finite(pos) || !(fabsf(len2 - 1.0f) <= 2e-3f))
        return false;
    leaving(w, b);
    sim_body3 *b3 = sim_part3(w, sim_id_slot(id));
    b3->pos = pos;
    b3->rot = rot;
    placed(w, b);
    return true;
}

/* ---- explosions ---- */

static bool admitted(const sim_world *w, const sim_explosion *e, const sim_body *b)
{
    const sim_query_filter *f = &e->filter;
    if (b->inv_mass <= 0.0f || (e->owned && b->owner != e->owner) ||
        (f->kinds && !(f->kinds & (1u << b->kind))) ||
        !sim_filter_meets(w, sim_id_slot(b->id), f->mask))
        return false;
    for (size_t i = 0; i < f->ignore_count; i++)
        if (f->ignore[i] == b->id)
            return false;
    return true;
}

size_t sim_world_explode(sim_world *w, const sim_explosion *e, size_t *woken)
{
    bool is3 = w->cfg.dim == 3;
    mk_vec3 c = is3 ? e->pos : mk_v3(e->pos.x, e->pos.y, 0.0f);
    size_t pushed = 0, asleep = 0;
    if (woken)
        *woken = 0;
    const uint32_t *slots;
    size_t n;
    if (!mk_v3_finite(c) || !(e->radius > 0.0f) || !isfinite(e->radius) ||
        !isfinite(e->impulse))
        return 0;
    sim_change change = {.kind = SIM_CHANGE_EXPLODE, .explosion = e};
    sim_report(w, &change);
    if (!sim_world_bodies_near(w, c, e->radius, &slots, &n))
        return 0; /* out of memory for the query: nothing is pushed, here and in a replay */
    for (size_t i = 0; i < n; i++) {
        sim_body *b = &w->slots.bodies.at[slots[i]];
        if (!admitted(w, e, b))
            continue;
        sim_body3 *b3 = is3 ? sim_part3(w, slots[i]) : NULL;
        mk_vec3 d = mk_v3_sub(b3 ? sim_body_center3(b3) : in3(sim_body_center2(b)), c);
        float dist = mk_v3_len(d);
        if (!(dist < e->radius))
            continue;
        float k = e->impulse * (1.0f - dist / e->radius);
        mk_vec3 dir = dist > 1e-6f ? mk_v3_scale(d, 1.0f / dist) : mk_v3(0.0f, 1.0f, 0.0f);
        mk_vec3 j = mk_v3_scale(dir, k);
        bool was_asleep = b->sleeping;
        if (!(b3 ? push3(b, b3, j, NULL) : push2(b, mk_v2(j.x, j.y), NULL)))
            continue;
        sim_wake(w, b);
        pushed++;
        asleep += was_asleep;
    }
    if (woken)
        *woken = asleep;
    return pushed;
}
