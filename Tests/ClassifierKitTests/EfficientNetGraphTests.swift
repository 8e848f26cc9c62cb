import ClassifierKit
import Foundation
import ModelFormats
import NeuralCore
import NeuralLayers
import Testing

/// `EfficientNetLite.graph(loading:)` run by an `InferenceSession` against the layer-by-layer
/// `forward` of the same parameters: a small random network always, the real Lite0 checkpoint
/// on the reference inputs when it is present.
@Suite struct EfficientNetGraphTests {
  /// Two stages: a block without expansion (residual), a strided 5 x 5 block and a residual one,
  /// so the graph holds every layer kind and TensorFlow's asymmetric SAME padding.
  static let stages = [
    EfficientNetLite.Stage(
      repeats: 1, kernelSize: 3, stride: 1, expansion: 1, inputChannels: 8, outputChannels: 8),
    EfficientNetLite.Stage(
      repeats: 2, kernelSize: 5, stride: 2, expansion: 6, inputChannels: 8, outputChannels: 20),
  ]

  @Test func graphMatchesLayersOnARandomNetwork() throws {
    let network = try EfficientNetLite(
      stages: Self.stages, inputSize: 33, stemChannels: 8, headChannels: 40, classCount: 10)
    var random = SeededNumbers(seed: 7)
    let parameters = try Self.randomParameters(&random)
    let loaded = try network.loading(parameters)
    for threads in [1, 2] {
      let session = try InferenceSession(
        model: try network.graph(loading: parameters),
        options: SessionOptions(threadCount: threads))
      for shape in [[1, 3, 33, 29], [2, 3, 18, 40]] {
        let count = shape.reduce(1, *)
        let input = try Tensor(shape: shape, scalars: (0..<count).map { _ in random.next() })
        let expected = try loaded.forward(input, threadCount: threads)
        let output = try #require(
          try session.run([EfficientNetLite.graphInput: input])[EfficientNetLite.graphOutput])
        #expect(output.shape == expected.shape)
        let difference = zip(output.scalars, expected.scalars).map { abs($0 - $1) }.max() ?? .nan
        let largest = expected.scalars.map { abs($0) }.max() ?? 0
        #expect(
          difference <= 1e-5 * max(1, largest), "input \(shape), \(threads) threads: \(difference)")
      }
    }
  }

  /// The features output is what the classifier reads: the head's own weights applied to it
  /// give the logits output.
  @Test func featuresAreTheClassifiersInput() throws {
    let network = try EfficientNetLite(
      stages: Self.stages, inputSize: 33, stemChannels: 8, headChannels: 40, classCount: 10)
    var random = SeededNumbers(seed: 11)
    let parameters = try Self.randomParameters(&random)
    let session = try InferenceSession(model: try network.graph(loading: parameters))
    let input = try Tensor(shape: [2, 3, 33, 33], scalars: (0..<6_534).map { _ in random.next() })
    let outputs = try session.run([EfficientNetLite.graphInput: input])
    let features = try #require(outputs[EfficientNetLite.graphFeatures])
    let logits = try #require(outputs[EfficientNetLite.graphOutput])
    #expect(features.shape == [2, 40])
    let weight = try #require(parameters["_fc.weight"])
    let bias = try #require(parameters["_fc.bias"])
    for row in 0..<2 {
      for label in 0..<10 {
        var sum = Double(bias.scalars[label])
        for channel in 0..<40 {
          sum += Double(weight.scalars[label * 40 + channel] * features.scalars[row * 40 + channel])
        }
        let value = logits.scalars[row * 10 + label]
        #expect(abs(Float(sum) - value) <= 1e-5 * max(1, abs(value)), "row \(row) label \(label)")
      }
    }
  }

  @Test func missingParametersAreNamed() throws {
    let network = try EfficientNetLite(
      stages: Self.stages, inputSize: 33, stemChannels: 8, headChannels: 40, classCount: 10)
    var random = SeededNumbers(seed: 1)
    var parameters = try Self.randomParameters(&random)
    parameters["_blocks.1._bn0.running_var"] = nil
    #expect {
      _ = try network.graph(loading: parameters)
    } throws: { error in
      (error as? ModelFormatsError)?.code == .missingValue
        && ((error as? ModelFormatsError)?.underlying as? NeuralCoreError)?.code == .missingValue
        && "\(error)".contains("_blocks.1._bn0.running_var")
    }
  }

  @Test(.enabled(if: ModelFixtures.canClassifyPhotos, ModelFixtures.photosSkipReason))
  func lite0GraphMatchesLayersOnReferenceInputs() throws {
    let models = try #require(ModelFixtures.models)
    let checkpoint = try #require(ModelFixtures.checkpoint)
    var parameters: [String: Tensor] = [:]
    for entry in try StateDict(contentsOf: checkpoint).entries {
      parameters[entry.name] = entry.tensor
    }
    let layers = try EfficientNetLite.lite0().loading(parameters)
    let session = try InferenceSession(
      model: try EfficientNetLite.lite0().graph(loading: parameters))
    let input = try ModelFixtures.reference("chelsea.input.npy")
    let runtime = try ModelFixtures.reference("chelsea.logits.npy")
    let graphLogits = try #require(try session.run(["input": input])["logits"])
    let layerLogits = try layers.forward(input, threadCount: 2)
    let toLayers = zip(graphLogits.scalars, layerLogits.scalars).map { abs($0 - $1) }.max() ?? .nan
    let toRuntime = zip(graphLogits.scalars, runtime.scalars).map { abs($0 - $1) }.max() ?? .nan
    print("Lite0 graph vs layers \(toLayers), vs ONNX Runtime \(toRuntime) (\(models.path))")
    #expect(toLayers <= 1e-4)
    #expect(toRuntime <= 1e-3)
    try Self.expectRuntimeFeatures(
      session.run(["input": input])[EfficientNetLite.graphFeatures],
      input: models.appendingPathComponent("ref/efficientnet-lite0/chelsea.input.npy"))
  }

  /// ONNX Runtime's pooled features (the input of the reference model's final Gemm) for the
  /// same input, from the zoo's venv; the check is skipped with a printed reason without it.
  static func expectRuntimeFeatures(_ features: Tensor?, input: URL) throws {
    let python = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../.cache/torch-venv/bin/python").standardized
    guard let model = ModelFixtures.models?.appendingPathComponent("onnx/efficientnet-lite0.onnx"),
      FileManager.default.isExecutableFile(atPath: python.path)
    else {
      print("Lite0 features vs ONNX Runtime: skipped, no torch venv (Scripts/setup --test-tools)")
      return
    }
    let features = try #require(features)
    let output = FileManager.default.temporaryDirectory
      .appendingPathComponent("vision-catalog-features-\(UUID().uuidString).npy")
    defer { try? FileManager.default.removeItem(at: output) }
    let script = """
      import sys, numpy as np, onnx, onnxruntime as ort
      model = onnx.load(sys.argv[1])
      gemm = [node for node in model.graph.node if node.op_type == "Gemm"][-1]
      model.graph.output.append(onnx.helper.make_empty_tensor_value_info(gemm.input[0]))
      session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
      feed = {session.get_inputs()[0].name: np.load(sys.argv[2])}
      np.save(sys.argv[3], session.run([gemm.input[0]], feed)[0].astype(np.float32))
      """
    let process = Process()
    process.executableURL = python
    process.arguments = ["-c", script, model.path, input.path, output.path]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    guard process.terminationStatus == 0 else { return }
    let reference = try NPYFile.read(contentsOfFile: output.path)
    #expect(features.shape == reference.shape)
    let difference = zip(features.scalars, reference.scalars).map { abs($0 - $1) }.max() ?? .nan
    print("Lite0 features vs ONNX Runtime: largest difference \(difference)")
    #expect(difference <= 1e-4)
  }

  /// Every parameter the two stages' checkpoint holds, with positive running variances.
  static func randomParameters(_ random: inout SeededNumbers) throws -> [String: Tensor] {
    var parameters: [String: Tensor] = [:]
    func add(_ name: String, _ shape: [Int], scale: Float = 0.5) throws {
      let count = shape.reduce(1, *)
      parameters[name] = try Tensor(
        shape: shape, scalars: (0..<count).map { _ in random.next() * scale })
    }
    func convolution(_ name: String, _ normalization: String, _ shape: [Int]) throws {
      try add("\(name).weight", shape)
      let channels = shape[0]
      parameters["\(normalization).weight"] = try Tensor(
        shape: [channels], scalars: (0..<channels).map { _ in 1 + random.next() * 0.3 })
      try add("\(normalization).bias", [channels])
      try add("\(normalization).running_mean", [channels])
      parameters["\(normalization).running_var"] = try Tensor(
        shape: [channels], scalars: (0..<channels).map { _ in 1 + random.next() * 0.5 })
    }
    try convolution("_conv_stem", "_bn0", [8, 3, 3, 3])
    var block = 0
    for stage in stages {
      for repeatIndex in 0..<stage.repeats {
        let input = repeatIndex == 0 ? stage.inputChannels : stage.outputChannels
        let expanded = input * stage.expansion
        let path = "_blocks.\(block)"
        if stage.expansion != 1 {
          try convolution("\(path)._expand_conv", "\(path)._bn0", [expanded, input, 1, 1])
        }
        try convolution(
          "\(path)._depthwise_conv", "\(path)._bn1",
          [expanded, 1, stage.kernelSize, stage.kernelSize])
        try convolution(
          "\(path)._project_conv", "\(path)._bn2", [stage.outputChannels, expanded, 1, 1])
        block += 1
      }
    }
    try convolution("_conv_head", "_bn1", [40, 20, 1, 1])
    try add("_fc.weight", [10, 40])
    try add("_fc.bias", [10], scale: 0.01)
    return parameters
  }
}

/// Deterministic numbers in [-1, 1) from a linear congruential generator.
struct SeededNumbers {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> Float {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return Float(state >> 40) / Float(1 << 23) - 1
  }
}
