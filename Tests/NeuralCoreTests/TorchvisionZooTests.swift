import Foundation
import Testing

@testable import NeuralCore

/// torchvision's classification zoo as `Scripts/onnx-zoo/generate.sh` exports it (random weights,
/// the legacy exporter, raw and simplified, opset 13 and 17, some with a dynamic batch), each run
/// through ``InferenceSession`` and compared with ONNX Runtime's logits for the same input.
///
/// The debug build runs the cases the generator marks `debug` (small models at 64 px); the
/// release job of `.ci/run` runs every case, once per kernel set.
@Suite(
  .serialized,
  .requiresGeneratedFixture(
    TorchvisionZooCase.manifestURL, madeBy: "Scripts/onnx-zoo/generate.sh"))
struct TorchvisionZooTests {
  @Test(arguments: TorchvisionZooCase.runnable())
  func matchesONNXRuntime(_ zooCase: TorchvisionZooCase) throws {
    let start = ContinuousClock.now
    let session = try InferenceSession(
      contentsOfFile: zooCase.modelPath, options: SessionOptions(threadCount: 2))
    let loaded = ContinuousClock.now
    let input = try NPYFile.read(contentsOfFile: zooCase.inputPath)
    let expected = try NPYFile.read(contentsOfFile: zooCase.outputPath)
    let output = try #require(try session.run(["input": input])["logits"])
    print(
      "zoo \(zooCase.name) \(KernelSet.active): loaded in \(loaded - start), "
        + "ran in \(ContinuousClock.now - loaded)")
    #expect(output.shape == expected.shape, "\(zooCase.name): shape")
    guard output.shape == expected.shape, let classes = output.shape.last, classes > 0 else {
      return
    }
    let largest = expected.scalars.map(abs).max() ?? 0
    let tolerance = 1e-3 * max(1, largest)
    for row in 0..<(output.count / classes) {
      let range = (row * classes)..<((row + 1) * classes)
      let ours = output.scalars[range]
      let theirs = expected.scalars[range]
      let difference = zip(ours, theirs).map { abs($0 - $1) }.max() ?? .infinity
      print("zoo \(zooCase.name) row \(row): max abs \(difference), tolerance \(tolerance)")
      #expect(difference <= tolerance, "\(zooCase.name) row \(row): max abs \(difference)")
      #expect(
        ours.indices.max { ours[$0] < ours[$1] } == theirs.indices.max { theirs[$0] < theirs[$1] },
        "\(zooCase.name) row \(row): argmax")
    }
  }
}

/// One exported model of the torchvision zoo, as `manifest.json` describes it.
struct TorchvisionZooCase: Decodable, Sendable, CustomTestStringConvertible {
  /// The case's name, such as `resnet18-op13-simplified`; also its directory.
  var name: String
  /// torchvision's architecture name, such as `resnet18`.
  var architecture: String
  /// The opset it was exported at.
  var opset: Int
  /// Whether onnxsim simplified it.
  var simplified: Bool
  /// Whether its batch axis is dynamic.
  var dynamic: Bool
  /// `debug` (runs in every build) or `release` (runs in optimized builds only).
  var tier: String

  var testDescription: String { name }

  /// The generated zoo's root (`.cache/onnx-zoo`, or `$ONNX_ZOO_DIR`).
  static let root: URL =
    ProcessInfo.processInfo.environment["ONNX_ZOO_DIR"].map { URL(fileURLWithPath: $0) }
    ?? SharedModels.cacheURL("onnx-zoo")

  static var manifestURL: URL { root.appendingPathComponent("manifest.json") }

  /// The cases this build runs: every case in release, the `debug` tier in debug builds.
  static func runnable() -> [TorchvisionZooCase] {
    guard let data = try? Data(contentsOf: manifestURL),
      let manifest = try? JSONDecoder().decode([String: TorchvisionZooCase].self, from: data)
    else { return [] }
    #if DEBUG
      let cases = manifest.values.filter { $0.tier == "debug" }
    #else
      let cases = Array(manifest.values)
    #endif
    return cases.sorted { $0.name < $1.name }
  }

  var modelPath: String { Self.root.appendingPathComponent("\(name)/model.onnx").path }
  var inputPath: String { Self.root.appendingPathComponent("\(name)/input.npy").path }
  var outputPath: String { Self.root.appendingPathComponent("\(name)/output.npy").path }
}
