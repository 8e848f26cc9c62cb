import ImagePipeline
import Testing

@Suite struct ResamplingTests {
  @Test func fiveToTwoWeightsMatchTheHandComputation() throws {
    // scale 2.5: output 0 has center 1.25, taps 0..<4 with raw weights 1 - |j - 0.75| / 2.5 =
    // 0.7, 0.9, 0.5, 0.1 (sum 2.2); output 1 mirrors it from tap 1.
    let weights = try ResamplingWeights(inputCount: 5, outputCount: 2)
    let first = try #require(weights.taps(of: 0))
    let second = try #require(weights.taps(of: 1))
    #expect(first.first == 0 && second.first == 1)
    let expected: [Float] = [7, 9, 5, 1].map { $0 / 22 }
    #expect(first.weights.count == 4 && second.weights.count == 4)
    for (actual, wanted) in zip(first.weights, expected) {
      #expect(abs(actual - wanted) < 1e-7)
    }
    for (actual, wanted) in zip(second.weights, expected.reversed()) {
      #expect(abs(actual - wanted) < 1e-7)
    }
  }

  @Test func twoToFourWeightsInterpolateLinearly() throws {
    let weights = try ResamplingWeights(inputCount: 2, outputCount: 4)
    #expect(try #require(weights.taps(of: 0)) == (0, [1]))
    #expect(try #require(weights.taps(of: 1)) == (0, [0.75, 0.25]))
    #expect(try #require(weights.taps(of: 2)) == (0, [0.25, 0.75]))
    #expect(try #require(weights.taps(of: 3)) == (1, [1]))
    #expect(weights.taps(of: 4) == nil && weights.taps(of: -1) == nil)
  }

  @Test(arguments: [(0, 4), (4, 0), (-1, 4), (4, 16_777_217)])
  func countsOutsideTheLimitsThrow(_ sizes: (Int, Int)) {
    #expect(throws: ImageDecodingError.self) {
      try ResamplingWeights(inputCount: sizes.0, outputCount: sizes.1)
    }
  }

  @Test func fiveToTwoRowResamplesAsComputedByHand() throws {
    let row: [UInt8] = [0, 22, 44, 66, 220]
    let image = try RasterImage(width: 5, height: 1, format: .gray, pixels: row)
    let input = try ModelInputSpec(width: 2, height: 1, cropAndScale: .scaleFill)
      .tensor(from: image)
    // (7 * 0 + 9 * 22 + 5 * 44 + 1 * 66) / 22 = 22 and (1 * 22 + 5 * 44 + 9 * 66 + 7 * 220) / 22.
    let expected: [Float] = [22, (22 + 220 + 594 + 1540) / 22]
    for plane in 0..<3 {
      for x in 0..<2 {
        #expect(abs(input.tensor.values[plane * 2 + x] - expected[x]) < 1e-4)
      }
    }
  }

  @Test(arguments: [
    (1, 1), (1, 7), (7, 1), (5, 2), (2, 5), (224, 224), (451, 224), (3024, 224),
    (13, 12), (100, 99), (4032, 240),
  ])
  func weightsAreNonNegativeInsideTheInputAndSumToOne(_ sizes: (Int, Int)) throws {
    let weights = try ResamplingWeights(inputCount: sizes.0, outputCount: sizes.1)
    for output in 0..<sizes.1 {
      let taps = try #require(weights.taps(of: output))
      #expect(taps.first >= 0 && taps.first + taps.weights.count <= sizes.0)
      #expect(!taps.weights.isEmpty && taps.weights.allSatisfy { $0 >= 0 })
      #expect(abs(taps.weights.reduce(0, +) - 1) < 1e-5, "output \(output)")
    }
  }

  @Test(arguments: [1, 2, 3, 17, 224])
  func sameSizeWeightsAreTheIdentity(_ count: Int) throws {
    let weights = try ResamplingWeights(inputCount: count, outputCount: count)
    for output in 0..<count {
      let taps = try #require(weights.taps(of: output))
      #expect(taps.first == output)
      #expect(taps.weights.first == 1 && taps.weights.dropFirst().allSatisfy { $0 == 0 })
    }
  }

  @Test(arguments: PixelFormat.allCases)
  func sameSizeResamplingIsTheIdentity(_ format: PixelFormat) throws {
    let opaque = try SyntheticImage.make(width: 9, height: 7, format: .rgb)
    let source = try RasterImage(
      width: 9, height: 7, format: format,
      pixels: (0..<(63 * format.channelCount)).map { index in
        // Opaque alpha so that compositing leaves colors unchanged.
        format.hasAlpha && index % format.channelCount == format.channelCount - 1
          ? 255 : UInt8(truncatingIfNeeded: index * 7 + 3)
      })
    let spec = ModelInputSpec(width: 9, height: 7, cropAndScale: .scaleFill)
    #expect(try spec.picture(from: opaque).image == opaque)
    let picture = try spec.picture(from: source).image
    for y in 0..<7 {
      for x in 0..<9 {
        let samples = SyntheticImage.samples(source, x: x, y: y)
        let color =
          format.channelCount >= 3 ? Array(samples[0..<3]) : Array(repeating: samples[0], count: 3)
        #expect(SyntheticImage.samples(picture, x: x, y: y) == color)
      }
    }
  }

  @Test(arguments: [
    (37, 23, 5, 9), (5, 3, 40, 31), (640, 427, 224, 224), (7, 300, 3, 3), (1, 1, 7, 5),
  ])
  func constantImagesStayConstant(_ sizes: (Int, Int, Int, Int)) throws {
    let (width, height, outputWidth, outputHeight) = sizes
    let color: [UInt8] = [201, 17, 99]
    let pixels = (0..<(width * height)).flatMap { _ in color }
    let image = try RasterImage(width: width, height: height, format: .rgb, pixels: pixels)
    for mode in [CropAndScale.scaleFill, .centerCrop, .scaleFillRotate90CCW] {
      let input = try ModelInputSpec(
        width: outputWidth, height: outputHeight, cropAndScale: mode
      ).tensor(from: image)
      let plane = outputWidth * outputHeight
      for (channel, level) in [Float(201), 17, 99].enumerated() {
        let values = input.tensor.values[(channel * plane)..<((channel + 1) * plane)]
        #expect(values.allSatisfy { abs($0 - level) < 1e-3 }, "\(mode) channel \(channel)")
      }
    }
  }

  @Test func tallSourcesAreResampledInBandsThatCoverEveryRow() throws {
    // 1 x 8000 to 800 x 80 needs 8000 resampled rows of 2400 floats, over one band's budget.
    let pixels = (0..<8000).map { UInt8($0 / 100) }
    let image = try RasterImage(width: 1, height: 8000, format: .gray, pixels: pixels)
    let spec = ModelInputSpec(width: 800, height: 80, cropAndScale: .scaleFill)
    let values = try spec.tensor(from: image).tensor.values
    // Output row y covers source rows 100y - 50 ..< 100y + 150 with weights symmetric about its
    // own run of level y, so inner rows are exactly their level up to float rounding.
    for y in 1..<79 {
      let row = values[(y * 800)..<((y + 1) * 800)]
      #expect(row.allSatisfy { abs($0 - Float(y)) < 1e-3 }, "row \(y)")
    }
  }
}

@Suite struct ResamplerReferenceTests {
  @Test(
    arguments: PixelFormat.allCases,
    [(37, 23, 10, 7), (23, 37, 5, 11), (8, 6, 19, 13), (101, 3, 9, 2)])
  func fastPassesMatchTheScalarReference(
    _ format: PixelFormat, _ sizes: (Int, Int, Int, Int)
  ) throws {
    let (width, height, outputWidth, outputHeight) = sizes
    let count = width * height * format.channelCount
    var state: UInt32 = 2_463_534_242
    let pixels = (0..<count).map { _ in
      state ^= state << 13
      state ^= state >> 17
      state ^= state << 5
      return UInt8(truncatingIfNeeded: state)
    }
    let image = try RasterImage(width: width, height: height, format: format, pixels: pixels)
    let background = RGBColor(red: 250, green: 10, blue: 128)
    let spec = ModelInputSpec(
      width: outputWidth, height: outputHeight, cropAndScale: .scaleFill,
      alphaBackground: background)
    let values = try spec.tensor(from: image).tensor.values
    let reference = ReferenceResampler.resample(
      image, width: outputWidth, height: outputHeight, background: [250, 10, 128])
    let plane = outputWidth * outputHeight
    var worst = 0.0
    for pixel in 0..<plane {
      for channel in 0..<3 {
        let difference = abs(
          Double(values[channel * plane + pixel]) - reference[pixel * 3 + channel])
        worst = max(worst, difference)
      }
    }
    #expect(worst < 1e-3, "\(format) \(sizes): worst difference \(worst)")
  }
}
