/* The embedded 3D demo scene (`--scene demo3d`, or `--dim 3` alone): a floor with walls, a
 * ramp to walk up, platforms at jumping height, a tower of cubes, a small pyramid, and one
 * body of every 3D shape falling, rolling and tumbling onto the floor. */
#include "world_io_internal.h"

const char wio_demo_scene3[] =
    "{\"dim\":3,\"gravity\":[0,-10,0],\"bodies\":["
    /* the floor (top at y = 0) and four walls */
    "{\"shape\":{\"type\":\"box\",\"half\":[20,0.5,20]},\"pos\":[0,-0.5,0],\"kind\":\"static\","
    "\"tag\":\"ground\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,2,20]},\"pos\":[-20.5,1.5,0],"
    "\"kind\":\"static\",\"tag\":\"wall\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,2,20]},\"pos\":[20.5,1.5,0],"
    "\"kind\":\"static\",\"tag\":\"wall\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[20,2,0.5]},\"pos\":[0,1.5,-20.5],"
    "\"kind\":\"static\",\"tag\":\"wall\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[20,2,0.5]},\"pos\":[0,1.5,20.5],"
    "\"kind\":\"static\",\"tag\":\"wall\"},"
    /* a 20 degree ramp up to a platform, and a step platform at jumping height */
    "{\"shape\":{\"type\":\"box\",\"half\":[3,0.2,2]},\"pos\":[-10,1.0,-8],"
    "\"rot\":[0,0,0.17364818,0.98480775],\"kind\":\"static\",\"tag\":\"ramp\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[2,1,2]},\"pos\":[-5.2,1,-8],\"kind\":\"static\","
    "\"tag\":\"platform\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[1.5,0.5,1.5]},\"pos\":[6,0.5,-8],"
    "\"kind\":\"static\",\"tag\":\"platform\"},"
    /* a tower of five crates */
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},\"pos\":[4,0.5,4],\"tag\":\"crate\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},\"pos\":[4,1.5,4],\"tag\":\"crate\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},\"pos\":[4,2.5,4],\"tag\":\"crate\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},\"pos\":[4,3.5,4],\"tag\":\"crate\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},\"pos\":[4,4.5,4],\"tag\":\"crate\"},"
    /* a pyramid of 2 x 2 + 1 crates */
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},\"pos\":[-4,0.5,5],\"tag\":\"crate\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},\"pos\":[-2.95,0.5,5],"
    "\"tag\":\"crate\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},\"pos\":[-4,0.5,6.05],"
    "\"tag\":\"crate\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},\"pos\":[-2.95,0.5,6.05],"
    "\"tag\":\"crate\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},\"pos\":[-3.475,1.5,5.525],"
    "\"tag\":\"crate\"},"
    /* one of every shape, dropped */
    "{\"shape\":{\"type\":\"sphere\",\"radius\":0.5},\"pos\":[-9,3.2,-8],\"friction\":0.3,"
    "\"tag\":\"ball\"},"
    "{\"shape\":{\"type\":\"ellipsoid\",\"radii\":[0.7,0.4,0.5]},\"pos\":[8,3,2],"
    "\"tag\":\"egg\"},"
    "{\"shape\":{\"type\":\"capsule\",\"radius\":0.3,\"half_height\":0.6},\"pos\":[10,2,6],"
    "\"rot\":[0,0,0.70710678,0.70710678],\"tag\":\"log\"},"
    "{\"shape\":{\"type\":\"cylinder\",\"radius\":0.5,\"half_height\":0.5},\"pos\":[0,4,8],"
    "\"tag\":\"barrel\"},"
    "{\"shape\":{\"type\":\"cone\",\"radius\":0.6,\"half_height\":0.6},\"pos\":[-8,2,10],"
    "\"tag\":\"cone\"},"
    "{\"shape\":{\"type\":\"hull\",\"points\":[[0,0.8,0],[0.7,0,0],[-0.35,0,0.6],"
    "[-0.35,0,-0.6],[0,-0.5,0]]},\"pos\":[6,5,-8],\"tag\":\"gem\"},"
    "{\"shape\":{\"type\":\"box\",\"half\":[0.4,0.4,0.4]},\"pos\":[-12,6,2],"
    "\"rot\":[0.3,0.2,0.1,0.9],\"restitution\":0.5,\"tag\":\"crate\"}"
    "]}";
