/* The world's levels as the clients get them. A level is too large for a body's first
 * sighting (a million triangles would not fit a state), so a large one is named there by its
 * key, `welcome` lists the world's levels with the file each came from and that file's
 * SHA-256, and the HTTP port serves each level's file at /levels/KEY, which the web page
 * fetches and draws; the file a scene read it from is at /levels/KEY/file. A level never
 * changes, so its key names its bytes for good. */
#include <stdlib.h>
#include <string.h>

#include "levels.h"
#include "mink_world_io.h"
#include "net_server.h"

/* The table's entry for a level (the file it was read from), or NULL. */
static const wio_level_file *file_of(const sim_level *l)
{
    const wio_level_file *files;
    size_t n = wio_level_files(&files);
    for (size_t i = 0; i < n; i++)
        if (files[i].level == l && files[i].name[0])
            return &files[i];
    return NULL;
}

static proto_shape_type type_of(const sim_level *l)
{
    switch (sim_level_kind_of(l)) {
    case SIM_LEVEL_SEGMENT:
        return PROTO_SHAPE_SEGMENT;
    case SIM_LEVEL_CHAIN:
        return PROTO_SHAPE_CHAIN;
    case SIM_LEVEL_MESH:
        return PROTO_SHAPE_MESH;
    case SIM_LEVEL_HEIGHTFIELD:
        break;
    }
    return PROTO_SHAPE_HEIGHTFIELD;
}

proto_welcome_level *net_levels_welcome(net_server *srv, size_t *n)
{
    const sim_level **levels;
    *n = 0;
    if (!sim_world_levels(srv->world, &levels, n) || *n == 0)
        return NULL;
    proto_welcome_level *out = calloc(*n, sizeof *out);
    for (size_t i = 0; out && i < *n; i++) {
        const sim_level *l = levels[i];
        wio_key_hex(sim_level_key(l), out[i].key);
        out[i].type = type_of(l);
        out[i].pieces = sim_level_pieces(l);
        const wio_level_file *f = file_of(l);
        out[i].file = f ? f->name : "";
        memcpy(out[i].sha256, f ? f->sha256 : "", f ? sizeof out[i].sha256 : 1);
    }
    if (!out)
        *n = 0;
    free(levels);
    return out;
}

static void put(void *ctx, const void *data, size_t len) { proto_buf_append(ctx, data, len); }

int net_levels_http(net_server *srv, const char *path, proto_buf *b, const char **type)
{
    if (strncmp(path, "/levels/", 8) != 0)
        return 0;
    const char *key = path + 8;
    size_t hex = strspn(key, "0123456789abcdef");
    bool file = strcmp(key + hex, "/file") == 0;
    const sim_level **levels;
    size_t n = 0;
    const sim_level *found = NULL;
    if (hex == 2 * SIM_LEVEL_KEY && (file || key[hex] == '\0') &&
        sim_world_levels(srv->world, &levels, &n)) {
        for (size_t i = 0; i < n && !found; i++) {
            char k[2 * SIM_LEVEL_KEY + 1];
            wio_key_hex(sim_level_key(levels[i]), k);
            if (strncmp(k, key, hex) == 0)
                found = levels[i];
        }
        free(levels);
    }
    const wio_level_file *f = found && file ? file_of(found) : NULL;
    if (!found || (file && !f)) {
        proto_buf_append_str(b, "not found: GET /levels/KEY (a level of the world, KEY as "
                                "`welcome` names it) or /levels/KEY/file\n");
        return 404;
    }
    *type = "application/octet-stream";
    if (!file) {
        sim_level_write(found, put, b);
        return 200;
    }
    mk_error err;
    size_t len;
    char *data = wio_read_file(f->path, &len, &err);
    if (!data) {
        LOG_WARN("http: %s", err.message);
        *type = "text/plain; charset=utf-8";
        proto_buf_append_str(b, "the level's file cannot be read now\n");
        return 503;
    }
    proto_buf_append(b, data, len);
    free(data);
    return 200;
}
