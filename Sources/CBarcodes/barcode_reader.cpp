// cbc_read: zxing-cpp behind a C interface. A large photo is first averaged down so its longest
// side is about first_pass_side pixels (a barcode fills many pixels of a 12 MP photo, and zxing's
// cost grows with the pixel count), and is read at full size only when that finds nothing.
#define ZX_USE_UTF8 1
#include "CBarcodes.h"

// ZBar's C++ wrappers use a name that zxing-cpp defines as a macro, so ZBar comes first.
#include <zbar.h>
using namespace zbar;  // its C interface lives in this namespace when compiled as C++

#include <ZXing/ReadBarcode.h>
#include <ZXing/ZXVersion.h>
#include <dmtx.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

namespace {

struct FormatPair {
  uint32_t ours;
  ZXing::BarcodeFormat theirs;
};

constexpr FormatPair formatPairs[] = {
    {CBC_EAN13, ZXing::BarcodeFormat::EAN13},
    {CBC_EAN8, ZXing::BarcodeFormat::EAN8},
    {CBC_UPCA, ZXing::BarcodeFormat::UPCA},
    {CBC_UPCE, ZXing::BarcodeFormat::UPCE},
    {CBC_CODE128, ZXing::BarcodeFormat::Code128},
    {CBC_ITF, ZXing::BarcodeFormat::ITF},
    {CBC_DATABAR, ZXing::BarcodeFormat::DataBar},
    {CBC_DATABAR_EXPANDED, ZXing::BarcodeFormat::DataBarExpanded},
    {CBC_QRCODE, ZXing::BarcodeFormat::QRCode},
    {CBC_DATAMATRIX, ZXing::BarcodeFormat::DataMatrix},
};

ZXing::BarcodeFormats zxingFormats(uint32_t ours) {
  ZXing::BarcodeFormats formats;
  for (const auto &pair : formatPairs) {
    if (ours & pair.ours) formats |= pair.theirs;
  }
  return formats;
}

uint32_t ourFormat(ZXing::BarcodeFormat theirs) {
  for (const auto &pair : formatPairs) {
    if (pair.theirs == theirs) return pair.ours;
  }
  return 0;
}

// One row's Rec. 601 luma in 8 bits (zxing's weights), the layout switched on once per row.
void lumaRow(const uint8_t *row, int32_t width, int32_t layout, uint8_t *out) {
  switch (layout) {
  case CBC_GRAY: std::memcpy(out, row, size_t(width)); break;
  case CBC_GRAY_ALPHA:
    for (int32_t x = 0; x < width; ++x) out[x] = row[2 * x];
    break;
  default:
    for (int32_t x = 0; x < width; ++x) {
      const uint8_t *pixel = row + size_t(x) * size_t(layout);
      out[x] = uint8_t((306u * pixel[0] + 601u * pixel[1] + 117u * pixel[2] + 512u) >> 10);
    }
  }
}

// Averages factor x factor blocks of luma into a gray image (the last partial row and column
// of blocks are dropped).
std::vector<uint8_t> averagedLuma(const uint8_t *pixels, int32_t width, int32_t height,
                                  int32_t bytesPerRow, int32_t layout, int32_t factor,
                                  int32_t &outWidth, int32_t &outHeight) {
  outWidth = width / factor;
  outHeight = height / factor;
  std::vector<uint8_t> out(static_cast<size_t>(outWidth) * static_cast<size_t>(outHeight));
  if (factor == 1) {
    for (int32_t y = 0; y < height; ++y)
      lumaRow(pixels + size_t(y) * size_t(bytesPerRow), width, layout, out.data() + size_t(y) * size_t(width));
    return out;
  }
  std::vector<uint32_t> sums(static_cast<size_t>(outWidth));
  std::vector<uint8_t> line(static_cast<size_t>(width));
  const uint32_t area = uint32_t(factor) * uint32_t(factor);
  for (int32_t oy = 0; oy < outHeight; ++oy) {
    std::fill(sums.begin(), sums.end(), 0u);
    for (int32_t dy = 0; dy < factor; ++dy) {
      lumaRow(pixels + size_t(oy * factor + dy) * size_t(bytesPerRow), width, layout, line.data());
      for (int32_t ox = 0; ox < outWidth; ++ox) {
        const uint8_t *block = line.data() + size_t(ox) * size_t(factor);
        uint32_t sum = 0;
        for (int32_t dx = 0; dx < factor; ++dx) sum += block[dx];
        sums[size_t(ox)] += sum;
      }
    }
    uint8_t *outRow = out.data() + size_t(oy) * size_t(outWidth);
    for (int32_t ox = 0; ox < outWidth; ++ox) outRow[ox] = uint8_t((sums[size_t(ox)] + area / 2) / area);
  }
  return out;
}

// Debian's libzxing keeps its assertions, and Result::operator== asserts when it compares a
// linear result seen on more than one row with another of the same format and text. Three of its
// paths do that: ReadBarcodes' merge of its downscaled layers, its merge of one layer's results
// (two copies of one EAN in a photo), and the row scan's merge of DataBar results, whose line
// count starts above 1. So layers are made and merged here, and each call can return at most one
// linear symbol: the linear codes are read one at a time (each found code is painted out before
// the next call), DataBar stops at its first symbol (maxNumberOfSymbols 1, minLineCount 1), and
// the matrix codes, which compare by position, are read in one call.
ZXing::DecodeHints hintsFor(const cbc_options &options, uint32_t formats, int maxSymbols) {
  ZXing::DecodeHints hints;
  hints.setFormats(zxingFormats(formats));
  hints.setTryHarder(options.try_harder != 0);
  hints.setTryRotate(options.try_harder != 0);
  hints.setTryDownscale(false);
  hints.setMaxNumberOfSymbols(uint8_t(std::clamp(maxSymbols, 1, 255)));
  return hints;
}

constexpr uint32_t dataBarFormats = CBC_DATABAR | CBC_DATABAR_EXPANDED;
constexpr uint32_t matrixFormats = CBC_QRCODE | CBC_DATAMATRIX;
// The most linear codes read from one layer, one call each.
constexpr int maxLinearPerLayer = 4;

struct Found {
  uint32_t format;
  std::string text;
  std::string identifier;
  int32_t corners[8];
};

struct Box {
  int32_t left, top, right, bottom;
};

Box boxOf(const int32_t *corners) {
  Box box{corners[0], corners[1], corners[0], corners[1]};
  for (int corner = 1; corner < 4; ++corner) {
    box.left = std::min(box.left, corners[2 * corner]);
    box.right = std::max(box.right, corners[2 * corner]);
    box.top = std::min(box.top, corners[2 * corner + 1]);
    box.bottom = std::max(box.bottom, corners[2 * corner + 1]);
  }
  return box;
}

bool inside(int32_t x, int32_t y, const int32_t *corners) {
  const Box box = boxOf(corners);
  return x >= box.left && x <= box.right && y >= box.top && y <= box.bottom;
}

// The same symbol found twice: same format and text, and one's centre inside the other's box.
bool sameSymbol(const Found &a, const Found &b) {
  if (a.format != b.format || a.text != b.text) return false;
  const int32_t ax = (a.corners[0] + a.corners[2] + a.corners[4] + a.corners[6]) / 4;
  const int32_t ay = (a.corners[1] + a.corners[3] + a.corners[5] + a.corners[7]) / 4;
  const int32_t bx = (b.corners[0] + b.corners[2] + b.corners[4] + b.corners[6]) / 4;
  const int32_t by = (b.corners[1] + b.corners[3] + b.corners[5] + b.corners[7]) / 4;
  return inside(ax, ay, b.corners) || inside(bx, by, a.corners);
}

// Adds the valid results not found yet, positions scaled by `factor`; returns how many were new.
int add(const ZXing::Results &results, int32_t factor, int maxSymbols, std::vector<Found> &found) {
  int added = 0;
  for (const auto &result : results) {
    const uint32_t format = ourFormat(result.format());
    if (!result.isValid() || format == 0 || int(found.size()) >= maxSymbols) continue;
    Found symbol{format, result.text(), result.symbologyIdentifier(), {}};
    const auto &position = result.position();
    for (int corner = 0; corner < 4; ++corner) {
      symbol.corners[2 * corner] = position[corner].x * factor + factor / 2;
      symbol.corners[2 * corner + 1] = position[corner].y * factor + factor / 2;
    }
    const bool known = std::any_of(found.begin(), found.end(),
                                   [&](const Found &other) { return sameSymbol(other, symbol); });
    if (!known) {
      found.push_back(std::move(symbol));
      ++added;
    }
  }
  return added;
}

// Paints a linear code's box out, widened by half its length, so the next call finds another.
void paintOut(std::vector<uint8_t> &gray, int32_t width, int32_t height, const ZXing::Result &result) {
  int32_t corners[8];
  for (int corner = 0; corner < 4; ++corner) {
    corners[2 * corner] = result.position()[corner].x;
    corners[2 * corner + 1] = result.position()[corner].y;
  }
  const Box box = boxOf(corners);
  const int32_t margin = std::max(box.right - box.left, box.bottom - box.top) / 2 + 4;
  const int32_t left = std::max(0, box.left - margin), right = std::min(width - 1, box.right + margin);
  const int32_t top = std::max(0, box.top - margin), bottom = std::min(height - 1, box.bottom + margin);
  // The region's mean, not white: a white block skews the row binarizer's histogram so much
  // that a second copy of the code beside it no longer reads.
  uint64_t sum = 0;
  for (int32_t y = top; y <= bottom; ++y)
    for (int32_t x = left; x <= right; ++x) sum += gray[size_t(y) * size_t(width) + size_t(x)];
  const uint64_t area = uint64_t(bottom - top + 1) * uint64_t(right - left + 1);
  const uint8_t mean = uint8_t(area ? sum / area : 128);
  for (int32_t y = top; y <= bottom; ++y)
    std::fill_n(gray.begin() + ptrdiff_t(y) * width + left, std::max(0, right - left + 1), mean);
}

// ZBar's share of a layer: GS1 DataBar (Expanded too), which zxing-cpp 1.4 reads far less
// often than ZBar does, and the linear codes zxing-cpp missed in the layer.
constexpr int64_t zbarMaximumPixels = 4'000'000;

struct ZBarPair {
  uint32_t ours;
  zbar_symbol_type_t theirs;
};

constexpr ZBarPair zbarPairs[] = {
    {CBC_EAN13, ZBAR_EAN13}, {CBC_EAN8, ZBAR_EAN8},       {CBC_UPCA, ZBAR_UPCA},
    {CBC_UPCE, ZBAR_UPCE},   {CBC_CODE128, ZBAR_CODE128}, {CBC_ITF, ZBAR_I25},
    {CBC_DATABAR, ZBAR_DATABAR}, {CBC_DATABAR_EXPANDED, ZBAR_DATABAR_EXP},
};

int readWithZBar(const std::vector<uint8_t> &gray, int32_t width, int32_t height, int32_t factor,
                 uint32_t formats, int maxSymbols, std::vector<Found> &found) {
  zbar_image_scanner_t *scanner = zbar_image_scanner_create();
  zbar_image_t *image = zbar_image_create();
  int added = 0;
  if (scanner && image) {
    zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0);
    for (const auto &pair : zbarPairs)
      if (formats & pair.ours) zbar_image_scanner_set_config(scanner, pair.theirs, ZBAR_CFG_ENABLE, 1);
    // Every second row and column: half the time, and a code spans many more.
    zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, 2);
    zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, 2);
    // ITF-14 only: ZBar reads parts of an ITF code as shorter ones.
    zbar_image_scanner_set_config(scanner, ZBAR_I25, ZBAR_CFG_MIN_LEN, 14);
    zbar_image_set_format(image, zbar_fourcc('Y', '8', '0', '0'));
    zbar_image_set_size(image, unsigned(width), unsigned(height));
    zbar_image_set_data(image, gray.data(), gray.size(), nullptr);
    if (zbar_scan_image(scanner, image) > 0) {
      for (const zbar_symbol_t *symbol = zbar_image_first_symbol(image); symbol;
           symbol = zbar_symbol_next(symbol)) {
        uint32_t format = 0;
        for (const auto &pair : zbarPairs)
          if (pair.theirs == zbar_symbol_get_type(symbol)) format = pair.ours;
        const unsigned points = zbar_symbol_get_loc_size(symbol);
        // A symbol ZBar decoded on one scan line only is too often noise (GS1 DataBar from a
        // single point of a photo without one, in the generated negatives).
        if (!(formats & format) || points < 2 || zbar_symbol_get_quality(symbol) < 2 ||
            int(found.size()) >= maxSymbols)
          continue;
        const bool gs1 = (zbar_symbol_get_modifiers(symbol) & (1 << ZBAR_MOD_GS1)) != 0;
        std::string identifier = format == CBC_CODE128 ? (gs1 ? "]C1" : "]C0") : "";
        if (format & dataBarFormats) identifier = "]e0";
        Found candidate{format,
                        std::string(zbar_symbol_get_data(symbol), zbar_symbol_get_data_length(symbol)),
                        identifier, {}};
        int32_t left = INT32_MAX, top = INT32_MAX, right = INT32_MIN, bottom = INT32_MIN;
        for (unsigned point = 0; point < points; ++point) {
          left = std::min(left, zbar_symbol_get_loc_x(symbol, point));
          right = std::max(right, zbar_symbol_get_loc_x(symbol, point));
          top = std::min(top, zbar_symbol_get_loc_y(symbol, point));
          bottom = std::max(bottom, zbar_symbol_get_loc_y(symbol, point));
        }
        const int32_t corners[8] = {left, top, right, top, right, bottom, left, bottom};
        for (int index = 0; index < 8; ++index) candidate.corners[index] = corners[index] * factor + factor / 2;
        const bool known = std::any_of(found.begin(), found.end(), [&](const Found &other) {
          return sameSymbol(other, candidate);
        });
        if (!known) {
          found.push_back(std::move(candidate));
          ++added;
        }
      }
    }
  }
  if (image) zbar_image_destroy(image);
  if (scanner) zbar_image_scanner_destroy(scanner);
  return added;
}

// Reads one gray layer whose pixels are `factor` times smaller than the image's, adding the
// symbols not found yet; paints found linear codes out of `gray`. Returns how many were new.
int readLayer(std::vector<uint8_t> &gray, int32_t width, int32_t height, int32_t factor,
              const cbc_options &options, std::vector<Found> &found) {
  const int maxSymbols = std::clamp(options.max_symbols, 1, 255);
  const ZXing::ImageView view(gray.data(), width, height, ZXing::ImageFormat::Lum);
  int added = 0;
  if (options.formats & matrixFormats) {
    const auto hints = hintsFor(options, options.formats & matrixFormats, maxSymbols);
    added += add(ZXing::ReadBarcodes(view, hints), factor, maxSymbols, found);
  }
  uint32_t zbarFormats = options.formats & dataBarFormats;
  if (zbarFormats) {
    ZXing::DecodeHints hints = hintsFor(options, zbarFormats, 1);
    hints.setMinLineCount(1);
    if (add(ZXing::ReadBarcodes(view, hints), factor, maxSymbols, found) > 0) {
      ++added;
      zbarFormats = 0;
    }
  }
  const uint32_t linear = options.formats & ~(matrixFormats | dataBarFormats);
  const std::vector<uint8_t> unpainted = linear ? gray : std::vector<uint8_t>();
  int linearAdded = 0;
  for (int call = 0; linear && call < maxLinearPerLayer && int(found.size()) < maxSymbols; ++call) {
    const ZXing::Results results = ZXing::ReadBarcodes(view, hintsFor(options, linear, 1));
    if (results.empty()) break;
    linearAdded += add(results, factor, maxSymbols, found);
    for (const auto &result : results) paintOut(gray, width, height, result);
  }
  added += linearAdded;
  if (linearAdded == 0) zbarFormats |= linear;
  // ZBar scans every row and column: on a whole 12 MP photo that takes half a second, so it
  // reads layers of at most 4 MP.
  if (zbarFormats && int64_t(width) * height <= zbarMaximumPixels)
    added += readWithZBar(linear ? unpainted : gray, width, height, factor, zbarFormats, maxSymbols, found);
  return added;
}

// The shortest side the downscaled layers go down to.
constexpr int32_t smallestLayerSide = 160;

// Reads a gray image and, while it finds nothing, its averaged-down layers (half the size each,
// down to a shorter side of about 160 pixels): a blurred or large code that does not read at full
// size often reads smaller, as zxing's own pyramid finds (it stops at 500 pixels; smaller layers
// cost little and read more of the blurred photos). `factor` is how many pixels of the caller's
// image one pixel of `gray` stands for.
void readPyramid(std::vector<uint8_t> gray, int32_t width, int32_t height, int32_t factor,
                 const cbc_options &options, std::vector<Found> &found, bool layers = true) {
  const auto deeper = [&] { return layers && std::min(width, height) / 2 >= smallestLayerSide; };
  std::vector<uint8_t> next;
  if (deeper()) next = gray;  // the layers are made from the unpainted image
  if (readLayer(gray, width, height, factor, options, found) > 0) return;
  while (deeper()) {
    int32_t smallWidth = 0, smallHeight = 0;
    next = averagedLuma(next.data(), width, height, width, CBC_GRAY, 2, smallWidth, smallHeight);
    width = smallWidth;
    height = smallHeight;
    factor *= 2;
    std::vector<uint8_t> layer = next;
    if (readLayer(layer, width, height, factor, options, found) > 0) return;
  }
}

// libdmtx's share of a photo: Data Matrix codes too blurred for zxing-cpp 1.4's detector (a
// phone photo's usual case) read with libdmtx, on the photo averaged down to this longest side,
// and only when nothing else was found. Its search is bounded by a time limit, the only bound
// libdmtx offers: a code it finds takes it 30 to 150 ms here, so the limit leaves room for a
// loaded machine, and a photo without one costs the whole limit.
constexpr int32_t dataMatrixSide = 1024;
constexpr long dataMatrixMilliseconds = 250;

// Reads one Data Matrix code with libdmtx from a gray image whose pixels stand for `factor` of
// the caller's; adds it to `found`.
void readDataMatrix(const std::vector<uint8_t> &gray, int32_t width, int32_t height,
                    int32_t factor, std::vector<Found> &found) {
  std::vector<uint8_t> pixels = gray;  // libdmtx takes a non-const buffer
  DmtxImage *image = dmtxImageCreate(pixels.data(), width, height, DmtxPack8bppK);
  if (!image) return;
  dmtxImageSetProp(image, DmtxPropImageFlip, DmtxFlipNone);
  DmtxDecode *decode = dmtxDecodeCreate(image, 1);
  if (decode) {
    dmtxDecodeSetProp(decode, DmtxPropFnc1, 0x1D);
    DmtxTime timeout = dmtxTimeAdd(dmtxTimeNow(), dataMatrixMilliseconds);
    while (DmtxRegion *region = dmtxRegionFindNext(decode, &timeout)) {
      DmtxMessage *message = dmtxDecodeMatrixRegion(decode, region, DmtxUndefined);
      if (message) {
        std::string text(reinterpret_cast<const char *>(message->output), message->outputIdx);
        std::string identifier = "]d1";
        if (!text.empty() && text[0] == '\x1d') {  // FNC1 first: GS1 data
          text.erase(0, 1);
          identifier = "]d2";
        }
        Found symbol{CBC_DATAMATRIX, text, identifier, {}};
        const double unit[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
        for (int corner = 0; corner < 4; ++corner) {
          DmtxVector2 point{unit[corner][0], unit[corner][1]};
          dmtxMatrix3VMultiplyBy(&point, region->fit2raw);
          symbol.corners[2 * corner] = int32_t(point.X) * factor + factor / 2;
          symbol.corners[2 * corner + 1] = (height - 1 - int32_t(point.Y)) * factor + factor / 2;
        }
        found.push_back(std::move(symbol));
        dmtxMessageDestroy(&message);
        dmtxRegionDestroy(&region);
        break;
      }
      dmtxRegionDestroy(&region);
    }
    dmtxDecodeDestroy(&decode);
  }
  dmtxImageDestroy(&image);
}

int32_t report(const std::vector<Found> &found, cbc_symbol *symbols, int32_t capacity, char *text,
               size_t textCapacity) {
  int32_t count = 0;
  size_t used = 0;
  for (const auto &symbol : found) {
    if (count >= capacity) break;
    if (symbol.text.size() > textCapacity - used || symbol.text.size() > UINT32_MAX) continue;
    cbc_symbol &out = symbols[count];
    std::memset(&out, 0, sizeof out);
    out.format = symbol.format;
    std::memcpy(out.corners, symbol.corners, sizeof out.corners);
    std::memcpy(text + used, symbol.text.data(), symbol.text.size());
    out.text_offset = uint32_t(used);
    out.text_length = uint32_t(symbol.text.size());
    used += symbol.text.size();
    std::strncpy(out.symbology, symbol.identifier.c_str(), sizeof out.symbology - 1);
    ++count;
  }
  return count;
}

bool validArguments(const uint8_t *pixels, int32_t width, int32_t height, int32_t bytesPerRow,
                    int32_t layout, const cbc_options *options, const cbc_symbol *symbols,
                    int32_t capacity, const char *text) {
  if (!pixels || !options || !symbols || !text || capacity < 0) return false;
  if (layout < CBC_GRAY || layout > CBC_RGBA || width <= 0 || height <= 0) return false;
  if (width > INT32_MAX / layout || bytesPerRow < width * layout) return false;
  return true;
}

}  // namespace

extern "C" int32_t cbc_read(const uint8_t *pixels, int32_t width, int32_t height,
                            int32_t bytes_per_row, int32_t layout, const cbc_options *options,
                            cbc_symbol *symbols, int32_t capacity, char *text,
                            size_t text_capacity) {
  if (!validArguments(pixels, width, height, bytes_per_row, layout, options, symbols, capacity, text))
    return CBC_ERROR_ARGUMENT;
  try {
    std::vector<Found> found;
    const int32_t side = std::max(width, height);
    int32_t factor = 1;
    if (options->first_pass_side > 0 && side > options->first_pass_side)
      factor = (side + options->first_pass_side - 1) / options->first_pass_side;
    int32_t grayWidth = 0, grayHeight = 0;
    std::vector<uint8_t> gray =
        averagedLuma(pixels, width, height, bytes_per_row, layout, factor, grayWidth, grayHeight);
    if (grayWidth > 0 && grayHeight > 0)
      readPyramid(std::move(gray), grayWidth, grayHeight, factor, *options, found,
                  options->pyramid != 0);
    if (factor > 1 && found.empty() && options->full_size_fallback) {
      gray = averagedLuma(pixels, width, height, bytes_per_row, layout, 1, grayWidth, grayHeight);
      // The first pass's layers already covered the smaller scales.
      readPyramid(std::move(gray), grayWidth, grayHeight, 1, *options, found, false);
    }
    if (found.empty() && options->last_pass && (options->formats & CBC_DATAMATRIX)) {
      const int32_t dmFactor = std::max(1, (side + dataMatrixSide - 1) / dataMatrixSide);
      gray = averagedLuma(pixels, width, height, bytes_per_row, layout, dmFactor, grayWidth, grayHeight);
      // libdmtx asserts (Debian keeps its assertions) on an image 2 pixels across; a Data Matrix
      // code needs 10 modules a side anyway.
      if (grayWidth >= 20 && grayHeight >= 20) readDataMatrix(gray, grayWidth, grayHeight, dmFactor, found);
    }
    return report(found, symbols, capacity, text, text_capacity);
  } catch (const std::bad_alloc &) {
    return CBC_ERROR_MEMORY;
  } catch (...) {
    return CBC_ERROR_INTERNAL;
  }
}

extern "C" const char *cbc_library_version(void) {
#define CBC_TEXT(x) #x
#define CBC_VERSION(a, b, c) CBC_TEXT(a) "." CBC_TEXT(b) "." CBC_TEXT(c)
  return CBC_VERSION(ZXING_VERSION_MAJOR, ZXING_VERSION_MINOR, ZXING_VERSION_PATCH);
}
