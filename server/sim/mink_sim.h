/* mink_sim: the world. A pool of bodies addressed by ids with a generation counter, a fixed
 * step (gravity, inputs, integration, Minkowski push-out), contacts, queries and scenes.
 * Knows nothing of the network; reads scene files through the protocol's body spec parser. */
#ifndef MINK_SIM_H
#define MINK_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mink_collision.h"
#include "mink_collision3.h"
#include "mink_proto.h"

/* A body id: (generation << 24) | (slot + 1), so that an id is never 0, ids of the first
 * bodies are small, and a despawned body's id is not reused by the next body in its slot.
 * Ids stay below 2^53 so that JSON carries them exactly. */
typedef uint64_t sim_id;
#define SIM_SLOT_BITS 24
#define SIM_MAX_BODIES ((1u << SIM_SLOT_BITS) - 1)

typedef enum sim_kind {
    SIM_DYNAMIC,
    SIM_STATIC,
    SIM_KINEMATIC,
    SIM_CHARACTER,
} sim_kind;

/* Slope limit of characters: a contact whose normal is within this angle of "up" is ground. */
#define SIM_DEFAULT_MAX_SLOPE 0.8726646f /* rad, 50 degrees */

/* A 3D world's part of a body definition (sim_body_def.d3). */
typedef struct sim_body_def3 {
    col_shape3 shape;
    col_hull3 hull; /* the hull when shape.type is COL_SHAPE3_HULL; the world copies it */
    mk_vec3 pos, vel;
    mk_quat rot; /* unit */
} sim_body_def3;

/* A body definition. In a 2D world the 2D fields give the shape and the placement; in a 3D
 * world `d3` does and the 2D ones are unused. */
typedef struct sim_body_def {
    col_shape2 shape;
    col_polygon polygon; /* the hull when shape.type is COL_SHAPE_POLYGON; the world copies it */
    mk_vec2 pos, vel;
    float angle; /* rad */
    sim_kind kind;
    float density, friction, restitution, max_speed, jump_height;
    float max_slope; /* rad: characters stand on ground up to this steep */
    char tag[PROTO_MAX_TAG + 1];
    sim_body_def3 d3;
} sim_body_def;

/* A 3D world's part of a body, beside it at the same slot (sim_body3_of). */
typedef struct sim_body3 {
    col_shape3 shape;   /* a hull's shape.hull points to `hull` */
    col_hull3 *hull;    /* owned by the body: hulls only */
    mk_vec3 pos, vel, w; /* m, m/s, rad/s (world axes); pos is the shape's origin */
    mk_quat rot;        /* unit */
    mk_mat3 inv_inertia; /* body axes, about the centre of mass; zero for bodies that do not
                          * rotate (characters, static and kinematic bodies) */
    mk_vec3 local_center; /* centre of mass in the body's frame, m */
    mk_vec3 move;        /* the newest input, each component in [-1, 1] */
} sim_body3;

typedef struct sim_body {
    sim_id id;       /* 0 when the slot is free */
    uint32_t owner;  /* client id, 0 for the server */
    sim_kind kind;
    col_shape2 shape;  /* a polygon's shape.polygon points to `polygon` */
    col_polygon *polygon; /* owned by the body: polygons only */
    mk_vec2 pos, vel; /* m, m/s */
    float angle, w;   /* rad, rad/s */
    /* cos and sin of rot_angle, kept by the step with each angle it sets so that the
     * narrowphase does not work them out again for every pair (Box2D v3 keeps a body's
     * rotation as a unit vector, b2Rot); they stand for `angle` only while rot_angle equals
     * it (sim_body_rot), so any other code may set the angle alone. */
    mk_vec2 rot;
    float rot_angle;
    float inv_mass;   /* 1/kg; 0 for static and kinematic bodies */
    float inv_inertia; /* 1/(kg m^2); 0 for bodies that do not rotate */
    mk_vec2 local_center; /* centre of mass in the body's frame (polygons), m */
    float sleep_time;  /* s at rest so far */
    bool sleeping;     /* asleep: not stepped, not sent again */
    uint64_t slept_at; /* the tick it fell asleep at */
    uint32_t sleep_next; /* the next body (slot) of the ring of bodies that fell asleep together */
    float density;    /* kg/m^2, as spawned */
    float friction, restitution, max_speed, jump_height;
    float max_slope; /* rad */
    /* The newest input, applied at every step until the next one replaces it. */
    mk_vec2 move; /* each component in [-1, 1] */
    bool jump;    /* asked for by any input since the last step; the step consumes it */
    bool was_grounded; /* grounded at the end of the step before the last one */
    bool has_input;
    bool grounded; /* a character that stood on something in the last step */
    char tag[PROTO_MAX_TAG + 1];
} sim_body;

typedef struct sim_config {
    int dim;          /* 2 or 3 */
    mk_vec2 gravity;  /* m/s^2, a 2D world's */
    mk_vec3 gravity3; /* m/s^2, a 3D world's */
    float dt;        /* s, the fixed step */
    int iterations;  /* push-out passes per step */
    uint32_t max_bodies;
    float bounds; /* m: a body farther than this from the origin on any axis is removed */
    bool sleep;   /* bodies at rest fall asleep (off: benchmarks that compare full price) */
} sim_config;

/* A contact of the last step, for `subscribe {contacts: true}`: normal from a to b. */
typedef struct sim_contact {
    sim_id a, b;
    col_manifold2 m;
} sim_contact;

/* A contact of the last step of a 3D world. */
typedef struct sim_contact3 {
    sim_id a, b;
    col_manifold3 m;
} sim_contact3;

typedef struct sim_world sim_world;

/* Defaults: dim 2, gravity (0, -10) and (0, -10, 0), dt 1/60 s, 8 iterations, 100,000 bodies,
 * bounds 1 km, sleep on. */
sim_config sim_config_default(void);
sim_world *sim_world_new(const sim_config *cfg);
void sim_world_free(sim_world *w);
const sim_config *sim_world_config(const sim_world *w);
int sim_world_dim(const sim_world *w);
/* A body's 3D part in a 3D world, NULL in a 2D one. */
sim_body3 *sim_body3_of(const sim_world *w, const sim_body *b);
uint64_t sim_world_tick(const sim_world *w);

/* Converts a validated body spec to a body definition for a world of `dim` dimensions.
 * Returns 0, or -1 with `err` saying why the world cannot hold it (a shape type of the other
 * dim, a degenerate hull). */
int sim_body_def_from_spec(const proto_body_spec *spec, int dim, sim_body_def *out, char *err,
                           size_t errlen);
/* The protocol's view of a body's shape, for first sightings in `state`. */
void sim_shape_to_proto(const col_shape2 *s, proto_shape *out);
void sim_shape3_to_proto(const col_shape3 *s, proto_shape *out);
/* The protocol's view of a body's shape in either world. */
void sim_body_shape_to_proto(const sim_world *w, const sim_body *b, proto_shape *out);
/* A body's state as `state` sends it, in either world. */
void sim_body_state(const sim_world *w, const sim_body *b, proto_body_state *out);
proto_body_kind sim_kind_to_proto(sim_kind k);

/* Adds a body owned by `owner`. Returns its id, or 0 when the world is full. */
sim_id sim_world_add(sim_world *w, const sim_body_def *def, uint32_t owner);
/* Adds a body with a given id (a saved world coming back); 0 when the id is not valid, its
 * slot is taken or the world is full. */
sim_id sim_world_add_with_id(sim_world *w, const sim_body_def *def, uint32_t owner, sim_id id);
/* Gives a free slot the generation its next body's id will carry (a saved world coming back,
 * so that an id removed before the save is not given again); false when the slot is taken or
 * out of range. A slot at generation 2^29 is retired, never given again. */
bool sim_world_set_slot_generation(sim_world *w, uint32_t slot, uint32_t generation);
/* Puts a body to sleep as a saved world had it. The bodies put to sleep this way wake
 * together (their contacts were not saved, so which of them hold each other up is not
 * known). Static bodies do not sleep. */
void sim_world_put_to_sleep(sim_world *w, sim_body *b);
/* Sets the step count (a saved world goes on from its tick). */
void sim_world_set_tick(sim_world *w, uint64_t tick);
/* Removes a body now; its id goes to the removed list and its slot is reused only after
 * sim_world_clear_removed, so that snapshot code can still tell who saw it. Returns false for
 * an id that is not in the world. */
bool sim_world_remove(sim_world *w, sim_id id);
/* Removes every body of `owner`; returns how many. */
size_t sim_world_remove_owned(sim_world *w, uint32_t owner);
size_t sim_world_count_owned(const sim_world *w, uint32_t owner);

/* The body with this id, or NULL. */
sim_body *sim_world_get(sim_world *w, sim_id id);
/* Slots, for iteration: bodies[i] for i < slot_count, free where id == 0. */
sim_body *sim_world_slots(sim_world *w, size_t *slot_count);
size_t sim_world_body_count(const sim_world *w);
static inline uint32_t sim_id_slot(sim_id id) { return (uint32_t)(id & SIM_MAX_BODIES) - 1u; }

/* Ids removed since the last sim_world_clear_removed. */
const sim_id *sim_world_removed(const sim_world *w, size_t *n);
void sim_world_clear_removed(sim_world *w);

/* Sets a body's input; it applies from the next step on. move has each component in [-1, 1].
 * A jump is kept until the next step even when a later input of the same step does not ask
 * for one: two inputs can arrive between steps, and a jump must not be lost. An input wakes
 * the body and what sleeps with it. */
void sim_body_set_input(sim_world *w, sim_body *b, mk_vec2 move, bool jump);
/* The same in a 3D world: move has three components. */
void sim_body_set_input3(sim_world *w, sim_body *b, mk_vec3 move, bool jump);

/* One fixed step of dt. */
void sim_world_step(sim_world *w);

/* A hash of every body's id and state (bit for bit) and the tick: the same scene and inputs
 * give the same hash on the same build. */
uint64_t sim_world_hash(const sim_world *w);

/* The bodies whose bounds come within `radius` of `centre` (z is ignored in a 2D world): their
 * slots in increasing order in *slots, which the world owns until its next call or change. A
 * query through the broadphase, O(log n) plus the bodies near. False when memory runs out. */
bool sim_world_bodies_near(sim_world *w, mk_vec3 centre, float radius, const uint32_t **slots,
                           size_t *count);

/* Contacts found in the last step: a 2D world's, a 3D world's. */
const sim_contact *sim_world_contacts(const sim_world *w, size_t *n);
const sim_contact3 *sim_world_contacts3(const sim_world *w, size_t *n);

/* Answers `query` for two shapes of a world of `dim` dimensions. Returns 0, or -1 with `err`
 * for a shape this world does not collide. */
int sim_query(int dim, const proto_placed_shape *a, const proto_placed_shape *b,
              proto_result *out, char *err, size_t errlen);

/* ---- recording and replay (journal.c) ---- */

/* Receives one JSON line, newline included, per change made to the world from outside the
 * step: a body added or removed, a client's bodies removed as it leaves, an input. */
typedef void (*sim_journal_fn)(void *ctx, const char *line, size_t len);
/* Starts recording into `fn` (NULL stops): a first line gives the tick and the world hash. */
void sim_world_set_journal(sim_world *w, sim_journal_fn fn, void *ctx);
/* Ends a recording with the tick and the world hash. */
void sim_journal_end(sim_world *w);
typedef void (*sim_step_fn)(void *ctx, const sim_world *w);
/* Replays one recorded line: steps the world up to its tick (calling on_step after each
 * step), then makes its change, or checks the hash of a start or end line. Returns 0, 1 for
 * the end line, or -1 with `err` (a line that is not a recording's, or a world that went
 * another way: a different id, a missing body, a different hash). */
int sim_journal_apply(sim_world *w, const char *line, size_t len, sim_step_fn on_step,
                      void *ctx, char *err, size_t errlen);

/* ---- scenes ---- */

/* A scene: {dim, gravity?, bodies: [body spec...]}. Loads it into a new world (cfg gives dt and
 * limits; the scene's gravity replaces cfg's). Returns the world, or NULL with `err` naming
 * the source, the body index and the field. */
sim_world *sim_scene_load(const char *json, size_t len, const char *source,
                          const sim_config *cfg, char *err, size_t errlen);
sim_world *sim_scene_load_file(const char *path, const sim_config *cfg, char *err,
                               size_t errlen);
/* The world as a scene file that sim_scene_load brings back: bodies with their ids, states
 * and properties, the tick and gravity (save.c). */
void sim_world_write(const sim_world *w, proto_buf *b);
/* Writes it to `path` atomically (a temporary file renamed over it). Returns 0, or -1 with
 * `err`. */
int sim_world_save(const sim_world *w, const char *path, char *err, size_t errlen);

/* The stress scene `pile:N`: N dynamic 1 x 1 m boxes (density 1, friction 0.6) in ceil(N/10)
 * columns of ten (the last column takes the rest), columns 1.05 m apart centred on x = 0, row r
 * at y = 0.55 + 1.05 r, on a static ground whose top is y = 0 and which reaches 5 m beyond the
 * outer columns. Returns NULL with `err` when N is not in [1, max_bodies - 1] (the ground is
 * a body too) or memory runs out. */
sim_world *sim_scene_pile(int n, const sim_config *cfg, char *err, size_t errlen);

/* The stress scene `pile3d:N` (a 3D world): N dynamic 1 m cubes (density 1, friction 0.6) in
 * ceil(N/10) columns of ten on a square grid, columns 1.05 m apart centred on x = z = 0, row r
 * at y = 0.55 + 1.05 r, on a static ground whose top is y = 0. Errors as sim_scene_pile. */
sim_world *sim_scene_pile3(int n, const sim_config *cfg, char *err, size_t errlen);

/* The embedded demo scene: ground, walls, platforms, stacked and falling boxes. */
extern const char sim_demo_scene[];
/* The embedded 3D demo scene: a floor, walls, a ramp, a tower, a pyramid and one body of every
 * 3D shape. */
extern const char sim_demo3d_scene[];

#endif
