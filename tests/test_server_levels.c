/* Integration: levels through the real server. The example level (examples/levels: a scene
 * naming level.glb) loads; `welcome` names the level by its key with its file and the file's
 * SHA-256; the HTTP port serves the level's file (whose SHA-256 is its key) and the .glb it
 * came from; a body's first sighting names the large level and carries a small one whole;
 * a client's level shapes are held to the body rules (static or kinematic, no file); a save
 * keeps the level once beside it and a restart comes back with it. */
#include <check.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "http_client.h"
#include "server_fixture.h"

#define SCENE MINK_EXAMPLES "/scene.json"
#define GLB MINK_EXAMPLES "/level.glb"

static void sha256_hex(const void *data, size_t len, char hex[65])
{
    unsigned char d[32];
    unsigned n = 0;
    ck_assert(EVP_Digest(data, len, d, &n, EVP_sha256(), NULL) && n == 32);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

/* The whole of file `path`, which must be there. */
static char *read_all(const char *path, size_t *len)
{
    char *data = h_read_file(path, len);
    ck_assert_msg(data != NULL, "%s cannot be read", path);
    return data;
}

static int http_port;

static void start_with(const char *a0, const char *a1, const char *a2, const char *a3)
{
    static char port[16];
    http_port = http_free_port();
    snprintf(port, sizeof port, "%d", http_port);
    const char *args[] = {"--http-port", port, a0, a1, a2, a3, NULL};
    start(args);
}

/* The welcome's one level: its key; checks its file, kind and pieces. */
static void welcome_level(const cJSON *w, char key[65])
{
    const cJSON *levels = cJSON_GetObjectItemCaseSensitive(w, "levels");
    ck_assert_int_eq(cJSON_GetArraySize(levels), 1);
    const cJSON *l = cJSON_GetArrayItem(levels, 0);
    ck_assert_str_eq(h_str(l, "type"), "mesh");
    ck_assert_double_eq(h_num(l, "pieces"), 4644); /* 48 x 48 cells, and 3 blocks */
    snprintf(key, 65, "%s", h_str(l, "key"));
    ck_assert_uint_eq(strlen(key), 64);
    char url[80];
    snprintf(url, sizeof url, "/levels/%s", key);
    ck_assert_str_eq(h_str(l, "url"), url);
}

/* GET /levels/KEY`tail` from the HTTP port into *r (caller frees): it must answer 200. */
static void get_level(const char *key, const char *tail, http_resp *r)
{
    char path[96];
    snprintf(path, sizeof path, "/levels/%s%s", key, tail);
    ck_assert(http_get(http_port, path, r));
    ck_assert_msg(r->status == 200, "GET %s: %d", path, r->status);
}

START_TEST(levels_named_and_served)
{
    start_with("--scene", SCENE, NULL, NULL);
    h_conn c;
    cJSON *w = join(&c, HELLO);
    char key[65];
    welcome_level(w, key);
    size_t glb_len;
    char *glb = read_all(GLB, &glb_len), glb_sha[65];
    sha256_hex(glb, glb_len, glb_sha);
    const cJSON *l = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(w, "levels"), 0);
    ck_assert_str_eq(h_str(l, "file"), "level.glb");
    ck_assert_str_eq(h_str(l, "sha256"), glb_sha);
    cJSON_Delete(w);
    /* The level's file: its bytes hash to its key; and the .glb as the scene named it. */
    http_resp r;
    get_level(key, "", &r);
    char got[65];
    sha256_hex(r.body, r.body_len, got);
    ck_assert_str_eq(got, key);
    ck_assert(r.body_len > 8 && memcmp(r.body, "MINKLVL1", 8) == 0);
    http_resp_free(&r);
    get_level(key, "/file", &r);
    ck_assert_uint_eq(r.body_len, glb_len);
    ck_assert(memcmp(r.body, glb, glb_len) == 0);
    http_resp_free(&r);
    ck_assert(http_get(http_port, "/levels/00", &r));
    ck_assert_int_eq(r.status, 404);
    http_resp_free(&r);
    free(glb);
    /* The level's first sighting names it; the crates fall onto it and stay above it. */
    cJSON *s = next_state_with(&c, 1);
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(h_state_body(s, 1), "shape");
    ck_assert_str_eq(h_str(shape, "type"), "mesh");
    ck_assert_str_eq(h_str(shape, "level"), key);
    ck_assert_double_eq(h_num(shape, "pieces"), 4644);
    cJSON_Delete(s);
    /* A client's small mesh: spawned static, seen whole; a dynamic one and a file refused. */
    double id = spawn_ok(&c, 7,
                         "{\"shape\":{\"type\":\"mesh\",\"vertices\":[[0,0,0],[1,0,0],[0,0,1]],"
                         "\"indices\":[[0,2,1]]},\"pos\":[30,0,30],\"kind\":\"static\"}");
    s = next_state_with(&c, id);
    shape = cJSON_GetObjectItemCaseSensitive(h_state_body(s, id), "shape");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(shape, "vertices")), 3);
    cJSON_Delete(s);
    ck_assert(h_send_line(&c, "{\"type\":\"spawn\",\"body\":{\"shape\":{\"type\":\"mesh\","
                              "\"file\":\"level.glb\"},\"pos\":[0,0,0],\"kind\":\"static\"}}"));
    expect_error(&c, "bad_request");
    ck_assert(h_send_line(&c, "{\"type\":\"spawn\",\"body\":{\"shape\":{\"type\":\"mesh\","
                              "\"vertices\":[[0,0,0],[1,0,0],[0,0,1]],\"indices\":[[0,2,1]]},"
                              "\"pos\":[0,0,0]}}"));
    expect_error(&c, "bad_request");
    expect_alive(&c);
    close_and_stop(&c);
}
END_TEST

START_TEST(save_keeps_the_level_once)
{
    char save[] = "/tmp/mink-levels-save-XXXXXX";
    make_temp_file(save);
    start_with("--scene", SCENE, "--save", save);
    h_conn c;
    cJSON *w = join(&c, HELLO);
    char key[65];
    welcome_level(w, key);
    cJSON_Delete(w);
    nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL);
    close_and_stop(&c);
    char level[200];
    snprintf(level, sizeof level, "%s.levels/%s.level", save, key);
    size_t len;
    char *bytes = read_all(level, &len), sha[65];
    sha256_hex(bytes, len, sha);
    ck_assert_str_eq(sha, key);
    free(bytes);
    /* Back from the save alone (no scene): the same level, by its key. */
    start_with("--save", save, NULL, NULL);
    ck_assert(h_server_log_has(&srv, "restored") || h_server_log_has(&srv, "back from"));
    w = join(&c, HELLO);
    char again[65];
    welcome_level(w, again);
    ck_assert_str_eq(again, key);
    cJSON_Delete(w);
    http_resp r;
    get_level(key, "", &r);
    http_resp_free(&r);
    close_and_stop(&c);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'.*", save, save);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

MINK_CHECK_TESTS("server_levels", 60, levels_named_and_served, save_keeps_the_level_once)
