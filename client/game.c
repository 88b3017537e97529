/* The e key's action for the example games (game.h): what their messages name, and the line
 * that acts on it. The server's rules decide what an action does; this only aims it. */
#include "game.h"

#include <math.h>
#include <stdio.h>

static uint64_t body_id(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble < 9007199254740992.0
               ? (uint64_t)v->valuedouble
               : 0;
}

void cli_game_note(cli_game *g, const cJSON *data)
{
    uint64_t ball = body_id(cJSON_GetObjectItemCaseSensitive(data, "ball"));
    if (ball)
        g->ball = ball;
    const cJSON *targets = cJSON_GetObjectItemCaseSensitive(data, "targets");
    if (!cJSON_IsArray(targets))
        return;
    g->ntargets = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, targets)
    {
        uint64_t id = body_id(t);
        if (id && g->ntargets < CLI_GAME_TARGETS)
            g->targets[g->ntargets++] = id;
    }
}

static double len3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

size_t cli_game_action(const cli_game *g, const cli_interp *ip, double t, int dim,
                       uint64_t avatar, const double facing[3], char *out, size_t cap)
{
    cli_body me, it;
    if (!avatar || !cli_interp_sample(ip, avatar, t, &me))
        return 0;
    int n = 0;
    if (g->ball && cli_interp_sample(ip, g->ball, t, &it)) {
        n = snprintf(out, cap, "{\"type\":\"action\",\"req\":\"act\",\"name\":\"kick\",\"data\":"
                               "{\"dir\":[%.4f,%.4f]}}\n",
                     it.pos[0] - me.pos[0], it.pos[1] - me.pos[1]);
        return n > 0 && (size_t)n < cap ? (size_t)n : 0;
    }
    double from[3] = {me.pos[0], me.pos[1] + (dim == 3 ? 0.5 : 0.0), dim == 3 ? me.pos[2] : 0};
    double way[3] = {facing[0], facing[1], facing[2]};
    if (len3(way) == 0) {
        way[0] = dim == 3 ? 0 : 1;
        way[2] = dim == 3 ? -1 : 0;
    }
    double best = -2, dir[3] = {0, 0, 0};
    for (int i = 0; i < g->ntargets; i++) {
        if (!cli_interp_sample(ip, g->targets[i], t, &it))
            continue;
        double d[3] = {it.pos[0] - from[0], it.pos[1] - from[1],
                       dim == 3 ? it.pos[2] - from[2] : 0};
        double l = len3(d);
        if (l == 0)
            continue;
        double c = (d[0] * way[0] + d[1] * way[1] + d[2] * way[2]) / (l * len3(way));
        if (c > best) {
            best = c;
            dir[0] = d[0], dir[1] = d[1], dir[2] = d[2];
        }
    }
    if (best < -1)
        return 0;
    uint64_t tick = t > 0 ? (uint64_t)floor(t) : 0;
    if (dim == 3)
        n = snprintf(out, cap, "{\"type\":\"action\",\"req\":\"act\",\"name\":\"fire\",\"data\":"
                               "{\"tick\":%llu,\"from\":[%.4f,%.4f,%.4f],\"dir\":[%.4f,%.4f,"
                               "%.4f]}}\n",
                     (unsigned long long)tick, from[0], from[1], from[2], dir[0], dir[1],
                     dir[2]);
    else
        n = snprintf(out, cap, "{\"type\":\"action\",\"req\":\"act\",\"name\":\"fire\",\"data\":"
                               "{\"tick\":%llu,\"from\":[%.4f,%.4f],\"dir\":[%.4f,%.4f]}}\n",
                     (unsigned long long)tick, from[0], from[1], dir[0], dir[1]);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}
