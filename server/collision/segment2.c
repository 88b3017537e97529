/* 2D segments against the shapes: a two-sided segment as a convex polygon of two vertices (the
 * separating-axis test of sat2.c and circle2.c take it as it is; Box2D's
 * b2CollideSegmentAndPolygon does the same with b2MakeCapsule of radius 0), and a chain's
 * one-sided segment with its ghost vertices as Box2D v3 collides it
 * (b2CollideChainSegmentAndPolygon, b2CollideChainSegmentAndCircle, manifold.c): the normal
 * found by distance or by the separating axes is classified on the Gauss map of the two
 * corners (Catto, "Ghost Collisions", box2d.org 2020) and skipped when a convex neighbour owns
 * it, snapped to the segment's when it falls in a concave corner. So a box sliding over a
 * chain of many segments never meets a normal from a seam. Also rays against a segment. */
#include <float.h>
#include <math.h>

#include "collide2_internal.h"
#include "level_internal.h"

#define CHAIN_SLOP 0.005f      /* m: Box2D's B2_LINEAR_SLOP */
#define CHAIN_CONVEX_TOL 0.01f /* Box2D's convexTol: the sine of a corner that counts as convex */
#define CHAIN_SIN_TOL 0.01f    /* Box2D's sinTol in b2ClassifyNormal */

/* Feature ids of a chain segment's contacts: a circle on the face or at either end; clipped
 * points named by Box2D's B2_MAKE_ID pairs, with the reference (segment or shape) apart. */
#define ID_CIRCLE_FACE 0x100u
#define ID_CIRCLE_P1 0x201u
#define ID_CIRCLE_P2 0x202u
#define ID_SHAPE_REF 0x10000u
#define ID_VERTEX 0x20000u

static col_manifold2 no_contact(void)
{
    col_manifold2 m = {0};
    m.distance = FLT_MAX;
    return m;
}

static mk_vec2 right_perp(mk_vec2 v) { return mk_v2(v.y, -v.x); }
static mk_vec2 left_perp(mk_vec2 v) { return mk_v2(-v.y, v.x); }

/* ---- two-sided segments ---- */

/* The segment as a polygon of two vertices in a frame at its first point: edge 0 from a to b
 * with the right normal, edge 1 back. */
static void segment_polygon(col_segment2 s, col_polygon *p)
{
    mk_vec2 e = mk_v2_sub(s.b, s.a), u = mk_v2_norm(e);
    p->count = 2;
    p->verts[0] = mk_v2(0.0f, 0.0f);
    p->verts[1] = e;
    p->normals[0] = right_perp(u);
    p->normals[1] = left_perp(u);
    p->centroid = mk_v2_scale(e, 0.5f);
    p->area = 0.0f;
}

/* Where that polygon's frame is: the segment's first point, turned with its body. */
static col_xf2 segment_frame(col_segment2 s, col_xf2 xs)
{
    return (col_xf2){mk_v2_add(xs.p, col_rotate(col_rot(xs.angle), s.a)), xs.angle};
}

col_manifold2 col_collide_segment2(col_segment2 s, col_xf2 xs, const col_shape2 *b, col_xf2 xb,
                                   float margin)
{
    if (s.a.x == s.b.x && s.a.y == s.b.y)
        return no_contact();
    col_polygon poly;
    segment_polygon(s, &poly);
    col_shape2 sa = {.type = COL_SHAPE_POLYGON, .polygon = &poly};
    return col_collide2_near(&sa, segment_frame(s, xs), b, xb, margin);
}

col_ray_hit2 col_cast_segment2(const col_shape2 *a, col_xf2 xa, mk_vec2 translation,
                               col_segment2 s, col_xf2 xs)
{
    col_polygon poly;
    segment_polygon(s, &poly);
    col_shape2 sb = {.type = COL_SHAPE_POLYGON, .polygon = &poly};
    return col_cast2(a, xa, translation, &sb, segment_frame(s, xs));
}

col_ray_hit2 col_cast_segment2_beyond(const col_shape2 *a, col_xf2 xa, mk_vec2 translation,
                                      col_segment2 s, col_xf2 xs, float skin)
{
    if (skin > 0.0f) {
        col_manifold2 near = col_collide_segment2(s, xs, a, xa, skin);
        if (near.count > 0 || near.distance < skin)
            return (col_ray_hit2){.hit = false};
    }
    return col_cast_segment2(a, xa, translation, s, xs);
}

col_aabb col_segment2_bounds(col_segment2 s, col_xf2 xs)
{
    col_rot2 r = col_rot(xs.angle);
    mk_vec2 a = mk_v2_add(xs.p, col_rotate(r, s.a)), b = mk_v2_add(xs.p, col_rotate(r, s.b));
    mk_vec2 lo = mk_v2_min(a, b), hi = mk_v2_max(a, b);
    return (col_aabb){mk_v2_scale(mk_v2_add(lo, hi), 0.5f), mk_v2_scale(mk_v2_sub(hi, lo), 0.5f)};
}

bool col_segment_ray_d(const double a[2], const double b[2], const double o[2],
                       const double d[2], bool one_sided, double tmax, double *t, double n[2])
{
    double e[2] = {b[0] - a[0], b[1] - a[1]};
    /* Box2D's b2RayCastSegment: a one-sided segment is skipped from its left. */
    if (one_sided && (o[0] - a[0]) * e[1] - (o[1] - a[1]) * e[0] < 0.0)
        return false;
    double len = hypot(e[0], e[1]);
    if (len == 0.0)
        return false;
    double nr[2] = {e[1] / len, -e[0] / len}; /* the right normal */
    double num = nr[0] * (a[0] - o[0]) + nr[1] * (a[1] - o[1]);
    double den = nr[0] * d[0] + nr[1] * d[1];
    if (den == 0.0)
        return false; /* parallel */
    double tt = num / den;
    if (!(tt >= 0.0 && tt <= tmax))
        return false;
    double p[2] = {o[0] + tt * d[0] - a[0], o[1] + tt * d[1] - a[1]};
    double s = (p[0] * e[0] + p[1] * e[1]) / (len * len);
    if (!(s >= 0.0 && s <= 1.0))
        return false;
    *t = tt;
    double sign = den > 0.0 ? -1.0 : 1.0; /* facing the ray */
    n[0] = sign * nr[0];
    n[1] = sign * nr[1];
    return true;
}

col_ray_hit2 col_ray_segment2(col_segment2 s, col_xf2 xs, mk_vec2 from, mk_vec2 to,
                              bool one_sided)
{
    double c = cos((double)xs.angle), sn = sin((double)xs.angle);
    double a[2] = {xs.p.x + c * s.a.x - sn * s.a.y, xs.p.y + sn * s.a.x + c * s.a.y};
    double b[2] = {xs.p.x + c * s.b.x - sn * s.b.y, xs.p.y + sn * s.b.x + c * s.b.y};
    double o[2] = {from.x, from.y}, d[2] = {(double)to.x - from.x, (double)to.y - from.y};
    double t, n[2];
    if (!col_segment_ray_d(a, b, o, d, one_sided, 1.0, &t, n))
        return (col_ray_hit2){.hit = false};
    return (col_ray_hit2){true, (float)t, mk_v2((float)(o[0] + t * d[0]), (float)(o[1] + t * d[1])),
                          mk_v2((float)n[0], (float)n[1])};
}

/* ---- chain segments: Box2D v3's smooth collision ---- */

/* A contact in Box2D's form (b2LocalManifold): points midway with signed separations. */
typedef struct local2 {
    mk_vec2 normal;
    int count;
    mk_vec2 point[2];
    float sep[2];
    uint32_t id[2];
} local2;

/* In the contract of col_manifold2: the points that touch (separation <= 0); when none does,
 * count 0 with the least separation as the gap (FLT_MAX without points). */
static col_manifold2 to_manifold(const local2 *l)
{
    col_manifold2 m = no_contact();
    m.normal = l->normal;
    float gap = FLT_MAX;
    for (int i = 0; i < l->count; i++) {
        if (l->sep[i] > 0.0f) {
            gap = mk_minf(gap, l->sep[i]);
            continue;
        }
        m.points[m.count++] = (col_contact_point2){l->point[i], -l->sep[i], l->id[i]};
        m.depth = mk_maxf(m.depth, -l->sep[i]);
    }
    if (m.count > 0)
        m.distance = 0.0f;
    else
        m.distance = gap;
    return m;
}

/* Box2D's b2ClipSegments (radii 0): the incident segment b1 -> b2 clipped to the extent of
 * the reference a1 -> a2 along the tangent of `normal`, each point midway between it and
 * the reference's line. */
static local2 clip_segments(mk_vec2 a1, mk_vec2 a2, mk_vec2 b1, mk_vec2 b2, mk_vec2 normal,
                            uint32_t id1, uint32_t id2)
{
    local2 l = {0};
    mk_vec2 tangent = left_perp(normal);
    float lower1 = 0.0f, upper1 = mk_v2_dot(mk_v2_sub(a2, a1), tangent);
    float upper2 = mk_v2_dot(mk_v2_sub(b1, a1), tangent);
    float lower2 = mk_v2_dot(mk_v2_sub(b2, a1), tangent);
    if (upper2 < lower1 || upper1 < lower2)
        return l;
    mk_vec2 v_lower = b2, v_upper = b1;
    if (lower2 < lower1 && upper2 - lower2 > FLT_EPSILON)
        v_lower = mk_v2_mad(b2, (lower1 - lower2) / (upper2 - lower2), mk_v2_sub(b1, b2));
    if (upper2 > upper1 && upper2 - lower2 > FLT_EPSILON)
        v_upper = mk_v2_mad(b2, (upper1 - lower2) / (upper2 - lower2), mk_v2_sub(b1, b2));
    float sep_lower = mk_v2_dot(mk_v2_sub(v_lower, a1), normal);
    float sep_upper = mk_v2_dot(mk_v2_sub(v_upper, a1), normal);
    l.normal = normal;
    l.count = 2;
    l.point[0] = mk_v2_mad(v_lower, -0.5f * sep_lower, normal);
    l.sep[0] = sep_lower;
    l.id[0] = id1;
    l.point[1] = mk_v2_mad(v_upper, -0.5f * sep_upper, normal);
    l.sep[1] = sep_upper;
    l.id[1] = id2;
    return l;
}

static uint32_t make_id(int a, int b) { return (uint32_t)(a & 0xFF) << 8 | (uint32_t)(b & 0xFF); }

typedef struct chain_params {
    mk_vec2 edge1, normal0, normal2;
    bool convex1, convex2;
} chain_params;

enum { NORMAL_SKIP, NORMAL_ADMIT, NORMAL_SNAP };

/* Box2D's b2ClassifyNormal: a normal toward the segment's tail (head) past a convex corner's
 * neighbour normal belongs to that neighbour (skip); at a convex corner within it, it is
 * admitted; at a concave corner, it snaps to the segment's normal. */
static int classify(const chain_params *p, mk_vec2 normal)
{
    if (mk_v2_dot(normal, p->edge1) <= 0.0f) {
        if (!p->convex1)
            return NORMAL_SNAP;
        return mk_v2_cross(normal, p->normal0) > CHAIN_SIN_TOL ? NORMAL_SKIP : NORMAL_ADMIT;
    }
    if (!p->convex2)
        return NORMAL_SNAP;
    return mk_v2_cross(p->normal2, normal) > CHAIN_SIN_TOL ? NORMAL_SKIP : NORMAL_ADMIT;
}

/* The closest features of the segment p1 -> p2 and a convex polygon (what Box2D reads from
 * b2ShapeDistance's simplex cache): vertex against vertex, a segment end against a polygon
 * edge, or the segment's interior against a polygon vertex. distance 0 when they overlap. */
enum { FEAT_VV, FEAT_VE, FEAT_EV };

typedef struct seg_distance {
    float distance;
    mk_vec2 pa, pb; /* on the segment, on the polygon */
    int kind;
    int ia, ib;     /* segment end (0, 1), polygon vertex or edge */
} seg_distance;

static void consider(seg_distance *best, mk_vec2 pa, mk_vec2 pb, int kind, int ia, int ib)
{
    float d = mk_v2_len(mk_v2_sub(pb, pa));
    if (d < best->distance)
        *best = (seg_distance){d, pa, pb, kind, ia, ib};
}

static seg_distance segment_polygon_distance(mk_vec2 p1, mk_vec2 p2, const col_poly_view *v)
{
    seg_distance best = {FLT_MAX, p1, p1, FEAT_VV, 0, 0};
    mk_vec2 e = mk_v2_sub(p2, p1), n1 = mk_v2_norm(right_perp(e));
    /* Separating axes: the segment's two normals and the polygon's edge normals. */
    float sep = -FLT_MAX, lo = FLT_MAX, hi = -FLT_MAX;
    for (int j = 0; j < v->count; j++) {
        float s = mk_v2_dot(n1, mk_v2_sub(v->v[j], p1));
        lo = mk_minf(lo, s);
        hi = mk_maxf(hi, s);
        sep = mk_maxf(sep, mk_minf(mk_v2_dot(v->n[j], mk_v2_sub(p1, v->v[j])),
                                   mk_v2_dot(v->n[j], mk_v2_sub(p2, v->v[j]))));
    }
    sep = mk_maxf(sep, mk_maxf(lo, -hi));
    if (sep <= 0.0f) {
        best.distance = 0.0f;
        return best;
    }
    float ee = mk_v2_dot(e, e);
    for (int j = 0; j < v->count; j++) {
        float t = mk_v2_dot(mk_v2_sub(v->v[j], p1), e) / ee;
        if (t <= 0.0f)
            consider(&best, p1, v->v[j], FEAT_VV, 0, j);
        else if (t >= 1.0f)
            consider(&best, p2, v->v[j], FEAT_VV, 1, j);
        else
            consider(&best, mk_v2_mad(p1, t, e), v->v[j], FEAT_EV, 0, j);
    }
    for (int k = 0; k < 2; k++) {
        mk_vec2 p = k == 0 ? p1 : p2;
        for (int j = 0; j < v->count; j++) {
            int j1 = j + 1 < v->count ? j + 1 : 0;
            mk_vec2 f = mk_v2_sub(v->v[j1], v->v[j]);
            float s = mk_v2_dot(mk_v2_sub(p, v->v[j]), f) / mk_v2_dot(f, f);
            if (s > 0.0f && s < 1.0f)
                consider(&best, p, mk_v2_mad(v->v[j], s, f), FEAT_VE, k, j);
        }
    }
    return best;
}

/* The smoothness parameters of a chain segment (b2CollideChainSegmentAndPolygon's first
 * lines): its direction, its neighbours' normals and whether each corner is convex. */
static chain_params params_of(mk_vec2 g1, mk_vec2 p1, mk_vec2 p2, mk_vec2 g2)
{
    chain_params sp;
    sp.edge1 = mk_v2_norm(mk_v2_sub(p2, p1));
    mk_vec2 edge0 = mk_v2_norm(mk_v2_sub(p1, g1));
    sp.normal0 = right_perp(edge0);
    sp.convex1 = mk_v2_cross(edge0, sp.edge1) >= CHAIN_CONVEX_TOL;
    mk_vec2 edge2 = mk_v2_norm(mk_v2_sub(g2, p2));
    sp.normal2 = right_perp(edge2);
    sp.convex2 = mk_v2_cross(sp.edge1, edge2) >= CHAIN_CONVEX_TOL;
    return sp;
}

bool col_chain_segment_normal(const col_chain_segment2 *s, mk_vec2 *normal)
{
    chain_params sp = params_of(s->ghost1, s->p1, s->p2, s->ghost2);
    int type = classify(&sp, *normal);
    if (type == NORMAL_SNAP)
        *normal = right_perp(sp.edge1);
    return type != NORMAL_SKIP;
}

/* The polygon's edge ia as the reference face, the segment incident (the two places of
 * b2CollideChainSegmentAndPolygon that take a face of the polygon): nothing when the
 * neighbour at the segment's nearer end is more against the face's normal than the segment
 * itself (that neighbour is incident), else the segment clipped to the face. */
static local2 shape_reference(const col_poly_view *pv, int ia, mk_vec2 p1, mk_vec2 p2, mk_vec2 n0,
                              mk_vec2 normal1, mk_vec2 n2, bool *none)
{
    local2 l = {0};
    int ia2 = ia < pv->count - 1 ? ia + 1 : 0;
    mk_vec2 a1 = pv->v[ia], a2 = pv->v[ia2], n = pv->n[ia];
    float dot1 = mk_v2_dot(n, mk_v2_sub(p1, a1)), dot2 = mk_v2_dot(n, mk_v2_sub(p2, a1));
    mk_vec2 nn = dot1 < dot2 ? n0 : n2;
    if (mk_v2_dot(nn, n) < mk_v2_dot(normal1, n)) {
        *none = true;
        return l;
    }
    l = clip_segments(a1, a2, p1, p2, n, ID_SHAPE_REF | make_id(ia, 1),
                      ID_SHAPE_REF | make_id(ia2, 0));
    l.normal = mk_v2_neg(n);
    return l;
}

/* b2CollideChainSegmentAndPolygon in the segment's frame (p1 at the origin): the polygon's
 * view, its centroid, and the ghosts. */
static local2 chain_polygon(mk_vec2 g1, mk_vec2 p1, mk_vec2 p2, mk_vec2 g2,
                            const col_poly_view *pv, mk_vec2 centroid, float margin, bool *none)
{
    local2 l = {0};
    *none = false;
    const mk_vec2 *vertices = pv->v, *normals = pv->n;
    int count = pv->count;
    chain_params sp = params_of(g1, p1, p2, g2);
    mk_vec2 normal1 = right_perp(sp.edge1);
    bool behind1 = mk_v2_dot(normal1, mk_v2_sub(centroid, p1)) < 0.0f;
    bool behind0 = !sp.convex1 || mk_v2_dot(sp.normal0, mk_v2_sub(centroid, p1)) < 0.0f;
    bool behind2 = !sp.convex2 || mk_v2_dot(sp.normal2, mk_v2_sub(centroid, p2)) < 0.0f;
    if (behind1 && behind0 && behind2) {
        *none = true; /* one-sided */
        return l;
    }
    seg_distance out = segment_polygon_distance(p1, p2, pv);
    if (out.distance > margin) {
        /* Farther than the caller cares for: the gap along the line of the closest points. */
        l.normal = mk_v2_norm(mk_v2_sub(out.pb, out.pa));
        l.count = 1;
        l.point[0] = out.pa;
        l.sep[0] = out.distance;
        return l;
    }
    mk_vec2 n0 = sp.convex1 ? sp.normal0 : normal1;
    mk_vec2 n2 = sp.convex2 ? sp.normal2 : normal1;
    int incident_index = -1, incident_normal = -1;
    if (!behind1 && out.distance > 0.1f * CHAIN_SLOP) {
        if (out.kind == FEAT_VV) {
            mk_vec2 normal = mk_v2_norm(mk_v2_sub(out.pb, out.pa));
            int type = classify(&sp, normal);
            if (type == NORMAL_SKIP) {
                *none = true;
                return l;
            }
            if (type == NORMAL_ADMIT) {
                l.normal = normal;
                l.count = 1;
                l.point[0] = out.pa;
                l.sep[0] = out.distance;
                l.id[0] = ID_VERTEX | make_id(out.ia, out.ib);
                return l;
            }
            incident_index = out.ib;
        } else if (out.kind == FEAT_VE) {
            /* A segment end against the polygon's edge ib. */
            int ib = out.ib;
            mk_vec2 normal_b = normals[ib];
            int type = classify(&sp, mk_v2_neg(normal_b));
            if (type == NORMAL_SKIP) {
                *none = true;
                return l;
            }
            if (type == NORMAL_ADMIT)
                return shape_reference(pv, ib, p1, p2, n0, normal1, n2, none);
            incident_normal = ib;
        } else {
            incident_index = out.ib;
        }
    } else {
        /* Overlapping or within a tenth of the slop: separating axes. The segment's normal
         * and the convex neighbours' (which, when larger, own the contact). */
        float edge_separation = FLT_MAX;
        for (int i = 0; i < count; i++) {
            float s = mk_v2_dot(normal1, mk_v2_sub(vertices[i], p1));
            if (s < edge_separation) {
                edge_separation = s;
                incident_index = i;
            }
        }
        for (int side = 0; side < 2; side++) {
            bool convex = side == 0 ? sp.convex1 : sp.convex2;
            if (!convex)
                continue;
            mk_vec2 nn = side == 0 ? sp.normal0 : sp.normal2, pp = side == 0 ? p1 : p2;
            float s_side = FLT_MAX;
            for (int i = 0; i < count; i++)
                s_side = mk_minf(s_side, mk_v2_dot(nn, mk_v2_sub(vertices[i], pp)));
            if (s_side > edge_separation) {
                edge_separation = s_side;
                incident_index = -1; /* the neighbour owns the separation */
            }
        }
        /* The polygon's normals that the Gauss map admits. */
        float polygon_separation = -FLT_MAX;
        int reference_index = -1;
        for (int i = 0; i < count; i++) {
            mk_vec2 n = normals[i];
            if (classify(&sp, mk_v2_neg(n)) != NORMAL_ADMIT)
                continue;
            mk_vec2 p = vertices[i];
            float s = mk_minf(mk_v2_dot(n, mk_v2_sub(p2, p)), mk_v2_dot(n, mk_v2_sub(p1, p)));
            if (s > polygon_separation) {
                polygon_separation = s;
                reference_index = i;
            }
        }
        if (polygon_separation > edge_separation)
            return shape_reference(pv, reference_index, p1, p2, n0, normal1, n2, none);
        if (incident_index == -1) {
            *none = true; /* a neighbouring segment is the separating axis */
            return l;
        }
    }
    /* The segment's normal: the polygon's incident edge is the one by the incident vertex
     * (or the snapped edge) most against it. */
    int ib1, ib2;
    if (incident_normal != -1) {
        ib1 = incident_normal;
        ib2 = ib1 < count - 1 ? ib1 + 1 : 0;
    } else {
        int i2 = incident_index, i1 = i2 > 0 ? i2 - 1 : count - 1;
        if (mk_v2_dot(normal1, normals[i1]) < mk_v2_dot(normal1, normals[i2])) {
            ib1 = i1;
            ib2 = i2;
        } else {
            ib1 = i2;
            ib2 = i2 < count - 1 ? i2 + 1 : 0;
        }
    }
    l = clip_segments(p1, p2, vertices[ib1], vertices[ib2], normal1, make_id(0, ib2),
                      make_id(1, ib1));
    return l;
}

/* b2CollideChainSegmentAndCircle in the segment's frame: the circle's centre c. */
static col_manifold2 chain_circle(mk_vec2 g1, mk_vec2 p1, mk_vec2 p2, mk_vec2 g2, mk_vec2 c,
                                  float radius)
{
    mk_vec2 e = mk_v2_sub(p2, p1);
    if (mk_v2_dot(right_perp(e), mk_v2_sub(c, p1)) < 0.0f)
        return no_contact(); /* one-sided */
    float u = mk_v2_dot(e, mk_v2_sub(p2, c)), v = mk_v2_dot(e, mk_v2_sub(c, p1));
    mk_vec2 pa;
    uint32_t id;
    if (v <= 0.0f) {
        /* Behind p1: the previous segment's, when c is in its Voronoi region. */
        if (mk_v2_dot(mk_v2_sub(p1, g1), mk_v2_sub(c, p1)) <= 0.0f)
            return no_contact();
        pa = p1;
        id = ID_CIRCLE_P1;
    } else if (u <= 0.0f) {
        if (mk_v2_dot(mk_v2_sub(g2, p2), mk_v2_sub(c, p2)) > 0.0f)
            return no_contact();
        pa = p2;
        id = ID_CIRCLE_P2;
    } else {
        float ee = mk_v2_dot(e, e);
        pa = mk_v2_scale(mk_v2_add(mk_v2_scale(p1, u), mk_v2_scale(p2, v)), 1.0f / ee);
        id = ID_CIRCLE_FACE;
    }
    mk_vec2 d = mk_v2_sub(c, pa);
    float dist = mk_v2_len(d);
    mk_vec2 n = dist > 0.0f ? mk_v2_scale(d, 1.0f / dist) : mk_v2_norm(right_perp(e));
    local2 l = {n, 1, {mk_v2_scale(mk_v2_add(pa, mk_v2_mad(c, -radius, n)), 0.5f)},
                {dist - radius}, {id}};
    return to_manifold(&l);
}

col_manifold2 col_collide_chain_segment2(const col_chain_segment2 *s, col_xf2 xs,
                                         const col_shape2 *b, col_xf2 xb, float margin)
{
    if (s->p1.x == s->p2.x && s->p1.y == s->p2.y)
        return no_contact();
    /* The segment's frame: the chain's rotation, p1 at the origin. */
    col_rot2 r = col_rot(xs.angle);
    col_xf2 frame = {mk_v2_add(xs.p, col_rotate(r, s->p1)), xs.angle};
    mk_vec2 g1 = mk_v2_sub(s->ghost1, s->p1), p2 = mk_v2_sub(s->p2, s->p1);
    mk_vec2 g2 = mk_v2_sub(s->ghost2, s->p1), p1 = mk_v2(0.0f, 0.0f);
    col_manifold2 m;
    if (b->type == COL_SHAPE_CIRCLE) {
        mk_vec2 c = col_unrotate(r, mk_v2_sub(xb.p, frame.p));
        m = chain_circle(g1, p1, p2, g2, c, b->radius);
    } else {
        col_poly_view view;
        col_rot2 rb = col_shape_rot(b, xb);
        col_view_in_frame(b, xb, rb, frame, r, &view);
        mk_vec2 cb = xb.p;
        if (b->type == COL_SHAPE_POLYGON)
            cb = mk_v2_add(xb.p, col_rotate(rb, b->polygon->centroid));
        bool none;
        local2 l = chain_polygon(g1, p1, p2, g2, &view, col_unrotate(r, mk_v2_sub(cb, frame.p)),
                                 margin, &none);
        if (none)
            return no_contact();
        m = to_manifold(&l);
    }
    col_manifold_to_world(&m, frame.p, r);
    return m;
}
