/* Events in `state` (an extension, `subscribe {events: true}`), and the filter and sensor flag
 * of a body's first sighting, written by the fixed-point writer: no cJSON, no printf. */
#include "parse_internal.h"

#define LIT(b, s) proto_buf_append((b), (s), sizeof(s) - 1)
#define DEC_POS 4   /* m: 0.1 mm, as a body's position */
#define DEC_DIR 4   /* a unit normal, as a rotation */
#define DEC_SPEED 3 /* m/s: 1 mm/s, as a velocity */

static const char *const event_names[PROTO_EVENT_COUNT] = {
    [PROTO_EVENT_CONTACT_BEGIN] = "contact_begin", [PROTO_EVENT_CONTACT_END] = "contact_end",
    [PROTO_EVENT_HIT] = "hit",                     [PROTO_EVENT_SENSOR_BEGIN] = "sensor_begin",
    [PROTO_EVENT_SENSOR_END] = "sensor_end",       [PROTO_EVENT_JOINT_BREAK] = "joint_break",
};

const char *proto_event_name(proto_event_type type)
{
    return PROTO_NAME_AT(event_names, type, "?");
}

bool proto_filter_is_default(const proto_filter *f)
{
    return f->category == 1u && f->mask == PROTO_MASK_ALL && f->group == 0;
}

void proto_state_body_filter(proto_buf *b, const proto_filter *f, bool sensor)
{
    if (!proto_filter_is_default(f)) {
        const char *sep = "";
        LIT(b, ",\"filter\":{");
        if (f->category != 1u) {
            LIT(b, "\"category\":");
            proto_buf_append_u64(b, f->category);
            sep = ",";
        }
        if (f->mask != PROTO_MASK_ALL) {
            proto_buf_append_str(b, sep);
            LIT(b, "\"mask\":");
            proto_buf_append_u64(b, f->mask);
            sep = ",";
        }
        if (f->group != 0) {
            proto_buf_append_str(b, sep);
            LIT(b, "\"group\":");
            proto_buf_append_i64(b, f->group);
        }
        proto_buf_append_char(b, '}');
    }
    if (sensor)
        LIT(b, ",\"sensor\":true");
}

void proto_state_events_begin(proto_buf *b) { LIT(b, ",\"events\":["); }

static void write_vec(proto_buf *b, const double *v, int dim, int decimals)
{
    proto_buf_append_char(b, '[');
    for (int i = 0; i < dim; i++) {
        if (i)
            proto_buf_append_char(b, ',');
        proto_buf_append_fixed(b, v[i], decimals);
    }
    proto_buf_append_char(b, ']');
}

void proto_state_event(proto_buf *b, int dim, const proto_event *e, bool first_in_list)
{
    if (!first_in_list)
        proto_buf_append_char(b, ',');
    LIT(b, "{\"type\":\"");
    proto_buf_append_str(b, proto_event_name(e->type));
    switch (e->type) {
    case PROTO_EVENT_SENSOR_BEGIN:
    case PROTO_EVENT_SENSOR_END:
        LIT(b, "\",\"sensor\":");
        proto_buf_append_u64(b, e->a);
        LIT(b, ",\"body\":");
        proto_buf_append_u64(b, e->b);
        break;
    case PROTO_EVENT_JOINT_BREAK:
        LIT(b, "\",\"joint\":");
        proto_buf_append_u64(b, e->a);
        break;
    default:
        LIT(b, "\",\"a\":");
        proto_buf_append_u64(b, e->a);
        LIT(b, ",\"b\":");
        proto_buf_append_u64(b, e->b);
        if (e->type != PROTO_EVENT_HIT)
            break;
        LIT(b, ",\"point\":");
        write_vec(b, e->point, dim, DEC_POS);
        LIT(b, ",\"normal\":");
        write_vec(b, e->normal, dim, DEC_DIR);
        LIT(b, ",\"speed\":");
        proto_buf_append_fixed(b, e->speed, DEC_SPEED);
        break;
    }
    LIT(b, ",\"tick\":");
    proto_buf_append_u64(b, e->tick);
    proto_buf_append_char(b, '}');
}

void proto_state_events_end(proto_buf *b) { proto_buf_append_char(b, ']'); }

void proto_state_dropped(proto_buf *b, uint64_t n)
{
    if (n == 0)
        return;
    LIT(b, ",\"dropped\":");
    proto_buf_append_u64(b, n);
}
