/* `subscribe {delta}` end to end without a server: random worlds (fixed seed) of 2D and 3D
 * bodies that appear, move, sleep (their state stays), wake and leave are written state after
 * state as the server writes them for one client (proto_quantise, proto_delta_predict,
 * proto_state_body_delta against a baseline per body), read by mink-client's world
 * (cli_world_apply), and compared with the same world read from compact states: every body's
 * numbers equal to the protocol's precision, after every state. Bad delta entries are refused.
 * The encoder's fast paths are held to plain arithmetic: quantising to C's round(), and every
 * number an entry can hold to snprintf's digits. */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "world.h"

#include "check_main.h"

#define BODIES 40
#define STATES 300
#define TICKS_PER_STATE 3
#define HZ 60

typedef struct model {
    bool alive, seen, asleep;
    uint64_t id;
    proto_body_state s;
    int64_t base[PROTO_Q_MAX];
    uint64_t base_tick;
} model;

static uint64_t rng_state = 0x243F6A8885A308D3ULL;
static double rnd(void) /* [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double range(double lo, double hi)
{
    return lo + (hi - lo) * rnd();
}

static void random_state(model *m, int dim)
{
    for (int i = 0; i < dim; i++) {
        m->s.pos[i] = range(-100, 100);
        m->s.vel[i] = range(-8, 8);
    }
    if (dim == 3) {
        double q[4], n = 0;
        for (int i = 0; i < 4; i++) {
            q[i] = range(-1, 1);
            n += q[i] * q[i];
        }
        for (int i = 0; i < 4; i++)
            m->s.rot[i] = q[i] / sqrt(n);
        for (int i = 0; i < 3; i++)
            m->s.w[i] = range(-3, 3);
    } else {
        m->s.rot[0] = range(-3, 3);
        m->s.w[0] = range(-3, 3);
    }
}

/* One snapshot period of motion: along the velocity, with gravity, a kick now and then. */
static void move(model *m, int dim)
{
    double dt = (double)TICKS_PER_STATE / HZ;
    for (int i = 0; i < dim; i++)
        m->s.pos[i] += m->s.vel[i] * dt;
    m->s.vel[1] -= 10 * dt;
    if (rnd() < 0.2)
        m->s.vel[0] += range(-1, 1);
    if (dim == 3) {
        m->s.rot[0] += 0.01 * m->s.w[1];
        double n = 0;
        for (int i = 0; i < 4; i++)
            n += m->s.rot[i] * m->s.rot[i];
        for (int i = 0; i < 4; i++)
            m->s.rot[i] /= sqrt(n);
    } else {
        m->s.rot[0] += m->s.w[0] * dt;
    }
}

static void first_fields(char *out, size_t size, int dim)
{
    snprintf(out, size, ",\"shape\":%s,\"kind\":\"dynamic\",\"owner\":0,\"tag\":\"\"}",
             dim == 3 ? "{\"type\":\"sphere\",\"radius\":0.5}"
                      : "{\"type\":\"circle\",\"radius\":0.5}");
}

static void apply_line(cli_world *w, const proto_buf *b)
{
    cJSON *j = cJSON_ParseWithLength(b->data, b->len);
    ck_assert_msg(j != NULL, "a state line does not parse");
    ck_assert_msg(cli_world_apply(w, j), "a state is refused: %.*s", (int)b->len, b->data);
    cJSON_Delete(j);
}

static void run(int dim)
{
    model m[BODIES];
    memset(m, 0, sizeof m);
    cli_world wd, wc;
    cli_world_init(&wd);
    cli_world_init(&wc);
    wd.dim = wc.dim = dim;
    wd.tick_hz = wc.tick_hz = HZ;
    proto_buf bd, bc;
    proto_buf_init(&bd);
    proto_buf_init(&bc);
    uint64_t next_gen = 1;
    int sent_delta = 0, left_out = 0;
    char first[160];
    first_fields(first, sizeof first, dim);
    for (int k = 1; k <= STATES; k++) {
        uint64_t tick = (uint64_t)k * TICKS_PER_STATE;
        uint64_t removed[BODIES];
        size_t nremoved = 0;
        for (int i = 0; i < BODIES; i++) {
            model *b = &m[i];
            if (!b->alive) {
                if (rnd() < 0.1) { /* appears */
                    b->alive = true;
                    b->seen = false;
                    b->asleep = false;
                    b->id = (next_gen++ << 24) | (uint64_t)(i + 1);
                    random_state(b, dim);
                    b->s.id = b->id;
                }
                continue;
            }
            if (rnd() < 0.02) { /* leaves */
                b->alive = false;
                if (b->seen)
                    removed[nremoved++] = b->id;
                continue;
            }
            if (b->asleep) {
                if (rnd() < 0.1) /* wakes */
                    b->asleep = false;
            } else if (rnd() < 0.05) { /* falls asleep: at rest, its state stays */
                b->asleep = true;
                for (int c = 0; c < 3; c++)
                    b->s.vel[c] = b->s.w[c] = 0;
            } else {
                move(b, dim);
            }
        }
        proto_buf_clear(&bd);
        proto_buf_clear(&bc);
        proto_state_begin_ext(&bd, tick, 0, 0, true, false, 0);
        proto_state_begin(&bc, tick, 0);
        bool fd = true, fc = true;
        uint64_t prev = 0;
        for (int i = 0; i < BODIES; i++) {
            model *b = &m[i];
            if (!b->alive)
                continue;
            int64_t q[PROTO_Q_MAX], pred[PROTO_Q_MAX];
            proto_quantise(dim, &b->s, q);
            if (!b->seen) {
                proto_state_body(&bd, dim, &b->s, fd);
                proto_buf_append_str(&bd, first);
                proto_state_body(&bc, dim, &b->s, fc);
                proto_buf_append_str(&bc, first);
                fd = fc = false;
                memcpy(b->base, q, sizeof q);
                b->base_tick = tick;
                b->seen = true;
                prev = b->id;
                continue;
            }
            proto_delta_predict(dim, b->base, tick - b->base_tick, HZ, q, pred);
            int n = proto_q_count(dim);
            if (memcmp(q, b->base, (size_t)n * sizeof *q) == 0 &&
                memcmp(pred, b->base, (size_t)n * sizeof *q) == 0) {
                left_out++;
                continue;
            }
            proto_state_body_delta(&bd, dim, (int64_t)(b->id - prev), pred, q, fd);
            fd = false;
            sent_delta++;
            memcpy(b->base, q, sizeof q);
            b->base_tick = tick;
            prev = b->id;
            if (!fc)
                proto_buf_append_char(&bc, ',');
            fc = false;
            proto_buf_append_char(&bc, '[');
            proto_buf_append_u64(&bc, b->id);
            proto_buf tmp;
            proto_buf_init(&tmp);
            /* The compact writer's ",[id,..." from the first number after the id (it always
             * writes a leading comma, which the first entry of a list must not have). */
            proto_state_body_compact(&tmp, dim, &b->s);
            const char *comma = memchr(tmp.data + 2, ',', tmp.len - 2);
            ck_assert_ptr_nonnull(comma);
            proto_buf_append(&bc, comma, tmp.len - (size_t)(comma - tmp.data));
            proto_buf_free(&tmp);
        }
        proto_state_bodies_end(&bd);
        proto_state_bodies_end(&bc);
        proto_state_removed(&bd, removed, nremoved);
        proto_state_removed(&bc, removed, nremoved);
        proto_state_end(&bd);
        proto_state_end(&bc);
        apply_line(&wd, &bd);
        apply_line(&wc, &bc);
        ck_assert_uint_eq(wd.count, wc.count);
        for (size_t i = 0; i < wc.count; i++) {
            const cli_body *c = &wc.bodies[i];
            cli_body *d = cli_world_find(&wd, c->id);
            ck_assert_msg(d != NULL, "state %d: body %llu missing from the delta world", k,
                          (unsigned long long)c->id);
            for (int j = 0; j < 3; j++) {
                ck_assert_double_eq_tol(d->pos[j], c->pos[j], 1e-9);
                ck_assert_double_eq_tol(d->vel[j], c->vel[j], 1e-9);
            }
            if (dim == 3)
                for (int j = 0; j < 4; j++)
                    ck_assert_msg(fabs(d->quat[j] - c->quat[j]) < 1e-9, "state %d body %llu q %g %g %g %g vs %g %g %g %g; %.*s", k, (unsigned long long)c->id, d->quat[0], d->quat[1], d->quat[2], d->quat[3], c->quat[0], c->quat[1], c->quat[2], c->quat[3], (int)bd.len, bd.data);
            else
                ck_assert_double_eq_tol(d->rot, c->rot, 1e-9);
        }
    }
    /* The run exercised what it claims: many deltas, bodies at rest left out. */
    ck_assert_int_gt(sent_delta, 1000);
    ck_assert_int_gt(left_out, 100);
    proto_buf_free(&bd);
    proto_buf_free(&bc);
    cli_world_free(&wd);
    cli_world_free(&wc);
}

START_TEST(delta_2d_matches_compact)
{
    run(2);
}
END_TEST

START_TEST(delta_3d_matches_compact)
{
    run(3);
}
END_TEST

/* Body 7 seen whole at tick 3 in a world of `dim` (`first`: its object), then `entry` at
 * tick 6; true when the client took the entry, and then *out is the body as it took it. */
static bool apply_after(int dim, const char *first, const char *entry, cli_body *out)
{
    cli_world w;
    cli_world_init(&w);
    w.dim = dim;
    w.tick_hz = HZ;
    char line[512];
    snprintf(line, sizeof line, "{\"type\":\"state\",\"tick\":3,\"ack\":0,\"bodies\":[%s]}",
             first);
    cJSON *a = cJSON_Parse(line);
    ck_assert(cli_world_apply(&w, a));
    snprintf(line, sizeof line,
             "{\"type\":\"state\",\"tick\":6,\"ack\":0,\"delta\":true,\"bodies\":[%s]}", entry);
    cJSON *b = cJSON_Parse(line);
    ck_assert_ptr_nonnull(b);
    bool ok = cli_world_apply(&w, b);
    if (ok)
        *out = *cli_world_find(&w, 7);
    cJSON_Delete(a);
    cJSON_Delete(b);
    cli_world_free(&w);
    return ok;
}

/* A body at (1, 2) moving at (2, 0) m/s, seen at tick 3; then one entry at tick 6. */
static bool apply_entry(const char *entry)
{
    cli_body body;
    bool ok = apply_after(2,
                          "{\"id\":7,\"pos\":[1,2],\"rot\":0,\"vel\":[2,0],\"w\":0,\"shape\":"
                          "{\"type\":\"circle\",\"radius\":0.5},\"kind\":\"dynamic\",\"owner\":0,"
                          "\"tag\":\"\"}",
                          entry, &body);
    if (ok) /* 3 ticks at 60 Hz along 2 m/s: 0.1 m on */
        ck_assert_double_eq_tol(body.pos[0], strcmp(entry, "[7]") == 0 ? 1.1 : 1.1 + 0.0005,
                                1e-9);
    return ok;
}

START_TEST(delta_entries_read_and_refused)
{
    ck_assert(apply_entry("[7]"));             /* moved as predicted */
    ck_assert(apply_entry("[7,62,5]"));        /* x 5 units (0.5 mm) past the prediction */
    ck_assert(!apply_entry("[8]"));            /* no body 8 */
    ck_assert(!apply_entry("[7,64]"));         /* a field 2D does not have */
    ck_assert(!apply_entry("[7,62]"));         /* the value is missing */
    ck_assert(!apply_entry("[7,62,5,6]"));     /* one value too many */
    ck_assert(!apply_entry("[7,62,0.5]"));     /* not whole */
    ck_assert(!apply_entry("[7,-1,5]"));       /* a negative keep */
    ck_assert(!apply_entry("[7,62,1e300]"));   /* past any state's range */
    ck_assert(!apply_entry("[\"7\"]"));        /* not a number */
}
END_TEST

/* A 3D cube at the origin turning about z at 1 rad/s, seen at tick 3; then `entry` at tick 6
 * (50 ms on). The body's orientation is written to quat, its position to pos. */
static bool apply_entry3(const char *entry, double quat[4], double pos[3])
{
    cli_body body;
    bool ok = apply_after(3,
                          "{\"id\":7,\"pos\":[0,0,1],\"rot\":[0,0,0,1],\"vel\":[0,0,-1],"
                          "\"w\":[0,0,1],\"shape\":{\"type\":\"box\",\"half\":[0.5,0.5,0.5]},"
                          "\"kind\":\"dynamic\",\"owner\":0,\"tag\":\"\"}",
                          entry, &body);
    if (ok) {
        memcpy(quat, body.quat, 4 * sizeof *quat);
        memcpy(pos, body.pos, 3 * sizeof *pos);
    }
    return ok;
}

/* The prediction by hand: 1 rad/s about z for 50 ms turns the cube by 0.05 rad, the
 * quaternion (0, 0, sin 0.025, cos 0.025) = (0, 0, 0.0250, 0.9997) at 1e-4; a fall at 1 m/s
 * that slows to 0.5 m/s moves it by the mean, 0.75 m/s, 37.5 mm. */
START_TEST(delta_3d_turns_and_moves_by_the_mean)
{
    double q[4], p[3];
    ck_assert(apply_entry3("[7]", q, p));
    ck_assert_double_eq_tol(q[2], 0.0250, 1e-4);
    ck_assert_double_eq_tol(q[3], 0.9997, 1e-4);
    ck_assert_double_eq_tol(q[0], 0.0, 1e-12);
    ck_assert_double_eq_tol(p[2], 1.0 - 0.05, 1e-12); /* kept at -1 m/s */
    /* vz sent as +500 (mm/s) past -1000: the new velocity is -0.5 m/s. The mask as written:
     * every field kept but vz (bit 9), with qw's bit (6) flipped: 8191 - 512 - 64. */
    ck_assert(apply_entry3("[7,7615,500]", q, p));
    ck_assert_double_eq_tol(p[2], 1.0 - 0.0375, 1e-12);
    ck_assert_double_eq_tol(q[2], 0.0250, 1e-4);
    /* qw sent: its flipped bit set means a value follows (0 here: the prediction). */
    ck_assert(apply_entry3("[7,8191,0]", q, p));
    ck_assert_double_eq_tol(q[3], 0.9997, 1e-4);
    ck_assert(!apply_entry3("[7,8191]", q, p));  /* the value qw's bit promises is missing */
    ck_assert(!apply_entry3("[7,8192,0]", q, p)); /* a field 3D does not have */
}
END_TEST

/* ---- the encoder's fast paths against plain arithmetic ---- */

/* A value quantised at `scale` as the protocol says: |v| * scale rounded half away from zero
 * (C's round), with v's sign; 0 when not finite or 2^53 or past. */
static int64_t quant_by_round(double v, double scale)
{
    double a = fabs(v) * scale;
    if (!(a < 9007199254740992.0))
        return 0;
    int64_t m = (int64_t)round(a);
    return v < 0 ? -m : m;
}

/* The doubles a state's fields get in this test: near-ties ((2k + 1) / 2e4 and / 2e3, many
 * of which scale to exactly k + 0.5), both zeros, the smallest numbers, the edges of the
 * fast path (2^51 units) and of the range (2^53 units) and one ulp either side, the
 * infinities, NaN and random numbers of every magnitude. */
static double edge_value(int i)
{
    static const double fixed[] = {0.0, -0.0, 5e-5, -5e-5, 4.9999999999999996e-5, 5e-4,
                                   -5e-4, 1.00005, -1.00005, 2.5, 1e-320, -1e-320,
                                   INFINITY, -INFINITY, NAN};
    int nfixed = (int)(sizeof fixed / sizeof fixed[0]);
    if (i < nfixed)
        return fixed[i];
    i -= nfixed;
    double two51 = 2251799813685248.0, two53 = 9007199254740992.0;
    switch (i % 8) {
    case 0:
        return (double)(2 * (i / 8) + 1) / 2e4 * (i % 16 ? 1 : -1);
    case 1:
        return (double)(2 * (i / 8) + 1) / 2e3 * (i % 16 > 8 ? -1 : 1);
    case 2: /* around 2^51 units at 1e4 or 1e3 a unit */
        return nextafter(two51 / ((i / 8) % 2 ? 1e4 : 1e3), (i / 8) % 4 < 2 ? 0 : INFINITY);
    case 3:
        return -nextafter(two53 / ((i / 8) % 2 ? 1e4 : 1e3), (i / 8) % 4 < 2 ? 0 : INFINITY);
    case 4:
        return two51 / 1e4;
    default:
        return range(-1, 1) * pow(10.0, range(-12, 13));
    }
}

START_TEST(quantise_rounds_half_away_from_zero)
{
    static const double scale2[6] = {1e4, 1e4, 1e4, 1e3, 1e3, 1e4};
    static const double scale3[13] = {1e4, 1e4, 1e4, 1e4, 1e4, 1e4, 1e4,
                                      1e3, 1e3, 1e3, 1e4, 1e4, 1e4};
    long checked = 0, ties = 0;
    for (int round = 0; round < 20000; round++) {
        for (int dim = 2; dim <= 3; dim++) {
            proto_body_state s;
            memset(&s, 0, sizeof s);
            double *fields[13] = {&s.pos[0], &s.pos[1], &s.pos[2], &s.rot[0], &s.rot[1],
                                  &s.rot[2], &s.rot[3], &s.vel[0], &s.vel[1], &s.vel[2],
                                  &s.w[0],   &s.w[1],   &s.w[2]};
            double *fields2[6] = {&s.pos[0], &s.pos[1], &s.rot[0], &s.vel[0], &s.vel[1],
                                  &s.w[0]};
            int n = dim == 3 ? 13 : 6;
            const double *scale = dim == 3 ? scale3 : scale2;
            double v[13];
            for (int i = 0; i < n; i++) {
                /* mostly ordinary numbers, so that a whole state takes the fast path */
                v[i] = rnd() < 0.8 ? range(-100, 100) : edge_value((int)(rnd() * 400));
                *(dim == 3 ? fields[i] : fields2[i]) = v[i];
            }
            int64_t q[PROTO_Q_MAX];
            proto_quantise(dim, &s, q);
            for (int i = 0; i < n; i++) {
                int64_t want = quant_by_round(v[i], scale[i]);
                if (q[i] != want)
                    ck_abort_msg("dim %d field %d: %.17g quantised to %lld, not %lld", dim, i,
                                 v[i], (long long)q[i], (long long)want);
                double a = fabs(v[i]) * scale[i];
                ties += a - floor(a) == 0.5;
                checked++;
            }
        }
    }
    printf("quantise: %ld fields as round() gives them, %ld of them exact ties\n", checked,
           ties);
    ck_assert_int_gt(ties, 1000);
}
END_TEST

/* One entry of values[] (q against a prediction of 0), and the text it must be, built with
 * snprintf: a field whose value is 0 is kept. */
static void check_entry(int dim, int64_t id_delta, const int64_t *values, bool first)
{
    int n = proto_q_count(dim);
    int64_t pred[PROTO_Q_MAX] = {0};
    proto_buf b;
    proto_buf_init(&b);
    proto_buf_append(&b, "x", 1);
    size_t tail = proto_state_body_delta(&b, dim, id_delta, pred, values, first);
    char want[512];
    int len = snprintf(want, sizeof want, "%s[%lld", first ? "" : ",", (long long)id_delta);
    int tail_at = 1 + len;
    uint64_t keep = 0;
    for (int i = 0; i < n; i++)
        keep |= (uint64_t)(values[i] == 0) << i;
    if (keep != ((uint64_t)1 << n) - 1) {
        len += snprintf(want + len, sizeof want - (size_t)len, ",%llu",
                        (unsigned long long)(keep ^ proto_delta_qw_bit(dim)));
        for (int i = 0; i < n; i++)
            if (values[i] != 0)
                len += snprintf(want + len, sizeof want - (size_t)len, ",%lld",
                                (long long)values[i]);
    }
    snprintf(want + len, sizeof want - (size_t)len, "]");
    if (b.len != 1 + strlen(want) || memcmp(b.data + 1, want, b.len - 1) != 0)
        ck_abort_msg("dim %d: wrote %.*s, not %s", dim, (int)b.len - 1, b.data + 1, want);
    ck_assert_uint_eq(tail, (size_t)tail_at);
    proto_buf_free(&b);
}

START_TEST(entry_numbers_at_every_length)
{
    /* every value from -10,010 to 10,010 in each field of a 2D entry, and in the id's step */
    int64_t v[PROTO_Q_MAX] = {0};
    for (int64_t x = -10010; x <= 10010; x++) {
        for (int i = 0; i < 6; i++) {
            memset(v, 0, sizeof v);
            v[i] = x;
            check_entry(2, 1, v, i % 2 == 0);
        }
        memset(v, 0, sizeof v);
        check_entry(2, x, v, x % 3 == 0);
    }
    /* whole 3D entries of numbers around the powers of ten, and past 2^53 */
    static const int64_t edges[] = {1, 9, 10, 99, 100, 999, 1000, 9999, 10000, 10001, 99999,
                                    1000000, 9007199254740993LL, INT64_MAX - 2};
    int ne = (int)(sizeof edges / sizeof edges[0]);
    for (int round = 0; round < 20000; round++) {
        for (int i = 0; i < 13; i++) {
            int64_t e = edges[(int)(rnd() * ne)] + ((int64_t)(rnd() * 3) - 1);
            v[i] = rnd() < 0.2 ? 0 : rnd() < 0.5 ? -e : e;
        }
        check_entry(3, (int64_t)(rnd() * 20000) - 10000, v, round % 2 == 0);
    }
}
END_TEST

/* docs/PROTOCOL.md's prediction as written there: IEEE 754 doubles, each operation in the
 * order written, round() half away from zero, a product past 2^53 rounding to 0. */
static int64_t round_book(double v)
{
    return fabs(v) < 9007199254740992.0 ? (int64_t)round(v) : 0;
}

static void predict_by_the_book(int dim, const int64_t *b, uint64_t ticks, uint32_t hz,
                                const int64_t *n, int64_t *p)
{
    memcpy(p, b, (size_t)proto_q_count(dim) * sizeof *p);
    double t = (double)(ticks > (1u << 24) ? 1u << 24 : ticks) / (double)hz;
    if (dim == 2) {
        p[0] = b[0] + round_book((double)(b[3] + n[3]) * (5 * t));
        p[1] = b[1] + round_book((double)(b[4] + n[4]) * (5 * t));
        p[2] = b[2] + round_book((double)(b[5] + n[5]) * (0.5 * t));
        return;
    }
    for (int i = 0; i < 3; i++)
        p[i] = b[i] + round_book((double)(b[7 + i] + n[7 + i]) * (5 * t));
    double ax = (double)(b[10] + n[10]), ay = (double)(b[11] + n[11]),
           az = (double)(b[12] + n[12]);
    double w = (double)b[6];
    if (ax != 0 || ay != 0 || az != 0) {
        double c = t * 2.5e-5, x = (double)b[3], y = (double)b[4], z = (double)b[5];
        double dx = c * (ax * w + ay * z - az * y);
        double dy = c * (ay * w + az * x - ax * z);
        double dz = c * (az * w + ax * y - ay * x);
        double dw = -c * (ax * x + ay * y + az * z);
        double s = 1 - (dx * dx + dy * dy + dz * dz + dw * dw) * 5e-9;
        p[3] = round_book((x + dx) * s);
        p[4] = round_book((y + dy) * s);
        p[5] = round_book((z + dz) * s);
        p[6] = round_book((w + dw) * s);
    }
    double qx = (double)n[3], qy = (double)n[4], qz = (double)n[5];
    double r = 1e8 - (qx * qx + qy * qy + qz * qz);
    double qw = r > 0 ? sqrt(r) : 0;
    p[6] = round_book(p[6] < 0 ? -qw : qw);
}

/* A random whole number of units with magnitude up to 10^e. */
static int64_t units(double e)
{
    return (int64_t)(range(-1, 1) * pow(10.0, range(0, e)));
}

START_TEST(prediction_is_the_documented_arithmetic)
{
    static const uint64_t ticks[] = {1, 3, 3, 3, 7, 60, 1000, 16777216, 16777219};
    static const uint32_t hzs[] = {60, 60, 30, 1, 128, 7};
    long checked = 0, still = 0;
    for (int round = 0; round < 200000; round++) {
        int dim = round % 2 ? 3 : 2, n = proto_q_count(dim);
        int64_t b[PROTO_Q_MAX], now[PROTO_Q_MAX], want[PROTO_Q_MAX], got[PROTO_Q_MAX];
        /* positions up to 1e6 m, quaternions of unit length or near it, velocities up to
         * 1 km/s, angular velocities up to 100 rad/s; now and then none, or huge */
        for (int i = 0; i < n; i++) {
            bool quat = dim == 3 && i >= 3 && i <= 6;
            bool pos = i < (dim == 3 ? 3 : 3);
            b[i] = quat ? units(4) : pos ? units(10) : units(rnd() < 0.05 ? 15 : 6);
            now[i] = quat ? units(4) : b[i] + units(3);
        }
        if (rnd() < 0.1) /* not turning, or not moving */
            for (int i = dim == 3 ? 7 : 3; i < n; i++)
                b[i] = now[i] = round % 4 < 2 ? 0 : b[i];
        uint64_t tk = ticks[(int)(rnd() * 9)];
        uint32_t hz = hzs[(int)(rnd() * 6)];
        predict_by_the_book(dim, b, tk, hz, now, want);
        proto_delta_predict(dim, b, tk, hz, now, got);
        for (int i = 0; i < n; i++)
            if (got[i] != want[i])
                ck_abort_msg("dim %d field %d after %llu ticks at %u Hz: %lld, not %lld", dim,
                             i, (unsigned long long)tk, hz, (long long)got[i],
                             (long long)want[i]);
        still += memcmp(got, b, (size_t)n * sizeof *b) == 0;
        checked++;
    }
    printf("prediction: %ld states as documented (%ld predicted where they were)\n", checked,
           still);
    ck_assert_int_gt(still, 100);
}
END_TEST

MINK_CHECK_TESTS("client_delta", 60, delta_2d_matches_compact, delta_3d_matches_compact,
                 delta_entries_read_and_refused, delta_3d_turns_and_moves_by_the_mean,
                 quantise_rounds_half_away_from_zero, entry_numbers_at_every_length,
                 prediction_is_the_documented_arithmetic)
