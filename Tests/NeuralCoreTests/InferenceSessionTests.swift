import ModelFormats
import TestSupport
import Testing

@testable import NeuralCore

@Suite struct InferenceSessionTests {
  @Test func unsupportedOperatorIsALoadErrorNamingNodeAndOperator() throws {
    var builder = GraphBuilder()
    builder.node("LSTM", ["x"], ["y"])
    do {
      _ = try InferenceSession(model: builder.model(inputs: [("x", [1, 4])], outputs: ["y"]))
      Issue.record("LSTM must be refused")
    } catch {
      #expect(error.code == .unsupported)
      #expect(error.message.contains("LSTM_0") && error.message.contains("(LSTM)"))
    }
  }

  @Test func unsupportedAttributeIsALoadError() throws {
    var builder = GraphBuilder()
    builder.node("Relu", ["x"], ["y"], ["flavour": .int(1)])
    #expect(throws: ModelFormatsError.self) {
      try InferenceSession(model: builder.model(inputs: [("x", [1, 4])], outputs: ["y"]))
    }
  }

  @Test func absurdShapesAreRefusedBeforeAllocating() throws {
    var builder = GraphBuilder()
    builder.integers("pads", [0, 1 << 20, 0, 1 << 20])
    builder.node("Pad", ["x", "pads"], ["y"])
    let session = try InferenceSession(
      model: builder.model(inputs: [("x", [nil, 4])], outputs: ["y"]))
    do {
      _ = try session.run(["x": Tensor(repeating: 1, shape: [1 << 10, 4])])
      Issue.record("a 2^31-element output must be refused")
    } catch {
      #expect(error.code == .limitExceeded)
    }
  }

  @Test func cyclesAreMalformed() throws {
    var builder = GraphBuilder()
    builder.node("Relu", ["b"], ["a"])
    builder.node("Relu", ["a"], ["b"])
    do {
      _ = try InferenceSession(model: builder.model(inputs: [], outputs: ["a"]))
      Issue.record("a cycle must be refused")
    } catch {
      #expect(error.code == .malformedFile)
    }
  }

  @Test func missingAndMisshapenInputsAreRefused() throws {
    var builder = GraphBuilder()
    builder.node("Relu", ["x"], ["y"])
    let session = try InferenceSession(
      model: builder.model(inputs: [("x", [nil, 4])], outputs: ["y"]))
    #expect(session.inputs == [TensorDescription(name: "x", shape: [nil, 4])])
    #expect(throws: NeuralCoreError.self) { try session.run([:]) }
    #expect(throws: NeuralCoreError.self) {
      try session.run(["x": Tensor(repeating: 1, shape: [2, 5])])
    }
  }

  /// PyTorch exports `x.view(x.size(0), -1)` as Shape, Gather, Unsqueeze, Concat, Reshape.
  @Test func shapeArithmeticFoldsForEveryBatchSize() throws {
    var builder = GraphBuilder()
    builder.integers("zero", [0])
    builder.integers("minusOne", [-1])
    builder.node("Shape", ["x"], ["shape"])
    builder.node("Gather", ["shape", "zero"], ["batch"], ["axis": .int(0)])
    builder.node("Concat", ["batch", "minusOne"], ["target"], ["axis": .int(0)])
    builder.node("Reshape", ["x", "target"], ["flat"])
    builder.node("Softmax", ["flat"], ["y"], ["axis": .int(1)])
    let session = try InferenceSession(
      model: builder.model(inputs: [("x", [nil, 2, 3])], outputs: ["y"]),
      options: SessionOptions(threadCount: 2))
    for batch in [1, 4, 2] {
      var generator = SeededGenerator(seed: UInt64(batch))
      let input = try Tensor(shape: [batch, 2, 3], scalars: generator.floats(batch * 6))
      let output = try #require(try session.run(["x": input])["y"])
      #expect(output.shape == [batch, 6])
      let expected = Softmax.reference(input: input.scalars, outer: batch, length: 6, inner: 1)
      #expect(relativeMismatch(output.scalars, expected) == nil)
    }
  }

  @Test func concurrentRunsAgree() async throws {
    var builder = GraphBuilder()
    var generator = SeededGenerator(seed: 31)
    builder.constant("w", try Tensor(shape: [6, 3, 3, 3], scalars: generator.floats(162)))
    builder.node("Conv", ["x", "w"], ["c"], ["pads": .ints([1, 1, 1, 1])])
    builder.node("Relu", ["c"], ["y"])
    let session = try InferenceSession(
      model: builder.model(inputs: [("x", [1, 3, 9, 9])], outputs: ["y"]))
    let input = try Tensor(shape: [1, 3, 9, 9], scalars: generator.floats(243))
    let expected = try session.run(["x": input])
    try await withThrowingTaskGroup(of: [String: Tensor].self) { group in
      for _ in 0..<8 { group.addTask { try session.run(["x": input]) } }
      for try await result in group { #expect(result == expected) }
    }
  }

  @Test func buffersAreReusedAfterTheirLastReader() {
    let noop: @Sendable ([UnsafePointer<Float>], [UnsafeMutablePointer<Float>], Int) -> Void = {
      _, _, _ in
    }
    // A chain 0 -> 1 -> 2 -> 3 -> 4 of equal buffers needs two live buffers at a time.
    let steps = (0..<4).map {
      ExecutionPlan.Step(name: "s\($0)", inputs: [.buffer($0)], outputs: [$0 + 1], execute: noop)
    }
    let assignment = ExecutionPlan.assignOffsets(
      sizes: [Int](repeating: 64, count: 5), steps: steps, inputs: [0], keep: [4])
    #expect(assignment.arenaSize == 128)
    for step in steps {
      guard case .buffer(let input) = step.inputs[0] else { continue }
      #expect(assignment.offsets[input] != assignment.offsets[step.outputs[0]])
    }
  }
}
