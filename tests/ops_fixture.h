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

void ops_agones_tests(TCase *tc);

#endif
