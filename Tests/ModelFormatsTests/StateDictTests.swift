import Foundation
import ModelFormats
import NeuralCore
import Testing

@Suite struct StateDictTests {
  private func checkFixture(_ stateDict: StateDict) throws {
    #expect(
      stateDict.names == ["conv.weight", "conv.bias", "bn.num_batches_tracked", "tail", "half"])
    #expect(
      try stateDict.tensor(named: "conv.weight")
        == Tensor(shape: [2, 3], scalars: [0, 1, 2, 3, 4, 5]))
    #expect(stateDict["conv.bias"]?.scalars == [0.5, -0.25, 8])
    #expect(
      try stateDict.tensor(named: "bn.num_batches_tracked") == Tensor(shape: [], scalars: [7]))
    #expect(try stateDict.tensor(named: "tail") == Tensor(shape: [2, 1], scalars: [4, 5]))
    #expect(stateDict["half"]?.scalars == [1.5, -2])
    #expect(
      stateDict.entries.map(\.elementType) == [.float32, .float32, .int64, .float32, .float16])
    expectModelFormatsError(.missingValue) { _ = try stateDict.tensor(named: "absent") }
  }

  @Test func readsLegacyLayout() throws {
    try checkFixture(StateDict(serializedBytes: CheckpointFixture.legacy()))
  }

  @Test func readsZipLayout() throws {
    try checkFixture(StateDict(serializedBytes: CheckpointFixture.zip()))
  }

  @Test func refusesHostileGlobals() {
    for global in ["os\nsystem", "builtins\neval", "posix\nsystem", "subprocess\nPopen"] {
      expectModelFormatsError(.unsupported, global) {
        _ = try StateDict(serializedBytes: CheckpointFixture.legacy(globalOverride: global))
      }
    }
  }

  @Test func gathersStridedTensors() throws {
    // A transposed view, as the real Lite0 checkpoint stores its permuted convolution weights.
    var transposed = CheckpointFixture.tensors
    transposed[0].shape = [3, 2]
    transposed[0].strides = [1, 3]
    let stateDict = try StateDict(serializedBytes: CheckpointFixture.zip(tensors: transposed))
    #expect(stateDict["conv.weight"] == (try Tensor(shape: [3, 2], scalars: [0, 3, 1, 4, 2, 5])))
    transposed[0].strides = [1, 4]
    expectModelFormatsError(.malformedFile) {
      _ = try StateDict(serializedBytes: CheckpointFixture.zip(tensors: transposed))
    }
  }

  @Test func refusesCompressedEntries() {
    expectModelFormatsError(.unsupported) {
      _ = try StateDict(serializedBytes: CheckpointFixture.zip(compressPickle: true))
    }
  }

  @Test func boundsPickleNesting() {
    // NONE wrapped in 100,000 TUPLE1s: refused when built, never recursed into.
    let pickle: [UInt8] = [0x80, 2, 0x4E] + [UInt8](repeating: 0x85, count: 100_000) + [0x2E]
    expectModelFormatsError(.limitExceeded) { _ = try StateDict(serializedBytes: pickle) }
    let marks: [UInt8] = [0x80, 2] + [UInt8](repeating: 0x28, count: 100_000) + [0x2E]
    expectModelFormatsError(.limitExceeded) { _ = try StateDict(serializedBytes: marks) }
  }

  @Test func refusesTensorsBeyondTheirStorage() {
    var farOffset = CheckpointFixture.tensors
    farOffset[1].offset = 1 << 62
    expectModelFormatsError(.malformedFile) {
      _ = try StateDict(serializedBytes: CheckpointFixture.zip(tensors: farOffset))
    }
    var overrun = CheckpointFixture.tensors
    overrun[3].offset = 5
    expectModelFormatsError(.malformedFile) {
      _ = try StateDict(serializedBytes: CheckpointFixture.legacy(tensors: overrun))
    }
    var absurd = CheckpointFixture.tensors
    absurd[1].shape = [1 << 40, 1 << 40]
    absurd[1].strides = [1 << 40, 1]
    expectModelFormatsError(.limitExceeded) {
      _ = try StateDict(serializedBytes: CheckpointFixture.zip(tensors: absurd))
    }
  }

  /// Checkpoints pickled by Python's own pickle module in both torch.save layouts, written by
  /// Scripts/make-checkpoint-fixtures.py (standard library only, stand-in torch globals).
  @Test(
    .requiresGeneratedFixture(
      SharedModels.cacheURL("checkpoint-fixtures/expected.json"),
      madeBy: "Scripts/make-checkpoint-fixtures.py .cache/checkpoint-fixtures"),
    arguments: ["zip.pth", "legacy.pth"])
  func readsCheckpointsPickledByPython(_ file: String) throws {
    let directory = SharedModels.cacheURL("checkpoint-fixtures")
    let expectedURL = directory.appendingPathComponent("expected.json")
    struct Expected: Decodable {
      var name: String
      var dtype: String
      var shape: [Int]
      var values: [Double]
    }
    let expected = try JSONDecoder().decode(
      [Expected].self, from: Data(contentsOf: expectedURL))
    let stateDict = try StateDict(
      contentsOf: directory.appendingPathComponent(file))
    #expect(stateDict.names == expected.map(\.name))
    for (entry, reference) in zip(stateDict.entries, expected) {
      #expect(entry.elementType.rawValue == reference.dtype, "\(entry.name)")
      #expect(entry.tensor.shape == reference.shape, "\(entry.name)")
      #expect(entry.tensor.scalars == reference.values.map { Float($0) }, "\(entry.name)")
    }
  }

  /// The default model's real checkpoint (legacy layout), fetched by Scripts/fetch-default-model.sh.
  @Test(
    .requiresGeneratedFixture(
      SharedModels.lite0Checkpoint, madeBy: "Scripts/fetch-default-model.sh"),
    .requiresSharedModels("onnx/efficientnet-lite0.bn.onnx"))
  func readsEfficientNetLite0Checkpoint() throws {
    let path = SharedModels.lite0Checkpoint.path
    let stateDict = try StateDict(contentsOf: URL(fileURLWithPath: path))
    #expect(stateDict.count == 296)
    for name in [
      "_conv_stem.weight", "_bn0.running_var", "_blocks.3._depthwise_conv.weight", "_fc.bias",
    ] {
      #expect(stateDict[name] != nil, "\(name)")
    }
    #expect(stateDict["_conv_stem.weight"]?.shape == [32, 3, 3, 3])
    #expect(stateDict["_fc.weight"]?.shape == [1000, 1280])
    // The .bn.onnx graph keeps every parameter unfolded, named "m." + the state-dict name.
    let onnxPath = try SharedModels.requiredPath("onnx/efficientnet-lite0.bn.onnx")
    let graph = try ONNXModel(contentsOf: URL(fileURLWithPath: onnxPath)).graph
    var compared = 0
    for initializer in graph.initializers where initializer.name.hasPrefix("m.") {
      let name = String(initializer.name.dropFirst(2))
      let tensor = try #require(stateDict[name], "\(name)")
      #expect(try initializer.floatTensor() == tensor, "\(name)")
      compared += 1
    }
    print("Lite0 checkpoint: \(stateDict.count) entries; \(compared) equal their ONNX initializer")
    #expect(compared >= 200)
    let stem = try #require(graph.initializer(named: "m._conv_stem.weight"))
    #expect(try stem.floatTensor() == stateDict["_conv_stem.weight"])
  }
}
