import Foundation
import NeuralCore

/// NeuralCore's benchmark cases: EfficientNet-Lite0 at batch 1 (1 and 2 threads) and batch 8.
///
/// Inputs are the reference photos' exact model inputs from `../shared/models/ref`, so the run
/// also checks the logits against ONNX Runtime's before timing anything.
enum NeuralCoreBenchmarks {
  /// One measured case.
  struct Result {
    /// The case name, such as `NeuralCore.efficientNetLite0.batch1.threads1`.
    var name: String
    /// The median wall time of one run, in milliseconds.
    var medianMilliseconds: Double
    /// The fastest run, in milliseconds.
    var minimumMilliseconds: Double
  }

  /// Runs every case and prints one line per case.
  ///
  /// - Parameters:
  ///   - modelsDirectory: The `models` directory of the shared corpus (holding `onnx/` and `ref/`).
  ///   - iterations: Timed runs per case, after two warm-up runs.
  /// - Returns: The measured cases.
  /// - Throws: ``NeuralCoreError`` when a model or input cannot be loaded or run.
  @discardableResult
  static func run(modelsDirectory: String, iterations: Int = 30) throws -> [Result] {
    let model = try ONNXModel(contentsOfFile: "\(modelsDirectory)/onnx/efficientnet-lite0.onnx")
    let reference = "\(modelsDirectory)/ref/efficientnet-lite0"
    let single = try NPYFile.read(contentsOfFile: "\(reference)/chelsea.input.npy")
    let expected = try NPYFile.read(contentsOfFile: "\(reference)/chelsea.logits.npy")
    let stacked = try NPYFile.read(contentsOfFile: "\(reference)/batch.input.npy")
    let perImage = single.count
    let batch = try Tensor(
      shape: [8] + single.shape.dropFirst(), scalars: Array(stacked.scalars.prefix(8 * perImage)))
    var results: [Result] = []
    for (name, input, threads) in [
      ("batch1.threads1", single, 1), ("batch1.threads2", single, 2), ("batch8.threads2", batch, 2),
    ] {
      let session = try InferenceSession(
        model: model, options: SessionOptions(threadCount: threads))
      guard let inputName = session.inputs.first?.name,
        let outputName = session.outputs.first?.name
      else { throw NeuralCoreError(.missingValue, "the model declares no input or output") }
      if input.shape[0] == 1, let logits = try session.run([inputName: input])[outputName] {
        let difference = zip(logits.scalars, expected.scalars).map { abs($0 - $1) }.max() ?? 0
        print("NeuralCore.efficientNetLite0.\(name) parity max abs \(difference)")
      }
      var times: [Double] = []
      for iteration in 0..<(iterations + 2) {
        let start = DispatchTime.now().uptimeNanoseconds
        let outputs = try session.run([inputName: input])
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        blackHole(outputs)
        if iteration >= 2 { times.append(elapsed) }
      }
      times.sort()
      let result = Result(
        name: "NeuralCore.efficientNetLite0.\(name)", medianMilliseconds: times[times.count / 2],
        minimumMilliseconds: times[0])
      print(
        "\(result.name) p50_ms=\(String(format: "%.2f", result.medianMilliseconds)) "
          + "min_ms=\(String(format: "%.2f", result.minimumMilliseconds))")
      results.append(result)
      if name == "batch1.threads1" {
        let steps = try session.profile([inputName: input], runs: 5)
        let total = steps.reduce(0) { $0 + $1.milliseconds }
        print("  profile: \(steps.count) steps, \(String(format: "%.2f", total)) ms; slowest:")
        for step in steps.sorted(by: { $0.milliseconds > $1.milliseconds }).prefix(8) {
          print("    \(step.name) \(String(format: "%.3f", step.milliseconds)) ms")
        }
      }
    }
    return results
  }

  @inline(never)
  private static func blackHole(_ value: [String: Tensor]) {
    if value.isEmpty { print("", terminator: "") }
  }
}
