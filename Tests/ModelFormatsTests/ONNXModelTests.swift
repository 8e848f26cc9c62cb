import Foundation
import ModelFormats
import NeuralCore
import Testing

@Suite struct ONNXModelTests {
  @Test(
    .requiresSharedModels(
      "onnx/efficientnet-lite0.onnx", "onnx/efficientnet-lite0.bn.onnx",
      "onnx/efficientnet-lite1.onnx"),
    arguments: [
      "efficientnet-lite0.onnx", "efficientnet-lite0.bn.onnx", "efficientnet-lite1.onnx",
    ])
  func parsesReferenceModel(_ file: String) throws {
    let path = try SharedModels.requiredPath("onnx/\(file)")
    let model = try ONNXModel(contentsOf: URL(fileURLWithPath: path))
    let graph = model.graph
    #expect(model.opsetVersion(forDomain: "") == 13)
    #expect(graph.runtimeInputs.map(\.name) == ["input"])
    #expect(graph.outputs.map(\.name) == ["logits"])
    let ops = Dictionary(grouping: graph.nodes, by: \.opType).mapValues(\.count)
    print("\(file): \(graph.nodes.count) nodes, \(graph.initializers.count) initializers, \(ops)")
    guard case .tensor(let elementType, let shape)? = graph.inputs.first?.type else {
      Issue.record("input has no tensor type")
      return
    }
    #expect(elementType == .float)
    #expect(shape?.count == 4)
    let parameters = graph.initializers.reduce(0) { $0 + $1.value.count }
    #expect(parameters > 4_000_000)
  }
}

@Test(.requiresSharedModels("onnx/efficientnet-lite0.onnx"))
func referenceModelWeightsAndConstantsDecode() throws {
  let path = try SharedModels.requiredPath("onnx/efficientnet-lite0.onnx")
  let graph = try ONNXModel(contentsOf: URL(fileURLWithPath: path)).graph
  let parameters = graph.initializers.reduce(0) { $0 + $1.value.count }
  // efficientnet-lite0.info.json: "params": 4631000.
  #expect(parameters == 4_631_000)
  let classifier = try #require(graph.initializer(named: "m._fc.weight"))
  #expect(classifier.dataType == .float)
  let weights = try classifier.floatTensor()
  #expect(weights.shape == [1000, 1280])
  // Values as printed by numpy from the same initializer.
  let expected: [Float] = [-0.045_610_44, -0.094_708_71, -0.056_841_47]
  for (value, reference) in zip(weights.scalars.prefix(3), expected) {
    #expect(abs(value - reference) < 1e-8)
  }
  let constants = graph.nodes.filter { $0.opType == "Constant" }
  let values = try constants.map { node throws -> Float in
    guard case .tensor(let tensor)? = node.attribute(named: "value") else {
      throw ModelFormatsError(.missingValue, "Constant \(node.name) has no tensor")
    }
    return try #require(try tensor.floatTensor().scalars.first)
  }
  #expect(values == [0, 6])
}

@Test func parsesModelLocalFunctions() throws {
  var bytes = ONNXFixture.model(initializer: ONNXFixture.validInitializer)
  var function = ProtobufWriter()
  function.message(25) { body in
    body.string(1, "Swish")
    body.string(10, "custom")
    body.string(4, "x")
    body.string(5, "y")
    body.string(6, "beta")
    body.message(7) { node in
      node.string(1, "x")
      node.string(2, "s")
      node.string(4, "Sigmoid")
    }
    body.message(7) { node in
      node.string(1, "x")
      node.string(1, "s")
      node.string(2, "y")
      node.string(4, "Mul")
    }
    body.message(9) {
      $0.string(1, "")
      $0.int(2, 13)
    }
  }
  bytes += function.bytes
  let model = try ONNXModel(serializedBytes: bytes)
  let swish = try #require(model.functions.first)
  #expect(swish.name == "Swish")
  #expect(swish.domain == "custom")
  #expect(swish.inputs == ["x"])
  #expect(swish.outputs == ["y"])
  #expect(swish.attributeNames == ["beta"])
  #expect(swish.nodes.map(\.opType) == ["Sigmoid", "Mul"])
  #expect(swish.opsetImports == [ONNXOperatorSetID(domain: "", version: 13)])
}
