public import Foundation

/// The entities a query returned, with the count and paging state.
public struct ODataResult: Sendable, Hashable {
  /// The entities, in the order the source returned them.
  public var entities: [ODataEntity]
  /// The total number of matches, when the query asked for an inline count.
  public var count: Int?
  /// The next link that was not followed, if any (absolute): only a fetch limited to one page
  /// returns one.
  public var nextLink: URL?
  /// Every URL (or, offline, the query text) that was requested, in order.
  public var requests: [String]

  /// Creates a result.
  ///
  /// - Parameters:
  ///   - entities: The entities.
  ///   - count: The inline count.
  ///   - nextLink: The unfollowed next link.
  ///   - requests: The requests made.
  public init(
    entities: [ODataEntity], count: Int? = nil, nextLink: URL? = nil, requests: [String] = []
  ) {
    self.entities = entities
    self.count = count
    self.nextLink = nextLink
    self.requests = requests
  }

  /// Decodes every entity into a `Decodable` type.
  ///
  /// - Parameter type: The type, for example ``Product``.
  /// - Returns: The decoded values in order.
  /// - Throws: ``CatalogError/Code/decodingFailed`` when an entity does not fit.
  public func decode<T: Decodable>(_ type: T.Type) throws(CatalogError) -> [T] {
    var values: [T] = []
    values.reserveCapacity(entities.count)
    for entity in entities {
      values.append(try entity.decode(T.self))
    }
    return values
  }
}

/// A source of catalog data that answers ``ODataQuery`` values: a service or a local catalog.
///
/// Every provider evaluates the same query with the same semantics, so code can switch between
/// ``HTTPCatalogProvider`` and ``OfflineCatalogProvider`` without changing results.
public protocol CatalogProvider: Sendable {
  /// The exact text that identifies the query at this source: the URL a service is sent, or the
  /// relative URL an offline provider evaluates.
  ///
  /// - Parameter query: The query.
  /// - Returns: The text, for logs and provenance.
  /// - Throws: ``CatalogError/Code/unsupportedQuery`` when the query cannot be expressed.
  func describe(_ query: ODataQuery) throws(CatalogError) -> String

  /// Runs a collection query, following server-driven paging up to a bound.
  ///
  /// With `maximumPages` 1, the first page comes back with its next link unfollowed
  /// (``ODataResult/nextLink``). With more, next links are followed until the results end,
  /// `$top` entities have arrived, or a page comes back empty; a next link that repeats, or a
  /// page past `maximumPages`, is ``CatalogError/Code/pagingLimitExceeded``.
  ///
  /// - Parameters:
  ///   - query: The query; a key lookup returns one entity.
  ///   - maximumPages: The most pages to read, at least 1; 1 reads the first page only.
  /// - Returns: The entities and count.
  /// - Throws: ``CatalogError`` for unsupported queries, failed requests and paging limits;
  ///   ``CatalogError/Code/invalidArgument`` when `maximumPages` is less than 1.
  func fetch(_ query: ODataQuery, maximumPages: Int) async throws(CatalogError) -> ODataResult

  /// Counts the entities a query's filter and search match (`/$count`).
  ///
  /// - Parameter query: The query; paging options are ignored.
  /// - Returns: The number of matches.
  /// - Throws: ``CatalogError`` for unsupported queries and failed requests.
  func count(_ query: ODataQuery) async throws(CatalogError) -> Int

  /// Reads one entity addressed by the query's key.
  ///
  /// - Parameter query: A query with ``ODataQuery/key``.
  /// - Returns: The entity.
  /// - Throws: ``CatalogError`` (HTTP 404 or ``CatalogError/Code/notFound`` when absent).
  func entity(_ query: ODataQuery) async throws(CatalogError) -> ODataEntity

  /// The source's `$metadata` document (CSDL XML), which
  /// ``catalogSchema(entitySet:categoryProperty:gtinProperty:)`` reads; `nil` when the source
  /// has none (the schema is then ``CatalogSchema/espm``).
  ///
  /// - Returns: The document's bytes, or `nil`.
  /// - Throws: ``CatalogError`` for failed requests.
  func metadata() async throws(CatalogError) -> Data?

  /// The URL to report for a product's picture reference: a service resolves it against its
  /// root, so callers get a URL they can fetch; a local catalog keeps it as written.
  ///
  /// - Parameter reference: The picture property's value, or a media resource's URL.
  /// - Returns: The URL text.
  func pictureURL(for reference: String) -> String
}

extension CatalogProvider {
  /// No `$metadata`: the source is read as ``CatalogSchema/espm``.
  ///
  /// - Returns: `nil`.
  public func metadata() async throws(CatalogError) -> Data? {
    nil
  }

  /// The reference as written.
  ///
  /// - Parameter reference: The picture reference.
  /// - Returns: `reference`.
  public func pictureURL(for reference: String) -> String {
    reference
  }
}

/// Throws unless `maximumPages` is a page count a fetch can honour.
///
/// - Parameter maximumPages: The most pages a fetch may read.
/// - Throws: ``CatalogError/Code/invalidArgument`` when it is less than 1.
func validateMaximumPages(_ maximumPages: Int) throws(CatalogError) {
  guard maximumPages >= 1 else {
    throw CatalogError(.invalidArgument, "maximumPages must be at least 1, got \(maximumPages)")
  }
}
