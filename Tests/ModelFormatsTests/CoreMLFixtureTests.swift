import Foundation
import ModelFormats
import TestSupport
import Testing

@testable import NeuralCore

/// Core ML models as coremltools converts them (`Scripts/coreml-fixtures/generate.sh`:
/// MobileNet v2, ResNet-18 and SqueezeNet 1.1 with random weights; FP32, FP16, 8-bit linear and
/// 4-bit look-up-table weights; RGB and BGR inputs with scale and biases), as
/// `NeuralNetworkBuilder` builds them by hand (every other layer kind this importer runs), and
/// as ML Programs (FP32, FP16, palettized and 8-bit weights, a vision transformer, a flexible
/// input, hand-built layers), run on real photos and compared with PyTorch's outputs for the
/// same pixels: within 1e-3 x max(1, max |ref|), and the same five best labels (for ML Programs,
/// whose references are float64, up to ties within that bound).
@Suite(
  .serialized,
  .enabled(if: CoreMLFixtures.isAvailable, Comment(rawValue: CoreMLFixtures.skipReason)))
struct CoreMLFixtureTests {
  @Test func theFixturesAreThere() {
    let networks = CoreMLFixtures.cases.filter { !$0.isMLProgram }
    let precisions = Set(networks.map(\.precision))
    #expect(precisions == ["fp32", "fp16", "int8", "lut4"], "\(precisions)")
    #expect(Set(CoreMLFixtures.cases.map(\.colorLayout)) == ["RGB", "BGR"])
    let programs = Set(CoreMLFixtures.mlPrograms.map(\.name))
    let expected: Set = [
      "mlprogram-mobilenet_v2-fp32-rgb", "mlprogram-mobilenet_v2-fp16-bgr",
      "mlprogram-resnet18-fp16-rgb", "mlprogram-mobilenet_v2-pal4-rgb",
      "mlprogram-resnet18-pal6-bgr", "mlprogram-mobilenet_v2-int8ios16-rgb",
      "mlprogram-mobilenet_v2-int8ios18-bgr", "mlprogram-vit-fp16-rgb", "mlprogram-vit-fp32-bgr",
      "mlprogram-vit-fp16ios18-bgr",
      "mlprogram-squeezenet1_1-flexible-rgb", "mlprogram-layers_a-fp32-rgb",
      "mlprogram-layers_b-fp32-rgb",
    ]
    #expect(programs == expected, "\(programs.symmetricDifference(expected))")
  }

  @Test(arguments: CoreMLFixtures.runnable)
  func outputsMatchPyTorch(_ fixture: CoreMLFixtures.Case) throws {
    let start = ContinuousClock.now
    let model = try CoreMLModel(contentsOf: fixture.model)
    let read = ContinuousClock.now
    #expect(model.imageInput.width == 224 && model.imageInput.height == 224)
    #expect(model.imageInput.colorLayout == (fixture.colorLayout == "BGR" ? .bgr : .rgb))
    let labels = try #require(model.classLabels)
    let expected = try NPYFile.read(contentsOfFile: fixture.outputs.path)
    let classes = expected.shape[1]
    #expect(labels.count == classes)
    let session = try InferenceSession(
      coreMLModel: model, options: SessionOptions(threadCount: 2))
    print(
      "coreml \(fixture.name): read in \(read - start), planned in \(ContinuousClock.now - read)")
    let pixels = try NPYFile.read(contentsOfFile: fixture.pixels.path)
    #expect(pixels.shape == [fixture.photos.count, 224, 224, 3])
    let pixelInput = model.inputName
    // Debug builds run the first photo; `.ci/run`'s release job runs every photo.
    #if DEBUG
      let rows = fixture.photos.prefix(1).enumerated()
    #else
      let rows = fixture.photos.enumerated()
    #endif
    for (row, photo) in rows {
      let input = try Self.planes(
        pixels, row: row, bgr: model.imageInput.colorLayout == .bgr)
      let output = try #require(try session.run([pixelInput: input])[model.scoresOutput])
      #expect(output.count == classes, "\(photo): \(output.shape)")
      let reference = Array(expected.scalars[(row * classes)..<((row + 1) * classes)])
      let scale = max(1, reference.map(abs).max() ?? 0)
      let largest = zip(output.scalars, reference).map { abs($0 - $1) }.max() ?? .infinity
      print("coreml \(fixture.name) \(photo): largest difference \(largest)")
      // The hand-built networks end in a softmax over ten labels, where 1e-3 would hide a
      // misplaced layer: their probabilities must be within 1e-5 (they are within 1e-6).
      let bound =
        fixture.architecture.hasPrefix("layers_") && !fixture.isMLProgram ? 1e-5 : 1e-3 * scale
      #expect(largest <= bound, "\(fixture.name) \(photo): largest difference \(largest)")
      let top5 = output.scalars.indices.sorted { output.scalars[$0] > output.scalars[$1] }
        .prefix(5).map { labels[$0] }
      // ML Programs' references are float64 from the stored weights: near ties may swap.
      let agrees =
        fixture.isMLProgram
        ? fixture.agreesWithTopFive(top5, row: row, reference: reference, classes: labels)
        : top5 == fixture.top5[row]
      #expect(agrees, "\(fixture.name) \(photo): \(top5) against \(fixture.top5[row])")
    }
  }

  /// One photo's pixels, HWC RGB, as the NCHW planes the model takes, in its colour order.
  static func planes(_ pixels: Tensor, row: Int, bgr: Bool) throws -> Tensor {
    let side = 224
    let area = side * side
    var planes = [Float](repeating: 0, count: 3 * area)
    let base = row * area * 3
    for index in 0..<area {
      for channel in 0..<3 {
        let plane = bgr ? 2 - channel : channel
        planes[plane * area + index] = pixels.scalars[base + index * 3 + channel]
      }
    }
    return try Tensor(shape: [1, 3, side, side], scalars: planes)
  }
}
