import ModelFormats
import NeuralCore
import TestSupport
import Testing

@testable import NeuralLayers

/// Networks built from layers against the same network as an ONNX graph, and state-dict loading.
@Suite struct LayerTests {
  static func random(_ shape: [Int], seed: UInt64, positive: Bool = false) throws -> Tensor {
    var generator = SeededGenerator(seed: seed)
    let values = generator.floats(shape.reduce(1, *))
    return try Tensor(shape: shape, scalars: positive ? values.map { abs($0) + 0.5 } : values)
  }

  /// A small MBConv-like network's parameters with PyTorch-style names.
  static func stateDictionary() throws -> [String: Tensor] {
    var parameters: [String: Tensor] = [:]
    var seed: UInt64 = 100
    func add(_ name: String, _ shape: [Int], positive: Bool = false) throws {
      seed += 1
      parameters[name] = try random(shape, seed: seed, positive: positive)
    }
    try add("_conv_stem.weight", [8, 3, 3, 3])
    for (name, channels) in [("_bn0", 8), ("_blocks.0._bn1", 8), ("_head_bn", 16)] {
      try add("\(name).weight", [channels])
      try add("\(name).bias", [channels])
      try add("\(name).running_mean", [channels])
      try add("\(name).running_var", [channels], positive: true)
    }
    try add("_blocks.0._depthwise_conv.weight", [8, 1, 3, 3])
    try add("_conv_head.weight", [16, 8, 1, 1])
    try add("_conv_head.bias", [16])
    try add("_fc.weight", [5, 16])
    try add("_fc.bias", [5])
    return parameters
  }

  static func network() throws(NeuralCoreError) -> Sequential {
    try Sequential(
      Conv2D(
        name: "_conv_stem", inputChannels: 3, outputChannels: 8, kernelSize: 3, stride: 2,
        padding: .same, hasBias: false),
      BatchNorm(name: "_bn0", channels: 8, epsilon: 1e-3),
      ActivationLayer(.clip(min: 0, max: 6)),
      Residual(
        Sequential(
          Conv2D(
            name: "_blocks.0._depthwise_conv", inputChannels: 8, outputChannels: 8,
            kernelSize: 3, padding: .same, groups: 8, hasBias: false),
          BatchNorm(name: "_blocks.0._bn1", channels: 8, epsilon: 1e-3),
          ActivationLayer(.relu))),
      Conv2D(name: "_conv_head", inputChannels: 8, outputChannels: 16, kernelSize: 1),
      BatchNorm(name: "_head_bn", channels: 16, epsilon: 1e-3),
      ActivationLayer(.hardSwish),
      Pool2D(.maximum, kernelSize: 2, ceilMode: true),
      Pool2D.globalAverage(),
      Flatten(),
      Dense(name: "_fc", inputFeatures: 16, outputFeatures: 5))
  }

  /// The same network as an ONNX graph, so the executor's BN folding and fusion are checked too.
  static func graph(_ parameters: [String: Tensor]) throws -> ONNXModel {
    var builder = GraphBuilder()
    for (name, tensor) in parameters { builder.constant(name, tensor) }
    let same: ONNXAttributeValue = .string("SAME_UPPER")
    builder.node(
      "Conv", ["x", "_conv_stem.weight"], ["stem"],
      ["kernel_shape": .ints([3, 3]), "strides": .ints([2, 2]), "auto_pad": same])
    func batchNorm(_ name: String, _ input: String, _ output: String) {
      builder.node(
        "BatchNormalization",
        [input, "\(name).weight", "\(name).bias", "\(name).running_mean", "\(name).running_var"],
        [output], ["epsilon": .float(1e-3)])
    }
    batchNorm("_bn0", "stem", "bn0")
    builder.constant("zero", try Tensor(shape: [], scalars: [0]))
    builder.constant("six", try Tensor(shape: [], scalars: [6]))
    builder.node("Clip", ["bn0", "zero", "six"], ["act0"])
    builder.node(
      "Conv", ["act0", "_blocks.0._depthwise_conv.weight"], ["dw"],
      ["kernel_shape": .ints([3, 3]), "group": .int(8), "auto_pad": same])
    batchNorm("_blocks.0._bn1", "dw", "dwbn")
    builder.node("Relu", ["dwbn"], ["dwact"])
    builder.node("Add", ["dwact", "act0"], ["block"])
    builder.node("Conv", ["block", "_conv_head.weight", "_conv_head.bias"], ["head"])
    batchNorm("_head_bn", "head", "headbn")
    builder.node("HardSwish", ["headbn"], ["headact"])
    builder.node(
      "MaxPool", ["headact"], ["pooled"],
      ["kernel_shape": .ints([2, 2]), "strides": .ints([2, 2]), "ceil_mode": .int(1)])
    builder.node("GlobalAveragePool", ["pooled"], ["gap"])
    builder.node("Flatten", ["gap"], ["flat"])
    builder.node("Gemm", ["flat", "_fc.weight", "_fc.bias"], ["logits"], ["transB": .int(1)])
    return builder.model(inputs: [("x", [nil, 3, 11, 13])], outputs: ["logits"])
  }

  @Test func layersMatchTheSameNetworkRunAsAGraph() throws {
    let parameters = try Self.stateDictionary()
    let network = try Self.network().loading(parameters)
    let session = try InferenceSession(
      model: try Self.graph(parameters), options: SessionOptions(threadCount: 2))
    for batch in [1, 3] {
      let input = try Self.random([batch, 3, 11, 13], seed: UInt64(batch))
      let ours = try network.forward(input, threadCount: 2)
      let graph = try #require(try session.run(["x": input])["logits"])
      #expect(ours.shape == [batch, 5])
      #expect(relativeMismatch(ours.scalars, graph.scalars, tolerance: 1e-4) == nil)
    }
  }

  /// `forward` plans a network once per graph and thread count, and keeps only the most recently
  /// used few sessions.
  @Test func sessionsArePlannedOnceAndBounded() throws {
    let cache = LayerSessionCache(capacity: 2)
    let network = try Self.network().loading(try Self.stateDictionary())
    let graph = try network.graph(input: TensorDescription(name: "input", shape: [1, 3, 11, 13]))
    let first = try cache.session(for: graph, threadCount: 1)
    #expect(try cache.session(for: graph, threadCount: 1) === first)
    #expect(cache.plannedCount == 1)
    _ = try cache.session(for: graph, threadCount: 2)
    #expect(cache.plannedCount == 2)
    let batched = try network.graph(
      input: TensorDescription(name: "input", shape: [2, 3, 11, 13]))
    _ = try cache.session(for: batched, threadCount: 1)
    #expect(cache.plannedCount == 3)
    // Three sessions in a cache of two: the least recently used (the first) was dropped.
    #expect(try cache.session(for: graph, threadCount: 1) !== first)
    #expect(cache.plannedCount == 4)
  }

  @Test func loadsFromACheckpointStateDict() throws {
    let parameters = try Self.stateDictionary()
    let checkpoint = StateDict(
      entries: parameters.sorted { $0.key < $1.key }.map {
        StateDict.Entry(name: $0.key, tensor: $0.value, elementType: .float32)
      })
    let input = try Self.random([1, 3, 11, 13], seed: 9)
    let fromCheckpoint = try Self.network().loading(checkpoint).forward(input, threadCount: 1)
    let fromDictionary = try Self.network().loading(parameters).forward(input, threadCount: 1)
    #expect(fromCheckpoint == fromDictionary)
  }

  @Test func loadingReportsMissingAndMisshapenParameters() throws {
    var parameters = try Self.stateDictionary()
    parameters["_fc.bias"] = nil
    #expect(
      throws: NeuralCoreError(.missingValue, "parameter '_fc.bias' is not in the state dictionary")
    ) {
      try Self.network().loading(parameters)
    }
    parameters = try Self.stateDictionary()
    parameters["_conv_stem.weight"] = try Tensor(repeating: 0, shape: [8, 3, 5, 5])
    do {
      _ = try Self.network().loading(parameters)
      Issue.record("a misshapen weight must be refused")
    } catch {
      #expect(error.code == .shapeMismatch)
    }
  }

  @Test func convolutionRefusesTheWrongChannelCount() throws {
    let layer = try Conv2D(name: "c", inputChannels: 3, outputChannels: 4, kernelSize: 1)
    do {
      _ = try layer(Tensor(repeating: 1, shape: [1, 2, 4, 4]))
      Issue.record("a 2-channel input must be refused")
    } catch {
      #expect(error.code == .shapeMismatch)
    }
  }
}
