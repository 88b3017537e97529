/* Graph coloring of contact constraints for the wide solvers (solver_wide.c, solver3_wide.c),
 * Box2D v3's (constraint_graph.c): each constraint takes the first color in which neither of
 * its movable bodies is used yet, so the constraints of one color share no movable body and
 * can be solved at the same time. Bodies that never move (static, kinematic, asleep) are
 * shared freely: the solver never changes their velocity. A constraint that finds no free
 * color is left to be solved one by one after the colors. Greedy in the constraints' order,
 * so the same constraints get the same colors. Both wide solvers then take the colored
 * constraints four to a group in the same way (sim_wide_groups), each packing its own lanes.
 * The joints are colored the same way into arrays of their own (sim_color_into, joint.c) and
 * solved one at a time, color by color, in the same stages as the contacts. */
#include <string.h>

#include "solver.h"
#include "world_internal.h"

/* Parts of the solver bodies a color's constraints are laid out by. */
#define SIM_WIDE_PARTS 64

/* The part of the solver bodies that constraint i's first movable body is in (0 with no
 * bodies given: one thread keeps the constraints' own order, which reads the bodies in the
 * order the pairs were found, near to near). */
static inline unsigned body_part(const uint32_t *ends, size_t i, size_t bodies)
{
    if (bodies == 0)
        return 0;
    uint32_t a = ends[2 * i], b = ends[2 * i + 1];
    uint32_t first = a && (!b || a < b) ? a : b;
    return (unsigned)((uint64_t)first * SIM_WIDE_PARTS / bodies);
}

/* A constraint's place within its color (sim_wide_lay_out): its part, then its points, most
 * first. */
static inline unsigned key_of(const uint32_t *ends, const uint8_t *points, uint32_t i,
                              size_t span)
{
    return body_part(ends, i, span) * (COL_MAX_POINTS3 + 1) + (COL_MAX_POINTS3 - points[i]);
}

bool sim_graph_color(sim_world *w, const uint32_t *ends, size_t n, size_t bodies,
                     uint32_t start[SIM_WIDE_COLORS + 1])
{
    sim_color_out out = {&w->solver.wide_bits.v, &w->solver.wide_order.v,
                         &w->solver.wide_overflow.v, &w->solver.wide_colors.v,
                         &w->solver.wide_made_from.v};
    return sim_color_into(w->pool, out, ends, n, bodies, start, NULL);
}

/* Whether the colors in `out` were made from these ends and this count of bodies; their
 * starts into `start` when they were. */
static bool made_from(const mk_vec *from, const uint32_t *ends, size_t n, size_t bodies,
                      uint32_t start[SIM_WIDE_COLORS + 1])
{
    const uint32_t *f = from->data;
    if (from->len != 1 + 2 * n + SIM_WIDE_COLORS + 1 || f[0] != bodies ||
        (n > 0 && memcmp(f + 1, ends, 2 * n * sizeof *ends) != 0))
        return false;
    memcpy(start, f + 1 + 2 * n, (SIM_WIDE_COLORS + 1) * sizeof *start);
    return true;
}

/* Notes what the colors were made from (made_from); out of memory, nothing, and the next
 * step colors anew. */
static void note_made_from(mk_vec *from, const uint32_t *ends, size_t n, size_t bodies,
                           const uint32_t start[SIM_WIDE_COLORS + 1])
{
    if (!mk_vec_resize(from, 1 + 2 * n + SIM_WIDE_COLORS + 1)) {
        from->len = 0;
        return;
    }
    uint32_t *f = from->data;
    f[0] = (uint32_t)bodies;
    if (n > 0)
        memcpy(f + 1, ends, 2 * n * sizeof *ends);
    memcpy(f + 1 + 2 * n, start, (SIM_WIDE_COLORS + 1) * sizeof *start);
}

bool sim_color_into(sim_pool *pool, sim_color_out out, const uint32_t *ends, size_t n,
                    size_t bodies, uint32_t start[SIM_WIDE_COLORS + 1], bool *kept)
{
    bool same = made_from(out.made_from, ends, n, bodies, start);
    if (kept)
        *kept = same;
    if (same)
        return true;
    out.made_from->len = 0;
    size_t words = (bodies + 63) / 64;
    if (!mk_vec_reserve(out.bits, SIM_WIDE_COLORS * words) || !mk_vec_reserve(out.order, n) ||
        !mk_vec_reserve(out.overflow, n) || !mk_vec_reserve(out.colors, n))
        return false;
    uint64_t *bits = out.bits->data;
    memset(bits, 0, SIM_WIDE_COLORS * words * sizeof *bits);
    uint32_t *order = out.order->data, *overflow = out.overflow->data;
    uint8_t *color = out.colors->data;
    out.overflow->len = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t a = ends[2 * i], b = ends[2 * i + 1];
        int k = 0;
        for (; k < SIM_WIDE_COLORS; k++) {
            uint64_t *cb = bits + (size_t)k * words;
            if ((a && (cb[a / 64] >> (a % 64) & 1)) || (b && (cb[b / 64] >> (b % 64) & 1)))
                continue;
            if (a)
                cb[a / 64] |= 1ull << (a % 64);
            if (b)
                cb[b / 64] |= 1ull << (b % 64);
            break;
        }
        color[i] = (uint8_t)k;
        if (k == SIM_WIDE_COLORS)
            overflow[out.overflow->len++] = (uint32_t)i;
    }
    /* Constraints by color, and within a color by the part of the solver bodies their first
     * movable body is in (in their order within a part). The constraints of a color share no
     * movable body, so their order within it changes no result; but the workers take a color
     * in shares of its groups and the bodies' passes (gravity, integration) in shares of the
     * bodies, and with both in body order a worker mostly finds the bodies it touches in its
     * own cache rather than the other core's. With one thread the parts are left out. */
    uint32_t fill[SIM_WIDE_COLORS * SIM_WIDE_PARTS] = {0};
    size_t span = sim_pool_workers(pool) > 1 ? bodies : 0;
    for (size_t i = 0; i < n; i++)
        if (color[i] < SIM_WIDE_COLORS)
            fill[color[i] * SIM_WIDE_PARTS + body_part(ends, i, span)]++;
    uint32_t at = 0;
    for (int k = 0; k < SIM_WIDE_COLORS; k++) {
        start[k] = at;
        for (int q = 0; q < SIM_WIDE_PARTS; q++) {
            uint32_t c = fill[k * SIM_WIDE_PARTS + q];
            fill[k * SIM_WIDE_PARTS + q] = at;
            at += c;
        }
    }
    start[SIM_WIDE_COLORS] = at;
    for (size_t i = 0; i < n; i++)
        if (color[i] < SIM_WIDE_COLORS)
            order[fill[color[i] * SIM_WIDE_PARTS + body_part(ends, i, span)]++] = (uint32_t)i;
    out.order->len = at;
    note_made_from(out.made_from, ends, n, bodies, start);
    return true;
}

const uint32_t *sim_wide_lay_out(sim_world *w, const uint32_t *ends, const uint8_t *points,
                                 size_t bodies, const uint32_t start[SIM_WIDE_COLORS + 1])
{
    const uint32_t *order = w->solver.wide_order.at;
    size_t n = start[SIM_WIDE_COLORS];
    if (!points)
        return order;
    if (!mk_vec_reserve(&w->solver.wide_laid.v, n))
        return NULL;
    uint32_t *laid = w->solver.wide_laid.at;
    size_t span = sim_pool_workers(w->pool) > 1 ? bodies : 0;
    enum { KEYS = SIM_WIDE_PARTS * (COL_MAX_POINTS3 + 1) };
    for (int k = 0; k < SIM_WIDE_COLORS; k++) {
        uint32_t fill[KEYS] = {0};
        for (uint32_t i = start[k]; i < start[k + 1]; i++)
            fill[key_of(ends, points, order[i], span)]++;
        for (uint32_t q = 0, at = start[k]; q < KEYS; q++) {
            uint32_t c = fill[q];
            fill[q] = at;
            at += c;
        }
        for (uint32_t i = start[k]; i < start[k + 1]; i++)
            laid[fill[key_of(ends, points, order[i], span)]++] = order[i];
    }
    w->solver.wide_laid.v.len = n;
    return laid;
}

/* Packing, group by group on the workers: a group's four constraints follow from its color's
 * start alone (groups [begin, end) of one color or more). */
typedef struct pack_job {
    const sim_world *w;
    const uint32_t *start; /* the constraints of each color (sim_graph_color) */
    const uint32_t *laid;  /* in the groups' order (sim_wide_lay_out) */
    sim_wide_pack_fn *pack;
    void *ctx;
} pack_job;

static void pack_range(void *arg, size_t begin, size_t end)
{
    const pack_job *j = arg;
    const uint32_t *first = j->w->solver.wide_color_groups, *order = j->laid;
    int k = 0;
    for (size_t g = begin; g < end; g++) {
        while (g >= first[k + 1])
            k++;
        uint32_t i = j->start[k] + 4 * (uint32_t)(g - first[k]);
        uint32_t ci[4];
        for (int lane = 0; lane < 4; lane++)
            ci[lane] = i + (uint32_t)lane < j->start[k + 1] ? order[i + lane] : UINT32_MAX;
        j->pack(j->ctx, g, ci);
    }
}

bool sim_wide_groups(sim_world *w, const uint32_t *ends, const uint8_t *points, size_t n,
                     size_t bodies, sim_wide_pack_fn *pack, void *ctx, size_t *groups)
{
    uint32_t start[SIM_WIDE_COLORS + 1];
    if (!sim_graph_color(w, ends, n, bodies, start))
        return false;
    const uint32_t *laid = sim_wide_lay_out(w, ends, points, bodies, start);
    if (!laid)
        return false;
    uint32_t *first = w->solver.wide_color_groups;
    first[0] = 0;
    for (int k = 0; k < SIM_WIDE_COLORS; k++)
        first[k + 1] = first[k] + (start[k + 1] - start[k] + 3) / 4;
    /* Color by color, each in the shares the solver's passes take it in: a worker packs the
     * groups it then solves, in its own cache (one part for all colors, cut in halves,
     * left a worker solving half of what the other had packed). */
    pack_job job = {w, start, laid, pack, ctx};
    sim_for_colors(w->pool, first, SIM_WIDE_GRAIN, pack_range, &job);
    *groups = first[SIM_WIDE_COLORS];
    return true;
}

/* One color's groups, numbered from the color's first. */
typedef struct color_job {
    sim_task_fn *fn;
    void *ctx;
    size_t base;
} color_job;

static void color_range(void *arg, size_t begin, size_t end)
{
    const color_job *j = arg;
    j->fn(j->ctx, j->base + begin, j->base + end);
}

void sim_wide_for_colors(sim_world *w, sim_task_fn *fn, void *ctx)
{
    sim_for_colors(w->pool, w->solver.wide_color_groups, SIM_WIDE_GRAIN, fn, ctx);
}

void sim_for_colors(sim_pool *pool, const uint32_t first[SIM_WIDE_COLORS + 1], size_t grain,
                    sim_task_fn *fn, void *ctx)
{
    for (int k = 0; k < SIM_WIDE_COLORS; k++) {
        color_job job = {fn, ctx, first[k]};
        sim_pool_for(pool, first[k + 1] - first[k], grain, color_range, &job);
    }
}
