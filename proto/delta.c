/* `subscribe {delta}`: body states as small integers relative to what the client last
 * received (mink_proto.h). The method is snapshot delta compression against the last state
 * the receiver has ("Snapshot Compression", Fiedler, Gaffer on Games), with the baseline
 * moved along its own velocity first (dead reckoning, as in DIS, IEEE 1278.1), so that a
 * body moving steadily costs its id and nothing else; TCP delivers every state in order, so
 * the last state written to the socket is the receiver's baseline without acknowledgements.
 * A 3D orientation's w is predicted from its x, y and z once those are known (derive_qw). */
#include <math.h>
#include <string.h>

#include "mink_proto.h"

/* Scales of the quantised fields: 1e4 per m or rad (0.1 mm, 1e-4 rad), 1e3 per m/s. */
static const double scale2[6] = {1e4, 1e4, 1e4, 1e3, 1e3, 1e4};
static const double scale3[13] = {1e4, 1e4, 1e4, 1e4, 1e4, 1e4, 1e4,
                                  1e3, 1e3, 1e3, 1e4, 1e4, 1e4};
/* A quantised value never leaves +-2^53 (a position of 1e6 m is 1e10), so that it reads back
 * exactly as a JSON number and sums of two stay far from int64's end. */
#define Q_LIMIT 9007199254740992.0

int proto_q_count(int dim)
{
    return dim == 3 ? 13 : 6;
}

/* Rounded half away from zero, as the state writer rounds its last digit. Branch-free where
 * the data is random (the rounding, the sign): a mispredicted branch per field costs more
 * than the arithmetic. */
static inline int64_t quant(double v, double scale)
{
    double a = fabs(v) * scale;
    if (!(a < Q_LIMIT))
        return 0; /* not finite or past any state's range: never sent by the server */
    int64_t m = (int64_t)a;
    m += (int64_t)(a - (double)m >= 0.5);
    int64_t neg = -(int64_t)(v < 0);
    return (m ^ neg) - neg;
}

void proto_quantise(int dim, const proto_body_state *s, int64_t *q)
{
    q[0] = quant(s->pos[0], 1e4);
    q[1] = quant(s->pos[1], 1e4);
    if (dim == 3) {
        q[2] = quant(s->pos[2], 1e4);
        for (int i = 0; i < 4; i++)
            q[3 + i] = quant(s->rot[i], 1e4);
        for (int i = 0; i < 3; i++) {
            q[7 + i] = quant(s->vel[i], 1e3);
            q[10 + i] = quant(s->w[i], 1e4);
        }
    } else {
        q[2] = quant(s->rot[0], 1e4);
        q[3] = quant(s->vel[0], 1e3);
        q[4] = quant(s->vel[1], 1e3);
        q[5] = quant(s->w[0], 1e4);
    }
}

void proto_dequantise(int dim, const int64_t *q, proto_body_state *s)
{
    const double *scale = dim == 3 ? scale3 : scale2;
    double v[PROTO_Q_MAX];
    for (int i = 0; i < proto_q_count(dim); i++)
        v[i] = (double)q[i] / scale[i];
    if (dim == 3) {
        memcpy(s->pos, v, 3 * sizeof *v);
        memcpy(s->rot, v + 3, 4 * sizeof *v);
        memcpy(s->vel, v + 7, 3 * sizeof *v);
        memcpy(s->w, v + 10, 3 * sizeof *v);
    } else {
        s->pos[0] = v[0];
        s->pos[1] = v[1];
        s->pos[2] = 0;
        s->rot[0] = v[2];
        s->vel[0] = v[3];
        s->vel[1] = v[4];
        s->vel[2] = 0;
        s->w[0] = v[5];
    }
}

/* rate * dticks / tick_hz in the position's units, rounded half away from zero: a velocity
 * of 1 mm/s moves the position 10 units (0.1 mm) a second; an angular velocity and an angle
 * share their unit. The ticks are capped at 2^24 (three days at 60 Hz: a body asleep that
 * long is extrapolated by the same amount on both sides and corrected) and the rate at
 * +-1e9 (1000 km/s; the world clamps speeds to 1 km/s), so that the product stays under
 * 2^58. */
static int64_t advance(int64_t rate, int64_t units_per_rate, uint64_t dticks, uint32_t tick_hz)
{
    const int64_t max_rate = 1000000000;
    if (tick_hz == 0 || rate == 0)
        return 0;
    if (dticks > (1u << 24))
        dticks = 1u << 24;
    rate = rate > max_rate ? max_rate : rate < -max_rate ? -max_rate : rate;
    int64_t num = rate * units_per_rate * (int64_t)dticks;
    int64_t den = (int64_t)tick_hz;
    int64_t mag = num < 0 ? -num : num;
    /* r = floor((2 mag + den) / (2 den)): the quotient rounded half away from zero. A double
     * division gives it within one (both operands are below 2^58), and two exact integer
     * comparisons settle it: a divide instruction costs more than the rest of the entry. */
    int64_t top = 2 * mag + den, step = 2 * den;
    int64_t r = (int64_t)((double)top / (double)step);
    if (r * step > top)
        r--;
    else if ((r + 1) * step <= top)
        r++;
    return num < 0 ? -r : r;
}

/* A 3D orientation's w from its x, y and z: a unit quaternion's w is
 * +-sqrt(1 - x^2 - y^2 - z^2), with the sign of the baseline's w (the "smallest three"
 * encoding of "Snapshot Compression", Gaffer on Games, where the sign is known). Only *, -,
 * / and sqrt, which IEEE 754 rounds exactly: every client derives the same integer. The
 * quantised w may differ from it by a unit or two; then the difference is sent. */
static int64_t derive_qw(const int64_t *q, int64_t sign_of)
{
    double x = (double)q[3] / 1e4, y = (double)q[4] / 1e4, z = (double)q[5] / 1e4;
    double r = 1.0 - (x * x + y * y + z * z);
    double w = r > 0 ? sqrt(r) : 0.0;
    return quant(sign_of < 0 ? -w : w, 1e4);
}

void proto_delta_predict(int dim, const int64_t *base, uint64_t dticks, uint32_t tick_hz,
                         int64_t *pred)
{
    int n = proto_q_count(dim);
    memcpy(pred, base, (size_t)n * sizeof *pred);
    if (dticks == 0)
        return;
    if (dim == 3) {
        for (int i = 0; i < 3; i++)
            pred[i] += advance(base[7 + i], 10, dticks, tick_hz);
    } else {
        pred[0] += advance(base[3], 10, dticks, tick_hz);
        pred[1] += advance(base[4], 10, dticks, tick_hz);
        pred[2] += advance(base[5], 1, dticks, tick_hz);
    }
}

static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233"
                            "34353637383940414243444546474849505152535455565758596061626364656667"
                            "6869707172737475767778798081828384858687888990919293949596979899";

/* A signed integer at p; the small ones a delta is made of without a loop or a call. */
static char *put_i64(char *p, int64_t v)
{
    uint64_t u = (uint64_t)v;
    if (v < 0) {
        *p++ = '-';
        u = (uint64_t)0 - u;
    }
    if (u < 10) {
        *p = (char)('0' + u);
        return p + 1;
    }
    if (u < 100) {
        memcpy(p, pairs + 2 * u, 2);
        return p + 2;
    }
    if (u < 1000) {
        *p = (char)('0' + u / 100);
        memcpy(p + 1, pairs + 2 * (u % 100), 2);
        return p + 3;
    }
    if (u < 10000) {
        memcpy(p, pairs + 2 * (u / 100), 2);
        memcpy(p + 2, pairs + 2 * (u % 100), 2);
        return p + 4;
    }
    return proto_put_u64(p, u);
}

void proto_state_body_delta(proto_buf *b, int dim, int64_t id_delta, const int64_t *pred,
                            const int64_t *q, bool first_in_list)
{
    /* 13 values of at most 21 bytes, the id, the mask and the punctuation. */
    if (!proto_buf_reserve(b, 340))
        return;
    int n = proto_q_count(dim);
    int64_t p6 = dim == 3 ? derive_qw(q, pred[6]) : 0;
    uint64_t keep = 0, all = ((uint64_t)1 << n) - 1;
    for (int i = 0; i < n; i++)
        if (q[i] == (dim == 3 && i == 6 ? p6 : pred[i]))
            keep |= (uint64_t)1 << i;
    char *p = b->data + b->len;
    if (!first_in_list)
        *p++ = ',';
    *p++ = '[';
    p = put_i64(p, id_delta);
    if (keep != all) {
        *p++ = ',';
        p = put_i64(p, (int64_t)keep);
        for (int i = 0; i < n; i++) {
            if (keep >> i & 1)
                continue;
            *p++ = ',';
            p = put_i64(p, q[i] - (dim == 3 && i == 6 ? p6 : pred[i]));
        }
    }
    *p++ = ']';
    b->len = (size_t)(p - b->data);
}

bool proto_delta_apply(int dim, const int64_t *pred, uint64_t keep, const int64_t *vals,
                       int nvals, int64_t *q)
{
    int n = proto_q_count(dim);
    if (keep >> n)
        return false;
    int k = 0;
    for (int i = 0; i < n; i++) {
        /* A 3D w is predicted from the x, y and z just read. */
        q[i] = dim == 3 && i == 6 ? derive_qw(q, pred[6]) : pred[i];
        if (keep >> i & 1)
            continue;
        if (k >= nvals)
            return false;
        /* Both within 2^53: the sum cannot overflow. */
        if (!(vals[k] >= -(int64_t)Q_LIMIT && vals[k] <= (int64_t)Q_LIMIT) ||
            !(pred[i] >= -(int64_t)Q_LIMIT && pred[i] <= (int64_t)Q_LIMIT))
            return false;
        q[i] += vals[k++];
        if (!(q[i] >= -(int64_t)Q_LIMIT && q[i] <= (int64_t)Q_LIMIT))
            return false;
    }
    return k == nvals;
}
