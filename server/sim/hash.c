/* The world hash: FNV-1a (Fowler, Noll, Vo) over every body's id and the bits of its state, in
 * slot order. Two runs of the same build from the same scene and inputs give the same hash at
 * every tick, which is what `--hash-every` prints and the determinism test checks. Filters
 * and sensors that are not the default, the events not yet cleared and the events' lists (the
 * pairs touching, the sensors' overlaps) are hashed after the bodies, each only when there is
 * one: a world that uses none of them hashes as it did before they existed. */
#include <string.h>

#include "world_internal.h"

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t sim_world_hash(const sim_world *w)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = mix(h, &w->tick, sizeof w->tick);
    for (size_t i = 0; i < sim_slot_count(w); i++) {
        const sim_body *b = &w->slots.bodies.at[i];
        if (b->id == 0)
            continue;
        unsigned char flags = (unsigned char)(b->sleeping | b->grounded << 1);
        h = mix(h, &b->id, sizeof b->id);
        const sim_body3 *b3 = sim_body3_of(w, b);
        if (b3) {
            float state3[13] = {b3->pos.x, b3->pos.y, b3->pos.z, b3->rot.x, b3->rot.y,
                                b3->rot.z, b3->rot.w, b3->vel.x, b3->vel.y, b3->vel.z,
                                b3->w.x,   b3->w.y,   b3->w.z};
            h = mix(h, state3, sizeof state3);
        } else {
            float state[6] = {b->pos.x, b->pos.y, b->angle, b->vel.x, b->vel.y, b->w};
            h = mix(h, state, sizeof state);
        }
        h = mix(h, &flags, 1);
        /* A level body's geometry by its key (a world without levels hashes as before). */
        if (b->level)
            h = mix(h, sim_level_key(b->level), SIM_LEVEL_KEY);
    }
    if (w->filter.active > 0)
        for (size_t i = 0; i < sim_slot_count(w); i++) {
            const sim_slot_filter *f = &w->filter.slots.at[i];
            const sim_body *b = &w->slots.bodies.at[i];
            if (b->id == 0 || (!f->sensor && f->f.category == 1u && f->f.mask == UINT64_MAX &&
                               f->f.group == 0))
                continue;
            unsigned char sensor = f->sensor;
            h = mix(h, &b->id, sizeof b->id);
            h = mix(h, &f->f.category, sizeof f->f.category);
            h = mix(h, &f->f.mask, sizeof f->f.mask);
            h = mix(h, &f->f.group, sizeof f->f.group);
            h = mix(h, &sensor, 1);
        }
    for (size_t i = 0; i < w->events.v.len; i++) {
        const sim_event *e = &w->events.at[i];
        uint32_t type = (uint32_t)e->type;
        float f[7] = {e->point.x,  e->point.y,  e->point.z, e->normal.x,
                      e->normal.y, e->normal.z, e->speed};
        h = mix(h, &type, sizeof type);
        h = mix(h, &e->tick, sizeof e->tick);
        h = mix(h, &e->a, sizeof e->a);
        h = mix(h, &e->b, sizeof e->b);
        h = mix(h, f, sizeof f);
    }
    h = mix(h, w->ev.touching.at, w->ev.touching.v.len * sizeof(uint64_t));
    h = mix(h, w->ev.sensed.at, w->ev.sensed.v.len * sizeof(uint64_t));
    return sim_joints_hash(w, h, mix);
}
