import Foundation
import ImagePipeline
import TestSupport
import Testing

/// WebP decoding against Pillow's decoding of the same files (Scripts/image-fixtures): lossy,
/// lossless, alpha, 1x1 and odd sizes, every EXIF orientation, an animation, broken files.
@Suite(.enabled(if: FormatFixtures.isAvailable, Comment(rawValue: FormatFixtures.skipReason)))
struct WebPFixtureTests {
  let decoder = ImageDecoder()

  static let decodable = FormatFixtures.cases(under: "webp/").filter { $0.error == nil }
  static let broken = FormatFixtures.cases(under: "webp/").filter { $0.error != nil }

  @Test func theFixturesAreThere() {
    #expect(Self.decodable.count >= 15)
    #expect(Self.broken.count >= 2)
  }

  @Test(arguments: decodable)
  func decodesAsPillowDoes(fixture: FormatFixtures.Case) throws {
    let data = try Data(contentsOf: fixture.url)
    #expect(ImageFormat.sniff(data) == .webp)
    let image = try decoder.decode(data)
    let info = try decoder.inspect(data)
    let referenceURL = try #require(fixture.referenceURL)
    let reference = try decoder.decode(contentsOf: referenceURL)
    #expect(image.width == fixture.width && image.height == fixture.height)
    #expect(info.width == image.width && info.height == image.height)
    #expect(image.format == (fixture.mode == "RGBA" ? .rgba : .rgb), "\(image.format)")
    #expect(Int(image.orientation.rawValue) == fixture.orientation)
    #expect(info.orientation == image.orientation)
    let difference = try #require(
      PixelComparison.difference(PixelComparison.rgba(image), PixelComparison.rgba(reference)))
    print("webp \(fixture.file): \(image.width)x\(image.height) \(image.format) \(difference)")
    if fixture.lossless == true {
      #expect(difference.maximum == 0, "\(difference)")
    } else {
      // Pillow bundles a newer libwebp than Debian's 1.2.4; their YUV-to-RGB rounding differs.
      #expect(difference.mean <= 1.5, "\(difference)")
    }
  }

  @Test(arguments: broken)
  func brokenFilesGiveTheirTypedError(fixture: FormatFixtures.Case) throws {
    let data = try Data(contentsOf: fixture.url)
    let error = #expect(throws: ImageDecodingError.self) { try decoder.decode(data) }
    #expect(error?.code.description == fixture.error, "\(String(describing: error))")
    #expect(error?.message.isEmpty == false)
  }

  @Test func thePixelLimitIsCheckedFromTheHeader() throws {
    let fixture = try #require(Self.decodable.first { $0.file.hasSuffix("lossy-photo.webp") })
    let data = try Data(contentsOf: fixture.url)
    let strict = ImageDecoder(options: DecodingOptions(maximumPixelCount: 1000))
    let error = #expect(throws: ImageDecodingError.self) { try strict.decode(data) }
    #expect(error?.code == .limitExceeded)
    // Inspection reports the size of an image it would refuse to decode.
    #expect(try strict.inspect(data).width == fixture.width)
  }

  /// A little-endian TIFF block whose IFD0 holds only the orientation tag.
  static func orientationTIFF(_ value: UInt8) -> [UInt8] {
    [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, value, 0, 0, 0, 0, 0, 0, 0]
  }

  static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
    let size = UInt32(payload.count)
    let header = Array(type.utf8) + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) }
    return header + payload + (payload.count % 2 == 1 ? [0] : [])
  }

  @Test func readsAnEXIFChunkAfterOddChunksWithOrWithoutTheJPEGHeader() throws {
    let fixture = try #require(Self.decodable.first { $0.file.hasSuffix("lossy-photo.webp") })
    let original = try [UInt8](Data(contentsOf: fixture.url))
    // The simple container: RIFF, size, WEBP, then one VP8 chunk.
    let body = Array(original[12...])
    for prefix in [[], Array("Exif".utf8) + [0, 0]] as [[UInt8]] {
      let chunks =
        body + Self.chunk("XTRA", [1, 2, 3]) + Self.chunk("EXIF", prefix + Self.orientationTIFF(8))
      let size = UInt32(chunks.count + 4)
      let file =
        Array("RIFF".utf8) + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) }
        + Array("WEBP".utf8) + chunks
      let image = try decoder.decode(file)
      #expect(image.orientation == ImageOrientation(rawValue: 8))
      #expect(try decoder.inspect(file).orientation == image.orientation)
    }
  }
}
