/* The history of placements for queries at a past tick (history.c), and the bodies a query
 * looks at (query.c). */
#ifndef MINK_SIM_HISTORY_H
#define MINK_SIM_HISTORY_H

#include "world_internal.h"

/* A body as a query sees it: its shape and its placement then (the 2D or the 3D fields). */
typedef struct sim_qbody {
    sim_id id;
    sim_kind kind;
    uint64_t category; /* its filter's (a query's mask meets it) */
    bool sensor;       /* queries pass through sensors */
    const col_shape2 *s2;
    col_xf2 x2;
    const col_shape3 *s3;
    col_xf3 x3;
    const sim_level *level; /* a level body's shape (s2 and s3 are then placeholders) */
    col_aabb3 box; /* its bounds then (z 0 in 2D) */
    float enter;   /* query.c: where a ray or a sweep enters the bounds, a fraction */
} sim_qbody;

/* A sort key: a number, and the index of what it stands for among its kind. */
typedef struct sim_sort_key {
    float key;
    uint32_t index;
} sim_sort_key;
/* Sorts keys by key, ties by index (so that the order is the same on every run). */
void sim_sort_keys(sim_sort_key *keys, size_t n);

/* The world's query state, made on first use: the history (when kept) and scratch arrays. */
sim_history *sim_history_of(sim_world *w);
void sim_history_free(sim_history *h);
/* Scratch arrays for query.c: sim_qbody candidates, and sim_sort_key keys. */
mk_vec *sim_history_candidates(sim_history *h);
mk_vec *sim_history_keys(sim_history *h);

/* Hooks of the world (world.c): before each step, when a body is placed in a slot, and when
 * a body is about to be removed (its shape still there). Cheap no-ops without a history. */
void sim_history_before_step(sim_world *w);
void sim_history_note_added(sim_world *w, uint32_t slot);
void sim_history_note_removed(sim_world *w, const sim_body *b);
/* A body woken (sleep.c), in a step or between steps: its placement now, before it moves. */
void sim_history_note_woken(sim_world *w, const sim_body *b);
/* A body about to be moved between steps (a teleport, motion.c): its placement now is where
 * it was at this tick. A static body, which has no records, is kept as a removed one is, up
 * to this tick, and counts as added now. */
void sim_history_note_moved(sim_world *w, const sim_body *b);
/* Whether a body of this slot existed at tick t (it was added before it). */
bool sim_history_born_by(const sim_world *w, uint32_t slot, uint64_t t);

/* The bodies whose placement at tick t the history holds and whose bounds then meet `box`,
 * appended to out: every body that moved at or after t (its earliest record from t on), and
 * every body removed since t (static ones too) that existed then. The others are where they
 * are now (sim_history_still_since). False when memory runs out. t must be within the
 * history and before the current tick. */
bool sim_history_bodies_at(sim_world *w, uint64_t t, const col_aabb3 *box, mk_vec *out);
/* Whether the body in this slot has no record from tick t on: it is where it was at t. */
bool sim_history_still_since(const sim_world *w, uint32_t slot, uint64_t t);
/* The largest half extent of any bounds the history has held, m (0 without a history). */
float sim_history_widest(const sim_history *h);

#endif
