/* mink_proto parsing: every client message into its struct with the optional fields filled with
 * their defaults, and every way a line can be refused with the code PROTOCOL.md gives it:
 * bad_json (not UTF-8, not JSON, too deep), bad_request (not an object, no string `type`, a
 * field missing, of the wrong JSON type, not finite, out of range, of the wrong length or shape
 * for the world's dim) and unknown_type. A refused message names the field that is wrong and
 * echoes the `req` it carried. */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mink_proto.h"
#include "check_main.h"

/* The parser fills these; they are poisoned before each parse so that a field the parser
 * forgets to fill does not pass by luck. */
static proto_msg msg;
static proto_error err;
static char linebuf[80 * 1024];

/* Parses a copy of exactly `len` bytes with no terminator after them, as the framer hands a
 * line in place: reading past `len` is a bug the sanitizer catches. */
static proto_error_code parse_n(int dim, const char *line, size_t len)
{
    char *copy = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, line, len);
    memset(&msg, 0x55, sizeof msg);
    memset(&err, 0x55, sizeof err);
    proto_error_code rc = proto_parse(copy, len, dim, &msg, &err);
    free(copy);
    if (rc != PROTO_OK) {
        ck_assert_msg(memchr(err.message, '\0', sizeof err.message) != NULL,
                      "error message not terminated");
        if (msg.has_req)
            ck_assert_msg(memchr(msg.req, '\0', sizeof msg.req) != NULL, "req not terminated");
    }
    return rc;
}

static proto_error_code parse(int dim, const char *line)
{
    return parse_n(dim, line, strlen(line));
}

/* The line for a failure message, with control and non-ASCII bytes as \xNN. */
static const char *printable(const char *line)
{
    static char out[256];
    size_t at = 0;
    for (const unsigned char *p = (const unsigned char *)line; *p && at + 5 < sizeof out; p++) {
        if (*p < 0x20 || *p >= 0x7f)
            at += (size_t)snprintf(out + at, sizeof out - at, "\\x%02x", *p);
        else
            out[at++] = (char)*p;
    }
    out[at] = '\0';
    return out;
}

#define LINE_TEXT(n) #n
#define AT_LINE(n) "line " LINE_TEXT(n)
#define EXPECT_OK(dim, line) expect_ok(AT_LINE(__LINE__), dim, line)
#define EXPECT_ERR(dim, line, code, path) expect_err(AT_LINE(__LINE__), dim, line, code, path)

/* `where` names the case in a failure message: its line, or its table and index. */
static void expect_ok(const char *where, int dim, const char *line)
{
    proto_error_code rc = parse(dim, line);
    ck_assert_msg(rc == PROTO_OK, "%s: %s (dim %d) refused: %s: %s", where, printable(line),
                  dim, proto_error_name(rc), err.message);
}

/* `path`, when given, must appear in the error message (the field the message names). */
static void expect_err(const char *where, int dim, const char *line, proto_error_code code,
                       const char *path)
{
    proto_error_code rc = parse(dim, line);
    ck_assert_msg(rc == code, "%s: %s (dim %d): got %s, expected %s (message: %s)", where,
                  printable(line), dim, proto_error_name(rc), proto_error_name(code),
                  rc != PROTO_OK ? err.message : "none");
    ck_assert_int_eq(err.code, code);
    if (path)
        ck_assert_msg(strstr(err.message, path) != NULL,
                      "%s: %s: message \"%s\" does not name \"%s\"", where, printable(line),
                      err.message, path);
}

/* A spawn line around a body spec. */
static const char *spawn(const char *body)
{
    int n = snprintf(linebuf, sizeof linebuf, "{\"type\":\"spawn\",\"body\":%s}", body);
    ck_assert(n > 0 && (size_t)n < sizeof linebuf);
    return linebuf;
}

/* A 2D body spec around a shape, at the origin. */
static const char *spawn_shape(const char *shape)
{
    static char body[70 * 1024];
    int n = snprintf(body, sizeof body, "{\"shape\":%s,\"pos\":[0,0]}", shape);
    ck_assert(n > 0 && (size_t)n < sizeof body);
    return spawn(body);
}

/* The same in 3D. */
static const char *spawn_shape3(const char *shape)
{
    static char body[70 * 1024];
    int n = snprintf(body, sizeof body, "{\"shape\":%s,\"pos\":[0,0,0]}", shape);
    ck_assert(n > 0 && (size_t)n < sizeof body);
    return spawn(body);
}

/* A 2D circle body at the origin with `fields` appended (a pos among them replaces the
 * origin: a later key with the same name would be ambiguous). */
static const char *circle_with(const char *fields)
{
    static char body[512];
    if (strncmp(fields, ",\"pos\"", 6) == 0)
        snprintf(body, sizeof body, "{\"shape\":{\"type\":\"circle\",\"radius\":1}%s}", fields);
    else
        snprintf(body, sizeof body,
                 "{\"shape\":{\"type\":\"circle\",\"radius\":1},\"pos\":[0,0]%s}", fields);
    return spawn(body);
}

/* A line checked by its code alone: its text as written (LINE), as the body of a spawn (BODY),
 * as the shape of a 2D or 3D body at the origin (SHAPE2, SHAPE3) or as fields appended to a 2D
 * circle body at the origin (FIELDS2), parsed in a world of `dim`. A refused one has the code
 * and the field its message must name (NULL: none asked). */
typedef enum { LINE, BODY, SHAPE2, SHAPE3, FIELDS2 } wrap;
typedef struct good_case {
    int dim;
    wrap as;
    const char *text;
} good_case;
typedef struct bad_case {
    int dim;
    wrap as;
    const char *text;
    proto_error_code code;
    const char *path;
} bad_case;

static const char *case_line(wrap as, const char *text)
{
    switch (as) {
    case BODY: return spawn(text);
    case SHAPE2: return spawn_shape(text);
    case SHAPE3: return spawn_shape3(text);
    case FIELDS2: return circle_with(text);
    case LINE: break;
    }
    return text;
}

/* A failure names the table and the case's index (and prints its line). */
static void expect_ok_case(const char *table, size_t i, const good_case *c)
{
    char where[64];
    snprintf(where, sizeof where, "%s[%zu]", table, i);
    expect_ok(where, c->dim, case_line(c->as, c->text));
}

/* A polygon or hull shape with n points of `dim` components, on a circle so that they are
 * distinct. */
static const char *points_shape(const char *type, int n, int dim)
{
    static char shape[64 * 1024];
    size_t at = (size_t)snprintf(shape, sizeof shape, "{\"type\":\"%s\",\"points\":[", type);
    for (int i = 0; i < n; i++) {
        double a = 6.283185307179586 * i / n;
        if (dim == 2)
            at += (size_t)snprintf(shape + at, sizeof shape - at, "%s[%.6f,%.6f]",
                                   i ? "," : "", cos(a), sin(a));
        else
            at += (size_t)snprintf(shape + at, sizeof shape - at, "%s[%.6f,%.6f,%.6f]",
                                   i ? "," : "", cos(a), sin(a), (i % 2) ? 0.5 : -0.5);
        ck_assert_uint_lt(at, sizeof shape - 64);
    }
    snprintf(shape + at, sizeof shape - at, "]}");
    return shape;
}

/* A body spec's kind, density, friction, restitution, max_speed, jump_height and tag. */
static void assert_fields(const proto_body_spec *b, proto_body_kind kind, double density,
                          double friction, double restitution, double max_speed,
                          double jump_height, const char *tag)
{
    ck_assert_int_eq(b->kind, kind);
    ck_assert_double_eq(b->density, density);
    ck_assert_double_eq(b->friction, friction);
    ck_assert_double_eq(b->restitution, restitution);
    ck_assert_double_eq(b->max_speed, max_speed);
    ck_assert_double_eq(b->jump_height, jump_height);
    ck_assert_str_eq(b->tag, tag);
}

/* The defaults of the fields a body spec leaves out, but its rotation and velocity. */
static void assert_field_defaults(const proto_body_spec *b)
{
    assert_fields(b, PROTO_KIND_DYNAMIC, 1.0, 0.6, 0.0, 5.0, 1.5, "");
}

static void assert_defaults_2d(const proto_body_spec *b)
{
    ck_assert_double_eq(b->rot[0], 0.0);
    ck_assert_double_eq(b->vel[0], 0.0);
    ck_assert_double_eq(b->vel[1], 0.0);
    assert_field_defaults(b);
}

static void assert_defaults_3d(const proto_body_spec *b)
{
    /* The identity quaternion, [x, y, z, w] in glTF order. */
    ck_assert_double_eq(b->rot[0], 0.0);
    ck_assert_double_eq(b->rot[1], 0.0);
    ck_assert_double_eq(b->rot[2], 0.0);
    ck_assert_double_eq(b->rot[3], 1.0);
    for (int i = 0; i < 3; i++) ck_assert_double_eq(b->vel[i], 0.0);
    assert_field_defaults(b);
}

/* ---- messages ---- */

START_TEST(hello_2d_with_avatar_gets_defaults)
{
    EXPECT_OK(2, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"ann\",\"avatar\":{\"shape\":"
                 "{\"type\":\"circle\",\"radius\":0.5},\"pos\":[1,2]}}");
    ck_assert_int_eq(msg.type, PROTO_MSG_HELLO);
    ck_assert_int_eq(msg.u.hello.protocol, 1);
    ck_assert_str_eq(msg.u.hello.name, "ann");
    ck_assert(msg.has_req == false);
    ck_assert(msg.u.hello.has_avatar);
    const proto_body_spec *b = &msg.u.hello.avatar;
    ck_assert_int_eq(b->shape.type, PROTO_SHAPE_CIRCLE);
    ck_assert_double_eq(b->shape.radius, 0.5);
    ck_assert_double_eq(b->pos[0], 1.0);
    ck_assert_double_eq(b->pos[1], 2.0);
    assert_defaults_2d(b);
}
END_TEST

START_TEST(hello_3d_with_avatar_gets_identity_rotation)
{
    EXPECT_OK(3, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"bo\",\"avatar\":{\"shape\":"
                 "{\"type\":\"capsule\",\"radius\":0.4,\"half_height\":0.9},\"pos\":[1,2,3],"
                 "\"kind\":\"character\"}}");
    ck_assert_int_eq(msg.type, PROTO_MSG_HELLO);
    ck_assert_int_eq(msg.u.hello.protocol, 1);
    ck_assert_str_eq(msg.u.hello.name, "bo");
    ck_assert(msg.u.hello.has_avatar);
    proto_body_spec b = msg.u.hello.avatar;
    ck_assert_int_eq(b.shape.type, PROTO_SHAPE_CAPSULE);
    ck_assert_double_eq(b.shape.radius, 0.4);
    ck_assert_double_eq(b.shape.half_height, 0.9);
    ck_assert_double_eq(b.pos[0], 1.0);
    ck_assert_double_eq(b.pos[1], 2.0);
    ck_assert_double_eq(b.pos[2], 3.0);
    b.kind = PROTO_KIND_DYNAMIC; /* checked apart: it was given */
    ck_assert_int_eq(msg.u.hello.avatar.kind, PROTO_KIND_CHARACTER);
    assert_defaults_3d(&b);
}
END_TEST

START_TEST(hello_without_avatar)
{
    EXPECT_OK(2, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"watcher\"}");
    ck_assert_int_eq(msg.type, PROTO_MSG_HELLO);
    ck_assert_int_eq(msg.u.hello.protocol, 1);
    ck_assert_str_eq(msg.u.hello.name, "watcher");
    ck_assert(msg.u.hello.has_avatar == false);

    /* A name of exactly PROTO_MAX_NAME bytes is kept whole; escapes are decoded to UTF-8. */
    char name[PROTO_MAX_NAME + 1];
    memset(name, 'n', PROTO_MAX_NAME);
    name[PROTO_MAX_NAME] = '\0';
    snprintf(linebuf, sizeof linebuf, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"%s\"}", name);
    EXPECT_OK(2, linebuf);
    ck_assert_str_eq(msg.u.hello.name, name);
    EXPECT_OK(2, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"h\\u00e9\\ud83d\\ude00\"}");
    ck_assert_str_eq(msg.u.hello.name, "h\xc3\xa9\xf0\x9f\x98\x80");
    EXPECT_OK(2, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"h\xc3\xa9\"}");
    ck_assert_str_eq(msg.u.hello.name, "h\xc3\xa9");
    ck_assert_str_eq(msg.u.hello.token, "");

    /* A connect token is a string of at most PROTO_MAX_TOKEN bytes, kept as sent. */
    EXPECT_OK(2, "{\"type\":\"hello\",\"protocol\":1,\"token\":\"v1.abc.def\"}");
    ck_assert_str_eq(msg.u.hello.token, "v1.abc.def");
    char token[PROTO_MAX_TOKEN + 2];
    memset(token, 't', PROTO_MAX_TOKEN);
    token[PROTO_MAX_TOKEN] = '\0';
    snprintf(linebuf, sizeof linebuf, "{\"type\":\"hello\",\"protocol\":1,\"token\":\"%s\"}",
             token);
    EXPECT_OK(2, linebuf);
    ck_assert_uint_eq(strlen(msg.u.hello.token), PROTO_MAX_TOKEN);
    strcat(token, "t");
    snprintf(linebuf, sizeof linebuf, "{\"type\":\"hello\",\"protocol\":1,\"token\":\"%s\"}",
             token);
    EXPECT_ERR(2, linebuf, PROTO_ERR_BAD_REQUEST, "token");
}
END_TEST

START_TEST(spawn_2d_with_every_field)
{
    EXPECT_OK(2, "{\"type\":\"spawn\",\"req\":7,\"body\":{\"shape\":{\"type\":\"box\","
                 "\"half\":[1,0.5]},\"pos\":[-3,4.25],\"rot\":0.25,\"vel\":[1,-2],"
                 "\"kind\":\"kinematic\",\"density\":2.5,\"friction\":0.25,\"restitution\":0.5,"
                 "\"max_speed\":7,\"jump_height\":3,\"tag\":\"crate\"}}");
    ck_assert_int_eq(msg.type, PROTO_MSG_SPAWN);
    ck_assert(msg.has_req);
    ck_assert_str_eq(msg.req, "7");
    const proto_body_spec *b = &msg.u.spawn.body;
    ck_assert_int_eq(b->shape.type, PROTO_SHAPE_BOX);
    ck_assert_double_eq(b->shape.half[0], 1.0);
    ck_assert_double_eq(b->shape.half[1], 0.5);
    ck_assert_double_eq(b->pos[0], -3.0);
    ck_assert_double_eq(b->pos[1], 4.25);
    ck_assert_double_eq(b->rot[0], 0.25);
    ck_assert_double_eq(b->vel[0], 1.0);
    ck_assert_double_eq(b->vel[1], -2.0);
    assert_fields(b, PROTO_KIND_KINEMATIC, 2.5, 0.25, 0.5, 7.0, 3.0, "crate");
}
END_TEST

START_TEST(spawn_2d_shapes)
{
    EXPECT_OK(2, spawn_shape("{\"type\":\"aabb\",\"half\":[2,0.125]}"));
    ck_assert_int_eq(msg.u.spawn.body.shape.type, PROTO_SHAPE_AABB);
    ck_assert_double_eq(msg.u.spawn.body.shape.half[0], 2.0);
    ck_assert_double_eq(msg.u.spawn.body.shape.half[1], 0.125);
    assert_defaults_2d(&msg.u.spawn.body);

    EXPECT_OK(2, spawn_shape("{\"type\":\"circle\",\"radius\":0.75}"));
    ck_assert_int_eq(msg.u.spawn.body.shape.type, PROTO_SHAPE_CIRCLE);
    ck_assert_double_eq(msg.u.spawn.body.shape.radius, 0.75);

    EXPECT_OK(2, spawn_shape("{\"type\":\"polygon\",\"points\":[[0,0],[2,0],[0,1.5]]}"));
    const proto_shape *s = &msg.u.spawn.body.shape;
    ck_assert_int_eq(s->type, PROTO_SHAPE_POLYGON);
    ck_assert_int_eq(s->npoints, 3);
    ck_assert_double_eq(s->points[0][0], 0.0);
    ck_assert_double_eq(s->points[0][1], 0.0);
    ck_assert_double_eq(s->points[1][0], 2.0);
    ck_assert_double_eq(s->points[1][1], 0.0);
    ck_assert_double_eq(s->points[2][0], 0.0);
    ck_assert_double_eq(s->points[2][1], 1.5);

    /* Kinds by name. */
    EXPECT_OK(2, spawn("{\"shape\":{\"type\":\"circle\",\"radius\":1},\"pos\":[0,0],"
                       "\"kind\":\"static\"}"));
    ck_assert_int_eq(msg.u.spawn.body.kind, PROTO_KIND_STATIC);
    EXPECT_OK(2, spawn("{\"shape\":{\"type\":\"circle\",\"radius\":1},\"pos\":[0,0],"
                       "\"kind\":\"character\"}"));
    ck_assert_int_eq(msg.u.spawn.body.kind, PROTO_KIND_CHARACTER);
    EXPECT_OK(2, spawn("{\"shape\":{\"type\":\"circle\",\"radius\":1},\"pos\":[0,0],"
                       "\"kind\":\"dynamic\"}"));
    ck_assert_int_eq(msg.u.spawn.body.kind, PROTO_KIND_DYNAMIC);
}
END_TEST

START_TEST(spawn_3d_shapes)
{
    EXPECT_OK(3, spawn_shape3("{\"type\":\"sphere\",\"radius\":2}"));
    ck_assert_int_eq(msg.type, PROTO_MSG_SPAWN);
    ck_assert_int_eq(msg.u.spawn.body.shape.type, PROTO_SHAPE_SPHERE);
    ck_assert_double_eq(msg.u.spawn.body.shape.radius, 2.0);
    assert_defaults_3d(&msg.u.spawn.body);

    EXPECT_OK(3, spawn_shape3("{\"type\":\"box\",\"half\":[1,2,3]}"));
    ck_assert_int_eq(msg.u.spawn.body.shape.type, PROTO_SHAPE_BOX);
    ck_assert_double_eq(msg.u.spawn.body.shape.half[0], 1.0);
    ck_assert_double_eq(msg.u.spawn.body.shape.half[1], 2.0);
    ck_assert_double_eq(msg.u.spawn.body.shape.half[2], 3.0);

    EXPECT_OK(3, spawn_shape3("{\"type\":\"ellipsoid\",\"radii\":[1,2,0.5]}"));
    ck_assert_int_eq(msg.u.spawn.body.shape.type, PROTO_SHAPE_ELLIPSOID);
    ck_assert_double_eq(msg.u.spawn.body.shape.radii[0], 1.0);
    ck_assert_double_eq(msg.u.spawn.body.shape.radii[1], 2.0);
    ck_assert_double_eq(msg.u.spawn.body.shape.radii[2], 0.5);

    EXPECT_OK(3, spawn_shape3("{\"type\":\"capsule\",\"radius\":0.5,\"half_height\":1}"));
    ck_assert_int_eq(msg.u.spawn.body.shape.type, PROTO_SHAPE_CAPSULE);
    ck_assert_double_eq(msg.u.spawn.body.shape.radius, 0.5);
    ck_assert_double_eq(msg.u.spawn.body.shape.half_height, 1.0);

    EXPECT_OK(3, spawn_shape3("{\"type\":\"cylinder\",\"radius\":1,\"half_height\":2}"));
    ck_assert_int_eq(msg.u.spawn.body.shape.type, PROTO_SHAPE_CYLINDER);
    ck_assert_double_eq(msg.u.spawn.body.shape.radius, 1.0);
    ck_assert_double_eq(msg.u.spawn.body.shape.half_height, 2.0);

    EXPECT_OK(3, spawn_shape3("{\"type\":\"cone\",\"radius\":1.5,\"half_height\":0.75}"));
    ck_assert_int_eq(msg.u.spawn.body.shape.type, PROTO_SHAPE_CONE);
    ck_assert_double_eq(msg.u.spawn.body.shape.radius, 1.5);
    ck_assert_double_eq(msg.u.spawn.body.shape.half_height, 0.75);

    EXPECT_OK(3, spawn_shape3("{\"type\":\"hull\",\"points\":[[0,0,0],[1,0,0],[0,1,0],"
                              "[0,0,-1]]}"));
    const proto_shape *s = &msg.u.spawn.body.shape;
    ck_assert_int_eq(s->type, PROTO_SHAPE_HULL);
    ck_assert_int_eq(s->npoints, 4);
    ck_assert_double_eq(s->points[1][0], 1.0);
    ck_assert_double_eq(s->points[2][1], 1.0);
    ck_assert_double_eq(s->points[3][2], -1.0);
    ck_assert_double_eq(s->points[3][0], 0.0);

    /* Every field given in 3D. */
    EXPECT_OK(3, spawn("{\"shape\":{\"type\":\"sphere\",\"radius\":1},\"pos\":[1,-2,3],"
                       "\"rot\":[0,0.6,0,0.8],\"vel\":[0.5,0,-0.25],\"tag\":\"ball\"}"));
    const proto_body_spec *b = &msg.u.spawn.body;
    ck_assert_double_eq(b->pos[2], 3.0);
    ck_assert_double_eq_tol(b->rot[0], 0.0, 1e-12);
    ck_assert_double_eq_tol(b->rot[1], 0.6, 1e-12);
    ck_assert_double_eq_tol(b->rot[2], 0.0, 1e-12);
    ck_assert_double_eq_tol(b->rot[3], 0.8, 1e-12);
    ck_assert_double_eq(b->vel[0], 0.5);
    ck_assert_double_eq(b->vel[2], -0.25);
    ck_assert_str_eq(b->tag, "ball");
}
END_TEST

START_TEST(quaternion_is_normalised)
{
    EXPECT_OK(3, spawn("{\"shape\":{\"type\":\"sphere\",\"radius\":1},\"pos\":[0,0,0],"
                       "\"rot\":[0,0,0,2]}"));
    ck_assert_double_eq_tol(msg.u.spawn.body.rot[0], 0.0, 1e-12);
    ck_assert_double_eq_tol(msg.u.spawn.body.rot[1], 0.0, 1e-12);
    ck_assert_double_eq_tol(msg.u.spawn.body.rot[2], 0.0, 1e-12);
    ck_assert_double_eq_tol(msg.u.spawn.body.rot[3], 1.0, 1e-12);

    /* |(0, 3, 0, 4)| = 5. */
    EXPECT_OK(3, spawn("{\"shape\":{\"type\":\"sphere\",\"radius\":1},\"pos\":[0,0,0],"
                       "\"rot\":[0,3,0,4]}"));
    ck_assert_double_eq_tol(msg.u.spawn.body.rot[1], 0.6, 1e-12);
    ck_assert_double_eq_tol(msg.u.spawn.body.rot[3], 0.8, 1e-12);

    /* |(1, 1, 1, 1)| = 2. */
    EXPECT_OK(3, spawn("{\"shape\":{\"type\":\"sphere\",\"radius\":1},\"pos\":[0,0,0],"
                       "\"rot\":[-1,1,-1,1]}"));
    ck_assert_double_eq_tol(msg.u.spawn.body.rot[0], -0.5, 1e-12);
    ck_assert_double_eq_tol(msg.u.spawn.body.rot[1], 0.5, 1e-12);
    ck_assert_double_eq_tol(msg.u.spawn.body.rot[2], -0.5, 1e-12);
    ck_assert_double_eq_tol(msg.u.spawn.body.rot[3], 0.5, 1e-12);
}
END_TEST

START_TEST(despawn)
{
    EXPECT_OK(2, "{\"type\":\"despawn\",\"req\":\"x\",\"id\":42}");
    ck_assert_int_eq(msg.type, PROTO_MSG_DESPAWN);
    ck_assert(msg.has_req);
    ck_assert_str_eq(msg.req, "\"x\"");
    ck_assert_uint_eq(msg.u.despawn.id, 42);

    EXPECT_OK(3, "{\"type\":\"despawn\",\"id\":0}");
    ck_assert(msg.has_req == false);
    ck_assert_uint_eq(msg.u.despawn.id, 0);

    /* 2^53, the largest id. */
    EXPECT_OK(2, "{\"type\":\"despawn\",\"id\":9007199254740992}");
    ck_assert_uint_eq(msg.u.despawn.id, UINT64_C(9007199254740992));
}
END_TEST

START_TEST(input)
{
    EXPECT_OK(2, "{\"type\":\"input\",\"seq\":5,\"move\":[0.5,-1]}");
    ck_assert_int_eq(msg.type, PROTO_MSG_INPUT);
    ck_assert_uint_eq(msg.u.input.seq, 5);
    ck_assert(msg.u.input.has_id == false);
    ck_assert_double_eq(msg.u.input.move[0], 0.5);
    ck_assert_double_eq(msg.u.input.move[1], -1.0);
    ck_assert(msg.u.input.jump == false);

    EXPECT_OK(2, "{\"type\":\"input\",\"seq\":6,\"id\":12,\"move\":[0,1],\"jump\":true}");
    ck_assert_uint_eq(msg.u.input.seq, 6);
    ck_assert(msg.u.input.has_id);
    ck_assert_uint_eq(msg.u.input.id, 12);
    ck_assert(msg.u.input.jump);

    EXPECT_OK(2, "{\"type\":\"input\",\"seq\":7,\"move\":[0,0],\"jump\":false}");
    ck_assert(msg.u.input.jump == false);

    EXPECT_OK(3, "{\"type\":\"input\",\"seq\":0,\"move\":[0.25,0,-0.75]}");
    ck_assert_uint_eq(msg.u.input.seq, 0);
    ck_assert_double_eq(msg.u.input.move[0], 0.25);
    ck_assert_double_eq(msg.u.input.move[1], 0.0);
    ck_assert_double_eq(msg.u.input.move[2], -0.75);

    EXPECT_OK(2, "{\"type\":\"input\",\"seq\":9007199254740992,\"move\":[1,-1]}");
    ck_assert_uint_eq(msg.u.input.seq, UINT64_C(9007199254740992));
    ck_assert(msg.u.input.has_tick == false);

    /* the step to apply it from (an extension) */
    EXPECT_OK(2, "{\"type\":\"input\",\"seq\":8,\"tick\":12345,\"move\":[1,0]}");
    ck_assert(msg.u.input.has_tick);
    ck_assert_uint_eq(msg.u.input.tick, 12345);
}
END_TEST

START_TEST(query_2d_and_3d)
{
    EXPECT_OK(2, "{\"type\":\"query\",\"req\":{\"id\": \"q1\"},\"a\":{\"shape\":{\"type\":"
                 "\"circle\",\"radius\":1},\"pos\":[0,0]},\"b\":{\"shape\":{\"type\":\"aabb\","
                 "\"half\":[1,2]},\"pos\":[1.5,-0.5],\"rot\":0.5}}");
    ck_assert_int_eq(msg.type, PROTO_MSG_QUERY);
    ck_assert(msg.has_req);
    ck_assert_str_eq(msg.req, "{\"id\":\"q1\"}");
    const proto_placed_shape *a = &msg.u.query.a, *b = &msg.u.query.b;
    ck_assert_int_eq(a->shape.type, PROTO_SHAPE_CIRCLE);
    ck_assert_double_eq(a->shape.radius, 1.0);
    ck_assert_double_eq(a->pos[0], 0.0);
    ck_assert_double_eq(a->pos[1], 0.0);
    ck_assert_double_eq(a->rot[0], 0.0);
    ck_assert_int_eq(b->shape.type, PROTO_SHAPE_AABB);
    ck_assert_double_eq(b->shape.half[1], 2.0);
    ck_assert_double_eq(b->pos[0], 1.5);
    ck_assert_double_eq(b->pos[1], -0.5);
    ck_assert_double_eq(b->rot[0], 0.5);

    EXPECT_OK(3, "{\"type\":\"query\",\"a\":{\"shape\":{\"type\":\"sphere\",\"radius\":1},"
                 "\"pos\":[0,1,2]},\"b\":{\"shape\":{\"type\":\"box\",\"half\":[1,1,1]},"
                 "\"pos\":[0,0,0],\"rot\":[0,0,3,4]}}");
    a = &msg.u.query.a;
    b = &msg.u.query.b;
    ck_assert(msg.has_req == false);
    ck_assert_double_eq(a->pos[2], 2.0);
    ck_assert_double_eq(a->rot[0], 0.0);
    ck_assert_double_eq(a->rot[1], 0.0);
    ck_assert_double_eq(a->rot[2], 0.0);
    ck_assert_double_eq(a->rot[3], 1.0);
    ck_assert_int_eq(b->shape.type, PROTO_SHAPE_BOX);
    ck_assert_double_eq_tol(b->rot[2], 0.6, 1e-12);
    ck_assert_double_eq_tol(b->rot[3], 0.8, 1e-12);
}
END_TEST

START_TEST(subscribe)
{
    EXPECT_OK(2, "{\"type\":\"subscribe\",\"contacts\":true}");
    ck_assert_int_eq(msg.type, PROTO_MSG_SUBSCRIBE);
    ck_assert(msg.u.subscribe.has_contacts);
    ck_assert(msg.u.subscribe.contacts);
    ck_assert(msg.u.subscribe.has_radius == false);

    EXPECT_OK(2, "{\"type\":\"subscribe\",\"contacts\":false,\"radius\":20.5}");
    ck_assert(msg.u.subscribe.has_contacts);
    ck_assert(msg.u.subscribe.contacts == false);
    ck_assert(msg.u.subscribe.has_radius);
    ck_assert_double_eq(msg.u.subscribe.radius, 20.5);

    EXPECT_OK(3, "{\"type\":\"subscribe\"}");
    ck_assert(msg.u.subscribe.has_contacts == false);
    ck_assert(msg.u.subscribe.has_radius == false);

    EXPECT_OK(2, "{\"type\":\"subscribe\",\"radius\":1e6}");
    ck_assert_double_eq(msg.u.subscribe.radius, PROTO_MAX_RADIUS);
    ck_assert(msg.u.subscribe.has_contacts == false);
    ck_assert(msg.u.subscribe.has_compact == false);
    EXPECT_OK(2, "{\"type\":\"subscribe\",\"compact\":true}");
    ck_assert(msg.u.subscribe.has_compact && msg.u.subscribe.compact);
    ck_assert(!msg.u.subscribe.has_radius && !msg.u.subscribe.has_contacts);
    EXPECT_OK(2, "{\"type\":\"subscribe\",\"compact\":false,\"radius\":5}");
    ck_assert(msg.u.subscribe.has_compact && !msg.u.subscribe.compact);
}
END_TEST

START_TEST(ping_keeps_t_as_compact_json)
{
    EXPECT_OK(2, "{\"type\":\"ping\",\"t\":{\"a\":[1,2]}}");
    ck_assert_int_eq(msg.type, PROTO_MSG_PING);
    ck_assert_str_eq(msg.u.ping.t, "{\"a\":[1,2]}");

    EXPECT_OK(2, "{ \"type\" : \"ping\" , \"t\" : { \"a\" : [ 1 , 2 ] , \"b\" : \"x y\" } }");
    ck_assert_str_eq(msg.u.ping.t, "{\"a\":[1,2],\"b\":\"x y\"}");

    /* Any JSON value, kept as it came when it is compact already. */
    static const char *const values[] = {"12.5", "\"hi\"", "null", "[]", "false"};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        snprintf(linebuf, sizeof linebuf, "{\"type\":\"ping\",\"t\":%s}", values[i]);
        EXPECT_OK(3, linebuf);
        ck_assert_str_eq(msg.u.ping.t, values[i]);
    }

    /* A `t` of exactly PROTO_MAX_ECHO bytes as compact JSON is kept; one byte more is
     * refused (it cannot be echoed, and a cut one would not be JSON). */
    char s[PROTO_MAX_ECHO + 2];
    memset(s, 'q', PROTO_MAX_ECHO - 2);
    s[PROTO_MAX_ECHO - 2] = '\0';
    snprintf(linebuf, sizeof linebuf, "{\"type\":\"ping\",\"t\":\"%s\"}", s);
    EXPECT_OK(2, linebuf);
    ck_assert_uint_eq(strlen(msg.u.ping.t), PROTO_MAX_ECHO);
    ck_assert_int_eq(msg.u.ping.t[0], '"');
    ck_assert_int_eq(msg.u.ping.t[PROTO_MAX_ECHO - 1], '"');
    memset(s, 'q', PROTO_MAX_ECHO - 1);
    s[PROTO_MAX_ECHO - 1] = '\0';
    snprintf(linebuf, sizeof linebuf, "{\"type\":\"ping\",\"t\":\"%s\"}", s);
    EXPECT_ERR(2, linebuf, PROTO_ERR_BAD_REQUEST, "t");
}
END_TEST

START_TEST(bye)
{
    EXPECT_OK(2, "{\"type\":\"bye\"}");
    ck_assert_int_eq(msg.type, PROTO_MSG_BYE);
    ck_assert(msg.has_req == false);
    EXPECT_OK(3, "{\"type\":\"bye\"}");
    ck_assert_int_eq(msg.type, PROTO_MSG_BYE);
}
END_TEST

START_TEST(req_is_any_json_value_as_compact_json)
{
    /* Values that are compact JSON already are kept as they came. */
    static const char *const values[] = {"7", "\"abc\"", "null", "true", "[\"a\\\"b\"]"};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        snprintf(linebuf, sizeof linebuf, "{\"type\":\"bye\",\"req\":%s}", values[i]);
        EXPECT_OK(2, linebuf);
        ck_assert(msg.has_req);
        ck_assert_str_eq(msg.req, values[i]);
    }
    EXPECT_OK(2, "{\"type\":\"bye\",\"req\": { \"k\" : [ 1 , 2 ] }}");
    ck_assert_str_eq(msg.req, "{\"k\":[1,2]}");
    EXPECT_OK(2, "{\"type\":\"bye\"}");
    ck_assert(msg.has_req == false);
}
END_TEST

START_TEST(unknown_fields_are_ignored)
{
    EXPECT_OK(2, "{\"type\":\"bye\",\"colour\":{\"r\":[1,2,3],\"s\":\"x\"},\"n\":1e999}");
    ck_assert_int_eq(msg.type, PROTO_MSG_BYE);
    EXPECT_OK(2, spawn("{\"shape\":{\"type\":\"circle\",\"radius\":1,\"colour\":\"red\"},"
                       "\"pos\":[0,0],\"mass\":\"heavy\",\"w\":[1,2,3,4]}"));
    ck_assert_double_eq(msg.u.spawn.body.shape.radius, 1.0);
    assert_defaults_2d(&msg.u.spawn.body);
    EXPECT_OK(2, "{\"type\":\"input\",\"seq\":1,\"move\":[0,0],\"extra\":[[[[]]]]}");
    ck_assert_uint_eq(msg.u.input.seq, 1);
}
END_TEST

START_TEST(echo_keeps_numbers_a_double_cannot_hold)
{
    /* `req` and `t` are echoed for the client to match, and a 64-bit id or nanosecond clock is
     * a common choice: the echo must be the same number, not its nearest double. */
    EXPECT_OK(2, "{\"type\":\"bye\",\"req\":1700000000123456789}");
    ck_assert_str_eq(msg.req, "1700000000123456789");
    EXPECT_OK(2, "{\"type\":\"ping\",\"t\":1700000000123456789}");
    ck_assert_str_eq(msg.u.ping.t, "1700000000123456789");
    EXPECT_OK(2, "{\"type\":\"ping\",\"t\":{\"id\": 9007199254740993}}");
    ck_assert_str_eq(msg.u.ping.t, "{\"id\":9007199254740993}");
    EXPECT_ERR(2, "{\"type\":\"despawn\",\"req\":18446744073709551615,\"id\":-1}",
               PROTO_ERR_BAD_REQUEST, "id");
    ck_assert(msg.has_req);
    ck_assert_str_eq(msg.req, "18446744073709551615");
}
END_TEST

START_TEST(strings_longer_than_their_field_are_refused)
{
    /* A name or tag that does not fit is refused, never cut. */
    char s[PROTO_MAX_TAG + 2];
    memset(s, 't', PROTO_MAX_TAG + 1);
    s[PROTO_MAX_TAG + 1] = '\0';
    char body[256];
    snprintf(body, sizeof body,
             "{\"shape\":{\"type\":\"circle\",\"radius\":1},\"pos\":[0,0],\"tag\":\"%s\"}", s);
    EXPECT_ERR(2, spawn(body), PROTO_ERR_BAD_REQUEST, "body.tag");
    char n[PROTO_MAX_NAME + 2];
    memset(n, 'n', PROTO_MAX_NAME + 1);
    n[PROTO_MAX_NAME + 1] = '\0';
    snprintf(linebuf, sizeof linebuf, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"%s\"}", n);
    EXPECT_ERR(2, linebuf, PROTO_ERR_BAD_REQUEST, "name");
    /* 64 bytes of UTF-8 are 32 two-byte characters: that fits; 33 do not. */
    char u[2 * 33 + 1];
    for (int i = 0; i < 33; i++) memcpy(u + 2 * i, "\xc3\xa9", 2);
    u[64] = '\0';
    snprintf(linebuf, sizeof linebuf, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"%s\"}", u);
    EXPECT_OK(2, linebuf);
    ck_assert_str_eq(msg.u.hello.name, u);
    u[64] = '\xc3';
    u[65] = '\xa9';
    u[66] = '\0';
    snprintf(linebuf, sizeof linebuf, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"%s\"}", u);
    EXPECT_ERR(2, linebuf, PROTO_ERR_BAD_REQUEST, "name");
}
END_TEST

/* ---- lines checked by their code alone ---- */

/* Lines accepted. */
START_TEST(accepted_lines)
{
    static const good_case cases[] = {
        /* Whitespace around the value is JSON. */
        {2, LINE, "  {\"type\":\"bye\"}  "},
        {2, LINE, "{\"type\":\"bye\"}\t"},
        /* Valid UTF-8 in a string. */
        {2, LINE, "{\"type\":\"bye\",\"x\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}"},
        /* Whitespace: space, tab, CR and LF. */
        {2, LINE, "{\t\"type\" :\r\"bye\" }"},
        /* Body fields at the edges of their ranges. */
        {2, FIELDS2, ",\"pos\":[1000000,-1000000]"},
        {2, FIELDS2, ",\"vel\":[10000,-10000]"},
        {2, FIELDS2, ",\"rot\":1000000"},
        {2, FIELDS2, ",\"rot\":-1000000"},
        {2, FIELDS2, ",\"density\":1000000"},
        {2, FIELDS2, ",\"density\":0.000001"},
        {2, FIELDS2, ",\"friction\":0"},
        {2, FIELDS2, ",\"friction\":10"},
        {2, FIELDS2, ",\"restitution\":0"},
        {2, FIELDS2, ",\"restitution\":1"},
        {2, FIELDS2, ",\"max_speed\":0"},
        {2, FIELDS2, ",\"max_speed\":1000"},
        {2, FIELDS2, ",\"jump_height\":0"},
        {2, FIELDS2, ",\"jump_height\":100"},
        /* Body fields at the edges of their ranges, in 3D. */
        {3, BODY, "{\"shape\":{\"type\":\"sphere\",\"radius\":1},\"pos\":[0,0,-1000000],"
                  "\"vel\":[0,0,10000]}"},
        /* Shape sizes at the edges of their ranges. */
        {2, SHAPE2, "{\"type\":\"circle\",\"radius\":0.001}"},
        {2, SHAPE2, "{\"type\":\"circle\",\"radius\":10000}"},
        {2, SHAPE2, "{\"type\":\"polygon\",\"points\":[[0,0],[1000000,0],"
                    "[0,-1000000]]}"},
        /* Move components at the edges of [-1, 1]. */
        {2, LINE, "{\"type\":\"input\",\"seq\":1,\"move\":[1,-1]}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        expect_ok_case("accepted", i, &cases[i]);
}
END_TEST

/* A case of proto_refused.txt: its fields (dim, how the text is wrapped, the code's wire
 * name, the field the message names or "-") split at their tabs, and the text's \xNN escapes
 * (bytes below '!' at its ends, control bytes, bytes past 0x7e, the backslash) turned back into
 * bytes, in place. False when the line is not such a case. */
static bool read_refused(char *line, bad_case *c)
{
    char *f[5];
    for (int k = 0; k < 5; k++) {
        f[k] = line;
        line = k < 4 ? strchr(line, '\t') : NULL;
        if (k < 4 && !line)
            return false;
        if (line)
            *line++ = '\0';
    }
    static const char *const wraps[] = {"LINE", "BODY", "SHAPE2", "SHAPE3", "FIELDS2"};
    c->as = (wrap)-1;
    for (int k = 0; k < 5; k++)
        if (strcmp(f[1], wraps[k]) == 0)
            c->as = (wrap)k;
    c->code = PROTO_OK;
    for (int k = PROTO_ERR_BAD_JSON; k <= PROTO_ERR_LAST; k++)
        if (strcmp(f[2], proto_error_name((proto_error_code)k)) == 0)
            c->code = (proto_error_code)k;
    c->dim = atoi(f[0]);
    c->path = strcmp(f[3], "-") == 0 ? NULL : f[3];
    char *out = f[4];
    for (const char *in = f[4]; *in; out++) {
        unsigned byte;
        if (in[0] == '\\' && sscanf(in, "\\x%2x", &byte) == 1) {
            *out = (char)byte;
            in += 4;
        } else {
            *out = *in++;
        }
    }
    *out = '\0';
    c->text = f[4];
    return (c->dim == 2 || c->dim == 3) && (int)c->as >= 0 && c->code != PROTO_OK;
}

/* Lines refused, each with its code and the field its message names: the cases of
 * tests/data/proto_refused.txt, one a line after comments ('#'). */
START_TEST(refused_lines)
{
    FILE *f = fopen(MINK_TEST_DATA "/proto_refused.txt", "r");
    ck_assert_ptr_nonnull(f);
    static char line[4096];
    int number = 0, cases = 0;
    while (fgets(line, sizeof line, f)) {
        number++;
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        bad_case c;
        ck_assert_msg(read_refused(line, &c), "proto_refused.txt:%d is not a case", number);
        char where[64];
        snprintf(where, sizeof where, "proto_refused.txt:%d", number);
        expect_err(where, c.dim, case_line(c.as, c.text), c.code, c.path);
        cases++;
    }
    fclose(f);
    ck_assert_int_eq(cases, 201);
}
END_TEST

/* ---- bad_json ---- */

START_TEST(bad_json_syntax)
{
    EXPECT_ERR(2, "{\"type\":\"input\",\"seq\":1,\"move\":[0,]}", PROTO_ERR_BAD_JSON, NULL);
    ck_assert(msg.has_req == false);
}
END_TEST

START_TEST(bad_json_trailing_garbage)
{
    EXPECT_ERR(2, "{\"type\":\"bye\"}{\"type\":\"bye\"}", PROTO_ERR_BAD_JSON, NULL);
    /* A NUL after the object is garbage too: the line's length, not a terminator, ends it. */
    ck_assert_int_eq(parse_n(2, "{\"type\":\"bye\"}\0x", 16), PROTO_ERR_BAD_JSON);
    ck_assert_int_eq(parse_n(2, "{\"type\":\"bye\"}\0", 15), PROTO_ERR_BAD_JSON);
}
END_TEST

START_TEST(parser_reads_only_len_bytes)
{
    /* The framer hands a line in place, followed by the next ones: only `len` bytes count. */
    const char *stream = "{\"type\":\"bye\"}\n{\"type\":\"ping\",\"t\":1}\n";
    ck_assert_int_eq(parse_n(2, stream, 14), PROTO_OK);
    ck_assert_int_eq(msg.type, PROTO_MSG_BYE);
    ck_assert_int_eq(parse_n(2, stream + 15, 21), PROTO_OK);
    ck_assert_int_eq(msg.type, PROTO_MSG_PING);
    ck_assert_str_eq(msg.u.ping.t, "1");
    /* Cut short, the same bytes are not JSON. */
    ck_assert_int_eq(parse_n(2, stream, 13), PROTO_ERR_BAD_JSON);
}
END_TEST

START_TEST(control_characters_are_not_json)
{
    /* Escaped, the same characters are fine. */
    EXPECT_OK(2, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"a\\u001fz\"}");
    ck_assert_str_eq(msg.u.hello.name, "a\x1fz");
}
END_TEST

/* `depth` nested arrays around 0, inside {"type":"bye","x": ...} when `in_object`. */
static const char *nested(int depth, bool in_object, char open, char close)
{
    size_t at = 0;
    if (in_object) at += (size_t)sprintf(linebuf, "{\"type\":\"bye\",\"x\":");
    for (int i = 0; i < depth; i++) {
        if (open == '{') {
            memcpy(linebuf + at, "{\"x\":", 5);
            at += 5;
        } else {
            linebuf[at++] = open;
        }
    }
    linebuf[at++] = '0';
    for (int i = 0; i < depth; i++) linebuf[at++] = close;
    if (in_object) linebuf[at++] = '}';
    linebuf[at] = '\0';
    return linebuf;
}

START_TEST(bad_json_nesting_depth)
{
    ck_assert_int_eq(PROTO_MAX_DEPTH, 32);
    /* A bare array: 32 levels pass the depth check (and then fail as not an object), 33 do
     * not. */
    EXPECT_ERR(2, nested(32, false, '[', ']'), PROTO_ERR_BAD_REQUEST, NULL);
    EXPECT_ERR(2, nested(33, false, '[', ']'), PROTO_ERR_BAD_JSON, NULL);
    /* Inside the message the object is the first level: 31 arrays in an ignored field make
     * 32 levels, 32 arrays make 33. */
    EXPECT_OK(2, nested(31, true, '[', ']'));
    ck_assert_int_eq(msg.type, PROTO_MSG_BYE);
    EXPECT_ERR(2, nested(32, true, '[', ']'), PROTO_ERR_BAD_JSON, NULL);
    /* The same with objects. */
    EXPECT_OK(2, nested(31, true, '{', '}'));
    EXPECT_ERR(2, nested(32, true, '{', '}'), PROTO_ERR_BAD_JSON, NULL);
    /* Far deeper than any parser's stack should be asked to go. */
    EXPECT_ERR(2, nested(30000, false, '[', ']'), PROTO_ERR_BAD_JSON, NULL);
    EXPECT_ERR(2, nested(10000, true, '{', '}'), PROTO_ERR_BAD_JSON, NULL);
}
END_TEST

/* ---- bad_request and unknown_type ---- */

START_TEST(req_is_echoed_in_errors)
{
    EXPECT_ERR(2, "{\"type\":\"spawn\",\"req\":{\"k\": [1, 2]},\"body\":{\"shape\":{\"type\":"
                  "\"circle\",\"radius\":-1},\"pos\":[0,0]}}",
               PROTO_ERR_BAD_REQUEST, "body.shape.radius");
    ck_assert(msg.has_req);
    ck_assert_str_eq(msg.req, "{\"k\":[1,2]}");

    EXPECT_ERR(2, "{\"type\":\"dance\",\"req\":\"abc\"}", PROTO_ERR_UNKNOWN_TYPE, NULL);
    ck_assert(msg.has_req);
    ck_assert_str_eq(msg.req, "\"abc\"");

    EXPECT_ERR(2, "{\"req\":3}", PROTO_ERR_BAD_REQUEST, "type");
    ck_assert(msg.has_req);
    ck_assert_str_eq(msg.req, "3");

    EXPECT_ERR(3, "{\"type\":\"despawn\",\"req\":null,\"id\":-1}", PROTO_ERR_BAD_REQUEST, "id");
    ck_assert(msg.has_req);
    ck_assert_str_eq(msg.req, "null");

    EXPECT_ERR(2, "{\"type\":\"despawn\",\"id\":-1}", PROTO_ERR_BAD_REQUEST, "id");
    ck_assert(msg.has_req == false);

    /* A line that is not JSON has no req to echo. */
    EXPECT_ERR(2, "{\"req\":1,", PROTO_ERR_BAD_JSON, NULL);
    ck_assert(msg.has_req == false);
}
END_TEST

START_TEST(integers_seq_and_id)
{
    static const char *const bad[] = {"-1", "0.5", "9007199254740994", "1e16", "1e300",
                                      "-0.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(linebuf, sizeof linebuf, "{\"type\":\"input\",\"seq\":%s,\"move\":[0,0]}",
                 bad[i]);
        EXPECT_ERR(2, linebuf, PROTO_ERR_BAD_REQUEST, "seq");
        snprintf(linebuf, sizeof linebuf, "{\"type\":\"despawn\",\"id\":%s}", bad[i]);
        EXPECT_ERR(2, linebuf, PROTO_ERR_BAD_REQUEST, "id");
        snprintf(linebuf, sizeof linebuf,
                 "{\"type\":\"input\",\"seq\":1,\"id\":%s,\"move\":[0,0]}", bad[i]);
        EXPECT_ERR(2, linebuf, PROTO_ERR_BAD_REQUEST, "id");
    }
    EXPECT_OK(2, "{\"type\":\"input\",\"seq\":123456789012,\"id\":3,\"move\":[0,0]}");
    ck_assert_uint_eq(msg.u.input.seq, UINT64_C(123456789012));
    ck_assert_uint_eq(msg.u.input.id, 3);
}
END_TEST

START_TEST(edge_values_are_kept)
{
    /* Values at the edges are kept as given. */
    EXPECT_OK(2, spawn("{\"shape\":{\"type\":\"circle\",\"radius\":1},\"pos\":[1000000,"
                       "-1000000],\"friction\":10,\"restitution\":1,\"max_speed\":1000,"
                       "\"jump_height\":100,\"density\":1000000}"));
    ck_assert_double_eq(msg.u.spawn.body.pos[0], 1e6);
    ck_assert_double_eq(msg.u.spawn.body.pos[1], -1e6);
    ck_assert_double_eq(msg.u.spawn.body.friction, 10.0);
    ck_assert_double_eq(msg.u.spawn.body.restitution, 1.0);
    ck_assert_double_eq(msg.u.spawn.body.max_speed, 1000.0);
    ck_assert_double_eq(msg.u.spawn.body.jump_height, 100.0);
    ck_assert_double_eq(msg.u.spawn.body.density, 1e6);
}
END_TEST

START_TEST(shape_size_ranges)
{
    EXPECT_OK(2, spawn_shape("{\"type\":\"box\",\"half\":[0.001,10000]}"));
    ck_assert_double_eq(msg.u.spawn.body.shape.half[0], 0.001);
    ck_assert_double_eq(msg.u.spawn.body.shape.half[1], 10000.0);
}
END_TEST

/* The n shapes are spawned in a world of `dim` and refused, naming body.shape, in the other. */
static void expect_shapes_of(int dim, const char *const *shapes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char where[64];
        snprintf(where, sizeof where, "only in %dD [%zu]", dim, i);
        expect_err(where, 5 - dim, case_line(dim == 3 ? SHAPE2 : SHAPE3, shapes[i]),
                   PROTO_ERR_BAD_REQUEST, "body.shape");
        expect_ok(where, dim, case_line(dim == 3 ? SHAPE3 : SHAPE2, shapes[i]));
    }
}

START_TEST(shape_types_follow_dim)
{
    static const char *const only3d[] = {
        "{\"type\":\"sphere\",\"radius\":1}",
        "{\"type\":\"ellipsoid\",\"radii\":[1,1,1]}",
        "{\"type\":\"capsule\",\"radius\":1,\"half_height\":1}",
        "{\"type\":\"cylinder\",\"radius\":1,\"half_height\":1}",
        "{\"type\":\"cone\",\"radius\":1,\"half_height\":1}",
        "{\"type\":\"hull\",\"points\":[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]}",
    };
    expect_shapes_of(3, only3d, sizeof only3d / sizeof only3d[0]);
    static const char *const only2d[] = {
        "{\"type\":\"circle\",\"radius\":1}",
        "{\"type\":\"aabb\",\"half\":[1,1]}",
        "{\"type\":\"polygon\",\"points\":[[0,0],[1,0],[0,1]]}",
    };
    expect_shapes_of(2, only2d, sizeof only2d / sizeof only2d[0]);
}
END_TEST

START_TEST(point_counts)
{
    EXPECT_OK(2, spawn_shape(points_shape("polygon", 3, 2)));
    ck_assert_int_eq(msg.u.spawn.body.shape.npoints, 3);
    EXPECT_OK(2, spawn_shape(points_shape("polygon", 256, 2)));
    ck_assert_int_eq(msg.u.spawn.body.shape.npoints, 256);
    /* The last point is the one written last: cos(2 pi 255/256), sin(2 pi 255/256). */
    ck_assert_double_eq_tol(msg.u.spawn.body.shape.points[255][0], 0.999699, 1e-6);
    ck_assert_double_eq_tol(msg.u.spawn.body.shape.points[255][1], -0.024541, 1e-6);
    EXPECT_ERR(2, spawn_shape(points_shape("polygon", 257, 2)), PROTO_ERR_BAD_REQUEST,
               "body.shape.points");

    EXPECT_ERR(3, spawn_shape3(points_shape("hull", 3, 3)), PROTO_ERR_BAD_REQUEST,
               "body.shape.points");
    EXPECT_OK(3, spawn_shape3(points_shape("hull", 4, 3)));
    ck_assert_int_eq(msg.u.spawn.body.shape.npoints, 4);
    /* Point 1: cos(pi/2), sin(pi/2), +0.5. */
    ck_assert_double_eq_tol(msg.u.spawn.body.shape.points[1][0], 0.0, 1e-6);
    ck_assert_double_eq_tol(msg.u.spawn.body.shape.points[1][1], 1.0, 1e-6);
    ck_assert_double_eq_tol(msg.u.spawn.body.shape.points[1][2], 0.5, 1e-6);
    EXPECT_OK(3, spawn_shape3(points_shape("hull", 256, 3)));
    ck_assert_int_eq(msg.u.spawn.body.shape.npoints, 256);
    EXPECT_ERR(3, spawn_shape3(points_shape("hull", 257, 3)), PROTO_ERR_BAD_REQUEST,
               "body.shape.points");
    EXPECT_ERR(3, spawn_shape3(points_shape("hull", 1000, 3)), PROTO_ERR_BAD_REQUEST,
               "body.shape.points");
}
END_TEST

START_TEST(tag_of_max_length_is_kept)
{
    char tag[PROTO_MAX_TAG + 1];
    memset(tag, 't', PROTO_MAX_TAG);
    tag[PROTO_MAX_TAG] = '\0';
    char body[256];
    snprintf(body, sizeof body,
             "{\"shape\":{\"type\":\"circle\",\"radius\":1},\"pos\":[0,0],\"tag\":\"%s\"}", tag);
    EXPECT_OK(2, spawn(body));
    ck_assert_str_eq(msg.u.spawn.body.tag, tag);
    EXPECT_OK(2, spawn("{\"shape\":{\"type\":\"circle\",\"radius\":1},\"pos\":[0,0],"
                       "\"tag\":\"caf\\u00e9\"}"));
    ck_assert_str_eq(msg.u.spawn.body.tag, "caf\xc3\xa9");
}
END_TEST

/* ---- proto_utf8_valid ---- */

static bool utf8(const char *s)
{
    return proto_utf8_valid(s, strlen(s));
}

START_TEST(utf8_validation)
{
    static const char *const valid[] = {
        "plain ascii {}[]",
        /* Two, three and four bytes, and the smallest of each length. */
        "\xc3\xa9",         /* U+00E9 */
        "\xc2\x80",         /* U+0080 */
        "\xdf\xbf",         /* U+07FF */
        "\xe2\x82\xac",     /* U+20AC */
        "\xe0\xa0\x80",     /* U+0800 */
        "\xed\x9f\xbf",     /* U+D7FF, just below the surrogates */
        "\xee\x80\x80",     /* U+E000, just above */
        "\xef\xbf\xbf",     /* U+FFFF */
        "\xf0\x9f\x98\x80", /* U+1F600 */
        "\xf0\x90\x80\x80", /* U+10000 */
        "\xf4\x8f\xbf\xbf", /* U+10FFFF, the last code point */
        "x\xc3\xa9y\xe2\x82\xacz\xf0\x9f\x98\x80!",
    };
    static const char *const invalid[] = {
        "\xf4\x90\x80\x80", /* U+110000 */
        "\xf5\x80\x80\x80",
        "\xf8\x88\x80\x80\x80",
        "\xff",
        "\xfe",
        "\x80", /* a continuation byte alone */
        "a\xbf",
        /* Overlong forms. */
        "\xc0\xaf",
        "\xc1\xbf",
        "\xc0\x80",
        "\xe0\x80\xaf",
        "\xe0\x9f\xbf",
        "\xf0\x8f\xbf\xbf",
        /* Surrogates. */
        "\xed\xa0\x80",             /* U+D800 */
        "\xed\xbf\xbf",             /* U+DFFF */
        "\xed\xa0\xbd\xed\xb8\x80", /* a pair, CESU-8 style */
        /* Truncated sequences, at the end and before another character. */
        "\xc3",
        "\xe2\x82",
        "\xf0\x9f\x98",
        "\xe2\x82" "A",
        "\xf0\x9f" "ab",
        "\xc3" "\xc3\xa9",
    };
    ck_assert(proto_utf8_valid("", 0));
    ck_assert(proto_utf8_valid("a\0b", 3)); /* U+0000 is a character */
    for (size_t i = 0; i < sizeof valid / sizeof *valid; i++)
        ck_assert_msg(utf8(valid[i]), "valid[%zu] refused", i);
    for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++)
        ck_assert_msg(!utf8(invalid[i]), "invalid[%zu] accepted", i);
    /* The length counts, not a terminator. */
    ck_assert(!proto_utf8_valid("\xc3\xa9", 1));
    ck_assert(proto_utf8_valid("ab\xff", 2));
    ck_assert(!proto_utf8_valid("\xf0\x9f\x98\x80", 3));
}
END_TEST

/* ---- proto_parse_body_spec and proto_parse_vector on cJSON values ---- */

START_TEST(body_spec_from_cjson_with_path)
{
    proto_body_spec spec;
    proto_error e;
    cJSON *j = cJSON_Parse("{\"shape\":{\"type\":\"box\",\"half\":[5,0.5]},\"pos\":[0,-0.5],"
                           "\"kind\":\"static\",\"friction\":0.9}");
    ck_assert_ptr_nonnull(j);
    memset(&spec, 0x55, sizeof spec);
    ck_assert_int_eq(proto_parse_body_spec(j, 2, "bodies[0]", &spec, &e), PROTO_OK);
    ck_assert_int_eq(spec.shape.type, PROTO_SHAPE_BOX);
    ck_assert_double_eq(spec.shape.half[0], 5.0);
    ck_assert_double_eq(spec.pos[1], -0.5);
    ck_assert_int_eq(spec.kind, PROTO_KIND_STATIC);
    ck_assert_double_eq(spec.friction, 0.9);
    ck_assert_double_eq(spec.density, 1.0);
    ck_assert_double_eq(spec.restitution, 0.0);
    ck_assert_double_eq(spec.max_speed, 5.0);
    ck_assert_double_eq(spec.jump_height, 1.5);
    ck_assert_double_eq(spec.rot[0], 0.0);
    ck_assert_str_eq(spec.tag, "");
    cJSON_Delete(j);

    j = cJSON_Parse("{\"shape\":{\"type\":\"circle\",\"radius\":-1},\"pos\":[0,0]}");
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(proto_parse_body_spec(j, 2, "bodies[3]", &spec, &e), PROTO_ERR_BAD_REQUEST);
    ck_assert_int_eq(e.code, PROTO_ERR_BAD_REQUEST);
    ck_assert_msg(strstr(e.message, "bodies[3].shape.radius") != NULL, "message: %s", e.message);
    cJSON_Delete(j);

    j = cJSON_Parse("{\"shape\":{\"type\":\"sphere\",\"radius\":1},\"pos\":[0,0]}");
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(proto_parse_body_spec(j, 2, "bodies[12]", &spec, &e),
                     PROTO_ERR_BAD_REQUEST);
    ck_assert_msg(strstr(e.message, "bodies[12].shape") != NULL, "message: %s", e.message);
    cJSON_Delete(j);

    j = cJSON_Parse("[1,2]");
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(proto_parse_body_spec(j, 3, "bodies[7]", &spec, &e), PROTO_ERR_BAD_REQUEST);
    ck_assert_msg(strstr(e.message, "bodies[7]") != NULL, "message: %s", e.message);
    cJSON_Delete(j);

    /* A NaN cannot be written in JSON text, but a cJSON tree built in code can carry one. */
    j = cJSON_Parse("{\"shape\":{\"type\":\"sphere\",\"radius\":1},\"pos\":[0,0,0]}");
    ck_assert_ptr_nonnull(j);
    cJSON_GetArrayItem(cJSON_GetObjectItem(j, "pos"), 1)->valuedouble = NAN;
    ck_assert_int_eq(proto_parse_body_spec(j, 3, "bodies[1]", &spec, &e), PROTO_ERR_BAD_REQUEST);
    ck_assert_msg(strstr(e.message, "bodies[1].pos") != NULL, "message: %s", e.message);
    cJSON_Delete(j);

    j = cJSON_Parse("{\"shape\":{\"type\":\"sphere\",\"radius\":1},\"pos\":[0,0,0]}");
    ck_assert_ptr_nonnull(j);
    cJSON_GetObjectItem(cJSON_GetObjectItem(j, "shape"), "radius")->valuedouble = NAN;
    ck_assert_int_eq(proto_parse_body_spec(j, 3, "bodies[2]", &spec, &e), PROTO_ERR_BAD_REQUEST);
    ck_assert_msg(strstr(e.message, "bodies[2].shape.radius") != NULL, "message: %s", e.message);
    cJSON_Delete(j);
}
END_TEST

START_TEST(vector_from_cjson)
{
    proto_error e;
    /* Exactly dim doubles: writing past them is an overflow the sanitizer catches. */
    double *v2 = malloc(2 * sizeof *v2), *v3 = malloc(3 * sizeof *v3);
    ck_assert_ptr_nonnull(v2);
    ck_assert_ptr_nonnull(v3);

    cJSON *j = cJSON_Parse("[1.5,-2]");
    ck_assert_int_eq(proto_parse_vector(j, 2, 10, "gravity", v2, &e), PROTO_OK);
    ck_assert_double_eq(v2[0], 1.5);
    ck_assert_double_eq(v2[1], -2.0);
    ck_assert_int_eq(proto_parse_vector(j, 3, 10, "gravity", v3, &e), PROTO_ERR_BAD_REQUEST);
    ck_assert_msg(strstr(e.message, "gravity") != NULL, "message: %s", e.message);
    cJSON_Delete(j);

    j = cJSON_Parse("[0,-10,0.25]");
    ck_assert_int_eq(proto_parse_vector(j, 3, 10, "gravity", v3, &e), PROTO_OK);
    ck_assert_double_eq(v3[0], 0.0);
    ck_assert_double_eq(v3[1], -10.0);
    ck_assert_double_eq(v3[2], 0.25);
    ck_assert_int_eq(proto_parse_vector(j, 2, 10, "gravity", v2, &e), PROTO_ERR_BAD_REQUEST);
    ck_assert_msg(strstr(e.message, "gravity") != NULL, "message: %s", e.message);
    /* |x| <= max_abs: 10 is in, 9.99 puts -10 out. */
    ck_assert_int_eq(proto_parse_vector(j, 3, 9.99, "gravity", v3, &e), PROTO_ERR_BAD_REQUEST);
    ck_assert_msg(strstr(e.message, "gravity") != NULL, "message: %s", e.message);
    cJSON_Delete(j);

    static const char *const bad[] = {"5", "\"1,2\"", "[\"a\",1]", "[1,null]", "[[1],2]",
                                      "{\"x\":1,\"y\":2}", "[]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        j = cJSON_Parse(bad[i]);
        ck_assert_ptr_nonnull(j);
        ck_assert_msg(proto_parse_vector(j, 2, 10, "scene.gravity", v2, &e) ==
                          PROTO_ERR_BAD_REQUEST,
                      "%s accepted", bad[i]);
        ck_assert_msg(strstr(e.message, "scene.gravity") != NULL, "message: %s", e.message);
        cJSON_Delete(j);
    }

    j = cJSON_Parse("[1,2]");
    cJSON_GetArrayItem(j, 0)->valuedouble = NAN;
    ck_assert_int_eq(proto_parse_vector(j, 2, 10, "v", v2, &e), PROTO_ERR_BAD_REQUEST);
    cJSON_GetArrayItem(j, 0)->valuedouble = INFINITY;
    ck_assert_int_eq(proto_parse_vector(j, 2, INFINITY, "v", v2, &e), PROTO_ERR_BAD_REQUEST);
    cJSON_GetArrayItem(j, 0)->valuedouble = -INFINITY;
    ck_assert_int_eq(proto_parse_vector(j, 2, 10, "v", v2, &e), PROTO_ERR_BAD_REQUEST);
    cJSON_Delete(j);
    free(v2);
    free(v3);
}
END_TEST

/* ---- names ---- */

START_TEST(wire_names)
{
    ck_assert_str_eq(proto_error_name(PROTO_OK), "ok");
    ck_assert_str_eq(proto_error_name(PROTO_ERR_BAD_JSON), "bad_json");
    ck_assert_str_eq(proto_error_name(PROTO_ERR_BAD_REQUEST), "bad_request");
    ck_assert_str_eq(proto_error_name(PROTO_ERR_UNKNOWN_TYPE), "unknown_type");
    ck_assert_str_eq(proto_error_name(PROTO_ERR_NOT_JOINED), "not_joined");
    ck_assert_str_eq(proto_error_name(PROTO_ERR_NOT_OWNER), "not_owner");
    ck_assert_str_eq(proto_error_name(PROTO_ERR_NOT_FOUND), "not_found");
    ck_assert_str_eq(proto_error_name(PROTO_ERR_QUOTA), "quota");
    ck_assert_str_eq(proto_error_name(PROTO_ERR_RATE_LIMITED), "rate_limited");
    ck_assert_str_eq(proto_error_name(PROTO_ERR_LINE_TOO_LONG), "line_too_long");
    ck_assert_str_eq(proto_error_name(PROTO_ERR_SERVER_FULL), "server_full");
    ck_assert_str_eq(proto_error_name(PROTO_ERR_SHUTDOWN), "shutdown");
    ck_assert_str_eq(proto_error_name(PROTO_ERR_UNAUTHORIZED), "unauthorized");

    ck_assert_str_eq(proto_shape_name(PROTO_SHAPE_AABB), "aabb");
    ck_assert_str_eq(proto_shape_name(PROTO_SHAPE_BOX), "box");
    ck_assert_str_eq(proto_shape_name(PROTO_SHAPE_CIRCLE), "circle");
    ck_assert_str_eq(proto_shape_name(PROTO_SHAPE_POLYGON), "polygon");
    ck_assert_str_eq(proto_shape_name(PROTO_SHAPE_SPHERE), "sphere");
    ck_assert_str_eq(proto_shape_name(PROTO_SHAPE_ELLIPSOID), "ellipsoid");
    ck_assert_str_eq(proto_shape_name(PROTO_SHAPE_CAPSULE), "capsule");
    ck_assert_str_eq(proto_shape_name(PROTO_SHAPE_CYLINDER), "cylinder");
    ck_assert_str_eq(proto_shape_name(PROTO_SHAPE_CONE), "cone");
    ck_assert_str_eq(proto_shape_name(PROTO_SHAPE_HULL), "hull");

    ck_assert_str_eq(proto_kind_name(PROTO_KIND_DYNAMIC), "dynamic");
    ck_assert_str_eq(proto_kind_name(PROTO_KIND_STATIC), "static");
    ck_assert_str_eq(proto_kind_name(PROTO_KIND_KINEMATIC), "kinematic");
    ck_assert_str_eq(proto_kind_name(PROTO_KIND_CHARACTER), "character");
}
END_TEST

/* raycast, cast, overlap (world queries): fields, defaults, and each bad input naming its
 * field. */
START_TEST(world_queries)
{
    EXPECT_OK(2, "{\"type\":\"raycast\",\"req\":7,\"from\":[1,2],\"to\":[3,-4]}");
    ck_assert_int_eq(msg.type, PROTO_MSG_RAYCAST);
    const proto_world_query *q = &msg.u.wq;
    ck_assert_double_eq(q->from[0], 1.0);
    ck_assert_double_eq(q->to[1], -4.0);
    ck_assert(!q->all && !q->has_at_tick);
    ck_assert_int_eq(q->nignore, 0);
    ck_assert_uint_eq(q->kinds, 0);
    EXPECT_OK(3, "{\"type\":\"raycast\",\"from\":[1,2,3],\"to\":[1,2,4],\"all\":true,"
                 "\"at_tick\":120,\"ignore\":[5,16777217],\"kinds\":[\"character\",\"static\"]}");
    q = &msg.u.wq;
    ck_assert(q->all && q->has_at_tick);
    ck_assert_uint_eq(q->at_tick, 120);
    ck_assert_int_eq(q->nignore, 2);
    ck_assert_uint_eq(q->ignore[1], 16777217u);
    ck_assert_uint_eq(q->kinds, (1u << PROTO_KIND_CHARACTER) | (1u << PROTO_KIND_STATIC));
    EXPECT_OK(2, "{\"type\":\"cast\",\"shape\":{\"type\":\"circle\",\"radius\":0.5},"
                 "\"pos\":[0,1],\"rot\":0.25,\"to\":[10,1]}");
    ck_assert_int_eq(msg.type, PROTO_MSG_CAST);
    ck_assert_int_eq(msg.u.wq.shape.shape.type, PROTO_SHAPE_CIRCLE);
    ck_assert_double_eq(msg.u.wq.shape.rot[0], 0.25);
    ck_assert_double_eq(msg.u.wq.to[0], 10.0);
    EXPECT_OK(3, "{\"type\":\"overlap\",\"shape\":{\"type\":\"capsule\",\"radius\":0.5,"
                 "\"half_height\":1},\"pos\":[0,1,2]}");
    ck_assert_int_eq(msg.type, PROTO_MSG_OVERLAP);
    ck_assert_double_eq(msg.u.wq.shape.rot[3], 1.0);

    char many[1024];
    int at = snprintf(many, sizeof many, "{\"type\":\"raycast\",\"from\":[0,0],\"to\":[1,2],"
                                         "\"ignore\":[");
    for (int i = 0; i <= PROTO_MAX_IGNORE; i++)
        at += snprintf(many + at, sizeof many - (size_t)at, "%s%d", i ? "," : "", i);
    snprintf(many + at, sizeof many - (size_t)at, "]}");
    EXPECT_ERR(2, many, PROTO_ERR_BAD_REQUEST, "ignore: at most 64");
}
END_TEST

MINK_CHECK_SUITE("proto_parse", s)
{
    MINK_TCASE(s, "messages", 60, hello_2d_with_avatar_gets_defaults,
               hello_3d_with_avatar_gets_identity_rotation, hello_without_avatar,
               spawn_2d_with_every_field, spawn_2d_shapes, spawn_3d_shapes,
               quaternion_is_normalised, despawn, input, query_2d_and_3d, subscribe,
               ping_keeps_t_as_compact_json, bye, req_is_any_json_value_as_compact_json,
               unknown_fields_are_ignored, tag_of_max_length_is_kept,
               echo_keeps_numbers_a_double_cannot_hold,
               strings_longer_than_their_field_are_refused, world_queries);

    MINK_TCASE(s, "lines", 60, accepted_lines, refused_lines);

    MINK_TCASE(s, "bad_json", 60, bad_json_syntax, bad_json_trailing_garbage,
               parser_reads_only_len_bytes, bad_json_nesting_depth,
               control_characters_are_not_json);

    MINK_TCASE(s, "bad_request", 60, req_is_echoed_in_errors,
               integers_seq_and_id, edge_values_are_kept, shape_size_ranges,
               shape_types_follow_dim, point_counts);

    MINK_TCASE(s, "utf8", 60, utf8_validation);

    MINK_TCASE(s, "cjson_api", 60, body_spec_from_cjson_with_path, vector_from_cjson, wire_names);
}
