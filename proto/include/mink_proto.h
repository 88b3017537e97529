/* mink_proto: the Mink wire protocol, version 1 (docs/PROTOCOL.md).
 *
 * JSON Lines framing for a byte stream, every client message parsed into C structs and
 * validated (with the protocol's error codes), and writers for the server's messages. The
 * `state` writer does not build cJSON trees: it runs on every snapshot tick.
 *
 * This library knows JSON and the protocol only: no sockets, no physics.
 */
#ifndef MINK_PROTO_H
#define MINK_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mk_error.h"

#define PROTO_VERSION 1
#define PROTO_MAX_LINE (64 * 1024) /* bytes per client line, '\n' excluded */
#define PROTO_MAX_DEPTH 32         /* JSON nesting depth accepted from a client */
#define PROTO_MAX_POINTS 256       /* points of a polygon or hull, as sent */
#define PROTO_MAX_TAG 64           /* bytes of a body's tag */
#define PROTO_MAX_NAME 64          /* bytes of a client's name */
#define PROTO_MAX_TOKEN 1024       /* bytes of a hello's connect token */
#define PROTO_MAX_HASH_EVERY 1000000 /* ticks: `subscribe {hash}` at most */
#define PROTO_MAX_ECHO 1024        /* bytes of an echoed `req` or ping `t`, as compact JSON */
#define PROTO_MAX_MESSAGE MK_ERROR_MESSAGE /* bytes of an error message, terminator included */

/* Ranges accepted from clients and scene files. A value outside is `bad_request`. */
#define PROTO_MIN_SIZE 1e-3      /* m: half extents, radii, half heights */
#define PROTO_MAX_SIZE 1e4       /* m */
#define PROTO_MAX_COORD 1e6      /* m: |position component|, |point component| <= this */
#define PROTO_MAX_VEL 1e4        /* m/s: |velocity component| */
#define PROTO_MAX_ANGLE 1e6      /* rad: |2D angle| */
#define PROTO_MAX_DENSITY 1e6    /* kg/m^2 (2D) or kg/m^3 (3D); density must be > 0 */
#define PROTO_MAX_FRICTION 10.0  /* friction in [0, 10] */
#define PROTO_MAX_SPEED 1e3      /* m/s: max_speed in [0, 1000] */
#define PROTO_MAX_JUMP 100.0     /* m: jump_height in [0, 100] */
#define PROTO_MAX_RADIUS 1e6     /* m: subscribe's interest radius in (0, 1e6] */
#define PROTO_MAX_ID 9007199254740992.0 /* 2^53: ids and seq are integers in [0, 2^53] */
#define PROTO_MAX_IMPULSE 1e6    /* N s: |impulse component| of push and explode */
#define PROTO_MAX_GROUP 2147483647.0 /* a filter's group is an integer in [-2^31, 2^31 - 1] */

/* Defaults of the optional body spec fields. */
#define PROTO_DEFAULT_DENSITY 1.0
#define PROTO_DEFAULT_FRICTION 0.6
#define PROTO_DEFAULT_RESTITUTION 0.0
#define PROTO_DEFAULT_MAX_SPEED 5.0   /* m/s */
#define PROTO_DEFAULT_JUMP_HEIGHT 1.5 /* m: how high a character's jump rises */
#define PROTO_DEFAULT_MAX_SLOPE 0.8726646259971648 /* rad (50 degrees): steepest ground a
                                                    * character walks on */

/* ---- error codes (PROTOCOL.md, "Errors") ---- */

typedef enum proto_error_code {
    PROTO_OK = 0,
    PROTO_ERR_BAD_JSON,
    PROTO_ERR_BAD_REQUEST,
    PROTO_ERR_UNKNOWN_TYPE,
    PROTO_ERR_NOT_JOINED,
    PROTO_ERR_NOT_OWNER,
    PROTO_ERR_NOT_FOUND,
    PROTO_ERR_QUOTA,
    PROTO_ERR_RATE_LIMITED,
    PROTO_ERR_LINE_TOO_LONG,
    PROTO_ERR_SERVER_FULL,
    PROTO_ERR_SHUTDOWN,
    PROTO_ERR_UNAUTHORIZED, /* hello without a valid token on a server with --token-key */
} proto_error_code;
#define PROTO_ERR_LAST PROTO_ERR_UNAUTHORIZED

/* The wire name of a code: "bad_json", "bad_request", ... ("ok" for PROTO_OK). */
const char *proto_error_name(proto_error_code code);

/* A refused message: the code (a proto_error_code) and a human-readable message that names the
 * field ("body.shape.half[1]: must be in [0.001, 10000]"): Mink's one failure report
 * (mk_error.h), whose codes the protocol's share. The message's `req`, to echo, is in the
 * parsed message (proto_msg.req) as far as the parser got. */
typedef mk_error proto_error;
_Static_assert(PROTO_ERR_BAD_REQUEST == MK_ERR_INVALID, "invalid input is a bad_request");
_Static_assert(MK_ERR_IO > PROTO_ERR_LAST, "a file's failure has a code of its own");

/* ---- framing: JSON Lines over a byte stream ---- */

/* Called once per complete line, without its '\n' (and without a '\r' before it). Blank lines
 * are skipped. `line` is valid only during the call. Return 0 to go on, nonzero to stop:
 * proto_framer_feed then returns that value at once and drops the rest of the bytes (the
 * caller is closing the stream). */
typedef int (*proto_line_cb)(void *ud, const char *line, size_t len);

typedef struct proto_framer {
    char *buf;       /* the start of a line whose '\n' has not arrived yet */
    size_t len, cap;
    size_t max_line; /* a line longer than this is refused */
} proto_framer;

void proto_framer_init(proto_framer *f, size_t max_line);
void proto_framer_free(proto_framer *f);
/* Feeds n bytes. Lines wholly inside `data` are handed to the callback in place (no copy);
 * only an unfinished tail is buffered, and the buffer never grows past max_line bytes.
 * Returns 0, the callback's nonzero value, PROTO_ERR_LINE_TOO_LONG (as a positive int) as soon
 * as the line being read is longer than max_line (the framer is then unusable: close the
 * stream), or -1 when memory runs out. */
int proto_framer_feed(proto_framer *f, const char *data, size_t n, proto_line_cb on_line,
                      void *ud);
/* The same, and *used is the bytes of `data` taken: when the callback stops the feed, the
 * bytes after the line it was handed (*used to n) are left untouched and the framer holds no
 * unfinished line, so feeding them later goes on where it stopped (a reader that pauses). */
int proto_framer_feed_used(proto_framer *f, const char *data, size_t n, proto_line_cb on_line,
                           void *ud, size_t *used);

/* ---- messages from a client ---- */

typedef enum proto_shape_type {
    /* 2D */
    PROTO_SHAPE_AABB,
    PROTO_SHAPE_BOX, /* 2D or 3D: the world's dim says which */
    PROTO_SHAPE_CIRCLE,
    PROTO_SHAPE_POLYGON,
    /* 3D */
    PROTO_SHAPE_SPHERE,
    PROTO_SHAPE_ELLIPSOID,
    PROTO_SHAPE_CAPSULE,
    PROTO_SHAPE_CYLINDER,
    PROTO_SHAPE_CONE,
    PROTO_SHAPE_HULL,
    /* extension: level geometry, static and kinematic bodies only (level_shape.c) */
    PROTO_SHAPE_SEGMENT,     /* 2D: a, b (points[0], points[1]) */
    PROTO_SHAPE_CHAIN,       /* 2D: points, loop */
    PROTO_SHAPE_MESH,        /* 3D: vertices, indices; or file (scene files) */
    PROTO_SHAPE_HEIGHTFIELD, /* 3D: size, scale, heights, holes */
    PROTO_SHAPE_COUNT
} proto_shape_type;

/* Whether a shape type is level geometry (the extension's segment, chain, mesh, heightfield). */
static inline bool proto_shape_is_level(proto_shape_type t)
{
    return t >= PROTO_SHAPE_SEGMENT && t < PROTO_SHAPE_COUNT;
}

#define PROTO_MAX_FILE 1024 /* bytes of a scene's mesh `file` */
#define PROTO_LEVEL_KEY_HEX 64 /* hex digits of a level's key (SHA-256) */

/* The geometry of a level shape as sent, on the heap (a line of --max-line bytes bounds it):
 * a chain's points; a mesh's vertices and triangles, or the file a scene names; a
 * heightfield's samples. Or, in a body's first sighting, the level named by its key (the
 * server's level file, docs/PROTOCOL.md "Levels") with its bounds and piece count. A
 * segment needs none (its ends are the shape's points[0] and points[1]). */
typedef struct proto_level {
    uint32_t npoints; /* chain */
    float (*points)[2];
    bool loop;
    uint32_t nvertices, ntriangles; /* mesh */
    float (*vertices)[3];
    uint32_t (*triangles)[3];
    uint32_t cols, rows; /* heightfield: samples along x and z */
    double scale[3];
    float *heights; /* rows * cols, row-major */
    uint8_t *holes; /* (rows - 1) * (cols - 1), 1 for a hole; NULL for none */
    char *file;     /* a scene's mesh: its file, relative to the scene */
    uint8_t *data;  /* a journal's or a save's: the level file itself (`data`, base64) */
    size_t ndata;
    bool named;     /* a first sighting's: the level of `key` */
    char key[PROTO_LEVEL_KEY_HEX + 1];
    uint32_t pieces; /* named: its triangles or segments */
    double lo[3], hi[3]; /* named: its bounds in the body's frame, m */
} proto_level;

/* The wire name of a shape type ("aabb", "box", ...). */
const char *proto_shape_name(proto_shape_type type);

/* A shape as sent. Only the fields of its type are meaningful; vectors have `dim` components. */
typedef struct proto_shape {
    proto_shape_type type;
    double half[3];    /* aabb, box */
    double radius;     /* circle, sphere, capsule, cylinder, cone */
    double radii[3];   /* ellipsoid */
    double half_height; /* capsule, cylinder, cone */
    proto_level *level; /* chain, mesh, heightfield: owned (proto_shape_free) */
    int npoints;       /* polygon: 3..256 points; hull: 4..256 points; segment: 2 */
    double points[PROTO_MAX_POINTS][3];
} proto_shape;

/* Frees a shape's level geometry (nothing for other shapes); the shape is then its type alone. */
void proto_shape_free(proto_shape *s);

typedef enum proto_body_kind {
    PROTO_KIND_DYNAMIC,
    PROTO_KIND_STATIC,
    PROTO_KIND_KINEMATIC,
    PROTO_KIND_CHARACTER,
} proto_body_kind;

const char *proto_kind_name(proto_body_kind kind);
/* The kind a wire name names ("dynamic", ...), or -1. */
int proto_kind_of(const char *name);

/* A body's collision filter (an extension, `filter: {category?, mask?, group?}`): two bodies
 * collide when each one's category has a bit of the other's mask, unless they share a group
 * that is not 0, which decides alone (positive: they collide, negative: they never do).
 * Category and mask are integers in [0, 2^53] on the wire (64 bits in the world); the
 * defaults are category 1, every mask bit (PROTO_MASK_ALL, which the wire spells by leaving
 * mask out) and group 0. */
#define PROTO_MASK_ALL UINT64_MAX
typedef struct proto_filter {
    uint64_t category, mask;
    int32_t group;
} proto_filter;
/* Whether a filter is the default one. */
bool proto_filter_is_default(const proto_filter *f);

/* A body spec with every optional field filled with its default. rot: rot[0] is the angle in
 * 2D; in 3D rot is a unit quaternion [x, y, z, w] (a non-unit one is normalised, a zero one
 * refused). */
typedef struct proto_body_spec {
    proto_shape shape;
    double pos[3];
    double rot[4];
    double vel[3];
    proto_body_kind kind;
    double density, friction, restitution, max_speed;
    double jump_height; /* extension: m, characters only */
    double max_slope;   /* extension: rad in [0, pi/2], characters only */
    char tag[PROTO_MAX_TAG + 1];
    proto_filter filter; /* extension */
    bool sensor;         /* extension: it reports what overlaps it and pushes nothing */
} proto_body_spec;

/* A shape placed in the world, as `query` sends it. */
typedef struct proto_placed_shape {
    proto_shape shape;
    double pos[3];
    double rot[4];
} proto_placed_shape;

typedef enum proto_msg_type {
    PROTO_MSG_HELLO,
    PROTO_MSG_SPAWN,
    PROTO_MSG_DESPAWN,
    PROTO_MSG_INPUT,
    PROTO_MSG_QUERY,
    PROTO_MSG_SUBSCRIBE,
    PROTO_MSG_PING,
    PROTO_MSG_BYE,
    PROTO_MSG_RAYCAST, /* extension: world queries (world_query.c) */
    PROTO_MSG_CAST,
    PROTO_MSG_OVERLAP,
    PROTO_MSG_PUSH, /* extension: acting on a body (motion.c) */
    PROTO_MSG_SET,
    PROTO_MSG_EXPLODE,
    PROTO_MSG_ACTION, /* extension: a game's own command, for its rules (action.c) */
    PROTO_MSG_EMIT,   /* extension: a `game` connection's message to players (action.c) */
    PROTO_MSG_JOINT, /* extension: joints (joint.c) */
    PROTO_MSG_UNJOINT,
} proto_msg_type;
#define PROTO_MSG_COUNT (PROTO_MSG_UNJOINT + 1)

/* A world query: `raycast {from, to, all?}`, `cast {shape, pos, rot?, to}`, `overlap {shape,
 * pos, rot?}`, each with `at_tick?`, `ignore?` and `kinds?` (docs/PROTOCOL.md). */
#define PROTO_MAX_IGNORE 64 /* ids in `ignore` */
typedef struct proto_world_query {
    proto_placed_shape shape; /* cast, overlap */
    double from[3];           /* raycast */
    double to[3];             /* raycast, cast: where the ray ends, where the shape moves to */
    bool all;                 /* raycast: every hit, not only the first */
    bool has_at_tick;
    uint64_t at_tick;
    int nignore;
    uint64_t ignore[PROTO_MAX_IGNORE];
    unsigned kinds; /* a bit (1 << proto_body_kind) for each kind asked for; 0: every kind */
    uint64_t mask;  /* only bodies whose category has a bit of it; 0: every body */
} proto_world_query;

/* `push {id, impulse, point?}`, `set {id, pos?, rot?, vel?, w?}` (at least one of them) and
 * `explode {pos, radius, impulse, mask?}` (docs/PROTOCOL.md). rot as a body spec's (an angle in
 * 2D, a unit quaternion in 3D); w a number in 2D, a vector in 3D. */
typedef struct proto_push {
    uint64_t id;
    double impulse[3]; /* N s */
    bool has_point;
    double point[3]; /* m */
} proto_push;
typedef struct proto_set {
    uint64_t id;
    bool has_pos, has_rot, has_vel, has_w;
    double pos[3], rot[4], vel[3], w[3];
} proto_set;
typedef struct proto_explode {
    double pos[3];
    double radius;  /* m, in (0, PROTO_MAX_RADIUS] */
    double impulse; /* N s at the centre */
    uint64_t mask;  /* 0: every body */
} proto_explode;
/* A joint's type (docs/PROTOCOL.md, "Joints"): revolute and wheel in 2D, hinge and spherical
 * in 3D, prismatic, distance and weld in both. */
typedef enum proto_joint_type {
    PROTO_JOINT_REVOLUTE,
    PROTO_JOINT_HINGE,
    PROTO_JOINT_PRISMATIC,
    PROTO_JOINT_DISTANCE,
    PROTO_JOINT_WELD,
    PROTO_JOINT_SPHERICAL,
    PROTO_JOINT_WHEEL,
    PROTO_JOINT_COUNT
} proto_joint_type;

/* The wire name of a joint type ("revolute", ...), and the type a name names (-1 for none). */
const char *proto_joint_name(proto_joint_type type);
int proto_joint_of(const char *name);
/* Whether a world of `dim` dimensions has joints of this type. */
bool proto_joint_in(proto_joint_type type, int dim);

/* Ranges of a joint's numbers (a value outside is `bad_request`). */
#define PROTO_MAX_MOTOR 1e9  /* N or N m: a motor's most force or torque */
#define PROTO_MAX_HZ 1e3     /* Hz: a spring's frequency */
#define PROTO_MAX_DAMPING 1e3 /* a spring's damping ratio */
#define PROTO_MAX_FORCE 1e12 /* N: a break force */

/* A joint as sent, validated: vectors have the world's dim of components (the rest 0); each
 * has_ says whether the message gave the field (the defaults are the world's to fill:
 * anchors at the bodies, the length between the anchors). Angles in rad, lengths in m. */
typedef struct proto_joint_spec {
    proto_joint_type type;
    uint64_t a, b; /* b: 0 for the world */
    bool has_anchor, has_anchor_b, has_axis;
    double anchor[3];   /* `anchor` (one-anchor joints) or a distance joint's `anchor_a` */
    double anchor_b[3]; /* a distance joint's b end */
    double axis[3];     /* non-zero */
    bool has_limits;
    double limits[2]; /* lower <= upper (angles within [-pi, pi]) */
    bool has_motor;
    double motor_speed, max_motor; /* rad/s or m/s; N m (max_torque) or N (max_force) */
    bool has_spring, has_linear_spring;
    double spring_hz, spring_damping, linear_hz, linear_damping;
    bool has_length, has_min_length, has_max_length;
    double length, min_length, max_length;
    double cone;        /* spherical: the cone's half angle, (0, pi]; 0 when not given */
    double break_force; /* N; 0 when not given (never breaks) */
    bool collide;
} proto_joint_spec;

/* Validates a joint spec given as a cJSON object (a `joint` message's `joint`, or a scene's
 * `joints[i]`) for a world of `dim`; the error names fields after `path` ("joint."). */
struct cJSON;
proto_error_code proto_parse_joint_spec(const struct cJSON *json, int dim, const char *path,
                                        proto_joint_spec *out, proto_error *err);

/* `action {req?, name, data?}`: a game's own command (fire, use, respawn) for its rules, and
 * `emit {req?, to?, name, data?}`: a `game` connection's message to one player (`to`) or to
 * every one (docs/PROTOCOL.md). `name` 1 to PROTO_MAX_ACTION_NAME bytes; `data` any JSON value,
 * kept as compact JSON of at most PROTO_MAX_ACTION_DATA bytes ("" when absent). */
#define PROTO_MAX_ACTION_NAME 64
#define PROTO_MAX_ACTION_DATA 4096
typedef struct proto_action {
    char name[PROTO_MAX_ACTION_NAME + 1];
    char data[PROTO_MAX_ACTION_DATA + 1];
    size_t data_len;
    bool has_to;
    uint32_t to; /* emit: the player (client id) */
} proto_action;

typedef struct proto_msg {
    proto_msg_type type;
    bool has_req;
    char req[PROTO_MAX_ECHO + 1]; /* compact JSON of `req`, any JSON value */
    union {
        struct {
            int protocol;
            char name[PROTO_MAX_NAME + 1];
            char token[PROTO_MAX_TOKEN + 1]; /* "" when the hello has none */
            bool has_avatar;
            proto_body_spec avatar;
        } hello;
        struct {
            proto_body_spec body;
        } spawn;
        struct {
            uint64_t id;
        } despawn;
        struct {
            uint64_t seq;
            bool has_id; /* without one the input is for the client's avatar */
            uint64_t id;
            double move[3]; /* each component in [-1, 1] */
            bool jump;
            bool has_tick; /* the step it is first applied by (an extension); else the next */
            uint64_t tick;
        } input;
        struct {
            proto_placed_shape a, b;
        } query;
        struct {
            bool has_contacts;
            bool contacts;
            bool has_radius; /* extension: interest radius in m, > 0 */
            double radius;
            bool has_compact; /* extension: seen bodies as arrays in `state` */
            bool compact;
            bool has_delta; /* extension: seen bodies relative to what was last sent */
            bool delta;
            bool has_hash; /* extension: the world hash every `hash` ticks, 0 off */
            double hash;
            bool has_events; /* extension: what happened since the last state */
            bool events;
        } subscribe;
        struct {
            char t[PROTO_MAX_ECHO + 1]; /* compact JSON of `t` */
        } ping;
        proto_world_query wq; /* raycast, cast, overlap */
        proto_push push;
        proto_set set;
        proto_explode explode;
        proto_action action; /* action, emit */
        proto_joint_spec joint; /* joint */
        struct {
            uint64_t id;
        } unjoint;
    } u;
} proto_msg;

/* Parses and validates one line from a client for a world of `dim` (2 or 3) dimensions.
 * Returns PROTO_OK and fills *out, or an error code and fills *err (with `req` when the line
 * had one). Checks, in this order: UTF-8 (bad_json), JSON syntax and nesting depth (bad_json),
 * an object with a string `type` (bad_request), a known type (unknown_type), then every field:
 * presence, JSON type, finite numbers, ranges, vector lengths, shape types for this dim
 * (bad_request, the message naming the field path). Unknown fields are ignored. */
proto_error_code proto_parse(const char *line, size_t len, int dim, proto_msg *out,
                             proto_error *err);
/* Frees what a parsed message holds on the heap (a spawn's or an avatar's level geometry).
 * A message that failed to parse holds nothing. */
void proto_msg_free(proto_msg *m);

/* True when the n bytes are valid UTF-8 (no overlong forms, surrogates or code points past
 * U+10FFFF). proto_parse checks every line with it; scene files are checked with it too. */
bool proto_utf8_valid(const char *s, size_t n);

/* Validates one body spec given as a cJSON object (as in a scene file's `bodies` array). The
 * error message names fields relative to `path` (e.g. "bodies[3]"). */
struct cJSON;
proto_error_code proto_parse_body_spec(const struct cJSON *json, int dim, const char *path,
                                       proto_body_spec *out, proto_error *err);
/* Reads one shape given as a cJSON object for a world of `dim` (PROTOCOL.md, "Shapes"): a body
 * spec's `shape`, and the `shape` of a body's first sighting in `state`, which the server writes
 * in the same form (proto_write_shape). The error message names fields after `path`, which ends
 * in "shape." ("body.shape.half"). */
proto_error_code proto_parse_shape(const struct cJSON *json, int dim, const char *path,
                                   proto_shape *out, proto_error *err);
/* Validates a vector of `dim` finite numbers each with |x| <= max_abs. */
proto_error_code proto_parse_vector(const struct cJSON *json, int dim, double max_abs,
                                    const char *path, double *out, proto_error *err);

/* ---- writers for the server's messages ---- */

/* A growable byte buffer. Appends that cannot allocate leave `failed` set and the contents
 * unchanged; callers check it once at the end. */
typedef struct proto_buf {
    char *data;
    size_t len, cap;
    bool failed;
} proto_buf;

void proto_buf_init(proto_buf *b);
void proto_buf_free(proto_buf *b);
void proto_buf_clear(proto_buf *b); /* len = 0, failed = false; keeps the memory */
bool proto_buf_reserve(proto_buf *b, size_t extra);
void proto_buf_append(proto_buf *b, const void *data, size_t n);
void proto_buf_append_str(proto_buf *b, const char *s);
void proto_buf_append_char(proto_buf *b, char c);
void proto_buf_append_u64(proto_buf *b, uint64_t v);
void proto_buf_append_i64(proto_buf *b, int64_t v);
/* A number rounded to `decimals` (0..9) places with trailing zeros dropped ("1.5", "-0.25",
 * "3"), no printf: the fixed-point writer of `state`. Never writes "-0". Values too large for
 * fixed point are written with %.17g; non-finite values are written as 0 (they never should
 * reach a writer). */
void proto_buf_append_fixed(proto_buf *b, double v, int decimals);
/* The n numbers of v as a JSON array of such numbers ("[1.5,-2,0]"). */
void proto_buf_append_fixed_array(proto_buf *b, const double *v, int n, int decimals);
/* n points of `dim` such numbers each, as a JSON array of arrays ("[[0,1],[2,3.5]]"). */
void proto_buf_append_fixed_points(proto_buf *b, const double (*p)[3], int n, int dim,
                                   int decimals);
/* The same texts written straight into memory with room for them (26 bytes for a fixed
 * number, 20 for an integer); each returns the end. For writers that reserve once for many
 * numbers. */
char *proto_put_fixed(char *p, double v, int decimals);
char *proto_put_u64(char *p, uint64_t v);
/* A JSON string with quotes and escapes. */
void proto_buf_append_json_string(proto_buf *b, const char *s);
/* n bytes as base64 (RFC 4648, with padding), without quotes. */
void proto_buf_append_base64(proto_buf *b, const void *data, size_t n);
/* The bytes of n characters of base64 (padding optional) in a new array (*out, *len); false
 * for a character outside the alphabet or no memory. */
bool proto_base64_decode(const char *s, size_t n, uint8_t **out, size_t *len);

/* A level the world holds, as `welcome` names it (an extension): its key (the SHA-256 of its
 * level file, which the HTTP port serves at /levels/KEY), its kind and pieces, and the file a
 * scene read it from with that file's SHA-256 (both "" for a level given inline). */
typedef struct proto_welcome_level {
    char key[PROTO_LEVEL_KEY_HEX + 1];
    proto_shape_type type;
    uint32_t pieces;
    const char *file;
    char sha256[PROTO_LEVEL_KEY_HEX + 1];
} proto_welcome_level;

/* Each writer appends one whole line, '\n' included. `req` is compact JSON or NULL. */
typedef struct proto_welcome {
    uint32_t client;
    int dim;
    uint64_t tick;
    double tick_hz, snapshot_hz;
    double gravity[3];
    bool has_avatar;
    uint64_t avatar;
    const proto_welcome_level *levels; /* `levels`, written when nlevels > 0 */
    size_t nlevels;
} proto_welcome;

void proto_write_welcome(proto_buf *b, const proto_welcome *w);
void proto_write_error(proto_buf *b, proto_error_code code, const char *message, const char *req);
void proto_write_spawned(proto_buf *b, const char *req, uint64_t id);
void proto_write_despawned(proto_buf *b, const char *req, uint64_t id);
void proto_write_pong(proto_buf *b, const char *t, uint64_t tick);
/* The answers to push, set and explode: `{"type":"pushed","req":..,"id":..}`, `updated` the
 * same, `{"type":"exploded","req":..,"bodies":N}` (how many bodies it pushed). */
void proto_write_pushed(proto_buf *b, const char *req, uint64_t id);
void proto_write_updated(proto_buf *b, const char *req, uint64_t id);
void proto_write_exploded(proto_buf *b, const char *req, uint64_t bodies);
/* The answer to an action or an emit the server carried out: `{"type":"done","req":..}`. */
void proto_write_done(proto_buf *b, const char *req);
/* A game's message to a client (its rules' mink.send and game.broadcast, a `game` connection's
 * emit): `{"type":"event","name":NAME,"data":DATA}`, `data` compact JSON of `len` bytes (left
 * out when len is 0). The name is written as a JSON string. */
void proto_write_game_event(proto_buf *b, const char *name, const char *data, size_t len);
/* `joined {req, id}` and `unjoined {req, id}` (extension: joints). */
void proto_write_joined(proto_buf *b, const char *req, uint64_t id);
void proto_write_unjoined(proto_buf *b, const char *req, uint64_t id);

typedef struct proto_result {
    bool hit;
    double depth;     /* when hit */
    double normal[3]; /* when hit: unit, from a toward b */
    int npoints;      /* up to 2 in 2D, 4 in 3D */
    double points[4][3];
    double distance;  /* when not hit */
} proto_result;

void proto_write_result(proto_buf *b, const char *req, int dim, const proto_result *r);

/* A body hit by a world query: rays and casts give fraction, point and normal; overlaps
 * depth, normal and points. */
typedef struct proto_hit {
    uint64_t id;
    double fraction;
    double point[3];
    double normal[3];
    double depth;
    int npoints;
    double points[4][3];
} proto_hit;

/* `{"type":"hits","req":..,"tick":..,"hits":[...]}`: each hit `{id, point, normal, fraction}`,
 * or for an overlap `{id, depth, normal, points}`. */
void proto_write_hits(proto_buf *b, const char *req, int dim, uint64_t tick, bool overlap,
                      const proto_hit *hits, size_t n);

/* ---- the state writer (no cJSON, no printf) ----
 * A state line is written as:
 *   proto_state_begin, then for each body proto_state_body (+ proto_state_body_first when the
 *   client sees it for the first time) + proto_state_body_end, then proto_state_bodies_end,
 *   then optionally proto_state_removed, optionally proto_state_contacts_begin /
 *   proto_state_contact ... / proto_state_contacts_end, and proto_state_end.
 * Precision: positions 0.1 mm (4 decimals), rotations 1e-4, velocities 1 mm/s (3 decimals). */
typedef struct proto_body_state {
    uint64_t id;
    double pos[3];
    double rot[4]; /* 2D: rot[0]; 3D: quaternion x, y, z, w */
    double vel[3];
    double w[3];   /* angular velocity: w[0] in 2D, a vector in 3D */
} proto_body_state;

void proto_state_begin(proto_buf *b, uint64_t tick, uint64_t ack);
/* The same with the extensions' header fields: `"ack_tick":T` when ack_tick > 0 (the tick
 * whose step first applied the input `ack` names), `"delta":true` when the state's arrays are
 * delta entries (`subscribe {delta}`), `"hash":"<16 hex digits>"` (`subscribe {hash}`). */
void proto_state_begin_ext(proto_buf *b, uint64_t tick, uint64_t ack, uint64_t ack_tick,
                           bool delta, bool has_hash, uint64_t hash);
/* Appends `{"id":..,"pos":..,"rot":..,"vel":..,"w":..` without the closing brace, preceded by
 * a comma unless `first_in_list`. Bodies can be encoded once into a shared buffer with this
 * and copied into each client's state. */
void proto_state_body(proto_buf *b, int dim, const proto_body_state *s, bool first_in_list);
/* Appends `,[id,pos...,rot...,vel...,w...]`: the same body state as a bare array (7 numbers
 * in 2D, 14 in 3D), for clients that subscribed with `compact` (an extension). */
void proto_state_body_compact(proto_buf *b, int dim, const proto_body_state *s);
/* ---- delta.c: `subscribe {delta}` (an extension) ----
 *
 * A body's state quantised to the protocol's precision, as integers: 0.1 mm, 1e-4 (rotations
 * and angular velocities), 1 mm/s, rounded half away from zero as the writer rounds its
 * digits (so that a client reading the decimal form of the same state gets the same
 * integers). 2D: x, y, rot, vx, vy, w (6); 3D: x, y, z, qx, qy, qz, qw, vx, vy, vz, wx, wy, wz
 * (13). A delta entry is `,[d]` or `,[d,keep,v...]`: d the id minus the id of the entry
 * before it in `bodies` (0 before the first), keep the bits of the fields whose value is the
 * prediction (`[d]`: all of them), each v the value minus the prediction for the others, in
 * field order. The prediction is the baseline (the last state of the body the client
 * received) with its velocities unchanged and its position moved by the mean of the
 * baseline's and the new velocity over the ticks since then, in integers (a 2D angle the same
 * way; a 3D orientation turned by the mean angular velocity); a 3D quaternion's w is
 * predicted from its x, y and z as read (the unit length) with the sign of the turned
 * baseline's (proto/delta.c). */
#define PROTO_Q_MAX 13
int proto_q_count(int dim);
/* A 3D w is nearly always its prediction while the other fields are not: its bit in a written
 * keep mask is flipped (set when w is sent), so that the common mask is 0. */
uint64_t proto_delta_qw_bit(int dim);
void proto_quantise(int dim, const proto_body_state *s, int64_t *q);
/* The state a quantised one stands for (positions in m and so on). */
void proto_dequantise(int dim, const int64_t *q, proto_body_state *s);
/* The prediction of a body whose state is now q from its baseline dticks ticks of a world
 * stepping tick_hz times a second before: it reads q's velocities (and a 3D q's x, y, z). */
void proto_delta_predict(int dim, const int64_t *base, uint64_t dticks, uint32_t tick_hz,
                         const int64_t *q, int64_t *pred);
/* Appends the entry of a body whose state is q against the prediction, preceded by a comma
 * unless first_in_list. Returns the offset in b where the entry's tail (what follows the id,
 * the same for every client with the same baseline) begins. */
size_t proto_state_body_delta(proto_buf *b, int dim, int64_t id_delta, const int64_t *pred,
                              const int64_t *q, bool first_in_list);
/* A delta entry's items after d (none, or the keep mask as written and the values) back onto
 * the baseline, dticks ticks later, into q: false when the mask is negative or has bits past
 * the dim's fields, the values do not match it, or a value leaves the range a state can
 * hold. */
bool proto_delta_apply(int dim, const int64_t *base, uint64_t dticks, uint32_t tick_hz,
                       const int64_t *items, int nitems, int64_t *q);

/* Appends `,"shape":..,"kind":..,"owner":..,"tag":..`. */
void proto_state_body_first(proto_buf *b, int dim, const proto_shape *shape,
                            proto_body_kind kind, uint32_t owner, const char *tag);
/* Appends `,"filter":{..}` (the members that are not the default) and `,"sensor":true`, each
 * when it is not the default: a first sighting's, after proto_state_body_first. */
void proto_state_body_filter(proto_buf *b, const proto_filter *f, bool sensor);
void proto_state_body_end(proto_buf *b); /* "}" */
void proto_state_bodies_end(proto_buf *b); /* "]" */
/* Appends `,"removed":[...]`; nothing when n == 0. */
void proto_state_removed(proto_buf *b, const uint64_t *ids, size_t n);
void proto_state_contacts_begin(proto_buf *b); /* `,"contacts":[` */
typedef struct proto_contact {
    uint64_t a, b;
    double normal[3];
    int npoints;
    double points[4][3];
    double depths[4];
    uint32_t ids[4]; /* extension: feature ids, the same while the same features touch */
} proto_contact;
void proto_state_contact(proto_buf *b, int dim, const proto_contact *c, bool first_in_list);
void proto_state_contacts_end(proto_buf *b); /* "]" */

/* ---- events in `state` (an extension: `subscribe {events: true}`) ---- */

typedef enum proto_event_type {
    PROTO_EVENT_CONTACT_BEGIN, /* a, b (a < b) */
    PROTO_EVENT_CONTACT_END,
    PROTO_EVENT_HIT,          /* a, b, point, normal (from a toward b), speed */
    PROTO_EVENT_SENSOR_BEGIN, /* a: the sensor, b: the body */
    PROTO_EVENT_SENSOR_END,
    PROTO_EVENT_JOINT_BREAK, /* a: the joint */
    PROTO_EVENT_COUNT
} proto_event_type;
/* "contact_begin", "contact_end", "hit", "sensor_begin", "sensor_end", "joint_break". */
const char *proto_event_name(proto_event_type type);

typedef struct proto_event {
    proto_event_type type;
    uint64_t tick;
    uint64_t a, b;
    double point[3], normal[3]; /* a hit's */
    double speed;               /* a hit's, m/s */
} proto_event;
void proto_state_events_begin(proto_buf *b); /* `,"events":[` */
/* Appends one event: `{"type":"contact_begin","a":..,"b":..,"tick":..}`, a hit with its point,
 * normal and speed, a sensor's `{"type":..,"sensor":..,"body":..,"tick":..}`, a joint's
 * `{"type":"joint_break","joint":..,"tick":..}`; preceded by a comma unless first_in_list. */
void proto_state_event(proto_buf *b, int dim, const proto_event *e, bool first_in_list);
void proto_state_events_end(proto_buf *b); /* "]" */
/* Appends `,"dropped":N`: events the client was not sent (nothing when n == 0). */
void proto_state_dropped(proto_buf *b, uint64_t n);
/* Joints in `state` (extension): a joint's first sighting, `,"joints":[` + proto_state_joint
 * ... + "]", its type, bodies and anchors in each body's frame (b's: the world's when b is
 * 0); and `,"removed_joints":[...]` (nothing when n == 0) when it is gone. */
typedef struct proto_joint_state {
    uint64_t id;
    proto_joint_type type;
    uint64_t a, b;
    double local_a[3], local_b[3];
} proto_joint_state;
void proto_state_joints_begin(proto_buf *b);
void proto_state_joint(proto_buf *b, int dim, const proto_joint_state *j, bool first_in_list);
void proto_state_joints_end(proto_buf *b);
void proto_state_removed_joints(proto_buf *b, const uint64_t *ids, size_t n);
void proto_state_end(proto_buf *b); /* "}\n" */

/* Writes a shape as the protocol spells it: {"type":"aabb","half":[1,0.5]}. */
void proto_write_shape(proto_buf *b, int dim, const proto_shape *shape);
/* A level shape's fields after its type (level_shape.c): its geometry, or its key, bounds and
 * pieces when named. */
void proto_write_level_fields(proto_buf *b, const proto_shape *shape);

#endif
