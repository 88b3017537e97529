/* --record and --replay of mink-server (record.c). */
#ifndef MINK_RECORD_H
#define MINK_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mink_net.h"
#include "mink_rules.h"

/* A recording in progress: the journal of a world and the file it goes to. */
typedef struct mink_recording {
    FILE *file;
    wio_journal journal;
} mink_recording;

/* Starts recording the world's changes into `path`; false after logging why not. */
bool mink_record_start(mink_recording *r, sim_world *w, const char *path);
/* Writes the end line (tick and hash) and closes; 0, or -1 after logging. */
int mink_record_stop(mink_recording *r);
/* Replays a recording on `w` (the scene it was recorded on), logging the hash every
 * `hash_every` ticks; 0 when the end line's hash matches, -1 after logging what differs. With
 * `rules` (--script, loaded over `w`) the script runs again as the server ran it: on_start
 * after the start line, its hooks after each step and at the rules_ lines, and the changes the
 * recording marks as its own are made by it, not read. */
int mink_replay(sim_world *w, const char *path, uint64_t hash_every, rul_runtime *rules);

#endif
