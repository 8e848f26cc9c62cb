import Foundation
import ModelFormats
import Testing

@testable import NeuralCore

/// GELU as PyTorch exports it before opset 20 (`Mul(Mul(x, Add(Erf(Div(x, sqrt 2)), 1)), 0.5)`)
/// becomes one step, with the values of `x * Phi(x)` computed here in Double; a graph that also
/// reads an intermediate keeps every node.
@Suite struct GELUFusionTests {
  static let shape = [2, 3, 37]

  static func model(swapped: Bool, exposeErf: Bool = false) throws -> ONNXModel {
    var graph = GraphBuilder()
    graph.constant("root2", try Tensor(shape: [], scalars: [Float(2).squareRoot()]))
    graph.constant("one", try Tensor(shape: [], scalars: [1]))
    graph.constant("half", try Tensor(shape: [], scalars: [0.5]))
    graph.node("Div", ["x", "root2"], ["d"])
    graph.node("Erf", ["d"], ["e"])
    graph.node("Add", swapped ? ["one", "e"] : ["e", "one"], ["a"])
    graph.node("Mul", swapped ? ["a", "x"] : ["x", "a"], ["m"])
    graph.node("Mul", swapped ? ["half", "m"] : ["m", "half"], ["y"])
    return graph.model(inputs: [("x", shape)], outputs: exposeErf ? ["y", "e"] : ["y"])
  }

  static let input: [Float] = (0..<shape.reduce(1, *)).map { Float(($0 * 53) % 97) / 12 - 4 }

  static func run(_ model: ONNXModel) throws -> (names: [String], y: [Float]) {
    let session = try InferenceSession(model: model, options: SessionOptions(threadCount: 1))
    let feeds = ["x": try Tensor(shape: shape, scalars: input)]
    let names = try session.profile(feeds, runs: 1).map(\.name)
    return (names, try #require(try session.run(feeds)["y"]).scalars)
  }

  @Test(arguments: [false, true])
  func erfFormBecomesOneStep(swapped: Bool) throws {
    let expected = Self.input.map { x in
      Float(0.5 * Double(x) * (1 + Foundation.erf(Double(x) / 2.0.squareRoot())))
    }
    let fused = try Self.run(Self.model(swapped: swapped))
    #expect(fused.names.count == 1, "\(fused.names)")
    let unfused = try Self.run(Self.model(swapped: swapped, exposeErf: true))
    #expect(unfused.names.count == 5, "\(unfused.names)")
    for y in [fused.y, unfused.y] {
      let worst = zip(y, expected).map { abs($0 - $1) }.max() ?? .nan
      #expect(worst <= 1e-6, "swapped \(swapped): \(worst)")
    }
  }
}
