/* mink_collision, 3D level geometry against independent answers: a heightfield against the
 * mesh of its own triangles (the same triangles, active edges, manifolds and casts, bit for
 * bit), and the hierarchy of a mesh and the cells of a heightfield against a brute force over
 * every triangle (thousands of random boxes and rays). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "level_check.h"
#include "mink_collision.h"
#include "shapes_check.h"

#define PI 3.14159265358979323846

/* ---- a heightfield and the mesh of its triangles ---- */

#define HF_COLS 21
#define HF_ROWS 17

static void terrain(float heights[HF_ROWS * HF_COLS], uint8_t holes[(HF_ROWS - 1) * (HF_COLS - 1)])
{
    for (int j = 0; j < HF_ROWS; j++)
        for (int i = 0; i < HF_COLS; i++)
            heights[j * HF_COLS + i] = (float)(sin(0.4 * i) * cos(0.3 * j) + 0.1 * rnd(-1, 1));
    /* Flat patches, where edges are inactive, and a few holes. */
    for (int j = 2; j < 7; j++)
        for (int i = 3; i < 9; i++)
            heights[j * HF_COLS + i] = 0.5f;
    memset(holes, 0, (HF_ROWS - 1) * (HF_COLS - 1));
    holes[5 * (HF_COLS - 1) + 12] = holes[5 * (HF_COLS - 1) + 13] = holes[9 * (HF_COLS - 1) + 4] = 1;
}

/* The test terrain of the generator seeded with `seed`, samples 0.7 m by 0.9 m apart. */
static col_heightfield3 build_hf(uint64_t seed)
{
    rng_state = seed;
    float heights[HF_ROWS * HF_COLS];
    uint8_t holes[(HF_ROWS - 1) * (HF_COLS - 1)];
    terrain(heights, holes);
    col_heightfield3 h;
    mk_error err = {0};
    col_heightfield3_desc d = {HF_COLS, HF_ROWS, {0.7f, 1.3f, 0.9f}, heights, holes, 1u << 20,
                               COL_ACTIVE_EDGE_COS};
    ck_assert_msg(col_heightfield3_build(&d, &h, &err) == 0, "%s", err.message);
    return h;
}

/* The mesh of the heightfield's triangles, in its order; map[k]: the heightfield index of
 * the mesh's input triangle k. */
static col_mesh3 mesh_of_hf(const col_heightfield3 *h, uint32_t *map)
{
    uint32_t nv = h->cols * h->rows;
    mk_vec3 *v = malloc(nv * sizeof *v);
    uint32_t *idx = malloc(3 * h->tri_count * sizeof *idx);
    for (uint32_t j = 0; j < h->rows; j++)
        for (uint32_t i = 0; i < h->cols; i++)
            v[j * h->cols + i] = col_heightfield3_vertex(h, i, j);
    uint32_t n = 0;
    for (uint32_t t = 0; t < h->tri_count; t++) {
        col_triangle3 tri;
        if (!col_heightfield3_triangle(h, IDENTITY, t, &tri))
            continue;
        uint32_t c = t / 2, i = c % (h->cols - 1), j = c / (h->cols - 1);
        uint32_t p00 = j * h->cols + i, p01 = p00 + h->cols, p11 = p01 + 1, p10 = p00 + 1;
        uint32_t a[3] = {p00, p01, p11}, b[3] = {p00, p11, p10};
        memcpy(&idx[3 * n], t % 2 ? b : a, sizeof a);
        map[n++] = t;
    }
    col_mesh3 m = build_mesh(v, nv, idx, 3 * n, COL_ACTIVE_EDGE_COS);
    free(v);
    free(idx);
    return m;
}

static bool same_manifold(const col_manifold3 *a, const col_manifold3 *b)
{
    if (a->count != b->count || memcmp(&a->normal, &b->normal, sizeof a->normal) != 0 ||
        a->depth != b->depth || (a->count == 0 && a->distance != b->distance))
        return false;
    for (int i = 0; i < a->count; i++)
        if (memcmp(&a->points[i], &b->points[i], sizeof a->points[i]) != 0)
            return false;
    return true;
}

START_TEST(heightfield_equals_mesh)
{
    col_heightfield3 h = build_hf(0xBEEF);
    uint32_t map[2 * HF_COLS * HF_ROWS];
    col_mesh3 m = mesh_of_hf(&h, map);
    ck_assert_uint_eq(m.dropped, 0);
    /* The same triangles with the same active edges. */
    for (uint32_t k = 0; k < m.tri_count; k++) {
        col_triangle3 a = col_mesh3_triangle(&m, IDENTITY, k), b;
        ck_assert(col_heightfield3_triangle(&h, IDENTITY, map[m.source[k]], &b));
        ck_assert(memcmp(a.v, b.v, sizeof a.v) == 0);
        ck_assert_int_eq(a.active, b.active);
    }
    col_level3 lm = {&m, NULL}, lh = {NULL, &h};
    col_shape3 shapes[4] = {{.type = COL_SHAPE3_SPHERE, .radius = 0.6f},
                            {.type = COL_SHAPE3_BOX, .half = {0.5f, 0.3f, 0.4f}},
                            {.type = COL_SHAPE3_CAPSULE, .radius = 0.3f, .half_height = 0.5f},
                            {.type = COL_SHAPE3_CYLINDER, .radius = 0.4f, .half_height = 0.3f}};
    col_tri_contact3 how = contact(0.05f);
    int touching = 0;
    for (int it = 0; it < 600; it++) {
        const col_shape3 *s = &shapes[it % 4];
        float x = (float)rnd(-1, 15), z = (float)rnd(-1, 15);
        col_ray_hit3 down = col_level3_ray(lh, IDENTITY, mk_v3(x, 10, z), mk_v3(x, -10, z),
                                           COL_BACK_FACES_IGNORE, NULL);
        float y = down.hit ? down.point.y : 0.0f;
        mk_quat q = mk_quat_axis_angle(mk_v3_norm(mk_v3((float)rnd(-1, 1), (float)rnd(-1, 1),
                                                         (float)rnd(-1, 1))),
                                       (float)rnd(0, PI));
        col_xf3 xb = {{x, y + (float)rnd(-0.2, 0.6), z}, q};
        /* Casts down onto both: the same first triangle at the same fraction. */
        uint32_t ta = UINT32_MAX, tb = UINT32_MAX;
        col_xf3 above = {{x, y + 3.0f, z}, q};
        col_ray_hit3 ca = col_level3_cast(s, above, mk_v3(0.3f, -6.0f, 0.2f), lm, IDENTITY,
                                          COL_BACK_FACES_IGNORE, &ta);
        col_ray_hit3 cb = col_level3_cast(s, above, mk_v3(0.3f, -6.0f, 0.2f), lh, IDENTITY,
                                          COL_BACK_FACES_IGNORE, &tb);
        EXPECT(ca.hit == cb.hit && (!ca.hit || ca.fraction == cb.fraction),
               "case %d: casts differ (%d %g, %d %g)", it, ca.hit, (double)ca.fraction, cb.hit,
               (double)cb.fraction);
        EXPECT(!ca.hit || map[m.source[ta]] == tb || ca.fraction == cb.fraction,
               "case %d: casts met other triangles", it);
        col_child_manifold3 a[64], b[64];
        uint32_t na = col_level3_collide(lm, IDENTITY, s, xb, &how, a, 64);
        uint32_t nb = col_level3_collide(lh, IDENTITY, s, xb, &how, b, 64);
        EXPECT(na == nb && na <= 64, "case %d: %u manifolds from the mesh, %u from the field", it,
               na, nb);
        for (uint32_t i = 0; i < na; i++) {
            uint32_t want = map[m.source[a[i].child]];
            bool found = false;
            for (uint32_t k = 0; k < nb && !found; k++)
                if (b[k].child == want) {
                    found = true;
                    EXPECT(same_manifold(&a[i].m, &b[k].m), "case %d: triangle %u differs", it,
                           want);
                }
            EXPECT(found, "case %d: triangle %u only in the mesh", it, want);
            touching += a[i].m.count > 0;
        }
    }
    ck_assert_int_gt(touching, 300);
    col_mesh3_free(&m);
    col_heightfield3_free(&h);
}
END_TEST

/* ---- kept candidates against the level's own walk ---- */

/* Whether two clearances are the same: the bounds, the planes kept and their order. */
static bool same_clear(const col_level3_clear *a, const col_level3_clear *b)
{
    if (a->far != b->far || a->count != b->count || memcmp(a->side, b->side, sizeof a->side) != 0)
        return false;
    for (uint32_t k = 0; k < a->count; k++)
        if (a->near[k].gap != b->near[k].gap ||
            memcmp(&a->near[k].normal, &b->near[k].normal, sizeof a->near[k].normal) != 0)
            return false;
    return true;
}

/* A sphere and a box moved over the heightfield and its mesh (placed turned and away from the
 * origin) in short steps, as a body's level pair queries them: with a kept list of candidates
 * (col_level3_near) every step gives the manifolds, triangles and clearance that the level's
 * own walk gives, whether the list was kept or made anew that step, and whether its room
 * held the triangles (12 for the box: too few where it is tilted over steep cells); and a
 * short cast from there (the step's sweep) meets the same first triangle with it. */
START_TEST(kept_candidates_give_the_walks_answers)
{
    col_heightfield3 h = build_hf(0xC0FFEE);
    uint32_t map[2 * HF_COLS * HF_ROWS];
    col_mesh3 m = mesh_of_hf(&h, map);
    col_level3 levels[2] = {{&m, NULL}, {NULL, &h}};
    col_shape3 shapes[2] = {{.type = COL_SHAPE3_SPHERE, .radius = 0.5f},
                            {.type = COL_SHAPE3_BOX, .half = {0.5f, 0.4f, 0.3f}}};
    col_xf3 xl = {{3.0f, -2.0f, 1.0f}, mk_quat_axis_angle(mk_v3(0.0f, 1.0f, 0.0f), 0.7f)};
    col_tri_contact3 how = contact(0.02f);
    col_level3_tri room[64];
    int kept = 0, made = 0, touching = 0, hits = 0;
    for (int c = 0; c < 4; c++) {
        const col_shape3 *s = &shapes[c % 2];
        col_level3 l = levels[c / 2];
        col_level3_near near = {.valid = false, .cap = c % 2 ? 12 : 64, .tris = room};
        float x = 2.0f, z = 2.0f, vx = (float)rnd(0.5, 3.0), vz = (float)rnd(0.5, 3.0);
        mk_quat q = mk_quat_identity();
        for (int step = 0; step < 400; step++) {
            float dt = (float)rnd(0.0, 1.0 / 30.0);
            x += vx * dt;
            z += vz * dt;
            if (x < 1.0f || x > 12.0f)
                vx = -vx;
            if (z < 1.0f || z > 13.0f)
                vz = -vz;
            col_ray_hit3 down = col_level3_ray(l, IDENTITY, mk_v3(x, 10, z), mk_v3(x, -10, z),
                                               COL_BACK_FACES_IGNORE, NULL);
            float y = (down.hit ? down.point.y : 0.0f) + (float)rnd(0.2, 0.6);
            q = mk_quat_mul(mk_quat_axis_angle(mk_v3(0.6f, 0.0f, 0.8f), (float)rnd(0, 0.05)), q);
            col_xf3 xb = {col_xf3_apply(xl, mk_v3(x, y, z)), mk_quat_mul(xl.q, q)};
            mk_vec3 ahead = mk_quat_rotate(xl.q, mk_v3(vx * dt, 0.0f, vz * dt));
            float slack = 0.25f * mk_v3_len(ahead) + 0.005f;
            float lo = near.lo[0];
            bool was = near.valid;
            col_child_manifold3 a[64], b[64];
            col_level3_clear ca, cb;
            uint32_t na = col_level3_collide_clear(l, xl, s, xb, &how, ahead, slack, a, 64, &ca,
                                                   NULL);
            uint32_t nb = col_level3_collide_clear(l, xl, s, xb, &how, ahead, slack, b, 64, &cb,
                                                   &near);
            kept += was && near.lo[0] == lo;
            made += !(was && near.lo[0] == lo);
            EXPECT(na == nb && na <= 64, "case %d step %d: %u manifolds walked, %u kept", c, step,
                   na, nb);
            for (uint32_t i = 0; i < na && i < nb; i++) {
                EXPECT(a[i].child == b[i].child && same_manifold(&a[i].m, &b[i].m),
                       "case %d step %d: manifold %u differs", c, step, i);
                touching += a[i].m.count > 0;
            }
            EXPECT(same_clear(&ca, &cb), "case %d step %d: the clearances differ", c, step);
            /* The step's sweep down and along, with the list: the same first triangle. */
            mk_vec3 d = mk_v3_add(ahead, mk_v3(0.0f, -(float)rnd(0.0, 0.4), 0.0f));
            uint32_t ta = UINT32_MAX, tb = UINT32_MAX;
            col_ray_hit3 wa = col_level3_cast_beyond(s, xb, d, l, xl, COL_BACK_FACES_IGNORE,
                                                     0.0f, &ta);
            col_ray_hit3 wb = col_level3_cast_near(s, xb, d, l, xl, COL_BACK_FACES_IGNORE, 0.0f,
                                                   &near, &tb);
            EXPECT(wa.hit == wb.hit && (!wa.hit || (ta == tb && wa.fraction == wb.fraction &&
                                                    memcmp(&wa.normal, &wb.normal,
                                                           sizeof wa.normal) == 0)),
                   "case %d step %d: the casts differ", c, step);
            hits += wa.hit;
        }
    }
    ck_assert_int_gt(kept, 800);
    ck_assert_int_gt(made, 100);
    ck_assert_int_gt(touching, 2000);
    ck_assert_int_gt(hits, 200);
    col_mesh3_free(&m);
    col_heightfield3_free(&h);
}
END_TEST

/* ---- the hierarchy against a brute force ---- */

/* A mesh of random triangles (a soup: no shared edges) and a terrain grid together. */
static col_mesh3 random_mesh(uint32_t soup, uint32_t grid)
{
    uint32_t gv = (grid + 1) * (grid + 1);
    uint32_t nv = 3 * soup + gv, nt = soup + 2 * grid * grid;
    mk_vec3 *v = malloc(nv * sizeof *v);
    uint32_t *idx = malloc(3 * nt * sizeof *idx);
    for (uint32_t t = 0; t < soup; t++) {
        mk_vec3 c = mk_v3((float)rnd(-20, 20), (float)rnd(-20, 20), (float)rnd(-20, 20));
        for (int k = 0; k < 3; k++) {
            v[3 * t + k] = mk_v3_add(c, mk_v3((float)rnd(-2, 2), (float)rnd(-2, 2), (float)rnd(-2, 2)));
            idx[3 * t + k] = 3 * t + (uint32_t)k;
        }
    }
    for (uint32_t j = 0; j <= grid; j++)
        for (uint32_t i = 0; i <= grid; i++)
            v[3 * soup + j * (grid + 1) + i] =
                mk_v3(-20.0f + 40.0f * (float)i / (float)grid, (float)rnd(-1, 1) - 15.0f,
                      -20.0f + 40.0f * (float)j / (float)grid);
    uint32_t *g = idx + 3 * soup;
    for (uint32_t j = 0; j < grid; j++)
        for (uint32_t i = 0; i < grid; i++) {
            uint32_t p = 3 * soup + j * (grid + 1) + i, q = p + grid + 1;
            uint32_t tris[6] = {p, q, q + 1, p, q + 1, p + 1};
            memcpy(g, tris, sizeof tris);
            g += 6;
        }
    col_mesh3 m = build_mesh(v, nv, idx, 3 * nt, COL_ACTIVE_EDGE_COS);
    free(v);
    free(idx);
    return m;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Every triangle of the level: its vertices (false for a hole). */
static bool level_triangle(col_level3 l, uint32_t t, col_triangle3 *tri)
{
    if (l.mesh) {
        *tri = col_mesh3_triangle(l.mesh, IDENTITY, t);
        return true;
    }
    return col_heightfield3_triangle(l.hf, IDENTITY, t, tri);
}

static uint32_t level_count(col_level3 l) { return l.mesh ? l.mesh->tri_count : l.hf->tri_count; }

static void brute_queries(col_level3 l, mk_vec3 lo, mk_vec3 hi, int boxes, int rays)
{
    uint32_t n = level_count(l);
    uint32_t *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
    for (int q = 0; q < boxes; q++) {
        mk_vec3 c = mk_v3((float)rnd(lo.x, hi.x), (float)rnd(lo.y, hi.y), (float)rnd(lo.z, hi.z));
        mk_vec3 hh = mk_v3((float)rnd(0, 3), (float)rnd(0, 3), (float)rnd(0, 3));
        col_aabb3 box = {c, hh};
        uint32_t ng = col_level3_query(l, box, got, n), nw = 0;
        mk_vec3 blo = mk_v3_sub(c, hh), bhi = mk_v3_add(c, hh);
        for (uint32_t t = 0; t < n; t++) {
            col_triangle3 tri;
            if (!level_triangle(l, t, &tri))
                continue;
            mk_vec3 tlo = mk_v3_min(mk_v3_min(tri.v[0], tri.v[1]), tri.v[2]);
            mk_vec3 thi = mk_v3_max(mk_v3_max(tri.v[0], tri.v[1]), tri.v[2]);
            if (tlo.x <= bhi.x && blo.x <= thi.x && tlo.y <= bhi.y && blo.y <= thi.y &&
                tlo.z <= bhi.z && blo.z <= thi.z)
                want[nw++] = t;
        }
        qsort(got, ng, sizeof *got, cmp_u32);
        EXPECT(ng == nw && memcmp(got, want, nw * sizeof *got) == 0,
               "box %d: %u triangles found, %u touch it", q, ng, nw);
    }
    for (int q = 0; q < rays; q++) {
        mk_vec3 a = mk_v3((float)rnd(lo.x, hi.x), (float)rnd(lo.y, hi.y), (float)rnd(lo.z, hi.z));
        mk_vec3 b = mk_v3((float)rnd(lo.x, hi.x), (float)rnd(lo.y, hi.y), (float)rnd(lo.z, hi.z));
        if (q % 4 == 0) /* straight down, as a character's ground probe */
            b = mk_v3(a.x, lo.y, a.z);
        col_back_face back = q % 2 ? COL_BACK_FACES_COLLIDE : COL_BACK_FACES_IGNORE;
        uint32_t tri = UINT32_MAX;
        col_ray_hit3 h = col_level3_ray(l, IDENTITY, a, b, back, &tri);
        float best = 2.0f;
        for (uint32_t t = 0; t < n; t++) {
            col_triangle3 tr;
            if (!level_triangle(l, t, &tr))
                continue;
            col_ray_hit3 ht = col_ray_triangle3(&tr, a, b, back);
            if (ht.hit && ht.fraction < best)
                best = ht.fraction;
        }
        EXPECT(h.hit == (best <= 1.0f), "ray %d: hit %d, brute force %g", q, h.hit, (double)best);
        if (!h.hit)
            continue;
        EXPECT(h.fraction == best, "ray %d: fraction %.9g, brute force %.9g", q,
               (double)h.fraction, (double)best);
        col_triangle3 own;
        ck_assert(level_triangle(l, tri, &own));
        col_ray_hit3 again = col_ray_triangle3(&own, a, b, back);
        EXPECT(again.hit && again.fraction == h.fraction && again.normal.x == h.normal.x &&
                   again.normal.y == h.normal.y && again.normal.z == h.normal.z,
               "ray %d: triangle %u does not give the hit", q, tri);
    }
    free(got);
    free(want);
}

START_TEST(mesh_hierarchy_brute_force)
{
    rng_state = 0xC0FFEE;
    col_mesh3 m = random_mesh(3000, 40);
    ck_assert_uint_eq(m.tri_count, 3000 + 2 * 40 * 40);
    ck_assert_uint_lt(m.bvh.depth, COL_BVH_MAX_DEPTH);
    brute_queries((col_level3){&m, NULL}, mk_v3(-23, -23, -23), mk_v3(23, 23, 23), 2000, 2000);
    col_mesh3_free(&m);
}
END_TEST

START_TEST(heightfield_cells_brute_force)
{
    col_heightfield3 h = build_hf(0xFACE);
    brute_queries((col_level3){NULL, &h}, mk_v3(-2, -3, -2), mk_v3(16, 3, 16), 2000, 4000);
    col_heightfield3_free(&h);
}
END_TEST

MINK_CHECK_SUITE("level3", s)
{
    MINK_TCASE(s, "brute", 300, heightfield_equals_mesh, kept_candidates_give_the_walks_answers,
               mesh_hierarchy_brute_force, heightfield_cells_brute_force);
}
