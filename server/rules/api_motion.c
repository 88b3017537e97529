/* The rules' changes to bodies' placement and motion (`mink.set`, `mink.push`, `mink.explode`),
 * made through the world's own calls (sim_body_set_transform2/3, sim_body_set_velocity2/3,
 * sim_body_set_spin2/3, sim_body_apply_impulse2/3, sim_world_explode), which wake what they
 * move and report the change to the world's listener (sim_world_on_change). */
#include <lauxlib.h>
#include <math.h>

#include "rules_internal.h"

/* The world the call `fn` acts on; raises when no hook is running (rul_need_hook). */
static sim_world *hook_world(lua_State *L, const char *fn)
{
    rul_need_hook(L, fn);
    return rul_state_of(L)->rt->world;
}

/* Whether a body turns (keeps a spin): a dynamic one of a shape that turns. */
static bool turns(const sim_world *w, const sim_body *b)
{
    const sim_body3 *b3 = sim_body3_of(w, b);
    return b3 ? b3->inv_inertia.c0.x > 0.0f : b->inv_inertia > 0.0f;
}

/* The rotation at the top of the stack, when not nil: an angle in 2D, a quaternion {x, y, z,
 * w} in 3D (normalised; a zero one raises). */
static bool read_rot(lua_State *L, int dim, float *angle, mk_quat *q)
{
    if (lua_isnil(L, -1))
        return false;
    if (dim == 2) {
        int ok;
        double a = lua_tonumberx(L, -1, &ok);
        if (!ok || !isfinite(a) || fabs(a) > PROTO_MAX_ANGLE)
            luaL_error(L, "mink.set: rot is an angle in radians in 2D");
        *angle = (float)a;
        return true;
    }
    luaL_checktype(L, -1, LUA_TTABLE);
    float c[4];
    for (int i = 0; i < 4; i++) {
        lua_rawgeti(L, -1, i + 1);
        int ok;
        double v = lua_tonumberx(L, -1, &ok);
        lua_pop(L, 1);
        if (!ok || !isfinite(v) || fabs(v) > PROTO_MAX_COORD)
            luaL_error(L, "mink.set: rot is a quaternion {x, y, z, w} in 3D");
        c[i] = (float)v;
    }
    if (!mk_quat_normalize_checked((mk_quat){c[0], c[1], c[2], c[3]}, q))
        luaL_error(L, "mink.set: a zero quaternion is not a rotation");
    return true;
}

/* mink.set(id, {pos?, rot?, vel?, w?}): a body moved to a new place or turned (any body: a
 * static one too), or given a new velocity (m/s) or spin (rad/s; a vector in 3D), each as the
 * protocol's `set`. All of it, or nothing when a part cannot be set. */
int rul_set(lua_State *L)
{
    sim_world *w = hook_world(L, "mink.set");
    sim_id id = rul_id_arg(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    const sim_body *b = sim_world_get(w, id);
    if (!b)
        return rul_refuse(L, "mink.set: no body %I", (lua_Integer)id);
    const sim_body3 *b3 = sim_body3_of(w, b);
    int dim = b3 ? 3 : 2;
    bool has_pos = lua_getfield(L, 2, "pos") != LUA_TNIL;
    mk_vec3 pos = has_pos ? rul_read_vec(L, -1, dim, PROTO_MAX_COORD, "mink.set: pos")
                          : (b3 ? b3->pos : mk_v3(b->pos.x, b->pos.y, 0));
    float angle = b->angle;
    mk_quat rot = b3 ? b3->rot : mk_quat_identity();
    lua_getfield(L, 2, "rot");
    bool has_rot = read_rot(L, dim, &angle, &rot);
    if (!has_rot && dim == 2 && lua_getfield(L, 2, "angle") != LUA_TNIL)
        has_rot = read_rot(L, 2, &angle, &rot);
    bool has_vel = lua_getfield(L, 2, "vel") != LUA_TNIL;
    mk_vec3 vel = has_vel ? rul_read_vec(L, -1, dim, PROTO_MAX_VEL, "mink.set: vel")
                          : mk_v3(0, 0, 0);
    bool has_w = lua_getfield(L, 2, "w") != LUA_TNIL;
    mk_vec3 spin = mk_v3(0, 0, 0);
    if (has_w && b3) {
        spin = rul_read_vec(L, -1, 3, PROTO_MAX_VEL, "mink.set: w");
    } else if (has_w) {
        int ok;
        double v = lua_tonumberx(L, -1, &ok);
        if (!ok || !isfinite(v) || fabs(v) > PROTO_MAX_VEL)
            return luaL_error(L, "mink.set: w is a finite number in 2D");
        spin.z = (float)v;
    }
    if ((has_vel || has_w) && b->kind == SIM_STATIC)
        return rul_refuse(L, "mink.set: body %I is static", (lua_Integer)id);
    if (has_w && !turns(w, b))
        return rul_refuse(L, "mink.set: body %I does not turn", (lua_Integer)id);
    if (has_pos || has_rot) {
        if (b3)
            sim_body_set_transform3(w, id, pos, rot);
        else
            sim_body_set_transform2(w, id, mk_v2(pos.x, pos.y), angle);
    }
    if (has_vel && b3)
        sim_body_set_velocity3(w, id, vel);
    else if (has_vel)
        sim_body_set_velocity2(w, id, mk_v2(vel.x, vel.y));
    if (has_w && b3)
        sim_body_set_spin3(w, id, spin);
    else if (has_w)
        sim_body_set_spin2(w, id, spin.z);
    lua_pushboolean(L, 1);
    return 1;
}

/* mink.push(id, impulse, point?): an impulse (N s) on a body with mass, at a world point or its
 * centre of mass. */
int rul_push(lua_State *L)
{
    sim_world *w = hook_world(L, "mink.push");
    int dim = sim_world_dim(w);
    sim_id id = rul_id_arg(L, 1);
    mk_vec3 j = rul_read_vec(L, 2, dim, 1e9, "mink.push: impulse");
    mk_vec3 p;
    bool at = !lua_isnoneornil(L, 3);
    if (at)
        p = rul_read_vec(L, 3, dim, PROTO_MAX_COORD, "mink.push: point");
    const sim_body *b = sim_world_get(w, id);
    if (!b)
        return rul_refuse(L, "mink.push: no body %I", (lua_Integer)id);
    mk_vec2 p2 = mk_v2(p.x, p.y);
    bool pushed = dim == 3 ? sim_body_apply_impulse3(w, id, j, at ? &p : NULL)
                           : sim_body_apply_impulse2(w, id, mk_v2(j.x, j.y), at ? &p2 : NULL);
    if (!pushed)
        return rul_refuse(L, "mink.push: body %I is %s: impulses move bodies with mass",
                          (lua_Integer)id, b->kind == SIM_STATIC ? "static" : "kinematic");
    lua_pushboolean(L, 1);
    return 1;
}

/* mink.explode(pos, radius, impulse, opts?) -> bodies pushed, how many of them it woke:
 * sim_world_explode, for the bodies of opts.kinds, not in opts.ignore, of a category that
 * meets opts.mask. */
int rul_explode(lua_State *L)
{
    sim_world *w = hook_world(L, "mink.explode");
    int dim = sim_world_dim(w);
    mk_vec3 c = rul_read_vec(L, 1, dim, PROTO_MAX_COORD, "mink.explode: pos");
    double radius = luaL_checknumber(L, 2), impulse = luaL_checknumber(L, 3);
    luaL_argcheck(L, radius > 0 && radius <= PROTO_MAX_RADIUS, 2, "a radius in (0, 1e6]");
    luaL_argcheck(L, isfinite(impulse) && fabs(impulse) <= 1e9, 3, "an impulse in [-1e9, 1e9]");
    rul_query_opts o;
    rul_read_opts(L, 4, "mink.explode", &o);
    sim_explosion e = {.pos = c, .radius = (float)radius, .impulse = (float)impulse, .filter = o.f};
    size_t woken;
    size_t pushed = sim_world_explode(w, &e, &woken);
    rul_charge(L, pushed);
    lua_pushinteger(L, (lua_Integer)pushed);
    lua_pushinteger(L, (lua_Integer)woken);
    return 2;
}
