/* The network path of a client's bytes: the JSON Lines framer, fed in pieces, and the parser
 * for every line, in a 2D and a 3D world. Whatever the bytes, nothing crashes, leaks or reads
 * out of bounds; no line handed on is longer than the limit; a line that parses is parsed
 * the same way again; an error always has a message. */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "mink_proto.h"

#define FUZZ_MAX_LINE 4096 /* small, so that over-long lines are reached often */

static int on_line(void *ud, const char *line, size_t len)
{
    (void)ud;
    fuzz_check(len <= FUZZ_MAX_LINE);
    for (int dim = 2; dim <= 3; dim++) {
        proto_msg msg, again;
        proto_error err;
        memset(&err, 0, sizeof err);
        proto_error_code rc = proto_parse(line, len, dim, &msg, &err);
        if (rc != PROTO_OK) {
            fuzz_check(err.message[0] != '\0');
            continue;
        }
        fuzz_check(proto_parse(line, len, dim, &again, &err) == PROTO_OK);
        fuzz_check(again.type == msg.type);
        if (msg.type == PROTO_MSG_INPUT)
            for (int i = 0; i < dim; i++)
                fuzz_check(fabs(msg.u.input.move[i]) <= 1.0);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    /* The first byte picks the size of the reads the bytes arrive in: 1 to 256. */
    size_t piece = (size_t)data[0] + 1;
    data++;
    size--;
    proto_framer f;
    proto_framer_init(&f, FUZZ_MAX_LINE);
    for (size_t at = 0; at < size; at += piece) {
        size_t n = size - at < piece ? size - at : piece;
        int rc = proto_framer_feed(&f, (const char *)data + at, n, on_line, NULL);
        if (rc != 0) {
            fuzz_check(rc == PROTO_ERR_LINE_TOO_LONG);
            break;
        }
        fuzz_check(f.len <= FUZZ_MAX_LINE + 1);
    }
    proto_framer_free(&f);
    return 0;
}
