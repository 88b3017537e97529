/* Files as a save needs them: replaced whole or not at all, and read whole. A file is
 * replaced by writing FILE.tmp, flushing it to disk, renaming it over FILE and flushing the
 * directory, so that the rename itself survives a power cut: a crash at any point leaves the
 * old file or the new one, never a part of either. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "world_io_internal.h"

static bool write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

int wio_fsync_dir(const char *path, mk_error *err)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    const char *dir = dirname(copy);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0 || fsync(fd) != 0) {
        mk_fail(err, MK_ERR_IO, "%s: %s", dir, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

int wio_file_replace(const char *path, const wio_piece *pieces, size_t n, mk_error *err)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return mk_fail(err, MK_ERR_IO, "%s: path too long", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = fd >= 0;
    for (size_t i = 0; ok && i < n; i++)
        ok = write_all(fd, pieces[i].data, pieces[i].len);
    ok = ok && fsync(fd) == 0;
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        unlink(tmp);
        return mk_fail(err, MK_ERR_IO, "%s: %s", tmp, strerror(saved));
    }
    if (rename(tmp, path) != 0) {
        saved = errno;
        unlink(tmp);
        return mk_fail(err, MK_ERR_IO, "%s: %s", path, strerror(saved));
    }
    return wio_fsync_dir(path, err);
}

char *wio_read_file(const char *path, size_t *len, mk_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        mk_fail(err, MK_ERR_IO, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    char *data = NULL;
    if (fstat(fileno(f), &st) != 0 || st.st_size < 0) {
        mk_fail(err, MK_ERR_IO, "%s: %s", path, strerror(errno));
    } else if (!(data = malloc((size_t)st.st_size + 1))) {
        mk_fail(err, MK_ERR_IO, "%s: out of memory", path);
    } else if (fread(data, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        mk_fail(err, MK_ERR_IO, "%s: cannot read it whole", path);
        free(data);
        data = NULL;
    } else {
        data[st.st_size] = '\0';
        *len = (size_t)st.st_size;
    }
    fclose(f);
    return data;
}

