/* Mass properties of bodies: mass, centre of mass and rotational inertia about it. 2D polygons
 * are exact by decomposition into triangles from the first vertex (Box2D's
 * b2ComputePolygonMass); boxes and circles are the textbook formulas; 3D shapes take theirs from
 * the collision library (col_shape3_mass). */
#include <math.h>

#include "mass.h"
#include "world_internal.h"

/* m^4: the second moment of area of a polygon about its centroid, and the centroid. */
static float polygon_inertia(const col_polygon *p, mk_vec2 *centroid)
{
    mk_vec2 origin = p->verts[0];
    mk_vec2 center = mk_v2(0.0f, 0.0f);
    float area = 0.0f, inertia = 0.0f; /* about `origin` */
    for (int i = 1; i + 1 < p->count; i++) {
        mk_vec2 e1 = mk_v2_sub(p->verts[i], origin), e2 = mk_v2_sub(p->verts[i + 1], origin);
        float d = mk_v2_cross(e1, e2);
        float tri = 0.5f * d;
        area += tri;
        center = mk_v2_mad(center, tri / 3.0f, mk_v2_add(e1, e2));
        float ix = e1.x * e1.x + e2.x * e1.x + e2.x * e2.x;
        float iy = e1.y * e1.y + e2.y * e1.y + e2.y * e2.y;
        inertia += (0.25f / 3.0f) * d * (ix + iy);
    }
    center = mk_v2_scale(center, 1.0f / area);
    *centroid = mk_v2_add(origin, center);
    /* Parallel axis theorem: from the first vertex to the centroid. */
    return inertia - area * mk_v2_dot(center, center);
}

sim_mass sim_mass2_of(const col_shape2 *s, float density, sim_kind kind)
{
    sim_mass m = {0.0f, 0.0f, mk_v2(0.0f, 0.0f)};
    if (kind == SIM_STATIC || kind == SIM_KINEMATIC)
        return m; /* infinite mass: contacts never move them */
    float area = col_shape_area(s), mass = density * area, inertia = 0.0f;
    switch (s->type) {
    case COL_SHAPE_AABB:
        break; /* never rotates: infinite inertia */
    case COL_SHAPE_BOX:
        inertia = mass * (s->half.x * s->half.x + s->half.y * s->half.y) / 3.0f;
        break;
    case COL_SHAPE_CIRCLE:
        inertia = 0.5f * mass * s->radius * s->radius;
        break;
    case COL_SHAPE_POLYGON:
        inertia = density * polygon_inertia(s->polygon, &m.center);
        break;
    case COL_SHAPE_COUNT:
        break;
    }
    m.inv_mass = mass > 0.0f ? 1.0f / mass : 0.0f;
    /* Characters stay upright: they steer themselves and never tip over. */
    m.inv_inertia = kind != SIM_CHARACTER && inertia > 0.0f ? 1.0f / inertia : 0.0f;
    return m;
}

float sim_mass3_of(sim_body3 *b3, float density, sim_kind kind)
{
    col_mass3 m = col_shape3_mass(&b3->shape);
    b3->local_center = m.centroid;
    b3->inv_inertia = mk_m3_diag(0.0f, 0.0f, 0.0f);
    if (kind == SIM_STATIC || kind == SIM_KINEMATIC)
        return 0.0f;
    float mass = density * m.volume;
    if (!(mass > 0.0f) || !isfinite(mass))
        return 0.0f;
    /* Characters stay upright: they never rotate. */
    if (kind == SIM_DYNAMIC) {
        mk_mat3 inertia = m.inertia;
        inertia.c0 = mk_v3_scale(inertia.c0, density);
        inertia.c1 = mk_v3_scale(inertia.c1, density);
        inertia.c2 = mk_v3_scale(inertia.c2, density);
        b3->inv_inertia = mk_m3_inverse(inertia);
    }
    return 1.0f / mass;
}
