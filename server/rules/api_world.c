/* The script's view of the world (`mink.*`): spawning from a body spec (the protocol's
 * validation, through world_io, so the messages are a client's), despawning, reading bodies,
 * and the world queries (velocities, impulses and explosions are api_motion.c's). Vectors are
 * arrays: {x, y} or {x, y, z}. */
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

mk_vec3 rul_read_vec(lua_State *L, int idx, int dim, double max_abs, const char *what)
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

sim_id rul_id_arg(lua_State *L, int idx)
{
    lua_Integer id = luaL_checkinteger(L, idx);
    return id > 0 ? (sim_id)id : 0;
}

int rul_refuse(lua_State *L, const char *fmt, ...)
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
    int built = wio_body_def_from_spec(&spec, dim, rt->def, err);
    proto_shape_free(&spec.shape);
    if (built != 0)
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
        return rul_refuse(L, "%s", err.message);
    sim_id id = sim_world_add(rt_of(L)->world, rt_of(L)->def, (uint32_t)owner);
    sim_level_release(rt_of(L)->def->level); /* a level body's: the world holds it */
    rt_of(L)->def->level = NULL;
    if (id == 0)
        return rul_refuse(L, "mink.spawn: the world is full");
    lua_pushinteger(L, (lua_Integer)id);
    return 1;
}

static int w_despawn(lua_State *L)
{
    rul_need_hook(L, "mink.despawn");
    sim_id id = rul_id_arg(L, 1);
    if (!sim_world_remove(rt_of(L)->world, id))
        return rul_refuse(L, "mink.despawn: no body %I", (lua_Integer)id);
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
    const sim_body *b = sim_world_get(w, rul_id_arg(L, 1));
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
    const sim_body *b = sim_world_get(w, rul_id_arg(L, 1));
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

int rul_kind_named(const char *name)
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
            (kind = rul_kind_named(luaL_checkstring(L, -1))) < 0)
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

/* ---- queries ---- */

void rul_read_opts(lua_State *L, int idx, const char *fn, rul_query_opts *o)
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
            int k = lua_type(L, -1) == LUA_TSTRING ? rul_kind_named(lua_tostring(L, -1)) : -1;
            if (k < 0)
                luaL_error(L, "%s: kinds are dynamic, static, kinematic or character", fn);
            o->f.kinds |= 1u << k;
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    if (lua_getfield(L, idx, "mask") != LUA_TNIL) {
        lua_Integer mask = luaL_checkinteger(L, -1);
        if (mask < 1 || mask > ((lua_Integer)1 << 53))
            luaL_error(L, "%s: mask is a whole number in [1, 2^53]", fn);
        o->f.mask = (uint64_t)mask;
    }
    lua_pop(L, 5);
}

/* The answer of a query that failed: -1 memory, -2 a tick outside the history. */
static int query_failed(lua_State *L, int n, const rul_query_opts *o)
{
    sim_world *w = rt_of(L)->world;
    if (n == SIM_QUERY_NO_HISTORY)
        return rul_refuse(L, "at_tick: %I is outside the history (ticks %I to %I)",
                      (lua_Integer)o->tick, (lua_Integer)sim_world_history_oldest(w),
                      (lua_Integer)sim_world_tick(w));
    return rul_refuse(L, "out of memory for the query");
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
    mk_vec3 from = rul_read_vec(L, 1, dim, PROTO_MAX_COORD, "mink.raycast: from");
    mk_vec3 to = rul_read_vec(L, 2, dim, PROTO_MAX_COORD, "mink.raycast: to");
    rul_query_opts o;
    rul_read_opts(L, 3, "mink.raycast", &o);
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
    if (rt->def->level) {
        sim_level_release(rt->def->level);
        rt->def->level = NULL;
        mk_fail(err, MK_ERR_INVALID, "shape.type: level geometry is a body's, not a query's");
        return false;
    }
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
                         rul_query_opts *o)
{
    rul_read_opts(L, opts_idx, fn, o);
    mk_error err;
    if (query_shape(L, 1, s, &err))
        return true;
    rul_refuse(L, "%s", err.message);
    return false;
}

/* mink.cast({shape, pos, rot?}, to, opts?) -> the first hit, or nil */
static int w_cast(lua_State *L)
{
    rul_runtime *rt = rt_of(L);
    int dim = sim_world_dim(rt->world);
    mk_vec3 to = rul_read_vec(L, 2, dim, PROTO_MAX_COORD, "mink.cast: to");
    sim_query_shape s;
    rul_query_opts o;
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
    rul_query_opts o;
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
        {"bodies", w_bodies},   {"set", rul_set},       {"push", rul_push},
        {"explode", rul_explode}, {"raycast", w_raycast}, {"cast", w_cast},
        {"overlap", w_overlap}, {"joint", rul_joint},   {"unjoint", rul_unjoint},
        {NULL, NULL},
    };
    lua_getglobal(L, "mink");
    for (const luaL_Reg *f = fns; f->name; f++) {
        lua_pushcfunction(L, f->func);
        lua_setfield(L, -2, f->name);
    }
    lua_pop(L, 1);
}
