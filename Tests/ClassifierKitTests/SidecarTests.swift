import ClassifierKit
import Foundation
import ImagePipeline
import ModelFormats
import NeuralCore
import Testing

/// Loading an ONNX classifier with a JSON sidecar, and the typed errors of wrong sidecars.
@Suite struct SidecarTests {
  /// Writes `sidecar` next to a labels file in a fresh directory and returns the sidecar's URL.
  func write(_ sidecar: String, labels: [String] = ["a", "b", "c"]) throws -> URL {
    let directory = try ModelFixtures.temporaryDirectory()
    try labels.joined(separator: "\n").write(
      to: directory.appendingPathComponent("labels.txt"), atomically: true, encoding: .utf8)
    let url = directory.appendingPathComponent("model.json")
    try sidecar.write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  @Test(.enabled(if: ModelFixtures.canClassifyPhotos, ModelFixtures.photosSkipReason))
  func onnxWithSidecarGivesTheDefaultModelsTop5() throws {
    let onnx = try #require(ModelFixtures.onnxModel)
    let labels = try #require(ModelFixtures.labels)
    let sidecar = try write(
      """
      {"inputSize": 224, "crop": "centerCrop", "cropFraction": 0.875,
       "mean": 127, "std": [128, 128, 128], "channelOrder": "rgb",
       "labels": "\(labels.path)", "inputName": "input", "outputName": "logits",
       "name": "lite0-onnx"}
      """)
    defer { try? FileManager.default.removeItem(at: sidecar.deletingLastPathComponent()) }
    let classifier = try NetworkClassifier.onnx(contentsOf: onnx, sidecar: sidecar)
    #expect(classifier.labels.count == 1000)
    #expect(classifier.model.name == "lite0-onnx")
    let photo = try #require(ModelFixtures.models).appendingPathComponent("photos/coffee.png")
    let report = try classifier.classify(.file(photo))
    let reference = try ModelFixtures.reference("coffee.logits.npy").scalars
    let referenceTop5 = Set(reference.indices.sorted { reference[$0] > reference[$1] }.prefix(5))
    #expect(Set(report.classifications.map(\.index)) == referenceTop5)
    #expect(report.classifications.first?.label == "espresso")
    let expected = try ModelFixtures.classifierForPhotos().classify(.file(photo))
    #expect(report.classifications.map(\.index) == expected.classifications.map(\.index))
    for (a, b) in zip(report.classifications, expected.classifications) {
      #expect(abs(a.confidence - b.confidence) <= 1e-4)
    }
  }

  @Test(arguments: [
    (#"{"crop": "centerCrop", "mean": 0, "std": 1, "labels": "labels.txt"}"#, "inputSize"),
    (#"{"inputSize": 0, "mean": 0, "std": 1, "labels": "labels.txt"}"#, "inputSize"),
    (#"{"inputSize": "big", "mean": 0, "std": 1, "labels": "labels.txt"}"#, "inputSize"),
    (#"{"inputSize": 8, "crop": "zoom", "mean": 0, "std": 1, "labels": "labels.txt"}"#, "crop"),
    (
      #"{"inputSize": 8, "crop": "scaleFit", "cropFraction": 0.5, "mean": 0, "std": 1, "labels": "labels.txt"}"#,
      "cropFraction"
    ),
    (#"{"inputSize": 8, "labels": "labels.txt"}"#, "mean"),
    (#"{"inputSize": 8, "mean": [1, 2], "std": 1, "labels": "labels.txt"}"#, "mean"),
    (#"{"inputSize": 8, "mean": 0, "std": 0, "labels": "labels.txt"}"#, "std"),
    (#"{"inputSize": 8, "mean": 0, "scale": 1, "labels": "labels.txt"}"#, "scale"),
    (
      #"{"inputSize": 8, "mean": 0, "std": 1, "channelOrder": "rgba", "labels": "labels.txt"}"#,
      "channelOrder"
    ),
    (#"{"inputSize": 8, "mean": 0, "std": 1}"#, "labels"),
    (#"{"inputSize": 8, "mean": 0, "std": 1, "labels": "missing.txt"}"#, "labels"),
    (#"{"inputSize": 8, "mean": 0, "std": 1, "labels": "labels.txt", "meen": 1}"#, "meen"),
    (#"{"inputSize": 8, "mean": 0, "std": 1, "labels": 3}"#, "labels"),
    (#"[1, 2, 3]"#, "JSON object"),
    (#"{"inputSize": 8,"#, "JSON"),
  ])
  func wrongSidecarNamesTheField(sidecar: String, field: String) throws {
    let url = try write(sidecar)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let error = try #require(throws: ClassificationError.self) {
      try ModelDescription(sidecarAt: url)
    }
    #expect(error.code == .invalidModelDescription)
    #expect(error.message.contains(field), "\(error)")
  }

  @Test(.enabled(if: ModelFixtures.hasSharedModels, ModelFixtures.sharedSkipReason))
  func sidecarInputAndOutputNamesMustExistInTheModel() throws {
    let onnx = try #require(ModelFixtures.onnxModel)
    let labels = (0..<1000).map { "class \($0)" }
    for (field, sidecar) in [
      (
        "inputName",
        #"{"inputSize": 224, "mean": 127, "std": 128, "labels": "labels.txt", "inputName": "pixels"}"#
      ),
      (
        "outputName",
        #"{"inputSize": 224, "mean": 127, "std": 128, "labels": "labels.txt", "outputName": "probs"}"#
      ),
    ] {
      let url = try write(sidecar, labels: labels)
      defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
      let error = try #require(throws: ClassificationError.self) {
        try NetworkClassifier.onnx(contentsOf: onnx, sidecar: url)
      }
      #expect(error.code == .invalidModelDescription)
      #expect(error.message.contains(field), "\(error)")
    }
    let small = try write(
      #"{"inputSize": 192, "mean": 127, "std": 128, "labels": "labels.txt"}"#, labels: labels)
    defer { try? FileManager.default.removeItem(at: small.deletingLastPathComponent()) }
    let sizeError = try #require(throws: ClassificationError.self) {
      try NetworkClassifier.onnx(contentsOf: onnx, sidecar: small)
    }
    #expect(sizeError.code == .invalidModelDescription)
    #expect(sizeError.message.contains("inputSize"), "\(sizeError)")
    let url = try write(#"{"inputSize": 224, "mean": 127, "std": 128, "labels": "labels.txt"}"#)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let error = try #require(throws: ClassificationError.self) {
      try NetworkClassifier.onnx(contentsOf: onnx, sidecar: url)
    }
    #expect(error.code == .invalidModelDescription)
    #expect(error.message.contains("labels"), "\(error)")
  }

  @Test func missingSidecarSaysWhereItIsExpected() throws {
    let directory = try ModelFixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let model = directory.appendingPathComponent("net.onnx")
    try Data([0x08, 0x07]).write(to: model)
    let error = try #require(throws: ClassificationError.self) {
      try NetworkClassifier.onnx(contentsOf: model)
    }
    #expect(error.code == .modelUnavailable)
    #expect(error.message.contains(directory.appendingPathComponent("net.json").path))
  }
}
