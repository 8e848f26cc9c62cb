import Foundation
import TestSupport
import Testing

/// `vision-catalog classify --exact --model FILE.mlmodel` on the coremltools conversions of
/// `Scripts/coreml-fixtures/generate.sh`: no sidecar, the input size, colour order, scale,
/// biases and labels from the file, and the same five labels, in order, as PyTorch gives.
///
/// The photos are the generator's 224 x 224 crops (Pillow, as Vision's centerCrop), saved as
/// PNG, so the model sees exactly the reference's pixels: the networks have random weights,
/// and their near-tied scores swap places under another resampler (9 of 91 top-5 lists on the
/// original photos, 2 of them at the top).
///
/// Debug builds classify the first photo with three of the fixtures; `.ci/run`'s release job
/// classifies four photos with every fixture.
@Suite(
  .serialized,
  .enabled(if: CoreMLFixtures.isAvailable, Comment(rawValue: CoreMLFixtures.skipReason)))
struct CoreMLCommandLineTests: CommandLineRunning {

  /// A fixture photo's 224 x 224 crop.
  static func photo(_ name: String) -> String {
    let stem = URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent
    return CoreMLFixtures.root.appendingPathComponent("photos/\(stem).png").path
  }

  @Test(arguments: CoreMLFixtures.runnable)
  func classifyGivesPyTorchsTopFive(_ fixture: CoreMLFixtures.Case) throws {
    // Every photo's raw outputs are checked by NeuralCore's CoreMLFixtureTests; here each
    // process launch loads the model again, so release takes four photos, debug one.
    #if DEBUG
      let rows = Array(fixture.photos.enumerated().prefix(1))
    #else
      let rows = Array(fixture.photos.enumerated().prefix(4))
    #endif
    for (row, name) in rows {
      let photo = Self.photo(name)
      let result = try run([
        "classify", photo, "--model", fixture.model.path, "--exact", "--top", "5", "--json",
      ])
      #expect(result.status == 0, "\(fixture.name) \(name): \(result.error)")
      guard result.status == 0 else { continue }
      let report = try JSONDecoder().decode(Report.self, from: Data(result.output.utf8))
      #expect(
        report.classifications.map(\.label) == fixture.top5[row], "\(fixture.name) \(name)")
      let confidences = report.classifications.map(\.confidence)
      #expect(confidences.allSatisfy { $0 > 0 && $0 <= 1 }, "\(confidences)")
    }
  }

  @Test(arguments: ["createml-scene-print.mlmodel", "mobilenet_v2-mlprogram.mlpackage"])
  func aModelThatCannotRunGivesOneClearLine(_ file: String) throws {
    let model = CoreMLFixtures.root.appendingPathComponent(file).path
    let result = try run(["classify", "Samples/coffee.png", "--model", model])
    #expect(result.status == 1)
    let errors = result.error.split(separator: "\n").filter { $0.hasPrefix("error:") }
    #expect(errors.count == 1, "\(result.error)")
    let expected = file.hasPrefix("createml") ? "Create ML image classifier" : "ML Program"
    #expect(errors.first?.contains(expected) == true, "\(result.error)")
  }

  struct Report: Decodable {
    struct Item: Decodable {
      var label: String
      var confidence: Float
    }
    var classifications: [Item]
  }
}
