/* Hits, one source for both dimensions (dim.h): two bodies meeting faster than the world's hit
 * speed, noted during the step for events.c, which reports the fastest of each pair.
 *
 * As Box2D v3 finds its hit events (contact_solver.c: a manifold point whose relative normal
 * velocity at the start of the step is past the threshold and that the solver pushes), a
 * contact point counts when its approach speed is over cfg.hit_speed and it closes within the
 * step: the point is touching, or the gap the speculative contact leaves is less than what the
 * approach covers in dt. A body resting on another approaches at g dt a step (0.17 m/s at
 * 60 Hz), under the default 1 m/s. A fast body that the sweep stops at a static or kinematic
 * one (sweep.c) hits it at the speed the sweep takes out. */
#include "body_rules.h"
#include "contacts_level.h"
#include "dim.h"

/* The velocity of the point p of body b (with part bp), m/s. */
#if MK_DIM == 2
static mk_vec2 point_velocity(const sim_body *b, const sim_body *bp, mk_vec2 p)
{
    (void)bp;
    mk_vec2 r = mk_v2_sub(p, sim_body_center2(b));
    return mk_v2_add(b->vel, mk_v2(-b->w * r.y, b->w * r.x));
}
static mk_vec3 in3(mk_vec2 v) { return mk_v3(v.x, v.y, 0.0f); }
#else
static mk_vec3 point_velocity(const sim_body *b, const sim_body3 *bp, mk_vec3 p)
{
    (void)b;
    return mk_v3_add(bp->vel, mk_v3_cross(bp->w, mk_v3_sub(p, sim_body_center3(bp))));
}
static mk_vec3 in3(mk_vec3 v) { return v; }
#endif

/* A hit of a and b at `point`, the normal from a toward b, noted with the lower id first. */
static void note(sim_world *w, const sim_body *a, const sim_body *b, dvec point, dvec normal,
                 float speed)
{
    if (a->id > b->id) {
        const sim_body *t = a;
        a = b;
        b = t;
        normal = dv_neg(normal);
    }
    sim_hit_note h = {a->id, b->id, in3(point), in3(normal), speed};
    MK_VEC_PUSH(&w->ev.hits, h); /* out of memory: the hit is not reported */
}

void DIM_NAME(sim_hit_check)(sim_world *w, const sim_body *a, const sim_body *b,
                             const dmanifold *m)
{
    const dpart *pa = dim_part_of(w, a), *pb = dim_part_of(w, b);
    float best = w->cfg.hit_speed;
    int at = -1;
    for (int k = 0; k < m->count; k++) {
        dvec p = m->points[k].point;
        float approach = -dv_dot(dv_sub(point_velocity(b, pb, p), point_velocity(a, pa, p)),
                                 m->normal);
        if (approach > best && m->points[k].depth + approach * w->cfg.dt >= 0.0f) {
            best = approach;
            at = k;
        }
    }
    if (at >= 0)
        note(w, a, b, m->points[at].point, m->normal, best);
}

void DIM_NAME(sim_hit_swept)(sim_world *w, const sim_body *b, const sim_body *hit, dvec n,
                             float vn)
{
    if (!(vn > w->cfg.hit_speed))
        return;
    /* The sweep leaves the shapes a hair apart: where they meet is where b moved on along n
     * by a little more overlaps `hit`. */
    const dpart *bp = dim_part_of(w, b), *hp = dim_part_of(w, hit);
    dxf xb = dim_xf_at(bp, dv_mad(bp->pos, 0.01f, n));
    dmanifold m = hit->level ? DIM_NAME(sim_level_deepest)(w, hit, &bp->shape, xb,
                                                           dv_sub(bp->vel, hp->vel),
                                                           COL_BACK_FACES_COLLIDE, 0.0f)
                             : dim_collide(&bp->shape, xb, &hp->shape, dim_xf_at(hp, hp->pos));
    dvec point = bp->pos;
    if (m.count > 0) {
        point = m.points[0].point;
        for (int k = 1; k < m.count; k++)
            point = dv_add(point, m.points[k].point);
        point = dv_scale(point, 1.0f / (float)m.count);
    }
    note(w, b, hit, point, n, vn);
}
