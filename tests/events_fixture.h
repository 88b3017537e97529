/* Worlds for the suites of filters, sensors, events and impulses (test_events.c,
 * test_motion.c): boxes in either dimension, where a body is, and the events a world reports. */
#ifndef MINK_TEST_EVENTS_FIXTURE_H
#define MINK_TEST_EVENTS_FIXTURE_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "mink_sim.h"
#include "sim_fixture.h"

/* A world of `dim` dimensions that keeps events, gravity -10 along y. */
static inline sim_world *ev_world(int dim, int workers)
{
    sim_config c = sim_config_default();
    c.dim = dim;
    c.events = true;
    c.workers = workers;
    return sim_world_new(&c);
}

/* A box of half extents (hx, hy) (and hz = hx in 3D) at (x, y), with a filter when f is not
 * NULL, a sensor when asked. */
static inline sim_id ev_box(sim_world *w, sim_kind kind, float x, float y, float hx, float hy,
                            const sim_filter *f, bool sensor)
{
    static sim_body_def d;
    if (sim_world_dim(w) == 3) {
        col_shape3 s;
        memset(&s, 0, sizeof s);
        s.type = COL_SHAPE3_BOX;
        s.half = mk_v3(hx, hy, hx);
        fixture_body3(&d, s, kind, mk_v3(x, y, 0.0f));
    } else {
        d = fixture_rect(COL_SHAPE_BOX, kind, x, y, hx, hy);
    }
    d.has_filter = f != NULL;
    if (f)
        d.filter = *f;
    d.sensor = sensor;
    sim_id id = sim_world_add(w, &d, 0);
    ck_assert(id != 0);
    return id;
}

/* The ground: a static slab whose top is y = 0, 40 m wide. */
static inline sim_id ev_ground(sim_world *w)
{
    return ev_box(w, SIM_STATIC, 0.0f, -0.5f, 20.0f, 0.5f, NULL, false);
}

static inline mk_vec3 ev_pos(const sim_world *w, sim_id id)
{
    const sim_body *b = sim_world_get(w, id);
    ck_assert_ptr_nonnull(b);
    const sim_body3 *b3 = sim_body3_of(w, b);
    return b3 ? b3->pos : mk_v3(b->pos.x, b->pos.y, 0.0f);
}

static inline mk_vec3 ev_vel(const sim_world *w, sim_id id)
{
    const sim_body *b = sim_world_get(w, id);
    ck_assert_ptr_nonnull(b);
    const sim_body3 *b3 = sim_body3_of(w, b);
    return b3 ? b3->vel : mk_v3(b->vel.x, b->vel.y, 0.0f);
}

/* The events of a world over its steps, each step's taken and cleared after it. */
typedef struct ev_log {
    sim_event *at;
    size_t n, cap;
} ev_log;

static inline void ev_take(sim_world *w, ev_log *log)
{
    size_t n;
    const sim_event *e = sim_world_events(w, &n);
    if (log->n + n > log->cap) {
        log->cap = 2 * (log->n + n) + 64;
        log->at = realloc(log->at, log->cap * sizeof *log->at);
        ck_assert_ptr_nonnull(log->at);
    }
    if (n > 0) /* no events: no array to copy from */
        memcpy(log->at + log->n, e, n * sizeof *e);
    log->n += n;
    sim_world_clear_events(w);
}

static inline void ev_steps(sim_world *w, int steps, ev_log *log)
{
    for (int i = 0; i < steps; i++) {
        sim_world_step(w);
        ev_take(w, log);
    }
}

/* How many events of a type (with body `id` as a or b, when not 0) a log holds. */
static inline size_t ev_count(const ev_log *log, sim_event_type type, sim_id id)
{
    size_t n = 0;
    for (size_t i = 0; i < log->n; i++)
        n += log->at[i].type == type && (id == 0 || log->at[i].a == id || log->at[i].b == id);
    return n;
}

/* Two logs hold the same events, field for field. */
static inline void ev_expect_same(const ev_log *x, const ev_log *y, const char *what)
{
    ck_assert_msg(x->n == y->n, "%s: %zu events against %zu", what, x->n, y->n);
    for (size_t i = 0; i < x->n; i++) {
        const sim_event *p = &x->at[i], *q = &y->at[i];
        ck_assert_msg(p->type == q->type && p->tick == q->tick && p->a == q->a && p->b == q->b &&
                          memcmp(&p->point, &q->point, sizeof p->point) == 0 &&
                          memcmp(&p->normal, &q->normal, sizeof p->normal) == 0 &&
                          memcmp(&p->speed, &q->speed, sizeof p->speed) == 0,
                      "%s: event %zu differs (type %d against %d, tick %llu against %llu)", what,
                      i, (int)p->type, (int)q->type, (unsigned long long)p->tick,
                      (unsigned long long)q->tick);
    }
}

#endif
