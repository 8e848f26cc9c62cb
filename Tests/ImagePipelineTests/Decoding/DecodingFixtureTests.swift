import Foundation
import ImagePipeline
import TestSupport
import Testing

/// Always-on decoder tests on images made at run time with the package's own encoders.
@Suite struct DecodingFixtureTests {
  let decoder = ImageDecoder()

  private func image(
    _ format: PixelFormat, width: Int = 37, height: Int = 23,
    orientation: ImageOrientation = .up
  ) throws -> RasterImage {
    try RasterImage(
      width: width, height: height, format: format,
      pixels: ImageFixtures.noise(width: width, height: height, channels: format.channelCount),
      orientation: orientation)
  }

  private func photo(width: Int = 64, height: Int = 48, gray: Bool = false) throws -> RasterImage {
    let format: PixelFormat = gray ? .gray : .rgb
    return try RasterImage(
      width: width, height: height, format: format,
      pixels: ImageFixtures.gradient(width: width, height: height, channels: format.channelCount))
  }

  @Test(arguments: PixelFormat.allCases)
  func pngRoundTripKeepsEveryPixelAndChannel(format: PixelFormat) throws {
    let original = try image(format)
    let encoded = try PNGEncoder().encode(original)
    #expect(ImageFormat.sniff(encoded) == .png)
    let decoded = try decoder.decode(encoded)
    #expect(decoded == original)
    let info = try decoder.inspect(encoded)
    #expect(info.format == .png)
    #expect(info.width == 37 && info.height == 23)
    #expect(info.pixelFormat == format)
    #expect(info.hasAlpha == format.hasAlpha)
    #expect(info.bitDepth == 8)
  }

  @Test(arguments: ImageOrientation.allCases)
  func pngEXIfChunkCarriesOrientation(orientation: ImageOrientation) throws {
    let original = try image(.rgb, orientation: orientation)
    let decoded = try decoder.decode(PNGEncoder(compressionLevel: 1).encode(original))
    #expect(decoded.orientation == orientation)
    #expect(decoded.pixels == original.pixels)
  }

  @Test(arguments: ImageOrientation.allCases)
  func jpegEXIFCarriesOrientation(orientation: ImageOrientation) throws {
    var original = try photo()
    original.orientation = orientation
    let encoded = try JPEGEncoder(quality: 95).encode(original)
    let decoded = try decoder.decode(encoded)
    #expect(decoded.orientation == orientation)
    #expect(decoded.format == .rgb)
    #expect(decoded.width == 64 && decoded.height == 48)
    let info = try decoder.inspect(encoded)
    #expect(info.orientation == orientation)
    #expect(info.displayWidth == (orientation.swapsDimensions ? 48 : 64))
  }

  @Test func jpegDecodesCloseToItsSource() throws {
    for gray in [false, true] {
      let original = try photo(gray: gray)
      for encoder in [
        JPEGEncoder(quality: 95, subsamplesChroma: false),
        JPEGEncoder(quality: 95, isProgressive: true, subsamplesChroma: false),
        JPEGEncoder(quality: 95, subsamplesChroma: false, usesArithmeticCoding: true),
      ] {
        let decoded = try decoder.decode(encoder.encode(original))
        #expect(decoded.format == (gray ? .gray : .rgb))
        let difference = try #require(PixelComparison.difference(decoded.pixels, original.pixels))
        #expect(difference.maximum <= 8, "\(encoder): \(difference)")
        #expect(difference.mean <= 1.5, "\(encoder): \(difference)")
      }
    }
  }

  @Test func truncatedJPEGIsAnErrorUnlessLenient() throws {
    for progressive in [false, true] {
      let encoded = try JPEGEncoder(isProgressive: progressive).encode(photo(width: 96, height: 96))
      let truncated = Array(encoded.prefix(encoded.count * 2 / 3))
      let error = #expect(throws: ImageDecodingError.self) { try decoder.decode(truncated) }
      #expect(error?.code == .truncated, "\(String(describing: error))")
      #expect(error?.message.contains("Premature end of JPEG file") == true)

      let lenient = ImageDecoder(options: DecodingOptions(allowsTruncatedJPEG: true))
      let decoded = try lenient.decode(truncated)
      #expect(decoded.width == 96 && decoded.height == 96)
    }
  }

  @Test func truncatedPNGIsAnError() throws {
    let encoded = try PNGEncoder().encode(image(.rgba))
    for length in [20, 40, encoded.count / 2, encoded.count - 4] {
      let error = #expect(throws: ImageDecodingError.self) {
        try decoder.decode(Array(encoded.prefix(length)))
      }
      #expect(error?.code == .truncated, "\(length) bytes: \(String(describing: error))")
    }
  }

  @Test func pngPixelLimitIsCheckedFromTheHeader() throws {
    let claim = ImageFixtures.pngHeader(width: 20_000, height: 10_000)
    let error = #expect(throws: ImageDecodingError.self) { try decoder.decode(claim) }
    #expect(error?.code == .limitExceeded)
    #expect(error?.message.contains("20000x10000") == true, "\(String(describing: error))")

    // With the limit raised, the same bytes fail later, for lack of image data: so the refusal
    // above happened from the header alone, before any pixel buffer existed.
    let permissive = ImageDecoder(options: DecodingOptions(maximumPixelCount: 200_000_001))
    let later = #expect(throws: ImageDecodingError.self) {
      try permissive.decode(ImageFixtures.pngHeader(width: 2_000, height: 1_000))
    }
    #expect(later?.code == .corrupt)

    let info = try decoder.inspect(claim)
    #expect(info.width == 20_000 && info.height == 10_000)
  }

  @Test func jpegPixelLimitIsCheckedFromTheHeader() throws {
    var encoded = try JPEGEncoder().encode(photo(width: 16, height: 16))
    let sof = try #require(Self.markerOffset(0xC0, in: encoded))
    // SOF0: FF C0, length (2), precision (1), height (2), width (2).
    encoded[sof + 5] = UInt8(10_000 >> 8)
    encoded[sof + 6] = UInt8(10_000 & 0xFF)
    encoded[sof + 7] = UInt8(20_000 >> 8)
    encoded[sof + 8] = UInt8(20_000 & 0xFF)
    let before = ResourceUsage.peakResidentMebibytes
    let error = #expect(throws: ImageDecodingError.self) { try decoder.decode(encoded) }
    #expect(error?.code == .limitExceeded, "\(String(describing: error))")
    #expect(error?.message.contains("200000000 pixels") == true)
    let small = ImageDecoder(options: DecodingOptions(maximumPixelCount: 255))
    #expect(throws: ImageDecodingError.self) {
      try small.decode(JPEGEncoder().encode(photo(width: 16, height: 16)))
    }
    print(
      "peak RSS \(before) MiB before, \(ResourceUsage.peakResidentMebibytes) MiB after a 200 MP claim"
    )

    let info = try decoder.inspect(encoded)
    #expect(info.width == 20_000 && info.height == 10_000)
  }

  @Test func unsupportedJPEGProcessesGiveUnsupported() throws {
    let encoded = try JPEGEncoder().encode(photo(width: 16, height: 16))
    let sof = try #require(Self.markerOffset(0xC0, in: encoded))
    var twelveBit = encoded
    twelveBit[sof + 1] = 0xC1
    twelveBit[sof + 4] = 12
    var lossless = encoded
    lossless[sof + 1] = 0xC3
    for (name, bytes) in [("12-bit", twelveBit), ("lossless", lossless)] {
      let error = #expect(throws: ImageDecodingError.self) { try decoder.decode(bytes) }
      #expect(error?.code == .unsupported, "\(name): \(String(describing: error))")
    }
  }

  @Test func progressiveJPEGScanCountIsCapped() throws {
    let encoded = try JPEGEncoder(isProgressive: true).encode(photo(width: 32, height: 32))
    let sos = try #require(Self.markerOffset(0xDA, in: encoded))
    // The first scan runs from its SOS marker to the next marker that is not a stuffed 0xFF.
    var end = sos + 2 + (Int(encoded[sos + 2]) << 8 | Int(encoded[sos + 3]))
    while end + 1 < encoded.count, !(encoded[end] == 0xFF && encoded[end + 1] != 0) { end += 1 }
    let scan = Array(encoded[sos..<end])
    let repeats = DecodingOptions.maximumJPEGScanCount + 10
    let hostile =
      Array(encoded[..<sos]) + Array([[UInt8]](repeating: scan, count: repeats).joined())
      + Array(encoded[sos...])
    let error = #expect(throws: ImageDecodingError.self) { try decoder.decode(hostile) }
    #expect(error?.code == .limitExceeded, "\(String(describing: error))")
    #expect(error?.message.contains("scans") == true)

    let fewer =
      Array(encoded[..<sos]) + Array([[UInt8]](repeating: scan, count: 20).joined())
      + Array(encoded[sos...])
    #expect(try decoder.decode(fewer).width == 32)
  }

  @Test(arguments: JPEGScale.allCases)
  func jpegScaleReducesInTheDCTDomain(scale: JPEGScale) throws {
    let original = try photo(width: 203, height: 101)
    let encoded = try JPEGEncoder(quality: 95).encode(original)
    let scaled = try ImageDecoder(options: DecodingOptions(jpegScale: scale)).decode(encoded)
    let size = scale.scaledSize(width: 203, height: 101)
    #expect(scaled.width == size.width && scaled.height == size.height)
    #expect(
      try ImageDecoder(options: DecodingOptions(jpegScale: scale)).inspect(encoded).width == 203)
    // Each output pixel approximates the mean of its d x d block of the source.
    let d = scale.denominator
    var total = 0
    var count = 0
    for y in 0..<(101 / d) {
      for x in 0..<(203 / d) {
        for channel in 0..<3 {
          var sum = 0
          for dy in 0..<d {
            for dx in 0..<d {
              sum += Int(original.pixels[((y * d + dy) * 203 + x * d + dx) * 3 + channel])
            }
          }
          total += abs(Int(scaled.pixels[(y * scaled.width + x) * 3 + channel]) - sum / (d * d))
          count += 1
        }
      }
    }
    let mean = Double(total) / Double(count)
    #expect(mean < 3, "mean difference \(mean) to the box-filtered source at 1/\(d)")
    let png = try PNGEncoder().encode(original)
    #expect(try ImageDecoder(options: DecodingOptions(jpegScale: scale)).decode(png) == original)
  }

  @Test func largestReductionKeepsTheShorterSide() {
    #expect(
      JPEGScale.largestReduction(width: 4032, height: 3024, keepingShorterSideAtLeast: 224)
        == .eighth)
    #expect(
      JPEGScale.largestReduction(width: 1800, height: 1200, keepingShorterSideAtLeast: 224)
        == .quarter)
    #expect(
      JPEGScale.largestReduction(width: 640, height: 480, keepingShorterSideAtLeast: 240) == .half)
    #expect(
      JPEGScale.largestReduction(width: 300, height: 200, keepingShorterSideAtLeast: 224) == .full)
  }

  @Test func scaledSizesRoundUpWithoutOverflow() {
    #expect(JPEGScale.eighth.scaledSize(width: 17, height: 16) == (3, 2))
    #expect(JPEGScale.eighth.scaledSize(width: .max, height: 0) == (.max / 8 + 1, 0))
    #expect(JPEGScale.full.scaledSize(width: .max, height: 1) == (.max, 1))
  }

  @Test func decodesConcurrently() async throws {
    let png = try PNGEncoder().encode(image(.rgba, width: 120, height: 90))
    let jpeg = try JPEGEncoder(isProgressive: true).encode(photo(width: 120, height: 90))
    let expected = try [decoder.decode(png), decoder.decode(jpeg)]
    let decoder = decoder
    let results = try await withThrowingTaskGroup(of: (Int, RasterImage).self) { group in
      for index in 0..<16 {
        group.addTask { (index, try decoder.decode(index.isMultiple(of: 2) ? png : jpeg)) }
      }
      var results: [(Int, RasterImage)] = []
      for try await result in group { results.append(result) }
      return results
    }
    #expect(results.count == 16)
    for (index, image) in results {
      #expect(image == expected[index % 2])
    }
  }

  @Test func garbageAndEmptyDataAreUnknownFormat() {
    for bytes: [UInt8] in [[], [0x00], Array("GIF89a not really".utf8), [0xFF, 0xD8]] {
      let error = #expect(throws: ImageDecodingError.self) { try decoder.decode(bytes) }
      #expect(error?.code == .unknownFormat, "\(bytes)")
    }
    #expect(throws: ImageDecodingError.self) { try decoder.decode(Data()) }
  }

  @Test func headerOnlyGarbageIsCorruptNotACrash() {
    let jpegStart: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02]
    let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    for bytes in [jpegStart, pngSignature, pngSignature + [0, 0, 0, 13]] {
      let error = #expect(throws: ImageDecodingError.self) { try decoder.decode(bytes) }
      #expect(error?.code == .truncated || error?.code == .corrupt, "\(String(describing: error))")
    }
  }

  @Test func missingFileIsAnIOError() {
    let url = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString).png")
    let error = #expect(throws: ImageDecodingError.self) { try decoder.decode(contentsOf: url) }
    #expect(error?.code == .io)
  }

  @Test func decodesFromFileAndData() throws {
    let original = try image(.grayAlpha)
    let encoded = try PNGEncoder().encode(original)
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("decoding-\(UUID().uuidString).png")
    try Data(encoded).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    #expect(try decoder.decode(contentsOf: url) == original)
    #expect(try decoder.decode(Data(encoded)) == original)
    #expect(try decoder.inspect(contentsOf: url).pixelFormat == .grayAlpha)
  }

  @Test func encodersRejectWhatTheyCannotWrite() throws {
    let rgba = try image(.rgba)
    let alphaError = #expect(throws: ImageDecodingError.self) { try JPEGEncoder().encode(rgba) }
    #expect(alphaError?.code == .invalidArgument)
    let qualityError = #expect(throws: ImageDecodingError.self) {
      try JPEGEncoder(quality: 0).encode(photo())
    }
    #expect(qualityError?.code == .invalidArgument)
    let levelError = #expect(throws: ImageDecodingError.self) {
      try PNGEncoder(compressionLevel: 12).encode(rgba)
    }
    #expect(levelError?.code == .invalidArgument)
  }

  @Test func ppmIsRGBWithAHeader() throws {
    let gray = try RasterImage(width: 2, height: 1, format: .grayAlpha, pixels: [10, 0, 200, 255])
    #expect(
      PPMEncoder().encode(gray) == Array("P6\n2 1\n255\n".utf8) + [10, 10, 10, 200, 200, 200])
    let rgba = try RasterImage(width: 1, height: 1, format: .rgba, pixels: [1, 2, 3, 4])
    #expect(PPMEncoder().encode(rgba) == Array("P6\n1 1\n255\n".utf8) + [1, 2, 3])
  }

  /// The offset of the first `FF marker` pair in a JPEG's header segments.
  static func markerOffset(_ marker: UInt8, in bytes: [UInt8]) -> Int? {
    var position = 2
    while position + 3 < bytes.count, bytes[position] == 0xFF {
      if bytes[position + 1] == marker { return position }
      position += 2 + (Int(bytes[position + 2]) << 8 | Int(bytes[position + 3]))
    }
    return nil
  }
}
