/* Shared by the parser's files (parse.c, scan.c, fields.c, body_spec.c); not part of
 * mink_proto's public API. Each field reader returns PROTO_OK or fills `err` and returns its
 * code; `path` is the prefix that names the field in the message ("body.", "avatar.shape."). */
#ifndef MINK_PROTO_PARSE_INTERNAL_H
#define MINK_PROTO_PARSE_INTERNAL_H

#include "mink_proto.h"

#include <cjson/cJSON.h>

#if defined(__GNUC__)
#define PROTO_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PROTO_PRINTF(f, a)
#endif

/* The name at index i of a table of names (designated initialisers), or `none` past its end
 * or in a gap of it. */
#define PROTO_NAME_AT(table, i, none)                                                          \
    ((unsigned)(i) < sizeof(table) / sizeof *(table) && (table)[i] ? (table)[i] : (none))

proto_error_code proto_fail(proto_error *err, proto_error_code code, const char *fmt, ...)
    PROTO_PRINTF(3, 4);

/* ---- the raw line (scan.c) ---- */

/* NULL, or why the line is not JSON in a way cJSON would accept: nesting deeper than `limit`,
 * raw control characters. */
const char *proto_json_precheck(const char *s, size_t n, int limit);
/* `req` and `t`: the member's own text without whitespace outside strings, at most
 * PROTO_MAX_ECHO bytes. */
proto_error_code proto_get_echo(const char *line, size_t len, const cJSON *v, const char *key,
                                char *out, proto_error *err);

/* ---- fields (fields.c) ---- */

proto_error_code proto_get_number(const cJSON *obj, const char *key, const char *path,
                                  bool required, double lo, double hi, double *out,
                                  proto_error *err);
proto_error_code proto_get_id(const cJSON *obj, const char *key, bool required, bool *present,
                              uint64_t *out, proto_error *err);
proto_error_code proto_get_bool(const cJSON *obj, const char *key, bool *present, bool *out,
                                proto_error *err);
proto_error_code proto_get_string(const cJSON *obj, const char *key, const char *path, size_t max,
                                  char *out, proto_error *err);
proto_error_code proto_get_sizes(const cJSON *obj, const char *key, const char *path, int n,
                                 double *out, proto_error *err);
proto_error_code proto_get_points(const cJSON *obj, const char *path, int dim, int min_points,
                                  proto_shape *shape, proto_error *err);

/* ---- shapes and body specs (body_spec.c) ---- */

/* A shape and its placement; `levels`: whether a level shape (a body's alone) is taken. On a
 * failure the shape holds nothing on the heap. */
proto_error_code proto_parse_placed(const cJSON *json, int dim, const char *path, double *pos,
                                    double *rot, proto_shape *shape, bool levels,
                                    proto_error *err);
/* A level shape's fields (level_shape.c), its type already set; on a failure nothing is left
 * on the heap. */
proto_error_code proto_parse_level(const cJSON *json, int dim, const char *path, proto_shape *out,
                                   proto_error *err);
/* `rot` of obj: an angle in 2D, a quaternion in 3D (normalised); absent, the identity. */
proto_error_code proto_parse_rot(const cJSON *obj, int dim, const char *path, double *rot,
                                 proto_error *err);
proto_error_code proto_parse_spec(const cJSON *json, int dim, const char *path,
                                  proto_body_spec *out, proto_error *err);

/* ---- world queries (world_query.c) ---- */

proto_error_code proto_parse_world_query(const cJSON *root, int dim, proto_msg_type type,
                                         proto_world_query *out, proto_error *err);
/* An optional `mask` (a query's, an explosion's): a whole number in [1, 2^53]; absent, 0. */
proto_error_code proto_get_mask(const cJSON *root, uint64_t *out, proto_error *err);
/* `,"point":[..],"normal":[..]` of a hit (a ray's or cast's in `hits`, a `hit` event's), each
 * vector of dim numbers with its own decimals. */
void proto_write_point_normal(proto_buf *b, const double *point, int point_decimals,
                              const double *normal, int normal_decimals, int dim);

/* ---- acting on bodies: push, set, explode (motion.c) ---- */

proto_error_code proto_parse_motion(const cJSON *root, int dim, proto_msg *out, proto_error *err);

/* ---- a game's messages: action, emit (action.c) ---- */

proto_error_code proto_parse_action(const cJSON *root, proto_msg *out, proto_error *err);

#endif
