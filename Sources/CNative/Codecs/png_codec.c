#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "codec_support.h"

/* libpng refuses to allocate more than this for any one ancillary chunk (or its decompressed
   form), so a small file cannot make it inflate a metadata bomb. */
static const png_alloc_size_t cic_png_chunk_malloc_max = 8u * 1024u * 1024u;

typedef struct cic_png_context {
  jmp_buf jump;
  const uint8_t *data;
  size_t size;
  size_t offset;
  int ran_out;
  char message[CIC_MESSAGE_CAPACITY];
} cic_png_context;

static void cic_png_error(png_structp png, png_const_charp text) {
  cic_png_context *context = png_get_error_ptr(png);
  if (context->message[0] == '\0') {
    cic_set_message(context->message, sizeof context->message, "%s", text);
  }
  longjmp(context->jump, 1);
}

/* libpng reports recoverable oddities (bad ancillary CRCs, extra image data) as warnings; the
   image is still valid, so they are not surfaced. */
static void cic_png_warning(png_structp png, png_const_charp text) {
  (void)png;
  (void)text;
}

static void cic_png_read(png_structp png, png_bytep out, size_t count) {
  cic_png_context *context = png_get_io_ptr(png);
  if (count > context->size - context->offset) {
    context->ran_out = 1;
    png_error(png, "PNG data ends before the image is complete");
  }
  memcpy(out, context->data + context->offset, count);
  context->offset += count;
}

static cic_status cic_png_failure_status(const cic_png_context *context) {
  if (context->ran_out) return CIC_STATUS_TRUNCATED;
  if (strstr(context->message, "memory") != NULL || strstr(context->message, "Memory") != NULL) {
    return CIC_STATUS_LIMIT_EXCEEDED;
  }
  return CIC_STATUS_CORRUPT;
}

static uint32_t cic_png_output_channels(int color_type, int has_transparency) {
  switch (color_type) {
    case PNG_COLOR_TYPE_GRAY: return has_transparency ? 2 : 1;
    case PNG_COLOR_TYPE_GRAY_ALPHA: return 2;
    case PNG_COLOR_TYPE_RGB: return has_transparency ? 4 : 3;
    case PNG_COLOR_TYPE_PALETTE: return has_transparency ? 4 : 3;
    case PNG_COLOR_TYPE_RGB_ALPHA: return 4;
    default: return 0;
  }
}

/* Reads the header and, when pixels is not NULL, the whole image. Kept in one function so that
   a single setjmp guards every libpng call. */
static cic_status cic_png_run(cic_png_context *context, const cic_decode_options *options,
                              uint8_t *pixels, size_t pixels_size, cic_image_info *info,
                              char *message, size_t message_capacity) {
  png_structp png =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, context, cic_png_error, cic_png_warning);
  if (png == NULL) {
    cic_set_message(message, message_capacity, "libpng could not allocate its decoder");
    return CIC_STATUS_LIMIT_EXCEEDED;
  }
  png_infop info_struct = png_create_info_struct(png);
  volatile cic_status status = CIC_STATUS_OK;

  if (setjmp(context->jump)) {
    if (status == CIC_STATUS_OK) status = cic_png_failure_status(context);
    cic_set_message(message, message_capacity, "%s", context->message);
    png_destroy_read_struct(&png, info_struct == NULL ? NULL : &info_struct, NULL);
    return status;
  }
  if (info_struct == NULL) {
    png_error(png, "libpng could not allocate its info structure: out of memory");
  }

  png_set_read_fn(png, context, cic_png_read);
  /* The pixel-count limit below replaces libpng's fixed per-axis default of 1,000,000. */
  png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
  png_set_chunk_malloc_max(png, cic_png_chunk_malloc_max);
  /* Only the chunks that define pixels matter here; everything else (text, ICC, EXIF, which the
     Swift side reads itself) is skipped unparsed, so it can neither fail nor bloat a decode. */
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);

  png_read_info(png, info_struct);

  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0;
  png_get_IHDR(png, info_struct, &width, &height, &bit_depth, &color_type, NULL, NULL, NULL);
  int has_transparency = png_get_valid(png, info_struct, PNG_INFO_tRNS) != 0;
  uint32_t channels = cic_png_output_channels(color_type, has_transparency);
  if (channels == 0) png_error(png, "unknown PNG color type");
  info->width = width;
  info->height = height;
  info->channels = channels;
  info->bit_depth = (uint32_t)bit_depth;

  cic_status limit = cic_check_pixel_limit(width, height, channels, options, "PNG",
                                           context->message, sizeof context->message);
  if (limit != CIC_STATUS_OK) {
    status = limit;
    longjmp(context->jump, 1);
  }
  if (pixels == NULL) {
    png_destroy_read_struct(&png, &info_struct, NULL);
    return CIC_STATUS_OK;
  }

  size_t row_bytes = (size_t)width * channels;
  if (pixels_size != row_bytes * height) {
    cic_set_message(context->message, sizeof context->message,
                    "pixel buffer of %zu bytes does not match %ux%ux%u", pixels_size, width,
                    height, channels);
    status = CIC_STATUS_INVALID_ARGUMENT;
    longjmp(context->jump, 1);
  }

  png_set_expand(png);
  if (bit_depth == 16) png_set_scale_16(png);
  int passes = png_set_interlace_handling(png);
  png_read_update_info(png, info_struct);
  if (png_get_channels(png, info_struct) != channels || png_get_bit_depth(png, info_struct) != 8 ||
      png_get_rowbytes(png, info_struct) != row_bytes) {
    png_error(png, "libpng output layout differs from the header's");
  }

  /* Row by row, as png_read_image does internally, but without its array of row pointers: for
     a tall, narrow image that array would be eight times larger than the pixels. Later Adam7
     passes combine into the rows earlier passes wrote. */
  for (int pass = 0; pass < passes; pass++) {
    for (png_uint_32 y = 0; y < height; y++) {
      png_read_row(png, pixels + (size_t)y * row_bytes, NULL);
    }
  }
  png_read_end(png, NULL);

  png_destroy_read_struct(&png, &info_struct, NULL);
  return CIC_STATUS_OK;
}

static cic_status cic_png_start(const uint8_t *data, size_t size,
                                const cic_decode_options *options, uint8_t *pixels,
                                size_t pixels_size, cic_image_info *info, char *message,
                                size_t message_capacity) {
  if (data == NULL || info == NULL) {
    cic_set_message(message, message_capacity, "missing PNG data or info");
    return CIC_STATUS_INVALID_ARGUMENT;
  }
  memset(info, 0, sizeof *info);
  cic_png_context *context = calloc(1, sizeof *context);
  if (context == NULL) {
    cic_set_message(message, message_capacity, "no memory for the PNG decoder");
    return CIC_STATUS_LIMIT_EXCEEDED;
  }
  context->data = data;
  context->size = size;
  cic_status status =
      cic_png_run(context, options, pixels, pixels_size, info, message, message_capacity);
  free(context);
  return status;
}

cic_status cic_png_inspect(const uint8_t *data, size_t size, const cic_decode_options *options,
                           cic_image_info *info, char *message, size_t message_capacity) {
  return cic_png_start(data, size, options, NULL, 0, info, message, message_capacity);
}

cic_status cic_png_decode(const uint8_t *data, size_t size, const cic_decode_options *options,
                          uint8_t *pixels, size_t pixels_size, cic_image_info *info,
                          char *message, size_t message_capacity) {
  if (cic_png_decode_whole(data, size, options, pixels, pixels_size, info)) {
    return CIC_STATUS_OK;
  }
  return cic_png_decode_streaming(data, size, options, pixels, pixels_size, info, message,
                                  message_capacity);
}

cic_status cic_png_decode_streaming(const uint8_t *data, size_t size,
                                    const cic_decode_options *options, uint8_t *pixels,
                                    size_t pixels_size, cic_image_info *info, char *message,
                                    size_t message_capacity) {
  if (pixels == NULL) {
    cic_set_message(message, message_capacity, "missing pixel buffer");
    return CIC_STATUS_INVALID_ARGUMENT;
  }
  return cic_png_start(data, size, options, pixels, pixels_size, info, message,
                       message_capacity);
}

typedef struct cic_png_writer {
  jmp_buf jump;
  cic_buffer *output;
  int out_of_memory;
  char message[CIC_MESSAGE_CAPACITY];
} cic_png_writer;

static void cic_png_write_error(png_structp png, png_const_charp text) {
  cic_png_writer *writer = png_get_error_ptr(png);
  if (writer->message[0] == '\0') {
    cic_set_message(writer->message, sizeof writer->message, "%s", text);
  }
  longjmp(writer->jump, 1);
}

static void cic_png_write_data(png_structp png, png_bytep bytes, size_t count) {
  cic_png_writer *writer = png_get_io_ptr(png);
  if (!cic_buffer_append(writer->output, bytes, count)) {
    writer->out_of_memory = 1;
    png_error(png, "no memory for the encoded PNG");
  }
}

static void cic_png_flush(png_structp png) { (void)png; }

static cic_status cic_png_write(cic_png_writer *writer, const uint8_t *pixels, uint32_t width,
                                uint32_t height, uint32_t channels, int compression_level,
                                const uint8_t *exif, size_t exif_size) {
  static const int color_types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                     PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, writer, cic_png_write_error,
                                            cic_png_warning);
  if (png == NULL) {
    cic_set_message(writer->message, sizeof writer->message, "libpng could not allocate");
    return CIC_STATUS_LIMIT_EXCEEDED;
  }
  png_infop info_struct = png_create_info_struct(png);
  png_bytep *volatile rows = NULL;
  if (setjmp(writer->jump)) {
    free(rows);
    png_destroy_write_struct(&png, info_struct == NULL ? NULL : &info_struct);
    return writer->out_of_memory ? CIC_STATUS_LIMIT_EXCEEDED : CIC_STATUS_INVALID_ARGUMENT;
  }
  if (info_struct == NULL) png_error(png, "libpng could not allocate its info structure");
  png_set_write_fn(png, writer, cic_png_write_data, cic_png_flush);
  png_set_compression_level(png, compression_level);
  png_set_IHDR(png, info_struct, width, height, 8, color_types[channels], PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (exif != NULL && exif_size > 0) {
    if (exif_size > PNG_UINT_31_MAX) png_error(png, "EXIF data too large for a PNG chunk");
    png_set_eXIf_1(png, info_struct, (png_uint_32)exif_size, (png_bytep)exif);
  }
  png_write_info(png, info_struct);
  rows = malloc(sizeof(png_bytep) * height);
  if (rows == NULL) {
    writer->out_of_memory = 1;
    png_error(png, "no memory for PNG row pointers");
  }
  size_t row_bytes = (size_t)width * channels;
  for (uint32_t y = 0; y < height; y++) rows[y] = (png_bytep)pixels + (size_t)y * row_bytes;
  png_write_image(png, rows);
  png_write_end(png, NULL);
  free(rows);
  png_destroy_write_struct(&png, &info_struct);
  return CIC_STATUS_OK;
}

cic_status cic_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height,
                          uint32_t channels, int compression_level, const uint8_t *exif,
                          size_t exif_size, cic_buffer *output, char *message,
                          size_t message_capacity) {
  if (pixels == NULL || output == NULL || width == 0 || height == 0 || channels < 1 ||
      channels > 4 || width > PNG_UINT_31_MAX || height > PNG_UINT_31_MAX ||
      compression_level < 0 || compression_level > 9) {
    cic_set_message(message, message_capacity,
                    "cannot encode a %ux%u image with %u channels at compression level %d as PNG",
                    width, height, channels, compression_level);
    return CIC_STATUS_INVALID_ARGUMENT;
  }
  *output = (cic_buffer){0};
  cic_png_writer *writer = calloc(1, sizeof *writer);
  if (writer == NULL) {
    cic_set_message(message, message_capacity, "no memory for the PNG encoder");
    return CIC_STATUS_LIMIT_EXCEEDED;
  }
  writer->output = output;
  cic_status status = cic_png_write(writer, pixels, width, height, channels, compression_level,
                                    exif, exif_size);
  if (status != CIC_STATUS_OK) {
    cic_set_message(message, message_capacity, "%s", writer->message);
    cic_buffer_free(output);
  }
  free(writer);
  return status;
}
