import Foundation
import TestSupport
import Testing
import VisionCatalog

/// `serve`'s web page in headless Chromium (`Scripts/serve-tests/page_test.py`): keyboard focus,
/// an upload, the results in the DOM, the small-screen layout, and screenshots saved under
/// `.build/test-artifacts`.
@Suite struct PageBrowserTests {
  static let root = CorpusLocator.packageRoot
  static let python = root.appendingPathComponent(".cache/browser-venv/bin/python")
  static let artifacts = root.appendingPathComponent(".build/test-artifacts")

  /// Why the browser tests cannot run here, or `nil`.
  static let unavailable: String? = {
    let files = FileManager.default
    if !files.isExecutableFile(atPath: "/usr/bin/chromium")
      || !files.isExecutableFile(atPath: "/usr/bin/chromedriver")
    {
      return "chromium or chromium-driver is absent (Scripts/setup --test-tools installs them)"
    }
    if !files.isExecutableFile(atPath: python.path) {
      return ".cache/browser-venv is absent (Scripts/serve-tests/setup-venv.sh makes it)"
    }
    return nil
  }()

  @Test(.enabled(if: unavailable == nil, "\(unavailable ?? ""): skipped"))
  func uploadingAPhotoShowsLabelsCategoryAndProducts() async throws {
    let server = try CatalogServer(host: "127.0.0.1", port: 0)
    server.ready(
      ProductFinder(
        model: try DummyClassifier(labels: ["Mice", "Mugs", "Keyboards", "Headsets", "Backpacks"]),
        mapping: .identity, provider: try OfflineCatalogProvider.bundled()))
    let run = try await ScriptRun.run(
      Self.python,
      [
        Self.root.appendingPathComponent("Scripts/serve-tests/page_test.py").path,
        "http://127.0.0.1:\(server.port)/",
        Self.root.appendingPathComponent("Samples/coffee.png").path,
        Self.artifacts.appendingPathComponent("page").path,
      ])
    print("page in Chromium: \(String(decoding: run.output, as: UTF8.self)) \(run.errors)")
    #expect(run.status == 0, "\(run.errors)")
    let report = try #require(
      try JSONSerialization.jsonObject(with: run.output) as? [String: Any])
    #expect(
      report["labels"] as? [String] == ["Mice", "Mugs", "Keyboards", "Headsets", "Backpacks"])
    #expect(report["category"] as? String == "Mice")
    #expect((report["products"] as? [String])?.isEmpty == false)
    await server.stop(within: .seconds(2))
  }
}
