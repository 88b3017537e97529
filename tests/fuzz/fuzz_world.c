/* A client's messages against a 2D world that keeps events: each line is parsed as the server
 * parses it; a spawn adds its body to a world that already holds the demo scene, an input
 * steers the newest body, a push, a set or an explosion acts on it (or on the client's
 * bodies), a query collides its two shapes; the world steps after every line. Whatever the
 * lines, every body keeps a finite state inside the world's bounds (or is removed), every
 * query answer is finite, with a unit normal and no negative depth or distance, and the
 * events come in tick order, a contact's bodies by id and a hit's numbers finite. */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "mink_world_io.h"

#define FUZZ_MAX_LINES 64
#define FUZZ_STEPS_PER_LINE 4

static void check_world(sim_world *w)
{
    size_t slots;
    const sim_body *b = sim_world_slots(w, &slots);
    float bounds = sim_world_config(w)->bounds;
    for (size_t i = 0; i < slots; i++) {
        if (!b[i].id)
            continue;
        fuzz_check(mk_v2_finite(b[i].pos) && mk_v2_finite(b[i].vel) && isfinite(b[i].angle));
        if (b[i].kind != SIM_STATIC)
            fuzz_check(fabsf(b[i].pos.x) <= bounds + 1e3f && fabsf(b[i].pos.y) <= bounds + 1e3f);
    }
}

static void check_result(const proto_result *r)
{
    if (r->hit) {
        fuzz_check(isfinite(r->depth) && r->depth >= 0.0);
        fuzz_check(r->npoints >= 1 && r->npoints <= 2);
    } else {
        fuzz_check(isfinite(r->distance) && r->distance >= 0.0);
    }
    double len = hypot(r->normal[0], r->normal[1]);
    fuzz_check(fabs(len - 1.0) < 1e-3);
}

static void check_events(sim_world *w)
{
    size_t n;
    const sim_event *e = sim_world_events(w, &n);
    for (size_t i = 0; i < n; i++) {
        fuzz_check(e[i].tick <= sim_world_tick(w) && (i == 0 || e[i - 1].tick <= e[i].tick));
        if (e[i].type == SIM_EVENT_CONTACT_BEGIN || e[i].type == SIM_EVENT_CONTACT_END)
            fuzz_check(e[i].a < e[i].b);
        fuzz_check(isfinite(e[i].speed) && mk_v3_finite(e[i].point));
    }
    sim_world_clear_events(w);
}

/* A push, a set or an explosion of the client's, on its newest body, as the server's handlers
 * make them (a refusal changes nothing). */
static void act(sim_world *w, const proto_msg *msg, sim_id last)
{
    const sim_body *b = sim_world_get(w, last);
    if (msg->type == PROTO_MSG_PUSH && b) {
        const proto_push *p = &msg->u.push;
        mk_vec2 at = mk_v2((float)p->point[0], (float)p->point[1]);
        sim_body_apply_impulse2(w, last, mk_v2((float)p->impulse[0], (float)p->impulse[1]),
                                p->has_point ? &at : NULL);
    } else if (msg->type == PROTO_MSG_SET && b) {
        const proto_set *p = &msg->u.set;
        if (p->has_pos || p->has_rot)
            sim_body_set_transform2(w, last,
                                    p->has_pos ? mk_v2((float)p->pos[0], (float)p->pos[1])
                                               : b->pos,
                                    p->has_rot ? (float)p->rot[0] : b->angle);
        if (p->has_vel)
            sim_body_set_velocity2(w, last, mk_v2((float)p->vel[0], (float)p->vel[1]));
        if (p->has_w)
            sim_body_set_spin2(w, last, (float)p->w[2]);
    } else if (msg->type == PROTO_MSG_EXPLODE) {
        const proto_explode *p = &msg->u.explode;
        sim_explosion e = {.pos = mk_v3((float)p->pos[0], (float)p->pos[1], 0),
                           .radius = (float)p->radius, .impulse = (float)p->impulse,
                           .filter = {.mask = p->mask}, .owned = true, .owner = 1};
        sim_world_explode(w, &e, NULL);
    }
}

static void on_line(sim_world *w, const char *line, size_t len, sim_id *last)
{
    proto_msg msg;
    proto_error err;
    if (proto_parse(line, len, 2, &msg, &err) != PROTO_OK)
        return;
    mk_error why = {0};
    if (msg.type == PROTO_MSG_SPAWN || (msg.type == PROTO_MSG_HELLO && msg.u.hello.has_avatar)) {
        const proto_body_spec *spec =
            msg.type == PROTO_MSG_SPAWN ? &msg.u.spawn.body : &msg.u.hello.avatar;
        sim_body_def def;
        if (wio_body_def_from_spec(spec, 2, &def, &why) == 0) {
            sim_id id = sim_world_add(w, &def, 1);
            if (id)
                *last = id;
        } else {
            fuzz_check(why.message[0] != '\0');
        }
    } else if (msg.type == PROTO_MSG_INPUT) {
        const sim_body *b = sim_world_get(w, *last);
        if (b)
            sim_body_set_input2(w, b->id,
                                mk_v2((float)msg.u.input.move[0], (float)msg.u.input.move[1]),
                                msg.u.input.jump);
    } else if (msg.type == PROTO_MSG_DESPAWN) {
        sim_world_remove(w, (sim_id)msg.u.despawn.id);
    } else if (msg.type == PROTO_MSG_QUERY) {
        proto_result r;
        if (wio_query(2, &msg.u.query.a, &msg.u.query.b, &r, &why) == 0)
            check_result(&r);
    } else {
        act(w, &msg, *last);
    }
    for (int i = 0; i < FUZZ_STEPS_PER_LINE; i++) {
        sim_world_step(w);
        check_events(w);
    }
    sim_world_clear_removed(w);
    check_world(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_config cfg = sim_config_default();
    cfg.events = true;
    mk_error err = {0};
    sim_world *w = wio_scene_load(wio_demo_scene2, strlen(wio_demo_scene2), "demo", &cfg, &err);
    fuzz_check(w != NULL);
    sim_id last = 0;
    const char *p = (const char *)data, *end = p + size;
    for (int n = 0; p < end && n < FUZZ_MAX_LINES; n++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        on_line(w, p, len, &last);
        p += len + 1;
    }
    sim_world_free(w);
    return 0;
}
