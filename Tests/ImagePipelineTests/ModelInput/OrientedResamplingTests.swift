import ImagePipeline
import Testing

/// The pipeline resamples stored pixels and turns only the small result; that must equal turning
/// the whole image first and resampling the upright picture.
@Suite struct OrientedResamplingTests {
  @Test(arguments: ImageOrientation.allCases, [PixelFormat.rgb, .rgba, .gray, .grayAlpha])
  func resamplingBeforeTurningEqualsTurningFirst(
    _ orientation: ImageOrientation, _ format: PixelFormat
  ) throws {
    var state: UInt32 = 88_172_645
    let count = 53 * 31 * format.channelCount
    let pixels = (0..<count).map { _ in
      state ^= state << 13
      state ^= state >> 17
      state ^= state << 5
      return UInt8(truncatingIfNeeded: state)
    }
    let image = try RasterImage(
      width: 53, height: 31, format: format, pixels: pixels, orientation: orientation)
    let upright = image.oriented()
    let specs = [
      ModelInputSpec(width: 11, height: 7, cropAndScale: .centerCrop),
      ModelInputSpec(width: 16, height: 16, cropAndScale: .scaleFit, padColor: .white),
      ModelInputSpec(width: 9, height: 13, cropAndScale: .scaleFill),
      ModelInputSpec.efficientNetLite(size: 12),
      ModelInputSpec(
        width: 8, height: 5, cropAndScale: .centerCrop(fraction: 0.8),
        regionOfInterest: NormalizedRect(x: 0.1, y: 0.3, width: 0.7, height: 0.6)),
      ModelInputSpec(width: 70, height: 40, cropAndScale: .scaleFill),
    ]
    for spec in specs {
      let direct = try spec.tensor(from: image)
      let turnedFirst = try spec.tensor(from: upright)
      #expect(direct.provenance.cropRect == turnedFirst.provenance.cropRect)
      #expect(direct.provenance.orientation == orientation)
      let difference =
        zip(direct.tensor.values, turnedFirst.tensor.values)
        .map { abs($0 - $1) }.max() ?? 1
      #expect(difference < 1e-3, "\(spec.cropAndScale) \(spec.width)x\(spec.height)")
    }
  }
}
