/* The one way Mink reports a failure on outside data (a message from the network, a scene, a
 * save or a recording, a shape a user sent), in every layer: a code and a message that names
 * what was wrong ("bodies[3].shape.points: all points lie on one line"). A function that can
 * fail this way takes an mk_error * last and returns -1 (or NULL, or a code), having filled
 * it; the caller adds context with mk_error_prefix and answers or logs err.message.
 *
 * Codes: 0 is no failure; MK_ERR_INVALID is input that cannot be used, which the protocol
 * answers as `bad_request`; MK_ERR_IO a file that cannot be read or written. The protocol's
 * codes (proto_error_code) share these numbers and add the rest. */
#ifndef MK_ERROR_H
#define MK_ERROR_H

#define MK_ERROR_MESSAGE 256 /* bytes of a message, terminator included */
#define MK_ERR_INVALID 2
#define MK_ERR_IO 13

typedef struct mk_error {
    int code;
    char message[MK_ERROR_MESSAGE];
} mk_error;

#if defined(__GNUC__)
#define MK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MK_PRINTF(f, a)
#endif

/* Fills *e (when not NULL) with the code and the formatted message; returns -1. */
int mk_fail(mk_error *e, int code, const char *fmt, ...) MK_PRINTF(3, 4);
/* Puts formatted context before the message ("a." + "shape.radius: ..."); returns -1. */
int mk_error_prefix(mk_error *e, const char *fmt, ...) MK_PRINTF(2, 3);

#endif
