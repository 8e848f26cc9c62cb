import Foundation
import TestSupport
import Testing
import VisionCatalog

/// `Scripts/serve-tests/hostile_clients.py` against a live server: oversized and truncated
/// bodies, slow clients, 10,000 malformed requests, path traversal, a non-image body and a
/// decompression bomb; then a well-behaved client must still be served.
@Suite struct HostileClientTests {
  static let script = CorpusLocator.packageRoot.appendingPathComponent(
    "Scripts/serve-tests/hostile_clients.py")
  static let python = URL(fileURLWithPath: "/usr/bin/python3")

  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
      "python3 is absent: skipped"))
  func theServerKeepsServing() async throws {
    let server = try CatalogServer(host: "127.0.0.1", port: 0)
    server.ready(
      ProductFinder(
        model: try DummyClassifier(labels: ["Mice"]), mapping: .identity,
        provider: try OfflineCatalogProvider.bundled()))
    let output = try await Self.run(port: server.port)
    let report = try #require(
      try JSONSerialization.jsonObject(with: output) as? [String: Any])
    print("hostile clients: \(String(decoding: output, as: UTF8.self))")
    let attacks = try #require(report["attacks"] as? [String: [String: Any]])
    #expect(attacks["oversized_declared"]?["status"] as? Int == 413)
    #expect(attacks["oversized_chunked"]?["closed"] as? Bool == true)
    #expect(attacks["truncated_multipart"]?["status"] as? Int == 400)
    #expect(attacks["not_an_image"]?["status"] as? Int == 400)
    #expect(attacks["decompression_bomb"]?["status"] as? Int == 400)
    #expect((attacks["traversal"]?["statuses"] as? [Int])?.allSatisfy { $0 == 404 } == true)
    let malformed = try #require(attacks["malformed"])
    #expect(malformed["count"] as? Int == 10_000)
    #expect(malformed["connect_errors"] as? Int == 0)
    #expect(malformed["server_errors"] as? Int == 0)
    #expect((attacks["slow_loris"]?["served_meanwhile"] as? Int ?? 0) > 0)
    let after = try #require(report["after"] as? [String: Int])
    #expect(after == ["health": 200, "classify": 200])
    await server.stop(within: .seconds(2))
  }

  /// Runs the script and returns its standard output.
  static func run(port: Int) async throws -> Data {
    let run = try await ScriptRun.run(
      python, [script.path, String(port), CatalogServerTests.sample.path])
    #expect(run.status == 0, "\(run.errors)")
    return run.output
  }
}
