#include "hevc_decoder_plugin.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libde265/de265.h>
#include <libheif/heif.h>
#include <libheif/heif_plugin.h>

/* libheif gives the plugin the codec configuration's parameter sets and then the item's data,
   all as NAL units behind a 4-byte big-endian length, and asks for one picture. */

static _Thread_local int cic_hevc_worker_threads = 0;

void cic_hevc_set_worker_threads(int threads) {
  cic_hevc_worker_threads = threads < 0 ? 0 : threads;
}

typedef struct cic_hevc_decoder {
  de265_decoder_context *context;
  /* NAL units pushed so far: they bound the decode steps. */
  size_t units;
} cic_hevc_decoder;

static const struct heif_error cic_hevc_ok = {heif_error_Ok, heif_suberror_Unspecified, "Success"};

static struct heif_error cic_hevc_error(enum heif_error_code code, enum heif_suberror_code sub,
                                        const char *text) {
  struct heif_error error = {code, sub, text};
  return error;
}

static const char *cic_hevc_name(void) { return "VisionCatalog libde265 (threaded)"; }

/* Above libheif's own libde265 plugin (100). */
static int cic_hevc_supports(enum heif_compression_format format) {
  return format == heif_compression_HEVC ? 120 : 0;
}

static struct heif_error cic_hevc_new(void **out) {
  cic_hevc_decoder *decoder = calloc(1, sizeof *decoder);
  if (decoder == NULL) {
    return cic_hevc_error(heif_error_Memory_allocation_error, heif_suberror_Unspecified,
                          "HEVC decoder: out of memory");
  }
  decoder->context = de265_new_decoder();
  if (decoder->context == NULL) {
    free(decoder);
    return cic_hevc_error(heif_error_Memory_allocation_error, heif_suberror_Unspecified,
                          "HEVC decoder: out of memory");
  }
  int threads = cic_hevc_worker_threads;
  if (threads > 0 && !de265_isOK(de265_start_worker_threads(decoder->context, threads))) {
    /* Without workers libde265 decodes on the calling thread; nothing is lost but speed. */
  }
  *out = decoder;
  return cic_hevc_ok;
}

static void cic_hevc_free(void *opaque) {
  cic_hevc_decoder *decoder = opaque;
  if (decoder == NULL) return;
  de265_free_decoder(decoder->context);
  free(decoder);
}

static void cic_hevc_set_strict(void *opaque, int strict) {
  cic_hevc_decoder *decoder = opaque;
  de265_set_parameter_bool(decoder->context, DE265_DECODER_PARAM_SUPPRESS_FAULTY_PICTURES,
                           strict != 0);
}

static struct heif_error cic_hevc_push(void *opaque, const void *data, size_t size) {
  cic_hevc_decoder *decoder = opaque;
  const uint8_t *bytes = data;
  size_t position = 0;
  while (position < size) {
    if (size - position < 4) {
      return cic_hevc_error(heif_error_Invalid_input, heif_suberror_End_of_data,
                            "HEVC data ends inside a NAL unit's length");
    }
    uint32_t length = (uint32_t)bytes[position] << 24 | (uint32_t)bytes[position + 1] << 16 |
                      (uint32_t)bytes[position + 2] << 8 | bytes[position + 3];
    position += 4;
    if (length > size - position || length > INT32_MAX) {
      return cic_hevc_error(heif_error_Invalid_input, heif_suberror_End_of_data,
                            "HEVC NAL unit is longer than the data left");
    }
    de265_error status = de265_push_NAL(decoder->context, bytes + position, (int)length, 0, NULL);
    if (!de265_isOK(status)) {
      return cic_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified,
                            de265_get_error_text(status));
    }
    position += length;
    decoder->units += 1;
  }
  return cic_hevc_ok;
}

/* Copies one plane of the picture into a new plane of the image. */
static struct heif_error cic_hevc_copy_plane(const struct de265_image *picture, int index,
                                             struct heif_image *image, enum heif_channel channel) {
  int width = de265_get_image_width(picture, index);
  int height = de265_get_image_height(picture, index);
  int bits = de265_get_bits_per_pixel(picture, index);
  int source_stride = 0;
  const uint8_t *source = de265_get_image_plane(picture, index, &source_stride);
  if (width <= 0 || height <= 0 || bits < 1 || bits > 16 || source == NULL) {
    return cic_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified,
                          "HEVC picture has an invalid plane");
  }
  size_t row = (size_t)width * (bits > 8 ? 2 : 1);
  if (source_stride < 0 || (size_t)source_stride < row) {
    return cic_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified,
                          "HEVC picture has an invalid plane");
  }
  struct heif_error error = heif_image_add_plane(image, channel, width, height, bits);
  if (error.code != heif_error_Ok) return error;
  int target_stride = 0;
  uint8_t *target = heif_image_get_plane(image, channel, &target_stride);
  if (target == NULL || target_stride < 0 || (size_t)target_stride < row) {
    return cic_hevc_error(heif_error_Memory_allocation_error, heif_suberror_Unspecified,
                          "HEVC decoder: out of memory");
  }
  for (int y = 0; y < height; y++) {
    memcpy(target + (size_t)y * (size_t)target_stride, source + (size_t)y * (size_t)source_stride,
           row);
  }
  return cic_hevc_ok;
}

/* The stream's own colour description (its VUI), which libheif uses when the container has no
   `colr` box: the matrix and range decide the YCbCr to RGB conversion. Values the stream leaves
   unspecified or that libheif does not know keep libheif's defaults. */
static struct heif_error cic_hevc_copy_colour(const struct de265_image *picture,
                                              struct heif_image *image) {
  struct heif_color_profile_nclx *colour = heif_nclx_color_profile_alloc();
  if (colour == NULL) {
    return cic_hevc_error(heif_error_Memory_allocation_error, heif_suberror_Unspecified,
                          "HEVC decoder: out of memory");
  }
  heif_nclx_color_profile_set_color_primaries(
      colour, (uint16_t)de265_get_image_colour_primaries(picture));
  heif_nclx_color_profile_set_transfer_characteristics(
      colour, (uint16_t)de265_get_image_transfer_characteristics(picture));
  heif_nclx_color_profile_set_matrix_coefficients(
      colour, (uint16_t)de265_get_image_matrix_coefficients(picture));
  colour->full_range_flag = (uint8_t)(de265_get_image_full_range_flag(picture) != 0);
  struct heif_error error = heif_image_set_nclx_color_profile(image, colour);
  heif_nclx_color_profile_free(colour);
  return error;
}

static struct heif_error cic_hevc_picture_to_image(const struct de265_image *picture,
                                                   struct heif_image **out) {
  enum heif_chroma chroma;
  switch (de265_get_chroma_format(picture)) {
    case de265_chroma_mono: chroma = heif_chroma_monochrome; break;
    case de265_chroma_420: chroma = heif_chroma_420; break;
    case de265_chroma_422: chroma = heif_chroma_422; break;
    case de265_chroma_444: chroma = heif_chroma_444; break;
    default:
      return cic_hevc_error(heif_error_Unsupported_feature, heif_suberror_Unsupported_color_conversion,
                            "HEVC picture has an unknown chroma format");
  }
  int mono = chroma == heif_chroma_monochrome;
  struct heif_image *image = NULL;
  struct heif_error error = heif_image_create(
      de265_get_image_width(picture, 0), de265_get_image_height(picture, 0),
      mono ? heif_colorspace_monochrome : heif_colorspace_YCbCr, chroma, &image);
  if (error.code != heif_error_Ok) return error;
  static const enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
  for (int index = 0; index < (mono ? 1 : 3) && error.code == heif_error_Ok; index++) {
    error = cic_hevc_copy_plane(picture, index, image, channels[index]);
  }
  if (error.code == heif_error_Ok) error = cic_hevc_copy_colour(picture, image);
  if (error.code != heif_error_Ok) {
    heif_image_release(image);
    return error;
  }
  *out = image;
  return cic_hevc_ok;
}

static struct heif_error cic_hevc_decode(void *opaque, struct heif_image **out) {
  cic_hevc_decoder *decoder = opaque;
  de265_error status = de265_flush_data(decoder->context);
  if (!de265_isOK(status)) {
    return cic_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified,
                          de265_get_error_text(status));
  }
  /* Each de265_decode call takes on about one NAL unit and says whether more work is left; the
     steps are capped all the same, so no stream can keep the loop going. */
  int more = 1;
  const struct de265_image *picture = NULL;
  size_t steps = 4 * decoder->units + 64;
  while (more && picture == NULL) {
    if (steps-- == 0) {
      return cic_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified,
                            "HEVC decoding makes no progress");
    }
    more = 0;
    status = de265_decode(decoder->context, &more);
    if (status != DE265_OK && status != DE265_ERROR_WAITING_FOR_INPUT_DATA) {
      return cic_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified,
                            de265_get_error_text(status));
    }
    picture = de265_get_next_picture(decoder->context);
  }
  if (picture == NULL) {
    return cic_hevc_error(heif_error_Decoder_plugin_error, heif_suberror_Unspecified,
                          "HEVC data gives no picture");
  }
  struct heif_error error = cic_hevc_picture_to_image(picture, out);
  de265_release_next_picture(decoder->context);
  return error;
}

static const struct heif_decoder_plugin cic_hevc_plugin = {
    .plugin_api_version = 3,
    .get_plugin_name = cic_hevc_name,
    .init_plugin = NULL,
    .deinit_plugin = NULL,
    .does_support_format = cic_hevc_supports,
    .new_decoder = cic_hevc_new,
    .free_decoder = cic_hevc_free,
    .push_data = cic_hevc_push,
    .decode_image = cic_hevc_decode,
    .set_strict_decoding = cic_hevc_set_strict,
    .id_name = "visioncatalog-libde265",
};

static pthread_once_t cic_hevc_once = PTHREAD_ONCE_INIT;

static void cic_hevc_register_once(void) { heif_register_decoder_plugin(&cic_hevc_plugin); }

void cic_hevc_register_decoder(void) { pthread_once(&cic_hevc_once, cic_hevc_register_once); }
