/*
 * The whole-buffer PNG reader: the fast path of cic_png_decode for the common file (8-bit gray,
 * gray+alpha, RGB or RGBA, not interlaced, no tRNS). It checks the chunk structure and the CRCs
 * of the critical chunks, inflates every IDAT at once with libdeflate (about 1.7x zlib's
 * streaming inflate on photos) and undoes the row filters.
 *
 * It only ever accepts a subset of what libpng accepts, with the same pixels: anything it does
 * not handle, or any sign of damage, returns 0 and cic_png_decode hands the file to libpng, so
 * errors and their messages always come from libpng. The rules below mirror libpng 1.6's
 * reader as configured in png_codec.c (unknown and known ancillary chunks skipped, their CRC
 * errors benign; critical CRC errors fatal; chunk length limits).
 */
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

#include "codec_support.h"

/* The largest filtered image (height * (row bytes + 1)) read whole; bigger files stream
   through libpng, which holds one row at a time. */
static const size_t cic_png_whole_limit = 64u * 1024u * 1024u;
/* libpng's limit on any non-IDAT chunk (png_set_chunk_malloc_max in png_codec.c). */
static const uint32_t cic_png_chunk_limit = 8u * 1024u * 1024u;

static uint32_t cic_be32(const uint8_t *bytes) {
  return ((uint32_t)bytes[0] << 24) | ((uint32_t)bytes[1] << 16) | ((uint32_t)bytes[2] << 8) |
         (uint32_t)bytes[3];
}

/* One chunk as it sits in the file. */
typedef struct cic_png_chunk {
  const uint8_t *name;
  const uint8_t *body;
  uint32_t length;
} cic_png_chunk;

/* Reads the chunk at *offset and advances past it; 0 when it does not fit in the data or its
   name is not four ASCII letters (a fatal error in libpng). */
static int cic_png_next_chunk(const uint8_t *data, size_t size, size_t *offset,
                              cic_png_chunk *chunk) {
  if (size - *offset < 12) return 0;
  const uint8_t *start = data + *offset;
  uint32_t length = cic_be32(start);
  if (length > 0x7fffffffu || length > size - *offset - 12) return 0;
  for (int i = 4; i < 8; i++) {
    uint8_t letter = start[i] & 0xdf;
    if (letter < 'A' || letter > 'Z') return 0;
  }
  chunk->name = start + 4;
  chunk->body = start + 8;
  chunk->length = length;
  *offset += (size_t)length + 12;
  return 1;
}

static int cic_png_chunk_is(const cic_png_chunk *chunk, const char *name) {
  return memcmp(chunk->name, name, 4) == 0;
}

static int cic_png_crc_matches(const cic_png_chunk *chunk) {
  uint32_t crc = libdeflate_crc32(0, chunk->name, 4);
  crc = libdeflate_crc32(crc, chunk->body, chunk->length);
  return crc == cic_be32(chunk->body + chunk->length);
}

/* The header fields the fast path needs. */
typedef struct cic_png_layout {
  uint32_t width;
  uint32_t height;
  uint32_t channels;
  size_t row_bytes;
  size_t filtered_size;
} cic_png_layout;

static int cic_png_read_header(const cic_png_chunk *chunk, cic_png_layout *layout) {
  if (!cic_png_chunk_is(chunk, "IHDR") || chunk->length != 13 || !cic_png_crc_matches(chunk)) {
    return 0;
  }
  const uint8_t *body = chunk->body;
  static const uint32_t channels_of_type[7] = {1, 0, 3, 0, 2, 0, 4};
  uint32_t width = cic_be32(body), height = cic_be32(body + 4);
  if (width == 0 || height == 0 || width > 0x7fffffffu || height > 0x7fffffffu) return 0;
  /* bit depth 8; color type gray, RGB, gray+alpha or RGBA; deflate; adaptive filters; no
     interlace. */
  if (body[8] != 8 || body[9] > 6 || channels_of_type[body[9]] == 0 || body[10] != 0 ||
      body[11] != 0 || body[12] != 0) {
    return 0;
  }
  layout->width = width;
  layout->height = height;
  layout->channels = channels_of_type[body[9]];
  layout->row_bytes = (size_t)width * layout->channels;
  if ((uint64_t)height * ((uint64_t)layout->row_bytes + 1) > cic_png_whole_limit) return 0;
  layout->filtered_size = (size_t)height * (layout->row_bytes + 1);
  return 1;
}

/* libpng's png_check_chunk_length for IDAT: the filtered size plus deflate's worst overhead,
   but never below the general chunk limit. */
static uint64_t cic_png_idat_limit(const cic_png_layout *layout) {
  uint64_t limit = layout->filtered_size;
  uint64_t row_factor = layout->row_bytes + 1;
  if (row_factor > 32566) row_factor = 32566;
  limit += 6 + 5 * (limit / row_factor + 1);
  if (limit > 0x7fffffffu) limit = 0x7fffffffu;
  return limit > cic_png_chunk_limit ? limit : cic_png_chunk_limit;
}

/* The compressed image data: where the run of IDAT chunks starts, and its total size. */
typedef struct cic_png_idat_run {
  size_t first_offset;
  size_t chunk_count;
  size_t total;
} cic_png_idat_run;

/* Walks the chunks after IHDR up to IEND. 0 for anything libpng would reject or handle
   differently: a critical chunk other than IDAT/IEND (PLTE included), a tRNS chunk (which adds
   an alpha channel), a bad critical CRC, IDATs that are not one run, or an oversized chunk. */
static int cic_png_find_idat(const uint8_t *data, size_t size, size_t offset,
                             const cic_png_layout *layout, cic_png_idat_run *run) {
  uint64_t idat_limit = cic_png_idat_limit(layout);
  int seen_idat = 0, after_idat = 0;
  memset(run, 0, sizeof *run);
  for (;;) {
    size_t chunk_offset = offset;
    cic_png_chunk chunk;
    if (!cic_png_next_chunk(data, size, &offset, &chunk)) return 0;
    if (cic_png_chunk_is(&chunk, "IDAT")) {
      if (after_idat || chunk.length > idat_limit || !cic_png_crc_matches(&chunk)) return 0;
      if (!seen_idat) run->first_offset = chunk_offset;
      seen_idat = 1;
      run->chunk_count += 1;
      run->total += chunk.length;
      continue;
    }
    if (seen_idat) after_idat = 1;
    if (cic_png_chunk_is(&chunk, "IEND")) {
      return seen_idat && chunk.length == 0 && cic_png_crc_matches(&chunk);
    }
    int critical = (chunk.name[0] & 0x20) == 0;
    if (critical || cic_png_chunk_is(&chunk, "tRNS") || chunk.length > cic_png_chunk_limit) {
      return 0;
    }
  }
}

/* A zlib stream header that libpng (zlib) and libdeflate read identically: deflate, no preset
   dictionary, valid check bits, and a window of 32 KiB or at least the whole output (zlib
   rejects distances beyond a smaller declared window, libdeflate does not check; libpng itself
   declares the smallest window that holds a small image). */
static int cic_png_zlib_header_is_plain(const uint8_t *stream, size_t size, size_t output) {
  if (size < 2) return 0;
  unsigned window_log = (stream[0] >> 4) + 8;
  return (stream[0] & 0x0f) == 8 && window_log <= 15 && (stream[1] & 0x20) == 0 &&
         ((stream[0] << 8) | stream[1]) % 31 == 0 &&
         (window_log == 15 || output <= ((size_t)1 << window_log));
}

/* Copies the IDAT bodies into one buffer (or points at the only one); NULL when out of memory. */
static const uint8_t *cic_png_gather(const uint8_t *data, size_t size,
                                     const cic_png_idat_run *run, uint8_t **owned) {
  *owned = NULL;
  size_t offset = run->first_offset;
  cic_png_chunk chunk;
  if (run->chunk_count == 1) {
    return cic_png_next_chunk(data, size, &offset, &chunk) ? chunk.body : NULL;
  }
  uint8_t *buffer = malloc(run->total > 0 ? run->total : 1);
  if (buffer == NULL) return NULL;
  size_t filled = 0;
  for (size_t i = 0; i < run->chunk_count; i++) {
    if (!cic_png_next_chunk(data, size, &offset, &chunk) || !cic_png_chunk_is(&chunk, "IDAT") ||
        chunk.length > run->total - filled) {
      free(buffer);
      return NULL;
    }
    memcpy(buffer + filled, chunk.body, chunk.length);
    filled += chunk.length;
  }
  *owned = buffer;
  return buffer;
}

static inline uint8_t cic_paeth(uint8_t a, uint8_t b, uint8_t c) {
  int pa = abs((int)b - (int)c);
  int pb = abs((int)a - (int)c);
  int pc = abs((int)a + (int)b - 2 * (int)c);
  return (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
}

/* Undoes one row's filter (PNG spec 9.2) given the previous unfiltered row. The left and upper-left bytes of each channel stay in registers, so
   the serial filters (Sub, Average, Paeth) run one pixel per step; bpp is a constant in each
   caller below. */
static inline __attribute__((always_inline)) void cic_png_unfilter(
    int filter, uint8_t *out, const uint8_t *in, const uint8_t *prior, size_t row_bytes,
    size_t bpp) {
  uint8_t left[4] = {0, 0, 0, 0}, upper_left[4] = {0, 0, 0, 0};
  switch (filter) {
    case 0:
      memcpy(out, in, row_bytes);
      return;
    case 1:
      for (size_t i = 0; i < row_bytes; i += bpp) {
        for (size_t c = 0; c < bpp; c++) out[i + c] = left[c] = (uint8_t)(in[i + c] + left[c]);
      }
      return;
    case 2:
      for (size_t i = 0; i < row_bytes; i++) out[i] = (uint8_t)(in[i] + prior[i]);
      return;
    case 3:
      for (size_t i = 0; i < row_bytes; i += bpp) {
        for (size_t c = 0; c < bpp; c++) {
          out[i + c] = left[c] = (uint8_t)(in[i + c] + ((left[c] + prior[i + c]) >> 1));
        }
      }
      return;
    default:
      for (size_t i = 0; i < row_bytes; i += bpp) {
        for (size_t c = 0; c < bpp; c++) {
          uint8_t up = prior[i + c];
          out[i + c] = left[c] = (uint8_t)(in[i + c] + cic_paeth(left[c], up, upper_left[c]));
          upper_left[c] = up;
        }
      }
      return;
  }
}

/* The first row, whose prior row is all zeros: Up is a copy, Paeth predicts from the left
   byte (Sub) and Average adds half of it. */
static inline __attribute__((always_inline)) void cic_png_unfilter_first(
    int filter, uint8_t *out, const uint8_t *in, size_t row_bytes, size_t bpp) {
  uint8_t left[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < row_bytes; i += bpp) {
    for (size_t c = 0; c < bpp; c++) {
      uint8_t predicted = filter == 0 || filter == 2 ? 0 : filter == 3 ? left[c] >> 1 : left[c];
      out[i + c] = left[c] = (uint8_t)(in[i + c] + predicted);
    }
  }
}

/* Undoes every row's filter from filtered into pixels; 0 on an unknown filter type. */
static int cic_png_unfilter_rows(const uint8_t *filtered, uint8_t *pixels,
                                 const cic_png_layout *layout) {
  size_t row_bytes = layout->row_bytes;
  for (uint32_t y = 0; y < layout->height; y++) {
    const uint8_t *in = filtered + (size_t)y * (row_bytes + 1);
    uint8_t *out = pixels + (size_t)y * row_bytes;
    int filter = in[0];
    if (filter > 4) return 0;
    if (y == 0) {
      cic_png_unfilter_first(filter, out, in + 1, row_bytes, layout->channels);
      continue;
    }
    const uint8_t *prior = out - row_bytes;
    switch (layout->channels) {
      case 1: cic_png_unfilter(filter, out, in + 1, prior, row_bytes, 1); break;
      case 2: cic_png_unfilter(filter, out, in + 1, prior, row_bytes, 2); break;
      case 3: cic_png_unfilter(filter, out, in + 1, prior, row_bytes, 3); break;
      default: cic_png_unfilter(filter, out, in + 1, prior, row_bytes, 4); break;
    }
  }
  return 1;
}

/* Inflates the stream into a filtered image of exactly the expected size, using all of the
   stream (no extra or missing data, which libpng reports in its own way). */
static int cic_png_inflate(const uint8_t *stream, size_t stream_size, uint8_t *filtered,
                           size_t filtered_size) {
  if (!cic_png_zlib_header_is_plain(stream, stream_size, filtered_size)) return 0;
  struct libdeflate_decompressor *decompressor = libdeflate_alloc_decompressor();
  if (decompressor == NULL) return 0;
  size_t used = 0, produced = 0;
  enum libdeflate_result result = libdeflate_zlib_decompress_ex(
      decompressor, stream, stream_size, filtered, filtered_size, &used, &produced);
  libdeflate_free_decompressor(decompressor);
  return result == LIBDEFLATE_SUCCESS && used == stream_size && produced == filtered_size;
}

int cic_png_decode_whole(const uint8_t *data, size_t size, const cic_decode_options *options,
                         uint8_t *pixels, size_t pixels_size, cic_image_info *info) {
  static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (data == NULL || pixels == NULL || info == NULL || size < 8 ||
      memcmp(data, signature, 8) != 0) {
    return 0;
  }
  size_t offset = 8;
  cic_png_chunk header;
  cic_png_layout layout;
  cic_png_idat_run run;
  char ignored[CIC_MESSAGE_CAPACITY];
  if (!cic_png_next_chunk(data, size, &offset, &header) || !cic_png_read_header(&header, &layout) ||
      pixels_size != layout.row_bytes * layout.height ||
      cic_check_pixel_limit(layout.width, layout.height, layout.channels, options, "PNG", ignored,
                            sizeof ignored) != CIC_STATUS_OK ||
      !cic_png_find_idat(data, size, offset, &layout, &run)) {
    return 0;
  }
  uint8_t *owned = NULL;
  const uint8_t *stream = cic_png_gather(data, size, &run, &owned);
  uint8_t *filtered = malloc(layout.filtered_size);
  int decoded = stream != NULL && filtered != NULL &&
                cic_png_inflate(stream, run.total, filtered, layout.filtered_size) &&
                cic_png_unfilter_rows(filtered, pixels, &layout);
  free(filtered);
  free(owned);
  if (!decoded) return 0;
  info->width = layout.width;
  info->height = layout.height;
  info->channels = layout.channels;
  info->bit_depth = 8;
  return 1;
}
