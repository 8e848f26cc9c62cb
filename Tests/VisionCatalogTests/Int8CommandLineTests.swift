import Foundation
import TestSupport
import Testing

/// `vision-catalog classify --model MODEL-int8.onnx` end to end on ONNX Runtime's int8
/// EfficientNet-Lite0 files (`Scripts/int8-fixtures/generate.sh`), each with a sidecar stating
/// Lite0's preprocessing: the photo's top class must be the one ONNX Runtime gives the int8 file
/// for the same photo.
@Suite(
  .serialized,
  .enabled(
    if: FileManager.default.fileExists(atPath: Int8Fixtures.manifest.path)
      && SharedData.contains("models/labels/imagenet1k_labels.txt"),
    Comment(
      rawValue: "\(Int8Fixtures.manifest.path) or ../shared/models is absent "
        + "(run Scripts/int8-fixtures/generate.sh): skipped")))
struct Int8CommandLineTests: CommandLineRunning {
  /// The fixture files and the photo with ONNX Runtime's top class for it (coffee: espresso).
  static let cases = ["lite0-qop-u8s8", "lite0-qdq-s8s8", "lite0-qdq-u8s8"]

  @Test(arguments: cases)
  func classifyRunsAnInt8Model(_ fixture: String) async throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("int8-\(fixture)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = folder.appendingPathComponent("\(fixture).onnx")
    try FileManager.default.copyItem(
      at: Int8Fixtures.root.appendingPathComponent("\(fixture).onnx"), to: model)
    let labels = try #require(SharedData.url("models/labels/imagenet1k_labels.txt"))
    let sidecar = """
      {"inputSize": 224, "crop": "centerCrop", "cropFraction": 0.875,
       "mean": [127, 127, 127], "std": [128, 128, 128], "channelOrder": "rgb",
       "labels": "\(labels.path)", "inputName": "input", "outputName": "logits"}
      """
    try Data(sidecar.utf8).write(to: folder.appendingPathComponent("\(fixture).json"))
    let result = try await run([
      "classify", "Samples/coffee.png", "--model", model.path, "--top", "3", "--exact", "--json",
    ])
    #expect(result.status == 0, "\(fixture): \(result.error)")
    guard result.status == 0 else { return }
    let report = try JSONDecoder().decode(ClassifyReport.self, from: Data(result.output.utf8))
    #expect(report.classifications.first?.index == 967, "\(fixture): \(report.classifications)")
    let confidences = report.classifications.map(\.confidence)
    #expect(confidences == confidences.sorted(by: >), "\(fixture): \(confidences)")
  }
}
