/* Events (events.c, hits.c): what the world keeps from one step to the next to tell what
 * changed (the body pairs that touch, the sensors' overlaps) and what a step notes on the way
 * (its hits, the bodies it woke). */
#ifndef MINK_SIM_EVENTS_H
#define MINK_SIM_EVENTS_H

#include "mink_sim.h"
#include "mk_vec.h"

/* A pair of bodies in the events' lists: the slots of its two bodies, the lower in the high
 * bits for a touching pair, the sensor's there for a sensor's overlap (SIM_TOUCH_KEY). Ids are
 * read off the slots: a body's pairs are taken out of the lists as it leaves (and its slot is
 * not given out again before that: sim_world_clear_removed), so every pair in them is of two
 * bodies in the world. Sorted, the lists are Box2D v3's sensor overlap arrays (sensor.c): a
 * step's list against the last one gives what began and what ended, in a fixed order. */
#define SIM_TOUCH_KEY(a, b) (((uint64_t)(a) << 24) | (uint64_t)(b))

/* A hit noted during a step (hits.c): a < b, the normal from a toward b. */
typedef struct sim_hit_note {
    sim_id a, b;
    mk_vec3 point, normal;
    float speed;
} sim_hit_note;

typedef struct sim_event_state {
    /* Carried from one step to the next (in the image): the body pairs touching after the last
     * step and the sensors' overlaps (SIM_TOUCH_KEY, increasing), and the slots of the
     * sensors, increasing. */
    MK_VEC(uint64_t) touching;
    MK_VEC(uint64_t) sensed;
    MK_VEC(uint32_t) sensors;
    /* The step's own (scratch): a new list as it is made and sorted, the merge of it with the
     * old one, the radix sort's counts, the hits, the bodies woken. */
    MK_VEC(uint64_t) next, sorted, merged;
    MK_VEC(uint32_t) counts;
    MK_VEC(sim_hit_note) hits;
    MK_VEC(uint32_t) woken;
    size_t step_first; /* the step's first event */
    bool stepping;     /* between sim_events_before_step and sim_events_after_step */
    bool in_collide;   /* in the narrowphase's pass over the pairs (contacts.c) */
} sim_event_state;

/* Around each step (world.c's sim_world_step). */
void sim_events_before_step(sim_world *w);
void sim_events_after_step(sim_world *w);
/* A sensor is placed in slot s: it joins the sensors' list (room reserved). A body is about to
 * leave the world: its contacts and overlaps end now. */
void sim_events_body_added(sim_world *w, uint32_t s);
void sim_events_body_removed(sim_world *w, const sim_body *b);
/* A body woken (sleep.c): woken by the narrowphase's pass, it skipped the pairs the pass met
 * before it woke (they are tested after the step). */
void sim_events_note_woken(sim_world *w, uint32_t s);
/* The events' lists of an image name live bodies and sensors: NULL, or what is wrong. */
const char *sim_events_check(const sim_world *w);

/* Hits (hits.c, one source for both dimensions): a pair of the narrowphase or the characters'
 * push-out with manifold m (normal from a toward b), and a fast body b's swept impact on
 * `hit` (normal n from b toward it, approach speed vn). Noted when over cfg.hit_speed. */
void sim_hit_check2(sim_world *w, const sim_body *a, const sim_body *b,
                    const col_manifold2 *m);
void sim_hit_check3(sim_world *w, const sim_body *a, const sim_body *b,
                    const col_manifold3 *m);
void sim_hit_swept2(sim_world *w, const sim_body *b, const sim_body *hit, mk_vec2 n, float vn);
void sim_hit_swept3(sim_world *w, const sim_body *b, const sim_body *hit, mk_vec3 n, float vn);

#endif
