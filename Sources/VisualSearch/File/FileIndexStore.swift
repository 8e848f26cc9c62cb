import Foundation
import NeuralCore

/// The default store: one memory-mapped, checksummed file searched exactly by the C kernels.
struct FileIndexStore: IndexStore {
  let url: URL
  /// The file as it was when the store was opened; `nil` when there is none yet.
  let file: IndexFile?
  /// Threads one search may use.
  let threads: Int

  /// Opens the file at `url`, or an empty store when there is no file yet.
  init(url: URL, threads: Int) throws(SearchError) {
    self.url = url
    self.threads = max(1, threads)
    file =
      FileManager.default.fileExists(atPath: url.path) ? try IndexFile(contentsOf: url) : nil
  }

  var location: String { url.path }
  var dimensions: Int { file?.header.dimensions ?? 0 }
  var embedder: String { file?.embedder ?? "" }
  var count: Int { file?.header.count ?? 0 }

  func search(_ query: [Float], top: Int, filter: SearchFilter) async throws(SearchError)
    -> [ProductMatch]
  {
    guard let file, top > 0 else { return [] }
    guard query.count == file.header.dimensions else {
      throw SearchError(
        .invalidArgument,
        "the query has \(query.count) values, the index holds feature prints of "
          + "\(file.header.dimensions)")
    }
    var allowed: [Bool]?
    if let category = filter.category {
      guard let wanted = file.categories[category] else { return [] }
      allowed = file.categoryOfRow.map { $0 == wanted }
    }
    if let products = filter.productIds {
      let kept = allowed ?? [Bool](repeating: true, count: file.pictures.count)
      allowed = zip(kept, file.pictures).map { $0 && products.contains($1.productId) }
    }
    let scores = file.withRows { rows in
      rows.map { VectorSimilarity.scores(of: query, in: $0, threads: threads) } ?? []
    }
    let hits = VectorSimilarity.best(
      top * max(1, file.mostPicturesPerProduct), of: scores, allowed: allowed)
    return ProductRanking.products(hits, pictures: { file.pictures[$0] }, top: top)
  }

  func pictures() async throws(SearchError) -> [IndexedPicture] {
    file?.pictures ?? []
  }

  func apply(_ update: IndexUpdate) async throws(SearchError) {
    try update.validate()
    let kept = update.replacesAll ? nil : file
    if let kept, kept.header.count > 0, kept.header.dimensions != update.dimensions {
      throw SearchError(
        .invalidArgument,
        "the index holds feature prints of \(kept.header.dimensions) values, not "
          + "\(update.dimensions): rebuild it")
    }
    enum Origin {
      case kept(Int)
      case added(Int)
    }
    var pictures: [IndexedPicture] = []
    var origins: [Origin] = []
    for (row, picture) in (kept?.pictures ?? []).enumerated()
    where !update.removed.contains(picture) {
      pictures.append(picture)
      origins.append(.kept(row))
    }
    for (position, picture) in update.added.enumerated() {
      pictures.append(picture)
      origins.append(.added(position))
    }
    let encoding = kept?.header.encoding ?? update.encoding
    let writer = IndexFileWriter(
      dimensions: update.dimensions, encoding: encoding, embedder: update.embedder,
      pictures: pictures)
    let stride = IndexFileHeader(
      dimensions: update.dimensions, encoding: encoding, count: 0, recordsLength: 0
    ).stride
    try writer.write(to: url) { (index) throws(SearchError) -> IndexFileWriter.Row in
      switch origins[index] {
      case .kept(let row):
        // `kept` is non-nil for every kept row.
        return kept?.rowBytes(row) ?? ([], nil)
      case .added(let position):
        return Self.encode(
          try update.normalizedVector(position), encoding: encoding, stride: stride)
      }
    }
  }

  /// One vector as a row of `stride` encoded values, zero past its end.
  static func encode(
    _ vector: [Float], encoding: VectorSimilarity.Encoding, stride: Int
  ) -> IndexFileWriter.Row {
    let padded = vector + [Float](repeating: 0, count: max(0, stride - vector.count))
    switch encoding {
    case .half:
      let bits = VectorSimilarity.halfBits(of: padded)
      return (bits.withUnsafeBytes { Array($0) }, nil)
    case .int8:
      let (bytes, scale) = VectorSimilarity.int8Row(of: padded)
      return (bytes.withUnsafeBytes { Array($0) }, scale)
    }
  }
}
