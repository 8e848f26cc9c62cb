import Testing

@testable import ImagePipeline

/// Safe API cannot make the pointer code read or write outside a buffer (issue 15).
///
/// `image.pixels = [1, 2, 3]` once made `tensor(from:)` read past the pixels; it no longer
/// compiles (Scripts/check-immutable-storage.sh checks that), so these tests pin down the rest:
/// every way to make an image checks its size, and the checks behind the pointer boundaries hold.
@Suite struct MemorySafetyTests {
  private static func image(
    width: Int = 7, height: Int = 5, format: PixelFormat = .rgb
  ) throws -> RasterImage {
    let count = width * height * format.channelCount
    return try RasterImage(
      width: width, height: height, format: format,
      pixels: (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37) })
  }

  @Test func imagesWhosePixelsDoNotFillThemCannotBeMade() {
    for (width, height, count) in [(2, 2, 3), (2, 2, 13), (1, 1, 0), (0, 4, 0), (Int.max, 2, 3)] {
      #expect(throws: ImageDecodingError.self, "\(width)x\(height) with \(count) bytes") {
        try RasterImage(
          width: width, height: height, format: .rgb, pixels: [UInt8](repeating: 0, count: count))
      }
    }
  }

  @Test func theCheckBehindTheEncodersRefusesInconsistentSizes() throws {
    // The encoders hand `pixels.baseAddress` and the size to C; this is the check they run first.
    #expect(throws: ImageDecodingError.self) {
      try RasterImage.checkByteCount(3, width: 2, height: 2, format: .rgb)
    }
    #expect(throws: ImageDecodingError.self) {
      try RasterImage.checkByteCount(8, width: Int.max / 2, height: 4, format: .rgba)
    }
    #expect(throws: ImageDecodingError.self) {
      try RasterImage.checkByteCount(0, width: 0, height: 0, format: .gray)
    }
    try RasterImage.checkByteCount(12, width: 2, height: 2, format: .rgb)
    #expect(try Self.image().hasConsistentStorage)
  }

  @Test(arguments: [PixelFormat.gray, .grayAlpha, .rgb, .rgba])
  func everyDerivedImageKeepsItsStorageConsistent(format: PixelFormat) throws {
    var image = try Self.image(format: format)
    image.orientation = .rightMirrored
    let derived = [
      image, image.oriented(), try image.cropped(to: PixelRect(x: 1, y: 2, width: 3, height: 2)),
      try ImageDecoder().decode(PNGEncoder().encode(image)),
    ]
    for image in derived {
      #expect(image.hasConsistentStorage)
      #expect(image.pixels.count == image.height * image.bytesPerRow)
    }
  }

  @Test func settingTheOrientationStillFeedsTheModelInput() throws {
    // The old failure went through tensor(from:); with the orientation changed in place (the
    // one mutation left) it must read exactly the pixels the image has.
    var image = try Self.image(width: 9, height: 4)
    for orientation in ImageOrientation.allCases {
      image.orientation = orientation
      let input = try ModelInputSpec.efficientNetLite(size: 6).tensor(from: image)
      #expect(input.tensor.shape == [1, 3, 6, 6])
      #expect(input.tensor.values.allSatisfy { $0.isFinite })
    }
  }

  @Test func encodersRoundTripTheImagesTheyAreGiven() throws {
    let image = try Self.image(width: 16, height: 8)
    #expect(try ImageDecoder().decode(PNGEncoder().encode(image)) == image)
    let jpeg = try ImageDecoder().decode(JPEGEncoder(quality: 100).encode(image))
    #expect((jpeg.width, jpeg.height, jpeg.format) == (16, 8, .rgb))
    #expect(PPMEncoder().encode(image).count == "P6\n16 8\n255\n".utf8.count + 16 * 8 * 3)
  }

  @Test func resamplingTapsStayInsideTheInput() throws {
    for inputCount in 1...40 {
      for outputCount in 1...40 {
        let weights = try ResamplingWeights(inputCount: inputCount, outputCount: outputCount)
        for output in 0..<outputCount {
          let (first, taps) = try #require(weights.taps(of: output))
          #expect(first >= 0 && !taps.isEmpty && first + taps.count <= inputCount)
        }
      }
    }
  }

  @Test func resamplingIntoATooSmallCanvasStopsInsteadOfWritingPastIt() async {
    await #expect(processExitsWith: .failure) {
      guard
        let image = try? RasterImage(
          width: 4, height: 4, format: .rgb, pixels: [UInt8](repeating: 9, count: 48))
      else { return }
      // Room for 2x2 RGB pixels, asked to fill 4x4.
      var canvas = [Float](repeating: 0, count: 2 * 2 * 3)
      Resampler.resample(
        image, rect: PixelRect(width: 4, height: 4), into: &canvas, canvasWidth: 4,
        target: PixelRect(width: 4, height: 4), background: .zero)
    }
  }
}
