/* A durable save's journal as a restart reads it (server/net/restore.c): the bytes are walked
 * as records, each checked against its CRC-32C; and, so that the fuzzer reaches the replay
 * behind the checksums, each line of the input (a record's "CCCCCCCC " dropped when it has
 * one) is framed with its right checksum after the start record of a 2D demo world with a
 * character of client 1, and replayed onto that world as the restart replays. Whatever the
 * bytes: the walk stays inside them and hands records that end in a newline, in order; a
 * failed replay says why; every body keeps a finite state. A line's tick may be at most
 * FUZZ_MAX_AHEAD past the world's (a journal's records are never further apart than a flush). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "mink_world_io.h"

#define FUZZ_MAX_LINES 64
#define FUZZ_MAX_AHEAD 32

typedef struct walk {
    const char *data;
    size_t size, next; /* where the next record must start */
    int records;
} walk;

static bool on_record(void *ctx, const char *line, size_t len, size_t offset)
{
    walk *k = ctx;
    fuzz_check(offset == k->next);
    fuzz_check(line == k->data + offset + 9 && offset + 9 + len <= k->size);
    fuzz_check(len > 0 && line[len - 1] == '\n');
    k->next = offset + 9 + len;
    k->records++;
    return true;
}

static void check_world(sim_world *w)
{
    size_t slots;
    const sim_body *b = sim_world_slots(w, &slots);
    for (size_t i = 0; i < slots; i++)
        if (b[i].id)
            fuzz_check(mk_v2_finite(b[i].pos) && mk_v2_finite(b[i].vel) && isfinite(b[i].angle));
}

typedef struct replay {
    sim_world *w;
    int rc;
} replay;

static bool on_framed(void *ctx, const char *line, size_t len, size_t offset)
{
    replay *r = ctx;
    (void)offset;
    char head[48];
    size_t n = len < sizeof head - 1 ? len : sizeof head - 1;
    memcpy(head, line, n);
    head[n] = '\0';
    unsigned long long tick;
    if (sscanf(head, "{\"tick\":%llu", &tick) == 1 && tick > sim_world_tick(r->w) + FUZZ_MAX_AHEAD)
        return true;
    mk_error err = {0};
    r->rc = wio_journal_apply(r->w, line, len, NULL, NULL, &err);
    fuzz_check(r->rc >= -1 && r->rc <= 2);
    if (r->rc < 0)
        fuzz_check(err.message[0] != '\0');
    check_world(r->w);
    return r->rc != 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The walk over the raw bytes. */
    walk k = {(const char *)data, size, 0, 0};
    size_t end;
    mk_error err = {0};
    int rc = wio_record_scan((const char *)data, size, on_record, &k, &end, &err);
    fuzz_check(rc == 0 || rc == 1 || rc == -1);
    fuzz_check(end == k.next && end <= size);
    if (rc == 0)
        fuzz_check(end == size);
    else
        fuzz_check(strstr(err.message, "checksum") != NULL);

    /* The replay behind the checksums. */
    sim_config cfg = sim_config_default();
    sim_world *w = wio_scene_load(wio_demo_scene2, strlen(wio_demo_scene2), "demo", &cfg, &err);
    fuzz_check(w != NULL);
    sim_body_def chr;
    memset(&chr, 0, sizeof chr);
    chr.shape.type = COL_SHAPE_BOX;
    chr.shape.half = mk_v2(0.4f, 0.9f);
    chr.pos = mk_v2(-6, 1);
    chr.kind = SIM_CHARACTER;
    chr.density = 1.0f;
    chr.max_speed = 5.0f;
    chr.jump_height = 1.5f;
    chr.max_slope = SIM_DEFAULT_MAX_SLOPE;
    fuzz_check(sim_world_add(w, &chr, 1) != 0);
    proto_buf framed;
    proto_buf_init(&framed);
    char start[96];
    int n = snprintf(start, sizeof start, "{\"tick\":0,\"start\":\"%016" PRIx64 "\"}\n",
                     sim_world_hash(w));
    wio_record_frame(&framed, start, (size_t)n);
    const char *p = (const char *)data, *stop = p + size;
    char line[8192];
    for (int i = 0; p < stop && i < FUZZ_MAX_LINES; i++) {
        const char *nl = memchr(p, '\n', (size_t)(stop - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(stop - p);
        const char *q = p;
        if (len >= 9 && q[8] == ' ' && strspn(q, "0123456789abcdef") >= 8) {
            q += 9;
            len -= 9;
        }
        if (len < sizeof line) {
            memcpy(line, q, len);
            line[len] = '\n';
            wio_record_frame(&framed, line, len + 1);
        }
        p = (nl ? nl : stop) + 1;
    }
    replay r = {w, 0};
    fuzz_check(!framed.failed);
    rc = wio_record_scan(framed.data, framed.len, on_framed, &r, &end, &err);
    fuzz_check(rc == 0 || rc == 2);
    proto_buf_free(&framed);
    sim_world_free(w);
    return 0;
}
