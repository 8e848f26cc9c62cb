import Foundation
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
    let model = try ONNXModel(contentsOfFile: "\(modelsDirectory)/onnx/efficientnet-lite0.onnx")
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

  /// Prints the slowest steps of one single-thread batch-1 run, to see where the time goes.
  static func printProfile(modelsDirectory: String) throws {
    let session = try InferenceSession(
      contentsOfFile: "\(modelsDirectory)/onnx/efficientnet-lite0.onnx",
      options: SessionOptions(threadCount: 1))
    let input = try NPYFile.read(
      contentsOfFile: "\(modelsDirectory)/ref/efficientnet-lite0/chelsea.input.npy")
    guard let inputName = session.inputs.first?.name else { return }
    let steps = try session.profile([inputName: input], runs: 10)
    let total = steps.reduce(0) { $0 + $1.milliseconds }
    print("profile: \(steps.count) steps, \(String(format: "%.2f", total)) ms; slowest:")
    for step in steps.sorted(by: { $0.milliseconds > $1.milliseconds }).prefix(12) {
      print("  \(step.name) \(String(format: "%.3f", step.milliseconds)) ms")
    }
  }
}
