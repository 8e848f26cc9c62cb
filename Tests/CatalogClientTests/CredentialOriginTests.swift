import CatalogClient
import Foundation
import Synchronization
import Testing

/// Credentials go only to the service's own origin (scheme, host, port): a next link or a
/// picture URL that points elsewhere is refused before any request, so it never gets the header.
@Suite struct CredentialOriginTests {
  /// Answers every request with a fixed page and records what was sent.
  final class RecordingTransport: HTTPTransport {
    let sent = Mutex<[HTTPRequest]>([])
    let nextLink: String?

    init(nextLink: String?) {
      self.nextLink = nextLink
    }

    func send(_ request: HTTPRequest) async throws(CatalogError) -> HTTPResponse {
      let isFirst = sent.withLock { sent in
        sent.append(request)
        return sent.count == 1
      }
      var page = #"{"value": [{"ProductId": "HT-1000"}]"#
      if isFirst, let nextLink {
        page += #", "@odata.nextLink": "\#(nextLink)""#
      }
      return HTTPResponse(statusCode: 200, body: Data((page + "}").utf8))
    }
  }

  static let root: URL = {
    var components = URLComponents()
    components.scheme = "https"
    components.host = "catalog.example"
    components.port = 8443
    components.path = "/odata/"
    return components.url ?? URL(fileURLWithPath: "/")
  }()
  static let query = ODataQuery(entitySet: "Products")
  static let header = "Basic " + Data("u:secret".utf8).base64EncodedString()

  func provider(_ transport: RecordingTransport) -> HTTPCatalogProvider {
    HTTPCatalogProvider(
      serviceRoot: Self.root, version: .v4, transport: transport,
      configuration: .init(authorization: .basic(user: "u", password: "secret")))
  }

  @Test func aNextLinkOnTheSameOriginGetsTheHeader() async throws {
    let transport = RecordingTransport(nextLink: "https://CATALOG.example:8443/odata/Products?p=2")
    let result = try await provider(transport).fetch(
      Self.query, maximumPages: 5)
    #expect(result.entities.count == 2)
    let sent = transport.sent.withLock { $0 }
    #expect(sent.count == 2)
    #expect(sent.allSatisfy { $0.headers["Authorization"] == Self.header })
  }

  @Test(arguments: [
    "https://evil.example:8443/odata/Products?p=2",
    "http://catalog.example:8443/odata/Products?p=2",
    "https://catalog.example/odata/Products?p=2",
    "https://catalog.example:8443@evil.example/odata/Products",
    "//evil.example/odata/Products",
  ])
  func aNextLinkToAnotherOriginIsNeverRequested(_ link: String) async throws {
    let transport = RecordingTransport(nextLink: link)
    let error = await #expect(throws: CatalogError.self) {
      try await provider(transport).fetch(Self.query, maximumPages: 5)
    }
    #expect(error?.code == .foreignOrigin)
    let sent = transport.sent.withLock { $0 }
    #expect(sent.map(\.url.host) == ["catalog.example"], "only the first page was requested")
  }

  @Test func aPictureOnAnotherOriginIsNeverRequested() async throws {
    let transport = RecordingTransport(nextLink: nil)
    let loader = ProductPictureLoader(
      serviceRoot: Self.root, transport: transport, headers: ["Authorization": Self.header])
    for url in [
      "https://evil.example/imgs/a.jpg", "//evil.example/imgs/a.jpg",
      "http://catalog.example:8443/a.jpg",
    ] {
      let error = await #expect(throws: CatalogError.self) { try await loader.picture(for: url) }
      #expect(error?.code == .foreignOrigin, "\(url)")
    }
    #expect(transport.sent.withLock { $0.isEmpty })
    _ = try await loader.picture(for: "/imgs/a.jpg")
    let sent = transport.sent.withLock { $0 }
    #expect(sent.map(\.url.absoluteString) == ["https://catalog.example:8443/imgs/a.jpg"])
    #expect(sent.first?.headers["Authorization"] == Self.header)
  }
}

@Test func printingCredentialsNeverShowsTheSecret() {
  let basic = Authorization.basic(user: "ada", password: "s3cret-pass")
  let bearer = Authorization.bearer("t0ken-value")
  for text in ["\(basic)", String(reflecting: basic), "\(bearer)", String(reflecting: bearer)] {
    #expect(!text.contains("s3cret-pass") && !text.contains("t0ken-value"), "\(text)")
  }
  #expect("\(basic)".contains("ada"))
}
