/* The fixture of the operations suite (test_ops*.c): the server with an HTTP port. */
#ifndef MINK_TESTS_OPS_FIXTURE_H
#define MINK_TESTS_OPS_FIXTURE_H

#include <check.h>

#include "http_client.h"
#include "server_fixture.h"

extern int http_port; /* the running server's */

/* Starts mink-server with a free --http-port and `extra` (NULL-terminated, may be NULL). */
void start_http(const char *const *extra);
/* GET path; fails the test unless the status is `status`; returns the body (caller frees). */
char *get_ok(const char *path, int status);
/* One sample of GET /metrics. */
double scrape(const char *series);
/* Waits for the server's exit (after a signal the test sent); its exit status, or -1 when it
 * did not exit within timeout_ms (it is then killed). */
int wait_exit(int timeout_ms);

/* The game port's tick figures at a moment, to check later that its loop kept time. */
typedef struct tick_mark {
    double ticks, dropped;
    long long t0;
} tick_mark;
tick_mark tick_mark_now(void);
/* Fails the test unless the world stepped since `m` at least half the 60 Hz it should have (a
 * loop blocked for a while would have lost seconds) and dropped few ticks (a stall of a busy
 * test machine may drop some). */
void expect_ticks_kept(tick_mark m);

/* The Agones tests (test_ops_agones.c) as a test case of the suite. */
void ops_agones_tests(Suite *s);
/* The WebSocket tests (test_ops_ws.c). */
void ops_ws_tests(Suite *s);

#endif
