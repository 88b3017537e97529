/* Scenes: {dim, gravity?, bodies: [body spec...], joints?: [joint...]} from a file or the
 * embedded demo. Scene files
 * are untrusted like the network: every body goes through the protocol's validation, and an
 * error names the source, the body and the field. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "world_io_internal.h"

#define SCENE_MAX_BYTES (64u << 20) /* a larger scene file is refused before it is read */
#define SCENE_MAX_ID 9007199254740992.0 /* 2^53: ids and ticks stay exact in JSON */
#define SCENE_MAX_GRAVITY 1e3       /* m/s^2 */
#define SCENE_MAX_SPIN 94.0         /* rad/s: the world's own bound */

const char wio_demo_scene2[] =
    "{\"dim\":2,\"gravity\":[0,-10],\"bodies\":["
    /* ground (top at y = 0) and walls */
    "{\"shape\":{\"type\":\"aabb\",\"half\":[30,0.5]},\"pos\":[0,-0.5],\"kind\":\"static\","
    "\"tag\":\"ground\"},"
    "{\"shape\":{\"type\":\"aabb\",\"half\":[0.5,8]},\"pos\":[-30.5,7.5],\"kind\":\"static\","
    "\"tag\":\"wall\"},"
    "{\"shape\":{\"type\":\"aabb\",\"half\":[0.5,8]},\"pos\":[30.5,7.5],\"kind\":\"static\","
    "\"tag\":\"wall\"},"
    /* platforms at jumping heights (a jump rises 1.5 m) */
    "{\"shape\":{\"type\":\"aabb\",\"half\":[2.5,0.25]},\"pos\":[-8,1.25],\"kind\":\"static\","
    "\"tag\":\"platform\"},"
    "{\"shape\":{\"type\":\"aabb\",\"half\":[2.5,0.25]},\"pos\":[-14,2.5],\"kind\":\"static\","
    "\"tag\":\"platform\"},"
    "{\"shape\":{\"type\":\"aabb\",\"half\":[3,0.25]},\"pos\":[-21,3.75],\"kind\":\"static\","
    "\"tag\":\"platform\"},"
    "{\"shape\":{\"type\":\"aabb\",\"half\":[2,0.25]},\"pos\":[12,1.25],\"kind\":\"static\","
    "\"tag\":\"platform\"},"
    /* a stack of three crates */
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5]},\"pos\":[5,0.5],\"tag\":\"crate\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5]},\"pos\":[5,1.5],\"tag\":\"crate\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5]},\"pos\":[5,2.5],\"tag\":\"crate\"},"
    /* crates falling onto the platforms and the ground, one sliding */
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5]},\"pos\":[-8,6],\"tag\":\"crate\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.4,0.4]},\"pos\":[-14,9],\"tag\":\"crate\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.75,0.75]},\"pos\":[12,8],\"density\":2,"
    "\"tag\":\"crate\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.3,0.3]},\"pos\":[12.2,12],\"tag\":\"crate\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5]},\"pos\":[20,3],\"vel\":[-6,0],"
    "\"friction\":0.3,\"tag\":\"crate\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[1,0.5]},\"pos\":[20,0.5],\"density\":0.5,"
    "\"tag\":\"crate\"},"
    /* a 30 degree ramp to walk up, a tilted plank, a ball that slides down it, a gem */
    "{\"shape\":{\"type\":\"polygon\",\"points\":[[0,0],[6,0],[6,3.4641]]},\"pos\":[22,0],"
    "\"kind\":\"static\",\"tag\":\"ramp\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[2,0.15]},\"pos\":[16,3],\"rot\":0.5,"
    "\"kind\":\"static\",\"tag\":\"plank\"},"
    "{\"shape\":{\"type\":\"circle\",\"radius\":0.4},\"pos\":[16.5,7],\"friction\":0.2,"
    "\"tag\":\"ball\"},"
    "{\"shape\":{\"type\":\"polygon\",\"points\":[[-0.5,-0.4],[0.5,-0.4],[0.7,0.3],[0,0.8],"
    "[-0.7,0.3]]},\"pos\":[8,5],\"tag\":\"gem\"}"
    "]}";

/* A whole number in [lo, hi]. */
bool wio_json_whole_in(const cJSON *j, double lo, double hi)
{
    return cJSON_IsNumber(j) && j->valuedouble >= lo && j->valuedouble <= hi &&
           j->valuedouble == floor(j->valuedouble);
}

static bool place_scene_body(sim_world *w, const cJSON *item, const cJSON *id, const char *path,
                             const sim_body_def *def, const char *source, sim_id *out,
                             mk_error *err);

/* One body of a scene in folder `dir` (NULL: its meshes may name no file), its id in *out;
 * false with `err` naming the body and the field. */
static bool add_scene_body(sim_world *w, const cJSON *item, const cJSON *id, int index,
                           proto_body_spec *spec, const char *source, const char *dir,
                           sim_id *out, mk_error *err)
{
    char path[32];
    snprintf(path, sizeof path, "bodies[%d]", index);
    sim_body_def def;
    int dim = sim_world_dim(w);
    if (proto_parse_body_spec(item, dim, path, spec, err) != PROTO_OK) {
        mk_error_prefix(err, "%s: ", source);
        return false;
    }
    int rc = wio_body_def_from_spec_in(spec, dim, dir, &def, err);
    proto_shape_free(&spec->shape);
    if (rc != 0) {
        mk_error_prefix(err, "%s: %s.", source, path);
        return false;
    }
    bool ok = place_scene_body(w, item, id, path, &def, source, out, err);
    sim_level_release(def.level); /* the world holds a level body's level */
    return ok;
}

/* The body of `def` into the world, with the id, spin and sleep a saved world gives it; its id
 * in *out. */
static bool place_scene_body(sim_world *w, const cJSON *item, const cJSON *id, const char *path,
                             const sim_body_def *def, const char *source, sim_id *out,
                             mk_error *err)
{
    int dim = sim_world_dim(w);
    /* A saved world's bodies carry their spin and whether they sleep. */
    const cJSON *spin = cJSON_GetObjectItemCaseSensitive(item, "w");
    const cJSON *asleep = cJSON_GetObjectItemCaseSensitive(item, "sleeping");
    double spin3[3] = {0, 0, 0};
    if (spin && dim == 3) {
        char wpath[40];
        snprintf(wpath, sizeof wpath, "%s.w", path);
        if (proto_parse_vector(spin, 3, SCENE_MAX_SPIN, wpath, spin3, err) != PROTO_OK) {
            mk_error_prefix(err, "%s: ", source);
            return false;
        }
    } else if (spin && !(cJSON_IsNumber(spin) && fabs(spin->valuedouble) <= SCENE_MAX_SPIN)) {
        mk_fail(err, MK_ERR_INVALID, "%s: %s.w: must be a number in [-%g, %g] rad/s", source, path,
                SCENE_MAX_SPIN, SCENE_MAX_SPIN);
        return false;
    }
    if (asleep && !cJSON_IsBool(asleep)) {
        mk_fail(err, MK_ERR_INVALID, "%s: %s.sleeping: must be true or false", source, path);
        return false;
    }
    sim_id added;
    if (!id) {
        if ((added = sim_world_add(w, def, 0)) == 0) {
            mk_fail(err, MK_ERR_INVALID, "%s: %s: the world is full", source, path);
            return false;
        }
    } else if (!wio_json_whole_in(id, 1, SCENE_MAX_ID)) {
        mk_fail(err, MK_ERR_INVALID,
                "%s: %s.id: must be a whole number in [1, 2^53]", source, path);
        return false;
    } else if ((added = sim_world_add_with_id(w, def, 0, (sim_id)id->valuedouble)) == 0) {
        mk_fail(err, MK_ERR_INVALID,
                "%s: %s.id: %.0f is not a body id this world can give (its slot "
                              "is taken, or it is out of range, or the world is full)",
                source, path, id->valuedouble);
        return false;
    }
    /* A body that never turns keeps no spin (sim_body_set_spin2/3). */
    if (spin && dim == 3)
        sim_body_set_spin3(w, added, mk_v3((float)spin3[0], (float)spin3[1], (float)spin3[2]));
    else if (spin)
        sim_body_set_spin2(w, added, (float)spin->valuedouble);
    if (cJSON_IsTrue(asleep))
        sim_world_put_to_sleep(w, added);
    *out = added;
    return true;
}

/* A saved world's free slots: [[slot, generation], ...]. */
static bool restore_free_slots(sim_world *w, const cJSON *free_slots, const char *source,
                               mk_error *err)
{
    if (!free_slots)
        return true;
    if (!cJSON_IsArray(free_slots)) {
        mk_fail(err, MK_ERR_INVALID, "%s: free: expected an array of [slot, generation]", source);
        return false;
    }
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, free_slots)
    {
        const cJSON *slot = cJSON_GetArrayItem(e, 0), *gen = cJSON_GetArrayItem(e, 1);
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 2 ||
            !wio_json_whole_in(slot, 0, sim_world_config(w)->max_bodies - 1.0) ||
            !wio_json_whole_in(gen, 0, 536870912.0) ||
            !sim_world_set_slot_generation(w, (uint32_t)slot->valuedouble,
                                           (uint32_t)gen->valuedouble)) {
            mk_fail(err, MK_ERR_INVALID, "%s: free[%d]: must be [slot, generation] for a free slot "
                                  "below max_bodies and a generation in [0, 2^29]",
                    source, i);
            return false;
        }
        i++;
    }
    return true;
}

static sim_world *scene_load(const char *json, size_t len, const char *source, const char *dir,
                             const sim_config *cfg, mk_error *err);

sim_world *wio_scene_load(const char *json, size_t len, const char *source,
                          const sim_config *cfg, mk_error *err)
{
    return scene_load(json, len, source, NULL, cfg, err);
}

/* A scene from memory; `dir` is the folder its meshes' files are named in (NULL: none). */
static sim_world *scene_load(const char *json, size_t len, const char *source, const char *dir,
                             const sim_config *cfg, mk_error *err)
{
    cJSON *root = cJSON_ParseWithLength(json, len);
    if (!root) {
        mk_fail(err, MK_ERR_INVALID, "%s: not valid JSON", source);
        return NULL;
    }
    sim_world *w = NULL;
    sim_config c = *cfg;

    if (!cJSON_IsObject(root)) {
        mk_fail(err, MK_ERR_INVALID, "%s: a scene is a JSON object {dim, gravity, bodies}", source);
        goto done;
    }
    const cJSON *dim = cJSON_GetObjectItemCaseSensitive(root, "dim");
    if (!cJSON_IsNumber(dim) || (dim->valuedouble != 2.0 && dim->valuedouble != 3.0)) {
        mk_fail(err, MK_ERR_INVALID, "%s: dim: must be 2 or 3", source);
        goto done;
    }
    c.dim = dim->valuedouble == 3.0 ? 3 : 2;
    const cJSON *gravity = cJSON_GetObjectItemCaseSensitive(root, "gravity");
    if (gravity) {
        double g[3] = {0, 0, 0};
        if (proto_parse_vector(gravity, c.dim, SCENE_MAX_GRAVITY, "gravity", g, err) !=
            PROTO_OK) {
            mk_error_prefix(err, "%s: ", source);
            goto done;
        }
        c.gravity = mk_v2((float)g[0], (float)g[1]);
        c.gravity3 = mk_v3((float)g[0], (float)g[1], (float)g[2]);
    }
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(root, "bodies");
    if (!cJSON_IsArray(bodies)) {
        mk_fail(err, MK_ERR_INVALID, "%s: bodies: expected an array of body specs", source);
        goto done;
    }
    if ((size_t)cJSON_GetArraySize(bodies) > c.max_bodies) {
        mk_fail(err, MK_ERR_INVALID, "%s: bodies: %d bodies, more than the limit of %u", source,
                cJSON_GetArraySize(bodies), c.max_bodies);
        goto done;
    }
    w = sim_world_new(&c);
    if (!w) {
        mk_fail(err, MK_ERR_INVALID, "%s: out of memory", source);
        goto done;
    }
    /* The spec is large (it can hold 256 points); one on the heap serves every body. The
     * bodies' ids by their index, for the joints. */
    proto_body_spec *spec = malloc(sizeof *spec);
    int nbodies = cJSON_GetArraySize(bodies);
    sim_id *ids = calloc(nbodies > 0 ? (size_t)nbodies : 1, sizeof *ids);
    if (!spec || !ids) {
        free(ids);
        mk_fail(err, MK_ERR_INVALID, "%s: out of memory", source);
        sim_world_free(w);
        w = NULL;
        goto done;
    }
    /* A saved world gives its bodies' ids (and its tick): those bodies come first, so that the
     * bodies without one cannot take their slots. */
    const cJSON *tick = cJSON_GetObjectItemCaseSensitive(root, "tick");
    if (tick && !wio_json_whole_in(tick, 0, SCENE_MAX_ID)) {
        mk_fail(err, MK_ERR_INVALID, "%s: tick: must be a whole number in [0, 2^53]", source);
        free(ids);
        free(spec);
        sim_world_free(w);
        w = NULL;
        goto done;
    }
    if (tick)
        sim_world_set_tick(w, (uint64_t)tick->valuedouble);
    for (int pass = 0; pass < 2 && w; pass++) {
        int index = 0;
        const cJSON *item;
        cJSON_ArrayForEach(item, bodies)
        {
            const cJSON *id = cJSON_IsObject(item) ? cJSON_GetObjectItemCaseSensitive(item, "id")
                                                   : NULL;
            if ((id != NULL) != (pass == 0)) {
                index++;
                continue;
            }
            if (!add_scene_body(w, item, id, index, spec, source, dir, &ids[index], err)) {
                sim_world_free(w);
                w = NULL;
                break;
            }
            index++;
        }
        /* Between the bodies with ids and those without: the free slots get their
         * generations before anything new can take them. */
        if (pass == 0 && w &&
            !restore_free_slots(w, cJSON_GetObjectItemCaseSensitive(root, "free"), source, err)) {
            sim_world_free(w);
            w = NULL;
        }
    }
    if (w && wio_scene_joints(w, root, ids, nbodies, err) != 0) {
        mk_error_prefix(err, "%s: ", source);
        sim_world_free(w);
        w = NULL;
    }
    free(ids);
    free(spec);
done:
    cJSON_Delete(root);
    return w;
}

sim_world *wio_scene_load_file(const char *path, const sim_config *cfg, mk_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        mk_fail(err, MK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *data = NULL;
    size_t len = 0, cap = 0;
    sim_world *w = NULL;
    for (;;) {
        if (len == cap) {
            if (cap >= SCENE_MAX_BYTES) {
                mk_fail(err, MK_ERR_IO, "%s: larger than %u MiB", path, SCENE_MAX_BYTES >> 20);
                goto out;
            }
            cap = cap ? cap * 2 : 65536;
            char *p = realloc(data, cap);
            if (!p) {
                mk_fail(err, MK_ERR_IO, "%s: out of memory", path);
                goto out;
            }
            data = p;
        }
        size_t n = fread(data + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    if (ferror(f)) {
        mk_fail(err, MK_ERR_IO, "%s: read error: %s", path, strerror(errno));
        goto out;
    }
    if (!proto_utf8_valid(data, len)) {
        mk_fail(err, MK_ERR_INVALID, "%s: not valid UTF-8", path);
        goto out;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    w = scene_load(data, len, path, dir, cfg, err);
out:
    free(data);
    fclose(f);
    return w;
}
