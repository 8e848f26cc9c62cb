import Foundation
import ImagePipeline
import ModelFormats
import Testing

@testable import ClassifierKit

/// `NetworkClassifier.load(contentsOf:)` and `QuantizableClassifier.load(contentsOf:)` find
/// the format from the file's content and give the classifier the specific loaders give.
@Suite(.enabled(if: ModelFixtures.checkpoint != nil, ModelFixtures.checkpointSkipReason))
struct ModelLoadingTests {
  /// A 64 x 48 picture with a colour gradient, so the scores are not uniform.
  static func photo() throws -> ImageSource {
    var pixels: [UInt8] = []
    for y in 0..<48 {
      for x in 0..<64 { pixels += [UInt8(x * 4), UInt8(y * 5), UInt8((x + y) * 2)] }
    }
    return .image(try RasterImage(width: 64, height: 48, format: .rgb, pixels: pixels))
  }

  @Test func aCheckpointAndItsONNXFormLoadAsTheDefaultModel() throws {
    let checkpoint = try #require(ModelFixtures.checkpoint)
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("model-loading-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // A copy whose name hides its format.
    let renamed = folder.appendingPathComponent("weights.bin")
    try FileManager.default.copyItem(at: checkpoint, to: renamed)
    let onnx = folder.appendingPathComponent("lite0.onnx")
    let source = try QuantizableClassifier.load(contentsOf: renamed)
    try ModelFiles.write(source.model, description: source.description, to: onnx)

    let expected = try NetworkClassifier.efficientNetLite0(checkpoint: checkpoint)
      .classify(Self.photo())
    for url in [renamed, onnx] {
      let report = try NetworkClassifier.load(contentsOf: url, threadCount: 1).classify(
        Self.photo())
      #expect(report.classifications.map(\.index) == expected.classifications.map(\.index))
      for (a, b) in zip(report.classifications, expected.classifications) {
        #expect(abs(a.confidence - b.confidence) <= 1e-4)
      }
    }
    #expect(
      try QuantizableClassifier.load(contentsOf: onnx).model.graph.nodes.count
        == source.model.graph.nodes.count)
  }

  @Test func filesInNoFormatAndCoreMLForTheQuantizerAreTypedErrors() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("model-loading-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let text = folder.appendingPathComponent("model.onnx")
    try Data("not a model".utf8).write(to: text)
    let error = try #require(throws: ClassificationError.self) {
      try NetworkClassifier.load(contentsOf: text)
    }
    #expect(error.code == .modelUnavailable)
    #expect(error.message.contains("not an ONNX, Core ML or PyTorch model file"))
    // A Core ML Model message: version, description, an empty neuralNetwork (field 500).
    let coreML = folder.appendingPathComponent("model.mlmodel")
    try Data([0x08, 0x04, 0x12, 0x00, 0xA2, 0x1F, 0x00]).write(to: coreML)
    let quantizing = try #require(throws: ClassificationError.self) {
      try QuantizableClassifier.load(contentsOf: coreML)
    }
    #expect(quantizing.message.contains("is a Core ML model"))
    let missing = try #require(throws: ClassificationError.self) {
      try NetworkClassifier.load(contentsOf: folder.appendingPathComponent("absent.onnx"))
    }
    #expect(missing.message.contains("does not exist"))
  }
}
