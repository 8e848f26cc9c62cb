import Foundation
import TestSupport
import Testing
import VisionCatalog

/// `serve`'s routes over a real socket: the dummy model and the bundled catalog behind
/// `CatalogServer`, URLSession as the client.
@Suite struct CatalogServerTests {
  static let sample = CorpusLocator.packageRoot.appendingPathComponent(
    "Samples/espresso-barcode.jpg")

  typealias Answer = LocalHTTPAnswer

  static func request(
    _ port: Int, _ path: String, method: String = "GET", body: Data? = nil,
    contentType: String? = nil
  ) async throws -> Answer {
    try await LocalHTTP.request(port, path, method: method, body: body, contentType: contentType)
  }

  static func readyServer() throws -> CatalogServer {
    let server = try CatalogServer(host: "127.0.0.1", port: 0)
    server.ready(
      ProductFinder(
        model: try DummyClassifier(labels: ["Mice", "Mugs", "Keyboards"]), mapping: .identity,
        provider: try OfflineCatalogProvider.bundled()))
    return server
  }

  /// A PNG whose header declares 60,000 x 60,000 RGB pixels (10.8 GB decoded) in 70 bytes.
  static func decompressionBomb() -> Data {
    func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
      let typed = Array(type.utf8) + payload
      var crc: UInt32 = 0xFFFF_FFFF
      for byte in typed {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
      }
      crc ^= 0xFFFF_FFFF
      let length = UInt32(payload.count)
      return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) } + typed
        + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) }
    }
    let side: [UInt8] = [0, 0, 0xEA, 0x60]
    let header = side + side + [8, 2, 0, 0, 0]
    let zeros: [UInt8] = [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]
    return Data(
      [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header)
        + chunk("IDAT", zeros) + chunk("IEND", []))
  }

  @Test func photoRoutesAnswerWithTheCommandLinesJSON() async throws {
    let server = try Self.readyServer()
    let photo = try Data(contentsOf: Self.sample)
    let classify = try await Self.request(
      server.port, "/v1/classify", method: "POST", body: photo, contentType: "image/jpeg")
    #expect(classify.status == 200)
    #expect(classify.headers["content-type"] == "application/json")
    let report = try classify.json()
    #expect(Set(report.keys) == ["image", "classifications", "timingsMs"])
    let image = try #require(report["image"] as? [String: Any])
    #expect(image["width"] as? Int == 1200 && image["format"] as? String == "jpeg")

    let boundary = "vc-test-boundary"
    var form = Data(
      ("--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"p.jpg\"\r\n"
        + "Content-Type: image/jpeg\r\n\r\n").utf8)
    form += photo + Data("\r\n--\(boundary)--\r\n".utf8)
    let find = try await Self.request(
      server.port, "/v1/find", method: "POST", body: form,
      contentType: "multipart/form-data; boundary=\(boundary)")
    #expect(find.status == 200)
    let found = try find.json()
    let products = try #require(found["products"] as? [[String: Any]])
    #expect(!products.isEmpty)
    #expect(found["provenance"] as? String != nil)
    #expect(found.keys.contains("barcode"))

    let categories = try await Self.request(server.port, "/v1/categories")
    let listed = try #require(try categories.json()["categories"] as? [[String: Any]])
    #expect(listed.contains { $0["name"] as? String == "Mice" })
    await server.stop(within: .seconds(2))
  }

  @Test func clientMistakesAre4xxWithACode() async throws {
    let server = try Self.readyServer()
    let notImage = try await Self.request(
      server.port, "/v1/classify", method: "POST", body: Data("hello".utf8))
    #expect(notImage.status == 400)
    let error = try #require(try notImage.json()["error"] as? [String: Any])
    #expect(error["code"] as? String == "bad_image")

    let bomb = try await Self.request(
      server.port, "/v1/find", method: "POST", body: Self.decompressionBomb())
    #expect(bomb.status == 400)
    #expect(bomb.text.contains("\"code\":\"image_too_large\""))

    let empty = try await Self.request(server.port, "/v1/barcodes", method: "POST", body: Data())
    #expect(empty.status == 400)

    let unknown = try await Self.request(server.port, "/v1/../etc/passwd")
    #expect(unknown.status == 404)
    let wrongMethod = try await Self.request(server.port, "/v1/classify")
    #expect(wrongMethod.status == 405)
    #expect(wrongMethod.headers["allow"] == "POST")

    let metrics = try await Self.request(server.port, "/metrics")
    #expect(
      metrics.text.contains(
        #"visioncatalog_http_requests_total{route="/v1/classify",status="400"} 1"#))
    #expect(
      metrics.text.contains(#"visioncatalog_http_requests_total{route="other",status="404"} 1"#))
    #expect(metrics.text.contains("# TYPE visioncatalog_http_request_duration_seconds histogram"))
    #expect(metrics.text.contains("visioncatalog_queue_depth "))
    #expect(metrics.text.contains("# TYPE visioncatalog_batch_size histogram"))
    await server.stop(within: .seconds(2))
  }

  @Test(.enabled(if: DefaultModelFixture.model != nil, "needs the default model"))
  func similarAnswersWithAnIndexAndNotWithout() async throws {
    let tree = try PhotoTree("serve-similar")
    defer { try? FileManager.default.removeItem(at: tree.root) }
    _ = try tree.file("photos/HT-1091/shelf.jpg", bytes: Data(contentsOf: Self.sample))
    _ = try tree.file("photos/HT-1000/coffee.png", bytes: Data(contentsOf: PhotoTree.samplePhoto))
    let location = tree.url("shop.vcindex").path
    _ = try await ProductIndexer(printer: try FeaturePrinter(threadCount: 1)).index(
      photos: tree.url("photos"), into: location)
    var finder = ProductFinder(
      model: try DummyClassifier(labels: ["Espresso Machines"]), mapping: .identity,
      provider: try OfflineCatalogProvider.bundled())
    try finder.useIndex(try await ProductIndex.open(location), threadCount: 1)
    let server = try CatalogServer(host: "127.0.0.1", port: 0)
    server.ready(finder)
    let photo = try Data(contentsOf: Self.sample)
    let similar = try await Self.request(server.port, "/v1/similar", method: "POST", body: photo)
    #expect(similar.status == 200, "\(similar.text)")
    let matches = try #require(try similar.json()["matches"] as? [[String: Any]])
    #expect(matches.first?["productId"] as? String == "HT-1091")
    #expect(matches.count == 2)
    let find = try await Self.request(server.port, "/v1/find", method: "POST", body: photo)
    let found = try find.json()
    #expect((found["similar"] as? [[String: Any]])?.first?["productId"] as? String == "HT-1091")
    // The category's products come ranked: the one whose picture is closest first.
    let products = try #require(found["products"] as? [[String: Any]])
    #expect(products.first?["productId"] as? String == "HT-1091")
    await server.stop(within: .seconds(2))

    let plain = try Self.readyServer()
    let none = try await Self.request(plain.port, "/v1/similar", method: "POST", body: photo)
    #expect(none.status == 404)
    #expect(none.text.contains("\"code\":\"no_index\""))
    let plainFind = try await Self.request(plain.port, "/v1/find", method: "POST", body: photo)
    #expect(try plainFind.json()["similar"] == nil)
    await plain.stop(within: .seconds(2))
  }

  @Test func readinessWaitsForTheModelAndThePageIsServed() async throws {
    let server = try CatalogServer(host: "127.0.0.1", port: 0)
    #expect(try await Self.request(server.port, "/healthz").status == 200)
    let loading = try await Self.request(server.port, "/readyz")
    #expect(loading.status == 503)
    #expect(loading.headers["retry-after"] == "1")
    let page = try await Self.request(server.port, "/")
    #expect(page.status == 200)
    #expect(page.text.contains("<title>VisionCatalog</title>"))
    #expect(page.headers["content-security-policy"]?.contains("default-src 'none'") == true)
    #expect(!page.text.contains("https://") && !page.text.contains("http://"))
    server.ready(
      ProductFinder(
        model: try DummyClassifier(labels: ["Mice"]), mapping: .identity,
        provider: try OfflineCatalogProvider.bundled()))
    #expect(try await Self.request(server.port, "/readyz").status == 200)
    await server.stop(within: .seconds(2))
  }
}

extension LocalHTTPAnswer {
  /// The body as a JSON object.
  func json() throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
  }
}
