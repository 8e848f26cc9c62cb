/// One navigation property of `$expand`, with the nested options v4 allows.
///
/// On v2 only the path and nested `select` can be expressed (as `Nav/Property` in `$select`);
/// other nested options make rendering for v2 fail with ``CatalogError/Code/unsupportedQuery``.
package struct ODataExpand: Sendable, Hashable {
  /// The navigation property to expand.
  package var path: ODataPath
  /// Properties of the expanded entities to return.
  package var select: [ODataPath]
  /// A filter on an expanded collection.
  package var filter: ODataExpression?
  /// The order of an expanded collection.
  package var orderBy: [ODataOrder]
  /// How many expanded entities to return.
  package var top: Int?
  /// How many expanded entities to skip.
  package var skip: Int?
  /// Navigation properties to expand inside the expanded entities.
  package var expand: [ODataExpand]

  /// Creates an expand item.
  ///
  /// - Parameters:
  ///   - path: The navigation property.
  ///   - select: Properties of the expanded entities to return (all when empty).
  ///   - filter: A filter on an expanded collection (v4).
  ///   - orderBy: The order of an expanded collection (v4).
  ///   - top: How many expanded entities to return (v4).
  ///   - skip: How many expanded entities to skip (v4).
  ///   - expand: Nested expansions.
  package init(
    _ path: ODataPath, select: [ODataPath] = [], filter: ODataExpression? = nil,
    orderBy: [ODataOrder] = [], top: Int? = nil, skip: Int? = nil, expand: [ODataExpand] = []
  ) {
    self.path = path
    self.select = select
    self.filter = filter
    self.orderBy = orderBy
    self.top = top
    self.skip = skip
    self.expand = expand
  }
}
