/* The rules' changes to bodies' motion (`mink.set`, `mink.push`, `mink.explode`), made
 * through the world's setters (sim_body_set_velocity2/3, sim_body_set_spin2/3), which wake
 * the body with what sleeps with it. A position is not set here (the broadphase's bounds are
 * the step's): a body is moved by despawning and spawning it. These changes are not reported
 * to sim_world_on_change: a journal brings them back by running the script again. */
#include <lauxlib.h>
#include <math.h>

#include "rules_internal.h"

static rul_runtime *rt_of(lua_State *L) { return rul_state_of(L)->rt; }

/* The body whose motion the rules may change now: a moving one (a sleeping one wakes); else
 * NULL and why, pushed. */
static const sim_body *moving_body(lua_State *L, sim_id id, const char *fn, const char **why)
{
    const sim_body *b = sim_world_get(rt_of(L)->world, id);
    *why = NULL;
    if (!b)
        *why = lua_pushfstring(L, "%s: no body %I", fn, (lua_Integer)id);
    else if (b->kind == SIM_STATIC)
        *why = lua_pushfstring(L, "%s: body %I is static", fn, (lua_Integer)id);
    return *why ? NULL : b;
}

/* Sets what was asked of a body's velocity (m/s) and spin (rad/s; z alone in 2D); a spin is
 * kept only by a body that turns. */
static void set_motion(sim_world *w, const sim_body *b, const mk_vec3 *vel, const mk_vec3 *spin)
{
    if (sim_world_dim(w) == 3) {
        if (vel)
            sim_body_set_velocity3(w, b->id, *vel);
        if (spin)
            sim_body_set_spin3(w, b->id, *spin);
    } else {
        if (vel)
            sim_body_set_velocity2(w, b->id, mk_v2(vel->x, vel->y));
        if (spin)
            sim_body_set_spin2(w, b->id, spin->z);
    }
}

/* mink.set(id, {vel?, w?}): a new velocity (m/s) or spin (rad/s; a 3D vector in 3D) for a
 * moving body. */
int rul_set(lua_State *L)
{
    rul_need_hook(L, "mink.set");
    sim_id id = rul_id_arg(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    static const char *const placement[] = {"pos", "rot", "angle"};
    for (int i = 0; i < 3; i++) {
        if (lua_getfield(L, 2, placement[i]) != LUA_TNIL)
            return luaL_error(L, "mink.set: %s cannot be set (despawn and spawn to move a body)",
                              placement[i]);
        lua_pop(L, 1);
    }
    const char *why;
    const sim_body *b = moving_body(L, id, "mink.set", &why);
    if (!b) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    sim_world *w = rt_of(L)->world;
    const sim_body3 *b3 = sim_body3_of(w, b);
    int dim = b3 ? 3 : 2;
    bool has_vel = lua_getfield(L, 2, "vel") != LUA_TNIL;
    bool has_w = lua_getfield(L, 2, "w") != LUA_TNIL;
    mk_vec3 vel = mk_v3(0, 0, 0);
    if (has_vel)
        vel = rul_read_vec(L, -2, dim, PROTO_MAX_VEL, "mink.set: vel");
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
    set_motion(w, b, has_vel ? &vel : NULL, has_w ? &spin : NULL);
    lua_pushboolean(L, 1);
    return 1;
}

/* An impulse J (N s) at a world point p on a moving body: its velocity changes by J / m and
 * its spin by I^-1 (r x J), r from its centre of mass to p (the point's; none: the centre). */
static void apply_impulse(sim_world *w, const sim_body *b, mk_vec3 j, const mk_vec3 *p)
{
    const sim_body3 *b3 = sim_body3_of(w, b);
    if (b3) {
        mk_vec3 vel = mk_v3_add(b3->vel, mk_v3_scale(j, b->inv_mass)), spin = b3->w;
        if (p) {
            mk_vec3 c = mk_v3_add(b3->pos, mk_quat_rotate(b3->rot, b3->local_center));
            mk_vec3 t = mk_quat_unrotate(b3->rot, mk_v3_cross(mk_v3_sub(*p, c), j));
            spin = mk_v3_add(spin, mk_quat_rotate(b3->rot, mk_m3_mul_v(b3->inv_inertia, t)));
        }
        set_motion(w, b, &vel, p ? &spin : NULL);
        return;
    }
    mk_vec2 v2 = mk_v2_add(b->vel, mk_v2_scale(mk_v2(j.x, j.y), b->inv_mass));
    mk_vec3 vel = mk_v3(v2.x, v2.y, 0.0f), spin = mk_v3(0.0f, 0.0f, b->w);
    if (p) {
        float c = cosf(b->angle), s = sinf(b->angle);
        mk_vec2 lc = b->local_center;
        mk_vec2 centre = mk_v2(b->pos.x + c * lc.x - s * lc.y, b->pos.y + s * lc.x + c * lc.y);
        mk_vec2 r = mk_v2(p->x - centre.x, p->y - centre.y);
        spin.z += b->inv_inertia * mk_v2_cross(r, mk_v2(j.x, j.y));
    }
    set_motion(w, b, &vel, p ? &spin : NULL);
}

/* mink.push(id, impulse, point?) */
int rul_push(lua_State *L)
{
    rul_need_hook(L, "mink.push");
    sim_world *w = rt_of(L)->world;
    int dim = sim_world_dim(w);
    sim_id id = rul_id_arg(L, 1);
    mk_vec3 j = rul_read_vec(L, 2, dim, 1e9, "mink.push: impulse");
    mk_vec3 p;
    bool at = !lua_isnoneornil(L, 3);
    if (at)
        p = rul_read_vec(L, 3, dim, PROTO_MAX_COORD, "mink.push: point");
    const char *why;
    const sim_body *b = moving_body(L, id, "mink.push", &why);
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

/* Whether a body passes a filter's kinds and ignore list. */
static bool passes(const sim_query_filter *f, const sim_body *b)
{
    if (f->kinds && !(f->kinds & (1u << b->kind)))
        return false;
    for (size_t i = 0; i < f->ignore_count; i++)
        if (f->ignore[i] == b->id)
            return false;
    return true;
}

/* mink.explode(pos, radius, impulse, opts?) -> bodies pushed, how many of them it woke: each
 * body with mass whose bounds come within radius (of opts.kinds, not in opts.ignore)
 * gets an impulse away from pos at its centre, of `impulse` N s falling linearly to 0 at the
 * radius (from its centre's distance). */
int rul_explode(lua_State *L)
{
    rul_need_hook(L, "mink.explode");
    sim_world *w = rt_of(L)->world;
    int dim = sim_world_dim(w);
    mk_vec3 c = rul_read_vec(L, 1, dim, PROTO_MAX_COORD, "mink.explode: pos");
    double radius = luaL_checknumber(L, 2), impulse = luaL_checknumber(L, 3);
    luaL_argcheck(L, radius > 0 && radius <= PROTO_MAX_RADIUS, 2, "a radius in (0, 1e6]");
    luaL_argcheck(L, isfinite(impulse) && fabs(impulse) <= 1e9, 3, "an impulse in [-1e9, 1e9]");
    rul_query_opts o;
    rul_read_opts(L, 4, "mink.explode", &o);
    const uint32_t *slots;
    size_t n;
    if (!sim_world_bodies_near(w, c, (float)radius, &slots, &n))
        return rul_refuse(L, "mink.explode: out of memory");
    rul_charge(L, n);
    size_t slot_count;
    const sim_body *bodies = sim_world_slots(w, &slot_count);
    lua_Integer pushed = 0, asleep = 0;
    for (size_t i = 0; i < n; i++) {
        const sim_body *b = &bodies[slots[i]];
        if (b->inv_mass == 0.0f || !passes(&o.f, b))
            continue;
        const sim_body3 *b3 = sim_body3_of(w, b);
        mk_vec3 d = b3 ? mk_v3_sub(b3->pos, c) : mk_v3(b->pos.x - c.x, b->pos.y - c.y, 0);
        float dist = mk_v3_len(d);
        float k = (float)impulse * (1.0f - dist / (float)radius);
        if (k <= 0.0f)
            continue;
        mk_vec3 dir = dist > 1e-6f ? mk_v3_scale(d, 1.0f / dist) : mk_v3(0, 1, 0);
        asleep += b->sleeping; /* woken by the push */
        apply_impulse(w, b, mk_v3_scale(dir, k), NULL);
        pushed++;
    }
    lua_pushinteger(L, pushed);
    lua_pushinteger(L, asleep);
    return 2;
}
