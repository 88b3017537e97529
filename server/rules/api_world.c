/* The script's view of the world (`mink.*`): spawning from a body spec (the protocol's
 * validation, through world_io, so the messages are a client's), despawning, reading bodies,
 * velocities and impulses, explosions, and the world queries. Every change goes through
 * mink_sim's API or, where it has none yet (a velocity, an impulse: see set_motion), writes
 * only what the step itself writes between steps. Vectors are arrays: {x, y} or {x, y, z}. */
#include <cJSON.h>
#include <lauxlib.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "mink_world_io.h"
#include "rules_internal.h"

static rul_runtime *rt_of(lua_State *L) { return rul_state_of(L)->rt; }

void rul_push_vec(lua_State *L, mk_vec3 v, int dim)
{
    lua_createtable(L, dim, 0);
    lua_pushnumber(L, v.x);
    lua_rawseti(L, -2, 1);
    lua_pushnumber(L, v.y);
    lua_rawseti(L, -2, 2);
    if (dim == 3) {
        lua_pushnumber(L, v.z);
        lua_rawseti(L, -2, 3);
    }
}

/* The vector at idx: an array of `dim` finite numbers, each at most max_abs. */
static mk_vec3 read_vec(lua_State *L, int idx, int dim, double max_abs, const char *what)
{
    float c[3] = {0, 0, 0};
    if (lua_type(L, idx) != LUA_TTABLE)
        luaL_error(L, "%s: an array of %d numbers expected", what, dim);
    for (int k = 0; k < dim; k++) {
        lua_rawgeti(L, idx, k + 1);
        int ok;
        double v = lua_tonumberx(L, -1, &ok);
        lua_pop(L, 1);
        if (!ok || !isfinite(v) || fabs(v) > max_abs)
            luaL_error(L, "%s[%d]: a finite number in [-%f, %f] expected", what, k + 1,
                       (lua_Number)max_abs, (lua_Number)max_abs);
        c[k] = (float)v;
    }
    return mk_v3(c[0], c[1], c[2]);
}

static sim_id id_arg(lua_State *L, int idx)
{
    lua_Integer id = luaL_checkinteger(L, idx);
    return id > 0 ? (sim_id)id : 0;
}

/* nil and a message (lua_pushfstring's format): what a call that could not be made answers. */
static int refuse(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lua_pushnil(L);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    return 2;
}

/* The body spec (or placed shape) at idx as the world's definition in rt->def, validated by
 * the protocol's parser; 0, or -1 with err. */
static int def_of(lua_State *L, int idx, const char *root, mk_error *err)
{
    rul_runtime *rt = rt_of(L);
    rul_json_text(L, idx, root);
    cJSON *j = cJSON_ParseWithLength(rt->text.data, rt->text.len);
    if (!j)
        return mk_fail(err, MK_ERR_INVALID, "%s: out of memory", root);
    proto_body_spec spec;
    int dim = sim_world_dim(rt->world);
    proto_error_code rc = proto_parse_body_spec(j, dim, root, &spec, err);
    cJSON_Delete(j);
    if (rc != PROTO_OK)
        return -1;
    if (wio_body_def_from_spec(&spec, dim, rt->def, err) != 0)
        return mk_error_prefix(err, "%s.", root);
    return 0;
}

/* mink.spawn(spec, owner?) -> id, or nil and why. */
static int w_spawn(lua_State *L)
{
    rul_need_hook(L, "mink.spawn");
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer owner = luaL_optinteger(L, 2, 0);
    luaL_argcheck(L, owner >= 0 && owner <= INT32_MAX, 2, "an owner is in [0, 2^31-1]");
    mk_error err;
    if (def_of(L, 1, "spec", &err) != 0)
        return refuse(L, "%s", err.message);
    sim_id id = sim_world_add(rt_of(L)->world, rt_of(L)->def, (uint32_t)owner);
    if (id == 0)
        return refuse(L, "mink.spawn: the world is full");
    lua_pushinteger(L, (lua_Integer)id);
    return 1;
}

static int w_despawn(lua_State *L)
{
    rul_need_hook(L, "mink.despawn");
    sim_id id = id_arg(L, 1);
    if (!sim_world_remove(rt_of(L)->world, id))
        return refuse(L, "mink.despawn: no body %I", (lua_Integer)id);
    lua_pushboolean(L, 1);
    return 1;
}

static void set_number(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

/* mink.body(id) -> {id, kind, pos, vel, angle | rot, w, owner, tag, sleeping, grounded}. */
static int w_body(lua_State *L)
{
    sim_world *w = rt_of(L)->world;
    sim_body *b = sim_world_get(w, id_arg(L, 1));
    if (!b) {
        lua_pushnil(L);
        return 1;
    }
    const sim_body3 *b3 = sim_body3_of(w, b);
    int dim = b3 ? 3 : 2;
    lua_createtable(L, 0, 10);
    lua_pushinteger(L, (lua_Integer)b->id);
    lua_setfield(L, -2, "id");
    lua_pushstring(L, proto_kind_name(wio_kind_to_proto(b->kind)));
    lua_setfield(L, -2, "kind");
    if (b3) {
        rul_push_vec(L, b3->pos, 3);
        lua_setfield(L, -2, "pos");
        rul_push_vec(L, b3->vel, 3);
        lua_setfield(L, -2, "vel");
        rul_push_vec(L, b3->w, 3);
        lua_setfield(L, -2, "w");
        lua_createtable(L, 4, 0);
        const float q[4] = {b3->rot.x, b3->rot.y, b3->rot.z, b3->rot.w};
        for (int k = 0; k < 4; k++) {
            lua_pushnumber(L, q[k]);
            lua_rawseti(L, -2, k + 1);
        }
        lua_setfield(L, -2, "rot");
    } else {
        rul_push_vec(L, mk_v3(b->pos.x, b->pos.y, 0), dim);
        lua_setfield(L, -2, "pos");
        rul_push_vec(L, mk_v3(b->vel.x, b->vel.y, 0), dim);
        lua_setfield(L, -2, "vel");
        set_number(L, "angle", b->angle);
        set_number(L, "w", b->w);
    }
    lua_pushinteger(L, b->owner);
    lua_setfield(L, -2, "owner");
    lua_pushstring(L, b->tag);
    lua_setfield(L, -2, "tag");
    lua_pushboolean(L, b->sleeping);
    lua_setfield(L, -2, "sleeping");
    lua_pushboolean(L, b->grounded);
    lua_setfield(L, -2, "grounded");
    return 1;
}

/* mink.pos(id), mink.vel(id) -> x, y[, z]: a body's position or velocity as numbers, with no
 * table made (for loops over many bodies); nothing for an id not in the world. */
static int pos_or_vel(lua_State *L, bool vel)
{
    sim_world *w = rt_of(L)->world;
    const sim_body *b = sim_world_get(w, id_arg(L, 1));
    if (!b)
        return 0;
    const sim_body3 *b3 = sim_body3_of(w, b);
    mk_vec3 v = b3 ? (vel ? b3->vel : b3->pos) : vel ? mk_v3(b->vel.x, b->vel.y, 0)
                                                      : mk_v3(b->pos.x, b->pos.y, 0);
    lua_pushnumber(L, v.x);
    lua_pushnumber(L, v.y);
    if (!b3)
        return 2;
    lua_pushnumber(L, v.z);
    return 3;
}

static int w_pos(lua_State *L) { return pos_or_vel(L, false); }
static int w_vel(lua_State *L) { return pos_or_vel(L, true); }

static int kind_named(const char *name)
{
    for (int k = PROTO_KIND_DYNAMIC; k <= PROTO_KIND_CHARACTER; k++)
        if (strcmp(proto_kind_name((proto_body_kind)k), name) == 0)
            return (int)wio_kind_from_proto((proto_body_kind)k);
    return -1;
}

/* mink.bodies(filter?) -> the ids, in slot order, of the bodies whose tag, owner and kind are
 * the filter's. */
static int w_bodies(lua_State *L)
{
    sim_world *w = rt_of(L)->world;
    const char *tag = NULL;
    lua_Integer owner = -1;
    int kind = -1;
    if (!lua_isnoneornil(L, 1)) {
        luaL_checktype(L, 1, LUA_TTABLE);
        if (lua_getfield(L, 1, "tag") != LUA_TNIL)
            tag = luaL_checkstring(L, -1);
        if (lua_getfield(L, 1, "owner") != LUA_TNIL)
            owner = luaL_checkinteger(L, -1);
        if (lua_getfield(L, 1, "kind") != LUA_TNIL &&
            (kind = kind_named(luaL_checkstring(L, -1))) < 0)
            return luaL_error(L, "mink.bodies: kind is dynamic, static, kinematic or character");
    }
    size_t n;
    const sim_body *slots = sim_world_slots(w, &n);
    rul_charge(L, n);
    lua_newtable(L);
    lua_Integer count = 0;
    for (size_t i = 0; i < n; i++) {
        const sim_body *b = &slots[i];
        if (b->id == 0 || (tag && strcmp(tag, b->tag) != 0) ||
            (owner >= 0 && (lua_Integer)b->owner != owner) || (kind >= 0 && (int)b->kind != kind))
            continue;
        lua_pushinteger(L, (lua_Integer)b->id);
        lua_rawseti(L, -2, ++count);
    }
    return 1;
}

/* A body whose motion the rules may change now: a moving one that is awake. The world has no
 * call yet that wakes a body or moves it (sim_body_wake, sim_body_set_transform): until it
 * has, a sleeping body is refused, and so is a position, whose bounds only the step keeps. */
static sim_body *moving_body(lua_State *L, sim_id id, const char *fn, const char **why)
{
    sim_body *b = sim_world_get(rt_of(L)->world, id);
    *why = NULL;
    if (!b)
        *why = lua_pushfstring(L, "%s: no body %I", fn, (lua_Integer)id);
    else if (b->kind == SIM_STATIC)
        *why = lua_pushfstring(L, "%s: body %I is static", fn, (lua_Integer)id);
    else if (b->sleeping)
        *why = lua_pushfstring(L, "%s: body %I is asleep, and waking it needs sim_body_wake, "
                                  "which this world does not have yet", fn, (lua_Integer)id);
    return *why ? NULL : b;
}

/* mink.set(id, {vel?, w?}): a new velocity (m/s) or spin (rad/s; a 3D vector in 3D) for an
 * awake moving body. Written as the step writes its inputs' velocities: the step reads them
 * next (sim has no setter yet). */
static int w_set(lua_State *L)
{
    rul_need_hook(L, "mink.set");
    sim_id id = id_arg(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    static const char *const placement[] = {"pos", "rot", "angle"};
    for (int i = 0; i < 3; i++) {
        if (lua_getfield(L, 2, placement[i]) != LUA_TNIL)
            return luaL_error(L, "mink.set: %s needs sim_body_set_transform, which this world "
                                 "does not have yet (despawn and spawn to move a body)",
                              placement[i]);
        lua_pop(L, 1);
    }
    const char *why;
    sim_body *b = moving_body(L, id, "mink.set", &why);
    if (!b) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    sim_world *w = rt_of(L)->world;
    sim_body3 *b3 = sim_body3_of(w, b);
    int dim = b3 ? 3 : 2;
    bool has_vel = lua_getfield(L, 2, "vel") != LUA_TNIL, has_w = lua_getfield(L, 2, "w") != LUA_TNIL;
    mk_vec3 vel = has_vel ? read_vec(L, -2, dim, PROTO_MAX_VEL, "mink.set: vel") : mk_v3(0, 0, 0);
    mk_vec3 spin = mk_v3(0, 0, 0);
    if (has_w && b3) {
        spin = read_vec(L, -1, 3, PROTO_MAX_VEL, "mink.set: w");
    } else if (has_w) {
        int ok;
        double v = lua_tonumberx(L, -1, &ok);
        if (!ok || !isfinite(v) || fabs(v) > PROTO_MAX_VEL)
            return luaL_error(L, "mink.set: w is a finite number in 2D");
        spin.z = (float)v;
    }
    if (b3) {
        if (has_vel)
            b3->vel = vel;
        if (has_w)
            b3->w = spin;
    } else {
        if (has_vel)
            b->vel = mk_v2(vel.x, vel.y);
        if (has_w)
            b->w = spin.z;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* An impulse J (N s) at a world point p on a moving body: its velocity changes by J / m and
 * its spin by I^-1 (r x J), r from its centre of mass to p (the point's; none: the centre). */
static void apply_impulse(sim_world *w, sim_body *b, mk_vec3 j, const mk_vec3 *p)
{
    sim_body3 *b3 = sim_body3_of(w, b);
    if (b3) {
        b3->vel = mk_v3_add(b3->vel, mk_v3_scale(j, b->inv_mass));
        if (p) {
            mk_vec3 c = mk_v3_add(b3->pos, mk_quat_rotate(b3->rot, b3->local_center));
            mk_vec3 t = mk_quat_unrotate(b3->rot, mk_v3_cross(mk_v3_sub(*p, c), j));
            b3->w = mk_v3_add(b3->w, mk_quat_rotate(b3->rot, mk_m3_mul_v(b3->inv_inertia, t)));
        }
        return;
    }
    b->vel = mk_v2_add(b->vel, mk_v2_scale(mk_v2(j.x, j.y), b->inv_mass));
    if (p) {
        float c = cosf(b->angle), s = sinf(b->angle);
        mk_vec2 lc = b->local_center;
        mk_vec2 centre = mk_v2(b->pos.x + c * lc.x - s * lc.y, b->pos.y + s * lc.x + c * lc.y);
        mk_vec2 r = mk_v2(p->x - centre.x, p->y - centre.y);
        b->w += b->inv_inertia * mk_v2_cross(r, mk_v2(j.x, j.y));
    }
}

/* mink.push(id, impulse, point?) */
static int w_push(lua_State *L)
{
    rul_need_hook(L, "mink.push");
    sim_world *w = rt_of(L)->world;
    int dim = sim_world_dim(w);
    sim_id id = id_arg(L, 1);
    mk_vec3 j = read_vec(L, 2, dim, 1e9, "mink.push: impulse");
    mk_vec3 p;
    bool at = !lua_isnoneornil(L, 3);
    if (at)
        p = read_vec(L, 3, dim, PROTO_MAX_COORD, "mink.push: point");
    const char *why;
    sim_body *b = moving_body(L, id, "mink.push", &why);
    if (b && b->inv_mass == 0.0f) {
        b = NULL;
        why = lua_pushfstring(L, "mink.push: body %I is kinematic: impulses do not move it",
                              (lua_Integer)id);
    }
    if (!b) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    apply_impulse(w, b, j, at ? &p : NULL);
    lua_pushboolean(L, 1);
    return 1;
}

/* mink.explode(pos, radius, impulse) -> bodies pushed, bodies skipped asleep: each awake body
 * with mass whose bounds come within radius gets an impulse away from pos at its centre, of
 * `impulse` N s falling linearly to 0 at the radius (from its centre's distance). */
static int w_explode(lua_State *L)
{
    rul_need_hook(L, "mink.explode");
    sim_world *w = rt_of(L)->world;
    int dim = sim_world_dim(w);
    mk_vec3 c = read_vec(L, 1, dim, PROTO_MAX_COORD, "mink.explode: pos");
    double radius = luaL_checknumber(L, 2), impulse = luaL_checknumber(L, 3);
    luaL_argcheck(L, radius > 0 && radius <= PROTO_MAX_RADIUS, 2, "a radius in (0, 1e6]");
    luaL_argcheck(L, isfinite(impulse) && fabs(impulse) <= 1e9, 3, "an impulse in [-1e9, 1e9]");
    const uint32_t *slots;
    size_t n;
    if (!sim_world_bodies_near(w, c, (float)radius, &slots, &n))
        return refuse(L, "mink.explode: out of memory");
    rul_charge(L, n);
    size_t slot_count;
    sim_body *bodies = sim_world_slots(w, &slot_count);
    lua_Integer pushed = 0, asleep = 0;
    for (size_t i = 0; i < n; i++) {
        sim_body *b = &bodies[slots[i]];
        if (b->inv_mass == 0.0f)
            continue;
        if (b->sleeping) {
            asleep++;
            continue;
        }
        const sim_body3 *b3 = sim_body3_of(w, b);
        mk_vec3 d = b3 ? mk_v3_sub(b3->pos, c) : mk_v3(b->pos.x - c.x, b->pos.y - c.y, 0);
        float dist = mk_v3_len(d);
        float k = (float)impulse * (1.0f - dist / (float)radius);
        if (k <= 0.0f)
            continue;
        mk_vec3 dir = dist > 1e-6f ? mk_v3_scale(d, 1.0f / dist) : mk_v3(0, 1, 0);
        apply_impulse(w, b, mk_v3_scale(dir, k), NULL);
        pushed++;
    }
    lua_pushinteger(L, pushed);
    lua_pushinteger(L, asleep);
    return 2;
}

/* ---- queries ---- */

/* A query's options at idx: at_tick (default now), ignore (ids, at most 64), kinds (names). */
typedef struct query_opts {
    uint64_t tick;
    sim_id ignore[PROTO_MAX_IGNORE];
    sim_query_filter f;
    bool all;
} query_opts;

static void read_opts(lua_State *L, int idx, const char *fn, query_opts *o)
{
    sim_world *w = rt_of(L)->world;
    memset(o, 0, sizeof *o);
    o->tick = sim_world_tick(w);
    o->f.ignore = o->ignore;
    if (lua_isnoneornil(L, idx))
        return;
    luaL_checktype(L, idx, LUA_TTABLE);
    if (lua_getfield(L, idx, "at_tick") != LUA_TNIL)
        o->tick = (uint64_t)luaL_checkinteger(L, -1);
    o->all = lua_getfield(L, idx, "all") != LUA_TNIL && lua_toboolean(L, -1);
    if (lua_getfield(L, idx, "ignore") != LUA_TNIL) {
        luaL_checktype(L, -1, LUA_TTABLE);
        size_t n = lua_rawlen(L, -1);
        if (n > PROTO_MAX_IGNORE)
            luaL_error(L, "%s: ignore holds at most %d ids", fn, PROTO_MAX_IGNORE);
        for (size_t i = 0; i < n; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i + 1);
            o->ignore[i] = (sim_id)luaL_checkinteger(L, -1);
            lua_pop(L, 1);
        }
        o->f.ignore_count = n;
    }
    if (lua_getfield(L, idx, "kinds") != LUA_TNIL) {
        luaL_checktype(L, -1, LUA_TTABLE);
        for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
            int k = lua_type(L, -1) == LUA_TSTRING ? kind_named(lua_tostring(L, -1)) : -1;
            if (k < 0)
                luaL_error(L, "%s: kinds are dynamic, static, kinematic or character", fn);
            o->f.kinds |= 1u << k;
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 4);
}

/* The answer of a query that failed: -1 memory, -2 a tick outside the history. */
static int query_failed(lua_State *L, int n, const query_opts *o)
{
    sim_world *w = rt_of(L)->world;
    if (n == SIM_QUERY_NO_HISTORY)
        return refuse(L, "at_tick: %I is outside the history (ticks %I to %I)",
                      (lua_Integer)o->tick, (lua_Integer)sim_world_history_oldest(w),
                      (lua_Integer)sim_world_tick(w));
    return refuse(L, "out of memory for the query");
}

static void push_hit(lua_State *L, const sim_hit *h, int dim, bool overlap)
{
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, (lua_Integer)h->id);
    lua_setfield(L, -2, "id");
    rul_push_vec(L, h->normal, dim);
    lua_setfield(L, -2, "normal");
    if (!overlap) {
        set_number(L, "fraction", h->fraction);
        rul_push_vec(L, h->point, dim);
        lua_setfield(L, -2, "point");
        return;
    }
    set_number(L, "depth", h->depth);
    lua_createtable(L, h->npoints, 0);
    for (int i = 0; i < h->npoints; i++) {
        rul_push_vec(L, h->points[i], dim);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "points");
}

static void push_hits(lua_State *L, int n, int dim, bool overlap)
{
    const sim_hit *hits = rt_of(L)->hits;
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        push_hit(L, &hits[i], dim, overlap);
        lua_rawseti(L, -2, i + 1);
    }
}

/* mink.raycast(from, to, opts?) -> hits (nearest first; with opts.all every one) */
static int w_raycast(lua_State *L)
{
    rul_runtime *rt = rt_of(L);
    int dim = sim_world_dim(rt->world);
    mk_vec3 from = read_vec(L, 1, dim, PROTO_MAX_COORD, "mink.raycast: from");
    mk_vec3 to = read_vec(L, 2, dim, PROTO_MAX_COORD, "mink.raycast: to");
    query_opts o;
    read_opts(L, 3, "mink.raycast", &o);
    size_t total;
    int n = sim_world_raycast(rt->world, o.tick, from, to, &o.f, o.all, rt->hits, RUL_MAX_HITS,
                              &total);
    if (n < 0)
        return query_failed(L, n, &o);
    push_hits(L, n, dim, false);
    return 1;
}

/* The placed shape {shape, pos, rot?} at idx as a query's shape (rt->def holds its hull). */
static bool query_shape(lua_State *L, int idx, sim_query_shape *s, mk_error *err)
{
    rul_runtime *rt = rt_of(L);
    luaL_checktype(L, idx, LUA_TTABLE);
    if (def_of(L, idx, "shape", err) != 0)
        return false;
    memset(s, 0, sizeof *s);
    const sim_body_def *d = rt->def;
    if (sim_world_dim(rt->world) == 3) {
        s->shape3 = d->d3.shape;
        s->xf3 = (col_xf3){d->d3.pos, d->d3.rot};
    } else {
        s->shape2 = d->shape;
        s->xf2 = (col_xf2){d->pos, d->angle};
    }
    return true;
}

/* A placed shape's query: the shape at 1, the options at opts_idx; false with nil and why
 * pushed when the shape is refused. */
static bool placed_query(lua_State *L, int opts_idx, const char *fn, sim_query_shape *s,
                         query_opts *o)
{
    read_opts(L, opts_idx, fn, o);
    mk_error err;
    if (query_shape(L, 1, s, &err))
        return true;
    refuse(L, "%s", err.message);
    return false;
}

/* mink.cast({shape, pos, rot?}, to, opts?) -> the first hit, or nil */
static int w_cast(lua_State *L)
{
    rul_runtime *rt = rt_of(L);
    int dim = sim_world_dim(rt->world);
    mk_vec3 to = read_vec(L, 2, dim, PROTO_MAX_COORD, "mink.cast: to");
    sim_query_shape s;
    query_opts o;
    if (!placed_query(L, 3, "mink.cast", &s, &o))
        return 2;
    mk_vec3 from = dim == 3 ? rt->def->d3.pos : mk_v3(rt->def->pos.x, rt->def->pos.y, 0);
    int n = sim_world_cast(rt->world, o.tick, &s, mk_v3_sub(to, from), &o.f, rt->hits);
    if (n < 0)
        return query_failed(L, n, &o);
    if (n == 0) {
        lua_pushnil(L);
        return 1;
    }
    push_hit(L, &rt->hits[0], dim, false);
    return 1;
}

/* mink.overlap({shape, pos, rot?}, opts?) -> hits, by id */
static int w_overlap(lua_State *L)
{
    rul_runtime *rt = rt_of(L);
    sim_query_shape s;
    query_opts o;
    if (!placed_query(L, 2, "mink.overlap", &s, &o))
        return 2;
    size_t total;
    int n = sim_world_overlap(rt->world, o.tick, &s, &o.f, rt->hits, RUL_MAX_HITS, &total);
    if (n < 0)
        return query_failed(L, n, &o);
    push_hits(L, n, sim_world_dim(rt->world), true);
    return 1;
}

void rul_world_open(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"spawn", w_spawn},     {"despawn", w_despawn}, {"body", w_body},
        {"pos", w_pos},         {"vel", w_vel},
        {"bodies", w_bodies},   {"set", w_set},         {"push", w_push},
        {"explode", w_explode}, {"raycast", w_raycast}, {"cast", w_cast},
        {"overlap", w_overlap}, {NULL, NULL},
    };
    lua_getglobal(L, "mink");
    for (const luaL_Reg *f = fns; f->name; f++) {
        lua_pushcfunction(L, f->func);
        lua_setfield(L, -2, f->name);
    }
    lua_pop(L, 1);
}
