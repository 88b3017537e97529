/* The game's rules of mink-server: the script loaded and started before the network (so that
 * a script that does not load stops the server with its file and line), a saved game's state
 * brought back, and a replay's rules_ lines fed to the script again (server/net/rules.c writes
 * them). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "game.h"
#include "mink_net.h"

rul_runtime *mink_game_load(const mink_game_opts *o, sim_world *w)
{
    rul_config cfg = {.script = o->script, .memory = o->memory, .budget = o->budget,
                      .seed = sim_world_hash(w)};
    mk_error err = {0};
    rul_runtime *rt = rul_new(&cfg, w, NULL, &err);
    if (!rt) {
        fprintf(stderr, "mink-server: --script: %s\n", err.message);
        return NULL;
    }
    rul_stats st;
    rul_stats_get(rt, &st);
    LOG_INFO("script %s loaded (memory cap %zu bytes, budget %u instructions a hook call)",
             o->script, st.memory_limit, o->budget ? o->budget : RUL_DEFAULT_BUDGET);
    return rt;
}

bool mink_game_busy(void *rt) { return rul_busy(rt); }

int mink_game_restore(rul_runtime *rt, const char *state)
{
    mk_error err = {0};
    if (rul_load(rt, state, strlen(state), &err) != 0) {
        LOG_ERROR("--save: the game's state did not load: %s", err.message);
        return -1;
    }
    /* One at a time, the first each time: on_leave may change who is in the game. */
    uint32_t id;
    for (size_t n = rul_player_ids(rt, &id, 1), left = 0; n > 0 && left < n;
         n = rul_player_ids(rt, &id, 1), left++)
        rul_leave(rt, id);
    rul_stats st;
    rul_stats_get(rt, &st);
    LOG_INFO("--save: the game's state restored (%zu timers)", st.timers);
    return 0;
}

static const char *string_of(const cJSON *msg, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int mink_game_replay_line(void *ctx, uint32_t client, const char *type, const cJSON *msg,
                          mk_error *err)
{
    rul_runtime *rt = ctx;
    mk_error why = {0};
    if (strcmp(type, "rules_join") == 0) {
        const cJSON *avatar = cJSON_GetObjectItemCaseSensitive(msg, "avatar");
        rul_player p = {.id = client, .name = string_of(msg, "name"),
                        .user = string_of(msg, "user"), .role = string_of(msg, "role"),
                        .avatar = cJSON_IsNumber(avatar) ? (sim_id)avatar->valuedouble : 0};
        rul_join(rt, &p, &why);
        return 0;
    }
    if (strcmp(type, "rules_leave") == 0) {
        rul_leave(rt, client);
        return 0;
    }
    if (strcmp(type, "rules_action") == 0) {
        const char *name = string_of(msg, "name");
        if (!name)
            return mk_fail(err, MK_ERR_INVALID, "rules_action: name must be a string");
        const cJSON *data = cJSON_GetObjectItemCaseSensitive(msg, "data");
        char *text = data ? cJSON_PrintUnformatted(data) : NULL;
        if (data && !text)
            return mk_fail(err, MK_ERR_INVALID, "rules_action: out of memory");
        rul_action(rt, client, name, text, text ? strlen(text) : 0, &why);
        cJSON_free(text);
        return 0;
    }
    return 0; /* rules_state: a replay runs the script, which has its own */
}
