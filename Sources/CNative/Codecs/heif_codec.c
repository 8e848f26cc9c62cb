#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libheif/heif.h>

#include "codec_support.h"
#include "hevc_decoder_plugin.h"

/* HEIF: HEIC (HEVC) and AVIF (AV1) through libheif 1.15, which reports errors as values, so
   nothing here jumps. HEVC goes through this target's libde265 plugin (hevc_decoder_plugin.c),
   which can use worker threads. libheif applies the container's transforms (clean aperture,
   rotation, mirroring) while decoding, so the output is upright unless the caller asks for the
   stored pixels; EXIF orientation is left to the caller, which for HEIF treats it as
   descriptive only. */

/* The largest width or height libheif may accept for any image or grid of the file: above it,
   reading the file fails before any pixel memory is allocated. */
enum { CIC_HEIF_MAX_SIDE = 65535 };

static cic_status cic_heif_status(struct heif_error error) {
  if (error.subcode == heif_suberror_End_of_data) return CIC_STATUS_TRUNCATED;
  if (error.subcode == heif_suberror_Security_limit_exceeded) return CIC_STATUS_LIMIT_EXCEEDED;
  switch (error.code) {
    case heif_error_Ok: return CIC_STATUS_OK;
    case heif_error_Unsupported_filetype:
    case heif_error_Unsupported_feature:
    case heif_error_Plugin_loading_error: return CIC_STATUS_UNSUPPORTED;
    case heif_error_Memory_allocation_error: return CIC_STATUS_LIMIT_EXCEEDED;
    case heif_error_Usage_error: return CIC_STATUS_INVALID_ARGUMENT;
    default: return CIC_STATUS_CORRUPT;
  }
}

static cic_status cic_heif_fail(struct heif_error error, const char *stage, char *message,
                                size_t capacity) {
  cic_set_message(message, capacity, "%s: %s", stage,
                  error.message != NULL ? error.message : "libheif error");
  return cic_heif_status(error);
}

/* An open file: its context and primary image. */
typedef struct cic_heif_file {
  struct heif_context *context;
  struct heif_image_handle *primary;
} cic_heif_file;

static void cic_heif_close(cic_heif_file *file) {
  if (file->primary != NULL) heif_image_handle_release(file->primary);
  if (file->context != NULL) heif_context_free(file->context);
  file->primary = NULL;
  file->context = NULL;
}

/* Whether this libheif can decode the file's codec; names the missing piece when not. */
static cic_status cic_heif_check_decoder(const uint8_t *data, size_t size, char *message,
                                         size_t capacity) {
  enum heif_brand brand = heif_main_brand(data, size > INT_MAX ? INT_MAX : (int)size);
  int av1 = brand == heif_avif || brand == heif_avis;
  enum heif_compression_format format = av1 ? heif_compression_AV1 : heif_compression_HEVC;
  if (heif_have_decoder_for_format(format)) return CIC_STATUS_OK;
  cic_set_message(message, capacity,
                  "this libheif has no %s decoder (on Debian 13 and later install %s)",
                  av1 ? "AV1" : "HEVC",
                  av1 ? "libheif-plugin-dav1d or libheif-plugin-aomdec"
                      : "libheif-plugin-libde265");
  return CIC_STATUS_UNSUPPORTED;
}

/* Parses the file's boxes and finds the primary image; fills info (the upright size). */
static cic_status cic_heif_open(const uint8_t *data, size_t size,
                                const cic_decode_options *options, cic_heif_file *file,
                                cic_image_info *info, char *message, size_t capacity) {
  file->context = NULL;
  file->primary = NULL;
  if (data == NULL || size == 0) {
    cic_set_message(message, capacity, "HEIF data is empty");
    return CIC_STATUS_TRUNCATED;
  }
  cic_hevc_register_decoder();
  file->context = heif_context_alloc();
  if (file->context == NULL) {
    cic_set_message(message, capacity, "HEIF: out of memory");
    return CIC_STATUS_LIMIT_EXCEEDED;
  }
  heif_context_set_maximum_image_size_limit(file->context, CIC_HEIF_MAX_SIDE);
  struct heif_error error =
      heif_context_read_from_memory_without_copy(file->context, data, size, NULL);
  if (error.code != heif_error_Ok) return cic_heif_fail(error, "HEIF container", message, capacity);
  error = heif_context_get_primary_image_handle(file->context, &file->primary);
  if (error.code != heif_error_Ok) return cic_heif_fail(error, "HEIF primary image", message, capacity);
  int width = heif_image_handle_get_width(file->primary);
  int height = heif_image_handle_get_height(file->primary);
  if (width <= 0 || height <= 0) {
    cic_set_message(message, capacity, "HEIF primary image has an empty size %dx%d", width,
                    height);
    return CIC_STATUS_CORRUPT;
  }
  /* From here on no image of the file may be much larger than the primary one: a stream that
     decodes to far more than its `ispe` box declares (a hostile file of 64x64 whose HEVC
     stream says 48468x12815) is refused instead of allocated. libheif 1.15 takes one limit for
     both sides, and refuses a side equal to it. The slack: coded sizes are padded to whole
     coding blocks (up to 64 samples), and real files code more than they declare (a stereo
     pair of 64x64 declared views codes 160x64). */
  int side = width > height ? width : height;
  int stored = heif_image_handle_get_ispe_width(file->primary);
  if (heif_image_handle_get_ispe_height(file->primary) > stored) {
    stored = heif_image_handle_get_ispe_height(file->primary);
  }
  if (stored > side) side = stored;
  /* One limit for both sides bounds an image's area by its square, so with a pixel limit the
     side may not pass twice the limit's square root either: a hostile 131090x24 primary would
     otherwise let a 48468x12815 stream through. */
  int64_t cap = CIC_HEIF_MAX_SIDE;
  if (options != NULL && options->max_pixels != 0) {
    int64_t root = (int64_t)sqrt((double)options->max_pixels);
    if (2 * root + 65 < cap) cap = 2 * root + 65;
  }
  if ((int64_t)side + 1 > cap) {
    cic_set_message(message, capacity,
                    "HEIF image side %d is more than this decoder's limit of %lld (twice the "
                    "square root of the pixel limit; raise the pixel limit for such images)",
                    side, (long long)cap - 1);
    return CIC_STATUS_LIMIT_EXCEEDED;
  }
  int64_t limit = 2 * (int64_t)side + 65;
  heif_context_set_maximum_image_size_limit(file->context, (int)(limit < cap ? limit : cap));
  int bits = heif_image_handle_get_luma_bits_per_pixel(file->primary);
  info->width = (uint32_t)width;
  info->height = (uint32_t)height;
  info->channels = heif_image_handle_has_alpha_channel(file->primary) ? 4 : 3;
  info->bit_depth = bits > 0 ? (uint32_t)bits : 8;
  cic_status status = cic_check_pixel_limit(info->width, info->height, info->channels, options,
                                            "HEIF", message, capacity);
  if (status != CIC_STATUS_OK) return status;
  return cic_heif_check_decoder(data, size, message, capacity);
}

cic_status cic_heif_inspect(const uint8_t *data, size_t size, const cic_decode_options *options,
                            cic_image_info *info, char *message, size_t message_capacity) {
  cic_heif_file file;
  cic_status status = cic_heif_open(data, size, options, &file, info, message, message_capacity);
  cic_heif_close(&file);
  return status;
}

/*
 * Copies the decoded plane into pixels (8-bit samples; 16-bit little-endian samples of `bits`
 * bits are rounded to 8). libheif 1.15 may report a grid's size before its rotation and decode
 * it rotated: the same pixel count with width and height swapped is accepted, and info is set
 * to the decoded size (ImageDecoder gives such a header its upright size from the container's
 * boxes, so the two agree).
 */
static cic_status cic_heif_copy(const struct heif_image *image, int bits, cic_image_info *info,
                                uint8_t *pixels, char *message, size_t capacity) {
  int width = heif_image_get_width(image, heif_channel_interleaved);
  int height = heif_image_get_height(image, heif_channel_interleaved);
  int stride = 0;
  const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
  int same = width == (int)info->width && height == (int)info->height;
  int swapped = width == (int)info->height && height == (int)info->width;
  size_t sample_bytes = bits > 8 ? 2 : 1;
  if (plane == NULL || !(same || swapped) || stride < 0 ||
      (size_t)stride < (size_t)width * info->channels * sample_bytes) {
    cic_set_message(message, capacity,
                    "HEIF: the decoded image is %dx%d, the header promised %ux%u", width, height,
                    info->width, info->height);
    return CIC_STATUS_CORRUPT;
  }
  info->width = (uint32_t)width;
  info->height = (uint32_t)height;
  size_t row = (size_t)width * info->channels;
  if (sample_bytes == 1) {
    for (int y = 0; y < height; y++) {
      memcpy(pixels + (size_t)y * row, plane + (size_t)y * (size_t)stride, row);
    }
    return CIC_STATUS_OK;
  }
  uint32_t top = (1u << bits) - 1u;
  for (int y = 0; y < height; y++) {
    const uint8_t *source = plane + (size_t)y * (size_t)stride;
    uint8_t *target = pixels + (size_t)y * row;
    for (size_t i = 0; i < row; i++) {
      uint32_t value = (uint32_t)source[2 * i] | (uint32_t)source[2 * i + 1] << 8;
      if (value > top) value = top;
      target[i] = (uint8_t)((value * 255u + top / 2u) / top);
    }
  }
  return CIC_STATUS_OK;
}

/*
 * Spreads one decode over about `threads` cores. Both counts are above the core count on
 * purpose: libheif 1.15 waits for its tile threads in order, and libde265's wavefront workers
 * wait for the row above, so with one thread per core the cores idle (on 2 cores, 8 workers
 * decode a 12 MP x265 stream in 600 ms where 2 take 850 ms and 1 takes 900 ms).
 */
static void cic_heif_set_threads(struct heif_context *context, uint32_t threads) {
  if (threads <= 1) {
    heif_context_set_max_decoding_threads(context, 0);
    cic_hevc_set_worker_threads(0);
    return;
  }
  heif_context_set_max_decoding_threads(context, threads >= 4 ? 32 : (int)threads * 8);
  cic_hevc_set_worker_threads(threads >= 4 ? 16 : (int)threads * 4);
}

cic_status cic_heif_decode(const uint8_t *data, size_t size, const cic_decode_options *options,
                           uint8_t *pixels, size_t pixels_size, cic_image_info *info,
                           char *message, size_t message_capacity) {
  cic_heif_file file;
  cic_status status = cic_heif_open(data, size, options, &file, info, message, message_capacity);
  int untransformed = options != NULL && options->untransformed != 0;
  if (status == CIC_STATUS_OK && untransformed) {
    info->width = (uint32_t)heif_image_handle_get_ispe_width(file.primary);
    info->height = (uint32_t)heif_image_handle_get_ispe_height(file.primary);
  }
  if (status == CIC_STATUS_OK &&
      (pixels == NULL || pixels_size != (size_t)info->width * info->height * info->channels)) {
    cic_set_message(message, message_capacity,
                    "HEIF: the pixel buffer holds %zu bytes, the image needs %zu", pixels_size,
                    (size_t)info->width * info->height * info->channels);
    status = CIC_STATUS_INVALID_ARGUMENT;
  }
  struct heif_decoding_options *settings = NULL;
  struct heif_image *image = NULL;
  if (status == CIC_STATUS_OK) {
    settings = heif_decoding_options_alloc();
    if (settings == NULL) {
      cic_set_message(message, message_capacity, "HEIF: out of memory");
      status = CIC_STATUS_LIMIT_EXCEEDED;
    }
  }
  if (status == CIC_STATUS_OK) {
    settings->ignore_transformations = (uint8_t)untransformed;
    cic_heif_set_threads(file.context, options != NULL ? options->threads : 0);
    /* Transforms are applied unless asked otherwise. 10- and 12-bit images decode to 16-bit
       samples that are rounded to 8 bits here: libheif 1.15's own reduction gets monochrome
       images wrong. */
    int bits = info->bit_depth > 8 && info->bit_depth <= 16 ? (int)info->bit_depth : 8;
    int alpha = info->channels == 4;
    enum heif_chroma chroma =
        bits > 8 ? (alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
                 : (alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB);
    struct heif_error error =
        heif_decode_image(file.primary, &image, heif_colorspace_RGB, chroma, settings);
    if (error.code != heif_error_Ok) {
      status = cic_heif_fail(error, "HEIF decoding", message, message_capacity);
    } else {
      status = cic_heif_copy(image, bits, info, pixels, message, message_capacity);
    }
  }
  cic_hevc_set_worker_threads(0);
  if (image != NULL) heif_image_release(image);
  if (settings != NULL) heif_decoding_options_free(settings);
  cic_heif_close(&file);
  return status;
}

cic_status cic_heif_exif(const uint8_t *data, size_t size, size_t max_size, cic_buffer *output,
                         char *message, size_t message_capacity) {
  cic_image_info info;
  cic_heif_file file;
  cic_status status = cic_heif_open(data, size, NULL, &file, &info, message, message_capacity);
  if (status == CIC_STATUS_UNSUPPORTED && file.primary != NULL) status = CIC_STATUS_OK;
  heif_item_id id = 0;
  if (status == CIC_STATUS_OK &&
      heif_image_handle_get_list_of_metadata_block_IDs(file.primary, "Exif", &id, 1) == 1) {
    size_t length = heif_image_handle_get_metadata_size(file.primary, id);
    if (length >= 4 && length <= max_size) {
      uint8_t *block = malloc(length);
      if (block == NULL) {
        status = CIC_STATUS_LIMIT_EXCEEDED;
      } else {
        struct heif_error error = heif_image_handle_get_metadata(file.primary, id, block);
        /* The block starts with a 4-byte big-endian offset to the TIFF header. */
        uint32_t offset = (uint32_t)block[0] << 24 | (uint32_t)block[1] << 16 |
                          (uint32_t)block[2] << 8 | block[3];
        if (error.code == heif_error_Ok && offset <= length - 4 &&
            !cic_buffer_append(output, block + 4 + offset, length - 4 - offset)) {
          status = CIC_STATUS_LIMIT_EXCEEDED;
        }
        free(block);
      }
    }
  }
  cic_heif_close(&file);
  return status;
}
