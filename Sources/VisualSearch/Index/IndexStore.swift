package import NeuralCore

/// Where an index's pictures and feature prints live: one file, or a PostgreSQL table.
package protocol IndexStore: Sendable {
  /// The file path or database URL.
  var location: String { get }
  /// Values in one feature print.
  var dimensions: Int { get }
  /// What embeds a query for this index (opaque to VisualSearch; the facade writes it).
  var embedder: String { get }
  /// How many pictures the index holds.
  var count: Int { get }

  /// The products whose pictures are closest to `query`, best first, each product once.
  func search(_ query: [Float], top: Int, filter: SearchFilter) async throws(SearchError)
    -> [ProductMatch]

  /// Every picture, in the store's order.
  func pictures() async throws(SearchError) -> [IndexedPicture]

  /// Replaces the index's content with `update` applied to it, all at once: a reader sees the
  /// old index or the new one, and a failure or a crash leaves the old one.
  func apply(_ update: IndexUpdate) async throws(SearchError)
}

/// Which pictures a search may return: those of one category, of some products, or both.
package struct SearchFilter: Sendable {
  /// Only pictures of this category, when set.
  package var category: String?
  /// Only pictures of these products, when set.
  package var productIds: Set<String>?

  package init(category: String? = nil, productIds: Set<String>? = nil) {
    self.category = category
    self.productIds = productIds
  }
}

/// A change to an index: the pictures to drop, those to add with their feature prints, and what
/// embeds queries from now on.
package struct IndexUpdate: Sendable {
  /// The new embedder description.
  package var embedder: String
  /// Values in one feature print.
  package var dimensions: Int
  /// Pictures to drop (matched on every field).
  package var removed: Set<IndexedPicture>
  /// Pictures to add, in order.
  package var added: [IndexedPicture]
  /// The feature print of added picture `i`, asked for once each, in order, so a million
  /// prints can stream from a file.
  package var vector: @Sendable (Int) throws(SearchError) -> [Float]
  /// Whether to drop every picture first (a new embedder makes old prints meaningless).
  package var replacesAll: Bool
  /// How a new file stores vectors.
  package var encoding: VectorSimilarity.Encoding

  package init(
    embedder: String, dimensions: Int, removed: Set<IndexedPicture> = [],
    added: [IndexedPicture] = [],
    vector: @escaping @Sendable (Int) throws(SearchError) -> [Float] = { _ in [] },
    replacesAll: Bool = false, encoding: VectorSimilarity.Encoding = .half
  ) {
    self.embedder = embedder
    self.dimensions = dimensions
    self.removed = removed
    self.added = added
    self.vector = vector
    self.replacesAll = replacesAll
    self.encoding = encoding
  }

  /// Checks the sizes and the added pictures' fields.
  func validate() throws(SearchError) {
    guard (1...65_536).contains(dimensions) else {
      throw SearchError(
        .invalidArgument, "feature prints of \(dimensions) values are not supported")
    }
    guard embedder.utf8.count <= 65_536 else {
      throw SearchError(.invalidArgument, "the embedder's description is over 64 KiB")
    }
    for picture in added {
      let fields = [picture.productId, picture.name, picture.category, picture.source]
      guard fields.allSatisfy({ $0.utf8.count <= 65_536 }) else {
        throw SearchError(.invalidArgument, "a field of \(picture.productId) is over 64 KiB")
      }
      guard ContentHash.bytes(picture.contentHash) != nil else {
        throw SearchError(
          .invalidArgument, "the content hash of \(picture.productId) is not 64 hex digits")
      }
    }
  }

  /// Added picture `i`'s print, checked and L2-normalized.
  func normalizedVector(_ index: Int) throws(SearchError) -> [Float] {
    let vector = try self.vector(index)
    guard vector.count == dimensions else {
      throw SearchError(
        .invalidArgument,
        "the feature print of \(added[index].productId) has \(vector.count) values, the index "
          + "takes \(dimensions)")
    }
    return try ProductIndex.normalized(vector)
  }
}

/// Keeping the best picture of each product among a scan's hits.
enum ProductRanking {
  /// The first `top` distinct products of `hits` (best first), with their best picture.
  static func products(
    _ hits: [VectorSimilarity.Hit], pictures: (Int) -> IndexedPicture, top: Int
  ) -> [ProductMatch] {
    products(hits.map { (pictures($0.row), $0.score) }, top: top)
  }

  /// The first `top` distinct products of scored pictures given best first.
  static func products(
    _ scored: some Sequence<(IndexedPicture, Float)>, top: Int
  ) -> [ProductMatch] {
    var seen = Set<String>()
    var matches: [ProductMatch] = []
    for (picture, score) in scored where matches.count < top {
      guard seen.insert(picture.productId).inserted else { continue }
      matches.append(ProductMatch(picture, score: score))
    }
    return matches
  }
}
