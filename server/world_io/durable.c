/* The files of a durable save (--save): snapshots of the world's image and the journal of what
 * changed since, each checked by CRC-32C (mk_crc.h) so that a torn or flipped write is found,
 * named by its byte offset, and never replayed.
 *
 * A snapshot file: a 48-byte header, the world's image (sim_world_image), then one CRC-32C for
 * each 64 KiB block of the image, so that a damaged block is named by where it starts:
 *   "MINKSNAP" | u32 version | u32 block size | u64 tick | u64 hash | u64 image bytes |
 *   u32 (reserved, 0) | u32 CRC-32C of the 44 bytes before it
 * It is written as a scene save is (wio_file_replace, files.c).
 *
 * A journal file: records of one line each, "CCCCCCCC " (the CRC-32C of the rest of the line,
 * newline included, in 8 hex digits) and one of the journal's JSON lines (journal.c). A record
 * whose checksum does not hold, or that has no newline, is where the journal ends: the last
 * record of a file cut short by a crash, or a damaged one (then what follows is not trusted
 * either). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mk_crc.h"
#include "world_io_internal.h"

#define SNAP_MAGIC "MINKSNAP"
#define SNAP_VERSION 1u
#define SNAP_BLOCK 65536u
#define SNAP_HEADER 48u

static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t get32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint64_t get64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

int wio_snapshot_write(const char *path, uint64_t tick, uint64_t hash, const void *image,
                       size_t len, mk_error *err)
{
    unsigned char head[SNAP_HEADER] = {0};
    memcpy(head, SNAP_MAGIC, 8);
    put32(head + 8, SNAP_VERSION);
    put32(head + 12, SNAP_BLOCK);
    put64(head + 16, tick);
    put64(head + 24, hash);
    put64(head + 32, len);
    put32(head + 44, mk_crc32c(0, head, 44));
    size_t blocks = (len + SNAP_BLOCK - 1) / SNAP_BLOCK;
    uint32_t *crcs = malloc((blocks ? blocks : 1) * sizeof *crcs);
    if (!crcs)
        return mk_fail(err, MK_ERR_IO, "%s: out of memory", path);
    for (size_t i = 0; i < blocks; i++) {
        size_t at = i * SNAP_BLOCK, n = len - at < SNAP_BLOCK ? len - at : SNAP_BLOCK;
        crcs[i] = mk_crc32c(0, (const unsigned char *)image + at, n);
    }
    const wio_piece pieces[] = {{head, sizeof head}, {image, len}, {crcs, blocks * sizeof *crcs}};
    int rc = wio_file_replace(path, pieces, 3, err);
    free(crcs);
    return rc;
}

sim_world *wio_snapshot_parse(const void *file, size_t size, uint64_t *tick, uint64_t *hash,
                              mk_error *err)
{
    return wio_snapshot_parse_levels(file, size, NULL, tick, hash, err);
}

sim_world *wio_snapshot_parse_levels(const void *file, size_t size, const char *levels_dir,
                                     uint64_t *tick, uint64_t *hash, mk_error *err)
{
    const unsigned char *p = file;
    if (size < SNAP_HEADER || memcmp(p, SNAP_MAGIC, 8) != 0) {
        mk_fail(err, MK_ERR_INVALID, "byte 0: not a Mink snapshot");
        return NULL;
    }
    if (get32(p + 44) != mk_crc32c(0, p, 44)) {
        mk_fail(err, MK_ERR_INVALID, "byte 0: the header does not match its checksum");
        return NULL;
    }
    if (get32(p + 8) != SNAP_VERSION || get32(p + 12) != SNAP_BLOCK) {
        mk_fail(err, MK_ERR_INVALID, "byte 8: version %u, block size %u: not this build's",
                get32(p + 8), get32(p + 12));
        return NULL;
    }
    uint64_t len = get64(p + 32);
    uint64_t blocks = (len + SNAP_BLOCK - 1) / SNAP_BLOCK;
    if (len > size - SNAP_HEADER || blocks * 4 != size - SNAP_HEADER - len) {
        /* Named by where the file ends: what the header promised is not all there. */
        mk_fail(err, MK_ERR_INVALID,
                "byte %zu: the file ends there; its header says %" PRIu64 " bytes of image and "
                "%" PRIu64 " checksums (cut short?)", size, len, blocks);
        return NULL;
    }
    const unsigned char *image = p + SNAP_HEADER, *crcs = image + len;
    for (uint64_t i = 0; i < blocks; i++) {
        uint64_t at = i * SNAP_BLOCK, n = len - at < SNAP_BLOCK ? len - at : SNAP_BLOCK;
        if (mk_crc32c(0, image + at, (size_t)n) != get32(crcs + 4 * i)) {
            mk_fail(err, MK_ERR_INVALID,
                    "byte %" PRIu64 ": the block of %" PRIu64 " bytes there does not match its "
                    "checksum", SNAP_HEADER + at, n);
            return NULL;
        }
    }
    sim_world *w = sim_world_from_image_levels(image, (size_t)len, wio_level_resolve,
                                               (void *)levels_dir, err);
    if (!w) {
        mk_error_prefix(err, "the image at byte %u: ", SNAP_HEADER);
        return NULL;
    }
    *tick = get64(p + 16);
    *hash = get64(p + 24);
    if (sim_world_tick(w) != *tick || sim_world_hash(w) != *hash) {
        mk_fail(err, MK_ERR_INVALID,
                "byte 16: the header says tick %" PRIu64 " hash %016" PRIx64 ", the world is "
                "at tick %" PRIu64 " hash %016" PRIx64, *tick, *hash, sim_world_tick(w),
                sim_world_hash(w));
        sim_world_free(w);
        return NULL;
    }
    return w;
}

sim_world *wio_snapshot_read(const char *path, uint64_t *tick, uint64_t *hash, mk_error *err)
{
    return wio_snapshot_read_levels(path, NULL, tick, hash, err);
}

sim_world *wio_snapshot_read_levels(const char *path, const char *levels_dir, uint64_t *tick,
                                    uint64_t *hash, mk_error *err)
{
    size_t size;
    char *data = wio_read_file(path, &size, err);
    if (!data)
        return NULL;
    sim_world *w = wio_snapshot_parse_levels(data, size, levels_dir, tick, hash, err);
    free(data);
    if (!w)
        mk_error_prefix(err, "%s: ", path);
    return w;
}

/* ---- the journal's records ---- */

void wio_record_frame(proto_buf *out, const char *line, size_t len)
{
    char crc[10];
    snprintf(crc, sizeof crc, "%08" PRIx32 " ", mk_crc32c(0, line, len));
    proto_buf_append(out, crc, 9);
    proto_buf_append(out, line, len);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int wio_record_scan(const char *data, size_t len, wio_record_fn fn, void *ctx, size_t *end,
                    mk_error *err)
{
    size_t at = 0;
    *end = 0;
    while (at < len) {
        const char *nl = memchr(data + at, '\n', len - at);
        size_t line_end = nl ? (size_t)(nl - data) + 1 : len;
        uint32_t want = 0;
        bool framed = line_end - at >= 10 && data[at + 8] == ' ';
        for (size_t i = 0; framed && i < 8; i++) {
            int d = hex_digit(data[at + i]);
            framed = d >= 0;
            want = want << 4 | (uint32_t)(d < 0 ? 0 : d);
        }
        if (!nl || !framed || mk_crc32c(0, data + at + 9, line_end - at - 9) != want) {
            bool last = line_end == len;
            mk_fail(err, MK_ERR_INVALID,
                    "byte %zu: %s record (%zu bytes) does not match its checksum%s", at,
                    last ? "the last" : "a", line_end - at,
                    last ? " (cut short by a crash): dropped" : "; what follows is not read");
            return last ? 1 : -1;
        }
        bool go_on = fn(ctx, data + at + 9, line_end - at - 9, at);
        at = line_end;
        *end = at;
        if (!go_on)
            return 2;
    }
    return 0;
}
