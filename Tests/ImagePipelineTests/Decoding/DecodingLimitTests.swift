import Foundation
import ImagePipeline
import TestSupport
import Testing

/// The decoded-bytes and file-size limits of ``DecodingOptions``, with their defaults.
struct DecodingLimitTests {
  static func png(width: Int, height: Int) throws -> [UInt8] {
    let pixels = ImageFixtures.gradient(width: width, height: height, channels: 3)
    return try PNGEncoder().encode(
      RasterImage(width: width, height: height, format: .rgb, pixels: pixels))
  }

  @Test func defaultsAreDocumented() {
    let options = DecodingOptions()
    #expect(options.maximumDecodedByteCount == 400_000_000)
    #expect(options.maximumFileByteCount == 256 << 20)
  }

  @Test func decodedByteLimitIsExactAndCheckedBeforeDecoding() throws {
    let file = try Self.png(width: 16, height: 16)
    let exact = ImageDecoder(options: DecodingOptions(maximumDecodedByteCount: 16 * 16 * 3))
    #expect(try exact.decode(file).pixels.count == 768)
    let under = ImageDecoder(options: DecodingOptions(maximumDecodedByteCount: 767))
    let error = #expect(throws: ImageDecodingError.self) { try under.decode(file) }
    #expect(error?.code == .limitExceeded)
    #expect(error?.message.contains("768 bytes") == true, "\(String(describing: error))")
    // A header claiming 2000x1000 with no image data: refused for its size, not its damage.
    let claim = ImageFixtures.pngHeader(width: 2_000, height: 1_000)
    let small = ImageDecoder(options: DecodingOptions(maximumDecodedByteCount: 1 << 20))
    let refused = #expect(throws: ImageDecodingError.self) { try small.decode(claim) }
    #expect(refused?.code == .limitExceeded)
  }

  @Test func fileLimitStopsReading() throws {
    let file = try Self.png(width: 8, height: 8)
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("decoding-limit-\(UUID().uuidString).png")
    try Data(file).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    #expect(try ImageDecoder().decode(contentsOf: url).width == 8)
    let exact = ImageDecoder(options: DecodingOptions(maximumFileByteCount: file.count))
    #expect(try exact.inspect(contentsOf: url).height == 8)
    let under = ImageDecoder(options: DecodingOptions(maximumFileByteCount: file.count - 1))
    let error = #expect(throws: ImageDecodingError.self) { try under.decode(contentsOf: url) }
    #expect(error?.code == .limitExceeded)
  }

  @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/zero"), "needs /dev/zero"))
  func endlessFileIsRefusedWithoutReadingIt() {
    let decoder = ImageDecoder(options: DecodingOptions(maximumFileByteCount: 1 << 16))
    let error = #expect(throws: ImageDecodingError.self) {
      try decoder.decode(contentsOf: URL(fileURLWithPath: "/dev/zero"))
    }
    #expect(error?.code == .limitExceeded)
  }
}
