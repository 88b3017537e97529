/* The fixture of the game suites (test_game_*.c, test_server_rules.c): a mink-server running a
 * script, bots that join and send actions, the game's `event` lines picked out of what the
 * server sends, and the games' crash and replay tests. */
#ifndef MINK_TESTS_GAME_FIXTURE_H
#define MINK_TESTS_GAME_FIXTURE_H

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* The `event` lines game_action read before its answer (a hook's messages come before the
 * action's `done`), for game_event. */
static cJSON *game_pending;

/* The next `event` line within timeout_ms (h_until_field's source of messages). */
static inline cJSON *game_next_event(void *c, int timeout_ms)
{
    return h_recv_type(c, "event", timeout_ms);
}

/* The next `event` line named `name` within timeout_ms, skipping everything else; NULL when
 * none came (the caller deletes it). */
static inline cJSON *game_event(h_conn *c, const char *name, int timeout_ms)
{
    for (int i = 0; game_pending && i < cJSON_GetArraySize(game_pending); i++) {
        const char *n = h_str(cJSON_GetArrayItem(game_pending, i), "name");
        if (n && strcmp(n, name) == 0)
            return cJSON_DetachItemFromArray(game_pending, i);
    }
    return h_until_field(game_next_event, c, "name", name, timeout_ms);
}

/* The data of the next event `name` (the caller deletes the event through *ev). */
static inline const cJSON *game_event_data(h_conn *c, const char *name, int timeout_ms,
                                           cJSON **ev)
{
    *ev = game_event(c, name, timeout_ms);
    ck_assert_msg(*ev != NULL, "no '%s' event within %d ms", name, timeout_ms);
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(*ev, "data");
    ck_assert_ptr_nonnull(data);
    return data;
}

/* Connects and says hello with `hello` (a whole line); returns the welcome's client id. */
static inline double game_join(h_conn *c, const h_server *srv, const char *hello)
{
    ck_assert(h_connect(c, srv->port));
    ck_assert(h_send_line(c, hello));
    cJSON *w = h_recv_type(c, "welcome", 5000);
    ck_assert_msg(w != NULL, "no welcome");
    double id = h_num(w, "client");
    cJSON_Delete(w);
    return id;
}

/* Sends an action with `req` and returns the answer: a `done` or an `error` answering it (the
 * caller deletes it). */
static inline cJSON *game_action(h_conn *c, int req, const char *name, const char *data)
{
    char line[1024];
    snprintf(line, sizeof line, "{\"type\":\"action\",\"req\":%d,\"name\":\"%s\"%s%s}", req, name,
             data ? ",\"data\":" : "", data ? data : "");
    ck_assert(h_send_line(c, line));
    long long end = h_now_ms() + 5000;
    while (h_now_ms() < end) {
        cJSON *m = h_recv(c, 200);
        if (!m)
            continue;
        const char *type = h_str(m, "type");
        if (type && (strcmp(type, "done") == 0 || strcmp(type, "error") == 0) &&
            h_num(m, "req") == req)
            return m;
        if (type && strcmp(type, "event") == 0) {
            if (!game_pending)
                game_pending = cJSON_CreateArray();
            cJSON_AddItemToArray(game_pending, m);
            continue;
        }
        cJSON_Delete(m);
    }
    ck_abort_msg("no answer to action %s (req %d)", name, req);
    return NULL;
}

/* The action must be answered `done`. */
static inline void game_action_ok(h_conn *c, int req, const char *name, const char *data)
{
    cJSON *m = game_action(c, req, name, data);
    ck_assert_msg(strcmp(h_str(m, "type"), "done") == 0, "action %s: %s", name,
                  h_str(m, "message") ? h_str(m, "message") : "?");
    cJSON_Delete(m);
}

/* Runs `cmd` through the shell and returns its exit code (-1 when it did not exit). */
static inline int game_shell(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The path of an example game's file (the source tree's examples/). */
#define GAME_PATH(rel) MINK_SOURCE_DIR "/examples/" rel

/* Makes an empty file from the mkstemp template `path`, which becomes its name. */
static inline void game_temp(char *path)
{
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
}

/* A game of examples/: its scene and its script. */
typedef struct game_files {
    const char *scene, *script;
} game_files;

/* Starts the game `g` with an HTTP port, a flush every 50 ms and `flag` `value` (NULL for
 * none). */
static inline void game_start(h_server *srv, const game_files *g, const char *flag,
                              const char *value)
{
    const char *args[] = {"--scene", g->scene, "--script", g->script, "--http-port", "0",
                          "--fsync-ms", "50", flag, value, NULL};
    ck_assert(h_server_start(srv, args));
}

/* Closes `c`; the server must then stop cleanly on SIGTERM. */
static inline void game_stop(h_server *srv, h_conn *c)
{
    h_close(c);
    ck_assert_int_eq(h_server_stop(srv, SIGTERM, 5000), 0);
}

/* Kills the server with SIGKILL, as a crash would, once what it flushed every 50 ms is past a
 * flush point; `c` is closed. */
static inline void game_crash(h_server *srv, h_conn *c)
{
    h_sleep_ms(400);
    ck_assert_int_eq(h_server_stop(srv, SIGKILL, 5000), -2);
    h_close(c);
}

/* Ends a recorded game (closes `c`, stops the server) and replays the recording `rec` of the
 * game `scene` and `script` offline three ways, each of which must end on the recorded hash:
 * without the script (its changes read from the recording), with it run again, and with it on
 * three workers (--workers changes nothing a script sees). */
static inline void game_replays(h_server *srv, h_conn *c, const game_files *g, const char *rec)
{
    h_sleep_ms(500);
    h_close(c);
    h_sleep_ms(100);
    ck_assert_int_eq(h_server_stop(srv, SIGTERM, 5000), 0);
    char cmd[1024];
    for (int way = 0; way < 3; way++) {
        snprintf(cmd, sizeof cmd, "%s --scene %s %s%s%s --replay %s 2>&1 | grep -q 'as recorded'",
                 MINK_SERVER_PATH, g->scene, way ? "--script " : "", way ? g->script : "",
                 way == 2 ? " --workers 3" : "", rec);
        ck_assert_msg(game_shell(cmd) == 0, "%s", cmd);
    }
    unlink(rec);
}

/* The game `g` played by `play` (which joins `c`), recorded to a new file from the template
 * `rec`, then game_replays. */
static inline void game_record_and_replay(h_server *srv, const game_files *g, char *rec,
                                          void (*play)(h_conn *c))
{
    game_temp(rec);
    game_start(srv, g, "--record", rec);
    h_conn c;
    play(&c);
    game_replays(srv, &c, g, rec);
}

/* The game `g` played by `play` (which joins `c`) with a save in a new file from the template
 * `save`, killed with SIGKILL (game_crash) and started again on the save, where `restored`
 * (which joins `c` again) finds what the game kept. */
static inline void game_kill_and_restart(h_server *srv, const game_files *g, char *save,
                                         void (*play)(h_conn *c), void (*restored)(h_conn *c))
{
    game_temp(save);
    h_remove_save(save);
    game_start(srv, g, "--save", save);
    h_conn c;
    play(&c);
    game_crash(srv, &c);
    game_start(srv, g, "--save", save);
    restored(&c);
    game_stop(srv, &c);
    h_remove_save(save);
}

#endif
