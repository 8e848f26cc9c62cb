import Foundation
import ModelFormats
import Testing

@testable import NeuralCore

/// `Mul(x, Sigmoid(x))` (SiLU as PyTorch exports it) and `Mul(x, HardSigmoid(x))` with alpha 1/6
/// and beta 1/2 (hard-swish before opset 14) fuse into the convolution computing `x`, on the
/// blocked path (pointwise, 21 channels: padding lanes) and the NCHW one (a grouped 3x3), and
/// give the values of the scalar reference convolution with SiLU or hard-swish.
@Suite struct GatedActivationFusionTests {
  static let shape = [1, 12, 5, 7]
  static let outputs = 21

  /// `Conv` then `gate(x)` times `x`; a second graph output reading `x` when `exposeConvolution`.
  static func model(
    gate: String, attributes: [String: ONNXAttributeValue] = [:], grouped: Bool,
    exposeConvolution: Bool = false
  ) throws -> ONNXModel {
    let (groups, kernel) = grouped ? (3, 3) : (1, 1)
    var graph = GraphBuilder()
    graph.constant(
      "w",
      try Tensor(shape: [outputs, shape[1] / groups, kernel, kernel], scalars: weights(grouped)))
    graph.constant("b", try Tensor(shape: [outputs], scalars: bias))
    let pad = Int64(kernel / 2)
    let convolution: [String: ONNXAttributeValue] = [
      "kernel_shape": .ints([Int64(kernel), Int64(kernel)]), "group": .int(Int64(groups)),
      "pads": .ints([pad, pad, pad, pad]),
    ]
    graph.node("Conv", ["x", "w", "b"], ["c"], convolution)
    graph.node(gate, ["c"], ["g"], attributes)
    graph.node("Mul", ["c", "g"], ["y"])
    return graph.model(
      inputs: [("x", shape)], outputs: exposeConvolution ? ["y", "c"] : ["y"])
  }

  static func weights(_ grouped: Bool) -> [Float] {
    let count = outputs * shape[1] / (grouped ? 3 : 1) * (grouped ? 9 : 1)
    return (0..<count).map { Float(($0 * 29) % 17) / 17 - 0.5 }
  }

  static let bias: [Float] = (0..<outputs).map { Float($0 % 5) / 4 - 0.5 }

  /// The input: values over -3...3, where the gates are far from saturated.
  static let input: [Float] = (0..<shape.reduce(1, *)).map { Float(($0 * 37) % 101) / 17 - 3 }

  /// Runs the model; the step names of its plan and its output `y`.
  static func run(_ model: ONNXModel) throws -> (names: [String], y: [Float]) {
    let session = try InferenceSession(model: model, options: SessionOptions(threadCount: 2))
    let feeds = ["x": try Tensor(shape: shape, scalars: input)]
    let names = try session.profile(feeds, runs: 1).map(\.name)
    let y = try #require(try session.run(feeds)["y"])
    return (names, y.scalars)
  }

  @Test(arguments: [
    ("Sigmoid", false), ("Sigmoid", true), ("HardSigmoid", false), ("HardSigmoid", true),
  ])
  func gateFusesIntoTheConvolution(gate: String, grouped: Bool) throws {
    let attributes: [String: ONNXAttributeValue] =
      gate == "HardSigmoid" ? ["alpha": .float(1 / 6), "beta": .float(0.5)] : [:]
    let fused = try Self.run(Self.model(gate: gate, attributes: attributes, grouped: grouped))
    #expect(!fused.names.contains { $0.contains("Mul") || $0.contains(gate) }, "\(fused.names)")
    // The same graph with the convolution's output also exposed keeps every node.
    let unfused = try Self.run(
      Self.model(gate: gate, attributes: attributes, grouped: grouped, exposeConvolution: true))
    #expect(unfused.names.count == fused.names.count + 2, "\(unfused.names)")
    let pad = grouped ? 1 : 0
    let expected = Convolution.reference(
      input: Self.input, batch: 1, inputChannels: Self.shape[1], height: Self.shape[2],
      width: Self.shape[3], weights: Self.weights(grouped), bias: Self.bias,
      outputChannels: Self.outputs, groups: grouped ? 3 : 1,
      window: Window(
        kernelHeight: 1 + 2 * pad, kernelWidth: 1 + 2 * pad, padTop: pad, padLeft: pad,
        padBottom: pad, padRight: pad),
      activation: gate == "Sigmoid" ? .silu : .hardSwish)
    for y in [fused.y, unfused.y] {
      #expect(relativeMismatch(y, expected) == nil, "\(gate) grouped \(grouped)")
    }
  }

  @Test func hardSigmoidWithOtherParametersIsNotAGate() throws {
    let model = try Self.model(
      gate: "HardSigmoid", attributes: ["alpha": .float(0.2), "beta": .float(0.5)], grouped: false)
    let run = try Self.run(model)
    #expect(run.names.contains { $0.contains("Mul") }, "\(run.names)")
  }
}
