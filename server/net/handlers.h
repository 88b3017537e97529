/* The answers to a client's messages (handlers.c): one handler per message type. */
#ifndef MINK_NET_HANDLERS_H
#define MINK_NET_HANDLERS_H

#include <stddef.h>

typedef struct net_session net_session;

/* Parses and answers one message of the client's (a line without its '\n', or a WebSocket
 * text message). */
void net_handle_message(net_session *s, const char *msg, size_t len);

/* `joint` and `unjoint` (joint_handlers.c). */
struct proto_msg;
void net_handle_joint(net_session *s, struct proto_msg *m);
void net_handle_unjoint(net_session *s, struct proto_msg *m);

#endif
