/* mink-client's copy of the world: the bodies as the client last heard of them, with the
 * outlines of their shapes the view draws (a 3D shape's from footprint.h). No libuv and no
 * terminal here: world.c and footprint.c link with cJSON and libm only, so that a test can
 * drive them without a server. */
#ifndef MINK_CLI_WORLD_H
#define MINK_CLI_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "footprint.h"
#include "mink_proto.h"

struct cJSON;

typedef struct cli_body {
    uint64_t id;
    double pos[3], vel[3]; /* m, m/s; z is 0 in a 2D world */
    double rot;            /* 2D: rad, counter-clockwise */
    double quat[4];        /* 3D: the orientation, a unit quaternion [x, y, z, w] */
    double spin[3];        /* angular velocity, rad/s: 3D a vector, 2D spin[0] */
    /* 2D: the shape's bounds in body coordinates, m, what the view draws; a box or a polygon
     * is turned by rot first, an aabb or a circle is not. */
    double lo[2], hi[2];
    bool has_shape, turns;
    /* 2D: what the view fills: the cells whose centres lie inside the shape. */
    enum { CLI_SHAPE_BOX, CLI_SHAPE_CIRCLE, CLI_SHAPE_POLYGON, CLI_SHAPE_LINES } shape;
    double radius;      /* circle */
    double (*points)[2]; /* polygon: its hull, counter-clockwise; lines: the points of a level
                          * (level.c); owned (NULL otherwise) */
    int npoints;
    bool loop;          /* lines: the last point joins the first */
    cli_solid solid; /* 3D: the shape */
    proto_body_kind kind;
    uint32_t owner;
    /* The last state received, quantised (proto_quantise): the baseline a delta entry
     * (`subscribe {delta}`) is relative to, and its tick. */
    int64_t q[PROTO_Q_MAX];
    uint64_t q_tick;
    bool has_q;
} cli_body;

/* A joint as `state` first shows it (an extension): its bodies (b 0: the world) and its
 * anchor in each body's frame (b's in the world's when b is 0), m. */
typedef struct cli_joint {
    uint64_t id, a, b;
    double local_a[3], local_b[3];
} cli_joint;

typedef struct cli_world {
    int dim; /* 2 or 3: how `state` is read; 2 until the welcome says otherwise */
    cli_body *bodies;
    size_t count, cap;
    uint32_t *index; /* open addressing: id -> bodies slot + 1, 0 empty */
    size_t index_cap;
    uint64_t tick, ack;
    uint64_t ack_tick; /* the tick whose step first applied input `ack` (0: not said) */
    uint32_t tick_hz; /* from the welcome: the ticks a delta body is extrapolated over */
    cli_joint *joints; /* those seen and not yet removed, owned */
    size_t njoints, joints_cap;
} cli_world;

void cli_world_init(cli_world *w);
void cli_world_free(cli_world *w);
cli_body *cli_world_find(cli_world *w, uint64_t id);
/* Whether the world point (x, y) lies inside the body's shape (2D). */
bool cli_body_contains(const cli_body *b, double x, double y);
/* A 2D polygon has at most this many vertices (PROTOCOL.md: the hull of its points). */
#define CLI_MAX_POLYGON 64
/* Applies a `state` message. Returns false when it is malformed; what could be read of it is
 * kept. */
bool cli_world_apply(cli_world *w, const struct cJSON *state);
/* The world-space box around a body, m (2D). */
void cli_body_bounds(const cli_body *b, double lo[2], double hi[2]);
/* The footprint of a 3D body with a shape. */
void cli_body_footprint(const cli_body *b, cli_footprint *out);
/* Level bodies (level.c): a 2D level as lines, a 3D one as the hull its footprint is made
 * from; false when the shape has nothing to draw. Whether (x, y), in the body's frame, lies on
 * a body's lines. */
bool cli_level_shape2(cli_body *b, const proto_shape *s);
bool cli_level_shape3(cli_body *b, const proto_shape *s);
bool cli_lines_contain(const cli_body *b, double x, double y);
/* An id, tick or seq: an integer in [0, 2^53]. False for anything else (absent included). */
bool cli_json_uint(const struct cJSON *j, uint64_t *out);

#endif
