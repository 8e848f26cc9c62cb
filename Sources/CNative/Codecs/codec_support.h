#ifndef CIMAGECODECS_SUPPORT_H
#define CIMAGECODECS_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "CNativeCodecs.h"

/* Writes a formatted, always NUL-terminated message; a NULL or empty buffer is ignored. */
void cic_set_message(char *message, size_t capacity, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Checks width * height against the limit and that width * height * channels fits in size_t. */
cic_status cic_check_pixel_limit(uint32_t width, uint32_t height, uint32_t channels,
                                 const cic_decode_options *options, const char *codec,
                                 char *message, size_t capacity);

/* Appends bytes to a growable buffer; returns 0 when memory runs out. */
int cic_buffer_append(cic_buffer *buffer, const uint8_t *bytes, size_t count);

#endif
