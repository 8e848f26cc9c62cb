import ModelFormats
import Testing

@testable import NeuralCore

/// A float convolution's blocked output quantized straight into the int8 channels-last layout
/// (a QDQ model whose first layer stays in float32, as `quantize` keeps the stem), against the
/// convolution and `QuantizeLinear` computed here by their definitions.
@Suite struct BlockedQuantizationTests {
  static let (channels, size) = (20, 9)

  func model(weights: [Float]) throws -> ONNXModel {
    var builder = GraphBuilder()
    builder.constant("w", try Tensor(shape: [Self.channels, 3, 3, 3], scalars: weights))
    builder.constant("s", try Tensor(shape: [], scalars: [0.05]))
    builder.initializers.append(
      ONNXTensor(name: "z", dataType: .uint8, value: .integer([10], shape: [])))
    builder.node(
      "Conv", ["x", "w"], ["c"], ["kernel_shape": .ints([3, 3]), "pads": .ints([1, 1, 1, 1])])
    builder.node("QuantizeLinear", ["c", "s", "z"], ["q"])
    // An identity 1x1 QLinearConv reads the quantized image from the channels-last layout.
    let identity = (0..<(Self.channels * Self.channels)).map {
      Int64($0 / Self.channels == $0 % Self.channels ? 1 : 0)
    }
    builder.initializers.append(
      ONNXTensor(
        name: "i", dataType: .int8,
        value: .integer(identity, shape: [Self.channels, Self.channels, 1, 1])))
    builder.constant("is", try Tensor(shape: [], scalars: [1]))
    builder.initializers.append(
      ONNXTensor(name: "iz", dataType: .int8, value: .integer([0], shape: [])))
    builder.node("QLinearConv", ["q", "s", "z", "i", "is", "iz", "s", "z"], ["r"])
    builder.node("DequantizeLinear", ["r", "s", "z"], ["y"])
    return builder.model(
      inputs: [("x", [1, 3, Self.size, Self.size])], outputs: ["y"])
  }

  @Test func aBlockedFloatImageQuantizesAsItsDefinitionSays() throws {
    let plane = Self.size * Self.size
    let x = (0..<(3 * plane)).map { Float(($0 * 53) % 97) / 40 - 1.2 }
    let weights = (0..<(Self.channels * 27)).map { Float(($0 * 31) % 23) / 30 - 0.35 }
    var expected = [Float](repeating: 0, count: Self.channels * plane)
    for output in 0..<Self.channels {
      for row in 0..<Self.size {
        for column in 0..<Self.size {
          var sum: Double = 0
          for input in 0..<3 {
            for ky in 0..<3 {
              for kx in 0..<3 {
                let (y, x0) = (row + ky - 1, column + kx - 1)
                guard y >= 0, y < Self.size, x0 >= 0, x0 < Self.size else { continue }
                sum +=
                  Double(x[input * plane + y * Self.size + x0])
                  * Double(weights[((output * 3 + input) * 3 + ky) * 3 + kx])
              }
            }
          }
          let stored = min(max((sum / 0.05).rounded(.toNearestOrEven) + 10, 0), 255)
          expected[output * plane + row * Self.size + column] = Float((stored - 10) * 0.05)
        }
      }
    }
    for kernels in KernelSet.underTest {
      let session = try InferenceSession(
        graph: Graph(try model(weights: weights)), options: SessionOptions(threadCount: 2),
        kernels: kernels)
      let output = try #require(
        try session.run(["x": Tensor(shape: [1, 3, Self.size, Self.size], scalars: x)])["y"])
      let steps = zip(output.scalars, expected).map { abs($0 - $1) / 0.05 }
      // A float sum a rounding away from a tie may land on the other side: at most one step.
      #expect(steps.allSatisfy { $0 <= 1.01 }, "\(kernels): \(steps.max() ?? 0) steps")
      #expect(steps.filter { $0 > 0.5 }.count <= 4, "\(kernels)")
    }
  }
}
