import CatalogClient
import Foundation
import TestSupport
import Testing

@Suite(
  .enabled(if: ODataTestServer.isAvailable, "needs Scripts/odata-servers/setup-venv.sh"),
  .timeLimit(.minutes(3)))
struct PictureLoaderTests {
  static func expectedBytes(_ productId: String) -> Data {
    Data(("VCIMG:" + productId + ":" + String(repeating: "x", count: 64)).utf8)
  }

  /// How often the server has served each picture path.
  static func serverCounts(_ server: ODataTestServer) async throws -> [String: Int] {
    let response = try await URLSessionTransport().send(
      HTTPRequest(url: server.origin.appendingPathComponent("__stats")))
    return try JSONDecoder().decode([String: Int].self, from: response.body)
  }

  @Test func picturesOfRealProductsResolveAgainstTheServiceRoot() async throws {
    let server = try ODataTestServers.shared(.v4)
    let provider = HTTPCatalogProvider(serviceRoot: server.serviceRoot, version: .v4)
    let product = try await provider.entity(
      ODataQuery(entitySet: Product.entitySet).withKey("HT-1000")
    )
    .decode(Product.self)
    let pictureUrl = try #require(product.pictureUrl)
    #expect(pictureUrl == "/imgs/HT-1000.jpg")
    let loader = ProductPictureLoader(serviceRoot: server.serviceRoot)
    #expect(
      try loader.resolve(pictureUrl).absoluteString
        == "http://127.0.0.1:\(server.port)/imgs/HT-1000.jpg")
    #expect(try await loader.picture(for: pictureUrl) == Self.expectedBytes("HT-1000"))
  }

  /// An empty `PictureUrl` (a product without a picture) is refused, never resolved to the
  /// service root and fetched as if the service document were a picture.
  @Test func anEmptyPictureURLIsRefused() async throws {
    let loader = ProductPictureLoader(
      serviceRoot: try #require(URL(string: "http://127.0.0.1:9/odata/")))
    for empty in ["", "  "] {
      let error = #expect(throws: CatalogError.self) { try loader.resolve(empty) }
      #expect(error?.code == .invalidURL)
      await #expect(throws: CatalogError.self) { try await loader.picture(for: empty) }
    }
  }

  @Test func concurrentRequestsForOneURLShareOneDownload() async throws {
    let server = try ODataTestServers.shared(.v2)
    let loader = ProductPictureLoader(serviceRoot: server.serviceRoot)
    let path = "/imgs/HT-1081.jpg"
    let before = try await Self.serverCounts(server)[path] ?? 0
    let results = try await withThrowingTaskGroup(of: Data.self) { group in
      for _ in 0..<8 {
        group.addTask { try await loader.picture(for: path) }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(results.count == 8)
    #expect(results.allSatisfy { $0 == Self.expectedBytes("HT-1081") })
    #expect(await loader.downloadCount == 1)
    _ = try await loader.picture(for: path)
    #expect(await loader.downloadCount == 1, "served from the cache")
    let after = try await Self.serverCounts(server)[path] ?? 0
    #expect(after - before == 1)
  }

  @Test func cacheIsBoundedInBytes() async throws {
    let server = try ODataTestServers.shared(.v4)
    let size = Self.expectedBytes("HT-1000").count
    let loader = ProductPictureLoader(serviceRoot: server.serviceRoot, cacheCapacityBytes: 2 * size)
    for id in ["HT-1030", "HT-1031", "HT-1035"] {
      _ = try await loader.picture(for: "/imgs/\(id).jpg")
    }
    #expect(await loader.cachedByteCount == 2 * size)
    #expect(await loader.downloadCount == 3)
    _ = try await loader.picture(for: "/imgs/HT-1035.jpg")
    #expect(await loader.downloadCount == 3, "the newest stays cached")
    _ = try await loader.picture(for: "/imgs/HT-1030.jpg")
    #expect(await loader.downloadCount == 4, "the oldest was evicted")
    await loader.removeAllCachedPictures()
    #expect(await loader.cachedByteCount == 0)
  }

  @Test func missingPictureIsHTTP404() async throws {
    let loader = ProductPictureLoader(serviceRoot: try ODataTestServers.shared(.v4).serviceRoot)
    let error = await #expect(throws: CatalogError.self) {
      try await loader.picture(for: "/imgs/NOPE.jpg")
    }
    #expect(error?.httpStatus == 404)
  }

  @Test func oversizedPictureIsRefused() async throws {
    let loader = ProductPictureLoader(
      serviceRoot: try ODataTestServers.shared(.v4).serviceRoot, maximumPictureBytes: 16)
    let error = await #expect(throws: CatalogError.self) {
      try await loader.picture(for: "/imgs/HT-1000.jpg")
    }
    #expect(error?.code == .responseTooLarge)
  }
}
