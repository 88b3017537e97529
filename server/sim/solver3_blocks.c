/* The one-thread 3D solve's blocks (solver.h: sim_wide_block3): the solver bodies cut into
 * runs that no constraint crosses, and the colored constraints laid out block by block, then
 * color by color within a block, so that solver.c can take every substep of one block before
 * the next, as Jolt solves each island through all its iterations before the next. The solver
 * bodies are in the broadphase's order, near to near, so a pile's separate stacks or a game's
 * separate heaps fall into separate runs; a world that is one island is one block, solved as
 * before. Within a color the constraints share no movable body, so laying them out by block
 * changes no result; a body's constraints keep their colors' order and, for those with no
 * color, their own. */
#include <string.h>

#include "solver.h"
#include "world_internal.h"

/* Solver bodies a block holds at least: a pile's block (about a kilobyte of groups,
 * constraints and bodies a body) then stays in a core's L2 cache through the step. */
#define SIM_BLOCK_BODIES 512

/* The block of a constraint: that of its first solver body other than the resting one (both
 * its bodies are in one block), block 0 for one between resting bodies alone. */
static inline uint32_t block_of_constraint(const sim_constraint3 *c, const uint32_t *block_of)
{
    uint32_t a = c->a ? c->a : c->b;
    return a ? block_of[a] : 0;
}

/* Cuts the solver bodies [1, nb) into blocks of at least SIM_BLOCK_BODIES, each ending where
 * no constraint joins a body before the cut to one after it (counted by differences: a
 * constraint between bodies lo < hi covers the cuts lo + 1 .. hi). Every constraint's bodies
 * count, the still ones too (a kinematic body's motion is integrated substep by substep, so
 * all that read it must see it at the same substep). Fills the blocks and each body's block;
 * returns the number of blocks. */
static size_t cut_blocks(sim_world *w, size_t nb)
{
    const sim_constraint3 *cs = w->d3.constraints.at;
    size_t nc = w->d3.constraints.v.len;
    uint32_t *over = w->d3.block_of.at; /* the differences, then each body's block */
    sim_wide_block3 *blocks = w->d3.blocks.at;
    memset(over, 0, (nb + 1) * sizeof *over);
    for (size_t i = 0; i < nc; i++) {
        uint32_t a = cs[i].a, b = cs[i].b;
        if (a == 0 || b == 0 || a == b)
            continue;
        over[(a < b ? a : b) + 1]++;
        over[(a < b ? b : a) + 1]--; /* wraps, and the running sum comes back */
    }
    size_t n = 0;
    uint32_t begin = 1, run = 0;
    for (uint32_t p = 1; p < nb; p++) {
        run += over[p];
        if (run == 0 && p - begin >= SIM_BLOCK_BODIES) {
            blocks[n++] = (sim_wide_block3){.body_begin = begin, .body_end = p};
            begin = p;
        }
        over[p] = (uint32_t)n;
    }
    over[0] = 0;
    blocks[n++] = (sim_wide_block3){.body_begin = begin, .body_end = nb > 1 ? (uint32_t)nb : 1};
    return n;
}

bool sim_wide_blocks3(sim_world *w, const uint32_t *ends, const uint8_t *points,
                      size_t *groups)
{
    sim_dim3 *d = &w->d3;
    const sim_constraint3 *cs = d->constraints.at;
    size_t nc = d->constraints.v.len, nb = d->solver_bodies.v.len;
    uint32_t start[SIM_WIDE_COLORS + 1];
    d->blocks.v.len = 0;
    /* Several workers share each color's groups instead; the joints' rows run in stages over
     * the whole world. */
    if (sim_pool_workers(w->pool) > 1 || w->joints.live > 0)
        return false;
    if (!mk_vec_reserve(&d->block_of.v, nb + 1) ||
        !mk_vec_reserve(&d->blocks.v, nb / SIM_BLOCK_BODIES + 1) ||
        !mk_vec_reserve(&d->block_order.v, nc) || !mk_vec_reserve(&d->block_one.v, nc) ||
        !sim_graph_color(w, ends, nc, nb, start))
        return false;
    const uint32_t *order = sim_wide_lay_out(w, ends, points, nb, start);
    if (!order)
        return false;
    size_t nbl = cut_blocks(w, nb);
    sim_wide_block3 *bl = d->blocks.at;
    const uint32_t *over = w->solver.wide_overflow.at;
    const uint32_t *block_of = d->block_of.at;
    size_t n_over = w->solver.wide_overflow.v.len;

    /* Each block's count of each color (in at[k + 1]) and of those with no color... */
    for (int k = 0; k < SIM_WIDE_COLORS; k++)
        for (uint32_t i = start[k]; i < start[k + 1]; i++)
            bl[block_of_constraint(&cs[order[i]], block_of)].at[k + 1]++;
    for (size_t i = 0; i < n_over; i++)
        bl[block_of_constraint(&cs[over[i]], block_of)].one_end++;
    /* ...their starts, block after block and color after color (the groups of each block from
     * 0: one block's at a time are packed, solved and given back, in one array that stays in
     * the cache)... */
    uint32_t at = 0, one = 0, most = 0;
    for (size_t b = 0; b < nbl; b++) {
        uint32_t group = 0;
        bl[b].at[0] = at;
        for (int k = 0; k < SIM_WIDE_COLORS; k++) {
            uint32_t count = bl[b].at[k + 1];
            bl[b].at[k + 1] = bl[b].at[k] + count;
            bl[b].first[k] = group;
            group += (count + 3) / 4;
        }
        bl[b].first[SIM_WIDE_COLORS] = group;
        most = group > most ? group : most;
        at = bl[b].at[SIM_WIDE_COLORS];
        bl[b].one_begin = one;
        one += bl[b].one_end;
        bl[b].one_end = bl[b].one_begin;
    }
    /* ...and the constraints in the groups' order within each (sim_wide_lay_out). Filling
     * moves each color's start to the next color's, which the loop after moves back. */
    uint32_t *out = d->block_order.at, *out_one = d->block_one.at;
    for (int k = 0; k < SIM_WIDE_COLORS; k++)
        for (uint32_t i = start[k]; i < start[k + 1]; i++)
            out[bl[block_of_constraint(&cs[order[i]], block_of)].at[k]++] = order[i];
    for (size_t i = 0; i < n_over; i++)
        out_one[bl[block_of_constraint(&cs[over[i]], block_of)].one_end++] = over[i];
    uint32_t before = 0;
    for (size_t b = 0; b < nbl; b++) {
        for (int k = SIM_WIDE_COLORS - 1; k > 0; k--)
            bl[b].at[k] = bl[b].at[k - 1];
        bl[b].at[0] = before;
        before = bl[b].at[SIM_WIDE_COLORS];
    }
    if (!mk_vec_reserve(&d->wide_groups.v, most))
        return false;
    /* No pass over the whole world's colors (solver.h: sim_wide_for_colors) has groups. */
    memset(w->solver.wide_color_groups, 0, sizeof w->solver.wide_color_groups);
    d->blocks.v.len = nbl;
    d->block_order.v.len = at;
    d->block_one.v.len = one;
    *groups = most;
    return true;
}

void sim_wide_block_pass3(const sim_wide_block3 *b, sim_task_fn *fn, void *ctx)
{
    for (int k = 0; k < SIM_WIDE_COLORS; k++)
        if (b->first[k + 1] > b->first[k])
            fn(ctx, b->first[k], b->first[k + 1]);
}
