import CatalogClient
import Foundation
import TestSupport
import Testing

/// Schema discovery, listings and category counts against the test servers serving the catalog
/// in the shapes of ESPM, Northwind, SAP Gateway, S/4HANA's product API and a shop with
/// unrecognized names, on v2 and v4.
///
/// Expected rows come from the seed catalog the servers load, mapped to each shape here; each
/// listing is also checked against the server's own evaluation of a filter written by hand.
@Suite(.enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"))
struct CatalogShapesTests {
  typealias Shape = ODataTestServer.Shape

  static let cases: [(Shape, ODataVersion)] = Shape.allCases.flatMap { shape in
    ODataVersion.allCases.map { (shape, $0) }
  }

  static let seed = try? OfflineCatalog(contentsOf: ODataTestServer.catalog)

  static func server(_ shape: Shape, _ version: ODataVersion) throws -> ODataTestServer {
    try ODataTestServers.shared(version == .v4 ? .v4 : .v2, shape: shape)
  }

  static func provider(_ server: ODataTestServer, _ version: ODataVersion)
    -> HTTPCatalogProvider
  {
    HTTPCatalogProvider(serviceRoot: server.serviceRoot, version: version)
  }

  /// The schema a user gets: found alone, except for the shop, whose names are given.
  static func schema(_ shape: Shape, _ provider: HTTPCatalogProvider) async throws
    -> CatalogSchema
  {
    guard shape == .custom else { return try await provider.catalogSchema() }
    return try await provider.catalogSchema(entitySet: "Artikel", categoryProperty: "Warengruppe")
  }

  /// The products of a category as each shape's server holds them, from the seed catalog.
  static func expected(
    _ category: String, shape: Shape, server: ODataTestServer
  ) throws -> [Product] {
    let seed = try #require(Self.seed)
    let ordered = seed.products.sorted { $0.productId < $1.productId }
    return ordered.enumerated().filter { $0.element.categoryName == category }.map {
      index, row in
      var product = Product(productId: row.productId, name: row.name, categoryName: category)
      product.price = row.price
      switch shape {
      case .espm:
        product.currencyCode = row.currencyCode
        product.shortDescription = row.shortDescription
        product.pictureUrl = row.pictureUrl.map { server.origin.absoluteString + $0 }
      case .gateway:
        product.currencyCode = row.currencyCode
        product.shortDescription = row.shortDescription
      case .northwind:
        product.productId = String(index + 1)
      case .custom:
        // Only the names given (set and category) and the media resource are known.
        product.name = nil
        product.price = nil
        product.pictureUrl =
          server.serviceRoot.absoluteString + "Artikel('\(row.productId)')/$value"
      case .s4:
        // A_Product has no name or price; its GTIN is not part of a category listing.
        product.name = nil
        product.price = nil
      }
      return product
    }
  }

  @Test(.timeLimit(.minutes(3)), arguments: cases)
  func theSchemaIsFoundFromMetadata(_ shape: Shape, _ version: ODataVersion) async throws {
    let provider = Self.provider(try Self.server(shape, version), version)
    let schema = try await Self.schema(shape, provider)
    let expected: (String, String, ODataPath, String?, String?) =
      switch shape {
      case .espm:
        (
          "Products", "ProductId", "CategoryName", "ProductCategories",
          version == .v2 ? "EAN" : "GTIN"
        )
      case .northwind: ("Products", "ProductID", "Category/CategoryName", "Categories", nil)
      case .gateway: ("ProductSet", "ProductID", "Category", "VH_CategorySet", nil)
      case .custom: ("Artikel", "Nummer", "Warengruppe", nil, nil)
      case .s4: ("A_Product", "Product", "ProductGroup", nil, "ProductStandardID")
      }
    #expect(schema.entitySet == expected.0)
    #expect(schema.key == expected.1)
    #expect(schema.category == expected.2)
    #expect(schema.categorySet == expected.3)
    #expect(schema.gtin == expected.4)
    if shape == .custom {
      #expect(schema.picture == CatalogSchema.mediaResource)
      let error = await #expect(throws: CatalogError.self) {
        try await provider.catalogSchema()
      }
      #expect(error?.code == .invalidSchema)
      #expect(error?.message.contains("Artikel") == true)
    }
  }

  @Test(.timeLimit(.minutes(3)), arguments: cases)
  func listingsMatchTheSeedAndTheServersOwnFilter(_ shape: Shape, _ version: ODataVersion)
    async throws
  {
    let server = try Self.server(shape, version)
    let provider = Self.provider(server, version)
    let schema = try await Self.schema(shape, provider)
    for category in ["Notebooks", "Espresso Machines", "Telephones"] {
      let products = try await provider.products(inCategory: category, schema: schema)
      #expect(
        products == (try Self.expected(category, shape: shape, server: server)),
        "\(shape) \(version) \(category)")
      let query = try provider.describe(schema.productsQuery(inCategory: category))
      #expect(query.hasPrefix(server.serviceRoot.absoluteString + schema.entitySet + "?"))
      let own = try await Self.serversOwnKeys(category, shape: shape, server: server, version)
      #expect(products.map(\.productId) == own, "\(shape) \(version) \(category)")
    }
  }

  /// The keys the server returns for a filter written out by hand, not by the query builder.
  static func serversOwnKeys(
    _ category: String, shape: Shape, server: ODataTestServer, _ version: ODataVersion
  ) async throws -> [String] {
    let (set, filter, key) =
      switch shape {
      case .espm: ("Products", "CategoryName eq '\(category)'", "ProductId")
      case .northwind: ("Products", "Category/CategoryName eq '\(category)'", "ProductID")
      case .gateway: ("ProductSet", "Category eq '\(category)'", "ProductID")
      case .custom: ("Artikel", "Warengruppe eq '\(category)'", "Nummer")
      case .s4: ("A_Product", "ProductGroup eq '\(category)'", "Product")
      }
    let encoded = try #require(
      filter.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
    let url = try #require(
      URL(string: "\(set)?$filter=\(encoded)&$orderby=\(key)", relativeTo: server.serviceRoot))
    var keys: [String] = []
    var page = try await Self.provider(server, version).fetchPage(nextLink: url.absoluteURL)
    while true {
      for entity in page.entities {
        keys.append(try #require(entity.string(key) ?? entity.int64(key).map(String.init)))
      }
      guard let next = page.nextLink, !page.entities.isEmpty, keys.count < 1_000 else { break }
      page = try await Self.provider(server, version).fetchPage(nextLink: next)
    }
    return keys
  }

  @Test(.timeLimit(.minutes(3)), arguments: cases)
  func categoriesAreCountedOnEveryShape(_ shape: Shape, _ version: ODataVersion) async throws {
    let provider = Self.provider(try Self.server(shape, version), version)
    let schema = try await Self.schema(shape, provider)
    let categories = try await provider.categories(schema: schema)
    let seed = try #require(Self.seed)
    var expected: [String: Int64] = [:]
    for product in seed.products {
      expected[product.categoryName ?? "", default: 0] += 1
    }
    let counted = categories.map { ($0.categoryName, $0.numberOfProducts ?? -1) }
    #expect(Dictionary(uniqueKeysWithValues: counted) == expected)
    #expect(categories.map(\.categoryName) == categories.map(\.categoryName).sorted())
  }

  @Test(.timeLimit(.minutes(3)), arguments: cases)
  func hostileCategoriesStayLiterals(_ shape: Shape, _ version: ODataVersion) async throws {
    let provider = Self.provider(try Self.server(shape, version), version)
    let schema = try await Self.schema(shape, provider)
    let last = schema.category.segments.last ?? ""
    for hostile in [
      "Mice' or \(last) ne '", "Mice') or (1 eq 1", "x' or '1' eq '1", "Mice%27 or 1 eq 1",
    ] {
      let products = try await provider.products(inCategory: hostile, schema: schema)
      #expect(products.isEmpty, "\(hostile)")
      #expect(try await provider.count(schema.productsQuery(inCategory: hostile)) == 0)
    }
    // Had a value become syntax, this filter would have matched every product.
    var broken = ODataQuery(entitySet: schema.entitySet)
    let category = ODataProperty<String>(schema.category)
    broken.filter = category == "Mice" || category != ""
    #expect(try await provider.count(broken) == 51)
  }

  @Test(.timeLimit(.minutes(3)), arguments: [ODataVersion.v2, .v4])
  func gatewayErrorsAreSAPsEnvelope(_ version: ODataVersion) async throws {
    let provider = Self.provider(try Self.server(.gateway, version), version)
    let error = await #expect(throws: CatalogError.self) {
      try await provider.products(inCategory: "Notebooks")  // ESPM's names: no such set
    }
    #expect(error?.httpStatus == 404)
    #expect(error?.serviceError?.code.hasPrefix("/IWBEP/") == true)
  }
}
