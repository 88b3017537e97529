/* What the files of mink_world_io share. */
#ifndef MINK_WORLD_IO_INTERNAL_H
#define MINK_WORLD_IO_INTERNAL_H

#include "mink_world_io.h"

/* The protocol and the world agree on how long a tag may be. */
_Static_assert(SIM_MAX_TAG == PROTO_MAX_TAG, "a body's tag has one size on the wire and in "
                                             "the world");
/* And on the events, listed in the same order (wio_event_to_proto). */
_Static_assert((int)SIM_EVENT_CONTACT_BEGIN == (int)PROTO_EVENT_CONTACT_BEGIN &&
                   (int)SIM_EVENT_CONTACT_END == (int)PROTO_EVENT_CONTACT_END &&
                   (int)SIM_EVENT_HIT == (int)PROTO_EVENT_HIT &&
                   (int)SIM_EVENT_SENSOR_BEGIN == (int)PROTO_EVENT_SENSOR_BEGIN &&
                   (int)SIM_EVENT_SENSOR_END == (int)PROTO_EVENT_SENSOR_END &&
                   (int)SIM_EVENT_JOINT_BREAK == (int)PROTO_EVENT_JOINT_BREAK &&
                   (int)SIM_EVENT_COUNT == (int)PROTO_EVENT_COUNT,
               "one list of events in the world and on the wire");

/* A vector into the protocol's three numbers (body.c). */
void wio_put3(double out[3], mk_vec3 v);

/* A protocol shape as the world collides it (shape.c). A polygon becomes its convex hull and a
 * hull its 3D hull, written into `polygon` or `hull`, which the shape then points to. Returns
 * 0, or -1 with `err` naming the field. */
int wio_shape2_from_proto(const proto_shape *in, col_shape2 *out, col_polygon *polygon,
                          mk_error *err);
int wio_shape3_from_proto(const proto_shape *in, col_shape3 *out, col_hull3 *hull, mk_error *err);

/* A body's spec fields, as a scene file and the protocol write them: "shape":{...},
 * "pos":[...], ... "tag":"..." with no braces (save.c). Numbers with 9 significant digits give
 * every float back exactly. */
void wio_write_body_fields(const sim_world *w, const sim_body *o, proto_buf *b);

/* wio_body_def_from_spec for a scene in folder `dir`, whose meshes may name their files
 * (NULL: none may). */
int wio_body_def_from_spec_in(const proto_body_spec *spec, int dim, const char *dir,
                              sim_body_def *out, mk_error *err);

/* The path of a level's file `rel` named in a scene in folder `dir` (levels.c), into out:
 * refused when it is absolute, has a ".." part, or (through a symbolic link) leaves the
 * folder, checked with realpath. 0, or -1 with `err`. */
int wio_level_path(const char *dir, const char *rel, char *out, size_t cap, mk_error *err);

/* A whole number in [lo, hi] in a scene or recording (scene.c). */
struct cJSON;
bool wio_json_whole_in(const struct cJSON *j, double lo, double hi);

/* A scene's `joints` (and a saved world's `free_joints`) added to w, their bodies named by
 * index in `bodies`, whose ids are ids[0..n) (joint.c); -1 with `err` naming the joint and
 * the field. */
int wio_scene_joints(sim_world *w, const struct cJSON *root, const sim_id *ids, int n,
                     mk_error *err);
/* A saved world's `,"joints":[...],"free_joints":[...]`: each joint with its id, its bodies
 * by index in the saved bodies, its settings and its frames (nothing without joints). */
void wio_write_scene_joints(const sim_world *w, proto_buf *b);

#endif
