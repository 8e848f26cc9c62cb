#include "codec_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cic_set_message(char *message, size_t capacity, const char *format, ...) {
  if (message == NULL || capacity == 0) return;
  va_list arguments;
  va_start(arguments, format);
  vsnprintf(message, capacity, format, arguments);
  va_end(arguments);
}

cic_status cic_check_pixel_limit(uint32_t width, uint32_t height, uint32_t channels,
                                 const cic_decode_options *options, const char *codec,
                                 char *message, size_t capacity) {
  uint64_t pixels = (uint64_t)width * (uint64_t)height;
  if (width == 0 || height == 0) {
    cic_set_message(message, capacity, "%s header gives an empty size %ux%u", codec, width,
                    height);
    return CIC_STATUS_CORRUPT;
  }
  if (options != NULL && options->max_pixels != 0 && pixels > options->max_pixels) {
    cic_set_message(message, capacity,
                    "%s is %ux%u = %llu pixels, more than the limit of %llu pixels", codec,
                    width, height, (unsigned long long)pixels,
                    (unsigned long long)options->max_pixels);
    return CIC_STATUS_LIMIT_EXCEEDED;
  }
  if (pixels > SIZE_MAX / 4 / (channels == 0 ? 1 : channels)) {
    cic_set_message(message, capacity, "%s of %ux%u pixels does not fit in memory", codec,
                    width, height);
    return CIC_STATUS_LIMIT_EXCEEDED;
  }
  return CIC_STATUS_OK;
}

void cic_buffer_free(cic_buffer *buffer) {
  if (buffer == NULL) return;
  free(buffer->data);
  buffer->data = NULL;
  buffer->size = 0;
  buffer->capacity = 0;
}

int cic_buffer_append(cic_buffer *buffer, const uint8_t *bytes, size_t count) {
  if (count > SIZE_MAX - buffer->size) return 0;
  size_t needed = buffer->size + count;
  if (needed > buffer->capacity) {
    size_t capacity = buffer->capacity < 4096 ? 4096 : buffer->capacity;
    while (capacity < needed) {
      capacity = capacity > SIZE_MAX / 2 ? needed : capacity * 2;
    }
    uint8_t *grown = realloc(buffer->data, capacity);
    if (grown == NULL) return 0;
    buffer->data = grown;
    buffer->capacity = capacity;
  }
  memcpy(buffer->data + buffer->size, bytes, count);
  buffer->size = needed;
  return 1;
}
