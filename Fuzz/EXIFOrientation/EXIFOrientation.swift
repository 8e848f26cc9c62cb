import ImagePipeline

/// A small valid image of each format, made once with the package's own encoders.
let baseJPEG: [UInt8] = makeBase { image in try JPEGEncoder().encode(image) }
let basePNG: [UInt8] = makeBase { image in try PNGEncoder().encode(image) }

func makeBase(_ encode: (RasterImage) throws -> [UInt8]) -> [UInt8] {
  do {
    let pixels = (0..<(16 * 8 * 3)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    return try encode(RasterImage(width: 16, height: 8, format: .rgb, pixels: pixels))
  } catch {
    fatalError("cannot make the base image: \(error)")
  }
}

/// Reaches the EXIF reader through its public callers, the decoder and the inspector.
///
/// The input's first byte picks the container (even: a JPEG APP1 `Exif\0\0` segment, odd: a
/// PNG `eXIf` chunk), the rest is the TIFF block. Whatever the block holds, decoding must
/// succeed (malformed EXIF means orientation 1, never an error) and report the same orientation
/// as inspection.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = Array(UnsafeBufferPointer(start: data, count: size))
  guard let selector = input.first else {
    return 0
  }
  let tiff = Array(input.dropFirst().prefix(65_000))
  let file = selector & 1 == 0 ? jpeg(withEXIF: tiff) : png(withEXIF: tiff)
  let decoder = ImageDecoder()
  let info: ImageInfo
  let image: RasterImage
  do {
    info = try decoder.inspect(file)
    image = try decoder.decode(file)
  } catch {
    fatalError("an EXIF block made a valid image fail: \(error)")
  }
  guard info.orientation == image.orientation, image.width == 16, image.height == 8 else {
    fatalError("inspect and decode disagree: \(info) vs \(image.orientation)")
  }
  _ = image.oriented()
  return 0
}

func jpeg(withEXIF tiff: [UInt8]) -> [UInt8] {
  let length = 2 + 6 + tiff.count
  var file: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)]
  file += Array("Exif".utf8) + [0, 0] + tiff
  file += baseJPEG.dropFirst(2)
  return file
}

func png(withEXIF tiff: [UInt8]) -> [UInt8] {
  // Signature (8) and IHDR (25) come first; eXIf must precede IDAT.
  let headerEnd = 33
  var chunk = Array("eXIf".utf8) + tiff
  let crc = crc32(chunk)
  let count = UInt32(tiff.count)
  chunk = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: count >> $0) } + chunk
  chunk += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) }
  return Array(basePNG[..<headerEnd]) + chunk + Array(basePNG[headerEnd...])
}

func crc32(_ bytes: [UInt8]) -> UInt32 {
  var crc: UInt32 = 0xFFFF_FFFF
  for byte in bytes {
    crc ^= UInt32(byte)
    for _ in 0..<8 {
      crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
    }
  }
  return ~crc
}
