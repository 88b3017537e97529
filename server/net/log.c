/* Logging to stderr (mink_log.h): one line per event at or above the level set, with a UTC
 * timestamp. */
#include "mink_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static net_log_level current_level = NET_LOG_INFO;
static const char *const level_names[] = {"error", "warn", "info", "debug"};

void net_log_set_level(net_log_level level) { current_level = level; }

int net_log_parse_level(const char *name)
{
    for (int i = 0; i < (int)(sizeof level_names / sizeof level_names[0]); i++) {
        if (strcmp(name, level_names[i]) == 0)
            return i;
    }
    return -1;
}

void net_log(net_log_level level, const char *fmt, ...)
{
    if (level > current_level)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char line[1024];
    int n = snprintf(line, sizeof line, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %-5s ",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                     tm.tm_sec, ts.tv_nsec / 1000000, level_names[level]);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof line)
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    /* One write per line so that lines of concurrent writers do not interleave. */
    fprintf(stderr, "%s\n", line);
}
