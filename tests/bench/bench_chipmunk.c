/* Chipmunk2D (Debian's libchipmunk-dev, version 7) doing Mink's work: the pile scene in a
 * cpSpace, and queries of every pair of shape types with cpShapesCollide. Built only when CMake
 * found the library; otherwise every function here says it is not installed. */
#include "bench.h"

#if MINK_HAVE_CHIPMUNK

#include <chipmunk/chipmunk.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where the placing-only loop leaves its result, so that it is not optimised away. */
static volatile double cp_sink;

bool bench_cp_available(void)
{
    return true;
}

const char *bench_cp_version(void)
{
    return cpVersionString;
}

bool bench_cp_debug_build(void)
{
    /* A build without NDEBUG prints "Initializing cpSpace - Chipmunk v7.0.3 (Debug Enabled)"
     * on the first cpSpaceInit. Catch it in a temporary file instead of stdout. */
    FILE *tmp = tmpfile();
    int saved = -1;
    fflush(stdout);
    if (tmp)
        saved = dup(STDOUT_FILENO);
    if (saved >= 0 && dup2(fileno(tmp), STDOUT_FILENO) < 0) {
        close(saved);
        saved = -1;
    }
    cpSpaceFree(cpSpaceNew());
    fflush(stdout);
    bool debug = false;
    if (saved >= 0) {
        dup2(saved, STDOUT_FILENO);
        close(saved);
        char text[512] = "";
        rewind(tmp);
        size_t n = fread(text, 1, sizeof text - 1, tmp);
        text[n] = '\0';
        debug = strstr(text, "Debug Enabled") != NULL;
    }
    if (tmp)
        fclose(tmp);
    return debug;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "mink-bench: out of memory\n");
        exit(1);
    }
    return p;
}

/* One run of a box scene: a static ground box with its top at y = 0, unit boxes of mass 1. */
static bench_step_stats cp_boxes_run(const bench_boxes *layout, int steps, bool sleep,
                                     bool spatial_hash, size_t *resting, double *top,
                                     int *iterations)
{
    int n = layout->n;
    cpSpace *space = cpSpaceNew();
    cpSpaceSetGravity(space, cpv(0.0, BENCH_GRAVITY));
    /* Cells of one box size (Chipmunk's manual: about the size of the average shape), and 2n
     * of them, enough for the cells a settled pile covers. */
    if (spatial_hash)
        cpSpaceUseSpatialHash(space, 2.0 * BENCH_BOX_HALF, 2 * n);
    *iterations = cpSpaceGetIterations(space);
    if (sleep)
        cpSpaceSetSleepTimeThreshold(space, BENCH_SLEEP_TIME);

    /* Chipmunk multiplies the frictions of the two shapes, Mink takes their geometric mean:
     * sqrt(0.6) on every Chipmunk shape gives each contact 0.6, as in Mink. */
    double friction = sqrt(BENCH_FRICTION);
    double g = layout->ground_half;
    cpShape *ground =
        cpSpaceAddShape(space, cpBoxShapeNew2(cpSpaceGetStaticBody(space),
                                              cpBBNew(-g, -1.0, g, 0.0), 0.0));
    cpShapeSetFriction(ground, friction);

    cpBody **bodies = xmalloc((size_t)n * sizeof *bodies);
    cpShape **shapes = xmalloc((size_t)n * sizeof *shapes);
    double side = 2.0 * BENCH_BOX_HALF;
    for (int i = 0; i < n; i++) {
        bodies[i] = cpSpaceAddBody(space, cpBodyNew(1.0, cpMomentForBox(1.0, side, side)));
        cpBodySetPosition(bodies[i], cpv(layout->x[i], layout->y[i]));
        shapes[i] = cpSpaceAddShape(space, cpBoxShapeNew(bodies[i], side, side, 0.0));
        cpShapeSetFriction(shapes[i], friction);
    }

    uint64_t *ns = xmalloc((size_t)steps * sizeof *ns);
    for (int i = 0; i < steps; i++) {
        uint64_t t = bench_now_ns();
        cpSpaceStep(space, BENCH_DT);
        ns[i] = bench_now_ns() - t;
    }
    bench_step_stats s = bench_step_stats_of(ns, (size_t)steps);
    free(ns);

    *resting = 0;
    *top = 0.0;
    for (int i = 0; i < n; i++) {
        *resting += cpBodyIsSleeping(bodies[i]) ||
                    cpvlength(cpBodyGetVelocity(bodies[i])) < BENCH_REST_SPEED;
        double y = cpBodyGetPosition(bodies[i]).y;
        *top = y > *top ? y : *top;
    }

    /* cpSpaceFree leaves bodies and shapes to their owner. */
    cpSpaceFree(space);
    for (int i = 0; i < n; i++) {
        cpShapeFree(shapes[i]);
        cpBodyFree(bodies[i]);
    }
    cpShapeFree(ground);
    free(shapes);
    free(bodies);
    return s;
}

bool bench_cp_boxes(const bench_boxes *b, int steps, bool sleep, bench_cp_boxes_result *out)
{
    out->tree = cp_boxes_run(b, steps, sleep, false, &out->resting_tree, &out->top_tree,
                             &out->iterations);
    out->hash = cp_boxes_run(b, steps, sleep, true, &out->resting_hash, &out->top_hash,
                             &out->iterations);
    return true;
}

/* A Chipmunk shape for one of a palette's: a box for an aabb or a box, a circle, or a
 * polygon of the same hull's vertices with radius 0. */
static cpShape *cp_shape_of(cpBody *body, const col_shape2 *s)
{
    switch (s->type) {
    case COL_SHAPE_AABB:
    case COL_SHAPE_BOX:
        return cpBoxShapeNew(body, 2.0 * s->half.x, 2.0 * s->half.y, 0.0);
    case COL_SHAPE_CIRCLE:
        return cpCircleShapeNew(body, s->radius, cpvzero);
    case COL_SHAPE_POLYGON: {
        cpVect v[COL_MAX_POLYGON];
        int n = s->polygon->count;
        for (int i = 0; i < n; i++)
            v[i] = cpv(s->polygon->verts[i].x, s->polygon->verts[i].y);
        cpShape *shape = cpPolyShapeNew(body, n, v, cpTransformIdentity, 0.0);
        if (cpPolyShapeGetCount(shape) != n)
            fprintf(stderr, "mink-bench: chipmunk's hull has %d vertices, Mink's %d\n",
                    cpPolyShapeGetCount(shape), n);
        return shape;
    }
    case COL_SHAPE_COUNT:
        break;
    }
    abort();
}

/* Places a prepared shape: it caches its world vertices (or centre) and bounds for the
 * transform, made from the same position and angle that col_collide2 gets. Shapes that never
 * turn (aabb, circle) are only translated, as Mink does not rotate them either. */
static inline void place(cpShape *s, col_xf2 xf, bool turns)
{
    cpVect p = cpv(xf.p.x, xf.p.y);
    cpShapeUpdate(s, turns ? cpTransformRigid(p, xf.angle) : cpTransformTranslate(p));
}

/* cpShapesCollide on a placed pair: 0 for a miss, else the depth of the deepest point. The
 * depth is taken from the points and the normal, not from `distance`: 7.0.3 gets that one's
 * sign wrong when it swaps the shapes into its own order (a polygon against a circle) - it
 * dots the unswapped points with the flipped normal. */
static inline double cp_collide(const cpShape *a, const cpShape *b, bool *hit)
{
    cpContactPointSet set = cpShapesCollide(a, b);
    *hit = set.count > 0;
    double depth = 0.0;
    for (int k = 0; k < set.count; k++) {
        double d = -cpvdot(cpvsub(set.points[k].pointB, set.points[k].pointA), set.normal);
        depth = d > depth ? d : depth;
    }
    return depth;
}

bool bench_cp_query(const bench_pairs *p, bench_cp_query_result *out)
{
    /* The two palettes as Chipmunk shapes on one static body; a query places one of each
     * and collides them, the work of col_collide2 on two prepared shapes. */
    cpBody *body = cpBodyNewStatic();
    cpShape *sa[BENCH_PALETTE], *sb[BENCH_PALETTE];
    for (int i = 0; i < BENCH_PALETTE; i++) {
        sa[i] = cp_shape_of(body, &p->pal_a->shapes[i]);
        sb[i] = cp_shape_of(body, &p->pal_b->shapes[i]);
    }
    bool ta = bench_palette_turns(p->pal_a), tb = bench_palette_turns(p->pal_b);

    /* Placing alone, to tell how much of a query it is. */
    double bb_sum = 0.0;
    uint64_t t = bench_now_ns();
    for (size_t i = 0; i < p->n; i++) {
        cpShape *a = sa[p->ia[i]], *b = sb[p->ib[i]];
        place(a, p->xa[i], ta);
        place(b, p->xb[i], tb);
        bb_sum += cpShapeGetBB(a).r - cpShapeGetBB(b).l;
    }
    out->ns_place = (double)(bench_now_ns() - t) / (double)p->n;
    cp_sink = bb_sum;

    double depth_sum = 0.0;
    size_t hits = 0;
    t = bench_now_ns();
    for (size_t i = 0; i < p->n; i++) {
        cpShape *a = sa[p->ia[i]], *b = sb[p->ib[i]];
        place(a, p->xa[i], ta);
        place(b, p->xb[i], tb);
        bool hit;
        depth_sum += cp_collide(a, b, &hit);
        hits += hit;
    }
    out->ns_call = (double)(bench_now_ns() - t) / (double)p->n;
    out->depth_sum = depth_sum;
    out->hits = hits;

    /* Untimed: pair by pair against Mink's verdict and depth. */
    out->disagree = 0;
    out->depth_diff_max = 0.0;
    for (size_t i = 0; i < p->n; i++) {
        cpShape *a = sa[p->ia[i]], *b = sb[p->ib[i]];
        place(a, p->xa[i], ta);
        place(b, p->xb[i], tb);
        bool hit;
        double d = cp_collide(a, b, &hit);
        if (hit != (p->depth[i] > 0.0f)) {
            out->disagree++;
        } else if (hit) {
            double diff = fabs(d - (double)p->depth[i]);
            out->depth_diff_max = diff > out->depth_diff_max ? diff : out->depth_diff_max;
        }
    }

    for (int i = 0; i < BENCH_PALETTE; i++) {
        cpShapeFree(sa[i]);
        cpShapeFree(sb[i]);
    }
    cpBodyFree(body);
    return true;
}

#else

bool bench_cp_available(void)
{
    return false;
}

const char *bench_cp_version(void)
{
    return "not installed";
}

bool bench_cp_debug_build(void)
{
    return false;
}

bool bench_cp_boxes(const bench_boxes *b, int steps, bool sleep, bench_cp_boxes_result *out)
{
    (void)b;
    (void)sleep;
    (void)steps;
    (void)out;
    return false;
}

bool bench_cp_query(const bench_pairs *p, bench_cp_query_result *out)
{
    (void)p;
    (void)out;
    return false;
}

#endif
