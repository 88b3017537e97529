/* Impulses, teleports and explosions against known answers: a body at rest given an impulse J
 * moves at J / m, one at a point off its centre spins at I^-1 (r x J) (2D and 3D, a turned 3D
 * body through R I^-1 R^T); an explosion pushes only the bodies of its mask, owner and radius,
 * at its impulse falling linearly with the distance; a static body moved carries what lands on
 * it where it went, wakes what slept on it, and the history keeps where it was; what cannot be
 * done changes nothing; and a journal of it all replays to the same world and events. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "journal_fixture.h"
#include "events_fixture.h"
#include "mink_world_io.h"

/* A world of `dim` dimensions without gravity. */
static sim_world *still_world(int dim)
{
    sim_config c = sim_config_default();
    c.dim = dim;
    c.gravity = mk_v2(0, 0);
    c.gravity3 = mk_v3(0, 0, 0);
    c.events = true;
    return sim_world_new(&c);
}

/* A dynamic box of half extents (hx, hy, hz) and density rho at (x, y), turned by q in 3D. */
static sim_id box_of(sim_world *w, float x, float y, float hx, float hy, float hz, float rho,
                     mk_quat q)
{
    sim_body_def *d = ev_box_def(w, SIM_DYNAMIC, x, y, hx, hy, hz);
    if (sim_world_dim(w) == 3)
        d->d3.rot = q;
    d->density = rho;
    sim_id id = sim_world_add(w, d, 0);
    ck_assert(id != 0);
    return id;
}

static mk_vec3 spin_of(const sim_world *w, sim_id id)
{
    const sim_body *b = sim_world_get(w, id);
    const sim_body3 *b3 = sim_body3_of(w, b);
    return b3 ? b3->w : mk_v3(0, 0, b->w);
}

static void expect_v3(mk_vec3 got, mk_vec3 want, float tol, const char *what)
{
    ck_assert_msg(fabsf(got.x - want.x) <= tol && fabsf(got.y - want.y) <= tol &&
                      fabsf(got.z - want.z) <= tol,
                  "%s: (%g, %g, %g), want (%g, %g, %g)", what, (double)got.x, (double)got.y,
                  (double)got.z, (double)want.x, (double)want.y, (double)want.z);
}

static bool push(sim_world *w, sim_id id, mk_vec3 j, const mk_vec3 *at)
{
    if (sim_world_dim(w) == 3)
        return sim_body_apply_impulse3(w, id, j, at);
    mk_vec2 p = at ? mk_v2(at->x, at->y) : mk_v2(0, 0);
    return sim_body_apply_impulse2(w, id, mk_v2(j.x, j.y), at ? &p : NULL);
}

START_TEST(a_body_at_rest_given_impulse_j_moves_at_j_over_m)
{
    for (int dim = 2; dim <= 3; dim++) {
        sim_world *w = still_world(dim);
        /* 2 x 1 (x 1) m at 2 kg/m^2 (or m^3): m = 4 kg. */
        sim_id id = box_of(w, 0, 0, 1.0f, 0.5f, 0.5f, 2.0f, mk_quat_identity());
        mk_vec3 j = mk_v3(3.0f, 4.0f, dim == 3 ? -2.0f : 0.0f);
        ck_assert(push(w, id, j, NULL));
        expect_v3(ev_vel(w, id), mk_v3(0.75f, 1.0f, dim == 3 ? -0.5f : 0.0f), 1e-6f, "v");
        expect_v3(spin_of(w, id), mk_v3(0, 0, 0), 0.0f, "spin");
        /* It moves at that speed: 60 steps, 1 s. */
        for (int i = 0; i < 60; i++)
            sim_world_step(w);
        expect_v3(ev_pos(w, id), mk_v3(0.75f, 1.0f, dim == 3 ? -0.5f : 0.0f), 1e-4f, "pos");
        sim_world_free(w);
    }
}
END_TEST

START_TEST(an_impulse_off_the_centre_spins_at_r_cross_j_over_i)
{
    for (int dim = 2; dim <= 3; dim++) {
        sim_world *w = still_world(dim);
        /* 2 x 1 (x 1) m at density 1: m = 2 kg, about z I = m (2^2 + 1^2) / 12 = 5/6. */
        sim_id id = box_of(w, 3.0f, -1.0f, 1.0f, 0.5f, 0.5f, 1.0f, mk_quat_identity());
        mk_vec3 at = mk_v3(4.0f, -1.0f, 0.0f); /* r = (1, 0, 0) */
        ck_assert(push(w, id, mk_v3(0, 1.0f, 0), &at));
        expect_v3(ev_vel(w, id), mk_v3(0, 0.5f, 0), 1e-6f, "v");
        expect_v3(spin_of(w, id), mk_v3(0, 0, 1.2f), 1e-5f, "w");
        sim_world_free(w);
    }
    /* 3D, the box turned a quarter about y: its long axis along z. J = (0, 1, 0) at r =
     * (0, 0, 1): r x J = (-1, 0, 0), about the world's x, which is the body's z (I = 5/6). */
    sim_world *w = still_world(3);
    mk_quat quarter = {0.0f, sinf(0.25f * 3.14159265f), 0.0f, cosf(0.25f * 3.14159265f)};
    sim_id id = box_of(w, 0, 0, 1.0f, 0.5f, 0.5f, 1.0f, quarter);
    mk_vec3 at = mk_v3(0, 0, 1.0f);
    ck_assert(sim_body_apply_impulse3(w, id, mk_v3(0, 1.0f, 0), &at));
    expect_v3(spin_of(w, id), mk_v3(-1.2f, 0, 0), 1e-4f, "turned w");
    sim_world_free(w);
}
END_TEST

START_TEST(an_explosion_pushes_only_the_bodies_of_its_mask_owner_and_radius)
{
    for (int dim = 2; dim <= 3; dim++) {
        sim_world *w = still_world(dim);
        /* 0.5 m boxes at density 1: 0.25 kg in 2D, 0.125 kg in 3D. */
        float m = dim == 3 ? 0.125f : 0.25f;
        sim_filter one = {1, UINT64_MAX, 0}, two = {2, UINT64_MAX, 0}, four = {4, UINT64_MAX, 0};
        sim_id a = ev_box(w, SIM_DYNAMIC, 1.0f, 0.0f, 0.25f, 0.25f, &one, false);
        sim_id b = ev_box(w, SIM_DYNAMIC, 0.0f, 2.0f, 0.25f, 0.25f, &two, false);
        sim_id c = ev_box(w, SIM_DYNAMIC, 0.0f, -3.0f, 0.25f, 0.25f, &one, false); /* too far */
        sim_id d = ev_box(w, SIM_STATIC, -1.5f, 0.0f, 0.25f, 0.25f, NULL, false);  /* no mass */
        sim_id e = ev_box(w, SIM_DYNAMIC, -1.0f, 0.0f, 0.25f, 0.25f, &four, false); /* mask */
        ck_assert(sim_world_put_to_sleep(w, b));
        sim_explosion x = {.pos = mk_v3(0, 0, 0), .radius = 2.5f, .impulse = 10.0f,
                           .filter = {.mask = 1u | 2u}};
        size_t woken;
        ck_assert_uint_eq(sim_world_explode(w, &x, &woken), 2);
        ck_assert_uint_eq(woken, 1);
        /* 10 (1 - d / 2.5) N s away from the centre. */
        expect_v3(ev_vel(w, a), mk_v3(6.0f / m, 0, 0), 1e-4f, "a");
        expect_v3(ev_vel(w, b), mk_v3(0, 2.0f / m, 0), 1e-4f, "b");
        ck_assert(!sim_world_get(w, b)->sleeping);
        expect_v3(ev_vel(w, c), mk_v3(0, 0, 0), 0.0f, "c");
        expect_v3(ev_vel(w, d), mk_v3(0, 0, 0), 0.0f, "d");
        expect_v3(ev_vel(w, e), mk_v3(0, 0, 0), 0.0f, "e");
        /* An owner's explosion: its bodies alone. */
        ck_assert(sim_body_set_owner(w, e, 5));
        sim_explosion mine = {.pos = mk_v3(0, 0, 0), .radius = 2.5f, .impulse = 10.0f,
                              .owned = true, .owner = 5};
        ck_assert_uint_eq(sim_world_explode(w, &mine, NULL), 1);
        expect_v3(ev_vel(w, e), mk_v3(-6.0f / m, 0, 0), 1e-4f, "e owned");
        expect_v3(ev_vel(w, a), mk_v3(6.0f / m, 0, 0), 1e-4f, "a untouched");
        sim_world_free(w);
    }
}
END_TEST

/* A static platform moved: a box dropped where it was falls to the ground, one dropped where
 * it went lands on it, the box that slept on it wakes and falls, and a query at a tick before
 * the move finds it where it was. */
START_TEST(a_static_body_moved_carries_what_lands_where_it_went)
{
    for (int dim = 2; dim <= 3; dim++) {
        sim_world *w = ev_world(dim, 1);
        ck_assert(sim_world_set_history(w, 120));
        ev_ground(w);
        sim_id plat = ev_box(w, SIM_STATIC, 0.0f, 2.0f, 1.0f, 0.1f, NULL, false);
        sim_id rider = ev_box(w, SIM_DYNAMIC, 0.0f, 2.6f, 0.5f, 0.5f, NULL, false);
        for (int i = 0; i < 120; i++)
            sim_world_step(w);
        ck_assert(sim_world_get(w, rider)->sleeping);
        uint64_t before = sim_world_tick(w);
        bool moved = dim == 3 ? sim_body_set_transform3(w, plat, mk_v3(6.0f, 2.0f, 0.0f),
                                                        mk_quat_identity())
                              : sim_body_set_transform2(w, plat, mk_v2(6.0f, 2.0f), 0.0f);
        ck_assert(moved);
        ck_assert(!sim_world_get(w, rider)->sleeping);
        sim_id there = ev_box(w, SIM_DYNAMIC, 6.0f, 3.5f, 0.5f, 0.5f, NULL, false);
        for (int i = 0; i < 10; i++)
            sim_world_step(w);
        sim_hit hits[4];
        size_t total;
        int n = sim_world_raycast(w, before, mk_v3(0.8f, 5, 0), mk_v3(0.8f, 1.5f, 0), NULL, false,
                                  hits, 4, &total);
        ck_assert_int_eq(n, 1);
        ck_assert(hits[0].id == plat);
        ck_assert_float_eq_tol(hits[0].point.y, 2.1f, 1e-4f);
        n = sim_world_raycast(w, sim_world_tick(w), mk_v3(6, 2.5f, 0), mk_v3(6, 1.5f, 0), NULL,
                              false, hits, 4, &total);
        ck_assert(n == 1 && hits[0].id == plat);
        for (int i = 0; i < 110; i++)
            sim_world_step(w);
        ck_assert_float_eq_tol(ev_pos(w, rider).y, 0.5f, 2e-3f);
        ck_assert_float_eq_tol(ev_pos(w, there).y, 2.6f, 2e-3f);
        sim_world_free(w);
    }
}
END_TEST

START_TEST(what_cannot_be_done_changes_nothing)
{
    for (int dim = 2; dim <= 3; dim++) {
        sim_world *w = still_world(dim);
        sim_id box = box_of(w, 0, 0, 0.5f, 0.5f, 0.5f, 1.0f, mk_quat_identity());
        sim_id kin = ev_box(w, SIM_KINEMATIC, 3.0f, 0.0f, 0.5f, 0.5f, NULL, false);
        sim_id wall = ev_box(w, SIM_STATIC, -3.0f, 0.0f, 0.5f, 0.5f, NULL, false);
        uint64_t hash = sim_world_hash(w);
        float nan = nanf(""), inf = INFINITY;
        ck_assert(!push(w, box, mk_v3(nan, 0, 0), NULL));
        ck_assert(!push(w, box, mk_v3(inf, 0, 0), NULL));
        mk_vec3 bad_at = mk_v3(nan, 0, 0);
        ck_assert(!push(w, box, mk_v3(1, 0, 0), &bad_at));
        ck_assert(!push(w, kin, mk_v3(1, 0, 0), NULL));
        ck_assert(!push(w, wall, mk_v3(1, 0, 0), NULL));
        ck_assert(!push(w, 12345, mk_v3(1, 0, 0), NULL));
        if (dim == 3) {
            ck_assert(!sim_body_set_transform3(w, box, mk_v3(1, 1, 1), (mk_quat){0, 0, 0, 2}));
            ck_assert(!sim_body_set_transform3(w, box, mk_v3(nan, 1, 1), mk_quat_identity()));
            ck_assert(!sim_body_set_velocity3(w, wall, mk_v3(1, 0, 0)));
            ck_assert(!sim_body_set_spin3(w, kin, mk_v3(1, 0, 0)));
            ck_assert(!sim_body_apply_impulse2(w, box, mk_v2(1, 0), NULL));
        } else {
            ck_assert(!sim_body_set_transform2(w, box, mk_v2(inf, 1), 0));
            ck_assert(!sim_body_set_velocity2(w, wall, mk_v2(1, 0)));
            ck_assert(!sim_body_set_spin2(w, kin, 1));
            ck_assert(!sim_body_set_spin2(w, box, nan));
            ck_assert(!sim_body_apply_impulse3(w, box, mk_v3(1, 0, 0), NULL));
        }
        sim_explosion x = {.pos = mk_v3(0, 0, 0), .radius = nan, .impulse = 1};
        ck_assert_uint_eq(sim_world_explode(w, &x, NULL), 0);
        x.radius = 0.0f;
        ck_assert_uint_eq(sim_world_explode(w, &x, NULL), 0);
        ck_assert_uint_eq(sim_world_hash(w), hash);
        sim_world_free(w);
    }
}
END_TEST

static void to_buf(void *ctx, const char *line, size_t len) { proto_buf_append(ctx, line, len); }

/* A replay's step: its events, before the replay clears them. */
static void collect(void *ctx, const sim_world *w) { ev_append(ctx, w); }

/* A world with filters and sensors, acted on between steps by every call there is: recorded,
 * it replays on the same start to the same hashes (checked at the marks and the end) and the
 * same events. */
static sim_world *acted_world(int dim)
{
    sim_world *w = ev_world(dim, 1);
    ev_ground(w);
    ev_box(w, SIM_STATIC, 0.0f, 1.0f, 4.0f, 1.0f, NULL, true);
    sim_filter odd = {2, UINT64_MAX ^ 2u, -4};
    for (int i = 0; i < 30; i++)
        ev_box(w, SIM_DYNAMIC, -4.0f + 1.1f * (float)(i % 8), 0.6f + 1.2f * (float)(i / 8), 0.5f,
               0.5f, i % 2 ? &odd : NULL, false);
    return w;
}

static void act(sim_world *w, int t)
{
    size_t slots;
    const sim_body *b = sim_world_slots(w, &slots);
    sim_id some = b[2 + (size_t)t % 25].id;
    bool is3 = sim_world_dim(w) == 3;
    mk_vec3 at = mk_v3(0.3f, 1.0f, 0.1f);
    switch (t % 5) {
    case 0:
        push(w, some, mk_v3(1.5f, 3.0f, 0.5f), t % 10 ? &at : NULL);
        break;
    case 1:
        if (is3)
            sim_body_set_transform3(w, some, mk_v3(0.1f * (float)t, 6.0f, 0.3f),
                                    (mk_quat){0, 0.6f, 0, 0.8f});
        else
            sim_body_set_transform2(w, some, mk_v2(0.1f * (float)t, 6.0f), 0.3f);
        break;
    case 2:
        if (is3) {
            sim_body_set_velocity3(w, some, mk_v3(-2, 1, 0.5f));
            sim_body_set_spin3(w, some, mk_v3(1, 2, 3));
        } else {
            sim_body_set_velocity2(w, some, mk_v2(-2, 1));
            sim_body_set_spin2(w, some, 2.5f);
        }
        break;
    case 3: {
        sim_id ignore[1] = {b[3].id};
        sim_explosion x = {.pos = mk_v3(0.5f, 0.2f, 0.0f), .radius = 3.0f, .impulse = 4.0f,
                           .filter = {.ignore = ignore, .ignore_count = 1, .mask = 1}};
        sim_world_explode(w, &x, NULL);
        break;
    }
    default:
        sim_world_remove(w, some);
        break;
    }
}

START_TEST(a_journal_of_pushes_sets_and_explosions_replays_the_same_world_and_events)
{
    for (int dim = 2; dim <= 3; dim++) {
        sim_world *w = acted_world(dim), *replayed = acted_world(dim);
        proto_buf lines;
        proto_buf_init(&lines);
        wio_journal j;
        wio_journal_start(&j, w, to_buf, &lines);
        ev_log live = {0}, again = {0};
        for (int t = 0; t < 240; t++) {
            if (t % 7 == 0)
                act(w, t / 7);
            sim_world_step(w);
            ev_take(w, &live);
            if (t % 60 == 59)
                wio_journal_mark(&j);
        }
        wio_journal_stop(&j);
        const char *const kinds[] = {"\"push\"", "\"set\"", "\"explode\"", "\"despawn\"",
                                     "\"point\"", "\"rot\"", "\"w\"", "\"events\":true"};
        fixture_expect_in_journal(lines.data, kinds, sizeof kinds / sizeof *kinds);
        ck_assert_int_eq(fixture_expect_replay(replayed, w, lines.data, collect, &again), 4);
        ev_expect_same(&live, &again, "replay");
        free(again.at);
        printf("%dD: %zu events over 240 steps; the journal (%zu bytes) replays to the same "
               "hash\n", dim, live.n, lines.len);
        free(live.at);
        proto_buf_free(&lines);
        sim_world_free(w);
        sim_world_free(replayed);
    }
}
END_TEST

static Suite *motion_suite(void)
{
    Suite *s = suite_create("motion");
    MINK_TCASE(s, "teleports", 60, a_static_body_moved_carries_what_lands_where_it_went);
    MINK_TCASE(s, "impulses", 60, a_body_at_rest_given_impulse_j_moves_at_j_over_m,
               an_impulse_off_the_centre_spins_at_r_cross_j_over_i,
               an_explosion_pushes_only_the_bodies_of_its_mask_owner_and_radius,
               what_cannot_be_done_changes_nothing);
    MINK_TCASE(s, "journal", 120,
               a_journal_of_pushes_sets_and_explosions_replays_the_same_world_and_events);
    return s;
}

MINK_CHECK_MAIN(motion_suite)
