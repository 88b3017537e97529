/* The 3D half of the narrowphase (contacts.h): the persistent manifold of curved shapes with
 * Bullet's perturbation, and a constraint's points and tangents from the pair's cache entry,
 * in the 3D arithmetic (quaternions, two friction directions). Compiled with MK_DIM=3. */
#include <math.h>
#include <string.h>

#include "contacts.h"

#define SIM_ARBITER_THRESHOLD 0.02f /* m: a cached point this far off is dropped (Bullet's) */

/* The centre of mass in world space, m. */
mk_vec3 sim_body_center3(const sim_body3 *b3)
{
    if (b3->local_center.x == 0.0f && b3->local_center.y == 0.0f && b3->local_center.z == 0.0f)
        return b3->pos;
    return mk_v3_add(b3->pos, mk_quat_rotate(b3->rot, b3->local_center));
}

/* Two unit tangents of n, from whichever axis is least along it (Erin Catto's
 * b2ComputeBasis in Box2D's 3D prototypes). */
static void tangents(mk_vec3 n, mk_vec3 t[2])
{
    if (fabsf(n.x) >= 0.57735027f)
        t[0] = mk_v3_norm(mk_v3(n.y, -n.x, 0.0f));
    else
        t[0] = mk_v3_norm(mk_v3(0.0f, n.z, -n.y));
    t[1] = mk_v3_cross(n, t[0]);
}

/* Shapes that rest on a flat face or a line (cylinders, cones, capsules), where one point a
 * step is a poor support until the persistent manifold has gathered more. */
static bool rests_on_many(const col_shape3 *s)
{
    return s->type == COL_SHAPE3_CYLINDER || s->type == COL_SHAPE3_CONE ||
           s->type == COL_SHAPE3_CAPSULE;
}

#define SIM_PERTURB_DIRECTIONS 3
#define SIM_PERTURB_MAX_ANGLE 0.125f /* rad (Bullet's bound) */

/* Bullet's perturbation (btConvexConvexAlgorithm): a curved shape that has just come to rest
 * on something gives one contact point; tilting it by a small angle about axes across the
 * normal and colliding again finds the other points of its support (the rim of a cylinder on
 * its end), which, carried back to the untilted shape, fill the manifold at once rather than
 * after it has rocked. Adds up to SIM_PERTURB_DIRECTIONS points to `m` (room for them). */
static void perturb(const sim_body3 *a, const sim_body3 *b, col_manifold3 *m)
{
    bool tilt_a = rests_on_many(&a->shape);
    const sim_body3 *t = tilt_a ? a : b;
    col_aabb3 box = col_shape3_bounds(&t->shape, (col_xf3){mk_v3(0, 0, 0), mk_quat_identity()});
    float radius = mk_v3_len(box.half);
    float angle = mk_minf(SIM_ARBITER_THRESHOLD / radius, SIM_PERTURB_MAX_ANGLE);
    mk_vec3 n = m->normal, tan[2];
    tangents(n, tan);
    /* Standing on its end, the shape's support is a disc: tilts about three axes 120 degrees
     * apart find points all round its rim. Lying on its side, the support is a segment along
     * the shape's axis: tilts about the axis across it find both ends (a tilt about the
     * shape's own axis would only roll it, and give a point off the segment). */
    mk_vec3 shape_axis = mk_quat_rotate(t->rot, mk_v3(0.0f, 1.0f, 0.0f));
    bool on_end = fabsf(mk_v3_dot(shape_axis, n)) > 0.7f;
    mk_vec3 across = mk_v3_norm(mk_v3_cross(n, shape_axis));
    int directions = on_end ? SIM_PERTURB_DIRECTIONS : 2;
    col_xf3 xa = sim_body_xf3(a), xb = sim_body_xf3(b);
    for (int k = 0; k < directions && m->count < COL_MAX_POINTS3; k++) {
        float phi = 2.0943951f * (float)k; /* 120 degrees apart */
        mk_vec3 axis = on_end ? mk_v3_add(mk_v3_scale(tan[0], cosf(phi)),
                                          mk_v3_scale(tan[1], sinf(phi)))
                              : mk_v3_scale(across, k == 0 ? 1.0f : -1.0f);
        mk_quat tilt = mk_quat_axis_angle(axis, angle);
        col_xf3 pa = xa, pb = xb;
        if (tilt_a)
            pa.q = mk_quat_mul(tilt, xa.q);
        else
            pb.q = mk_quat_mul(tilt, xb.q);
        col_manifold3 q = col_collide3(&a->shape, pa, &b->shape, pb);
        if (q.count == 0)
            continue;
        /* The two surface points, each carried back to its untilted body. */
        const col_contact_point3 *c = &q.points[0];
        mk_vec3 sa = mk_v3_mad(c->point, 0.5f * c->depth, q.normal);
        mk_vec3 sb = mk_v3_mad(c->point, -0.5f * c->depth, q.normal);
        sa = col_xf3_apply(xa, col_xf3_apply_inv(pa, sa));
        sb = col_xf3_apply(xb, col_xf3_apply_inv(pb, sb));
        float depth = mk_v3_dot(mk_v3_sub(sa, sb), n);
        if (depth < -SIM_ARBITER_THRESHOLD)
            continue;
        m->points[m->count++] = (col_contact_point3){mk_v3_scale(mk_v3_add(sa, sb), 0.5f),
                                                     depth, c->id + 1u + (uint32_t)k};
    }
}

/* The manifold of a pair this step, kept in its cache entry: fresh for polytopes, through the
 * arbiter for curved shapes. A level's piece counts as a polytope's face (its placeholder is
 * a box) and is not perturbed: the tilt would collide the placeholder, not the piece. A
 * sphere touches a level's piece at one point, which the narrowphase gives exactly every step
 * (triangle3.c): it too is fresh, since the arbiter would keep the points of the last few
 * steps trailing a rolling ball, where the ball has rolled away from the ground, for the
 * solver to pay for as speculative points. *fresh says the manifold is m's, point for point. */
static col_contact_cache3 pair_manifold(const sim_body3 *a, const sim_body3 *b,
                                        const sim_cache_entry3 *old, const col_manifold3 *m,
                                        bool level, bool *fresh)
{
    col_xf3 xa = sim_body_xf3(a), xb = sim_body_xf3(b);
    bool sphere = a->shape.type == COL_SHAPE3_SPHERE || b->shape.type == COL_SHAPE3_SPHERE;
    if (!(level && sphere) && (!sim_polytope3(&a->shape) || !sim_polytope3(&b->shape))) {
        col_manifold3 now = *m;
        if (!level && old->manifold.count < 3 && m->count == 1 &&
            (rests_on_many(&a->shape) || rests_on_many(&b->shape)))
            perturb(a, b, &now);
        return col_contact_cache3_update(&old->manifold, xa, xb, &now, SIM_ARBITER_THRESHOLD);
    }
    col_contact_cache3 out;
    memset(&out, 0, sizeof out);
    out.normal = m->normal;
    out.count = m->count;
    for (int i = 0; i < m->count; i++) {
        out.points[i].c = m->points[i];
        /* Its surface points, half the depth each side of it along the normal. */
        mk_vec3 half = mk_v3_scale(m->normal, 0.5f * m->points[i].depth);
        out.points[i].local_a = col_xf3_apply_inv(xa, mk_v3_add(m->points[i].point, half));
        out.points[i].local_b = col_xf3_apply_inv(xb, mk_v3_sub(m->points[i].point, half));
    }
    *fresh = true;
    return out;
}

/* sim_match_cached for a level pair: the point of last step's manifold nearest within
 * SIM_MATCH_DISTANCE in the frame of the body that is not the level (`on_b`: body b), feature
 * ids aside. A body sliding over a level meets new triangles every few steps and new ids with
 * them (and one triangle's ids may repeat at other points); its own corners stay where they
 * were on it. */
static int match_on_body(const sim_cache_entry3 *old, const col_cached_point3 *cp, bool on_b)
{
    int best = -1;
    float best_d = SIM_MATCH_DISTANCE;
    for (int k = 0; k < old->manifold.count; k++) {
        const col_cached_point3 *o = &old->manifold.points[k];
        float d = on_b ? mk_v3_len(mk_v3_sub(o->local_b, cp->local_b))
                       : mk_v3_len(mk_v3_sub(o->local_a, cp->local_a));
        if (d < best_d) {
            best_d = d;
            best = k;
        }
    }
    return best;
}

/* The constraint's normal, tangents and points from the pair's entry, which takes this step's
 * manifold (a kept entry has it, point for point, with its impulses); false when the entry
 * has no point to solve. Unlike the 2D points, each point is placed from its two surface
 * points carried by the bodies, since a point of the persistent manifold may have come apart
 * (the arbiter reports it at depth 0): that is other arithmetic, so this stays per dimension. */
bool sim_fill_points3(sim_world *w, sim_constraint3 *c, sim_cache_entry3 *entry,
                      const sim_body3 *a3, const sim_body3 *b3, const col_manifold3 *m, bool kept)
{
    /* The entry holds last step's manifold and impulses until the points are matched to
     * them: a kept entry's are this step's, point for point; otherwise this step's manifold is
     * made beside it (`next`) and stored with the new impulses at the end. */
    const sim_body *bodies = w->slots.bodies.at;
    bool level_a = bodies[a3 - w->d3.bodies.at].level != NULL;
    bool level = level_a || bodies[b3 - w->d3.bodies.at].level;
    /* This step's manifold taken as it is (a one-shot, or a ball's on a level): its points are
     * this step's, placed and measured already. */
    bool fresh = false;
    col_contact_cache3 next;
    const col_contact_cache3 *pm = &entry->manifold;
    if (!kept) {
        next = pair_manifold(a3, b3, entry, m, level, &fresh);
        pm = &next;
    }
    float jn[COL_MAX_POINTS3], jt[COL_MAX_POINTS3][2];
    if (pm->count > 0) {
        c->normal = pm->normal;
        tangents(c->normal, c->tangent);
        c->count = pm->count;
    }
    mk_vec3 ca = sim_body_center3(a3), cb = sim_body_center3(b3);
    col_xf3 xa = sim_body_xf3(a3), xb = sim_body_xf3(b3);
    for (int i = 0; i < pm->count; i++) {
        sim_constraint_point3 *p = &c->points[i];
        const col_cached_point3 *cp = &pm->points[i];
        /* The signed gap of the point's two surface points: a cached point that has come
         * apart is a speculative one (the arbiter reports it at depth 0). A kept convex
         * pair's m is that already (dim_manifold_of, by this arithmetic from these points). */
        mk_vec3 point;
        float depth;
        if ((kept && !level) || fresh) {
            point = m->points[i].point;
            depth = m->points[i].depth;
        } else {
            mk_vec3 wa = col_xf3_apply(xa, cp->local_a), wb = col_xf3_apply(xb, cp->local_b);
            depth = mk_v3_dot(mk_v3_sub(wa, wb), c->normal);
            point = mk_v3_scale(mk_v3_add(wa, wb), 0.5f);
        }
        p->ra = mk_v3_sub(point, ca);
        p->rb = mk_v3_sub(point, cb);
        p->base_sep = -depth - mk_v3_dot(mk_v3_sub(p->rb, p->ra), c->normal);
        int k = kept                        ? i
                : entry->manifold.count == 0 ? -1
                : level                      ? match_on_body(entry, cp, level_a)
                                             : sim_match_cached(entry, cp->c.id, cp->local_a);
        p->jn = jn[i] = k >= 0 ? entry->jn[k] : 0.0f;
        p->jt[0] = jt[i][0] = k >= 0 ? entry->jt[k][0] : 0.0f;
        p->jt[1] = jt[i][1] = k >= 0 ? entry->jt[k][1] : 0.0f;
    }
    if (!kept) {
        entry->manifold = next;
        entry->one_shot =
            sim_polytope3(&a3->shape) && sim_polytope3(&b3->shape) && next.count > 0;
        entry->local_normal = mk_quat_unrotate(a3->rot, m->normal);
        sim_relative_pose3(a3, b3, &entry->rel_p, &entry->rel_q);
    }
    for (int i = 0; i < pm->count; i++) {
        entry->jn[i] = jn[i];
        entry->jt[i][0] = jt[i][0];
        entry->jt[i][1] = jt[i][1];
    }
    return pm->count > 0;
}
