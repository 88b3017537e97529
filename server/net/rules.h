/* The game's rules in the server (rules.c): the Lua runtime of mink_rules (--script) called at
 * fixed points of the tick and of a session's life, its messages carried to the clients, its
 * inputs and state written to the journals. All of these do nothing without --script. */
#ifndef MINK_NET_RULES_H
#define MINK_NET_RULES_H

#include <stdbool.h>

#include "mink_proto.h"

typedef struct net_server net_server;
typedef struct net_session net_session;
struct wio_journal;

/* Hands the runtime (cfg.rules) the server's callbacks; 0, or a libuv error code. */
int net_rules_start(net_server *srv);
void net_rules_free(net_server *srv);
/* After each step, before its events go to the clients: on_event for each of the step's
 * events in their order, then the timers due and on_tick; then the kicks the script asked
 * for. */
void net_rules_after_step(net_server *srv);
/* A session said hello and was let in: on_join. 0, or -1 with the script's refusal in *why. */
int net_rules_join(net_session *s, mk_error *why);
/* A session that joined the game is closing: on_leave. */
void net_rules_leave(net_session *s);
/* The client messages `action` (a player's command) and `emit` (a `game` connection's
 * message to players): answered `done` or with an error. */
void net_rules_action(net_session *s, proto_msg *m);
void net_rules_emit(net_session *s, proto_msg *m);
/* Whether the session is a `game` connection (its token's role): it may act on any body, send
 * to players and hears every event. */
bool net_session_is_game(const net_session *s);
/* The owner of the bodies and joints the session makes: its own, or for a `game` connection
 * the world's (0), as the rules' are, so that they outlive it and no client's quota bounds
 * them. */
uint32_t net_session_maker(const net_session *s);
/* SIGHUP: the script read again; the old one keeps running when the new one fails. */
void net_rules_reload(net_server *srv);
/* The rules' state as a `rules_state` line of journal `j` when it changed since the last one
 * written there (always when `fresh`: a journal just begun, which then gets a mark too, so
 * that a restore finds it). */
void net_rules_journal_state(net_server *srv, struct wio_journal *j, bool fresh);
/* The script's figures for GET /metrics. */
void net_rules_metrics(net_server *srv, proto_buf *b);

#endif
