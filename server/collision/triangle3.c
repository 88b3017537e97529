/* One triangle of a level against a convex shape, and a ray against it.
 *
 * A triangle is a flat convex polytope: a hull of its three vertices with two faces (front
 * and back), which GJK, EPA and the face clipping of the other 3D pairs take as they are
 * (Jolt's TriangleConvexSupport does the same). The two shapes most bodies are meet it in
 * closed form instead, as Jolt's CollideSphereVsTriangles and box3.c do: a sphere by the
 * triangle's point nearest its centre, a box by the separating-axis test (tri_box3.c).
 * Which side collides follows Jolt's EBackFaceMode; a contact on an edge or vertex that the
 * mesh marked inactive (Jolt's ActiveEdges) gets the triangle's face normal, so that a shape
 * sliding over a flat mesh meets no seam: the normal GJK and EPA find there points into the
 * next triangle (a box's corner catching on the shared edge), which would stop it. The ray
 * test is the watertight one of Woop, Benthin and Wald, "Watertight Ray/Triangle
 * Intersection" (JCGT 2013), in double. */
#include <float.h>
#include <math.h>

#include "level_internal.h"

#define JOLT_COS_1_DEGREE 0.999848   /* Jolt's "parallel to the face" and "back to back" */
#define JOLT_BARY_EPSILON 1.0e-4     /* Jolt's FixNormal: how near a barycentric is to 0 or 1 */
#define ID_FACE_POINT 0x3FFFFFF1u    /* the one point of a shape put on the face normal */
#define ID_BACK_FACE (1u << 29)      /* a contact with the back face: other ids than the front */

col_d3 col_tri_cross(const mk_vec3 v[3])
{
    col_d3 a = d3_of(v[0]);
    return d3_cross(d3_sub(d3_of(v[1]), a), d3_sub(d3_of(v[2]), a));
}

col_d3 col_tri_normal(const mk_vec3 v[3]) { return d3_norm(col_tri_cross(v)); }

bool col_edge_active(mk_vec3 n1, mk_vec3 n2, mk_vec3 edge, float cos_threshold)
{
    col_d3 a = d3_of(n1), b = d3_of(n2);
    double c = d3_dot(a, b);
    if (c < -JOLT_COS_1_DEGREE)
        return true; /* back to back: a thin wall's edge */
    if (d3_dot(d3_cross(a, b), d3_of(edge)) < 0.0)
        return false; /* concave */
    return c < cos_threshold;
}

bool col_tri_edge_active(const mk_vec3 a[3], int ea, const mk_vec3 b[3], float cos_threshold)
{
    if (cos_threshold < -1.0f)
        return true;
    mk_vec3 edge = mk_v3_sub(a[(ea + 1) % 3], a[ea]);
    return col_edge_active(d3_to_f(col_tri_normal(a)), d3_to_f(col_tri_normal(b)), edge,
                           cos_threshold);
}

void col_tri_hull_make(const mk_vec3 v[3], col_d3 normal, col_tri_hull *out)
{
    col_d3 c = d3_scale(d3_add(d3_add(d3_of(v[0]), d3_of(v[1])), d3_of(v[2])), 1.0 / 3.0);
    mk_vec3 cf = d3_to_f(c);
    col_hull3 *h = &out->hull;
    h->vert_count = 3;
    h->face_count = 2;
    double reach = 0.0;
    for (int i = 0; i < 3; i++) {
        col_d3 l = d3_sub(d3_of(v[i]), d3_of(cf));
        h->verts[i] = d3_to_f(l);
        reach = fmax(reach, d3_len(l));
    }
    mk_vec3 n = d3_to_f(normal);
    float off = mk_v3_dot(n, h->verts[0]);
    h->faces[0] = (col_hull3_face){n, off, 0, 3};
    h->faces[1] = (col_hull3_face){mk_v3_neg(n), -off, 3, 3};
    static const uint8_t idx[6] = {0, 1, 2, 0, 2, 1};
    for (int i = 0; i < 6; i++)
        h->indices[i] = idx[i];
    h->centroid = mk_v3(0.0f, 0.0f, 0.0f);
    h->volume = 0.0f;
    h->reach = (float)reach;
    out->shape = (col_shape3){.type = COL_SHAPE3_HULL, .hull = h};
    out->xf = (col_xf3){cf, mk_quat_identity()};
}

/* ---- the active-edge rule ---- */

/* Jolt's ActiveEdges::FixNormal, in this library's direction (normals from the triangle
 * toward B): whether the contact normal `own` at the point p of the triangle stays, rather
 * than the face normal n. It stays when it hinders B's motion less than n would (so a shape
 * grazing a wall through an inactive edge is not thrown back), when it is the face normal
 * within 1 degree, and when p is on an active edge or at a vertex with an active edge. */
static bool keeps_normal(const mk_vec3 v[3], col_d3 n, uint8_t active, col_d3 own, col_d3 p,
                         col_d3 motion)
{
    if (d3_dot(motion, own) > d3_dot(motion, n))
        return true;
    if (active == 0)
        return false;
    if (d3_dot(n, own) > JOLT_COS_1_DEGREE)
        return true;
    col_d3 a = d3_of(v[0]), b = d3_of(v[1]), c = d3_of(v[2]);
    double area = d3_dot(n, d3_cross(d3_sub(b, a), d3_sub(c, a)));
    double u = d3_dot(n, d3_cross(d3_sub(b, p), d3_sub(c, p))) / area;
    double w = d3_dot(n, d3_cross(d3_sub(a, p), d3_sub(b, p))) / area;
    double vv = 1.0 - u - w;
    unsigned edges;
    if (u > 1.0 - JOLT_BARY_EPSILON)
        edges = 0x5; /* at v0: edge 0 or 2 */
    else if (vv > 1.0 - JOLT_BARY_EPSILON)
        edges = 0x3; /* at v1: edge 0 or 1 */
    else if (w > 1.0 - JOLT_BARY_EPSILON)
        edges = 0x6; /* at v2: edge 1 or 2 */
    else if (u < JOLT_BARY_EPSILON)
        edges = 0x2; /* on v1-v2 */
    else if (vv < JOLT_BARY_EPSILON)
        edges = 0x4; /* on v2-v0 */
    else if (w < JOLT_BARY_EPSILON)
        edges = 0x1; /* on v0-v1 */
    else
        return false; /* inside the face */
    return (active & edges) != 0;
}

col_d3 col_tri_fix_normal(const mk_vec3 v[3], col_d3 n, uint8_t active, col_d3 own, col_d3 p,
                          col_d3 motion)
{
    if ((active & 0x7u) == 0x7u)
        return own;
    return keeps_normal(v, n, active, own, p, motion) ? own : n;
}

/* ---- a sphere, in closed form ---- */

/* col_tri_closest, and whether the point is inside the face (not on an edge or a vertex). */
static col_d3 closest_in(const mk_vec3 v[3], col_d3 p, bool *inside)
{
    /* The Voronoi regions of the vertices, then of the edges, then the face, each told by the
     * signs of dot products with the edges (Ericson, "Real-Time Collision Detection", 2005,
     * 5.1.5). */
    *inside = false;
    col_d3 a = d3_of(v[0]), b = d3_of(v[1]), c = d3_of(v[2]);
    col_d3 ab = d3_sub(b, a), ac = d3_sub(c, a), ap = d3_sub(p, a);
    double ab_ap = d3_dot(ab, ap), ac_ap = d3_dot(ac, ap);
    if (ab_ap <= 0.0 && ac_ap <= 0.0)
        return a;
    col_d3 bp = d3_sub(p, b);
    double ab_bp = d3_dot(ab, bp), ac_bp = d3_dot(ac, bp);
    if (ab_bp >= 0.0 && ac_bp <= ab_bp)
        return b;
    double on_ab = ab_ap * ac_bp - ab_bp * ac_ap; /* the barycentric of c, times the area */
    if (on_ab <= 0.0 && ab_ap >= 0.0 && ab_bp <= 0.0)
        return d3_mad(a, ab_ap / (ab_ap - ab_bp), ab);
    col_d3 cp = d3_sub(p, c);
    double ab_cp = d3_dot(ab, cp), ac_cp = d3_dot(ac, cp);
    if (ac_cp >= 0.0 && ab_cp <= ac_cp)
        return c;
    double on_ac = ab_cp * ac_ap - ab_ap * ac_cp; /* b's */
    if (on_ac <= 0.0 && ac_ap >= 0.0 && ac_cp <= 0.0)
        return d3_mad(a, ac_ap / (ac_ap - ac_cp), ac);
    double on_bc = ab_bp * ac_cp - ab_cp * ac_bp; /* a's */
    if (on_bc <= 0.0 && ac_bp - ab_bp >= 0.0 && ab_cp - ac_cp >= 0.0) {
        double u = (ac_bp - ab_bp) / ((ac_bp - ab_bp) + (ab_cp - ac_cp));
        return d3_mad(b, u, d3_sub(c, b));
    }
    double sum = on_bc + on_ac + on_ab;
    *inside = true;
    return d3_add(a, d3_add(d3_scale(ab, on_ac / sum), d3_scale(ac, on_ab / sum)));
}

col_d3 col_tri_closest(const mk_vec3 v[3], col_d3 p)
{
    bool inside;
    return closest_in(v, p, &inside);
}

/* A sphere of radius r about c against the triangle, as col_collide_convex3_within gives it
 * (the normal from the triangle toward the centre, one point midway between the surfaces,
 * the gap when apart) but from the triangle's nearest point q to the centre: the distance
 * GJK reaches in two or three steps on the sphere's core is this one, here without the
 * support calls, the simplex or the triangle's hull. The face normal is the direction when
 * the centre lies on the triangle. *inside: q is inside the face, not on an edge. Apart by
 * less than `speculative` (m), the point is made all the same, of negative depth: where the
 * sphere moved that far toward q would touch it, the point midway between q and the sphere's
 * surface, its depth less by that far (contacts_level.c made it so). */
static void sphere_triangle(const mk_vec3 v[3], col_d3 c, double r, col_d3 *q, bool *inside,
                            float speculative, col_manifold3 *m)
{
    *q = closest_in(v, c, inside);
    col_d3 off = d3_sub(c, *q);
    double dist = d3_len(off);
    col_d3 own = dist > 0.0 ? d3_scale(off, 1.0 / dist) : col_tri_normal(v);
    m->normal = d3_to_f(own);
    m->distance = 0.0f;
    if (dist > r) {
        m->distance = (float)(dist - r);
        if (!(m->distance < speculative))
            return;
    }
    double depth = r - dist; /* < 0: a speculative contact, its distance kept */
    col_d3 surface = d3_mad(c, -r, own);
    m->count = 1;
    m->depth = (float)depth;
    m->points[0] = (col_contact_point3){d3_to_f(d3_scale(d3_add(*q, surface), 0.5)),
                                        (float)depth, 0u};
}

/* The manifold of B against the triangle along its face normal n (from the front): the depth
 * of B's deepest point below the plane (`deepest`, B's support along -n), B's face clipped
 * against the triangle for a polytope (th, the triangle's hull), else that deepest point.
 * With a reach (m), B up to that far in front of the plane gets its speculative points, of
 * negative depth (col_poly3_clip_within), the gap in the manifold's distance. */
static col_manifold3 along_face(const col_tri_hull *th, const mk_vec3 v[3], col_d3 n,
                                const col_shape3 *b, col_xf3 xb, col_d3 deepest, double reach)
{
    double depth = fmax(d3_dot(n, d3_sub(d3_of(v[0]), deepest)), reach > 0.0 ? -reach : 0.0);
    col_manifold3 m = {0};
    if (th && (b->type == COL_SHAPE3_BOX || b->type == COL_SHAPE3_HULL)) {
        col_placed3 pa, pb;
        col_place_pair(&th->shape, th->xf, b, xb, &pa, &pb);
        if (col_poly3_clip_within(&pa, &pb, n, depth, reach, &m)) {
            col_manifold3_to_world(&m, th->xf);
            return m;
        }
    }
    m.count = 1;
    m.normal = d3_to_f(n);
    m.depth = (float)depth;
    m.distance = depth < 0.0 ? (float)-depth : 0.0f;
    m.points[0] = (col_contact_point3){d3_to_f(d3_mad(deepest, 0.5 * depth, n)), (float)depth,
                                       ID_FACE_POINT};
    return m;
}

/* The point of the triangle a manifold stands on: its deepest point's surface point on A. */
static col_d3 point_on_triangle(const col_manifold3 *m)
{
    int k = 0;
    for (int i = 1; i < m->count; i++)
        if (m->points[i].depth > m->points[k].depth)
            k = i;
    return d3_mad(d3_of(m->points[k].point), 0.5 * m->points[k].depth, d3_of(m->normal));
}

/* The manifold's point ids, others for the back face than for the front. */
static void back_face_ids(col_manifold3 *m, bool back)
{
    if (back)
        for (int i = 0; i < m->count; i++)
            m->points[i].id ^= ID_BACK_FACE;
}

col_manifold3 col_collide_triangle3(const col_triangle3 *t, const col_shape3 *b, col_xf3 xb,
                                    const col_tri_contact3 *how)
{
    col_manifold3 m = {0};
    col_collide_triangle3_into(t, b, &xb, how, &m);
    return m;
}

void col_collide_triangle3_into(const col_triangle3 *t, const col_shape3 *b, const col_xf3 *at,
                                const col_tri_contact3 *how, col_manifold3 *m)
{
    col_xf3 xb = *at;
    /* The manifold is written in place, where the caller keeps it: one built here and copied
     * out would be read back before its stores had landed. Points past its count are not
     * written. */
    m->count = 0;
    m->normal = mk_v3(0.0f, 0.0f, 0.0f);
    m->depth = 0.0f;
    m->distance = FLT_MAX;
    mk_vec3 v[3] = {t->v[0], t->v[1], t->v[2]};
    uint8_t active = t->active & 0x7u;
    /* The face's direction without its length (a square root and a division, which a sphere
     * over the face never needs): enough for the degenerate and back face tests. */
    col_d3 cross = col_tri_cross(v);
    if (d3_dot(cross, cross) == 0.0)
        return; /* degenerate: no face to touch */
    /* Jolt's back face test: B's origin behind the triangle's plane. */
    bool back = d3_dot(cross, d3_sub(d3_of(xb.p), d3_of(v[0]))) < 0.0;
    if (back) {
        if (how->back == COL_BACK_FACES_IGNORE)
            return;
        /* The back face as a front face: the winding reversed, edges 0 and 2 trade places
         * (and the normal is exactly the negative: a cross product's terms swap). */
        mk_vec3 s = v[1];
        v[1] = v[2];
        v[2] = s;
        active = (uint8_t)((active & 0x2u) | (active & 0x1u) << 2 | (active & 0x4u) >> 2);
    }
    col_tri_hull th;
    col_d3 p; /* the triangle's point B touches, or its nearest to B */
    bool sphere = b->type == COL_SHAPE3_SPHERE, have_p = sphere, inside = false;
    if (sphere)
        sphere_triangle(v, d3_of(xb.p), b->radius, &p, &inside,
                        how->speculative ? how->margin : -INFINITY, m);
    /* A sphere whose nearest point is inside the face meets it along the face normal, whatever
     * the active edges: the rule below has nothing to change. */
    if (sphere && inside) {
        back_face_ids(m, back);
        return;
    }
    /* Nor has it anything to change where every edge is active, or for a sphere apart by more
     * than the margin (below): the face normal is then not needed. */
    if (sphere && (active == 0x7u || (m->count == 0 && !(m->distance <= how->margin)))) {
        back_face_ids(m, back);
        return;
    }
    col_d3 n = col_tri_normal(v);
    if (!sphere) {
        col_tri_hull_make(v, n, &th);
        col_tri_box_result r = COL_TRI_BOX_UNDECIDED;
        if (b->type == COL_SHAPE3_BOX)
            r = col_collide_tri_box3(&th, n, b, xb, how, m, &p);
        if (r == COL_TRI_BOX_UNDECIDED)
            *m = col_collide_convex3_within(&th.shape, th.xf, b, xb, how->margin);
        have_p = r == COL_TRI_BOX_APART;
    }
    /* The rule picks between the manifold's normal and the face normal: nothing to pick when
     * they are the same (a box flat on the face, whose axis of least overlap is the face's). */
    mk_vec3 nf = d3_to_f(n);
    bool on_face = m->normal.x == nf.x && m->normal.y == nf.y && m->normal.z == nf.z;
    if (active != 0x7u && !on_face && (m->count > 0 || m->distance <= how->margin)) {
        col_d3 own = d3_of(m->normal), motion = d3_of(how->motion);
        if (!have_p && m->count > 0) {
            p = point_on_triangle(m);
        } else if (!have_p) {
            /* Apart: the triangle's point nearest B. */
            col_distance3 g = col_gjk3_distance(&th.shape, th.xf, b, xb);
            p = d3_of(g.point_a);
        }
        if (!keeps_normal(v, n, active, own, p, motion)) {
            col_d3 deepest = d3_of(col_support3(b, xb, d3_to_f(d3_neg(n))));
            if (m->count > 0 && !(m->distance > 0.0f)) {
                *m = along_face(sphere ? NULL : &th, v, n, b, xb, deepest, 0.0);
            } else {
                /* Apart (a speculative manifold dropped: along the face normal it is some
                 * other gap). The gap below B along the face normal, when B is wholly in
                 * front: never more than the true gap, so a speculative contact starts no
                 * later; within the margin, its speculative points along the face normal,
                 * as the shape moved that far toward the face would touch it. */
                m->count = 0;
                m->points[0] = (col_contact_point3){0};
                double gap = d3_dot(n, d3_sub(deepest, d3_of(v[0])));
                if (gap >= 0.0 && how->speculative && gap < (double)how->margin) {
                    *m = along_face(sphere ? NULL : &th, v, n, b, xb, deepest, how->margin);
                } else if (gap >= 0.0) {
                    m->normal = d3_to_f(n);
                    m->distance = (float)gap;
                }
            }
        }
    }
    back_face_ids(m, back);
}

/* ---- rays ---- */

void col_ray_pre_init(col_ray_pre *r, const double o[3], const double d[3])
{
    for (int k = 0; k < 3; k++) {
        r->o[k] = o[k];
        r->d[k] = d[k];
    }
    int kz = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(d[k]) > fabs(d[kz]))
            kz = k;
    int kx = (kz + 1) % 3, ky = (kx + 1) % 3;
    if (d[kz] < 0.0) {
        int s = kx;
        kx = ky;
        ky = s;
    }
    r->kx = kx;
    r->ky = ky;
    r->kz = kz;
    r->sx = d[kx] / d[kz];
    r->sy = d[ky] / d[kz];
    r->sz = 1.0 / d[kz];
}

bool col_ray_pre_hit(const col_ray_pre *r, const mk_vec3 v[3], col_back_face back, double tmax,
                     double *t, bool *from_back)
{
    double sx[3], sy[3], sz[3];
    for (int i = 0; i < 3; i++) {
        double p[3] = {(double)v[i].x - r->o[0], (double)v[i].y - r->o[1],
                       (double)v[i].z - r->o[2]};
        sx[i] = p[r->kx] - r->sx * p[r->kz];
        sy[i] = p[r->ky] - r->sy * p[r->kz];
        sz[i] = r->sz * p[r->kz];
    }
    /* Each edge's function depends on its two vertices alone, and a product commutes, so the
     * triangle on the other side of a shared edge gets exactly its negative: no ray slips
     * between them. */
    double u = sx[2] * sy[1] - sy[2] * sx[1];
    double w1 = sx[0] * sy[2] - sy[0] * sx[2];
    double w2 = sx[1] * sy[0] - sy[1] * sx[0];
    if ((u < 0.0 || w1 < 0.0 || w2 < 0.0) && (u > 0.0 || w1 > 0.0 || w2 > 0.0))
        return false;
    double det = u + w1 + w2;
    if (det == 0.0)
        return false; /* edge on, or degenerate */
    bool behind = det < 0.0; /* the ray meets the back face */
    if (behind && back == COL_BACK_FACES_IGNORE)
        return false;
    double tt = (u * sz[0] + w1 * sz[1] + w2 * sz[2]) / det;
    if (!(tt >= 0.0 && tt <= tmax))
        return false;
    *t = tt;
    *from_back = behind;
    return true;
}

col_ray_hit3 col_ray_pre_result(const col_ray_pre *r, const mk_vec3 v[3], double t,
                                bool from_back)
{
    col_d3 n = col_tri_normal(v);
    col_d3 p = d3(r->o[0] + t * r->d[0], r->o[1] + t * r->d[1], r->o[2] + t * r->d[2]);
    return (col_ray_hit3){true, (float)t, d3_to_f(p), d3_to_f(from_back ? d3_neg(n) : n)};
}

col_ray_hit3 col_ray_triangle3(const col_triangle3 *t, mk_vec3 from, mk_vec3 to,
                               col_back_face back)
{
    double o[3] = {from.x, from.y, from.z};
    double d[3] = {(double)to.x - from.x, (double)to.y - from.y, (double)to.z - from.z};
    col_ray_pre r;
    col_ray_pre_init(&r, o, d);
    double tt;
    bool from_back;
    if (!col_ray_pre_hit(&r, t->v, back, 1.0, &tt, &from_back))
        return (col_ray_hit3){.hit = false};
    return col_ray_pre_result(&r, t->v, tt, from_back);
}

/* ---- manifold reduction ---- */

/* A point's id mixed with its piece's (MurmurHash3's finaliser), so that the points of two
 * triangles merged into one manifold stay apart. */
static uint32_t mix_id(uint32_t id, uint32_t child)
{
    uint32_t h = id ^ (child * 0x9E3779B1u);
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h & 0x7FFFFFFFu;
}

uint32_t col_merge_manifolds3(col_child_manifold3 *items, uint32_t n, float cos_tolerance)
{
    uint32_t out = 0;
    for (uint32_t i = 0; i < n; i++) {
        /* Read in place (items before i are the merged ones, i not yet overwritten). */
        col_child_manifold3 *it = &items[i];
        for (int k = 0; k < it->m.count; k++)
            it->m.points[k].id = mix_id(it->m.points[k].id, it->child);
        uint32_t into = out;
        for (uint32_t j = 0; j < out && it->m.count > 0; j++)
            if (items[j].m.count > 0 &&
                mk_v3_dot(items[j].m.normal, it->m.normal) >= cos_tolerance) {
                into = j;
                break;
            }
        if (into == out) {
            if (out != i)
                items[out] = *it;
            out++;
            continue;
        }
        col_manifold3 *m = &items[into].m;
        col_contact_point3 all[2 * COL_MAX_POINTS3];
        col_d3 pts[2 * COL_MAX_POINTS3];
        double dep[2 * COL_MAX_POINTS3];
        int count = 0;
        for (int k = 0; k < m->count; k++)
            all[count++] = m->points[k];
        for (int k = 0; k < it->m.count; k++)
            all[count++] = it->m.points[k];
        for (int k = 0; k < count; k++) {
            pts[k] = d3_of(all[k].point);
            dep[k] = all[k].depth;
        }
        int keep[4];
        m->count = col_reduce4(pts, dep, count, d3_of(m->normal), keep);
        for (int k = 0; k < m->count; k++)
            m->points[k] = all[keep[k]];
        m->depth = mk_maxf(m->depth, it->m.depth);
    }
    return out;
}
