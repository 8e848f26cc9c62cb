import Foundation
import ModelFormats
import NeuralCore
import Testing

/// Models whose weights live beside the `.onnx` file (ONNX external data).
///
/// Exporters write them for models past protobuf's 2 GB. The whole-model check is the zoo's `vit_h_14` (one file per
/// tensor) and `regnet_y_128gf` (one file with offsets) in ``TorchvisionZooTests``.
@Suite struct ONNXExternalDataTests {
  /// A [2, 2] float initializer `w` whose external data entries are `entries`.
  static func model(_ entries: [(String, String)]) -> [UInt8] {
    ONNXFixture.model { tensor in
      tensor.int(1, 2)
      tensor.int(1, 2)
      tensor.int(2, 1)
      tensor.string(8, "w")
      for (key, value) in entries {
        tensor.message(13) {
          $0.string(1, key)
          $0.string(2, value)
        }
      }
      tensor.int(14, 1)
    }
  }

  static let weights: [UInt8] = [Float(1), 2, 3, 4].flatMap { value in
    (0..<4).map { UInt8(truncatingIfNeeded: value.bitPattern >> (8 * $0)) }
  }

  /// Writes the model and `weights.bin` (8 bytes of padding, then the weights) into a new folder,
  /// gives `body` the model's path, and removes the folder.
  static func withModel(
    _ entries: [(String, String)], _ body: (String) throws -> Void
  ) throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("onnx-external-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data([UInt8](repeating: 0xEE, count: 8) + weights).write(
      to: directory.appendingPathComponent("weights.bin"))
    let path = directory.appendingPathComponent("model.onnx").path
    try Data(model(entries)).write(to: URL(fileURLWithPath: path))
    try body(path)
  }

  @Test func readsTensorsAtTheirOffsetBesideTheModel() throws {
    try Self.withModel([("location", "weights.bin"), ("offset", "8"), ("length", "16")]) { path in
      let model = try ONNXModel(contentsOf: URL(fileURLWithPath: path))
      #expect(
        try model.graph.initializer(named: "w")?.floatTensor()
          == Tensor(shape: [2, 2], scalars: [1, 2, 3, 4]))
    }
    // Without a length the tensor's own size is read.
    try Self.withModel([("location", "weights.bin"), ("offset", "8")]) { path in
      let unsized = try ONNXModel(contentsOf: URL(fileURLWithPath: path))
      #expect(try unsized.graph.initializer(named: "w")?.floatTensor().scalars == [1, 2, 3, 4])
    }
  }

  @Test func refusesLocationsOutsideTheModelsFolder() throws {
    for location in ["/etc/passwd", "../weights.bin", "a/../../weights.bin", "", "sub//w"] {
      try Self.withModel([("location", location)]) { path in
        expectModelFormatsError(.malformedFile, location) {
          _ = try ONNXModel(contentsOf: URL(fileURLWithPath: path))
        }
      }
    }
    try Self.withModel([("location", "absent.bin")]) { missing in
      expectModelFormatsError(.io) { _ = try ONNXModel(contentsOf: URL(fileURLWithPath: missing)) }
    }
  }

  @Test func refusesRangesThatDoNotFit() throws {
    let cases: [([(String, String)], ModelFormatsError.Code)] = [
      ([("location", "weights.bin"), ("offset", "16")], .malformedFile),
      ([("location", "weights.bin"), ("length", "12")], .malformedFile),
      ([("location", "weights.bin"), ("offset", "-8")], .malformedFile),
      ([("location", "weights.bin"), ("offset", "99999999999999999999")], .malformedFile),
      ([("location", "weights.bin"), ("offset", "9223372036854775800")], .malformedFile),
      ([("offset", "8")], .malformedFile),
    ]
    for (entries, code) in cases {
      try Self.withModel(entries) { path in
        expectModelFormatsError(code, "\(entries)") {
          _ = try ONNXModel(contentsOf: URL(fileURLWithPath: path))
        }
      }
    }
  }

  @Test func capsTheBytesReadAcrossTheModel() throws {
    try Self.withModel([("location", "weights.bin"), ("offset", "8")]) { path in
      expectModelFormatsError(.limitExceeded) {
        _ = try ONNXModel(
          contentsOf: URL(fileURLWithPath: path),
          limits: ImportLimits(maximumExternalDataBytes: 15))
      }
      _ = try ONNXModel(
        contentsOf: URL(fileURLWithPath: path), limits: ImportLimits(maximumExternalDataBytes: 16))
    }
  }

  @Test func bytesWithoutAFileNameTheTensorAndItsLocation() {
    do {
      _ = try ONNXModel(serializedBytes: Self.model([("location", "weights.bin")]))
      Issue.record("external data was accepted without a folder to read it from")
    } catch {
      #expect(error.code == .unsupported)
      #expect(error.message.contains("'w'"))
      #expect(error.message.contains("weights.bin"))
    }
  }
}
