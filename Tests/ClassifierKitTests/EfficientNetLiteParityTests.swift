import ClassifierKit
import Foundation
import NeuralCore
import Testing

/// The Swift-built EfficientNet-Lite0 against the ONNX export of the same weights, and against
/// ONNX Runtime's logits, on the reference inputs.
@Suite struct EfficientNetLiteParityTests {
  @Test func swiftBuiltNetworkMatchesONNXOnReferenceInputs() throws {
    guard ModelFixtures.models != nil else {
      print(ModelFixtures.sharedSkipReason)
      return
    }
    guard let classifier = ModelFixtures.classifier else {
      print(ModelFixtures.checkpointSkipReason)
      return
    }
    let onnxPath = try #require(ModelFixtures.onnxModel).path
    let session = try InferenceSession(contentsOfFile: onnxPath)
    let input = try ModelFixtures.reference("batch.input.npy")
    let runtime = try ModelFixtures.reference("batch.logits.npy")
    let swiftLogits = try classifier.logits(for: input)
    let onnxLogits = try #require(try session.run(["input": input])["logits"])
    #expect(swiftLogits.shape == runtime.shape)
    #expect(onnxLogits.shape == runtime.shape)
    let classes = runtime.shape[1]
    var worst: (swiftVersusONNX: Float, swiftVersusRuntime: Float) = (0, 0)
    for row in 0..<runtime.shape[0] {
      let range = (row * classes)..<((row + 1) * classes)
      let toONNX = zip(swiftLogits.scalars[range], onnxLogits.scalars[range])
        .map { abs($0 - $1) }.max() ?? .infinity
      let toRuntime = zip(swiftLogits.scalars[range], runtime.scalars[range])
        .map { abs($0 - $1) }.max() ?? .infinity
      print("EfficientNet-Lite0 parity row \(row): Swift vs NeuralCore ONNX \(toONNX), vs ORT \(toRuntime)")
      worst = (max(worst.0, toONNX), max(worst.1, toRuntime))
    }
    #expect(worst.swiftVersusONNX <= 1e-4)
    #expect(worst.swiftVersusRuntime <= 1e-3)
  }
}
