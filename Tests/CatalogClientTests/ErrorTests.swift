import CatalogClient
import Foundation
import TestSupport
import Testing

/// Every failure ends in the right typed error, quickly: real servers where they can produce the
/// fault, the fault server where they cannot.
@Suite(
  .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"),
  .timeLimit(.minutes(3)))
struct ErrorTests {
  static let products = ODataQuery(entitySet: Product.entitySet)

  func fault(
    _ prefix: String, version: ODataVersion = .v4,
    configuration: HTTPCatalogProvider.Configuration = .init(timeout: 10)
  ) throws -> HTTPCatalogProvider {
    let root = try ODataTestServers.shared(.fault).origin.appendingPathComponent(prefix + "/")
    return HTTPCatalogProvider(serviceRoot: root, version: version, configuration: configuration)
  }

  func failure(_ provider: HTTPCatalogProvider, _ query: ODataQuery = products) async
    -> CatalogError?
  {
    await #expect(throws: CatalogError.self) {
      try await provider.fetch(query, maximumPages: 10)
    }
  }

  @Test func unreachableServer() async throws {
    let root = try #require(URL(string: "http://127.0.0.1:1/odata/"))
    let error = await failure(HTTPCatalogProvider(serviceRoot: root, version: .v4))
    #expect(error?.code == .unreachable)
    #expect(error?.httpStatus == nil)
  }

  @Test func timeout() async throws {
    let provider = try fault("slow", configuration: .init(timeout: 0.5))
    let error = await failure(provider)
    #expect(error?.code == .timeout)
  }

  @Test func notFoundOnBothServers() async throws {
    let v4 = HTTPCatalogProvider(
      serviceRoot: try ODataTestServers.shared(.v4).serviceRoot, version: .v4)
    let missingSet = await failure(v4, ODataQuery(entitySet: "Nope"))
    #expect(missingSet?.httpStatus == 404)
    #expect(missingSet?.serviceError?.message.contains("Nope") == true)
    let v2 = HTTPCatalogProvider(
      serviceRoot: try ODataTestServers.shared(.v2).serviceRoot, version: .v2)
    let missingKey = await #expect(throws: CatalogError.self) {
      try await v2.entity(Self.products.withKey("HT-0000"))
    }
    #expect(missingKey?.httpStatus == 404)
    #expect(missingKey?.serviceError?.code == "Resource not found")
  }

  @Test func badRequestWithODataErrorBody() async throws {
    let v4 = HTTPCatalogProvider(
      serviceRoot: try ODataTestServers.shared(.v4).serviceRoot, version: .v4)
    let error = await failure(v4, Self.products.filter(ODataProperty<String>("Nope") == "x"))
    #expect(error?.code == .httpStatus)
    #expect(error?.httpStatus == 400)
    #expect(error?.serviceError?.code == "400")
    #expect(error?.serviceError?.message.contains("'Nope'") == true)
  }

  @Test func badRequestInSAPShape() async throws {
    let error = await failure(try fault("sap400", version: .v2))
    #expect(error?.httpStatus == 400)
    #expect(
      error?.serviceError
        == ODataServiceError(code: "SY/530", message: "Property 'Nope' is unknown", language: "en"))
  }

  @Test func serverError() async throws {
    let error = await failure(try fault("status/500"))
    #expect(error?.code == .httpStatus)
    #expect(error?.httpStatus == 500)
    #expect(error?.serviceError?.message == "fault 500")
  }

  @Test func malformedJSON() async throws {
    let error = await failure(try fault("malformed"))
    #expect(error?.code == .malformedResponse)
    #expect(error?.httpStatus == 200)
  }

  @Test func neverEndingNextLink() async throws {
    let error = await failure(try fault("endless"))
    #expect(error?.code == .pagingLimitExceeded)
    let loop = await failure(try fault("loop"))
    #expect(loop?.code == .pagingLimitExceeded)
    let firstPage = try await fault("endless").fetch(Self.products, maximumPages: 1)
    #expect(firstPage.entities.count == 1)
    #expect(firstPage.nextLink != nil)
  }

  @Test func nextLinkToAnotherHost() async throws {
    let error = await failure(try fault("foreign-next"))
    #expect(error?.code == .foreignOrigin)
  }

  @Test func redirectsStayOnTheOrigin() async throws {
    let home = try await fault("redirect-home").fetch(Self.products, maximumPages: 1)
    #expect(home.entities.count == 1)
    let away = await failure(
      try fault("redirect-away", configuration: .init(authorization: .bearer("secret"))))
    #expect(away?.code == .httpStatus)
    #expect(away?.httpStatus == 302)
  }

  @Test func pictureOnAnotherHost() async throws {
    let loader = ProductPictureLoader(
      serviceRoot: try ODataTestServers.shared(.v4).serviceRoot)
    for url in [
      "http://other.invalid/imgs/HT-1000.jpg", "//other.invalid/imgs/HT-1000.jpg",
      "https://127.0.0.1:\(try ODataTestServers.shared(.v4).port)/imgs/HT-1000.jpg",
      "http://127.0.0.1:1/imgs/HT-1000.jpg",
    ] {
      let error = await #expect(throws: CatalogError.self) { try await loader.picture(for: url) }
      #expect(error?.code == .foreignOrigin, "\(url)")
    }
    #expect(await loader.downloadCount == 0)
  }

  @Test(arguments: ["huge", "stream"])
  func hugeBodyIsCut(_ prefix: String) async throws {
    let provider = try fault(prefix, configuration: .init(maximumResponseBytes: 1 << 20))
    let error = await failure(provider)
    #expect(error?.code == .responseTooLarge)
  }

  @Test func retriesOn429And503() async throws {
    let key = UUID().uuidString
    let retry = HTTPCatalogProvider.Configuration(
      maximumRetries: 3, initialDelay: 0.01, maximumDelay: 0.05)
    let provider = try fault("flaky/3/\(key)", configuration: retry)
    let result = try await provider.fetch(Self.products, maximumPages: 1)
    #expect(result.entities.count == 1)
    let noRetry = try fault("flaky/1/\(UUID().uuidString)", configuration: .init(maximumRetries: 0))
    let error = await failure(noRetry)
    #expect(error?.httpStatus == 429)
    let down = try fault("always503", configuration: retry)
    #expect(await failure(down)?.httpStatus == 503)
  }

  @Test func cancellationStopsARequest() async throws {
    let provider = try fault("slow", configuration: .init(timeout: 30))
    let task = Task { () async throws(CatalogError) -> ODataResult in
      try await provider.fetch(Self.products, maximumPages: 1)
    }
    try await Task.sleep(for: .milliseconds(300))
    task.cancel()
    let outcome = await task.result
    guard case .failure(let error) = outcome else {
      Issue.record("a cancelled request returned a result")
      return
    }
    #expect((error as? CatalogError)?.code == .cancelled)
  }

  @Test func authorizationHeadersAndCSRFToken() async throws {
    let provider = try fault(
      "headers",
      configuration: .init(
        headers: ["sap-client": "001"], authorization: .basic(user: "user", password: "pässword")))
    let entity = try #require(
      try await provider.fetch(Self.products, maximumPages: 1).entities.first)
    #expect(entity.string("Authorization") == "Basic dXNlcjpww6Rzc3dvcmQ=")
    #expect(entity.string("SapClient") == "001")
    #expect(entity.string("Accept") == "application/json")
    #expect(try await provider.fetchCSRFToken() == "token-123")
    let bearer = try fault("headers", configuration: .init(authorization: .bearer("abc")))
    let echoed = try await bearer.fetch(Self.products, maximumPages: 1).entities.first
    #expect(echoed?.string("Authorization") == "Bearer abc")
  }

  @Test func olderV2ShapesDecode() async throws {
    let old = try await fault("v2old", version: .v2).fetch(Self.products, maximumPages: 1)
    let product = try #require(try old.decode(Product.self).first)
    #expect(product.price == MatrixCase.decimal("956.00"))
    #expect(product.stockQuantity == 142)
    #expect(product.updatedTimestamp == MatrixCase.date("2024-01-15T08:30:00"))
    let paged = try await fault("v2next", version: .v2).fetch(
      Self.products.inlineCount(), maximumPages: 5)
    #expect(paged.count == 2)
    #expect(paged.entities.compactMap { $0.decimal("Price") } == [1.5, 2.5])
    #expect(paged.requests.count == 2)
  }
}
