import ImagePipeline
import Testing

@Suite struct ModelInputSpecTests {
  private func onePixel(_ format: PixelFormat, _ samples: [UInt8]) throws -> RasterImage {
    try RasterImage(width: 1, height: 1, format: format, pixels: samples)
  }

  @Test func tensorIsNCHWWithFusedNormalization() throws {
    let image = try RasterImage(
      width: 2, height: 1, format: .rgb, pixels: [10, 20, 30, 255, 127, 0])
    let spec = ModelInputSpec(
      width: 2, height: 1, cropAndScale: .scaleFill, normalization: .efficientNetLite)
    let input = try spec.tensor(from: image)
    #expect(input.tensor.shape == [1, 3, 1, 2])
    let expected: [Float] = [10, 255, 20, 127, 30, 0].map { ($0 - 127) / 128 }
    #expect(input.tensor.values == expected)
  }

  @Test func bgrReversesThePlanesButNormalizesByColor() throws {
    let image = try onePixel(.rgb, [10, 20, 30])
    let normalization = PixelNormalization(
      mean: SIMD3(1, 2, 3), standardDeviation: SIMD3(1, 2, 4))
    let spec = ModelInputSpec(
      width: 1, height: 1, normalization: normalization, channelOrder: .bgr)
    let values = try spec.tensor(from: image).tensor.values
    let expected: [Float] = [27 / 4, 18 / 2, 9 / 1]
    #expect(values == expected)
  }

  @Test func presetsMapLevelsAsDocumented() {
    let level = SIMD3<Float>(0, 127, 255)
    #expect(level * PixelNormalization.identity.scale + PixelNormalization.identity.bias == level)
    let unit = level * PixelNormalization.unitRange.scale + PixelNormalization.unitRange.bias
    #expect(abs(unit.x) < 1e-7 && abs(unit.y - 127 / 255) < 1e-7 && abs(unit.z - 1) < 1e-7)
    let imageNet = PixelNormalization.imageNet
    let white = SIMD3<Float>(repeating: 255) * imageNet.scale + imageNet.bias
    let expectedWhite =
      (SIMD3<Float>(1, 1, 1) - SIMD3(0.485, 0.456, 0.406))
      / SIMD3(0.229, 0.224, 0.225)
    for channel in 0..<3 {
      #expect(abs(white[channel] - expectedWhite[channel]) < 1e-5)
    }
  }

  @Test func grayIsWidenedToThreeEqualPlanes() throws {
    let image = try RasterImage(width: 2, height: 2, format: .gray, pixels: [0, 50, 100, 250])
    let values = try ModelInputSpec(width: 2, height: 2).tensor(from: image).tensor.values
    #expect(values == [0, 50, 100, 250, 0, 50, 100, 250, 0, 50, 100, 250])
  }

  @Test func alphaIsCompositedOverBlackByDefault() throws {
    let spec = ModelInputSpec(width: 1, height: 1)
    let transparent = try spec.tensor(from: onePixel(.rgba, [200, 100, 50, 0])).tensor.values
    #expect(transparent == [0, 0, 0])
    let opaque = try spec.tensor(from: onePixel(.rgba, [200, 100, 50, 255])).tensor.values
    #expect(zip(opaque, [200, 100, 50] as [Float]).allSatisfy { abs($0 - $1) < 1e-3 })
    // Alpha 51 is 20 %: 0.2 * color + 0.8 * background.
    let partial = try spec.tensor(from: onePixel(.rgba, [200, 100, 50, 51])).tensor.values
    #expect(zip(partial, [40, 20, 10] as [Float]).allSatisfy { abs($0 - $1) < 1e-3 })
    var overWhite = spec
    overWhite.alphaBackground = .white
    let light = try overWhite.tensor(from: onePixel(.rgba, [200, 100, 50, 51])).tensor.values
    #expect(zip(light, [244, 224, 214] as [Float]).allSatisfy { abs($0 - $1) < 1e-3 })
    let grayAlpha = try overWhite.tensor(from: onePixel(.grayAlpha, [100, 51])).tensor.values
    #expect(grayAlpha.allSatisfy { abs($0 - 224) < 1e-3 })
  }

  @Test func compositingWhileResamplingEqualsCompositingFirst() throws {
    let width = 11
    let height = 7
    let rgba = (0..<(width * height * 4)).map { UInt8(truncatingIfNeeded: $0 * 37 + $0 / 5) }
    let background = RGBColor(red: 30, green: 200, blue: 90)
    var composited = [UInt8]()
    var compositedFloats = [Float]()
    for pixel in 0..<(width * height) {
      let alpha = Float(rgba[pixel * 4 + 3]) / 255
      for (channel, level) in [background.red, background.green, background.blue].enumerated() {
        let value = alpha * Float(rgba[pixel * 4 + channel]) + (1 - alpha) * Float(level)
        compositedFloats.append(value)
        composited.append(UInt8(value.rounded()))
      }
    }
    let spec = ModelInputSpec(
      width: 4, height: 3, cropAndScale: .scaleFill, alphaBackground: background)
    let direct = try spec.tensor(
      from: RasterImage(width: width, height: height, format: .rgba, pixels: rgba))
    // Resampling is linear, so resampling the exact composite gives the same values; the 8-bit
    // composite differs by at most half a level.
    let viaComposite = try spec.tensor(
      from: RasterImage(width: width, height: height, format: .rgb, pixels: composited))
    let difference =
      zip(direct.tensor.values, viaComposite.tensor.values)
      .map { abs($0 - $1) }.max() ?? 0
    #expect(difference <= 0.5 + 1e-3)
    #expect(compositedFloats.count == width * height * 3)
  }

  @Test func pictureIsTheRoundedTensorBeforeNormalization() throws {
    let image = try SyntheticImage.make(width: 13, height: 9, format: .rgb, orientation: .right)
    var spec = ModelInputSpec(width: 5, height: 4, cropAndScale: .centerCrop)
    let picture = try spec.picture(from: image)
    spec.normalization = .unitRange
    let input = try spec.tensor(from: image)
    #expect(picture.image.format == .rgb && picture.image.orientation == .up)
    #expect(picture.image.width == 5 && picture.image.height == 4)
    #expect(picture.provenance == input.provenance)
    for y in 0..<4 {
      for x in 0..<5 {
        for channel in 0..<3 {
          let level = input.tensor.values[channel * 20 + y * 5 + x] * 255
          let rounded = picture.image.pixels[(y * 5 + x) * 3 + channel]
          #expect(abs(Float(rounded) - level) <= 0.5 + 1e-3)
        }
      }
    }
  }

  @Test func provenanceRecordsSourceAndOrientation() throws {
    let image = try SyntheticImage.make(width: 451, height: 300, format: .gray, orientation: .left)
    let input = try ModelInputSpec.efficientNetLite(size: 224).tensor(from: image, orientation: .up)
    let provenance = input.provenance
    #expect(provenance.sourceWidth == 451 && provenance.sourceHeight == 300)
    #expect(provenance.orientation == .up)
    #expect(provenance.orientedWidth == 451 && provenance.orientedHeight == 300)
    #expect(provenance.cropRect == PixelRect(x: 95, y: 19, width: 262, height: 262))
    let turned = try ModelInputSpec.efficientNetLite(size: 224).tensor(from: image)
    #expect(turned.provenance.orientation == .left)
    #expect(turned.provenance.orientedWidth == 300 && turned.provenance.orientedHeight == 451)
    #expect(turned.provenance.cropRect == PixelRect(x: 19, y: 95, width: 262, height: 262))
  }

  @Test func rejectsInvalidSpecifications() throws {
    let image = try SyntheticImage.make(width: 4, height: 4)
    var specs = [
      ModelInputSpec(size: 0), ModelInputSpec(size: -3),
      ModelInputSpec(width: 16_385, height: 1), ModelInputSpec(width: 4096, height: 2048),
      ModelInputSpec(size: 4, cropAndScale: .centerCrop(fraction: 0)),
      ModelInputSpec(
        size: 4, normalization: PixelNormalization(scale: SIMD3(1, 0, 1), bias: .zero)),
    ]
    specs.append(
      ModelInputSpec(
        width: 4, height: 4, regionOfInterest: NormalizedRect(x: 0.5, y: 0, width: 1, height: 1)))
    for spec in specs {
      let error = #expect(throws: ImageDecodingError.self) { try spec.tensor(from: image) }
      #expect(error?.code == .invalidArgument)
      #expect(throws: ImageDecodingError.self) { try spec.picture(from: image) }
    }
  }

  @Test func tensorRejectsInconsistentShapes() {
    #expect(throws: ImageDecodingError.self) { try ImageTensor(shape: [1, 3, 2], values: [0]) }
    #expect(throws: ImageDecodingError.self) {
      try ImageTensor(shape: [1, 3, 1, 1], values: [0, 1])
    }
    #expect(throws: ImageDecodingError.self) {
      try ImageTensor(shape: [1, 3, 1 << 40, 1 << 40], values: [0])
    }
    #expect(throws: Never.self) { try ImageTensor(shape: [1, 3, 1, 1], values: [0, 1, 2]) }
  }
}
