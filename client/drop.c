/* The shapes a player drops in front of the avatar with the f key (--spawn SHAPE picks one),
 * each about 1 m across. Their types are named by the protocol's own table (proto_shape_name);
 * a preset with a name of its own is one shape of its type (the triangle, a polygon). */
#include <stdio.h>
#include <string.h>

#include "drop.h"
#include "send.h"
#include "world.h"

typedef struct drop {
    int dim;
    proto_shape_type type;
    const char *name;   /* NULL: the type's name */
    const char *fields; /* the shape's JSON after its type */
} drop;

/* The first of each dim is the default. */
static const drop drops[] = {
    {2, PROTO_SHAPE_BOX, NULL, "\"half\":[0.5,0.5]"},
    {2, PROTO_SHAPE_AABB, NULL, "\"half\":[0.5,0.5]"},
    {2, PROTO_SHAPE_CIRCLE, NULL, "\"radius\":0.5"},
    {2, PROTO_SHAPE_POLYGON, "triangle", "\"points\":[[-0.6,-0.4],[0.6,-0.4],[0,0.6]]"},
    {3, PROTO_SHAPE_BOX, NULL, "\"half\":[0.5,0.5,0.5]"},
    {3, PROTO_SHAPE_SPHERE, NULL, "\"radius\":0.5"},
    {3, PROTO_SHAPE_CAPSULE, NULL, "\"radius\":0.3,\"half_height\":0.4"},
    {3, PROTO_SHAPE_CYLINDER, NULL, "\"radius\":0.4,\"half_height\":0.4"},
    {3, PROTO_SHAPE_CONE, NULL, "\"radius\":0.5,\"half_height\":0.5"},
    {3, PROTO_SHAPE_ELLIPSOID, NULL, "\"radii\":[0.6,0.4,0.5]"},
};
#define NDROPS (sizeof drops / sizeof drops[0])

static const char *name_of(const drop *d)
{
    return d->name ? d->name : proto_shape_name(d->type);
}

/* The preset called `name` in dim, or NULL. */
static const drop *find(const char *name, int dim)
{
    for (size_t i = 0; i < NDROPS; i++)
        if (drops[i].dim == dim && strcmp(name_of(&drops[i]), name) == 0)
            return &drops[i];
    return NULL;
}

bool cli_drop_valid(const char *name, int dim)
{
    return find(name, dim) != NULL;
}

void cli_drop_names(int dim, const char *note, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < NDROPS && len < size; i++) {
        if (drops[i].dim != dim)
            continue;
        int n = snprintf(out + len, size - len, "%s%s%s", len ? ", " : "", name_of(&drops[i]),
                         len ? "" : note);
        if (n < 0)
            break;
        len += (size_t)n;
    }
}

/* Drops the chosen shape 1.5 m in front of the avatar (the way it last moved) and 3 m above
 * it, so that a pile can be built by hand. */
void cli_drop(cli_app *app)
{
    if (app->replaying || !app->has_avatar)
        return;
    const cli_body *me = cli_world_find(&app->world, app->avatar);
    if (!me)
        return;
    const char *name = app->spawn_shape[0] ? app->spawn_shape : "box";
    const drop *d = find(name, app->dim);
    if (!d)
        d = find("box", app->dim);
    char shape[128], body[384];
    snprintf(shape, sizeof shape, "{\"type\":\"%s\",%s}", proto_shape_name(d->type), d->fields);
    double ahead = 1.5 * (app->facing_x ? app->facing_x : 1);
    if (app->dim == 3)
        snprintf(body, sizeof body, "{\"shape\":%s,\"pos\":[%.3f,%.3f,%.3f],\"tag\":\"%s\"}",
                 shape, me->pos[0] + ahead * (app->facing_z ? 0 : 1), me->pos[1] + 3.0,
                 me->pos[2] + 1.5 * app->facing_z, name);
    else
        snprintf(body, sizeof body, "{\"shape\":%s,\"pos\":[%.3f,%.3f],\"tag\":\"%s\"}", shape,
                 me->pos[0] + ahead, me->pos[1] + 3.0, name);
    cli_send_spawn(app, "drop", body);
}
