/* libccd (Debian's libccd-dev, built in double) doing Mink's 3D queries on the same shapes at
 * the same places: ccdGJKIntersect (a boolean), ccdGJKPenetration (GJK then EPA) and
 * ccdMPRPenetration (Minkowski portal refinement), each given the support functions of
 * Mink's shapes written in double in bench_query3.c. Built only when CMake found the library; otherwise every
 * function says it is not installed. */
#include "bench.h"

#if MINK_HAVE_CCD

#include <ccd/ccd.h>
#include <ccd/quat.h>

static void support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *vec)
{
    bench3_support(obj, dir->v, vec->v);
}

/* The shape's origin: inside every shape of the palettes (hull points surround it). */
static void center(const void *obj, ccd_vec3_t *c)
{
    const bench3_obj *o = obj;
    ccdVec3Set(c, o->p[0], o->p[1], o->p[2]);
}

/* Where results go so that the timed loops are not optimised away. */
static volatile double ccd_sink;

bool bench_ccd_available(void)
{
    return true;
}

double bench_ccd_query(const bench3_pairs *p, int which, double *depth, double (*dir)[3],
                       size_t *hits)
{
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = support;
    ccd.support2 = support;
    ccd.center1 = center;
    ccd.center2 = center;
    size_t h = 0;
    double sum = 0.0;
    uint64_t t = bench_now_ns();
    for (size_t i = 0; i < p->n; i++) {
        bench3_obj a, b;
        bench3_place(&a, &p->sa[i], p->xa[i]);
        bench3_place(&b, &p->sb[i], p->xb[i]);
        if (which == BENCH_CCD_INTERSECT) {
            h += ccdGJKIntersect(&a, &b, &ccd) != 0;
            continue;
        }
        ccd_real_t dep = 0.0;
        ccd_vec3_t d, pos;
        int rc = which == BENCH_CCD_EPA ? ccdGJKPenetration(&a, &b, &ccd, &dep, &d, &pos)
                                        : ccdMPRPenetration(&a, &b, &ccd, &dep, &d, &pos);
        if (rc == 0) {
            h++;
            sum += dep;
        }
        if (depth && i < BENCH_REF_PAIRS) {
            depth[i] = rc == 0 ? dep : -1.0;
            /* libccd's direction is the one to move B along to separate it (A to B). */
            for (int k = 0; k < 3; k++)
                dir[i][k] = rc == 0 ? d.v[k] : 0.0;
        }
    }
    double ns = (double)(bench_now_ns() - t) / (double)p->n;
    ccd_sink = sum;
    *hits = h;
    return ns;
}

#else

bool bench_ccd_available(void)
{
    return false;
}

double bench_ccd_query(const bench3_pairs *p, int which, double *depth, double (*dir)[3],
                       size_t *hits)
{
    (void)p, (void)which, (void)depth, (void)dir, (void)hits;
    return -1.0;
}

#endif
