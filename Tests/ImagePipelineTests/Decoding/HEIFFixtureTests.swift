import Foundation
import ImagePipeline
import TestSupport
import Testing

/// HEIF and AVIF decoding against pillow-heif and Pillow (Scripts/image-fixtures): iPhone-like
/// HEIC in every orientation, 10-bit, alpha, odd sizes, `heif-enc`'s EXIF-only files, AVIF, and
/// the real files of pillow-heif's source distribution (an iPhone photo, grids, 10 and 12 bits,
/// broken files).
@Suite(.enabled(if: FormatFixtures.isAvailable, Comment(rawValue: FormatFixtures.skipReason)))
struct HEIFFixtureTests {
  let decoder = ImageDecoder()

  static let all =
    FormatFixtures.cases(under: "heif/") + FormatFixtures.cases(under: "pillow-heif/")
  static let decodable = all.filter { $0.error == nil }
  static let broken = all.filter { $0.error != nil }

  @Test func theFixturesAreThere() {
    #expect(Self.decodable.count >= 40)
    #expect(Self.broken.count >= 4)
    #expect(Self.decodable.contains { $0.file.hasSuffix(".avif") })
  }

  /// Files on which Debian's libheif 1.15 and pillow-heif's libheif 1.23 disagree by design of
  /// the file; each must still give an image or a typed error.
  static let divergences: [String: String] = [
    "pillow-heif/heif_other/invalid_id.heic":
      "its primary item id names no image: libheif 1.15 falls back to the first image "
      + "(1197x1227), 1.23 to another (564x870)",
    "pillow-heif/heif_truncated/truncated.heic":
      "its data ends inside an extent: libheif 1.23 decodes what is there, 1.15 refuses it",
    "pillow-heif/heif_special/guitar_cw90.hif":
      "a Canon 10-bit grid turned 90 degrees, video range signalled in its HEVC stream only: "
      + "libheif 1.15 converts it as full range; 1.23 reads the range",
  ]

  @Test(arguments: decodable.filter { divergences[$0.file] == nil })
  func decodesUprightAsTheReferenceDoes(fixture: FormatFixtures.Case) throws {
    let data = try Data(contentsOf: fixture.url)
    let format = try #require(ImageFormat.sniff(data))
    #expect(format == (fixture.file.hasSuffix(".avif") ? .avif : .heif))
    let info = try decoder.inspect(data)
    let image = try decoder.decode(data)
    #expect(image.width == fixture.width && image.height == fixture.height)
    #expect(info.width == image.width && info.height == image.height)
    #expect(image.format == (fixture.mode == "RGBA" ? .rgba : .rgb), "\(image.format)")
    // Upright as decoded; the EXIF tag is kept for provenance only.
    #expect(image.orientation == .up && info.orientation == .up)
    #expect(info.exifOrientation.map { Int($0.rawValue) } == fixture.exifOrientation)
    if let expected = Self.expectedContainerOrientation(fixture.file) {
      #expect(
        info.containerOrientation == expected, "\(String(describing: info.containerOrientation))")
    }
    let referenceURL = try #require(fixture.referenceURL)
    let reference = try decoder.decode(contentsOf: referenceURL)
    let difference = try #require(Self.difference(image, reference))
    print(
      "\(fixture.file): \(image.width)x\(image.height) \(image.format) \(info.bitDepth)-bit "
        + "exif \(info.exifOrientation.map { "\($0.rawValue)" } ?? "none"): \(difference)")
    // pillow-heif bundles libheif 1.23 and Pillow its own AVIF decoder; Debian's libheif 1.15
    // converts YCbCr to RGB with other rounding (and 10 bits to 8 is rounded here).
    #expect(difference.mean <= 1.5, "\(difference)")
  }

  /// The model-input path decodes a HEIF file without its rotation and mirroring and leaves
  /// them to the resampler: the stored pixels, turned by the orientation they come with, are
  /// exactly libheif's upright decode, and the tensor is the same up to float rounding.
  @Test(arguments: decodable.filter { divergences[$0.file] == nil })
  func theStoredPixelsTurnedByTheirOrientationAreTheUprightDecode(
    fixture: FormatFixtures.Case
  ) throws {
    let data = try Data(contentsOf: fixture.url)
    let upright = try decoder.decode(data)
    let spec = ModelInputSpec(width: 24, height: 16, cropAndScale: .centerCrop)
    let photo = try spec.decode(data, decoder: decoder)
    if fixture.file.contains("avif-orientation-") || fixture.file.hasSuffix("arrow.heic") {
      // No clean aperture (pillow-heif's odd-sized HEIC files have one, so they take the
      // upright decode): the transforms travel with the stored pixels.
      let info = try decoder.inspect(data)
      #expect(photo.image.orientation == info.containerOrientation)
    }
    let turned = photo.image.oriented()
    #expect(turned.width == upright.width && turned.height == upright.height)
    #expect(turned.format == upright.format && turned.pixels == upright.pixels)
    // The resampler turns while it scales: the same weights, summed in another order.
    let viaStored = try spec.tensor(fromDecoded: photo).tensor.values
    let viaUpright = try spec.tensor(from: upright).tensor.values
    #expect(viaStored.count == viaUpright.count)
    let largest = zip(viaStored, viaUpright).map { abs($0 - $1) }.max() ?? .infinity
    #expect(largest <= 1e-3, "largest tensor difference \(largest)")
  }

  /// One thread or many, a grid (the iPhone photo) and a single stream (10-bit, alpha) decode
  /// to the same pixels: the threads only share the work.
  @Test(arguments: ["arrow.heic", "RGBA_10__128x128.heif", "iphone-orientation-6.heic"])
  func oneThreadAndManyGiveTheSamePixels(name: String) throws {
    let fixture = try #require(Self.decodable.first { $0.file.hasSuffix("/" + name) })
    let data = try Data(contentsOf: fixture.url)
    let alone = try ImageDecoder(options: DecodingOptions(threadCount: 1)).decode(data)
    let shared = try ImageDecoder(options: DecodingOptions(threadCount: 4)).decode(data)
    #expect(alone.width == shared.width && alone.height == shared.height)
    #expect(alone.pixels == shared.pixels)
  }

  @Test(arguments: decodable.filter { divergences[$0.file] != nil })
  func divergingFilesGiveAnImageOrATypedError(fixture: FormatFixtures.Case) throws {
    let data = try Data(contentsOf: fixture.url)
    do {
      let image = try decoder.decode(data)
      #expect(image.pixels.count == image.width * image.height * image.format.channelCount)
      print(
        "\(fixture.file): \(image.width)x\(image.height) (\(Self.divergences[fixture.file] ?? ""))")
    } catch {
      #expect(!error.message.isEmpty)
      print("\(fixture.file): \(error) (\(Self.divergences[fixture.file] ?? ""))")
    }
  }

  @Test(arguments: broken)
  func brokenFilesGiveATypedError(fixture: FormatFixtures.Case) throws {
    let data = try Data(contentsOf: fixture.url)
    let started = ContinuousClock.now
    let error = #expect(throws: ImageDecodingError.self) { try decoder.decode(data) }
    if let expected = fixture.error, expected != "any" {
      #expect(error?.code.description == expected, "\(String(describing: error))")
    }
    #expect(error?.message.isEmpty == false)
    print("\(fixture.file): \(String(describing: error)) in \(ContinuousClock.now - started)")
  }

  @Test func truncationsAndBitFlipsOfAnIPhoneLikeFileNeverCrash() throws {
    let fixture = try #require(Self.decodable.first { $0.file == "heif/iphone-orientation-6.heic" })
    let whole = try [UInt8](Data(contentsOf: fixture.url))
    var generator = SystemRandomNumberGenerator()
    var failures = 0
    for step in 0..<60 {
      var bytes = whole
      if step < 20 {
        bytes.removeLast(Int.random(in: 1..<whole.count, using: &generator))
      } else {
        for _ in 0..<(step % 5 + 1) {
          let index = Int.random(in: 0..<bytes.count, using: &generator)
          bytes[index] ^= UInt8.random(in: 1...255, using: &generator)
        }
      }
      // Inspection walks the container's boxes itself: it must stay inside the bytes too.
      _ = try? decoder.inspect(bytes)
      do {
        let image = try decoder.decode(bytes)
        #expect(image.pixels.count == image.width * image.height * image.format.channelCount)
      } catch {
        failures += 1
      }
    }
    #expect(failures >= 20, "every truncation must fail")
  }

  /// Two findings of the HEIFDecode fuzz harness.
  ///
  /// Fuzz/Regressions/HEIFDecode/stream-larger-than-ispe.heic: a 909-byte HEIC whose `ispe` box
  /// says 64x64 and whose HEVC stream decodes to 48468x12815. libheif allocated 3.7 GB for it
  /// before the decoder capped every image of a file at its primary image's size.
  ///
  /// Fuzz/Regressions/HEIFDecode/elongated-primary.heic: the same stream behind a 131090x24
  /// primary (3 megapixels, under the fuzzer's limit), whose long side let it through a
  /// one-value size limit: 2.6 s of page faults. A side is now also capped by the pixel limit.
  @Test(arguments: ["stream-larger-than-ispe.heic", "elongated-primary.heic"])
  func aStreamLargerThanItsDeclaredSizeIsRefusedWithoutAllocatingIt(name: String) throws {
    let file = CorpusLocator.packageRoot.appendingPathComponent(
      "Fuzz/Regressions/HEIFDecode/\(name)")
    let data = try Data(contentsOf: file)
    // Before the caps, the stream decoded (gigabytes) and then failed the size check as
    // `corrupt`; now a limit refuses it first.
    let strict = ImageDecoder(options: DecodingOptions(maximumPixelCount: 4_000_000))
    for decoder in [decoder, strict] {
      let error = #expect(throws: ImageDecodingError.self) { try decoder.decode(data) }
      #expect(error?.code == .limitExceeded, "\(String(describing: error))")
    }
  }

  /// The container transform a fixture is known to carry: pillow-heif and Pillow turn an EXIF
  /// orientation N into `irot`/`imir` meaning N, `heif-enc` writes none, and the real iPhone
  /// photo is a portrait one (6).
  static func expectedContainerOrientation(_ file: String) -> ImageOrientation? {
    let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
    if let value = name.split(separator: "-").last.flatMap({ Int($0) }),
      name.hasPrefix("iphone-orientation-") || name.hasPrefix("avif-orientation-")
    {
      return ImageOrientation(rawValue: UInt8(value))
    }
    switch name {
    case "heif-enc-exif6", "photo", "alpha": return .up
    case "arrow": return .right
    default: return nil
    }
  }

  @Test func aTurnedGridReportsItsUprightSizeBeforeDecoding() throws {
    let fixture = try #require(Self.decodable.first { $0.file.hasSuffix("guitar_cw90.hif") })
    let data = try Data(contentsOf: fixture.url)
    let info = try decoder.inspect(data)
    // libheif 1.15 says 7008x4672 (the stored grid); the container turns it a quarter.
    #expect(info.containerOrientation?.swapsDimensions == true)
    #expect(info.width == fixture.width && info.height == fixture.height, "\(info)")
  }

  /// The sample difference of two images of one size and channel layout, without expanding.
  static func difference(_ image: RasterImage, _ reference: RasterImage)
    -> PixelComparison.Difference?
  {
    guard image.width == reference.width, image.height == reference.height,
      image.format == reference.format
    else { return nil }
    return PixelComparison.difference(image.pixels, reference.pixels)
  }
}
