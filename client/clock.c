/* mink-client's clock (clock.h). */
#include <uv.h>

#include "clock.h"

double cli_now_ms(void)
{
    return (double)uv_hrtime() / 1e6;
}
