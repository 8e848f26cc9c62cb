import Foundation
import Testing

@testable import ModelFormats

/// Finding a model file's format from its bytes: every format, and files in none of them.
@Suite struct ModelFileFormatTests {
  /// A fresh folder that is removed after the test.
  final class Folder {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("model-format-\(UUID().uuidString)", isDirectory: true)
    init() throws {
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes `bytes` under a name whose extension says nothing of the content.
    func file(_ bytes: [UInt8], named name: String = "model.bin") throws -> URL {
      let file = url.appendingPathComponent(name)
      try Data(bytes).write(to: file)
      return file
    }
  }

  /// A Core ML `Model` message written by hand: specificationVersion 4 (field 1), an empty
  /// description (field 2) and an empty `neuralNetwork` (field 500: tag 500 << 3 | 2 = 4002,
  /// varint A2 1F).
  static let coreMLBytes: [UInt8] = [0x08, 0x04, 0x12, 0x00, 0xA2, 0x1F, 0x00]

  @Test func onnxIsFoundWhateverTheName() throws {
    let folder = try Folder()
    let bytes = ONNXFixture.model(initializer: ONNXFixture.validInitializer)
    #expect(try ModelFileFormat(contentsOf: folder.file(bytes, named: "model.mlmodel")) == .onnx)
  }

  @Test func coreMLModelsAndPackagesAreFound() throws {
    let folder = try Folder()
    #expect(try ModelFileFormat(contentsOf: folder.file(Self.coreMLBytes)) == .coreML)
    // isUpdatable (field 10) right after the description also marks Core ML.
    let updatable: [UInt8] = [0x08, 0x04, 0x12, 0x00, 0x50, 0x01]
    #expect(try ModelFileFormat(contentsOf: folder.file(updatable)) == .coreML)
    let package = folder.url.appendingPathComponent("classifier")
    try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
    try Data("{}".utf8).write(to: package.appendingPathComponent("Manifest.json"))
    #expect(try ModelFileFormat(contentsOf: package) == .coreML)
  }

  @Test func checkpointsInBothLayoutsAreFound() throws {
    let folder = try Folder()
    #expect(
      try ModelFileFormat(contentsOf: folder.file(CheckpointFixture.zip())) == .pyTorchCheckpoint)
    let legacy = try folder.file(CheckpointFixture.legacy(), named: "legacy.onnx")
    #expect(try ModelFileFormat(contentsOf: legacy) == .pyTorchCheckpoint)
  }

  @Test(
    arguments: [
      ("empty", [UInt8]()),
      ("a JPEG", [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]),
      ("text", Array("hello, model".utf8)),
      ("only a version", [0x08, 0x07]),
      ("a field past the end", [0x08, 0x07, 0x12, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
      (
        "a length that overflows",
        [0x08, 0x01, 0x12, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]
      ),
      ("a cut-off varint", [0x08, 0xFF, 0xFF]),
      ("field number zero", [0x00, 0x01]),
    ] as [(String, [UInt8])])
  func filesInNoFormatAreUnsupported(_ name: String, _ bytes: [UInt8]) throws {
    let folder = try Folder()
    let file = try folder.file(bytes)
    let error = try #require(throws: ModelFormatsError.self) {
      try ModelFileFormat(contentsOf: file)
    }
    #expect(error.code == .unsupported, "\(name)")
    #expect(error.message.contains("not an ONNX, Core ML or PyTorch model file"), "\(name)")
  }

  @Test func missingFilesAndPlainFoldersAreErrors() throws {
    let folder = try Folder()
    let missing = folder.url.appendingPathComponent("absent.onnx")
    let error = try #require(throws: ModelFormatsError.self) {
      try ModelFileFormat(contentsOf: missing)
    }
    #expect(error.message.contains("does not exist"))
    let plain = try #require(throws: ModelFormatsError.self) {
      try ModelFileFormat(contentsOf: folder.url)
    }
    #expect(plain.code == .unsupported)
    #expect(plain.message.contains("Manifest.json"))
  }
}
