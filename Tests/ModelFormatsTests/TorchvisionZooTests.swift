import Foundation
import ModelFormats
import TestSupport
import Testing

@testable import NeuralCore

/// torchvision's classification zoo as `Scripts/onnx-zoo/generate.sh` exports it (random weights,
/// the legacy exporter, raw and simplified, opset 13 and 17, some with a dynamic batch), each run
/// through ``InferenceSession`` and compared with ONNX Runtime's logits for the same input.
///
/// The debug build runs the cases the generator marks `debug` (small models at 64 px); the
/// release job of `.ci/run` runs every case on the CPU's fastest kernel set, and every
/// architecture once (its plain opset-17 export) on each other set: the exports of one
/// architecture differ in graph form, which the importer sees, not in the kernels they run.
@Suite(
  .serialized,
  .requiresGeneratedFixture(TorchvisionZoo.manifest, madeBy: "Scripts/onnx-zoo/generate.sh"))
struct TorchvisionZooTests {
  /// The cases this build runs: the `debug` tier in debug builds; in release every case on the
  /// fastest kernel set, one export per architecture on a forced slower set.
  static func runnable() -> [TorchvisionZoo.Case] {
    #if DEBUG
      return TorchvisionZoo.cases().filter { $0.tier == "debug" }
    #else
      let cases = TorchvisionZoo.cases()
      guard KernelSet.active != KernelSet.fastest else { return cases }
      var chosen: [String: TorchvisionZoo.Case] = [:]
      for zooCase in cases {
        let plain = zooCase.opset == 17 && !zooCase.simplified && !zooCase.dynamic
        if chosen[zooCase.architecture] == nil || plain { chosen[zooCase.architecture] = zooCase }
      }
      return cases.filter { chosen[$0.architecture]?.name == $0.name }
    #endif
  }

  @Test(arguments: runnable())
  func matchesONNXRuntime(_ zooCase: TorchvisionZoo.Case) throws {
    let start = ContinuousClock.now
    let session = try InferenceSession(
      contentsOf: URL(fileURLWithPath: zooCase.path("model.onnx")),
      options: SessionOptions(threadCount: 2))
    let loaded = ContinuousClock.now
    let input = try NPYFile.read(contentsOfFile: zooCase.path("input.npy"))
    let expected = try NPYFile.read(contentsOfFile: zooCase.path("output.npy"))
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
