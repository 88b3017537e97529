/* mink_world_io: where the world meets JSON. Scene files and the embedded demos, the stress
 * scenes, saves, the journal of changes (recording and replay), the protocol's view of a body
 * and the stateless `query`. Links mink_sim and mink_proto; mink_sim knows nothing of it. */
#ifndef MINK_WORLD_IO_H
#define MINK_WORLD_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mink_proto.h"
#include "mink_sim.h"

/* ---- the protocol's view of bodies and shapes (shape.c, body.c, query.c) ---- */

/* Converts a validated body spec to a body definition for a world of `dim` dimensions.
 * Returns 0, or -1 with `err` saying why the world cannot hold it (a shape type of the other
 * dim, a degenerate hull). A level shape's level is built (wio_level_of_shape, no file read):
 * the definition then holds a reference to it, which the caller releases
 * (sim_level_release(out->level)) once the world has the body. */
int wio_body_def_from_spec(const proto_body_spec *spec, int dim, sim_body_def *out, mk_error *err);
/* The protocol's view of a body's shape, for first sightings in `state`. */
void wio_shape2_to_proto(const col_shape2 *s, proto_shape *out);
void wio_shape3_to_proto(const col_shape3 *s, proto_shape *out);
/* The protocol's view of a body's shape in either world; a level body's inline when small,
 * else named (wio_level_to_proto): free it with proto_shape_free. */
void wio_body_shape_to_proto(const sim_world *w, const sim_body *b, proto_shape *out);
/* A body's state as `state` sends it, in either world. */
void wio_body_state(const sim_world *w, const sim_body *b, proto_body_state *out);
proto_body_kind wio_kind_to_proto(sim_kind k);
sim_kind wio_kind_from_proto(proto_body_kind k);
/* A body's filter and whether it is a sensor, as a first sighting in `state` gives them. */
void wio_body_filter(const sim_world *w, const sim_body *b, proto_filter *out, bool *sensor);
/* An event of a world of `dim` dimensions as `state` sends it. */
void wio_event_to_proto(int dim, const sim_event *e, proto_event *out);

/* ---- the protocol's view of joints (joint.c) ---- */

/* Converts a validated joint spec to a joint definition for world w, with the defaults the
 * world gives: an anchor at body a's position (a distance joint's b end at b's), the type's
 * axis, a distance joint's length that between its anchors. Returns 0, or -1 with `err`
 * naming the field (a body that is not in the world). */
int wio_joint_def_from_spec(const sim_world *w, const proto_joint_spec *spec, sim_joint_def *out,
                            mk_error *err);
/* A joint definition's fields as the protocol's joint spec writes them, "type":..,"anchor":..
 * and so on, without a, b and the braces (a framed one without its anchors and axis). Numbers
 * with 9 significant digits give every float back exactly. */
void wio_write_joint_fields(const sim_world *w, const sim_joint_def *d, proto_buf *b);
/* A joint as `state` shows it at its first sighting. */
void wio_joint_state(const sim_world *w, const sim_joint *j, proto_joint_state *out);

/* Answers `query` for two shapes of a world of `dim` dimensions. Returns 0, or -1 with `err`
 * for a shape this world does not collide. */
int wio_query(int dim, const proto_placed_shape *a, const proto_placed_shape *b,
              proto_result *out, mk_error *err);

/* Answers a world query (`raycast`, `cast`, `overlap`) against the world at the current tick
 * or the one asked for, appending its `hits` line to `out`. Returns 0, or -1 with `err` (a
 * bad_request naming the field: a tick outside the history, a shape this world does not
 * collide). Never changes the world. */
int wio_world_query(sim_world *w, proto_msg_type type, const proto_world_query *q,
                    const char *req, proto_buf *out, mk_error *err);

/* ---- levels: level geometry built, named by key, read from files (levels.c, gltf.c, obj.c) ---- */

/* The default of --max-triangles: the most triangles (or chain segments, heightfield
 * triangles) one level may hold. */
#define WIO_MAX_TRIANGLES_DEFAULT 2000000u
/* Sets and reads the limit every level built from now on is held to (a message's is also held
 * to --max-line). */
void wio_levels_set_max_triangles(uint32_t n);
uint32_t wio_levels_max_triangles(void);

/* A mesh's triangles as a file gives them: vertices (m, +Y up) and three vertex indices a
 * triangle, counter-clockwise seen from its front. */
typedef struct wio_mesh_data {
    float (*vertices)[3];
    uint32_t nvertices;
    uint32_t (*triangles)[3];
    uint32_t ntriangles;
} wio_mesh_data;
void wio_mesh_data_free(wio_mesh_data *m);
/* A glTF 2.0 file (.glb, or .gltf whose external buffers are read from `dir`, none when NULL)
 * and a Wavefront .obj, from their bytes, as gltf.c and obj.c describe; 0, or -1 with `err`
 * naming `name`, the field or line and the byte offset. */
int wio_gltf_parse(const void *data, size_t len, const char *name, const char *dir,
                   uint32_t max_triangles, wio_mesh_data *out, mk_error *err);
int wio_obj_parse(const void *data, size_t len, const char *name, uint32_t max_triangles,
                  wio_mesh_data *out, mk_error *err);

/* The level of a protocol level shape (a segment, a chain, a mesh, a heightfield: its
 * geometry as sent, or a scene's mesh `file` read relative to `dir`, refused when dir is
 * NULL), built and keyed (sim_level_set_key: the SHA-256 of its level file). A level read from
 * a file is kept in the process's table of levels (below), once however many bodies name it.
 * Returns a reference the caller holds, or NULL with `err` naming the field. */
const sim_level *wio_level_of_shape(const proto_shape *s, int dim, const char *dir,
                                    mk_error *err);
/* How a level is written in the protocol's form (wio_level_to_proto): its geometry inline (a
 * small one: past WIO_LEVEL_INLINE_PIECES pieces it is named instead), named by its key with
 * its bounds and piece count (first sightings of a large level, which the client fetches),
 * or its whole level file (`data`: journals and saves, which bring it back bit for bit). */
typedef enum wio_level_form { WIO_LEVEL_INLINE, WIO_LEVEL_NAMED, WIO_LEVEL_FILE } wio_level_form;
#define WIO_LEVEL_INLINE_PIECES 64
/* The protocol's view of a level: the shape's level is on the heap (proto_shape_free); out of
 * memory, the shape is its type alone. */
void wio_level_to_proto(const sim_level *l, wio_level_form form, proto_shape *out);
/* The key of a level's file: SHA-256 over its bytes (sim_level_write); and in hex. */
void wio_level_key(const sim_level *l, uint8_t key[SIM_LEVEL_KEY]);
void wio_key_hex(const uint8_t key[SIM_LEVEL_KEY], char hex[2 * SIM_LEVEL_KEY + 1]);

/* The process's table of levels read from files: each once, with the file it came from. */
typedef struct wio_level_file {
    const sim_level *level; /* a reference the table holds */
    char key[2 * SIM_LEVEL_KEY + 1];    /* the level's key in hex */
    char name[PROTO_MAX_FILE + 1];      /* the file as the scene names it */
    char path[4096];                    /* where it is */
    char sha256[2 * SIM_LEVEL_KEY + 1]; /* of the file's bytes, in hex */
    uint32_t dropped;                   /* degenerate and repeated triangles dropped */
} wio_level_file;
size_t wio_level_files(const wio_level_file **out);
/* Empties the table (the levels go with their last holder). */
void wio_level_files_clear(void);

/* A save's levels: each kept once as DIR/KEY.level (its level file, written whole or not at
 * all; one already there is left as it is). 0, or -1 with `err`. */
int wio_level_store(const sim_level *l, const char *dir, mk_error *err);
/* sim_world_from_image_levels's resolver: the level of a key from the table, else read from
 * ctx (a folder; NULL: none) as KEY.level, whose bytes must hash to the key. */
const sim_level *wio_level_resolve(void *dir, const uint8_t key[SIM_LEVEL_KEY], mk_error *err);

/* ---- recording and replay (journal.c) ---- */

/* Receives one JSON line, newline included. */
typedef void (*wio_line_fn)(void *ctx, const char *line, size_t len);

/* A journal: one line per change made to a world from outside the step (a body added or
 * removed, a client's bodies removed as it leaves, an input), with its tick and client. */
typedef struct wio_journal {
    sim_world *world;
    wio_line_fn fn;
    void *ctx;
    proto_buf buf;
    /* While by_rules(rules_ctx) is true the changes are the game's rules' (wio_journal_by_rules) */
    bool (*by_rules)(void *ctx);
    void *rules_ctx;
} wio_journal;

/* Starts recording the changes of `w` into `fn`: a first line gives the tick and the world
 * hash (none of them the rules' until wio_journal_by_rules). The journal must stay where it
 * is until wio_journal_stop. */
void wio_journal_start(wio_journal *j, sim_world *w, wio_line_fn fn, void *ctx);
/* Writes a mark, {"tick":T,"hash":"H"}: a point the writer flushed, which replay checks and a
 * restart comes back to. Returns the hash written. */
uint64_t wio_journal_mark(wio_journal *j);
/* Ends a recording with the tick and the world hash, and stops listening to the world. */
void wio_journal_stop(wio_journal *j);
/* The changes made while `fn(ctx)` is true (a hook of the game's rules runs) are written with
 * "rules":true: a replay that runs the script again skips them (the script makes them again),
 * a restore that does not run it applies them. NULL: none is. */
void wio_journal_by_rules(wio_journal *j, bool (*fn)(void *ctx), void *ctx);
/* Writes a line of the game's rules, {"tick":T,"client":C,"msg":{"type":"TYPE",FIELDS}}, where
 * `fields` is `len` bytes of JSON members (",\"name\":\"fire\"" or empty) and TYPE begins
 * with "rules_": a player joining or leaving, an action, the rules' saved state. */
void wio_journal_rules_line(wio_journal *j, uint32_t client, const char *type,
                            const char *fields, size_t len);

typedef void (*wio_step_fn)(void *ctx, const sim_world *w);
/* Replays one recorded line: steps the world up to its tick (calling on_step after each
 * step, which may read the step's events; they are cleared after it, as the server clears
 * them once it has handed them out, so that the hashes agree), then makes its change, or
 * checks the hash of a start, mark or end line. Returns 0, 1
 * for the end line, 2 for a mark, or -1 with `err` (a line that is not a recording's, or a
 * world that went another way: a different id, a missing body, a different hash). */
int wio_journal_apply(sim_world *w, const char *line, size_t len, wio_step_fn on_step,
                      void *ctx, mk_error *err);

struct cJSON;
/* A replay with the game's rules: `rules` gets every rules_ line (its client, type and msg)
 * and returns 0, or -1 with `err`; `rerun` skips the changes written as the rules' (the
 * script, run again, makes them). */
typedef struct wio_replay {
    wio_step_fn on_step;
    void *ctx;
    bool rerun;
    int (*rules)(void *ctx, uint32_t client, const char *type, const struct cJSON *msg,
                 mk_error *err);
} wio_replay;
/* wio_journal_apply with the rules' lines: without `rules` they are read past. */
int wio_journal_replay(sim_world *w, const char *line, size_t len, const wio_replay *r,
                       mk_error *err);

/* ---- a durable save's files: snapshots and the journal's records (durable.c) ---- */

/* Writes a snapshot of a world's image (sim_world_image) taken at `tick` with world hash
 * `hash` to `path` atomically: path.tmp, flushed to disk, renamed over path, the directory
 * flushed. Checksummed in 64 KiB blocks. Returns 0, or -1 with `err`. Safe off the loop. */
int wio_snapshot_write(const char *path, uint64_t tick, uint64_t hash, const void *image,
                       size_t len, mk_error *err);
/* Reads a snapshot back: the world, its tick and hash; NULL with `err` naming the byte offset
 * of the first thing wrong (a block that does not match its checksum, a file cut short,
 * another build's layout, an image that does not give the header's hash). */
sim_world *wio_snapshot_read(const char *path, uint64_t *tick, uint64_t *hash, mk_error *err);
sim_world *wio_snapshot_parse(const void *file, size_t size, uint64_t *tick, uint64_t *hash,
                              mk_error *err);
/* The same for a save that keeps its levels in levels_dir (KEY.level, wio_level_store): a level
 * body's level is the table's (wio_level_files) or read from there. Without levels_dir, only
 * the table's are found. */
sim_world *wio_snapshot_read_levels(const char *path, const char *levels_dir, uint64_t *tick,
                                    uint64_t *hash, mk_error *err);
sim_world *wio_snapshot_parse_levels(const void *file, size_t size, const char *levels_dir,
                                     uint64_t *tick, uint64_t *hash, mk_error *err);
/* The whole of a file in memory, NUL-terminated; NULL with `err`. */
char *wio_read_file(const char *path, size_t *len, mk_error *err);
/* Flushes the directory of `path` to disk (a rename in it survives a power cut). */
int wio_fsync_dir(const char *path, mk_error *err);
/* Replaces the file at `path` with the n pieces, one after the other, whole or not at all:
 * written to PATH.tmp, flushed, renamed over PATH, the directory flushed. 0, or -1 with `err`
 * (PATH.tmp removed). */
typedef struct wio_piece {
    const void *data;
    size_t len;
} wio_piece;
int wio_file_replace(const char *path, const wio_piece *pieces, size_t n, mk_error *err);

/* Appends one journal line (newline included) as a record: its CRC-32C in 8 hex digits and a
 * space before it. */
void wio_record_frame(proto_buf *out, const char *line, size_t len);
/* Receives a record's line (newline included) and its byte offset; false stops the scan. */
typedef bool (*wio_record_fn)(void *ctx, const char *line, size_t len, size_t offset);
/* Walks the records of a journal file's bytes, handing each whole one to `fn`, and sets *end
 * to the byte after the last one handed. Returns 0 at the end of the data; 1 when the last
 * record does not match its checksum or has no newline (cut short by a crash: dropped, `err`
 * says where); -1 when one before the last does not (`err` says where; nothing after it is
 * read); 2 when `fn` stopped it. */
int wio_record_scan(const char *data, size_t len, wio_record_fn fn, void *ctx, size_t *end,
                    mk_error *err);

/* ---- the table of invited players beside a durable save (players.c) ---- */

#define WIO_PLAYERS_MAX 131072 /* players a file may hold */
#define WIO_PLAYER_USER 64     /* bytes of a user id (mink_token.h's TOK_MAX_USER) */
#define WIO_PLAYER_ROLE 32     /* bytes of a role (TOK_MAX_ROLE) */
typedef struct wio_player {
    uint32_t owner; /* 1 to 2^31-1 */
    sim_id avatar;  /* 0: none */
    char user[WIO_PLAYER_USER + 1];
    char role[WIO_PLAYER_ROLE + 1]; /* "" when none */
} wio_player;
/* The file of n players (players.c describes the format) in b, replacing what it held. */
void wio_players_format(proto_buf *b, const wio_player *p, size_t n);
/* The players of a file's bytes (a calloc'ed array of *n), or NULL with `err` saying which
 * line is wrong and how. */
wio_player *wio_players_parse(const char *data, size_t len, size_t *n, mk_error *err);
/* The same from the file at `path`, refused before it is read when it is larger than
 * WIO_PLAYERS_MAX players take; NULL with *found false when there is none. */
wio_player *wio_players_read(const char *path, size_t *n, bool *found, mk_error *err);

/* ---- scenes and saves (scene.c, save.c, scene_pile.c) ---- */

/* A scene: {dim, gravity?, bodies: [body spec...]}. Loads it into a new world (cfg gives dt and
 * limits; the scene's gravity replaces cfg's). Returns the world, or NULL with `err` naming
 * the source, the body index and the field. */
sim_world *wio_scene_load(const char *json, size_t len, const char *source,
                          const sim_config *cfg, mk_error *err);
sim_world *wio_scene_load_file(const char *path, const sim_config *cfg, mk_error *err);
/* The world as a scene file that wio_scene_load brings back: bodies with their ids, states
 * and properties, the tick and gravity. */
void wio_world_write(const sim_world *w, proto_buf *b);
/* Writes it to `path` atomically (a temporary file renamed over it). Returns 0, or -1 with
 * `err`. */
int wio_world_save(const sim_world *w, const char *path, mk_error *err);

/* The stress scene `pile:N`: N dynamic 1 x 1 m boxes (density 1, friction 0.6) in ceil(N/10)
 * columns of ten (the last column takes the rest), columns 1.05 m apart centred on x = 0, row r
 * at y = 0.55 + 1.05 r, on a static ground whose top is y = 0 and which reaches 5 m beyond the
 * outer columns. Returns NULL with `err` when N is not in [1, max_bodies - 1] (the ground is
 * a body too) or memory runs out. */
sim_world *wio_scene_pile2(int n, const sim_config *cfg, mk_error *err);

/* The stress scene `pile3d:N` (a 3D world): N dynamic 1 m cubes (density 1, friction 0.6) in
 * ceil(N/10) columns of ten on a square grid, columns 1.05 m apart centred on x = z = 0, row r
 * at y = 0.55 + 1.05 r, on a static ground whose top is y = 0. Errors as wio_scene_pile2. */
sim_world *wio_scene_pile3(int n, const sim_config *cfg, mk_error *err);

/* The embedded demo scene: ground, walls, platforms, stacked and falling boxes. */
extern const char wio_demo_scene2[];
/* The embedded 3D demo scene: a floor, walls, a ramp, a tower, a pyramid and one body of every
 * 3D shape. */
extern const char wio_demo_scene3[];

#endif
