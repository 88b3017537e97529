/* The table of invited players written beside a durable save, FILE.players (players_file.c). */
#ifndef MINK_NET_PLAYERS_FILE_H
#define MINK_NET_PLAYERS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

#include "mink_world_io.h"

typedef struct net_players_file net_players_file;

/* The writer of save_path's FILE.players on `loop`. A table that changed while a write was in
 * flight is asked for again through again(ctx) once that write is done. NULL when memory ran
 * out. */
net_players_file *net_players_file_new(uv_loop_t *loop, const char *save_path,
                                       void (*again)(void *ctx), void *ctx);
void net_players_file_free(net_players_file *f);
const char *net_players_file_path(const net_players_file *f);
/* Writes the table: at once when `wait`, otherwise on the thread pool; while a write is in
 * flight, only notes that again(ctx) must run when it is done. 0, or -1 after logging. */
int net_players_file_write(net_players_file *f, const wio_player *r, size_t n, bool wait);

#endif
