import Foundation
import ModelFormats
import NeuralCore
import TestSupport
import Testing

/// `vision-catalog infer` and `classify --model FILE.onnx` on torchvision's zoo as
/// `Scripts/onnx-zoo/generate.sh` exports it, each model with the JSON sidecar and labels the
/// generator writes beside it.
///
/// `infer` must reproduce ONNX Runtime's logits for the generated input (max abs difference at
/// most 1e-3 x max(1, max |reference|), equal argmax); `classify` must prepare the photo at the
/// model's own input size and print the sidecar's labels with descending softmax confidences.
/// The debug build runs the generator's `debug` cases; release (run once by `.ci/run`) runs one
/// opset-17 export of every architecture.
@Suite(
  .serialized,
  .enabled(
    if: FileManager.default.fileExists(atPath: TorchvisionZoo.manifest.path),
    Comment(rawValue: TorchvisionZoo.skipReason)))
struct TorchvisionZooCommandLineTests: CommandLineRunning {
  /// Debug builds: the `debug` tier; release: each architecture's raw opset-17 export.
  static func runnable() -> [String] {
    #if DEBUG
      let chosen = TorchvisionZoo.cases().filter { $0.tier == "debug" }
    #else
      let chosen = TorchvisionZoo.cases().filter {
        $0.tier == "release" && $0.opset == 17 && !$0.simplified && !$0.dynamic
      }
    #endif
    return chosen.map(\.name)
  }

  @Test(arguments: runnable())
  func inferAndClassifyRunTheExport(_ name: String) async throws {
    let folder = TorchvisionZoo.root.appendingPathComponent(name)
    let model = folder.appendingPathComponent("model.onnx").path
    let logits = FileManager.default.temporaryDirectory
      .appendingPathComponent("zoo-\(name)-\(UUID().uuidString).npy").path
    defer { try? FileManager.default.removeItem(atPath: logits) }
    let infer = try await run([
      "infer", "--model", model, "--input", folder.appendingPathComponent("input.npy").path,
      "--output", logits,
    ])
    #expect(infer.status == 0, "\(name): \(infer.error)")
    guard infer.status == 0 else { return }
    let ours = try NPYFile.read(contentsOfFile: logits)
    let reference = try NPYFile.read(
      contentsOfFile: folder.appendingPathComponent("output.npy").path)
    #expect(ours.shape == reference.shape, "\(name)")
    let tolerance = 1e-3 * max(1, reference.scalars.map(abs).max() ?? 0)
    let difference = zip(ours.scalars, reference.scalars).map { abs($0 - $1) }.max() ?? 0
    #expect(difference <= tolerance, "\(name): infer differs by \(difference)")

    let classify = try await run([
      "classify", "Samples/coffee.png", "--model", model, "--top", "3", "--json",
    ])
    #expect(classify.status == 0, "\(name): \(classify.error)")
    guard classify.status == 0 else { return }
    let labels = try String(
      contentsOf: folder.appendingPathComponent("labels.txt"), encoding: .utf8
    )
    .split(separator: "\n").map(String.init)
    let report = try JSONDecoder().decode(ClassifyReport.self, from: Data(classify.output.utf8))
    #expect(report.classifications.count == 3, "\(name)")
    for item in report.classifications {
      let index = item.index ?? -1
      #expect(labels.indices.contains(index), "\(name): index \(index)")
      #expect(labels.indices.contains(index) && labels[index] == item.label, "\(name)")
    }
    let confidences = report.classifications.map(\.confidence)
    #expect(confidences == confidences.sorted(by: >), "\(name): \(confidences)")
    #expect(confidences.allSatisfy { $0 >= 0 && $0 <= 1 }, "\(name): \(confidences)")
  }

}
