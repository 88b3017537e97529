/* Test harness for integration tests: starts the real mink-server on an ephemeral loopback
 * port and talks to it over TCP as a client would. */
#ifndef MINK_TEST_HARNESS_H
#define MINK_TEST_HARNESS_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct h_server {
    pid_t pid;
    int port;
    char log_path[64]; /* the server's stderr */
} h_server;

/* Starts mink-server with --port 0 --host 127.0.0.1 and `args` (NULL-terminated, may be NULL),
 * waits for its "listening on" line and fills *srv. Returns false if it did not start. */
bool h_server_start(h_server *srv, const char *const *args);
/* Sends `sig` and waits up to `timeout_ms` for the exit; returns the exit status, or -1 when it
 * did not exit in time (it is then killed), or -2 when it died of a signal. */
int h_server_stop(h_server *srv, int sig, int timeout_ms);
/* True when the server's log contains `text`. */
bool h_server_log_has(const h_server *srv, const char *text);
/* The whole of file `path`, with a '\0' after it (*len, when not NULL, its length without
 * the '\0'): malloc'ed, NULL when it cannot be read. */
char *h_read_file(const char *path, size_t *len);
/* Removes the files of a `--save FILE`: FILE, FILE.prev, FILE.next and their journals. */
void h_remove_save(const char *path);

typedef struct h_conn {
    int fd;
    char *buf; /* bytes received and not yet returned as lines */
    size_t len, cap;
    size_t last_len; /* bytes of the line h_recv returned last, '\n' included */
} h_conn;

bool h_connect(h_conn *c, int port);
/* The same with the socket's receive buffer set to `rcvbuf` bytes first (0: the default): a
 * client that stops reading fills its socket sooner. */
bool h_connect_rcvbuf(h_conn *c, int port, int rcvbuf);
void h_close(h_conn *c);
/* Sends raw bytes (all of them). */
bool h_send_raw(h_conn *c, const void *data, size_t len);
/* Sends a string and a '\n'. */
bool h_send_line(h_conn *c, const char *line);
/* The next line as parsed JSON (the caller deletes it), or NULL on timeout or close. */
cJSON *h_recv(h_conn *c, int timeout_ms);
/* The next message of `type`, skipping others; NULL on timeout or close. */
cJSON *h_recv_type(h_conn *c, const char *type, int timeout_ms);
/* The same from any source of messages, for any string field: the next message whose `key`
 * is `value`; `next` gives the next one within its timeout (NULL on timeout or close); the
 * others are deleted. */
cJSON *h_until_field(cJSON *(*next)(void *conn, int timeout_ms), void *conn, const char *key,
                     const char *value, int timeout_ms);
/* Reads more bytes into c->buf before `deadline` (h_now_ms's clock); returns the bytes read,
 * 0 on close, -1 on timeout. */
ssize_t h_fill(h_conn *c, long long deadline);
/* True when the server closed the connection within timeout_ms (after any pending lines). */
bool h_wait_closed(h_conn *c, int timeout_ms);

/* Field helpers: a number at `key` (NaN when missing), a string (NULL when missing). */
double h_num(const cJSON *obj, const char *key);
const char *h_str(const cJSON *obj, const char *key);
/* Component i of a numeric array at `key` (NaN when missing). */
double h_vec(const cJSON *obj, const char *key, int i);
/* The body entry with this id in a state's `bodies`, or NULL. */
const cJSON *h_state_body(const cJSON *state, double id);
/* True when a state's `removed` holds id. */
bool h_state_removed(const cJSON *state, double id);

/* Milliseconds since an arbitrary start (monotonic). */
long long h_now_ms(void);
void h_sleep_ms(int ms);

#endif
