/* The fixture of the server's integration suite (test_server*.c): the server under test, the
 * steps most tests take with it, and each file's tests. */
#ifndef MINK_TESTS_SERVER_FIXTURE_H
#define MINK_TESTS_SERVER_FIXTURE_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>

#include "harness.h"

#define HELLO "{\"type\":\"hello\",\"protocol\":1,\"name\":\"test\"}"

extern h_server srv; /* the one server a test runs at a time */
extern const char *const DIM3[]; /* the flags of a 3D world (the embedded demo3d scene) */

/* Starts mink-server with `args` (NULL-terminated) on an ephemeral port; fails the test if it
 * does not come up. */
void start(const char *const *args);
/* SIGTERM, and the server must exit 0. */
void stop(void);
/* Connects and joins; returns the welcome (caller deletes). */
cJSON *join(h_conn *c, const char *hello);
/* start(args), then joins `c` with HELLO. */
void start_and_join(h_conn *c, const char *const *args);
/* The same with one flag and its value. */
void start_and_join_with(h_conn *c, const char *flag, const char *value);
/* start_and_join(c, NULL), then joins `other` with HELLO (its welcome dropped). */
void start_and_join_pair(h_conn *c, h_conn *other);
/* start_and_join, the connection returned. */
h_conn start_joined(const char *const *args);
/* Joins with a kinematic avatar (half extents hx, hy) at (0, y); returns the avatar's id. */
double join_kinematic(h_conn *c, double hx, double hy, double y, double max_speed);
void expect_error(h_conn *c, const char *code);
/* Sends `line` and expects an error of `code` whose message begins with `field`. */
void expect_refused_naming(h_conn *c, const char *line, const char *code, const char *field);
/* A ping answered proves the connection still works. */
void expect_alive(h_conn *c);
/* Runs a shell command; its stdout goes to `out` (cut to fit); returns its wait status. */
int run_command(const char *cmd, char *out, size_t cap);
/* True when `path` holds `text`. */
bool file_has(const char *path, const char *text);
/* Fifteen inputs 33 ms apart, five of each of three moves (`move` and what follows it). */
void send_moves(h_conn *c, const char *const moves[3]);
/* Inputs 1 to n, 33 ms apart, each with `move` (a JSON vector); then skips the states queued
 * meanwhile, up to the first that acknowledges input n (3 s at most). Returns the last ack
 * seen. */
double send_inputs_to_ack(h_conn *c, const char *move, int n);
/* Sends a despawn of `id` with req `req`; the line sent stays in `line` (cap bytes), to be sent
 * again. */
void despawn(h_conn *c, int req, double id, char *line, size_t cap);
/* A component of a body's vector field in a state (h_vec(body, key, i)) and the value it must
 * have, less than tol away. */
typedef struct field_near {
    const char *key;
    int i;
    double want, tol;
} field_near;
/* The next four states show body `id` with its `n` fields near their values, its x advancing
 * at `speed` m/s with the ticks (60 a second, within `tol` m); returns its last x, and the last
 * state's ack in *ack. */
double expect_run(h_conn *c, double id, double speed, const field_near *fields, size_t n,
                  double tol, double *ack);
/* Spawns `body` (a body spec) with req `req`; returns its id. */
double spawn_ok(h_conn *c, int req, const char *body);
/* Spawns a 1 x 1 m box at (x, y) in a 2D world, its spec ending with `more` ("" or members
 * that follow a comma) with req `req`; returns its id. */
double spawn_unit_box(h_conn *c, int req, double x, double y, const char *more);
/* Sends `line` and returns the next message of type `type` (caller deletes); fails the test
 * when none comes within 3 s. */
cJSON *request(h_conn *c, const char *line, const char *type);
/* Sends `query` (two shapes that overlap) and expects a hit answering `req` at `depth`;
 * returns the result (caller deletes). */
cJSON *expect_hit(h_conn *c, const char *query, const char *req, double depth, double tol);
/* Sends `query` (two shapes apart) and expects a result with no hit, at `distance`. */
void expect_miss(h_conn *c, const char *query, double distance, double tol);
/* Creates an empty file from a mkstemp template, which becomes its path. */
void make_temp_file(char *path_template);
/* make_temp_file(path_template), then start()s a server recording to it with a hash every 30
 * ticks, of the 3D demo when `dim3`; returns a connection joined with a character avatar at
 * `pos` (a JSON vector): a box of 0.8 x 1.8 m in 2D, a capsule of radius 0.4 m and half height
 * 0.5 m in 3D. */
h_conn start_recording(char *path_template, bool dim3, const char *pos);
/* Closes `c`, leaves the server 100 ms to read what it sent, then stop()s it. */
void close_and_stop(h_conn *c);
/* Ends a recorded session: closes `c` and stops the server recording to `path`, which must
 * hold inputs and an end; then replays it offline (after `flags`, "" or "--dim 3 ") into a new
 * log from the template `log`, which must say the session replayed as recorded. */
void stop_and_replay(h_conn *c, const char *path, const char *flags, char *log);
/* Runs mink-server with the arguments `fmt` formats (shell words, redirections allowed) and
 * waits for it; returns its exit code, failing the test when it did not exit. */
int server_exit_code(const char *fmt, ...);
/* The avatar of `welcome` as a state that shows it for the first time gives it: a character
 * owned by the welcome's client, of a shape of `type`; returns the shape. */
const cJSON *expect_avatar_shape(const cJSON *state, const cJSON *welcome, const char *type);
/* The next state before the time `end` (of h_now_ms), waiting for each at most wait_ms; NULL
 * once `end` has passed. */
cJSON *state_before(h_conn *c, long long end, int wait_ms);
/* The next state that has body `id`, skipping the others; NULL after timeout_ms. */
cJSON *state_with(h_conn *c, double id, int timeout_ms);
/* The same within 3 s, failing the test when none comes (caller deletes). */
cJSON *next_state_with(h_conn *c, double id);
/* Body `id`'s vector field `key` (pos, vel...) in the next state that has it: its x, y and z
 * (NAN for what the field does not have). */
void next_state_vec(h_conn *c, double id, const char *key, double v[3]);
/* A player back too late is a newcomer: `welcome` (deleted here) gives no avatar, and `body`,
 * once theirs, is gone (its despawn is not_found). */
void expect_forgotten(h_conn *c, cJSON *welcome, double body);
/* The next state that has body `id` (within 3 s) shows it owned by client `owner`. */
void expect_owner(h_conn *c, double id, double owner);

/* Each file's tests, added to the suite by test_server.c. */
void server_limit_tests(TCase *tc);
void server_world_tests(TCase *tc);
void server_netcode_tests(TCase *tc);
void server_3d_tests(TCase *tc);
void server_query_tests(TCase *tc);
void server_token_tests(TCase *tc);
void server_event_tests(TCase *tc);
void server_joint_tests(TCase *tc);

#endif
