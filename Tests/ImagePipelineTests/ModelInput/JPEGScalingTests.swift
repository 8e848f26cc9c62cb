import Foundation
import ImagePipeline
import Testing

/// DCT-domain reduced decoding for model inputs: the reduction picked from the target size and
/// the input it gives, compared with the exact full-size input of the same JPEG.
@Suite struct JPEGScalingTests {
  /// A smooth but lopsided 803 x 601 picture (odd sizes, so reduced sizes round up), encoded at
  /// quality 95: smooth enough that the reduced decode stays close to the exact one, lopsided
  /// enough that a mirrored, turned or shifted crop would not.
  static let jpeg: [UInt8] = {
    let width = 803
    let height = 601
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
      for x in 0..<width {
        let red = 128 + 90 * sin(2 * Double.pi * Double(x) / 150)
        let green = 128 + 90 * sin(2 * Double.pi * Double(y) / 110)
        let blue = 128 + 60 * sin(2 * Double.pi * Double(x + 2 * y) / 230) + Double(x) / 20
        let pixel = (y * width + x) * 3
        pixels[pixel] = UInt8(red.rounded())
        pixels[pixel + 1] = UInt8(green.rounded())
        pixels[pixel + 2] = UInt8(min(blue, 255).rounded())
      }
    }
    let image = try? RasterImage(width: width, height: height, format: .rgb, pixels: pixels)
    return image.flatMap { try? JPEGEncoder(quality: 95).encode($0) } ?? []
  }()

  /// Levels 0...255 throughout, so one tolerance fits all; a crop one reduced pixel off would
  /// differ by about 30 levels where the pattern is steepest.
  static let specs = [
    ModelInputSpec(size: 56, cropAndScale: .centerCrop(fraction: 56.0 / 88)),
    ModelInputSpec(width: 48, height: 40, cropAndScale: .scaleFit, padColor: .white),
    ModelInputSpec(width: 60, height: 36, cropAndScale: .scaleFill),
    ModelInputSpec(width: 50, height: 50, cropAndScale: .scaleFitRotate90CCW),
    ModelInputSpec(width: 40, height: 64, cropAndScale: .scaleFillRotate90CCW),
    ModelInputSpec(
      width: 40, height: 30, cropAndScale: .centerCrop(fraction: 0.9),
      regionOfInterest: NormalizedRect(x: 0.13, y: 0.21, width: 0.6, height: 0.55)),
  ]

  @Test(arguments: ImageOrientation.allCases)
  func reducedInputMatchesTheExactOne(_ orientation: ImageOrientation) throws {
    let decoder = ImageDecoder()
    let info = try decoder.inspect(Self.jpeg)
    let full = try decoder.decode(Self.jpeg)
    for spec in Self.specs {
      let scale = try spec.jpegScale(for: info, orientation: orientation)
      #expect(scale != .full, "\(spec.cropAndScale) should allow a reduction")
      var options = DecodingOptions()
      options.jpegScale = scale
      let reduced = try ImageDecoder(options: options).decode(Self.jpeg)
      let fast = try spec.tensor(
        from: reduced, orientation: orientation, decodedAt: scale, storedWidth: info.width,
        storedHeight: info.height)
      let exact = try spec.tensor(from: full, orientation: orientation)
      #expect(fast.provenance.cropRect == exact.provenance.cropRect)
      #expect(fast.provenance.regionOfInterest == exact.provenance.regionOfInterest)
      #expect(fast.provenance.layout == exact.provenance.layout)
      #expect(fast.provenance.sourceWidth == info.width)
      #expect(fast.provenance.jpegScale == scale)
      #expect(exact.provenance.jpegScale == .full)
      let differences = zip(fast.tensor.values, exact.tensor.values).map { abs($0 - $1) }
      let mean = differences.reduce(0, +) / Float(differences.count)
      let worst = differences.max() ?? .infinity
      #expect(
        mean < 1.2 && worst < 7,
        "\(orientation) \(spec.cropAndScale) at 1/\(scale.denominator): mean \(mean), max \(worst)")
    }
  }

  @Test func reductionFollowsTheCropThatTheInputNeeds() throws {
    func info(_ width: Int, _ height: Int, _ format: ImageFormat = .jpeg) -> ImageInfo {
      ImageInfo(
        format: format, width: width, height: height, pixelFormat: .rgb, bitDepth: 8,
        orientation: .right)
    }
    let lite = ModelInputSpec.efficientNetLite(size: 224)
    // 12 MP: the 2646-pixel crop of the shorter side is still 330 pixels at 1/8.
    #expect(try lite.jpegScale(for: info(4032, 3024)) == .eighth)
    // 1080p: the 945-pixel crop is 236 pixels at 1/4 but only 118 at 1/8.
    #expect(try lite.jpegScale(for: info(1920, 1080)) == .quarter)
    #expect(try lite.jpegScale(for: info(600, 400)) == .full)
    #expect(try lite.jpegScale(for: info(4032, 3024, .png)) == .full)
    // Fill needs both sides: 1080 >= 4 * 224 but not 8 * 224.
    let fill = ModelInputSpec(width: 224, height: 224, cropAndScale: .scaleFill)
    #expect(try fill.jpegScale(for: info(1920, 1080)) == .quarter)
    // Fit needs the scaled content only: 224 x 126 from 1920 x 1080 allows 1/8.
    let fit = ModelInputSpec(width: 224, height: 224, cropAndScale: .scaleFit)
    #expect(try fit.jpegScale(for: info(1920, 1080)) == .eighth)
    // A quarter of a 12 MP photo as region of interest: the 756-pixel side allows only 1/2.
    var region = ModelInputSpec(width: 224, height: 224)
    region.regionOfInterest = NormalizedRect(x: 0, y: 0, width: 0.25, height: 0.25)
    #expect(try region.jpegScale(for: info(4032, 3024)) == .half)
    // A wide input: orientation 6 turns 4032 x 3024 to 3024 x 4032, so fill to 900 x 200 needs
    // 3024 >= 900 * d (1/2); upright, 4032 >= 900 * d allows 1/4.
    let wide = ModelInputSpec(width: 900, height: 200, cropAndScale: .scaleFill)
    #expect(try wide.jpegScale(for: info(4032, 3024)) == .half)
    #expect(try wide.jpegScale(for: info(4032, 3024), orientation: .up) == .quarter)
  }

  @Test func encodedEntryPointPicksTheReductionItself() throws {
    let spec = ModelInputSpec.efficientNetLite(size: 56)
    let automatic = try spec.tensor(fromEncoded: Data(Self.jpeg))
    let exact = try spec.tensor(fromEncoded: Data(Self.jpeg), jpegScaling: .exact)
    // The 382-pixel crop (56 / 88 of 601) is 95 pixels at 1/4, 47 at 1/8.
    #expect(automatic.provenance.jpegScale == .quarter)
    #expect(exact.provenance.jpegScale == .full)
    #expect(exact == (try spec.tensor(from: ImageDecoder().decode(Self.jpeg))))
    #expect(automatic.provenance.cropRect == exact.provenance.cropRect)
  }

  @Test func aWronglySizedImageIsRefused() throws {
    let image = try RasterImage(
      width: 10, height: 10, format: .rgb, pixels: [UInt8](repeating: 0, count: 300))
    #expect {
      try ModelInputSpec(size: 4).tensor(
        from: image, decodedAt: .quarter, storedWidth: 80, storedHeight: 40)
    } throws: { error in
      (error as? ImageDecodingError)?.code == .invalidArgument
    }
  }
}
