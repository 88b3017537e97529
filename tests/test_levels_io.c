/* Levels between files, the protocol and the world (mink_world_io): level shapes read and
 * written in the protocol's form, scenes with segments, chains, meshes and heightfields, a
 * glTF file written by hand (a known plane under a node hierarchy with translation, rotation
 * and scale, as .gltf with a data: URI and as .glb, interleaved, indexed by bytes, shorts and
 * ints, or not at all) and an OBJ file loading to the known triangles; untrusted files refused
 * with the file, the field and the byte; a path that leaves the scene's folder refused; the
 * journal and a saved scene bringing a level world back bit for bit. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "check_main.h"
#include "mink_world_io.h"

/* ---- files in a folder of their own ---- */

static char folder[256];

static void make_folder(void)
{
    snprintf(folder, sizeof folder, "/tmp/mink_levels_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(folder));
}

static void write_file(const char *name, const void *data, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

static void remove_folder(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    ck_assert_int_eq(system(cmd), 0);
    wio_level_files_clear();
}

/* ---- a known plane in glTF ---- */

/* The plane [-1, 1]^2 at y = 0 facing up: 4 vertices, 2 triangles. */
static const float PLANE[4][3] = {{-1, 0, -1}, {1, 0, -1}, {1, 0, 1}, {-1, 0, 1}};
static const uint16_t PLANE_IDX[6] = {0, 2, 1, 0, 3, 2};

/* Where a point of the plane lands under the nodes of nodes_json(): the child scales by
 * (2, 1, 3), turns 90 degrees about y (x' = z, z' = -x), and its parent moves it by
 * (10, 2, 0). */
static void placed(const float p[3], double out[3])
{
    double s[3] = {2.0 * p[0], p[1], 3.0 * p[2]};
    out[0] = s[2] + 10.0;
    out[1] = s[1] + 2.0;
    out[2] = -s[0];
}

/* A .gltf of the plane, its buffer a data: URI; `nodes` the node part. */
static char *plane_gltf(const char *nodes)
{
    uint8_t bin[60];
    memcpy(bin, PLANE, 48);
    memcpy(bin + 48, PLANE_IDX, 12);
    proto_buf b;
    proto_buf_init(&b);
    proto_buf_append_str(&b, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,"
                             "\"scenes\":[{\"nodes\":[0]}],");
    proto_buf_append_str(&b, nodes);
    proto_buf_append_str(&b, ",\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},"
                             "\"indices\":1}]}],"
                             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,"
                             "\"count\":4,\"type\":\"VEC3\"},{\"bufferView\":1,"
                             "\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"}],"
                             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":48},{\"buffer\":0,"
                             "\"byteOffset\":48,\"byteLength\":12}],"
                             "\"buffers\":[{\"byteLength\":60,\"uri\":\"data:application/"
                             "octet-stream;base64,");
    proto_buf_append_base64(&b, bin, sizeof bin);
    proto_buf_append_str(&b, "\"}]}");
    proto_buf_append_char(&b, '\0');
    return b.data;
}

static const char TRS_NODES[] =
    "\"nodes\":[{\"translation\":[10,2,0],\"children\":[1]},"
    "{\"mesh\":0,\"rotation\":[0,0.70710678118654752,0,0.70710678118654752],"
    "\"scale\":[2,1,3]}]";
/* The same child as a column-major matrix: R S, then the translation. */
static const char MATRIX_NODES[] =
    "\"nodes\":[{\"translation\":[10,2,0],\"children\":[1]},"
    "{\"mesh\":0,\"matrix\":[0,0,-2,0, 0,1,0,0, 3,0,0,0, 0,0,0,1]}]";

/* Every triangle of the mesh is one of the plane's placed (as a set of three corners, within
 * 1e-5 m), faces up, and each of the plane's is there. */
static void expect_plane(const wio_mesh_data *m)
{
    ck_assert_uint_eq(m->ntriangles, 2);
    for (int t = 0; t < 2; t++) {
        double want[3][3];
        for (int k = 0; k < 3; k++)
            placed(PLANE[PLANE_IDX[3 * t + k]], want[k]);
        bool found = false;
        for (uint32_t u = 0; u < m->ntriangles && !found; u++) {
            int matched = 0;
            for (int k = 0; k < 3; k++)
                for (int j = 0; j < 3; j++) {
                    const float *v = m->vertices[m->triangles[u][j]];
                    if (fabs(v[0] - want[k][0]) < 1e-5 && fabs(v[1] - want[k][1]) < 1e-5 &&
                        fabs(v[2] - want[k][2]) < 1e-5) {
                        matched++;
                        break;
                    }
                }
            found = matched == 3;
        }
        ck_assert_msg(found, "triangle %d of the plane is not there", t);
    }
    for (uint32_t u = 0; u < m->ntriangles; u++) {
        const float *a = m->vertices[m->triangles[u][0]], *b = m->vertices[m->triangles[u][1]],
                    *c = m->vertices[m->triangles[u][2]];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double ny = e1[2] * e2[0] - e1[0] * e2[2];
        ck_assert_msg(ny > 0.0, "triangle %u faces down", u);
    }
}

START_TEST(gltf_plane_under_nodes)
{
    const char *forms[2] = {TRS_NODES, MATRIX_NODES};
    for (int f = 0; f < 2; f++) {
        char *json = plane_gltf(forms[f]);
        wio_mesh_data m;
        mk_error err = {0};
        ck_assert_msg(wio_gltf_parse(json, strlen(json), "plane.gltf", NULL, 1000, &m, &err) == 0,
                      "%s", err.message);
        expect_plane(&m);
        wio_mesh_data_free(&m);
        free(json);
    }
}
END_TEST

/* The same plane as a .glb: its JSON chunk names buffer 0 without a uri, the binary chunk. */
static size_t plane_glb(uint8_t *out, const char *index_type, int index_bytes, bool interleaved)
{
    uint8_t bin[256];
    size_t nbin = 0, stride = interleaved ? 16 : 12;
    for (int i = 0; i < 4; i++) {
        memcpy(bin + (size_t)i * stride, PLANE[i], 12);
        if (interleaved)
            memset(bin + (size_t)i * stride + 12, 0xEE, 4); /* another attribute's bytes */
    }
    nbin = 4 * stride;
    size_t idx_at = nbin;
    for (int i = 0; i < 6; i++) {
        uint32_t v = PLANE_IDX[i];
        memcpy(bin + nbin, &v, (size_t)index_bytes);
        nbin += (size_t)index_bytes;
    }
    while (nbin % 4)
        bin[nbin++] = 0;
    char json[1400];
    int n = snprintf(json, sizeof json,
                     "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0]}],%s,"
                     "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},"
                     "\"indices\":1,\"mode\":4}]}],"
                     "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,"
                     "\"type\":\"VEC3\"},{\"bufferView\":1,\"componentType\":%s,\"count\":6,"
                     "\"type\":\"SCALAR\"}],"
                     "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu%s},{\"buffer\":0,"
                     "\"byteOffset\":%zu,\"byteLength\":%d}],\"buffers\":[{\"byteLength\":%zu}]}",
                     TRS_NODES, index_type, 4 * stride, interleaved ? ",\"byteStride\":16" : "",
                     idx_at, 6 * index_bytes, nbin);
    while (n % 4)
        json[n++] = ' ';
    uint32_t header[5] = {0x46546C67u, 2, (uint32_t)(12 + 8 + n + 8 + nbin), (uint32_t)n,
                          0x4E4F534Au};
    memcpy(out, header, 20);
    memcpy(out + 20, json, (size_t)n);
    uint32_t chunk[2] = {(uint32_t)nbin, 0x004E4942u};
    memcpy(out + 20 + n, chunk, 8);
    memcpy(out + 28 + n, bin, nbin);
    return 28 + (size_t)n + nbin;
}

START_TEST(glb_plane_every_index_type)
{
    const char *types[3] = {"5121", "5123", "5125"};
    const int bytes[3] = {1, 2, 4};
    for (int k = 0; k < 3; k++) {
        uint8_t glb[2048];
        size_t len = plane_glb(glb, types[k], bytes[k], k == 1);
        wio_mesh_data m;
        mk_error err = {0};
        ck_assert_msg(wio_gltf_parse(glb, len, "plane.glb", NULL, 1000, &m, &err) == 0, "%s",
                      err.message);
        expect_plane(&m);
        wio_mesh_data_free(&m);
    }
}
END_TEST

START_TEST(obj_faces_as_fans)
{
    /* The plane as one quad (a fan of two), with the forms of corners and negative indices. */
    const char obj[] = "# a plane\n"
                       "o plane\nv -1 0 -1\nv 1 0 -1\nv 1 0 1\nv -1 0 1\n"
                       "vt 0 0\nvn 0 1 0\n"
                       "f 1/1/1 4//1 3/1 2\n"
                       "v 0 0 0\nv 0 1 0\nv 1 0 0\n"
                       "f -3 -1 -2\n";
    wio_mesh_data m;
    mk_error err = {0};
    ck_assert_msg(wio_obj_parse(obj, strlen(obj), "plane.obj", 100, &m, &err) == 0, "%s",
                  err.message);
    ck_assert_uint_eq(m.nvertices, 7);
    ck_assert_uint_eq(m.ntriangles, 3);
    const uint32_t want[3][3] = {{0, 3, 2}, {0, 2, 1}, {4, 6, 5}};
    for (int t = 0; t < 3; t++)
        for (int k = 0; k < 3; k++)
            ck_assert_uint_eq(m.triangles[t][k], want[t][k]);
    wio_mesh_data_free(&m);
}
END_TEST

/* ---- untrusted files ---- */

static void expect_refused(const char *json, const char *name, const char *needle)
{
    wio_mesh_data m;
    mk_error err = {0};
    ck_assert_int_eq(wio_gltf_parse(json, strlen(json), name, NULL, 1000, &m, &err), -1);
    ck_assert_msg(strstr(err.message, name) && strstr(err.message, needle), "'%s' lacks '%s'",
                  err.message, needle);
}

/* The plane's .gltf with one piece of text replaced. */
static char *plane_with(const char *from, const char *to)
{
    char *json = plane_gltf(TRS_NODES);
    char *at = strstr(json, from);
    ck_assert_ptr_nonnull(at);
    size_t n = strlen(json) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - json), json, to, at + strlen(from));
    free(json);
    return out;
}

START_TEST(gltf_untrusted_refused)
{
    struct {
        const char *from, *to, *needle;
    } cases[] = {
        {"\"byteLength\":60,", "\"byteLength\":64,", "buffers[0].byteLength"},
        {"\"byteOffset\":48,\"byteLength\":12", "\"byteOffset\":52,\"byteLength\":12",
         "bufferViews[1]"},
        {"\"count\":6", "\"count\":9", "accessors[1]"},
        {"\"count\":4", "\"count\":5", "accessors[0]"},
        {"\"byteLength\":48}", "\"byteLength\":48,\"byteStride\":24}", "accessors[0]"},
        {"\"indices\":1", "\"indices\":7", "accessors"},
        {"\"scale\":[2,1,3]", "\"scale\":[2,1e300,3]", "scale"},
        {"\"translation\":[10,2,0]", "\"translation\":[10,2e6,0]", "byte"},
        {"\"componentType\":5123", "\"componentType\":5126", "componentType"},
        {"\"children\":[1]", "\"children\":[0]", "ancestor"},
        {"\"version\":\"2.0\"", "\"version\":\"1.0\"", "asset.version"},
        {"base64,", "base64,!!", "uri"},
        {"\"uri\":\"data:", "\"uri\":\"../../etc/passwd\",\"x\":\"", "uri"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *json = plane_with(cases[i].from, cases[i].to);
        expect_refused(json, "bad.gltf", cases[i].needle);
        free(json);
    }
    /* An index past the vertices, at its byte: the second index (byte 50) made 9. */
    uint8_t glb[2048];
    size_t len = plane_glb(glb, "5123", 2, false);
    uint8_t *bin = NULL;
    for (size_t i = 0; i + 8 <= len; i++)
        if (memcmp(glb + i, "BIN\0", 4) == 0)
            bin = glb + i + 4;
    ck_assert_ptr_nonnull(bin);
    uint16_t nine = 9;
    memcpy(bin + 48 + 2, &nine, 2);
    wio_mesh_data m;
    mk_error err = {0};
    ck_assert_int_eq(wio_gltf_parse(glb, len, "bad.glb", NULL, 1000, &m, &err), -1);
    ck_assert_msg(strstr(err.message, "index 9 at byte") != NULL, "%s", err.message);
    /* Cut anywhere, a .glb is refused, never read past its end. */
    len = plane_glb(glb, "5123", 2, false);
    for (size_t cut = 0; cut < len; cut++)
        ck_assert_int_eq(wio_gltf_parse(glb, cut, "cut.glb", NULL, 1000, &m, &err), -1);
    /* More triangles than the limit. */
    ck_assert_int_eq(wio_gltf_parse(glb, len, "big.glb", NULL, 1, &m, &err), -1);
    ck_assert(strstr(err.message, "more than 1 triangles") != NULL);
}
END_TEST

START_TEST(obj_untrusted_refused)
{
    struct {
        const char *text, *needle;
    } cases[] = {
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 4\n", "line 4 (byte 24): f: vertex index 4"},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 -4\n", "vertex index -4"},
        {"v 0 nan 0\n", "line 1 (byte 0)"},
        {"v 0 0 1e9\n", "limit"},
        {"v 0 0 0\nv 1 0 0\nf 1 2\n", "at least 3 corners"},
        {"v 0 0 0\nf 0 1 1\n", "other than 0"},
        {"v 0 0\n", "needs x, y and z"},
        {"# nothing\n", "no faces"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        wio_mesh_data m;
        mk_error err = {0};
        ck_assert_int_eq(wio_obj_parse(cases[i].text, strlen(cases[i].text), "bad.obj", 100, &m,
                                       &err),
                         -1);
        ck_assert_msg(strstr(err.message, "bad.obj") && strstr(err.message, cases[i].needle),
                      "'%s' lacks '%s'", err.message, cases[i].needle);
    }
}
END_TEST

/* ---- scenes ---- */

static sim_world *load_scene(const char *json, mk_error *err)
{
    write_file("scene.json", json, strlen(json));
    char path[512];
    snprintf(path, sizeof path, "%s/scene.json", folder);
    sim_config c = sim_config_default();
    return wio_scene_load_file(path, &c, err);
}

START_TEST(scene_files_and_their_folder)
{
    make_folder();
    char *gltf = plane_gltf(TRS_NODES);
    write_file("plane.gltf", gltf, strlen(gltf));
    free(gltf);
    const char obj[] = "v -5 0 -5\nv 5 0 -5\nv 5 0 5\nv -5 0 5\nv 0 0 0\nf 1 4 3 2\nf 1 1 2\n";
    write_file("floor.obj", obj, strlen(obj));
    mk_error err = {0};
    sim_world *w = load_scene("{\"dim\":3,\"bodies\":["
                              "{\"shape\":{\"type\":\"mesh\",\"file\":\"plane.gltf\"},"
                              "\"pos\":[0,0,0],\"kind\":\"static\"},"
                              "{\"shape\":{\"type\":\"mesh\",\"file\":\"plane.gltf\"},"
                              "\"pos\":[0,5,0],\"kind\":\"static\"},"
                              "{\"shape\":{\"type\":\"mesh\",\"file\":\"floor.obj\"},"
                              "\"pos\":[0,-10,0],\"kind\":\"static\"},"
                              "{\"shape\":{\"type\":\"sphere\",\"radius\":0.5},"
                              "\"pos\":[10,9,0]}]}",
                              &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    /* One level a file, however many bodies name it; the floor's degenerate face dropped. */
    const wio_level_file *files;
    ck_assert_uint_eq(wio_level_files(&files), 2);
    ck_assert_str_eq(files[0].name, "plane.gltf");
    ck_assert_uint_eq(sim_level_pieces(files[0].level), 2);
    ck_assert_str_eq(files[1].name, "floor.obj");
    ck_assert_uint_eq(files[1].dropped, 1);
    /* The ball lands on the placed plane (its top at y 2 + 0 under the upper body at 5). */
    for (int i = 0; i < 120; i++)
        sim_world_step(w);
    const sim_body *ball = sim_world_get(w, 4);
    ck_assert_float_eq_tol(sim_body3_of(w, ball)->pos.y, 7.5f, 2e-3f);
    sim_world_free(w);
    /* Files that leave the folder are refused, by name, by .. and by a link out. */
    char link[600];
    snprintf(link, sizeof link, "%s/out", folder);
    ck_assert_int_eq(symlink("/tmp", link), 0);
    const char *bad[] = {"/etc/passwd", "../plane.gltf", "sub/../../plane.gltf", "out/x.obj",
                         "missing.obj", "plane.txt"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char scene[512];
        snprintf(scene, sizeof scene,
                 "{\"dim\":3,\"bodies\":[{\"shape\":{\"type\":\"mesh\",\"file\":\"%s\"},"
                 "\"pos\":[0,0,0],\"kind\":\"static\"}]}",
                 bad[i]);
        ck_assert_ptr_null(load_scene(scene, &err));
        ck_assert_msg(strstr(err.message, "bodies[0].shape.file") != NULL, "%s", err.message);
    }
    /* A file is no body's over the wire, nor in a scene read from memory. */
    sim_config c = sim_config_default();
    ck_assert_ptr_null(wio_scene_load("{\"dim\":3,\"bodies\":[{\"shape\":{\"type\":\"mesh\","
                                      "\"file\":\"plane.gltf\"},\"pos\":[0,0,0],"
                                      "\"kind\":\"static\"}]}",
                                      120, "mem", &c, &err));
    proto_msg msg;
    const char spawn[] = "{\"type\":\"spawn\",\"body\":{\"shape\":{\"type\":\"mesh\",\"file\":"
                         "\"plane.gltf\"},\"pos\":[0,0,0],\"kind\":\"static\"}}";
    ck_assert_int_eq(proto_parse(spawn, strlen(spawn), 3, &msg, &err), PROTO_ERR_BAD_REQUEST);
    remove_folder();
}
END_TEST

START_TEST(inline_levels_in_scenes)
{
    const char scene2[] =
        "{\"dim\":2,\"bodies\":["
        "{\"shape\":{\"type\":\"chain\",\"points\":[[12,0],[10,0],[-10,0],[-12,0]]},"
        "\"pos\":[0,0],\"kind\":\"static\"},"
        "{\"shape\":{\"type\":\"segment\",\"a\":[-2,0],\"b\":[2,0]},\"pos\":[20,1],"
        "\"kind\":\"static\"},"
        "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5]},\"pos\":[0,3]},"
        "{\"shape\":{\"type\":\"circle\",\"radius\":0.25},\"pos\":[20,3]}]}";
    sim_config c = sim_config_default();
    mk_error err = {0};
    sim_world *w = wio_scene_load(scene2, strlen(scene2), "chain", &c, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int i = 0; i < 120; i++)
        sim_world_step(w);
    ck_assert_float_eq_tol(sim_world_get(w, 3)->pos.y, 0.5f, 2e-3f);
    ck_assert_float_eq_tol(sim_world_get(w, 4)->pos.y, 1.25f, 2e-3f);
    sim_world_free(w);
    const char scene3[] =
        "{\"dim\":3,\"bodies\":["
        "{\"shape\":{\"type\":\"heightfield\",\"size\":[3,3],\"scale\":[2,1,2],"
        "\"heights\":[0,0,0,0,0,0,0,0,0],\"holes\":[0,0,0,1]},\"pos\":[0,0,0],"
        "\"kind\":\"static\"},"
        "{\"shape\":{\"type\":\"mesh\",\"vertices\":[[-1,0,-1],[1,0,-1],[1,0,1],[-1,0,1]],"
        "\"indices\":[[0,2,1],[0,3,2]]},\"pos\":[10,0,0],\"kind\":\"static\"},"
        "{\"shape\":{\"type\":\"box\",\"half\":[0.4,0.4,0.4]},\"pos\":[1,2,1]},"
        "{\"shape\":{\"type\":\"box\",\"half\":[0.4,0.4,0.4]},\"pos\":[3,2,3]},"
        "{\"shape\":{\"type\":\"box\",\"half\":[0.4,0.4,0.4]},\"pos\":[10,2,0]}]}";
    c.dim = 3;
    w = wio_scene_load(scene3, strlen(scene3), "terrain", &c, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    for (int i = 0; i < 90; i++)
        sim_world_step(w);
    const sim_body *b;
    ck_assert_float_eq_tol(sim_body3_of(w, b = sim_world_get(w, 3))->pos.y, 0.4f, 2e-3f);
    ck_assert(sim_body3_of(w, b = sim_world_get(w, 4))->pos.y < -1.0f); /* through the hole */
    ck_assert_float_eq_tol(sim_body3_of(w, b = sim_world_get(w, 5))->pos.y, 0.4f, 2e-3f);
    sim_world_free(w);
    /* A level is a static or kinematic body's shape. */
    const char bad[] = "{\"dim\":2,\"bodies\":[{\"shape\":{\"type\":\"segment\",\"a\":[0,0],"
                       "\"b\":[1,0]},\"pos\":[0,0]}]}";
    c.dim = 2;
    ck_assert_ptr_null(wio_scene_load(bad, strlen(bad), "bad", &c, &err));
    ck_assert_msg(strstr(err.message, "bodies[0].kind") != NULL, "%s", err.message);
}
END_TEST

/* ---- the protocol's form ---- */

START_TEST(level_shapes_read_and_written)
{
    const char *shapes[] = {
        "{\"type\":\"segment\",\"a\":[-1.5,0],\"b\":[2,0.25]}",
        "{\"type\":\"chain\",\"points\":[[0,0],[1,0],[2,1],[3,1]],\"loop\":false}",
        "{\"type\":\"mesh\",\"vertices\":[[0,0,0],[1,0,0],[0,0,1]],\"indices\":[[0,2,1]]}",
        "{\"type\":\"heightfield\",\"size\":[2,3],\"scale\":[1,0.5,2],"
        "\"heights\":[0,1,2,3,4,5],\"holes\":[0,1]}",
    };
    for (size_t i = 0; i < 4; i++) {
        int dim = i < 2 ? 2 : 3;
        cJSON *j = cJSON_Parse(shapes[i]);
        proto_shape s;
        mk_error err = {0};
        ck_assert_msg(proto_parse_shape(j, dim, "shape.", &s, &err) == PROTO_OK, "%s",
                      err.message);
        cJSON_Delete(j);
        proto_buf b;
        proto_buf_init(&b);
        proto_write_shape(&b, dim, &s);
        proto_buf_append_char(&b, '\0');
        ck_assert_str_eq(b.data, shapes[i]);
        proto_buf_free(&b);
        proto_shape_free(&s);
    }
    const struct {
        const char *json, *needle;
    } bad[] = {
        {"{\"type\":\"mesh\",\"vertices\":[[0,0,0],[1,0,0],[0,0,1]],\"indices\":[[0,3,1]]}",
         "shape.indices[0][1]: 3 is past the 3 vertices"},
        {"{\"type\":\"chain\",\"points\":[[0,0],[1,0],[2,1]]}", "at least 4 points"},
        {"{\"type\":\"heightfield\",\"size\":[2,2],\"scale\":[1,1,1],\"heights\":[0,0,0]}",
         "shape.heights"},
        {"{\"type\":\"mesh\",\"level\":\"12\"}", "shape.level"},
    };
    for (size_t i = 0; i < 4; i++) {
        cJSON *j = cJSON_Parse(bad[i].json);
        proto_shape s;
        mk_error err = {0};
        ck_assert_int_eq(proto_parse_shape(j, i == 1 ? 2 : 3, "shape.", &s, &err),
                         PROTO_ERR_BAD_REQUEST);
        ck_assert_msg(strstr(err.message, bad[i].needle) != NULL, "%s", err.message);
        ck_assert_ptr_null(s.level);
        cJSON_Delete(j);
    }
    /* A level is a fixed body's shape, never a sensor's. */
    cJSON *j = cJSON_Parse("{\"shape\":{\"type\":\"segment\",\"a\":[0,0],\"b\":[1,0]},"
                           "\"pos\":[0,0],\"kind\":\"static\",\"sensor\":true}");
    proto_body_spec spec;
    mk_error err = {0};
    ck_assert_int_eq(proto_parse_body_spec(j, 2, "body", &spec, &err), PROTO_ERR_BAD_REQUEST);
    ck_assert_msg(strstr(err.message, "body.sensor: a segment cannot be a sensor") != NULL, "%s",
                  err.message);
    cJSON_Delete(j);
}
END_TEST

/* ---- the journal and saved scenes ---- */

static void keep_line(void *ctx, const char *line, size_t len)
{
    proto_buf_append(ctx, line, len);
}

START_TEST(journal_and_save_bring_levels_back)
{
    const char scene[] = "{\"dim\":3,\"bodies\":[{\"shape\":{\"type\":\"box\",\"half\":[0.5,"
                         "0.5,0.5]},\"pos\":[0.3,3,0.2]}]}";
    sim_config c = sim_config_default();
    mk_error err = {0};
    sim_world *w = wio_scene_load(scene, strlen(scene), "s", &c, &err);
    sim_world *replay = wio_scene_load(scene, strlen(scene), "s", &c, &err);
    proto_buf lines;
    proto_buf_init(&lines);
    wio_journal j;
    wio_journal_start(&j, w, keep_line, &lines);
    /* A client's mesh spawned under the box: a grid of 6 x 6 cells. */
    proto_buf spec;
    proto_buf_init(&spec);
    proto_buf_append_str(&spec, "{\"shape\":{\"type\":\"mesh\",\"vertices\":[");
    for (int k = 0; k < 49; k++) {
        char v[64];
        snprintf(v, sizeof v, "%s[%d,%g,%d]", k ? "," : "", k % 7 - 3, 0.01 * (k % 5), k / 7 - 3);
        proto_buf_append_str(&spec, v);
    }
    proto_buf_append_str(&spec, "],\"indices\":[");
    for (int q = 0; q < 36; q++) {
        int a = q / 6 * 7 + q % 6, bb = a + 1, cc = a + 7, d = cc + 1;
        char t[64];
        snprintf(t, sizeof t, "%s[%d,%d,%d],[%d,%d,%d]", q ? "," : "", a, cc, d, a, d, bb);
        proto_buf_append_str(&spec, t);
    }
    proto_buf_append_str(&spec, "]},\"pos\":[0,0,0],\"kind\":\"static\"}");
    cJSON *sj = cJSON_ParseWithLength(spec.data, spec.len);
    proto_body_spec body;
    ck_assert_int_eq(proto_parse_body_spec(sj, 3, "body", &body, &err), PROTO_OK);
    cJSON_Delete(sj);
    sim_body_def def;
    ck_assert_msg(wio_body_def_from_spec(&body, 3, &def, &err) == 0, "%s", err.message);
    proto_shape_free(&body.shape);
    for (int i = 0; i < 10; i++)
        sim_world_step(w);
    ck_assert_uint_ne(sim_world_add(w, &def, 7), 0);
    sim_level_release(def.level);
    for (int i = 0; i < 100; i++)
        sim_world_step(w);
    wio_journal_stop(&j);
    /* Replayed line by line on the same scene: the same hash at the end. */
    const char *p = lines.data, *end = lines.data + lines.len;
    int rc = 0;
    while (p < end && rc == 0) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        rc = wio_journal_apply(replay, p, (size_t)(nl - p) + 1, NULL, NULL, &err);
        ck_assert_msg(rc >= 0, "%s", err.message);
        p = nl + 1;
    }
    ck_assert_int_eq(rc, 1);
    ck_assert_uint_eq(sim_world_hash(replay), sim_world_hash(w));
    /* Saved as a scene and loaded: the level comes back with its key. */
    proto_buf saved;
    proto_buf_init(&saved);
    wio_world_write(w, &saved);
    sim_world *back = wio_scene_load(saved.data, saved.len, "saved", &c, &err);
    ck_assert_msg(back != NULL, "%s", err.message);
    const sim_level **a, **bl;
    size_t na, nb;
    ck_assert(sim_world_levels(w, &a, &na) && sim_world_levels(back, &bl, &nb));
    ck_assert_uint_eq(na, 1);
    ck_assert_uint_eq(nb, 1);
    ck_assert(memcmp(sim_level_key(a[0]), sim_level_key(bl[0]), SIM_LEVEL_KEY) == 0);
    ck_assert_uint_eq(sim_world_hash(back), sim_world_hash(w));
    free(a);
    free(bl);
    proto_buf_free(&saved);
    proto_buf_free(&spec);
    proto_buf_free(&lines);
    sim_world_free(back);
    sim_world_free(replay);
    sim_world_free(w);
}
END_TEST

MINK_CHECK_TESTS("levels_io", 60, gltf_plane_under_nodes, glb_plane_every_index_type,
                 obj_faces_as_fans, gltf_untrusted_refused, obj_untrusted_refused,
                 scene_files_and_their_folder, inline_levels_in_scenes,
                 level_shapes_read_and_written, journal_and_save_bring_levels_back)
