/// A read query against one entity set: the Swift counterpart of SAPOData's `DataQuery`.
///
/// Build it with the chaining methods, then render it with ``url(serviceRoot:version:)`` or
/// ``relativeURL(version:)`` (the exact text that will be sent), or hand it to a provider.
///
/// The chaining methods never trap and never throw, so a chain stays one expression. An
/// argument they cannot accept, such as `top(-1)`, is kept, and rendering the query (which
/// every provider does before it sends or evaluates anything) throws
/// ``CatalogError/Code/invalidArgument`` with a message naming it.
///
/// ```swift
/// let query = ODataQuery(entitySet: "Products")
///   .filter(Product.categoryName == "Mice" && Product.price < Decimal(50))
///   .orderBy(Product.price.descending)
///   .top(10)
/// ```
public struct ODataQuery: Sendable, Hashable {
  /// How a query asks for the number of matching entities.
  package enum CountMode: Sendable, Hashable {
    /// No count.
    case none
    /// The count next to the results (`$count=true` / `$inlinecount=allpages`).
    case inline
    /// Only the count (`…/$count`), answered as plain text.
    case only
  }

  /// The entity set, for example `Products`.
  public var entitySet: String
  /// A key to address one entity, for example `'HT-1000'`.
  public var key: ODataValue?
  /// The `$filter` condition.
  public var filter: ODataExpression?
  /// The `$select` properties (all when empty).
  public var select: [ODataPath]
  /// The `$expand` items.
  package var expand: [ODataExpand]
  /// The `$orderby` keys, most significant first.
  public var orderBy: [ODataOrder]
  /// The `$top` limit.
  public var top: Int?
  /// The `$skip` offset.
  public var skip: Int?
  /// Whether and how to count.
  package var countMode: CountMode
  /// The `$search` expression (v4 only).
  public var search: ODataSearch?
  /// Custom query options (names without `$`), in order.
  package var customOptions: [CustomOption]
  /// Why the first rejected chaining argument was rejected, for arguments the query cannot keep
  /// (a function of a property passed to `select`); rendering throws it.
  private var rejectedArgument: String?

  /// A custom (non-system) query option such as `sap-client=001`.
  package struct CustomOption: Sendable, Hashable {
    /// The option name; must not start with `$` or `@` and must not contain `&`, `=`, `#`.
    package var name: String
    /// The option value; percent-encoded when rendered.
    package var value: String

    /// Creates a custom option.
    ///
    /// - Parameters:
    ///   - name: The option name.
    ///   - value: The option value.
    package init(name: String, value: String) {
      self.name = name
      self.value = value
    }
  }

  /// Creates a query for all entities of a set.
  ///
  /// - Parameter entitySet: The entity set name, an OData identifier such as `Products`.
  public init(entitySet: String) {
    self.entitySet = entitySet
    key = nil
    filter = nil
    select = []
    expand = []
    orderBy = []
    top = nil
    skip = nil
    countMode = .none
    search = nil
    customOptions = []
    rejectedArgument = nil
  }

  /// Returns the query addressing one entity by its key.
  ///
  /// - Parameter value: The key value, for example `"HT-1000"`.
  /// - Returns: The changed query.
  public func withKey(_ value: some ODataLiteralConvertible) -> ODataQuery {
    var copy = self
    copy.key = value.odataValue
    return copy
  }

  /// Returns the query with a filter; a second call combines both with `and`.
  ///
  /// - Parameter condition: The condition entities must meet.
  /// - Returns: The changed query.
  public func filter(_ condition: ODataExpression) -> ODataQuery {
    var copy = self
    copy.filter = filter.map { $0 && condition } ?? condition
    return copy
  }

  /// Returns the query with more `$select` properties.
  ///
  /// - Parameter paths: The properties to return.
  /// - Returns: The changed query.
  public func select(_ paths: ODataPath...) -> ODataQuery {
    var copy = self
    copy.select += paths
    return copy
  }

  /// Returns the query with more `$select` properties given as typed properties.
  ///
  /// - Parameter properties: The properties to return; each must be a plain property, not a
  ///   function of one such as `lowercased()`. A function is left out of `$select`, and rendering
  ///   the query throws ``CatalogError/Code/invalidArgument`` naming it.
  /// - Returns: The changed query.
  public func select<each Value>(_ properties: repeat ODataProperty<each Value>) -> ODataQuery {
    var copy = self
    for property in repeat each properties {
      if let path = property.path {
        copy.select.append(path)
      } else if copy.rejectedArgument == nil {
        copy.rejectedArgument =
          "select(_:) takes properties, not functions of properties such as "
          + ODataRenderer.summary(of: property.operand)
      }
    }
    return copy
  }

  /// Returns the query with more `$expand` items.
  ///
  /// - Parameter items: The navigation properties to expand.
  /// - Returns: The changed query.
  package func expand(_ items: ODataExpand...) -> ODataQuery {
    var copy = self
    copy.expand += items
    return copy
  }

  /// Returns the query with more `$orderby` keys (less significant than the existing ones).
  ///
  /// - Parameter keys: The sort keys.
  /// - Returns: The changed query.
  public func orderBy(_ keys: ODataOrder...) -> ODataQuery {
    var copy = self
    copy.orderBy += keys
    return copy
  }

  /// Returns the query with a `$top` limit.
  ///
  /// - Parameter count: The largest number of entities to return; must not be negative, or
  ///   rendering the query throws ``CatalogError/Code/invalidArgument``.
  /// - Returns: The changed query.
  public func top(_ count: Int) -> ODataQuery {
    var copy = self
    copy.top = count
    return copy
  }

  /// Returns the query with a `$skip` offset.
  ///
  /// - Parameter count: The number of entities to skip; must not be negative, or rendering the
  ///   query throws ``CatalogError/Code/invalidArgument``.
  /// - Returns: The changed query.
  public func skip(_ count: Int) -> ODataQuery {
    var copy = self
    copy.skip = count
    return copy
  }

  /// Whether the results come with the total number of matching entities (`$count=true` on
  /// v4, `$inlinecount=allpages` on v2), as ``ODataResult/count``.
  ///
  /// `false` by default and for a ``countOnly()`` query; setting it replaces ``countOnly()``.
  public var includesCount: Bool {
    get { countMode == .inline }
    set { countMode = newValue ? .inline : .none }
  }

  /// Returns the query asking for the total count next to the results.
  ///
  /// - Returns: The changed query, with ``includesCount`` set.
  public func inlineCount() -> ODataQuery {
    var copy = self
    copy.countMode = .inline
    return copy
  }

  /// Returns the query asking only for the number of matching entities (`/$count`).
  ///
  /// ``CatalogProvider/count(_:)`` sends such a query for any query it is given.
  ///
  /// - Returns: The changed query.
  public func countOnly() -> ODataQuery {
    var copy = self
    copy.countMode = .only
    return copy
  }

  /// Returns the query with a `$search` expression (v4).
  ///
  /// - Parameter expression: The free-text search.
  /// - Returns: The changed query.
  public func search(_ expression: ODataSearch) -> ODataQuery {
    var copy = self
    copy.search = expression
    return copy
  }

  /// Returns the query with one more custom option.
  ///
  /// - Parameters:
  ///   - name: The option name, without `$`.
  ///   - value: The option value.
  /// - Returns: The changed query.
  public func customOption(_ name: String, _ value: String) -> ODataQuery {
    var copy = self
    copy.customOptions.append(CustomOption(name: name, value: value))
    return copy
  }
}

extension ODataQuery {
  /// Throws for the first argument the query cannot be sent with: a rejected chaining argument,
  /// then a negative `$top` or `$skip` here or in an `$expand` item.
  ///
  /// Rendering calls it, so a provider never sends, and the offline evaluator never runs, a
  /// query with such an argument.
  ///
  /// - Throws: ``CatalogError/Code/invalidArgument`` naming the argument.
  func validateArguments() throws(CatalogError) {
    if let rejectedArgument {
      throw CatalogError(.invalidArgument, rejectedArgument)
    }
    try Self.validatePaging(top: top, skip: skip, in: "the query")
    for item in expand {
      try Self.validatePaging(item)
    }
  }

  private static func validatePaging(_ item: ODataExpand) throws(CatalogError) {
    try validatePaging(top: item.top, skip: item.skip, in: "$expand=\(item.path)")
    for child in item.expand {
      try validatePaging(child)
    }
  }

  private static func validatePaging(top: Int?, skip: Int?, in place: String)
    throws(CatalogError)
  {
    if let top, top < 0 {
      throw CatalogError(.invalidArgument, "$top must not be negative, got \(top) in \(place)")
    }
    if let skip, skip < 0 {
      throw CatalogError(.invalidArgument, "$skip must not be negative, got \(skip) in \(place)")
    }
  }
}
