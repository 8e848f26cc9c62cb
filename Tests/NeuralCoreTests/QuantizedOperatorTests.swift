import ModelFormats
import Testing

@testable import NeuralCore

/// Quantized operators on hand-built graphs: values at the edges of their types, and
/// parameters a hostile file could give, which must give numbers or typed errors, never a trap.
struct QuantizedOperatorTests {
  /// A graph with one float input `x` of `shape`, built by `build`, read at `y`.
  func run(
    shape: [Int], _ values: [Float], opset: Int64 = 21, _ build: (inout GraphBuilder) throws -> Void
  ) throws -> Tensor {
    var builder = GraphBuilder()
    builder.opset = opset
    try build(&builder)
    let session = try InferenceSession(
      model: builder.model(inputs: [("x", shape.map { $0 })], outputs: ["y"]))
    return try #require(try session.run(["x": Tensor(shape: shape, scalars: values)])["y"])
  }

  @Test func quantizeLinearRoundsHalfToEvenAndSaturates() throws {
    let output = try run(shape: [6], [0.5, 1.5, 2.5, -0.5, 1e30, -.infinity]) { builder in
      builder.constant("scale", try Tensor(shape: [], scalars: [1]))
      builder.initializers.append(
        ONNXTensor(name: "zero", dataType: .int8, value: .integer([0], shape: [])))
      builder.node("QuantizeLinear", ["x", "scale", "zero"], ["y"])
    }
    #expect(output.scalars == [0, 2, 2, 0, 127, -128])
  }

  @Test func aWideOutputTypeSaturatesWithoutTrapping() throws {
    // ONNX gives QuantizeLinear no int32 output; a file that asks for one gets saturation.
    let output = try run(shape: [3], [1e30, -1e30, .nan]) { builder in
      builder.constant("scale", try Tensor(shape: [], scalars: [1]))
      builder.node("QuantizeLinear", ["x", "scale"], ["y"], ["output_dtype": .int(6)])
    }
    #expect(output.scalars == [2_147_483_520, -2_147_483_648, 0])
  }

  @Test func aZeroScaleIsATypedError() {
    #expect(throws: ModelFormatsError.self) {
      _ = try run(shape: [2], [1, 2]) { builder in
        builder.constant("scale", try Tensor(shape: [], scalars: [0]))
        builder.node("QuantizeLinear", ["x", "scale"], ["y"])
      }
    }
  }

  /// A 1x1 `QLinearConv` (input scale 1, zero point `inputZero`; weight scale 1) of two output
  /// channels with the given weights and biases, on `values` (4 channels, 2 x 2).
  func deadChannelConvolution(
    _ values: [Float], inputZero: Int64, weights: [Int64], bias: [Int64], outputScale: Float,
    outputZero: Int64
  ) throws -> Tensor {
    try run(shape: [1, 4, 2, 2], values, opset: 13) { builder in
      builder.constant("xs", try Tensor(shape: [], scalars: [1]))
      builder.initializers.append(
        ONNXTensor(name: "xz", dataType: .uint8, value: .integer([inputZero], shape: [])))
      builder.node("QuantizeLinear", ["x", "xs", "xz"], ["q"])
      builder.initializers.append(
        ONNXTensor(name: "w", dataType: .int8, value: .integer(weights, shape: [2, 4, 1, 1])))
      builder.constant("ws", try Tensor(shape: [2], scalars: [1, 1]))
      builder.initializers.append(
        ONNXTensor(name: "wz", dataType: .int8, value: .integer([0, 0], shape: [2])))
      builder.constant("ys", try Tensor(shape: [], scalars: [outputScale]))
      builder.initializers.append(
        ONNXTensor(name: "yz", dataType: .uint8, value: .integer([outputZero], shape: [])))
      builder.initializers.append(
        ONNXTensor(name: "b", dataType: .int32, value: .integer(bias, shape: [2])))
      builder.node(
        "QLinearConv", ["q", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"])
    }
  }

  /// `QLinearConv`'s definition in double precision for `deadChannelConvolution`.
  func deadChannelReference(
    _ values: [Float], inputZero: Int64, weights: [Int64], bias: [Int64], outputScale: Float,
    outputZero: Int64
  ) -> [Float] {
    let quantized = values.map { min(max(Int64($0.rounded(.toNearestOrEven)) + inputZero, 0), 255) }
    return (0..<2).flatMap { output in
      (0..<4).map { position -> Float in
        var sum = bias[output]
        for channel in 0..<4 {
          sum += (quantized[channel * 4 + position] - inputZero) * weights[output * 4 + channel]
        }
        let value = (Double(sum) / Double(outputScale)).rounded(.toNearestOrEven)
        return Float(min(max(value + Double(outputZero), 0), 255))
      }
    }
  }

  @Test func aBiasPastInt32OnceFoldedGivesTheChannelsConstant() throws {
    // Channel 1 is a dead channel as quantizers write it: tiny weights' scale makes its int32
    // bias saturate, and input zero point 255 folds -255 * sum(w) on top, past int32. Its
    // output is one value for every input (79 at output scale 1e8, 0 at the clamp at scale
    // 1), which the int8 kernels give by a constant channel; channel 0 stays an ordinary one.
    let values = (0..<16).map { Float(($0 * 37) % 29) - 14 }
    for (outputScale, outputZero) in [(Float(1e8), Int64(100)), (1, 100)] {
      let weights: [Int64] = [3, -7, 12, 5, 127, 127, 127, 127]
      let bias: [Int64] = [40, Int64(Int32.min)]
      let output = try deadChannelConvolution(
        values, inputZero: 255, weights: weights, bias: bias, outputScale: outputScale,
        outputZero: outputZero)
      let expected = deadChannelReference(
        values, inputZero: 255, weights: weights, bias: bias, outputScale: outputScale,
        outputZero: outputZero)
      #expect(output.shape == [1, 2, 2, 2])
      #expect(output.scalars == expected, "scale \(outputScale): \(output.scalars)")
    }
  }
}
