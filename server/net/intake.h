/* A client's messages in, whatever its transport (intake.c): the message rate and its
 * backpressure. */
#ifndef MINK_NET_INTAKE_H
#define MINK_NET_INTAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bucket.h"
#include "mk_vec.h"

typedef struct net_session net_session;

/* With the messages' bucket empty the transport reads no more (backpressure: the kernel's
 * buffers, or WebSocket flow control, push back on the sender) until resume_ns; the message
 * that found it empty and the rest of its read wait in `held` (each as its length and bytes:
 * at most a read's worth). */
typedef struct net_intake {
    net_bucket lines;
    bool read_paused;
    uint64_t resume_ns;
    MK_VEC(char) held;
} net_intake;

/* One message from the client (a line without its '\n', or a WebSocket text message), counted
 * against --max-msg-rate: answered now, or held until the rate allows. Returns true when the
 * session is closing and should read no more. */
bool net_session_message(net_session *s, const char *msg, size_t len);

#endif
