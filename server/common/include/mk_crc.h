/* CRC-32C of a block of bytes (crc.c). */
#ifndef MK_CRC_H
#define MK_CRC_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32C of data[0..len) continued from `crc` (0 to start): mk_crc32c(0, "123456789", 9)
 * is 0xe3069283, the check value of the standard. */
uint32_t mk_crc32c(uint32_t crc, const void *data, size_t len);

#endif
