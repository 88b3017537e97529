/* Joints where the world meets JSON: a scene's `joints` (bodies named by their index in
 * `bodies`) hang a pendulum at its length, and each bad joint is refused naming the joint and
 * the field; a saved world's joints come back with their ids, settings and frames; a journal
 * of joints made, removed and taken away with their bodies replays to the same hash. */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "journal_fixture.h"
#include "mink_world_io.h"

static sim_world *load(const char *json, int dim, mk_error *err)
{
    sim_config c = sim_config_default();
    c.dim = dim;
    return wio_scene_load(json, strlen(json), "scene", &c, err);
}

static mk_vec3 pos_of(const sim_world *w, sim_id id)
{
    const sim_body *b = sim_world_get(w, id);
    ck_assert_ptr_nonnull(b);
    const sim_body3 *b3 = sim_body3_of(w, b);
    return b3 ? b3->pos : mk_v3(b->pos.x, b->pos.y, 0.0f);
}

/* The id of the n-th body of a scene loaded without ids: bodies take slots in order. */
static sim_id nth_body(const sim_world *w, size_t n)
{
    size_t slots;
    const sim_body *b = sim_world_slots(w, &slots);
    ck_assert_uint_lt(n, slots);
    return b[n].id;
}

#define PENDULUM2                                                                                \
    "{\"dim\":2,\"gravity\":[0,-10],\"bodies\":["                                                \
    "{\"shape\":{\"type\":\"circle\",\"radius\":0.1},\"pos\":[2,0]},"                            \
    "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5]},\"pos\":[5,0]}],\"joints\":["

START_TEST(a_scene_hangs_a_pendulum_and_names_bad_joints)
{
    mk_error err = {0};
    sim_world *w = load(PENDULUM2 "{\"type\":\"revolute\",\"a\":0,\"anchor\":[0,0]},"
                                  "{\"type\":\"distance\",\"a\":0,\"b\":1}]}",
                        2, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    ck_assert_uint_eq(sim_world_joint_count(w), 2);
    size_t n;
    const sim_joint *j = sim_world_joint_slots(w, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(j[0].type, SIM_JOINT_REVOLUTE);
    ck_assert_uint_eq(j[0].a, nth_body(w, 0));
    ck_assert_uint_eq(j[0].b, 0);
    ck_assert_int_eq(j[1].type, SIM_JOINT_DISTANCE);
    ck_assert_uint_eq(j[1].b, nth_body(w, 1));
    ck_assert_float_eq_tol(j[1].length, 3.0f, 1e-6f); /* the distance between the anchors */
    /* Let go level, the ball swings on its 2 m circle (the box swings with it on its rod). */
    for (int i = 0; i < 90; i++) {
        sim_world_step(w);
        mk_vec3 p = pos_of(w, nth_body(w, 0));
        ck_assert_float_eq_tol(sqrtf(p.x * p.x + p.y * p.y), 2.0f, 0.02f);
    }
    sim_world_free(w);

    static const struct {
        const char *joint, *field;
    } bad[] = {
        {"{\"type\":\"revolute\",\"a\":5}", "scene: joints[0].a"},
        {"{\"type\":\"revolute\"}", "scene: joints[0].a"},
        {"{\"type\":\"hinge\",\"a\":0}", "scene: joints[0].type"},
        {"{\"type\":\"revolute\",\"a\":0,\"b\":0}", "scene: joints[0].b"},
        {"{\"type\":\"revolute\",\"a\":0,\"limits\":[1,-1]}", "scene: joints[0].limits"},
        {"{\"type\":\"distance\",\"a\":0,\"b\":1,\"length\":-1}", "scene: joints[0].length"},
        {"{\"type\":\"distance\",\"a\":0,\"b\":1,\"min_length\":4,\"max_length\":2}",
         "scene: joints[0].max_length"},
        {"{\"type\":\"weld\",\"a\":0,\"anchor\":[0,\"x\"]}", "scene: joints[0].anchor[1]"},
        {"{\"type\":\"wheel\",\"a\":0,\"b\":1,\"axis\":[0,0]}", "scene: joints[0].axis"},
        {"7", "scene: joints[0]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char json[1024];
        snprintf(json, sizeof json, "%s%s]}", PENDULUM2, bad[i].joint);
        err = (mk_error){0};
        ck_assert_ptr_null(load(json, 2, &err));
        ck_assert_msg(strncmp(err.message, bad[i].field, strlen(bad[i].field)) == 0,
                      "%s: \"%s\" does not name %s", bad[i].joint, err.message, bad[i].field);
    }
    /* A 3D world has no revolute joints: a hinge. */
    err = (mk_error){0};
    ck_assert_ptr_null(load("{\"dim\":3,\"bodies\":[{\"shape\":{\"type\":\"sphere\",\"radius\":"
                            "0.1},\"pos\":[2,0,0]}],\"joints\":[{\"type\":\"revolute\",\"a\":0}]}",
                            3, &err));
    ck_assert_msg(strstr(err.message, "joints[0].type") != NULL, "%s", err.message);
}
END_TEST

enum { JOINT_SETTINGS = 27 };

/* A definition's float settings, its anchors and frames, in one order. */
static void settings_of(const sim_joint_def *d, float f[JOINT_SETTINGS])
{
    const float v[JOINT_SETTINGS] = {
        d->lower,          d->upper,     d->motor_speed, d->max_motor,  d->spring_hz,
        d->spring_damping, d->linear_hz, d->linear_damping, d->length,  d->min_length,
        d->max_length,     d->cone,      d->break_force, d->local_a.x,  d->local_a.y,
        d->local_a.z,      d->local_b.x, d->local_b.y,  d->local_b.z,   d->frame_a.x,
        d->frame_a.y,      d->frame_a.z, d->frame_a.w,  d->frame_b.x,   d->frame_b.y,
        d->frame_b.z,      d->frame_b.w};
    memcpy(f, v, sizeof v);
}

/* Two definitions make the same joint: every setting, and the frames to the float. */
static void assert_same_joint(const sim_world *w1, const sim_joint *j1, const sim_world *w2,
                              const sim_joint *j2)
{
    sim_joint_def a = sim_joint_def_of(w1, j1), b = sim_joint_def_of(w2, j2);
    ck_assert_uint_eq(j1->id, j2->id);
    ck_assert_uint_eq(j1->a, j2->a);
    ck_assert_uint_eq(j1->b, j2->b);
    ck_assert_int_eq(a.type, b.type);
    ck_assert(a.limit == b.limit && a.motor == b.motor && a.collide == b.collide);
    float fa[JOINT_SETTINGS], fb[JOINT_SETTINGS];
    settings_of(&a, fa);
    settings_of(&b, fb);
    for (size_t i = 0; i < JOINT_SETTINGS; i++)
        ck_assert_msg(fa[i] == fb[i], "joint %llu, setting %zu: %.9g saved as %.9g",
                      (unsigned long long)j1->id, i, (double)fa[i], (double)fb[i]);
}

/* A world saved after its joints turned and swung, loaded back: the same joints. */
static void save_and_load(sim_world *w)
{
    for (int i = 0; i < 45; i++)
        sim_world_step(w);
    proto_buf b;
    proto_buf_init(&b);
    wio_world_write(w, &b);
    ck_assert(!b.failed);
    mk_error err = {0};
    sim_config c = *sim_world_config(w);
    sim_world *back = wio_scene_load(b.data, b.len, "save", &c, &err);
    ck_assert_msg(back != NULL, "%s", err.message);
    size_t n1, n2;
    const sim_joint *j1 = sim_world_joint_slots(w, &n1);
    const sim_joint *j2 = sim_world_joint_slots(back, &n2);
    ck_assert_uint_eq(sim_world_joint_count(back), sim_world_joint_count(w));
    for (size_t i = 0; i < n1; i++) {
        if (j1[i].id == 0)
            continue;
        ck_assert_uint_lt(i, n2);
        assert_same_joint(w, &j1[i], back, &j2[i]);
    }
    /* A removed joint's slot keeps its generation: the next joint gets the same id in both. */
    sim_joint_def d = sim_joint_def_of(w, &j1[0]);
    d.framed = false;
    d.anchor_a = d.anchor_b = pos_of(w, j1[0].a);
    d.b = 0;
    d.type = sim_world_dim(w) == 2 ? SIM_JOINT_REVOLUTE : SIM_JOINT_SPHERICAL;
    d.limit = d.motor = false;
    d.cone = 0;
    ck_assert_uint_eq(sim_world_add_joint(back, &d, 0, &err), sim_world_add_joint(w, &d, 0, &err));
    proto_buf_free(&b);
    sim_world_free(back);
    sim_world_free(w);
}

START_TEST(a_saved_world_keeps_its_joints)
{
    mk_error err = {0};
    sim_world *w = load(PENDULUM2 "{\"type\":\"revolute\",\"a\":0,\"anchor\":[0,0],"
                                  "\"limits\":[-1,0.5],\"motor\":{\"speed\":2,\"max_torque\":0.5},"
                                  "\"break_force\":1000},"
                                  "{\"type\":\"distance\",\"a\":0,\"b\":1,\"spring\":{\"hz\":2,"
                                  "\"damping\":0.1},\"max_length\":3.5},"
                                  "{\"type\":\"wheel\",\"a\":1,\"spring\":{\"hz\":4,\"damping\":0.7},"
                                  "\"collide\":true}]}",
                        2, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    /* A removed joint leaves a slot whose generation the save keeps. */
    const sim_joint *j = sim_world_joint_slots(w, &(size_t){0});
    ck_assert(sim_world_remove_joint(w, j[2].id));
    sim_world_clear_removed(w);
    save_and_load(w);

    w = load("{\"dim\":3,\"bodies\":["
             "{\"shape\":{\"type\":\"sphere\",\"radius\":0.2},\"pos\":[2,0,0]},"
             "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},\"pos\":[0,-3,1]},"
             "{\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},\"pos\":[4,0,0]}],\"joints\":["
             "{\"type\":\"hinge\",\"a\":0,\"anchor\":[0,0,0],\"axis\":[0,0,1],"
             "\"limits\":[-2,2]},"
             "{\"type\":\"spherical\",\"a\":1,\"anchor\":[0,-2,1],\"axis\":[0,-1,0],\"cone\":0.5},"
             "{\"type\":\"prismatic\",\"a\":2,\"b\":0,\"axis\":[1,1,0],\"limits\":[-1,1],"
             "\"motor\":{\"speed\":1,\"max_force\":50}},"
             "{\"type\":\"weld\",\"a\":2,\"anchor\":[4,0,0],\"spring\":{\"hz\":5},"
             "\"linear_spring\":{\"hz\":8,\"damping\":1}}]}",
             3, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    save_and_load(w);
}
END_TEST

static void to_buf(void *ctx, const char *line, size_t len)
{
    proto_buf_append(ctx, line, len);
}

/* Joints made by two clients, one removed, one taken away with its body: the journal replays
 * to the same ids and hash. */
START_TEST(a_journal_of_joints_replays_to_the_same_hash)
{
    mk_error err = {0};
    const char *scene = PENDULUM2 "{\"type\":\"revolute\",\"a\":0,\"anchor\":[0,0]}]}";
    sim_world *w = load(scene, 2, &err), *replayed = load(scene, 2, &err);
    ck_assert_ptr_nonnull(w);
    ck_assert_ptr_nonnull(replayed);
    proto_buf lines;
    proto_buf_init(&lines);
    wio_journal jr;
    wio_journal_start(&jr, w, to_buf, &lines);
    sim_id ids[3];
    for (int i = 0; i < 3; i++) {
        sim_body_def d;
        memset(&d, 0, sizeof d);
        d.shape.type = COL_SHAPE_BOX;
        d.shape.half = mk_v2(0.3f, 0.3f);
        d.kind = SIM_DYNAMIC;
        d.pos = mk_v2(10.0f + (float)i, 5.0f);
        d.density = 1.0f;
        d.friction = 0.5f;
        ids[i] = sim_world_add(w, &d, 7);
        ck_assert_uint_ne(ids[i], 0);
    }
    sim_id made[3] = {0};
    for (int t = 0; t < 120; t++) {
        proto_joint_spec spec;
        sim_joint_def def;
        if (t == 5 || t == 6 || t == 7) {
            int k = t - 5;
            char json[256];
            snprintf(json, sizeof json,
                     k == 0 ? "{\"type\":\"revolute\",\"a\":%llu,\"anchor\":[10,7]}"
                     : k == 1
                         ? "{\"type\":\"distance\",\"a\":%llu,\"b\":%llu,\"spring\":{\"hz\":3}}"
                         : "{\"type\":\"weld\",\"a\":%llu,\"b\":%llu,\"break_force\":5}",
                     (unsigned long long)ids[k], (unsigned long long)ids[k == 0 ? 1 : k - 1]);
            cJSON *json_spec = cJSON_Parse(json);
            proto_error perr;
            ck_assert(proto_parse_joint_spec(json_spec, 2, "joint.", &spec, &perr) == PROTO_OK);
            cJSON_Delete(json_spec);
            ck_assert_int_eq(wio_joint_def_from_spec(w, &spec, &def, &err), 0);
            made[k] = sim_world_add_joint(w, &def, 7, &err);
            ck_assert_msg(made[k] != 0, "%s", err.message);
        }
        if (t == 40)
            ck_assert(sim_world_remove_joint(w, made[1]));
        if (t == 60)
            sim_world_remove(w, ids[2]); /* its weld (if it has not broken) goes with it */
        if (t == 61)
            sim_world_clear_removed(w);
        if (t == 62) {
            /* The freed slot is given again, to the same id on replay. */
            sim_joint_def d = {.type = SIM_JOINT_REVOLUTE, .a = ids[1],
                               .anchor_a = mk_v3(11, 7, 0), .anchor_b = mk_v3(11, 7, 0)};
            ck_assert_uint_ne(sim_world_add_joint(w, &d, 7, &err), 0);
        }
        sim_world_step(w);
        if (t % 30 == 29)
            wio_journal_mark(&jr);
    }
    wio_journal_stop(&jr);
    const char *const kinds[] = {"\"type\":\"joint\"", "\"type\":\"unjoint\""};
    fixture_expect_in_journal(lines.data, kinds, 2);
    fixture_expect_replay(replayed, w, lines.data, NULL, NULL);
    ck_assert_uint_eq(sim_world_joint_count(replayed), sim_world_joint_count(w));
    proto_buf_free(&lines);
    sim_world_free(w);
    sim_world_free(replayed);
}
END_TEST

MINK_CHECK_TESTS("joint_io", 120, a_scene_hangs_a_pendulum_and_names_bad_joints,
                 a_saved_world_keeps_its_joints, a_journal_of_joints_replays_to_the_same_hash)
