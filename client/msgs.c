/* The lines mink-client sends, shared by the interactive client, the bot and the load
 * generator. */
#include "cli.h"

void cli_write_hello(proto_buf *b, const char *name, bool kinematic, double x, double y)
{
    proto_buf_append_str(b, "{\"type\":\"hello\",\"protocol\":1,\"name\":");
    proto_buf_append_json_string(b, name);
    proto_buf_append_str(b, ",\"avatar\":{\"shape\":{\"type\":\"aabb\",\"half\":[0.4,0.9]},"
                            "\"pos\":[");
    proto_buf_append_fixed(b, x, 4);
    proto_buf_append_char(b, ',');
    proto_buf_append_fixed(b, y, 4);
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

void cli_write_input(proto_buf *b, uint64_t seq, int move_x, int move_y, bool jump)
{
    proto_buf_append_str(b, "{\"type\":\"input\",\"seq\":");
    proto_buf_append_u64(b, seq);
    proto_buf_append_str(b, ",\"move\":[");
    proto_buf_append_i64(b, move_x);
    proto_buf_append_char(b, ',');
    proto_buf_append_i64(b, move_y);
    proto_buf_append_str(b, jump ? "],\"jump\":true}\n" : "],\"jump\":false}\n");
}
