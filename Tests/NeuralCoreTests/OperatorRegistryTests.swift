import ModelFormats
import Testing

@testable import NeuralCore

/// The operator registry: lookups by domain, name and opset, the refusals they give, and
/// `CumSum`, added through it, checked against sums worked out by hand.
struct OperatorRegistryTests {
  func session(opset: Int64 = 13, _ build: (inout GraphBuilder) -> Void) throws
    -> InferenceSession
  {
    var builder = GraphBuilder()
    builder.opset = opset
    build(&builder)
    return try InferenceSession(model: builder.model(inputs: [("x", [2, 3])], outputs: ["y"]))
  }

  /// The engine's error under the `ModelFormatsError` that loading the model threw, if any.
  func refusal(_ body: () throws -> InferenceSession) -> NeuralCoreError? {
    do {
      _ = try body()
      return nil
    } catch {
      return (error as? ModelFormatsError)?.underlying as? NeuralCoreError
    }
  }

  @Test func everyOperatorHasOneEntryPerOpset() {
    for (key, entries) in OperatorRegistry.entries {
      for version in 1...30 {
        #expect(
          entries.filter { $0.opsets.contains(version) }.count <= 1, "\(key.name) at \(version)")
      }
    }
    #expect(InferenceSession.supportedOperators.isSuperset(of: ["Conv", "CumSum", "Constant"]))
  }

  @Test func anUnknownOperatorIsRefusedWithItsDomainAndName() throws {
    let error = try #require(refusal { try session { $0.node("Foo", ["x"], ["y"]) } })
    #expect(error.code == .unsupported)
    #expect(error.message.contains("operator 'Foo' of domain 'ai.onnx' is not supported"))
    #expect(error.message.contains("(Foo)"))
  }

  @Test func anOperatorOutsideItsOpsetsIsRefused() throws {
    let error = try #require(refusal { try session { $0.node("Gelu", ["x"], ["y"]) } })
    #expect(error.code == .unsupported)
    #expect(error.message.contains("at opset 13"))
    #expect(error.message.contains("opset 20 and later"))
    #expect(try session(opset: 20) { $0.node("Gelu", ["x"], ["y"]) }.outputs.count == 1)
  }

  @Test func anAttributeTheEntryDoesNotListIsRefused() throws {
    let error = try #require(
      refusal { try session { $0.node("Relu", ["x"], ["y"], ["alpha": .float(1)]) } })
    #expect(error.code == .unsupported)
    #expect(error.message.contains("attribute 'alpha'"))
  }

  @Test(
    arguments: [
      (1, 0, 0, [1, 3, 6, 4, 9, 15]), (1, 1, 0, [0, 1, 3, 0, 4, 9]),
      (1, 0, 1, [6, 5, 3, 15, 11, 6]), (1, 1, 1, [5, 3, 0, 11, 6, 0]),
      (0, 0, 0, [1, 2, 3, 5, 7, 9]), (-2, 1, 1, [4, 5, 6, 0, 0, 0]),
    ] as [(Int64, Int64, Int64, [Float])])
  func cumulativeSumsMatchAHandComputation(
    axis: Int64, exclusive: Int64, reverse: Int64, expected: [Float]
  ) throws {
    let model = try session {
      $0.integers("axis", [axis], shape: [])
      $0.node(
        "CumSum", ["x", "axis"], ["y"],
        ["exclusive": .int(exclusive), "reverse": .int(reverse)])
    }
    let x = try Tensor(shape: [2, 3], scalars: [1, 2, 3, 4, 5, 6])
    let y = try #require(try model.run(["x": x])["y"])
    #expect(y.shape == [2, 3])
    #expect(y.scalars == expected)
  }

  @Test func cumulativeSumsOfIntegerConstantsAreFolded() throws {
    let model = try session {
      $0.integers("values", [1, -2, 3, 7])
      $0.integers("axis", [-1])
      $0.node("CumSum", ["values", "axis"], ["sums"], ["exclusive": .int(1)])
      $0.node("Cast", ["sums"], ["y"], ["to": .int(1)])
    }
    let x = try Tensor(shape: [2, 3], scalars: [Float](repeating: 0, count: 6))
    let y = try #require(try model.run(["x": x])["y"])
    #expect(y.scalars == [0, 1, -1, 2])
  }

  @Test func cumulativeSumNeedsOneConstantAxis() {
    #expect(throws: ModelFormatsError.self) {
      try session {
        $0.integers("axes", [0, 1])
        $0.node("CumSum", ["x", "axes"], ["y"])
      }
    }
  }
}
