import Foundation
import ModelFormats
import Testing

@testable import NeuralCore

/// Steps whose inputs are all constants run once while planning (as Swin's attention masks,
/// computed from shapes, do): only the steps that read the run-time input remain, with the
/// values worked out here by hand.
@Suite struct ConstantFoldingTests {
  @Test func stepsOfConstantsRunWhilePlanning() throws {
    var graph = GraphBuilder()
    graph.constant("a", try Tensor(shape: [4], scalars: [1, 2, 3, 4]))
    graph.constant("b", try Tensor(shape: [4], scalars: [1, 0, 3, 0]))
    graph.constant("minus", try Tensor(shape: [], scalars: [-100]))
    graph.constant("zero", try Tensor(shape: [], scalars: [0]))
    graph.node("Equal", ["a", "b"], ["same"])
    graph.node("Not", ["same"], ["differ"])
    graph.node("Where", ["differ", "minus", "zero"], ["mask"])
    graph.node("Add", ["x", "mask"], ["y"])
    let model = graph.model(inputs: [("x", [2, 4])], outputs: ["y"])
    let session = try InferenceSession(model: model, options: SessionOptions(threadCount: 1))
    let feeds = ["x": try Tensor(shape: [2, 4], scalars: [1, 1, 1, 1, 2, 2, 2, 2])]
    let steps = try session.profile(feeds, runs: 1).map(\.name)
    #expect(steps.count == 1, "\(steps)")
    let y = try #require(try session.run(feeds)["y"])
    #expect(y.scalars == [1, -99, 1, -99, 2, -98, 2, -98])
  }

  /// A graph output computed from constants alone is still produced.
  @Test func anOutputOfConstantsIsProduced() throws {
    var graph = GraphBuilder()
    graph.constant("a", try Tensor(shape: [3], scalars: [1, -2, 3]))
    graph.node("Relu", ["a"], ["r"])
    graph.node("Add", ["x", "r"], ["y"])
    let model = graph.model(inputs: [("x", [3])], outputs: ["y", "r"])
    let session = try InferenceSession(model: model, options: SessionOptions(threadCount: 1))
    let outputs = try session.run(["x": try Tensor(shape: [3], scalars: [1, 1, 1])])
    #expect(outputs["r"]?.scalars == [1, 0, 3])
    #expect(outputs["y"]?.scalars == [2, 1, 4])
  }

  /// An int8 product of constants: its integer sums are folded while planning, and the
  /// requantization that follows reads them as a constant (y = round(a b / 2) + 3, by hand).
  @Test func aQuantizedProductOfConstantsRequantizesTheFoldedSums() throws {
    var graph = GraphBuilder()
    func bytes(_ name: String, _ values: [Int64], _ shape: [Int]) {
      graph.initializers.append(
        ONNXTensor(name: name, dataType: .uint8, value: .integer(values, shape: shape)))
    }
    bytes("a", [1, 2, 3, 4], [2, 2])
    bytes("b", [2, 0, 1, 3], [2, 2])
    bytes("zero", [0], [])
    bytes("three", [3], [])
    graph.constant("one", try Tensor(shape: [], scalars: [1]))
    graph.constant("two", try Tensor(shape: [], scalars: [2]))
    graph.node("QLinearMatMul", ["a", "one", "zero", "b", "one", "zero", "two", "three"], ["q"])
    graph.node("DequantizeLinear", ["q", "one", "zero"], ["d"])
    graph.node("Add", ["x", "d"], ["y"])
    let model = graph.model(inputs: [("x", [2, 2])], outputs: ["y"])
    let session = try InferenceSession(model: model, options: SessionOptions(threadCount: 1))
    let y = try #require(
      try session.run(["x": try Tensor(shape: [2, 2], scalars: [0, 0, 0, 0])])["y"])
    // a b = [[4, 6], [10, 12]]; halved and shifted by the zero point 3: [[5, 6], [8, 9]].
    #expect(y.scalars == [5, 6, 8, 9])
  }
}
