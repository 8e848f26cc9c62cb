import Foundation

extension CatalogProvider {
  /// The most categories ``categories(schema:maximumPages:)`` counts one by one.
  static var maximumCountedCategories: Int { 2_000 }

  /// Finds the catalog's schema from the source's `$metadata`.
  ///
  /// With no names, the product entity set, its category and its GTIN are recognized (see
  /// ``CatalogSchema``); given names are checked and the rest is found around them. A source
  /// without `$metadata` is ``CatalogSchema/espm``, with the names applied.
  ///
  /// - Parameters:
  ///   - entitySet: The product entity set, when the service's names are not recognized.
  ///   - categoryProperty: The category property or navigation path, such as
  ///     `Category/CategoryName`.
  ///   - gtinProperty: The products' GTIN (EAN, UPC) property, when the service's name for it
  ///     is not recognized.
  /// - Returns: The schema, validated against the metadata.
  /// - Throws: ``CatalogError/Code/invalidSchema`` when nothing or more than one thing is
  ///   recognized or a name does not fit, ``CatalogError/Code/invalidMetadata`` for a broken
  ///   document, or the request's error.
  public func catalogSchema(
    entitySet: String? = nil, categoryProperty: String? = nil, gtinProperty: String? = nil
  ) async throws(CatalogError) -> CatalogSchema {
    guard let document = try await metadata() else {
      var schema = CatalogSchema.espm
      schema.entitySet = entitySet ?? schema.entitySet
      schema.category = categoryProperty.map { ODataPath($0) } ?? schema.category
      schema.gtin = gtinProperty
      return schema
    }
    return try CatalogSchema.detect(
      in: try ServiceMetadata.read(document), entitySet: entitySet,
      category: categoryProperty.map { ODataPath($0) }, gtin: gtinProperty)
  }

  /// Checks a schema written by hand (or read from a file) against the source's `$metadata`.
  ///
  /// - Parameter schema: The schema.
  /// - Returns: The schema with the key's and category's types and the category set filled in
  ///   from the metadata; unchanged for a source without `$metadata`.
  /// - Throws: ``CatalogError/Code/invalidSchema`` naming what does not fit, or the request's
  ///   error.
  public func checked(_ schema: CatalogSchema) async throws(CatalogError) -> CatalogSchema {
    guard let document = try await metadata() else {
      return schema
    }
    return try schema.validated(against: try ServiceMetadata.read(document))
  }

  /// The products of one category, following paging up to a bound.
  ///
  /// The exact query it sends (the first request's URL) is
  /// `describe(try schema.productsQuery(inCategory: category))`.
  ///
  /// - Parameters:
  ///   - category: The category, for example `Notebooks`; a value, never syntax.
  ///   - schema: Where the catalog keeps its products; ESPM's shape by default.
  ///   - maximumPages: The most pages to follow.
  /// - Returns: The products ordered by their key, with the properties
  ///   ``CatalogSchema/productsQuery(inCategory:)`` selects, normalized by the schema, their
  ///   picture URLs resolved against the service.
  /// - Throws: ``CatalogError`` for failed requests or a page limit hit.
  public func products(
    inCategory category: String, schema: CatalogSchema = .espm, maximumPages: Int = 100
  ) async throws(CatalogError) -> [Product] {
    let query = try schema.productsQuery(inCategory: category)
    let result = try await fetchEveryPage(query, maximumPages: maximumPages)
    return try products(of: result, category: category, schema: schema)
  }

  /// The products of one category, refusing a category the catalog does not have.
  ///
  /// An empty list is ambiguous (a known category with no products, or a misspelt name), so
  /// when a category yields no products and the schema has a category set, this asks that set
  /// whether the category exists.
  ///
  /// - Parameters:
  ///   - category: The category; always sent as a literal value.
  ///   - schema: Where the catalog keeps its products; ESPM's shape by default.
  /// - Returns: The products, as ``products(inCategory:schema:maximumPages:)`` returns them.
  /// - Throws: ``CatalogError/Code/notFound`` for an unknown category, or the request's own
  ///   error.
  public func products(inKnownCategory category: String, schema: CatalogSchema = .espm)
    async throws(CatalogError) -> [Product]
  {
    let products = try await products(inCategory: category, schema: schema)
    guard products.isEmpty, let set = schema.categorySet,
      let property = schema.categorySetProperty
    else { return products }
    let known = ODataQuery(entitySet: set)
      .filter(
        ODataExpression(
          .compare(.property(ODataPath(property)), .equal, .literal(try schema.literal(category)))))
    guard try await count(known) > 0 else {
      throw CatalogError(.notFound, "the catalog has no category named '\(category)'")
    }
    return products
  }

  /// The products with one GTIN, such as the one a barcode on the pack gives.
  ///
  /// The exact query it sends (the first request's URL) is
  /// `describe(try schema.productsQuery(withGTIN: gtin))`. A GTIN-8, GTIN-12 or GTIN-13 is
  /// matched as its 14-digit form, so a catalog may store any of the forms. Only products whose
  /// stored GTIN is the same number come back, whatever the service matched.
  ///
  /// - Parameters:
  ///   - gtin: The GTIN; always sent as literals of the GTIN property's type.
  ///   - schema: Where the catalog keeps its products; it must name a ``CatalogSchema/gtin``
  ///     property, as the schema ``catalogSchema(entitySet:categoryProperty:gtinProperty:)``
  ///     finds does when the products have one.
  ///   - maximumPages: The most pages to follow.
  /// - Returns: The products ordered by their key (usually one, or none), normalized by the
  ///   schema, with ``Product/gtin`` and their picture URLs resolved against the service.
  /// - Throws: ``CatalogError/Code/invalidArgument`` when the schema has no GTIN property, or
  ///   ``CatalogError`` for failed requests or a page limit hit.
  public func products(withGTIN gtin: GTIN, schema: CatalogSchema, maximumPages: Int = 100)
    async throws(CatalogError) -> [Product]
  {
    let query = try schema.productsQuery(withGTIN: gtin)
    let result = try await fetchEveryPage(query, maximumPages: maximumPages)
    return try products(of: result, category: nil, schema: schema).filter { product in
      product.gtin.flatMap(schema.storedGTIN) == gtin
    }
  }

  /// Every product with its category and picture, for training from a catalog.
  ///
  /// - Parameters:
  ///   - schema: Where the catalog keeps its products.
  ///   - maximumPages: The most pages to follow.
  /// - Returns: The products with their categories and pictures: ordered by key for a category
  ///   property; for a navigation path, listed category by category of the category set.
  /// - Throws: ``CatalogError`` for failed requests or a page limit hit.
  public func allProducts(schema: CatalogSchema, maximumPages: Int = 100)
    async throws(CatalogError) -> [Product]
  {
    guard schema.category.segments.count == 1 else {
      guard let set = schema.categorySet, let property = schema.categorySetProperty else {
        throw CatalogError(
          .invalidSchema,
          "the category path '\(schema.category)' has no category set to list the categories of")
      }
      var products: [Product] = []
      for name in try await categoryNames(set: set, property: property, maximumPages: maximumPages)
      {
        products += try await self.products(
          inCategory: name, schema: schema, maximumPages: maximumPages)
      }
      return products
    }
    let result = try await fetchEveryPage(schema.picturesQuery, maximumPages: maximumPages)
    return try products(of: result, category: nil, schema: schema)
  }

  /// The catalog's categories with their product counts.
  ///
  /// With a category set (such as ESPM's `ProductCategories` or Northwind's `Categories`) the
  /// categories are that set's, each counted with `/$count` and the same filter
  /// ``products(inCategory:schema:maximumPages:)`` sends, so empty categories show as 0;
  /// otherwise the products are paged through and their categories counted.
  ///
  /// - Parameters:
  ///   - schema: Where the catalog keeps its products.
  ///   - maximumPages: The most pages to follow.
  /// - Returns: The categories sorted by name, each with its
  ///   ``ProductCategory/categoryName-swift.property`` (as products are filtered on it) and
  ///   ``ProductCategory/numberOfProducts-swift.property``.
  /// - Throws: ``CatalogError`` for failed requests, a page limit hit, or more than 2,000
  ///   categories to count one by one (``CatalogError/Code/invalidArgument``).
  public func categories(schema: CatalogSchema = .espm, maximumPages: Int = 100)
    async throws(CatalogError) -> [ProductCategory]
  {
    let counts: [(name: String, count: Int)]
    if let set = schema.categorySet, let property = schema.categorySetProperty {
      counts = try await countEach(
        try await categoryNames(set: set, property: property, maximumPages: maximumPages),
        schema: schema)
    } else {
      counts = try await countByPaging(schema: schema, maximumPages: maximumPages)
    }
    return counts.sorted { $0.name < $1.name }.map {
      ProductCategory(categoryName: $0.name, numberOfProducts: Int64($0.count))
    }
  }

  /// Fetches a collection through every page up to `maximumPages`; more pages than that is an
  /// error even for one page, which ``fetch(_:maximumPages:)`` would return with its next link.
  private func fetchEveryPage(_ query: ODataQuery, maximumPages: Int) async throws(CatalogError)
    -> ODataResult
  {
    let result = try await fetch(query, maximumPages: maximumPages)
    if let next = result.nextLink, !result.entities.isEmpty {
      throw CatalogError(
        .pagingLimitExceeded, "more than \(maximumPages) pages", url: next.absoluteString)
    }
    return result
  }

  private func categoryNames(set: String, property: String, maximumPages: Int)
    async throws(CatalogError) -> [String]
  {
    let path = ODataPath(property)
    var query = ODataQuery(entitySet: set).orderBy(ODataOrder(.property(path), descending: false))
    query.select = [path]
    let result = try await fetchEveryPage(query, maximumPages: maximumPages)
    var names: [String] = []
    var seen: Set<String> = []
    for entity in result.entities {
      if let name = CatalogSchema.text(entity[property]), seen.insert(name).inserted {
        names.append(name)
      }
    }
    return names
  }

  /// Counts each category with `/$count`, four requests at a time.
  private func countEach(_ names: [String], schema: CatalogSchema) async throws(CatalogError)
    -> [(name: String, count: Int)]
  {
    guard names.count <= Self.maximumCountedCategories else {
      throw CatalogError(
        .invalidArgument,
        "the catalog has \(names.count) categories; at most \(Self.maximumCountedCategories) "
          + "are counted one by one")
    }
    var counts: [(name: String, count: Int)] = []
    var start = 0
    while start < names.count {
      let chunk = names[start..<min(start + 4, names.count)]
      let queries = try chunk.map { (name) throws(CatalogError) in
        (name, try schema.productsQuery(inCategory: name))
      }
      do {
        try await withThrowingTaskGroup(of: (name: String, count: Int).self) { group in
          for (name, query) in queries {
            group.addTask { (name: name, count: try await self.count(query)) }
          }
          for try await count in group {
            counts.append(count)
          }
        }
      } catch let error as CatalogError {
        throw error
      } catch {
        throw CatalogError(.cancelled, "counting the categories was cancelled")
      }
      start += chunk.count
    }
    return counts
  }

  /// Counts the categories of every product, paging through the products.
  private func countByPaging(schema: CatalogSchema, maximumPages: Int) async throws(CatalogError)
    -> [(name: String, count: Int)]
  {
    let products = try await allProducts(schema: schema, maximumPages: maximumPages)
    var counts: [String: Int] = [:]
    for product in products {
      counts[product.categoryName ?? "", default: 0] += 1
    }
    return counts.map { ($0.key, $0.value) }
  }

  /// The normalized products of a result's entities, with their picture URLs resolved.
  private func products(of result: ODataResult, category: String?, schema: CatalogSchema)
    throws(CatalogError) -> [Product]
  {
    var products: [Product] = []
    products.reserveCapacity(result.entities.count)
    for entity in result.entities {
      products.append(
        try schema.product(from: entity, category: category) { (reference) throws(CatalogError) in
          try pictureURL(for: reference, schema: schema)
        })
    }
    return products
  }

  private func pictureURL(for reference: PictureReference, schema: CatalogSchema)
    throws(CatalogError) -> String
  {
    switch reference {
    case .url(let text):
      return pictureURL(for: text)
    case .mediaResource(let key):
      return pictureURL(
        for: try describe(ODataQuery(entitySet: schema.entitySet).withKey(key)) + "/$value")
    }
  }
}
