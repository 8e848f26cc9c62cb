import Foundation
import ModelFormats
import Testing

@testable import NeuralCore

/// A QDQ squeeze-excitation block with SiLU, as ONNX Runtime's `quantize_static` writes it,
/// against the ONNX definitions of its nodes computed here one value at a time.
///
/// The SiLU region (`DequantizeLinear`, `Sigmoid`, `QuantizeLinear`, `DequantizeLinear`, `Mul`,
/// `QuantizeLinear`) and the gate's sigmoid become table lookups, and the gate's product a
/// per-channel scaling of the channels-last bytes.
@Suite struct QuantizedLookupTests {
  static let (channels, height, width) = (20, 5, 6)
  /// Scales and zero points: the input, the sigmoid, the SiLU, the pool, the gate, the output.
  static let scales: [Float] = [0.031, 1 / 255, 0.027, 0.011, 1 / 256, 0.019]
  static let zeros: [Int64] = [3, 0, -10, -5, 0, 2]
  static let types: [ONNXDataType] = [.int8, .uint8, .int8, .int8, .uint8, .int8]

  func model() throws -> ONNXModel {
    var builder = GraphBuilder()
    for index in 0..<6 {
      builder.constant("s\(index)", try Tensor(shape: [], scalars: [Self.scales[index]]))
      builder.initializers.append(
        ONNXTensor(
          name: "z\(index)", dataType: Self.types[index],
          value: .integer([Self.zeros[index]], shape: [])))
    }
    let quantize = { (builder: inout GraphBuilder, input: String, index: Int, output: String) in
      builder.node("QuantizeLinear", [input, "s\(index)", "z\(index)"], [output])
    }
    let dequantize = { (builder: inout GraphBuilder, input: String, index: Int, output: String) in
      builder.node("DequantizeLinear", [input, "s\(index)", "z\(index)"], [output])
    }
    quantize(&builder, "x", 0, "q0")
    dequantize(&builder, "q0", 0, "a")
    builder.node("Sigmoid", ["a"], ["sigmoid"])
    quantize(&builder, "sigmoid", 1, "qs")
    dequantize(&builder, "qs", 1, "ds")
    builder.node("Mul", ["a", "ds"], ["silu"])
    quantize(&builder, "silu", 2, "q1")
    dequantize(&builder, "q1", 2, "d1")
    builder.node("GlobalAveragePool", ["d1"], ["pooled"])
    quantize(&builder, "pooled", 3, "qp")
    dequantize(&builder, "qp", 3, "dp")
    builder.node("Sigmoid", ["dp"], ["gate"])
    quantize(&builder, "gate", 4, "qg")
    dequantize(&builder, "qg", 4, "dg")
    dequantize(&builder, "q1", 2, "d1b")
    builder.node("Mul", ["d1b", "dg"], ["scaled"])
    quantize(&builder, "scaled", 5, "q2")
    dequantize(&builder, "q2", 5, "y")
    return builder.model(
      inputs: [("x", [1, Self.channels, Self.height, Self.width])], outputs: ["y"])
  }

  /// `QuantizeLinear` by its definition: divide, round half to even, add, saturate.
  static func quantize(_ value: Float, _ index: Int) -> Float {
    let range: ClosedRange<Float> = types[index] == .int8 ? -128...127 : 0...255
    let stored = (value / scales[index]).rounded(.toNearestOrEven) + Float(zeros[index])
    return min(max(stored, range.lowerBound), range.upperBound)
  }

  static func dequantize(_ stored: Float, _ index: Int) -> Float {
    (stored - Float(zeros[index])) * scales[index]
  }

  static func sigmoid(_ value: Float) -> Float { 1 / (1 + exp(-value)) }

  /// The block by the nodes' definitions.
  static func reference(_ x: [Float]) -> [Float] {
    let positions = height * width
    let silu = x.map { value -> Float in
      let a = dequantize(quantize(value, 0), 0)
      return quantize(a * dequantize(quantize(sigmoid(a), 1), 1), 2)
    }
    var output = [Float](repeating: 0, count: x.count)
    for channel in 0..<channels {
      let plane = silu[(channel * positions)..<((channel + 1) * positions)]
      let mean = plane.map { dequantize($0, 2) }.reduce(0, +) / Float(positions)
      let gate = dequantize(quantize(sigmoid(dequantize(quantize(mean, 3), 3)), 4), 4)
      for position in 0..<positions {
        let index = channel * positions + position
        output[index] = dequantize(quantize(dequantize(silu[index], 2) * gate, 5), 5)
      }
    }
    return output
  }

  @Test func theRegionsBecomeLookupsAndMatchTheDefinitions() throws {
    let count = Self.channels * Self.height * Self.width
    var seed: UInt64 = 0x5EED
    let x = (0..<count).map { _ -> Float in
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Float(Int(seed >> 40) % 1000 - 500) / 100
    }
    for kernels in KernelSet.underTest {
      let session = try InferenceSession(
        graph: Graph(try model()), options: SessionOptions(threadCount: 2), kernels: kernels)
      let operators = session.imported.nodes.map(\.source.operatorName)
      #expect(operators.filter { $0 == ImportedGraph.lookupOperator }.count == 2, "\(operators)")
      #expect(operators.contains("QLinearMul"), "\(operators)")
      #expect(!operators.contains("Sigmoid"), "\(operators)")
      let output = try #require(
        try session.run([
          "x": Tensor(shape: [1, Self.channels, Self.height, Self.width], scalars: x)
        ])["y"])
      let expected = Self.reference(x)
      let steps = zip(output.scalars, expected).map { abs($0 - $1) / Self.scales[5] }
      // Each node's float result may differ from Foundation's in the last bit, which can move
      // a rounding tie by one step.
      #expect(steps.allSatisfy { $0 <= 1.01 }, "\(kernels): \(steps.max() ?? 0) steps")
      #expect(steps.filter { $0 > 0.5 }.count <= count / 50, "\(kernels)")
    }
  }
}
