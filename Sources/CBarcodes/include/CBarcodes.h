// The barcode reader's C interface over zxing-cpp (Debian's libzxing). The only C++ in the
// package sits behind it (barcode_reader.cpp); every C++ exception stops at this boundary.
#ifndef CBARCODES_H
#define CBARCODES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Symbologies, as bits of cbc_options.formats and values of cbc_symbol.format.
enum {
  CBC_EAN13 = 1 << 0,
  CBC_EAN8 = 1 << 1,
  CBC_UPCA = 1 << 2,
  CBC_UPCE = 1 << 3,
  CBC_CODE128 = 1 << 4,
  CBC_ITF = 1 << 5,
  CBC_DATABAR = 1 << 6,
  CBC_DATABAR_EXPANDED = 1 << 7,
  CBC_QRCODE = 1 << 8,
  CBC_DATAMATRIX = 1 << 9,
};

/// Pixel layouts of the image handed to cbc_read.
enum { CBC_GRAY = 1, CBC_GRAY_ALPHA = 2, CBC_RGB = 3, CBC_RGBA = 4 };

/// Errors cbc_read returns (negative).
enum { CBC_ERROR_ARGUMENT = -1, CBC_ERROR_MEMORY = -2, CBC_ERROR_INTERNAL = -3 };

/// How to search.
typedef struct {
  /// The symbologies to look for (CBC_* bits); 0 means none.
  uint32_t formats;
  /// The longest side, in pixels, of the first pass; larger images are averaged down to it first
  /// and read at full size only when that pass finds nothing. 0 reads the image as given.
  int32_t first_pass_side;
  /// Nonzero to try the full size after an empty first pass.
  int32_t full_size_fallback;
  /// Nonzero to spend more time (zxing's try-harder, rotations and the downscaled pyramid).
  int32_t try_harder;
  /// The most symbols to report.
  int32_t max_symbols;
  /// Nonzero when this is the caller's last try at the photo: a Data Matrix code that zxing-cpp
  /// missed is then looked for with libdmtx (within a few hundred milliseconds).
  int32_t last_pass;
  /// Nonzero to also read averaged-down layers of the first pass (down to about 160 pixels).
  int32_t pyramid;
} cbc_options;

/// One symbol found.
typedef struct {
  /// One CBC_* symbology bit.
  uint32_t format;
  /// The corners in the stored image's pixels: top-left, top-right, bottom-right, bottom-left
  /// (x, y pairs), as the symbol reads.
  int32_t corners[8];
  /// The text's bytes in the caller's text buffer (UTF-8, not terminated).
  uint32_t text_offset;
  uint32_t text_length;
  /// The ISO/IEC 15424 symbology identifier, such as "]E0" or "]C1", NUL-terminated.
  char symbology[8];
} cbc_symbol;

/// Reads the barcodes in an 8-bit image.
///
/// Writes at most `capacity` symbols and at most `text_capacity` bytes of text (a symbol whose
/// text does not fit is left out); returns how many symbols were written, or a CBC_ERROR_*.
/// Never throws, never keeps a pointer.
int32_t cbc_read(const uint8_t *pixels, int32_t width, int32_t height, int32_t bytes_per_row,
                 int32_t layout, const cbc_options *options, cbc_symbol *symbols,
                 int32_t capacity, char *text, size_t text_capacity);

/// zxing-cpp's version, such as "1.4.0".
const char *cbc_library_version(void);

#ifdef __cplusplus
}
#endif

#endif
