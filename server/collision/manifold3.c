/* Contact manifolds in 3D: the one-shot manifold of two polytopes by face clipping (the
 * reference face is the face of either shape best aligned with the contact normal, the
 * incident face the other shape's face most against it; the incident polygon is clipped by
 * Sutherland-Hodgman against the reference face's side planes and the points below the
 * reference face kept, as Box2D's b2ClipPolygons, Bullet's btPolyhedralContactClipping and
 * ODE's dBoxBox do), its reduction to four points, and the persistent manifold of the seed's
 * arbiter ("Collision Detection Using Minkowski Difference", Kenwright) as Bullet's
 * btPersistentManifold keeps it. */
#include <assert.h>
#include <float.h>

#include "collide3_internal.h"

/* A box as a polytope: vertex i has the signs of bits 0, 1, 2 on x, y, z; faces +x, -x, +y,
 * -y, +z, -z, each counter-clockwise seen from outside. */
static const uint8_t box_indices[24] = {1, 3, 7, 5, 0, 4, 6, 2, 2, 6, 7, 3,
                                        0, 1, 5, 4, 4, 5, 7, 6, 0, 2, 3, 1};
static const col_hull3_face box_faces[6] = {
    {{1, 0, 0}, 0, 0, 4},  {{-1, 0, 0}, 0, 4, 4}, {{0, 1, 0}, 0, 8, 4},
    {{0, -1, 0}, 0, 12, 4}, {{0, 0, 1}, 0, 16, 4}, {{0, 0, -1}, 0, 20, 4},
};

void col_poly3_view(const col_placed3 *ps, col_poly3 *out)
{
    const col_shape3 *s = ps->s;
    out->r = ps->r;
    if (s->type == COL_SHAPE3_BOX) {
        out->vert_count = 8;
        out->face_count = 6;
        out->faces = box_faces;
        out->indices = box_indices;
        for (int i = 0; i < 8; i++) {
            col_d3 l = d3(i & 1 ? s->half.x : -s->half.x, i & 2 ? s->half.y : -s->half.y,
                          i & 4 ? s->half.z : -s->half.z);
            out->v[i] = d3_add(ps->p, drot_apply(&ps->r, l));
        }
        return;
    }
    assert(s->type == COL_SHAPE3_HULL);
    const col_hull3 *h = s->hull;
    out->vert_count = h->vert_count;
    out->face_count = h->face_count;
    out->faces = h->faces;
    out->indices = h->indices;
    for (int i = 0; i < h->vert_count; i++)
        out->v[i] = d3_add(ps->p, drot_apply(&ps->r, d3_of(h->verts[i])));
}

static int best_face(const col_poly3 *p, col_d3 dir, double *dot)
{
    int best = 0;
    double bd = -DBL_MAX;
    for (int f = 0; f < p->face_count; f++) {
        double d = d3_dot(col_poly3_normal(p, f), dir);
        if (d > bd) {
            bd = d;
            best = f;
        }
    }
    *dot = bd;
    return best;
}

#define CLIP_MAX (2 * COL_MAX_HULL3_VERTS)

/* A polygon being clipped. Each point is named for warm starting by the features that make
 * it (Box2D's b2ClipVertex ids, done for polygons of any size): an incident vertex by its
 * index; a point cut out by a side plane by the two edges it joins, where an edge is an
 * incident edge (its index) or a side plane (256 + its index). */
typedef struct clip_poly {
    int n;
    col_d3 p[CLIP_MAX];
    uint32_t code[CLIP_MAX];
    uint16_t out_edge[CLIP_MAX]; /* the edge leaving point i toward point i + 1 */
} clip_poly;

static uint32_t cut_code(unsigned first, unsigned second)
{
    return 1u << 19 | (first & 0x1FFu) << 9 | (second & 0x1FFu);
}

/* Sutherland-Hodgman against one plane: keeps n . (x - o) <= 0. */
static void clip_plane(const clip_poly *in, col_d3 n, col_d3 o, int plane, clip_poly *out)
{
    unsigned side = 256u + (unsigned)plane;
    out->n = 0;
    for (int i = 0; i < in->n && out->n + 2 <= CLIP_MAX; i++) {
        int j = (i + 1) % in->n;
        double si = d3_dot(n, d3_sub(in->p[i], o)), sj = d3_dot(n, d3_sub(in->p[j], o));
        if (si <= 0.0) {
            out->p[out->n] = in->p[i];
            out->code[out->n] = in->code[i];
            out->out_edge[out->n++] = in->out_edge[i];
        }
        if ((si < 0.0) != (sj < 0.0) && si != sj) {
            double t = si / (si - sj);
            out->p[out->n] = d3_add(in->p[i], d3_scale(d3_sub(in->p[j], in->p[i]), t));
            bool leaving = si < 0.0; /* inside to outside: the polygon goes on along the plane */
            out->code[out->n] = leaving ? cut_code(in->out_edge[i], side)
                                        : cut_code(side, in->out_edge[i]);
            out->out_edge[out->n++] = leaving ? (uint16_t)side : in->out_edge[i];
        }
    }
}

/* A point's id from its reference face, incident face and features (a 30-bit mix of the
 * three, MurmurHash3's finaliser), and which shape gave the reference face. */
static uint32_t point_id(int ref_face, int inc_face, uint32_t code, bool flip)
{
    uint32_t h = code * 0x9E3779B1u ^ ((uint32_t)ref_face << 16 | (uint32_t)inc_face);
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return (h & 0x3FFFFFFFu) | (uint32_t)flip << 30;
}

int col_reduce4(const col_d3 *p, const double *depth, int n, col_d3 normal, int keep[4])
{
    if (n <= 4) {
        for (int i = 0; i < n; i++)
            keep[i] = i;
        return n;
    }
    int i0 = 0;
    for (int i = 1; i < n; i++)
        if (depth[i] > depth[i0])
            i0 = i;
    int i1 = i0 == 0 ? 1 : 0;
    double best = -1.0;
    for (int i = 0; i < n; i++) {
        col_d3 e = d3_sub(p[i], p[i0]);
        if (i != i0 && d3_dot(e, e) > best) {
            best = d3_dot(e, e);
            i1 = i;
        }
    }
    col_d3 e01 = d3_sub(p[i1], p[i0]);
    int i2 = -1;
    best = -1.0;
    for (int i = 0; i < n; i++) {
        double area = fabs(d3_dot(d3_cross(e01, d3_sub(p[i], p[i0])), normal));
        if (i != i0 && i != i1 && area > best) {
            best = area;
            i2 = i;
        }
    }
    /* The fourth: the point furthest outside the triangle's edges adds the most area. */
    double sgn = d3_dot(d3_cross(e01, d3_sub(p[i2], p[i0])), normal) < 0.0 ? -1.0 : 1.0;
    int tri[3] = {i0, i1, i2}, i3 = -1;
    best = DBL_MAX;
    for (int i = 0; i < n; i++) {
        if (i == i0 || i == i1 || i == i2)
            continue;
        double least = DBL_MAX;
        for (int k = 0; k < 3; k++) {
            col_d3 a = p[tri[k]], b = p[tri[(k + 1) % 3]];
            least = fmin(least, sgn * d3_dot(d3_cross(d3_sub(b, a), d3_sub(p[i], a)), normal));
        }
        if (least < best) {
            best = least;
            i3 = i;
        }
    }
    keep[0] = i0;
    keep[1] = i1;
    keep[2] = i2;
    keep[3] = i3;
    return 4;
}

bool col_poly3_clip(const col_placed3 *a, const col_placed3 *b, col_d3 normal, double depth,
                    col_manifold3 *m)
{
    return col_poly3_clip_within(a, b, normal, depth, 0.0, m);
}

bool col_poly3_clip_within(const col_placed3 *a, const col_placed3 *b, col_d3 normal,
                           double depth, double reach, col_manifold3 *m)
{
    /* On the stack (some 40 KB with the clip buffers): no allocation, and re-entrant. */
    col_poly3 pa, pb;
    col_poly3_view(a, &pa);
    col_poly3_view(b, &pb);
    double da, db;
    int fa = best_face(&pa, normal, &da), fb = best_face(&pb, d3_neg(normal), &db);
    /* A face within ~0.8 degrees of the normal: a face contact; else edges or vertices meet. */
    if (fmax(da, db) < 0.9999)
        return false;
    bool flip = db > da + 1e-6;
    const col_poly3 *ref = flip ? &pb : &pa, *inc = flip ? &pa : &pb;
    int rf = flip ? fb : fa;
    col_d3 rn = col_poly3_normal(ref, rf);
    double dummy;
    int inf = best_face(inc, d3_neg(rn), &dummy);

    clip_poly buf[2];
    const col_hull3_face *ifc = &inc->faces[inf], *rfc = &ref->faces[rf];
    buf[0].n = ifc->count;
    for (int k = 0; k < ifc->count; k++) {
        buf[0].p[k] = inc->v[inc->indices[ifc->first + k]];
        buf[0].code[k] = (uint32_t)k;
        buf[0].out_edge[k] = (uint16_t)k;
    }
    int cur = 0;
    for (int k = 0; k < rfc->count && buf[cur].n > 0; k++) {
        col_d3 r0 = ref->v[ref->indices[rfc->first + k]];
        col_d3 r1 = ref->v[ref->indices[rfc->first + (k + 1) % rfc->count]];
        col_d3 side = d3_cross(d3_sub(r1, r0), rn);
        clip_plane(&buf[cur], side, r0, k, &buf[1 - cur]);
        cur = 1 - cur;
    }
    const clip_poly *c = &buf[cur];
    double off = d3_dot(rn, ref->v[ref->indices[rfc->first]]);
    double slack = 1e-9 * (col_shape3_reach(a->s) + col_shape3_reach(b->s));
    double least = reach > 0.0 ? -reach : 0.0;
    col_d3 pts[CLIP_MAX];
    double dep[CLIP_MAX];
    uint32_t codes[CLIP_MAX];
    int n = 0;
    for (int i = 0; i < c->n; i++) {
        double d = off - d3_dot(rn, c->p[i]);
        if (d < least - slack)
            continue;
        d = fmin(fmax(d, least), depth);
        /* Midway between the incident point and its image on the reference face. */
        pts[n] = d3_mad(c->p[i], 0.5 * d, rn);
        dep[n] = d;
        codes[n++] = c->code[i];
    }
    if (n == 0)
        return false;
    int keep[4];
    int k = col_reduce4(pts, dep, n, rn, keep);
    m->count = k;
    m->normal = d3_to_f(normal);
    m->depth = (float)depth;
    m->distance = depth < 0.0 ? (float)-depth : 0.0f;
    for (int i = 0; i < k; i++) {
        int j = keep[i];
        m->points[i].point = d3_to_f(pts[j]);
        m->points[i].depth = (float)dep[j];
        m->points[i].id = point_id(rf, inf, codes[j], flip);
    }
    return true;
}

void col_manifold3_to_world(col_manifold3 *m, col_xf3 xa)
{
    m->normal = mk_quat_rotate(xa.q, m->normal);
    for (int i = 0; i < m->count; i++)
        m->points[i].point = col_xf3_apply(xa, m->points[i].point);
}

col_manifold3 col_manifold3_swap(col_manifold3 m)
{
    m.normal = mk_v3_neg(m.normal);
    for (int i = 0; i < m.count; i++)
        m.points[i].id ^= COL_ID3_SWAPPED;
    return m;
}

/* ---- the persistent manifold ---- */

col_contact_cache3 col_contact_cache3_update(const col_contact_cache3 *cached, col_xf3 xa,
                                            col_xf3 xb, const col_manifold3 *fresh,
                                            float threshold)
{
    col_contact_cache3 out = {0};
    if (fresh->count == 0)
        return out;
    mk_vec3 n = fresh->normal;
    col_cached_point3 all[2 * COL_MAX_POINTS3];
    int count = 0;
    /* Carry the cached points with their bodies; keep those still together. */
    for (int i = 0; i < cached->count; i++) {
        col_cached_point3 c = cached->points[i];
        mk_vec3 wa = col_xf3_apply(xa, c.local_a), wb = col_xf3_apply(xb, c.local_b);
        mk_vec3 gap = mk_v3_sub(wa, wb);
        float depth = mk_v3_dot(gap, n);
        mk_vec3 side = mk_v3_mad(gap, -depth, n);
        if (depth < -threshold || mk_v3_len(side) > threshold)
            continue;
        c.c.depth = mk_maxf(depth, 0.0f);
        c.c.point = mk_v3_scale(mk_v3_add(wa, wb), 0.5f);
        all[count++] = c;
    }
    /* Each fresh point takes the place of a cached one near it, or comes in addition. */
    for (int i = 0; i < fresh->count; i++) {
        col_contact_point3 p = fresh->points[i];
        mk_vec3 wa = mk_v3_mad(p.point, 0.5f * p.depth, n);
        mk_vec3 wb = mk_v3_mad(p.point, -0.5f * p.depth, n);
        col_cached_point3 c = {col_xf3_apply_inv(xa, wa), col_xf3_apply_inv(xb, wb), p};
        int near = -1;
        float nearest = threshold;
        for (int j = 0; j < count; j++) {
            float d = mk_v3_len(mk_v3_sub(all[j].c.point, p.point));
            if (d <= nearest) {
                nearest = d;
                near = j;
            }
        }
        if (near >= 0)
            all[near] = c;
        else
            all[count++] = c;
    }
    col_d3 pts[2 * COL_MAX_POINTS3];
    double dep[2 * COL_MAX_POINTS3];
    for (int i = 0; i < count; i++) {
        pts[i] = d3_of(all[i].c.point);
        dep[i] = all[i].c.depth;
    }
    int keep[4];
    out.count = col_reduce4(pts, dep, count, d3_of(n), keep);
    out.normal = n;
    for (int i = 0; i < out.count; i++)
        out.points[i] = all[keep[i]];
    return out;
}
