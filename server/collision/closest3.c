/* The closest points of two segments in double, shared by the capsule pair (round3.c) and the
 * edge contact of two boxes (box3.c). */
#include "collide3_internal.h"

/* Ericson's ClosestPtSegmentSegment: s on p0 + s d1, t on q0 + t d2, both in [0, 1]. */
void col_segments_closest(col_d3 p0, col_d3 d1, col_d3 q0, col_d3 d2, double *s_out,
                          double *t_out)
{
    col_d3 r = d3_sub(p0, q0);
    double a = d3_dot(d1, d1), e = d3_dot(d2, d2), f = d3_dot(d2, r);
    double c = d3_dot(d1, r), b = d3_dot(d1, d2);
    if (!(a > 0.0) || !(e > 0.0)) { /* a segment of zero length: a point */
        *s_out = 0.0;
        *t_out = e > 0.0 ? fmin(fmax(f / e, 0.0), 1.0) : 0.0;
        if (a > 0.0)
            *s_out = fmin(fmax(-c / a, 0.0), 1.0);
        return;
    }
    double denom = a * e - b * b;
    /* Parallel (denom within rounding of 0): any s; the middle of the overlap is as near as
     * any other and keeps the point steady. */
    double s = denom > 1e-12 * a * e ? fmin(fmax((b * f - c * e) / denom, 0.0), 1.0) : -1.0;
    if (s < 0.0) {
        /* The overlap of the projections of q's ends onto p's segment. */
        double t0 = -c / a, t1 = (b - c) / a;
        double lo = fmax(fmin(t0, t1), 0.0), hi = fmin(fmax(t0, t1), 1.0);
        s = lo <= hi ? 0.5 * (lo + hi) : (fmin(t0, t1) > 1.0 ? 1.0 : 0.0);
    }
    double t = (b * s + f) / e;
    if (t < 0.0) {
        t = 0.0;
        s = fmin(fmax(-c / a, 0.0), 1.0);
    } else if (t > 1.0) {
        t = 1.0;
        s = fmin(fmax((b - c) / a, 0.0), 1.0);
    }
    *s_out = s;
    *t_out = t;
}
