import Foundation
import TestSupport
import Testing

/// `vision-catalog train` and `evaluate` as a user runs them: photo folders to a model that
/// `evaluate`, `classify` and `find` load; the same seed, the same files; training straight from
/// the real v4 and v2 test servers and from a catalog file; and bad input refused with one line.
@Suite(.enabled(if: TrainingFixtures.isAvailable, TrainingFixtures.skipReason))
struct TrainCommandLineTests: CommandLineRunning {
  /// The photo folders the main test trains on: all of them in release builds; in debug builds,
  /// whose C kernels are not optimized, three labels with three training and two held-out
  /// photos each, copied into `work`.
  static func dataset(in work: URL) throws -> (train: URL, test: URL, labels: Int, held: Int) {
    #if DEBUG
      let manager = FileManager.default
      for part in ["train", "test"] {
        for label in ["chelsea", "coffee", "rocket"] {
          let from = TrainingFixtures.photos.appendingPathComponent("\(part)/\(label)")
          let to = work.appendingPathComponent("data/\(part)/\(label)")
          try manager.createDirectory(at: to, withIntermediateDirectories: true)
          for name in try manager.contentsOfDirectory(atPath: from.path).sorted()
            .prefix(part == "train" ? 3 : 2)
          {
            try manager.copyItem(
              at: from.appendingPathComponent(name), to: to.appendingPathComponent(name))
          }
        }
      }
      let root = work.appendingPathComponent("data")
      return (root.appendingPathComponent("train"), root.appendingPathComponent("test"), 3, 6)
    #else
      // Every label: 12 with 48 held-out photos from ../shared/models, 5 with 20 from its rebuild.
      let train = TrainingFixtures.photos.appendingPathComponent("train")
      let test = TrainingFixtures.photos.appendingPathComponent("test")
      let manager = FileManager.default
      let labels = try manager.contentsOfDirectory(atPath: test.path)
      let held = try labels.reduce(0) {
        $0 + (try manager.contentsOfDirectory(atPath: test.appendingPathComponent($1).path).count)
      }
      return (train, test, labels.count, held)
    #endif
  }

  struct Metrics: Decodable {
    struct Figures: Decodable {
      var precision: Double
      var recall: Double
      var count: Int
    }
    var classes: [String]
    var trainingAccuracy: Double?
    var validationAccuracy: Double?
    var accuracy: Double?
    var perClass: [String: Figures]
    var confusion: [[Int]]
    var skipped: [[String: String]]?

    enum CodingKeys: String, CodingKey {
      case classes, accuracy, confusion, skipped
      case trainingAccuracy = "training_accuracy"
      case validationAccuracy = "validation_accuracy"
      case perClass = "per_class"
    }
  }

  struct Found: Decodable {
    struct Product: Decodable {
      var categoryName: String?
    }
    var category: String
    var products: [Product]
  }

  static func folder(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("vision-catalog-\(name)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  func decode<T: Decodable>(_ type: T.Type, _ outcome: CommandLineOutcome) throws -> T {
    try JSONDecoder().decode(type, from: Data(outcome.output.utf8))
  }

  /// Train with held-out photos, then `evaluate` gives the same accuracy on them, and `classify`
  /// loads the model too; a second run with the same seed writes the same bytes (from the cache).
  @Test func trainEvaluateClassifyAndTheSameSeedGivesTheSameFiles() async throws {
    let work = try Self.folder("train")
    defer { try? FileManager.default.removeItem(at: work) }
    let data = try Self.dataset(in: work)
    let test = data.test.path
    let common = [
      data.train.path, "--validation", test, "--cache",
      work.appendingPathComponent("cache").path, "--augment", "flip,exposure", "--seed", "5",
      "--json",
    ]
    let first = try await run(
      ["train"] + common + ["--out", work.appendingPathComponent("a.onnx").path])
    #expect(first.status == 0, "\(first.error)")
    let trained = try decode(Metrics.self, first)
    #expect(trained.classes.count == data.labels)
    let validation = try #require(trained.validationAccuracy)
    #expect(validation >= 0.6)
    #expect(
      trained.confusion.count == data.labels
        && trained.confusion.allSatisfy { $0.count == data.labels })
    #expect(trained.perClass.values.reduce(0) { $0 + $1.count } == data.held)

    let second = try await run(
      ["train"] + common + ["--out", work.appendingPathComponent("b.onnx").path])
    #expect(second.status == 0, "\(second.error)")
    for ext in ["onnx", "json"] {
      let a = try Data(contentsOf: work.appendingPathComponent("a.\(ext)"))
      let b = try Data(contentsOf: work.appendingPathComponent("b.\(ext)"))
      #expect(a == b, "a.\(ext) and b.\(ext) differ")
    }

    let model = work.appendingPathComponent("a.onnx").path
    let evaluated = try await run(["evaluate", "--model", model, test, "--json"])
    #expect(evaluated.status == 0, "\(evaluated.error)")
    let metrics = try decode(Metrics.self, evaluated)
    #expect(abs((metrics.accuracy ?? -1) - validation) < 1e-9)
    #expect(metrics.confusion == trained.confusion)

    let coffee = data.test.appendingPathComponent("coffee")
    let photo = try #require(
      try FileManager.default.contentsOfDirectory(atPath: coffee.path).sorted().first)
    let classified = try await run([
      "classify", coffee.appendingPathComponent(photo).path, "--model", model, "--top", "3",
    ])
    #expect(classified.status == 0, "\(classified.error)")
    #expect(classified.output.split(separator: "\n").first?.hasSuffix("coffee") == true)

    // An existing model is kept unless --force is given.
    let again = try await run(["train"] + common + ["--out", model])
    #expect(again.status == 1 && errorLines(again).first?.contains("--force") == true)
  }

  /// The services trained from: both versions in release builds; in debug builds, whose C
  /// kernels are not optimized (a training extracts every catalog photo's features), v4 only.
  static let serviceKinds: [ODataTestServer.Kind] = {
    #if DEBUG
      [.v4]
    #else
      [.v4, .v2]
    #endif
  }()

  /// `train --from-catalog` against the real servers: the labels are the catalog's categories,
  /// products without a picture or with a broken one are skipped, and `find` with the model
  /// returns a held-out photo's category and its products.
  @Test(arguments: serviceKinds)
  func trainFromAServiceThenFind(kind: ODataTestServer.Kind) async throws {
    try #require(ODataTestServer.isAvailable, "the OData test servers are not set up")
    let server = try ODataTestServer.start(
      kind, pageSize: 7, catalog: TrainingFixtures.catalog,
      pictures: TrainingFixtures.catalog.deletingLastPathComponent().appendingPathComponent("imgs"))
    defer { server.stop() }
    let version = kind == .v2 ? "2" : "4"
    let service = ["--service", server.serviceRoot.absoluteString, "--odata-version", version]
    try await trainFromCatalogThenFind(service, name: "service-v\(version)")
  }

  #if !DEBUG
    /// Release only, as v2 above.
    @Test func trainFromACatalogFileThenFind() async throws {
      try await trainFromCatalogThenFind(
        ["--catalog", TrainingFixtures.catalog.path], name: "file")
    }
  #endif

  func trainFromCatalogThenFind(_ source: [String], name: String) async throws {
    let work = try Self.folder("catalog-\(name)")
    defer { try? FileManager.default.removeItem(at: work) }
    let model = work.appendingPathComponent("catalog.onnx").path
    let trained = try await run(
      ["train", "--from-catalog"] + source + ["--out", model, "--no-cache", "--json"])
    #expect(trained.status == 0, "\(trained.error)")
    let metrics = try decode(Metrics.self, trained)
    #expect(metrics.classes == ["Cameras", "Cats", "Espresso Machines", "Rockets"])
    let skipped = metrics.skipped ?? []
    #expect(skipped.count == 3, "\(skipped)")
    #expect(skipped.contains { $0["reason"]?.contains("no picture") == true })
    #expect(skipped.contains { $0["file"]?.contains("TR-BROKEN") == true })
    for (folder, category) in [("rocket", "Rockets"), ("coffee", "Espresso Machines")] {
      let held = TrainingFixtures.photos.appendingPathComponent("test/\(folder)")
      let photo = try #require(
        try FileManager.default.contentsOfDirectory(atPath: held.path).sorted().last)
      let found = try await run(
        ["find", held.appendingPathComponent(photo).path, "--model", model] + source + ["--json"])
      #expect(found.status == 0, "\(found.error)")
      let result = try decode(Found.self, found)
      #expect(result.category == category)
      #expect(
        !result.products.isEmpty && result.products.allSatisfy { $0.categoryName == category })
    }
  }

  @Test func badInputIsOneLineAndLosesNothing() async throws {
    let work = try Self.folder("bad")
    defer { try? FileManager.default.removeItem(at: work) }
    let out = work.appendingPathComponent("m.onnx").path
    try FileManager.default.createDirectory(
      at: work.appendingPathComponent("data/only"), withIntermediateDirectories: true)
    let one = TrainingFixtures.photos.appendingPathComponent("train/chelsea")
    let first = try #require(try FileManager.default.contentsOfDirectory(atPath: one.path).first)
    try FileManager.default.copyItem(
      at: one.appendingPathComponent(first),
      to: work.appendingPathComponent("data/only/\(first)"))
    let cases: [([String], String)] = [
      (["train", work.appendingPathComponent("empty").path, "--out", out], "no such folder"),
      (["train", work.appendingPathComponent("data").path, "--out", out], "at least two labels"),
      (["train", "--from-catalog", "--out", out, "--no-cache"], "no picture"),
      (
        [
          "train", TrainingFixtures.photos.path, "--out", work.appendingPathComponent("m.txt").path,
        ], ".onnx"
      ),
      (
        [
          "evaluate", "--model", "/nonexistent.onnx",
          TrainingFixtures.photos.appendingPathComponent("test").path,
        ], "does not exist"
      ),
    ]
    for (arguments, reason) in cases {
      let outcome = try await run(arguments)
      #expect(outcome.status != 0)
      let errors = errorLines(outcome)
      #expect(errors.count == 1 && errors[0].contains(reason), "\(arguments): \(outcome.error)")
    }
    #expect(!FileManager.default.fileExists(atPath: out))
    #expect(
      try FileManager.default.contentsOfDirectory(
        atPath: work.appendingPathComponent("data/only").path)
        == [first])
  }
}

/// The trainer's fixtures (`Scripts/trainer-reference/generate.sh`) and the checkpoint.
enum TrainingFixtures {
  static let fixtures = ODataTestServer.packageRoot
    .appendingPathComponent(".cache/trainer-reference")
  static let photos = fixtures.appendingPathComponent("photos")
  static let catalog = fixtures.appendingPathComponent("catalog/catalog.json")
  static let checkpoint = ODataTestServer.packageRoot
    .appendingPathComponent(".cache/models/efficientnet-lite0-57934424.pth")

  static var isAvailable: Bool {
    FileManager.default.fileExists(atPath: photos.appendingPathComponent("test").path)
      && FileManager.default.fileExists(atPath: catalog.path)
      && FileManager.default.fileExists(atPath: checkpoint.path)
  }

  static let skipReason = Comment(
    rawValue: "needs .cache/trainer-reference (Scripts/trainer-reference/generate.sh) and the "
      + "default checkpoint: skipped")
}
