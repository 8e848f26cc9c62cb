import Foundation
import ModelFormats
import NeuralCore
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
/// Debug builds classify the first photo with five of the fixtures; `.ci/run`'s release job
/// classifies every photo with every fixture, one batch run per fixture.
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
    // One batch run per fixture (JSON Lines, one per photo). Debug builds, whose kernels are
    // unoptimized, take the first photo; release takes every photo.
    #if DEBUG
      let names = Array(fixture.photos.prefix(1))
    #else
      let names = fixture.photos
    #endif
    let result = try run(
      ["classify"] + names.map(Self.photo)
        + ["--model", fixture.model.path, "--exact", "--top", "5", "--shard", "1/1"])
    #expect(result.status == 0, "\(fixture.name): \(result.error)")
    let lines = result.output.split(separator: "\n")
    #expect(lines.count == names.count, "\(fixture.name): \(result.output)")
    for (row, line) in lines.enumerated() where row < names.count {
      let report = try JSONDecoder().decode(Report.self, from: Data(line.utf8))
      #expect(report.file == Self.photo(names[row]))
      #expect(
        report.classifications.map(\.label) == fixture.top5[row],
        "\(fixture.name) \(names[row])")
      let confidences = report.classifications.map(\.confidence)
      #expect(confidences.allSatisfy { $0 > 0 && $0 <= 1 }, "\(confidences)")
    }
  }

  /// `infer` takes RGB pixels `[N, 3, H, W]` and applies the model's scale, biases and colour
  /// order itself: the hand-built networks (one RGB, one BGR) on every photo at once.
  @Test(arguments: CoreMLFixtures.cases.filter { $0.architecture.hasPrefix("layers_") })
  func inferTakesRGBPixelsAndGivesTheScores(_ fixture: CoreMLFixtures.Case) throws {
    let pixels = try NPYFile.read(contentsOfFile: fixture.pixels.path)
    let (count, side) = (pixels.shape[0], pixels.shape[1])
    var planes = [Float](repeating: 0, count: pixels.count)
    for image in 0..<count {
      for position in 0..<(side * side) {
        for channel in 0..<3 {
          planes[(image * 3 + channel) * side * side + position] =
            pixels.scalars[(image * side * side + position) * 3 + channel]
        }
      }
    }
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("vision-catalog-infer-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let input = folder.appendingPathComponent("in.npy").path
    let output = folder.appendingPathComponent("out.npy").path
    try NPYFile.write(Tensor(shape: [count, 3, side, side], scalars: planes), toFile: input)
    let result = try run([
      "infer", "--model", fixture.model.path, "--input", input, "--output", output,
    ])
    #expect(result.status == 0, "\(result.error)")
    let scores = try NPYFile.read(contentsOfFile: output)
    let expected = try NPYFile.read(contentsOfFile: fixture.outputs.path)
    #expect(scores.shape == expected.shape)
    let largest = zip(scores.scalars, expected.scalars).map { abs($0 - $1) }.max() ?? .infinity
    #expect(largest <= 1e-5, "\(fixture.name): largest difference \(largest)")
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
    var file: String
    var classifications: [Item]
  }
}
