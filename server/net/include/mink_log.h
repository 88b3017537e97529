/* Logging to stderr with levels: one line per event, with a UTC timestamp. */
#ifndef MINK_NET_LOG_H
#define MINK_NET_LOG_H

typedef enum net_log_level {
    NET_LOG_ERROR,
    NET_LOG_WARN,
    NET_LOG_INFO,
    NET_LOG_DEBUG,
} net_log_level;

/* Lines above this level are not written. Default: info. */
void net_log_set_level(net_log_level level);
/* Parses "error", "warn", "info" or "debug"; returns -1 for anything else. */
int net_log_parse_level(const char *name);

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void net_log(net_log_level level, const char *fmt, ...);

#define LOG_ERROR(...) net_log(NET_LOG_ERROR, __VA_ARGS__)
#define LOG_WARN(...) net_log(NET_LOG_WARN, __VA_ARGS__)
#define LOG_INFO(...) net_log(NET_LOG_INFO, __VA_ARGS__)
#define LOG_DEBUG(...) net_log(NET_LOG_DEBUG, __VA_ARGS__)

#endif
