/* mink-client's clock: the one time every part of the client reads. */
#ifndef MINK_CLI_CLOCK_H
#define MINK_CLI_CLOCK_H

/* ms on the monotonic clock (libuv's uv_hrtime): for intervals, never for dates. */
double cli_now_ms(void);

#endif
