/* Invited players (players.c, with --token-key): the table of players by user id, who owns
 * the bodies of each, and what is kept while a player is away. */
#ifndef MINK_NET_PLAYERS_H
#define MINK_NET_PLAYERS_H

#include <stdbool.h>

#include "mk_error.h"

typedef struct net_server net_server;
typedef struct net_session net_session;
typedef struct net_player net_player;
typedef struct net_players net_players;

/* Makes srv->players: the table and the replay check (with --token-key), or logs that the
 * server is open; 0, or a libuv error code. */
int net_players_init(net_server *srv);
/* Once the loop has ended. */
void net_players_free(net_server *srv);
/* A hello's token: 0 when the client may join (always without --token-key), with its player
 * found or made and s->owner, s->avatar (the avatar kept while away) and, from the token,
 * s->name set; otherwise -1 and why not in *err, which the caller answers `unauthorized`.
 * *replaced: the player's session on another connection, which lost the player to this one
 * and is for the caller to close, or NULL. */
int net_player_admit(net_session *s, const char *token, net_session **replaced, mk_error *err);
/* Writes the table of players to FILE.players (with --token-key and --save; nothing
 * otherwise), on the thread pool: when a player gets an owner number, their avatar changes
 * or they are forgotten. */
void net_players_save(net_server *srv);
/* A player's user id and role, from its token ("" when the token has none). */
const char *net_player_user(const net_player *p);
const char *net_player_role(const net_player *p);
/* The session is closing: true when it was a player's, whose bodies are then kept
 * (--keep-bodies); false when its bodies are to go now. */
bool net_player_left(net_session *s);

#endif
