#ifndef CNATIVE_CODECS_H
#define CNATIVE_CODECS_H

/*
 * Codec half of the one C target: PNG (libpng, libdeflate) and JPEG (libjpeg-turbo) decoding and
 * encoding from and to memory, WebP (libwebp) and HEIF/AVIF (libheif) decoding. Every setjmp/longjmp lives in the .c files of this target; this
 * header is plain C that Swift can call. Every function returns a cic_status and, on failure,
 * writes a NUL-terminated explanation (the codec's own words where it produced one) into the
 * caller's message buffer.
 */

#include <stddef.h>
#include <stdint.h>

/* The outcome of a codec call. */
typedef enum cic_status {
  CIC_STATUS_OK = 0,
  /* Damaged data: bad signature, checksum, header or entropy data. */
  CIC_STATUS_CORRUPT = 1,
  /* The data ends before the image does. */
  CIC_STATUS_TRUNCATED = 2,
  /* Valid data that this build cannot decode (12-bit or lossless JPEG, for example). */
  CIC_STATUS_UNSUPPORTED = 3,
  /* A limit was hit: the pixel count, the scan count, or memory. */
  CIC_STATUS_LIMIT_EXCEEDED = 4,
  /* The caller passed inconsistent arguments (a buffer of the wrong size, for example). */
  CIC_STATUS_INVALID_ARGUMENT = 5,
} cic_status;

/* A message buffer of this many bytes holds any message this target writes. */
#define CIC_MESSAGE_CAPACITY 256

/* Options that bound a decode. */
typedef struct cic_decode_options {
  /* The largest width * height accepted, checked from the header before any pixel buffer is
     allocated; 0 means no limit. */
  uint64_t max_pixels;
  /* JPEG only: nonzero accepts data that ends early (libjpeg fills the missing rows). */
  int allow_truncated;
  /* JPEG only: the most scans a multi-scan (progressive) file may have; 0 means no limit. */
  uint32_t max_scans;
  /* JPEG only: DCT-domain downscaling by 1, 2, 4 or 8 (0 means 1); the output is
     ceil(width / d) x ceil(height / d). The pixel limit still applies to the stored size. */
  uint32_t scale_denominator;
  /* JPEG only: decode just the first max_rows output rows and set the rest of the buffer to
     zero (0 decodes every row); the entropy data below them is never read. */
  uint32_t max_rows;
  /* HEIF only: the threads one decode may keep busy (0 or 1: the calling thread only). */
  uint32_t threads;
  /* HEIF only: nonzero leaves out the container's rotation and mirroring (the caller applies
     them); the output has the stored (`ispe`) size. Only for files without a clean aperture,
     which this would leave out too. */
  uint32_t untransformed;
} cic_decode_options;

/* What a header says about the image that a decode will produce. */
typedef struct cic_image_info {
  /* The size of the decoded output (the stored size unless JPEG downscaling is requested). */
  uint32_t width;
  uint32_t height;
  /* Channels of the decoded 8-bit output: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA. */
  uint32_t channels;
  /* Bits per sample as stored in the file (PNG 1...16, JPEG 8). */
  uint32_t bit_depth;
} cic_image_info;

/* A byte buffer allocated by this target; release it with cic_buffer_free. */
typedef struct cic_buffer {
  uint8_t *data;
  size_t size;
  size_t capacity;
} cic_buffer;

/* Releases a buffer filled by an encoder and resets it to empty. */
void cic_buffer_free(cic_buffer *buffer);

/* Reads a PNG header (up to the first IDAT chunk) without decoding pixels. */
cic_status cic_png_inspect(const uint8_t *data, size_t size, const cic_decode_options *options,
                           cic_image_info *info, char *message, size_t message_capacity);

/* Decodes a PNG into 8-bit interleaved pixels. pixels_size must equal
   width * height * channels as reported by cic_png_inspect for the same data. The common file
   (8-bit gray or RGB with or without alpha, not interlaced, no palette or tRNS) is inflated
   whole with libdeflate; everything else, and every damaged file, goes through libpng
   (cic_png_decode_streaming), so the pixels and errors are libpng's either way. */
cic_status cic_png_decode(const uint8_t *data, size_t size, const cic_decode_options *options,
                          uint8_t *pixels, size_t pixels_size, cic_image_info *info,
                          char *message, size_t message_capacity);

/* The whole-buffer path of cic_png_decode alone: returns 1 when it decoded the file into
   pixels (and filled info), 0 for any file it leaves to libpng (info untouched, pixels
   possibly holding some rows). */
int cic_png_decode_whole(const uint8_t *data, size_t size, const cic_decode_options *options,
                         uint8_t *pixels, size_t pixels_size, cic_image_info *info);

/* cic_png_decode through libpng's row-by-row reader only: the reference the whole-buffer
   path is tested against. */
cic_status cic_png_decode_streaming(const uint8_t *data, size_t size,
                                    const cic_decode_options *options, uint8_t *pixels,
                                    size_t pixels_size, cic_image_info *info, char *message,
                                    size_t message_capacity);

/* Reads a JPEG header (up to the first SOS marker) without decoding pixels. */
cic_status cic_jpeg_inspect(const uint8_t *data, size_t size, const cic_decode_options *options,
                            cic_image_info *info, char *message, size_t message_capacity);

/* Decodes a JPEG into 8-bit gray or RGB pixels (CMYK and YCCK are converted to RGB).
   pixels_size must equal width * height * channels as reported by cic_jpeg_inspect. */
cic_status cic_jpeg_decode(const uint8_t *data, size_t size, const cic_decode_options *options,
                           uint8_t *pixels, size_t pixels_size, cic_image_info *info,
                           char *message, size_t message_capacity);

/* Reads a WebP header (RIFF, VP8X, and the first VP8 or VP8L frame header) without decoding
   pixels. The size is the canvas's; channels are 4 when the file says it has alpha, else 3. */
cic_status cic_webp_inspect(const uint8_t *data, size_t size, const cic_decode_options *options,
                            cic_image_info *info, char *message, size_t message_capacity);

/* Decodes a WebP (lossy, lossless, with or without alpha) into 8-bit RGB or RGBA pixels as
   cic_webp_inspect reports them; an animation gives its first frame composed on the canvas.
   pixels_size must equal width * height * channels. */
cic_status cic_webp_decode(const uint8_t *data, size_t size, const cic_decode_options *options,
                           uint8_t *pixels, size_t pixels_size, cic_image_info *info,
                           char *message, size_t message_capacity);

/* Reads a HEIF or AVIF file's boxes and its primary image's header without decoding pixels. The
   size is the upright one (after the container's crop, rotation and mirroring, which decoding
   applies); channels are 4 with an alpha plane, else 3; bit_depth is the luma's (8, 10, 12).
   Unsupported when this libheif has no decoder for the file's codec. */
cic_status cic_heif_inspect(const uint8_t *data, size_t size, const cic_decode_options *options,
                            cic_image_info *info, char *message, size_t message_capacity);

/* Decodes a HEIF or AVIF file's primary image (grids included) into upright 8-bit RGB or RGBA
   pixels as cic_heif_inspect reports them; higher bit depths are reduced to 8 bits.
   pixels_size must equal width * height * channels. */
cic_status cic_heif_decode(const uint8_t *data, size_t size, const cic_decode_options *options,
                           uint8_t *pixels, size_t pixels_size, cic_image_info *info,
                           char *message, size_t message_capacity);

/* Appends the TIFF structure of the primary image's first Exif block (past the block's 4-byte
   offset) to output; appends nothing when there is none or it is larger than max_size. */
cic_status cic_heif_exif(const uint8_t *data, size_t size, size_t max_size, cic_buffer *output,
                         char *message, size_t message_capacity);

/* Encodes 8-bit interleaved pixels (1 to 4 channels) as a PNG. A non-empty exif (a TIFF
   structure starting with II or MM) is stored in an eXIf chunk. */
cic_status cic_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height,
                          uint32_t channels, int compression_level, const uint8_t *exif,
                          size_t exif_size, cic_buffer *output, char *message,
                          size_t message_capacity);

/* Options of the JPEG encoder. */
typedef struct cic_jpeg_encode_options {
  /* 1...100. */
  int quality;
  /* Nonzero writes a progressive JPEG. */
  int progressive;
  /* Nonzero subsamples chroma 2x2 (4:2:0); zero keeps full chroma (4:4:4). */
  int subsample_chroma;
  /* Nonzero uses arithmetic instead of Huffman entropy coding. */
  int arithmetic;
} cic_jpeg_encode_options;

/* Encodes 8-bit gray (1 channel) or RGB (3 channels) pixels as a JPEG. A non-empty app1 is
   written verbatim as an APP1 segment (for EXIF: "Exif\0\0" followed by the TIFF structure). */
cic_status cic_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height,
                           uint32_t channels, const cic_jpeg_encode_options *options,
                           const uint8_t *app1, size_t app1_size, cic_buffer *output,
                           char *message, size_t message_capacity);

/* The CRC-32 (zip's polynomial) of `count` bytes, continuing from `crc` (0 to start). */
uint32_t cnc_crc32(uint32_t crc, const void *bytes, size_t count);

#endif
