import Foundation
import TestSupport
import Testing
import VisionCatalog

/// Folders given to `classify`, `train` and `evaluate` walked one way: symbolic links followed,
/// every photo found ending as a result or an error, and a folder without photos an error.
@Suite(.serialized)
struct PhotoFolderCommandLineTests: CommandLineRunning {
  /// Whether the default model's weights, which classifying and training load, are present.
  static let hasDefaultModel = FileManager.default.fileExists(
    atPath: TrainingFixtures.checkpoint.path)

  static let noDefaultModel = Comment(
    rawValue: "needs the default checkpoint in .cache/models (Scripts/fetch-default-model.sh): "
      + "skipped")

  typealias Line = BatchClassifyCommandLineTests.Line

  /// A gradient, which no one would take for the coffee photo, as a second label's photo.
  static func gradientPNG() throws -> Data {
    let pixels = ImageFixtures.gradient(width: 64, height: 48, channels: 3)
    return Data(
      try PNGEncoder().encode(RasterImage(width: 64, height: 48, format: .rgb, pixels: pixels)))
  }

  /// A folder of links, each photo one line named by the path through the user's folder.
  ///
  /// The links lead to a photo, to a folder that links back (a cycle, entered once), to nothing
  /// (an error line) and, hidden, to a photo (left out).
  @Test(.enabled(if: hasDefaultModel, noDefaultModel))
  func aFolderOfLinksGivesOneLinePerPhotoNamedAsGiven() async throws {
    let tree = try PhotoTree("classify-links")
    defer { tree.remove() }
    try tree.file("store/coffee.png")
    try tree.link("store/back", to: "../photos")
    try tree.link("photos/a.png", to: "../store/coffee.png")
    try tree.link("photos/album", to: "../store")
    try tree.link("photos/gone.png", to: "../store/missing.png")
    try tree.link("photos/.hidden.png", to: "../store/coffee.png")
    let folder = tree.url("photos").path
    let outcome = try await run(["classify", folder, "--top", "1"])
    #expect(outcome.status == 1, "\(outcome.error)")
    #expect(errorLines(outcome) == ["error: 1 of 3 photos could not be classified"])
    let lines = try BatchClassifyCommandLineTests.lines(outcome.output)
    try #require(
      lines.map(\.file) == ["\(folder)/a.png", "\(folder)/album/coffee.png", "\(folder)/gone.png"])
    #expect(lines[0].classifications?.count == 1 && lines[0].error == nil)
    #expect(lines[1].classifications == lines[0].classifications && lines[1].error == nil)
    #expect(lines[2].classifications == nil)
    #expect(lines[2].error?.contains("gone.png") == true, "\(String(describing: lines[2].error))")
  }

  /// A broken link given among other photos is that photo's error line; a path that names
  /// nothing at all is still refused before any work, as a typo.
  @Test(.enabled(if: hasDefaultModel, noDefaultModel))
  func aBrokenLinkGivenIsAnErrorLine() async throws {
    let tree = try PhotoTree("classify-broken")
    defer { tree.remove() }
    let gone = try tree.link("gone.png", to: "missing.png").path
    let outcome = try await run(["classify", PhotoTree.samplePhoto.path, gone, "--top", "1"])
    #expect(outcome.status == 1, "\(outcome.error)")
    let lines = try BatchClassifyCommandLineTests.lines(outcome.output)
    try #require(lines.map(\.file) == [PhotoTree.samplePhoto.path, gone])
    #expect(lines[0].error == nil && lines[1].error != nil)

    let typo = try await run(["classify", PhotoTree.samplePhoto.path, tree.url("nothing.png").path])
    #expect(typo.status == 1 && typo.output.isEmpty)
    #expect(errorLines(typo).count == 1 && errorLines(typo)[0].contains("no such file"))
  }

  /// No model is loaded: the folder is refused first, alone or among photos.
  @Test func aFolderWithoutPhotosIsAnErrorNamingIt() async throws {
    let tree = try PhotoTree("classify-empty")
    defer { tree.remove() }
    try tree.folder("empty/sub")
    let empty = tree.url("empty").path
    try tree.file("texts/notes.txt", bytes: Data("not a photo".utf8))
    try tree.link("links/gone", to: "../missing")
    for folder in [empty, tree.url("texts").path, tree.url("links").path] {
      for arguments in [[folder], [PhotoTree.samplePhoto.path, folder]] {
        let outcome = try await run(["classify"] + arguments + ["--top", "1"])
        #expect(outcome.status == 1, "\(arguments): \(outcome.error)")
        #expect(outcome.output.isEmpty, "\(arguments): \(outcome.output)")
        let errors = errorLines(outcome)
        #expect(
          errors.count == 1 && errors[0].contains("\(folder): no photos"),
          "\(arguments): \(outcome.error)")
      }
    }
  }

  /// `train` and `evaluate` on a dataset made only of links: a label folder that is a link, a
  /// photo that is a link, and a broken link, which both list as skipped.
  @Test(.enabled(if: hasDefaultModel, noDefaultModel))
  func trainAndEvaluateOnAFolderOfLinks() async throws {
    struct Outcome: Decodable {
      var classes: [String]
      var skipped: [[String: String]]
      var photos: Int?
    }
    let tree = try PhotoTree("train-links")
    defer { tree.remove() }
    try tree.file("store/espresso/coffee.png")
    try tree.file("store/gradient.png", bytes: Self.gradientPNG())
    try tree.link("data/coffee", to: "../store/espresso")
    try tree.link("data/gradient/g.png", to: "../../store/gradient.png")
    try tree.link("data/gradient/gone.png", to: "../../store/missing.png")
    let data = tree.url("data").path
    let model = tree.url("links.onnx").path
    let trained = try await run([
      "train", data, "--out", model, "--no-cache", "--iterations", "20", "--json",
    ])
    #expect(trained.status == 0, "\(trained.error)")
    let training = try JSONDecoder().decode(Outcome.self, from: Data(trained.output.utf8))
    #expect(training.classes == ["coffee", "gradient"])
    #expect(training.skipped.map { $0["file"] } == ["\(data)/gradient/gone.png"])

    let evaluated = try await run(["evaluate", "--model", model, data, "--json"])
    #expect(evaluated.status == 0, "\(evaluated.error)")
    let evaluation = try JSONDecoder().decode(Outcome.self, from: Data(evaluated.output.utf8))
    #expect(evaluation.classes == ["coffee", "gradient"])
    #expect(evaluation.photos == 2)
    #expect(evaluation.skipped.map { $0["file"] } == ["\(data)/gradient/gone.png"])
    #expect(!evaluated.error.contains("deprecated"))

    // The positional form of earlier releases still works, with a note.
    let positional = try await run(["evaluate", model, data, "--json"])
    #expect(positional.status == 0, "\(positional.error)")
    #expect(positional.output == evaluated.output)
    #expect(positional.error.contains("'evaluate MODEL DATA_DIR' is deprecated"))
  }
}
