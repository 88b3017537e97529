/* mk_error: the failure report every layer shares (mk_error.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mk_error.h"

int mk_fail(mk_error *e, int code, const char *fmt, ...)
{
    if (!e)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    e->code = code;
    return -1;
}

int mk_error_prefix(mk_error *e, const char *fmt, ...)
{
    if (!e)
        return -1;
    char prefix[MK_ERROR_MESSAGE], rest[MK_ERROR_MESSAGE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(rest, e->message, sizeof rest);
    /* The prefix, then as much of the message as fits. */
    size_t n = strlen(prefix), m = strnlen(rest, sizeof rest - 1);
    if (n > sizeof e->message - 1)
        n = sizeof e->message - 1;
    if (m > sizeof e->message - 1 - n)
        m = sizeof e->message - 1 - n;
    memcpy(e->message, prefix, n);
    memcpy(e->message + n, rest, m);
    e->message[n + m] = '\0';
    return -1;
}
