/* Prediction and reconciliation of the avatar (predict.h). */
#include <math.h>
#include <string.h>

#include "predict.h"

void cli_predict_init(cli_predict *p, int dim, double tick_hz, const double gravity[3],
                      bool kinematic)
{
    memset(p, 0, sizeof *p);
    p->dim = dim;
    p->kinematic = kinematic;
    double hz = tick_hz > 0 ? tick_hz : 60.0;
    p->dt = (float)(1.0 / hz);
    p->ticks_per_ms = hz / 1000.0;
    p->margin = CLI_PRED_MARGIN;
    for (int i = 0; i < 3; i++)
        p->gravity[i] = (float)gravity[i];
}

bool cli_predict_active(const cli_predict *p)
{
    return p->active;
}

double cli_predict_lead(const cli_predict *p)
{
    return p->rtt_ms * p->ticks_per_ms + p->margin;
}

static mk_vec2 v2(const float *f)
{
    return mk_v2(f[0], f[1]);
}

static mk_vec3 v3(const float *f)
{
    return mk_v3(f[0], f[1], f[2]);
}

/* Keeps the avatar out of the obstacles: passes of the character push-out against each
 * (the obstacle fixed, inverse mass 0; the avatar 1), as the server's push_out_characters. */
static void push_out(cli_predict *p)
{
    for (int pass = 0; pass < CLI_PRED_PASSES; pass++) {
        float largest = 0;
        for (size_t i = 0; i < p->nobs; i++) {
            const cli_obstacle *o = &p->obs[i];
            float push;
            if (p->dim == 3) {
                mk_vec3 up = chr_up3(v3(p->gravity));
                col_xf3 me = {v3(p->pos), mk_quat_identity()};
                col_manifold3 m = col_collide3(&o->s3, o->x3, &p->me3, me);
                if (m.count == 0)
                    continue;
                bool ground = chr_is_ground3(m.normal, up, CLI_PRED_MAX_SLOPE);
                p->grounded |= ground;
                chr_mover3 a = {o->x3.p, v3(o->vel), o->inv_mass},
                           b = {v3(p->pos), v3(p->vel), 1.0f};
                push = chr_push_out3(&a, &b, m.normal, m.depth, up, false, ground);
                p->pos[0] = b.pos.x, p->pos[1] = b.pos.y, p->pos[2] = b.pos.z;
                p->vel[0] = b.vel.x, p->vel[1] = b.vel.y, p->vel[2] = b.vel.z;
            } else {
                mk_vec2 up = chr_up2(v2(p->gravity));
                col_xf2 me = {v2(p->pos), 0.0f};
                col_manifold2 m = col_collide2(&o->s2, o->x2, &p->me2, me);
                if (m.count == 0)
                    continue;
                bool ground = chr_is_ground2(m.normal, up, CLI_PRED_MAX_SLOPE);
                p->grounded |= ground;
                chr_mover2 a = {o->x2.p, v2(o->vel), o->inv_mass},
                           b = {v2(p->pos), v2(p->vel), 1.0f};
                push = chr_push_out2(&a, &b, m.normal, m.depth, up, false, ground);
                p->pos[0] = b.pos.x, p->pos[1] = b.pos.y;
                p->vel[0] = b.vel.x, p->vel[1] = b.vel.y;
            }
            largest = push > largest ? push : largest;
        }
        if (largest < 1e-6f)
            break;
    }
}

/* One server tick of the avatar under an input: steer (or, kinematic, fly), jump, fall, move,
 * push out. The server's solver adds gravity and moves the body in substeps; one explicit
 * step per tick is within a millimetre of it over a replay, and reconciliation takes the
 * rest. */
static void step(cli_predict *p, const cli_pred_input *in, bool jump)
{
    int d = p->dim;
    float dt = p->dt;
    if (p->kinematic) {
        for (int i = 0; i < d; i++) {
            p->vel[i] = in->move[i] * CLI_PRED_MAX_SPEED;
            p->pos[i] += p->vel[i] * dt;
        }
        return;
    }
    if (d == 3) {
        mk_vec3 up = chr_up3(v3(p->gravity));
        mk_vec3 vel = chr_steer3(v3(p->vel), v3(in->move), CLI_PRED_MAX_SPEED, up, p->grounded, dt);
        if (jump && p->grounded)
            vel = chr_jump3(vel, up, chr_jump_speed(mk_v3_len(v3(p->gravity)), CLI_PRED_JUMP_HEIGHT));
        p->vel[0] = vel.x, p->vel[1] = vel.y, p->vel[2] = vel.z;
    } else {
        mk_vec2 up = chr_up2(v2(p->gravity));
        mk_vec2 vel = chr_steer2(v2(p->vel), v2(in->move), CLI_PRED_MAX_SPEED, up, p->grounded, dt);
        if (jump && p->grounded)
            vel = chr_jump2(vel, up, chr_jump_speed(mk_v2_len(v2(p->gravity)), CLI_PRED_JUMP_HEIGHT));
        p->vel[0] = vel.x, p->vel[1] = vel.y;
    }
    for (int i = 0; i < d; i++) {
        p->vel[i] += p->gravity[i] * dt;
        p->pos[i] += p->vel[i] * dt;
    }
    p->grounded = false;
    push_out(p);
}

/* The input the server applies at `tick`: the newest stamped for it or before. */
static const cli_pred_input *input_at(const cli_predict *p, uint64_t tick)
{
    static const cli_pred_input still = {0};
    const cli_pred_input *in = &still;
    for (size_t i = 0; i < p->n && p->in[i].tick <= tick; i++)
        in = &p->in[i];
    return in;
}

static void step_to(cli_predict *p, uint64_t tick)
{
    while (p->tick < tick) {
        const cli_pred_input *in = input_at(p, p->tick + 1);
        if (p->active)
            step(p, in, in->jump && in->tick == p->tick + 1);
        p->tick++;
    }
}

/* The tick the prediction stands at by now: the server's tick when an input sent now
 * arrives (a round trip after the clock's state left the server, less the time since),
 * and the margin. */
static uint64_t target_tick(const cli_predict *p, double now_ms)
{
    double t = p->clock + now_ms * p->ticks_per_ms + cli_predict_lead(p);
    return t > 0 ? (uint64_t)t : 0;
}

static void advance(cli_predict *p, double now_ms)
{
    if (!p->clocked)
        return;
    uint64_t target = target_tick(p, now_ms);
    if (target > p->tick + CLI_PRED_CATCH_UP)
        p->tick = target - CLI_PRED_CATCH_UP; /* a stall: what cannot be caught up is skipped */
    step_to(p, target); /* a clock that went back holds the prediction until it catches up */
}

uint64_t cli_predict_input(cli_predict *p, uint64_t seq, const double move[3], bool jump,
                           double now_ms)
{
    advance(p, now_ms);
    if (p->n == CLI_PRED_INPUTS) { /* the server stopped acknowledging: keep the newest */
        memmove(p->in, p->in + 1, (CLI_PRED_INPUTS - 1) * sizeof *p->in);
        p->n--;
    }
    cli_pred_input *in = &p->in[p->n++];
    in->seq = seq;
    in->tick = p->clocked ? p->tick + 1 : 0;
    for (int i = 0; i < 3; i++)
        in->move[i] = (float)move[i];
    in->jump = jump;
    in->timed = p->rtt_ms > 0;
    in->sent_ms = now_ms;
    return in->tick;
}

void cli_predict_rtt(cli_predict *p, double rtt_ms)
{
    if (!(rtt_ms >= 0))
        return;
    /* The larger of the newest and a decaying mean: a sudden rise is taken at once. */
    p->rtt_ms = p->rtt_ms > 0 ? fmax(rtt_ms, 0.75 * p->rtt_ms + 0.25 * rtt_ms) : rtt_ms;
}

/* The avatar's own shape, as the collision library sees it. */
static bool shape_of(const cli_body *b, int dim, col_shape2 *s2, col_shape3 *s3, col_polygon *poly)
{
    if (!b->has_shape)
        return false;
    if (dim == 3) {
        const cli_solid *s = &b->solid;
        memset(s3, 0, sizeof *s3);
        s3->radius = (float)s->radius;
        s3->half_height = (float)s->half_height;
        s3->half = mk_v3((float)s->half[0], (float)s->half[1], (float)s->half[2]);
        switch (s->type) {
        case CLI_SOLID_SPHERE: s3->type = COL_SHAPE3_SPHERE; return true;
        case CLI_SOLID_BOX: s3->type = COL_SHAPE3_BOX; return true;
        case CLI_SOLID_ELLIPSOID: s3->type = COL_SHAPE3_ELLIPSOID; return true;
        case CLI_SOLID_CAPSULE: s3->type = COL_SHAPE3_CAPSULE; return true;
        case CLI_SOLID_CYLINDER: s3->type = COL_SHAPE3_CYLINDER; return true;
        case CLI_SOLID_CONE: s3->type = COL_SHAPE3_CONE; return true;
        case CLI_SOLID_HULL: return false; /* a hull would be built per state: left out */
        }
        return false;
    }
    memset(s2, 0, sizeof *s2);
    switch (b->shape) {
    case CLI_SHAPE_BOX:
        s2->type = b->turns ? COL_SHAPE_BOX : COL_SHAPE_AABB;
        s2->half = mk_v2((float)b->hi[0], (float)b->hi[1]);
        return true;
    case CLI_SHAPE_CIRCLE:
        s2->type = COL_SHAPE_CIRCLE;
        s2->radius = (float)b->radius;
        return true;
    case CLI_SHAPE_POLYGON: {
        mk_vec2 pts[CLI_MAX_POLYGON];
        int n = b->npoints < CLI_MAX_POLYGON ? b->npoints : CLI_MAX_POLYGON;
        for (int i = 0; i < n; i++)
            pts[i] = mk_v2((float)b->points[i][0], (float)b->points[i][1]);
        /* The server's own hull; should it be refused, prediction leaves the body out. */
        if (col_polygon_make(pts, n, poly, NULL) != 0)
            return false;
        s2->type = COL_SHAPE_POLYGON;
        s2->polygon = poly;
        return true;
    }
    case CLI_SHAPE_LINES:
        return false; /* a level's lines: the server's alone to collide */
    }
    return false;
}

/* The bodies within reach of the avatar, from the world as it stands. */
static void gather(cli_predict *p, const cli_world *w, const cli_body *me)
{
    p->nobs = 0;
    for (size_t i = 0; i < w->count && p->nobs < CLI_PRED_OBSTACLES; i++) {
        const cli_body *b = &w->bodies[i];
        if (b == me)
            continue;
        double far = 0;
        if (p->dim == 3) {
            cli_footprint f;
            if (!b->has_shape)
                continue;
            cli_body_footprint(b, &f);
            double dx = fmax(fmax(f.lo[0] - me->pos[0], me->pos[0] - f.hi[0]), 0);
            double dz = fmax(fmax(f.lo[1] - me->pos[2], me->pos[2] - f.hi[1]), 0);
            far = fmax(dx, dz);
        } else {
            double lo[2], hi[2];
            cli_body_bounds(b, lo, hi);
            double dx = fmax(fmax(lo[0] - me->pos[0], me->pos[0] - hi[0]), 0);
            double dy = fmax(fmax(lo[1] - me->pos[1], me->pos[1] - hi[1]), 0);
            far = fmax(dx, dy);
        }
        if (far > CLI_PRED_REACH)
            continue;
        cli_obstacle *o = &p->obs[p->nobs];
        if (!shape_of(b, p->dim, &o->s2, &o->s3, &p->polys[p->nobs]))
            continue;
        o->x2 = (col_xf2){mk_v2((float)b->pos[0], (float)b->pos[1]), (float)b->rot};
        o->x3 = (col_xf3){mk_v3((float)b->pos[0], (float)b->pos[1], (float)b->pos[2]),
                          (mk_quat){(float)b->quat[0], (float)b->quat[1], (float)b->quat[2],
                                    (float)b->quat[3]}};
        for (int k = 0; k < 3; k++)
            o->vel[k] = (float)b->vel[k];
        /* A dynamic body or another player gives way as much as the avatar does (the server
         * pushes them through its solver; here they do not move, so the avatar is slowed as
         * by a body of its own mass); static and kinematic bodies do not. */
        o->inv_mass = b->kind == PROTO_KIND_STATIC || b->kind == PROTO_KIND_KINEMATIC ? 0.0f : 1.0f;
        p->nobs++;
    }
}

/* The clock from a state of tick S received at now: the least delayed states say most. */
static void set_clock(cli_predict *p, uint64_t tick, double now_ms)
{
    double sample = (double)tick - now_ms * p->ticks_per_ms;
    if (!p->clocked || sample < p->clock - 4)
        p->clock = sample; /* the first, or the server fell behind: follow it */
    else /* let down a tick a second at 20 states a second, not below a later sample */
        p->clock = fmax(sample, p->clock - 0.05);
    if (!p->clocked) /* inputs sent without a tick: the server applies them on arrival */
        for (size_t i = 0; i < p->n; i++)
            if (p->in[i].tick == 0)
                p->in[i].tick =
                    (uint64_t)fmax(1.0, p->clock + (p->in[i].sent_ms + p->rtt_ms) *
                                                       p->ticks_per_ms + 1.0);
    p->clocked = true;
}

double cli_predict_state(cli_predict *p, const cli_world *w, uint64_t avatar, double now_ms)
{
    set_clock(p, w->tick, now_ms);
    bool late = false;
    /* An input that the server took up after the tick it was stamped with came late: the
     * prediction moves further ahead. */
    for (size_t i = 0; i < p->n; i++) {
        if (p->in[i].seq != w->ack || w->ack_tick == 0)
            continue;
        if (w->ack_tick > p->in[i].tick) {
            if (p->in[i].tick > 0 && p->in[i].timed) {
                p->margin = fmin(p->margin + (double)(w->ack_tick - p->in[i].tick), 60.0);
                p->late++;
                late = true;
            }
            /* The server's tick from now on (once: it is then the input's tick), and none
             * after it earlier: the server applies them in order. */
            for (size_t j = i; j < p->n && p->in[j].tick < w->ack_tick; j++)
                p->in[j].tick = w->ack_tick;
        }
    }
    if (!late) /* back toward the least margin, a tick a second at 20 states a second */
        p->margin = fmax(CLI_PRED_MARGIN, p->margin - 0.05);
    advance(p, now_ms);
    const cli_body *me = cli_world_find((cli_world *)w, avatar);
    col_polygon unused;
    if (!me || !shape_of(me, p->dim, &p->me2, &p->me3, &unused) ||
        p->me2.type == COL_SHAPE_POLYGON) {
        p->active = false;
        return 0;
    }
    /* Inputs before the one applied at the state's next tick are done with. */
    size_t k = 0;
    while (k + 1 < p->n && p->in[k + 1].tick <= w->tick + 1 && p->in[k + 1].tick > 0)
        k++;
    memmove(p->in, p->in + k, (p->n - k) * sizeof *p->in);
    p->n -= k;

    bool was = p->active;
    float old[3] = {p->pos[0], p->pos[1], p->pos[2]};
    gather(p, w, me);
    for (int i = 0; i < 3; i++) {
        p->pos[i] = (float)me->pos[i];
        p->vel[i] = (float)me->vel[i];
    }
    /* Whether it stands: the push-out of a probe 2 mm lower finds ground. */
    float keep[3] = {p->pos[0], p->pos[1], p->pos[2]}, keepv[3] = {p->vel[0], p->vel[1], p->vel[2]};
    p->grounded = false;
    p->pos[1] -= 0.002f;
    push_out(p);
    memcpy(p->pos, keep, sizeof keep);
    memcpy(p->vel, keepv, sizeof keepv);
    p->active = true;
    /* The server's avatar at its tick, stepped again to where the prediction stood. */
    uint64_t ahead = p->tick > w->tick ? p->tick : w->tick;
    p->tick = w->tick;
    step_to(p, ahead);
    if (!was)
        return 0;
    double d2 = 0, delta[3];
    for (int i = 0; i < 3; i++) {
        delta[i] = (double)old[i] - (double)p->pos[i];
        d2 += delta[i] * delta[i];
    }
    double err = sqrt(d2);
    if (err >= CLI_PRED_SNAP)
        memset(p->offset, 0, sizeof p->offset);
    else
        for (int i = 0; i < 3; i++)
            p->offset[i] += delta[i]; /* drawn where it was, then eased onto the new path */
    return err;
}

void cli_predict_drawn(cli_predict *p, double now_ms, cli_body *out)
{
    advance(p, now_ms);
    double dt = p->offset_ms > 0 ? now_ms - p->offset_ms : 0;
    p->offset_ms = now_ms;
    double keep = exp(-fmax(dt, 0) / CLI_PRED_SMOOTH_MS);
    for (int i = 0; i < 3; i++) {
        p->offset[i] *= keep;
        out->pos[i] = (double)p->pos[i] + p->offset[i];
    }
    for (int i = 0; i < 3; i++)
        out->vel[i] = p->vel[i];
}
