import CNative
import Foundation
import ImagePipeline
import TestSupport
import Testing

/// The whole-buffer PNG path (libdeflate) against libpng's row-by-row reader: it must take the
/// common files and give libpng's pixels, and leave every other file, damaged or unusual, to
/// libpng, so `cic_png_decode` always answers as libpng would.
struct PNGWholeBufferTests {
  /// What a reader made of a file: its pixels and channel count, or its status.
  enum Outcome: Equatable {
    case decoded(pixels: [UInt8], channels: UInt32)
    case failed(UInt32)
  }

  /// Which reader `outcome(of:reader:)` uses.
  enum Reader { case combined, streaming, wholeOnly }

  static func outcome(of file: [UInt8], reader: Reader) -> Outcome? {
    var options = cic_decode_options()
    // The decoder's default limit, so that a header claiming gigapixels is refused before a
    // buffer is made for it, as `ImageDecoder` does.
    options.max_pixels = UInt64(DecodingOptions.defaultMaximumPixelCount)
    var info = cic_image_info()
    var message = [CChar](repeating: 0, count: Int(CIC_MESSAGE_CAPACITY))
    guard
      cic_png_inspect(file, file.count, &options, &info, &message, message.count)
        == CIC_STATUS_OK
    else { return nil }
    let count = Int(info.width) * Int(info.height) * Int(info.channels)
    var pixels = [UInt8](repeating: 0, count: count)
    var decoded = cic_image_info()
    let status: cic_status
    switch reader {
    case .combined:
      status = cic_png_decode(
        file, file.count, &options, &pixels, count, &decoded, &message, message.count)
    case .streaming:
      status = cic_png_decode_streaming(
        file, file.count, &options, &pixels, count, &decoded, &message, message.count)
    case .wholeOnly:
      let taken = cic_png_decode_whole(file, file.count, &options, &pixels, count, &decoded)
      status = taken == 1 ? CIC_STATUS_OK : CIC_STATUS_UNSUPPORTED
    }
    guard status == CIC_STATUS_OK else { return .failed(status.rawValue) }
    return .decoded(pixels: pixels, channels: decoded.channels)
  }

  /// A PNG written by hand: every row filtered with the given type (cycling through `filters`),
  /// the zlib stream made of stored blocks and split over `idatPieces` IDAT chunks.
  static func craftedPNG(
    width: Int, height: Int, channels: Int, filters: [UInt8], idatPieces: Int = 3,
    colorType: UInt8? = nil, bitDepth: UInt8 = 8, interlace: UInt8 = 0,
    extraChunks: [UInt8] = [], trailingChunks: [UInt8] = [], zlibHeader: [UInt8] = [0x78, 0x01]
  ) -> (file: [UInt8], pixels: [UInt8]) {
    let pixels = ImageFixtures.noise(width: width, height: height, channels: channels)
    let stream = zlibStored(
      filtered(pixels, width: width, channels: channels, filters: filters), header: zlibHeader)
    let types: [Int: UInt8] = [1: 0, 2: 4, 3: 2, 4: 6]
    var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let header =
      ImageFixtures.bigEndian(UInt32(width)) + ImageFixtures.bigEndian(UInt32(height))
      + [bitDepth, colorType ?? types[channels, default: 2], 0, 0, interlace]
    file += ImageFixtures.chunk("IHDR", header)
    file += extraChunks
    let piece = (stream.count + idatPieces - 1) / idatPieces
    for start in stride(from: 0, to: stream.count, by: piece) {
      file += ImageFixtures.chunk("IDAT", Array(stream[start..<min(start + piece, stream.count)]))
    }
    file += trailingChunks
    file += ImageFixtures.chunk("IEND", [])
    return (file, pixels)
  }

  /// Applies the PNG row filters (spec 9.2) the way an encoder does.
  static func filtered(_ pixels: [UInt8], width: Int, channels: Int, filters: [UInt8]) -> [UInt8] {
    let rowBytes = width * channels
    let height = pixels.count / rowBytes
    var out: [UInt8] = []
    for y in 0..<height {
      let filter = filters[y % filters.count]
      out.append(filter)
      for i in 0..<rowBytes {
        let x = Int(pixels[y * rowBytes + i])
        let a = i >= channels ? Int(pixels[y * rowBytes + i - channels]) : 0
        let b = y > 0 ? Int(pixels[(y - 1) * rowBytes + i]) : 0
        let c = y > 0 && i >= channels ? Int(pixels[(y - 1) * rowBytes + i - channels]) : 0
        let predicted: Int
        switch filter {
        case 1: predicted = a
        case 2: predicted = b
        case 3: predicted = (a + b) / 2
        case 4:
          let (pa, pb, pc) = (abs(b - c), abs(a - c), abs(a + b - 2 * c))
          predicted = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
        default: predicted = 0
        }
        out.append(UInt8(truncatingIfNeeded: x - predicted))
      }
    }
    return out
  }

  /// A zlib stream (32 KiB window) of stored deflate blocks with its Adler-32.
  static func zlibStored(_ data: [UInt8], header: [UInt8] = [0x78, 0x01]) -> [UInt8] {
    var stream = header
    var start = 0
    repeat {
      let end = min(start + 65_535, data.count)
      let length = UInt16(end - start)
      stream.append(end == data.count ? 1 : 0)
      stream += [
        UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8),
      ]
      stream += data[start..<end]
      start = end
    } while start < data.count
    var (a, b): (UInt32, UInt32) = (1, 0)
    for byte in data {
      a = (a + UInt32(byte)) % 65_521
      b = (b + a) % 65_521
    }
    return stream + ImageFixtures.bigEndian(b << 16 | a)
  }

  @Test(arguments: 1...4)
  func everyFilterTypeGivesLibpngsPixels(channels: Int) throws {
    for filters: [UInt8] in [[0], [1], [2], [3], [4], [3, 4, 1, 0, 2], [4, 2, 3, 1]] {
      let (file, pixels) = Self.craftedPNG(
        width: 37, height: 11, channels: channels, filters: filters)
      let whole = Self.outcome(of: file, reader: .wholeOnly)
      #expect(whole == .decoded(pixels: pixels, channels: UInt32(channels)), "filters \(filters)")
      #expect(whole == Self.outcome(of: file, reader: .streaming), "filters \(filters)")
    }
  }

  @Test(arguments: 1...4)
  func encodedFilesTakeTheWholeBufferPath(channels: Int) throws {
    let format: [Int: PixelFormat] = [1: .gray, 2: .grayAlpha, 3: .rgb, 4: .rgba]
    for (width, height) in [(1, 1), (7, 5), (300, 41)] {
      let pixels = ImageFixtures.noise(width: width, height: height, channels: channels)
      let image = try RasterImage(
        width: width, height: height, format: try #require(format[channels]), pixels: pixels)
      let file = try PNGEncoder().encode(image)
      let whole = Self.outcome(of: file, reader: .wholeOnly)
      #expect(whole == .decoded(pixels: pixels, channels: UInt32(channels)), "\(width)x\(height)")
      #expect(whole == Self.outcome(of: file, reader: .streaming), "\(width)x\(height)")
    }
  }

  /// Files the whole-buffer path must leave to libpng, each a small edit of a good file.
  static func leftToLibpng() -> [(String, [UInt8])] {
    let (good, _) = craftedPNG(width: 9, height: 6, channels: 3, filters: [1, 4, 3])
    let stream = zlibStored(
      filtered([UInt8](repeating: 7, count: 9 * 6 * 3), width: 9, channels: 3, filters: [0]))
    func replacingStream(_ stream: [UInt8]) -> [UInt8] {
      let header = Array(good[8..<33])
      return Array(good[0..<8]) + header + ImageFixtures.chunk("IDAT", stream)
        + ImageFixtures.chunk("IEND", [])
    }
    var badCRC = good
    badCRC[45] ^= 0x40  // inside the first IDAT's data
    let idatEnd = good.count - 12
    return [
      ("a damaged IDAT", badCRC),
      ("data cut inside IDAT", Array(good[0..<(idatEnd - 20)])),
      ("no IEND", Array(good[0..<idatEnd])),
      (
        "a tRNS chunk",
        craftedPNG(
          width: 9, height: 6, channels: 3, filters: [0],
          extraChunks: ImageFixtures.chunk("tRNS", [0, 1, 0, 2, 0, 3])
        ).file
      ),
      (
        "a PLTE chunk",
        craftedPNG(
          width: 9, height: 6, channels: 3, filters: [0],
          extraChunks: ImageFixtures.chunk("PLTE", [1, 2, 3])
        ).file
      ),
      (
        "an unknown critical chunk",
        craftedPNG(
          width: 9, height: 6, channels: 3, filters: [0],
          trailingChunks: ImageFixtures.chunk("ABCD", [1])
        ).file
      ),
      (
        "16-bit samples",
        craftedPNG(width: 9, height: 3, channels: 3, filters: [0], bitDepth: 16).file
      ),
      (
        "Adam7 interlacing",
        craftedPNG(width: 9, height: 6, channels: 3, filters: [0], interlace: 1).file
      ),
      (
        "an ancillary chunk between IDATs",
        Array(good[0..<33]) + ImageFixtures.chunk("IDAT", Array(stream[0..<10]))
          + ImageFixtures.chunk("tEXt", Array("a\0b".utf8))
          + ImageFixtures.chunk("IDAT", Array(stream[10...])) + ImageFixtures.chunk("IEND", [])
      ),
      (
        "a palette image",
        craftedPNG(
          width: 9, height: 6, channels: 1, filters: [0], colorType: 3,
          extraChunks: ImageFixtures.chunk("PLTE", Array(0..<255))
        ).file
      ),
      ("filter type 5", craftedPNG(width: 9, height: 6, channels: 3, filters: [1, 5]).file),
      (
        "a 512-byte zlib window smaller than the image",
        craftedPNG(width: 40, height: 6, channels: 3, filters: [0], zlibHeader: [0x18, 0x19]).file
      ),
      ("a bad Adler-32", replacingStream(stream.dropLast(1) + [stream[stream.count - 1] ^ 1])),
      ("bytes after the zlib stream", replacingStream(stream + [0, 0])),
      (
        "a missing last row",
        replacingStream(
          zlibStored(
            Array(
              filtered([UInt8](repeating: 7, count: 9 * 5 * 3), width: 9, channels: 3, filters: [0])
            )))
      ),
    ]
  }

  @Test func ancillaryChunksWithBadCRCsAreSkippedLikeLibpngDoes() throws {
    var text = ImageFixtures.chunk("tEXt", Array("Comment\0hi".utf8))
    text[text.count - 1] ^= 1
    let (file, pixels) = Self.craftedPNG(
      width: 13, height: 4, channels: 4, filters: [4], extraChunks: text, trailingChunks: text)
    let whole = Self.outcome(of: file, reader: .wholeOnly)
    #expect(whole == .decoded(pixels: pixels, channels: 4))
    #expect(whole == Self.outcome(of: file, reader: .streaming))
  }

  @Test func aSmallDeclaredWindowIsTakenWhenTheImageFitsInIt() throws {
    // 6 rows of 28 filtered bytes fit in a 512-byte window, so no distance can reach past it.
    let (file, pixels) = Self.craftedPNG(
      width: 9, height: 6, channels: 3, filters: [1], zlibHeader: [0x18, 0x19])
    let whole = Self.outcome(of: file, reader: .wholeOnly)
    #expect(whole == .decoded(pixels: pixels, channels: 3))
    #expect(whole == Self.outcome(of: file, reader: .streaming))
  }

  @Test func unusualAndDamagedFilesGoToLibpng() throws {
    for (name, file) in Self.leftToLibpng() {
      #expect(Self.outcome(of: file, reader: .wholeOnly) != nil, "\(name): header must parse")
      #expect(
        Self.outcome(of: file, reader: .wholeOnly) == .failed(CIC_STATUS_UNSUPPORTED.rawValue),
        "\(name) was taken by the whole-buffer path")
      let combined = Self.outcome(of: file, reader: .combined)
      #expect(combined == Self.outcome(of: file, reader: .streaming), "\(name)")
      print("PNG with \(name): libpng says \(combined.map { "\($0)" } ?? "-")".prefix(120))
    }
  }
}

/// Every PNG of the generated decoding corpus and, when ../shared is present, of the shared
/// corpora (PngSuite, the image-png fuzz files, Pillow's test images): `cic_png_decode` must
/// answer exactly as libpng's reader does.
@Suite(.enabled(if: DecodingCorpus.isAvailable, Comment(rawValue: DecodingCorpus.skipReason)))
struct PNGWholeBufferCorpusTests {
  /// PNGs compared together, with how many at least must be read and take the whole-buffer
  /// path, so that a missing folder cannot pass as an empty loop.
  struct FileSet: Sendable, CustomTestStringConvertible {
    var name: String
    var files: [URL]
    var minimumFiles: Int
    var minimumWholeBuffer: Int

    var testDescription: String { "\(name) (\(files.count) files)" }
  }

  static let sets: [FileSet] = {
    let generated = FileSet(
      name: "the decoding corpus",
      files: ["png", "orientation", "malformed"].flatMap {
        DecodingCorpus.files(in: $0, extensions: ["png"])
      },
      minimumFiles: DecodingCorpus.png.count
        + DecodingCorpus.orientation.filter { $0.file.hasSuffix(".png") }.count
        + DecodingCorpus.malformed.filter { $0.file.hasSuffix(".png") }.count,
      minimumWholeBuffer: 20)
    guard CorpusLocator.isAvailable else { return [generated] }
    let shared = FileSet(
      name: "PngSuite, image-png and Pillow",
      files: CorpusLocator.files(in: "pngsuite", extensions: ["png"])
        + CorpusLocator.files(in: "image-png-tests-fuzz", recursive: true, extensions: ["png"])
        + CorpusLocator.files(in: "pillow-tests-images", extensions: ["png"]),
      minimumFiles: 201, minimumWholeBuffer: 21)
    return [generated, shared]
  }()

  @Test(arguments: sets)
  func corporaDecodeAsLibpngDoes(_ set: FileSet) throws {
    #expect(set.files.count >= set.minimumFiles)
    var (compared, whole) = (0, 0)
    for file in set.files {
      let bytes = try [UInt8](Data(contentsOf: file))
      guard let reference = PNGWholeBufferTests.outcome(of: bytes, reader: .streaming) else {
        continue
      }
      compared += 1
      let combined = PNGWholeBufferTests.outcome(of: bytes, reader: .combined)
      #expect(combined == reference, "\(file.lastPathComponent)")
      if case .decoded = PNGWholeBufferTests.outcome(of: bytes, reader: .wholeOnly) { whole += 1 }
    }
    print(
      "PNG corpora, \(set.name): \(compared) files compared with libpng, \(whole) took the"
        + " whole-buffer path")
    #expect(whole >= set.minimumWholeBuffer)
  }
}
