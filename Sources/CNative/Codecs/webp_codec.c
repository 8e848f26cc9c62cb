#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/demux.h>

#include "codec_support.h"

/* WebP (lossy VP8, lossless VP8L, alpha, animation) through libwebp 1.2. libwebp reports errors
   as return codes, so nothing here jumps. */

static cic_status cic_webp_status(VP8StatusCode code) {
  switch (code) {
    case VP8_STATUS_OK: return CIC_STATUS_OK;
    case VP8_STATUS_NOT_ENOUGH_DATA: return CIC_STATUS_TRUNCATED;
    case VP8_STATUS_UNSUPPORTED_FEATURE: return CIC_STATUS_UNSUPPORTED;
    case VP8_STATUS_OUT_OF_MEMORY: return CIC_STATUS_LIMIT_EXCEEDED;
    case VP8_STATUS_INVALID_PARAM: return CIC_STATUS_INVALID_ARGUMENT;
    default: return CIC_STATUS_CORRUPT;
  }
}

static const char *cic_webp_reason(VP8StatusCode code) {
  switch (code) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "bitstream error";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_SUSPENDED: return "suspended";
    case VP8_STATUS_USER_ABORT: return "aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the data ends early";
    default: return "unknown error";
  }
}

/* Reads the header into features and info, checking the pixel limit. */
static cic_status cic_webp_header(const uint8_t *data, size_t size,
                                  const cic_decode_options *options,
                                  WebPBitstreamFeatures *features, cic_image_info *info,
                                  char *message, size_t capacity) {
  if (data == NULL || size == 0) {
    cic_set_message(message, capacity, "WebP data is empty");
    return CIC_STATUS_TRUNCATED;
  }
  VP8StatusCode code = WebPGetFeatures(data, size, features);
  if (code != VP8_STATUS_OK) {
    cic_set_message(message, capacity, "WebP header: %s", cic_webp_reason(code));
    return cic_webp_status(code);
  }
  if (features->width <= 0 || features->height <= 0) {
    cic_set_message(message, capacity, "WebP header gives an empty size %dx%d", features->width,
                    features->height);
    return CIC_STATUS_CORRUPT;
  }
  info->width = (uint32_t)features->width;
  info->height = (uint32_t)features->height;
  info->channels = features->has_alpha ? 4 : 3;
  info->bit_depth = 8;
  return cic_check_pixel_limit(info->width, info->height, info->channels, options, "WebP",
                               message, capacity);
}

cic_status cic_webp_inspect(const uint8_t *data, size_t size, const cic_decode_options *options,
                            cic_image_info *info, char *message, size_t message_capacity) {
  WebPBitstreamFeatures features;
  return cic_webp_header(data, size, options, &features, info, message, message_capacity);
}

/* The first frame of an animation, composed on its canvas as a viewer shows it. */
static cic_status cic_webp_first_frame(const uint8_t *data, size_t size,
                                       const cic_image_info *info, uint8_t *pixels,
                                       char *message, size_t capacity) {
  WebPAnimDecoderOptions settings;
  if (!WebPAnimDecoderOptionsInit(&settings)) {
    cic_set_message(message, capacity, "WebP: libwebp's animation API does not match its header");
    return CIC_STATUS_UNSUPPORTED;
  }
  settings.color_mode = MODE_RGBA;
  settings.use_threads = 0;
  WebPData whole = {data, size};
  WebPAnimDecoder *decoder = WebPAnimDecoderNew(&whole, &settings);
  if (decoder == NULL) {
    cic_set_message(message, capacity, "WebP animation: damaged or truncated frame data");
    return CIC_STATUS_CORRUPT;
  }
  WebPAnimInfo animation;
  uint8_t *canvas = NULL;
  int timestamp = 0;
  cic_status status = CIC_STATUS_OK;
  if (!WebPAnimDecoderGetInfo(decoder, &animation) || animation.canvas_width != info->width ||
      animation.canvas_height != info->height) {
    cic_set_message(message, capacity, "WebP animation: the canvas does not match the header");
    status = CIC_STATUS_CORRUPT;
  } else if (!WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) || canvas == NULL) {
    cic_set_message(message, capacity, "WebP animation: the first frame does not decode");
    status = CIC_STATUS_CORRUPT;
  } else {
    size_t count = (size_t)info->width * info->height;
    if (info->channels == 4) {
      memcpy(pixels, canvas, count * 4);
    } else {
      for (size_t i = 0; i < count; i++) memcpy(pixels + i * 3, canvas + i * 4, 3);
    }
  }
  WebPAnimDecoderDelete(decoder);
  return status;
}

cic_status cic_webp_decode(const uint8_t *data, size_t size, const cic_decode_options *options,
                           uint8_t *pixels, size_t pixels_size, cic_image_info *info,
                           char *message, size_t message_capacity) {
  WebPBitstreamFeatures features;
  cic_status status =
      cic_webp_header(data, size, options, &features, info, message, message_capacity);
  if (status != CIC_STATUS_OK) return status;
  size_t stride = (size_t)info->width * info->channels;
  if (pixels == NULL || pixels_size != stride * info->height) {
    cic_set_message(message, message_capacity,
                    "WebP: the pixel buffer holds %zu bytes, the image needs %zu", pixels_size,
                    stride * info->height);
    return CIC_STATUS_INVALID_ARGUMENT;
  }
  if (features.has_animation) {
    return cic_webp_first_frame(data, size, info, pixels, message, message_capacity);
  }
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) {
    cic_set_message(message, message_capacity,
                    "WebP: libwebp's decoding API does not match its header");
    return CIC_STATUS_UNSUPPORTED;
  }
  config.output.colorspace = info->channels == 4 ? MODE_RGBA : MODE_RGB;
  config.output.is_external_memory = 1;
  config.output.u.RGBA.rgba = pixels;
  config.output.u.RGBA.stride = (int)stride;
  config.output.u.RGBA.size = pixels_size;
  VP8StatusCode code = WebPDecode(data, size, &config);
  WebPFreeDecBuffer(&config.output);
  if (code != VP8_STATUS_OK) {
    cic_set_message(message, message_capacity, "%s (libwebp status %d)", cic_webp_reason(code), (int)code);
    return cic_webp_status(code);
  }
  return CIC_STATUS_OK;
}
