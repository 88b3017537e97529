/* Penetration depth by the expanding polytope algorithm (EPA: van den Bergen, "Proximity
 * queries and penetration depth computation on 3D game objects", GDC 2001): from a polytope
 * inside the Minkowski difference A - B that holds the origin, the face nearest the origin is
 * pushed out to the support point along its normal until the support gets no further than
 * the face. Every face of the polytope is inside A - B, so its distance is a lower bound on
 * the depth; the support along its normal, h(n), an upper bound: the two meet at convergence
 * and h(n) is returned, so that moving B by normal * depth always separates.
 *
 * The starting polytope is GJK's last simplex, made solid as Bullet's and libccd's EPA do
 * when GJK ended on a triangle, a segment or a point: support points off the triangle's
 * plane (or off the segment) are added. Fixed arrays, no allocation; computed in double.
 * On a curved difference EPA stops early and col_polish3 (polish3.c) finishes the depth. */
#include <float.h>
#include <string.h>

#include "collide3_internal.h"

#define EPA_MAX_VERTS 128
#define EPA_MAX_FACES (2 * EPA_MAX_VERTS)
#define CURVED_MAX_VERTS 96 /* the polish does the rest */

/* A triangle of the polytope, counter-clockwise seen from outside. Edge k runs from v[k] to
 * v[k + 1]; the face across it is adj[k], whose own edge adj_edge[k] runs back. */
typedef struct epa_face {
    int v[3];
    int adj[3];
    int adj_edge[3];
    col_d3 n;
    double dist;
    bool alive;
    int pass; /* the expansion that found it visible */
} epa_face;

/* An edge of the horizon: the face outside it (`face`, its edge `edge`) and its two ends,
 * in the order of the new face over it. */
typedef struct epa_rim {
    int face, edge, a, b;
} epa_rim;

/* The two shapes whose difference is searched. */
typedef struct epa_pair {
    const col_placed3 *a, *b;
} epa_pair;

typedef struct epa {
    epa_pair pr;
    col_mvert verts[EPA_MAX_VERTS];
    epa_face faces[EPA_MAX_FACES];
    int nv, nf;
    col_d3 inner; /* a point inside the first polytope, to orient its faces */
    int pass;
    double dist[EPA_MAX_FACES]; /* each face's distance, DBL_MAX for a dead one: one tight scan */
    int free_slots[EPA_MAX_FACES]; /* dead faces' slots */
    int nfree;
    /* expand's scratch, here rather than on its stack: it runs up to EPA_MAX_VERTS times */
    epa_rim rim[EPA_MAX_FACES];
    int seen[EPA_MAX_FACES]; /* the faces w sees */
    /* silhouette's stack: each face seen pushes two, the first face three */
    int walk_face[2 * EPA_MAX_FACES + 3], walk_edge[2 * EPA_MAX_FACES + 3];
    epa_face fresh[EPA_MAX_FACES];
    /* Per vertex: the horizon edge that starts there, valid when start_pass is this pass,
     * so that the loop of the horizon is linked in one pass over it. */
    int start_of[EPA_MAX_VERTS], start_pass[EPA_MAX_VERTS];
} epa;

static col_mvert support(const epa_pair *e, col_d3 d)
{
    return col_support_pair(e->a, e->b, d);
}

/* A face through three vertices, its normal away from `inner` (or as given when `oriented`).
 * False when the three are (nearly) on one line. */
static bool make_face(const epa *e, int i, int j, int k, bool oriented, epa_face *f)
{
    col_d3 a = e->verts[i].w, b = e->verts[j].w, c = e->verts[k].w;
    col_d3 ab = d3_sub(b, a), ac = d3_sub(c, a);
    col_d3 n = d3_cross(ab, ac);
    double l = d3_len(n);
    if (!(l > 1e-14 * d3_dot(ab, ab) + 1e-14 * d3_dot(ac, ac)) || !(l > 0.0))
        return false;
    n = d3_scale(n, 1.0 / l);
    *f = (epa_face){{i, j, k}, {-1, -1, -1}, {0, 0, 0}, n, d3_dot(n, a), true, 0};
    if (!oriented && d3_dot(n, d3_sub(e->inner, a)) > 0.0) {
        f->v[1] = k;
        f->v[2] = j;
        f->n = d3_neg(n);
        f->dist = -f->dist;
    }
    return true;
}

static int add_vert(epa *e, col_mvert m)
{
    e->verts[e->nv] = m;
    e->start_pass[e->nv] = -1;
    return e->nv++;
}

/* The starting tetrahedron from GJK's simplex; false when A - B turned out flat at the origin
 * (the depth is then h(*flat_n), about 0: touching). */
static bool start(epa *e, const col_gjk_result *g, col_d3 *flat_n)
{
    int n = g->count;
    col_mvert v[4];
    memcpy(v, g->simplex, (size_t)n * sizeof v[0]);
    double scale = 0.0;
    for (int i = 0; i < n; i++)
        scale = fmax(scale, d3_len(v[i].w));
    double eps = 1e-12 * fmax(scale, 1e-30);
    if (n == 1) {
        *flat_n = g->dir;
        return false;
    }
    if (n == 2) {
        /* A direction across the segment, then its support makes a triangle. */
        col_d3 ab = d3_sub(v[1].w, v[0].w);
        col_d3 axis = fabs(ab.x) <= fabs(ab.y) && fabs(ab.x) <= fabs(ab.z) ? d3(1, 0, 0)
                      : fabs(ab.y) <= fabs(ab.z)                          ? d3(0, 1, 0)
                                                                           : d3(0, 0, 1);
        col_d3 p = d3_norm(d3_cross(ab, axis));
        v[2] = support(&e->pr, p);
        if (d3_dot(p, v[2].w) <= eps) {
            v[2] = support(&e->pr, d3_neg(p));
            if (d3_dot(d3_neg(p), v[2].w) <= eps) {
                *flat_n = p;
                return false;
            }
        }
        n = 3;
    }
    if (n == 4) {
        /* Four points in one plane (a box's face flush with a triangle's edge gives GJK such
         * a simplex): no tetrahedron. The largest of their triangles that holds the origin
         * (one does: it lies in their hull) goes on as a triangle, and a support point off
         * its plane makes the tetrahedron. */
        col_d3 a = d3_sub(v[1].w, v[0].w), b = d3_sub(v[2].w, v[0].w), c = d3_sub(v[3].w, v[0].w);
        if (fabs(d3_dot(a, d3_cross(b, c))) <= eps * scale * scale) {
            int drop = 0;
            bool held = false;
            double most = -1.0;
            for (int i = 0; i < 4; i++) {
                col_d3 p[3];
                for (int k = 0, q = 0; k < 4; k++)
                    if (k != i)
                        p[q++] = v[k].w;
                col_d3 nn = d3_cross(d3_sub(p[1], p[0]), d3_sub(p[2], p[0]));
                double area = d3_len(nn);
                bool holds = true;
                for (int k = 0; k < 3; k++)
                    holds = holds && d3_dot(nn, d3_cross(d3_sub(p[(k + 1) % 3], p[k]),
                                                         d3_neg(p[k]))) >= -eps * area;
                if (holds > held || (holds == held && area > most)) {
                    held = holds;
                    most = area;
                    drop = i;
                }
            }
            v[drop] = v[3];
            n = 3;
        }
    }
    if (n == 3) {
        /* A support point off the triangle's plane on either side makes a tetrahedron that
         * holds the origin (on its base): a proper convex hull, unlike the two-apex
         * bipyramid, which is not convex when the apexes fall outside the triangle. */
        col_d3 nn = d3_norm(d3_cross(d3_sub(v[1].w, v[0].w), d3_sub(v[2].w, v[0].w)));
        v[3] = support(&e->pr, nn);
        if (d3_dot(nn, v[3].w) - d3_dot(nn, v[0].w) <= eps) {
            v[3] = support(&e->pr, d3_neg(nn));
            if (d3_dot(nn, v[0].w) - d3_dot(nn, v[3].w) <= eps) {
                *flat_n = nn;
                return false;
            }
        }
    }
    for (int i = 0; i < 4; i++)
        add_vert(e, v[i]);
    e->inner = d3_scale(d3_add(d3_add(v[0].w, v[1].w), d3_add(v[2].w, v[3].w)), 0.25);
    static const int tetra[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
    for (int f = 0; f < 4; f++)
        if (!make_face(e, tetra[f][0], tetra[f][1], tetra[f][2], false, &e->faces[e->nf++])) {
            *flat_n = g->dir;
            return false;
        }
    /* Each edge of the tetrahedron is run the other way by exactly one other face. */
    for (int f = 0; f < 4; f++) {
        e->dist[f] = e->faces[f].dist;
        for (int k = 0; k < 3; k++) {
            epa_face *fc = &e->faces[f];
            int i = fc->v[k], j = fc->v[(k + 1) % 3];
            for (int o = 0; o < 4; o++)
                for (int q = 0; q < 3; q++)
                    if (o != f && e->faces[o].v[q] == j && e->faces[o].v[(q + 1) % 3] == i) {
                        fc->adj[k] = o;
                        fc->adj_edge[k] = q;
                    }
            /* None does when the four points lie in one plane (GJK's simplex of a box's face
             * on a triangle's plane): the faces cannot be turned outward, and the shapes
             * touch as a flat start does. */
            if (fc->adj[k] < 0) {
                *flat_n = g->dir;
                return false;
            }
        }
    }
    return true;
}

/* A scan of the distances alone, kept apart from the faces so that it runs through one
 * small array. */
static int nearest_face(const epa *e)
{
    int best = -1;
    double best_dist = DBL_MAX;
    for (int f = 0; f < e->nf; f++)
        if (e->dist[f] < best_dist) {
            best = f;
            best_dist = e->dist[f];
        }
    return best;
}

/* The horizon seen from w, by walking the faces it sees from the first one across their
 * edges (van den Bergen 2001; Bullet's btGjkEpa2 and libccd do the same) instead of testing
 * every face, depth first with a stack of (face, edge it was reached across). A face w does
 * not see gives the rim its edge. False when the faces seen are too many to keep. */
static bool silhouette(epa *e, col_d3 w, int seed, int *nseen, int *nrim)
{
    static const int next3[3] = {1, 2, 0}, prev3[3] = {2, 0, 1};
    int *sf = e->walk_face, *sk = e->walk_edge;
    int top = 0;
    const epa_face *seed_f = &e->faces[seed];
    for (int k = 2; k >= 0; k--) {
        sf[top] = seed_f->adj[k];
        sk[top++] = seed_f->adj_edge[k];
    }
    while (top > 0) {
        top--;
        int f = sf[top], k = sk[top];
        epa_face *fc = &e->faces[f];
        if (fc->pass == e->pass)
            continue;
        if (d3_dot(fc->n, d3_sub(w, e->verts[fc->v[0]].w)) <= 0.0) {
            if (*nrim == EPA_MAX_FACES)
                return false;
            e->rim[(*nrim)++] = (epa_rim){f, k, fc->v[next3[k]], fc->v[k]};
            continue;
        }
        fc->pass = e->pass;
        e->seen[(*nseen)++] = f;
        /* The edges after k, in turn: the one after it walked first. */
        int q1 = next3[k], q2 = prev3[k];
        sf[top] = fc->adj[q2];
        sk[top++] = fc->adj_edge[q2];
        sf[top] = fc->adj[q1];
        sk[top++] = fc->adj_edge[q1];
    }
    return true;
}

/* Adds w: the faces it sees go, a cone from w over their horizon comes, linked to its
 * neighbours. False (nothing changed) when there is no room, the horizon is not one loop, or
 * a new face would be degenerate. */
static bool expand(epa *e, col_mvert w, int seen_face, double tol)
{
    if (e->nv == EPA_MAX_VERTS)
        return false;
    e->pass++;
    int nseen = 1, nrim = 0;
    e->faces[seen_face].pass = e->pass;
    e->seen[0] = seen_face;
    if (!silhouette(e, w.w, seen_face, &nseen, &nrim))
        return false;
    if (nrim < 3 || e->nf + nrim - nseen - e->nfree > EPA_MAX_FACES)
        return false;
    /* The slot of each new face, and its neighbours along the cone: the face over rim edge
     * (a, b) meets the one over (b, c) at b; each end starts exactly one rim edge. */
    for (int q = 0; q < nrim; q++) {
        int a = e->rim[q].a;
        if (e->start_pass[a] == e->pass) /* two edges start there: not one loop */
            return false;
        e->start_pass[a] = e->pass;
        e->start_of[a] = q;
    }
    int wi = add_vert(e, w);
    int next[EPA_MAX_FACES];
    for (int q = 0; q < nrim; q++) {
        int b = e->rim[q].b;
        next[q] = e->start_pass[b] == e->pass ? e->start_of[b] : -1;
        if (next[q] < 0 || !make_face(e, e->rim[q].a, e->rim[q].b, wi, true, &e->fresh[q]) ||
            e->fresh[q].dist < -tol) {
            e->nv = wi;
            return false;
        }
    }
    int around = 1;
    for (int q = next[0]; q != 0 && around <= nrim; q = next[q])
        around++;
    if (around != nrim) { /* two loops: the faces seen are not a disc */
        e->nv = wi;
        return false;
    }
    /* The seen faces' slots are reused first, then dead ones, then new ones at the end. */
    for (int q = 0; q < nseen; q++) {
        e->faces[e->seen[q]].alive = false;
        e->dist[e->seen[q]] = DBL_MAX;
        e->free_slots[e->nfree++] = e->seen[q];
    }
    int slot[EPA_MAX_FACES];
    for (int q = 0; q < nrim; q++)
        slot[q] = e->nfree > 0 ? e->free_slots[--e->nfree] : e->nf++;
    for (int q = 0; q < nrim; q++) {
        epa_face *nf = &e->fresh[q];
        const epa_rim *rm = &e->rim[q];
        nf->adj[0] = rm->face;
        nf->adj_edge[0] = rm->edge;
        e->faces[rm->face].adj[rm->edge] = slot[q];
        e->faces[rm->face].adj_edge[rm->edge] = 0;
        nf->adj[1] = slot[next[q]]; /* edge b -> w, run back by the next face's w -> b */
        nf->adj_edge[1] = 2;
        e->fresh[next[q]].adj[2] = slot[q];
        e->fresh[next[q]].adj_edge[2] = 1;
    }
    for (int q = 0; q < nrim; q++) {
        e->faces[slot[q]] = e->fresh[q];
        e->dist[slot[q]] = e->fresh[q].dist;
    }
    return true;
}

/* The barycentric coordinates of p (on the face's plane) in the face, clamped to >= 0 and
 * summing to 1; returns the least of them before clamping, relative to the face's area. */
static double barycentric(const epa *e, const epa_face *f, col_d3 p, double l[3])
{
    col_d3 v0 = e->verts[f->v[0]].w, v1 = e->verts[f->v[1]].w, v2 = e->verts[f->v[2]].w;
    double raw[3] = {d3_dot(d3_cross(d3_sub(v1, p), d3_sub(v2, p)), f->n),
                     d3_dot(d3_cross(d3_sub(v2, p), d3_sub(v0, p)), f->n),
                     d3_dot(d3_cross(d3_sub(v0, p), d3_sub(v1, p)), f->n)};
    double area = raw[0] + raw[1] + raw[2], least = fmin(raw[0], fmin(raw[1], raw[2]));
    double sum = 0.0;
    for (int k = 0; k < 3; k++)
        sum += l[k] = fmax(0.0, raw[k]);
    for (int k = 0; k < 3; k++)
        l[k] = sum > 0.0 ? l[k] / sum : 1.0 / 3.0;
    return area > 0.0 ? least / area + 1e-9 : -1.0;
}

bool col_support_witness(const col_placed3 *a, const col_placed3 *b, col_d3 normal,
                         double depth, col_d3 *wa, col_d3 *wb)
{
    epa_pair pr = {a, b};
    col_d3 n = normal;
    col_mvert s0 = support(&pr, n);
    /* m: a contact point needs 1e-5 of the size (as the GJK below in convex3.c). */
    double size = col_shape3_reach(a->s) + col_shape3_reach(b->s);
    /* Where h is smooth at its minimum the gradient, s0.a - s0.b, is depth * n: both supports
     * are single points and are the contact. */
    if (d3_len(d3_sub(d3_sub(s0.a, s0.b), d3_scale(n, depth))) <= 1e-5 * size) {
        *wa = s0.a;
        *wb = s0.b;
        return true;
    }
    /* At a crease of h one of them is a flat (an edge, a side line, a face) and a point of
     * it is only a guess: the caller finds the contact otherwise. */
    return false;
}

col_epa_result col_epa(const col_placed3 *a, const col_placed3 *b, const col_gjk_result *g,
                       double tol)
{
    static const col_epa_result empty;
    col_epa_result r = empty;
    epa e;
    e.pr.a = a;
    e.pr.b = b;
    e.nv = e.nf = e.pass = e.nfree = 0;
    col_d3 flat_n;
    if (!start(&e, g, &flat_n)) {
        /* Touching: GJK's closest points are the contact. */
        col_mvert s = support(&e.pr, flat_n);
        r.normal = flat_n;
        r.depth = fmax(0.0, d3_dot(flat_n, s.w));
        r.pa = g->pa;
        r.pb = d3_mad(g->pa, -r.depth, flat_n);
        return r;
    }
    int best = nearest_face(&e);
    double h = DBL_MAX;
    /* Polytope pairs converge exactly in finitely many steps; curved ones only refine
     * ever more faces, so EPA stops at 1e5 tol, 1e-4 of the size, or CURVED_MAX_VERTS there
     * and the polish finishes: Newton's steps where h is smooth, the faces and the creases
     * (edges, side lines) solved exactly, so that only a minimum at none of these keeps
     * EPA's answer. Measured against the test suite's brute force: 1e5 tol keeps every pair
     * type's worst depth as at 1e4 (within 3e-5 m, most within 3e-7 m) for 5 to 11% fewer
     * instructions on the creased pairs; 1e6 tol let the worst reach 5e-4 m. */
    bool curved = !(a->polytope && b->polytope);
    double stop = curved ? 1e5 * tol : tol;
    int cap = curved ? CURVED_MAX_VERTS : EPA_MAX_VERTS;
    /* Every support gives an upper bound h along its face's normal: the least is kept, the
     * answer should EPA stop short (no room, or a degenerate face near touching). */
    double least = DBL_MAX;
    col_d3 least_n = e.faces[best].n;
    for (;;) {
        r.iterations++;
        epa_face f = e.faces[best];
        col_mvert w = support(&e.pr, f.n);
        h = d3_dot(f.n, w.w);
        if (h < least) {
            least = h;
            least_n = f.n;
        }
        if (h - f.dist <= stop || e.nv >= cap || !expand(&e, w, best, tol))
            break;
        best = nearest_face(&e);
        if (best < 0)
            break;
    }
    epa_face f = e.faces[best];
    bool converged = h - f.dist <= stop;
    r.normal = converged ? f.n : least_n;
    r.depth = fmax(0.0, converged ? fmax(h, f.dist) : least);
    if (curved && h - f.dist > 0.0) {
        /* Polished from the nearest face, or, when EPA stopped short, from the nearest few
         * that point apart (a round difference has several dips of h of about the same
         * depth; EPA's lower bound says which faces can hold the least). */
        col_d3 tried[4];
        int nt = 0;
        for (int round = 0; round < (converged ? 1 : 4); round++) {
            int pick = -1;
            for (int k = 0; k < e.nf; k++) {
                bool apart = e.faces[k].alive && e.faces[k].dist < r.depth;
                for (int j = 0; j < nt && apart; j++)
                    apart = d3_dot(e.faces[k].n, tried[j]) < 0.999;
                if (apart && (pick < 0 || e.faces[k].dist < e.faces[pick].dist))
                    pick = k;
            }
            if (pick < 0)
                break;
            col_d3 n = e.faces[pick].n;
            tried[nt++] = n;
            col_d3 fa = d3(0.0, 0.0, 0.0), fb = fa;
            bool at_face;
            /* EPA's gap between its bounds: about how far h at the face's normal may be
             * above the minimum, so the pieces within 4 times it name the crease there. */
            double hp = col_polish3(e.pr.a, e.pr.b, &n, tol, fmax(4.0 * (h - f.dist), 1e3 * tol),
                                    &fa, &fb, &at_face);
            if (hp < r.depth) {
                r.normal = n;
                r.depth = fmax(0.0, hp);
                r.contact = at_face && hp >= 0.0;
                r.pa = fa;
                r.pb = fb;
            }
        }
    }
    if (r.contact)
        return r;
    if (converged && d3_dot(r.normal, f.n) >= 0.9999) {
        /* Witnesses: the origin's projection onto the face in barycentric coordinates,
         * carried to the support points of A. A face of A - B is often split into coplanar
         * triangles: the one that holds the projection is used. Clamped: the origin may
         * project just outside when the pair only touches. */
        col_d3 p = d3_scale(f.n, f.dist);
        double l[3];
        epa_face use = f;
        if (barycentric(&e, &f, p, l) < 0.0) {
            for (int k = 0; k < e.nf; k++) {
                const epa_face *o = &e.faces[k];
                if (o->alive && d3_dot(o->n, f.n) > 1.0 - 1e-9 && fabs(o->dist - f.dist) <= stop &&
                    barycentric(&e, o, p, l) >= 0.0) {
                    use = *o;
                    break;
                }
            }
        }
        barycentric(&e, &use, p, l);
        r.pa = d3(0.0, 0.0, 0.0);
        for (int k = 0; k < 3; k++)
            r.pa = d3_mad(r.pa, l[k], e.verts[use.v[k]].a);
    } else {
        /* The deepest point of the shape whose support along the normal is a point, not a
         * face or a rim: of the two, the one that moves least when the normal turns by
         * 1e-3 rad. */
        col_d3 n = r.normal;
        col_d3 axis = fabs(n.x) < 0.6 ? d3(1, 0, 0) : d3(0, 1, 0);
        col_d3 u = d3_norm(d3_cross(n, axis)), v = d3_cross(n, u);
        col_mvert s0 = support(&e.pr, n);
        col_mvert s1 = support(&e.pr, d3_norm(d3_mad(n, 1e-3, u)));
        col_mvert s2 = support(&e.pr, d3_norm(d3_mad(n, 1e-3, v)));
        double ja = fmax(d3_len(d3_sub(s1.a, s0.a)), d3_len(d3_sub(s2.a, s0.a)));
        double jb = fmax(d3_len(d3_sub(s1.b, s0.b)), d3_len(d3_sub(s2.b, s0.b)));
        r.pa = ja <= jb ? s0.a : d3_mad(s0.b, r.depth, n);
    }
    r.pb = d3_mad(r.pa, -r.depth, r.normal);
    return r;
}
