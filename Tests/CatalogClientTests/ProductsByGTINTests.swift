import CatalogClient
import Foundation
import Synchronization
import TestSupport
import Testing

/// Looking a product up by the GTIN on its barcode: in the bundled catalog, on the v2 and v4
/// servers (whose ESPM products call it `EAN` and `GTIN`), on an S/4HANA-like service where only
/// `$metadata` says `ProductStandardID` is the GTIN, and against a server that matches loosely.
struct ProductsByGTINTests {
  static let seed = try? OfflineCatalog.bundled()

  /// A valid GTIN-13 in the bundled catalog's in-store range that no product has.
  static let unknown = "2012345099999"

  /// Products of the seed spread over the file: the first, one whose name has an apostrophe,
  /// one with non-ASCII letters, the last.
  static let sampled = ["HT-1000", "HT-1063", "HT-1102", "HT-1152"]

  static func seedProduct(_ id: String) throws -> Product {
    try #require(Self.seed?.products.first { $0.productId == id })
  }

  @Test func everyBundledProductHasItsOwnValidGTIN13() throws {
    let products = try #require(Self.seed).products
    let gtins = try products.map { product in
      let text = try #require(product.gtin, "\(product.productId)")
      #expect(text.count == 13 && text.hasPrefix("2012345"), "\(text)")
      return try #require(GTIN(text), "\(text)")
    }
    #expect(Set(gtins).count == products.count)
    #expect(!gtins.contains(try #require(GTIN(Self.unknown))))
  }

  @Test func theBundledCatalogFindsEachProductByItsGTIN() async throws {
    let provider = try OfflineCatalogProvider.bundled()
    let schema = try await provider.catalogSchema()
    for product in try #require(Self.seed).products {
      let text = try #require(product.gtin)
      for form in [text, "0" + text] {
        let gtin = try #require(GTIN(form))
        let found = try await provider.products(withGTIN: gtin, schema: schema)
        var expected = Product(
          productId: product.productId, name: product.name, categoryName: product.categoryName,
          price: product.price, currencyCode: product.currencyCode,
          pictureUrl: product.pictureUrl)
        expected.shortDescription = product.shortDescription
        expected.gtin = text
        #expect(found == [expected], "\(form)")
      }
    }
    #expect(
      try provider.describe(schema.productsQuery(withGTIN: try #require(GTIN("2012345010000"))))
        == "Products?$filter=GTIN%20eq%20'02012345010000'%20or%20GTIN%20eq%20'2012345010000'"
        + "&$select=ProductId,Name,CategoryName,Price,CurrencyCode,PictureUrl,ShortDescription,GTIN"
        + "&$orderby=ProductId")
    for other in [Self.unknown, "4006381333931", "036000291452", "96385074"] {
      let gtin = try #require(GTIN(other))
      #expect(try await provider.products(withGTIN: gtin, schema: schema).isEmpty, "\(other)")
    }
  }

  @Test func aSchemaWithoutAGTINPropertyIsAnArgumentError() async throws {
    let provider = try OfflineCatalogProvider.bundled()
    let gtin = try #require(GTIN("2012345010000"))
    let error = await #expect(throws: CatalogError.self) {
      try await provider.products(withGTIN: gtin, schema: .espm)
    }
    #expect(error?.code == .invalidArgument)
  }

  // MARK: - A server that matches loosely

  /// Answers every request with the same page, whatever its filter, and records the URLs.
  final class LooseTransport: HTTPTransport {
    let page: String
    let sent = Mutex<[String]>([])

    init(_ rows: [String]) {
      page = #"{"value": ["# + rows.joined(separator: ",") + "]}"
    }

    func send(_ request: HTTPRequest) async throws(CatalogError) -> HTTPResponse {
      sent.withLock { $0.append(request.url.absoluteString) }
      return HTTPResponse(statusCode: 200, body: Data(page.utf8))
    }
  }

  static func loose(_ rows: [String]) throws -> (HTTPCatalogProvider, LooseTransport) {
    let transport = LooseTransport(rows)
    let root = try #require(URL(string: "http://catalog.example/odata/"))
    return (HTTPCatalogProvider(serviceRoot: root, version: .v4, transport: transport), transport)
  }

  @Test func onlyProductsWithTheSameNumberComeBack() async throws {
    let (provider, transport) = try Self.loose([
      #"{"ProductId": "A", "EAN": "4006381333931"}"#,
      #"{"ProductId": "B", "EAN": "04006381333931"}"#,
      #"{"ProductId": "C", "EAN": "4006381333932"}"#,
      #"{"ProductId": "D", "EAN": "036000291452"}"#,
      #"{"ProductId": "E", "EAN": " 4006381333931"}"#,
      #"{"ProductId": "F", "EAN": "400638133393"}"#,
      #"{"ProductId": "G", "EAN": null}"#,
      #"{"ProductId": "H"}"#,
    ])
    var schema = CatalogSchema.espm
    schema.gtin = "EAN"
    let found = try await provider.products(
      withGTIN: try #require(GTIN("4006381333931")), schema: schema)
    #expect(found.map(\.productId) == ["A", "B"])
    #expect(found.map(\.gtin) == ["4006381333931", "04006381333931"])
    let sent = try #require(transport.sent.withLock { $0.first })
    #expect(sent.contains("$filter=EAN%20eq%20'04006381333931'%20or%20EAN%20eq%20'4006381333931'"))
  }

  @Test(arguments: ["Edm.Int64", "Edm.Decimal"])
  func numbersLoseTheirLeadingZerosButNotTheirIdentity(_ type: String) async throws {
    let (provider, transport) = try Self.loose([
      #"{"ProductId": "A", "UPC": 36000291452}"#,
      #"{"ProductId": "B", "UPC": "36000291452"}"#,
      #"{"ProductId": "C", "UPC": "36000291452.000"}"#,
      #"{"ProductId": "D", "UPC": "36000291452.5"}"#,
      #"{"ProductId": "E", "UPC": 36000291453}"#,
      #"{"ProductId": "F", "UPC": 360002914520}"#,
      #"{"ProductId": "G", "UPC": "-36000291452"}"#,
      #"{"ProductId": "H", "UPC": 123456789012345678}"#,
    ])
    var schema = CatalogSchema.espm
    schema.gtin = "UPC"
    schema.gtinType = type
    let found = try await provider.products(
      withGTIN: try #require(GTIN("036000291452")), schema: schema)
    #expect(found.map(\.productId) == ["A", "B", "C"])
    #expect(found.map(\.gtin) == ["36000291452", "36000291452", "36000291452.000"])
    let sent = try #require(transport.sent.withLock { $0.first })
    #expect(sent.contains("$filter=UPC%20eq%2036000291452&"), "\(sent)")
  }

  // MARK: - The test servers

  static let serverCases: [(ODataTestServer.Shape, ODataVersion)] = [
    (.espm, .v2), (.espm, .v4), (.s4, .v2), (.s4, .v4),
  ]

  @Test(
    .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"),
    .timeLimit(.minutes(3)), arguments: serverCases)
  func serversFindTheProductByItsGTIN(_ shape: ODataTestServer.Shape, _ version: ODataVersion)
    async throws
  {
    let server = try ODataTestServers.shared(version == .v4 ? .v4 : .v2, shape: shape)
    let provider = HTTPCatalogProvider(serviceRoot: server.serviceRoot, version: version)
    let schema = try await provider.catalogSchema()
    let property =
      switch shape {
      case .s4: "ProductStandardID"
      default: version == .v2 ? "EAN" : "GTIN"
      }
    #expect(schema.gtin == property)
    #expect(schema.gtinType == "Edm.String")
    for id in Self.sampled {
      let seed = try Self.seedProduct(id)
      let text = try #require(seed.gtin)
      for form in [text, "0" + text] {
        let found = try await provider.products(
          withGTIN: try #require(GTIN(form)), schema: schema)
        var expected = Product(productId: id, categoryName: seed.categoryName)
        if shape == .s4 {
          expected.gtin = "0" + text  // stored as the GTIN-14
        } else {
          expected.name = seed.name
          expected.shortDescription = seed.shortDescription
          expected.price = seed.price
          expected.currencyCode = seed.currencyCode
          expected.pictureUrl = seed.pictureUrl.map { server.origin.absoluteString + $0 }
          expected.gtin = text
        }
        #expect(found == [expected], "\(shape) \(version) \(form)")
      }
    }
    for other in [Self.unknown, "4006381333931", "96385074"] {
      let gtin = try #require(GTIN(other))
      #expect(try await provider.products(withGTIN: gtin, schema: schema).isEmpty, "\(other)")
    }
    let query = try provider.describe(
      schema.productsQuery(withGTIN: try #require(GTIN("2012345010000"))))
    #expect(
      query.hasPrefix(
        server.serviceRoot.absoluteString + schema.entitySet + "?$filter=\(property)%20eq%20"
          + "'02012345010000'%20or%20\(property)%20eq%20'2012345010000'&"),
      "\(query)")
  }

  @Test(
    .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"),
    .timeLimit(.minutes(3)), arguments: ODataVersion.allCases)
  func aNamedPropertyOverridesDetection(_ version: ODataVersion) async throws {
    let server = try ODataTestServers.shared(version == .v4 ? .v4 : .v2, shape: .gateway)
    let provider = HTTPCatalogProvider(serviceRoot: server.serviceRoot, version: version)
    #expect(try await provider.catalogSchema().gtin == nil)
    // GWSAMPLE_BASIC has no GTIN; its product ids are strings, so naming one is checked and works.
    let schema = try await provider.catalogSchema(gtinProperty: "ProductID")
    #expect(schema.gtin == "ProductID")
    #expect(
      try await provider.products(withGTIN: #require(GTIN(Self.unknown)), schema: schema)
        .isEmpty)
    let error = await #expect(throws: CatalogError.self) {
      try await provider.catalogSchema(gtinProperty: "EAN")
    }
    #expect(error?.code == .invalidSchema)
    #expect(error?.message.contains("for the GTIN") == true)
  }
}
