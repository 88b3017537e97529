/* Writing the table of invited players beside a durable save (--save FILE with
 * --token-key) to FILE.players (its format: server/world_io/players.c), replaced whole with
 * wio_file_replace (FILE.players.tmp, fsync, rename, fsync of the directory), so that a crash
 * leaves the old table or the new one.
 *
 * The write runs on libuv's thread pool (uv_queue_work): the loop only formats the table (a
 * few microseconds for a table of --max-clients players), one write is in flight at a time,
 * and a change made meanwhile asks for one more write, of the table as it is when that one
 * starts: the newest table always reaches the disk, at most one write behind. A write takes
 * milliseconds (its two fsyncs; docs/OPERATING.md's "Invited players" has the figures): on the
 * loop it would take a large part of a tick. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mink_log.h"
#include "players_file.h"

struct net_players_file {
    uv_loop_t *loop;
    void (*again_cb)(void *ctx); /* asks the owner for the table as it is now */
    void *ctx;
    char path[4200];
    uv_work_t work;
    proto_buf buf; /* the table being written: the worker's while busy */
    size_t count;
    bool busy, again;
    uint64_t format_ns, begin_ns;
    int rc;
    mk_error err;
};

net_players_file *net_players_file_new(uv_loop_t *loop, const char *save_path,
                                       void (*again)(void *ctx), void *ctx)
{
    net_players_file *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->loop = loop;
    f->again_cb = again;
    f->ctx = ctx;
    snprintf(f->path, sizeof f->path, "%s.players", save_path);
    proto_buf_init(&f->buf);
    return f;
}

void net_players_file_free(net_players_file *f)
{
    if (!f)
        return;
    proto_buf_free(&f->buf);
    free(f);
}

const char *net_players_file_path(const net_players_file *f) { return f->path; }

/* The worker's part: touches only the buffer the loop left it. */
static void write_table(uv_work_t *req)
{
    net_players_file *f = req->data;
    wio_piece piece = {f->buf.data, f->buf.len};
    f->rc = wio_file_replace(f->path, &piece, 1, &f->err);
}

static void table_written(uv_work_t *req, int status)
{
    net_players_file *f = req->data;
    f->busy = false;
    if (status != 0 || f->rc != 0)
        LOG_ERROR("--save: players not written: %s",
                  status != 0 ? uv_strerror(status) : f->err.message);
    else
        net_log(NET_LOG_DEBUG, "players: %zu written to %s in %.2f ms (%.3f ms on the loop)",
                f->count, f->path, (double)(uv_hrtime() - f->begin_ns) / 1e6,
                (double)f->format_ns / 1e6);
    if (f->again) {
        f->again = false;
        f->again_cb(f->ctx);
    }
}

int net_players_file_write(net_players_file *f, const wio_player *r, size_t n, bool wait)
{
    if (f->busy) {
        f->again = true; /* the table as it is then, once this write is done */
        return 0;
    }
    uint64_t t0 = uv_hrtime();
    wio_players_format(&f->buf, r, n);
    if (f->buf.failed) {
        LOG_ERROR("--save: players not written: out of memory");
        return -1;
    }
    f->count = n;
    f->begin_ns = t0;
    f->format_ns = uv_hrtime() - t0;
    f->work.data = f;
    if (wait) {
        write_table(&f->work);
        if (f->rc != 0)
            LOG_ERROR("--save: players not written: %s", f->err.message);
        else
            LOG_INFO("players: %zu written to %s in %.2f ms", n, f->path,
                     (double)(uv_hrtime() - t0) / 1e6);
        return f->rc;
    }
    f->busy = true;
    int rc = uv_queue_work(f->loop, &f->work, write_table, table_written);
    if (rc != 0) {
        f->busy = false;
        LOG_ERROR("--save: players not written: %s", uv_strerror(rc));
    }
    return rc;
}
