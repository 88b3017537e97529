/* mink_proto's extensions for filters, sensors, events and acting on bodies: a body spec's
 * filter and sensor flag with their defaults, a query's and an explosion's mask, push, set and
 * explode with every bad input refused naming its field, subscribe {events}; and the writers
 * (a first sighting's filter, the events of a state, the answers), read back by cJSON. */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "mink_proto.h"

static proto_msg msg;
static proto_error err;

static proto_error_code parse(int dim, const char *line)
{
    memset(&msg, 0x55, sizeof msg);
    memset(&err, 0, sizeof err);
    return proto_parse(line, strlen(line), dim, &msg, &err);
}

#define EXPECT_OK(dim, line)                                                                   \
    ck_assert_msg(parse(dim, line) == PROTO_OK, "%s refused: %s", line, err.message)
/* Refused as bad_request with `field` in the message. */
#define EXPECT_BAD(dim, line, field)                                                           \
    do {                                                                                       \
        ck_assert_msg(parse(dim, line) == PROTO_ERR_BAD_REQUEST, "%s: not refused", line);     \
        ck_assert_msg(strstr(err.message, field) != NULL, "%s: \"%s\" does not name %s", line, \
                      err.message, field);                                                     \
    } while (0)

#define BOX2 "\"shape\":{\"type\":\"box\",\"half\":[1,1]},\"pos\":[0,0]"

START_TEST(a_body_spec_takes_a_filter_and_a_sensor_flag)
{
    EXPECT_OK(2, "{\"type\":\"spawn\",\"body\":{" BOX2 "}}");
    const proto_body_spec *b = &msg.u.spawn.body;
    ck_assert_uint_eq(b->filter.category, 1);
    ck_assert(b->filter.mask == PROTO_MASK_ALL);
    ck_assert_int_eq(b->filter.group, 0);
    ck_assert(!b->sensor && proto_filter_is_default(&b->filter));
    EXPECT_OK(2, "{\"type\":\"spawn\",\"body\":{" BOX2 ",\"filter\":{\"category\":4,"
                 "\"mask\":9007199254740992,\"group\":-2147483648},\"sensor\":true}}");
    ck_assert_uint_eq(b->filter.category, 4);
    ck_assert_uint_eq(b->filter.mask, 9007199254740992ull);
    ck_assert_int_eq(b->filter.group, INT32_MIN);
    ck_assert(b->sensor);
    EXPECT_OK(2, "{\"type\":\"spawn\",\"body\":{" BOX2 ",\"filter\":{\"mask\":0}}}");
    ck_assert_uint_eq(b->filter.category, 1);
    ck_assert_uint_eq(b->filter.mask, 0);

    EXPECT_BAD(2, "{\"type\":\"spawn\",\"body\":{" BOX2 ",\"filter\":3}}", "body.filter");
    EXPECT_BAD(2, "{\"type\":\"spawn\",\"body\":{" BOX2 ",\"filter\":{\"category\":-1}}}",
               "body.filter.category");
    EXPECT_BAD(2, "{\"type\":\"spawn\",\"body\":{" BOX2 ",\"filter\":{\"mask\":1.5}}}",
               "body.filter.mask");
    EXPECT_BAD(2, "{\"type\":\"spawn\",\"body\":{" BOX2 ",\"filter\":{\"mask\":1e300}}}",
               "body.filter.mask");
    EXPECT_BAD(2, "{\"type\":\"spawn\",\"body\":{" BOX2 ",\"filter\":{\"group\":2147483648}}}",
               "body.filter.group");
    EXPECT_BAD(2, "{\"type\":\"spawn\",\"body\":{" BOX2 ",\"filter\":{\"group\":\"x\"}}}",
               "body.filter.group");
    EXPECT_BAD(2, "{\"type\":\"spawn\",\"body\":{" BOX2 ",\"sensor\":1}}", "body.sensor");
    EXPECT_BAD(3, "{\"type\":\"hello\",\"protocol\":1,\"avatar\":{\"shape\":{\"type\":\"sphere\","
                  "\"radius\":1},\"pos\":[0,0,0],\"sensor\":\"yes\"}}",
               "avatar.sensor");
}
END_TEST

START_TEST(queries_and_explosions_take_a_mask)
{
    EXPECT_OK(2, "{\"type\":\"raycast\",\"from\":[0,0],\"to\":[1,0],\"mask\":6}");
    ck_assert_uint_eq(msg.u.wq.mask, 6);
    EXPECT_OK(2, "{\"type\":\"raycast\",\"from\":[0,0],\"to\":[1,0]}");
    ck_assert_uint_eq(msg.u.wq.mask, 0);
    EXPECT_BAD(2, "{\"type\":\"overlap\",\"shape\":{\"type\":\"circle\",\"radius\":1},"
                  "\"pos\":[0,0],\"mask\":0}",
               "mask");
    EXPECT_BAD(2, "{\"type\":\"raycast\",\"from\":[0,0],\"to\":[1,0],\"mask\":\"all\"}", "mask");
}
END_TEST

START_TEST(push_set_and_explode)
{
    EXPECT_OK(2, "{\"type\":\"push\",\"req\":1,\"id\":7,\"impulse\":[1,-2]}");
    ck_assert_int_eq(msg.type, PROTO_MSG_PUSH);
    ck_assert_uint_eq(msg.u.push.id, 7);
    ck_assert_double_eq(msg.u.push.impulse[1], -2.0);
    ck_assert(!msg.u.push.has_point);
    EXPECT_OK(3, "{\"type\":\"push\",\"id\":7,\"impulse\":[1,2,3],\"point\":[4,5,6]}");
    ck_assert(msg.u.push.has_point);
    ck_assert_double_eq(msg.u.push.point[2], 6.0);

    EXPECT_OK(2, "{\"type\":\"set\",\"id\":3,\"pos\":[1,2],\"rot\":0.5,\"vel\":[3,4],\"w\":-1}");
    const proto_set *s = &msg.u.set;
    ck_assert(s->has_pos && s->has_rot && s->has_vel && s->has_w);
    ck_assert_double_eq(s->rot[0], 0.5);
    ck_assert_double_eq(s->w[2], -1.0);
    EXPECT_OK(3, "{\"type\":\"set\",\"id\":3,\"rot\":[0,0,0,2],\"w\":[1,2,3]}");
    ck_assert(!s->has_pos && s->has_rot && !s->has_vel && s->has_w);
    ck_assert_double_eq(s->rot[3], 1.0); /* normalised */
    ck_assert_double_eq(s->w[1], 2.0);
    EXPECT_OK(3, "{\"type\":\"set\",\"id\":3,\"vel\":[0,0,0]}");
    ck_assert(!s->has_pos && !s->has_rot && s->has_vel && !s->has_w);

    EXPECT_OK(2, "{\"type\":\"explode\",\"pos\":[1,2],\"radius\":3,\"impulse\":-4,\"mask\":5}");
    ck_assert_double_eq(msg.u.explode.radius, 3.0);
    ck_assert_double_eq(msg.u.explode.impulse, -4.0);
    ck_assert_uint_eq(msg.u.explode.mask, 5);
    EXPECT_OK(3, "{\"type\":\"explode\",\"pos\":[1,2,3],\"radius\":3,\"impulse\":4}");
    ck_assert_uint_eq(msg.u.explode.mask, 0);

    /* Each bad input names its field. */
    EXPECT_BAD(2, "{\"type\":\"push\",\"impulse\":[1,2]}", "id");
    EXPECT_BAD(2, "{\"type\":\"push\",\"id\":1}", "impulse");
    EXPECT_BAD(2, "{\"type\":\"push\",\"id\":1,\"impulse\":[1e999,0]}", "impulse[0]");
    EXPECT_BAD(2, "{\"type\":\"push\",\"id\":1,\"impulse\":[0,2e6]}", "impulse[1]");
    EXPECT_BAD(2, "{\"type\":\"push\",\"id\":1,\"impulse\":[1,2,3]}", "impulse");
    EXPECT_BAD(2, "{\"type\":\"push\",\"id\":1,\"impulse\":[1,2],\"point\":[0,\"x\"]}",
               "point[1]");
    EXPECT_BAD(2, "{\"type\":\"set\",\"id\":1}", "set: give at least one");
    EXPECT_BAD(2, "{\"type\":\"set\",\"id\":1,\"pos\":[2e6,0]}", "pos[0]");
    EXPECT_BAD(2, "{\"type\":\"set\",\"id\":1,\"rot\":[1,0]}", "rot");
    EXPECT_BAD(3, "{\"type\":\"set\",\"id\":1,\"rot\":[0,0,0,0]}", "rot");
    EXPECT_BAD(2, "{\"type\":\"set\",\"id\":1,\"vel\":[1e5,0]}", "vel[0]");
    EXPECT_BAD(2, "{\"type\":\"set\",\"id\":1,\"w\":[1,2,3]}", "w");
    EXPECT_BAD(3, "{\"type\":\"set\",\"id\":1,\"w\":1}", "w");
    EXPECT_BAD(2, "{\"type\":\"explode\",\"radius\":1,\"impulse\":1}", "pos");
    EXPECT_BAD(2, "{\"type\":\"explode\",\"pos\":[0,0],\"radius\":0,\"impulse\":1}", "radius");
    EXPECT_BAD(2, "{\"type\":\"explode\",\"pos\":[0,0],\"radius\":2e6,\"impulse\":1}",
               "radius");
    EXPECT_BAD(2, "{\"type\":\"explode\",\"pos\":[0,0],\"radius\":1}", "impulse");
    EXPECT_BAD(2, "{\"type\":\"explode\",\"pos\":[0,0],\"radius\":1,\"impulse\":-1e7}",
               "impulse");
    EXPECT_BAD(2, "{\"type\":\"explode\",\"pos\":[0,0],\"radius\":1,\"impulse\":1,\"mask\":-3}",
               "mask");
    ck_assert_int_eq(parse(2, "{\"type\":\"explosion\"}"), PROTO_ERR_UNKNOWN_TYPE);
}
END_TEST

START_TEST(subscribe_events)
{
    EXPECT_OK(2, "{\"type\":\"subscribe\",\"events\":true}");
    ck_assert(msg.u.subscribe.has_events && msg.u.subscribe.events);
    ck_assert(!msg.u.subscribe.has_contacts);
    EXPECT_OK(2, "{\"type\":\"subscribe\",\"radius\":5}");
    ck_assert(!msg.u.subscribe.has_events);
    EXPECT_BAD(2, "{\"type\":\"subscribe\",\"events\":1}", "events");
}
END_TEST

/* cJSON's reading of a written line, which must be valid JSON. */
static cJSON *read_back(const proto_buf *b)
{
    ck_assert(!b->failed);
    cJSON *j = cJSON_ParseWithLength(b->data, b->len);
    ck_assert_msg(j != NULL, "not JSON: %.*s", (int)b->len, b->data);
    return j;
}

START_TEST(the_writers_read_back)
{
    proto_buf b;
    proto_buf_init(&b);
    /* A state with a first sighting's filter and sensor flag, events and the dropped. */
    proto_state_begin(&b, 42, 0);
    proto_body_state st = {.id = 9, .pos = {1, 2, 0}, .rot = {0}, .vel = {0}, .w = {0}};
    proto_shape shape = {.type = PROTO_SHAPE_BOX, .half = {1, 1, 0}};
    proto_state_body(&b, 2, &st, true);
    proto_state_body_first(&b, 2, &shape, PROTO_KIND_STATIC, 0, "goal");
    proto_filter f = {2, 5, -1};
    proto_state_body_filter(&b, &f, true);
    proto_state_body_end(&b);
    proto_state_bodies_end(&b);
    proto_state_events_begin(&b);
    proto_event e[4] = {
        {.type = PROTO_EVENT_CONTACT_BEGIN, .tick = 41, .a = 3, .b = 9},
        {.type = PROTO_EVENT_HIT, .tick = 42, .a = 3, .b = 9, .point = {1.5, -0.25, 7},
         .normal = {0, 1, 0}, .speed = 12.3456},
        {.type = PROTO_EVENT_SENSOR_END, .tick = 42, .a = 9, .b = 11},
        {.type = PROTO_EVENT_JOINT_BREAK, .tick = 42, .a = 2},
    };
    for (int i = 0; i < 4; i++)
        proto_state_event(&b, 2, &e[i], i == 0);
    proto_state_events_end(&b);
    proto_state_dropped(&b, 17);
    proto_state_end(&b);
    cJSON *j = read_back(&b);
    const cJSON *body = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "bodies"), 0);
    const cJSON *filter = cJSON_GetObjectItem(body, "filter");
    ck_assert_double_eq(cJSON_GetObjectItem(filter, "category")->valuedouble, 2);
    ck_assert_double_eq(cJSON_GetObjectItem(filter, "mask")->valuedouble, 5);
    ck_assert_double_eq(cJSON_GetObjectItem(filter, "group")->valuedouble, -1);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(body, "sensor")));
    const cJSON *ev = cJSON_GetObjectItem(j, "events");
    ck_assert_int_eq(cJSON_GetArraySize(ev), 4);
    const cJSON *begin = cJSON_GetArrayItem(ev, 0), *hit = cJSON_GetArrayItem(ev, 1);
    const cJSON *sensor = cJSON_GetArrayItem(ev, 2), *joint = cJSON_GetArrayItem(ev, 3);
    ck_assert_str_eq(cJSON_GetObjectItem(begin, "type")->valuestring, "contact_begin");
    ck_assert_double_eq(cJSON_GetObjectItem(begin, "b")->valuedouble, 9);
    ck_assert_double_eq(cJSON_GetObjectItem(begin, "tick")->valuedouble, 41);
    ck_assert_str_eq(cJSON_GetObjectItem(hit, "type")->valuestring, "hit");
    ck_assert_double_eq(cJSON_GetObjectItem(hit, "speed")->valuedouble, 12.346);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(hit, "point")), 2);
    ck_assert_double_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(hit, "point"), 1)->valuedouble,
                        -0.25);
    ck_assert_str_eq(cJSON_GetObjectItem(sensor, "type")->valuestring, "sensor_end");
    ck_assert_double_eq(cJSON_GetObjectItem(sensor, "sensor")->valuedouble, 9);
    ck_assert_double_eq(cJSON_GetObjectItem(sensor, "body")->valuedouble, 11);
    ck_assert_double_eq(cJSON_GetObjectItem(joint, "joint")->valuedouble, 2);
    ck_assert_double_eq(cJSON_GetObjectItem(j, "dropped")->valuedouble, 17);
    cJSON_Delete(j);

    /* A default filter writes nothing; nothing dropped writes nothing. */
    proto_buf_clear(&b);
    proto_filter plain = {1, PROTO_MASK_ALL, 0};
    proto_state_body_filter(&b, &plain, false);
    proto_state_dropped(&b, 0);
    ck_assert_uint_eq(b.len, 0);

    proto_buf_clear(&b);
    proto_write_pushed(&b, "\"a\"", 5);
    j = read_back(&b);
    ck_assert_str_eq(cJSON_GetObjectItem(j, "type")->valuestring, "pushed");
    ck_assert_str_eq(cJSON_GetObjectItem(j, "req")->valuestring, "a");
    ck_assert_double_eq(cJSON_GetObjectItem(j, "id")->valuedouble, 5);
    cJSON_Delete(j);
    proto_buf_clear(&b);
    proto_write_updated(&b, NULL, 6);
    j = read_back(&b);
    ck_assert_str_eq(cJSON_GetObjectItem(j, "type")->valuestring, "updated");
    ck_assert_ptr_null(cJSON_GetObjectItem(j, "req"));
    cJSON_Delete(j);
    proto_buf_clear(&b);
    proto_write_exploded(&b, "3", 12);
    j = read_back(&b);
    ck_assert_str_eq(cJSON_GetObjectItem(j, "type")->valuestring, "exploded");
    ck_assert_double_eq(cJSON_GetObjectItem(j, "bodies")->valuedouble, 12);
    cJSON_Delete(j);
    for (int t = 0; t < PROTO_EVENT_COUNT; t++)
        ck_assert_str_ne(proto_event_name((proto_event_type)t), "?");
    ck_assert_str_eq(proto_event_name(PROTO_EVENT_COUNT), "?");
    proto_buf_free(&b);
}
END_TEST

MINK_CHECK_TESTS("proto_events", 60, a_body_spec_takes_a_filter_and_a_sensor_flag,
                 queries_and_explosions_take_a_mask, push_set_and_explode, subscribe_events,
                 the_writers_read_back)
