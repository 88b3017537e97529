/* Saving a world as a scene file that loads it back: every body with its id, shape, state and
 * properties, and the world's tick and gravity. Owners are not kept (the clients are gone);
 * the bodies come back as the server's, and the free slots keep their generations so that no
 * id is given out twice. Numbers are written with 9 significant digits, which
 * gives every float back exactly. The file is replaced whole or not at all
 * (wio_file_replace). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "world_io_internal.h"

static void put(proto_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void put(proto_buf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        proto_buf_append(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void put_shape(proto_buf *b, const col_shape2 *s)
{
    switch (s->type) {
    case COL_SHAPE_AABB:
    case COL_SHAPE_BOX:
        put(b, "{\"type\":\"%s\",\"half\":[%.9g,%.9g]}", s->type == COL_SHAPE_AABB ? "aabb" : "box",
            (double)s->half.x, (double)s->half.y);
        return;
    case COL_SHAPE_CIRCLE:
        put(b, "{\"type\":\"circle\",\"radius\":%.9g}", (double)s->radius);
        return;
    case COL_SHAPE_POLYGON:
        proto_buf_append_str(b, "{\"type\":\"polygon\",\"points\":[");
        for (int i = 0; i < s->polygon->count; i++)
            put(b, "%s[%.9g,%.9g]", i ? "," : "", (double)s->polygon->verts[i].x,
                (double)s->polygon->verts[i].y);
        proto_buf_append_str(b, "]}");
        return;
    case COL_SHAPE_COUNT:
        break;
    }
}

static void put_properties(const sim_world *w, const sim_body *o, proto_buf *b);

static void put_shape3(proto_buf *b, const col_shape3 *s)
{
    proto_shape p;
    wio_shape3_to_proto(s, &p);
    put(b, "{\"type\":\"%s\"", proto_shape_name(p.type));
    switch (s->type) {
    case COL_SHAPE3_SPHERE:
        put(b, ",\"radius\":%.9g}", (double)s->radius);
        return;
    case COL_SHAPE3_BOX:
    case COL_SHAPE3_ELLIPSOID:
        put(b, ",\"%s\":[%.9g,%.9g,%.9g]}", s->type == COL_SHAPE3_BOX ? "half" : "radii",
            (double)s->half.x, (double)s->half.y, (double)s->half.z);
        return;
    case COL_SHAPE3_CAPSULE:
    case COL_SHAPE3_CYLINDER:
    case COL_SHAPE3_CONE:
        put(b, ",\"radius\":%.9g,\"half_height\":%.9g}", (double)s->radius,
            (double)s->half_height);
        return;
    case COL_SHAPE3_HULL:
        proto_buf_append_str(b, ",\"points\":[");
        for (int i = 0; i < s->hull->vert_count; i++)
            put(b, "%s[%.9g,%.9g,%.9g]", i ? "," : "", (double)s->hull->verts[i].x,
                (double)s->hull->verts[i].y, (double)s->hull->verts[i].z);
        proto_buf_append_str(b, "]}");
        return;
    case COL_SHAPE3_COUNT:
        break;
    }
    proto_buf_append_char(b, '}');
}

/* A level body's shape with its whole level file, which a replay or a load reads back as it
 * is: the same triangles in the same order (geometry written out and built again could
 * order them otherwise). */
static void put_level(proto_buf *b, const sim_level *l, int dim)
{
    proto_shape p;
    wio_level_to_proto(l, WIO_LEVEL_FILE, &p);
    proto_write_shape(b, dim, &p);
    proto_shape_free(&p);
}

void wio_write_body_fields(const sim_world *w, const sim_body *o, proto_buf *b)
{
    const sim_body3 *o3 = sim_body3_of(w, o);
    if (o3) {
        proto_buf_append_str(b, "\"shape\":");
        if (o->level)
            put_level(b, o->level, 3);
        else
            put_shape3(b, &o3->shape);
        put(b, ",\"pos\":[%.9g,%.9g,%.9g],\"rot\":[%.9g,%.9g,%.9g,%.9g]", (double)o3->pos.x,
            (double)o3->pos.y, (double)o3->pos.z, (double)o3->rot.x, (double)o3->rot.y,
            (double)o3->rot.z, (double)o3->rot.w);
        put(b, ",\"vel\":[%.9g,%.9g,%.9g],\"kind\":\"%s\"", (double)o3->vel.x,
            (double)o3->vel.y, (double)o3->vel.z, proto_kind_name(wio_kind_to_proto(o->kind)));
        put_properties(w, o, b);
        return;
    }
    proto_buf_append_str(b, "\"shape\":");
    if (o->level)
        put_level(b, o->level, 2);
    else
        put_shape(b, &o->shape);
    put(b, ",\"pos\":[%.9g,%.9g],\"rot\":%.9g,\"vel\":[%.9g,%.9g],\"kind\":\"%s\"",
        (double)o->pos.x, (double)o->pos.y, (double)o->angle, (double)o->vel.x,
        (double)o->vel.y, proto_kind_name(wio_kind_to_proto(o->kind)));
    put_properties(w, o, b);
}

/* The properties; the filter and the sensor flag only when they are not the default, so that a
 * world that uses neither writes what it wrote before they existed. */
static void put_properties(const sim_world *w, const sim_body *o, proto_buf *b)
{
    put(b, ",\"density\":%.9g,\"friction\":%.9g,\"restitution\":%.9g,\"max_speed\":%.9g,"
           "\"jump_height\":%.9g,\"max_slope\":%.9g,\"tag\":",
        (double)o->density, (double)o->friction, (double)o->restitution, (double)o->max_speed,
        (double)o->jump_height, (double)o->max_slope);
    proto_buf_append_json_string(b, o->tag);
    proto_filter f;
    bool sensor;
    wio_body_filter(w, o, &f, &sensor);
    proto_state_body_filter(b, &f, sensor);
}

void wio_world_write(const sim_world *w, proto_buf *b)
{
    const sim_config *cfg = sim_world_config(w);
    unsigned long long tick = (unsigned long long)sim_world_tick(w);
    if (cfg->dim == 3)
        put(b, "{\"dim\":3,\"tick\":%llu,\"gravity\":[%.9g,%.9g,%.9g],\"bodies\":[\n", tick,
            (double)cfg->gravity3.x, (double)cfg->gravity3.y, (double)cfg->gravity3.z);
    else
        put(b, "{\"dim\":2,\"tick\":%llu,\"gravity\":[%.9g,%.9g],\"bodies\":[\n", tick,
            (double)cfg->gravity.x, (double)cfg->gravity.y);
    /* The moving bodies in the broadphase's order, then the static ones: a world loaded from
     * the file lists them the same way, and so steps the same way. */
    const uint32_t *order, *statics;
    size_t movers, fixed;
    sim_world_step_order(w, &order, &movers, &statics, &fixed);
    size_t slot_count;
    const sim_body *bodies = sim_world_slots((sim_world *)w, &slot_count);
    for (size_t i = 0; i < movers + fixed; i++) {
        const sim_body *o = &bodies[i < movers ? order[i] : statics[i - movers]];
        put(b, "%s{\"id\":%llu,", i ? ",\n" : "", (unsigned long long)o->id);
        wio_write_body_fields(w, o, b);
        const sim_body3 *o3 = sim_body3_of(w, o);
        if (o3 && (o3->w.x != 0.0f || o3->w.y != 0.0f || o3->w.z != 0.0f))
            put(b, ",\"w\":[%.9g,%.9g,%.9g]", (double)o3->w.x, (double)o3->w.y,
                (double)o3->w.z);
        else if (!o3 && o->w != 0.0f)
            put(b, ",\"w\":%.9g", (double)o->w);
        if (o->sleeping)
            proto_buf_append_str(b, ",\"sleeping\":true");
        proto_buf_append_char(b, '}');
    }
    /* The free slots that have held bodies, with the generation of the next id each gives
     * out: no id comes back after a restart. */
    proto_buf_append_str(b, "\n],\"free\":[");
    bool first = true;
    for (size_t s = 0; s < slot_count; s++) {
        uint32_t generation = sim_world_slot_generation(w, (uint32_t)s);
        if (bodies[s].id != 0 || generation == 0)
            continue;
        put(b, "%s[%zu,%u]", first ? "" : ",", s, generation);
        first = false;
    }
    proto_buf_append_char(b, ']');
    wio_write_scene_joints(w, b);
    proto_buf_append_str(b, "}\n");
}

int wio_world_save(const sim_world *w, const char *path, mk_error *err)
{
    proto_buf b;
    proto_buf_init(&b);
    wio_world_write(w, &b);
    int rc = -1;
    if (b.failed) {
        mk_fail(err, MK_ERR_IO, "%s: out of memory", path);
    } else {
        const wio_piece piece = {b.data, b.len};
        rc = wio_file_replace(path, &piece, 1, err);
    }
    proto_buf_free(&b);
    return rc;
}
