/* A 3D shape seen from above (footprint.c): the outline a body covers on the ground plane,
 * what the top-down view of a 3D world fills and the prediction's reach is measured by. No
 * libuv and no terminal here. */
#ifndef MINK_CLI_FOOTPRINT_H
#define MINK_CLI_FOOTPRINT_H

#include <stdbool.h>

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

#endif
