/* Filters, sensors and events against known answers: bodies that must not collide pass through
 * each other, a negative group never collides inside itself, a query's mask skips the rest;
 * balls through a sensor begin and end once each; a drop from h hits at sqrt(2 g h); the
 * contacts' begins and ends over a settling pile match a brute-force test of every pair; a
 * removed body ends what it touched; the events are the same with 1, 2 and 4 workers and
 * after an image round trip. In both dimensions. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "events_fixture.h"
#include "mink_sim.h"

#define G 10.0f
#define SIM_TOUCHING_M 0.001f /* docs/PHYSICS.md: a pair this close touches */

/* ---- filters ---- */

/* Box B dropped onto box A at rest: with filters that keep them apart it passes through and
 * rests on the ground beside (inside) A at y = 0.5; with the default ones it rests on A. */
static float dropped_box_rest_height(int dim, const sim_filter *fa, const sim_filter *fb)
{
    sim_world *w = ev_world(dim, 1);
    ev_ground(w);
    sim_id a = ev_box(w, SIM_DYNAMIC, 0.0f, 0.5f, 0.5f, 0.5f, fa, false);
    sim_id b = ev_box(w, SIM_DYNAMIC, 0.1f, 3.0f, 0.5f, 0.5f, fb, false);
    for (int i = 0; i < 180; i++)
        sim_world_step(w);
    ck_assert_float_eq_tol(ev_pos(w, a).y, 0.5f, 2e-3f);
    float y = ev_pos(w, b).y;
    sim_world_free(w);
    return y;
}

START_TEST(bodies_that_must_not_collide_pass_through_and_rest_side_by_side)
{
    for (int dim = 2; dim <= 3; dim++) {
        /* Both collide with the ground (category 1) and not with each other. */
        sim_filter fa = {2, 1, 0}, fb = {4, 1, 0};
        ck_assert_float_eq_tol(dropped_box_rest_height(dim, &fa, &fb), 0.5f, 2e-3f);
        /* The control: the default filters stack them. */
        ck_assert_float_eq_tol(dropped_box_rest_height(dim, NULL, NULL), 1.5f, 5e-3f);
        /* One side's mask is enough to keep them apart. */
        sim_filter only_ground = {1, 1, 0}, any = {4, UINT64_MAX, 0};
        ck_assert_float_eq_tol(dropped_box_rest_height(dim, &only_ground, &any), 0.5f, 2e-3f);
    }
}
END_TEST

START_TEST(a_negative_group_never_collides_inside_itself_and_a_positive_one_always_does)
{
    for (int dim = 2; dim <= 3; dim++) {
        /* A group of -1 passes through itself though the masks say collide. */
        sim_filter own = {1, UINT64_MAX, -1};
        ck_assert_float_eq_tol(dropped_box_rest_height(dim, &own, &own), 0.5f, 2e-3f);
        /* One of the group and one outside it collide (the groups differ: the masks decide). */
        ck_assert_float_eq_tol(dropped_box_rest_height(dim, &own, NULL), 1.5f, 5e-3f);
        /* A group of 3 collides though the masks say no (2 & 1 == 0). */
        sim_filter team = {2, 1, 3};
        ck_assert_float_eq_tol(dropped_box_rest_height(dim, &team, &team), 1.5f, 5e-3f);
    }
    ck_assert(!sim_filters_collide((sim_filter){1, UINT64_MAX, -2}, (sim_filter){1, UINT64_MAX, -2}));
    ck_assert(sim_filters_collide((sim_filter){1, UINT64_MAX, -2}, (sim_filter){1, UINT64_MAX, -3}));
    ck_assert(sim_filters_collide(SIM_FILTER_DEFAULT, SIM_FILTER_DEFAULT));
    ck_assert(!sim_filters_collide((sim_filter){1, 2, 0}, SIM_FILTER_DEFAULT));
}
END_TEST

/* A fast ball at a thin wall: it stops at one it collides with, passes one it does not. */
START_TEST(the_sweep_does_not_stop_at_a_body_that_does_not_collide)
{
    for (int dim = 2; dim <= 3; dim++) {
        for (int pass = 0; pass < 2; pass++) {
            sim_config c = sim_config_default();
            c.dim = dim;
            c.gravity = mk_v2(0, 0);
            c.gravity3 = mk_v3(0, 0, 0);
            sim_world *w = sim_world_new(&c);
            sim_filter wall_filter = {pass ? 2u : 1u, pass ? 2u : UINT64_MAX, 0};
            ev_box(w, SIM_STATIC, 5.0f, 0.0f, 0.05f, 2.0f, &wall_filter, false);
            sim_id ball = ev_box(w, SIM_DYNAMIC, 0.0f, 0.0f, 0.1f, 0.1f, NULL, false);
            if (dim == 3)
                sim_body_set_velocity3(w, ball, mk_v3(300.0f, 0, 0));
            else
                sim_body_set_velocity2(w, ball, mk_v2(300.0f, 0));
            for (int i = 0; i < 3; i++)
                sim_world_step(w);
            float x = ev_pos(w, ball).x;
            if (pass)
                ck_assert_msg(x > 10.0f, "%dD: the ball stopped at x %g", dim, (double)x);
            else
                ck_assert_msg(x < 5.0f, "%dD: the ball went through to x %g", dim, (double)x);
            sim_world_free(w);
        }
    }
}
END_TEST

/* A character dropped on a platform it does not collide with falls through to the ground (the
 * push-out and the ground snap skip the platform); on one it collides with, it stands. */
START_TEST(a_character_falls_through_a_platform_it_does_not_collide_with)
{
    for (int dim = 2; dim <= 3; dim++) {
        for (int pass = 0; pass < 2; pass++) {
            sim_world *w = ev_world(dim, 1);
            ev_ground(w);
            sim_filter platform = {pass ? 4u : 1u, UINT64_MAX, 0};
            ev_box(w, SIM_STATIC, 0.0f, 2.0f, 2.0f, 0.1f, &platform, false);
            sim_filter me = {2, 1, 0}; /* it meets category 1 alone */
            sim_id chr = ev_box(w, SIM_CHARACTER, 0.0f, 3.0f, 0.3f, 0.5f, &me, false);
            for (int i = 0; i < 120; i++)
                sim_world_step(w);
            float y = ev_pos(w, chr).y;
            ck_assert_float_eq_tol(y, pass ? 0.5f : 2.6f, 0.02f);
            sim_world_free(w);
        }
    }
}
END_TEST

START_TEST(a_query_with_a_mask_skips_the_others_and_every_query_skips_sensors)
{
    for (int dim = 2; dim <= 3; dim++) {
        sim_config c = sim_config_default();
        c.dim = dim;
        sim_world *w = sim_world_new(&c);
        sim_id id[5];
        for (int i = 0; i < 4; i++) {
            sim_filter f = {1u << i, UINT64_MAX, 0};
            id[i] = ev_box(w, SIM_STATIC, 2.0f + 2.0f * (float)i, 0.0f, 0.5f, 0.5f, &f, false);
        }
        id[4] = ev_box(w, SIM_STATIC, 1.0f, 0.0f, 0.3f, 0.3f, NULL, true); /* a sensor */
        sim_hit hits[8];
        size_t total;
        sim_query_filter f = {.mask = 2u | 8u};
        int n = sim_world_raycast(w, sim_world_tick(w), mk_v3(0, 0, 0), mk_v3(20, 0, 0), &f,
                                  true, hits, 8, &total);
        ck_assert_int_eq(n, 2);
        ck_assert(hits[0].id == id[1] && hits[1].id == id[3]);
        ck_assert_float_eq_tol(hits[0].point.x, 3.5f, 1e-4f);
        /* Without a mask every solid body, and never the sensor in front of them. */
        n = sim_world_raycast(w, sim_world_tick(w), mk_v3(0, 0, 0), mk_v3(20, 0, 0), NULL, true,
                              hits, 8, &total);
        ck_assert_int_eq(n, 4);
        ck_assert(hits[0].id == id[0]);
        sim_query_shape s;
        memset(&s, 0, sizeof s);
        s.shape2 = (col_shape2){.type = COL_SHAPE_BOX, .half = {8.0f, 1.0f}};
        s.xf2 = (col_xf2){{5.0f, 0.0f}, 0.0f};
        s.shape3 = (col_shape3){.type = COL_SHAPE3_BOX, .half = {8.0f, 1.0f, 1.0f}};
        s.xf3 = (col_xf3){{5.0f, 0.0f, 0.0f}, mk_quat_identity()};
        f.mask = 4u;
        n = sim_world_overlap(w, sim_world_tick(w), &s, &f, hits, 8, &total);
        ck_assert_int_eq(n, 1);
        ck_assert(hits[0].id == id[2]);
        f.mask = 1u;
        s.xf2.p.x = s.xf3.p.x = -15.0f;
        n = sim_world_cast(w, sim_world_tick(w), &s, mk_v3(30, 0, 0), &f, hits);
        ck_assert_int_eq(n, 1);
        ck_assert(hits[0].id == id[0]);
        sim_world_free(w);
    }
}
END_TEST

/* ---- sensors ---- */

/* N balls dropped through a static sensor band (which overlaps the static ground and a second
 * sensor, neither of which it sees): N sensor_begin and N sensor_end, one each per ball. */
START_TEST(n_balls_through_a_sensor_give_n_begins_and_n_ends)
{
    enum { N = 7 };
    for (int dim = 2; dim <= 3; dim++) {
        sim_world *w = ev_world(dim, 1);
        sim_id ground = ev_ground(w);
        /* Open below: the balls fall through the band to a floor far below. */
        sim_id band = ev_box(w, SIM_STATIC, 0.0f, 5.0f, 6.0f, 0.5f, NULL, true);
        sim_id other = ev_box(w, SIM_STATIC, 0.0f, 5.0f, 1.0f, 1.0f, NULL, true);
        sim_id low = ev_box(w, SIM_STATIC, 0.0f, -0.2f, 6.0f, 0.5f, NULL, true); /* in ground */
        sim_id ball[N];
        for (int i = 0; i < N; i++)
            ball[i] = ev_box(w, SIM_DYNAMIC, -4.5f + 1.5f * (float)i, 8.0f + (float)i, 0.2f, 0.2f,
                             NULL, false);
        ev_log log = {0};
        ev_steps(w, 240, &log);
        ck_assert_uint_eq(ev_count(&log, SIM_EVENT_SENSOR_BEGIN, band), N);
        ck_assert_uint_eq(ev_count(&log, SIM_EVENT_SENSOR_END, band), N);
        for (int i = 0; i < N; i++) {
            size_t begins = 0, ends = 0;
            for (size_t k = 0; k < log.n; k++) {
                const sim_event *e = &log.at[k];
                if (e->a != band || e->b != ball[i])
                    continue;
                begins += e->type == SIM_EVENT_SENSOR_BEGIN;
                ends += e->type == SIM_EVENT_SENSOR_END;
            }
            ck_assert_uint_eq(begins, 1);
            ck_assert_uint_eq(ends, 1);
            /* Resting on the ground, every ball is in the low sensor (and the ground is not). */
            ck_assert_float_eq_tol(ev_pos(w, ball[i]).y, 0.2f, 2e-3f);
        }
        ck_assert_uint_eq(ev_count(&log, SIM_EVENT_SENSOR_BEGIN, low), N);
        ck_assert_uint_eq(ev_count(&log, SIM_EVENT_SENSOR_END, low), 0);
        ck_assert_uint_eq(ev_count(&log, SIM_EVENT_SENSOR_BEGIN, ground), 0);
        /* The small sensor in the band: the ball that fell through it, never the band. */
        for (size_t k = 0; k < log.n; k++)
            ck_assert(!(log.at[k].a == other && log.at[k].b == band) &&
                      !(log.at[k].a == band && log.at[k].b == other));
        /* No contact with a sensor, ever. */
        for (size_t k = 0; k < log.n; k++)
            if (log.at[k].type == SIM_EVENT_CONTACT_BEGIN)
                ck_assert(log.at[k].a != band && log.at[k].b != band && log.at[k].a != low &&
                          log.at[k].b != low);
        free(log.at);
        sim_world_free(w);
    }
}
END_TEST

/* ---- hits ---- */

START_TEST(a_box_dropped_from_h_hits_once_at_sqrt_2gh)
{
    const float heights[] = {5.0f, 12.0f, 20.0f};
    for (int dim = 2; dim <= 3; dim++) {
        for (size_t k = 0; k < sizeof heights / sizeof *heights; k++) {
            float h = heights[k];
            sim_world *w = ev_world(dim, 1);
            sim_id ground = ev_ground(w);
            sim_id box = ev_box(w, SIM_DYNAMIC, 0.3f, h + 0.5f, 0.5f, 0.5f, NULL, false);
            ev_log log = {0};
            ev_steps(w, 240, &log);
            ck_assert_uint_eq(ev_count(&log, SIM_EVENT_HIT, 0), 1);
            const sim_event *hit = NULL;
            for (size_t i = 0; i < log.n; i++)
                if (log.at[i].type == SIM_EVENT_HIT)
                    hit = &log.at[i];
            float want = sqrtf(2.0f * G * h);
            printf("%dD drop from %g m: hit at %.4f m/s, sqrt(2gh) %.4f\n", dim, (double)h,
                   (double)hit->speed, (double)want);
            ck_assert_float_eq_tol(hit->speed, want, 0.02f * want);
            /* The ground has the lower id: the normal points from it up into the box. */
            ck_assert(hit->a == ground && hit->b == box);
            ck_assert_float_eq_tol(hit->normal.y, 1.0f, 1e-3f);
            ck_assert_float_eq_tol(hit->point.y, 0.0f, 0.02f);
            /* It began to touch the ground once, at or after the hit, and never ended. */
            ck_assert_uint_eq(ev_count(&log, SIM_EVENT_CONTACT_BEGIN, box), 1);
            ck_assert_uint_eq(ev_count(&log, SIM_EVENT_CONTACT_END, box), 0);
            free(log.at);
            sim_world_free(w);
        }
    }
}
END_TEST

/* ---- contacts against a brute-force test ---- */

/* The exact depth of a pair where the bodies stand, by the collision library alone: the
 * overlap, or minus the gap. */
static float depth_of(const sim_world *w, const sim_body *p, const sim_body *q)
{
    const sim_body3 *p3 = sim_body3_of(w, p), *q3 = sim_body3_of(w, q);
    if (p3) {
        col_manifold3 m = col_collide3(&p3->shape, (col_xf3){p3->pos, p3->rot}, &q3->shape,
                                       (col_xf3){q3->pos, q3->rot});
        return m.count > 0 ? m.depth : -m.distance;
    }
    col_manifold2 m = col_collide2(&p->shape, (col_xf2){p->pos, p->angle}, &q->shape,
                                   (col_xf2){q->pos, q->angle});
    return m.count > 0 ? m.depth : -m.distance;
}

/* Every pair's depth (depth_of) where the bodies stand, by slot: pairs of two static bodies,
 * which never touch, at -INFINITY. */
static void depths(const sim_world *w, float *out, size_t slots)
{
    const sim_body *b = sim_world_slots(w, &slots);
    for (size_t i = 0; i < slots; i++)
        for (size_t j = 0; j < slots; j++) {
            const sim_body *p = &b[i < j ? i : j], *q = &b[i < j ? j : i];
            bool skip = i == j || p->id == 0 || q->id == 0 ||
                        (p->kind == SIM_STATIC && q->kind == SIM_STATIC);
            out[i * slots + j] = skip ? -INFINITY : depth_of(w, p, q);
        }
}

/* A pile dropped in columns, each box turning and sliding, settling and falling asleep: after
 * every step the pairs the events say touch (begins added, ends taken away) are those whose
 * exact depth (depth_of, where the bodies stood when the step began) is at least -1 mm. The
 * narrowphase measures a pair near contact on its own manifold (docs/PHYSICS.md, "Events"): a
 * speculative one for a pair a little apart, one kept from the last step for a pair that has
 * hardly moved (Jolt's body pair cache), in 3D one that keeps a face within 5 mm; so a pair
 * within `band` of the 1 mm may fall on the other side for a step. Those are counted and must
 * be few; every other pair must agree. */
static void pile_matches_brute_force(int dim, int n, int steps, float band)
{
    sim_world *w = ev_world(dim, 1);
    ev_ground(w);
    for (int i = 0; i < n; i++) {
        float x = -3.0f + 1.5f * (float)(i % 5) + 0.13f * (float)(i % 3);
        float y = 0.6f + 1.3f * (float)(i / 5);
        sim_id id = ev_box(w, SIM_DYNAMIC, x, y, 0.5f, 0.4f, NULL, false);
        float turn = 0.5f * (float)((i * 7) % 5) - 1.0f, push = (float)((i * 3) % 5) - 2.0f;
        if (dim == 3) {
            sim_body_set_spin3(w, id, mk_v3(turn, 0.5f * turn, turn));
            sim_body_set_velocity3(w, id, mk_v3(push, 0.0f, 0.5f * push));
        } else {
            sim_body_set_spin2(w, id, turn);
            sim_body_set_velocity2(w, id, mk_v2(push, 0.0f));
        }
    }
    size_t slots;
    const sim_body *bodies = sim_world_slots(w, &slots);
    float *depth = malloc(slots * slots * sizeof *depth);
    bool *touch = calloc(slots * slots, sizeof *touch); /* by the events, [lower][higher] */
    ck_assert(depth && touch);
    ev_log log = {0};
    size_t begins = 0, ends = 0, agree = 0, borderline = 0;
    float widest = 0.0f; /* m: the largest difference from the 1 mm of a pair that differed */
    for (int t = 0; t < steps; t++) {
        depths(w, depth, slots);
        log.n = 0;
        ev_steps(w, 1, &log);
        for (size_t i = 0; i < log.n; i++) {
            const sim_event *e = &log.at[i];
            if (e->type != SIM_EVENT_CONTACT_BEGIN && e->type != SIM_EVENT_CONTACT_END)
                continue;
            ck_assert_uint_eq(e->tick, sim_world_tick(w));
            ck_assert(e->a < e->b);
            uint32_t a = sim_id_slot(e->a), b = sim_id_slot(e->b);
            bool *at = &touch[(a < b ? a : b) * slots + (a < b ? b : a)];
            ck_assert(*at == (e->type == SIM_EVENT_CONTACT_END)); /* once each way */
            *at = e->type == SIM_EVENT_CONTACT_BEGIN;
            begins += *at;
            ends += !*at;
        }
        for (size_t i = 0; i < slots; i++)
            for (size_t j = i + 1; j < slots; j++) {
                float d = depth[i * slots + j];
                bool brute = d >= -SIM_TOUCHING_M;
                if (brute == touch[i * slots + j]) {
                    agree += brute;
                    continue;
                }
                ck_assert_msg(fabsf(d + SIM_TOUCHING_M) <= band,
                              "%dD step %d: bodies %llu and %llu at depth %g m: %s by the "
                              "events", dim, t, (unsigned long long)bodies[i].id,
                              (unsigned long long)bodies[j].id, (double)d,
                              brute ? "not touching" : "touching");
                borderline++;
                widest = fmaxf(widest, fabsf(d + SIM_TOUCHING_M));
            }
    }
    size_t asleep = 0;
    for (size_t i = 0; i < slots; i++)
        asleep += bodies[i].id != 0 && bodies[i].sleeping;
    printf("%dD pile of %d: %zu begins, %zu ends; %zu pair-steps touching agree, %zu within "
           "%g m of the 1 mm (at most %.2g m) differ for a step; %zu asleep at the end\n", dim,
           n, begins, ends, agree, borderline, (double)band, (double)widest, asleep);
    fflush(stdout);
    ck_assert_uint_gt(ends, 0);
    ck_assert_uint_le(borderline * 200, agree); /* under half a percent */
    ck_assert_uint_gt(asleep, (size_t)n / 2); /* the pairs at rest were carried */
    free(depth);
    free(touch);
    free(log.at);
    sim_world_free(w);
}

START_TEST(begins_and_ends_over_a_settling_pile_match_brute_force_2d)
{
    pile_matches_brute_force(2, 60, 720, 0.002f);
}
END_TEST

START_TEST(begins_and_ends_over_a_settling_pile_match_brute_force_3d)
{
    pile_matches_brute_force(3, 40, 480, 0.006f);
}
END_TEST

/* ---- bodies leaving ---- */

START_TEST(a_body_removed_while_touching_ends_its_contacts_and_overlaps)
{
    for (int dim = 2; dim <= 3; dim++) {
        sim_world *w = ev_world(dim, 1);
        sim_id ground = ev_ground(w);
        sim_id zone = ev_box(w, SIM_STATIC, 0.0f, 1.0f, 3.0f, 1.0f, NULL, true);
        sim_id a = ev_box(w, SIM_DYNAMIC, 0.0f, 0.5f, 0.5f, 0.5f, NULL, false);
        sim_id b = ev_box(w, SIM_DYNAMIC, 0.0f, 1.5f, 0.5f, 0.5f, NULL, false);
        ev_log log = {0};
        ev_steps(w, 30, &log);
        ck_assert_uint_eq(ev_count(&log, SIM_EVENT_CONTACT_BEGIN, a), 2);
        ck_assert_uint_eq(ev_count(&log, SIM_EVENT_SENSOR_BEGIN, zone), 2);
        log.n = 0;
        /* Through the API, between steps: the ends carry the world's tick, ordered. */
        uint64_t tick = sim_world_tick(w);
        ck_assert(sim_world_remove(w, a));
        ev_take(w, &log);
        ck_assert_uint_eq(log.n, 3);
        ck_assert(log.at[0].type == SIM_EVENT_CONTACT_END && log.at[0].a == ground &&
                  log.at[0].b == a && log.at[0].tick == tick);
        ck_assert(log.at[1].type == SIM_EVENT_CONTACT_END && log.at[1].a == a &&
                  log.at[1].b == b);
        ck_assert(log.at[2].type == SIM_EVENT_SENSOR_END && log.at[2].a == zone &&
                  log.at[2].b == a);
        /* b falls onto the ground; its owner leaving removes it, and its ends follow. */
        log.n = 0;
        ev_steps(w, 60, &log);
        ck_assert_uint_eq(ev_count(&log, SIM_EVENT_CONTACT_BEGIN, b), 1);
        log.n = 0;
        ck_assert(sim_body_set_owner(w, b, 7));
        ck_assert_uint_eq(sim_world_remove_owned(w, 7), 1);
        ev_take(w, &log);
        ck_assert_uint_eq(log.n, 2);
        ck_assert(log.at[0].type == SIM_EVENT_CONTACT_END && log.at[0].b == b);
        ck_assert(log.at[1].type == SIM_EVENT_SENSOR_END && log.at[1].b == b);
        /* A box and the platform it rests on moved past the world's bounds: the step removes
         * the box, and its contact ends at the step's tick. */
        sim_id plat = ev_box(w, SIM_STATIC, 0.0f, 5.0f, 1.0f, 0.1f, NULL, false);
        sim_id c = ev_box(w, SIM_DYNAMIC, 0.0f, 5.6f, 0.5f, 0.5f, NULL, false);
        ev_steps(w, 30, &log);
        ck_assert_uint_eq(ev_count(&log, SIM_EVENT_CONTACT_BEGIN, c), 1);
        float far = sim_world_config(w)->bounds + 10.0f;
        if (dim == 3) {
            sim_body_set_transform3(w, plat, mk_v3(far, 5.0f, 0), mk_quat_identity());
            sim_body_set_transform3(w, c, mk_v3(far, 5.6f, 0), mk_quat_identity());
        } else {
            sim_body_set_transform2(w, plat, mk_v2(far, 5.0f), 0.0f);
            sim_body_set_transform2(w, c, mk_v2(far, 5.6f), 0.0f);
        }
        log.n = 0;
        ev_steps(w, 1, &log);
        ck_assert_ptr_null(sim_world_get(w, c));
        ck_assert_uint_eq(ev_count(&log, SIM_EVENT_CONTACT_END, c), 1);
        ck_assert_uint_eq(log.at[0].tick, sim_world_tick(w));
        free(log.at);
        sim_world_free(w);
    }
}
END_TEST

/* ---- determinism ---- */

/* A pile of 300 (the step's parallel parts run from 256 moving bodies) with a sensor, a hit
 * and removals, stepped `steps` times. */
static sim_world *busy_world(int dim, int workers)
{
    sim_world *w = ev_world(dim, workers);
    ev_ground(w);
    ev_box(w, SIM_STATIC, 0.0f, 2.0f, 4.0f, 1.0f, NULL, true);
    sim_filter odd = {2, UINT64_MAX ^ 2u, 0};
    for (int i = 0; i < 300; i++)
        ev_box(w, SIM_DYNAMIC, -9.0f + 1.05f * (float)(i % 18), 0.55f + 1.1f * (float)(i / 18),
               0.5f, 0.5f, i % 3 ? NULL : &odd, false);
    return w;
}

static void busy_steps(sim_world *w, int steps, ev_log *log)
{
    for (int t = 0; t < steps; t++) {
        if (t == 40 || t == 90) {
            size_t slots;
            const sim_body *b = sim_world_slots(w, &slots);
            for (size_t i = 0; i < slots; i += 37)
                if (b[i].id != 0 && b[i].kind == SIM_DYNAMIC)
                    sim_world_remove(w, b[i].id);
            sim_world_clear_removed(w);
        }
        ev_steps(w, 1, log);
    }
}

START_TEST(events_are_the_same_with_1_2_and_4_workers)
{
    for (int dim = 2; dim <= 3; dim++) {
        ev_log one = {0};
        sim_world *w = busy_world(dim, 1);
        busy_steps(w, 150, &one);
        uint64_t hash = sim_world_hash(w);
        sim_world_free(w);
        ck_assert_uint_gt(one.n, 500);
        for (int workers = 2; workers <= 4; workers += 2) {
            ev_log many = {0};
            w = busy_world(dim, workers);
            busy_steps(w, 150, &many);
            ev_expect_same(&one, &many, "workers");
            ck_assert_uint_eq(sim_world_hash(w), hash);
            sim_world_free(w);
            free(many.at);
        }
        printf("%dD: %zu events, the same with 1, 2 and 4 workers\n", dim, one.n);
        free(one.at);
    }
}
END_TEST

/* A world that keeps events and ends 20 m from the origin (bodies past it are removed). */
static sim_world *paddles_world(int dim, int workers)
{
    sim_config c = sim_config_default();
    c.dim = dim;
    c.events = true;
    c.workers = workers;
    c.bounds = 20.0f;
    sim_world *w = sim_world_new(&c);
    ev_ground(w);
    return w;
}

/* The busy world with kinematic paddles sliding up and down above the pile, two of them
 * before its boxes' slots and two after, and a fast small box fired at them every fifth step
 * (40 m/s: 0.67 m a step against paddles 0.2 m thick, so each is swept, and a sweep stops at
 * a paddle where the paddles before it in the step's order have moved and those after it not
 * yet); the shots that miss leave the world and are removed. Returns the paddles' hits. */
static size_t paddles_steps(sim_world *w, int steps, ev_log *log)
{
    sim_id paddle[4];
    paddle[0] = ev_box(w, SIM_KINEMATIC, 4.0f, 14.0f, 0.1f, 1.5f, NULL, false);
    paddle[1] = ev_box(w, SIM_KINEMATIC, 7.0f, 16.0f, 0.1f, 1.5f, NULL, false);
    sim_world_remove(w, paddle[0]); /* a free slot below the boxes' for a shot */
    paddle[0] = ev_box(w, SIM_KINEMATIC, 4.0f, 14.0f, 0.1f, 1.5f, NULL, false);
    for (int i = 0; i < 300; i++)
        ev_box(w, SIM_DYNAMIC, -9.0f + 1.05f * (float)(i % 18), 0.55f + 1.1f * (float)(i / 18),
               0.5f, 0.5f, NULL, false);
    paddle[2] = ev_box(w, SIM_KINEMATIC, 10.0f, 14.0f, 0.1f, 1.5f, NULL, false);
    paddle[3] = ev_box(w, SIM_KINEMATIC, 13.0f, 16.0f, 0.1f, 1.5f, NULL, false);
    sim_world_clear_removed(w);
    for (int t = 0; t < steps; t++) {
        for (int k = 0; k < 4; k++) { /* up and down, 3 m/s, turning every 40 steps */
            float v = ((t / 40 + k) % 2 ? 3.0f : -3.0f);
            if (sim_world_dim(w) == 3)
                sim_body_set_velocity3(w, paddle[k], mk_v3(0.0f, v, 0.0f));
            else
                sim_body_set_velocity2(w, paddle[k], mk_v2(0.0f, v));
        }
        if (t % 5 == 0) {
            /* Every fourth step of them, two over the paddles' reach (their tops stay below
             * y = 20), which leave the world in the same step. */
            for (int k = 0; k < (t % 20 == 0 ? 2 : 1); k++) {
                float y = t % 20 == 0 ? 22.0f + (float)k : 13.0f + 0.01f * (float)(t % 300);
                sim_id shot = ev_box(w, SIM_DYNAMIC, -2.0f, y, 0.05f, 0.05f, NULL, false);
                if (sim_world_dim(w) == 3)
                    sim_body_set_velocity3(w, shot, mk_v3(40.0f, 2.0f, 0.0f));
                else
                    sim_body_set_velocity2(w, shot, mk_v2(40.0f, 2.0f));
            }
        }
        ev_steps(w, 1, log);
    }
    size_t hits = 0;
    for (int k = 0; k < 4; k++)
        hits += ev_count(log, SIM_EVENT_HIT, paddle[k]);
    return hits;
}

START_TEST(sweeps_at_kinematic_bodies_and_removals_are_the_same_with_1_2_4_workers)
{
    for (int dim = 2; dim <= 3; dim++) {
        ev_log one = {0};
        sim_world *w = paddles_world(dim, 1);
        size_t hits = paddles_steps(w, 200, &one);
        uint64_t hash = sim_world_hash(w);
        /* The ground, 4 paddles, 300 boxes and 50 shots, less those that left the world. */
        size_t left = 1 + 4 + 300 + 50 - sim_world_body_count(w);
        sim_world_free(w);
        /* 50 shots, 30 of them at the paddles' height: the paddles' sweeps are on the path;
         * and the 20 over them fly out of the world, two at a time, and are removed. */
        ck_assert_uint_ge(hits, 10);
        ck_assert_uint_ge(left, 20);
        for (int workers = 2; workers <= 4; workers += 2) {
            ev_log many = {0};
            w = paddles_world(dim, workers);
            ck_assert_uint_eq(paddles_steps(w, 200, &many), hits);
            ck_assert_uint_eq(1 + 4 + 300 + 50 - sim_world_body_count(w), left);
            ev_expect_same(&one, &many, "workers");
            ck_assert_uint_eq(sim_world_hash(w), hash);
            sim_world_free(w);
            free(many.at);
        }
        printf("%dD: %zu hits at the paddles, %zu shots out of the world, the same with 1, 2 and "
               "4 workers\n", dim, hits, left);
        free(one.at);
    }
}
END_TEST

START_TEST(events_are_the_same_after_an_image_round_trip)
{
    for (int dim = 2; dim <= 3; dim++) {
        sim_world *w = busy_world(dim, 1);
        ev_log first = {0}, again = {0};
        busy_steps(w, 60, &first);
        /* Mid-flight: pairs touching, a sensor's overlaps, a removal's ends not yet read. */
        size_t slots;
        const sim_body *b = sim_world_slots(w, &slots);
        ck_assert(sim_world_remove(w, b[slots - 1].id));
        sim_world *copy = fixture_image_copy(w);
        ck_assert_uint_eq(sim_world_hash(copy), sim_world_hash(w));
        first.n = 0;
        ev_steps(w, 150, &first);
        ev_steps(copy, 150, &again);
        ev_expect_same(&first, &again, "image");
        ck_assert_uint_eq(sim_world_hash(copy), sim_world_hash(w));
        ck_assert_uint_gt(first.n, 10);
        free(first.at);
        free(again.at);
        sim_world_free(copy);
        sim_world_free(w);
    }
}
END_TEST

/* The events not yet cleared are in the hash, and so are a body's filter and sensor flag. */
START_TEST(pending_events_and_filters_are_in_the_hash)
{
    sim_world *w = ev_world(2, 1);
    ev_ground(w);
    sim_id a = ev_box(w, SIM_DYNAMIC, 0.0f, 0.5f, 0.5f, 0.5f, NULL, false);
    for (int i = 0; i < 10; i++)
        sim_world_step(w);
    size_t n;
    sim_world_events(w, &n);
    ck_assert_uint_gt(n, 0);
    uint64_t pending = sim_world_hash(w);
    sim_world_clear_events(w);
    ck_assert_uint_ne(sim_world_hash(w), pending);
    (void)a;
    sim_world_free(w);

    uint64_t h[2];
    for (int k = 0; k < 2; k++) {
        sim_config c = sim_config_default();
        sim_world *x = sim_world_new(&c);
        sim_filter f = {k ? 2u : 1u, UINT64_MAX, 0};
        ev_box(x, SIM_DYNAMIC, 0.0f, 0.5f, 0.5f, 0.5f, &f, false);
        h[k] = sim_world_hash(x);
        sim_world_free(x);
    }
    ck_assert_uint_ne(h[0], h[1]);
}
END_TEST

static Suite *events_suite(void)
{
    Suite *s = suite_create("events");
    MINK_TCASE(s, "filters", 120, bodies_that_must_not_collide_pass_through_and_rest_side_by_side,
               a_negative_group_never_collides_inside_itself_and_a_positive_one_always_does,
               the_sweep_does_not_stop_at_a_body_that_does_not_collide,
               a_character_falls_through_a_platform_it_does_not_collide_with,
               a_query_with_a_mask_skips_the_others_and_every_query_skips_sensors);
    MINK_TCASE(s, "events", 300, n_balls_through_a_sensor_give_n_begins_and_n_ends,
               a_box_dropped_from_h_hits_once_at_sqrt_2gh,
               begins_and_ends_over_a_settling_pile_match_brute_force_2d,
               begins_and_ends_over_a_settling_pile_match_brute_force_3d,
               a_body_removed_while_touching_ends_its_contacts_and_overlaps,
               pending_events_and_filters_are_in_the_hash);
    MINK_TCASE(s, "determinism", 300, events_are_the_same_with_1_2_and_4_workers,
               sweeps_at_kinematic_bodies_and_removals_are_the_same_with_1_2_4_workers,
               events_are_the_same_after_an_image_round_trip);
    return s;
}

MINK_CHECK_MAIN(events_suite)
