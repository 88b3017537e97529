/* Volume, centroid and inertia tensor of the 3D shapes for unit density (mass = volume, in kg
 * for 1 kg/m^3), the inputs of rigid-body dynamics. The primitives by their textbook formulas
 * (the capsule's hemispheres with the parallel-axis theorem about the centroid of each, at
 * 3 r / 8 from its flat face); hulls exactly by the tetrahedra from an inner point to each
 * face's triangles, each tetrahedron's covariance det/120 (s s^T + sum v v^T) (Tonon,
 * "Explicit exact formulas for the 3-D tetrahedron inertia tensor in terms of its vertex
 * coordinates", 2004; the covariance form of Blow and Binstock, "How to find the inertia
 * tensor of a 3D solid body represented by a triangle mesh", 2004). */
#include <assert.h>

#include "collide3_internal.h"

#define PI 3.14159265358979323846

static mk_mat3 diag(double x, double y, double z) { return mk_m3_diag((float)x, (float)y, (float)z); }

col_mass3 col_hull3_mass_props(const col_hull3 *h)
{
    /* Relative to the mean of the vertices, inside the hull: no cancellation far from the
     * origin. */
    col_d3 ref = d3(0.0, 0.0, 0.0);
    for (int i = 0; i < h->vert_count; i++)
        ref = d3_add(ref, d3_of(h->verts[i]));
    ref = d3_scale(ref, 1.0 / h->vert_count);
    double vol = 0.0, cov[3][3] = {{0}};
    col_d3 first = d3(0.0, 0.0, 0.0);
    for (int f = 0; f < h->face_count; f++) {
        const col_hull3_face *fc = &h->faces[f];
        col_d3 a = d3_sub(d3_of(h->verts[h->indices[fc->first]]), ref);
        for (int k = 1; k + 1 < fc->count; k++) {
            col_d3 b = d3_sub(d3_of(h->verts[h->indices[fc->first + k]]), ref);
            col_d3 c = d3_sub(d3_of(h->verts[h->indices[fc->first + k + 1]]), ref);
            double det = d3_dot(a, d3_cross(b, c));
            col_d3 s = d3_add(a, d3_add(b, c));
            vol += det / 6.0;
            first = d3_mad(first, det / 24.0, s); /* volume * centroid (s / 4) */
            double v[4][3] = {{s.x, s.y, s.z}, {a.x, a.y, a.z}, {b.x, b.y, b.z}, {c.x, c.y, c.z}};
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    cov[i][j] += det / 120.0 * (v[0][i] * v[0][j] + v[1][i] * v[1][j] +
                                                v[2][i] * v[2][j] + v[3][i] * v[3][j]);
        }
    }
    col_mass3 m;
    m.volume = (float)vol;
    col_d3 com = vol > 0.0 ? d3_scale(first, 1.0 / vol) : d3(0.0, 0.0, 0.0);
    m.centroid = d3_to_f(d3_add(ref, com));
    double cc[3] = {com.x, com.y, com.z};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            cov[i][j] -= vol * cc[i] * cc[j];
    double tr = cov[0][0] + cov[1][1] + cov[2][2];
    m.inertia = (mk_mat3){mk_v3((float)(tr - cov[0][0]), (float)-cov[1][0], (float)-cov[2][0]),
                          mk_v3((float)-cov[0][1], (float)(tr - cov[1][1]), (float)-cov[2][1]),
                          mk_v3((float)-cov[0][2], (float)-cov[1][2], (float)(tr - cov[2][2]))};
    return m;
}

col_mass3 col_shape3_mass(const col_shape3 *s)
{
    double r = s->radius, hh = s->half_height, H = 2.0 * hh;
    double a = s->half.x, b = s->half.y, c = s->half.z;
    col_mass3 m = {0};
    double v;
    switch (s->type) {
    case COL_SHAPE3_SPHERE:
        v = 4.0 / 3.0 * PI * r * r * r;
        m.inertia = diag(0.4 * v * r * r, 0.4 * v * r * r, 0.4 * v * r * r);
        break;
    case COL_SHAPE3_BOX:
        v = 8.0 * a * b * c;
        m.inertia = diag(v / 3.0 * (b * b + c * c), v / 3.0 * (a * a + c * c),
                         v / 3.0 * (a * a + b * b));
        break;
    case COL_SHAPE3_ELLIPSOID:
        v = 4.0 / 3.0 * PI * a * b * c;
        m.inertia = diag(v / 5.0 * (b * b + c * c), v / 5.0 * (a * a + c * c),
                         v / 5.0 * (a * a + b * b));
        break;
    case COL_SHAPE3_CAPSULE: {
        double mc = PI * r * r * H, ms = 4.0 / 3.0 * PI * r * r * r;
        v = mc + ms;
        double off = 0.5 * H + 0.375 * r; /* a hemisphere's centroid from the middle */
        double perp = mc * (3.0 * r * r + H * H) / 12.0 + ms * (83.0 / 320.0 * r * r + off * off);
        m.inertia = diag(perp, 0.5 * mc * r * r + 0.4 * ms * r * r, perp);
        break;
    }
    case COL_SHAPE3_CYLINDER:
        v = PI * r * r * H;
        m.inertia = diag(v * (3.0 * r * r + H * H) / 12.0, 0.5 * v * r * r,
                         v * (3.0 * r * r + H * H) / 12.0);
        break;
    case COL_SHAPE3_CONE:
        v = PI * r * r * H / 3.0;
        /* The centroid a quarter of the height above the base. */
        m.centroid = mk_v3(0.0f, (float)(-0.5 * hh), 0.0f);
        m.inertia = diag(v * (0.15 * r * r + 0.0375 * H * H), 0.3 * v * r * r,
                         v * (0.15 * r * r + 0.0375 * H * H));
        break;
    case COL_SHAPE3_HULL:
        return col_hull3_mass_props(s->hull);
    case COL_SHAPE3_COUNT:
    default:
        assert(0 && "unknown shape type");
        return m;
    }
    m.volume = (float)v;
    return m;
}

float col_shape3_volume(const col_shape3 *s)
{
    return s->type == COL_SHAPE3_HULL ? s->hull->volume : col_shape3_mass(s).volume;
}
