/* Runs a fuzz target over files and directories of inputs, for ctest: every file of the
 * committed corpus and of the regressions goes through the target once. Exits nonzero when a
 * path cannot be read or when no input was found (an empty run proves nothing). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    /* The whole file in one read: corpus inputs are regular files of known size. */
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    uint8_t *buf = size >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)size + 1) : NULL;
    size_t len = buf ? fread(buf, 1, (size_t)size, f) : 0;
    fclose(f);
    if (!buf)
        return -1;
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

/* Returns the number of inputs run, or -1. */
static long run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return run_file(path) == 0 ? 1 : -1;
    DIR *d = opendir(path);
    if (!d) {
        perror(path);
        return -1;
    }
    long count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && count >= 0) {
        if (e->d_name[0] == '.')
            continue;
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        long n = run_path(child);
        count = n < 0 ? -1 : count + n;
    }
    closedir(d);
    return count;
}

int main(int argc, char **argv)
{
    long total = 0;
    for (int i = 1; i < argc; i++) {
        long n = run_path(argv[i]);
        if (n < 0)
            return 1;
        total += n;
    }
    printf("%s: %ld inputs replayed, no failure\n", argv[0], total);
    return total > 0 ? 0 : 1;
}
