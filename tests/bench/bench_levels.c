/* The level scenes (mink-bench --scene levels): a level of 1,000,000 triangles loaded from a
 * glTF file as the server loads a scene's (read, parsed, built, keyed: wio_level_of_shape), its
 * time and its bytes per triangle; 1,000 bodies (boxes and spheres by turns) dropped onto a
 * terrain of 256 x 256 samples as a heightfield and as the same triangles in a mesh, stepped;
 * and 10,000 rays straight down onto each, checked against the terrain's own height (the
 * plane of the triangle under the ray). Jolt's HeightFieldShape and MeshShape do the same
 * work in docs/BENCHMARKS.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "mink_world_io.h"
#include "../body_defaults.h"

#define TERRAIN 256         /* samples a side, 1 m apart */
#define TERRAIN_BODIES 1000 /* 40 columns along x by 25 rows along z */
#define TERRAIN_RAYS 10000

/* The terrain's height at sample (i, j), m: rolling hills of about 2.5 m. */
static float terrain_height(int i, int j)
{
    return (float)(2.0 * sin(i / 9.0) * cos(j / 11.0) + 0.5 * sin((i + j) / 5.0));
}

/* The height of the terrain's triangle under (x, z), as col_heightfield3 splits a cell:
 * (i, j) (i, j+1) (i+1, j+1) where fz >= fx, else (i, j) (i+1, j+1) (i+1, j). */
static double terrain_at(double x, double z)
{
    int i = (int)floor(x), j = (int)floor(z);
    double fx = x - i, fz = z - j;
    double h00 = terrain_height(i, j), h01 = terrain_height(i, j + 1);
    double h10 = terrain_height(i + 1, j), h11 = terrain_height(i + 1, j + 1);
    if (fz >= fx)
        return h00 + fx * (h11 - h01) + fz * (h01 - h00);
    return h00 + fx * (h10 - h00) + fz * (h11 - h10);
}

/* The terrain as a heightfield, or as a mesh of the same triangles in the same places. */
static sim_level *terrain_level(bool mesh, mk_error *err)
{
    float *h = bench_xcalloc((size_t)TERRAIN * TERRAIN, sizeof *h);
    for (int j = 0; j < TERRAIN; j++)
        for (int i = 0; i < TERRAIN; i++)
            h[j * TERRAIN + i] = terrain_height(i, j);
    sim_level *l;
    if (!mesh) {
        col_heightfield3_desc d = {TERRAIN, TERRAIN, mk_v3(1, 1, 1), h, NULL, 1u << 24,
                                   COL_ACTIVE_EDGE_COS};
        l = sim_level_heightfield3(&d, err);
        free(h);
        return l;
    }
    mk_vec3 *v = bench_xcalloc((size_t)TERRAIN * TERRAIN, sizeof *v);
    for (int j = 0; j < TERRAIN; j++)
        for (int i = 0; i < TERRAIN; i++)
            v[j * TERRAIN + i] = mk_v3((float)i, h[j * TERRAIN + i], (float)j);
    size_t cells = (size_t)(TERRAIN - 1) * (TERRAIN - 1);
    uint32_t *idx = bench_xcalloc(6 * cells, sizeof *idx), k = 0;
    for (uint32_t j = 0; j + 1 < TERRAIN; j++)
        for (uint32_t i = 0; i + 1 < TERRAIN; i++) {
            uint32_t a = j * TERRAIN + i, b = a + TERRAIN, c = b + 1, d = a + 1;
            uint32_t t[6] = {a, b, c, a, c, d};
            memcpy(idx + k, t, sizeof t);
            k += 6;
        }
    col_mesh3_desc d = {v, TERRAIN * TERRAIN, idx, k, 1u << 24, COL_ACTIVE_EDGE_COS};
    l = sim_level_mesh3(&d, err);
    free(v);
    free(idx);
    free(h);
    return l;
}

static void def_of(sim_body_def *d, sim_kind kind)
{
    memset(d, 0, sizeof *d);
    fixture_defaults(d, kind);
    d->d3.rot = mk_quat_identity();
}

/* A world with the terrain and, when `bodies`, the 1,000 bodies 3 m over it. */
static sim_world *terrain_world(const bench_opts *o, const sim_level *l, bool bodies)
{
    sim_config cfg = sim_config_default();
    cfg.dim = 3;
    cfg.sleep = !o->no_sleep;
    cfg.workers = o->workers;
    if (cfg.max_bodies < TERRAIN_BODIES + 1)
        cfg.max_bodies = TERRAIN_BODIES + 1;
    sim_world *w = sim_world_new(&cfg);
    static sim_body_def d; /* a body definition has a hull's room: kept off the stack */
    def_of(&d, SIM_STATIC);
    d.level = l;
    if (!w || sim_world_add(w, &d, 0) == 0) {
        fprintf(stderr, "mink-bench: the terrain world could not be made\n");
        exit(1);
    }
    for (int k = 0; bodies && k < TERRAIN_BODIES; k++) {
        double x = 8.0 + 6.0 * (k % 40), z = 8.0 + 9.5 * (k / 40);
        def_of(&d, SIM_DYNAMIC);
        d.d3.pos = mk_v3((float)x, (float)(terrain_at(x, z) + 3.0), (float)z);
        d.d3.shape = k % 2 ? (col_shape3){.type = COL_SHAPE3_SPHERE, .radius = 0.5f}
                           : (col_shape3){.type = COL_SHAPE3_BOX, .half = {0.5f, 0.5f, 0.5f}};
        if (sim_world_add(w, &d, 0) == 0) {
            fprintf(stderr, "mink-bench: a body could not be added\n");
            exit(1);
        }
    }
    return w;
}

/* The terrain, or NULL with the row printed saying why. */
static sim_level *terrain_or_say(bench_row *r, bool mesh)
{
    mk_error err = {0};
    sim_level *l = terrain_level(mesh, &err);
    if (!l) {
        bench_note(r, "%s", err.message);
        bench_row_print(r);
    }
    return l;
}

static void terrain_step(const bench_opts *o, bool mesh)
{
    bench_row r;
    bench_row_init(&r, mesh ? "terrain mesh" : "terrain heightfield");
    r.bodies = TERRAIN_BODIES;
    sim_level *l = terrain_or_say(&r, mesh);
    if (!l)
        return;
    sim_world *w = terrain_world(o, l, true);
    bench_step_stats s = bench_world_steps(w, o->steps);
    r.step_mean_ms = s.mean_ms;
    r.step_p99_ms = s.p99_ms;
    size_t slots, resting = 0, above = 0, contacts;
    const sim_body *b = sim_world_slots(w, &slots);
    for (size_t i = 0; i < slots; i++) {
        if (b[i].id == 0 || b[i].kind != SIM_DYNAMIC)
            continue;
        const sim_body3 *b3 = sim_body3_of(w, &b[i]);
        resting += b[i].sleeping || mk_v3_len(b3->vel) < (float)BENCH_REST_SPEED;
        above += b3->pos.y > terrain_at(b3->pos.x, b3->pos.z) - 0.05;
    }
    sim_world_contacts3(w, &contacts);
    bench_note(&r, "%u triangles, %.1f B/triangle; sleep %s; %zu/%d resting, %zu/%d above the "
               "ground, %zu contacts at the end",
               sim_level_pieces(l), (double)sim_level_bytes(l) / sim_level_pieces(l),
               o->no_sleep ? "off" : "on", resting, TERRAIN_BODIES, above, TERRAIN_BODIES,
               contacts);
    snprintf(r.peer, sizeof r.peer, "Jolt: BENCHMARKS");
    bench_row_print(&r);
    sim_world_free(w);
    sim_level_release(l);
}

static void terrain_rays(const bench_opts *o, bool mesh)
{
    bench_row r;
    bench_row_init(&r, mesh ? "rays on mesh" : "rays on heightfield");
    sim_level *l = terrain_or_say(&r, mesh);
    if (!l)
        return;
    sim_world *w = terrain_world(o, l, false);
    size_t n = o->quick ? TERRAIN_RAYS / 10 : TERRAIN_RAYS;
    mk_vec3 *at = bench_xcalloc(n, sizeof *at);
    bench_rng g = {0x7e77a1ull};
    for (size_t i = 0; i < n; i++)
        at[i] = mk_v3((float)bench_rng_range(&g, 0.5, TERRAIN - 1.5), 0.0f,
                      (float)bench_rng_range(&g, 0.5, TERRAIN - 1.5));
    sim_hit *hits = bench_xcalloc(n, sizeof *hits);
    size_t missed = 0, total;
    uint64_t t0 = bench_now_ns();
    for (size_t i = 0; i < n; i++)
        missed += sim_world_raycast(w, sim_world_tick(w), mk_v3(at[i].x, 20.0f, at[i].z),
                                    mk_v3(at[i].x, -20.0f, at[i].z), NULL, false, &hits[i], 1,
                                    &total) != 1;
    r.ns_op = (double)(bench_now_ns() - t0) / (double)n;
    double worst = 0.0;
    for (size_t i = 0; i < n; i++)
        worst = fmax(worst, fabs(hits[i].point.y - terrain_at(at[i].x, at[i].z)));
    bench_note(&r, "%zu rays straight down from 20 m, %zu missed; the hit's height within "
               "%.2g m of the triangle's plane", n, missed, worst);
    snprintf(r.peer, sizeof r.peer, "Jolt: BENCHMARKS");
    bench_row_print(&r);
    free(at);
    free(hits);
    sim_world_free(w);
    sim_level_release(l);
}

/* ---- a glTF level of 1,000,000 triangles ---- */

#define GLTF_COLS 500 /* cells along x */
#define GLTF_ROWS 1000

static void put_u32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/* A .glb of a grid of GLTF_COLS x GLTF_ROWS cells of 1 m, two triangles each, written to
 * `path`: float positions and uint32 indices in one buffer. False when it cannot be written. */
static bool write_glb(const char *path, uint32_t *triangles)
{
    uint32_t nv = (GLTF_COLS + 1) * (GLTF_ROWS + 1), nt = 2 * GLTF_COLS * GLTF_ROWS;
    size_t vbytes = (size_t)nv * 12, ibytes = (size_t)nt * 12, bin = vbytes + ibytes;
    char json[1024];
    int jn = snprintf(json, sizeof json,
                      "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
                      "\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":"
                      "{\"POSITION\":0},\"indices\":1,\"mode\":4}]}],\"accessors\":["
                      "{\"bufferView\":0,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\"},"
                      "{\"bufferView\":1,\"componentType\":5125,\"count\":%u,\"type\":\"SCALAR\"}],"
                      "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%zu},"
                      "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}],"
                      "\"buffers\":[{\"byteLength\":%zu}]}",
                      nv, 3 * nt, vbytes, vbytes, ibytes, bin);
    while (jn % 4)
        json[jn++] = ' ';
    size_t total = 12 + 8 + (size_t)jn + 8 + bin;
    uint8_t *glb = bench_xcalloc(total, 1);
    put_u32(glb, 0x46546C67u);
    put_u32(glb + 4, 2);
    put_u32(glb + 8, (uint32_t)total);
    put_u32(glb + 12, (uint32_t)jn);
    put_u32(glb + 16, 0x4E4F534Au);
    memcpy(glb + 20, json, (size_t)jn);
    uint8_t *b = glb + 20 + jn;
    put_u32(b, (uint32_t)bin);
    put_u32(b + 4, 0x004E4942u);
    float *v = (float *)(void *)(b + 8);
    for (uint32_t j = 0; j <= GLTF_ROWS; j++)
        for (uint32_t i = 0; i <= GLTF_COLS; i++) {
            float *p = v + 3 * (j * (GLTF_COLS + 1) + i);
            p[0] = (float)i;
            p[1] = 0.25f * (float)sin(i / 7.0) * (float)cos(j / 13.0);
            p[2] = (float)j;
        }
    uint8_t *ip = b + 8 + vbytes;
    uint32_t k = 0;
    for (uint32_t j = 0; j < GLTF_ROWS; j++)
        for (uint32_t i = 0; i < GLTF_COLS; i++) {
            uint32_t a = j * (GLTF_COLS + 1) + i, c = a + GLTF_COLS + 1;
            uint32_t t[6] = {a, c, c + 1, a, c + 1, a + 1};
            memcpy(ip + 4 * (size_t)k, t, sizeof t);
            k += 6;
        }
    *triangles = nt;
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(glb, 1, total, f) == total;
    if (f)
        ok = fclose(f) == 0 && ok;
    free(glb);
    return ok;
}

static void gltf_load(void)
{
    bench_row r;
    bench_row_init(&r, "gltf load 1M");
    char dir[] = "/tmp/mink-bench-XXXXXX";
    char path[64];
    uint32_t nt = 0;
    if (!mkdtemp(dir)) {
        bench_note(&r, "no temporary folder");
        bench_row_print(&r);
        return;
    }
    snprintf(path, sizeof path, "%s/level.glb", dir);
    if (!write_glb(path, &nt)) {
        bench_note(&r, "%s could not be written", path);
        bench_row_print(&r);
        rmdir(dir);
        return;
    }
    proto_level pl;
    memset(&pl, 0, sizeof pl);
    pl.file = "level.glb";
    proto_shape s;
    memset(&s, 0, sizeof s);
    s.type = PROTO_SHAPE_MESH;
    s.level = &pl;
    uint32_t was = wio_levels_max_triangles();
    wio_levels_set_max_triangles(nt);
    mk_error err = {0};
    uint64_t t0 = bench_now_ns();
    const sim_level *l = wio_level_of_shape(&s, 3, dir, &err);
    double ms = (double)(bench_now_ns() - t0) / 1e6;
    wio_levels_set_max_triangles(was);
    if (!l) {
        bench_note(&r, "%s", err.message);
    } else {
        r.ns_op = ms * 1e6 / nt;
        r.bytes_op = (double)sim_level_bytes(l) / nt;
        bench_note(&r, "%u triangles from a %.1f MB .glb: %.0f ms to read, parse, build and "
                   "key (ns/op and bytes/op per triangle, the level's bytes)",
                   nt, (double)(12 * (GLTF_COLS + 1) * (GLTF_ROWS + 1) + 12.0 * nt) / 1e6, ms);
        sim_level_release(l);
    }
    snprintf(r.peer, sizeof r.peer, "Jolt: BENCHMARKS");
    bench_row_print(&r);
    unlink(path);
    rmdir(dir);
}

void bench_scene_levels(const bench_opts *o)
{
    if (!o->quick)
        gltf_load();
    terrain_step(o, false);
    terrain_step(o, true);
    terrain_rays(o, false);
    terrain_rays(o, true);
}
