/* Fuzz targets: each defines LLVMFuzzerTestOneInput. Built with clang's libFuzzer when
 * MINK_FUZZ is on (`make fuzz`); otherwise linked with replay.c, which feeds the committed
 * corpus and every crash input kept as a regression through the same code in ctest. A target
 * checks what must hold for any input and calls fuzz_fail when it does not. */
#ifndef MINK_FUZZ_H
#define MINK_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define fuzz_check(cond)                                                                      \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond);    \
            abort();                                                                          \
        }                                                                                     \
    } while (0)

#endif
