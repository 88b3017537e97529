/* mink_sim: the world. A pool of bodies addressed by ids with a generation counter, a fixed
 * step (gravity, inputs, integration, Minkowski push-out), contacts and region queries, in 2D
 * or 3D. Plain C types only: it knows nothing of the network or the wire format (scenes,
 * saves, recordings and the protocol's view of a body are mink_world_io's, one layer up).
 * Names: a name without a dimension serves both; a 2 or 3 at its end marks one dimension's. */
#ifndef MINK_SIM_H
#define MINK_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mink_collision.h"
#include "mink_collision3.h"

/* A body id: (generation << 24) | (slot + 1), so that an id is never 0, ids of the first
 * bodies are small, and a despawned body's id is not reused by the next body in its slot.
 * Ids stay below 2^53 so that JSON carries them exactly. */
typedef uint64_t sim_id;
/* Bytes of a body's tag (the protocol allows as many). */
#define SIM_MAX_TAG 64
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

/* ---- level geometry (level.c, level_file.c) ----
 *
 * A level is what a game's static (or kinematic) scenery is made of: in 2D a two-sided
 * segment or a chain of one-sided segments with ghost vertices, in 3D a triangle mesh or a
 * heightfield (the collision library's col_segment2, col_chain2, col_mesh3, col_heightfield3).
 * It is built once, never changes, and may be shared by many bodies and by a world's history
 * and its saves: it is reference counted (on one thread, the world's). A level body is a
 * static or kinematic body whose shape is a level (sim_body_def.level); every pass of the
 * step, every query and the world's image know it. */
typedef enum sim_level_kind {
    SIM_LEVEL_SEGMENT,     /* 2D */
    SIM_LEVEL_CHAIN,       /* 2D */
    SIM_LEVEL_MESH,        /* 3D */
    SIM_LEVEL_HEIGHTFIELD, /* 3D */
} sim_level_kind;

typedef struct sim_level sim_level;

/* The bytes of a level's key: the SHA-256 of its file (sim_level_write), which its creator
 * computes and sets (sim_level_set_key); a world's image names its levels by it. */
#define SIM_LEVEL_KEY 32

/* Builds a level (a reference held by the caller), or NULL with `err` naming the field: the
 * collision library's builds (col_chain2_build, col_mesh3_build, col_heightfield3_build) and
 * their checks. A segment's ends must be finite, within COL_LEVEL_MAX_COORD and apart. */
sim_level *sim_level_segment2(mk_vec2 a, mk_vec2 b, mk_error *err);
sim_level *sim_level_chain2(const mk_vec2 *points, uint32_t n, bool loop, uint32_t max_points,
                            mk_error *err);
sim_level *sim_level_mesh3(const col_mesh3_desc *d, mk_error *err);
sim_level *sim_level_heightfield3(const col_heightfield3_desc *d, mk_error *err);
/* One more holder, and one fewer (the last frees it). NULL is ignored. */
void sim_level_retain(const sim_level *l);
void sim_level_release(const sim_level *l);

sim_level_kind sim_level_kind_of(const sim_level *l);
int sim_level_dim(const sim_level *l);
/* The built shape: the one of the level's kind, NULL for the others. */
const col_segment2 *sim_level_segment(const sim_level *l);
const col_chain2 *sim_level_chain(const sim_level *l);
const col_mesh3 *sim_level_mesh(const sim_level *l);
const col_heightfield3 *sim_level_heightfield(const sim_level *l);
/* Triangles or segments, holes included; bytes held (sim_level and the built arrays). */
uint32_t sim_level_pieces(const sim_level *l);
size_t sim_level_bytes(const sim_level *l);
/* The key (all zeros until set). */
const uint8_t *sim_level_key(const sim_level *l);
void sim_level_set_key(const sim_level *l, const uint8_t key[SIM_LEVEL_KEY]);

/* The level's file (level_file.c): its built arrays in this build's byte order, written through
 * `put` in pieces, so that a save stores a level once and a restart reads it back without
 * building it again (the same triangles in the same order: the same contacts). Clients read it
 * too (docs/PROTOCOL.md, "Level files"). */
typedef void (*sim_put_fn)(void *ctx, const void *data, size_t len);
void sim_level_write(const sim_level *l, sim_put_fn put, void *ctx);
/* A level from its file (a reference held by the caller), or NULL with `err` naming the byte
 * offset of the first thing wrong: every count, index, tree node and number is checked before
 * anything follows it. The key is not set. */
sim_level *sim_level_read(const void *data, size_t len, mk_error *err);

/* Which bodies collide, Box2D's filter: two bodies collide when each one's category has a bit of
 * the other's mask, `(a.category & b.mask) != 0 && (b.category & a.mask) != 0`, except that a
 * group shared by both and not 0 decides alone: positive, they always collide; negative, they
 * never do. A pair that does not collide makes no contact, no push-out, no sweep stop and no
 * event. */
typedef struct sim_filter {
    uint64_t category, mask;
    int32_t group;
} sim_filter;
/* Category 1, every mask bit, no group: every such body collides with every other. */
#define SIM_FILTER_DEFAULT ((sim_filter){1u, UINT64_MAX, 0})
/* Box2D's rule above, for two filters. */
bool sim_filters_collide(sim_filter a, sim_filter b);

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
    char tag[SIM_MAX_TAG + 1];
    /* A level body's shape (static or kinematic bodies alone, a level of the world's dim): the
     * world takes a reference; `shape` and d3.shape are then unused. NULL for a convex body. */
    const sim_level *level;
    /* Which bodies it collides with (a zeroed definition has the default: has_filter false). */
    bool has_filter;
    sim_filter filter;
    /* A sensor: it reports what overlaps it (sim_world_events) and pushes nothing. */
    bool sensor;
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
    mk_vec3 rest_pos;    /* pos and rot when the body's rest began (sleep_time from 0) */
    mk_quat rest_rot;
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
     * it (sim_body_rot2), so any other code may set the angle alone. */
    mk_vec2 rot;
    float rot_angle;
    float inv_mass;   /* 1/kg; 0 for static and kinematic bodies */
    float inv_inertia; /* 1/(kg m^2); 0 for bodies that do not rotate */
    mk_vec2 local_center; /* centre of mass in the body's frame (polygons), m */
    float sleep_time;  /* s at rest so far */
    mk_vec2 rest_pos;  /* pos and angle when its rest began (sleep_time from 0) */
    float rest_angle;
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
    char tag[SIM_MAX_TAG + 1];
    /* A level body's shape (a reference the body holds), NULL for a convex body; its `shape`
     * (and its sim_body3's) is then a 1 mm placeholder that nothing collides. */
    const sim_level *level;
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
    /* Threads that run the step's parallel parts, the stepping one included (the pool starts
     * with the world). Not part of the simulation: any count steps the world bit for bit the
     * same. */
    int workers;
    /* The world keeps events (sim_world_events): contacts beginning and ending, hits, sensors.
     * Off, the step does none of that work. */
    bool events;
    float hit_speed; /* m/s: bodies that meet faster than this along the normal are a hit */
} sim_config;

/* A contact of the last step, for `subscribe {contacts: true}`: normal from a to b. */
typedef struct sim_contact2 {
    sim_id a, b;
    col_manifold2 m;
} sim_contact2;

/* A contact of the last step of a 3D world. */
typedef struct sim_contact3 {
    sim_id a, b;
    col_manifold3 m;
} sim_contact3;

typedef struct sim_world sim_world;
typedef struct sim_history sim_history;

/* Defaults: dim 2, gravity (0, -10) and (0, -10, 0), dt 1/60 s, 8 iterations, 100,000 bodies,
 * bounds 1 km, sleep on, one worker, no events (a hit speed of 1 m/s when they are on). */
sim_config sim_config_default(void);
sim_world *sim_world_new(const sim_config *cfg);
void sim_world_free(sim_world *w);
const sim_config *sim_world_config(const sim_world *w);
int sim_world_dim(const sim_world *w);
/* A body's 3D part in a 3D world, NULL in a 2D one. */
const sim_body3 *sim_body3_of(const sim_world *w, const sim_body *b);
uint64_t sim_world_tick(const sim_world *w);

/* Adds a body owned by `owner`. Returns its id, or 0 when the world is full. */
sim_id sim_world_add(sim_world *w, const sim_body_def *def, uint32_t owner);
/* Adds a body with a given id (a saved world coming back); 0 when the id is not valid, its
 * slot is taken or the world is full. */
sim_id sim_world_add_with_id(sim_world *w, const sim_body_def *def, uint32_t owner, sim_id id);
/* Gives a free slot the generation its next body's id will carry (a saved world coming back,
 * so that an id removed before the save is not given again); false when the slot is taken or
 * out of range. A slot at generation 2^29 is retired, never given again. */
bool sim_world_set_slot_generation(sim_world *w, uint32_t slot, uint32_t generation);
/* Puts a body to sleep as a saved world had it (it stops: no speed, no spin). The bodies put
 * to sleep this way wake together (their contacts were not saved, so which of them hold each
 * other up is not known). Static and kinematic bodies do not sleep. False for an id that is
 * not in the world. */
bool sim_world_put_to_sleep(sim_world *w, sim_id id);
/* Sets the step count (a saved world goes on from its tick). */
void sim_world_set_tick(sim_world *w, uint64_t tick);
/* Removes a body now; its id goes to the removed list and its slot is reused only after
 * sim_world_clear_removed, so that snapshot code can still tell who saw it. Returns false for
 * an id that is not in the world. */
bool sim_world_remove(sim_world *w, sim_id id);
/* Removes every body of `owner`; returns how many. */
size_t sim_world_remove_owned(sim_world *w, uint32_t owner);
size_t sim_world_count_owned(const sim_world *w, uint32_t owner);

/* The body with this id, or NULL. Read only: a body changes through the functions below, which
 * keep the world's own records of it (its island's sleep, the journal's changes). The pointer
 * holds until the world next adds a body. */
const sim_body *sim_world_get(const sim_world *w, sim_id id);
/* A body's filter (sim_filter) and whether it is a sensor. */
sim_filter sim_body_filter(const sim_world *w, const sim_body *b);
bool sim_body_is_sensor(const sim_world *w, const sim_body *b);
/* Slots, for iteration: bodies[i] for i < slot_count, free where id == 0; read only. */
const sim_body *sim_world_slots(const sim_world *w, size_t *slot_count);
size_t sim_world_body_count(const sim_world *w);
static inline uint32_t sim_id_slot(sim_id id) { return (uint32_t)(id & SIM_MAX_BODIES) - 1u; }

/* Ids removed since the last sim_world_clear_removed. */
const sim_id *sim_world_removed(const sim_world *w, size_t *n);
void sim_world_clear_removed(sim_world *w);

/* Sets a body's input; it applies from the next step on. move has each component in [-1, 1].
 * A jump is kept until the next step even when a later input of the same step does not ask
 * for one: two inputs can arrive between steps, and a jump must not be lost. An input wakes
 * the body and what sleeps with it, and is reported (SIM_CHANGE_INPUT). False for an id that
 * is not in the world. */
bool sim_body_set_input2(sim_world *w, sim_id id, mk_vec2 move, bool jump);
/* The same in a 3D world (false in a 2D one): move has three components. */
bool sim_body_set_input3(sim_world *w, sim_id id, mk_vec3 move, bool jump);

/* Sets the spin of a body that turns (rad/s: a number in 2D, about the world axes in 3D) and
 * wakes it with what sleeps with it; a body that never turns (static, kinematic, a character,
 * an AABB) keeps none. False, with nothing changed, for such a body, an id not in the world, a
 * spin that is not finite (or one of the other dimension). Reported (SIM_CHANGE_SET). */
bool sim_body_set_spin2(sim_world *w, sim_id id, float spin);
bool sim_body_set_spin3(sim_world *w, sim_id id, mk_vec3 spin);
/* Sets the velocity of a body that moves (m/s; not a static one) and wakes it with what sleeps
 * with it. False, with nothing changed, for a static body, an id not in the world, a velocity
 * that is not finite (or one of the other dimension). Reported (SIM_CHANGE_SET). */
bool sim_body_set_velocity2(sim_world *w, sim_id id, mk_vec2 vel);
bool sim_body_set_velocity3(sim_world *w, sim_id id, mk_vec3 vel);
/* Moves a body of any kind to a new placement (a teleport: position in m, angle in rad, or a
 * unit quaternion in 3D, which is kept as given: its length must be within 1e-3 of 1). Its
 * bounds and the broadphase follow at once (a static body's tree is built again); it wakes
 * with what sleeps with it, and so does what touched it where it was and what it touches where
 * it lands; the history keeps where it was. False, with nothing changed, for an id not in the
 * world, a placement that is not finite, or one of the other dimension. Reported
 * (SIM_CHANGE_SET). */
bool sim_body_set_transform2(sim_world *w, sim_id id, mk_vec2 pos, float angle);
bool sim_body_set_transform3(sim_world *w, sim_id id, mk_vec3 pos, mk_quat rot);
/* An impulse (N s) on a body with mass (dynamic, or a character), at a world point (m), or at
 * its centre of mass when `point` is NULL: its velocity changes by J / m and its spin by
 * I^-1 (r x J), r from the centre of mass to the point (a body that does not turn keeps
 * none). It wakes with what sleeps with it. False, with nothing changed, for a body without
 * mass (static, kinematic), an id not in the world, numbers that are not finite, or a world of
 * the other dimension. Reported (SIM_CHANGE_IMPULSE). */
bool sim_body_apply_impulse2(sim_world *w, sim_id id, mk_vec2 impulse, const mk_vec2 *point);
bool sim_body_apply_impulse3(sim_world *w, sim_id id, mk_vec3 impulse, const mk_vec3 *point);
/* Gives a body another owner (0: the server's); not reported: a restarted server's clients
 * are new ones. False for an id that is not in the world. */
bool sim_body_set_owner(sim_world *w, sim_id id, uint32_t owner);

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
const sim_contact2 *sim_world_contacts2(const sim_world *w, size_t *n);
const sim_contact3 *sim_world_contacts3(const sim_world *w, size_t *n);

/* ---- events: what happened in the world, for the game's rules and the clients ---- */

/* The kinds of event, in the order they are listed within a tick. */
typedef enum sim_event_type {
    SIM_EVENT_CONTACT_BEGIN, /* a, b (a < b) began to touch */
    SIM_EVENT_CONTACT_END,   /* a, b stopped touching, or one of them left the world */
    SIM_EVENT_HIT,           /* a, b met faster than the world's hit speed: point, normal, speed */
    SIM_EVENT_SENSOR_BEGIN,  /* a: the sensor, b: the body that began to overlap it */
    SIM_EVENT_SENSOR_END,    /* a: the sensor, b: the body that stopped overlapping it */
    SIM_EVENT_JOINT_BREAK,   /* a: the joint that broke */
    SIM_EVENT_COUNT
} sim_event_type;

/* One event: its tick (the tick its step ended at, or the world's tick when a body was removed
 * between steps) and its bodies or joint; `point` (m), `normal` (from a toward b) and `speed`
 * (m/s, the approach speed) are a hit's. z is 0 in a 2D world.
 *
 * Kept only in a world with cfg.events (docs/PHYSICS.md, "Events"). Contacts are per body pair:
 * a pair touches in a step when its shapes, where the step collided them (where the step
 * began), overlap or are at most 1 mm apart; a pair at rest (both bodies asleep or static)
 * keeps touching as it was. A hit is a pair meeting faster than cfg.hit_speed: a point of its
 * contact whose approach speed is over it and that closes within the step, or a fast body's
 * swept impact. A sensor sees each body that is not a sensor, that its filter admits, and
 * whose shape overlaps or touches its own at the end of the step, except a static body when
 * the sensor is static too. A body that leaves the world (removed, by the world's bounds, with
 * its owner) ends its contacts and overlaps there and then. */
typedef struct sim_event {
    sim_event_type type;
    uint64_t tick;
    sim_id a, b;
    mk_vec3 point, normal;
    float speed;
} sim_event;

/* The events since the last sim_world_clear_events, in tick order and in a fixed order within
 * a tick (a step's by type, then by a and b; a removal's by the pairs' ids), the same with any
 * number of workers. They are kept until cleared: whoever reads them clears them (the server,
 * after each step, once its clients and rules have their share). */
const sim_event *sim_world_events(const sim_world *w, size_t *n);
void sim_world_clear_events(sim_world *w);
/* Turns the keeping of events on or off (cfg.events) with a hit speed (m/s): a replay takes
 * its recording's. Off, what was kept (events not cleared, the pairs touching, the sensors'
 * overlaps) is dropped; on, the pairs that touch then begin at the next step. */
void sim_world_set_events(sim_world *w, bool on, float hit_speed);

/* ---- changes made from outside the step, for a journal ---- */

/* A change to the world made through this API (not by the step): a body added or removed, a
 * client's bodies removed as it leaves, an input. Reported as it is made, with the world's
 * tick at that moment, so that a recording of them replays the world bit for bit. */
typedef enum sim_change_kind {
    SIM_CHANGE_ADDED,   /* body */
    SIM_CHANGE_REMOVED, /* body, just before it goes */
    SIM_CHANGE_LEFT,    /* owner: every body of the owner is removed */
    SIM_CHANGE_INPUT,   /* body, move (z is 0 in a 2D world), jump */
    SIM_CHANGE_REUSE,   /* the slots of the bodies removed so far may be given out again
                           (sim_world_clear_removed): which slot, and so which id, the next
                           body gets depends on when this happened */
    SIM_CHANGE_IMPULSE, /* body, impulse, and its point when `at` */
    SIM_CHANGE_SET,     /* body, `set`: which of its placement and motion were just set (read
                           them off the body) */
    SIM_CHANGE_EXPLODE, /* explosion (sim_world_explode) */
    SIM_CHANGE_JOINED,   /* joint, joint_def, owner: a joint added (sim_world_add_joint) */
    SIM_CHANGE_UNJOINED, /* joint, owner: a joint removed (sim_world_remove_joint) */
} sim_change_kind;

/* What a SIM_CHANGE_SET set. */
enum {
    SIM_SET_POS = 1,  /* the position (with the rotation: a teleport sets both) */
    SIM_SET_ROT = 2,  /* the angle in 2D, the rotation in 3D */
    SIM_SET_VEL = 4,  /* the velocity */
    SIM_SET_SPIN = 8, /* the spin */
};

struct sim_explosion;
struct sim_joint_def;
typedef struct sim_change {
    sim_change_kind kind;
    const sim_body *body;
    uint32_t owner;
    mk_vec3 move;
    bool jump;
    mk_vec3 impulse, point; /* N s, m (z is 0 in a 2D world) */
    bool at;
    unsigned set; /* SIM_SET_* */
    const struct sim_explosion *explosion;
    sim_id joint;                        /* JOINED, UNJOINED: the joint's id */
    const struct sim_joint_def *joint_def; /* JOINED: what it was made from */
} sim_change;

typedef void (*sim_change_fn)(void *ctx, const sim_world *w, const sim_change *c);
/* Calls `fn` for every change from now on (NULL stops). */
void sim_world_on_change(sim_world *w, sim_change_fn fn, void *ctx);

/* ---- what a save needs to bring a world back exactly ---- */

/* The bodies in the order the step walks them: the moving ones (by the broadphase's order),
 * then the static ones. A world whose bodies are added in this order steps the same way. */
void sim_world_step_order(const sim_world *w, const uint32_t **movers, size_t *mover_count,
                          const uint32_t **statics, size_t *static_count);
/* The generation the next id of a slot will carry (0 for a slot that never held a body). */
uint32_t sim_world_slot_generation(const sim_world *w, uint32_t slot);

/* ---- world queries: rays, shape casts and overlaps (query.c), now or at a past tick ---- */

/* What a query may hit: not the ids in `ignore`, only the kinds whose bit (1 << kind) is in
 * `kinds` (0: every kind), and only bodies whose category has a bit of `mask` (0: every
 * body). A query never hits a sensor. */
typedef struct sim_query_filter {
    const sim_id *ignore;
    size_t ignore_count;
    unsigned kinds;
    uint64_t mask;
} sim_query_filter;

/* A shape placed for a query: the 2D fields in a 2D world, the 3D ones in a 3D world. */
typedef struct sim_query_shape {
    col_shape2 shape2;
    col_xf2 xf2;
    col_shape3 shape3;
    col_xf3 xf3;
} sim_query_shape;

/* A body a query hit. Rays and casts: `fraction` of the way, `point`, and the body's surface
 * `normal` there (facing the ray; z 0 in 2D). Overlaps: the manifold of the query shape
 * against the body (`normal` from the query shape toward the body, `depth`, `points`), as the
 * stateless `query` gives it. */
#define SIM_QUERY_MAX_POINTS 4
typedef struct sim_hit {
    sim_id id;
    float fraction;
    mk_vec3 point, normal;
    float depth;
    int npoints;
    mk_vec3 points[SIM_QUERY_MAX_POINTS];
} sim_hit;

/* The answer of a query: -1 when memory ran out, -2 when at_tick is outside the history,
 * else how many hits (at most `max` written, in order of fraction for rays; *total gets how
 * many there were). `at_tick` is the tick to answer at: the current tick, or one within the
 * history (sim_world_set_history); a body that did not exist then is not hit, one removed
 * since is, where it was. A query never changes the world. */
#define SIM_QUERY_NOMEM -1
#define SIM_QUERY_NO_HISTORY -2
/* The bodies the segment from -> to (z ignored in 2D) meets: the first (all false) or all. */
int sim_world_raycast(sim_world *w, uint64_t at_tick, mk_vec3 from, mk_vec3 to,
                      const sim_query_filter *f, bool all, sim_hit *hits, size_t max,
                      size_t *total);
/* The first body the shape meets when moved by `translation`, or none (returns 0 or 1). */
int sim_world_cast(sim_world *w, uint64_t at_tick, const sim_query_shape *s, mk_vec3 translation,
                   const sim_query_filter *f, sim_hit *hit);
/* Every body the shape overlaps (touching counts), in id order. */
int sim_world_overlap(sim_world *w, uint64_t at_tick, const sim_query_shape *s,
                      const sim_query_filter *f, sim_hit *hits, size_t max, size_t *total);

/* ---- explosions (motion.c) ---- */

/* Box2D's b2World_Explode, as the rules had it: every body with mass that `filter` admits (and
 * of `owner` alone when `owned`) whose centre of mass lies within `radius` of `pos` gets an
 * impulse through its centre of mass, away from `pos` (up when it is at `pos`), of `impulse`
 * N s at the centre falling linearly to 0 at the radius. */
typedef struct sim_explosion {
    mk_vec3 pos;    /* m; z is ignored in a 2D world */
    float radius;   /* m, > 0 */
    float impulse;  /* N s */
    sim_query_filter filter;
    bool owned;
    uint32_t owner;
} sim_explosion;
/* Explodes (as above), waking each body pushed with what sleeps with it; returns how many it
 * pushed, and *woken (when not NULL) how many of them were asleep. Reported
 * (SIM_CHANGE_EXPLODE) once, before the pushes: a replay explodes again. Nothing happens for
 * numbers that are not finite or a radius that is not positive. */
size_t sim_world_explode(sim_world *w, const sim_explosion *e, size_t *woken);

/* ---- the history of transforms, for queries at a past tick (history.c) ---- */

/* Keeps the transforms of the last `ticks` ticks (0: none, the default): before each step the
 * placement of every body that will move (awake, not static) is recorded, so a sleeping pile
 * costs nothing; a removed body's shape and last placement are kept while its tick is within
 * the window. The records are a ring that grows only when more bodies move than before; it
 * holds at most ticks x (moving bodies + removals) records of SIM_HISTORY_RECORD_BYTES2/3.
 * False when memory runs out. */
bool sim_world_set_history(sim_world *w, uint32_t ticks);
/* The oldest tick a query can be answered at (the current tick when there is no history). */
uint64_t sim_world_history_oldest(const sim_world *w);
/* Bytes the history holds now (records, frames, removed bodies' shapes). */
size_t sim_world_history_bytes(const sim_world *w);
#define SIM_HISTORY_RECORD_BYTES2 21 /* id 8, x and y 8, angle 4, a flag 1 */
#define SIM_HISTORY_RECORD_BYTES3 37 /* id 8, position 12, quaternion 16, a flag 1 */
/* ---- the world's image: all of its state, for a snapshot that steps on exactly (image.c) ---- */

/* The bytes of the world's image, and the image itself copied into `dst` (that many bytes):
 * the whole world (bodies, the broadphase's order and bounds, the contact cache's impulses,
 * sleep timers: everything the next steps read). Mostly memcpy, cheap enough between two
 * steps; a caller that keeps its buffer from one image to the next does not even fault pages
 * in. A world read back from it steps exactly as this one does. The layout is this build's. */
size_t sim_world_image_size(const sim_world *w);
void sim_world_image_copy(const sim_world *w, void *dst);
/* The world of an image, or NULL with `err` naming the byte offset of the first thing wrong
 * (another build's layout, a length past the end, a slot, id or index out of range). */
sim_world *sim_world_from_image(const void *data, size_t len, mk_error *err);
/* The same for an image whose level bodies name their levels by key: `resolve` gives the level
 * of a key (a reference the world takes), or NULL with `err` saying why. sim_world_from_image
 * refuses an image with level bodies. */
typedef const sim_level *(*sim_level_resolve_fn)(void *ctx, const uint8_t key[SIM_LEVEL_KEY],
                                                 mk_error *err);
sim_world *sim_world_from_image_levels(const void *data, size_t len,
                                       sim_level_resolve_fn resolve, void *ctx, mk_error *err);
/* The levels of the world's bodies, each once (in no set order): a malloc'ed
 * array of *n the caller frees (NULL with *n 0 when there are none); false when memory ran
 * out. The levels are the world's: sim_level_retain one that must outlive its bodies. */
bool sim_world_levels(const sim_world *w, const sim_level ***out, size_t *n);

/* ---- joints (joint.c): bodies held together, solved in the same step as the contacts ---- */

/* The kinds of joint (Box2D v3's and Jolt's), each of its world's dimension or of both. */
typedef enum sim_joint_type {
    SIM_JOINT_REVOLUTE,  /* 2D: the bodies turn about a shared anchor (a pin) */
    SIM_JOINT_HINGE,     /* 3D: the bodies turn about an axis through a shared anchor */
    SIM_JOINT_PRISMATIC, /* both: b slides along an axis of a, without turning */
    SIM_JOINT_DISTANCE,  /* both: two anchors kept a length apart, or between two (a rope) */
    SIM_JOINT_WELD,      /* both: held rigid at an anchor, or springy (spring, linear_spring) */
    SIM_JOINT_SPHERICAL, /* 3D: a ball and socket, with an optional cone about an axis */
    SIM_JOINT_WHEEL,     /* 2D: b turns freely and rides a spring along an axis of a */
    SIM_JOINT_TYPE_COUNT
} sim_joint_type;

/* Whether a world of `dim` dimensions has joints of this type. */
bool sim_joint_type_in(sim_joint_type type, int dim);

/* A joint as it is asked for. Points and axes are in world space at the moment the joint is
 * made (z is 0 in a 2D world); the joint keeps them in each body's own frame from then on,
 * and its angles and translations count from that moment (0 then). Fields a type does not
 * use are ignored. */
typedef struct sim_joint_def {
    sim_joint_type type;
    sim_id a, b;                /* b: 0 for the world (fixed at the origin, unrotated) */
    mk_vec3 anchor_a, anchor_b; /* m: the anchor (anchor_a; a distance joint's two) */
    mk_vec3 axis;               /* unit: hinge, prismatic and wheel's axis, the cone's */
    bool limit;                 /* lower..upper: rad (revolute, hinge), m (prismatic, wheel) */
    float lower, upper;
    bool motor;                 /* drives the free axis at motor_speed (rad/s or m/s), with */
    float motor_speed, max_motor; /* at most max_motor (N m, or N for prismatic, distance) */
    float spring_hz, spring_damping; /* 0 Hz: none. Pulls the free axis to 0 (a distance
                                      * joint's to `length`); a weld's is its turning */
    float linear_hz, linear_damping; /* a weld's spring in translation; 0 Hz: rigid */
    float length, min_length, max_length; /* distance: m, 0 <= min <= length <= max */
    float cone;                 /* spherical: the cone's half angle about `axis`, rad; 0 none */
    float break_force;          /* N: the joint breaks past this force; 0: never */
    bool collide;               /* the two bodies still collide with each other */
    /* A saved joint's own frames (a save written after the bodies moved): with `framed` set
     * these replace the world anchors and axis. */
    bool framed;
    mk_vec3 local_a, local_b; /* the anchors in a's and b's frames (b's: the world's) */
    mk_quat frame_a, frame_b; /* the joint's frame in a's and b's (its x is the axis); a 2D
                               * one turns about z */
} sim_joint_def;

/* A joint in the world (read only: joints change through the functions below). */
typedef struct sim_joint {
    sim_id id; /* 0 when the slot is free: (generation << 24) | (slot + 1), as bodies' ids */
    uint32_t owner;
    uint32_t generation; /* the generation the slot's next id carries */
    sim_joint_type type;
    sim_id a, b;             /* b: 0 for the world */
    uint32_t slot_a, slot_b; /* their slots; UINT32_MAX for the world */
    bool collide, limit, motor, rigid; /* rigid: a distance joint without spring or range */
    uint8_t kinds;           /* what the step needs of it (joint.c's JOINT_*) */
    mk_vec3 local_a, local_b; /* the anchors in a's and b's frames, m */
    mk_quat frame_a, frame_b; /* the joint's frame in a's and b's; 2D: (cos, sin) of its turn
                               * in x and y */
    float lower, upper, motor_speed, max_motor;
    float spring_hz, spring_damping, linear_hz, linear_damping;
    float length, min_length, max_length, cone;
    float break_force; /* N; INFINITY never */
    /* The solver's impulses of the last step, its warm start (N s, N m s): the anchor's (in
     * world axes), the turning's (weld, prismatic, hinge: world axes), and along the free
     * axis the spring's, the motor's and the two limits'. */
    mk_vec3 linear, angular;
    float spring, motor_impulse, lower_impulse, upper_impulse;
} sim_joint;

/* Adds a joint owned by `owner` (the bodies' owner, 0 for the server's): its id, or 0 with
 * `err` naming the field (a: no such body, b: the same body as a, a type this world's
 * dimension lacks, a non-finite anchor or axis, lower > upper, a negative length, a world
 * full of joints). Both bodies wake. The joint is reported (SIM_CHANGE_JOINED). */
sim_id sim_world_add_joint(sim_world *w, const sim_joint_def *def, uint32_t owner,
                           mk_error *err);
/* The same with a given id (a saved world coming back); 0 with `err` when the id is not
 * valid or its slot is taken. Not reported. */
sim_id sim_world_add_joint_with_id(sim_world *w, const sim_joint_def *def, uint32_t owner,
                                   sim_id id, mk_error *err);
/* Removes a joint; its id goes to the removed list (sim_world_removed_joints) and its slot is
 * reused only after sim_world_clear_removed. The bodies wake. Reported
 * (SIM_CHANGE_UNJOINED). False for an id that is not in the world. */
bool sim_world_remove_joint(sim_world *w, sim_id id);
/* The joint with this id, or NULL; the pointer holds until the world next adds a joint. */
const sim_joint *sim_world_get_joint(const sim_world *w, sim_id id);
/* Joint slots, for iteration: joints[i] for i < slot_count, free where id == 0. */
const sim_joint *sim_world_joint_slots(const sim_world *w, size_t *slot_count);
size_t sim_world_joint_count(const sim_world *w);
size_t sim_world_count_joints_owned(const sim_world *w, uint32_t owner);
/* Joint ids removed since the last sim_world_clear_removed: those removed through the API,
 * those that broke (SIM_EVENT_JOINT_BREAK) and those of bodies that left the world. */
const sim_id *sim_world_removed_joints(const sim_world *w, size_t *n);
/* The definition that makes this joint of world w again as it is now (framed, with its
 * frames: a 2D one's as a turn about z), for a save. */
sim_joint_def sim_joint_def_of(const sim_world *w, const sim_joint *j);
/* Gives a free joint slot the generation its next id will carry (a saved world coming back);
 * false when the slot is taken or out of range. */
bool sim_world_set_joint_slot_generation(sim_world *w, uint32_t slot, uint32_t generation);
#define SIM_MAX_JOINTS SIM_MAX_BODIES

#endif
