/* The world's levels as the clients get them (levels.c): named in `welcome`, served whole on
 * the HTTP port at /levels/KEY (the level file, docs/PROTOCOL.md "Levels") and
 * /levels/KEY/file (the file a scene read it from). */
#ifndef MINK_NET_LEVELS_H
#define MINK_NET_LEVELS_H

#include <stddef.h>

#include "mink_proto.h"

typedef struct net_server net_server;

/* The levels of the world's bodies as `welcome` names them: a malloc'ed array of *n the
 * caller frees (NULL when none, or out of memory). */
proto_welcome_level *net_levels_welcome(net_server *srv, size_t *n);
/* GET `path` when it is a level's: its bytes into b, the content type, and the status (200,
 * 404); 0 when the path is none of /levels/. */
int net_levels_http(net_server *srv, const char *path, proto_buf *b, const char **type);

#endif
