import ModelFormats
import Testing

@testable import NeuralCore
@testable import NeuralLayers

/// Safe API cannot make a run read or write outside the arena (issue 15).
///
/// Appending to `tensor.scalars` once let a feed overrun its input buffer, because only the shape
/// was checked; it no longer compiles (Scripts/check-immutable-storage.sh checks that), so these
/// tests pin down the rest: no tensor disagrees with its shape, and a run checks counts itself.
@Suite struct MemorySafetyTests {
  private static func reluSession() throws -> InferenceSession {
    var builder = GraphBuilder()
    builder.node("Relu", ["x"], ["y"])
    return try InferenceSession(model: builder.model(inputs: [("x", [nil, 4])], outputs: ["y"]))
  }

  @Test func tensorsWhoseScalarsDoNotFillTheShapeCannotBeMade() {
    for (shape, count) in [([2, 3], 5), ([2, 3], 7), ([4], 0), ([], 2), ([2, -3], 6)] {
      do {
        _ = try Tensor(shape: shape, scalars: [Float](repeating: 1, count: count))
        Issue.record("shape \(shape) with \(count) scalars must be refused")
      } catch {
        #expect(error.code == .shapeMismatch)
      }
    }
    #expect(throws: NeuralCoreError.self) { try Tensor(repeating: 0, shape: [Int.max, 2]) }
  }

  @Test func aRunRefusesAFeedOfTheWrongShapeWithATypedError() throws {
    let session = try Self.reluSession()
    for shape in [[1, 5], [2, 3], [4], [1, 4, 1]] {
      do {
        _ = try session.run(["x": Tensor(repeating: 1, shape: shape)])
        Issue.record("shape \(shape) must be refused")
      } catch {
        #expect(error.code == .shapeMismatch)
      }
    }
    do {
      _ = try session.run(["other": Tensor(repeating: 1, shape: [1, 4])])
      Issue.record("a missing input must be refused")
    } catch {
      #expect(error.code == .missingValue)
    }
  }

  @Test func runsAfterARefusedFeedStillGiveTheRightAnswer() throws {
    let session = try Self.reluSession()
    #expect(throws: NeuralCoreError.self) {
      try session.run(["x": Tensor(repeating: 1, shape: [1, 400])])
    }
    let input = try Tensor(shape: [2, 4], scalars: [-1, 2, -3, 4, 5, -6, 7, -8])
    let output = try #require(try session.run(["x": input])["y"])
    #expect(output == (try Tensor(shape: [2, 4], scalars: [0, 2, 0, 4, 5, 0, 7, 0])))
  }

  @Test func thePlanChecksElementCountsNotOnlyTheSessionsShapeCheck() throws {
    // Below InferenceSession's shape check: a plan given a feed that does not fill its input
    // buffer (or none at all) throws instead of copying past or leaving the buffer unset.
    var builder = GraphBuilder()
    builder.node("Relu", ["x"], ["y"])
    let model = builder.model(inputs: [("x", [1, 4])], outputs: ["y"])
    let graph = try ImportedGraph(graph: Graph(model))
    var planner = try PlanBuilder(graph: graph, inputShapes: ["x": [1, 4]])
    let plan = try planner.build()
    var arena: [Float] = []
    for shape in [[1, 5], [1, 3], [2, 4]] {
      do {
        _ = try plan.run(["x": Tensor(repeating: 1, shape: shape)], arena: &arena, threads: 1)
        Issue.record("a feed of shape \(shape) must be refused by the plan")
      } catch {
        #expect(error.code == .shapeMismatch)
      }
    }
    do {
      _ = try plan.run([:], arena: &arena, threads: 1)
      Issue.record("a missing feed must be refused by the plan")
    } catch {
      #expect(error.code == .missingValue)
    }
    let output = try plan.run(
      ["x": Tensor(shape: [1, 4], scalars: [-1, 1, -2, 2])], arena: &arena, threads: 1)
    #expect(output["y"] == (try Tensor(shape: [1, 4], scalars: [0, 1, 0, 2])))
  }

  @Test func residualAddsWithoutMutatingItsInput() throws {
    let input = try Tensor(shape: [1, 2, 1, 2], scalars: [-1, 2, -3, 4])
    let output = try Residual(ActivationLayer(.relu)).forward(input, threadCount: 1)
    #expect(output == (try Tensor(shape: [1, 2, 1, 2], scalars: [-1, 4, -3, 8])))
    #expect(input.scalars == [-1, 2, -3, 4])
    #expect(throws: NeuralCoreError.self) {
      try Residual(Flatten()).forward(input, threadCount: 1)
    }
  }
}
