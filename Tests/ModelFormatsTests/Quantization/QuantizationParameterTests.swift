import ModelFormats
import NeuralCore
import Testing

/// The scale and zero-point arithmetic of `AffineQuantization` and `ChannelQuantizedWeights`,
/// checked against values worked out by hand (ONNX Runtime's formulas).
struct QuantizationParameterTests {
  @Test func uint8ParametersHoldZeroExactly() {
    let mixed = AffineQuantization(uint8Range: -1...3)
    #expect(mixed.scale == Float(4) / 255)
    // -(-1) / (4 / 255) = 63.75 rounds to 64.
    #expect(mixed.zeroPoint == 64)
    #expect(mixed.quantize(0) == 64)
    #expect(mixed.dequantize(64) == 0)
    #expect(mixed.quantize(100) == 255)
    #expect(mixed.quantize(-100) == 0)

    let positive = AffineQuantization(uint8Range: 0.5...2)
    #expect(positive.scale == Float(2) / 255)
    #expect(positive.zeroPoint == 0)
    #expect(positive.representableRange == 0...2)

    let zero = AffineQuantization(uint8Range: 0...0)
    #expect(zero.scale == 1)
    #expect(zero.zeroPoint == 0)
  }

  /// Rows of `[2, 3]` along axis 0: `max |w| / 127` per row; an all-zero row gets scale 1.
  @Test func convolutionStyleWeightsPerRow() throws {
    let weights = try Tensor(shape: [2, 3], scalars: [0.5, -1.27, 0.2, 0, 0, 0])
    let quantized = ChannelQuantizedWeights(weights, axis: 0)
    #expect(quantized.scales == [Float(1.27) / 127, 1])
    #expect(quantized.values == [50, -127, 20, 0, 0, 0])
    #expect(quantized.shape == [2, 3])
    for (value, original) in zip(quantized.dequantized, weights.scalars) {
      #expect(abs(value - original) <= quantized.scales[0] / 2)
    }
  }

  /// Columns of a `MatMul` weight `[K, N]` along axis 1; halves round to even.
  @Test func matrixWeightsPerColumn() throws {
    let weights = try Tensor(shape: [2, 2], scalars: [1, -2, 0.5, 4])
    let quantized = ChannelQuantizedWeights(weights, axis: 1)
    #expect(quantized.scales == [Float(1) / 127, Float(4) / 127])
    // -2 / (4 / 127) = -63.5 and 0.5 / (1 / 127) = 63.5 round to even: -64 and 64.
    #expect(quantized.values == [127, -64, 64, 127])
  }

  /// Bias scale `input scale * weight scale[c]`, zero point 0.
  @Test func biasScalesFollowTheInputAndEachChannel() throws {
    let weights = try Tensor(shape: [2, 1], scalars: [1.27, -127])
    let quantized = ChannelQuantizedWeights(weights, axis: 0)
    let first = Float(1.27) / 127
    #expect(quantized.scales == [first, 1])
    let bias = quantized.quantizedBias([0.3, -0.25], inputScale: 0.1)
    #expect(bias.scales == [first * 0.1, 0.1])
    // 0.3 / 0.001 is 300; -0.25 / 0.1 is -2.5 (a hair under in float32), -2.
    #expect(bias.values == [300, -2])
  }

  /// Bias correction: on an input whose every position holds its channel's mean, a layer with
  /// the int8 weights and the corrected bias gives the float layer's output, for a grouped
  /// convolution weight `[out, in / groups, kh, kw]`, a `Gemm` weight `[N, K]` and a matrix
  /// `[K, N]` (sums worked out here with plain loops).
  @Test func biasCorrectionRestoresTheMeanOutput() throws {
    var generator = SystemRandomNumberGenerator()
    let means: [Float] = (0..<4).map { _ in Float.random(in: -2...3, using: &generator) }
    func weights(_ shape: [Int]) throws -> Tensor {
      try Tensor(
        shape: shape,
        scalars: (0..<shape.reduce(1, *)).map { _ in Float.random(in: -1...1, using: &generator) })
    }
    // [out 6, in 2 per group (2 groups), 3 x 1]: output o reads input channels of group o / 3.
    let convolution = try weights([6, 2, 3, 1])
    let convolutionSum = { (values: [Float], output: Int) -> Double in
      var sum = 0.0
      for input in 0..<2 {
        for tap in 0..<3 {
          let mean = Double(means[(output / 3) * 2 + input])
          sum += Double(values[(output * 2 + input) * 3 + tap]) * mean
        }
      }
      return sum
    }
    let gemm = try weights([5, 4])
    let gemmSum = { (values: [Float], output: Int) -> Double in
      (0..<4).reduce(0.0) { $0 + Double(values[output * 4 + $1]) * Double(means[$1]) }
    }
    let matrix = try weights([4, 5])
    let matrixSum = { (values: [Float], output: Int) -> Double in
      (0..<4).reduce(0.0) { $0 + Double(values[$1 * 5 + output]) * Double(means[$1]) }
    }
    let cases: [(Tensor, Int, Int, ([Float], Int) -> Double)] = [
      (convolution, 0, 6, convolutionSum), (gemm, 0, 5, gemmSum), (matrix, 1, 5, matrixSum),
    ]
    for (original, axis, outputs, sum) in cases {
      let quantized = ChannelQuantizedWeights(original, axis: axis)
      let correction = try #require(
        quantized.biasCorrection(from: original, inputMeans: means))
      #expect(correction.count == outputs)
      for output in 0..<outputs {
        let float = sum(original.scalars, output)
        let int8 = sum(quantized.dequantized, output) + Double(correction[output])
        #expect(abs(float - int8) < 1e-5, "axis \(axis), output \(output)")
      }
    }
    let wrongMeans = [Float](repeating: 1, count: 3)
    #expect(
      ChannelQuantizedWeights(convolution, axis: 0).biasCorrection(
        from: convolution, inputMeans: wrongMeans) == nil)
  }
}
