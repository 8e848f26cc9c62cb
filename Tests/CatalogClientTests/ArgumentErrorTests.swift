import CatalogClient
import Foundation
import Synchronization
import Testing

/// Arguments the query builder once trapped on now surface as `CatalogError.invalidArgument`
/// when the query is rendered, before any provider sends or evaluates it.
struct ArgumentErrorTests {
  static let products = ODataQuery(entitySet: Product.entitySet)

  /// The error rendering `query` for `version` throws, or `nil` (recorded) when it renders.
  func renderingError(_ query: ODataQuery, version: ODataVersion = .v4) -> CatalogError? {
    do {
      let text = try query.relativeURL(version: version)
      Issue.record("expected an error, rendered \(text)")
      return nil
    } catch {
      return error
    }
  }

  @Test(arguments: [ODataVersion.v2, .v4])
  func negativeTopIsAnInvalidArgument(version: ODataVersion) {
    let error = renderingError(Self.products.top(-1), version: version)
    #expect(error?.code == .invalidArgument)
    #expect(error?.message == "$top must not be negative, got -1 in the query")
  }

  @Test(arguments: [ODataVersion.v2, .v4])
  func negativeSkipIsAnInvalidArgument(version: ODataVersion) {
    let error = renderingError(Self.products.skip(-20), version: version)
    #expect(error?.code == .invalidArgument)
    #expect(error?.message == "$skip must not be negative, got -20 in the query")
  }

  @Test func negativeTopSetDirectlyIsAnInvalidArgument() {
    var query = Self.products
    query.top = -3
    #expect(renderingError(query)?.code == .invalidArgument)
  }

  @Test func negativePagingInsideExpandIsAnInvalidArgument() {
    let query = ODataQuery(entitySet: ProductCategory.entitySet)
      .expand(ODataExpand("Products", expand: [ODataExpand("Supplier", skip: -1)]))
    let error = renderingError(query)
    #expect(error?.code == .invalidArgument)
    #expect(error?.message == "$skip must not be negative, got -1 in $expand=Supplier")
  }

  @Test func selectingAFunctionOfAPropertyIsAnInvalidArgument() {
    let query = Self.products.select(Product.productId, Product.name.lowercased())
    let error = renderingError(query)
    #expect(error?.code == .invalidArgument)
    #expect(
      error?.message
        == "select(_:) takes properties, not functions of properties such as tolower(Name)")
    #expect(
      error?.description
        == "CatalogError.invalidArgument: select(_:) takes properties, not functions of "
        + "properties such as tolower(Name)")
  }

  @Test func theFirstRejectedSelectArgumentIsReported() {
    let query = Self.products.select(Product.name.uppercased()).select(
      Product.name.lowercased())
    #expect(renderingError(query)?.message.hasSuffix("toupper(Name)") == true)
  }

  @Test func aLaterValidTopReplacesAnInvalidOne() throws {
    let text = try Self.products.top(-1).top(5).relativeURL(version: .v4)
    #expect(text == "Products?$top=5")
  }

  @Test func urlAndQueryOptionsThrowTheSameError() throws {
    let query = Self.products.top(-1)
    let root = try #require(URL(string: "https://example.com/odata/"))
    #expect(
      throws: CatalogError(.invalidArgument, "$top must not be negative, got -1 in the query")
    ) {
      _ = try query.url(serviceRoot: root, version: .v4)
    }
    #expect(
      throws: CatalogError(.invalidArgument, "$top must not be negative, got -1 in the query")
    ) {
      _ = try query.queryOptions(version: .v2)
    }
  }

  @Test func theOfflineProviderThrowsInsteadOfTrapping() async throws {
    let offline = try OfflineCatalogProvider.bundled()
    let expandQuery = ODataQuery(entitySet: ProductCategory.entitySet)
      .expand(ODataExpand("Products", top: -1))
    for query in [Self.products.top(-1), Self.products.skip(-1), expandQuery] {
      await #expect {
        _ = try await offline.fetch(query, maximumPages: 1)
      } throws: { error in
        (error as? CatalogError)?.code == .invalidArgument
      }
    }
    await #expect {
      _ = try await offline.count(Self.products.top(-1))
    } throws: { error in
      (error as? CatalogError)?.code == .invalidArgument
    }
  }

  @Test func theHTTPProviderSendsNothing() async throws {
    let transport = RecordingTransport()
    let root = try #require(URL(string: "https://example.com/odata/"))
    let provider = HTTPCatalogProvider(serviceRoot: root, version: .v2, transport: transport)
    let query = Self.products.select(Product.name.lowercased())
    await #expect {
      _ = try await provider.fetch(query, maximumPages: 1)
    } throws: { error in
      (error as? CatalogError)?.code == .invalidArgument
    }
    await #expect {
      _ = try await provider.count(Self.products.skip(-1))
    } throws: { error in
      (error as? CatalogError)?.code == .invalidArgument
    }
    #expect(throws: CatalogError.self) { _ = try provider.describe(Self.products.top(-1)) }
    #expect(transport.requestCount == 0)
  }

  @Test func codeDescriptionsAreTheirNames() {
    let codes: [(CatalogError.Code, String)] = [
      (.unsupportedQuery, "unsupportedQuery"), (.invalidURL, "invalidURL"),
      (.unreachable, "unreachable"), (.timeout, "timeout"), (.cancelled, "cancelled"),
      (.httpStatus, "httpStatus"), (.malformedResponse, "malformedResponse"),
      (.responseTooLarge, "responseTooLarge"), (.pagingLimitExceeded, "pagingLimitExceeded"),
      (.foreignOrigin, "foreignOrigin"), (.notFound, "notFound"),
      (.invalidCatalog, "invalidCatalog"), (.decodingFailed, "decodingFailed"),
      (.invalidArgument, "invalidArgument"),
    ]
    for (code, name) in codes {
      #expect("\(code)" == name)
      #expect(code.description == name)
    }
    #expect(Set(codes.map(\.0)).count == codes.count)
    #expect(
      "\(CatalogError(.timeout, "late", httpStatus: 504))"
        == "CatalogError.timeout: late (HTTP 504)"
    )
  }
}

/// A transport that counts requests and answers none of them.
private final class RecordingTransport: HTTPTransport {
  private let counter = Mutex(0)

  var requestCount: Int { counter.withLock { $0 } }

  func send(_ request: HTTPRequest) async throws(CatalogError) -> HTTPResponse {
    counter.withLock { $0 += 1 }
    throw CatalogError(.unreachable, "this test transport sends nothing")
  }
}
