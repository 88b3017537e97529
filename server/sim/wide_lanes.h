/* The lane width that the wide solvers' shared code is compiled at next, included again
 * before each width's code (so it has no include guard): WIDE_LANES 4 (f4.h, SSE2; the
 * default) or 8 (f8.h, AVX). LF is then the lane type, FW(op) its operation op, and LN(name)
 * a name at this width: the name itself at four lanes, name8 at eight. */
#include "f4.h"
#include "f8.h"

#ifndef WIDE_LANES
#define WIDE_LANES 4
#endif
#undef LF
#undef FW
#undef LN
#if WIDE_LANES == 8
#define LF f8
#define FW(op) f8_##op
#define LN(name) name##8
#else
#define LF f4
#define FW(op) f4_##op
#define LN(name) name
#endif
