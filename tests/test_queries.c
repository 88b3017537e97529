/* mink_sim: world queries (rays, casts, overlaps) through the broadphase, against a scan of
 * every body with the collision library; and the history: queries at a past tick. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "check_main.h"
#include "shapes_check.h"
#include "sim_fixture.h"

static sim_world *world(int dim, bool sleep)
{
    sim_config c = sim_config_default();
    c.dim = dim;
    c.sleep = sleep;
    return sim_world_new(&c);
}

/* A ground, a box on it at x = 0 and a circle above it at x = 0: the ray down the y axis hits
 * the circle first, then the box, then the ground, each at its exact surface. */
START_TEST(ray2_first_and_all)
{
    sim_world *w = world(2, true);
    sim_body_def d = fixture_rect(COL_SHAPE_BOX, SIM_STATIC, 0, -1, 20, 1);
    sim_id ground = sim_world_add(w, &d, 0);
    d = fixture_rect(COL_SHAPE_BOX, SIM_STATIC, 0, 0.5f, 0.5f, 0.5f);
    sim_id box = sim_world_add(w, &d, 0);
    d = fixture_rect(COL_SHAPE_CIRCLE, SIM_KINEMATIC, 0, 3, 0, 0);
    d.shape.radius = 0.75f;
    sim_id ball = sim_world_add(w, &d, 0);
    sim_hit hits[8];
    size_t total;
    int n = sim_world_raycast(w, sim_world_tick(w), mk_v3(0, 10, 0), mk_v3(0, -10, 0), NULL,
                              false, hits, 8, &total);
    ck_assert_int_eq(n, 1);
    ck_assert_uint_eq(hits[0].id, ball);
    NEAR(hits[0].point.y, 3.75, 1e-6);
    NEAR(hits[0].fraction, (10 - 3.75) / 20, 1e-7);
    NEAR(hits[0].normal.y, 1.0, 1e-7);
    n = sim_world_raycast(w, sim_world_tick(w), mk_v3(0, 10, 0), mk_v3(0, -10, 0), NULL, true,
                          hits, 8, &total);
    ck_assert_int_eq(n, 3);
    ck_assert_uint_eq(hits[0].id, ball);
    ck_assert_uint_eq(hits[1].id, box);
    NEAR(hits[1].point.y, 1.0, 1e-6);
    ck_assert_uint_eq(hits[2].id, ground);
    /* The box's top is at y = 1 and the ground's at 0: the ground is entered where the box
     * stands on it, at 0. */
    NEAR(hits[2].point.y, 0.0, 1e-6);
    /* Ignoring the ball, and only static bodies: the box first. */
    sim_query_filter f = {.ignore = &ball, .ignore_count = 1};
    n = sim_world_raycast(w, sim_world_tick(w), mk_v3(0, 10, 0), mk_v3(0, -10, 0), &f, false,
                          hits, 8, &total);
    ck_assert_uint_eq(hits[0].id, box);
    f = (sim_query_filter){.kinds = 1u << SIM_STATIC};
    n = sim_world_raycast(w, sim_world_tick(w), mk_v3(0, 10, 0), mk_v3(0, -10, 0), &f, false,
                          hits, 8, &total);
    ck_assert_uint_eq(hits[0].id, box);
    /* Missing everything; max smaller than the hits: the nearest kept, total counts all. */
    n = sim_world_raycast(w, sim_world_tick(w), mk_v3(-30, 10, 0), mk_v3(30, 10, 0), NULL, true,
                          hits, 8, &total);
    ck_assert_int_eq(n, 0);
    n = sim_world_raycast(w, sim_world_tick(w), mk_v3(0, 10, 0), mk_v3(0, -10, 0), NULL, true,
                          hits, 2, &total);
    ck_assert_int_eq(n, 2);
    ck_assert_uint_eq(total, 3);
    ck_assert_uint_eq(hits[0].id, ball);
    ck_assert_uint_eq(hits[1].id, box);
    /* From below: the ground first, then the box; the ball is the farthest and left out. */
    n = sim_world_raycast(w, sim_world_tick(w), mk_v3(0, -1.5f, 0), mk_v3(0, 10, 0), NULL, true,
                          hits, 2, &total);
    ck_assert_int_eq(n, 2);
    ck_assert_uint_eq(hits[0].id, ground);
    NEAR(hits[0].fraction, 0.0, 0.0); /* starts inside the ground */
    ck_assert_uint_eq(hits[1].id, box);

    /* Overlap: a circle of radius 0.3 at (0.7, 0.5) reaches into the box by 0.1; a cast of it
     * from x = -5 to the right stops with its edge on the box's left face. */
    sim_query_shape q = {.shape2 = {.type = COL_SHAPE_CIRCLE, .radius = 0.3f},
                         .xf2 = {mk_v2(0.7f, 0.5f), 0}};
    n = sim_world_overlap(w, sim_world_tick(w), &q, NULL, hits, 8, &total);
    ck_assert_int_eq(n, 1);
    ck_assert_uint_eq(hits[0].id, box);
    NEAR(hits[0].depth, 0.1, 1e-6);
    NEAR(hits[0].normal.x, -1.0, 1e-6); /* from the circle toward the box */
    q.xf2.p = mk_v2(-5, 0.5f);
    n = sim_world_cast(w, sim_world_tick(w), &q, mk_v3(10, 0, 0), NULL, hits);
    ck_assert_int_eq(n, 1);
    ck_assert_uint_eq(hits[0].id, box);
    NEAR(hits[0].fraction, (5 - 0.5 - 0.3) / 10, 2e-6);
    NEAR(hits[0].normal.x, -1.0, 1e-6);
    sim_world_free(w);
}
END_TEST

/* A static ground 80 m wide whose top is y = 0. */
static void add_ground(sim_world *w, int dim)
{
    static sim_body_def d;
    if (dim == 2) {
        d = fixture_rect(COL_SHAPE_BOX, SIM_STATIC, 0, -1, 40, 1);
    } else {
        col_shape3 ground = {.type = COL_SHAPE3_BOX, .half = {40, 1, 40}};
        fixture_body3(&d, ground, SIM_STATIC, mk_v3(0, -1, 0));
    }
    sim_world_add(w, &d, 0);
}

/* Body i of a random pile: a random shape of the dimension (the 2D kinds or the first six 3D
 * ones by turns) of the given kind, within `reach` of the y axis and up to `reach` high. */
static sim_body_def pile_body(int dim, int i, sim_kind kind, double reach)
{
    static sim_body_def d;
    float x = (float)rnd(-reach, reach), y = (float)rnd(0.5, reach), z = (float)rnd(-reach, reach);
    if (dim == 2) {
        d = fixture_rect((col_shape_type)(i % 3), kind, x, y, (float)rnd(0.2, 0.8),
                         (float)rnd(0.2, 0.8));
        d.shape.radius = (float)rnd(0.2, 0.8);
        d.angle = (float)rnd(-3, 3);
    } else {
        col_shape3 s = {.type = (col_shape3_type)(i % 6), .half = {0.5f, 0.3f, 0.4f},
                        .radius = (float)rnd(0.2, 0.6), .half_height = (float)rnd(0.2, 0.6)};
        fixture_body3(&d, s, kind, mk_v3(x, y, z));
        d.d3.rot = mk_quat_axis_angle(mk_v3_norm(mk_v3(1, 2, 3)), (float)rnd(-3, 3));
    }
    return d;
}

/* A pile of random bodies stepped a while: every ray's hits through the broadphase are those
 * of a scan of every body with the collision library, in both dimensions. */
START_TEST(rays_match_a_scan)
{
    int dim = _i;
    rng_state = 0x9e3779b9ull + (uint64_t)dim;
    sim_world *w = world(dim, true);
    static sim_body_def d;
    add_ground(w, dim);
    for (int i = 0; i < 300; i++) {
        d = pile_body(dim, i, i % 7 == 0 ? SIM_STATIC : SIM_DYNAMIC, 15);
        sim_world_add(w, &d, 0);
    }
    for (int t = 0; t < 40; t++)
        sim_world_step(w);
    int hit_rays = 0;
    for (int r = 0; r < 300; r++) {
        mk_vec3 from = mk_v3((float)rnd(-20, 20), (float)rnd(-2, 20), (float)rnd(-20, 20));
        mk_vec3 to = mk_v3((float)rnd(-20, 20), (float)rnd(-2, 20), (float)rnd(-20, 20));
        if (dim == 2)
            from.z = to.z = 0;
        static sim_hit hits[400], want[400];
        size_t total, nw = 0;
        int n = sim_world_raycast(w, sim_world_tick(w), from, to, NULL, true, hits, 400, &total);
        size_t slots;
        const sim_body *bodies = sim_world_slots(w, &slots);
        for (size_t s = 0; s < slots; s++) {
            if (bodies[s].id == 0)
                continue;
            bool hit;
            float frac;
            if (dim == 2) {
                col_ray_hit2 h = col_ray2(&bodies[s].shape, (col_xf2){bodies[s].pos, bodies[s].angle},
                                          mk_v2(from.x, from.y), mk_v2(to.x, to.y));
                hit = h.hit;
                frac = h.fraction;
            } else {
                const sim_body3 *b3 = sim_body3_of(w, &bodies[s]);
                col_ray_hit3 h = col_ray3(&b3->shape, (col_xf3){b3->pos, b3->rot}, from, to);
                hit = h.hit;
                frac = h.fraction;
            }
            if (hit)
                want[nw++] = (sim_hit){.id = bodies[s].id, .fraction = frac};
        }
        ck_assert_int_eq(n, (int)nw);
        for (size_t i = 0; i < nw; i++) {
            bool found = false;
            for (int k = 0; k < n && !found; k++)
                found = hits[k].id == want[i].id && hits[k].fraction == want[i].fraction;
            EXPECT(found, "ray %d: body %llu at %g not in the answer", r,
                   (unsigned long long)want[i].id, (double)want[i].fraction);
        }
        for (int k = 1; k < n; k++)
            ck_assert(hits[k].fraction >= hits[k - 1].fraction);
        /* The first hit is the smallest fraction. */
        sim_hit first;
        int one = sim_world_raycast(w, sim_world_tick(w), from, to, NULL, false, &first, 1, &total);
        ck_assert_int_eq(one, n > 0);
        if (n > 0) {
            ck_assert(first.fraction == hits[0].fraction);
            hit_rays++;
        }
    }
    EXPECT(hit_rays > 50, "only %d rays hit", hit_rays);
    sim_world_free(w);
}
END_TEST

/* A world's first query, which finds nothing: no hits, not a failure. */
START_TEST(first_query_of_a_world_finds_nothing)
{
    for (int dim = 2; dim <= 3; dim++) {
        sim_world *w = world(dim, true);
        sim_hit h;
        size_t total = 7;
        ck_assert_int_eq(sim_world_raycast(w, 0, mk_v3(0, 1, 0), mk_v3(1, 1, 0), NULL, false, &h,
                                           1, &total),
                         0);
        ck_assert_uint_eq(total, 0);
        sim_query_shape q = {.shape2 = {.type = COL_SHAPE_CIRCLE, .radius = 1},
                             .shape3 = {.type = COL_SHAPE3_SPHERE, .radius = 1},
                             .xf3 = {{0, 0, 0}, {0, 0, 0, 1}}};
        ck_assert_int_eq(sim_world_cast(w, 0, &q, mk_v3(1, 0, 0), NULL, &h), 0);
        ck_assert_int_eq(sim_world_overlap(w, 0, &q, NULL, &h, 1, &total), 0);
        sim_world_free(w);
    }
}
END_TEST

/* Lag compensation: a kinematic box moving at 2 m/s along x is hit at a past tick where it
 * was then; a body spawned after that tick is not hit at it; a removed one still is while
 * its tick is within the history; a tick before the history is refused. */
START_TEST(history)
{
    int dim = _i;
    sim_world *w = world(dim, true);
    ck_assert(sim_world_set_history(w, 60));
    static sim_body_def d;
    const float speed = 2.0f;
    if (dim == 2) {
        d = fixture_rect(COL_SHAPE_BOX, SIM_KINEMATIC, 0, 0, 0.5f, 0.5f);
        d.vel = mk_v2(speed, 0);
    } else {
        col_shape3 s = {.type = COL_SHAPE3_BOX, .half = {0.5f, 0.5f, 0.5f}};
        fixture_body3(&d, s, SIM_KINEMATIC, mk_v3(0, 0, 0));
        d.d3.vel = mk_v3(speed, 0, 0);
    }
    sim_id mover = sim_world_add(w, &d, 0);
    for (int t = 0; t < 30; t++)
        sim_world_step(w);
    uint64_t then = sim_world_tick(w); /* the box's centre is at x = 1 (30 ticks of 1/30 m) */
    /* A ray down at x = 1.3 hits the box now; a ray at x = 1.3 + 1 misses it now. */
    sim_hit h;
    size_t total;
    mk_vec3 at = mk_v3(1.3f, 5, 0), below = mk_v3(1.3f, -5, 0);
    ck_assert_int_eq(sim_world_raycast(w, then, at, below, NULL, false, &h, 1, &total), 1);
    ck_assert_uint_eq(h.id, mover);
    /* A second body spawned now at x = 1.3, y = 3: it is not there at `then`. */
    if (dim == 2) {
        d = fixture_rect(COL_SHAPE_BOX, SIM_KINEMATIC, 1.3f, 3, 0.5f, 0.5f);
    } else {
        col_shape3 s = {.type = COL_SHAPE3_BOX, .half = {0.5f, 0.5f, 0.5f}};
        fixture_body3(&d, s, SIM_KINEMATIC, mk_v3(1.3f, 3, 0));
    }
    sim_id late = sim_world_add(w, &d, 0);
    for (int t = 0; t < 30; t++)
        sim_world_step(w);
    /* Now the box is at x = 2: its left face at 1.5. At `then` its right face was at 1.5. */
    ck_assert_int_eq(sim_world_raycast(w, sim_world_tick(w), at, below, NULL, true, &h, 1, &total),
                     1);
    ck_assert_uint_eq(h.id, late);
    ck_assert_uint_eq(total, 1); /* the mover has gone past x = 1.3 */
    sim_hit hits[4];
    int n = sim_world_raycast(w, then, at, below, NULL, true, hits, 4, &total);
    ck_assert_int_eq(n, 1);
    ck_assert_uint_eq(hits[0].id, mover);
    NEAR(hits[0].point.y, 0.5, 1e-6);
    /* Where exactly: a ray along x at the past tick meets the box's left face at x = 0.5. */
    n = sim_world_raycast(w, then, mk_v3(-5, 0, 0), mk_v3(5, 0, 0), NULL, false, hits, 1, &total);
    ck_assert_int_eq(n, 1);
    NEAR(hits[0].point.x, 1.0 - 0.5, 1e-4);
    /* Every tick between: the face at x = t * 2 / 60 - 0.5. */
    for (uint64_t t = then - 25; t <= sim_world_tick(w); t += 5) {
        n = sim_world_raycast(w, t, mk_v3(-5, 0, 0), mk_v3(5, 0, 0), NULL, false, hits, 1,
                              &total);
        ck_assert_int_eq(n, 1);
        NEAR(hits[0].point.x, speed * (double)t / 60.0 - 0.5, 1e-4);
    }
    /* Removed: still hit at `then`, not now. */
    ck_assert(sim_world_remove(w, mover));
    sim_world_clear_removed(w);
    for (int t = 0; t < 5; t++)
        sim_world_step(w);
    n = sim_world_raycast(w, then, mk_v3(-5, 0, 0), mk_v3(5, 0, 0), NULL, false, hits, 1, &total);
    ck_assert_int_eq(n, 1);
    ck_assert_uint_eq(hits[0].id, mover);
    NEAR(hits[0].point.x, 0.5, 1e-4);
    n = sim_world_raycast(w, sim_world_tick(w), mk_v3(-5, 0, 0), mk_v3(5, 0, 0), NULL, false,
                          hits, 1, &total);
    ck_assert_int_eq(n, 0);
    /* Overlap and cast at the past tick too. */
    sim_query_shape q = {0};
    if (dim == 2) {
        q.shape2 = (col_shape2){.type = COL_SHAPE_CIRCLE, .radius = 0.25f};
        q.xf2 = (col_xf2){mk_v2(1, 0), 0};
    } else {
        q.shape3 = (col_shape3){.type = COL_SHAPE3_SPHERE, .radius = 0.25f};
        q.xf3 = (col_xf3){mk_v3(1, 0, 0), mk_quat_identity()};
    }
    ck_assert_int_eq(sim_world_overlap(w, then, &q, NULL, hits, 4, &total), 1);
    ck_assert_uint_eq(hits[0].id, mover);
    ck_assert_int_eq(sim_world_overlap(w, sim_world_tick(w), &q, NULL, hits, 4, &total), 0);
    /* Outside the history: 60 ticks back and more. */
    ck_assert_uint_eq(sim_world_history_oldest(w), sim_world_tick(w) - 60);
    ck_assert_int_eq(sim_world_raycast(w, sim_world_tick(w) - 61, at, below, NULL, false, &h, 1,
                                       &total),
                     SIM_QUERY_NO_HISTORY);
    ck_assert_int_eq(sim_world_raycast(w, sim_world_tick(w) + 1, at, below, NULL, false, &h, 1,
                                       &total),
                     SIM_QUERY_NO_HISTORY);
    ck_assert(sim_world_history_bytes(w) > 0);
    sim_world_free(w);
}
END_TEST

/* A 2D world keeping `ticks` of history, with a static ground 40 m wide whose top is y = 0. */
static sim_world *ground_with_history(int ticks)
{
    sim_world *w = world(2, true);
    ck_assert(sim_world_set_history(w, ticks));
    sim_body_def d = fixture_rect(COL_SHAPE_BOX, SIM_STATIC, 0, -1, 20, 1);
    sim_world_add(w, &d, 0);
    return w;
}

/* A sleeping pile records nothing: the history's records stay at their first allocation. */
START_TEST(sleeping_pile_records_nothing)
{
    sim_world *w = ground_with_history(60);
    sim_body_def d;
    for (int i = 0; i < 10; i++) {
        d = fixture_rect(COL_SHAPE_BOX, SIM_DYNAMIC, (float)(i - 5) * 1.5f, 0.5f, 0.5f, 0.5f);
        sim_world_add(w, &d, 0);
    }
    for (int t = 0; t < 200; t++)
        sim_world_step(w);
    size_t slots;
    const sim_body *b = sim_world_slots(w, &slots);
    for (size_t s = 1; s < slots; s++)
        ck_assert(b[s].sleeping);
    size_t before = sim_world_history_bytes(w);
    for (int t = 0; t < 200; t++)
        sim_world_step(w);
    ck_assert_uint_eq(sim_world_history_bytes(w), before);
    /* And asleep, the ray at a past tick sees them where they are. */
    sim_hit h;
    size_t total;
    ck_assert_int_eq(sim_world_raycast(w, sim_world_tick(w) - 30, mk_v3(0.1f, 5, 0),
                                       mk_v3(0.1f, -5, 0), NULL, false, &h, 1, &total),
                     1);
    NEAR(h.point.y, 1.0, 1e-3);
    sim_world_free(w);
}
END_TEST

/* A box asleep on the ground is pushed by a kinematic box: it wakes inside a step and moves
 * in that step. At a tick while it slept it is where it slept, exactly, not where the step
 * that woke it took it. */
START_TEST(woken_in_a_step_is_where_it_slept)
{
    sim_world *w = ground_with_history(120);
    sim_body_def d;
    d = fixture_rect(COL_SHAPE_BOX, SIM_DYNAMIC, 2, 0.5f, 0.5f, 0.5f);
    sim_id sleeper = sim_world_add(w, &d, 0);
    for (int t = 0; t < 100; t++)
        sim_world_step(w);
    const sim_body *b = sim_world_get(w, sleeper);
    ck_assert(b->sleeping);
    float x0 = b->pos.x, y0 = b->pos.y;
    uint64_t asleep = sim_world_tick(w);
    d = fixture_rect(COL_SHAPE_BOX, SIM_KINEMATIC, 0.5f, 0.5f, 0.5f, 0.4f);
    d.vel = mk_v2(3, 0);
    sim_world_add(w, &d, 0);
    for (int t = 0; t < 40; t++)
        sim_world_step(w);
    ck_assert(sim_world_get(w, sleeper)->pos.x > x0 + 0.5f); /* pushed along */
    sim_query_filter f = {.kinds = 1u << SIM_DYNAMIC};
    sim_hit h;
    size_t total;
    ck_assert_int_eq(sim_world_raycast(w, asleep + 1, mk_v3(-5, y0, 0), mk_v3(5, y0, 0), &f, false,
                                       &h, 1, &total),
                     1);
    ck_assert_uint_eq(h.id, sleeper);
    NEAR(h.point.x, x0 - 0.5, 1e-5);
    sim_world_free(w);
}
END_TEST

/* ---- the history against the world as it was ---- */

#define PAST_BODIES 160
#define PAST_WINDOW 40
#define PAST_SLOTS (PAST_BODIES + 64)

/* Every body of one tick, copied as the world had them right after the step that reached it
 * (before what a game then changes between steps). */
typedef struct past_tick {
    uint64_t tick;
    size_t n;
    sim_body bodies[PAST_SLOTS];
    sim_body3 parts[PAST_SLOTS];
} past_tick;

static void copy_world(const sim_world *w, past_tick *p)
{
    size_t slots;
    const sim_body *b = sim_world_slots(w, &slots);
    p->tick = sim_world_tick(w);
    p->n = 0;
    for (size_t s = 0; s < slots; s++) {
        if (b[s].id == 0)
            continue;
        ck_assert_uint_lt(p->n, PAST_SLOTS);
        p->bodies[p->n] = b[s];
        if (sim_world_dim(w) == 3)
            p->parts[p->n] = *sim_body3_of(w, &b[s]);
        p->n++;
    }
}

/* A random body of the world of this kind, asleep if `asleep` (0 when it has none). */
static sim_id any_body(const sim_world *w, sim_kind kind, bool asleep)
{
    size_t slots;
    const sim_body *b = sim_world_slots(w, &slots);
    for (int tries = 0; tries < 400; tries++) {
        size_t s = (size_t)rnd_int((int)slots);
        if (b[s].id != 0 && b[s].kind == kind && (!asleep || b[s].sleeping))
            return b[s].id;
    }
    return 0;
}

/* A pile that falls, sleeps and is woken, while bodies are added, removed, teleported (static
 * ones too) and pushed between steps: every ray at every tick of the history hits exactly what
 * a scan of the world copied at that tick hits, each at the same fraction. */
START_TEST(past_rays_match_a_scan_of_the_world_then)
{
    int dim = _i;
    rng_state = 0x51ed270b27ull + (uint64_t)dim;
    sim_world *w = world(dim, true);
    ck_assert(sim_world_set_history(w, PAST_WINDOW));
    static sim_body_def d;
    add_ground(w, dim);
    for (int i = 0; i < PAST_BODIES; i++) {
        d = pile_body(dim, i, i % 9 == 0 ? SIM_STATIC : i % 23 == 0 ? SIM_KINEMATIC : SIM_DYNAMIC,
                      12);
        sim_world_add(w, &d, 0);
    }
    past_tick *ticks = calloc(PAST_WINDOW, sizeof *ticks);
    ck_assert_ptr_nonnull(ticks);
    int sleeping_seen = 0, woken = 0;
    const int steps = 400, settled = 250; /* from then on, between steps, a game acts */
    for (int t = 0; t < steps; t++) {
        sim_world_step(w);
        copy_world(w, &ticks[sim_world_tick(w) % PAST_WINDOW]);
        size_t slots;
        const sim_body *b = sim_world_slots(w, &slots);
        for (size_t s = 0; s < slots; s++)
            sleeping_seen += b[s].id != 0 && b[s].sleeping;
        /* What a game does between steps. */
        if (t < settled)
            continue;
        if (t % 7 == 3) {
            sim_id gone = any_body(w, t % 2 ? SIM_DYNAMIC : SIM_STATIC, false);
            if (gone && sim_world_remove(w, gone))
                sim_world_clear_removed(w);
        }
        if (t % 11 == 5) {
            d = pile_body(dim, t, t % 3 ? SIM_DYNAMIC : SIM_STATIC, 12);
            sim_world_add(w, &d, 0);
        }
        for (int k = 0; k < 2; k++) {
            sim_id moved = any_body(w, k == 0 ? SIM_DYNAMIC : SIM_STATIC, false);
            if (!moved || t % (k == 0 ? 4 : 13) != 0)
                continue;
            float x = (float)rnd(-10, 10), y = (float)rnd(1, 8), z = (float)rnd(-10, 10);
            if (dim == 2)
                ck_assert(sim_body_set_transform2(w, moved, mk_v2(x, y), (float)rnd(-3, 3)));
            else
                ck_assert(sim_body_set_transform3(w, moved, mk_v3(x, y, z),
                                                  mk_quat_axis_angle(mk_v3(0, 1, 0), 0.5f)));
        }
        if (t % 3 == 0) {
            sim_id pushed = any_body(w, SIM_DYNAMIC, true);
            if (pushed) {
                woken++;
                if (dim == 2)
                    ck_assert(sim_body_apply_impulse2(w, pushed, mk_v2(0, 3), NULL));
                else
                    ck_assert(sim_body_apply_impulse3(w, pushed, mk_v3(0, 3, 0), NULL));
            }
        }
    }
    EXPECT(sleeping_seen > 1000 && woken > 3, "%d sleeping body-ticks, %d woken", sleeping_seen,
           woken);
    uint64_t now = sim_world_tick(w);
    int hit_rays = 0;
    for (uint64_t t = now - PAST_WINDOW + 1; t < now; t++) {
        const past_tick *p = &ticks[t % PAST_WINDOW];
        ck_assert_uint_eq(p->tick, t);
        for (int r = 0; r < 12; r++) {
            /* From anywhere through a body of then, on to as far again. */
            mk_vec3 from = mk_v3((float)rnd(-15, 15), (float)rnd(-2, 15), (float)rnd(-15, 15));
            size_t aim = (size_t)rnd_int((int)p->n);
            mk_vec3 at = dim == 2 ? mk_v3(p->bodies[aim].pos.x, p->bodies[aim].pos.y, 0)
                                  : p->parts[aim].pos;
            if (dim == 2)
                from.z = 0;
            mk_vec3 to = mk_v3_add(at, mk_v3_sub(at, from));
            static sim_hit hits[PAST_SLOTS];
            size_t total, found = 0;
            int n = sim_world_raycast(w, t, from, to, NULL, true, hits, PAST_SLOTS, &total);
            for (size_t i = 0; i < p->n; i++) {
                col_ray_hit2 h2 = {0};
                col_ray_hit3 h3 = {0};
                if (dim == 2)
                    h2 = col_ray2(&p->bodies[i].shape, (col_xf2){p->bodies[i].pos,
                                                                p->bodies[i].angle},
                                  mk_v2(from.x, from.y), mk_v2(to.x, to.y));
                else
                    h3 = col_ray3(&p->parts[i].shape, (col_xf3){p->parts[i].pos, p->parts[i].rot},
                                  from, to);
                if (!(dim == 2 ? h2.hit : h3.hit))
                    continue;
                float frac = dim == 2 ? h2.fraction : h3.fraction;
                bool in = false;
                for (int k = 0; k < n && !in; k++)
                    in = hits[k].id == p->bodies[i].id && hits[k].fraction == frac;
                EXPECT(in, "tick %llu ray %d: body %llu at %g not in the answer",
                       (unsigned long long)t, r, (unsigned long long)p->bodies[i].id,
                       (double)frac);
                found++;
            }
            ck_assert_int_eq(n, (int)found);
            hit_rays += n > 0;
        }
    }
    EXPECT(hit_rays > 300, "only %d of %d rays hit", hit_rays, 12 * (PAST_WINDOW - 1));
    free(ticks);
    sim_world_free(w);
}
END_TEST

MINK_CHECK_SUITE("queries", s)
{
    MINK_TCASE(s, "queries", 120, first_query_of_a_world_finds_nothing,
               woken_in_a_step_is_where_it_slept, ray2_first_and_all,
               sleeping_pile_records_nothing);
    /* Each in a 2D and a 3D world (_i is the dim). */
    TCase *dims = tcase_create("dims");
    tcase_set_timeout(dims, 120);
    tcase_add_loop_test(dims, rays_match_a_scan, 2, 4);
    tcase_add_loop_test(dims, history, 2, 4);
    tcase_add_loop_test(dims, past_rays_match_a_scan_of_the_world_then, 2, 4);
    suite_add_tcase(s, dims);
}
