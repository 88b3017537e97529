/* Bounds, the broadphase's pairs and bodies by region (broadphase.c, region.c). */
#ifndef MINK_SIM_BROADPHASE_H
#define MINK_SIM_BROADPHASE_H

#include <math.h>

#include "mink_sim.h"
#include "mk_vec.h"
#include "static_tree.h"

/* Two slots. */
typedef struct sim_slot_pair {
    uint32_t a, b;
} sim_slot_pair;

/* A pair of slots whose fattened bounds overlap: a candidate for the narrowphase. */
typedef struct sim_pair {
    uint32_t a, b;
    float height; /* m: the lower body's position along "up", the order of resolution */
    uint32_t entry; /* a hint: the pair's contact cache entry + 1 when last found, 0 when
                     * not known, SIM_CACHE_NO_ENTRY when it has none (sim_cache_find_hinted) */
    uint32_t piece_entry; /* a level pair's: its piece 1's entry + 1 when last found, 0 when
                           * not known (sim_cache_find_piece) */
    /* The narrowphase's proof that a 2D pair is still too far apart for contact points
     * (contacts.h, dim_still_apart): how far, m, the second body may move in the first one's
     * frame from where it was when the pair was last collided, apart_p and the turn apart_q,
     * before the pair must be collided again; 0 when there is no proof. A pair made anew has
     * none. */
    float apart;
    mk_vec2 apart_p, apart_q;
} sim_pair;

/* The broadphase's state: sort and sweep on x over the moving bodies' fattened bounds
 * (broadphase.c), and a tree over the static ones (static_tree.c, region.c). The bounds
 * themselves are per dimension (sim_dim2, sim_dim3: fat and tight, per slot). */
typedef struct sim_broadphase {
    MK_VEC(uint32_t) order; /* the slots of the bodies that are not static, by bounds min x */
    /* The same slots in slot order: the passes over the moving bodies that any order serves
     * (controls, bounds, solver bodies) read the bodies one after the other in memory rather
     * than hopping about as the order on x does. */
    MK_VEC(uint32_t) movers;
    bool order_unsorted; /* a fat box moved since the order was last sorted */
    float fat_half_max;  /* m: no fat box in `order` is wider than twice this on x */
    MK_VEC(uint32_t) statics; /* the slots of the static bodies */
    sim_tree tree;            /* over the statics' bounds */
    bool statics_dirty;       /* a static body came or went: the tree is built anew */
    /* Some moving body is kinematic this step (step.c): a sweep that stops only at static and
     * kinematic bodies reads the order too, not the statics' tree alone (sweep.c). */
    bool kinematic_movers;
    MK_VEC(col_aabb3) shape_box; /* per slot: the shape's bounds after the last step */
    MK_VEC(uint32_t) hits;       /* the bodies found by the last query (region.c) */
    MK_VEC(uint64_t) near_bits;  /* one bit a slot, all clear between queries (region.c) */
    bool pairs_dirty;            /* a body came or went: the pairs are computed anew */
    MK_VEC(sim_pair) pairs;
    MK_VEC(sim_pair) pairs_prev; /* the list before the last was made anew (carry_hints) */
    /* 2D: a pair of the list may have a sleeping body. The list is made anew whenever a body
     * falls asleep or wakes (pairs_dirty), so this holds until then. */
    bool pairs_sleeper;
    MK_VEC(float) sweep; /* the sorted bounds' low and high edges on each axis (broadphase.c) */
    /* The move buffer (Box2D v3's): the slots whose fat box moved since the pairs were last
     * brought up to date. Only these are looked up again; the other pairs stand, in their
     * places in the list (broadphase.c, update_pairs). */
    MK_VEC(uint32_t) moved;
    MK_VEC(uint8_t) moved_mark; /* per slot: 1 while update_pairs works, 0 between steps */
    /* The moved bodies' pairs that are not listed, found by the workers (update_pairs): the
     * moved bodies in blocks of SIM_FOUND_BLOCK, block k writing its pairs from
     * k * SIM_FOUND_BLOCK * found_room on and its count in found_count[k] (UINT32_MAX when
     * they did not fit: that block is looked up again on the loop's thread). */
    MK_VEC(sim_slot_pair) found;
    MK_VEC(uint32_t) found_count;
    uint32_t found_room; /* pairs a moved body may find, on average over its block; 0: unset */
    MK_VEC(uint8_t) parted; /* per listed pair: its moved bodies' boxes parted (update_pairs) */
    MK_VEC(uint64_t) pair_set;  /* the pairs' keys, for "is it listed" (pair_set.c) */
    size_t pair_set_count;      /* keys in pair_set */
    bool pair_set_fresh;        /* pair_set holds exactly the keys of `pairs` */
} sim_broadphase;

/* How far a body moves before its fat bounds do (Box2D's margin). */
#define SIM_FAT_MARGIN 0.1f /* m */

/* Bodies by region (region.c). A body's shape bounds now, in 3D form (z = 0 in 2D), and its
 * fat box (a static body's is its shape's). */
col_aabb3 sim_shape_bounds_now(const sim_world *w, uint32_t slot);
col_aabb3 sim_fat_box(const sim_world *w, uint32_t slot);
/* Sets the fat box to `shape` grown by margin (not on z in 2D) and the tight bounds to it. */
void sim_set_fat_box(sim_world *w, uint32_t slot, col_aabb3 shape, float margin);
/* Sorts `order` by the fat boxes' min x (insertion sort: near linear when little moved). */
void sim_order_sort(sim_world *w);
/* The first index of the sorted order whose fat box starts at or past x on the x axis (a
 * binary search). */
size_t sim_order_lower_bound(const sim_world *w, float x);
/* Builds the statics' tree again when a static body came or went; false when out of memory. */
bool sim_statics_refresh(sim_world *w);
/* Fills the broadphase's hits with the bodies whose fat box overlaps `box` (the statics too
 * when asked), statics first, then by the order; false when out of memory. */
bool sim_query_box(sim_world *w, const col_aabb3 *box, bool with_statics);
/* The same, the static bodies alone. */
bool sim_query_statics(sim_world *w, const col_aabb3 *box);
/* After a step: takes the shape bounds of every awake body and grows its fat box over them
 * where it left it. */
void sim_bounds_after_step(sim_world *w);
/* Appends to the broadphase's pairs each awake dynamic body or character with every static
 * body its fat box overlaps; false when out of memory. */
bool sim_static_pairs(sim_world *w);

/* Keeps the broadphase's pairs the candidate pairs of the current positions: every pair whose
 * tight bounds may overlap (dt s, gravity g m/s^2 bound how far a body moves this step). */
void sim_broadphase2(sim_world *w, float dt, float g);
void sim_broadphase3(sim_world *w, float dt, float g);

/* The pairs' set (pair_set.c). Empties it with room for `keys`; false when out of memory. */
bool sim_pair_set_clear(sim_broadphase *bp, size_t keys);
/* Adds the pair of slots a and b (either order): 1 when added, 0 when it was there, -1 when
 * out of memory. */
int sim_pair_set_add(sim_broadphase *bp, uint32_t a, uint32_t b);
/* Whether the pair of slots a and b (either order) is in the set; it writes nothing. */
bool sim_pair_set_has(const sim_broadphase *bp, uint32_t a, uint32_t b);
/* Removes the pair of slots a and b if it is there. */
void sim_pair_set_remove(sim_broadphase *bp, uint32_t a, uint32_t b);

/* Whether box `inner` lies within box `outer` (touching counts). */
static inline bool sim_aabb3_contains(const col_aabb3 *outer, const col_aabb3 *inner)
{
    return fabsf(inner->center.x - outer->center.x) + inner->half.x <= outer->half.x &&
           fabsf(inner->center.y - outer->center.y) + inner->half.y <= outer->half.y &&
           fabsf(inner->center.z - outer->center.z) + inner->half.z <= outer->half.z;
}

/* Whether two 3D boxes overlap (touching counts). */
static inline bool sim_aabb3_overlap(const col_aabb3 *a, const col_aabb3 *b)
{
    return fabsf(a->center.x - b->center.x) <= a->half.x + b->half.x &&
           fabsf(a->center.y - b->center.y) <= a->half.y + b->half.y &&
           fabsf(a->center.z - b->center.z) <= a->half.z + b->half.z;
}

#endif
