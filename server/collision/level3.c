/* The queries of meshes and heightfields, written once: a mesh offers its triangles through
 * its hierarchy (bvh.c), a heightfield through the cells under a box or along a ray
 * (heightfield3.c); each triangle is then answered by triangle3.c. Everything happens in the
 * level's frame (the shape or the ray carried into it once), and the answers are carried back
 * to the world. */
#include <float.h>
#include <math.h>

#include "level_internal.h"

/* ---- frames ---- */

static col_aabb3 box_to_world(col_aabb3 a, col_xf3 x)
{
    mk_mat3 r = mk_m3_from_quat(x.q);
    mk_vec3 h = a.half;
    mk_vec3 c0 = r.c0, c1 = r.c1, c2 = r.c2;
    mk_vec3 half = mk_v3(fabsf(c0.x) * h.x + fabsf(c1.x) * h.y + fabsf(c2.x) * h.z,
                         fabsf(c0.y) * h.x + fabsf(c1.y) * h.y + fabsf(c2.y) * h.z,
                         fabsf(c0.z) * h.x + fabsf(c1.z) * h.y + fabsf(c2.z) * h.z);
    return (col_aabb3){col_xf3_apply(x, a.center), half};
}

/* The box about shape b at x: a sphere's straight from its radius (col_shape3_bounds turns
 * the shape first, which a sphere does not need), the others' by col_shape3_bounds. It only
 * picks the triangles to test, which are then tested exactly. */
static col_aabb3 shape_box(const col_shape3 *b, col_xf3 x)
{
    if (b->type == COL_SHAPE3_SPHERE)
        return (col_aabb3){x.p, mk_v3(b->radius, b->radius, b->radius)};
    return col_shape3_bounds(b, x);
}

col_aabb3 col_level3_bounds(col_level3 l, col_xf3 xl)
{
    return box_to_world(l.mesh ? l.mesh->bounds : l.hf->bounds, xl);
}

/* ---- the triangles under a box ---- */

typedef struct candidates {
    col_level3 l;
    col_box box;
    col_bvh_iter it;         /* a mesh: the leaves under the box */
    uint32_t range[4], i, j; /* a heightfield: the cells under it, and the next */
    int k;                   /* the next triangle of cell (i, j): 0, 1; 2 for the next cell */
    bool done;
    mk_vec3 corner[4];       /* cell (i, j)'s samples and byte (col_heightfield3_cell) */
    uint8_t cell;
} candidates;

static void candidates_init(candidates *c, col_level3 l, const col_box *box)
{
    c->l = l;
    c->box = *box;
    if (l.mesh) {
        col_bvh_iter_init(&c->it, &l.mesh->bvh, box);
        return;
    }
    col_box all = col_box_of3(l.hf->bounds);
    c->done = !col_box_overlap(&all, box);
    col_heightfield3_cells(l.hf, box, c->range);
    c->i = c->range[0];
    c->j = c->range[2];
    c->k = 2;
}

/* The cell after (i, j) under the box, row by row. */
static void next_cell(candidates *c)
{
    if (++c->i > c->range[1]) {
        c->i = c->range[0];
        c->done = ++c->j > c->range[3];
    }
}

/* Whether the heights of cell (i, j) reach the box's: a body above the ground (falling, or
 * over a hollow) passes the cell without its two triangles worked out. Each triangle's
 * heights are three of the cell's four samples, so a cell that misses misses them both. */
static bool cell_meets_box(const col_heightfield3 *h, uint32_t i, uint32_t j, const col_box *b)
{
    const float *y = h->y + (size_t)j * h->cols + i;
    float lo = mk_minf(mk_minf(y[0], y[1]), mk_minf(y[h->cols], y[h->cols + 1]));
    float hi = mk_maxf(mk_maxf(y[0], y[1]), mk_maxf(y[h->cols], y[h->cols + 1]));
    return !(lo > b->hi[1] || b->lo[1] > hi);
}

/* The next triangle of the heightfield under the box: a cell's samples are read once for its
 * two triangles. */
static bool cells_next(candidates *c, uint32_t *tri, mk_vec3 v[3], uint8_t *active)
{
    const col_heightfield3 *h = c->l.hf;
    while (!c->done) {
        if (c->k == 2) {
            if (!cell_meets_box(h, c->i, c->j, &c->box) ||
                !col_heightfield3_cell(h, c->i, c->j, c->corner, &c->cell)) {
                next_cell(c);
                continue;
            }
            c->k = 0;
        }
        int k = c->k++;
        uint32_t t = 2 * (c->j * (h->cols - 1) + c->i) + (uint32_t)k;
        col_heightfield3_cell_triangle(c->corner, c->cell, k, v, active);
        if (c->k == 2)
            next_cell(c);
        col_box tb = col_tri_box(v);
        if (!col_box_overlap(&tb, &c->box))
            continue;
        *tri = t;
        return true;
    }
    return false;
}

/* The next triangle whose box touches the box: its index, vertices and active edges. */
static bool candidates_next(candidates *c, uint32_t *tri, mk_vec3 v[3], uint8_t *active)
{
    if (c->l.mesh) {
        const col_mesh3 *m = c->l.mesh;
        uint32_t t;
        while (col_bvh_iter_slot(&c->it, &t)) {
            col_mesh3_local(m, t, v);
            col_box tb = col_tri_box(v);
            if (!col_box_overlap(&tb, &c->box))
                continue;
            *tri = t;
            *active = m->active[t];
            return true;
        }
        return false;
    }
    return cells_next(c, tri, v, active);
}

uint32_t col_level3_query(col_level3 l, col_aabb3 box, uint32_t *out, uint32_t cap)
{
    col_box q = col_box_of3(box);
    candidates c;
    candidates_init(&c, l, &q);
    uint32_t t, found = 0;
    mk_vec3 v[3];
    uint8_t active;
    while (candidates_next(&c, &t, v, &active)) {
        if (found < cap)
            out[found] = t;
        found++;
    }
    return found;
}

/* ---- clearance ---- */

void col_level3_clear_add(col_level3_clear *c, mk_vec3 normal, float gap)
{
    gap = gap > 0.0f ? gap : 0.0f; /* and NaN */
    if (c->count < COL_LEVEL3_CLEAR_MAX) {
        c->near[c->count].normal = normal;
        c->near[c->count++].gap = gap;
        return;
    }
    /* Full: the farthest of the kept and the new one goes to `far`. */
    uint32_t worst = 0;
    for (uint32_t k = 1; k < c->count; k++)
        if (c->near[k].gap > c->near[worst].gap)
            worst = k;
    if (c->near[worst].gap > gap) {
        c->far = mk_minf(c->far, c->near[worst].gap);
        c->near[worst].normal = normal;
        c->near[worst].gap = gap;
    } else {
        c->far = mk_minf(c->far, gap);
    }
}

bool col_level3_clear_moves(const col_level3_clear *c, mk_vec3 d, float room)
{
    if (!(c->far - mk_v3_len(d) > room))
        return false;
    mk_vec3 dl = mk_quat_unrotate(c->frame, d);
    const float along[3] = {dl.x, dl.y, dl.z};
    for (int k = 0; k < 3; k++)
        if (!(c->side[2 * k] + mk_minf(along[k], 0.0f) > room &&
              c->side[2 * k + 1] - mk_maxf(along[k], 0.0f) > room))
            return false;
    for (uint32_t k = 0; k < c->count; k++)
        if (!(c->near[k].gap + mk_minf(mk_v3_dot(d, c->near[k].normal), 0.0f) > room))
            return false;
    return true;
}

/* n (level frame) in the world's axes: as it is under a level that is not turned. */
static mk_vec3 level_dir(col_xf3 xl, mk_vec3 n)
{
    bool turned = xl.q.x != 0.0f || xl.q.y != 0.0f || xl.q.z != 0.0f;
    return turned ? mk_quat_rotate(xl.q, n) : n;
}

/* Adds to c the plane of the triangle v's box (level frame, at xl) that parts it most from
 * the shape's box `own` (none when they overlap: gap 0). */
static void clear_by_boxes(col_level3_clear *c, col_xf3 xl, const mk_vec3 v[3],
                           const col_box *own)
{
    col_box tb = col_tri_box(v);
    float gap = -INFINITY;
    mk_vec3 n = mk_v3(0.0f, 1.0f, 0.0f);
    for (int k = 0; k < 3; k++) {
        float below = own->lo[k] - tb.hi[k], above = tb.lo[k] - own->hi[k];
        float g = mk_maxf(below, above), sign = below >= above ? 1.0f : -1.0f;
        if (g > gap) {
            gap = g;
            n = mk_v3(k == 0 ? sign : 0.0f, k == 1 ? sign : 0.0f, k == 2 ? sign : 0.0f);
        }
    }
    col_level3_clear_add(c, level_dir(xl, n), gap);
}

/* Adds to c a triangle apart from shape b (at `local`, level frame) by more than the margin:
 * by m (a separation along m.normal, level frame; a sphere's is its nearest point's) where
 * the collision gave one, else a sphere by its nearest point and the others by the boxes. */
static void clear_by(col_level3_clear *c, col_xf3 xl, const mk_vec3 v[3], const col_shape3 *b,
                     col_xf3 local, const col_manifold3 *m, const col_box *own)
{
    if (m && m->distance < FLT_MAX && m->count == 0) {
        col_level3_clear_add(c, level_dir(xl, m->normal), m->distance);
    } else if (b->type == COL_SHAPE3_SPHERE) {
        col_d3 centre = d3_of(local.p), off = d3_sub(centre, col_tri_closest(v, centre));
        double dist = d3_len(off);
        if (dist > 0.0)
            col_level3_clear_add(c, level_dir(xl, d3_to_f(d3_scale(off, 1.0 / dist))),
                                 (float)(dist - b->radius));
        else
            col_level3_clear_add(c, mk_v3(0.0f, 1.0f, 0.0f), 0.0f);
    } else {
        clear_by_boxes(c, xl, v, own);
    }
}

/* Whether a ball (centre c and radius r, level frame) is farther than `reach` from a
 * triangle's box tb: then it is apart from the triangle by more than the margin, and its
 * clearance from it (when clear is not NULL) is its gap from the box, along the line from the
 * box's nearest point to the centre (the triangle lies in the box, beyond the plane there),
 * without the triangle's nearest point worked out. */
static bool ball_clear_of_box(col_level3_clear *clear, col_xf3 xl, const col_box *tb, mk_vec3 c,
                              float r, float reach)
{
    const float at[3] = {c.x, c.y, c.z};
    float off[3], d2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        off[k] = at[k] - mk_maxf(tb->lo[k], mk_minf(at[k], tb->hi[k]));
        d2 += off[k] * off[k];
    }
    if (!(d2 > reach * reach))
        return false;
    if (clear) {
        float d = sqrtf(d2);
        col_level3_clear_add(clear, level_dir(xl, mk_v3(off[0] / d, off[1] / d, off[2] / d)),
                             d - r);
    }
    return true;
}

uint32_t col_level3_collide(col_level3 l, col_xf3 xl, const col_shape3 *b, col_xf3 xb,
                            const col_tri_contact3 *how, col_child_manifold3 *out,
                            uint32_t cap)
{
    return col_level3_collide_clear(l, xl, b, xb, how, mk_v3(0.0f, 0.0f, 0.0f), 0.0f, out, cap,
                                    NULL, NULL);
}

/* ---- kept candidates ---- */

/* m: how much larger on each side than the query's box a kept list's box is made, besides
 * twice the motion ahead along each axis: a body at rest keeps its list until it has moved
 * this far, a moving one for a few steps. */
#define NEAR_PAD 0.25f
#define NEAR_TOO_MANY UINT32_MAX /* count: more triangles under the box than the room */

/* The kept list of n for the box `walk` (level frame), made anew under walk grown by NEAR_PAD
 * and twice the motion a (level frame) when walk is not inside its box; NULL when more
 * triangles are under that box than n has room for (the caller walks the level). */
/* Whether n's list holds every triangle whose box meets box b: b is inside its box. */
static bool near_holds(const col_level3_near *n, const col_box *b)
{
    bool inside = n->valid;
    for (int k = 0; k < 3 && inside; k++)
        inside = b->lo[k] >= n->lo[k] && b->hi[k] <= n->hi[k];
    return inside;
}

/* col_box_overlap of a kept triangle's box and b. */
static bool near_meets(const col_level3_tri *t, const col_box *b)
{
    return !(t->lo[0] > b->hi[0] || b->lo[0] > t->hi[0] || t->lo[1] > b->hi[1] ||
             b->lo[1] > t->hi[1] || t->lo[2] > b->hi[2] || b->lo[2] > t->hi[2]);
}

static const col_level3_tri *near_list(col_level3 l, col_level3_near *n, const col_box *walk,
                                       const float a[3])
{
    if (near_holds(n, walk))
        return n->count == NEAR_TOO_MANY ? NULL : n->tris;
    col_box fat;
    for (int k = 0; k < 3; k++) {
        float g = NEAR_PAD + 2.0f * fabsf(a[k]);
        n->lo[k] = fat.lo[k] = walk->lo[k] - g;
        n->hi[k] = fat.hi[k] = walk->hi[k] + g;
    }
    n->valid = true;
    n->count = 0;
    candidates c;
    candidates_init(&c, l, &fat);
    col_level3_tri t = {0};
    while (candidates_next(&c, &t.tri, t.v, &t.active)) {
        if (n->count == n->cap) {
            n->count = NEAR_TOO_MANY;
            return NULL;
        }
        col_box tb = col_tri_box(t.v);
        for (int k = 0; k < 3; k++) {
            t.lo[k] = tb.lo[k];
            t.hi[k] = tb.hi[k];
        }
        n->tris[n->count++] = t;
    }
    return n->tris;
}

/* The next of the kept triangles at or after *at whose box meets the box: the walk's next. */
static bool near_next(const col_level3_tri *list, uint32_t count, uint32_t *at,
                      const col_box *box, uint32_t *tri, mk_vec3 v[3], uint8_t *active)
{
    while (*at < count) {
        const col_level3_tri *t = &list[(*at)++];
        if (!near_meets(t, box))
            continue;
        *tri = t->tri;
        v[0] = t->v[0];
        v[1] = t->v[1];
        v[2] = t->v[2];
        *active = t->active;
        return true;
    }
    return false;
}

uint32_t col_level3_collide_clear(col_level3 l, col_xf3 xl, const col_shape3 *b, col_xf3 xb,
                                  const col_tri_contact3 *how, mk_vec3 ahead, float slack,
                                  col_child_manifold3 *out, uint32_t cap,
                                  col_level3_clear *clear, col_level3_near *near)
{
    col_xf3 local = col_xf3_to_local(xl, xb);
    col_tri_contact3 in_frame = *how;
    in_frame.motion = mk_quat_unrotate(xl.q, how->motion);
    col_aabb3 shape = shape_box(b, local), reach_box = shape;
    reach_box.half = mk_v3_add(shape.half, mk_v3(how->margin, how->margin, how->margin));
    col_box q = col_box_of3(reach_box), own = col_box_of3(shape), walk = q;
    /* The triangles under the box grown by `slack` and swept along `ahead` as well, in the
     * same order (a heightfield's rows and columns, a mesh's leaves depth first) with the
     * others among them: those past the margin are not collided but bounded. Past that box,
     * every triangle is beyond one of its sides. */
    mk_vec3 al = mk_quat_unrotate(xl.q, ahead);
    const float a[3] = {al.x, al.y, al.z};
    if (clear) {
        clear->far = INFINITY;
        clear->frame = xl.q;
        clear->count = 0;
        for (int k = 0; k < 3; k++) {
            walk.lo[k] = q.lo[k] - slack + mk_minf(a[k], 0.0f);
            walk.hi[k] = q.hi[k] + slack + mk_maxf(a[k], 0.0f);
            clear->side[2 * k] = own.lo[k] - walk.lo[k];
            clear->side[2 * k + 1] = walk.hi[k] - own.hi[k];
        }
    }
    const col_level3_tri *list = near ? near_list(l, near, &walk, a) : NULL;
    candidates c;
    if (!list)
        candidates_init(&c, l, &walk);
    uint32_t t, found = 0, at = 0;
    col_triangle3 tri;
    col_manifold3 spare;
    bool sphere = b->type == COL_SHAPE3_SPHERE;
    /* A ball farther than this from a triangle's box gives it no manifold: its radius, the
     * margin and a tenth of a millimetre for the box's rounding in float. */
    float reach = b->radius + how->margin + 1e-4f;
    while (list ? near_next(list, near->count, &at, &walk, &t, tri.v, &tri.active)
                : candidates_next(&c, &t, tri.v, &tri.active)) {
        col_box tb = col_tri_box(tri.v);
        if (clear && !col_box_overlap(&tb, &q)) {
            clear_by(clear, xl, tri.v, b, local, NULL, &own);
            continue;
        }
        if (sphere && ball_clear_of_box(clear, xl, &tb, local.p, b->radius, reach))
            continue;
        /* Written where it is kept: the next free place, which the next triangle takes again
         * when this one gives nothing. */
        col_manifold3 *m = found < cap ? &out[found].m : &spare;
        col_collide_triangle3_into(&tri, b, &local, &in_frame, m);
        if (m->count == 0 && !(m->distance <= how->margin)) {
            if (clear)
                clear_by(clear, xl, tri.v, b, local, m, &own);
            continue;
        }
        if (found < cap) {
            col_manifold3_to_world(m, xl);
            out[found].child = t;
        }
        found++;
    }
    return found;
}

/* ---- rays ---- */

/* A mesh's triangles along a segment (col_bvh_ray), one by one, nearest leaves first. */
typedef struct mesh_walk {
    col_bvh_ray r;
    const col_mesh3 *m;
    uint32_t slot, end;
} mesh_walk;

static void mesh_walk_init(mesh_walk *w, const col_mesh3 *m, const double o[3],
                           const double d[3], const double grow[3])
{
    w->m = m;
    w->slot = w->end = 0;
    col_bvh_ray_init(&w->r, &m->bvh, o, d, grow, 1.0);
}

static bool mesh_walk_next(mesh_walk *w, uint32_t *k, mk_vec3 v[3])
{
    while (w->slot == w->end) {
        uint32_t first, count;
        if (!col_bvh_ray_next(&w->r, &first, &count))
            return false;
        w->slot = first;
        w->end = first + count;
    }
    *k = w->slot++;
    col_mesh3_local(w->m, *k, v);
    return true;
}

col_ray_hit3 col_level3_ray(col_level3 l, col_xf3 xl, mk_vec3 from, mk_vec3 to,
                            col_back_face back, uint32_t *tri)
{
    col_drot r = col_drot_of(xl.q);
    col_d3 dw = d3_sub(d3_of(to), d3_of(from));
    col_d3 o = drot_apply_t(&r, d3_sub(d3_of(from), d3_of(xl.p))), d = drot_apply_t(&r, dw);
    double oa[3] = {o.x, o.y, o.z}, da[3] = {d.x, d.y, d.z};
    col_ray_pre ray;
    col_ray_pre_init(&ray, oa, da);
    uint32_t best = UINT32_MAX;
    double best_t = 1.0;
    bool best_back = false;
    mk_vec3 bv[3];
    if (l.mesh) {
        double grow[3] = {0.0, 0.0, 0.0};
        mesh_walk w;
        mesh_walk_init(&w, l.mesh, oa, da, grow);
        uint32_t k;
        mk_vec3 v[3];
        while (mesh_walk_next(&w, &k, v)) {
            double t;
            bool from_back;
            if (!col_ray_pre_hit(&ray, v, back, w.r.tmax, &t, &from_back))
                continue;
            if (t < w.r.tmax || k < best) { /* t <= tmax: ties to the lower index */
                w.r.tmax = best_t = t;
                best = k;
                best_back = from_back;
            }
        }
        if (best != UINT32_MAX)
            col_mesh3_local(l.mesh, best, bv);
    } else {
        uint8_t active;
        if (col_heightfield3_ray(l.hf, &ray, back, 1.0, &best, &best_t, &best_back))
            col_heightfield3_local(l.hf, best, bv, &active);
    }
    if (best == UINT32_MAX)
        return (col_ray_hit3){.hit = false};
    if (tri)
        *tri = best;
    col_ray_hit3 h = col_ray_pre_result(&ray, bv, best_t, best_back);
    h.point = d3_to_f(d3_mad(d3_of(from), best_t, dw));
    h.normal = d3_to_f(drot_apply(&r, d3_of(h.normal)));
    return h;
}

/* ---- shape casts ---- */

typedef struct cast_state {
    const col_shape3 *a;
    col_xf3 xa;        /* level frame */
    mk_vec3 move;      /* level frame */
    col_back_face back;
    double skin;       /* m: triangles A starts within this of are passed */
    double o[3], d[3], grow[3];
    double tmax;
    col_ray_hit3 best;
    uint32_t best_i;
} cast_state;

/* col_cast3 of a sphere (centre c, radius r) against triangle v (unit normal n): the same
 * conservative advancement (the gap closed at the speed along the line of the nearest points,
 * never past the first touch), on the distance from the triangle's nearest point to the
 * centre (col_tri_closest) in place of GJK's. On a face it lands in one step. */
static col_ray_hit3 sphere_cast(const mk_vec3 v[3], col_d3 n, col_d3 c, double r, col_d3 move)
{
    double t = 0.0;
    for (int iter = 0; iter < COL_CAST_MAX_ITERATIONS; iter++) {
        col_d3 at = d3_mad(c, t, move);
        col_d3 q = col_tri_closest(v, at);
        col_d3 off = d3_sub(at, q);
        double dist = d3_len(off);
        /* From the triangle toward the centre; its face normal when the centre is on it. */
        col_d3 out = dist > 0.0 ? d3_scale(off, 1.0 / dist) : n;
        if (dist - r <= (double)COL_CAST_TOLERANCE) {
            col_d3 point = q;
            if (dist < r) /* overlapping: midway between the surfaces, as a contact's point */
                point = d3_scale(d3_add(q, d3_mad(at, -r, out)), 0.5);
            return (col_ray_hit3){true, (float)t, d3_to_f(point), d3_to_f(out)};
        }
        double closing = -d3_dot(move, out);
        if (closing <= 0.0)
            break;
        t += (dist - r) / closing;
        if (t > 1.0)
            break;
    }
    return (col_ray_hit3){.hit = false};
}

/* A candidate triangle for the cast: skipped when the swept box misses its box, when A moves
 * away from its back and back faces are ignored, when A starts within the skin of it, or when
 * A only touches it at the start while moving along or away. */
static void cast_triangle(cast_state *s, uint32_t i, const mk_vec3 v[3], uint8_t active)
{
    col_box tb = col_tri_box(v);
    double lo[3] = {tb.lo[0], tb.lo[1], tb.lo[2]}, hi[3] = {tb.hi[0], tb.hi[1], tb.hi[2]};
    if (!(col_box_enter(lo, hi, s->o, s->d, s->grow, s->tmax) <= s->tmax))
        return;
    if (s->back == COL_BACK_FACES_IGNORE && d3_dot(col_tri_cross(v), d3_of(s->move)) > 0.0)
        return;
    col_ray_hit3 h;
    col_d3 n;
    if (s->a->type == COL_SHAPE3_SPHERE) {
        col_d3 c = d3_of(s->xa.p);
        double r = s->a->radius;
        if (s->skin > 0.0 && d3_len(d3_sub(c, col_tri_closest(v, c))) - r < s->skin)
            return;
        n = col_tri_normal(v);
        h = sphere_cast(v, n, c, r, d3_of(s->move));
    } else {
        n = col_tri_normal(v);
        col_tri_hull th;
        col_tri_hull_make(v, n, &th);
        if (s->skin > 0.0) {
            col_distance3 g = col_gjk3_distance(s->a, s->xa, &th.shape, th.xf);
            if (g.overlap || g.distance < s->skin)
                return;
        }
        h = col_cast3(s->a, s->xa, s->move, &th.shape, th.xf);
    }
    if (!h.hit)
        return;
    /* The normal by the active-edge rule, as a contact's (Jolt's shape casts fix it too): an
     * inactive edge met while sliding over a flat mesh gives the face's normal. */
    col_d3 own = d3_of(h.normal);
    if (d3_dot(n, own) < 0.0)
        n = d3_neg(n); /* met from the back */
    h.normal = d3_to_f(col_tri_fix_normal(v, n, active, own, d3_of(h.point), d3_of(s->move)));
    if (mk_v3_dot(h.normal, s->move) >= 0.0f)
        return; /* touched while moving along or away: nothing to stop */
    if ((double)h.fraction < s->tmax || ((double)h.fraction == s->tmax && i < s->best_i)) {
        s->tmax = h.fraction;
        s->best = h;
        s->best_i = i;
    }
}

col_ray_hit3 col_level3_cast(const col_shape3 *a, col_xf3 xa, mk_vec3 translation,
                             col_level3 l, col_xf3 xl, col_back_face back, uint32_t *tri)
{
    return col_level3_cast_beyond(a, xa, translation, l, xl, back, 0.0f, tri);
}

col_ray_hit3 col_level3_cast_beyond(const col_shape3 *a, col_xf3 xa, mk_vec3 translation,
                                    col_level3 l, col_xf3 xl, col_back_face back, float skin,
                                    uint32_t *tri)
{
    return col_level3_cast_near(a, xa, translation, l, xl, back, skin, NULL, tri);
}

col_ray_hit3 col_level3_cast_near(const col_shape3 *a, col_xf3 xa, mk_vec3 translation,
                                  col_level3 l, col_xf3 xl, col_back_face back, float skin,
                                  const col_level3_near *near, uint32_t *tri)
{
    cast_state s = {.a = a,
                    .xa = col_xf3_to_local(xl, xa),
                    .move = mk_quat_unrotate(xl.q, translation),
                    .back = back,
                    .skin = skin};
    col_aabb3 start = shape_box(a, s.xa);
    mk_vec3 c = start.center, h = start.half;
    /* The walk's box is A's box widened by the cast's tolerance: a hit is within it. */
    double pad = COL_CAST_TOLERANCE;
    double o[3] = {c.x, c.y, c.z}, d[3] = {s.move.x, s.move.y, s.move.z};
    double grow[3] = {h.x + pad, h.y + pad, h.z + pad};
    for (int k = 0; k < 3; k++) {
        s.o[k] = o[k];
        s.d[k] = d[k];
        s.grow[k] = grow[k];
    }
    s.tmax = 1.0;
    s.best_i = UINT32_MAX;
    /* A mesh's leaves nearest first along a cast longer than the shape, whose hits then prune
     * the rest of the walk; along a shorter one (a step's sweep), the leaves under the swept
     * box, as a heightfield's cells, each tested at once, or those of a kept list that holds
     * the swept box: the same triangles that can be hit are tested, and the first hit (ties
     * to the lower index) does not depend on the order. */
    double len = d3_len(d3_of(s.move)), reach = fmax(h.x, fmax(h.y, h.z));
    if (l.mesh && len > reach) {
        mesh_walk w;
        mesh_walk_init(&w, l.mesh, o, d, grow);
        uint32_t k;
        mk_vec3 v[3];
        while (mesh_walk_next(&w, &k, v)) {
            cast_triangle(&s, k, v, l.mesh->active[k]);
            w.r.tmax = s.tmax;
        }
    } else {
        /* The cells under the swept box. */
        col_aabb3 end = {mk_v3_add(c, s.move), h};
        col_box b0 = col_box_of3(start), b1 = col_box_of3(end), swept;
        for (int k = 0; k < 3; k++) {
            swept.lo[k] = mk_minf(b0.lo[k], b1.lo[k]) - (float)pad;
            swept.hi[k] = mk_maxf(b0.hi[k], b1.hi[k]) + (float)pad;
        }
        if (near && near_holds(near, &swept) && near->count != NEAR_TOO_MANY) {
            for (uint32_t k = 0; k < near->count; k++)
                if (near_meets(&near->tris[k], &swept))
                    cast_triangle(&s, near->tris[k].tri, near->tris[k].v, near->tris[k].active);
        } else {
            candidates cs;
            candidates_init(&cs, l, &swept);
            uint32_t t;
            col_triangle3 tr;
            while (candidates_next(&cs, &t, tr.v, &tr.active))
                cast_triangle(&s, t, tr.v, tr.active);
        }
    }
    if (!s.best.hit)
        return s.best;
    if (tri)
        *tri = s.best_i;
    s.best.point = col_xf3_apply(xl, s.best.point);
    s.best.normal = mk_quat_rotate(xl.q, s.best.normal);
    return s.best;
}
