/* The static bodies' own broadphase: a bounding volume tree built top down, as Box2D keeps its
 * static proxies in a tree of their own. Static bodies never move, so the tree is built once
 * and again only when one comes or goes; the moving bodies' sort and sweep (broadphase.c)
 * then never re-sorts or sweeps a level's thousands of static pieces, and each moving body
 * finds the ones it may touch in O(log n).
 *
 * The build splits each node's items at the median of their centres along the widest axis of
 * those centres (a median split: balanced, so the depth is log2 of the count and a fixed
 * stack serves every query). Nodes are stored depth first: an inner node's left child
 * follows it, its right child is at `right`. A 2D world's boxes have z = 0 and half.z = 0. */
#include <math.h>
#include <stddef.h>

#include "broadphase.h"
#include "static_tree.h"
#include "world_internal.h"

#define TREE_LEAF 4      /* items per leaf at most */
#define TREE_DEPTH_MAX 64 /* a balanced tree of 2^32 items is 31 deep */

static float axis_of(mk_vec3 v, int axis) { return axis == 0 ? v.x : axis == 1 ? v.y : v.z; }

/* The box over a and b, rounded outward: a node's box must hold its items' as every overlap
 * test evaluates them, or a query that touches an item's box could be turned away at the node
 * (a rounding inward at each level would add up down the tree). In double, where c - h and
 * c + h of floats are exact, then rounded up to float half extents. */
static col_aabb3 merge(col_aabb3 a, col_aabb3 b)
{
    const double ac[3] = {a.center.x, a.center.y, a.center.z};
    const double ah[3] = {a.half.x, a.half.y, a.half.z};
    const double bc[3] = {b.center.x, b.center.y, b.center.z};
    const double bh[3] = {b.half.x, b.half.y, b.half.z};
    float c[3], h[3];
    for (int k = 0; k < 3; k++) {
        double lo = fmin(ac[k] - ah[k], bc[k] - bh[k]), hi = fmax(ac[k] + ah[k], bc[k] + bh[k]);
        c[k] = (float)(0.5 * (lo + hi));
        double want = fmax(hi - c[k], c[k] - lo);
        h[k] = (float)want;
        if ((double)h[k] < want)
            h[k] = nextafterf(h[k], INFINITY);
    }
    return (col_aabb3){mk_v3(c[0], c[1], c[2]), mk_v3(h[0], h[1], h[2])};
}

/* Whether item a's centre comes before b's along `axis`; ties are broken by slot, so the tree
 * depends on the statics alone, not on the order they came in. */
static bool before(const col_aabb3 *boxes, uint32_t a, uint32_t b, int axis)
{
    float ka = axis_of(boxes[a].center, axis), kb = axis_of(boxes[b].center, axis);
    return ka < kb || (ka == kb && a < b);
}

/* Puts the item that is k-th along `axis` at k, those before it left of it and the others
 * right of it: Wirth's selection ("Algorithms + Data Structures = Programs", Find). */
static void select_kth(uint32_t *items, size_t n, size_t k, const col_aabb3 *boxes, int axis)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (lo < hi) {
        uint32_t pivot = items[kk];
        ptrdiff_t i = lo, j = hi;
        do {
            while (before(boxes, items[i], pivot, axis))
                i++;
            while (before(boxes, pivot, items[j], axis))
                j--;
            if (i <= j) {
                uint32_t t = items[i];
                items[i] = items[j];
                items[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < kk)
            lo = i;
        if (kk < i)
            hi = j;
    }
}

/* Builds the subtree over items[first, first + count) at node index `at` (depth first);
 * returns the index past its last node. */
static uint32_t build(sim_tree *t, const col_aabb3 *boxes, uint32_t first, uint32_t count,
                      uint32_t at)
{
    sim_tree_node *nodes = t->nodes.at;
    uint32_t *items = t->items.at;
    col_aabb3 box = boxes[items[first]];
    mk_vec3 clo = box.center, chi = box.center;
    for (uint32_t i = 1; i < count; i++) {
        const col_aabb3 *b = &boxes[items[first + i]];
        box = merge(box, *b);
        clo = mk_v3(fminf(clo.x, b->center.x), fminf(clo.y, b->center.y), fminf(clo.z, b->center.z));
        chi = mk_v3(fmaxf(chi.x, b->center.x), fmaxf(chi.y, b->center.y), fmaxf(chi.z, b->center.z));
    }
    nodes[at].box = box;
    if (count <= TREE_LEAF) {
        nodes[at].first = first;
        nodes[at].count = count;
        return at + 1;
    }
    mk_vec3 spread = mk_v3_sub(chi, clo);
    int axis = spread.x >= spread.y && spread.x >= spread.z ? 0 : spread.y >= spread.z ? 1 : 2;
    uint32_t half = count / 2;
    select_kth(items + first, count, half, boxes, axis);
    nodes[at].count = 0;
    uint32_t right = build(t, boxes, first, half, at + 1);
    nodes = t->nodes.at;
    nodes[at].first = right;
    return build(t, boxes, first + half, count - half, right);
}

bool sim_tree_build(sim_tree *t, const uint32_t *slots, size_t n, const col_aabb3 *boxes)
{
    t->nodes.v.len = t->items.v.len = 0;
    if (n == 0)
        return true;
    /* A binary tree with leaves of 1 to TREE_LEAF items has fewer than 2n nodes. */
    if (!mk_vec_reserve(&t->nodes.v, 2 * n) || !mk_vec_reserve(&t->items.v, n))
        return false;
    uint32_t *items = t->items.at;
    for (size_t i = 0; i < n; i++)
        items[i] = slots[i];
    t->items.v.len = n;
    t->nodes.v.len = build(t, boxes, 0, (uint32_t)n, 0);
    return true;
}

bool sim_tree_visit(const sim_tree *t, const col_aabb3 *boxes, const col_aabb3 *box,
                    sim_tree_visit_fn *visit, void *ctx)
{
    if (t->nodes.v.len == 0)
        return true;
    const sim_tree_node *nodes = t->nodes.at;
    const uint32_t *items = t->items.at;
    uint32_t stack[TREE_DEPTH_MAX];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        uint32_t i = stack[--top];
        const sim_tree_node *node = &nodes[i];
        if (!sim_aabb3_overlap(&node->box, box))
            continue;
        if (node->count == 0) {
            stack[top++] = node->first; /* the right child */
            stack[top++] = i + 1;       /* the left one, visited first */
            continue;
        }
        for (uint32_t k = 0; k < node->count; k++) {
            uint32_t s = items[node->first + k];
            if (sim_aabb3_overlap(&boxes[s], box) && !visit(ctx, s))
                return false;
        }
    }
    return true;
}

static bool push_hit(void *hits, uint32_t slot) { return mk_vec_push(hits, &slot); }

bool sim_tree_query(const sim_tree *t, const col_aabb3 *boxes, const col_aabb3 *box,
                    mk_vec *hits)
{
    return sim_tree_visit(t, boxes, box, push_hit, hits);
}
