/* A durable save's parts: the world's image (a world read back from it steps exactly as the
 * one it was taken from), the snapshot file (checksummed blocks; damage named by its byte
 * offset), the journal's records (a torn last one dropped, a damaged one stops the reading)
 * and the journal's replay of slots given back. Expected values: CRC-32C's check value from
 * its standard (RFC 3720, B.4); otherwise the world stepped without an image, side by side. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "journal_fixture.h"
#include "mink_world_io.h"
#include "mk_crc.h"
#include "sim_fixture.h"

START_TEST(crc32c_gives_the_standard_check_value)
{
    ck_assert_uint_eq(mk_crc32c(0, "123456789", 9), 0xe3069283u);
    /* In two parts, the same. */
    ck_assert_uint_eq(mk_crc32c(mk_crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
    ck_assert_uint_eq(mk_crc32c(0, "", 0), 0u);
}
END_TEST

static sim_world *demo(int dim)
{
    sim_config c = sim_config_default();
    c.dim = dim;
    mk_error err = {0};
    const char *scene = dim == 3 ? wio_demo_scene3 : wio_demo_scene2;
    sim_world *w = wio_scene_load(scene, strlen(scene), "demo", &c, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    return w;
}

static sim_world *pile(int n)
{
    sim_config c = sim_config_default();
    mk_error err = {0};
    sim_world *w = wio_scene_pile2(n, &c, &err);
    ck_assert_msg(w != NULL, "%s", err.message);
    return w;
}

/* What happens to a world at tick t: a character (client 1) turns every 37 ticks and jumps
 * every third turn; client 2 drops a box every 50 ticks and removes the one before every
 * 120; the removed slots are given back every 45 ticks, as the server does after a snapshot
 * of the network. The same ids in both worlds, so the same calls. */
static void script(sim_world *w, int t, sim_id chr, sim_id *dropped)
{
    int dim = sim_world_dim(w);
    if (t % 37 == 0) {
        const sim_body *c = sim_world_get(w, chr);
        ck_assert_ptr_nonnull(c);
        float dir = (t / 37) % 2 ? -1.0f : 1.0f;
        if (dim == 3)
            sim_body_set_input3(w, c->id, mk_v3(dir, 0, 0.5f), (t / 37) % 3 == 0);
        else
            sim_body_set_input2(w, c->id, mk_v2(dir, 0), (t / 37) % 3 == 0);
    }
    if (t % 50 == 10) {
        sim_body_def d;
        if (dim == 3) {
            col_shape3 s;
            memset(&s, 0, sizeof s);
            s.type = COL_SHAPE3_BOX;
            s.half = mk_v3(0.3f, 0.3f, 0.3f);
            fixture_body3(&d, s, SIM_DYNAMIC, mk_v3(0.1f * (float)(t % 7), 6, 0));
        } else {
            d = fixture_rect(COL_SHAPE_BOX, SIM_DYNAMIC, 0.1f * (float)(t % 7), 8, 0.3f, 0.3f);
        }
        sim_id id = sim_world_add(w, &d, 2);
        ck_assert_uint_ne(id, 0);
        if (t % 120 < 50 && *dropped)
            sim_world_remove(w, *dropped);
        *dropped = id;
    }
    if (t % 45 == 0)
        sim_world_clear_removed(w);
}

static sim_id add_character(sim_world *w, float x, float y)
{
    sim_body_def d;
    if (sim_world_dim(w) == 3) {
        col_shape3 s;
        memset(&s, 0, sizeof s);
        s.type = COL_SHAPE3_CAPSULE;
        s.radius = 0.4f;
        s.half_height = 0.5f;
        fixture_body3(&d, s, SIM_CHARACTER, mk_v3(x, y, 0));
    } else {
        d = fixture_rect(COL_SHAPE_BOX, SIM_CHARACTER, x, y, 0.4f, 0.9f);
    }
    sim_id id = sim_world_add(w, &d, 1);
    ck_assert_uint_ne(id, 0);
    return id;
}

/* Runs `w` 400 ticks, takes its image, then runs both 600 more: equal hashes at every tick. */
static void steps_on_exactly(sim_world *w, float x, float y)
{
    sim_id chr = add_character(w, x, y);
    sim_id dropped_a = 0;
    for (int t = 0; t < 400; t++) {
        script(w, t, chr, &dropped_a);
        sim_world_step(w);
    }
    sim_world *b = fixture_image_copy(w);
    sim_id dropped_b = dropped_a;
    ck_assert_uint_eq(sim_world_tick(b), 400);
    ck_assert_uint_eq(sim_world_hash(b), sim_world_hash(w));
    for (int t = 400; t < 1000; t++) {
        script(w, t, chr, &dropped_a);
        script(b, t, chr, &dropped_b);
        ck_assert_uint_eq(dropped_a, dropped_b);
        sim_world_step(w);
        sim_world_step(b);
        ck_assert_msg(sim_world_hash(b) == sim_world_hash(w), "tick %d: the copy went its own "
                      "way", t + 1);
    }
    sim_world_free(b);
    sim_world_free(w);
}

START_TEST(a_2d_world_from_its_image_steps_on_exactly) { steps_on_exactly(demo(2), -6, 1); }
END_TEST

START_TEST(a_3d_world_from_its_image_steps_on_exactly) { steps_on_exactly(demo(3), 0, 1); }
END_TEST

START_TEST(a_pile_from_its_image_steps_on_exactly) { steps_on_exactly(pile(600), 0.525f, 7); }
END_TEST

static char *temp_path(void)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/mink-durable-%d-XXXXXX", (int)getpid());
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    return path;
}

static void write_snapshot(const sim_world *w, const char *path)
{
    size_t len = sim_world_image_size(w);
    void *image = malloc(len);
    sim_world_image_copy(w, image);
    mk_error err = {0};
    ck_assert_msg(wio_snapshot_write(path, sim_world_tick(w), sim_world_hash(w), image, len,
                                     &err) == 0, "%s", err.message);
    free(image);
}

START_TEST(a_snapshot_reads_back_and_damage_is_named_by_its_offset)
{
    sim_world *w = pile(300);
    for (int i = 0; i < 120; i++)
        sim_world_step(w);
    const char *path = temp_path();
    write_snapshot(w, path);
    mk_error err = {0};
    uint64_t tick, hash;
    sim_world *back = wio_snapshot_read(path, &tick, &hash, &err);
    ck_assert_msg(back != NULL, "%s", err.message);
    ck_assert_uint_eq(tick, 120);
    ck_assert_uint_eq(hash, sim_world_hash(w));
    ck_assert_uint_eq(sim_world_hash(back), sim_world_hash(w));
    sim_world_free(back);

    size_t size;
    char *file = wio_read_file(path, &size, &err);
    ck_assert_ptr_nonnull(file);
    ck_assert_uint_gt(size, 48 + 2 * 65536);
    /* A bit flipped in the second 64 KiB block of the image: the block at byte 48 + 65536. */
    file[48 + 65536 + 1000] ^= 4;
    ck_assert_ptr_null(wio_snapshot_parse(file, size, &tick, &hash, &err));
    ck_assert_msg(strstr(err.message, "byte 65584: the block of 65536 bytes") != NULL, "%s",
                  err.message);
    file[48 + 65536 + 1000] ^= 4;
    /* In the header. */
    file[20] ^= 1;
    ck_assert_ptr_null(wio_snapshot_parse(file, size, &tick, &hash, &err));
    ck_assert_msg(strstr(err.message, "byte 0: the header") != NULL, "%s", err.message);
    file[20] ^= 1;
    /* Cut short. */
    ck_assert_ptr_null(wio_snapshot_parse(file, size - 3, &tick, &hash, &err));
    ck_assert_msg(strstr(err.message, "cut short") != NULL, "%s", err.message);
    /* Whole again, it reads. */
    back = wio_snapshot_parse(file, size, &tick, &hash, &err);
    ck_assert_msg(back != NULL, "%s", err.message);
    sim_world_free(back);
    free(file);
    unlink(path);
    sim_world_free(w);
}
END_TEST

typedef struct seen {
    int count;
    size_t offsets[8];
    char last[64];
} seen;

static bool collect(void *ctx, const char *line, size_t len, size_t offset)
{
    seen *s = ctx;
    if (s->count < 8)
        s->offsets[s->count] = offset;
    s->count++;
    snprintf(s->last, sizeof s->last, "%.*s", (int)len, line);
    return true;
}

START_TEST(journal_records_are_checked_and_a_torn_last_one_is_dropped)
{
    proto_buf b;
    proto_buf_init(&b);
    const char *lines[] = {"{\"tick\":0,\"start\":\"0000000000000001\"}\n",
                           "{\"tick\":3,\"client\":1,\"msg\":{\"type\":\"bye\"}}\n",
                           "{\"tick\":4,\"hash\":\"0000000000000002\"}\n"};
    for (int i = 0; i < 3; i++)
        wio_record_frame(&b, lines[i], strlen(lines[i]));
    /* "CCCCCCCC " before each line, its CRC-32C. */
    char want[10];
    snprintf(want, sizeof want, "%08x ", mk_crc32c(0, lines[0], strlen(lines[0])));
    ck_assert(memcmp(b.data, want, 9) == 0);
    seen s = {0};
    size_t end;
    mk_error err = {0};
    ck_assert_int_eq(wio_record_scan(b.data, b.len, collect, &s, &end, &err), 0);
    ck_assert_int_eq(s.count, 3);
    ck_assert_uint_eq(end, b.len);
    size_t second = 9 + strlen(lines[0]), third = second + 9 + strlen(lines[1]);
    ck_assert_uint_eq(s.offsets[1], second);
    ck_assert_uint_eq(s.offsets[2], third);

    /* Cut inside the last record: the two before it are read, the last is dropped. */
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(wio_record_scan(b.data, b.len - 5, collect, &s, &end, &err), 1);
    ck_assert_int_eq(s.count, 2);
    ck_assert_uint_eq(end, third);
    ck_assert_msg(strstr(err.message, "the last record") != NULL, "%s", err.message);
    /* A flipped byte in the last record: the same. */
    memset(&s, 0, sizeof s);
    b.data[third + 12] ^= 1;
    ck_assert_int_eq(wio_record_scan(b.data, b.len, collect, &s, &end, &err), 1);
    ck_assert_int_eq(s.count, 2);
    b.data[third + 12] ^= 1;
    /* A flipped byte in the middle record: reading stops there, and says where. */
    memset(&s, 0, sizeof s);
    b.data[second + 15] ^= 1;
    ck_assert_int_eq(wio_record_scan(b.data, b.len, collect, &s, &end, &err), -1);
    ck_assert_int_eq(s.count, 1);
    char at[64];
    snprintf(at, sizeof at, "byte %zu: a record", second);
    ck_assert_msg(strstr(err.message, at) != NULL, "%s", err.message);
    proto_buf_free(&b);
}
END_TEST

static void to_buf(void *ctx, const char *line, size_t len)
{
    proto_buf_append(ctx, line, len);
}

/* The slots given back between a despawn and a spawn decide the spawn's id: the journal
 * records when, and the replay gives the same ids and the same world. */
START_TEST(a_journal_replays_slots_given_back)
{
    sim_world *w = demo(2);
    sim_world *replayed = demo(2);
    proto_buf lines;
    proto_buf_init(&lines);
    wio_journal j;
    wio_journal_start(&j, w, to_buf, &lines);
    sim_id chr = add_character(w, -6, 1);
    sim_id dropped = 0;
    for (int t = 0; t < 300; t++) {
        script(w, t, chr, &dropped);
        sim_world_step(w);
        if (t % 60 == 59)
            wio_journal_mark(&j);
    }
    wio_journal_stop(&j);
    const char *const kinds[] = {"\"type\":\"reuse\"", "\"hash\":\""};
    fixture_expect_in_journal(lines.data, kinds, 2);
    ck_assert_int_eq(fixture_expect_replay(replayed, w, lines.data, NULL, NULL), 5);
    proto_buf_free(&lines);
    sim_world_free(w);
    sim_world_free(replayed);
}
END_TEST

MINK_CHECK_SUITE("durable", s)
{
    MINK_TCASE(s, "image", 120, a_2d_world_from_its_image_steps_on_exactly,
               a_3d_world_from_its_image_steps_on_exactly, a_pile_from_its_image_steps_on_exactly);
    MINK_TCASE(s, "files", 60, crc32c_gives_the_standard_check_value,
               a_snapshot_reads_back_and_damage_is_named_by_its_offset,
               journal_records_are_checked_and_a_torn_last_one_is_dropped,
               a_journal_replays_slots_given_back);
}
