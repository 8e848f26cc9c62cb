import Foundation
import ModelFormats
import NeuralCore
import Testing

/// `ModelFormatsError`: a damaged file is the module's own error, and an engine refusal of what
/// a file describes keeps the engine's error as `underlying`.
struct ModelFormatsErrorTests {
  /// A model whose `Add` reads `a` of `[2, 3]` and `b` of `[4, 5]`, which do not broadcast.
  static func mismatchedAdd() -> ONNXModel {
    ONNXModel(
      irVersion: 8, opsetImports: [ONNXOperatorSetID(domain: "", version: 13)],
      producerName: "tests", producerVersion: "1", domain: "", modelVersion: 1,
      graph: ONNXGraph(
        name: "g",
        nodes: [
          ONNXNode(
            name: "add", opType: "Add", domain: "", inputs: ["a", "b"], outputs: ["y"],
            attributes: [])
        ], initializers: [],
        inputs: [
          ONNXValueInfo(
            name: "a", type: .tensor(elementType: .float, shape: [.value(2), .value(3)])),
          ONNXValueInfo(
            name: "b", type: .tensor(elementType: .float, shape: [.value(4), .value(5)])),
        ], outputs: [ONNXValueInfo(name: "y", type: nil)], valueInfo: []))
  }

  @Test func aTruncatedONNXFileIsMalformed() throws {
    let bytes = try Self.mismatchedAdd().serializedBytes()
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("truncated-\(UUID().uuidString).onnx")
    try Data(bytes.prefix(bytes.count - 7)).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let error = try #require(throws: ModelFormatsError.self) {
      try ONNXModel(contentsOf: url)
    }
    #expect(error.code == .malformedFile, "\(error)")
    #expect(error.underlying == nil)
  }

  @Test func aPlanningFailureKeepsTheEnginesError() throws {
    let model = try ONNXModel(serializedBytes: Self.mismatchedAdd().serializedBytes())
    let error = try #require(throws: ModelFormatsError.self) {
      try InferenceSession(model: model)
    }
    #expect(error.code == .invalidGraph, "\(error)")
    let underlying = try #require(error.underlying as? NeuralCoreError)
    #expect(underlying.code == .shapeMismatch, "\(underlying)")
    #expect(error.message == underlying.message)
    #expect("\(error)" == "invalidGraph: \(underlying.message) (\(underlying))")
  }

  @Test func anInvalidGraphFromAFileIsMalformed() throws {
    var model = Self.mismatchedAdd()
    model.graph.nodes = [
      ONNXNode(
        name: "first", opType: "Relu", domain: "", inputs: ["z"], outputs: ["y"], attributes: []),
      ONNXNode(
        name: "second", opType: "Relu", domain: "", inputs: ["y"], outputs: ["z"], attributes: []),
    ]
    let error = try #require(throws: ModelFormatsError.self) {
      try InferenceSession(model: model)
    }
    #expect(error.code == .malformedFile, "\(error)")
    #expect((error.underlying as? NeuralCoreError)?.code == .invalidGraph)
  }

  @Test func codeDescriptionsAreTheirNames() {
    let codes: [(ModelFormatsError.Code, String)] = [
      (.malformedFile, "malformedFile"), (.unsupported, "unsupported"),
      (.limitExceeded, "limitExceeded"), (.io, "io"), (.missingValue, "missingValue"),
      (.invalidGraph, "invalidGraph"), (.invalidArgument, "invalidArgument"),
    ]
    for (code, name) in codes {
      #expect("\(code)" == name)
    }
    #expect(Set(codes.map(\.0)).count == codes.count)
    #expect("\(ModelFormatsError(.io, "disk full"))" == "io: disk full")
  }
}
