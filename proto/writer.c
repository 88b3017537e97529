/* Writers for the server's messages (PROTOCOL.md, "Server to client").
 *
 * Every writer appends one whole line to a proto_buf. None builds a cJSON tree: the state
 * writer runs on every snapshot tick for every body, and the others share its helpers. */
#include <stdint.h>
#include <string.h>

#include "mink_proto.h"

/* Decimal places: state precision as PROTOCOL.md allows it (0.1 mm, 1e-4, 1 mm/s); shapes and
 * query results are sent rarely and carry more. */
#define DEC_POS 4
#define DEC_ROT 4
#define DEC_VEL 3
#define DEC_W 4
#define DEC_DEPTH 5
#define DEC_SHAPE 6
#define DEC_RESULT 6

#define LIT(b, s) proto_buf_append((b), (s), sizeof(s) - 1)
/* A field: its key, LIT(b, key), then its value, proto_buf_append_<kind>(b, ...). */
#define FIELD(b, key, kind, ...)                                                                  \
    do {                                                                                          \
        LIT(b, key);                                                                              \
        proto_buf_append_##kind((b), __VA_ARGS__);                                                \
    } while (0)

static void write_req(proto_buf *b, const char *req)
{
    if (req) {
        FIELD(b, ",\"req\":", str, req);
    }
}

void proto_write_welcome(proto_buf *b, const proto_welcome *w)
{
    FIELD(b, "{\"type\":\"welcome\",\"protocol\":", i64, PROTO_VERSION);
    FIELD(b, ",\"client\":", u64, w->client);
    FIELD(b, ",\"dim\":", i64, w->dim);
    FIELD(b, ",\"tick\":", u64, w->tick);
    FIELD(b, ",\"tick_hz\":", fixed, w->tick_hz, DEC_SHAPE);
    FIELD(b, ",\"snapshot_hz\":", fixed, w->snapshot_hz, DEC_SHAPE);
    FIELD(b, ",\"gravity\":", fixed_array, w->gravity, w->dim, DEC_SHAPE);
    if (w->has_avatar) {
        FIELD(b, ",\"avatar\":", u64, w->avatar);
    }
    for (size_t i = 0; i < w->nlevels; i++) {
        const proto_welcome_level *l = &w->levels[i];
        proto_buf_append_str(b, i ? ",{\"key\":\"" : ",\"levels\":[{\"key\":\"");
        proto_buf_append_str(b, l->key);
        FIELD(b, "\",\"type\":\"", str, proto_shape_name(l->type));
        FIELD(b, "\",\"pieces\":", u64, l->pieces);
        FIELD(b, ",\"url\":\"/levels/", str, l->key);
        proto_buf_append_char(b, '"');
        if (l->file && l->file[0]) {
            FIELD(b, ",\"file\":", json_string, l->file);
            FIELD(b, ",\"sha256\":\"", str, l->sha256);
            proto_buf_append_char(b, '"');
        }
        proto_buf_append_char(b, '}');
        if (i + 1 == w->nlevels)
            proto_buf_append_char(b, ']');
    }
    LIT(b, "}\n");
}

void proto_write_error(proto_buf *b, proto_error_code code, const char *message, const char *req)
{
    FIELD(b, "{\"type\":\"error\",\"code\":\"", str, proto_error_name(code));
    FIELD(b, "\",\"message\":", json_string, message ? message : "");
    write_req(b, req);
    LIT(b, "}\n");
}

static void write_id_answer(proto_buf *b, const char *head, const char *req, uint64_t id)
{
    proto_buf_append_str(b, head);
    write_req(b, req);
    FIELD(b, ",\"id\":", u64, id);
    LIT(b, "}\n");
}

void proto_write_spawned(proto_buf *b, const char *req, uint64_t id)
{
    write_id_answer(b, "{\"type\":\"spawned\"", req, id);
}

void proto_write_despawned(proto_buf *b, const char *req, uint64_t id)
{
    write_id_answer(b, "{\"type\":\"despawned\"", req, id);
}

void proto_write_joined(proto_buf *b, const char *req, uint64_t id)
{
    write_id_answer(b, "{\"type\":\"joined\"", req, id);
}

void proto_write_unjoined(proto_buf *b, const char *req, uint64_t id)
{
    write_id_answer(b, "{\"type\":\"unjoined\"", req, id);
}

void proto_write_pong(proto_buf *b, const char *t, uint64_t tick)
{
    FIELD(b, "{\"type\":\"pong\",\"t\":", str, t ? t : "null");
    FIELD(b, ",\"tick\":", u64, tick);
    LIT(b, "}\n");
}

void proto_write_result(proto_buf *b, const char *req, int dim, const proto_result *r)
{
    LIT(b, "{\"type\":\"result\"");
    write_req(b, req);
    /* depth and normal are always there; on a miss the depth is 0 and the normal is the
     * direction of the gap, followed by the gap itself. */
    if (r->hit)
        LIT(b, ",\"hit\":true,\"depth\":");
    else
        LIT(b, ",\"hit\":false,\"depth\":");
    proto_buf_append_fixed(b, r->hit ? r->depth : 0.0, DEC_RESULT);
    FIELD(b, ",\"normal\":", fixed_array, r->normal, dim, DEC_RESULT);
    if (!r->hit) {
        FIELD(b, ",\"distance\":", fixed, r->distance, DEC_RESULT);
    }
    FIELD(b, ",\"points\":", fixed_points, r->points, r->hit ? r->npoints : 0, dim, DEC_RESULT);
    LIT(b, "}\n");
}

static void write_points(proto_buf *b, const proto_shape *shape, int dim)
{
    FIELD(b, ",\"points\":", fixed_points, shape->points, shape->npoints, dim, DEC_SHAPE);
}

void proto_write_shape(proto_buf *b, int dim, const proto_shape *shape)
{
    FIELD(b, "{\"type\":\"", str, proto_shape_name(shape->type));
    proto_buf_append_char(b, '"');
    switch (shape->type) {
    case PROTO_SHAPE_AABB:
    case PROTO_SHAPE_BOX:
        FIELD(b, ",\"half\":", fixed_array, shape->half, dim, DEC_SHAPE);
        break;
    case PROTO_SHAPE_CIRCLE:
    case PROTO_SHAPE_SPHERE:
        FIELD(b, ",\"radius\":", fixed, shape->radius, DEC_SHAPE);
        break;
    case PROTO_SHAPE_POLYGON:
    case PROTO_SHAPE_HULL:
        write_points(b, shape, dim);
        break;
    case PROTO_SHAPE_ELLIPSOID:
        FIELD(b, ",\"radii\":", fixed_array, shape->radii, 3, DEC_SHAPE);
        break;
    case PROTO_SHAPE_CAPSULE:
    case PROTO_SHAPE_CYLINDER:
    case PROTO_SHAPE_CONE:
        FIELD(b, ",\"radius\":", fixed, shape->radius, DEC_SHAPE);
        FIELD(b, ",\"half_height\":", fixed, shape->half_height, DEC_SHAPE);
        break;
    case PROTO_SHAPE_SEGMENT:
    case PROTO_SHAPE_CHAIN:
    case PROTO_SHAPE_MESH:
    case PROTO_SHAPE_HEIGHTFIELD:
        proto_write_level_fields(b, shape);
        break;
    case PROTO_SHAPE_COUNT:
        break;
    }
    proto_buf_append_char(b, '}');
}

/* ---- state ---- */

void proto_state_begin(proto_buf *b, uint64_t tick, uint64_t ack)
{
    FIELD(b, "{\"type\":\"state\",\"tick\":", u64, tick);
    FIELD(b, ",\"ack\":", u64, ack);
    LIT(b, ",\"bodies\":[");
}

void proto_state_begin_ext(proto_buf *b, uint64_t tick, uint64_t ack, uint64_t ack_tick,
                           bool delta, bool has_hash, uint64_t hash)
{
    FIELD(b, "{\"type\":\"state\",\"tick\":", u64, tick);
    FIELD(b, ",\"ack\":", u64, ack);
    if (ack_tick > 0) {
        FIELD(b, ",\"ack_tick\":", u64, ack_tick);
    }
    if (delta)
        LIT(b, ",\"delta\":true");
    if (has_hash) {
        static const char hex[] = "0123456789abcdef";
        char h[16];
        for (int i = 0; i < 16; i++)
            h[i] = hex[(hash >> (60 - 4 * i)) & 15u];
        LIT(b, ",\"hash\":\"");
        proto_buf_append(b, h, sizeof h);
        proto_buf_append_char(b, '"');
    }
    LIT(b, ",\"bodies\":[");
}

/* Literal text at p; returns the end. */
#define PUT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

/* ---- the state body's numbers ----
 * The same text as proto_put_fixed (round half up, trailing zeros dropped, never "-0"), for
 * the two precisions of a state body with the decimals known when compiled: the divisions by
 * 10^decimals become multiplications, and numbers below 2^32 units (430 km at 4 decimals)
 * take 32-bit arithmetic. Anything else (larger, or not finite) goes to proto_put_fixed. A 3D
 * body has 14 numbers: this is most of a 3D snapshot's time. */

/* "00" .. "99" (as buf.c's, which keeps its own static). */
static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930"
                               "31323334353637383940414243444546474849505152535455565758596061"
                               "62636465666768697071727374757677787980818283848586878889909192"
                               "93949596979899";

#define FIXED_FAST_MAX 4294967295.0 /* below: m + 1 still fits in 32 bits */
_Static_assert(DEC_POS == 4 && DEC_ROT == 4 && DEC_W == 4 && DEC_VEL == 3,
               "put_fixed4 and put_fixed3 are the state body's precisions");

/* The whole part of a number: most are below 1,000 (m, m/s). */
static inline char *put_u32(char *p, uint32_t v)
{
    if (v < 10) {
        *p++ = (char)('0' + v);
        return p;
    }
    if (v < 100) {
        memcpy(p, pairs + 2 * v, 2);
        return p + 2;
    }
    if (v < 1000) {
        *p = (char)('0' + v / 100);
        memcpy(p + 1, pairs + 2 * (v % 100), 2);
        return p + 3;
    }
    return proto_put_u64(p, v);
}

/* |v| rounded to 10^-decimals as an integer count of units in *m; false when the fast path
 * does not apply. */
static inline bool fixed_units(double v, double scale, uint32_t *m)
{
    double scaled = (v < 0 ? -v : v) * scale;
    if (!(scaled < FIXED_FAST_MAX)) /* NaN too */
        return false;
    uint32_t u = (uint32_t)scaled;
    if (scaled - (double)u >= 0.5)
        u++;
    *m = u;
    return true;
}

/* v with `digits` decimals (3 or 4), trailing zeros dropped, from whole units of 10^-digits
 * (put_u32 and the digit pairs; proto_put_fixed past their range). Inlined with a constant
 * `digits`, each caller gets its own straight-line code. */
static inline char *put_fixed_units(char *p, double v, int digits)
{
    uint32_t unit = digits == 4 ? 10000u : 1000u, m;
    if (!fixed_units(v, (double)unit, &m))
        return proto_put_fixed(p, v, digits);
    if (m == 0) {
        *p++ = '0';
        return p;
    }
    if (v < 0)
        *p++ = '-';
    p = put_u32(p, m / unit);
    uint32_t frac = m % unit;
    if (frac == 0)
        return p;
    *p = '.';
    char *end;
    if (digits == 4) {
        memcpy(p + 1, pairs + 2 * (frac / 100u), 2);
        memcpy(p + 3, pairs + 2 * (frac % 100u), 2);
        end = p + 5;
    } else {
        p[1] = (char)('0' + frac / 100u);
        memcpy(p + 2, pairs + 2 * (frac % 100u), 2);
        end = p + 4;
    }
    while (end[-1] == '0')
        end--;
    return end;
}

/* 4 decimals: positions, rotations, angular velocities. */
static char *put_fixed4(char *p, double v) { return put_fixed_units(p, v, 4); }

/* 3 decimals: velocities. */
static char *put_fixed3(char *p, double v) { return put_fixed_units(p, v, 3); }

/* n numbers as a JSON array at p. */
static char *put_vec4(char *p, const double *v, int n)
{
    *p++ = '[';
    p = put_fixed4(p, v[0]);
    for (int i = 1; i < n; i++) {
        *p++ = ',';
        p = put_fixed4(p, v[i]);
    }
    *p++ = ']';
    return p;
}

static char *put_vec3(char *p, const double *v, int n)
{
    *p++ = '[';
    p = put_fixed3(p, v[0]);
    for (int i = 1; i < n; i++) {
        *p++ = ',';
        p = put_fixed3(p, v[i]);
    }
    *p++ = ']';
    return p;
}

/* The hot path of every snapshot: one reserve for the whole entry (at most 14 numbers of 26
 * bytes, the keys and the closing brace), then the text written straight into the buffer. */
void proto_state_body(proto_buf *b, int dim, const proto_body_state *s, bool first_in_list)
{
    if (!proto_buf_reserve(b, dim == 2 ? 200 : 420))
        return;
    char *p = b->data + b->len;
    p = first_in_list ? PUT(p, "{\"id\":") : PUT(p, ",{\"id\":");
    p = proto_put_u64(p, s->id);
    p = PUT(p, ",\"pos\":");
    p = put_vec4(p, s->pos, dim);
    p = PUT(p, ",\"rot\":");
    p = dim == 2 ? put_fixed4(p, s->rot[0]) : put_vec4(p, s->rot, 4);
    p = PUT(p, ",\"vel\":");
    p = put_vec3(p, s->vel, dim);
    p = PUT(p, ",\"w\":");
    p = dim == 2 ? put_fixed4(p, s->w[0]) : put_vec4(p, s->w, 3);
    b->len = (size_t)(p - b->data);
}

/* n numbers after a comma each, at p (the compact entry's runs). */
static char *put_run4(char *p, const double *v, int n)
{
    for (int i = 0; i < n; i++) {
        *p++ = ',';
        p = put_fixed4(p, v[i]);
    }
    return p;
}

static char *put_run3(char *p, const double *v, int n)
{
    for (int i = 0; i < n; i++) {
        *p++ = ',';
        p = put_fixed3(p, v[i]);
    }
    return p;
}

void proto_state_body_compact(proto_buf *b, int dim, const proto_body_state *s)
{
    if (!proto_buf_reserve(b, dim == 2 ? 200 : 420))
        return;
    char *p = b->data + b->len;
    p = PUT(p, ",[");
    p = proto_put_u64(p, s->id);
    p = put_run4(p, s->pos, dim);
    p = put_run4(p, s->rot, dim == 2 ? 1 : 4);
    p = put_run3(p, s->vel, dim);
    p = put_run4(p, s->w, dim == 2 ? 1 : 3);
    *p++ = ']';
    b->len = (size_t)(p - b->data);
}

void proto_state_body_first(proto_buf *b, int dim, const proto_shape *shape,
                            proto_body_kind kind, uint32_t owner, const char *tag)
{
    LIT(b, ",\"shape\":");
    proto_write_shape(b, dim, shape);
    FIELD(b, ",\"kind\":\"", str, proto_kind_name(kind));
    FIELD(b, "\",\"owner\":", u64, owner);
    FIELD(b, ",\"tag\":", json_string, tag ? tag : "");
}

void proto_state_body_end(proto_buf *b)
{
    proto_buf_append_char(b, '}');
}

void proto_state_bodies_end(proto_buf *b)
{
    proto_buf_append_char(b, ']');
}

/* `,"KEY":[ids]` (`head` is `,"KEY":[`); nothing for none. */
static void write_ids(proto_buf *b, const char *head, const uint64_t *ids, size_t n)
{
    if (n == 0)
        return;
    proto_buf_append_str(b, head);
    for (size_t i = 0; i < n; i++) {
        if (i)
            proto_buf_append_char(b, ',');
        proto_buf_append_u64(b, ids[i]);
    }
    proto_buf_append_char(b, ']');
}

void proto_state_removed(proto_buf *b, const uint64_t *ids, size_t n)
{
    write_ids(b, ",\"removed\":[", ids, n);
}

void proto_state_removed_joints(proto_buf *b, const uint64_t *ids, size_t n)
{
    write_ids(b, ",\"removed_joints\":[", ids, n);
}

void proto_state_joints_begin(proto_buf *b) { LIT(b, ",\"joints\":["); }
void proto_state_joints_end(proto_buf *b) { proto_buf_append_char(b, ']'); }

void proto_state_joint(proto_buf *b, int dim, const proto_joint_state *j, bool first_in_list)
{
    proto_buf_append_str(b, first_in_list ? "{\"id\":" : ",{\"id\":");
    proto_buf_append_u64(b, j->id);
    FIELD(b, ",\"type\":\"", str, proto_joint_name(j->type));
    FIELD(b, "\",\"a\":", u64, j->a);
    FIELD(b, ",\"b\":", u64, j->b);
    FIELD(b, ",\"local_a\":", fixed_array, j->local_a, dim, DEC_SHAPE);
    FIELD(b, ",\"local_b\":", fixed_array, j->local_b, dim, DEC_SHAPE);
    proto_buf_append_char(b, '}');
}

void proto_state_contacts_begin(proto_buf *b)
{
    LIT(b, ",\"contacts\":[");
}

void proto_state_contact(proto_buf *b, int dim, const proto_contact *c, bool first_in_list)
{
    if (!first_in_list)
        proto_buf_append_char(b, ',');
    FIELD(b, "{\"a\":", u64, c->a);
    FIELD(b, ",\"b\":", u64, c->b);
    FIELD(b, ",\"normal\":", fixed_array, c->normal, dim, DEC_ROT);
    LIT(b, ",\"points\":[");
    for (int i = 0; i < c->npoints; i++) {
        if (i)
            proto_buf_append_char(b, ',');
        FIELD(b, "{\"pos\":", fixed_array, c->points[i], dim, DEC_POS);
        FIELD(b, ",\"depth\":", fixed, c->depths[i], DEC_DEPTH);
        FIELD(b, ",\"id\":", u64, c->ids[i]);
        proto_buf_append_char(b, '}');
    }
    LIT(b, "]}");
}

void proto_state_contacts_end(proto_buf *b)
{
    proto_buf_append_char(b, ']');
}

void proto_state_end(proto_buf *b)
{
    LIT(b, "}\n");
}
