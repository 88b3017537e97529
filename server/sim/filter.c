/* Filters: Box2D v3's collision filter (b2ShouldShapesCollide in its shape.h) on each body,
 * categories and masks of 64 bits and a group, and the sensor flag. A body's filter is fixed
 * when it is placed, so the broadphase tests a pair once, when it lists it (as Box2D's pair
 * query does), and the narrowphase never meets a pair that does not collide. */
#include "filter.h"
#include "world_internal.h"

bool sim_filters_collide(sim_filter a, sim_filter b)
{
    if (a.group == b.group && a.group != 0)
        return a.group > 0;
    return (a.category & b.mask) != 0 && (b.category & a.mask) != 0;
}

/* A filter (and sensor flag) that stops nothing. */
static bool plain(const sim_slot_filter *f)
{
    return !f->sensor && f->f.category == 1u && f->f.mask == UINT64_MAX && f->f.group == 0;
}

bool sim_pair_filtered(const sim_world *w, uint32_t a, uint32_t b)
{
    const sim_slot_filter *fa = &w->filter.slots.at[a], *fb = &w->filter.slots.at[b];
    return !fa->sensor && !fb->sensor && sim_filters_collide(fa->f, fb->f);
}

bool sim_sensor_sees(const sim_world *w, uint32_t s, uint32_t b)
{
    const sim_slot_filter *fs = &w->filter.slots.at[s], *fb = &w->filter.slots.at[b];
    return !fb->sensor && sim_filters_collide(fs->f, fb->f) &&
           !(w->slots.bodies.at[s].kind == SIM_STATIC && w->slots.bodies.at[b].kind == SIM_STATIC);
}

bool sim_filter_meets(const sim_world *w, uint32_t s, uint64_t mask)
{
    return mask == 0 || (w->filter.slots.at[s].f.category & mask) != 0;
}

void sim_filter_place(sim_world *w, uint32_t s, const sim_body_def *def)
{
    sim_slot_filter *f = &w->filter.slots.at[s];
    f->f = def->has_filter ? def->filter : SIM_FILTER_DEFAULT;
    f->sensor = def->sensor;
    w->filter.active += !plain(f);
}

void sim_filter_clear(sim_world *w, uint32_t s)
{
    sim_slot_filter *f = &w->filter.slots.at[s];
    w->filter.active -= !plain(f);
    f->f = SIM_FILTER_DEFAULT;
    f->sensor = false;
}

void sim_filters_recount(sim_world *w)
{
    w->filter.active = 0;
    for (size_t i = 0; i < w->filter.slots.v.len; i++)
        w->filter.active += w->slots.bodies.at[i].id != 0 && !plain(&w->filter.slots.at[i]);
}

sim_filter sim_body_filter(const sim_world *w, const sim_body *b)
{
    return w->filter.slots.at[b - w->slots.bodies.at].f;
}

bool sim_body_is_sensor(const sim_world *w, const sim_body *b)
{
    return w->filter.slots.at[b - w->slots.bodies.at].sensor;
}
