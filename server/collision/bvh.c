/* The bounding-volume hierarchy of the level shapes (chains, meshes): an AABB tree in one
 * array of 16-byte nodes, built top down by binned SAH (Wald, "On fast construction of
 * SAH-based bounding volume hierarchies", 2007: 16 bins along the longest axis of the pieces'
 * centroids, the split of least area-weighted count), with an object median split below
 * depth 32 so that no path outgrows the walks' fixed stacks. Node boxes are quantised to 16
 * bits an axis within the root's box and rounded outwards (Jolt's mesh nodes store theirs in
 * half floats for the same reason: memory); a walk compares them with the query box quantised
 * the same way, so it never misses a piece, and the pieces themselves are then tested
 * exactly by the caller. Also the radix sort the builds use. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "level_internal.h"

#define BINS 16
#define MEDIAN_DEPTH 32

/* The quantised coordinate of x on axis k: floor (lo) or ceil (hi) of its steps above the
 * root's lo, clamped to 16 bits. (x - lo) / step rounds monotonically in x, so a box that
 * touches another still touches it quantised. */
static uint16_t quant(const col_bvh *t, int k, float x, bool up)
{
    double q = ((double)x - (double)t->lo[k]) / t->step[k];
    q = up ? ceil(q) : floor(q);
    if (!(q > 0.0))
        return 0;
    if (q > 65535.0)
        return 65535;
    return (uint16_t)q;
}

typedef struct builder {
    col_bvh *t;
    const col_box *boxes;
    float (*cent)[3];
    uint32_t *order;
    uint32_t next;
    bool flat; /* a 2D shape: every box has zero extent on z */
} builder;

/* The SAH's measure of a box: its surface area (half of it), or its perimeter in 2D. */
static double box_cost(const builder *b, const col_box *x)
{
    double dx = (double)x->hi[0] - x->lo[0], dy = (double)x->hi[1] - x->lo[1];
    double dz = (double)x->hi[2] - x->lo[2];
    return b->flat ? dx + dy : dx * dy + dy * dz + dz * dx;
}

static void box_empty(col_box *x)
{
    for (int k = 0; k < 3; k++) {
        x->lo[k] = FLT_MAX;
        x->hi[k] = -FLT_MAX;
    }
}

static void box_grow(col_box *x, const col_box *y)
{
    for (int k = 0; k < 3; k++) {
        x->lo[k] = mk_minf(x->lo[k], y->lo[k]);
        x->hi[k] = mk_maxf(x->hi[k], y->hi[k]);
    }
}

static void swap_u32(uint32_t *a, uint32_t *b)
{
    uint32_t t = *a;
    *a = *b;
    *b = t;
}

/* Puts the piece of order[k] into place k of order[begin .. end), sorted by centroid on
 * `axis` (Hoare's selection with a three-way partition, so equal keys cost nothing). */
static void select_kth(builder *b, uint32_t begin, uint32_t end, uint32_t k, int axis)
{
    uint32_t *o = b->order;
    while (end - begin > 1) {
        float lo = b->cent[o[begin]][axis], mi = b->cent[o[begin + (end - begin) / 2]][axis],
              hi = b->cent[o[end - 1]][axis];
        float pivot = mk_maxf(mk_minf(lo, mi), mk_minf(mk_maxf(lo, mi), hi));
        /* [begin, lt) < pivot, [lt, i) == pivot, (gt, end) > pivot */
        uint32_t lt = begin, i = begin, gt = end;
        while (i < gt) {
            float c = b->cent[o[i]][axis];
            if (c < pivot)
                swap_u32(&o[lt++], &o[i++]);
            else if (c > pivot)
                swap_u32(&o[i], &o[--gt]);
            else
                i++;
        }
        if (k < lt)
            end = lt;
        else if (k >= gt)
            begin = gt;
        else
            return;
    }
}

static int bin_of(float c, float cmin, float ext)
{
    int bi = (int)((double)(c - cmin) / ext * BINS);
    return bi < 0 ? 0 : bi >= BINS ? BINS - 1 : bi;
}

/* Where to split order[begin .. end): the binned SAH's best plane on the centroids' longest
 * axis, else the object median (deep, or when the bins cannot separate the pieces). */
static uint32_t split(builder *b, uint32_t begin, uint32_t end, uint32_t depth)
{
    uint32_t n = end - begin;
    float cmin[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, cmax[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    for (uint32_t i = begin; i < end; i++)
        for (int k = 0; k < 3; k++) {
            cmin[k] = mk_minf(cmin[k], b->cent[b->order[i]][k]);
            cmax[k] = mk_maxf(cmax[k], b->cent[b->order[i]][k]);
        }
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (cmax[k] - cmin[k] > cmax[axis] - cmin[axis])
            axis = k;
    float ext = cmax[axis] - cmin[axis];
    uint32_t mid = begin + n / 2;
    if (!(ext > 0.0f))
        return mid; /* every centroid at one point: any halves do */
    if (depth >= MEDIAN_DEPTH) {
        select_kth(b, begin, end, mid, axis);
        return mid;
    }
    uint32_t count[BINS] = {0};
    col_box bin[BINS];
    for (int i = 0; i < BINS; i++)
        box_empty(&bin[i]);
    for (uint32_t i = begin; i < end; i++) {
        uint32_t p = b->order[i];
        int bi = bin_of(b->cent[p][axis], cmin[axis], ext);
        count[bi]++;
        box_grow(&bin[bi], &b->boxes[p]);
    }
    /* The cost of each plane after bin i: area times count on both sides. */
    double left_cost[BINS];
    col_box acc;
    box_empty(&acc);
    uint32_t acc_n = 0;
    for (int i = 0; i < BINS - 1; i++) {
        box_grow(&acc, &bin[i]);
        acc_n += count[i];
        left_cost[i] = acc_n > 0 ? box_cost(b, &acc) * acc_n : 0.0;
    }
    box_empty(&acc);
    acc_n = 0;
    int best = -1;
    double best_cost = DBL_MAX;
    for (int i = BINS - 1; i > 0; i--) {
        box_grow(&acc, &bin[i]);
        acc_n += count[i];
        uint32_t left_n = n - acc_n;
        if (acc_n == 0 || left_n == 0)
            continue;
        double c = left_cost[i - 1] + box_cost(b, &acc) * acc_n;
        if (c < best_cost) {
            best_cost = c;
            best = i - 1;
        }
    }
    if (best < 0) {
        select_kth(b, begin, end, mid, axis);
        return mid;
    }
    uint32_t lo = begin, hi = end;
    while (lo < hi) {
        if (bin_of(b->cent[b->order[lo]][axis], cmin[axis], ext) <= best)
            lo++;
        else
            swap_u32(&b->order[lo], &b->order[--hi]);
    }
    if (lo == begin || lo == end) {
        select_kth(b, begin, end, mid, axis);
        return mid;
    }
    return lo;
}

static uint32_t build_node(builder *b, uint32_t begin, uint32_t end, uint32_t depth)
{
    col_bvh *t = b->t;
    uint32_t me = b->next++;
    col_box box;
    box_empty(&box);
    for (uint32_t i = begin; i < end; i++)
        box_grow(&box, &b->boxes[b->order[i]]);
    col_bvh_node *nd = &t->nodes[me];
    for (int k = 0; k < 3; k++) {
        nd->lo[k] = quant(t, k, box.lo[k], false);
        nd->hi[k] = quant(t, k, box.hi[k], true);
    }
    if (depth > t->depth)
        t->depth = depth;
    uint32_t n = end - begin;
    if (n <= COL_BVH_LEAF_MAX) {
        nd->data = COL_BVH_LEAF | (n - 1) << 27 | begin;
        return me;
    }
    uint32_t mid = split(b, begin, end, depth);
    build_node(b, begin, mid, depth + 1);
    uint32_t right = build_node(b, mid, end, depth + 1);
    t->nodes[me].data = right;
    return me;
}

int col_bvh_build(col_bvh *t, const col_box *boxes, uint32_t n, uint32_t *order)
{
    memset(t, 0, sizeof *t);
    if (n == 0 || n > COL_LEVEL_MAX_PIECES)
        return -1;
    builder b = {t, boxes, malloc((size_t)n * sizeof *b.cent), order, 0, true};
    /* A binary tree with leaves of at least one piece has fewer than 2 n nodes. */
    t->nodes = malloc((size_t)2 * n * sizeof *t->nodes);
    if (!b.cent || !t->nodes) {
        free(b.cent);
        free(t->nodes);
        t->nodes = NULL;
        return -1;
    }
    col_box root;
    box_empty(&root);
    for (uint32_t i = 0; i < n; i++) {
        order[i] = i;
        box_grow(&root, &boxes[i]);
        for (int k = 0; k < 3; k++)
            b.cent[i][k] = 0.5f * boxes[i].lo[k] + 0.5f * boxes[i].hi[k];
        b.flat &= boxes[i].lo[2] == boxes[i].hi[2];
    }
    for (int k = 0; k < 3; k++) {
        t->lo[k] = root.lo[k];
        t->hi[k] = root.hi[k];
        double ext = (double)root.hi[k] - root.lo[k];
        t->step[k] = ext > 0.0 ? ext / 65535.0 : 1.0;
    }
    t->depth = 0;
    build_node(&b, 0, n, 1);
    t->node_count = b.next;
    free(b.cent);
    /* Give back the part of the upper bound the tree did not use. */
    col_bvh_node *fit = realloc(t->nodes, (size_t)t->node_count * sizeof *t->nodes);
    if (fit)
        t->nodes = fit;
    return 0;
}

void col_bvh_free(col_bvh *t)
{
    free(t->nodes);
    memset(t, 0, sizeof *t);
}

/* ---- walks ---- */

void col_bvh_iter_init(col_bvh_iter *it, const col_bvh *t, const col_box *box)
{
    it->t = t;
    it->sp = 0;
    it->slot = it->end = 0;
    if (t->node_count == 0)
        return;
    for (int k = 0; k < 3; k++) {
        /* Outside the root (or not a box: NaN compares false): nothing. */
        if (!(box->lo[k] <= t->hi[k] && box->hi[k] >= t->lo[k]))
            return;
        it->lo[k] = quant(t, k, box->lo[k], false);
        it->hi[k] = quant(t, k, box->hi[k], true);
    }
    it->stack[it->sp++] = 0;
}

bool col_bvh_iter_next(col_bvh_iter *it, uint32_t *first, uint32_t *count)
{
    while (it->sp > 0) {
        uint32_t i = it->stack[--it->sp];
        const col_bvh_node *nd = &it->t->nodes[i];
        if (nd->lo[0] > it->hi[0] || it->lo[0] > nd->hi[0] || nd->lo[1] > it->hi[1] ||
            it->lo[1] > nd->hi[1] || nd->lo[2] > it->hi[2] || it->lo[2] > nd->hi[2])
            continue;
        if (col_bvh_is_leaf(nd->data)) {
            *first = col_bvh_leaf_first(nd->data);
            *count = col_bvh_leaf_count(nd->data);
            return true;
        }
        it->stack[it->sp++] = nd->data;
        it->stack[it->sp++] = i + 1;
    }
    return false;
}

/* One slab of the segment's test: narrows [*t0, *t1] to where o + t d is within lo .. hi
 * (inv = 1 / d); false when it is left empty. Compares, not fmin and fmax: nothing here is
 * NaN, and those are library calls on the walks' hot path. */
static inline bool slab(double lo, double hi, double o, double inv, double *t0, double *t1)
{
    double ta = (lo - o) * inv, tb = (hi - o) * inv;
    if (ta > tb) {
        double s = ta;
        ta = tb;
        tb = s;
    }
    *t0 = ta > *t0 ? ta : *t0;
    *t1 = tb < *t1 ? tb : *t1;
    return *t0 <= *t1;
}

double col_box_enter(const double lo[3], const double hi[3], const double o[3],
                     const double d[3], const double grow[3], double tmax)
{
    double t0 = 0.0, t1 = tmax;
    for (int k = 0; k < 3; k++) {
        double l = lo[k] - grow[k], h = hi[k] + grow[k];
        if (d[k] == 0.0) {
            if (o[k] < l || o[k] > h)
                return INFINITY;
        } else if (!slab(l, h, o[k], 1.0 / d[k], &t0, &t1)) {
            return INFINITY;
        }
    }
    return t0;
}

/* Where the walk's segment enters node i's box (slabs in the quantised units, so the box is
 * read as it is stored), or INFINITY when it misses it within tmax. */
static double node_enter(const col_bvh_ray *r, uint32_t i)
{
    const col_bvh_node *nd = &r->t->nodes[i];
    double t0 = 0.0, t1 = r->tmax;
    for (int k = 0; k < 3; k++) {
        double lo = (double)nd->lo[k] - r->pad[k], hi = (double)nd->hi[k] + r->pad[k];
        if (r->flat[k]) {
            if (r->o[k] < lo || r->o[k] > hi)
                return INFINITY;
        } else if (!slab(lo, hi, r->o[k], r->inv[k], &t0, &t1)) {
            return INFINITY;
        }
    }
    return t0;
}

void col_bvh_ray_init(col_bvh_ray *r, const col_bvh *t, const double o[3], const double d[3],
                      const double grow[3], double tmax)
{
    r->t = t;
    r->tmax = tmax;
    r->sp = 0;
    for (int k = 0; k < 3; k++) {
        double step = t->step[k];
        r->o[k] = (o[k] - t->lo[k]) / step;
        r->flat[k] = d[k] == 0.0;
        r->inv[k] = r->flat[k] ? 0.0 : step / d[k];
        r->pad[k] = grow[k] / step + 1e-3;
    }
    if (t->node_count == 0)
        return;
    double e = node_enter(r, 0);
    if (e <= tmax) {
        r->stack[0] = 0;
        r->enter[0] = e;
        r->sp = 1;
    }
}

bool col_bvh_ray_next(col_bvh_ray *r, uint32_t *first, uint32_t *count)
{
    while (r->sp > 0) {
        r->sp--;
        uint32_t i = r->stack[r->sp];
        if (r->enter[r->sp] > r->tmax)
            continue;
        uint32_t data = r->t->nodes[i].data;
        if (col_bvh_is_leaf(data)) {
            *first = col_bvh_leaf_first(data);
            *count = col_bvh_leaf_count(data);
            return true;
        }
        uint32_t a = i + 1, b = data;
        double ea = node_enter(r, a), eb = node_enter(r, b);
        /* The farther child below the nearer, so the nearer is walked first. */
        if (eb < ea) {
            uint32_t s = a;
            a = b;
            b = s;
            double e = ea;
            ea = eb;
            eb = e;
        }
        if (eb <= r->tmax) {
            r->stack[r->sp] = b;
            r->enter[r->sp++] = eb;
        }
        if (ea <= r->tmax) {
            r->stack[r->sp] = a;
            r->enter[r->sp++] = ea;
        }
    }
    return false;
}

/* ---- radix sort ---- */

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)

void col_radix_sort(col_keyed *a, col_keyed *tmp, size_t n)
{
    col_keyed *src = a, *dst = tmp;
    for (unsigned shift = 0; shift < 64; shift += RADIX_BITS) {
        size_t count[RADIX_SIZE] = {0};
        for (size_t i = 0; i < n; i++)
            count[(src[i].key >> shift) & (RADIX_SIZE - 1)]++;
        if (n == 0 || count[(src[0].key >> shift) & (RADIX_SIZE - 1)] == n)
            continue; /* one digit for all: the pass would not move anything */
        size_t sum = 0;
        for (unsigned d = 0; d < RADIX_SIZE; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i].key >> shift) & (RADIX_SIZE - 1)]++] = src[i];
        col_keyed *s = src;
        src = dst;
        dst = s;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}
