import Foundation
import ImagePipeline
import ModelFormats
import NeuralCore
import TestSupport
import Testing

/// The EfficientNet-Lite recipe of Docs/Design.md section 4 against the reference inputs that
/// produced ONNX Runtime's logits, on the decoded photos of ../shared/models.
@Suite(
  .enabled(
    if: SharedData.contains("models/ref/manifest.json"),
    Comment(rawValue: SharedData.skipReason(for: "models/ref/manifest.json"))))
struct EfficientNetLiteParityTests {
  private struct Case: Sendable, CustomStringConvertible {
    let model: String
    let photo: String
    let size: Int
    let height: Int
    let width: Int
    let cropTopLeftSize: [Int]
    let decodedPath: String
    let inputPath: String

    var description: String { "\(model)/\(photo)" }
  }

  private static func cases() throws -> [Case] {
    let manifestURL = try #require(SharedData.url("models/ref/manifest.json"))
    let manifest = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
    let photos = try #require(manifest["photos"] as? [String: [String: Any]])
    let models = try #require(manifest["models"] as? [String: [String: Any]])
    var cases: [Case] = []
    for (model, description) in models.sorted(by: { $0.key < $1.key }) {
      let shape = try #require(description["input_shape"] as? [Int])
      let references = try #require(description["photos"] as? [String: [String: Any]])
      for (photo, reference) in references.sorted(by: { $0.key < $1.key }) {
        let decoded = try #require(photos[photo])
        let hwc = try #require(decoded["decoded_shape_hwc"] as? [Int])
        cases.append(
          Case(
            model: model, photo: photo, size: shape[3], height: hwc[0], width: hwc[1],
            cropTopLeftSize: try #require(reference["crop_box_top_left_size"] as? [Int]),
            decodedPath: "models/" + (try #require(decoded["decoded"] as? String)),
            inputPath: "models/" + (try #require(reference["input"] as? String))))
      }
    }
    return cases
  }

  @Test func everyReferenceInputIsReproducedWithin1e4() throws {
    let cases = try Self.cases()
    #expect(cases.count >= 12, "expected at least 6 photos for each of two models")
    var worst: Float = 0
    for item in cases {
      let decodedURL = try #require(SharedData.url(item.decodedPath), "\(item.decodedPath)")
      let referenceURL = try #require(SharedData.url(item.inputPath), "\(item.inputPath)")
      let pixels = [UInt8](try Data(contentsOf: decodedURL))
      let image = try RasterImage(
        width: item.width, height: item.height, format: .rgb, pixels: pixels)
      let input = try ModelInputSpec.efficientNetLite(size: item.size).tensor(from: image)
      let reference = try NPYFile.read(contentsOfFile: referenceURL.path)
      #expect(reference.shape == [1, 3, item.size, item.size], "\(item)")
      #expect(input.tensor.shape == reference.shape, "\(item)")
      let crop = input.provenance.cropRect
      #expect(
        [crop.y, crop.x, crop.width] == item.cropTopLeftSize && crop.width == crop.height,
        "\(item) crop \(crop)")
      let difference = zip(input.tensor.values, reference.scalars).map { abs($0 - $1) }.max() ?? 1
      #expect(difference <= 1e-4, "\(item): max abs difference \(difference)")
      worst = max(worst, difference)
    }
    print("EfficientNet-Lite parity: \(cases.count) inputs, worst max abs difference \(worst)")
  }
}
