/* mink-client's copy of the world and the shapes' outlines the view draws. No libuv and no
 * terminal here: world.c and footprint.c link with cJSON and libm only, so that a test can
 * drive them without a server. */
#ifndef MINK_CLI_WORLD_H
#define MINK_CLI_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mink_proto.h"

struct cJSON;

/* ---- footprint.c: a 3D shape seen from above ---- */

typedef enum cli_solid_type {
    CLI_SOLID_SPHERE,
    CLI_SOLID_BOX,
    CLI_SOLID_ELLIPSOID,
    CLI_SOLID_CAPSULE,
    CLI_SOLID_CYLINDER,
    CLI_SOLID_CONE,
    CLI_SOLID_HULL,
} cli_solid_type;

/* A 3D shape in body coordinates, m (PROTOCOL.md, "Shapes"). Capsule, cylinder and cone have
 * their axis along local y, the cone's apex at +half_height. */
typedef struct cli_solid {
    cli_solid_type type;
    double half[3];     /* box: half extents; ellipsoid: radii */
    double radius;      /* sphere, capsule, cylinder, cone */
    double half_height; /* capsule, cylinder, cone */
    double (*points)[3]; /* hull: the points as sent, owned (NULL otherwise) */
    int npoints;
} cli_solid;

/* A hull's footprint has at most as many corners as the hull has points. */
#define CLI_MAX_HULL 256
/* Directions at which a round shape's outline is sampled: a 64-gon is within 0.12 % of a
 * circle, far finer than a terminal cell. */
#define CLI_FOOTPRINT_SAMPLES 64
#define CLI_MAX_FOOTPRINT CLI_MAX_HULL

/* What a body covers on the ground plane: the convex outline of its shape projected on x-z,
 * and its extent in y. */
typedef struct cli_footprint {
    double pts[CLI_MAX_FOOTPRINT][2]; /* world (x, z), m, counter-clockwise in the x-z plane */
    int n;                            /* < 3 when the outline has no area (then use lo, hi) */
    double lo[2], hi[2];              /* world bounds of the outline: (x, z), m */
    double bottom, top;               /* world y of the lowest and highest point, m */
} cli_footprint;

/* Rotates v by the unit quaternion q = [x, y, z, w]. */
void cli_quat_rotate(const double q[4], const double v[3], double out[3]);
/* The outline of solid s placed at pos, turned by the unit quaternion q. Exact for a box and a
 * hull (the convex hull of their projected corners); a round shape's outline is the hull of
 * its extreme points in CLI_FOOTPRINT_SAMPLES directions, inscribed in the true outline. */
void cli_footprint_make(const cli_solid *s, const double pos[3], const double q[4],
                        cli_footprint *out);
/* Whether the ground point (x, z) lies inside the outline (its edges included). */
bool cli_footprint_contains(const cli_footprint *f, double x, double z);

/* ---- world.c: the bodies as the client last heard of them ---- */

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
    enum { CLI_SHAPE_BOX, CLI_SHAPE_CIRCLE, CLI_SHAPE_POLYGON } shape;
    double radius;      /* circle */
    double (*points)[2]; /* polygon: its hull, counter-clockwise, owned (NULL otherwise) */
    int npoints;
    cli_solid solid; /* 3D: the shape */
    proto_body_kind kind;
    uint32_t owner;
    /* The last state received, quantised (proto_quantise): the baseline a delta entry
     * (`subscribe {delta}`) is relative to, and its tick. */
    int64_t q[PROTO_Q_MAX];
    uint64_t q_tick;
    bool has_q;
} cli_body;

typedef struct cli_world {
    int dim; /* 2 or 3: how `state` is read; 2 until the welcome says otherwise */
    cli_body *bodies;
    size_t count, cap;
    uint32_t *index; /* open addressing: id -> bodies slot + 1, 0 empty */
    size_t index_cap;
    uint64_t tick, ack;
    uint64_t ack_tick; /* the tick whose step first applied input `ack` (0: not said) */
    uint32_t tick_hz; /* from the welcome: the ticks a delta body is extrapolated over */
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
/* An id, tick or seq: an integer in [0, 2^53]. False for anything else (absent included). */
bool cli_json_uint(const struct cJSON *j, uint64_t *out);

#endif
