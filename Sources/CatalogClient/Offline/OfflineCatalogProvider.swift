public import Foundation

/// A ``CatalogProvider`` that evaluates queries over a local catalog, no network.
///
/// It answers the same queries as the HTTP providers with the same rows (v4 semantics, including
/// `in` and `$search`); results are not paged, so a fetch reads one page whatever its bound.
///
/// A catalog file is JSON, `{"categories":[ProductCategory…],"products":[Product…]}` with the
/// OData property names (`ProductId`, `Price` as a decimal string, `UpdatedTimestamp` in
/// ISO 8601, `GTIN` as a string of digits); ``bundled()`` loads the sample catalog shipped with
/// CatalogClient, the same data the test servers serve. Its schema, from
/// ``catalogSchema(entitySet:categoryProperty:gtinProperty:)``, is ``CatalogSchema/espm`` with
/// the ``CatalogSchema/gtin`` property `GTIN`.
public struct OfflineCatalogProvider: CatalogProvider {
  /// The catalog queried.
  package let catalog: OfflineCatalog
  private let evaluator: QueryEvaluator

  /// Creates a provider over a catalog.
  ///
  /// - Parameter catalog: The catalog.
  package init(catalog: OfflineCatalog) {
    self.catalog = catalog
    evaluator = QueryEvaluator(catalog: catalog)
  }

  /// Creates a provider over a catalog file.
  ///
  /// - Parameter url: The catalog JSON file (at most 64 MiB).
  /// - Throws: ``CatalogError/Code/invalidCatalog`` when the file cannot be read or decoded, or
  ///   a product id or category repeats.
  public init(contentsOf url: URL) throws(CatalogError) {
    self.init(catalog: try OfflineCatalog(contentsOf: url))
  }

  /// Creates a provider over catalog JSON.
  ///
  /// - Parameter jsonData: The catalog JSON (at most 64 MiB).
  /// - Throws: ``CatalogError/Code/invalidCatalog`` when the data is not a valid catalog.
  public init(jsonData: Data) throws(CatalogError) {
    self.init(catalog: try OfflineCatalog(jsonData: jsonData))
  }

  /// Creates a provider over the sample catalog bundled with CatalogClient.
  ///
  /// - Returns: The provider.
  /// - Throws: ``CatalogError/Code/invalidCatalog`` when the resource is damaged.
  public static func bundled() throws(CatalogError) -> OfflineCatalogProvider {
    OfflineCatalogProvider(catalog: try OfflineCatalog.bundled())
  }

  /// The query as a relative v4 URL, the form it is evaluated in.
  ///
  /// - Parameter query: The query.
  /// - Returns: For example `Products?$filter=CategoryName%20eq%20'Mice'`.
  /// - Throws: ``CatalogError/Code/unsupportedQuery`` when the query is malformed.
  public func describe(_ query: ODataQuery) throws(CatalogError) -> String {
    try query.relativeURL(version: .v4)
  }

  /// Evaluates a collection query (or a key lookup) over the catalog.
  ///
  /// - Parameters:
  ///   - query: The query.
  ///   - maximumPages: The most pages to read, at least 1; offline results are one page.
  /// - Returns: The entities and the inline count when asked for.
  /// - Throws: ``CatalogError/Code/unsupportedQuery`` for unknown properties or incompatible
  ///   comparisons, ``CatalogError/Code/notFound`` for an absent key,
  ///   ``CatalogError/Code/invalidArgument`` when `maximumPages` is less than 1.
  public func fetch(_ query: ODataQuery, maximumPages: Int) async throws(CatalogError)
    -> ODataResult
  {
    try validateMaximumPages(maximumPages)
    let text = try describe(query)
    let (entities, count) = try evaluator.run(query)
    return ODataResult(entities: entities, count: count, requests: [text])
  }

  /// Counts the entities the query's filter and search match.
  ///
  /// - Parameter query: The query.
  /// - Returns: The number of matches.
  /// - Throws: ``CatalogError/Code/unsupportedQuery`` for malformed filters.
  public func count(_ query: ODataQuery) async throws(CatalogError) -> Int {
    _ = try describe(query)
    return try evaluator.count(query)
  }

  /// Reads the entity a query's key addresses.
  ///
  /// - Parameter query: A query with a key.
  /// - Returns: The entity.
  /// - Throws: ``CatalogError/Code/notFound`` when absent.
  public func entity(_ query: ODataQuery) async throws(CatalogError) -> ODataEntity {
    guard query.key != nil else {
      throw CatalogError(.unsupportedQuery, "an entity lookup needs a key")
    }
    _ = try describe(query)
    let (entities, _) = try evaluator.run(query)
    guard let entity = entities.first else {
      throw CatalogError(.notFound, "no entity")
    }
    return entity
  }

  /// The `$metadata` of a local catalog: ESPM's shape, which every catalog file has.
  ///
  /// - Returns: The CSDL document.
  public func metadata() async throws(CatalogError) -> Data? {
    Data(OfflineCatalog.metadataDocument.utf8)
  }
}
