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
    #expect(throws: NeuralCoreError.self) {
      _ = try run(shape: [2], [1, 2]) { builder in
        builder.constant("scale", try Tensor(shape: [], scalars: [0]))
        builder.node("QuantizeLinear", ["x", "scale"], ["y"])
      }
    }
  }

  @Test func aBiasThatOverflowsOnceFoldedStillRuns() throws {
    // Input zero point 255 with all-127 weights folds -255 * 127 * 4 into a bias of Int32.min:
    // past int32, so the convolution leaves the int8 kernels for the exact float path.
    let output = try run(shape: [1, 4, 2, 2], [Float](repeating: 0, count: 16), opset: 13) {
      builder in
      builder.constant("xs", try Tensor(shape: [], scalars: [1]))
      builder.initializers.append(
        ONNXTensor(name: "xz", dataType: .uint8, value: .integer([255], shape: [])))
      builder.node("QuantizeLinear", ["x", "xs", "xz"], ["q"])
      builder.initializers.append(
        ONNXTensor(
          name: "w", dataType: .int8,
          value: .integer([Int64](repeating: 127, count: 4), shape: [1, 4, 1, 1])))
      builder.constant("ws", try Tensor(shape: [1], scalars: [1]))
      builder.initializers.append(
        ONNXTensor(name: "wz", dataType: .int8, value: .integer([0], shape: [1])))
      builder.constant("ys", try Tensor(shape: [], scalars: [1e9]))
      builder.initializers.append(
        ONNXTensor(name: "yz", dataType: .uint8, value: .integer([0], shape: [])))
      builder.initializers.append(
        ONNXTensor(
          name: "b", dataType: .int32, value: .integer([Int64(Int32.min)], shape: [1])))
      builder.node(
        "QLinearConv", ["q", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"])
    }
    #expect(output.shape == [1, 1, 2, 2])
    #expect(output.scalars.allSatisfy { $0 >= 0 && $0 <= 255 })
  }
}
