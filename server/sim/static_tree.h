/* The static bodies' bounding volume tree (static_tree.c). */
#ifndef MINK_SIM_STATIC_TREE_H
#define MINK_SIM_STATIC_TREE_H

#include "mink_collision3.h"
#include "mk_vec.h"

/* A bounding volume tree over boxes of slots (static_tree.c): a node's box holds its items';
 * a leaf has `count` items from items[first], an inner node count 0, its left child next to
 * it and its right child at `first`. */
typedef struct sim_tree_node {
    col_aabb3 box;
    uint32_t first, count;
} sim_tree_node;

typedef struct sim_tree {
    MK_VEC(sim_tree_node) nodes; /* depth first */
    MK_VEC(uint32_t) items;      /* slots */
} sim_tree;

/* Builds the tree over `slots` whose boxes are boxes[slot]; false when memory runs out. */
bool sim_tree_build(sim_tree *t, const uint32_t *slots, size_t n, const col_aabb3 *boxes);
/* Calls `visit` with each slot whose boxes[slot] overlaps `box`, in the tree's order, until it
 * returns false; false then. It writes nothing, so threads may walk the tree at once. */
typedef bool sim_tree_visit_fn(void *ctx, uint32_t slot);
bool sim_tree_visit(const sim_tree *t, const col_aabb3 *boxes, const col_aabb3 *box,
                    sim_tree_visit_fn *visit, void *ctx);
/* Appends to `hits` the slots whose boxes[slot] overlap `box`; false when memory runs out. */
bool sim_tree_query(const sim_tree *t, const col_aabb3 *boxes, const col_aabb3 *box,
                    mk_vec *hits);

#endif
