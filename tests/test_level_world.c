/* Level bodies in the world (meshes, heightfields, chains, segments), against known answers:
 * a sphere on a tilted mesh rests at the plane's height and rolls down it with the
 * acceleration of a rolling solid sphere, a ray straight down hits the plane's exact height, a
 * box slid across 100 seams of a flat mesh or chain keeps no vertical speed, the same terrain
 * as a heightfield and as a mesh gives the same contacts, a fast body does not tunnel through
 * a floor of one triangle, characters walk up slopes and slide down steeper ones, queries hit
 * the exact triangle, a removed level body stays in the history, and the level file and the
 * world's image bring a level world back bit for bit. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "mink_sim.h"
#include "sim_fixture.h"

#define PI 3.14159265358979323846

static sim_config config(int dim)
{
    sim_config c = sim_config_default();
    c.dim = dim;
    return c;
}

/* An empty world of `dim` with the default settings. */
static sim_world *new_world(int dim)
{
    sim_config c = config(dim);
    return sim_world_new(&c);
}

static sim_level *mesh_level(const mk_vec3 *v, uint32_t nv, const uint32_t *idx, uint32_t ni)
{
    mk_error err = {0};
    col_mesh3_desc d = {v, nv, idx, ni, 1u << 24, COL_ACTIVE_EDGE_COS};
    sim_level *l = sim_level_mesh3(&d, &err);
    ck_assert_msg(l != NULL, "%s", err.message);
    return l;
}

/* A flat grid of cols x rows cells of `cell` m at height 0, x from x0, z from -rows cell / 2,
 * each cell split on its diagonal, facing up. */
static sim_level *grid_mesh(uint32_t cols, uint32_t rows, float cell, float x0)
{
    uint32_t nv = (cols + 1) * (rows + 1), ni = 6 * cols * rows;
    mk_vec3 *v = malloc(nv * sizeof *v);
    uint32_t *idx = malloc(ni * sizeof *idx);
    for (uint32_t j = 0; j <= rows; j++)
        for (uint32_t i = 0; i <= cols; i++)
            v[j * (cols + 1) + i] = mk_v3(x0 + cell * (float)i, 0.0f,
                                          cell * ((float)j - 0.5f * (float)rows));
    uint32_t k = 0;
    for (uint32_t j = 0; j < rows; j++)
        for (uint32_t i = 0; i < cols; i++) {
            uint32_t a = j * (cols + 1) + i, b = a + 1, c = a + cols + 1, d = c + 1;
            uint32_t t[6] = {a, c, d, a, d, b}; /* counter-clockwise from above */
            memcpy(idx + k, t, sizeof t);
            k += 6;
        }
    sim_level *l = mesh_level(v, nv, idx, ni);
    free(v);
    free(idx);
    return l;
}

static sim_id add_level(sim_world *w, const sim_level *l, sim_kind kind)
{
    sim_body_def d;
    memset(&d, 0, sizeof d);
    fixture_defaults(&d, kind);
    d.level = l;
    d.d3.rot = mk_quat_identity();
    sim_id id = sim_world_add(w, &d, 0);
    ck_assert_uint_ne(id, 0);
    return id;
}

static sim_id add3(sim_world *w, col_shape3 shape, sim_kind kind, mk_vec3 pos, mk_vec3 vel,
                   float friction)
{
    static sim_body_def d;
    fixture_body3(&d, shape, kind, pos);
    d.d3.vel = vel;
    d.friction = friction;
    sim_id id = sim_world_add(w, &d, 0);
    ck_assert_uint_ne(id, 0);
    return id;
}

static const sim_body3 *part(sim_world *w, sim_id id)
{
    const sim_body *b = sim_world_get(w, id);
    ck_assert_ptr_nonnull(b);
    return sim_body3_of(w, b);
}

static const col_shape3 SPHERE = {.type = COL_SHAPE3_SPHERE, .radius = 0.5f};
static const col_shape3 BOX = {.type = COL_SHAPE3_BOX, .half = {0.5f, 0.5f, 0.5f}};

/* ---- a tilted plane ---- */

/* A square plane of side 2 L, turned by theta about z through the origin: it falls toward +x,
 * its normal (sin, cos, 0). */
static sim_level *tilted_plane(double theta, float L)
{
    float c = (float)cos(theta), s = (float)sin(theta);
    mk_vec3 v[4] = {{-L * c, L * s, -L}, {L * c, -L * s, -L}, {L * c, -L * s, L},
                    {-L * c, L * s, L}};
    static const uint32_t idx[6] = {0, 2, 1, 0, 3, 2};
    return mesh_level(v, 4, idx, 6);
}

START_TEST(sphere_rests_and_rolls_on_tilted_mesh)
{
    const double theta = 15.0 * PI / 180.0, g = 10.0, r = 0.5;
    sim_config c = config(3);
    sim_world *w = sim_world_new(&c);
    sim_level *plane = tilted_plane(theta, 40.0f);
    add_level(w, plane, SIM_STATIC);
    sim_level_release(plane);
    /* Its centre r above the plane at the origin, at rest. */
    mk_vec3 n = mk_v3((float)sin(theta), (float)cos(theta), 0.0f);
    sim_id id = add3(w, SPHERE, SIM_DYNAMIC, mk_v3_scale(n, (float)r), mk_v3(0, 0, 0), 0.6f);
    /* a = 5/7 g sin theta down the slope (a solid sphere rolling without slipping: I = 2/5 m
     * r^2, and friction 0.6 >= 2/7 tan theta is enough). */
    double a = 5.0 / 7.0 * g * sin(theta);
    mk_vec3 down = mk_v3((float)cos(theta), (float)-sin(theta), 0.0f);
    double worst = 0.0;
    const int steps = 60;
    for (int i = 0; i < steps; i++) {
        sim_world_step(w);
        const sim_body3 *b = part(w, id);
        double height = mk_v3_dot(b->pos, n); /* the centre's distance from the plane */
        worst = fmax(worst, fabs(height - r));
    }
    const sim_body3 *b = part(w, id);
    double t = steps * (double)c.dt, v = mk_v3_dot(b->vel, down);
    printf("tilted mesh: height off by at most %.6f m; speed %.5f m/s after %.2f s, %.5f "
           "expected (a = %.4f m/s^2)\n",
           worst, v, t, a * t, a);
    ck_assert_msg(worst < 1e-3, "the sphere's height is off by %g m", worst);
    ck_assert_msg(fabs(v / t - a) < 0.02 * a, "acceleration %g, %g expected", v / t, a);
    sim_world_free(w);
}
END_TEST

START_TEST(ray_down_hits_plane_height)
{
    const double theta = 15.0 * PI / 180.0;
    sim_world *w = new_world(3);
    sim_level *plane = tilted_plane(theta, 40.0f);
    sim_id id = add_level(w, plane, SIM_STATIC);
    sim_level_release(plane);
    const float xs[4] = {-7.25f, 0.0f, 3.5f, 21.0f}, zs[4] = {2.0f, -9.5f, 0.25f, 30.0f};
    for (int k = 0; k < 4; k++) {
        sim_hit hit;
        size_t total;
        int n = sim_world_raycast(w, sim_world_tick(w), mk_v3(xs[k], 50.0f, zs[k]),
                                  mk_v3(xs[k], -50.0f, zs[k]), NULL, false, &hit, 1, &total);
        ck_assert_int_eq(n, 1);
        ck_assert_uint_eq(hit.id, id);
        double expect = -tan(theta) * xs[k]; /* the plane's height at x */
        ck_assert_msg(fabs(hit.point.y - expect) < 1e-5 * (1.0 + fabs(expect)),
                      "at x %g: %.7f, %.7f expected", (double)xs[k], (double)hit.point.y, expect);
        ck_assert_float_eq_tol(hit.normal.x, sin(theta), 1e-6);
        ck_assert_float_eq_tol(hit.normal.y, cos(theta), 1e-6);
    }
    sim_world_free(w);
}
END_TEST

/* ---- seams ---- */

START_TEST(box_slides_across_mesh_seams)
{
    sim_world *w = new_world(3);
    sim_level *floor = grid_mesh(112, 2, 1.0f, -2.0f); /* 224 cells, seams every 1 m */
    add_level(w, floor, SIM_STATIC);
    sim_level_release(floor);
    sim_id id = add3(w, BOX, SIM_DYNAMIC, mk_v3(0.0f, 0.5f, 0.0f), mk_v3(6.0f, 0, 0), 0.0f);
    float worst = 0.0f;
    double x0 = 0.0;
    for (int i = 0; i < 60 * 20 && part(w, id)->pos.x < 105.0f; i++) {
        sim_world_step(w);
        if (i == 30)
            x0 = part(w, id)->pos.x;
        if (i >= 30)
            worst = mk_maxf(worst, fabsf(part(w, id)->vel.y));
    }
    const sim_body3 *b = part(w, id);
    printf("mesh seams: %.1f m crossed, |vy| at most %.6f m/s, vx %.4f m/s\n", b->pos.x - x0,
           (double)worst, (double)b->vel.x);
    ck_assert(b->pos.x - x0 > 100.0);
    ck_assert_msg(worst < 1e-3f, "the box bumped: |vy| %g m/s", (double)worst);
    ck_assert_float_eq_tol(b->vel.x, 6.0f, 0.01f);
    sim_world_free(w);
}
END_TEST

START_TEST(box_slides_across_chain_seams)
{
    sim_world *w = new_world(2);
    /* Ground along y = 0 from x = -3 to 118, drawn right to left so that it faces up. */
    enum { N = 124 };
    mk_vec2 p[N];
    for (int i = 0; i < N; i++)
        p[i] = mk_v2(119.0f - (float)i, 0.0f);
    mk_error err = {0};
    sim_level *chain = sim_level_chain2(p, N, false, 1u << 20, &err);
    ck_assert_msg(chain != NULL, "%s", err.message);
    add_level(w, chain, SIM_STATIC);
    sim_level_release(chain);
    sim_body_def d = fixture_rect(COL_SHAPE_BOX, SIM_DYNAMIC, 0.0f, 0.5f, 0.5f, 0.5f);
    d.vel = mk_v2(6.0f, 0.0f);
    d.friction = 0.0f;
    sim_id id = sim_world_add(w, &d, 0);
    float worst = 0.0f, x0 = 0.0f;
    for (int i = 0; i < 60 * 20 && sim_world_get(w, id)->pos.x < 110.0f; i++) {
        sim_world_step(w);
        const sim_body *b = sim_world_get(w, id);
        if (i == 30)
            x0 = b->pos.x;
        if (i >= 30)
            worst = mk_maxf(worst, fabsf(b->vel.y));
    }
    const sim_body *b = sim_world_get(w, id);
    printf("chain seams: %.1f m crossed, |vy| at most %.6f m/s, vx %.4f m/s\n",
           (double)(b->pos.x - x0), (double)worst, (double)b->vel.x);
    ck_assert(b->pos.x - x0 > 100.0f);
    ck_assert_msg(worst < 1e-3f, "the box bumped: |vy| %g m/s", (double)worst);
    ck_assert_float_eq_tol(b->vel.x, 6.0f, 0.01f);
    sim_world_free(w);
}
END_TEST

/* ---- rolling over 2D levels ---- */

/* A disc of radius r at x, y on the world's 2D level, at rest (friction 0.6). */
static sim_id disc2(sim_world *w, float x, float y, float r, float vx)
{
    sim_body_def d = fixture_rect(COL_SHAPE_CIRCLE, SIM_DYNAMIC, x, y, 0.0f, 0.0f);
    d.shape.radius = r;
    d.vel = mk_v2(vx, 0.0f);
    d.friction = 0.6f;
    sim_id id = sim_world_add(w, &d, 0);
    ck_assert_uint_ne(id, 0);
    return id;
}

/* A disc let go 30 degrees up a circular bowl (a chain of 160 segments) rolls to and fro as a
 * pendulum: its centre moves on a circle of radius R - r and a rolling disc has the inertia
 * of 3/2 its mass there, so T = 4 sqrt(3 (R - r) / (2 g)) K(sin(theta0 / 2)) (the exact
 * period of a pendulum of that amplitude, K by the arithmetic-geometric mean). At the bottom
 * it moves 2.9 m/s, so every step of it is swept; a sweep that stopped at the segment it
 * rolls on would hold it where it is for good. */
START_TEST(disc_rolls_in_a_chain_bowl_with_the_period_of_a_rolling_pendulum)
{
    const double R = 5.0, r = 0.25, g = 10.0, theta0 = 30.0 * PI / 180.0;
    enum { N = 160 };
    mk_vec2 p[N + 3];
    for (int i = 0; i < N + 3; i++) { /* from 81 degrees right to 81 left: it faces up */
        double phi = (81.0 - 162.0 * i / (N + 2)) * PI / 180.0;
        p[i] = mk_v2((float)(R * sin(phi)), (float)(R - R * cos(phi)));
    }
    sim_world *w = new_world(2);
    mk_error err = {0};
    sim_level *bowl = sim_level_chain2(p, N + 3, false, 1u << 20, &err);
    ck_assert_msg(bowl != NULL, "%s", err.message);
    add_level(w, bowl, SIM_STATIC);
    sim_level_release(bowl);
    sim_id id = disc2(w, (float)((R - r) * sin(theta0)), (float)(R - (R - r) * cos(theta0)),
                      (float)r, 0.0f);
    double crossings[8];
    int n = 0;
    float last = sim_world_get(w, id)->pos.x;
    for (int i = 1; i <= 60 * 24 && n < 8; i++) {
        sim_world_step(w);
        float x = sim_world_get(w, id)->pos.x;
        if ((last > 0.0f) != (x > 0.0f)) /* through the bottom, between two steps */
            crossings[n++] = (i - 1 + (double)last / ((double)last - x)) / 60.0;
        last = x;
    }
    double a = 1.0, b = cos(theta0 / 2.0); /* AGM(1, sqrt(1 - k^2)), k = sin(theta0 / 2) */
    for (int k = 0; k < 30; k++) {
        double m = 0.5 * (a + b);
        b = sqrt(a * b);
        a = m;
    }
    double T = 4.0 * sqrt(1.5 * (R - r) / g) * (PI / (2.0 * a));
    ck_assert_msg(n == 8, "the disc crossed the bottom %d times in 24 s", n);
    double measured = 2.0 * (crossings[7] - crossings[1]) / 6.0;
    printf("chain bowl: period %.4f s, %.4f s expected\n", measured, T);
    ck_assert_msg(fabs(measured - T) < 0.01 * T, "period %g s, %g expected", measured, T);
    sim_world_free(w);
}
END_TEST

/* A disc let go on a segment tilted 20 degrees rolls down it with a = 2/3 g sin theta (a
 * disc rolling without slipping: I = 1/2 m r^2; friction 0.6 >= 1/3 tan theta is enough);
 * from 0.4 s on it moves more than 2 cm a step, so its steps are swept. */
START_TEST(disc_rolls_down_a_tilted_segment)
{
    const double theta = 20.0 * PI / 180.0, g = 10.0, r = 0.25;
    const float c = (float)cos(theta), s = (float)sin(theta);
    sim_world *w = new_world(2);
    mk_error err = {0};
    /* From (-40 c, 40 s) down to (40 c, -40 s), its top face up: a segment is two-sided. */
    sim_level *slope = sim_level_segment2(mk_v2(-40.0f * c, 40.0f * s),
                                          mk_v2(40.0f * c, -40.0f * s), &err);
    ck_assert_msg(slope != NULL, "%s", err.message);
    add_level(w, slope, SIM_STATIC);
    sim_level_release(slope);
    sim_id id = disc2(w, (float)r * s, (float)r * c, (float)r, 0.0f);
    const int steps = 150;
    for (int i = 0; i < steps; i++)
        sim_world_step(w);
    const sim_body *b = sim_world_get(w, id);
    double t = steps / 60.0, a = 2.0 / 3.0 * g * sin(theta);
    double v = (double)b->vel.x * c - (double)b->vel.y * s; /* along the slope, down */
    printf("tilted segment: %.4f m/s after %.2f s, %.4f expected\n", v, t, a * t);
    ck_assert_msg(fabs(v / t - a) < 0.02 * a, "acceleration %g, %g expected", v / t, a);
    sim_world_free(w);
}
END_TEST

/* ---- heightfield and mesh ---- */

#define HF_N 17
/* Rolling hills: h(i, j) = 0.6 sin(0.5 i) cos(0.4 j) on a 1 m grid. */
static float hill(uint32_t i, uint32_t j)
{
    return 0.6f * sinf(0.5f * (float)i) * cosf(0.4f * (float)j);
}

static sim_level *hills_heightfield(void)
{
    float h[HF_N * HF_N];
    for (uint32_t j = 0; j < HF_N; j++)
        for (uint32_t i = 0; i < HF_N; i++)
            h[j * HF_N + i] = hill(i, j);
    col_heightfield3_desc d = {HF_N, HF_N, {1, 1, 1}, h, NULL, 1u << 24, COL_ACTIVE_EDGE_COS};
    mk_error err = {0};
    sim_level *l = sim_level_heightfield3(&d, &err);
    ck_assert_msg(l != NULL, "%s", err.message);
    return l;
}

/* The same triangles as a mesh: cell (i, j)'s (i,j), (i,j+1), (i+1,j+1) and (i,j), (i+1,j+1),
 * (i+1,j) (col_heightfield3's layout). */
static sim_level *hills_mesh(void)
{
    mk_vec3 v[HF_N * HF_N];
    uint32_t idx[6 * (HF_N - 1) * (HF_N - 1)], k = 0;
    for (uint32_t j = 0; j < HF_N; j++)
        for (uint32_t i = 0; i < HF_N; i++)
            v[j * HF_N + i] = mk_v3((float)i, hill(i, j), (float)j);
    for (uint32_t j = 0; j + 1 < HF_N; j++)
        for (uint32_t i = 0; i + 1 < HF_N; i++) {
            uint32_t a = j * HF_N + i, b = a + 1, cc = a + HF_N, d = cc + 1;
            uint32_t t[6] = {a, cc, d, a, d, b};
            memcpy(idx + k, t, sizeof t);
            k += 6;
        }
    return mesh_level(v, HF_N * HF_N, idx, k);
}

/* Bodies dropped on the terrain, stepped for 3 s: their places at the end. */
static void drop_on(const sim_level *terrain, mk_vec3 out[6])
{
    sim_world *w = new_world(3);
    add_level(w, terrain, SIM_STATIC);
    sim_id ids[6];
    for (int k = 0; k < 6; k++) {
        mk_vec3 at = mk_v3(2.3f + 2.1f * (float)k, 1.5f + 0.2f * (float)k, 3.1f + 1.7f * (float)k);
        ids[k] = add3(w, k % 2 ? BOX : SPHERE, SIM_DYNAMIC, at, mk_v3(0, 0, 0), 0.6f);
    }
    for (int i = 0; i < 180; i++)
        sim_world_step(w);
    for (int k = 0; k < 6; k++)
        out[k] = part(w, ids[k])->pos;
    sim_world_free(w);
}

START_TEST(heightfield_and_mesh_agree)
{
    sim_level *hf = hills_heightfield(), *mesh = hills_mesh();
    ck_assert_uint_eq(sim_level_pieces(hf), sim_level_pieces(mesh));
    /* The same placements give the same contacts: every piece's manifold. */
    sim_config c = config(3);
    sim_world *wh = sim_world_new(&c), *wm = sim_world_new(&c);
    sim_id lh = add_level(wh, hf, SIM_STATIC), lm = add_level(wm, mesh, SIM_STATIC);
    for (int k = 0; k < 10; k++) {
        float x = 1.7f + 1.3f * (float)k, z = 2.2f + 1.1f * (float)k;
        float y = hill((uint32_t)x, (uint32_t)z) + 0.3f;
        mk_vec3 at = mk_v3(x, y, z);
        add3(wh, k % 2 ? BOX : SPHERE, SIM_DYNAMIC, at, mk_v3(0, 0, 0), 0.6f);
        add3(wm, k % 2 ? BOX : SPHERE, SIM_DYNAMIC, at, mk_v3(0, 0, 0), 0.6f);
    }
    sim_world_step(wh);
    sim_world_step(wm);
    size_t nh, nm;
    const sim_contact3 *ch = sim_world_contacts3(wh, &nh), *cm = sim_world_contacts3(wm, &nm);
    ck_assert_uint_gt(nh, 5);
    ck_assert_uint_eq(nh, nm);
    /* Matched body by body (the same ids in both worlds), deepest first. */
    for (size_t i = 0; i < nh; i++) {
        bool found = false;
        for (size_t j = 0; j < nm && !found; j++) {
            if (ch[i].a != cm[j].a || ch[i].b != cm[j].b)
                continue;
            if (mk_v3_len(mk_v3_sub(ch[i].m.normal, cm[j].m.normal)) > 1e-5f ||
                fabsf(ch[i].m.depth - cm[j].m.depth) > 1e-5f || ch[i].m.count != cm[j].m.count)
                continue;
            found = true;
        }
        ck_assert_msg(found, "contact %zu of the heightfield has no twin on the mesh", i);
    }
    (void)lh;
    (void)lm;
    sim_world_free(wh);
    sim_world_free(wm);
    /* And they roll to the same places. */
    mk_vec3 ph[6], pm[6];
    drop_on(hf, ph);
    drop_on(mesh, pm);
    for (int k = 0; k < 6; k++) {
        float d = mk_v3_len(mk_v3_sub(ph[k], pm[k]));
        printf("body %d: heightfield (%.4f, %.4f, %.4f), mesh %.2e m away\n", k, (double)ph[k].x,
               (double)ph[k].y, (double)ph[k].z, (double)d);
        ck_assert_msg(d < 1e-3f, "body %d ends %g m apart", k, (double)d);
    }
    sim_level_release(hf);
    sim_level_release(mesh);
}
END_TEST

/* ---- tunnelling ---- */

START_TEST(fast_body_stops_on_one_triangle)
{
    sim_world *w = new_world(3);
    mk_vec3 v[3] = {{-20, 0, -20}, {-20, 0, 20}, {30, 0, 0}};
    static const uint32_t idx[3] = {0, 1, 2};
    sim_level *tri = mesh_level(v, 3, idx, 3);
    add_level(w, tri, SIM_STATIC);
    sim_level_release(tri);
    const col_shape3 small = {.type = COL_SHAPE3_SPHERE, .radius = 0.05f};
    sim_id ball = add3(w, small, SIM_DYNAMIC, mk_v3(0, 3, 0), mk_v3(0, -80, 0), 0.6f);
    const col_shape3 plate = {.type = COL_SHAPE3_BOX, .half = {0.2f, 0.02f, 0.2f}};
    sim_id box = add3(w, plate, SIM_DYNAMIC, mk_v3(3, 3, 0), mk_v3(0, -120, 0), 0.6f);
    for (int i = 0; i < 120; i++)
        sim_world_step(w);
    printf("one triangle: ball at y %.5f, plate at y %.5f\n", (double)part(w, ball)->pos.y,
           (double)part(w, box)->pos.y);
    ck_assert_float_eq_tol(part(w, ball)->pos.y, 0.05f, 2e-3f);
    ck_assert_float_eq_tol(part(w, box)->pos.y, 0.02f, 2e-3f);
    sim_world_free(w);
}
END_TEST

/* A ball and a box sliding at 30 m/s (0.5 m a step) over a floor toward a wall of one
 * triangle of the same mesh: each step's level pair bounds how far the wall is, and the sweep
 * is skipped only while the body cannot reach it, so neither passes through the wall (a
 * triangle's back is not collided); the ball, which cannot turn over, stops against it. */
START_TEST(fast_body_stops_at_wall_of_its_floor)
{
    sim_world *w = new_world(3);
    static const mk_vec3 v[7] = {{-10, 0, -10}, {-10, 0, 10}, {20, 0, 10}, {20, 0, -10},
                                 {5, -1, -5},   {5, -1, 5},   {5, 6, 0}};
    static const uint32_t idx[9] = {0, 1, 2, 0, 2, 3, 4, 5, 6}; /* the wall faces -x */
    sim_level *l = mesh_level(v, 7, idx, 9);
    add_level(w, l, SIM_STATIC);
    sim_level_release(l);
    const col_shape3 ball = {.type = COL_SHAPE3_SPHERE, .radius = 0.1f};
    const col_shape3 box = {.type = COL_SHAPE3_BOX, .half = {0.1f, 0.1f, 0.1f}};
    sim_id b1 = add3(w, ball, SIM_DYNAMIC, mk_v3(-3, 0.1f, -2), mk_v3(30, 0, 0), 0.0f);
    sim_id b2 = add3(w, box, SIM_DYNAMIC, mk_v3(-3, 0.1f, 2), mk_v3(30, 0, 0), 0.0f);
    for (int i = 0; i < 60; i++)
        sim_world_step(w);
    printf("wall at x 5: ball at x %.4f, box at x %.4f\n", (double)part(w, b1)->pos.x,
           (double)part(w, b2)->pos.x);
    ck_assert_float_eq_tol(part(w, b1)->pos.x, 4.9f, 5e-3f);
    /* The box may come to rest short of the wall, never past it. */
    ck_assert_float_le(part(w, b2)->pos.x, 4.9f + 5e-3f);
    ck_assert_float_gt(part(w, b2)->pos.x, 4.0f);
    sim_world_free(w);
}
END_TEST

START_TEST(fast_body_stops_on_chain)
{
    sim_world *w = new_world(2);
    const mk_vec2 p[4] = {{30, 0}, {10, 0}, {-10, 0}, {-30, 0}};
    mk_error err = {0};
    sim_level *chain = sim_level_chain2(p, 4, false, 16, &err);
    ck_assert_ptr_nonnull(chain);
    add_level(w, chain, SIM_STATIC);
    sim_level_release(chain);
    sim_body_def d = fixture_rect(COL_SHAPE_CIRCLE, SIM_DYNAMIC, 0.0f, 3.0f, 0, 0);
    d.shape.radius = 0.05f;
    d.vel = mk_v2(0.0f, -90.0f);
    sim_id ball = sim_world_add(w, &d, 0);
    for (int i = 0; i < 120; i++)
        sim_world_step(w);
    ck_assert_float_eq_tol(sim_world_get(w, ball)->pos.y, 0.05f, 2e-3f);
    sim_world_free(w);
}
END_TEST

/* ---- characters ---- */

static const col_shape3 CAPSULE = {.type = COL_SHAPE3_CAPSULE, .radius = 0.3f, .half_height = 0.5f};

/* A character on a ramp of `deg` degrees rising toward +x (a mesh), asked to walk up it for 2
 * s: how far it rose, and whether it stood on the ramp at the end. */
static float walk_up(double deg, bool *grounded)
{
    double theta = deg * PI / 180.0;
    sim_world *w = new_world(3);
    sim_level *ramp = tilted_plane(-theta, 30.0f); /* rising toward +x */
    add_level(w, ramp, SIM_STATIC);
    sim_level_release(ramp);
    mk_vec3 n = mk_v3((float)-sin(theta), (float)cos(theta), 0.0f);
    sim_id id = add3(w, CAPSULE, SIM_CHARACTER, mk_v3_scale(n, 0.81f), mk_v3(0, 0, 0), 0.6f);
    for (int i = 0; i < 20; i++)
        sim_world_step(w);
    float y0 = part(w, id)->pos.y;
    sim_body_set_input3(w, id, mk_v3(1, 0, 0), false);
    for (int i = 0; i < 120; i++)
        sim_world_step(w);
    *grounded = sim_world_get(w, id)->grounded;
    float rose = part(w, id)->pos.y - y0;
    sim_world_free(w);
    return rose;
}

START_TEST(character_walks_up_walkable_slopes_only)
{
    bool grounded;
    /* 30 degrees: walkable (the default max_slope is 50). It runs at 5 m/s across up, so it
     * rises 5 tan 30 m/s for 2 s, less the 0.08 s ramp to that speed (half of it lost). */
    float rose = walk_up(30.0, &grounded);
    double expect = 5.0 * tan(PI / 6.0) * (2.0 - 0.04);
    printf("30 degrees: rose %.3f m, %.3f expected\n", (double)rose, expect);
    ck_assert(grounded);
    ck_assert_float_eq_tol(rose, expect, 0.05);
    /* 65 degrees: too steep to stand on; it does not climb. */
    rose = walk_up(65.0, &grounded);
    printf("65 degrees: rose %.3f m\n", (double)rose);
    ck_assert(rose < 0.0f);
}
END_TEST

START_TEST(character_stands_on_heightfield_hill)
{
    sim_world *w = new_world(3);
    sim_level *hf = hills_heightfield();
    add_level(w, hf, SIM_STATIC);
    sim_level_release(hf);
    /* On a slope of the hills, no input: it stands where it landed. */
    sim_id id = add3(w, CAPSULE, SIM_CHARACTER, mk_v3(4.3f, 2.5f, 7.6f), mk_v3(0, 0, 0), 0.6f);
    for (int i = 0; i < 60; i++)
        sim_world_step(w);
    mk_vec3 at = part(w, id)->pos;
    ck_assert(sim_world_get(w, id)->grounded);
    for (int i = 0; i < 120; i++) {
        sim_world_step(w);
        ck_assert(sim_world_get(w, id)->grounded);
    }
    float moved = mk_v3_len(mk_v3_sub(part(w, id)->pos, at));
    printf("character on a hill: moved %.6f m in 2 s\n", (double)moved);
    ck_assert_msg(moved < 1e-3f, "it slid %g m", (double)moved);
    /* It walks across the cells' seams on the ground. */
    sim_body_set_input3(w, id, mk_v3(1, 0, 0.3f), false);
    for (int i = 0; i < 90; i++) {
        sim_world_step(w);
        ck_assert_msg(sim_world_get(w, id)->grounded, "in the air at step %d", i);
    }
    ck_assert(part(w, id)->pos.x > at.x + 4.0f);
    sim_world_free(w);
}
END_TEST

/* ---- queries and the history ---- */

START_TEST(queries_hit_levels)
{
    sim_world *w = new_world(3);
    ck_assert(sim_world_set_history(w, 30));
    sim_level *hf = hills_heightfield();
    sim_id id = add_level(w, hf, SIM_STATIC);
    sim_level_release(hf);
    /* A cast sphere straight down stops where it touches the terrain; an overlap of a sphere
     * sunk into it reports the terrain. */
    sim_query_shape s = {.shape3 = SPHERE, .xf3 = {{5.0f, 5.0f, 5.0f}, {0, 0, 0, 1}}};
    sim_hit hit;
    ck_assert_int_eq(sim_world_cast(w, sim_world_tick(w), &s, mk_v3(0, -10, 0), NULL, &hit), 1);
    ck_assert_uint_eq(hit.id, id);
    ck_assert(hit.normal.y > 0.5f);
    float y_at = 5.0f - 10.0f * hit.fraction;
    s.xf3.p = mk_v3(5.0f, y_at - 0.05f, 5.0f);
    sim_hit hits[4];
    size_t total;
    ck_assert_int_eq(sim_world_overlap(w, sim_world_tick(w), &s, NULL, hits, 4, &total), 1);
    ck_assert(hits[0].depth > 0.04f && hits[0].depth < 0.06f);
    /* Removed, it is still hit at the ticks before. */
    for (int i = 0; i < 5; i++)
        sim_world_step(w);
    uint64_t before = sim_world_tick(w);
    sim_world_remove(w, id);
    sim_world_step(w);
    mk_vec3 from = mk_v3(5.0f, 10.0f, 5.0f), to = mk_v3(5.0f, -10.0f, 5.0f);
    ck_assert_int_eq(sim_world_raycast(w, sim_world_tick(w), from, to, NULL, false, &hit, 1, &total), 0);
    ck_assert_int_eq(sim_world_raycast(w, before, from, to, NULL, false, &hit, 1, &total), 1);
    ck_assert_uint_eq(hit.id, id);
    sim_world_free(w);
}
END_TEST

/* ---- the level file and the world's image ---- */

typedef struct buf {
    uint8_t *data;
    size_t len, cap;
} buf;

static void put(void *ctx, const void *data, size_t len)
{
    buf *b = ctx;
    if (b->len + len > b->cap) {
        b->cap = 2 * (b->len + len);
        b->data = realloc(b->data, b->cap);
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
}

static buf file_of(const sim_level *l)
{
    buf b = {0};
    sim_level_write(l, put, &b);
    return b;
}

START_TEST(level_file_round_trip)
{
    const mk_vec2 p[6] = {{0, 0}, {4, 0}, {6, 2}, {4, 4}, {0, 4}, {-1, 2}};
    mk_error err = {0};
    sim_level *levels[4] = {grid_mesh(7, 5, 0.5f, -1.0f), hills_heightfield(),
                            sim_level_chain2(p, 6, true, 64, &err),
                            sim_level_segment2(mk_v2(-1, 0), mk_v2(3, 1), &err)};
    for (int k = 0; k < 4; k++) {
        buf a = file_of(levels[k]);
        sim_level *back = sim_level_read(a.data, a.len, &err);
        ck_assert_msg(back != NULL, "%s", err.message);
        ck_assert_int_eq(sim_level_kind_of(back), sim_level_kind_of(levels[k]));
        ck_assert_uint_eq(sim_level_pieces(back), sim_level_pieces(levels[k]));
        buf b = file_of(back);
        ck_assert_uint_eq(a.len, b.len);
        ck_assert(memcmp(a.data, b.data, a.len) == 0);
        /* Every prefix is refused, and so is every byte changed in turn, or it reads back
         * as a level that can be walked (the reader checks what a walk follows). */
        for (size_t cut = 0; cut < a.len; cut++)
            ck_assert_ptr_null(sim_level_read(a.data, cut, &err));
        for (size_t at = 0; at < a.len; at += 3) {
            a.data[at] ^= 0xA5;
            sim_level *x = sim_level_read(a.data, a.len, &err);
            if (x && sim_level_dim(x) == 3) {
                sim_hit hit;
                size_t total;
                sim_world *w = new_world(3);
                add_level(w, x, SIM_STATIC);
                sim_world_raycast(w, 0, mk_v3(1, 9, 1), mk_v3(2, -9, 3), NULL, true, &hit, 1,
                                  &total);
                sim_world_free(w);
            }
            sim_level_release(x);
            a.data[at] ^= 0xA5;
        }
        free(a.data);
        free(b.data);
        sim_level_release(back);
        sim_level_release(levels[k]);
    }
}
END_TEST

static const sim_level *resolve_one(void *ctx, const uint8_t key[SIM_LEVEL_KEY], mk_error *err)
{
    const sim_level *l = ctx;
    if (memcmp(key, sim_level_key(l), SIM_LEVEL_KEY) != 0) {
        mk_fail(err, MK_ERR_INVALID, "no such level");
        return NULL;
    }
    /* A level read back from its file, as a restart has it. */
    buf f = file_of(l);
    sim_level *back = sim_level_read(f.data, f.len, err);
    free(f.data);
    if (back)
        sim_level_set_key(back, key);
    return back;
}

START_TEST(image_brings_a_level_world_back)
{
    sim_world *w = new_world(3);
    sim_level *hf = hills_heightfield();
    uint8_t key[SIM_LEVEL_KEY];
    for (int i = 0; i < SIM_LEVEL_KEY; i++)
        key[i] = (uint8_t)(7 * i + 1);
    sim_level_set_key(hf, key);
    add_level(w, hf, SIM_STATIC);
    for (int k = 0; k < 12; k++)
        add3(w, k % 3 ? BOX : SPHERE, SIM_DYNAMIC,
             mk_v3(2.0f + 1.1f * (float)k, 2.0f + 0.3f * (float)k, 3.0f + 0.8f * (float)k),
             mk_v3(0.5f, 0, 0.2f), 0.6f);
    for (int i = 0; i < 40; i++)
        sim_world_step(w);
    size_t n = sim_world_image_size(w);
    uint8_t *img = malloc(n);
    sim_world_image_copy(w, img);
    mk_error err = {0};
    ck_assert_ptr_null(sim_world_from_image(img, n, &err)); /* no store of levels given */
    sim_world *back = sim_world_from_image_levels(img, n, resolve_one, hf, &err);
    ck_assert_msg(back != NULL, "%s", err.message);
    ck_assert_uint_eq(sim_world_hash(back), sim_world_hash(w));
    for (int i = 0; i < 200; i++) {
        sim_world_step(w);
        sim_world_step(back);
        ck_assert_uint_eq(sim_world_hash(back), sim_world_hash(w));
    }
    const sim_level **levels;
    size_t nl;
    ck_assert(sim_world_levels(back, &levels, &nl));
    ck_assert_uint_eq(nl, 1);
    ck_assert(memcmp(sim_level_key(levels[0]), key, SIM_LEVEL_KEY) == 0);
    free(levels);
    free(img);
    sim_world_free(back);
    sim_world_free(w);
    sim_level_release(hf);
}
END_TEST

/* ---- sleeping, stacking and the workers ---- */

/* 300 boxes in two layers dropped on a terrain (the hills, or a flat mesh of 1 m cells),
 * stepped for 10 s: the world's hash, and how many boxes are awake at the end. */
static uint64_t pile_on(const sim_level *terrain, int workers, int *awake)
{
    sim_config c = config(3);
    c.workers = workers;
    sim_world *w = sim_world_new(&c);
    add_level(w, terrain, SIM_STATIC);
    for (int k = 0; k < 300; k++) {
        float x = 1.0f + 1.2f * (float)(k % 13), z = 1.0f + 1.2f * (float)(k / 13 % 13);
        add3(w, BOX, SIM_DYNAMIC, mk_v3(x, 1.5f + 1.2f * (float)(k / 169), z), mk_v3(0, 0, 0),
             0.6f);
    }
    for (int i = 0; i < 600; i++)
        sim_world_step(w);
    size_t n;
    const sim_body *b = sim_world_slots(w, &n);
    *awake = 0;
    for (size_t i = 0; i < n; i++)
        *awake += b[i].id != 0 && b[i].kind == SIM_DYNAMIC && !b[i].sleeping;
    uint64_t h = sim_world_hash(w);
    sim_world_free(w);
    return h;
}

START_TEST(piles_sleep_and_any_workers_agree)
{
    sim_level *flat = grid_mesh(20, 40, 1.0f, -2.0f), *hills = hills_heightfield();
    int awake1, awake2, awake4;
    uint64_t h1 = pile_on(flat, 1, &awake1);
    uint64_t h2 = pile_on(flat, 2, &awake2);
    uint64_t h4 = pile_on(flat, 4, &awake4);
    printf("300 boxes on a flat mesh, 10 s: hash %016llx, %d awake\n", (unsigned long long)h1,
           awake1);
    ck_assert_uint_eq(h1, h2);
    ck_assert_uint_eq(h1, h4);
    /* Pinned: the same bits in every build (debug, asan, release) and with any workers. */
    ck_assert_uint_eq(h1, 0x4f74f2dce6b22f85ull);
    ck_assert_int_eq(awake1, 0);
    /* On the hills a box that came to straddle a ridge may rock on it (an unstable rest); one
     * that rocks by millimetres rests all the same (its points stay near where its rest began),
     * and the rest sleep: of 300, 11 were still awake when only slow points rested. */
    h1 = pile_on(hills, 1, &awake1);
    h4 = pile_on(hills, 4, &awake4);
    printf("300 boxes on the hills, 10 s: hash %016llx, %d awake\n", (unsigned long long)h1,
           awake1);
    ck_assert_uint_eq(h1, h4);
    ck_assert_uint_eq(h1, 0x50364e456421bfb5ull);
    ck_assert_int_le(awake1, 8);
    sim_level_release(flat);
    sim_level_release(hills);
}
END_TEST

START_TEST(levels_only_for_fixed_bodies_of_the_dimension)
{
    sim_config c = config(3);
    sim_world *w = sim_world_new(&c);
    sim_level *hf = hills_heightfield();
    sim_body_def d;
    memset(&d, 0, sizeof d);
    fixture_defaults(&d, SIM_DYNAMIC);
    d.level = hf;
    d.d3.rot = mk_quat_identity();
    ck_assert_uint_eq(sim_world_add(w, &d, 0), 0);
    d.kind = SIM_CHARACTER;
    ck_assert_uint_eq(sim_world_add(w, &d, 0), 0);
    d.kind = SIM_KINEMATIC;
    ck_assert_uint_ne(sim_world_add(w, &d, 0), 0);
    sim_world_free(w);
    c = config(2);
    w = sim_world_new(&c);
    d.kind = SIM_STATIC;
    ck_assert_uint_eq(sim_world_add(w, &d, 0), 0); /* a 3D level in a 2D world */
    sim_world_free(w);
    sim_level_release(hf);
}
END_TEST

MINK_CHECK_TESTS("level_world", 120, sphere_rests_and_rolls_on_tilted_mesh,
                 disc_rolls_in_a_chain_bowl_with_the_period_of_a_rolling_pendulum,
                 disc_rolls_down_a_tilted_segment,
                 ray_down_hits_plane_height, box_slides_across_mesh_seams,
                 box_slides_across_chain_seams, heightfield_and_mesh_agree,
                 fast_body_stops_on_one_triangle, fast_body_stops_at_wall_of_its_floor,
                 fast_body_stops_on_chain,
                 character_walks_up_walkable_slopes_only, character_stands_on_heightfield_hill,
                 queries_hit_levels, level_file_round_trip, image_brings_a_level_world_back,
                 piles_sleep_and_any_workers_agree,
                 levels_only_for_fixed_bodies_of_the_dimension)
