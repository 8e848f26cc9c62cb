import Foundation
import ModelFormats
import Testing

@testable import NeuralCore

/// EfficientNet-Lite graphs against ONNX Runtime's logits on the reference photos, on the active
/// kernel set (`.ci/run` runs this suite once per set the CPU has, forced with
/// `VISION_CATALOG_KERNELS`).
@Suite(
  .requiresSharedModels(
    "onnx/efficientnet-lite0.onnx", "onnx/efficientnet-lite0.bn.onnx",
    "onnx/efficientnet-lite1.onnx", "ref/efficientnet-lite0", "ref/efficientnet-lite1"))
struct ModelParityTests {
  struct Outcome {
    var maximumDifference: Float = 0
    var images = 0
  }

  /// Indices of the `k` largest values, largest first.
  static func topK(_ values: ArraySlice<Float>, _ k: Int) -> [Int] {
    let base = values.startIndex
    return values.indices.sorted { values[$0] > values[$1] }.prefix(k).map { $0 - base }
  }

  static func compare(
    _ logits: Tensor, _ reference: Tensor, label: String, outcome: inout Outcome
  ) {
    #expect(logits.shape == reference.shape, "\(label): shape")
    guard logits.shape == reference.shape, let classes = logits.shape.last, classes > 0 else {
      return
    }
    for row in 0..<(logits.count / classes) {
      let range = (row * classes)..<((row + 1) * classes)
      let ours = logits.scalars[range]
      let theirs = reference.scalars[range]
      let difference = zip(ours, theirs).map { abs($0 - $1) }.max() ?? .infinity
      outcome.maximumDifference = max(outcome.maximumDifference, difference)
      outcome.images += 1
      #expect(difference <= 1e-3, "\(label) row \(row): max abs \(difference)")
      #expect(topK(ours, 1) == topK(theirs, 1), "\(label) row \(row): top-1")
      #expect(Set(topK(ours, 5)) == Set(topK(theirs, 5)), "\(label) row \(row): top-5 set")
    }
  }

  @Test(arguments: [
    ("efficientnet-lite0.onnx", "efficientnet-lite0"),
    ("efficientnet-lite0.bn.onnx", "efficientnet-lite0"),
    ("efficientnet-lite1.onnx", "efficientnet-lite1"),
  ])
  func matchesONNXRuntime(model: String, reference: String) throws {
    let modelPath = try SharedModels.requiredPath("onnx/\(model)")
    let referencePath = try SharedModels.requiredPath("ref/\(reference)")
    let session = try InferenceSession(
      contentsOf: URL(fileURLWithPath: modelPath), options: SessionOptions(threadCount: 2))
    let inputName = try #require(session.inputs.first?.name)
    let outputName = try #require(session.outputs.first?.name)
    let stems = try FileManager.default.contentsOfDirectory(atPath: referencePath)
      .filter { $0.hasSuffix(".input.npy") }.map { String($0.dropLast(".input.npy".count)) }
      .sorted()
    #expect(stems.contains("batch"))
    #if DEBUG
      // An unoptimized build runs one image in about 45 s; the full sweep belongs to release,
      // which .ci/run runs after the debug suite.
      print(
        "parity \(model): debug build checks chelsea only; `swift test -c release "
          + "--filter ModelParityTests` (as .ci/run does) checks every input and the batch")
      let checked = stems.filter { $0 == "chelsea" }
    #else
      let checked = stems
    #endif
    var outcome = Outcome()
    for stem in checked {
      let input = try NPYFile.read(contentsOfFile: "\(referencePath)/\(stem).input.npy")
      let expected = try NPYFile.read(contentsOfFile: "\(referencePath)/\(stem).logits.npy")
      let start = ContinuousClock.now
      let output = try #require(try session.run([inputName: input])[outputName])
      print("parity \(model) \(KernelSet.active) \(stem): ran in \(ContinuousClock.now - start)")
      Self.compare(output, expected, label: "\(model) \(stem)", outcome: &outcome)
    }
    print(
      "parity \(model) \(KernelSet.active): \(outcome.images) images, max abs \(outcome.maximumDifference)"
    )
  }
}
