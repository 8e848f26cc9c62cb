#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "codec_support.h"

typedef struct cic_jpeg_error {
  struct jpeg_error_mgr manager;
  jmp_buf jump;
  int allow_truncated;
  int ran_out;
  cic_status status;
  char message[JMSG_LENGTH_MAX + CIC_MESSAGE_CAPACITY];
} cic_jpeg_error;

typedef struct cic_jpeg_progress {
  struct jpeg_progress_mgr manager;
  uint32_t max_scans;
} cic_jpeg_progress;

static cic_status cic_jpeg_classify(j_common_ptr cinfo, cic_jpeg_error *error) {
  if (error->ran_out) return CIC_STATUS_TRUNCATED;
  switch (error->manager.msg_code) {
    case JERR_SOF_UNSUPPORTED:
    case JERR_NOT_COMPILED:
    case JERR_NOTIMPL:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_ARITH_NOTIMPL:
      return CIC_STATUS_UNSUPPORTED;
    case JERR_BAD_PRECISION: {
      int precision = cinfo->is_decompressor ? ((j_decompress_ptr)cinfo)->data_precision : 0;
      return precision == 12 || precision == 16 ? CIC_STATUS_UNSUPPORTED : CIC_STATUS_CORRUPT;
    }
    case JERR_OUT_OF_MEMORY:
    case JERR_IMAGE_TOO_BIG:
    case JERR_WIDTH_OVERFLOW:
      return CIC_STATUS_LIMIT_EXCEEDED;
    case JERR_INPUT_EMPTY:
    case JERR_INPUT_EOF:
      return CIC_STATUS_TRUNCATED;
    default:
      return CIC_STATUS_CORRUPT;
  }
}

static void cic_jpeg_explain(j_common_ptr cinfo, cic_jpeg_error *error) {
  char text[JMSG_LENGTH_MAX];
  (*cinfo->err->format_message)(cinfo, text);
  const char *why = "";
  if (error->manager.msg_code == JERR_SOF_UNSUPPORTED) {
    unsigned marker = (unsigned)error->manager.msg_parm.i[0];
    if (marker == 0xC3 || marker == 0xC7 || marker == 0xCB || marker == 0xCF) {
      why = "lossless JPEG is not supported by the 8-bit libjpeg-turbo 2.1 API: ";
    } else {
      why = "hierarchical JPEG is not supported by libjpeg-turbo: ";
    }
  } else if (error->status == CIC_STATUS_UNSUPPORTED &&
             error->manager.msg_code == JERR_BAD_PRECISION) {
    why = "only 8-bit JPEG samples are supported by the libjpeg-turbo 2.1 API: ";
  }
  cic_set_message(error->message, sizeof error->message, "%s%s", why, text);
}

static void cic_jpeg_error_exit(j_common_ptr cinfo) {
  cic_jpeg_error *error = (cic_jpeg_error *)cinfo->err;
  if (error->status == CIC_STATUS_OK) error->status = cic_jpeg_classify(cinfo, error);
  cic_jpeg_explain(cinfo, error);
  longjmp(error->jump, 1);
}

/* libjpeg only warns when the data ends early and then invents an EOI marker; counting that
   warning is the one way to tell a truncated file from a complete one. Other warnings (corrupt
   entropy data, odd progression) leave a usable image and are tolerated, as other readers do. */
static void cic_jpeg_emit_message(j_common_ptr cinfo, int msg_level) {
  cic_jpeg_error *error = (cic_jpeg_error *)cinfo->err;
  if (msg_level >= 0) return;
  error->manager.num_warnings++;
  if (error->manager.msg_code == JWRN_JPEG_EOF) {
    error->ran_out = 1;
    if (!error->allow_truncated) {
      error->status = CIC_STATUS_TRUNCATED;
      char text[JMSG_LENGTH_MAX];
      (*cinfo->err->format_message)(cinfo, text);
      cic_set_message(error->message, sizeof error->message,
                      "%s (the data ends before the image is complete)", text);
      longjmp(error->jump, 1);
    }
  }
}

static void cic_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

/* A hostile progressive file can hold thousands of tiny scans, each costing a pass over the
   whole coefficient buffer; capping the scan count bounds the decode time. */
static void cic_jpeg_progress_monitor(j_common_ptr cinfo) {
  if (!cinfo->is_decompressor) return;
  j_decompress_ptr decompress = (j_decompress_ptr)cinfo;
  cic_jpeg_progress *progress = (cic_jpeg_progress *)cinfo->progress;
  if (progress->max_scans != 0 && decompress->input_scan_number > 0 &&
      (uint32_t)decompress->input_scan_number > progress->max_scans) {
    cic_jpeg_error *error = (cic_jpeg_error *)cinfo->err;
    error->status = CIC_STATUS_LIMIT_EXCEEDED;
    cic_set_message(error->message, sizeof error->message,
                    "JPEG has more than %u scans, the limit for one image",
                    progress->max_scans);
    longjmp(error->jump, 1);
  }
}

static void cic_jpeg_install_error(cic_jpeg_error *error, int allow_truncated) {
  jpeg_std_error(&error->manager);
  error->manager.error_exit = cic_jpeg_error_exit;
  error->manager.emit_message = cic_jpeg_emit_message;
  error->manager.output_message = cic_jpeg_output_message;
  error->allow_truncated = allow_truncated;
  error->ran_out = 0;
  error->status = CIC_STATUS_OK;
  error->message[0] = '\0';
}

/* Adobe's encoders store CMYK inverted (0 = full ink) and say so with an APP14 marker; without
   the marker the samples are plain CMYK. Either way the conversion is the simple subtractive
   one, rounded, as browsers and Pillow do it, since no ICC profile is applied. */
static void cic_cmyk_to_rgb(const JSAMPLE *cmyk, uint8_t *rgb, JDIMENSION width, int inverted) {
  for (JDIMENSION x = 0; x < width; x++) {
    unsigned c = cmyk[0], m = cmyk[1], y = cmyk[2], k = cmyk[3];
    if (!inverted) {
      c = 255 - c;
      m = 255 - m;
      y = 255 - y;
      k = 255 - k;
    }
    rgb[0] = (uint8_t)((c * k + 127) / 255);
    rgb[1] = (uint8_t)((m * k + 127) / 255);
    rgb[2] = (uint8_t)((y * k + 127) / 255);
    cmyk += 4;
    rgb += 3;
  }
}

typedef struct cic_jpeg_decoder {
  struct jpeg_decompress_struct cinfo;
  cic_jpeg_error error;
  cic_jpeg_progress progress;
} cic_jpeg_decoder;

static cic_status cic_jpeg_run(cic_jpeg_decoder *decoder, const uint8_t *data, size_t size,
                               const cic_decode_options *options, uint8_t *pixels,
                               size_t pixels_size, cic_image_info *info) {
  j_decompress_ptr cinfo = &decoder->cinfo;
  cinfo->err = &decoder->error.manager;
  cic_jpeg_install_error(&decoder->error, options != NULL && options->allow_truncated);
  if (setjmp(decoder->error.jump)) {
    jpeg_destroy_decompress(cinfo);
    return decoder->error.status == CIC_STATUS_OK ? CIC_STATUS_CORRUPT : decoder->error.status;
  }
  jpeg_create_decompress(cinfo);
  decoder->progress.manager.progress_monitor = cic_jpeg_progress_monitor;
  decoder->progress.max_scans = options == NULL ? 0 : options->max_scans;
  cinfo->progress = &decoder->progress.manager;

  if (size == 0) ERREXIT(cinfo, JERR_INPUT_EMPTY);
  jpeg_mem_src(cinfo, data, (unsigned long)size);
  if (jpeg_read_header(cinfo, TRUE) != JPEG_HEADER_OK) ERREXIT(cinfo, JERR_NO_IMAGE);

  int is_cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
  switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
      cinfo->out_color_space = JCS_GRAYSCALE;
      break;
    case JCS_CMYK:
    case JCS_YCCK:
      cinfo->out_color_space = JCS_CMYK;
      break;
    case JCS_UNKNOWN:
      decoder->error.status = CIC_STATUS_UNSUPPORTED;
      cic_set_message(decoder->error.message, sizeof decoder->error.message,
                      "JPEG with %d components in an unknown color space is not supported",
                      cinfo->num_components);
      longjmp(decoder->error.jump, 1);
    default:
      cinfo->out_color_space = JCS_RGB;
      break;
  }
  uint32_t channels = cinfo->out_color_space == JCS_GRAYSCALE ? 1 : 3;
  cic_status limit =
      cic_check_pixel_limit(cinfo->image_width, cinfo->image_height, channels, options, "JPEG",
                            decoder->error.message, sizeof decoder->error.message);
  if (limit != CIC_STATUS_OK) {
    decoder->error.status = limit;
    longjmp(decoder->error.jump, 1);
  }
  uint32_t denominator = options == NULL ? 1 : options->scale_denominator;
  if (denominator != 0 && denominator != 1 && denominator != 2 && denominator != 4 &&
      denominator != 8) {
    decoder->error.status = CIC_STATUS_INVALID_ARGUMENT;
    cic_set_message(decoder->error.message, sizeof decoder->error.message,
                    "JPEG scale denominator %u is not 1, 2, 4 or 8", denominator);
    longjmp(decoder->error.jump, 1);
  }
  cinfo->scale_num = 1;
  cinfo->scale_denom = denominator == 0 ? 1 : denominator;
  jpeg_calc_output_dimensions(cinfo);
  info->width = cinfo->output_width;
  info->height = cinfo->output_height;
  info->channels = channels;
  info->bit_depth = (uint32_t)cinfo->data_precision;
  if (pixels == NULL) {
    jpeg_destroy_decompress(cinfo);
    return CIC_STATUS_OK;
  }
  size_t row_bytes = (size_t)info->width * channels;
  if (pixels_size != row_bytes * info->height) {
    decoder->error.status = CIC_STATUS_INVALID_ARGUMENT;
    cic_set_message(decoder->error.message, sizeof decoder->error.message,
                    "pixel buffer of %zu bytes does not match %ux%ux%u", pixels_size,
                    info->width, info->height, channels);
    longjmp(decoder->error.jump, 1);
  }

  jpeg_start_decompress(cinfo);
  if (cinfo->output_width != info->width || cinfo->output_height != info->height ||
      (uint32_t)cinfo->output_components != (is_cmyk ? 4u : channels)) {
    ERREXIT(cinfo, JERR_CONVERSION_NOTIMPL);
  }
  JSAMPARRAY cmyk_row = NULL;
  if (is_cmyk) {
    cmyk_row = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE,
                                           cinfo->output_width * 4, 1);
  }
  int inverted = cinfo->saw_Adobe_marker;
  uint32_t last_row = cinfo->output_height;
  uint32_t max_rows = options == NULL ? 0 : options->max_rows;
  if (max_rows != 0 && max_rows < last_row) last_row = max_rows;
  while (cinfo->output_scanline < last_row) {
    uint8_t *row = pixels + (size_t)cinfo->output_scanline * row_bytes;
    if (is_cmyk) {
      if (jpeg_read_scanlines(cinfo, cmyk_row, 1) != 1) ERREXIT(cinfo, JERR_INPUT_EOF);
      cic_cmyk_to_rgb(cmyk_row[0], row, cinfo->output_width, inverted);
    } else {
      JSAMPROW rows[1] = {row};
      if (jpeg_read_scanlines(cinfo, rows, 1) != 1) ERREXIT(cinfo, JERR_INPUT_EOF);
    }
  }
  memset(pixels + (size_t)last_row * row_bytes, 0, (size_t)(info->height - last_row) * row_bytes);
  /* Every row asked for is decoded; whatever follows (a missing EOI, trailing data, an appended
     gain map image) does not change them, so the stream is not read to its end. */
  jpeg_destroy_decompress(cinfo);
  return CIC_STATUS_OK;
}

static cic_status cic_jpeg_start(const uint8_t *data, size_t size,
                                 const cic_decode_options *options, uint8_t *pixels,
                                 size_t pixels_size, cic_image_info *info, char *message,
                                 size_t message_capacity) {
  if (data == NULL || info == NULL) {
    cic_set_message(message, message_capacity, "missing JPEG data or info");
    return CIC_STATUS_INVALID_ARGUMENT;
  }
  memset(info, 0, sizeof *info);
  cic_jpeg_decoder *decoder = calloc(1, sizeof *decoder);
  if (decoder == NULL) {
    cic_set_message(message, message_capacity, "no memory for the JPEG decoder");
    return CIC_STATUS_LIMIT_EXCEEDED;
  }
  cic_status status = cic_jpeg_run(decoder, data, size, options, pixels, pixels_size, info);
  if (status != CIC_STATUS_OK) {
    cic_set_message(message, message_capacity, "%s", decoder->error.message);
  }
  free(decoder);
  return status;
}

cic_status cic_jpeg_inspect(const uint8_t *data, size_t size, const cic_decode_options *options,
                            cic_image_info *info, char *message, size_t message_capacity) {
  return cic_jpeg_start(data, size, options, NULL, 0, info, message, message_capacity);
}

cic_status cic_jpeg_decode(const uint8_t *data, size_t size, const cic_decode_options *options,
                           uint8_t *pixels, size_t pixels_size, cic_image_info *info,
                           char *message, size_t message_capacity) {
  if (pixels == NULL) {
    cic_set_message(message, message_capacity, "missing pixel buffer");
    return CIC_STATUS_INVALID_ARGUMENT;
  }
  return cic_jpeg_start(data, size, options, pixels, pixels_size, info, message,
                        message_capacity);
}

typedef struct cic_jpeg_encoder {
  struct jpeg_compress_struct cinfo;
  cic_jpeg_error error;
  unsigned char *buffer;
  unsigned long buffer_size;
} cic_jpeg_encoder;

static cic_status cic_jpeg_write(cic_jpeg_encoder *encoder, const uint8_t *pixels,
                                 uint32_t width, uint32_t height, uint32_t channels,
                                 const cic_jpeg_encode_options *options, const uint8_t *app1,
                                 size_t app1_size) {
  j_compress_ptr cinfo = &encoder->cinfo;
  cinfo->err = &encoder->error.manager;
  cic_jpeg_install_error(&encoder->error, 0);
  if (setjmp(encoder->error.jump)) {
    jpeg_destroy_compress(cinfo);
    free(encoder->buffer);
    encoder->buffer = NULL;
    return encoder->error.status == CIC_STATUS_OK ? CIC_STATUS_INVALID_ARGUMENT
                                                  : encoder->error.status;
  }
  jpeg_create_compress(cinfo);
  jpeg_mem_dest(cinfo, &encoder->buffer, &encoder->buffer_size);
  cinfo->image_width = width;
  cinfo->image_height = height;
  cinfo->input_components = (int)channels;
  cinfo->in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(cinfo);
  jpeg_set_quality(cinfo, options->quality, TRUE);
  if (channels == 3) {
    int factor = options->subsample_chroma ? 2 : 1;
    cinfo->comp_info[0].h_samp_factor = factor;
    cinfo->comp_info[0].v_samp_factor = factor;
  }
  if (options->arithmetic) cinfo->arith_code = TRUE;
  if (options->progressive) jpeg_simple_progression(cinfo);
  jpeg_start_compress(cinfo, TRUE);
  if (app1 != NULL && app1_size > 0) {
    jpeg_write_marker(cinfo, JPEG_APP0 + 1, app1, (unsigned int)app1_size);
  }
  size_t row_bytes = (size_t)width * channels;
  while (cinfo->next_scanline < cinfo->image_height) {
    JSAMPROW row[1] = {(JSAMPROW)(pixels + (size_t)cinfo->next_scanline * row_bytes)};
    jpeg_write_scanlines(cinfo, row, 1);
  }
  jpeg_finish_compress(cinfo);
  jpeg_destroy_compress(cinfo);
  return CIC_STATUS_OK;
}

cic_status cic_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height,
                           uint32_t channels, const cic_jpeg_encode_options *options,
                           const uint8_t *app1, size_t app1_size, cic_buffer *output,
                           char *message, size_t message_capacity) {
  if (pixels == NULL || options == NULL || output == NULL || width == 0 || height == 0 ||
      width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION ||
      (channels != 1 && channels != 3) || options->quality < 1 || options->quality > 100 ||
      app1_size > 65533) {
    cic_set_message(message, message_capacity,
                    "cannot encode a %ux%u image with %u channels at quality %d and %zu bytes "
                    "of APP1 as JPEG (1 or 3 channels, sides up to %ld, quality 1...100, APP1 "
                    "up to 65533 bytes)",
                    width, height, channels, options == NULL ? 0 : options->quality, app1_size,
                    JPEG_MAX_DIMENSION);
    return CIC_STATUS_INVALID_ARGUMENT;
  }
  *output = (cic_buffer){0};
  cic_jpeg_encoder *encoder = calloc(1, sizeof *encoder);
  if (encoder == NULL) {
    cic_set_message(message, message_capacity, "no memory for the JPEG encoder");
    return CIC_STATUS_LIMIT_EXCEEDED;
  }
  cic_status status =
      cic_jpeg_write(encoder, pixels, width, height, channels, options, app1, app1_size);
  if (status == CIC_STATUS_OK) {
    output->data = encoder->buffer;
    output->size = encoder->buffer_size;
    output->capacity = encoder->buffer_size;
  } else {
    cic_set_message(message, message_capacity, "%s", encoder->error.message);
  }
  free(encoder);
  return status;
}
