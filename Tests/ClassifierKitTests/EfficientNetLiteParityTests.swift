import ClassifierKit
import Foundation
import ModelFormats
import NeuralCore
import Testing

/// The Swift-built EfficientNet-Lite0 against the ONNX export of the same weights (run by
/// NeuralCore's ONNX importer) and against ONNX Runtime's logits, on the reference inputs.
@Suite struct EfficientNetLiteParityTests {
  @Test(.enabled(if: ModelFixtures.canClassifyPhotos, ModelFixtures.photosSkipReason))
  func swiftBuiltNetworkMatchesONNXOnReferenceInputs() throws {
    let classifier = try ModelFixtures.classifierForPhotos()
    let session = try InferenceSession(contentsOf: try #require(ModelFixtures.onnxModel))
    let stems = ModelFixtures.parityStems
    var worst: (toONNX: Float, toRuntime: Float) = (0, 0)
    for stem in stems {
      let input = try ModelFixtures.reference("\(stem).input.npy")
      let runtime = try ModelFixtures.reference("\(stem).logits.npy")
      let swiftLogits = try classifier.logits(for: input)
      let onnxLogits = try #require(try session.run(["input": input])["logits"])
      #expect(swiftLogits.shape == [1, 1000])
      #expect(onnxLogits.count == runtime.count)
      let toONNX = zip(swiftLogits.scalars, onnxLogits.scalars).map { abs($0 - $1) }.max() ?? .nan
      let toRuntime = zip(swiftLogits.scalars, runtime.scalars).map { abs($0 - $1) }.max() ?? .nan
      print(
        "Lite0 parity \(stem): Swift-built vs ONNX file \(toONNX), vs ONNX Runtime \(toRuntime)")
      #expect(toONNX <= 1e-4, "\(stem)")
      #expect(toRuntime <= 1e-3, "\(stem)")
      worst = (max(worst.toONNX, toONNX), max(worst.toRuntime, toRuntime))
    }
    print(
      "Lite0 parity over \(stems.count) inputs: worst \(worst.toONNX) (ONNX), \(worst.toRuntime) (ORT)"
    )
  }
}
