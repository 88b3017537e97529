/* A durable save (--save FILE): Redis's snapshots plus append-only file, made exact by the
 * step's determinism.
 *
 * Every --save-every seconds the world's image is copied between two steps (sim_world_image,
 * mostly memcpy) and a libuv worker thread checksums it, writes it to FILE.next, flushes it to
 * disk and renames the files into place; the tick never waits for the disk. Every change made
 * to the world from outside the step (spawns, despawns, inputs, clients leaving, slots given
 * back) is a journal record, kept in memory and written out at each flush point, every
 * --fsync-ms: a mark with the tick and the world hash closes it, and the hash is logged, so a
 * restart that comes back to that tick can be checked against the log. The flush is then
 * fsync()ed on libuv's thread pool (--fsync-ms N), at once on the loop (always), or left to
 * the kernel (no), as Redis's appendfsync everysec, always and no.
 *
 * The files, all beside FILE:
 *   FILE               the newest snapshot        FILE.journal       the records since it
 *   FILE.prev          the one before             FILE.prev.journal  from it to FILE's tick
 *   FILE.next          a snapshot just written, before it is renamed to FILE
 *   FILE.journal.new   the records since FILE.next, before it is renamed to FILE.journal
 * A journal starts with its snapshot's tick and hash and, once the next snapshot is taken,
 * ends with that one's: the restore (restore.c) chains them by those, so a crash between any
 * two of the renames leaves a chain it can follow. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durable.h"
#include "mk_vec.h"
#include "net_server.h"
#include "rules.h"

/* Records kept in memory past this many bytes are flushed at the next tick, whatever the
 * --fsync-ms: memory stays bounded under a flood of inputs. */
#define DURABLE_MAX_PENDING (8u << 20)

typedef struct net_durable {
    net_server *srv;
    char path[4096], next[4200], prev[4200], journal[4200], journal_new[4200],
        prev_journal[4200];
    wio_journal journal_w; /* the world's changes as journal lines */
    proto_buf pending;     /* records not yet written */
    int fd;                /* the journal being appended, or -1 */
    uint64_t last_flush_ns, last_snapshot_ns;
    uint64_t last_flush_tick;
    uint64_t flush_ticks; /* --fsync-ms in ticks: a flush at least this often in world time */
    uv_fs_t fsync_req;
    bool fsync_busy;
    /* The snapshot being written by a worker. */
    uv_work_t work;
    bool snap_busy;
    /* The image, kept from one snapshot to the next: no page is faulted in on the loop. */
    MK_VEC(unsigned char) image;
    uint64_t snap_tick, snap_hash, copy_ns, begin_ns;
    /* The level files the save keeps (FILE.levels/KEY.level): the world's levels not yet
     * written, held for the worker that writes them before the snapshot that names them, and
     * the keys written so far, which are never written again (a level never changes). */
    char levels_dir[4200];
    MK_VEC(const sim_level *) to_store;
    MK_VEC(uint8_t) stored; /* SIM_LEVEL_KEY bytes a key */
    int old_fd; /* the journal that ended at the snapshot: flushed and closed by the worker */
    int rc;
    mk_error err;
} net_durable;

static void on_line(void *ctx, const char *line, size_t len)
{
    net_durable *d = ctx;
    wio_record_frame(&d->pending, line, len);
}

/* Writes the records kept so far to the journal; false after logging why not. */
static bool write_pending(net_durable *d)
{
    const char *p = d->pending.data;
    size_t left = d->pending.len;
    while (left > 0) {
        ssize_t n = write(d->fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            LOG_ERROR("--save: %s: %s", d->journal, strerror(errno));
            /* What was written stays written: the rest is tried again at the next flush. */
            memmove(d->pending.data, p, left);
            d->pending.len = left;
            return false;
        }
        p += n;
        left -= (size_t)n;
    }
    proto_buf_clear(&d->pending);
    return true;
}

static void on_fsync(uv_fs_t *req)
{
    net_durable *d = req->data;
    if (req->result < 0)
        LOG_ERROR("--save: fsync %s: %s", d->journal, uv_strerror((int)req->result));
    uv_fs_req_cleanup(req);
    d->fsync_busy = false;
}

/* A flush point: a mark with the tick and the hash, the records written, the disk asked to
 * keep them as the policy says. */
static void flush(net_durable *d, uint64_t now, bool sync)
{
    d->last_flush_ns = now;
    d->last_flush_tick = sim_world_tick(d->srv->world);
    net_rules_journal_state(d->srv, &d->journal_w, false); /* the game's state at this mark */
    uint64_t hash = wio_journal_mark(&d->journal_w);
    if (!write_pending(d))
        return;
    int policy = d->srv->cfg.fsync_ms;
    if (policy == NET_FSYNC_ALWAYS || sync) {
        if (fdatasync(d->fd) != 0)
            LOG_ERROR("--save: fsync %s: %s", d->journal, strerror(errno));
    } else if (policy != NET_FSYNC_NO && !d->fsync_busy) {
        d->fsync_busy = true;
        d->fsync_req.data = d;
        uv_fs_fsync(d->srv->loop, &d->fsync_req, d->fd, on_fsync);
    }
    net_log(policy == NET_FSYNC_ALWAYS ? NET_LOG_DEBUG : NET_LOG_INFO,
            "journal: tick %llu hash %016llx flushed",
            (unsigned long long)sim_world_tick(d->srv->world), (unsigned long long)hash);
}

/* Moves `from` over `to` when it exists. */
static void rename_if(const char *from, const char *to, net_durable *d)
{
    if (rename(from, to) != 0 && errno != ENOENT && d->rc == 0) {
        d->rc = -1;
        mk_fail(&d->err, MK_ERR_IO, "rename %s: %s", from, strerror(errno));
    }
}

/* The worker's part: the old journal flushed and closed, the snapshot written, the files
 * renamed into place. Touches nothing of the loop's. */
static void write_snapshot(uv_work_t *req)
{
    net_durable *d = req->data;
    d->rc = 0;
    if (d->old_fd >= 0 && (fsync(d->old_fd) != 0 || close(d->old_fd) != 0)) {
        d->rc = mk_fail(&d->err, MK_ERR_IO, "%s: %s", d->journal, strerror(errno));
        return;
    }
    d->old_fd = -1;
    for (size_t i = 0; i < d->to_store.v.len; i++)
        if (wio_level_store(d->to_store.at[i], d->levels_dir, &d->err) != 0) {
            d->rc = -1;
            return;
        }
    if (wio_snapshot_write(d->next, d->snap_tick, d->snap_hash, d->image.at, d->image.v.len,
                           &d->err) != 0) {
        d->rc = -1;
        return;
    }
    /* Newest last: at every moment the restore finds a snapshot and the journals after it. */
    rename_if(d->path, d->prev, d);
    rename_if(d->journal, d->prev_journal, d);
    rename_if(d->next, d->path, d);
    rename_if(d->journal_new, d->journal, d);
    if (d->rc == 0 && wio_fsync_dir(d->path, &d->err) != 0)
        d->rc = -1;
}

static void snapshot_written(uv_work_t *req, int status)
{
    net_durable *d = req->data;
    d->snap_busy = false;
    /* The levels written are noted (and let go); those that were not are tried again with
     * the next snapshot. */
    for (size_t i = 0; i < d->to_store.v.len; i++) {
        const sim_level *l = d->to_store.at[i];
        if (status == 0 && d->rc == 0 && mk_vec_reserve(&d->stored.v, d->stored.v.len + SIM_LEVEL_KEY)) {
            memcpy(d->stored.at + d->stored.v.len, sim_level_key(l), SIM_LEVEL_KEY);
            d->stored.v.len += SIM_LEVEL_KEY;
        }
        sim_level_release(l);
    }
    d->to_store.v.len = 0;
    if (status != 0 || d->rc != 0) {
        LOG_ERROR("--save: snapshot at tick %llu not written: %s",
                  (unsigned long long)d->snap_tick,
                  status != 0 ? uv_strerror(status) : d->err.message);
        return;
    }
    LOG_INFO("snapshot: tick %llu hash %016llx, %.1f MB written to %s in %.1f ms (%.2f ms on "
             "the loop)", (unsigned long long)d->snap_tick, (unsigned long long)d->snap_hash,
             (double)d->image.v.len / 1e6, d->path,
             (double)(uv_hrtime() - d->begin_ns) / 1e6, (double)d->copy_ns / 1e6);
}

/* Whether the save has written the level of this key. */
static bool stored(const net_durable *d, const uint8_t *key)
{
    for (size_t at = 0; at < d->stored.v.len; at += SIM_LEVEL_KEY)
        if (memcmp(d->stored.at + at, key, SIM_LEVEL_KEY) == 0)
            return true;
    return false;
}

/* The world's levels the save has not written yet, held for the worker (to_store). */
static bool levels_to_store(net_durable *d, sim_world *w)
{
    const sim_level **levels;
    size_t n;
    if (!sim_world_levels(w, &levels, &n) || !mk_vec_reserve(&d->to_store.v, n)) {
        free(levels);
        LOG_ERROR("--save: out of memory for the snapshot's levels");
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (!stored(d, sim_level_key(levels[i]))) {
            sim_level_retain(levels[i]);
            d->to_store.at[d->to_store.v.len++] = levels[i];
        }
    free(levels);
    if (d->to_store.v.len > 0 && mkdir(d->levels_dir, 0755) != 0 && errno != EEXIST) {
        LOG_ERROR("--save: %s: %s", d->levels_dir, strerror(errno));
        for (size_t i = 0; i < d->to_store.v.len; i++)
            sim_level_release(d->to_store.at[i]);
        d->to_store.v.len = 0;
        return false;
    }
    return true;
}

/* Takes a snapshot: the image copied now, the journal ended at this tick and a new one begun
 * (both on the loop, between two steps), the rest in a worker, or here when `wait`. */
static bool snapshot(net_durable *d, bool wait)
{
    if (d->snap_busy || d->fsync_busy)
        return false;
    sim_world *w = d->srv->world;
    uint64_t t0 = uv_hrtime();
    size_t len = sim_world_image_size(w);
    mk_vec *image = &d->image.v;
    if (len > image->cap) {
        /* The room doubles: the world may grow a while before the next allocation. */
        if (!mk_vec_reserve(image, len)) {
            LOG_ERROR("--save: out of memory for the snapshot");
            return false;
        }
        memset(image->data, 0, image->cap); /* faulted in now, once, not at the next copy */
    }
    image->len = len;
    sim_world_image_copy(w, image->data);
    if (!levels_to_store(d, w))
        return false;
    d->copy_ns = uv_hrtime() - t0;
    d->begin_ns = t0;
    d->last_snapshot_ns = t0;
    d->snap_tick = sim_world_tick(w);
    d->snap_hash = sim_world_hash(w);
    d->old_fd = -1;
    if (d->fd >= 0) {
        net_rules_journal_state(d->srv, &d->journal_w, false); /* the game's, at the end */
        wio_journal_stop(&d->journal_w); /* the end line: this tick and hash */
        write_pending(d);
        d->old_fd = d->fd;
    }
    d->fd = open(d->journal_new, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    proto_buf_clear(&d->pending);
    if (d->fd < 0) {
        /* No journal until the next snapshot opens one: nothing is kept meanwhile. */
        LOG_ERROR("--save: %s: %s", d->journal_new, strerror(errno));
    } else {
        wio_journal_start(&d->journal_w, w, on_line, d);
        net_rules_journal_state(d->srv, &d->journal_w, true);
        write_pending(d);
    }
    d->last_flush_ns = t0;
    d->last_flush_tick = d->snap_tick;
    d->snap_busy = true;
    d->work.data = d;
    if (wait) {
        write_snapshot(&d->work);
        snapshot_written(&d->work, 0);
        return d->rc == 0;
    }
    uv_queue_work(d->srv->loop, &d->work, write_snapshot, snapshot_written);
    return true;
}

static void set_path(char *out, size_t cap, const char *path, const char *suffix)
{
    snprintf(out, cap, "%s%s", path, suffix);
}

int net_durable_start(net_server *srv)
{
    if (!srv->cfg.save_path)
        return 0;
    net_durable *d = calloc(1, sizeof *d);
    if (!d)
        return UV_ENOMEM;
    d->srv = srv;
    d->fd = d->old_fd = -1;
    d->image.v = mk_vec_make(sizeof(unsigned char));
    const char *p = srv->cfg.save_path;
    set_path(d->path, sizeof d->path, p, "");
    set_path(d->next, sizeof d->next, p, ".next");
    set_path(d->prev, sizeof d->prev, p, ".prev");
    set_path(d->journal, sizeof d->journal, p, ".journal");
    set_path(d->journal_new, sizeof d->journal_new, p, ".journal.new");
    set_path(d->prev_journal, sizeof d->prev_journal, p, ".prev.journal");
    set_path(d->levels_dir, sizeof d->levels_dir, p, ".levels");
    d->to_store.v = mk_vec_make(sizeof(const sim_level *));
    d->stored.v = mk_vec_make(1);
    proto_buf_init(&d->pending);
    double ms = srv->cfg.fsync_ms > 0 ? srv->cfg.fsync_ms : 1000.0;
    d->flush_ticks = (uint64_t)(ms * srv->cfg.tick_hz / 1000.0);
    if (d->flush_ticks == 0)
        d->flush_ticks = 1;
    srv->durable = d;
    /* The world as it starts is the first snapshot, written before the first step: from here
     * on a crash always has a snapshot to come back to. */
    if (!snapshot(d, true) || d->fd < 0) {
        LOG_ERROR("--save: cannot start the save in %s", p);
        return UV_EIO;
    }
    return 0;
}

void net_durable_tick(net_server *srv, uint64_t now)
{
    net_durable *d = srv->durable;
    if (!d)
        return;
    int policy = srv->cfg.fsync_ms;
    uint64_t every_ns = policy > 0 ? (uint64_t)policy * 1000000u : 1000000000u;
    /* By the clock, and by the ticks, so that a stretch of catch-up steps is no exception: a
     * crash loses at most --fsync-ms of the world's time. */
    if (d->fd >= 0 &&
        (policy == NET_FSYNC_ALWAYS || now - d->last_flush_ns >= every_ns ||
         sim_world_tick(srv->world) - d->last_flush_tick >= d->flush_ticks ||
         d->pending.len > DURABLE_MAX_PENDING))
        flush(d, now, false);
    if ((double)(now - d->last_snapshot_ns) >= srv->cfg.save_every * 1e9)
        snapshot(d, false);
}

bool net_durable_save(net_server *srv, const char *why)
{
    net_durable *d = srv->durable;
    if (!d)
        return false;
    /* The journal flushed and on disk now: with the snapshot it brings this tick back. A new
     * snapshot too, when none is being written. */
    uint64_t now = uv_hrtime();
    if (d->fd >= 0)
        flush(d, now, true);
    bool snap = snapshot(d, false);
    LOG_INFO("%s: saved %zu bodies at tick %llu to %s (journal flushed%s)", why,
             sim_world_body_count(srv->world), (unsigned long long)sim_world_tick(srv->world),
             d->path, snap ? ", snapshot under way" : "");
    return true;
}

void net_durable_free(net_server *srv)
{
    net_durable *d = srv->durable;
    if (!d)
        return;
    /* The loop has ended: no worker or fsync is in flight. */
    sim_world_on_change(srv->world, NULL, NULL);
    if (d->fd >= 0)
        close(d->fd);
    proto_buf_free(&d->journal_w.buf);
    proto_buf_free(&d->pending);
    mk_vec_free(&d->image.v);
    for (size_t i = 0; i < d->to_store.v.len; i++)
        sim_level_release(d->to_store.at[i]);
    mk_vec_free(&d->to_store.v);
    mk_vec_free(&d->stored.v);
    free(d);
    srv->durable = NULL;
}
