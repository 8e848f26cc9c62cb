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
}
