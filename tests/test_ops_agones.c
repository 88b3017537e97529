/* Integration: the real mink-server and a fake Agones SDK sidecar (fake_agones.c) that records
 * the REST calls: their order, the retries while the sidecar starts, the drain, and a sidecar
 * that never answers, which must not hold back a tick. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "fake_agones.h"
#include "ops_fixture.h"

/* The call that labels the GameServer with its player count. */
#define LABEL(n) "PUT /metadata/label {\"key\":\"players\",\"value\":\"" n "\"}"

static fake_agones fake;
static char calls[FAKE_AGONES_MAX_CALLS][FAKE_AGONES_CALL_LEN];

static void sdk_port(int port)
{
    char p[16];
    snprintf(p, sizeof p, "%d", port);
    setenv("AGONES_SDK_HTTP_PORT", p, 1);
}


START_TEST(calls_in_order)
{
    ck_assert(fake_agones_start(&fake, 0, FAKE_AGONES_ANSWER));
    sdk_port(fake.port);
    const char *args[] = {"--agones-allocate", NULL};
    start_http(args);
    /* Ready first, then the player count (nobody yet) and the health pings. */
    ck_assert_int_eq(fake_agones_wait(&fake, "POST /ready {}", 5000), 0);
    ck_assert_int_gt(fake_agones_wait(&fake, LABEL("0"), 5000), 0);
    ck_assert_int_gt(fake_agones_wait(&fake, "POST /health {}", 5000), 0);
    /* A player joins: the GameServer is allocated and labelled. */
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    int allocate = fake_agones_wait(&fake, "POST /allocate {}", 5000);
    int one = fake_agones_wait(&fake, LABEL("1"), 5000);
    ck_assert_int_gt(allocate, 0);
    ck_assert_int_gt(one, 0);
    ck_assert(h_send_line(&c, "{\"type\":\"bye\"}"));
    ck_assert(h_wait_closed(&c, 3000));
    h_close(&c);
    /* The count goes back to 0 (a second time: after the 1). */
    long long end = h_now_ms() + 5000;
    int n = 0, zero_after = -1;
    while (zero_after < 0 && h_now_ms() < end) {
        n = fake_agones_calls(&fake, calls, FAKE_AGONES_MAX_CALLS);
        for (int i = one + 1; i < n; i++)
            if (strcmp(calls[i], LABEL("0")) == 0)
                zero_after = i;
        h_sleep_ms(50);
    }
    ck_assert_int_gt(zero_after, one);
    /* SIGTERM: shutdown is the last call, and the server exits 0. */
    kill(srv.pid, SIGTERM);
    ck_assert_int_eq(wait_exit(5000), 0);
    n = fake_agones_calls(&fake, calls, FAKE_AGONES_MAX_CALLS);
    ck_assert_str_eq(calls[n - 1], "POST /shutdown {}");
    int allocations = 0, readies = 0;
    for (int i = 0; i < n; i++) {
        allocations += strcmp(calls[i], "POST /allocate {}") == 0;
        readies += strcmp(calls[i], "POST /ready {}") == 0;
        ck_assert_msg(strcmp(calls[i], "POST /shutdown {}") != 0 || i == n - 1, "%d: %s", i,
                      calls[i]);
    }
    ck_assert_int_eq(allocations, 1);
    ck_assert_int_eq(readies, 1);
    fake_agones_stop(&fake);
}
END_TEST

/* Without --agones-allocate, a player does not allocate the GameServer. */
START_TEST(no_allocation_without_the_flag)
{
    ck_assert(fake_agones_start(&fake, 0, FAKE_AGONES_ANSWER));
    sdk_port(fake.port);
    start_http(NULL);
    ck_assert_int_eq(fake_agones_wait(&fake, "POST /ready {}", 5000), 0);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    ck_assert_int_gt(fake_agones_wait(&fake, LABEL("1"), 5000), 0);
    ck_assert_int_eq(fake_agones_wait(&fake, "POST /allocate {}", 1500), -1);
    h_close(&c);
    stop();
    fake_agones_stop(&fake);
}
END_TEST

/* The sidecar starts after the game server: /ready is made again until it is heard. */
START_TEST(ready_is_retried_until_the_sidecar_answers)
{
    int port = http_free_port();
    sdk_port(port);
    start_http(NULL);
    h_sleep_ms(1500);
    ck_assert(h_server_log_has(&srv, "agones: /ready:"));
    ck_assert(fake_agones_start(&fake, port, FAKE_AGONES_ANSWER));
    ck_assert_int_eq(fake_agones_wait(&fake, "POST /ready {}", 5000), 0);
    long long end = h_now_ms() + 3000;
    while (!h_server_log_has(&srv, "the GameServer is Ready") && h_now_ms() < end)
        h_sleep_ms(20);
    ck_assert(h_server_log_has(&srv, "the GameServer is Ready"));
    stop();
    fake_agones_stop(&fake);
}
END_TEST

/* A sidecar that takes every call and never answers: the ticks go on, the HTTP port answers,
 * and a stop still ends within --drain-seconds. */
START_TEST(a_silent_sidecar_does_not_delay_ticks)
{
    ck_assert(fake_agones_start(&fake, 0, FAKE_AGONES_SILENT));
    sdk_port(fake.port);
    const char *args[] = {"--drain-seconds", "1", NULL};
    start_http(args);
    ck_assert_int_eq(fake_agones_wait(&fake, "POST /ready {}", 5000), 0);
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    tick_mark mark = tick_mark_now();
    /* Three seconds of calls held open (each given up after its 2 s timeout and made
     * again). */
    h_sleep_ms(3000);
    free(get_ok("/livez", 200));
    expect_alive(&c);
    expect_ticks_kept(mark);
    ck_assert_int_ge(fake_agones_wait(&fake, "POST /ready {}", 0), 0);
    h_close(&c);
    kill(srv.pid, SIGTERM);
    ck_assert_int_eq(wait_exit(3000), 0);
    fake_agones_stop(&fake);
}
END_TEST

/* A drain while the sidecar holds the shutdown call: /readyz says 503 until --drain-seconds,
 * the world is saved, the exit is 0. */
START_TEST(drain_waits_for_the_sdk_within_drain_seconds)
{
    char save[64];
    snprintf(save, sizeof save, "/tmp/mink-ops-drain-%d", (int)getpid());
    ck_assert(fake_agones_start(&fake, 0, FAKE_AGONES_HOLD_SHUTDOWN));
    sdk_port(fake.port);
    const char *args[] = {"--drain-seconds", "2", "--save", save, NULL};
    start_http(args);
    ck_assert_int_eq(fake_agones_wait(&fake, "POST /ready {}", 5000), 0);
    free(get_ok("/readyz", 200));
    h_conn c;
    cJSON_Delete(join(&c, HELLO));
    kill(srv.pid, SIGTERM);
    expect_error(&c, "shutdown");
    ck_assert_int_ge(fake_agones_wait(&fake, "POST /shutdown {}", 3000), 0);
    char *b = get_ok("/readyz", 503);
    ck_assert_msg(strncmp(b, "draining", 8) == 0, "%s", b);
    free(b);
    h_close(&c);
    /* New players are refused: the game port is closed. */
    h_conn late;
    ck_assert(!h_connect(&late, srv.port));
    ck_assert_int_eq(wait_exit(4000), 0);
    ck_assert(file_has(save, "MINKSNAP"));
    h_remove_save(save);
    fake_agones_stop(&fake);
}
END_TEST

void ops_agones_tests(Suite *s)
{
    MINK_TCASE(s, "agones", 60, calls_in_order, no_allocation_without_the_flag,
               ready_is_retried_until_the_sidecar_answers, a_silent_sidecar_does_not_delay_ticks,
               drain_waits_for_the_sdk_within_drain_seconds);
}
