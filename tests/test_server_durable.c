/* Integration: a crash loses at most --fsync-ms. A server with pile:2000 and a client that
 * moves its character, drops boxes, ropes them together and removes some is killed with
 * SIGKILL at a random moment
 * (a fixed seed), ten times over; every restart brings the world back from --save, at a tick
 * whose world hash the killed server logged (--hash-every 1 logs every tick's), and no more
 * than --fsync-ms of ticks behind the last tick it logged. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "harness.h"

#define ROUNDS 10
#define FSYNC_MS 250
#define TICK_HZ 60

static char *read_log(const char *path)
{
    char *text = h_read_file(path, NULL);
    ck_assert_msg(text != NULL, "%s cannot be read", path);
    return text;
}

/* The last tick the log gives a hash for. */
static unsigned long long last_tick(const char *log)
{
    unsigned long long last = 0, t;
    for (const char *p = strstr(log, " tick "); p; p = strstr(p + 1, " tick "))
        if (sscanf(p, " tick %llu hash ", &t) == 1 && t > last)
            last = t;
    return last;
}

/* A client's script: a character that turns every 400 ms and jumps now and then, a box every
 * 200 ms, the one before it removed every other time, boxes roped together and ropes taken
 * off. Runs for `ms`. */
static void play(int port, int ms, unsigned *seed)
{
    h_conn c;
    ck_assert(h_connect(&c, port));
    ck_assert(h_send_line(&c, "{\"type\":\"hello\",\"protocol\":1,\"avatar\":{\"shape\":{\"type\":"
                              "\"box\",\"half\":[0.4,0.9]},\"pos\":[0.5,13],\"kind\":"
                              "\"character\"}}"));
    cJSON *w = h_recv_type(&c, "welcome", 5000);
    ck_assert_msg(w != NULL, "no welcome");
    double avatar = h_num(w, "avatar");
    cJSON_Delete(w);
    long long end = h_now_ms() + ms;
    double last_box = 0, last_joint = 0;
    int joints = 0;
    char line[512];
    for (int i = 0; h_now_ms() < end; i++) {
        double dir = (i / 12) % 2 ? -1.0 : 1.0;
        snprintf(line, sizeof line,
                 "{\"type\":\"input\",\"seq\":%d,\"id\":%.0f,\"move\":[%g,0],\"jump\":%s}", i + 1,
                 avatar, dir * (0.5 + (rand_r(seed) % 50) / 100.0),
                 i % 17 == 0 ? "true" : "false");
        ck_assert(h_send_line(&c, line));
        if (i % 6 == 0) {
            snprintf(line, sizeof line,
                     "{\"type\":\"spawn\",\"req\":%d,\"body\":{\"shape\":{\"type\":\"box\","
                     "\"half\":[0.3,0.3]},\"pos\":[%d,16]}}", i, (int)(rand_r(seed) % 20) - 10);
            ck_assert(h_send_line(&c, line));
            if (last_box != 0 && i % 12 == 0) {
                snprintf(line, sizeof line, "{\"type\":\"despawn\",\"id\":%.0f}", last_box);
                ck_assert(h_send_line(&c, line));
            }
        }
        /* Read what came (states, spawned, joined) so that the server never waits on us. Each
         * new box hangs by a 2 m rope from the one before (when it is still there: otherwise
         * the joint is refused, changing nothing); every other joint made, the one before it
         * is taken off. */
        for (cJSON *m; (m = h_recv(&c, 0)) != NULL; cJSON_Delete(m)) {
            const char *type = h_str(m, "type");
            if (type && strcmp(type, "spawned") == 0) {
                double box = h_num(m, "id");
                if (last_box != 0) {
                    snprintf(line, sizeof line,
                             "{\"type\":\"joint\",\"joint\":{\"type\":\"distance\",\"a\":%.0f,"
                             "\"b\":%.0f,\"max_length\":2}}",
                             box, last_box);
                    ck_assert(h_send_line(&c, line));
                }
                last_box = box;
            }
            if (type && strcmp(type, "joined") == 0) {
                if (++joints % 2 == 0) {
                    snprintf(line, sizeof line, "{\"type\":\"unjoint\",\"id\":%.0f}",
                             last_joint);
                    ck_assert(h_send_line(&c, line));
                }
                last_joint = h_num(m, "id");
            }
        }
        h_sleep_ms(33);
    }
    h_close(&c);
}

START_TEST(sigkill_ten_times_and_every_restart_matches_the_logged_hash)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/mink-durable-kill-%d", (int)getpid());
    char fsync_ms[16];
    snprintf(fsync_ms, sizeof fsync_ms, "%d", FSYNC_MS);
    const char *const args[] = {"--scene", "pile:2000", "--save", path, "--save-every", "1.5",
                                "--fsync-ms", fsync_ms, "--hash-every", "1", NULL};
    unsigned seed = 19;
    unsigned long long replayed = 0; /* journal records replayed by the restarts */
    char *previous = NULL; /* the log of the server killed last */
    for (int round = 0; round <= ROUNDS; round++) {
        h_server srv;
        ck_assert_msg(h_server_start(&srv, args), "round %d: mink-server did not start", round);
        char *log = read_log(srv.log_path);
        if (round == 0) {
            ck_assert(strstr(log, "scene pile:2000") != NULL);
        } else {
            /* Restored: at a tick and hash the killed server logged, not far behind it. */
            const char *r = strstr(log, "--save: restored ");
            ck_assert_msg(r != NULL, "round %d: not restored:\n%s", round, log);
            unsigned long long tick, hash;
            const char *at = strstr(r, "journal records: tick ");
            ck_assert_ptr_nonnull(at);
            const char *and = strstr(r, ") and ");
            unsigned long long records = 0;
            ck_assert(and && sscanf(and, ") and %llu journal records", &records) == 1);
            replayed += records;
            ck_assert_int_eq(sscanf(at, "journal records: tick %llu hash %llx", &tick, &hash), 2);
            char logged[64];
            snprintf(logged, sizeof logged, "tick %llu hash %016llx", tick, hash);
            ck_assert_msg(strstr(previous, logged) != NULL,
                          "round %d: the restored world (%s) is not one the killed server logged",
                          round, logged);
            unsigned long long last = last_tick(previous);
            ck_assert_uint_ge(last, tick);
            /* A flush at least every FSYNC_MS ms of the world's ticks: at most that many
             * ticks behind. */
            unsigned long long most = FSYNC_MS * TICK_HZ / 1000;
            printf("round %d: killed at tick %llu, back at tick %llu (%llu behind, %llu records "
                   "replayed), hash %016llx as logged\n", round, last, tick, last - tick, records,
                   hash);
            ck_assert_msg(last - tick <= most, "round %d: %llu ticks lost, more than %llu", round,
                          last - tick, most);
        }
        free(previous);
        free(log);
        previous = NULL;
        if (round == ROUNDS) {
            /* The client's inputs, spawns and despawns were among what came back. */
            ck_assert_uint_gt(replayed, 50);
            ck_assert_int_eq(h_server_stop(&srv, SIGTERM, 5000), 0);
            unlink(srv.log_path);
            break;
        }
        /* A random moment: 0.8 to 2.8 s of play. */
        play(srv.port, 800 + (int)(rand_r(&seed) % 2000), &seed);
        ck_assert_int_eq(h_server_stop(&srv, SIGKILL, 3000), -2);
        previous = read_log(srv.log_path);
        unlink(srv.log_path);
    }
    h_remove_save(path);
}
END_TEST

/* A damaged snapshot is refused, naming the byte offset, and the one before it is used with
 * both journals; a record torn off the journal's end is dropped. The world comes back where
 * the stop flushed it. */
START_TEST(a_damaged_snapshot_falls_back_to_the_one_before)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/mink-durable-damage-%d", (int)getpid());
    const char *const args[] = {"--scene", "pile:300", "--save", path, "--save-every", "0.5",
                                NULL};
    h_server srv;
    ck_assert(h_server_start(&srv, args));
    unsigned seed = 7;
    play(srv.port, 1500, &seed);
    ck_assert_int_eq(h_server_stop(&srv, SIGTERM, 5000), 0);
    char *log = read_log(srv.log_path);
    unlink(srv.log_path);
    ck_assert(strstr(log, "SIGTERM: saved") != NULL);
    /* The stop's flush: the last "journal: tick T hash H flushed". */
    unsigned long long tick = 0, hash = 0;
    for (const char *p = strstr(log, "journal: tick "); p; p = strstr(p + 1, "journal: tick "))
        ck_assert_int_eq(sscanf(p, "journal: tick %llu hash %llx", &tick, &hash), 2);
    ck_assert_uint_gt(tick, 0);
    free(log);

    /* A byte of the newest snapshot's image flipped; half a record added to the journal. */
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, 48 + 70000, SEEK_SET), 0);
    int c = fgetc(f);
    ck_assert_int_eq(fseek(f, 48 + 70000, SEEK_SET), 0);
    fputc(c ^ 0x10, f);
    fclose(f);
    char journal[96];
    snprintf(journal, sizeof journal, "%s.journal", path);
    f = fopen(journal, "ab");
    ck_assert_ptr_nonnull(f);
    fputs("0badc0de {\"tick\":99999,\"client\":3,\"msg\":{\"type\":\"by", f);
    fclose(f);

    const char *const again[] = {"--save", path, NULL};
    ck_assert(h_server_start(&srv, again));
    log = read_log(srv.log_path);
    ck_assert_msg(strstr(log, "snapshot refused") != NULL &&
                  strstr(log, "byte 65584: the block of 65536 bytes there does not match its "
                              "checksum") != NULL, "%s", log);
    ck_assert_msg(strstr(log, "does not match its checksum (cut short by a crash): dropped") !=
                  NULL, "%s", log);
    char want[128];
    snprintf(want, sizeof want, "--save: restored %s.prev", path);
    ck_assert_msg(strstr(log, want) != NULL, "%s", log);
    snprintf(want, sizeof want, "journal records: tick %llu hash %016llx", tick, hash);
    ck_assert_msg(strstr(log, want) != NULL, "want %s in\n%s", want, log);
    free(log);
    ck_assert_int_eq(h_server_stop(&srv, SIGTERM, 5000), 0);
    unlink(srv.log_path);
    h_remove_save(path);
}
END_TEST

MINK_CHECK_TESTS("durable_kill", 280, sigkill_ten_times_and_every_restart_matches_the_logged_hash,
                 a_damaged_snapshot_falls_back_to_the_one_before)
