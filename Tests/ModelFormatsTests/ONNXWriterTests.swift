import Foundation
import ModelFormats
import TestSupport
import Testing

@testable import NeuralCore

/// `ONNXModel.serializedBytes()`: every model the reader reads is written back to an equal model,
/// and ONNX's own checker and ONNX Runtime accept what it writes.
struct ONNXWriterTests {
  /// ONNX's backend node tests: every attribute kind, many data types, subgraphs and functions.
  @Test(
    .enabled(
      if: ONNXNodeTestCase.rootDirectory() != nil,
      Comment(rawValue: ONNXNodeTestCase.skipReason)))
  func everyNodeTestModelRoundTrips() throws {
    let all = try #require(ONNXNodeTestCase.allCaseDirectories())
    // Debug builds (also run under the address sanitizer) take every eighth model; `.ci/run`'s
    // release job takes them all.
    #if DEBUG
      let directories = all.enumerated().filter { $0.offset % 8 == 0 }.map(\.element)
    #else
      let directories = all
    #endif
    var written = 0
    var refused: [String: Int] = [:]
    for directory in directories {
      let path = directory.appendingPathComponent("model.onnx").path
      guard let model = try? ONNXModel(contentsOf: URL(fileURLWithPath: path)) else { continue }
      let bytes: [UInt8]
      do {
        bytes = try model.serializedBytes()
      } catch {
        #expect(error.code == .unsupported, "\(directory.lastPathComponent): \(error)")
        refused[error.message.split(separator: " ").suffix(4).joined(separator: " "), default: 0] +=
          1
        continue
      }
      let reread = try ONNXModel(serializedBytes: bytes)
      // Compared as text: NaN initializers print alike but are never equal.
      #expect(
        String(describing: reread) == String(describing: model), "\(directory.lastPathComponent)")
      #expect(try reread.serializedBytes() == bytes, "\(directory.lastPathComponent)")
      written += 1
    }
    print("ONNX writer: \(written) node-test models round-trip; refused: \(refused)")
    #expect(written * 10 > directories.count * 9, "\(written) of \(directories.count)")
  }

  /// EfficientNet-Lite0 written out, then checked by `onnx.checker` and run by ONNX Runtime on
  /// a reference input: the same logits as the original file gives.
  @Test(
    .enabled(
      if: SharedData.contains("models/onnx/efficientnet-lite0.onnx")
        && FileManager.default.isExecutableFile(atPath: Self.python.path),
      Comment(
        rawValue:
          "needs ../shared/models or its rebuild, and the torch venv (Scripts/setup --test-tools)"))
  )
  func onnxRuntimeRunsAWrittenModel() throws {
    let original = try #require(SharedData.url("models/onnx/efficientnet-lite0.onnx"))
    let input = try #require(SharedData.url("models/ref/efficientnet-lite0/chelsea.input.npy"))
    let expected = try #require(SharedData.url("models/ref/efficientnet-lite0/chelsea.logits.npy"))
    let model = try ONNXModel(contentsOf: original)
    let written = FileManager.default.temporaryDirectory
      .appendingPathComponent("vision-catalog-written-\(UUID().uuidString).onnx")
    try Data(model.serializedBytes()).write(to: written)
    defer { try? FileManager.default.removeItem(at: written) }
    let output = written.deletingPathExtension().appendingPathExtension("npy")
    defer { try? FileManager.default.removeItem(at: output) }
    let script = """
      import sys, numpy as np, onnx, onnxruntime as ort
      onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)
      session = ort.InferenceSession(sys.argv[1], providers=["CPUExecutionProvider"])
      feed = {session.get_inputs()[0].name: np.load(sys.argv[2])}
      np.save(sys.argv[3], session.run(None, feed)[0].astype(np.float32))
      """
    let process = Process()
    process.executableURL = Self.python
    process.arguments = ["-c", script, written.path, input.path, output.path]
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(message)")
    guard process.terminationStatus == 0 else { return }
    let logits = try NPYFile.read(contentsOfFile: output.path)
    let reference = try NPYFile.read(contentsOfFile: expected.path)
    #expect(logits.shape == reference.shape)
    let largest = zip(logits.scalars, reference.scalars).map { abs($0 - $1) }.max() ?? .infinity
    print(
      "ONNX writer: ONNX Runtime on the written EfficientNet-Lite0, largest difference \(largest)")
    #expect(largest <= 1e-4, "largest difference \(largest)")
  }

  static let python = CorpusLocator.packageRoot.appendingPathComponent(
    ".cache/torch-venv/bin/python")

  @Test func anUnreadAttributeIsNotWrittenSilently() {
    var model = ONNXModel(
      irVersion: 8, opsetImports: [ONNXOperatorSetID(domain: "", version: 13)],
      producerName: "", producerVersion: "", domain: "", modelVersion: 0,
      graph: ONNXGraph(
        name: "g",
        nodes: [
          ONNXNode(
            name: "n", opType: "Relu", domain: "", inputs: ["x"], outputs: ["y"],
            attributes: [ONNXAttribute(name: "odd", value: .unread(attributeType: 13))])
        ], initializers: [], inputs: [], outputs: [], valueInfo: []))
    #expect(throws: ModelFormatsError.self) { try model.serializedBytes() }
    model.graph.nodes[0].attributes = []
    #expect(throws: Never.self) { try model.serializedBytes() }
  }
}
