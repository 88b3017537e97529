/* The script's joints (`mink.joint`, `mink.unjoint`): a joint spec given as a Lua table is
 * written as JSON and read by the protocol's parser (proto_parse_joint_spec) and world_io's
 * conversion (wio_joint_def_from_spec), so a script's bad field gets a client's message; the
 * joint is made and removed through the world's calls, which report it to the world's
 * listener (SIM_CHANGE_JOINED, SIM_CHANGE_UNJOINED) and so to a journal. */
#include <cJSON.h>
#include <lauxlib.h>

#include "mink_world_io.h"
#include "rules_internal.h"

/* mink.joint(spec, owner?) -> id, or nil and why. */
int rul_joint(lua_State *L)
{
    rul_need_hook(L, "mink.joint");
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer owner = luaL_optinteger(L, 2, 0);
    luaL_argcheck(L, owner >= 0 && owner <= INT32_MAX, 2, "an owner is in [0, 2^31-1]");
    rul_runtime *rt = rul_state_of(L)->rt;
    rul_json_text(L, 1, "spec");
    cJSON *j = cJSON_ParseWithLength(rt->text.data, rt->text.len);
    if (!j)
        return rul_refuse(L, "spec: out of memory");
    proto_joint_spec spec;
    sim_joint_def def;
    mk_error err;
    proto_error_code rc = proto_parse_joint_spec(j, sim_world_dim(rt->world), "spec.", &spec,
                                                 &err);
    cJSON_Delete(j);
    if (rc != PROTO_OK)
        return rul_refuse(L, "%s", err.message);
    sim_id id = 0;
    if (wio_joint_def_from_spec(rt->world, &spec, &def, &err) == 0)
        id = sim_world_add_joint(rt->world, &def, (uint32_t)owner, &err);
    if (id == 0) {
        mk_error_prefix(&err, "spec.");
        return rul_refuse(L, "%s", err.message);
    }
    lua_pushinteger(L, (lua_Integer)id);
    return 1;
}

/* mink.unjoint(id) -> true when the joint was in the world, else false. */
int rul_unjoint(lua_State *L)
{
    rul_need_hook(L, "mink.unjoint");
    lua_pushboolean(L, sim_world_remove_joint(rul_state_of(L)->rt->world, rul_id_arg(L, 1)));
    return 1;
}
