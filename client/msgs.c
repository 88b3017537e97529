/* The lines mink-client sends, shared by the interactive client, the bot and the load
 * generator. */
#include "msgs.h"

/* The avatar: in 2D a 0.8 x 1.8 m box, in 3D a capsule of the same width and height (0.4 m
 * radius, 0.5 m half height: 1.8 m from end to end), upright; a capsule's round bottom slides
 * over edges and steps where a box would catch. */
void cli_write_hello(proto_buf *b, const char *name, const char *token, bool kinematic, int dim,
                     const double pos[3])
{
    proto_buf_append_str(b, "{\"type\":\"hello\",\"protocol\":1,\"name\":");
    proto_buf_append_json_string(b, name);
    if (token) {
        proto_buf_append_str(b, ",\"token\":");
        proto_buf_append_json_string(b, token);
    }
    proto_buf_append_str(b, dim == 3 ? ",\"avatar\":{\"shape\":{\"type\":\"capsule\","
                                       "\"radius\":0.4,\"half_height\":0.5},\"pos\":["
                                     : ",\"avatar\":{\"shape\":{\"type\":\"aabb\","
                                       "\"half\":[0.4,0.9]},\"pos\":[");
    for (int i = 0; i < dim; i++) {
        if (i > 0)
            proto_buf_append_char(b, ',');
        proto_buf_append_fixed(b, pos[i], 4);
    }
    proto_buf_append_str(b, "],\"kind\":\"");
    proto_buf_append_str(b, kinematic ? "kinematic" : "character");
    proto_buf_append_str(b, "\",\"max_speed\":6,\"tag\":");
    proto_buf_append_json_string(b, name);
    proto_buf_append_str(b, "}}\n");
}

void cli_write_ping(proto_buf *b, double now_ms)
{
    /* t: ms on the monotonic clock, to 1 us; the pong echoes it. */
    proto_buf_append_str(b, "{\"type\":\"ping\",\"t\":");
    proto_buf_append_fixed(b, now_ms, 3);
    proto_buf_append_str(b, "}\n");
}

void cli_write_input(proto_buf *b, uint64_t seq, uint64_t tick, int dim, const double move[3],
                     bool jump)
{
    proto_buf_append_str(b, "{\"type\":\"input\",\"seq\":");
    proto_buf_append_u64(b, seq);
    if (tick > 0) {
        proto_buf_append_str(b, ",\"tick\":");
        proto_buf_append_u64(b, tick);
    }
    proto_buf_append_str(b, ",\"move\":[");
    for (int i = 0; i < dim; i++) {
        if (i > 0)
            proto_buf_append_char(b, ',');
        /* 3 decimals: a direction's components stay within [-1, 1] once rounded. */
        proto_buf_append_fixed(b, move[i], 3);
    }
    proto_buf_append_str(b, jump ? "],\"jump\":true}\n" : "],\"jump\":false}\n");
}
