/* The CRC-32 of zip, PNG and gzip (libdeflate's, PCLMUL-accelerated where the CPU has it), for
   checksummed files such as feature-print indexes. */
#include <libdeflate.h>

#include "CNativeCodecs.h"

uint32_t cnc_crc32(uint32_t crc, const void *bytes, size_t count) {
  return libdeflate_crc32(crc, bytes, count);
}
