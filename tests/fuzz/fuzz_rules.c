/* An action's data on its way from a player to a game's rules: the bytes are an action's
 * `data`, put in an `action` line as a client would send it, parsed by the protocol (which
 * bounds it), then handed to a script's on_action, which walks it, keeps it in game.state and
 * sends it back. Whatever the bytes: the protocol refuses them or the hook runs; the hook's
 * answer is 0 or a refusal with a message; what it sends back is one JSON value; the rules'
 * state still saves (the data kept is plain data) and the runtime is not left busy. The first
 * byte picks the action's name, one of which the script refuses. */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "mink_proto.h"
#include "mink_rules.h"

static const char SCRIPT[] =
    "function on_action(game, p, name, data)\n"
    "  local n = 0\n"
    "  local function walk(v, depth)\n"
    "    if type(v) ~= 'table' then return end\n"
    "    for k, x in pairs(v) do n = n + 1; walk(x, depth + 1) end\n"
    "  end\n"
    "  walk(data, 0)\n"
    "  game.state.last = data\n"
    "  game.state.items = n\n"
    "  game.send(p, name, data)\n"
    "  if name == 'refuse' then return false, 'refused' end\n"
    "end\n";

static const char *const NAMES[] = {"fire", "use", "refuse", "respawn"};

static void on_send(void *ctx, uint32_t player, const char *name, const char *data, size_t len)
{
    (void)ctx;
    fuzz_check(player == 7 && name[0] != '\0');
    if (len == 0)
        return;
    cJSON *v = cJSON_ParseWithLength(data, len);
    fuzz_check(v != NULL);
    cJSON_Delete(v);
}

static void quiet(void *ctx, rul_log_level level, const char *line)
{
    (void)ctx;
    (void)level;
    (void)line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static sim_world *w;
    static rul_runtime *rt;
    static proto_msg msg;
    static char line[PROTO_MAX_LINE + 128];
    if (!rt) {
        sim_config cfg = sim_config_default();
        w = sim_world_new(&cfg);
        rul_config rc = {.script = "fuzz.lua", .source = SCRIPT, .source_len = sizeof SCRIPT - 1,
                         .memory = 8u << 20, .budget = 200000};
        rul_host host = {.send = on_send, .log = quiet};
        mk_error err = {0};
        rt = rul_new(&rc, w, &host, &err);
        fuzz_check(rt != NULL);
        rul_player p = {.id = 7, .name = "fuzz"};
        fuzz_check(rul_join(rt, &p, &err) == 0);
    }
    if (size == 0 || size > PROTO_MAX_LINE)
        return 0;
    const char *name = NAMES[data[0] % 4];
    int n = snprintf(line, sizeof line, "{\"type\":\"action\",\"name\":\"%s\",\"data\":", name);
    memcpy(line + n, data + 1, size - 1);
    line[n + size - 1] = '}';
    proto_error perr;
    if (proto_parse(line, (size_t)n + size, 2, &msg, &perr) != PROTO_OK) {
        fuzz_check(perr.message[0] != '\0');
        return 0;
    }
    fuzz_check(msg.type == PROTO_MSG_ACTION && msg.u.action.data_len <= PROTO_MAX_ACTION_DATA);
    mk_error err = {0};
    int rc = rul_action(rt, 7, msg.u.action.name, msg.u.action.data, msg.u.action.data_len,
                        &err);
    fuzz_check(rc == 0 || (rc == -1 && err.message[0] != '\0'));
    fuzz_check(rc == 0 || strcmp(name, "refuse") == 0 || strstr(err.message, "failed"));
    fuzz_check(!rul_busy(rt));
    proto_buf out;
    proto_buf_init(&out);
    mk_error serr = {0};
    fuzz_check(rul_save(rt, &out, &serr) == 0);
    proto_buf_free(&out);
    return 0;
}
