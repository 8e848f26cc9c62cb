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
}
