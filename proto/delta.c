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

uint64_t proto_delta_qw_bit(int dim)
{
    return dim == 3 ? (uint64_t)1 << 6 : 0;
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

#if defined(__SSE2__)
#include <emmintrin.h>

/* Two values rounded half away from zero to whole numbers, as quant(v, 1) rounds them, two at a
 * time (SSE2, in every x86-64): with a = |v| below 2^51, a + 2^52 is a rounded to a whole
 * number (ties to even), and its bits less those of 2^52 are that number; a tie that went down
 * to even gets its 1 back, and the sign is applied as two's complement. A lane of 2^51 or
 * past, or not finite, sets *bad's bits: then quant() decides. */
static inline __m128i round2(__m128d v, __m128i *bad)
{
    const __m128d two52 = _mm_set1_pd(4503599627370496.0);
    __m128d a = _mm_andnot_pd(_mm_set1_pd(-0.0), v);
    *bad = _mm_or_si128(*bad, _mm_castpd_si128(
                                  _mm_cmpnlt_pd(a, _mm_set1_pd(2251799813685248.0))));
    __m128d t = _mm_add_pd(a, two52);
    __m128d tie_down = _mm_cmpeq_pd(_mm_sub_pd(a, _mm_sub_pd(t, two52)), _mm_set1_pd(0.5));
    __m128i m = _mm_sub_epi64(_mm_castpd_si128(t), _mm_castpd_si128(two52));
    m = _mm_sub_epi64(m, _mm_castpd_si128(tie_down)); /* the mask is -1 */
    __m128i neg = _mm_castpd_si128(_mm_cmplt_pd(v, _mm_setzero_pd()));
    return _mm_sub_epi64(_mm_xor_si128(m, neg), neg);
}

static inline bool any_set(__m128i bits)
{
    return _mm_movemask_epi8(_mm_cmpeq_epi8(bits, _mm_setzero_si128())) != 0xFFFF;
}

/* Two fields quantised at scale into q (|v * scale| is |v| * scale, and a value that rounds
 * to 0 has no sign); false when quant() must decide. */
static inline bool quant2(const double *v, __m128d scale, int64_t *q)
{
    __m128i bad = _mm_setzero_si128();
    _mm_storeu_si128((__m128i *)q, round2(_mm_mul_pd(_mm_loadu_pd(v), scale), &bad));
    return !any_set(bad);
}

/* The fields two by two; a 3D state's doubles are in the fields' order (pos, rot, vel, w).
 * The pairs from the velocities on are those predict_pairs reads: a load of two fields from
 * two stores (one of each) would wait for them to reach the cache. */
static bool quantise_pairs(int dim, const proto_body_state *s, int64_t *q)
{
    const __m128d s4 = _mm_set1_pd(1e4), s3 = _mm_set1_pd(1e3);
    if (dim == 3) {
        const double *v = s->pos;
        return quant2(v, s4, q) & quant2(v + 2, s4, q + 2) & quant2(v + 4, s4, q + 4) &
               quant2(v + 5, s4, q + 5) & quant2(v + 7, s3, q + 7) &
               quant2(v + 9, _mm_set_pd(1e4, 1e3), q + 9) & quant2(v + 11, s4, q + 11);
    }
    double rot_vx[2] = {s->rot[0], s->vel[0]}, vy_w[2] = {s->vel[1], s->w[0]};
    return quant2(s->pos, s4, q) & quant2(rot_vx, _mm_set_pd(1e3, 1e4), q + 2) &
           quant2(vy_w, _mm_set_pd(1e4, 1e3), q + 4);
}
#endif

void proto_quantise(int dim, const proto_body_state *s, int64_t *q)
{
#if defined(__SSE2__)
    if (quantise_pairs(dim, s, q))
        return;
#endif
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

static int64_t round_units(double v)
{
    return quant(v, 1.0);
}

/* A 3D orientation's w from its x, y and z, in units (1e4 per unit): a unit quaternion's w is
 * +-sqrt(1e8 - x^2 - y^2 - z^2), with the sign of the prediction's w (the "smallest three"
 * encoding of "Snapshot Compression", Gaffer on Games, where the sign is known). The squares
 * of whole numbers below 2^26 and their sum are exact in a double, and sqrt is rounded
 * exactly by IEEE 754: every client derives the same integer. The quantised w may differ from
 * it by a unit or two; then the difference is sent. */
static int64_t derive_qw(const int64_t *q, int64_t sign_of)
{
    double x = (double)q[3], y = (double)q[4], z = (double)q[5];
    double r = 1e8 - (x * x + y * y + z * z);
    double w = r > 0 ? sqrt(r) : 0.0;
    return round_units(sign_of < 0 ? -w : w);
}

/* The baseline's orientation turned by the mean of the baseline's and the new angular
 * velocity over t seconds: one step of q' = q + h/2 (0, w) q (the integration the world's
 * solver uses), then brought back to unit length to second order (times 1 - |dq|^2 / 2, as
 * dq is perpendicular to q), in the quantised units (1e4 per unit, 1e-4 rad/s). */
static void turn_quat(const int64_t *base, const int64_t *q, double t, int64_t *pred)
{
    double wx = (double)(base[10] + q[10]), wy = (double)(base[11] + q[11]),
           wz = (double)(base[12] + q[12]);
    if (wx == 0 && wy == 0 && wz == 0)
        return;
    /* t / 2 for the derivative's half, / 2 for the mean of two, 1e-4 for w's unit. */
    double c = t * 2.5e-5;
    double x = (double)base[3], y = (double)base[4], z = (double)base[5], w = (double)base[6];
    double dx = c * (wx * w + wy * z - wz * y);
    double dy = c * (wy * w + wz * x - wx * z);
    double dz = c * (wz * w + wx * y - wy * x);
    double dw = -c * (wx * x + wy * y + wz * z);
    double s = 1.0 - (dx * dx + dy * dy + dz * dz + dw * dw) * 5e-9;
    pred[3] = round_units((x + dx) * s);
    pred[4] = round_units((y + dy) * s);
    pred[5] = round_units((z + dz) * s);
    pred[6] = round_units((w + dw) * s);
}

#if defined(__SSE2__)
/* Two int64 lanes of magnitude below 2^51 as doubles (exactly): added to the bits of
 * 1.5 * 2^52 they are its mantissa's low bits, and 1.5 * 2^52 taken away leaves them. */
static inline __m128d to_f64(__m128i x)
{
    const __m128d magic = _mm_set1_pd(6755399441055744.0);
    return _mm_sub_pd(_mm_castsi128_pd(_mm_add_epi64(x, _mm_castpd_si128(magic))), magic);
}

static inline __m128i load2(const int64_t *v)
{
    return _mm_loadu_si128((const __m128i *)v);
}

/* bad gets bits where a lane of x is outside [-2^50, 2^50): sums of two stay below 2^51. */
static inline __m128i past50(__m128i bad, __m128i x)
{
    return _mm_or_si128(bad,
                        _mm_srli_epi64(_mm_add_epi64(x, _mm_set1_epi64x((int64_t)1 << 50)), 51));
}

static inline __m128d pick(__m128d a, __m128d b, int lanes) /* (a[lanes & 1], b[lanes >> 1]) */
{
    switch (lanes) {
    case 0:
        return _mm_shuffle_pd(a, b, 0);
    case 1:
        return _mm_shuffle_pd(a, b, 1);
    case 2:
        return _mm_shuffle_pd(a, b, 2);
    default:
        return _mm_shuffle_pd(a, b, 3);
    }
}

/* predict_motion's arithmetic two lanes at a time, the same operations in the same order on
 * each lane. False, with pred unfinished, when a number leaves the ranges this is exact in:
 * then the scalar code does it all. */
static bool predict_pairs(int dim, const int64_t *base, double t, const int64_t *q,
                          int64_t *pred)
{
    __m128i bad = _mm_setzero_si128();
    __m128d k = _mm_set1_pd(5.0 * t);
    if (dim == 2) {
        __m128i b23 = load2(base + 2), b45 = load2(base + 4);
        __m128i q23 = load2(q + 2), q45 = load2(q + 4);
        bad = past50(past50(past50(past50(bad, b23), b45), q23), q45);
        if (any_set(bad))
            return false;
        /* (vb + vn) of x and y, and of the angle (lane 1: w's sum) */
        __m128i v34 = _mm_castpd_si128(pick(_mm_castsi128_pd(_mm_add_epi64(b23, q23)),
                                            _mm_castsi128_pd(_mm_add_epi64(b45, q45)), 1));
        __m128i w5 = _mm_unpackhi_epi64(_mm_add_epi64(b45, q45), _mm_setzero_si128());
        __m128i move = round2(_mm_mul_pd(to_f64(v34), k), &bad);
        __m128i turn = round2(_mm_mul_pd(to_f64(w5), _mm_set_pd(0.0, 0.5 * t)), &bad);
        if (any_set(bad))
            return false;
        _mm_storeu_si128((__m128i *)pred, _mm_add_epi64(load2(base), move));
        _mm_storeu_si128((__m128i *)(pred + 2), _mm_add_epi64(b23, turn));
        _mm_storeu_si128((__m128i *)(pred + 4), b45);
        return true;
    }
    __m128i b34 = load2(base + 3), b56 = load2(base + 5), b78 = load2(base + 7),
            b910 = load2(base + 9), b1112 = load2(base + 11);
    __m128i q78 = load2(q + 7), q910 = load2(q + 9), q1112 = load2(q + 11);
    bad = past50(past50(past50(past50(past50(bad, b34), b56), b78), b910), b1112);
    bad = past50(past50(past50(bad, q78), q910), q1112);
    if (any_set(bad))
        return false;
    /* positions: (vb + vn) * 5t, z's in lane 0 of the second (lane 1 multiplied by 0) */
    __m128i move01 = round2(_mm_mul_pd(to_f64(_mm_add_epi64(b78, q78)), k), &bad);
    __m128d s910 = to_f64(_mm_add_epi64(b910, q910)); /* (vz sum, ax) */
    __m128i move2 = round2(_mm_mul_pd(s910, _mm_set_pd(0.0, 5.0 * t)), &bad);
    /* the orientation: (ax, ay, az) the sums of the angular velocities */
    __m128d s1112 = to_f64(_mm_add_epi64(b1112, q1112)); /* (ay, az) */
    __m128d axy = pick(s910, s1112, 1), ayz = s1112, azx = pick(s1112, s910, 3);
    __m128d xy = to_f64(b34), zw = to_f64(b56);
    __m128i turned34 = b34, turned56 = b56;
    if (_mm_movemask_pd(_mm_cmpneq_pd(axy, _mm_setzero_pd())) |
        _mm_movemask_pd(_mm_cmpneq_pd(ayz, _mm_setzero_pd()))) {
        double c = t * 2.5e-5;
        __m128d ww = _mm_unpackhi_pd(zw, zw), yy = _mm_unpackhi_pd(xy, xy);
        /* (dx, dy) = c * ((ax*w + ay*z) - az*y, (ay*w + az*x) - ax*z) */
        __m128d dxy = _mm_mul_pd(
            _mm_set1_pd(c),
            _mm_sub_pd(_mm_add_pd(_mm_mul_pd(axy, ww), _mm_mul_pd(ayz, pick(zw, xy, 0))),
                       _mm_mul_pd(azx, pick(xy, zw, 1))));
        /* (dz, dw) = (c, -c) * ((az*w + ax*y) - ay*x, (ax*x + ay*y) - -(az*z)) */
        __m128d c2 = _mm_mul_pd(ayz, pick(xy, zw, 0));
        c2 = _mm_xor_pd(c2, _mm_set_pd(-0.0, 0.0));
        __m128d dzw = _mm_mul_pd(
            _mm_set_pd(-c, c),
            _mm_sub_pd(_mm_add_pd(_mm_mul_pd(azx, pick(zw, xy, 1)), _mm_mul_pd(axy, yy)), c2));
        __m128d sq_xy = _mm_mul_pd(dxy, dxy), sq_zw = _mm_mul_pd(dzw, dzw);
        double sum = _mm_cvtsd_f64(sq_xy) + _mm_cvtsd_f64(_mm_unpackhi_pd(sq_xy, sq_xy));
        sum = sum + _mm_cvtsd_f64(sq_zw);
        sum = sum + _mm_cvtsd_f64(_mm_unpackhi_pd(sq_zw, sq_zw));
        __m128d sc = _mm_set1_pd(1.0 - sum * 5e-9);
        turned34 = round2(_mm_mul_pd(_mm_add_pd(xy, dxy), sc), &bad);
        turned56 = round2(_mm_mul_pd(_mm_add_pd(zw, dzw), sc), &bad);
    }
    if (any_set(bad))
        return false;
    _mm_storeu_si128((__m128i *)pred, _mm_add_epi64(load2(base), move01));
    pred[2] = base[2] + _mm_cvtsi128_si64(move2);
    _mm_storeu_si128((__m128i *)(pred + 3), turned34);
    _mm_storeu_si128((__m128i *)(pred + 5), turned56);
    _mm_storeu_si128((__m128i *)(pred + 7), b78);
    _mm_storeu_si128((__m128i *)(pred + 9), b910);
    _mm_storeu_si128((__m128i *)(pred + 11), b1112);
    return true;
}
#endif

/* Every field but a 3D w, from the baseline and q's velocities (the only fields of q read):
 * the velocities unchanged, the positions moved by the mean of the baseline's and q's
 * velocities over t = dticks / tick_hz seconds. A position moves 10 units (0.1 mm) a second
 * for each unit of velocity (1 mm/s), so by (vb + vq) * (5 t); an angle shares its angular
 * velocity's unit: (wb + wq) * (0.5 t). Every operation is one IEEE 754 double operation in
 * the order written, rounded half away from zero at the end (round_units): every client gets
 * the same integers. The ticks are capped at 2^24 (three days at 60 Hz); a product past 2^53
 * units (never a state of a world, which clamps speeds) rounds to 0. */
static void predict_motion(int dim, const int64_t *base, uint64_t dticks, uint32_t tick_hz,
                           const int64_t *q, int64_t *pred)
{
    if (dim == 3)
        memcpy(pred, base, 13 * sizeof *pred);
    else
        memcpy(pred, base, 6 * sizeof *pred);
    if (dticks == 0 || tick_hz == 0)
        return;
    if (dticks > (1u << 24))
        dticks = 1u << 24;
    double t = (double)dticks / (double)tick_hz, k = 5.0 * t;
#if defined(__SSE2__)
    if (predict_pairs(dim, base, t, q, pred))
        return;
#endif
    if (dim == 3) {
        for (int i = 0; i < 3; i++)
            pred[i] += round_units((double)(base[7 + i] + q[7 + i]) * k);
        turn_quat(base, q, t, pred);
    } else {
        pred[0] += round_units((double)(base[3] + q[3]) * k);
        pred[1] += round_units((double)(base[4] + q[4]) * k);
        pred[2] += round_units((double)(base[5] + q[5]) * (0.5 * t));
    }
}

void proto_delta_predict(int dim, const int64_t *base, uint64_t dticks, uint32_t tick_hz,
                         const int64_t *q, int64_t *pred)
{
    predict_motion(dim, base, dticks, tick_hz, q, pred);
    if (dim == 3)
        pred[6] = derive_qw(q, pred[6]);
}

static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233"
                            "34353637383940414243444546474849505152535455565758596061626364656667"
                            "6869707172737475767778798081828384858687888990919293949596979899";

/* A signed integer at p; the small ones a delta is made of (below 10,000) without a branch:
 * four digits from the pairs table as one little- or big-endian word, shifted past the
 * leading zeros, stored whole and the end moved by the digits kept. The values of a delta are
 * noise to a branch predictor; a mispredicted branch per value would cost more than the rest. */
static inline char *put_i64(char *p, int64_t v)
{
    uint64_t neg = (uint64_t)(v < 0);
    uint64_t u = ((uint64_t)v ^ (0 - neg)) + neg;
    if (u >= 10000) {
        if (neg)
            *p++ = '-';
        return proto_put_u64(p, u);
    }
    *p = '-';
    p += neg;
    uint16_t hi, lo;
    memcpy(&hi, pairs + 2 * ((uint32_t)u / 100u), 2);
    memcpy(&lo, pairs + 2 * ((uint32_t)u % 100u), 2);
    unsigned n = 1u + (u >= 10) + (u >= 100) + (u >= 1000);
    /* Built in a register from the table's bytes: a word loaded from two fresh 2-byte stores
     * would stall on store forwarding. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    uint32_t word = (uint32_t)hi << 16 | lo;
    word <<= 8 * (4 - n);
#else
    uint32_t word = (uint32_t)lo << 16 | hi;
    word >>= 8 * (4 - n);
#endif
    memcpy(p, &word, 4);
    return p + n;
}

/* ",v" for each v of magnitude below 10,000, which are nearly all of an entry's numbers: the
 * bytes, and in the top byte how many of them there are (at most 6). A number is then one
 * load, one 8-byte store and an add, where formatting it takes some twenty operations. 160
 * KiB, of which an entry reads the few lines of the small numbers; filled once, as the
 * program starts. */
#define TEXT_MAX 9999
static uint64_t comma_text[2 * TEXT_MAX + 1];

__attribute__((constructor)) static void fill_comma_text(void)
{
    for (int v = -TEXT_MAX; v <= TEXT_MAX; v++) {
        char s[8] = {','};
        size_t n = (size_t)(put_i64(s + 1, v) - s);
        uint64_t e = 0;
        memcpy(&e, s, 7);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        e = (e & ~(uint64_t)0xFF) | n;
#else
        e |= (uint64_t)n << 56;
#endif
        comma_text[v + TEXT_MAX] = e;
    }
}

/* ",v" at p; returns the end. The 8 bytes stored reach past the end: the entry's reserve
 * covers them. */
static inline char *put_comma_i64(char *p, int64_t v)
{
    if ((uint64_t)v + TEXT_MAX > 2 * TEXT_MAX) {
        *p++ = ',';
        return put_i64(p, v);
    }
    uint64_t e = comma_text[v + TEXT_MAX];
    memcpy(p, &e, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return p + (e & 0xFF);
#else
    return p + (e >> 56);
#endif
}

/* With the field count a constant, the loop over the fields is unrolled: every field's value
 * is written and the end moved past it only when the field is sent, without a branch
 * (whether a field is sent is noise to a branch predictor). */
static inline size_t body_delta(proto_buf *b, int dim, int n, int64_t id_delta,
                                const int64_t *pred, const int64_t *q, bool first_in_list)
{
    /* 15 numbers of at most 21 bytes and their commas, the brackets, and the 8 bytes the last
     * small number stores whole. */
    if (!proto_buf_reserve(b, 360))
        return b->len;
    uint64_t keep = 0, all = ((uint64_t)1 << n) - 1;
    for (int i = 0; i < n; i++)
        keep |= (uint64_t)(q[i] == pred[i]) << i;
    char *p = b->data + b->len;
    *p = ',';
    p += !first_in_list;
    char *open = p;
    p = put_comma_i64(p, id_delta);
    *open = '[';
    size_t tail = (size_t)(p - b->data);
    if (keep != all) {
        p = put_comma_i64(p, (int64_t)(keep ^ proto_delta_qw_bit(dim)));
        for (int i = 0; i < n; i++) {
            char *end = put_comma_i64(p, q[i] - pred[i]);
            p = keep >> i & 1 ? p : end;
        }
    }
    *p++ = ']';
    b->len = (size_t)(p - b->data);
    return tail;
}

size_t proto_state_body_delta(proto_buf *b, int dim, int64_t id_delta, const int64_t *pred,
                              const int64_t *q, bool first_in_list)
{
    if (dim == 3)
        return body_delta(b, 3, 13, id_delta, pred, q, first_in_list);
    return body_delta(b, 2, 6, id_delta, pred, q, first_in_list);
}

/* One field back from the entry's value and its prediction: false when a value or the sum
 * leaves the range a state can hold (both within 2^53, the sum cannot overflow). */
static bool apply_field(int i, int64_t pred, uint64_t keep, const int64_t *vals, int *k,
                        int nvals, int64_t *q)
{
    q[i] = pred;
    if (keep >> i & 1)
        return true;
    if (*k >= nvals)
        return false;
    int64_t v = vals[*k];
    (*k)++;
    if (!(v >= -(int64_t)Q_LIMIT && v <= (int64_t)Q_LIMIT) ||
        !(pred >= -(int64_t)Q_LIMIT && pred <= (int64_t)Q_LIMIT))
        return false;
    q[i] += v;
    return q[i] >= -(int64_t)Q_LIMIT && q[i] <= (int64_t)Q_LIMIT;
}

bool proto_delta_apply(int dim, const int64_t *base, uint64_t dticks, uint32_t tick_hz,
                       const int64_t *items, int nitems, int64_t *q)
{
    int n = proto_q_count(dim), first_rate = dim == 3 ? 7 : 3;
    uint64_t keep = ((uint64_t)1 << n) - 1; /* [d]: every field is its prediction */
    const int64_t *vals = items + 1;
    int nvals = nitems - 1;
    if (nitems > 0) {
        if (items[0] < 0 || (uint64_t)items[0] >> n)
            return false;
        keep = (uint64_t)items[0] ^ proto_delta_qw_bit(dim);
    } else {
        nvals = 0;
    }
    /* The values are in field order; the velocities are read first, since the positions'
     * prediction uses them, and a 3D w last, from the x, y and z just read. */
    int k = 0;
    for (int i = 0; i < first_rate; i++)
        if (!(keep >> i & 1))
            k++;
    int rates_at = k;
    for (int i = first_rate; i < n; i++)
        if (!apply_field(i, base[i], keep, vals, &k, nvals, q))
            return false;
    if (k != nvals)
        return false;
    int64_t pred[PROTO_Q_MAX];
    predict_motion(dim, base, dticks, tick_hz, q, pred);
    k = 0;
    for (int i = 0; i < first_rate; i++) {
        if (dim == 3 && i == 6)
            pred[6] = derive_qw(q, pred[6]);
        if (!apply_field(i, pred[i], keep, vals, &k, rates_at, q))
            return false;
    }
    return true;
}
