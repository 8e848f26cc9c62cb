import Foundation
import ModelFormats
import TestSupport
import Testing

@testable import NeuralCore

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

  @Test(arguments: CoreMLFixtures.runnable.filter { !$0.isMLProgram })
  func classifyGivesPyTorchsTopFive(_ fixture: CoreMLFixtures.Case) async throws {
    // One batch run per fixture (JSON Lines, one per photo). Debug builds, whose kernels are
    // unoptimized, take the first photo; release takes every photo.
    #if DEBUG
      let names = Array(fixture.photos.prefix(1))
    #else
      let names = fixture.photos
    #endif
    let result = try await run(
      ["classify"] + names.map(Self.photo)
        + ["--model", fixture.model.path, "--exact", "--top", "5", "--shard", "1/1"])
    #expect(result.status == 0, "\(fixture.name): \(result.error)")
    let lines = result.output.split(separator: "\n")
    #expect(lines.count == names.count, "\(fixture.name): \(result.output)")
    for (row, line) in lines.enumerated() where row < names.count {
      let report = try JSONDecoder().decode(ClassifyReport.self, from: Data(line.utf8))
      #expect(report.file == Self.photo(names[row]))
      #expect(
        report.classifications.map(\.label) == fixture.top5[row],
        "\(fixture.name) \(names[row])")
      let confidences = report.classifications.map(\.confidence)
      #expect(confidences.allSatisfy { $0 > 0 && $0 <= 1 }, "\(confidences)")
    }
  }

  /// `classify --model X.mlpackage --exact --json` on every ML Program fixture, under every
  /// kernel set this CPU runs (release; debug builds take the first photo, on the process's
  /// own set): the reference's five best labels, near ties within 1e-3 of the score scale
  /// allowed, since the references are float64.
  @Test(arguments: CoreMLFixtures.runnable.filter(\.isMLProgram))
  func classifyRunsMLProgramsLikeTheirReference(_ fixture: CoreMLFixtures.Case) async throws {
    #if DEBUG
      let names = Array(fixture.photos.prefix(1))
      let kernelSets = [KernelSet.active]
    #else
      let names = fixture.photos
      let kernelSets = KernelSet.underTest
    #endif
    let labels = try #require(try CoreMLModel(contentsOf: fixture.model).classLabels)
    let expected = try NPYFile.read(contentsOfFile: fixture.outputs.path)
    let classes = expected.shape[1]
    for kernels in kernelSets {
      let result = try await run(
        ["classify"] + names.map(Self.photo)
          + ["--model", fixture.model.path, "--exact", "--top", "5", "--json"],
        environment: ["VISION_CATALOG_KERNELS": kernels.rawValue])
      #expect(result.status == 0, "\(fixture.name) \(kernels): \(result.error)")
      let lines = result.output.split(separator: "\n")
      #expect(lines.count == names.count, "\(fixture.name): \(result.output)")
      for (row, line) in lines.enumerated() where row < names.count {
        let report = try JSONDecoder().decode(ClassifyReport.self, from: Data(line.utf8))
        let reference = Array(expected.scalars[(row * classes)..<((row + 1) * classes)])
        let given = report.classifications.map(\.label)
        #expect(
          fixture.agreesWithTopFive(given, row: row, reference: reference, classes: labels),
          "\(fixture.name) \(kernels) \(names[row]): \(given) against \(fixture.top5[row])")
      }
    }
  }

  /// `infer --model X.mlpackage` gives an ML Program's scores within 1e-3 of max(1, max |ref|)
  /// of the float64 reference, for every photo at once.
  @Test(arguments: CoreMLFixtures.runnable.filter(\.isMLProgram))
  func inferGivesAnMLProgramsScores(_ fixture: CoreMLFixtures.Case) async throws {
    let (scores, expected) = try await infer(fixture)
    #expect(scores.shape == expected.shape)
    let scale = max(1, expected.scalars.map(abs).max() ?? 0)
    let largest = zip(scores.scalars, expected.scalars).map { abs($0 - $1) }.max() ?? .infinity
    #expect(largest <= 1e-3 * scale, "\(fixture.name): largest difference \(largest)")
  }

  /// `infer` takes RGB pixels `[N, 3, H, W]` and applies the model's scale, biases and colour
  /// order itself: the hand-built networks (one RGB, one BGR) on every photo at once.
  @Test(
    arguments: CoreMLFixtures.cases.filter {
      $0.architecture.hasPrefix("layers_") && !$0.isMLProgram
    })
  func inferTakesRGBPixelsAndGivesTheScores(_ fixture: CoreMLFixtures.Case) async throws {
    let (scores, expected) = try await infer(fixture)
    #expect(scores.shape == expected.shape)
    let largest = zip(scores.scalars, expected.scalars).map { abs($0 - $1) }.max() ?? .infinity
    #expect(largest <= 1e-5, "\(fixture.name): largest difference \(largest)")
  }

  /// Runs `infer` on a fixture's photos (RGB planes); returns its scores and the reference's.
  func infer(_ fixture: CoreMLFixtures.Case) async throws -> (scores: Tensor, expected: Tensor) {
    let pixels = try NPYFile.read(contentsOfFile: fixture.pixels.path)
    // Debug builds run one photo through an ML Program; the small hand-built networks take all.
    #if DEBUG
      let count = fixture.isMLProgram ? 1 : pixels.shape[0]
    #else
      let count = pixels.shape[0]
    #endif
    let side = pixels.shape[1]
    var planes = [Float](repeating: 0, count: count * 3 * side * side)
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
    let result = try await run([
      "infer", "--model", fixture.model.path, "--input", input, "--output", output,
    ])
    #expect(result.status == 0, "\(result.error)")
    let scores = try NPYFile.read(contentsOfFile: output)
    let all = try NPYFile.read(contentsOfFile: fixture.outputs.path)
    let classes = all.shape[1]
    let expected = try Tensor(
      shape: [count, classes], scalars: Array(all.scalars.prefix(count * classes)))
    return (scores, expected)
  }

  /// A Create ML image classifier is refused in one line that names the way to retrain it.
  @Test func aCreateMLClassifierGivesOneClearLine() async throws {
    let model = CoreMLFixtures.root.appendingPathComponent("createml-scene-print.mlmodel").path
    let result = try await run(["classify", "Samples/coffee.png", "--model", model])
    #expect(result.status == 1)
    let errors = result.error.split(separator: "\n").filter { $0.hasPrefix("error:") }
    #expect(errors.count == 1, "\(result.error)")
    #expect(errors.first?.contains("Create ML image classifier") == true, "\(result.error)")
    #expect(errors.first?.contains("vision-catalog train") == true, "\(result.error)")
  }

  /// Damaged copies of an ML Program package (truncated weights, a truncated program, a
  /// broken sentinel, a manifest that is not JSON or is missing, a weight file that is a
  /// folder): `classify` exits 1 with one `error:` line each.
  @Test(arguments: [
    "weights cut in half", "program cut short", "sentinel broken", "manifest not JSON",
    "manifest missing", "weights a folder",
  ])
  func aDamagedPackageGivesOneErrorLine(_ damage: String) async throws {
    let source = CoreMLFixtures.root.appendingPathComponent("mlprogram-vit-fp16-rgb.mlpackage")
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("vision-catalog-damaged-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let package = folder.appendingPathComponent("Model.mlpackage")
    try FileManager.default.copyItem(at: source, to: package)
    let data = package.appendingPathComponent("Data/com.apple.CoreML")
    let weights = data.appendingPathComponent("weights/weight.bin")
    let program = data.appendingPathComponent("model.mlmodel")
    let manifest = package.appendingPathComponent("Manifest.json")
    switch damage {
    case "weights cut in half":
      let bytes = try Data(contentsOf: weights)
      try bytes.prefix(bytes.count / 2).write(to: weights)
    case "program cut short":
      let bytes = try Data(contentsOf: program)
      try bytes.prefix(bytes.count * 2 / 3).write(to: program)
    case "sentinel broken":
      var bytes = try Data(contentsOf: weights)
      bytes[64] ^= 0xFF
      try bytes.write(to: weights)
    case "manifest not JSON":
      try Data("{\"itemInfoEntries\": [".utf8).write(to: manifest)
    case "manifest missing":
      try FileManager.default.removeItem(at: manifest)
    default:
      try FileManager.default.removeItem(at: weights)
      try FileManager.default.createDirectory(at: weights, withIntermediateDirectories: false)
    }
    let result = try await run(["classify", Self.photo("coffee.png"), "--model", package.path])
    #expect(result.status == 1, "\(damage): \(result.output) \(result.error)")
    let errors = result.error.split(separator: "\n").filter { $0.hasPrefix("error:") }
    #expect(errors.count == 1, "\(damage): \(result.error)")
    print("damaged package, \(damage): \(errors.first ?? "")")
  }
}
