import CatalogClient
import Foundation
import TestSupport
import Testing

/// Each quirk of pyslet's v2 memory store (Docs/Design.md section 5, plus those found while
/// probing), shown to be present on the real server and survived by the client.
@Suite(
  .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"),
  .timeLimit(.minutes(3)))
struct PysletQuirkTests {
  static let products = ODataQuery(entitySet: Product.entitySet)

  func provider(_ configuration: HTTPCatalogProvider.Configuration = .init()) throws
    -> HTTPCatalogProvider
  {
    HTTPCatalogProvider(
      serviceRoot: try ODataTestServers.shared(.v2).serviceRoot, version: .v2,
      configuration: configuration)
  }

  func raw(_ relative: String, accept: String?) async throws -> HTTPResponse {
    let url = try #require(
      URL(string: try ODataTestServers.shared(.v2).serviceRoot.absoluteString + relative))
    var headers: [String: String] = [:]
    if let accept {
      headers["Accept"] = accept
    }
    return try await URLSessionTransport().send(HTTPRequest(url: url, headers: headers))
  }

  func json(_ response: HTTPResponse) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: response.body) as? [String: Any])
  }

  @Test func nextLinkIsAnObjectWithURI() async throws {
    let response = try await raw("Products?$select=ProductId", accept: "application/json")
    let envelope = try #require(try json(response)["d"] as? [String: Any])
    let next = try #require(envelope["__next"] as? [String: Any])
    let uri = try #require(next["uri"] as? String)
    let page = try await provider().fetchPage(Self.products.select(Product.productId))
    #expect(page.entities.count == 5)
    #expect(page.nextLink?.absoluteString == uri)
  }

  @Test func pagingNeverEndsButFollowingStops() async throws {
    let provider = try provider()
    var page = try await provider.fetchPage(Self.products)
    var pages = 1
    while !page.entities.isEmpty, let next = page.nextLink, pages < 20 {
      page = try await provider.fetchPage(nextLink: next)
      pages += 1
    }
    #expect(page.entities.isEmpty)
    #expect(page.nextLink != nil, "the memory store links past the last page")
    let all = try await provider.fetch(Self.products, maximumPages: 30)
    #expect(all.entities.count == 51)
    #expect(Set(all.entities.compactMap { $0.string("ProductId") }).count == 51)
  }

  @Test func topIsDroppedFromTheNextLink() async throws {
    let query = Self.products.orderBy(Product.productId.ascending).top(7)
    let provider = try provider()
    let first = try await provider.fetchPage(query)
    let next = try #require(first.nextLink)
    #expect(!next.absoluteString.contains("top"))
    let second = try await provider.fetchPage(nextLink: next)
    #expect(first.entities.count + second.entities.count > 7, "the server forgot $top")
    let result = try await provider.fetch(query, maximumPages: 30)
    let offline = try await OfflineCatalogProvider.bundled().fetch(query, maximumPages: 1)
    #expect(result.entities.count == 7)
    #expect(
      result.entities.compactMap { $0.string("ProductId") }
        == offline.entities.compactMap { $0.string("ProductId") })
  }

  @Test func countIsANumber() async throws {
    let response = try await raw(
      "Products?$inlinecount=allpages&$top=1", accept: "application/json")
    let envelope = try #require(try json(response)["d"] as? [String: Any])
    #expect(envelope["__count"] is NSNumber)
    let result = try await provider().fetch(Self.products.inlineCount().top(1), maximumPages: 1)
    #expect(result.count == 51)
  }

  @Test func countNeedsAcceptTextPlain() async throws {
    let refused = try await raw("Products/$count", accept: "application/json")
    #expect(refused.statusCode == 406)
    #expect(try await provider().count(Self.products) == 51)
    #expect(
      try await provider().count(Self.products.filter(Product.price > MatrixCase.decimal("100")))
        == 31)
  }

  @Test func atomUnlessJSONIsAccepted() async throws {
    let atom = try await raw("Products?$top=1", accept: nil)
    #expect(String(decoding: atom.body.prefix(5), as: UTF8.self) == "<?xml")
    let result = try await provider().fetch(Self.products.top(1), maximumPages: 1)
    #expect(result.entities.first?.string("ProductId") == "HT-1000")
  }

  @Test func unknownPropertyIsHTTP500() async throws {
    let query = Self.products.filter(ODataProperty<String>("Nope") == "x")
    let error = await #expect(throws: CatalogError.self) {
      try await provider().fetch(query, maximumPages: 1)
    }
    #expect(error?.code == .httpStatus)
    #expect(error?.httpStatus == 500)
    #expect(error?.serviceError?.code == "UnexpectedError")
    #expect(error?.serviceError?.language == nil, "pyslet sends the v4-like message string")
  }

  @Test func selectHidesUnselectedPropertiesFromTheFilter() async throws {
    let query = Self.products.filter(Product.categoryName == "Mice").select(Product.productId)
    let naive = try provider(.init(selectsFilteredProperties: false))
    #expect(
      try await naive.fetch(query, maximumPages: 30).entities.isEmpty)
    let robust = try provider()
    #expect(try robust.describe(query).contains("$select=ProductId,CategoryName"))
    #expect(
      try await robust.fetch(query, maximumPages: 30).entities.count == 5)
  }

  @Test func bareDecimalLiteralsAreRejected() async throws {
    let bare = try await raw("Products?$filter=Price%20le%209.5", accept: "application/json")
    #expect(bare.statusCode == 400)
    let typed = try await provider().fetch(
      Self.products.filter(Product.price <= MatrixCase.decimal("9.5")),
      maximumPages: 30)
    #expect(
      typed.entities.compactMap { $0.string("ProductId") }.sorted() == [
        "HT-1060", "HT-1061", "HT-1100",
      ])
  }
}
