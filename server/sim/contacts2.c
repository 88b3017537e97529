/* The 2D half of the narrowphase (contacts.h): a constraint's points from a manifold, in the
 * 2D arithmetic: a body's turn is a (cos, sin) pair, and each point is placed at the
 * manifold's own point. Compiled with MK_DIM=2. */
#include <math.h>

#include "contacts.h"

/* The farthest point of the shape from its body's origin is at most this far, m. */
static float reach(const col_shape2 *s)
{
    col_aabb box = col_shape_bounds_q(s, (col_xf2){mk_v2(0.0f, 0.0f), 0.0f}, mk_v2(1.0f, 0.0f));
    return mk_v2_len(box.center) + mk_v2_len(box.half);
}

/* A fresh manifold's constraint (dim_fill_points fills a kept one's): warm-started from the
 * entry's points that this step's continue (sim_match_cached), and the entry takes this
 * step's manifold and where it was computed. */
bool sim_fill_fresh2(sim_constraint *c, sim_cache_entry *next, const sim_body *a,
                     const sim_body *b, const col_manifold2 *m, mk_vec2 ca, mk_vec2 cb)
{
    /* The last step's points, read before this step's overwrite them. */
    sim_cache_entry old_copy = *next, *old = next->count > 0 ? &old_copy : NULL;
    mk_vec2 qa = sim_shape_rot2(a), qb = sim_shape_rot2(b);
    next->count = m->count;
    next->reach = mk_maxf(reach(&a->shape), reach(&b->shape));
    sim_relative_pose2(a, qa, b, qb, &next->rel_p, &next->rel_q);
    next->local_normal = sim_to_local2(mk_v2(0.0f, 0.0f), qa, m->normal);
    for (int i = 0; i < m->count; i++) {
        sim_constraint_point *p = &c->points[i];
        const col_contact_point2 *mp = &m->points[i];
        sim_place_point2(p, mp, ca, cb, c->normal);
        /* Its surface points, half the depth each side of it along the normal. */
        mk_vec2 half = mk_v2_scale(m->normal, 0.5f * mp->depth);
        mk_vec2 local_a = sim_to_local2(a->pos, qa, mk_v2_add(mp->point, half));
        mk_vec2 local_b = sim_to_local2(b->pos, qb, mk_v2_sub(mp->point, half));
        int k = old ? sim_match_cached(old, mp->id, local_a) : -1;
        const sim_cached_point *prev = k >= 0 ? &old->points[k] : NULL;
        p->jn = prev ? prev->jn : 0.0f;
        p->jt = prev ? prev->jt : 0.0f;
        next->points[i] = (sim_cached_point){mp->id, p->jn, p->jt, local_a, local_b};
    }
    return true;
}
