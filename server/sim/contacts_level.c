/* Level bodies in the step, one source for both dimensions (dim.h): a shape against the pieces
 * of a level near it (the collision library's col_chain2_collide and col_collide_segment2 in
 * 2D, col_level3_collide in 3D), and the narrowphase's pass over the pairs with a level body.
 *
 * A pair with a level gives a manifold per piece it touches (Box2D v3 makes a contact per
 * chain segment, Jolt a manifold per triangle), each its own constraint with its own entry in
 * the contact cache, keyed by the piece. In 3D the manifolds of one pair whose normals agree
 * within 2 degrees are merged into one of at most four points first (Jolt's manifold
 * reduction, col_merge_manifolds3): a box resting across the shared edge of two flat
 * triangles, or on a heightfield's cells, rests on its four corners as on a box. Speculative
 * points are made per piece: in 3D a sphere's along the line of its nearest points come with
 * the piece's collision (col_tri_contact3's speculative, as Jolt keeps contacts up to its
 * speculative distance); the others as contacts.c makes them per pair: a piece apart by less
 * than SIM_SPECULATIVE is collided again with the shape moved that far toward it. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "contacts.h"
#include "contacts_level.h"

/* Pieces one shape is collided with at most in one call: a 64 m box on a 0.25 m grid. */
#define SIM_LEVEL_PIECES_CAP 256

#if MK_DIM == 2
/* One piece of a 2D level against the shape (normal from the piece toward the shape). */
static dmanifold piece_collide(const sim_level *l, dxf xl, uint32_t piece, const dshape *s,
                               dxf xs, dvec motion, col_back_face back, float margin)
{
    (void)motion;
    (void)back;
    if (l->kind == SIM_LEVEL_SEGMENT)
        return col_collide_segment2(l->segment, xl, s, xs, margin);
    col_chain_segment2 seg = col_chain2_segment(&l->chain, piece);
    return col_collide_chain_segment2(&seg, xl, s, xs, margin);
}
#else
static dmanifold piece_collide(const sim_level *l, dxf xl, uint32_t piece, const dshape *s,
                               dxf xs, dvec motion, col_back_face back, float margin)
{
    col_triangle3 t;
    if (l->kind == SIM_LEVEL_MESH)
        t = col_mesh3_triangle(&l->mesh, xl, piece);
    else if (!col_heightfield3_triangle(&l->hf, xl, piece, &t))
        return (col_manifold3){.distance = FLT_MAX};
    col_tri_contact3 how = {margin, back, motion, SIM_FACE_BIAS, false};
    return col_collide_triangle3(&t, s, xs, &how);
}
#endif

uint32_t DIM_NAME(sim_level_collide)(const sim_world *w, const sim_body *lb, const dshape *s,
                                     dxf xs, dvec motion, col_back_face back, float margin,
                                     dchild *out, uint32_t cap)
{
    const sim_level *l = lb->level;
    dxf xl = dim_level_xf(w, lb);
#if MK_DIM == 2
    (void)motion;
    (void)back;
    if (l->kind == SIM_LEVEL_CHAIN)
        return col_chain2_collide(&l->chain, xl, s, xs, margin, out, cap);
    dmanifold m = col_collide_segment2(l->segment, xl, s, xs, margin);
    if (m.count == 0 && !(m.distance <= margin))
        return 0;
    if (cap > 0)
        out[0] = (dchild){0, m};
    return 1;
#else
    col_tri_contact3 how = {margin, back, motion, SIM_FACE_BIAS, false};
    return col_level3_collide(sim_level_3d(l), xl, s, xs, &how, out, cap);
#endif
}

dmanifold DIM_NAME(sim_level_deepest)(const sim_world *w, const sim_body *lb, const dshape *s,
                                      dxf xs, dvec motion, col_back_face back, float margin)
{
    dchild pieces[SIM_LEVEL_PIECES_CAP];
    uint32_t n = DIM_NAME(sim_level_collide)(w, lb, s, xs, motion, back, margin, pieces,
                                             SIM_LEVEL_PIECES_CAP);
    n = n < SIM_LEVEL_PIECES_CAP ? n : SIM_LEVEL_PIECES_CAP;
    dmanifold best;
    memset(&best, 0, sizeof best);
    best.distance = FLT_MAX;
    bool touching = false;
    for (uint32_t i = 0; i < n; i++) {
        const dmanifold *m = &pieces[i].m;
        if (m->count > 0 ? !touching || m->depth > best.depth
                         : !touching && m->distance < best.distance) {
            best = *m;
            touching = m->count > 0;
        }
    }
    best.normal = dv_neg(best.normal); /* from the shape toward the level */
    return best;
}

bool DIM_NAME(sim_level_overlaps)(const sim_world *w, const sim_body *lb, const sim_body *b,
                                  float within)
{
    const dpart *bp = dim_part_of(w, b);
    dmanifold m = DIM_NAME(sim_level_deepest)(w, lb, &bp->shape, dim_xf_at(bp, bp->pos),
                                              dim_splat(0.0f), COL_BACK_FACES_COLLIDE, within);
    return m.count > 0 || m.distance <= within;
}

/* The velocity of a body's shape relative to another body: the active-edge rule's motion
 * (3D), zero below SIM_LEVEL_STILL_SPEED. The rule keeps an edge's own normal when that
 * hinders the motion less than the face's; for a body at rest the motion is the solver's
 * noise, which would pick one normal or the other from step to step and rock a box that
 * straddles a gentle ridge for ever. Still, an inactive edge gives the face's normal. */
static dvec relative_motion(const sim_world *w, const sim_body *b, const sim_body *to)
{
    dvec v = dv_sub(dim_part_of(w, b)->vel, dim_part_of(w, to)->vel);
    return dv_dot(v, v) < SIM_LEVEL_STILL_SPEED * SIM_LEVEL_STILL_SPEED ? dim_splat(0.0f) : v;
}

#if MK_DIM == 3
/* The depth of a manifold's deepest point, m. A manifold met on an inactive edge has its depth
 * measured along the face normal over all of the shape (col_collide_triangle3), which a shape
 * resting on the other triangle of a gentle ridge overhangs by centimetres: its points, clipped
 * to the triangle, say how deep it truly is. */
static float deepest_point(const col_manifold3 *m)
{
    float d = -INFINITY;
    for (int k = 0; k < m->count; k++)
        d = mk_maxf(d, m->points[k].depth);
    return d;
}

/* Whether manifold x goes before y: the deeper first, and between equals by their normals
 * and points, so that the order is the geometry's, not the order the pieces were found in
 * (a heightfield's cells and a mesh's tree of the same triangles give the same manifolds in
 * different orders, and merging keeps the first one's normal and, among points as deep and
 * as far apart, the first one's points). */
static bool goes_before(const col_manifold3 *x, const col_manifold3 *y)
{
    float dx = deepest_point(x), dy = deepest_point(y);
    if (dx != dy)
        return dx > dy;
    const float fx[6] = {x->normal.x, x->normal.y, x->normal.z, x->points[0].point.x,
                         x->points[0].point.y, x->points[0].point.z};
    const float fy[6] = {y->normal.x, y->normal.y, y->normal.z, y->points[0].point.x,
                         y->points[0].point.y, y->points[0].point.z};
    for (int k = 0; k < 6; k++)
        if (fx[k] != fy[k])
            return fx[k] < fy[k];
    if (x->count != y->count)
        return x->count > y->count;
    for (int i = 0; i < x->count; i++) {
        const col_contact_point3 *p = &x->points[i], *q = &y->points[i];
        const float gx[4] = {p->point.x, p->point.y, p->point.z, p->depth};
        const float gy[4] = {q->point.x, q->point.y, q->point.z, q->depth};
        for (int k = 0; k < 4; k++)
            if (gx[k] != gy[k])
                return gx[k] < gy[k];
    }
    return false;
}

/* Whether merged manifold x goes before y: by their normals, so that a body resting on two
 * faces keeps each face's manifold under the same rank (its cache entry) from step to step,
 * however their depths trade places. */
static bool normal_before(const col_manifold3 *x, const col_manifold3 *y)
{
    if (x->normal.x != y->normal.x)
        return x->normal.x < y->normal.x;
    if (x->normal.y != y->normal.y)
        return x->normal.y < y->normal.y;
    return x->normal.z < y->normal.z;
}

/* Insertion sort, stable: a pair has a handful of manifolds. `before` is the order. */
static void sort_children(dchild *c, uint32_t n,
                          bool (*before)(const col_manifold3 *, const col_manifold3 *))
{
    for (uint32_t i = 1; i < n; i++) {
        if (!before(&c[i].m, &c[i - 1].m))
            continue; /* in its place already: not copied out and back */
        dchild x = c[i];
        uint32_t j = i;
        while (j > 0 && before(&x.m, &c[j - 1].m)) {
            c[j] = c[j - 1];
            j--;
        }
        c[j] = x;
    }
}
#endif

#if MK_DIM == 3
/* Where body b may go this step against level body lb, for its clearance (sim_level_clear):
 * along *ahead, its velocity and a step of gravity over the step, give or take the slack
 * returned (m; a quarter of that and a few millimetres); 0 (no clearance wanted) when b would
 * move less than SIM_SWEEP_MIN, which the step does not sweep (step.c). */
static float clear_ahead(const sim_world *w, const dpart *bp, const dpart *lp, dvec *ahead)
{
    float dt = w->cfg.dt;
    dvec v = dv_mad(dv_sub(bp->vel, lp->vel), dt, dim_gravity(w));
    *ahead = dv_scale(v, dt);
    float move = dv_len(*ahead);
    return move > SIM_SWEEP_MIN ? 0.25f * move + 0.005f : 0.0f;
}
#endif

#if MK_DIM == 3
/* Triangles a body's kept list has room for (68 bytes each, taken by every body that meets
 * a mesh): a 1 m box over a mesh of 1 m cells with its padding meets some 20 to 30. A body
 * under which more lie walks the mesh each step. */
#define SIM_LEVEL_NEAR_ROOM 48

/* Body b's kept triangles of level body lb (sim_level_near), its room taken from the pool the
 * first time; NULL when no room can be had, or when b's list served another level body this
 * step (b then walks this one's triangles: two lists made anew each step would cost more).
 * A mesh's only: a heightfield's cells under a box are found by arithmetic and read from 2.5
 * bytes a triangle, which timed no slower than a list of 68 bytes a triangle (mink-bench's
 * terrain: the list saved instructions but not time there; on the mesh it saved 13%). */
static col_level3_near *near_of(sim_world *w, const sim_body *lb, const sim_body *b)
{
    uint32_t slot = sim_id_slot(b->id);
    if (lb->level->kind != SIM_LEVEL_MESH || slot >= w->solver.level_near.v.len)
        return NULL;
    sim_level_near *k = &w->solver.level_near.at[slot];
    if (k->room == 0) {
        mk_vec *pool = &w->solver.level_tris;
        if (!mk_vec_reserve(pool, pool->len + SIM_LEVEL_NEAR_ROOM))
            return NULL;
        k->first = (uint32_t)pool->len;
        k->room = SIM_LEVEL_NEAR_ROOM;
        pool->len += SIM_LEVEL_NEAR_ROOM;
        k->body = 0;
    }
    if (k->body != b->id || k->level != lb->id) {
        if (k->body == b->id && k->tick == w->tick)
            return NULL;
        k->body = b->id;
        k->level = lb->id;
        k->near.valid = false;
    }
    k->tick = w->tick;
    k->near.tris = (col_level3_tri *)w->solver.level_tris.data + k->first;
    k->near.cap = k->room;
    return &k->near;
}
#endif

/* Piece c of level body lb, apart from the shape of bp (its manifold c->m empty), made a
 * speculative contact when the gap is less than SIM_SPECULATIVE: the shape is collided again
 * moved that far toward the piece, and the points it then has moved back, their depths less
 * by that far. False, c untouched, when it has none. */
static bool speculative_points(const sim_body *lb, dxf xl, const dpart *bp, dvec motion,
                               dchild *c)
{
    if (!(c->m.distance < SIM_SPECULATIVE))
        return false;
    dvec shift = dv_scale(c->m.normal, -SIM_SPECULATIVE);
    dmanifold s = piece_collide(lb->level, xl, c->child, &bp->shape,
                                dim_xf_at(bp, dv_add(bp->pos, shift)), motion,
                                COL_BACK_FACES_IGNORE, DIM_SHIFTED_MARGIN);
    /* Moved toward the piece, the shape may meet it another way (a box sliding past the edge
     * of the triangle behind it, across an inactive edge, is apart along the motion but sinks
     * into that triangle's face when moved back): that is no speculative contact of this
     * gap. */
    if (s.count == 0 || dv_dot(s.normal, c->m.normal) < SIM_LEVEL_MERGE_COS)
        return false;
    for (int k = 0; k < s.count; k++) {
        s.points[k].depth -= SIM_SPECULATIVE;
        s.points[k].point = dv_mad(s.points[k].point, -0.5f, shift);
    }
    s.depth -= SIM_SPECULATIVE;
    c->m = s;
    return true;
}

/* The manifolds of body b against level body lb, speculative ones made where a piece is
 * apart by less than SIM_SPECULATIVE, those apart by more dropped; in 3D merged. Normal from
 * the level toward b; returns how many were written to out (room for SIM_LEVEL_PIECES_CAP).
 * In 3D, b's clearance from the pieces into *clear (its `far` 0 when it is not worked out,
 * sim_level_clear): the pieces with contact points, touching or speculative, are the
 * solver's, which keeps b out of them whatever it moves (the sweep's skin passes those within
 * SIM_SPECULATIVE, sweep.c); the others are bounded by their manifolds' separations (a
 * manifold apart gives a gap along its normal, which the active-edge rule may have made the
 * face's, and then no more than the true gap). The candidate triangles come from b's kept
 * list (near_of), which gives the level's own walk's. */
static uint32_t pair_children(sim_world *w, const sim_body *lb, const sim_body *b,
                              dchild *out, sim_level_clear *clear)
{
    const dpart *bp = dim_part_of(w, b);
    dxf xb = dim_xf_at(bp, bp->pos), xl = dim_level_xf(w, lb);
    dvec motion = relative_motion(w, b, lb);
#if MK_DIM == 3
    dvec ahead;
    float slack = clear_ahead(w, bp, dim_part_of(w, lb), &ahead);
    col_tri_contact3 how = {SIM_SPECULATIVE, COL_BACK_FACES_IGNORE, motion, SIM_FACE_BIAS,
                            true};
    uint32_t n = col_level3_collide_clear(sim_level_3d(lb->level), xl, &bp->shape, xb, &how,
                                          ahead, slack, out, SIM_LEVEL_PIECES_CAP,
                                          slack > 0.0f ? &clear->c : NULL,
                                          near_of(w, lb, b));
    if (slack == 0.0f || n > SIM_LEVEL_PIECES_CAP)
        clear->c.far = 0.0f; /* not worked out, or pieces not written: their gaps unknown */
#else
    (void)clear;
    uint32_t n = DIM_NAME(sim_level_collide)(w, lb, &bp->shape, xb, motion,
                                             COL_BACK_FACES_IGNORE, SIM_SPECULATIVE, out,
                                             SIM_LEVEL_PIECES_CAP);
#endif
    n = n < SIM_LEVEL_PIECES_CAP ? n : SIM_LEVEL_PIECES_CAP;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        dchild *c = &out[i];
        if (c->m.count == 0 && !speculative_points(lb, xl, bp, motion, c)) {
#if MK_DIM == 3
            col_level3_clear_add(&clear->c, c->m.normal, c->m.distance);
#endif
            continue;
        }
        if (kept != i)
            out[kept] = *c;
        kept++;
    }
#if MK_DIM == 3
    sort_children(out, kept, goes_before);
    /* Merged, each manifold is keyed by its rank among the pair's (the first piece that
     * touched it would change every few steps under a body sliding over the triangles, and
     * its warm start with it); its points keep their pieces in their feature ids. */
    kept = col_merge_manifolds3(out, kept, SIM_LEVEL_MERGE_COS);
    sort_children(out, kept, normal_before);
    for (uint32_t k = 0; k < kept; k++) {
        out[k].child = k;
        out[k].m.depth = deepest_point(&out[k].m);
    }
#endif
    return kept < SIM_LEVEL_MAX_CHILDREN ? kept : SIM_LEVEL_MAX_CHILDREN;
}

#if MK_DIM == 3
/* Last step's manifolds of the level pair of a (the lower id) and b, kept while the body has
 * hardly moved against the level (Jolt's body pair cache, as contacts.c keeps a convex
 * pair's): the pair was solved last step and every piece solved with it has a one-shot
 * manifold that dim_kept_manifold still holds (a polytope on the level; its points ride on
 * the bodies and dim_manifold_of measures their depths anew). Writes them to out in their
 * ranks' order; 0 when any piece does not hold, and the pieces are collided anew. */
static uint32_t kept_children(sim_world *w, sim_pair *pair, const sim_body *a,
                              const sim_body *b, dchild *out)
{
    const dpart *pa = dim_part_of(w, a), *pb = dim_part_of(w, b);
    if (!sim_polytope3(&pa->shape) || !sim_polytope3(&pb->shape))
        return 0; /* a curved shape's manifolds are never kept (dim_kept_manifold) */
    sim_cache *cache = &w->solver.cache;
    uint32_t found;
    const sim_cache_head *head = sim_cache_find_hinted(cache, &pair->entry, a->id, b->id, &found);
    if (!head || head->stamp + 1 != w->tick)
        return 0;
    uint32_t n = 0;
    for (; n < SIM_LEVEL_MAX_CHILDREN; n++) {
        dcache_entry *e = (dcache_entry *)sim_cache_find_piece(cache, &pair->piece_entry, a->id,
                                                               b->id, n + 1, &found);
        if (!e || e->head.stamp + 1 != w->tick)
            break; /* past last step's pieces */
        if (!dim_kept_manifold(w, e, pa, pb))
            return 0;
        out[n] = (dchild){n, dim_manifold_of(e, pa, pb)};
    }
    return n;
}
#endif

/* Keeps body b's clearance from level body lb (sim_level_clear): a static level's, the first
 * one's when b has pairs with several. */
static void note_clear(sim_world *w, const sim_body *lb, const sim_body *b,
                       const sim_level_clear *clear)
{
    uint32_t slot = sim_id_slot(b->id), at = w->solver.index.at[slot];
    /* The index of a body that is no solver body this step (asleep) is stale. */
    if (lb->kind != SIM_STATIC || !(clear->c.far > 0.0f) || at == 0 ||
        at >= w->solver.level_clear.v.len || dim_of(w)->solver_info.at[at].slot != slot ||
        w->solver.level_clear.at[at].level != UINT32_MAX)
        return;
    w->solver.level_clear.at[at] = *clear;
    w->solver.level_clear.at[at].level = sim_id_slot(lb->id);
}

size_t DIM_NAME(sim_level_pairs)(sim_world *w, bool *ok)
{
    mk_vec *spans = &w->solver.level_spans, *children = &w->solver.level_children;
    spans->len = children->len = 0;
    *ok = true;
    /* No clearance for any body until its level pair works one out. */
    mk_vec *clears = &w->solver.level_clear.v;
    size_t n_bodies = dim_of(w)->solver_bodies.v.len;
    clears->len = 0;
    if (w->slots.levels == 0)
        return 0; /* no level body: no pair has one */
    if (mk_vec_reserve(clears, n_bodies)) {
        for (size_t k = 0; k < n_bodies; k++)
            w->solver.level_clear.at[k].level = UINT32_MAX;
        clears->len = n_bodies;
    }
    sim_pair *pairs = w->broad.pairs.at;
    for (size_t i = 0; i < w->broad.pairs.v.len; i++) {
        const sim_body *a = &w->slots.bodies.at[pairs[i].a], *b = &w->slots.bodies.at[pairs[i].b];
        if (!a->level && !b->level)
            continue;
        if ((sim_body_resting(a) && sim_body_resting(b)) || sim_is_push_pair(a, b) ||
            !dim_tight_overlap(w, pairs[i].a, pairs[i].b))
            continue;
        /* The pair's order (contacts.c): the lower id first, the normal from it. */
        const sim_body *lo = a->id < b->id ? a : b, *hi = lo == a ? b : a;
        const sim_body *lb = a->level ? a : b, *other = a->level ? b : a;
        if (!mk_vec_reserve(children, children->len + SIM_LEVEL_PIECES_CAP) ||
            !mk_vec_reserve(spans, spans->len + 1)) {
            *ok = false;
            break;
        }
        dchild *out = (dchild *)children->data + children->len;
#if MK_DIM == 3
        uint32_t n = kept_children(w, &pairs[i], lo, hi, out);
#else
        (void)hi;
        uint32_t n = 0;
#endif
        bool kept = n > 0;
        if (!kept) {
            sim_level_clear clear = {.level = UINT32_MAX};
            n = pair_children(w, lb, other, out, &clear);
            note_clear(w, lb, other, &clear);
            if (n == 0)
                continue;
            if (lo != lb)
                for (uint32_t k = 0; k < n; k++)
                    out[k].m.normal = dv_neg(out[k].m.normal);
        }
        sim_level_span sp = {(uint32_t)i, (uint32_t)children->len, n, kept};
        mk_vec_push(spans, &sp);
        children->len += n;
    }
    return children->len;
}
