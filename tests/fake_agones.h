/* A fake Agones SDK sidecar for the tests: an HTTP server on 127.0.0.1 (a thread of the test)
 * that records each call the game server makes to the SDK's REST API ("POST /ready {}") in
 * order, and answers it, or holds it unanswered to play a slow or stuck sidecar. */
#ifndef MINK_TESTS_FAKE_AGONES_H
#define MINK_TESTS_FAKE_AGONES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define FAKE_AGONES_MAX_CALLS 256
#define FAKE_AGONES_CALL_LEN 160

typedef enum fake_agones_mode {
    FAKE_AGONES_ANSWER,        /* 200 {} to every call */
    FAKE_AGONES_SILENT,        /* reads every call and never answers */
    FAKE_AGONES_HOLD_SHUTDOWN, /* answers all but POST /shutdown */
} fake_agones_mode;

typedef struct fake_agones {
    int port;
    int listen_fd;
    fake_agones_mode mode;
    pthread_t thread;
    pthread_mutex_t mu;
    atomic_bool quit; /* set by the test, read by the thread */
    int ncalls;
    char calls[FAKE_AGONES_MAX_CALLS][FAKE_AGONES_CALL_LEN];
} fake_agones;

/* Listens on 127.0.0.1:port (0: any free port, then in f->port). */
bool fake_agones_start(fake_agones *f, int port, fake_agones_mode mode);
void fake_agones_stop(fake_agones *f);
/* The calls so far ("METHOD /path body"), copied; returns how many. */
int fake_agones_calls(fake_agones *f, char (*out)[FAKE_AGONES_CALL_LEN], int max);
/* Waits until a call equal to `call` has been recorded; its index, or -1 after timeout_ms. */
int fake_agones_wait(fake_agones *f, const char *call, int timeout_ms);

#endif
