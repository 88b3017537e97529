/* Entity interpolation (interp.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"

#define PI 3.14159265358979323846

/* The weight of a new sample in the running means: about the last 16 states. */
#define SMOOTH 0.0625

void cli_interp_init(cli_interp *ip, double tick_hz)
{
    memset(ip, 0, sizeof *ip);
    ip->tick_ms = 1000.0 / (tick_hz > 0 ? tick_hz : 60.0);
    for (int i = 0; i < CLI_INTERP_STATES; i++)
        ip->ring[i].bodies.v = mk_vec_make(sizeof(cli_snap_body));
}

void cli_interp_free(cli_interp *ip)
{
    for (int i = 0; i < CLI_INTERP_STATES; i++)
        mk_vec_free(&ip->ring[i].bodies.v);
    memset(ip, 0, sizeof *ip);
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = ((const cli_snap_body *)a)->id, y = ((const cli_snap_body *)b)->id;
    return (x > y) - (x < y);
}

static const cli_snap *snap_at(const cli_interp *ip, unsigned k)
{
    return &ip->ring[(ip->head + k) % CLI_INTERP_STATES];
}

int cli_interp_push(cli_interp *ip, const cli_world *w, double arrival_ms)
{
    if (ip->len > 0 && w->tick <= ip->last_tick)
        return 0;
    unsigned slot = (ip->head + ip->len) % CLI_INTERP_STATES;
    if (ip->len == CLI_INTERP_STATES)
        slot = ip->head; /* the oldest goes */
    cli_snap *s = &ip->ring[slot];
    if (!mk_vec_resize(&s->bodies.v, w->count))
        return -1;
    s->tick = w->tick;
    for (size_t i = 0; i < w->count; i++) {
        const cli_body *b = &w->bodies[i];
        cli_snap_body *o = &s->bodies.at[i];
        o->id = b->id;
        memcpy(o->pos, b->pos, sizeof o->pos);
        memcpy(o->vel, b->vel, sizeof o->vel);
        o->rot = b->rot;
        memcpy(o->quat, b->quat, sizeof o->quat);
    }
    qsort(s->bodies.at, s->bodies.v.len, sizeof *s->bodies.at, by_id);
    if (ip->len == CLI_INTERP_STATES)
        ip->head = (ip->head + 1) % CLI_INTERP_STATES;
    else
        ip->len++;

    /* The timeline: where this tick falls in local time, smoothed; the interval and the
     * deviation from the timeline as running means. */
    double sample = arrival_ms - (double)w->tick * ip->tick_ms;
    if (!ip->has_timeline) {
        ip->has_timeline = true;
        ip->offset_ms = sample;
        ip->interval_ms = 0;
        ip->jitter_ms = 0;
    } else {
        double interval = (double)(w->tick - ip->last_tick) * ip->tick_ms;
        ip->interval_ms = ip->interval_ms == 0 ? interval
                                               : ip->interval_ms + SMOOTH * (interval - ip->interval_ms);
        double dev = sample - ip->offset_ms;
        ip->jitter_ms += SMOOTH * (fabs(dev) - ip->jitter_ms);
        /* The timeline moves by a small part of each deviation, so that the picture never
         * jumps; the delay's jitter term keeps late states ahead of it. */
        ip->offset_ms += SMOOTH * dev;
    }
    ip->last_tick = w->tick;
    return 0;
}

double cli_interp_delay(const cli_interp *ip)
{
    double d = 2.0 * ip->interval_ms + 2.0 * ip->jitter_ms;
    return d > CLI_DELAY_MAX_MS ? CLI_DELAY_MAX_MS : d;
}

double cli_interp_render_tick(const cli_interp *ip, double now_ms)
{
    if (!ip->has_timeline)
        return 0;
    return (now_ms - cli_interp_delay(ip) - ip->offset_ms) / ip->tick_ms;
}

static const cli_snap_body *find(const cli_snap *s, uint64_t id)
{
    size_t lo = 0, hi = s->bodies.v.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->bodies.at[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->bodies.v.len && s->bodies.at[lo].id == id ? &s->bodies.at[lo] : NULL;
}

static void put(cli_body *out, const cli_snap_body *a)
{
    memcpy(out->pos, a->pos, sizeof out->pos);
    out->rot = a->rot;
    memcpy(out->quat, a->quat, sizeof out->quat);
}

/* The shorter way from angle a to angle b, rad. */
static double turn(double a, double b)
{
    double d = fmod(b - a, 2.0 * PI);
    if (d > PI)
        d -= 2.0 * PI;
    else if (d < -PI)
        d += 2.0 * PI;
    return d;
}

/* Between a (u = 0) and b (u = 1): positions and 2D angles linearly, quaternions by
 * normalised linear interpolation on the shorter arc (close to slerp for the small turns
 * between two states, and cheaper). */
static void blend(cli_body *out, const cli_snap_body *a, const cli_snap_body *b, double u)
{
    for (int i = 0; i < 3; i++)
        out->pos[i] = a->pos[i] + (b->pos[i] - a->pos[i]) * u;
    out->rot = a->rot + turn(a->rot, b->rot) * u;
    double dot = 0;
    for (int i = 0; i < 4; i++)
        dot += a->quat[i] * b->quat[i];
    double sign = dot < 0 ? -1.0 : 1.0, len = 0, q[4];
    for (int i = 0; i < 4; i++) {
        q[i] = a->quat[i] + (sign * b->quat[i] - a->quat[i]) * u;
        len += q[i] * q[i];
    }
    len = sqrt(len);
    for (int i = 0; i < 4; i++)
        out->quat[i] = len > 0 ? q[i] / len : a->quat[i];
}

bool cli_interp_sample(const cli_interp *ip, uint64_t id, double t, cli_body *out)
{
    if (ip->len == 0)
        return false;
    /* The newest state at or before t, and the one after it. */
    unsigned k = ip->len;
    while (k > 0 && (double)snap_at(ip, k - 1)->tick > t)
        k--;
    if (k == 0) { /* before everything kept: the oldest state */
        const cli_snap_body *a = find(snap_at(ip, 0), id);
        if (a)
            put(out, a);
        return a != NULL;
    }
    const cli_snap *s0 = snap_at(ip, k - 1);
    const cli_snap_body *a = find(s0, id);
    if (k < ip->len) {
        const cli_snap *s1 = snap_at(ip, k);
        const cli_snap_body *b = find(s1, id);
        if (a && b) {
            blend(out, a, b, (t - (double)s0->tick) / (double)(s1->tick - s0->tick));
            return true;
        }
        if (!a) { /* appeared in the next state: show it there */
            if (b)
                put(out, b);
            return b != NULL;
        }
        put(out, a); /* gone in the next state: where it was last */
        return true;
    }
    if (!a)
        return false;
    /* Past the newest state: along the velocity for a little while, then held. */
    double ahead = fmin((t - (double)s0->tick) * ip->tick_ms, CLI_EXTRAPOLATE_MS) / 1000.0;
    put(out, a);
    for (int i = 0; i < 3; i++)
        out->pos[i] += a->vel[i] * ahead;
    return true;
}
