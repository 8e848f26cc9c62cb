import Foundation
import NeuralCore
import TestSupport
import Testing

@testable import VisualSearch

/// The file store against a search done here in Double: the same products in the same order,
/// each product once with its best picture; updates that keep, drop and add pictures; and a
/// damaged or truncated file that is a typed error, never a crash.
@Suite struct FileIndexTests {
  static let dimensions = 40

  /// `count` seeded unit vectors.
  static func vectors(_ count: Int, seed: UInt64) -> [[Float]] {
    var generator = SeededGenerator(seed: seed)
    return (0..<count).map { _ in
      let raw = (0..<dimensions).map { _ in Float.random(in: -1...1, using: &generator) }
      let norm = raw.reduce(0) { $0 + $1 * $1 }.squareRoot()
      return raw.map { $0 / norm }
    }
  }

  /// Pictures of 30 products in 3 categories, some with several pictures.
  static func pictures(_ count: Int) -> [IndexedPicture] {
    (0..<count).map { index in
      IndexedPicture(
        productId: "P\(index % 30)", name: "Product \(index % 30)",
        category: ["Fruit", "Dairy", "Bakery"][index % 3], source: "pictures/\(index).jpg",
        contentHash: String(repeating: String(index % 15 + 1, radix: 16), count: 64))
    }
  }

  static func temporaryFile() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent(
      "index-\(UUID().uuidString).vcindex")
  }

  static func build(_ url: URL, count: Int = 75, int8: Bool = false) async throws
    -> (ProductIndex, [IndexedPicture], [[Float]])
  {
    let pictures = Self.pictures(count)
    let vectors = Self.vectors(count, seed: 5)
    let empty = try await ProductIndex.open(url.path, threadCount: 1)
    let index = try await empty.updated(
      embedder: "test-embedder", adding: Array(zip(pictures, vectors)), int8: int8)
    return (index, pictures, vectors)
  }

  /// Each product's best picture score, computed in Double.
  static func reference(
    _ query: [Float], _ pictures: [IndexedPicture], _ vectors: [[Float]],
    category: String? = nil
  ) -> [String: Double] {
    var best: [String: Double] = [:]
    for (picture, vector) in zip(pictures, vectors)
    where category == nil || picture.category == category {
      let score = zip(query, vector).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
      best[picture.productId] = max(best[picture.productId] ?? -2, score)
    }
    return best
  }

  @Test(arguments: [false, true])
  func searchFindsWhatADoubleScanFinds(int8: Bool) async throws {
    let url = Self.temporaryFile()
    defer { try? FileManager.default.removeItem(at: url) }
    let (index, pictures, vectors) = try await Self.build(url, int8: int8)
    #expect(index.count == 75)
    #expect(index.dimensions == Self.dimensions)
    #expect(index.embedder == "test-embedder")
    #expect(try await index.pictures() == pictures)
    for (position, query) in Self.vectors(12, seed: 9).enumerated() {
      let category = position % 4 == 0 ? "Dairy" : nil
      let matches = try await index.search(query, top: 7, category: category)
      let best = Self.reference(query, pictures, vectors, category: category)
      let expected = best.values.sorted(by: >).prefix(7)
      // Rounding (half floats: 1e-3, int8: 1e-2) may swap products whose scores are that
      // close, so each rank's product must score within it of the exact score at that rank.
      let tolerance = int8 ? 1e-2 : 2e-3
      #expect(matches.count == expected.count)
      for (match, score) in zip(matches, expected) {
        let exact = try #require(best[match.productId])
        #expect(abs(exact - score) < tolerance, "query \(position): \(match.productId)")
        #expect(abs(Double(match.score) - exact) < tolerance)
      }
      #expect(Set(matches.map(\.productId)).count == matches.count)
      if let category { #expect(matches.allSatisfy { $0.category == category }) }
    }
    // A stored picture finds its own product first, with a score of about 1.
    let first = try #require(try await index.search(vectors[40], top: 1).first)
    #expect(first.productId == pictures[40].productId)
    #expect(abs(first.score - 1) < (int8 ? 1e-2 : 1e-3))
    #expect(first.picture == pictures[40].source)
  }

  @Test func updatesKeepDropAndAdd() async throws {
    let url = Self.temporaryFile()
    defer { try? FileManager.default.removeItem(at: url) }
    let (index, pictures, vectors) = try await Self.build(url)
    let removed = Set(pictures.prefix(10))
    let extra = IndexedPicture(productId: "NEW", category: "Fruit", source: "new.jpg")
    let updated = try await index.updated(
      embedder: "test-embedder", removing: removed, adding: [(extra, vectors[3])])
    let now = try await updated.pictures()
    #expect(now == Array(pictures.dropFirst(10)) + [extra])
    #expect(try await updated.search(vectors[3], top: 1).first?.productId == "NEW")
    // The kept rows are copied unchanged.
    #expect(
      try await updated.search(vectors[50], top: 1).first?.productId == pictures[50].productId)
    // Another embedder makes the old prints meaningless: they are dropped.
    let rebuilt = try await updated.updated(embedder: "other", adding: [(extra, vectors[0])])
    #expect(try await rebuilt.pictures() == [extra])
    #expect(rebuilt.embedder == "other")
  }

  @Test func badQueriesAndVectorsAreTypedErrors() async throws {
    let url = Self.temporaryFile()
    defer { try? FileManager.default.removeItem(at: url) }
    let (index, pictures, _) = try await Self.build(url)
    for query in [[Float](repeating: 0.1, count: 3), [Float](repeating: 0, count: 40)] {
      await #expect(throws: SearchError.self) { try await index.search(query) }
    }
    var nan = [Float](repeating: 0.1, count: 40)
    nan[7] = .nan
    await #expect(throws: SearchError.self) { try await index.search(nan) }
    await #expect(throws: SearchError.self) {
      try await index.updated(embedder: "test-embedder", adding: [(pictures[0], [1, 2])])
    }
    #expect(try await index.search(Self.vectors(1, seed: 1)[0], category: "None").isEmpty)
    #expect(try await index.search(Self.vectors(1, seed: 1)[0], top: 0).isEmpty)
  }

  @Test func aTruncatedOrDamagedFileIsATypedError() async throws {
    let url = Self.temporaryFile()
    defer { try? FileManager.default.removeItem(at: url) }
    _ = try await Self.build(url, count: 600)
    let whole = try Data(contentsOf: url)
    #expect(whole.count > 40_000)
    let damaged = Self.temporaryFile()
    defer { try? FileManager.default.removeItem(at: damaged) }
    var cuts = Array(stride(from: 0, to: whole.count, by: 4096))
    cuts += [1, 127, 128, 129, whole.count - 1]
    for cut in cuts {
      try whole.prefix(cut).write(to: damaged)
      await #expect(throws: SearchError.self, "cut at \(cut)") {
        try await ProductIndex.open(damaged.path)
      }
    }
    var generator = SeededGenerator(seed: 4)
    for _ in 0..<40 {
      var flipped = whole
      let position = Int.random(in: 0..<whole.count, using: &generator)
      flipped[position] ^= UInt8.random(in: 1...255, using: &generator)
      try flipped.write(to: damaged)
      let error = await #expect(throws: SearchError.self, "byte \(position)") {
        try await ProductIndex.open(damaged.path)
      }
      #expect(error?.code == .invalidIndex)
    }
    try Data("not an index at all, but long enough to hold a header........".utf8)
      .write(to: damaged)
    let error = await #expect(throws: SearchError.self) {
      try await ProductIndex.open(damaged.path)
    }
    #expect(error?.code == .invalidIndex)
  }

  @Test func aFailedWriteLeavesTheOldFile() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "index-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("catalog.vcindex")
    let (index, pictures, _) = try await Self.build(url)
    let before = try Data(contentsOf: url)
    // A write that fails part way (a row of the wrong length) leaves no trace.
    let writer = IndexFileWriter(
      dimensions: Self.dimensions, encoding: .half, embedder: "x", pictures: pictures)
    #expect(throws: SearchError.self) {
      try writer.write(to: url) { row in
        row < 50 ? FileIndexStore.encode([0.5], encoding: .half, stride: 64) : ([1, 2], nil)
      }
    }
    #expect(try Data(contentsOf: url) == before)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["catalog.vcindex"])
    #expect(try await ProductIndex.open(url.path).count == index.count)
  }
}
