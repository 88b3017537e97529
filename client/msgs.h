/* The lines mink-client sends, '\n' included (msgs.c): the interactive client's, the bot's and
 * the load generator's. */
#ifndef MINK_CLI_MSGS_H
#define MINK_CLI_MSGS_H

#include <stdbool.h>
#include <stdint.h>

#include "mink_proto.h"

/* hello with an avatar for a world of dim 2 or 3 at pos (dim components read) */
void cli_write_hello(proto_buf *b, const char *name, const char *token, bool kinematic, int dim,
                     const double pos[3]);
void cli_write_ping(proto_buf *b, double now_ms);
/* input with a move of dim components, each in [-1, 1], stamped with the tick its step is
 * (input.tick; 0: none) */
void cli_write_input(proto_buf *b, uint64_t seq, uint64_t tick, int dim, const double move[3],
                     bool jump);

#endif
