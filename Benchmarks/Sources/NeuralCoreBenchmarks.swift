import Foundation
import ModelFormats
import NeuralCore

/// NeuralCore's cases: EfficientNet-Lite0 at batch 1 (1 and 2 threads) and batch 8 (2 threads),
/// named like `Benchmarks/Scripts/onnxruntime_bench.py`'s rows so they pair up.
///
/// Inputs are the reference photos' exact model inputs from `../shared/models/ref`, and each
/// session's logits are checked against ONNX Runtime's before anything is timed.
enum NeuralCoreBenchmarks {
  /// The shared reference models next to the checkout, or `nil` when they are absent.
  static let modelsDirectory: String? = {
    let path = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("shared/models").path
    return FileManager.default.fileExists(atPath: path + "/onnx/efficientnet-lite0.onnx")
      ? path : nil
  }()

  static func all(modelsDirectory: String) throws -> [Benchmark] {
    let model = try ONNXModel(
      contentsOf: URL(fileURLWithPath: "\(modelsDirectory)/onnx/efficientnet-lite0.onnx"))
    let reference = "\(modelsDirectory)/ref/efficientnet-lite0"
    let single = try NPYFile.read(contentsOfFile: "\(reference)/chelsea.input.npy")
    let expected = try NPYFile.read(contentsOfFile: "\(reference)/chelsea.logits.npy")
    let stacked = try NPYFile.read(contentsOfFile: "\(reference)/batch.input.npy")
    let batch = try Tensor(
      shape: [8] + single.shape.dropFirst(),
      scalars: Array(stacked.scalars.prefix(8 * single.count)))
    var benchmarks: [Benchmark] = []
    for (name, input, threads) in [
      ("batch1.threads1", single, 1), ("batch1.threads2", single, 2), ("batch8.threads2", batch, 2),
    ] {
      let session = try InferenceSession(
        model: model, options: SessionOptions(threadCount: threads))
      guard let inputName = session.inputs.first?.name,
        let outputName = session.outputs.first?.name
      else { throw NeuralCoreError(.missingValue, "the model declares no input or output") }
      let logits = try session.run([inputName: single])[outputName]
      let difference = zip(logits?.scalars ?? [], expected.scalars).map { abs($0 - $1) }.max()
      guard let difference, difference <= 1e-3 else {
        throw NeuralCoreError(.shapeMismatch, "\(name): logits differ from ONNX Runtime's")
      }
      benchmarks.append(
        Benchmark(name: "NeuralCore.efficientNetLite0.\(name)") {
          blackHole(try session.run([inputName: input]))
        })
    }
    return benchmarks
  }

  /// The torchvision architectures of `--filter zoo`, as `Benchmarks/Scripts/make_zoo_models.py`
  /// exports them (opset 17, 224 x 224, batch 1, random weights): one or two of each family users
  /// bring (inverted residuals with SE and SiLU or hard-swish, ResNets, RegNet, ShuffleNet,
  /// ConvNeXt, a ViT and a Swin transformer).
  static let zooArchitectures = [
    "efficientnet_b0", "efficientnet_v2_s", "mobilenet_v2", "mobilenet_v3_small",
    "mobilenet_v3_large", "convnext_tiny", "regnet_y_400mf", "shufflenet_v2_x0_5", "mnasnet0_5",
    "resnet50", "vit_b_16", "swin_t",
  ]

  /// The exported benchmark zoo under the package's `.cache`, or `nil` when it is absent.
  static let zooDirectory: String? = {
    let path = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent(".cache/bench-zoo").path
    return FileManager.default.fileExists(atPath: path + "/manifest.json") ? path : nil
  }()

  /// Batch 1 at 1 and 2 threads for each of ``zooArchitectures`` whose case name passes
  /// `filter` (`NeuralCore.zoo.<architecture>.batch1.threads<N>`), checked against ONNX
  /// Runtime's logits within 1e-3 (relative to the largest logit when it is over 1) before
  /// anything is timed.
  static func zoo(directory: String, filter: String) throws -> [Benchmark] {
    var benchmarks: [Benchmark] = []
    for architecture in zooArchitectures {
      let folder = "\(directory)/\(architecture)"
      guard FileManager.default.fileExists(atPath: "\(folder)/output.npy") else { continue }
      for threads in [1, 2] {
        let name = "NeuralCore.zoo.\(architecture).batch1.threads\(threads)"
        guard filter.isEmpty || name.contains(filter) else { continue }
        let session = try InferenceSession(
          contentsOf: URL(fileURLWithPath: "\(folder)/model.onnx"),
          options: SessionOptions(threadCount: threads))
        let input = try NPYFile.read(contentsOfFile: "\(folder)/input.npy")
        let expected = try NPYFile.read(contentsOfFile: "\(folder)/output.npy")
        let logits = try session.run(["input": input])["logits"]
        let tolerance = 1e-3 * max(1, expected.scalars.map(abs).max() ?? 0)
        let difference = zip(logits?.scalars ?? [], expected.scalars).map { abs($0 - $1) }.max()
        guard let difference, difference <= tolerance else {
          throw NeuralCoreError(.shapeMismatch, "\(name): logits differ from ONNX Runtime's")
        }
        benchmarks.append(
          Benchmark(name: name) { blackHole(try session.run(["input": input])) })
      }
    }
    return benchmarks + (try zooInt8(directory: directory, filter: filter))
  }

  /// The QDQ int8 versions of these architectures (`model-qdq.onnx`, ONNX Runtime's
  /// `quantize_static`, int8 activations and weights, per channel), at 1 thread
  /// (`NeuralCore.zoo-int8.<architecture>.batch1.threads1`), each checked for ONNX Runtime's
  /// top-1 and its logits within 5 % of the largest (int8 rounding differs by a step here and
  /// there) before it is timed.
  static func zooInt8(directory: String, filter: String) throws -> [Benchmark] {
    var benchmarks: [Benchmark] = []
    for architecture in ["mobilenet_v3_large", "efficientnet_b0"] {
      let folder = "\(directory)/\(architecture)"
      let name = "NeuralCore.zoo-int8.\(architecture).batch1.threads1"
      guard filter.isEmpty || name.contains(filter),
        FileManager.default.fileExists(atPath: "\(folder)/output-qdq.npy")
      else { continue }
      let session = try InferenceSession(
        contentsOf: URL(fileURLWithPath: "\(folder)/model-qdq.onnx"),
        options: SessionOptions(threadCount: 1))
      let input = try NPYFile.read(contentsOfFile: "\(folder)/input.npy")
      let expected = try NPYFile.read(contentsOfFile: "\(folder)/output-qdq.npy").scalars
      let logits = try session.run(["input": input])["logits"]?.scalars ?? []
      let largest = expected.map(abs).max() ?? 0
      let difference = zip(logits, expected).map { abs($0 - $1) }.max() ?? .infinity
      guard logits.count == expected.count, difference <= 0.05 * max(largest, 1),
        logits.indices.max(by: { logits[$0] < logits[$1] })
          == expected.indices.max(by: { expected[$0] < expected[$1] })
      else {
        throw NeuralCoreError(.shapeMismatch, "\(name): logits differ from ONNX Runtime's")
      }
      benchmarks.append(Benchmark(name: name) { blackHole(try session.run(["input": input])) })
    }
    return benchmarks
  }

  /// Prints every step of a batch-1 run at 1 and 2 threads, in execution order: the best of
  /// five profiles of 30 runs each (the machines are noisy), then the totals by kind of step.
  static func printProfile(modelsDirectory: String) throws {
    try printProfile(
      model: "\(modelsDirectory)/onnx/efficientnet-lite0.onnx",
      input: "\(modelsDirectory)/ref/efficientnet-lite0/chelsea.input.npy")
  }

  /// ``printProfile(modelsDirectory:)`` for any ONNX model with a single input, or a Core ML
  /// model (`.mlmodel`, `.mlpackage`) fed 0-255 pixel planes in its colour order.
  ///
  /// Each thread count takes the best of five sets of `runs` runs (30 by default; a large
  /// transformer wants fewer).
  static func printProfile(model: String, input inputPath: String, runs: Int = 30) throws {
    let input = try NPYFile.read(contentsOfFile: inputPath)
    var columns: [[StepTiming]] = []
    var wholeRuns: [Double] = []
    let url = URL(fileURLWithPath: model)
    let coreML =
      ["mlmodel", "mlpackage"].contains(url.pathExtension) ? try CoreMLModel(contentsOf: url) : nil
    for threads in [1, 2] {
      let options = SessionOptions(threadCount: threads)
      let session =
        try coreML.map { try InferenceSession(coreMLModel: $0, options: options) }
        ?? InferenceSession(contentsOf: url, options: options)
      guard let inputName = session.inputs.first?.name else { return }
      var best: [StepTiming] = []
      var fastestRun = Double.infinity
      for _ in 0..<5 {
        let steps = try session.profile([inputName: input], runs: runs)
        best =
          best.isEmpty
          ? steps
          : zip(best, steps).map { $0.milliseconds <= $1.milliseconds ? $0 : $1 }
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
          for _ in 0..<runs { blackHole(try session.run([inputName: input])) }
        }
        let milliseconds =
          Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
        fastestRun = min(fastestRun, milliseconds / Double(runs))
      }
      columns.append(best)
      wholeRuns.append(fastestRun)
    }
    let kernels = try InferenceSession.selectedKernelSet()
    print("# kernel set \(kernels) (VISION_CATALOG_KERNELS forces another)")
    print("step\t1 thread (ms)\t2 threads (ms)")
    var kinds: [String: (Double, Double)] = [:]
    var order: [String] = []
    for (one, two) in zip(columns[0], columns[1]) {
      print("\(one.name)\t\(format(one.milliseconds))\t\(format(two.milliseconds))")
      let kind = kindOfStep(one.name)
      if kinds[kind] == nil { order.append(kind) }
      let sums = kinds[kind, default: (0, 0)]
      kinds[kind] = (sums.0 + one.milliseconds, sums.1 + two.milliseconds)
    }
    for kind in order {
      let sums = kinds[kind, default: (0, 0)]
      print("total \(kind)\t\(format(sums.0))\t\(format(sums.1))")
    }
    let totals = columns.map { $0.reduce(0) { $0 + $1.milliseconds } }
    print("total\t\(format(totals[0]))\t\(format(totals[1]))")
    print("whole run (mean of 30, best of 5)\t\(format(wholeRuns[0]))\t\(format(wholeRuns[1]))")
  }

  private static func format(_ milliseconds: Double) -> String {
    String(format: "%.3f", milliseconds)
  }

  /// Groups EfficientNet-Lite's steps: expansion, depthwise and projection convolutions, the
  /// stem, the head and the rest by operator.
  private static func kindOfStep(_ name: String) -> String {
    for kind in ["expand", "depthwise", "project", "stem", "head"] where name.contains(kind) {
      return kind
    }
    return name.split(separator: "/").last.map(String.init) ?? name
  }
}
