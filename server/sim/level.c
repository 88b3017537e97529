/* Levels: the built level shapes of the collision library (a segment, a chain, a mesh, a
 * heightfield) behind one reference-counted handle, so that a level loaded once is shared by
 * the bodies made of it, by the history that keeps a removed one and by the saves that store
 * it, and is freed with its last holder. A level never changes once built: nothing needs a
 * lock, and every holder sees the same triangles in the same order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "level.h"

static sim_level *level_alloc(sim_level_kind kind, mk_error *err)
{
    sim_level *l = calloc(1, sizeof *l);
    if (!l) {
        mk_fail(err, MK_ERR_IO, "out of memory for a level");
        return NULL;
    }
    l->refs = 1;
    l->kind = kind;
    return l;
}

/* Level l once its geometry is built (`built` 0); NULL, l freed, when it was not (the build
 * wrote why in the error) or l is NULL (no memory). */
static sim_level *level_built(sim_level *l, int built)
{
    if (!l || built != 0) {
        free(l);
        return NULL;
    }
    return l;
}

static int check_end(mk_vec2 p, const char *name, mk_error *err)
{
    if (!mk_v2_finite(p))
        return mk_fail(err, MK_ERR_INVALID, "%s is not finite", name);
    if (fabsf(p.x) > COL_LEVEL_MAX_COORD || fabsf(p.y) > COL_LEVEL_MAX_COORD)
        return mk_fail(err, MK_ERR_INVALID, "%s is past +-%g m", name, (double)COL_LEVEL_MAX_COORD);
    return 0;
}

sim_level *sim_level_segment2(mk_vec2 a, mk_vec2 b, mk_error *err)
{
    if (check_end(a, "a", err) < 0 || check_end(b, "b", err) < 0)
        return NULL;
    if (fabsf(a.x - b.x) < (float)COL_WELD_DISTANCE && fabsf(a.y - b.y) < (float)COL_WELD_DISTANCE) {
        mk_fail(err, MK_ERR_INVALID, "b: the segment's ends are the same point");
        return NULL;
    }
    sim_level *l = level_alloc(SIM_LEVEL_SEGMENT, err);
    if (l)
        l->segment = (col_segment2){a, b};
    return l;
}

sim_level *sim_level_chain2(const mk_vec2 *points, uint32_t n, bool loop, uint32_t max_points,
                            mk_error *err)
{
    sim_level *l = level_alloc(SIM_LEVEL_CHAIN, err);
    return level_built(l, l ? col_chain2_build(points, n, loop, max_points, &l->chain, err) : -1);
}

sim_level *sim_level_mesh3(const col_mesh3_desc *d, mk_error *err)
{
    sim_level *l = level_alloc(SIM_LEVEL_MESH, err);
    return level_built(l, l ? col_mesh3_build(d, &l->mesh, err) : -1);
}

sim_level *sim_level_heightfield3(const col_heightfield3_desc *d, mk_error *err)
{
    sim_level *l = level_alloc(SIM_LEVEL_HEIGHTFIELD, err);
    return level_built(l, l ? col_heightfield3_build(d, &l->hf, err) : -1);
}

/* The count changes, the geometry never does: the handle is const to every holder. */
void sim_level_retain(const sim_level *l)
{
    if (l)
        ((sim_level *)l)->refs++;
}

void sim_level_release(const sim_level *cl)
{
    sim_level *l = (sim_level *)cl;
    if (!l || --l->refs > 0)
        return;
    switch (l->kind) {
    case SIM_LEVEL_CHAIN:
        col_chain2_free(&l->chain);
        break;
    case SIM_LEVEL_MESH:
        col_mesh3_free(&l->mesh);
        break;
    case SIM_LEVEL_HEIGHTFIELD:
        col_heightfield3_free(&l->hf);
        break;
    case SIM_LEVEL_SEGMENT:
        break;
    }
    free(l);
}

sim_level_kind sim_level_kind_of(const sim_level *l) { return l->kind; }

int sim_level_dim(const sim_level *l)
{
    return l->kind == SIM_LEVEL_SEGMENT || l->kind == SIM_LEVEL_CHAIN ? 2 : 3;
}

const col_segment2 *sim_level_segment(const sim_level *l)
{
    return l->kind == SIM_LEVEL_SEGMENT ? &l->segment : NULL;
}
const col_chain2 *sim_level_chain(const sim_level *l)
{
    return l->kind == SIM_LEVEL_CHAIN ? &l->chain : NULL;
}
const col_mesh3 *sim_level_mesh(const sim_level *l)
{
    return l->kind == SIM_LEVEL_MESH ? &l->mesh : NULL;
}
const col_heightfield3 *sim_level_heightfield(const sim_level *l)
{
    return l->kind == SIM_LEVEL_HEIGHTFIELD ? &l->hf : NULL;
}

uint32_t sim_level_pieces(const sim_level *l)
{
    switch (l->kind) {
    case SIM_LEVEL_SEGMENT:
        return 1;
    case SIM_LEVEL_CHAIN:
        return l->chain.segment_count;
    case SIM_LEVEL_MESH:
        return l->mesh.tri_count;
    case SIM_LEVEL_HEIGHTFIELD:
        return l->hf.tri_count;
    }
    return 0;
}

size_t sim_level_bytes(const sim_level *l)
{
    switch (l->kind) {
    case SIM_LEVEL_SEGMENT:
        return sizeof *l;
    case SIM_LEVEL_CHAIN:
        return sizeof *l - sizeof l->chain + col_chain2_bytes(&l->chain);
    case SIM_LEVEL_MESH:
        return sizeof *l - sizeof l->mesh + col_mesh3_bytes(&l->mesh);
    case SIM_LEVEL_HEIGHTFIELD:
        return sizeof *l - sizeof l->hf + col_heightfield3_bytes(&l->hf);
    }
    return sizeof *l;
}

const uint8_t *sim_level_key(const sim_level *l) { return l->key; }

void sim_level_set_key(const sim_level *l, const uint8_t key[SIM_LEVEL_KEY])
{
    memcpy(((sim_level *)l)->key, key, SIM_LEVEL_KEY);
}

/* ---- placed ---- */

col_aabb3 sim_level_bounds(const sim_level *l, col_xf2 x2, col_xf3 x3)
{
    if (l->kind == SIM_LEVEL_SEGMENT || l->kind == SIM_LEVEL_CHAIN) {
        col_aabb b;
        if (l->kind == SIM_LEVEL_SEGMENT) {
            b = col_segment2_bounds(l->segment, x2);
        } else {
            /* The chain's box turned with it: |R| h about the turned centre. */
            float c = cosf(x2.angle), s = sinf(x2.angle);
            col_aabb a = l->chain.bounds;
            mk_vec2 centre = mk_v2(x2.p.x + c * a.center.x - s * a.center.y,
                                   x2.p.y + s * a.center.x + c * a.center.y);
            mk_vec2 half = mk_v2(fabsf(c) * a.half.x + fabsf(s) * a.half.y,
                                 fabsf(s) * a.half.x + fabsf(c) * a.half.y);
            b = (col_aabb){centre, half};
        }
        return (col_aabb3){mk_v3(b.center.x, b.center.y, 0.0f), mk_v3(b.half.x, b.half.y, 0.0f)};
    }
    return col_level3_bounds(sim_level_3d(l), x3);
}
