import Foundation
import NeuralCore

/// Feature prints of a catalog's product pictures, searched for the products closest to a
/// photo's feature print: FAISS's `IndexFlatIP` or pgvector's cosine search, for "which
/// product is this".
///
/// An index lives in one file (the default: memory-mapped, checksummed, searched exactly by C
/// kernels over half-float or int8 vectors) or, at scale, in PostgreSQL with pgvector (a
/// `postgresql://` location). Both answer the same query with the same products. Scores are
/// cosine similarities: vectors are L2-normalized as they go in, and so is each query.
///
/// An index does not embed photos itself: ``embedder`` records what made its feature prints
/// (VisionCatalog's `FeaturePrinter` writes and reads it), so a query is embedded the same way.
public struct ProductIndex: Sendable {
  let store: any IndexStore
  let threadCount: Int?

  /// The file path or database URL.
  public var location: String { store.location }
  /// Values in one feature print (0 for an empty index).
  public var dimensions: Int { store.dimensions }
  /// What made the feature prints, as its writer described it (empty for an empty index).
  public var embedder: String { store.embedder }
  /// How many pictures the index holds.
  public var count: Int { store.count }

  /// Opens an index; a file or table that does not exist yet opens as an empty index.
  ///
  /// A `postgresql://` location is libpq's connection URI plus an optional `table` parameter
  /// (default `product_pictures`); keep its password in `PGPASSWORD` or `~/.pgpass`, not in
  /// the URL.
  ///
  /// - Parameters:
  ///   - location: A file path, or a `postgresql://` URL (a pgvector store).
  ///   - threadCount: Threads one search may use; `nil` means every active processor.
  /// - Returns: The index.
  /// - Throws: ``SearchError`` with code `invalidIndex` for a damaged or truncated file,
  ///   `storage` when it cannot be read, `storeUnavailable` when the database cannot be reached,
  ///   `invalidArgument` for a malformed URL or table name.
  public static func open(_ location: String, threadCount: Int? = nil) async throws(SearchError)
    -> ProductIndex
  {
    if PostgresLocation.isPostgres(location) {
      return ProductIndex(
        store: try await PostgresIndexStore.open(location), threadCount: threadCount)
    }
    let threads = threadCount ?? ProcessInfo.processInfo.activeProcessorCount
    return ProductIndex(
      store: try FileIndexStore(url: URL(fileURLWithPath: location), threads: threads),
      threadCount: threadCount)
  }

  /// The products whose pictures are closest to a feature print, best first, each once.
  ///
  /// - Parameters:
  ///   - featurePrint: A vector of ``dimensions`` values (normalized here).
  ///   - top: How many products to return at most.
  ///   - category: Only products of this category, when given.
  ///   - productIds: Only these products, when given (to rank a list of products).
  /// - Returns: Up to `top` matches; fewer when the index holds fewer products.
  /// - Throws: ``SearchError`` with code `invalidArgument` for a vector of another length or
  ///   with non-finite values, `storeUnavailable` when the database fails.
  public func search(
    _ featurePrint: [Float], top: Int = 5, category: String? = nil,
    among productIds: Set<String>? = nil
  )
    async throws(SearchError) -> [ProductMatch]
  {
    guard count > 0 else { return [] }
    return try await store.search(
      try Self.normalized(featurePrint), top: min(max(top, 0), 10_000),
      filter: SearchFilter(category: category, productIds: productIds))
  }

  /// Every picture the index holds.
  ///
  /// - Returns: The pictures, in the store's order.
  /// - Throws: ``SearchError`` with code `storeUnavailable` when the database fails.
  public func pictures() async throws(SearchError) -> [IndexedPicture] {
    try await store.pictures()
  }

  /// Applies a change to the index at its location, all at once: a reader, a failure or a
  /// crash sees the old index or the new one, never a mix.
  ///
  /// - Parameters:
  ///   - embedder: What made the new feature prints. When it differs from the index's, every
  ///     old picture is dropped (prints of another network are not comparable).
  ///   - removing: Pictures to drop.
  ///   - adding: Pictures to add, with their feature prints (normalized here).
  ///   - int8: Whether a new file stores int8 rather than half-float vectors (an existing file
  ///     keeps its encoding).
  /// - Returns: The updated index.
  /// - Throws: ``SearchError`` with code `invalidArgument` for vectors of unequal or wrong
  ///   length, `storage` or `storeUnavailable` when the store cannot be written.
  public func updated(
    embedder: String, removing: Set<IndexedPicture> = [],
    adding: [(picture: IndexedPicture, featurePrint: [Float])] = [], int8: Bool = false
  ) async throws(SearchError) -> ProductIndex {
    let prints = adding.map(\.featurePrint)
    return try await updated(
      embedder: embedder, dimensions: prints.first?.count ?? dimensions, removing: removing,
      adding: adding.map(\.picture), featurePrints: { prints[$0] }, int8: int8)
  }

  /// Applies a change whose feature prints stream from elsewhere (a file larger than memory):
  /// `featurePrints(i)` is asked for added picture `i`, once each, in order.
  package func updated(
    embedder: String, dimensions: Int, removing: Set<IndexedPicture> = [],
    adding pictures: [IndexedPicture],
    featurePrints: @escaping @Sendable (Int) throws(SearchError) -> [Float], int8: Bool = false
  ) async throws(SearchError) -> ProductIndex {
    let update = IndexUpdate(
      embedder: embedder, dimensions: dimensions, removed: removing, added: pictures,
      vector: featurePrints, replacesAll: embedder != self.embedder && count > 0,
      encoding: int8 ? .int8 : .half)
    try await store.apply(update)
    return try await Self.open(location, threadCount: threadCount)
  }

  /// `vector` divided by its L2 norm.
  static func normalized(_ vector: [Float]) throws(SearchError) -> [Float] {
    guard let normalized = VectorSimilarity.normalized(vector) else {
      throw SearchError(.invalidArgument, "a feature print must be finite and not all zero")
    }
    return normalized
  }
}
